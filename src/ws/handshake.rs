//! The server's half of the opening handshake (RFC 6455 §4.2.2): the `101` with its
//! `Sec-WebSocket-Accept`, the base64 of the SHA-1 of the client's key and the protocol's
//! GUID. SHA-1 (RFC 3174) and base64 (RFC 4648 §4) are written here, for 60 bytes per
//! connection: no dependency for that.

/// The GUID every accept hashes with the key (§1.3).
const GUID: &[u8; 36] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// Append the `101 Switching Protocols` answering `key` to `out`.
pub(super) fn switching_protocols(key: &[u8; 24], out: &mut Vec<u8>) {
    out.extend_from_slice(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Accept: ",
    );
    out.extend_from_slice(&accept(key));
    out.extend_from_slice(b"\r\n\r\n");
}

/// `Sec-WebSocket-Accept` for `key` (§4.2.2 item 5.4).
pub(super) fn accept(key: &[u8; 24]) -> [u8; 28] {
    let mut message = [0u8; 60];
    message[..24].copy_from_slice(key);
    message[24..].copy_from_slice(GUID);
    base64_20(&sha1(&message))
}

/// SHA-1 of `data` (RFC 3174 §6.1).
pub(super) fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    // The message, a 1 bit, zeros, and its length in bits: whole 64-byte blocks.
    let bits = (data.len() as u64).wrapping_mul(8);
    let blocks = (data.len() + 9).div_ceil(64);
    for i in 0..blocks {
        let mut block = [0u8; 64];
        for (j, byte) in block.iter_mut().enumerate() {
            let at = i * 64 + j;
            *byte = if at < data.len() {
                data[at]
            } else if at == data.len() {
                0x80
            } else {
                0
            };
        }
        if i == blocks - 1 {
            block[56..].copy_from_slice(&bits.to_be_bytes());
        }
        let mut w = [0u32; 80];
        for t in 0..16 {
            w[t] = u32::from_be_bytes([
                block[4 * t],
                block[4 * t + 1],
                block[4 * t + 2],
                block[4 * t + 3],
            ]);
        }
        for t in 16..80 {
            w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (t, &wt) in w.iter().enumerate() {
            let (f, k) = match t {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let temp = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(wt);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = temp;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// Base64 (RFC 4648 §4, padded) of 20 bytes: 28 letters.
fn base64_20(data: &[u8; 20]) -> [u8; 28] {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = [b'='; 28];
    let mut o = 0;
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | (u32::from(c) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out[o + i] = ALPHABET[(n >> (18 - 6 * i) & 63) as usize];
        }
        o += 4;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{accept, sha1};

    /// RFC 6455 §1.3's example.
    #[test]
    fn the_accept_of_rfc_6455_example() {
        assert_eq!(
            &accept(b"dGhlIHNhbXBsZSBub25jZQ=="),
            b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    /// RFC 3174 §7.3's tests, and the empty message.
    #[test]
    fn sha1_of_rfc_3174_tests() {
        let hex = |d: [u8; 20]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(sha1(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        assert_eq!(
            hex(sha1(&[b'a'; 1_000_000])),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        );
    }
}
