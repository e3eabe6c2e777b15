//! The two primitives of RFC 7541 §5: prefixed integers and the framing of string literals.

use super::error::Error;

/// Continuation bytes an integer may have. Four carry 28 bits, far above any index, length or
/// size this decoder can use, and keep the value within `u32` on every target; a fifth is
/// refused rather than summed (§5.1 lets a decoder set that limit).
const MAX_CONTINUATION: usize = 4;

/// The integer whose prefix is the low `prefix_bits` bits of `block[*pos]` (§5.1), with `pos`
/// moved past it. The caller has checked that `block[*pos]` exists.
pub(super) fn integer(block: &[u8], pos: &mut usize, prefix_bits: u32) -> Result<usize, Error> {
    let max_prefix = (1u32 << prefix_bits) - 1;
    let mut value = u32::from(block[*pos]) & max_prefix;
    *pos += 1;
    if value < max_prefix {
        return Ok(value as usize);
    }
    for group in 0..MAX_CONTINUATION {
        let Some(&byte) = block.get(*pos) else {
            return Err(Error::IntegerTruncated);
        };
        *pos += 1;
        value += u32::from(byte & 0x7f) << (7 * group);
        if byte & 0x80 == 0 {
            // A final zero group after others adds nothing: the value had a shorter form.
            if byte == 0 && group > 0 {
                return Err(Error::IntegerNotMinimal);
            }
            return Ok(value as usize);
        }
    }
    Err(Error::IntegerOverflow)
}

/// A string literal as it is on the wire (§5.2): its bytes are `block[start..end]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Literal {
    /// The H bit: the bytes are Huffman-coded.
    pub huffman: bool,
    pub start: usize,
    pub end: usize,
}

/// The string literal at `block[*pos]`, with `pos` moved past it. Its bytes must lie within
/// the block: a header block arrives whole (RFC 9113 §4.3), so a short one is an error, not a
/// reason to wait.
pub(super) fn string(block: &[u8], pos: &mut usize) -> Result<Literal, Error> {
    let Some(&first) = block.get(*pos) else {
        return Err(Error::StringTruncated);
    };
    let len = integer(block, pos, 7)?;
    let start = *pos;
    if len > block.len() - start {
        return Err(Error::StringTruncated);
    }
    *pos = start + len;
    Ok(Literal {
        huffman: first & 0x80 != 0,
        start,
        end: start + len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (input, prefix bits, value, bytes consumed)
    type IntegerCase = (&'static [u8], u32, Result<usize, Error>, usize);

    /// RFC 7541 §5.1 and C.1, the limits around them, and what each error needs.
    #[rustfmt::skip]
    const INTEGERS: &[IntegerCase] = &[
        (&[0x0a], 5, Ok(10), 1),                                           // C.1.1
        (&[0x1f, 0x9a, 0x0a], 5, Ok(1337), 3),                             // C.1.2
        (&[0x2a], 8, Ok(42), 1),                                           // C.1.3
        (&[0xe0 | 0x1e], 5, Ok(30), 1),                                    // flag bits ignored
        (&[0x1f, 0x00], 5, Ok(31), 2),                                     // 2^N-1: one zero group
        (&[0x7f, 0x80, 0x01], 7, Ok(127 + 128), 3),                        // an inner zero group
        (&[0x1f, 0xff, 0xff, 0xff, 0x7f], 5, Ok(31 + (1 << 28) - 1), 5),   // the largest
        (&[0x1f, 0x80, 0x80, 0x80, 0x80], 5, Err(Error::IntegerOverflow), 5),
        (&[0x1f, 0xff, 0xff, 0xff, 0xff, 0x01], 5, Err(Error::IntegerOverflow), 5),
        (&[0x1f, 0x8a, 0x00], 5, Err(Error::IntegerNotMinimal), 3),
        (&[0x1f, 0x80, 0x80, 0x00], 5, Err(Error::IntegerNotMinimal), 4),
        (&[0x1f], 5, Err(Error::IntegerTruncated), 1),
        (&[0x1f, 0x9a], 5, Err(Error::IntegerTruncated), 2),
    ];

    #[test]
    fn integers() {
        for &(input, prefix, expected, consumed) in INTEGERS {
            let mut pos = 0;
            assert_eq!(integer(input, &mut pos, prefix), expected, "{input:02x?}");
            assert_eq!(pos, consumed, "{input:02x?}");
        }
    }

    #[test]
    fn string_framing() {
        let mut pos = 0;
        let s = string(b"\x83abcd", &mut pos).unwrap();
        assert!(s.huffman);
        assert_eq!((s.start, s.end, pos), (1, 4, 4));
        let mut pos = 1;
        let s = string(b"x\x00", &mut pos).unwrap();
        assert!(!s.huffman);
        assert_eq!((s.start, s.end, pos), (2, 2, 2));
        for input in [&b""[..], b"\x03ab", b"\x7f\x80\x01"] {
            assert_eq!(
                string(input, &mut 0).map(|_| ()),
                Err(Error::StringTruncated),
                "{input:02x?}"
            );
        }
        assert_eq!(
            string(b"\x7f", &mut 0).map(|_| ()),
            Err(Error::IntegerTruncated)
        );
    }
}
