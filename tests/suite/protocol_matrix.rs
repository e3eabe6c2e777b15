//! The protocol matrix: every option that shapes an answer, asked over HTTP/1.1, HTTP/2 with
//! prior knowledge and HTTP/2 after `Upgrade: h2c` (curl's `--http1.1`,
//! `--http2-prior-knowledge` and `--http2`). Each row is a request to a server started with
//! one option set; each of its three cells is either HTTP/1.1's meaning (the same status, body
//! and named fields, and the row's own check, a delay or a cut say), HTTP/1.1 answering in
//! HTTP/1.1 because the upgrade is not taken (docs/http2.md, Upgrade), or a protocol's own
//! meaning the docs give (a truncated stream is RST_STREAM, not a FIN). A row has all three
//! cells, so a missing one does not compile; every cell is run, and a run lists every cell
//! that failed.
//!
//! One server per option set, reused by every row and protocol of its table.
#![cfg(all(
    feature = "control",
    feature = "echo",
    feature = "faults",
    feature = "http2",
    feature = "journal",
    feature = "mutate",
    feature = "stats"
))]

use crate::common;

use canned::frame::{Header, PREFACE, flag, kind};
use common::*;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::Command;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proto {
    Http11,
    PriorKnowledge,
    Upgrade,
}

const PROTOCOLS: [Proto; 3] = [Proto::Http11, Proto::PriorKnowledge, Proto::Upgrade];

impl Proto {
    fn curl_flag(self) -> &'static str {
        match self {
            Proto::Http11 => "--http1.1",
            Proto::PriorKnowledge => "--http2-prior-knowledge",
            Proto::Upgrade => "--http2",
        }
    }
}

/// What curl got for one request.
#[derive(Debug)]
struct Got {
    /// curl's exit code: 0 for a whole answer.
    exit: i32,
    /// The version of the final answer (`1.1`, `2`), empty without one.
    version: String,
    /// Its status, 0 without one.
    status: u16,
    /// Its fields, names in lowercase.
    fields: Vec<(String, String)>,
    body: Vec<u8>,
    elapsed: Duration,
}

impl Got {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One request by curl over `proto`, with `extra` arguments: `-i`'s output read back, the
/// interim answers (the upgrade's `101`) skipped.
fn fetch(addr: SocketAddr, proto: Proto, extra: &[&str], path: &str) -> Got {
    let start = Instant::now();
    let out = Command::new("curl")
        .args(["-s", "-i", "--max-time", "5", proto.curl_flag()])
        .args(extra)
        .arg(format!("http://{addr}{path}"))
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    let mut got = Got {
        exit: out.status.code().unwrap_or(-1),
        version: String::new(),
        status: 0,
        fields: Vec::new(),
        body: Vec::new(),
        elapsed,
    };
    let mut rest = &out.stdout[..];
    while rest.starts_with(b"HTTP/") {
        let Some(end) = rest.windows(4).position(|w| w == b"\r\n\r\n") else {
            break;
        };
        let head = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 4..];
        let mut lines = head.split("\r\n");
        let mut words = lines.next().unwrap_or("").split(' ');
        let version = words.next().unwrap_or("").trim_start_matches("HTTP/");
        let status: u16 = words.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        if (100..200).contains(&status) {
            continue;
        }
        got.version = version.to_string();
        got.status = status;
        got.fields = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        got.body = rest.to_vec();
        break;
    }
    got
}

/// What one cell must see.
#[derive(Clone, Copy)]
enum Want {
    /// The meaning this check asserts: HTTP/1.1's column, or a protocol's own where the
    /// docs give it one.
    Check(fn(&Got, SocketAddr)),
    /// HTTP/1.1's answer: its check, and the same status, body and named fields.
    Same,
    /// The upgrade is not taken and HTTP/1.1 answers: HTTP/1.1's check, in HTTP/1.1.
    Declined,
}

/// A row: a request and its three cells, in [`PROTOCOLS`] order.
struct Row {
    name: &'static str,
    path: &'static str,
    curl: &'static [&'static str],
    /// The fields a `Same` cell must give as HTTP/1.1 gives them.
    same: &'static [&'static str],
    cells: [Want; 3],
}

impl Row {
    const fn new(name: &'static str, path: &'static str, h1: fn(&Got, SocketAddr)) -> Row {
        Row {
            name,
            path,
            curl: &[],
            same: &["content-type", "content-length"],
            cells: [Want::Check(h1), Want::Same, Want::Same],
        }
    }
    const fn curl(mut self, args: &'static [&'static str]) -> Row {
        self.curl = args;
        self
    }
    const fn same(mut self, fields: &'static [&'static str]) -> Row {
        self.same = fields;
        self
    }
    const fn h2(mut self, w: Want) -> Row {
        self.cells[1] = w;
        self
    }
    const fn upgrade(mut self, w: Want) -> Row {
        self.cells[2] = w;
        self
    }
}

/// Start a server with `flags`, ask each row over each protocol, and fail with every cell
/// that did not hold.
fn run(flags: &[&str], rows: &[Row]) {
    if !have("curl") {
        return;
    }
    let (h, addr) = start(flags);
    let mut failed = Vec::new();
    for row in rows {
        let Want::Check(h1_check) = row.cells[0] else {
            panic!("{}: the HTTP/1.1 cell is a check", row.name)
        };
        let mut h1: Option<Got> = None;
        for (proto, want) in PROTOCOLS.into_iter().zip(row.cells) {
            let got = fetch(addr, proto, row.curl, row.path);
            let cell = catch_unwind(AssertUnwindSafe(|| {
                check(want, &got, h1.as_ref(), h1_check, row.same, addr)
            }));
            if let Err(e) = cell {
                let why = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failed.push(format!(
                    "{flags:?} {} over {proto:?}: {why}\n    got {got:?}",
                    row.name
                ));
            }
            if proto == Proto::Http11 {
                h1 = Some(got);
            }
        }
    }
    drop(h);
    assert!(failed.is_empty(), "cells failed:\n{}", failed.join("\n"));
}

fn check(
    want: Want,
    got: &Got,
    h1: Option<&Got>,
    h1_check: fn(&Got, SocketAddr),
    same: &[&str],
    addr: SocketAddr,
) {
    match want {
        Want::Check(f) => f(got, addr),
        Want::Same => {
            h1_check(got, addr);
            let h1 = h1.expect("HTTP/1.1 first");
            assert_eq!(got.status, h1.status, "status");
            assert_eq!(got.body, h1.body, "body");
            for name in same {
                assert_eq!(got.field(name), h1.field(name), "{name}");
            }
        }
        Want::Declined => {
            assert_eq!(got.version, "1.1", "HTTP/1.1 answers");
            h1_check(got, addr);
        }
    }
}

/// A whole answer with this status and body.
fn whole(got: &Got, status: u16, body: &str) {
    assert_eq!(got.exit, 0, "curl's exit code");
    assert_eq!(got.status, status, "status");
    assert_eq!(got.text(), body, "body");
}

fn not_before(got: &Got, ms: u64) {
    assert!(
        got.elapsed >= Duration::from_millis(ms),
        "answered after {:?}, before {ms} ms",
        got.elapsed
    );
}

const HELLO: &str = "Hello World\n";

// --- plain routes ---------------------------------------------------------------------------

#[test]
fn routes() {
    run(
        &[
            "--route",
            "/a=200:hello",
            "--route",
            "/gone=404:nope",
            "--route",
            "POST /orders=201:made",
            "--health",
            "/healthz",
        ],
        &[
            Row::new("the default route", "/", |g, _| whole(g, 200, HELLO)),
            Row::new("a route", "/a", |g, _| whole(g, 200, "hello")),
            Row::new("a route, its query", "/a?x=1", |g, _| {
                whole(g, 200, "hello")
            }),
            Row::new("a 404 route", "/gone", |g, _| whole(g, 404, "nope")),
            Row::new("HEAD", "/a", |g, _| {
                whole(g, 200, "");
                assert_eq!(g.field("content-length"), Some("5"));
            })
            .curl(&["-I"]),
            // A request with a body is answered in HTTP/1.1: no upgrade (docs/http2.md, Upgrade).
            Row::new("POST to a route by method", "/orders", |g, _| {
                whole(g, 201, "made")
            })
            .curl(&["-d", "x"])
            .upgrade(Want::Declined),
            Row::new("GET to a route by method: 405", "/orders", |g, _| {
                assert_eq!(g.status, 405);
                assert_eq!(g.field("allow"), Some("POST"));
            })
            .same(&["content-type", "content-length", "allow"]),
            Row::new("--health", "/healthz", |g, _| assert_eq!(g.status, 200)),
        ],
    );
}

// --- --delay ----------------------------------------------------------------------------------

#[test]
fn delay() {
    run(
        &["--delay", "150ms", "--route", "/a=200:hello"],
        &[
            Row::new("the default route, held", "/", |g, _| {
                whole(g, 200, HELLO);
                not_before(g, 150);
            }),
            Row::new("a route, held", "/a", |g, _| {
                whole(g, 200, "hello");
                not_before(g, 150);
            }),
        ],
    );
}

// --- --fault, each kind -------------------------------------------------------------------------

/// curl failed before a whole answer.
fn cut(got: &Got) {
    assert_ne!(got.exit, 0, "curl's exit code: the answer is cut");
}

#[test]
fn faults() {
    run(
        &[
            "--workers",
            "1",
            "--route",
            "/r=200:0123456789abcdefghij",
            "--fault",
            "/latency=latency:150ms",
            "--fault",
            "/drip=drip:5/100ms",
            "--fault",
            "/bandwidth=bandwidth:100/s",
            "--fault",
            "/stall=stall",
            "--fault",
            "/hang=hang:150ms",
            "--fault",
            "/hang-reset=hang:150ms:reset",
            "--fault",
            "/slow-close=slow-close:100ms",
            "--fault",
            "/r=truncate:5",
            "--fault",
            "/reset=reset:5",
            "--fault",
            "/garbage=garbage:64",
            "--fault",
            "/error=error:503:down",
            "--fault",
            "/status=status:500=100%",
            "--fault",
            "/seq=seq:503,502,504",
        ],
        &[
            Row::new("latency", "/latency", |g, _| {
                whole(g, 200, HELLO);
                not_before(g, 150);
            }),
            Row::new("drip", "/drip", |g, _| {
                whole(g, 200, HELLO);
                not_before(g, 200);
            }),
            Row::new("bandwidth", "/bandwidth", |g, _| {
                whole(g, 200, HELLO);
                not_before(g, 100);
            }),
            // Nothing ever: curl's own time limit ends it.
            Row::new("stall", "/stall", |g, _| {
                assert_eq!(g.exit, 28, "curl timed out");
                assert_eq!(g.status, 0);
            })
            .curl(&["--max-time", "0.5"]),
            Row::new("hang", "/hang", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
                not_before(g, 150);
            }),
            Row::new("hang, then reset", "/hang-reset", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
                not_before(g, 150);
            }),
            Row::new("slow-close", "/slow-close", |g, _| whole(g, 200, HELLO)),
            // HTTP/1 cuts the response's bytes (head included: no status); HTTP/2 sends the
            // HEADERS and the body's first bytes, then RST_STREAM INTERNAL_ERROR (curl: 92).
            Row::new("truncate", "/r", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
            })
            .h2(Want::Check(truncated_stream))
            .upgrade(Want::Check(truncated_stream)),
            // HTTP/1's head is cut (5 bytes); HTTP/2's HEADERS go whole, then 5 bytes of body.
            Row::new("reset", "/reset", |g, _| reset(g, &[0]))
                // HTTP/2 sends its HEADERS whole before the 5 bytes of DATA, but a TCP RST
                // discards what the client's kernel holds unread: curl sees the status only
                // when it read before the RST came.
                .h2(Want::Check(|g, _| reset(g, &[0, 200])))
                .upgrade(Want::Check(|g, _| reset(g, &[0, 200]))),
            Row::new("garbage", "/garbage", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
            }),
            Row::new("error", "/error", |g, _| whole(g, 503, "down")),
            Row::new("status mix", "/status", |g, _| {
                whole(g, 500, "500 Internal Server Error\n")
            }),
            // One step per request, counted over the process: the three cells walk it.
            Row::new("seq", "/seq", |g, _| assert_eq!(g.status, 503))
                .h2(Want::Check(|g, _| assert_eq!(g.status, 502)))
                .upgrade(Want::Check(|g, _| assert_eq!(g.status, 504))),
        ],
    );
}

fn truncated_stream(g: &Got, _: SocketAddr) {
    assert_eq!(g.exit, 92, "curl: a stream error (RST_STREAM)");
}

/// The connection reset after the first 5 bytes (of the response, or of the stream's body).
fn reset(g: &Got, statuses: &[u16]) {
    assert!(matches!(g.exit, 55 | 56), "curl: a connection reset");
    assert!(
        statuses.contains(&g.status),
        "status {} not in {statuses:?}",
        g.status
    );
    assert!(g.body.len() <= 5, "at most 5 bytes of body");
}

// --- --mutate -----------------------------------------------------------------------------------

/// The `--stats` counts of variants sent, once they are `want` or after a while: the worker
/// publishes its counts every 100 ms, so a read just after the request may see the ones before
/// (under emulation, often).
fn mutated_to(addr: SocketAddr, want: (u64, u64)) -> (u64, u64) {
    let deadline = std::time::Instant::now() + time_bound(std::time::Duration::from_secs(2));
    loop {
        let got = mutated(addr);
        if got == want || std::time::Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The `--stats` counts of variants sent: (HTTP/1's catalogue, HTTP/2's).
fn mutated(addr: SocketAddr) -> (u64, u64) {
    let stats = exchange(
        addr,
        b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let stats = String::from_utf8_lossy(&stats).into_owned();
    let Some(at) = stats.find("\"mutate\":{") else {
        return (0, 0);
    };
    let object = &stats[at + 10..];
    let object = &object[..object.find('}').unwrap()];
    let (mut h1, mut h2) = (0, 0);
    for pair in object.split(',').filter(|p| !p.is_empty()) {
        let (id, n) = pair.rsplit_once(':').unwrap();
        let n: u64 = n.parse().unwrap();
        if id.starts_with("\"h2-") {
            h2 += n;
        } else {
            h1 += n;
        }
    }
    (h1, h2)
}

#[test]
fn mutate() {
    // Each protocol answers from its own catalogue (docs/mutate.md, HTTP/2);
    // one worker, so that `--stats` reads the counts of the worker that answered.
    run(
        &["--workers", "1", "--mutate", "--stats", "/stats"],
        &[Row::new("the default route", "/", |_, addr| {
            assert_eq!(mutated_to(addr, (1, 0)), (1, 0), "HTTP/1's next variant");
        })
        .h2(Want::Check(|_, addr| {
            assert_eq!(mutated_to(addr, (1, 1)), (1, 1), "HTTP/2's next variant");
        }))
        .upgrade(Want::Check(|_, addr| {
            assert_eq!(
                mutated_to(addr, (1, 2)),
                (1, 2),
                "HTTP/2's next variant, on stream 1"
            );
        }))],
    );
}

// --- --echo -------------------------------------------------------------------------------------

/// The echo's JSON of a GET of `/e`: its request line as each protocol received it (HTTP/2's
/// `:method` and `:path`, then `HTTP/2`; the upgraded request is HTTP/1.1's).
fn echoed_get(g: &Got, _: SocketAddr) {
    assert_eq!(g.status, 200);
    assert_eq!(g.field("content-type"), Some("application/json"));
    let length = g.body.len().to_string();
    assert_eq!(g.field("content-length"), Some(length.as_str()));
    assert!(
        g.text().starts_with(r#"{"method":"GET","target":"/e""#),
        "{}",
        g.text()
    );
    let version = if g.version == "2" && !g.text().contains(r#""name":"Upgrade""#) {
        r#""version":"HTTP/2""#
    } else {
        r#""version":"HTTP/1.1""#
    };
    assert!(g.text().contains(version), "{}", g.text());
    assert!(g.text().contains(r#""request_index":1"#), "{}", g.text());
    assert!(g.text().contains(r#""client":"127.0.0.1:"#), "{}", g.text());
}

#[test]
fn echo() {
    run(
        &[
            "--echo",
            "/e",
            "--echo",
            "/t=text",
            "--echo",
            "/b=body",
            "--route",
            "/a=200:hello",
        ],
        &[
            Row::new("GET, JSON", "/e", echoed_get)
                .h2(Want::Check(echoed_get))
                .upgrade(Want::Check(echoed_get)),
            // A request with a body is answered in HTTP/1.1: no upgrade (docs/http2.md, Upgrade).
            Row::new("POST, JSON", "/e", |g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().contains(r#""body":"hi""#), "{}", g.text());
                assert!(g.text().contains(r#""method":"POST""#), "{}", g.text());
            })
            .curl(&["-d", "hi"])
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().contains(r#""body":"hi""#), "{}", g.text());
                assert!(g.text().contains(r#""name":"content-length","value":"2""#));
            }))
            .upgrade(Want::Declined),
            // HTTP/2's field names come lowercase, its pseudo-headers under their own names.
            Row::new("GET, text", "/t", |g, _| {
                assert_eq!(g.status, 200);
                let text = g.text().to_ascii_lowercase();
                assert!(text.contains("\nuser-agent: curl/"), "{}", g.text());
                assert!(text.contains("\naccept: */*\n"), "{}", g.text());
            })
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(
                    g.text()
                        .starts_with(":scheme: http\n:authority: 127.0.0.1:")
                );
                assert!(g.text().contains("\nuser-agent: curl/"), "{}", g.text());
            }))
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with("Host: 127.0.0.1:"), "{}", g.text());
                assert!(g.text().contains("\nUpgrade: h2c\n"), "{}", g.text());
            })),
            Row::new("POST, the body alone", "/b", |g, _| whole(g, 200, "a body"))
                .curl(&["--data-binary", "a body"])
                .upgrade(Want::Declined),
            Row::new("HEAD", "/e", |g, _| {
                assert_eq!(g.status, 200);
                assert!(g.body.is_empty());
                let length: usize = g.field("content-length").unwrap().parse().unwrap();
                assert!(length > 100, "the length of the echo it would be: {length}");
            })
            .curl(&["-I"])
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.body.is_empty());
                let length: usize = g.field("content-length").unwrap().parse().unwrap();
                assert!(length > 100, "the length of the echo it would be: {length}");
            }))
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.body.is_empty());
            })),
            // Beside an echo, a route is a route on every protocol.
            Row::new("a route beside it", "/a", |g, _| whole(g, 200, "hello")),
        ],
    );
}

// --- the journal --------------------------------------------------------------------------------

/// The journal's JSON: its entries, and a request to `/x` among them when `/x` was asked.
fn journal_read(g: &Got, _: SocketAddr) {
    assert_eq!(g.status, 200);
    assert_eq!(g.field("content-type"), Some("application/json"));
    assert!(
        g.text().starts_with(r#"{"capacity":1000,"recorded":"#),
        "{}",
        g.text()
    );
    assert!(g.text().ends_with("]}\n"), "{}", g.text());
}

#[test]
fn journal() {
    run(
        &["--workers", "1", "--journal-path", "/j"],
        &[
            Row::new("GET", "/j", journal_read)
                .h2(Want::Check(journal_read))
                .upgrade(Want::Check(journal_read)),
            // Every protocol's requests are recorded: the one before is the last entry, with
            // its request line as received (HTTP/2's `:method` and `:path`).
            Row::new("a request, then the journal", "/x", |g, _| {
                whole(g, 200, HELLO)
            })
            .same(&["content-type", "content-length"]),
            Row::new("the journal after /x", "/j", |g, _| {
                journal_read(g, SocketAddr::from(([0, 0, 0, 0], 0)));
                assert!(
                    g.text().contains(r#""method":"GET","target":"/x""#),
                    "{}",
                    g.text()
                );
            }),
            Row::new("DELETE", "/j", |g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().contains(r#""entries":[]}"#), "{}", g.text());
            })
            .curl(&["-X", "DELETE"])
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().contains(r#""entries":[]}"#), "{}", g.text());
            }))
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().contains(r#""entries":[]}"#), "{}", g.text());
            })),
            Row::new("another path", "/x", |g, _| whole(g, 200, HELLO)),
        ],
    );
}

/// The fault kinds of the journal's last entry (its `"faults":[...]`), read over HTTP/1.1,
/// with the entry's target.
fn last_journaled(addr: SocketAddr) -> (String, String) {
    let j = fetch(addr, Proto::Http11, &[], "/j").text();
    let last = j.rsplit(r#"{"seq":"#).next().unwrap_or_default();
    let field = |name: &str, end: char| {
        let at = last.find(name).map_or(last.len(), |i| i + name.len());
        let rest = &last[at..];
        rest[..rest.find(end).map_or(rest.len(), |i| i + 1)].to_string()
    };
    (field(r#""target":"#, ','), field(r#""faults":"#, ']'))
}

/// The journal's last entry is a request to `target` changed by `faults` (as its JSON lists them).
fn journaled(addr: SocketAddr, target: &str, faults: &str) {
    let (t, f) = last_journaled(addr);
    assert_eq!(t, format!("{target:?},"), "the last entry's target");
    assert_eq!(f, faults, "the last entry's faults");
}

/// Every protocol's request is recorded with the fault kinds that changed its answer, the
/// same as HTTP/1.1's: a path's faults (`--fault`) and a request's control (`--control`).
#[test]
fn journal_faults() {
    let all = |w: fn(&Got, SocketAddr)| [Want::Check(w); 3];
    let rows = [
        Row {
            cells: all(|g, a| {
                whole(g, 200, HELLO);
                journaled(a, "/lat", r#"["latency"]"#);
            }),
            ..Row::new("latency", "/lat", |_, _| {})
        },
        Row {
            cells: all(|g, a| {
                assert_eq!(g.status, 503);
                journaled(a, "/err", r#"["error"]"#);
            }),
            ..Row::new("error", "/err", |_, _| {})
        },
        Row {
            cells: all(|g, a| {
                whole(g, 200, HELLO);
                journaled(a, "/drip", r#"["latency","drip"]"#);
            }),
            ..Row::new("latency and drip", "/drip", |_, _| {})
        },
        Row {
            cells: all(|g, a| {
                assert_eq!(g.status, 200);
                journaled(a, "/?fault=latency:1ms", r#"["latency"]"#);
            }),
            ..Row::new("a control's latency", "/?fault=latency:1ms", |_, _| {})
        },
        Row {
            cells: all(|g, a| {
                assert_eq!(g.status, 503);
                journaled(a, "/?fault=error:503", r#"["error"]"#);
            }),
            ..Row::new("a control's error", "/?fault=error:503", |_, _| {})
        },
        Row {
            cells: all(|g, a| {
                whole(g, 200, HELLO);
                journaled(a, "/?fault=drip:5/10ms", r#"["drip"]"#);
            }),
            ..Row::new("a control's drip", "/?fault=drip:5/10ms", |_, _| {})
        },
        Row {
            cells: all(|g, a| {
                whole(g, 200, HELLO);
                journaled(a, "/plain", "[]");
            }),
            ..Row::new("no fault", "/plain", |_, _| {})
        },
    ];
    run(
        &[
            "--workers",
            "1",
            "--journal-path",
            "/j",
            "--control",
            "--fault",
            "/lat=latency:1ms",
            "--fault",
            "/err=error:1:503",
            "--fault",
            "/drip=latency:1ms",
            "--fault",
            "/drip=drip:5/10ms",
        ],
        &rows,
    );
}

// --- --control ----------------------------------------------------------------------------------

/// Each delivery fault a request's control asks for: the meaning `--fault`'s of its kind has
/// on each protocol (`faults`), HTTP/2's per stream, after an upgrade too (docs/http2.md).
#[test]
fn control_delivery() {
    run(
        &[
            "--workers",
            "1",
            "--control",
            "--route",
            "/r=200:0123456789abcdefghij",
        ],
        &[
            Row::new("drip", "/?fault=drip:5/100ms", |g, _| {
                whole(g, 200, HELLO);
                not_before(g, 200);
            })
            // The upgrade is taken: HTTP/2 drips stream 1.
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.version, "2", "HTTP/2 answers");
                whole(g, 200, HELLO);
                not_before(g, 200);
            })),
            Row::new("bandwidth", "/?fault=bandwidth:100/s", |g, _| {
                whole(g, 200, HELLO);
                not_before(g, 100);
            }),
            // The body of the answer the control chose, paced: its status, its N bytes.
            Row::new(
                "drip, with a status and N bytes",
                "/r?status=503&bytes=30&fault=drip:10/100ms",
                |g, _| {
                    assert_eq!(g.exit, 0, "curl's exit code");
                    assert_eq!(g.status, 503);
                    assert_eq!(g.body.len(), 30);
                    not_before(g, 200);
                },
            ),
            Row::new(
                "go-httpbin /drip",
                "/drip?numbytes=10&duration=0.2&delay=0",
                |g, _| {
                    whole(g, 200, "**********");
                    not_before(g, 200);
                },
            ),
            Row::new("stall", "/?fault=stall", |g, _| {
                assert_eq!(g.exit, 28, "curl timed out");
                assert_eq!(g.status, 0);
            })
            .curl(&["--max-time", "0.5"]),
            Row::new("hang", "/?fault=hang:150ms", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
                not_before(g, 150);
            }),
            Row::new("hang, then reset", "/?fault=hang:150ms:reset", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
                not_before(g, 150);
            }),
            Row::new("slow-close", "/?fault=slow-close:100ms", |g, _| {
                whole(g, 200, HELLO)
            }),
            // HTTP/1 cuts the response's bytes (head included: no status); HTTP/2 sends the
            // HEADERS and the body's first bytes, then RST_STREAM INTERNAL_ERROR (curl: 92).
            Row::new("truncate", "/r?fault=truncate:5", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
            })
            .h2(Want::Check(truncated_stream))
            .upgrade(Want::Check(truncated_stream)),
            Row::new(
                "truncate, a share of the body",
                "/r?fault=truncate:50%25",
                // HTTP/1's half of the response is within its head: curl sees no answer.
                |g, _| {
                    assert_eq!(g.status, 0);
                    assert!(g.body.is_empty());
                },
            )
            .h2(Want::Check(truncated_stream))
            .upgrade(Want::Check(truncated_stream)),
            Row::new("reset", "/r?fault=reset:5", |g, _| reset(g, &[0]))
                .h2(Want::Check(|g, _| reset(g, &[0, 200])))
                .upgrade(Want::Check(|g, _| reset(g, &[0, 200]))),
            Row::new("garbage", "/?fault=garbage:64", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
            }),
            // Through `x-canned-control`, with a delay first.
            Row::new("x-canned-control", "/r", |g, _| {
                cut(g);
                assert_eq!(g.status, 0);
                not_before(g, 100);
            })
            .curl(&["-H", "X-Canned-Control: delay=100ms;fault=truncate:5"])
            .h2(Want::Check(|g, _| {
                truncated_stream(g, SocketAddr::from(([0, 0, 0, 0], 0)));
                not_before(g, 100);
            }))
            .upgrade(Want::Check(|g, _| {
                truncated_stream(g, SocketAddr::from(([0, 0, 0, 0], 0)));
                not_before(g, 100);
            })),
        ],
    );
}

#[test]
fn control() {
    run(
        &["--control", "--route", "/a=200:hello"],
        &[
            Row::new("a query's status", "/?status=503", |g, _| {
                whole(g, 503, HELLO)
            })
            // The upgrade is taken, and HTTP/2 answers the control.
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.version, "2", "HTTP/2 answers");
                whole(g, 503, HELLO);
            })),
            Row::new("x-canned-control", "/a", |g, _| whole(g, 418, "hello"))
                .curl(&["-H", "X-Canned-Control: status=418"]),
            Row::new("a bad control", "/?delay=forever", |g, _| {
                assert_eq!(g.status, 400)
            }),
            Row::new("httpbin /status/CODE", "/status/418", |g, _| {
                whole(g, 418, "")
            }),
            Row::new("a delay", "/a?delay=150ms", |g, _| {
                whole(g, 200, "hello");
                not_before(g, 150);
            }),
            Row::new("an error fault", "/a?fault=error:502:bad", |g, _| {
                whole(g, 502, "bad")
            }),
            Row::new("a redirect", "/redirect-to?url=/x", |g, _| {
                assert_eq!(g.status, 302);
                assert_eq!(g.field("location"), Some("/x"));
            })
            .same(&["content-type", "content-length", "location"]),
            // A delivery fault: HTTP/2 shapes its stream as `--fault` does (`control_delivery`).
            Row::new("a delivery fault", "/a?fault=truncate:2", |g, _| {
                assert_ne!(g.exit, 0, "the answer cut after 2 bytes");
            })
            .h2(Want::Check(truncated_stream))
            .upgrade(Want::Check(truncated_stream)),
            Row::new("httpbin /bytes/N", "/bytes/10", |g, _| {
                assert_eq!(g.status, 200);
                assert_eq!(g.body.len(), 10);
            }),
            // go-httpbin's echo paths are echo routes: HTTP/2 echoes them as it does `--echo`.
            Row::new("httpbin /anything", "/anything", |g, _| {
                assert_eq!(g.status, 200);
                assert!(
                    g.text()
                        .starts_with(r#"{"method":"GET","target":"/anything""#)
                );
            })
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(
                    g.text()
                        .starts_with(r#"{"method":"GET","target":"/anything""#)
                );
            }))
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(
                    g.text()
                        .starts_with(r#"{"method":"GET","target":"/anything""#)
                );
                assert!(g.text().contains(r#""version":"HTTP/1.1""#));
            })),
            Row::new("httpbin /ip", "/ip", |g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with(r#"{"origin":"127.0.0.1","client":"#));
            })
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with(r#"{"origin":"127.0.0.1","client":"#));
            }))
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with(r#"{"origin":"127.0.0.1","client":"#));
            })),
            Row::new("httpbin /headers", "/headers", |g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with(r#"{"headers":{"Host":["#));
            })
            // The upgraded request's head is HTTP/1.1's, its Upgrade fields among them.
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with(r#"{"headers":{"Host":["#));
                assert!(g.text().contains(r#""Upgrade":["h2c"]"#), "{}", g.text());
            })),
            Row::new("httpbin /user-agent", "/user-agent", |g, _| {
                assert_eq!(g.status, 200);
                assert!(g.text().starts_with(r#"{"user-agent":"curl/"#));
            }),
            Row::new("httpbin /uuid", "/uuid", |g, _| {
                assert_eq!(g.status, 200);
                assert_eq!(g.text().len(), r#"{"uuid":""}"#.len() + 37);
            })
            .h2(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert_eq!(g.text().len(), r#"{"uuid":""}"#.len() + 37);
            }))
            .upgrade(Want::Check(|g, _| {
                assert_eq!(g.status, 200);
                assert_eq!(g.text().len(), r#"{"uuid":""}"#.len() + 37);
            })),
            Row::new("no control: the route", "/a?x=1", |g, _| {
                whole(g, 200, "hello")
            }),
            Row::new("no control: the default", "/", |g, _| whole(g, 200, HELLO)),
        ],
    );
}

// --- --grpc-health ------------------------------------------------------------------------------

/// The `Check` call's curl arguments: an empty `HealthCheckRequest` (the 5-byte prefix).
fn grpc_args() -> &'static [&'static str] {
    static ARGS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ARGS.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("canned-matrix-grpc-{}", std::process::id()));
        std::fs::write(&path, [0u8; 5]).unwrap();
        let at: &'static str = Box::leak(format!("@{}", path.display()).into_boxed_str());
        vec![
            "-H",
            "content-type: application/grpc",
            "-H",
            "te: trailers",
            "--data-binary",
            at,
        ]
    })
}

/// SERVING, as gRPC frames it, and its trailers.
fn serving(g: &Got, _: SocketAddr) {
    assert_eq!(g.exit, 0, "curl's exit code");
    assert_eq!(g.status, 200);
    assert_eq!(g.field("content-type"), Some("application/grpc"));
    // curl's `-i` writes the trailers after the body.
    let mut want = vec![0, 0, 0, 0, 2, 8, 1];
    want.extend_from_slice(b"grpc-status: 0\r\n");
    assert_eq!(
        g.body, want,
        "HealthCheckResponse SERVING, then grpc-status 0"
    );
}

/// gRPC is HTTP/2's: over HTTP/1.1 the path is a path like any other (docs/http2.md, gRPC health).
fn grpc_rows() -> Vec<Row> {
    let check = "/grpc.health.v1.Health/Check";
    vec![
        Row::new("Check", check, |g, _| whole(g, 200, HELLO))
            .curl(grpc_args())
            .h2(Want::Check(serving))
            .upgrade(Want::Declined),
        Row::new("GET on its path", check, |g, _| whole(g, 200, HELLO)),
    ]
}

#[test]
fn grpc_health() {
    run(&["--grpc-health"], &grpc_rows());
}

#[test]
fn grpc_health_under_delay_faults_and_mutate() {
    for flags in [
        &["--grpc-health", "--delay", "10ms"][..],
        &["--grpc-health", "--fault", "*=latency:10ms"],
        &["--grpc-health", "--mutate"],
    ] {
        let mut rows = grpc_rows();
        if flags.contains(&"--mutate") {
            // The default route's answers are mutated: only the call is compared.
            rows.truncate(1);
            rows[0].cells[0] = Want::Check(|_, _| {});
        }
        run(flags, &rows);
    }
}

// --- limits -------------------------------------------------------------------------------------

#[test]
fn max_body_bytes() {
    let body = "x".repeat(40);
    let body: &'static str = Box::leak(body.into_boxed_str());
    let over: &'static [&'static str] = Box::leak(Box::new(["-d", body]));
    let rows = [
        Row::new("a body within", "/", |g, _| whole(g, 200, HELLO))
            .curl(&["-d", "small"])
            .upgrade(Want::Declined),
        Row::new("a body over", "/", |g, _| {
            whole(
                g,
                413,
                "413 Content Too Large: the body is larger than the body limit (RFC 9110 §15.5.14)\n",
            )
        })
        .curl(over)
        .upgrade(Want::Declined),
    ];
    run(&["--max-body-bytes", "16"], &rows);
    // A held answer is still the 413, not the route's.
    run(&["--max-body-bytes", "16", "--delay", "10ms"], &rows);
}

/// A request whose fields are over a limit: HTTP/1's 431, or on HTTP/2 431 or the stream
/// reset (docs/http2.md: a limit on fields).
fn fields_refused(g: &Got, _: SocketAddr) {
    assert!(
        g.status == 431 || (g.status == 0 && g.exit == 92),
        "431, or RST_STREAM"
    );
}

#[test]
fn field_limits() {
    let long = format!("X-Long: {}", "v".repeat(1000));
    let long: &'static str = Box::leak(long.into_boxed_str());
    let many: &'static [&'static str] = Box::leak(
        (0..10)
            .flat_map(|i| ["-H", Box::leak(format!("X-F{i}: v").into_boxed_str())])
            .collect::<Vec<&'static str>>()
            .into_boxed_slice(),
    );
    run(
        &["--max-headers", "8"],
        &[
            Row::new("fields within", "/", |g, _| whole(g, 200, HELLO)),
            Row::new("fields over", "/", |g, _| assert_eq!(g.status, 431))
                .curl(many)
                .h2(Want::Check(fields_refused))
                .upgrade(Want::Check(fields_refused)),
        ],
    );
    run(
        &["--max-head-bytes", "500"],
        &[
            Row::new("a head within", "/", |g, _| whole(g, 200, HELLO)),
            Row::new("a head over", "/", |g, _| assert_eq!(g.status, 431))
                .curl(Box::leak(Box::new(["-H", long])))
                .h2(Want::Check(fields_refused))
                .upgrade(Want::Check(fields_refused)),
        ],
    );
}

// --- --max-requests, by raw bytes (curl 7.88 cannot reuse a prior-knowledge connection:
// curl/curl#10634) ------------------------------------------------------------------------------

/// `GET /` on `stream`: the static table's `:method GET`, `:scheme http`, `:path /`.
fn get(stream: u32) -> Vec<u8> {
    frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        stream,
        &[0x82, 0x86, 0x84],
    )
}

const SWITCHING_PROTOCOLS: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

/// Frames until the server closes, or 2 s of silence.
fn frames(s: &mut std::net::TcpStream) -> Vec<(Header, Vec<u8>)> {
    let mut b = Vec::new();
    s.set_read_timeout(Some(time_bound(Duration::from_secs(2))))
        .unwrap();
    let mut buf = [0u8; 65536];
    while let Ok(n) = s.read_some(&mut buf) {
        if n == 0 {
            break;
        }
        b.extend_from_slice(&buf[..n]);
    }
    split(&b)
}

/// The streams answered 200 (`:status` by the static table's index 8) and whether a GOAWAY
/// came.
fn answered(frames: &[(Header, Vec<u8>)]) -> (Vec<u32>, bool) {
    let ok = frames
        .iter()
        .filter(|(h, p)| h.kind == kind::HEADERS && p.first() == Some(&0x88))
        .map(|(h, _)| h.stream)
        .collect();
    (ok, frames.iter().any(|(h, _)| h.kind == kind::GOAWAY))
}

#[test]
fn max_requests() {
    let (_h, addr) = start(&["--max-requests", "2"]);
    // HTTP/1.1: two answers, the second with `Connection: close`, then the close.
    let mut s = connect(addr);
    s.write_all(&b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3))
        .unwrap();
    let got = parse_responses(&read_to_eof(&mut s), &[]);
    assert_eq!(got.len(), 2, "HTTP/1.1: {got:?}");
    assert_eq!(got[1].header("connection"), Some("close"));
    // Prior knowledge: streams 1 and 3 answered, then GOAWAY; stream 5 not answered.
    let mut s = connect(addr);
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &[]));
    for id in [1, 3, 5] {
        b.extend(get(id));
    }
    s.write_all(&b).unwrap();
    let (ok, goaway) = answered(&frames(&mut s));
    assert_eq!((ok, goaway), (vec![1, 3], true), "prior knowledge");
    // After the upgrade: stream 1 (the upgraded request) and 3 answered, then GOAWAY.
    let mut s = connect(addr);
    let mut b = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
        Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n"
        .to_vec();
    b.extend_from_slice(PREFACE);
    b.extend(frame(kind::SETTINGS, 0, 0, &[]));
    for id in [3, 5] {
        b.extend(get(id));
    }
    s.write_all(&b).unwrap();
    let mut head = [0u8; SWITCHING_PROTOCOLS.len()];
    s.read_exact(&mut head).unwrap();
    assert!(head.starts_with(b"HTTP/1.1 101 "), "{head:?}");
    let (ok, goaway) = answered(&frames(&mut s));
    assert_eq!((ok, goaway), (vec![1, 3], true), "after the upgrade");
}

// --- CONNECT ------------------------------------------------------------------------------------

#[test]
fn connect_method() {
    let (_h, addr) = start(&[]);
    // HTTP/1.1: 405 at once (canned is not a proxy).
    let got = exchange(
        addr,
        b"CONNECT x:1 HTTP/1.1\r\nHost: x:1\r\nConnection: close\r\n\r\n",
    );
    assert!(got.starts_with(b"HTTP/1.1 405 "), "{got:?}");
    // HTTP/2: HEADERS with `:method CONNECT` and `:authority` alone, without END_STREAM
    // (RFC 9113 §8.5): 405 at once too, not at the idle timeout.
    let started = Instant::now();
    let mut s = connect(addr);
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &[]));
    // Literal without indexing, names by index: `:method` (2), `:authority` (1).
    let mut block = vec![0x02, 7];
    block.extend_from_slice(b"CONNECT");
    block.extend_from_slice(&[0x01, 3]);
    block.extend_from_slice(b"x:1");
    b.extend(frame(kind::HEADERS, flag::END_HEADERS, 1, &block));
    s.write_all(&b).unwrap();
    s.set_read_timeout(Some(time_bound(Duration::from_secs(2))))
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let status = loop {
        let n = s.read_some(&mut buf).expect("an answer within 2 s");
        assert!(n > 0, "closed without an answer");
        got.extend_from_slice(&buf[..n]);
        let fs = split(&got);
        if let Some((_, p)) = fs
            .iter()
            .find(|(h, _)| h.kind == kind::HEADERS && h.stream == 1)
        {
            break p.clone();
        }
    };
    // `:status 405`: a literal, name by the static index 8's name (`:status`).
    assert!(
        status.windows(3).any(|w| w == b"405"),
        "HEADERS {status:?} is not 405"
    );
    assert!(started.elapsed() < time_bound(Duration::from_secs(2)));
}
