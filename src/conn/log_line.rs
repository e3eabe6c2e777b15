//! One access-log line, the same for every protocol: who asked (`client`), what (the request's
//! words, escaped by [`push_log_word`](super::push_log_word)), the status, the bytes of the
//! answer, the time from the request's first byte to the answer's last (µs), and the
//! protocol. Written as text (`[DATE] CLIENT METHOD TARGET VERSION STATUS BYTES US`, then
//! ` tls` and notes such as ` fault=latency`) or as one JSON object (`--access-log json`).
//!
//! A line is opened when the answer is decided and closed once its bytes are known (HTTP/1:
//! at the end of the connection's event, when its answer is queued): [`open`] leaves room
//! for the bytes and the time at a place [`close`] fills, and [`note`]s go after.

use crate::response::ExtendCold;
use std::net::SocketAddr;
use std::time::Instant;

/// Who a connection's requests come from: kept per connection by the worker when a feature
/// reads it (the access log, the echo, the journal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Client {
    /// The client's address; `None` for a unix-socket client (written `unix`).
    pub peer: Option<SocketAddr>,
    /// The address the connection arrived on (`None`: a unix socket).
    pub local: Option<SocketAddr>,
    /// The connection is TLS.
    pub tls: bool,
}

/// The access log's part of a worker, lent to the connection being handled: the loop turn's
/// lines, the format, the connection's client and the line it has open. Absent without
/// `--access-log`, so that the plain path tests one pointer.
#[derive(Debug)]
pub struct LogLines {
    /// This loop turn's lines, at most [`ACCESS_LOG_TURN_BYTES`](super::ACCESS_LOG_TURN_BYTES)
    /// (a line that does not fit is dropped whole and counted).
    pub lines: Vec<u8>,
    /// `--access-log json`.
    pub json: bool,
    /// The worker's clock origin (that of `Env::now_us`): the end of a line's time is read
    /// from it when the line is closed. `None`: the end is the loop turn's `now_us`.
    pub epoch: Option<Instant>,
    /// The connection being handled (`None`: not known, written `-`).
    pub client: Option<Client>,
    /// A line opened and not yet closed (HTTP/1: until its answer is queued).
    pub open: Option<OpenLine>,
}

impl LogLines {
    /// A worker's part: text or JSON lines, times read from `epoch`.
    pub fn new(json: bool, epoch: Instant) -> LogLines {
        LogLines {
            lines: Vec::new(),
            json,
            epoch: Some(epoch),
            client: None,
            open: None,
        }
    }

    /// Text lines without a client or a clock of their own (a connection driven by hand).
    pub fn text() -> LogLines {
        LogLines {
            lines: Vec::new(),
            json: false,
            epoch: None,
            client: None,
            open: None,
        }
    }

    /// Microseconds since the epoch now, rounded up as `Env::now_us` is; `now_us` without an
    /// epoch.
    pub fn now_us(&self, now_us: u64) -> u64 {
        self.epoch.map_or(now_us, |e| {
            let d = e.elapsed();
            d.as_secs() * 1_000_000 + u64::from(d.subsec_nanos().div_ceil(1000))
        })
    }
}

/// A line [`open`]ed: where its bytes and time go, and what its protocol needs to close it.
#[derive(Clone, Copy, Debug)]
pub struct OpenLine {
    /// Where in the turn's lines the bytes and the time are inserted.
    pub at: usize,
    /// When the request's first byte was read (µs, the worker's clock).
    pub since_us: u64,
    /// The protocol's mark of where the answer's bytes begin (HTTP/1: its output's length).
    pub mark: usize,
}

/// The most a line takes beyond twice its words: the date, the address, the numbers, keys.
pub const LINE_OVERHEAD: usize = 320;

/// The request's fields for [`open`]: `words` is `METHOD TARGET ` or `METHOD TARGET VERSION `
/// as kept (empty: no request line was parsed), `version` the version when `words` lacks it.
pub struct Request<'a> {
    /// The request's words, each followed by a space.
    pub words: &'a [u8],
    /// The version, when `words` has none of its own (HTTP/2's).
    pub version: &'a [u8],
}

/// Append a line's start to `lines`: everything but the bytes, the time and the notes.
/// `date` is the preformatted date (spaces with `--no-date`). Returns where [`close`]
/// inserts the bytes and the time.
pub fn open(
    lines: &mut Vec<u8>,
    json: bool,
    date: &[u8],
    client: Option<&Client>,
    req: &Request<'_>,
    status: u16,
) -> usize {
    let dated = date.first().is_some_and(|&c| c != b' ');
    let mut split = req.words.split(|&c| c == b' ').filter(|w| !w.is_empty());
    let method = split.next();
    let target = split.next();
    let version = split
        .next()
        .or((!req.version.is_empty() && method.is_some()).then_some(req.version));
    let version = version.map(|v| v.strip_suffix(b" ").unwrap_or(v));
    let tls = client.is_some_and(|c| c.tls);
    if json {
        lines.extend_cold(b"{\"time\":");
        if dated {
            lines.push(b'"');
            lines.extend_cold(date);
            lines.push(b'"');
        } else {
            lines.extend_cold(b"null");
        }
        lines.extend_cold(b",\"client\":\"");
        push_client(lines, client);
        lines.push(b'"');
        for (key, word) in [(&b",\"method\":"[..], method), (b",\"target\":", target)] {
            lines.extend_cold(key);
            push_json_word(lines, word);
        }
        lines.extend_cold(b",\"protocol\":");
        push_json_word(
            lines,
            version.map(|v| if v == b"HTTP/2.0" { &b"HTTP/2"[..] } else { v }),
        );
        lines.extend_cold(if tls {
            b",\"tls\":true"
        } else {
            b",\"tls\":false"
        });
        lines.extend_cold(b",\"status\":");
        push_decimal(lines, u64::from(status));
        let at = lines.len();
        lines.extend_cold(b"}\n");
        at
    } else {
        if dated {
            lines.push(b'[');
            lines.extend_cold(date);
            lines.extend_cold(b"] ");
        } else {
            lines.extend_cold(b"- ");
        }
        push_client(lines, client);
        lines.push(b' ');
        for w in [method, target, version] {
            lines.extend_cold(w.unwrap_or(b"-"));
            lines.push(b' ');
        }
        lines.extend_cold(&[
            b'0' + (status / 100 % 10) as u8,
            b'0' + (status / 10 % 10) as u8,
            b'0' + (status % 10) as u8,
        ]);
        let at = lines.len();
        if tls {
            lines.extend_cold(b" tls");
        }
        lines.push(b'\n');
        at
    }
}

/// Fill in the line opened at `at` (the last in `lines`): ` BYTES US` or
/// `,"bytes":N,"duration_us":N`.
pub fn close(lines: &mut Vec<u8>, json: bool, at: usize, bytes: u64, duration_us: u64) {
    let end = lines.len();
    if json {
        lines.extend_cold(b",\"bytes\":");
        push_decimal(lines, bytes);
        lines.extend_cold(b",\"duration_us\":");
        push_decimal(lines, duration_us);
    } else {
        lines.push(b' ');
        push_decimal(lines, bytes);
        lines.push(b' ');
        push_decimal(lines, duration_us);
    }
    let added = lines.len() - end;
    lines[at..].rotate_right(added);
}

/// Add a note (`fault=latency`) to the last line of `lines`: ` KEYVALUE` in text,
/// `"notes":["KEYVALUE",…]` in JSON. Past the turn's bound by a few notes at most.
pub fn note(lines: &mut Vec<u8>, json: bool, key: &str, value: &str) {
    if lines.last() != Some(&b'\n') {
        return;
    }
    lines.pop();
    if json {
        if lines.ends_with(b"]}") {
            lines.truncate(lines.len() - 2);
            lines.push(b',');
        } else {
            lines.pop();
            lines.extend_cold(b",\"notes\":[");
        }
        lines.push(b'"');
        // Names canned chose: plain ASCII, nothing to escape.
        lines.extend_cold(key.as_bytes());
        lines.extend_cold(value.as_bytes());
        lines.extend_cold(b"\"]}");
    } else {
        lines.push(b' ');
        lines.extend_cold(key.as_bytes());
        lines.extend_cold(value.as_bytes());
    }
    lines.push(b'\n');
}

/// `ip:port` (`[v6]:port`), `unix` for a unix-socket client, `-` when not known.
fn push_client(lines: &mut Vec<u8>, client: Option<&Client>) {
    use std::io::Write;
    match client {
        Some(Client { peer: Some(a), .. }) => {
            // An IPv4 client of a `[::]` listener as the address it has (`127.0.0.1:N`, not
            // `[::ffff:127.0.0.1]:N`). A socket address is at most 47 bytes: no allocation
            // beyond the line's.
            let _ = match a {
                SocketAddr::V6(v6) => match v6.ip().to_ipv4_mapped() {
                    Some(v4) => write!(lines, "{v4}:{}", v6.port()),
                    None => write!(lines, "{a}"),
                },
                SocketAddr::V4(_) => write!(lines, "{a}"),
            };
        }
        Some(Client { peer: None, .. }) => lines.extend_cold(b"unix"),
        None => lines.push(b'-'),
    }
}

/// A word kept by `push_log_word` (printable ASCII, `\xNN` for the rest) as a JSON string:
/// `"` and `\` escaped; `null` for none.
fn push_json_word(lines: &mut Vec<u8>, word: Option<&[u8]>) {
    let Some(word) = word else {
        lines.extend_cold(b"null");
        return;
    };
    lines.push(b'"');
    for &c in word {
        if c == b'"' || c == b'\\' {
            lines.push(b'\\');
        }
        lines.push(c);
    }
    lines.push(b'"');
}

fn push_decimal(lines: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    lines.extend_cold(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> Client {
        Client {
            peer: Some("127.0.0.1:4567".parse().unwrap()),
            local: None,
            tls: false,
        }
    }

    #[test]
    fn an_ipv4_client_of_an_ipv6_listener_is_written_as_ipv4() {
        let mut l = Vec::new();
        for (peer, want) in [
            ("[::ffff:10.0.0.1]:80", "10.0.0.1:80"),
            ("[::1]:80", "[::1]:80"),
            ("10.0.0.2:81", "10.0.0.2:81"),
        ] {
            l.clear();
            let c = Client {
                peer: Some(peer.parse().unwrap()),
                ..Client::default()
            };
            push_client(&mut l, Some(&c));
            assert_eq!(String::from_utf8_lossy(&l), want);
        }
    }

    #[test]
    fn text_and_json_lines_carry_the_same_fields() {
        let req = Request {
            words: b"GET /a\\x22\"b HTTP/1.1 ",
            version: b"",
        };
        let mut l = Vec::new();
        let at = open(&mut l, false, b"   ", Some(&client()), &req, 200);
        note(&mut l, false, "fault=", "latency");
        close(&mut l, false, at, 123, 45);
        assert_eq!(
            l,
            b"- 127.0.0.1:4567 GET /a\\x22\"b HTTP/1.1 200 123 45 fault=latency\n"
        );
        let mut j = Vec::new();
        let at = open(&mut j, true, b"Mon", Some(&client()), &req, 200);
        note(&mut j, true, "fault=", "latency");
        note(&mut j, true, "fault=", "error");
        close(&mut j, true, at, 123, 45);
        assert_eq!(
            String::from_utf8(j).unwrap(),
            "{\"time\":\"Mon\",\"client\":\"127.0.0.1:4567\",\"method\":\"GET\",\
             \"target\":\"/a\\\\x22\\\"b\",\"protocol\":\"HTTP/1.1\",\"tls\":false,\
             \"status\":200,\"bytes\":123,\"duration_us\":45,\
             \"notes\":[\"fault=latency\",\"fault=error\"]}\n"
        );
        let unparsed = Request {
            words: b"",
            version: b"HTTP/2.0",
        };
        let mut u = Vec::new();
        let at = open(&mut u, true, b" ", None, &unparsed, 400);
        close(&mut u, true, at, 0, 1);
        assert!(u.starts_with(
            b"{\"time\":null,\"client\":\"-\",\"method\":null,\"target\":null,\"protocol\":null"
        ));
    }
}
