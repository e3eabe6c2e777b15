//! The Huffman code of RFC 7541 Appendix B, decoded as a canonical code: a 256-entry table for
//! the codes of up to 8 bits, one comparison per length for the rest.
//!
//! The code is canonical: within each length the codes count up in symbol order, and the
//! first code of a length follows the last code of the one before, shifted left. So the
//! number of codes of each length and the symbols in that order rebuild it, and a code's
//! length is the first length whose limit (one past its last code, left-justified) lies above
//! the next 32 bits of input. Every 5- to 8-bit code, which covers the digits, the letters and
//! most of the punctuation a header holds, is decoded with one table look-up instead.

use super::error::Error;

/// How many codes each length has, indexed by length: Appendix B counted. The 30-bit codes
/// include EOS.
const COUNTS: [u32; 31] = [
    0, 0, 0, 0, 0, 10, 26, 32, 6, 0, 5, 3, 2, 6, 2, 3, 0, 0, 0, 3, 8, 13, 26, 29, 12, 4, 15, 19,
    29, 0, 4,
];

/// The symbols in code order: by length, then by value (Appendix B). EOS, the very last code
/// (30 ones), is index 256 and has no byte.
#[rustfmt::skip]
const SYMBOLS: [u8; 256] = [
    // 5 bits: 10 symbols
    b'0', b'1', b'2', b'a', b'c', b'e', b'i', b'o', b's', b't',
    // 6 bits: 26 symbols
    b' ', b'%', b'-', b'.', b'/', b'3', b'4', b'5', b'6', b'7', b'8', b'9', b'=', b'A', b'_',
    b'b', b'd', b'f', b'g', b'h', b'l', b'm', b'n', b'p', b'r', b'u',
    // 7 bits: 32 symbols
    b':', b'B', b'C', b'D', b'E', b'F', b'G', b'H', b'I', b'J', b'K', b'L', b'M', b'N', b'O',
    b'P', b'Q', b'R', b'S', b'T', b'U', b'V', b'W', b'Y', b'j', b'k', b'q', b'v', b'w', b'x',
    b'y', b'z',
    // 8 bits: 6 symbols
    b'&', b'*', b',', b';', b'X', b'Z',
    // 10 bits: 5 symbols
    b'!', b'"', b'(', b')', b'?',
    // 11 bits: 3 symbols
    b'\'', b'+', b'|',
    // 12 bits: 2 symbols
    b'#', b'>',
    // 13 bits: 6 symbols
    0, b'$', b'@', b'[', b']', b'~',
    // 14 bits: 2 symbols
    b'^', b'}',
    // 15 bits: 3 symbols
    b'<', b'`', b'{',
    // 19 bits: 3 symbols
    b'\\', 195, 208,
    // 20 bits: 8 symbols
    128, 130, 131, 162, 184, 194, 224, 226,
    // 21 bits: 13 symbols
    153, 161, 167, 172, 176, 177, 179, 209, 216, 217, 227, 229, 230,
    // 22 bits: 26 symbols
    129, 132, 133, 134, 136, 146, 154, 156, 160, 163, 164, 169, 170, 173, 178, 181, 185, 186, 187,
    189, 190, 196, 198, 228, 232, 233,
    // 23 bits: 29 symbols
    1, 135, 137, 138, 139, 140, 141, 143, 147, 149, 150, 151, 152, 155, 157, 158, 165, 166, 168,
    174, 175, 180, 182, 183, 188, 191, 197, 231, 239,
    // 24 bits: 12 symbols
    9, 142, 144, 145, 148, 159, 171, 206, 215, 225, 236, 237,
    // 25 bits: 4 symbols
    199, 207, 234, 235,
    // 26 bits: 15 symbols
    192, 193, 200, 201, 202, 205, 210, 213, 218, 219, 238, 240, 242, 243, 255,
    // 27 bits: 19 symbols
    203, 204, 211, 212, 214, 221, 222, 223, 241, 244, 245, 246, 247, 248, 250, 251, 252, 253, 254,
    // 28 bits: 29 symbols
    2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29, 30,
    31, 127, 220, 249,
    // 30 bits: 4 codes, the last of them EOS
    10, 13, 22,
];

/// The longest code (EOS and three control bytes).
const MAX_LEN: u32 = 30;

/// Per length: its first code, one past its last code left-justified in 32 bits, and the code
/// order index of its first symbol.
struct Canonical {
    first: [u32; 31],
    limit: [u64; 31],
    offset: [usize; 31],
}

const fn canonical() -> Canonical {
    let mut c = Canonical {
        first: [0; 31],
        limit: [0; 31],
        offset: [0; 31],
    };
    let (mut code, mut offset, mut len) = (0u32, 0usize, 1usize);
    while len <= MAX_LEN as usize {
        c.first[len] = code;
        c.offset[len] = offset;
        code += COUNTS[len];
        offset += COUNTS[len] as usize;
        c.limit[len] = (code as u64) << (32 - len);
        code <<= 1;
        len += 1;
    }
    c
}

static CODE: Canonical = canonical();

/// The next byte of input to `(length << 8) | symbol` when it starts with a code of up to 8
/// bits, else 0.
static SHORT: [u16; 256] = {
    let code = canonical();
    let mut t = [0u16; 256];
    let mut len = 5;
    while len <= 8 {
        let mut i = 0;
        while i < COUNTS[len] {
            let prefix = ((code.first[len] + i) << (8 - len)) as usize;
            let symbol = SYMBOLS[code.offset[len] + i as usize];
            let mut low = 0;
            while low < 1 << (8 - len) {
                t[prefix + low] = ((len as u16) << 8) | symbol as u16;
                low += 1;
            }
            i += 1;
        }
        len += 1;
    }
    t
};

/// The length of the code at the top of `acc`, and its symbol, or `None` for EOS.
#[inline(always)]
fn next_code(acc: u64) -> (u32, Option<u8>) {
    let short = SHORT[(acc >> 56) as usize];
    if short != 0 {
        return (u32::from(short >> 8), Some(short as u8));
    }
    let next = acc >> 32;
    let mut len = 9;
    while next >= CODE.limit[len] {
        len += 1;
    }
    let index = CODE.offset[len] + ((next >> (32 - len)) as u32 - CODE.first[len]) as usize;
    (len as u32, SYMBOLS.get(index).copied())
}

/// Decodes the Huffman-coded `src` into the front of `out`, returning how many bytes it
/// wrote. The end must be padding of at most 7 bits, all ones (§5.2).
pub(super) fn decode(src: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    // The unread bits, left-justified: bit 63 is the next one, `bits` of them counted. The
    // bits past those are the input's next bits, or zero past its end.
    let mut acc: u64 = 0;
    let mut bits: u32 = 0;
    let mut pos = 0;
    let mut written = 0;
    loop {
        if let Some(&word) = src[pos..].first_chunk::<8>() {
            // Eight bytes in one load; the whole bytes that fit below 64 bits are counted.
            acc |= u64::from_be_bytes(word) >> bits;
            let whole = (63 - bits) / 8;
            pos += whole as usize;
            bits += whole * 8;
        } else {
            while bits <= 56 && pos < src.len() {
                acc |= u64::from(src[pos]) << (56 - bits);
                bits += 8;
                pos += 1;
            }
        }
        if bits < MAX_LEN {
            break; // the input is exhausted
        }
        // Every code fits in what is counted: no check of the length per symbol.
        while bits >= MAX_LEN {
            let (len, symbol) = next_code(acc);
            let Some(symbol) = symbol else {
                return Err(Error::HuffmanEos);
            };
            let Some(slot) = out.get_mut(written) else {
                return Err(Error::StringTooLong);
            };
            *slot = symbol;
            written += 1;
            acc <<= len;
            bits -= len;
        }
    }
    // The last bits: whole codes, then what no code completes, which must be padding.
    while bits > 0 {
        let (len, symbol) = next_code(acc);
        if len > bits {
            break;
        }
        let Some(symbol) = symbol else {
            return Err(Error::HuffmanEos);
        };
        let Some(slot) = out.get_mut(written) else {
            return Err(Error::StringTooLong);
        };
        *slot = symbol;
        written += 1;
        acc <<= len;
        bits -= len;
    }
    if bits > 7 {
        return Err(Error::HuffmanPaddingTooLong);
    }
    // EOS is all ones, so its most significant bits are too.
    if bits > 0 && acc >> (64 - bits) != (1 << bits) - 1 {
        return Err(Error::HuffmanPaddingNotOnes);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(src: &[u8]) -> Result<([u8; 64], usize), Error> {
        let mut out = [0; 64];
        decode(src, &mut out).map(|n| (out, n))
    }

    #[test]
    fn rfc_examples_and_padding() {
        #[rustfmt::skip]
        let ok: &[(&[u8], &[u8])] = &[
            // C.4.1, C.4.2, C.6.1
            (&[0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff], b"www.example.com"),
            (&[0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf], b"no-cache"),
            (&[0x64, 0x02], b"302"),
            (&[0xae, 0xc3, 0x77, 0x1a, 0x4b], b"private"),
            (&[], b""),
            (&[0x07], b"0"),         // '0' = 00000, padded with 111
            (&[0x1c, 0x7f], b"ab"),  // 'a' 'b' = 00011 100011, then 11111
        ];
        for &(src, text) in ok {
            let (out, n) = decoded(src).unwrap_or_else(|e| panic!("{src:02x?}: {e}"));
            assert_eq!(&out[..n], text);
        }
        #[rustfmt::skip]
        let bad: &[(&[u8], Error)] = &[
            (&[0xff], Error::HuffmanPaddingTooLong),          // 8 ones: a prefix of EOS, too long
            (&[0x07, 0xff], Error::HuffmanPaddingTooLong),    // '0', then 8 ones
            (&[0x00], Error::HuffmanPaddingNotOnes),          // '0', then 000
            (&[0x06], Error::HuffmanPaddingNotOnes),          // '0', then 110
            (&[0xff, 0xff, 0xff, 0xfc], Error::HuffmanEos),   // EOS and 2 zero bits
            (&[0xff, 0xff, 0xff, 0xff], Error::HuffmanEos),   // EOS and 2 ones
        ];
        for &(src, error) in bad {
            assert_eq!(decoded(src).map(|(_, n)| n), Err(error), "{src:02x?}");
        }
    }

    #[test]
    fn output_bound() {
        let mut out = [0; 3];
        assert_eq!(
            decode(&[0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf], &mut out),
            Err(Error::StringTooLong)
        );
        assert_eq!(decode(&[0x64, 0x02], &mut out), Ok(3));
    }

    #[test]
    fn the_tables_hold_the_whole_code() {
        assert_eq!(COUNTS.iter().sum::<u32>(), 257);
        let mut seen = [false; 256];
        for &s in &SYMBOLS {
            assert!(!seen[s as usize], "{s} twice");
            seen[s as usize] = true;
        }
        // The last code is 30 ones: the limit of 30 bits is 2^32, so every 32-bit window has
        // a length.
        assert_eq!(CODE.limit[30], 1 << 32);
        assert_eq!(CODE.first[30] + 3, (1 << 30) - 1);
        assert_eq!(SHORT.iter().filter(|&&e| e == 0).count(), 2);
    }
}
