//! The two checksums of the compressed formats, computed bit by bit at start-up: CRC-32
//! (gzip's, RFC 1952 §8) and Adler-32 (zlib's, RFC 1950 §9).

/// CRC-32 of `data` (the reflected polynomial 0xEDB88320, initial value and final XOR all
/// ones), as a gzip trailer holds it. Without a table: the catalogue hashes a few bytes, once.
pub(super) fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// Adler-32 of `data` (two sums modulo 65521, the high one shifted up), as a zlib trailer holds
/// it.
pub(super) fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (1u32, 0u32);
    for &c in data {
        a = (a + u32::from(c)) % MOD;
        b = (b + a) % MOD;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check values of the catalogues of parametrised CRCs (CRC-32/ISO-HDLC) and of
    /// RFC 1950's reference code.
    #[test]
    fn known_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"hello\n"), 0x363A_3020);
        assert_eq!(adler32(b""), 1);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(b"123456789"), 0x091E_01DE);
    }

    /// The sums wrap at 65521: 64 KiB of 0xFF, where sums without the modulus would differ.
    /// The value is Python's `zlib.adler32(b"\xff" * 65536)`.
    #[test]
    fn adler_wraps() {
        assert_eq!(adler32(&[0xFF; 65_536]), 0x7797_0EF2);
    }
}
