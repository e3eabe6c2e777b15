//! `Upgrade: h2c` (RFC 7540 §3.2, kept by RFC 9113 §3.1's note): an HTTP/1.1 request without
//! a body whose `Upgrade` lists `h2c`, whose `Connection` lists `upgrade` and that carries one
//! `HTTP2-Settings` (a base64url SETTINGS payload) is answered `101 Switching Protocols`.
//! Once that is written the connection says [`Next::Upgrade`](crate::conn::Next::Upgrade)
//! and hands the request over ([`Http1Conn::take_handoff`]): the loop builds an HTTP/2 connection
//! that answers it on stream 1. A request with a body is answered in HTTP/1.1 and its
//! `Upgrade` ignored (the body would have to be read before the switch); so it is with
//! `--no-http2` and `--raw`.
//! With `--echo` or `--journal` the head goes with the request, for HTTP/2 to echo and
//! record, and with `--control` the control it named, read here once.

use super::Http1Conn;
use super::state::{Env, Phase, WorkArea};
use crate::conn::{H2cRequest, Handoff, Pool, Upgrade};
use crate::parser::Request;
#[cfg(any(feature = "http2", feature = "websocket"))]
use crate::parser::{Framing, Version};
#[cfg(any(feature = "http2", feature = "access-log"))]
use crate::response::ExtendCold;

/// The `101` answer to an upgrade to h2c.
#[cfg(feature = "http2")]
pub const SWITCHING_PROTOCOLS: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

/// The longest `HTTP2-Settings` payload taken (bytes, decoded): more is not an upgrade.
#[cfg(feature = "http2")]
pub const MAX_H2C_SETTINGS: usize = 6 * 64;

impl Http1Conn {
    /// The request whose head is `head` came with an `Upgrade` field (the parser's
    /// `Request::upgrade`, out of the plain path): if it asks for h2c, queue the `101`
    /// and stop answering in HTTP/1; returns whether it did.
    #[cold]
    #[inline(never)]
    pub(super) fn upgrade(
        &mut self,
        b: &mut WorkArea,
        req: &Request<'_>,
        head: &[u8],
        env: &mut Env<'_>,
    ) -> bool {
        // The request line is read again from `head`, not from `req`: a read of more of
        // `req`'s fields here makes the plain path keep the whole of it in memory (measured:
        // 22 instructions per request).
        #[cfg(feature = "websocket")]
        if let Some(ws) = env.settings.websocket {
            let (method, path) = super::websocket::request_line(head);
            if let Some(i) = ws.paths.iter().position(|p| **p == *path) {
                let asks = method == b"GET"
                    && req.version == Version::Http11
                    && req.framing == Framing::None;
                let path = crate::conn::WebSocketRequest {
                    key: [0; 24],
                    max_message: ws.max_message,
                    faults: ws.faults.get(i).filter(|f| !f.is_none()),
                };
                self.websocket(b, asks, method == b"HEAD", head, path, env);
                return true;
            }
        }
        #[cfg(feature = "http2")]
        return self.upgrade_h2c(b, req, head, env);
        #[cfg(not(feature = "http2"))]
        {
            let _ = (b, req, head, env);
            false
        }
    }

    /// [`Http1Conn::upgrade`] to h2c, where HTTP/2 is built: the `HTTP2-Settings` decoded
    /// into the work area, and with `--control` the control read for HTTP/2.
    #[cfg(feature = "http2")]
    fn upgrade_h2c(
        &mut self,
        b: &mut WorkArea,
        req: &Request<'_>,
        head: &[u8],
        env: &mut Env<'_>,
    ) -> bool {
        let s = &env.settings.switches;
        if s.no_http2 || s.raw || req.framing != Framing::None || req.version != Version::Http11 {
            return false;
        }
        let Some(value) = h2c_settings(head) else {
            return false;
        };
        if !decode_settings(value, &mut b.h2c_settings) {
            return false;
        }
        #[cfg(feature = "control")]
        if s.control() {
            self.control_goes_over(b, head, env);
        }
        #[cfg(feature = "echo")]
        if s.by_request() || env.features.journal.is_some() {
            b.echo.hold_head(head);
        }
        b.out.extend_cold(SWITCHING_PROTOCOLS);
        self.phase = Phase::Upgrading;
        true
    }

    /// `--control` is on: read the control the request whose head is `head` names, and keep
    /// it in `b` for HTTP/2 (`Ok(None)` kept as none), which answers it on stream 1, a
    /// delivery fault per stream as HTTP/2 applies one.
    #[cfg(all(feature = "http2", feature = "control"))]
    #[cold]
    #[inline(never)]
    fn control_goes_over(&mut self, b: &mut WorkArea, head: &[u8], env: &Env<'_>) {
        b.control.forget();
        let Some(p) = b.pending else {
            return;
        };
        let route = usize::from(p.route);
        // As in `start_control`: echo routes and the health route are never controlled.
        if env.features.echoes(route) || env.responses.is_health(route) {
            return;
        }
        let draw = crate::control::draw(env.now_us, env.stats.requests);
        b.control.asked = crate::control::from_head(head, route == 0, draw).transpose();
    }

    /// After [`Next::Upgrade`](crate::conn::Next::Upgrade) ([`Connection::take_handoff`]): the
    /// request to answer in the other protocol, and the input read after it. The connection
    /// gives its work area back and is done.
    ///
    /// [`Connection::take_handoff`]: crate::conn::Connection::take_handoff
    pub(super) fn handoff(&mut self, pool: &mut Pool<WorkArea>) -> Option<Handoff> {
        if self.phase != Phase::Upgrading {
            return None;
        }
        let mut request = H2cRequest::default();
        self.phase = Phase::Closing { linger: false };
        let mut b = self.work.take()?;
        if let Some(target) = b.upgrade.take() {
            b.pending = None;
            let input = std::mem::take(&mut b.input);
            pool.put(b);
            return Some(Handoff { target, input });
        }
        if let Some(p) = b.pending.take() {
            request.route = p.route as usize;
            request.head_only = p.head_request;
            #[cfg(feature = "access-log")]
            if p.logged && b.log_line.len() >= b"HTTP/1.1 ".len() {
                // `METHOD TARGET HTTP/1.1 ` without its version.
                let words = b.log_line.len() - b"HTTP/1.1 ".len();
                request.log_words.extend_cold(&b.log_line[..words]);
            }
        }
        #[cfg(feature = "http2")]
        {
            request.settings = std::mem::take(&mut b.h2c_settings);
        }
        #[cfg(feature = "echo")]
        {
            request.head = b.echo.take_head();
        }
        #[cfg(feature = "control")]
        {
            request.control = b.control.asked.take().map(Box::new);
        }
        let input = std::mem::take(&mut b.input);
        pool.put(b);
        Some(Handoff {
            target: Upgrade::H2c(request),
            input,
        })
    }
}

/// The `HTTP2-Settings` value of a head that asks for h2c: `Upgrade` lists `h2c`,
/// `Connection` lists `upgrade`, and `HTTP2-Settings` comes once (RFC 7540 §3.2.1). The
/// parser has checked the head: field lines end in CRLF, names are tokens.
#[cfg(feature = "http2")]
fn h2c_settings(head: &[u8]) -> Option<&[u8]> {
    let (mut h2c, mut connection, mut settings, mut twice) = (false, false, None, false);
    let tokens = |v: &[u8], want: &[u8]| {
        v.split(|&c| c == b',')
            .any(|t| eq_ignore_case(t.trim_ascii(), want))
    };
    for line in head.split(|&c| c == b'\n').skip(1) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            continue;
        };
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if eq_ignore_case(name, b"upgrade") {
            h2c |= tokens(value, b"h2c");
        } else if eq_ignore_case(name, b"connection") {
            connection |= tokens(value, b"upgrade");
        } else if eq_ignore_case(name, b"http2-settings") {
            twice |= settings.replace(value).is_some();
        }
    }
    settings.filter(|_| h2c && connection && !twice)
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each), and this path is cold. The linker folds the
/// copies of this function that come out identical.
#[cfg(feature = "http2")]
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Decode `HTTP2-Settings` (token68 of base64url, RFC 7540 §3.2.1; padding tolerated) into
/// `out`: false when it is not base64url, or not a whole number of 6-byte settings.
#[cfg(feature = "http2")]
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

#[cfg(all(test, feature = "http2"))]
mod tests {
    use super::{decode_settings, h2c_settings};

    #[test]
    fn an_upgrade_to_h2c_is_read_from_the_head() {
        let head = |fields: &str| format!("GET / HTTP/1.1\r\nHost: x\r\n{fields}\r\n");
        let asks = |fields: &str| h2c_settings(head(fields).as_bytes()).map(<[u8]>::to_vec);
        let all = "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMA\r\n";
        assert_eq!(asks(all), Some(b"AAMA".to_vec()));
        let lower =
            "connection: keep-alive,upgrade\r\nupgrade: websocket, H2C\r\nhttp2-settings:  \r\n";
        assert_eq!(asks(lower), Some(Vec::new()));
        for no in [
            "Connection: HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMA\r\n",
            "Connection: Upgrade\r\nUpgrade: h2\r\nHTTP2-Settings: AAMA\r\n",
            "Connection: Upgrade\r\nUpgrade: h2c\r\n",
            "Connection: Upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: A\r\nHTTP2-Settings: A\r\n",
        ] {
            assert_eq!(asks(no), None, "{no}");
        }
    }

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
