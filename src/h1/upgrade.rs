//! `Upgrade: h2c` (RFC 7540 §3.2, kept by RFC 9113 §3.1's note): an HTTP/1.1 request without
//! a body whose `Upgrade` lists `h2c`, whose `Connection` lists `upgrade` and that carries one
//! `HTTP2-Settings` (a base64url SETTINGS payload) is answered `101 Switching Protocols`.
//! Once that is written the connection says [`Next::Upgrade`](crate::conn::Next::Upgrade)
//! and hands the request over ([`Conn::take_handoff`]): the loop builds an HTTP/2 connection
//! that answers it on stream 1. A request with a body is answered in HTTP/1.1 and its
//! `Upgrade` ignored (the body would have to be read before the switch); so it is with
//! `--no-http2`, and with `--raw`, `--echo` and `--control` (HTTP/1 only).

use super::Conn;
use super::state::{Env, Phase, WorkArea};
use crate::conn::{Handoff, Pool};
use crate::parser::{Framing, Request};

/// The `101` answer to an upgrade to h2c.
pub const SWITCHING_PROTOCOLS: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

/// The longest `HTTP2-Settings` payload taken (bytes, decoded): more is not an upgrade.
pub const MAX_H2C_SETTINGS: usize = 6 * 64;

impl Conn {
    /// `req` asks to upgrade to h2c with the `HTTP2-Settings` value `value`: returns whether
    /// it is taken (the `101` queued, nothing more read or answered in HTTP/1).
    #[cold]
    #[inline(never)]
    pub(super) fn upgrade(
        &mut self,
        b: &mut WorkArea,
        req: &Request<'_>,
        value: &[u8],
        env: &Env<'_>,
    ) -> bool {
        let s = &env.settings.switches;
        if s.no_http2 || s.raw || s.by_request || req.framing != Framing::None {
            return false;
        }
        if !decode_settings(value, &mut b.h2c_settings) {
            return false;
        }
        b.out.extend_from_slice(SWITCHING_PROTOCOLS);
        self.phase = Phase::Upgrading;
        true
    }

    /// After [`Next::Upgrade`](crate::conn::Next::Upgrade): the request to answer in the
    /// other protocol, and the input read after it. The connection gives its work area back
    /// and is done.
    pub fn take_handoff(&mut self, pool: &mut Pool<WorkArea>) -> Handoff {
        let mut h = Handoff::default();
        self.phase = Phase::Closing { linger: false };
        let Some(mut b) = self.work.take() else {
            return h;
        };
        if let Some(p) = b.pending.take() {
            h.route = p.route as usize;
            h.head_only = p.head_request;
            if p.logged && b.log_line.len() >= b"HTTP/1.1 ".len() {
                // `METHOD TARGET HTTP/1.1 ` without its version.
                let words = b.log_line.len() - b"HTTP/1.1 ".len();
                h.log_words.extend_from_slice(&b.log_line[..words]);
            }
        }
        h.settings = std::mem::take(&mut b.h2c_settings);
        h.input = std::mem::take(&mut b.input);
        pool.put(b);
        h
    }
}

/// Decode `HTTP2-Settings` (token68 of base64url, RFC 7540 §3.2.1; padding tolerated) into
/// `out`: false when it is not base64url, or not a whole number of 6-byte settings.
fn decode_settings(value: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    let value = match value.iter().position(|&c| c == b'=') {
        Some(at) if value[at..].iter().all(|&c| c == b'=') => &value[..at],
        Some(_) => return false,
        None => value,
    };
    if value.len() % 4 == 1 || value.len() / 4 * 3 > MAX_H2C_SETTINGS {
        return false;
    }
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in value {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return false,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out.len() % 6 == 0
}

#[cfg(test)]
mod tests {
    use super::decode_settings;

    #[test]
    fn settings_decode_as_base64url() {
        let mut out = Vec::new();
        // curl's: MAX_CONCURRENT_STREAMS 100, INITIAL_WINDOW_SIZE 10 MiB, ENABLE_PUSH 0.
        assert!(decode_settings(b"AAMAAABkAAQAoAAAAAIAAAAA", &mut out));
        assert_eq!(
            out,
            [0, 3, 0, 0, 0, 100, 0, 4, 0, 160, 0, 0, 0, 2, 0, 0, 0, 0]
        );
        assert!(decode_settings(b"", &mut out));
        assert!(out.is_empty());
        assert!(decode_settings(b"AAQAAP__", &mut out));
        assert_eq!(out, [0, 4, 0, 0, 255, 255]);
        assert!(decode_settings(b"AAQAAP__==", &mut out));
        assert!(decode_settings(&[b'A'; 512], &mut out));
        assert!(!decode_settings(&[b'A'; 516], &mut out), "over 384 bytes");
        for bad in [&b"AAQAAP+/"[..], b"AAQAAP", b"AAQ=AP__", b"A"] {
            assert!(!decode_settings(bad, &mut out), "{bad:?}");
        }
    }
}
