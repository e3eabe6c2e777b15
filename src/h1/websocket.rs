//! `Upgrade: websocket` on a `--websocket` path (RFC 6455 §4.2.1): the opening handshake
//! checked here, in HTTP/1. A valid one stops HTTP/1 ([`Phase::Upgrading`]) with nothing
//! written: the WebSocket connection it is handed to writes the `101` (it computes the
//! `Sec-WebSocket-Accept`). An invalid one is answered `400` (`426` with
//! `Sec-WebSocket-Version: 13` for another version, §4.4) and the connection closes.
//! A request on that path without an `Upgrade` field is routed as any other.

use super::Http1Conn;
use super::state::{Env, Phase, WorkArea};
use crate::conn::{Upgrade, WebSocketRequest};

/// Why a handshake is refused: the text of the `400`'s body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// Not GET, not HTTP/1.1, or with a body (§4.1: a GET, HTTP/1.1 or later).
    NotGet,
    /// `Upgrade` does not list `websocket`.
    NoUpgrade,
    /// `Connection` does not list `upgrade`.
    NoConnection,
    /// `Sec-WebSocket-Version` missing or not `13` (answered 426).
    Version,
    /// `Sec-WebSocket-Key` missing, repeated, or not 16 bytes in base64.
    Key,
}

impl Refused {
    fn reason(self) -> &'static str {
        match self {
            Refused::NotGet => "a WebSocket handshake is a GET in HTTP/1.1 without a body\n",
            Refused::NoUpgrade => "Upgrade must list websocket\n",
            Refused::NoConnection => "Connection must list Upgrade\n",
            Refused::Version => "Sec-WebSocket-Version must be 13\n",
            Refused::Key => "Sec-WebSocket-Key must be 16 bytes in base64, once\n",
        }
    }
}

impl Http1Conn {
    /// A request with an `Upgrade` field on a `--websocket` path: hand the connection over,
    /// or refuse the handshake. `path` is what the path gives the connection (its key
    /// is filled in here).
    #[cold]
    #[inline(never)]
    pub(super) fn websocket(
        &mut self,
        b: &mut WorkArea,
        get_11_without_body: bool,
        head_only: bool,
        head: &[u8],
        path: WebSocketRequest,
        env: &mut Env<'_>,
    ) {
        let out_start = b.out.len();
        let key = if get_11_without_body {
            handshake(head)
        } else {
            Err(Refused::NotGet)
        };
        match key {
            Ok(key) => {
                b.upgrade = Some(Upgrade::WebSocket(WebSocketRequest { key, ..path }));
                self.phase = Phase::Upgrading;
            }
            Err(why) => {
                b.body = super::state::Body::None;
                refusal(&mut b.out, why, head_only);
                self.phase = Phase::Closing { linger: true };
            }
        }
        let status = match key {
            Ok(_) => 101,
            Err(Refused::Version) => 426,
            Err(_) => 400,
        };
        env.stats.by_status[usize::from(status)] += 1;
        // The pending request stays until the handoff: the work area is kept while it does.
        if b.pending.is_some_and(|p| p.logged) {
            super::log::log_response_from(b, status, out_start, env);
        }
        if status != 101 {
            b.pending = None;
        }
    }
}

/// The method and the path (the target without its query; of an absolute-form target, what
/// follows its authority) of a head the parser accepted.
pub(super) fn request_line(head: &[u8]) -> (&[u8], &[u8]) {
    let start = head
        .iter()
        .position(|&c| c != b'\r' && c != b'\n')
        .unwrap_or(head.len());
    let mut words = head[start..].splitn(3, |&c| c == b' ');
    let method = words.next().unwrap_or_default();
    let mut target = words.next().unwrap_or_default();
    if let Some(at) = memchr::memmem::find(target, b"://") {
        let rest = &target[at + 3..];
        target = &rest[rest.iter().position(|&c| c == b'/').unwrap_or(rest.len())..];
    }
    let path = &target[..target
        .iter()
        .position(|&c| c == b'?')
        .unwrap_or(target.len())];
    (method, path)
}

/// The `400` or `426` for a refused handshake, closing the connection.
fn refusal(out: &mut Vec<u8>, why: Refused, head_only: bool) {
    let body = why.reason();
    out.extend_from_slice(if why == Refused::Version {
        &b"HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nUpgrade: websocket\r\n"[..]
    } else {
        b"HTTP/1.1 400 Bad Request\r\n"
    });
    out.extend_from_slice(b"Content-Type: text/plain\r\nConnection: close\r\nContent-Length: ");
    out.extend_from_slice(body.len().to_string().as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
    if !head_only {
        out.extend_from_slice(body.as_bytes());
    }
}

/// The `Sec-WebSocket-Key` of a valid opening handshake (§4.2.1 items 3-6), read from its
/// head (checked by the parser: field lines end in CRLF, names are tokens).
pub(super) fn handshake(head: &[u8]) -> Result<[u8; 24], Refused> {
    let (mut upgrade, mut connection, mut version, mut key, mut keys) =
        (false, false, false, None, 0);
    let tokens = |v: &[u8], want: &[u8]| {
        v.split(|&c| c == b',')
            .any(|t| t.trim_ascii().eq_ignore_ascii_case(want))
    };
    for line in head.split(|&c| c == b'\n').skip(1) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            continue;
        };
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"upgrade") {
            upgrade |= tokens(value, b"websocket");
        } else if name.eq_ignore_ascii_case(b"connection") {
            connection |= tokens(value, b"upgrade");
        } else if name.eq_ignore_ascii_case(b"sec-websocket-version") {
            version |= tokens(value, b"13");
        } else if name.eq_ignore_ascii_case(b"sec-websocket-key") {
            keys += 1;
            key = Some(value);
        }
    }
    if !upgrade {
        return Err(Refused::NoUpgrade);
    }
    if !connection {
        return Err(Refused::NoConnection);
    }
    if !version {
        return Err(Refused::Version);
    }
    match key {
        Some(k) if keys == 1 && is_key(k) => {
            let mut out = [0; 24];
            out.copy_from_slice(k);
            Ok(out)
        }
        _ => Err(Refused::Key),
    }
}

/// A base64 encoding of 16 bytes (§4.1 item 7): 22 letters of the alphabet, the last with
/// its low 4 bits zero, then `==`.
fn is_key(k: &[u8]) -> bool {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    k.len() == 24
        && k[22..] == *b"=="
        && k[..22].iter().all(|&c| digit(c).is_some())
        && digit(k[21]).is_some_and(|d| d & 15 == 0)
}

#[cfg(test)]
mod tests {
    use super::{Refused, handshake, request_line};

    #[test]
    fn the_path_is_read_from_the_request_line() {
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (b"GET /ws HTTP/1.1\r\n", b"GET", b"/ws"),
            (b"\r\nGET /ws?x=1 HTTP/1.1\r\n", b"GET", b"/ws"),
            (b"HEAD http://h:1/ws/a?q HTTP/1.1\r\n", b"HEAD", b"/ws/a"),
            (b"GET http://h HTTP/1.1\r\n", b"GET", b""),
        ];
        for (head, method, path) in cases {
            assert_eq!(request_line(head), (*method, *path), "{head:?}");
        }
    }

    #[test]
    fn a_websocket_handshake_is_read_from_the_head() {
        let head = |fields: &str| format!("GET /ws HTTP/1.1\r\nHost: x\r\n{fields}\r\n");
        let asks = |fields: &str| handshake(head(fields).as_bytes());
        let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
        let good = format!(
            "Upgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\n{key}"
        );
        assert_eq!(asks(&good), Ok(*b"dGhlIHNhbXBsZSBub25jZQ=="));
        let cases: &[(&str, Refused)] = &[
            (
                "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n",
                Refused::NoUpgrade,
            ),
            (
                "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n",
                Refused::NoConnection,
            ),
            (
                "Upgrade: websocket\r\nConnection: Upgrade\r\n",
                Refused::Version,
            ),
            (
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n",
                Refused::Version,
            ),
        ];
        for (fields, want) in cases {
            assert_eq!(
                asks(&format!("{fields}{key}")).err(),
                Some(*want),
                "{fields}"
            );
        }
        let base = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n";
        assert_eq!(asks(base), Err(Refused::Key));
        for bad in [
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ\r\n",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZR==\r\n",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=!\r\n",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
        ] {
            assert_eq!(asks(&format!("{base}{bad}")), Err(Refused::Key), "{bad}");
        }
    }
}
