//! The HTTP/2 malformed-response catalogue (`--mutate`, `--mutate-id` on HTTP/2 streams): every
//! `h2-` id is served, in order, with the bytes the catalogue built; each decodes, with a raw
//! frame parser and Python's `hpack` (tests/suite/h2_mutate.py), to the rule it breaks; `--mutate-id`
//! sends the same bytes again, on any stream; a variant that breaks the connection closes it and
//! the others let it go on; with 1 and 2 workers.
#![cfg(all(feature = "http2", feature = "mutate", feature = "stats"))]

use crate::common;

use canned::frame::{Header, PREFACE, flag, kind};
use canned::mutate::{COUNT, H2_COUNT, H2Catalogue};
use common::*;
use std::collections::BTreeSet;
use std::io::Write;
use std::net::{SocketAddr, TcpStream};

/// GET / with :authority localhost, all without indexing.
const GET_ROOT: &[u8] = &[
    0x82, 0x86, 0x84, 0x01, 9, b'l', b'o', b'c', b'a', b'l', b'h', b'o', b's', b't',
];

fn h2_ids() -> Vec<&'static str> {
    canned::mutate::ids().skip(COUNT).collect()
}

/// What one request got: the frames of the variant, and whether the server closed after it.
#[derive(Debug, PartialEq, Eq)]
struct Got {
    bytes: Vec<u8>,
    closed: bool,
}

/// One HTTP/2 connection, as a client that sends requests and reads what comes back.
struct Client {
    s: TcpStream,
    first: bool,
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        Client {
            s: connect(addr),
            first: true,
        }
    }

    /// GET / on `stream`, then a PING: everything the server sends before the PING's ACK (or
    /// its close) answers the request, less the server's SETTINGS and its ACK of ours.
    fn get(&mut self, stream: u32) -> Got {
        self.request(stream, End::Ack)
    }

    /// GET / on `stream`, answered after the PING's ACK (held) with the bytes of one of
    /// `want`, or with a close.
    fn get_one_of(&mut self, stream: u32, want: &[Got]) -> Got {
        self.request(stream, End::OneOf(want))
    }

    /// GET / on `stream`, answered plainly: the PING's ACK comes before it, its frames end
    /// with END_STREAM.
    fn get_plain(&mut self, stream: u32) -> Got {
        self.request(stream, End::Stream)
    }

    fn request(&mut self, stream: u32, until: End<'_>) -> Got {
        let mut b = Vec::new();
        if self.first {
            b.extend_from_slice(PREFACE);
            // SETTINGS_ENABLE_PUSH 0, as clients send.
            b.extend(frame(kind::SETTINGS, 0, 0, &[0, 2, 0, 0, 0, 0]));
        }
        let flags = flag::END_HEADERS | flag::END_STREAM;
        b.extend(frame(kind::HEADERS, flags, stream, GET_ROOT));
        let ping = (u64::from(stream) | 0xc0ffee << 32).to_be_bytes();
        b.extend(frame(kind::PING, 0, 0, &ping));
        self.s.write_all(&b).unwrap();
        let mut input = Vec::new();
        let mut out = Vec::new();
        let mut buf = [0u8; 65536];
        let mut skip_settings = self.first;
        let mut skip_ack = self.first;
        let mut acked = false;
        self.first = false;
        loop {
            while let Some(h) = Header::parse(&input) {
                let end = 9 + h.len as usize;
                if input.len() < end {
                    break;
                }
                let f: Vec<u8> = input.drain(..end).collect();
                let p = &f[9..];
                let ends = h.stream == stream && h.flags & flag::END_STREAM != 0;
                if h.kind == kind::PING && h.flags & flag::ACK != 0 && p == ping {
                    acked = true;
                } else if skip_settings && h.kind == kind::SETTINGS && h.flags == 0 {
                    skip_settings = false;
                } else if skip_ack
                    && h.kind == kind::SETTINGS
                    && h.flags == flag::ACK
                    && p.is_empty()
                {
                    skip_ack = false;
                } else {
                    out.extend_from_slice(&f);
                }
                let done = match until {
                    End::Ack => true,
                    End::Stream => ends,
                    End::OneOf(want) => want.iter().any(|w| w.bytes == out && !w.closed),
                };
                if acked && done {
                    assert!(input.is_empty(), "bytes after the answer");
                    return Got {
                        bytes: out,
                        closed: false,
                    };
                }
            }
            match self.s.read_some(&mut buf) {
                Ok(0) => break,
                Ok(n) => input.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("read: {e} after {} bytes", out.len()),
            }
        }
        assert!(
            input.is_empty(),
            "a partial frame before the close: {input:?}"
        );
        Got {
            bytes: out,
            closed: true,
        }
    }
}

/// When a request's answer is all there.
#[derive(Clone, Copy)]
enum End<'a> {
    /// With the PING's ACK.
    Ack,
    /// After the ACK, with END_STREAM.
    Stream,
    /// After the ACK, with the bytes of one of these (and the close, if it closes).
    OneOf(&'a [Got]),
}

/// The catalogue's variant `i` on `stream`, as the server must send it.
fn expected(cat: &H2Catalogue, i: usize, stream: u32) -> Got {
    let v = cat.variant(i);
    let mut bytes = Vec::new();
    v.write(stream, &mut bytes);
    Got {
        bytes,
        closed: v.closes(),
    }
}

/// Check with tests/suite/h2_mutate.py that each variant breaks the rule its id names.
/// `tag` names the test: the tests of one process run at once.
fn python_checks(tag: &str, got: &[(&str, Vec<u8>)]) {
    let name = format!("canned-h2-mutate-{}-{tag}.txt", std::process::id());
    let file = std::env::temp_dir().join(name);
    let mut text = String::new();
    for (id, bytes) in got {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        text.push_str(&format!("{id} {hex}\n"));
    }
    std::fs::write(&file, text).unwrap();
    python_ok(
        include_str!("h2_mutate.py"),
        &[file.as_os_str()],
        "tests/suite/h2_mutate.py (needs Python's hpack)",
    );
    let _ = std::fs::remove_file(&file);
}

#[test]
fn every_h2_id_is_served_in_order_and_breaks_its_rule() {
    let cat = H2Catalogue::new();
    const { assert!(H2_COUNT >= 30) };
    let (_h, addr) = start(&["--mutate", "--workers", "1", "--stats", "/stats"]);
    let mut got = Vec::new();
    for (i, id) in h2_ids().into_iter().enumerate() {
        let g = Client::new(addr).get(1);
        assert_eq!(g, expected(&cat, i, 1), "{id}");
        got.push((id, g.bytes));
    }
    // HTTP/1 has its own cycle, untouched by the HTTP/2 one.
    let h1 = exchange(addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(
        h1.starts_with(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n")
    );
    // Counted by id.
    let stats = exchange(
        addr,
        b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let stats = String::from_utf8_lossy(&stats);
    assert!(stats.contains("\"h2-valid\":1"), "{stats}");
    assert!(stats.contains("\"h2-204-with-data\":1"), "{stats}");
    assert!(stats.contains("\"cl-too-long\":1"), "{stats}");
    python_checks("cycle", &got);
}

#[test]
fn the_cycle_with_two_workers_sends_every_variant() {
    let cat = H2Catalogue::new();
    let ids = h2_ids();
    let by_bytes: Vec<Vec<u8>> = (0..H2_COUNT).map(|i| expected(&cat, i, 1).bytes).collect();
    let distinct: BTreeSet<&Vec<u8>> = by_bytes.iter().collect();
    assert_eq!(distinct.len(), H2_COUNT, "two variants with the same bytes");
    let (_h, addr) = start(&["--mutate", "--workers", "2"]);
    let mut seen = BTreeSet::new();
    // One worker gets at least half of them: a whole cycle.
    for _ in 0..2 * H2_COUNT {
        let g = Client::new(addr).get(1);
        let Some(i) = by_bytes.iter().position(|b| *b == g.bytes) else {
            panic!("not a variant: {:?}", g.bytes);
        };
        assert_eq!(g.closed, cat.variant(i).closes(), "{}", ids[i]);
        seen.insert(i);
    }
    assert_eq!(seen.len(), H2_COUNT);
}

/// Under `--delay`, each stream of the default route still gets the next variant, held for
/// the delay as HTTP/1 holds its variants (it got the plain answer); with 1 and 2 workers
/// (each worker has its own cycle: a connection gets the next variant of one of them).
#[test]
fn delay_holds_each_variant() {
    let cat = H2Catalogue::new();
    let ids = h2_ids();
    for workers in [1, 2] {
        let w = workers.to_string();
        let (_h, addr) = start(&["--mutate", "--delay", "20ms", "--workers", &w]);
        let mut next = vec![0usize; workers];
        for n in 0..2 * H2_COUNT {
            let want: Vec<Got> = next.iter().map(|&i| expected(&cat, i, 1)).collect();
            let t = std::time::Instant::now();
            let g = Client::new(addr).get_one_of(1, &want);
            assert!(
                t.elapsed() >= std::time::Duration::from_millis(20),
                "{workers} workers, connection {n}: not held"
            );
            let Some(k) = want.iter().position(|v| *v == g) else {
                panic!(
                    "{workers} workers, connection {n}: not the next variant: {} bytes, closed {}, want {:?}",
                    g.bytes.len(),
                    g.closed,
                    want.iter()
                        .map(|w| (w.bytes.len(), w.closed))
                        .collect::<Vec<_>>()
                );
            };
            assert_eq!(g.closed, cat.variant(next[k]).closes(), "{}", ids[next[k]]);
            next[k] = (next[k] + 1) % H2_COUNT;
        }
    }
}

/// `--mutate-id ID` sends ID to every request: on a later stream of the same connection when
/// the variant lets it go on, else on a new connection; HTTP/1 gets its plain response.
fn mutate_id_reproduces(workers: &str) {
    let cat = H2Catalogue::new();
    let mut got = Vec::new();
    for (i, id) in h2_ids().into_iter().enumerate() {
        let (_h, addr) = start(&["--mutate-id", id, "--workers", workers]);
        let mut c = Client::new(addr);
        let first = c.get(1);
        assert_eq!(first, expected(&cat, i, 1), "{id}");
        if first.closed {
            assert_eq!(Client::new(addr).get(1), first, "{id}, again");
        } else {
            assert_eq!(c.get(3), expected(&cat, i, 3), "{id} on stream 3");
            assert_eq!(c.get(5), expected(&cat, i, 5), "{id} on stream 5");
        }
        got.push((id, first.bytes));
        if i == 0 {
            let h1 = exchange(
                addr,
                b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            );
            let (_plain, plain_addr) = start(&["--workers", workers]);
            let plain = exchange(
                plain_addr,
                b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            );
            assert_eq!(
                String::from_utf8_lossy(&h1),
                String::from_utf8_lossy(&plain)
            );
        }
    }
    python_checks(&format!("id-{workers}"), &got);
}

#[test]
fn mutate_id_reproduces_with_one_worker() {
    mutate_id_reproduces("1");
}

#[test]
fn mutate_id_reproduces_with_two_workers() {
    mutate_id_reproduces("2");
}

/// Under `--mutate-id` of an HTTP/1 id, HTTP/2 streams get their plain response, and the
/// connection goes on.
#[test]
fn an_http1_id_leaves_http2_plain() {
    let (_h, addr) = start(&["--mutate-id", "cl-negative", "--workers", "1"]);
    let (_p, plain_addr) = start(&["--workers", "1"]);
    let mut c = Client::new(addr);
    let want = Client::new(plain_addr).get_plain(1);
    assert!(!want.closed && !want.bytes.is_empty());
    assert_eq!(c.get_plain(1), want);
    assert_eq!(c.get_plain(3), Client::new(plain_addr).get_plain(3));
    let h1 = exchange(addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(
        h1.starts_with(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: -1\r\n")
    );
}

/// The HTTP/2 catalogue table of docs/mutate.md lists every variant, in order, with its description,
/// clause, and whether the connection closes after it.
#[test]
fn docs_table_matches_the_h2_catalogue() {
    let page = include_str!("../../docs/mutate.md");
    let section = page
        .split("\n## Malformed responses on HTTP/2\n")
        .nth(1)
        .expect("the section");
    let rows: Vec<&str> = section
        .lines()
        .skip_while(|l| !l.starts_with("| h2 id | what is sent |"))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .collect();
    let cat = H2Catalogue::new();
    let want: Vec<String> = h2_ids()
        .iter()
        .zip(&canned::mutate::H2_ABOUT)
        .enumerate()
        .map(|(i, (id, a))| {
            let then = if cat.variant(i).closes() {
                "close"
            } else {
                "goes on"
            };
            format!("| `{id}` | {} | {} | {then} |", a.description, a.rfc)
        })
        .collect();
    assert_eq!(rows, want);
}

/// The HTTP/2 clients' reactions (docs/data/mutate-clients-h2.tsv, which
/// `.ci/mutate-clients-h2` checks against real clients) have one row per `h2-` variant, in the
/// catalogue's order, and a cell for every client the header names.
#[test]
fn client_reactions_cover_the_h2_catalogue() {
    let table = include_str!("../../docs/data/mutate-clients-h2.tsv");
    let mut lines = table.lines().filter(|l| !l.starts_with('#'));
    let columns = lines.next().unwrap().split('\t').count();
    let rows: Vec<&str> = lines
        .inspect(|l| assert_eq!(l.split('\t').count(), columns, "{l}"))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(rows, h2_ids());
}

/// The ids are unique, `h2-` and plain; `find` and `id` go both ways; `--mutate-list` prints
/// HTTP/1's ids, then these.
#[test]
fn h2_ids_are_unique_prefixed_and_listed() {
    let ids = h2_ids();
    assert_eq!(ids.len(), H2_COUNT);
    for (i, (v, a)) in ids.iter().zip(&canned::mutate::H2_ABOUT).enumerate() {
        assert_eq!(canned::mutate::find(v), Some(COUNT + i), "{v} twice");
        assert_eq!(canned::mutate::id(COUNT + i), *v);
        assert_eq!(canned::mutate::h2_index(COUNT + i), Some(i));
        assert!(v.starts_with("h2-"), "{v}");
        assert!(
            v.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{v}"
        );
        assert!(!a.description.contains('|'), "{v}");
        assert!(a.rfc.starts_with("RFC "), "{v}");
    }
    assert!(
        !canned::mutate::ids()
            .take(COUNT)
            .any(|v| v.starts_with("h2-"))
    );
    let o = std::process::Command::new(bin())
        .arg("--mutate-list")
        .output()
        .unwrap();
    let listed = String::from_utf8(o.stdout).unwrap();
    let all: Vec<&str> = canned::mutate::ids().collect();
    assert_eq!(listed.lines().collect::<Vec<_>>(), all);
    assert_eq!(all.len(), canned::mutate::TOTAL);
}
