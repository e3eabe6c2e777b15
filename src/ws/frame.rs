//! WebSocket frames (RFC 6455 §5.2): a client frame's header read, a server frame written,
//! payloads unmasked (§5.3), and which close codes a peer may send (§7.4).

/// Opcodes (§5.2, §11.8).
pub(super) const CONTINUATION: u8 = 0x0;
pub(super) const TEXT: u8 = 0x1;
pub(super) const BINARY: u8 = 0x2;
pub(super) const CLOSE: u8 = 0x8;
pub(super) const PING: u8 = 0x9;
pub(super) const PONG: u8 = 0xA;

/// The largest control frame payload (§5.5).
pub(super) const MAX_CONTROL: usize = 125;

/// Close codes the server sends (§7.4.1).
pub(super) const GOING_AWAY: u16 = 1001;
pub(super) const PROTOCOL_ERROR: u16 = 1002;
pub(super) const INVALID_DATA: u16 = 1007;
pub(super) const TOO_BIG: u16 = 1009;

/// A client frame's header, read whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) fin: bool,
    pub(super) opcode: u8,
    pub(super) mask: [u8; 4],
    pub(super) len: u64,
    /// The header's own length (2 to 14 bytes).
    pub(super) size: usize,
}

/// Read a client frame's header from the start of `buf`: `Ok(None)` while incomplete,
/// `Err(1002)` when it breaks §5.2: RSV bits without an extension, a reserved opcode, no
/// mask (§5.1: a client masks every frame), a length with its top bit set, a control frame
/// fragmented or longer than 125 bytes (§5.5).
pub(super) fn read_header(buf: &[u8]) -> Result<Option<Header>, u16> {
    let [b0, b1, ..] = *buf else {
        return Ok(None);
    };
    let (fin, opcode) = (b0 & 0x80 != 0, b0 & 0x0F);
    if b0 & 0x70 != 0 || b1 & 0x80 == 0 {
        return Err(PROTOCOL_ERROR);
    }
    let control = opcode & 0x8 != 0;
    match opcode {
        CONTINUATION | TEXT | BINARY | CLOSE | PING | PONG => {}
        _ => return Err(PROTOCOL_ERROR),
    }
    let (len, at) = match b1 & 0x7F {
        126 => match buf.get(2..4) {
            Some(b) => (u64::from(u16::from_be_bytes([b[0], b[1]])), 4),
            None => return Ok(None),
        },
        127 => match buf.get(2..10) {
            Some(b) => {
                let n = u64::from_be_bytes(b.try_into().expect("8 bytes"));
                if n >> 63 != 0 {
                    return Err(PROTOCOL_ERROR);
                }
                (n, 10)
            }
            None => return Ok(None),
        },
        n => (u64::from(n), 2),
    };
    if control && (!fin || len > MAX_CONTROL as u64) {
        return Err(PROTOCOL_ERROR);
    }
    let Some(mask) = buf.get(at..at + 4) else {
        return Ok(None);
    };
    Ok(Some(Header {
        fin,
        opcode,
        mask: mask.try_into().expect("4 bytes"),
        len,
        size: at + 4,
    }))
}

/// Append `src` unmasked to `dst` (§5.3), `offset` bytes into the frame's payload.
pub(super) fn unmask_into(dst: &mut Vec<u8>, src: &[u8], mask: [u8; 4], offset: u64) {
    let start = dst.len();
    dst.extend_from_slice(src);
    let shift = (offset % 4) as usize;
    let m = [
        mask[shift],
        mask[(shift + 1) % 4],
        mask[(shift + 2) % 4],
        mask[(shift + 3) % 4],
    ];
    let word = u64::from_ne_bytes([m[0], m[1], m[2], m[3], m[0], m[1], m[2], m[3]]);
    let mut chunks = dst[start..].chunks_exact_mut(8);
    for c in &mut chunks {
        let v = u64::from_ne_bytes((&*c).try_into().expect("8 bytes")) ^ word;
        c.copy_from_slice(&v.to_ne_bytes());
    }
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b ^= m[i % 4];
    }
}

/// Append a server frame's header (FIN set, unmasked: §5.1) for a payload of `len` bytes.
pub(super) fn write_header(out: &mut Vec<u8>, opcode: u8, len: usize) {
    let b0 = 0x80 | opcode;
    if len < 126 {
        out.extend_from_slice(&[b0, len as u8]);
    } else if len <= usize::from(u16::MAX) {
        out.extend_from_slice(&[b0, 126]);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.extend_from_slice(&[b0, 127]);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
}

/// Whether a peer may send close code `code` (§7.4.1, §7.4.2, the IANA registry of §11.7):
/// 1000-1003 and 1007-1014 are defined; 1004 is reserved, 1005, 1006 and 1015 are never sent;
/// 1016-2999 are unassigned; 3000-4999 are for libraries, frameworks and applications.
pub(super) fn is_valid_close_code(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_as_rfc_6455_section_5_2_says() {
        let m = [0x37, 0xfa, 0x21, 0x3d];
        let with_mask = |h: &[u8]| [h, &m[..]].concat();
        // §5.7: a masked "Hello".
        let hello = read_header(&with_mask(&[0x81, 0x85])).unwrap().unwrap();
        assert_eq!(
            (hello.fin, hello.opcode, hello.len, hello.size),
            (true, TEXT, 5, 6)
        );
        let mut out = Vec::new();
        unmask_into(&mut out, &[0x7f, 0x9f, 0x4d, 0x51, 0x58], m, 0);
        assert_eq!(out, b"Hello");
        // The same, unmasked a byte at a time at its offsets.
        let mut out = Vec::new();
        for (i, b) in [0x7f, 0x9f, 0x4d, 0x51, 0x58].iter().enumerate() {
            unmask_into(&mut out, &[*b], m, i as u64);
        }
        assert_eq!(out, b"Hello");
        let long = read_header(&with_mask(&[0x82, 0xFE, 0x01, 0x00])).unwrap();
        assert_eq!(long.map(|h| (h.len, h.size)), Some((256, 8)));
        let longer = read_header(&with_mask(&[0x02, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0])).unwrap();
        assert_eq!(
            longer.map(|h| (h.fin, h.len, h.size)),
            Some((false, 65536, 14))
        );
        for partial in [&[0x81][..], &[0x81, 0x85, 0x37], &[0x82, 0xFE, 0x01]] {
            assert_eq!(read_header(partial), Ok(None), "{partial:?}");
        }
        for bad in [
            &[0x81, 0x05][..],                        // unmasked
            &[0xC1, 0x85],                            // RSV1
            &[0x83, 0x80],                            // reserved data opcode
            &[0x8B, 0x80],                            // reserved control opcode
            &[0x09, 0x80],                            // fragmented ping
            &[0x89, 0xFE, 0, 126],                    // ping of 126 bytes
            &[0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], // top bit of the length
        ] {
            assert_eq!(read_header(&with_mask(bad)), Err(PROTOCOL_ERROR), "{bad:?}");
        }
    }

    #[test]
    fn close_codes_allowed_from_a_peer() {
        for ok in [
            1000, 1001, 1002, 1003, 1007, 1011, 1014, 3000, 3999, 4000, 4999,
        ] {
            assert!(is_valid_close_code(ok), "{ok}");
        }
        for bad in [
            0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535,
        ] {
            assert!(!is_valid_close_code(bad), "{bad}");
        }
    }

    #[test]
    fn server_headers_use_the_shortest_length() {
        for (len, want) in [
            (0, &[0x81, 0][..]),
            (125, &[0x81, 125]),
            (126, &[0x81, 126, 0, 126]),
            (65535, &[0x81, 126, 0xFF, 0xFF]),
            (65536, &[0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]),
        ] {
            let mut out = Vec::new();
            write_header(&mut out, TEXT, len);
            assert_eq!(out, want, "{len}");
        }
    }
}
