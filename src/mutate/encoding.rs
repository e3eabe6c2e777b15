//! The compressed formats of the Content-Encoding variants, built at start-up without a
//! compression library: DEFLATE in stored blocks (RFC 1951 §3.2.4), wrapped as zlib (RFC 1950,
//! the `deflate` coding) or as one gzip member (RFC 1952, the `gzip` coding), with a way to
//! spoil each checksum.

use super::checksum::{adler32, crc32};

/// The largest stored block (LEN is 16 bits).
const BLOCK: usize = 0xFFFF;

/// `data` as a DEFLATE stream of stored blocks: each a header byte (BFINAL on the last one,
/// BTYPE 00), LEN and its complement NLEN (little-endian), then LEN bytes verbatim. Empty
/// data is one empty final block.
pub(super) fn deflate_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 5 * (data.len() / BLOCK + 1));
    let mut blocks = data.chunks(BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    while let Some(block) = blocks.next() {
        let len = block.len() as u16;
        out.push(u8::from(blocks.peek().is_none()));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out
}

/// Which checksum of a wrapper to spoil (each is off by one in its lowest bit).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Spoil {
    /// Every field right.
    Nothing,
    /// gzip's CRC32, or zlib's ADLER32.
    Check,
    /// gzip's ISIZE (the length of the data modulo 2^32).
    Size,
}

/// `data` as a zlib stream (RFC 1950 §2.2): CMF 0x78 (deflate, a 32 KiB window), FLG 0x01
/// (no dictionary, the fastest level, FCHECK making CMF·256 + FLG a multiple of 31), the
/// deflate data, and ADLER32 of `data`, big-endian.
pub(super) fn zlib(data: &[u8], spoil: Spoil) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    out.extend_from_slice(&deflate_stored(data));
    let check = adler32(data) ^ u32::from(spoil == Spoil::Check);
    out.extend_from_slice(&check.to_be_bytes());
    out
}

/// `data` as one gzip member (RFC 1952 §2.3): ID1 ID2 (0x1F 0x8B), CM 8 (deflate), no flags,
/// MTIME 0 (none), XFL 0, OS 255 (unknown), the deflate data, then CRC32 and ISIZE of `data`,
/// little-endian.
pub(super) fn gzip(data: &[u8], spoil: Spoil) -> Vec<u8> {
    let mut out = vec![0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF];
    out.extend_from_slice(&deflate_stored(data));
    let check = crc32(data) ^ u32::from(spoil == Spoil::Check);
    let size = (data.len() as u32) ^ u32::from(spoil == Spoil::Size);
    out.extend_from_slice(&check.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes Python's `zlib.compress(b"hello\n", 0)` and `gzip.compress(b"hello\n", 0,
    /// mtime=0)` write (for gzip, apart from XFL and OS, where Python writes 4 and 3).
    #[test]
    fn the_bytes_python_writes() {
        assert_eq!(
            zlib(b"hello\n", Spoil::Nothing),
            b"\x78\x01\x01\x06\x00\xf9\xffhello\n\x08\x4b\x02\x1f"
        );
        let mut python =
            *b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\x03\x01\x06\x00\xf9\xffhello\n 0:6\x06\x00\x00\x00";
        python[8..10].copy_from_slice(&[0, 0xFF]);
        assert_eq!(gzip(b"hello\n", Spoil::Nothing), python);
    }

    #[test]
    fn stored_blocks_split_at_65535_and_only_the_last_is_final() {
        assert_eq!(deflate_stored(b""), [1, 0, 0, 0xFF, 0xFF]);
        let data: Vec<u8> = (0..70_000u32).map(|i| i as u8).collect();
        let d = deflate_stored(&data);
        assert_eq!(d.len(), 70_000 + 10);
        assert_eq!(d[..5], [0, 0xFF, 0xFF, 0, 0]);
        assert_eq!(d[5..5 + BLOCK], data[..BLOCK]);
        let rest = (70_000 - BLOCK) as u16;
        let second = &d[5 + BLOCK..];
        assert_eq!(second[0], 1);
        assert_eq!(second[1..3], rest.to_le_bytes());
        assert_eq!(second[3..5], (!rest).to_le_bytes());
        assert_eq!(second[5..], data[BLOCK..]);
    }

    #[test]
    fn spoiling_changes_one_field_by_one_bit() {
        let good = gzip(b"hello\n", Spoil::Nothing);
        let crc = gzip(b"hello\n", Spoil::Check);
        let size = gzip(b"hello\n", Spoil::Size);
        let n = good.len();
        assert_eq!(good[..n - 8], crc[..n - 8]);
        assert_eq!(crc[n - 8] ^ good[n - 8], 1);
        assert_eq!(crc[n - 4..], good[n - 4..]);
        assert_eq!(size[..n - 4], good[..n - 4]);
        assert_eq!(size[n - 4] ^ good[n - 4], 1);
        let good = zlib(b"hello\n", Spoil::Nothing);
        let bad = zlib(b"hello\n", Spoil::Check);
        assert_eq!(good[..good.len() - 1], bad[..bad.len() - 1]);
        assert_eq!(good[good.len() - 1] ^ bad[bad.len() - 1], 1);
    }
}
