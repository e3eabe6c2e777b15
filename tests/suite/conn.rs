//! The connection state machine: driven directly (no sockets) for limits, method answers,
//! body limits, HEAD errors and the access log, and over loopback where the behaviour is
//! visible from outside.

use crate::common;
use canned::check::connection::{
    ConnectionOptions, HttpVersion, PERSISTENCE, keep_alive_decision, responses,
};
use canned::conn::{ConnLimits, Connection, Env, Features, LogLines, Next, Part, Pool, Settings};
use canned::h1::{Http1Conn, WorkArea};
use canned::parser::{Error, Limits, Rule};
use canned::response::{KeepAliveForm, Responses};
use canned::stats::Stats;
use common::*;
#[cfg(feature = "access-log")]
use std::io::BufRead;
#[cfg(any(feature = "access-log", feature = "stats"))]
use std::io::Read;
use std::io::Write;
use std::time::Duration;
#[cfg(feature = "stats")]
use std::time::Instant;

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// What a worker lends its connections.
struct Parts {
    pool: Pool<WorkArea>,
    stats: Stats,
    log: LogLines,
    responses: Responses,
    settings: Settings,
}

impl Parts {
    fn env(&mut self) -> Env<'_, WorkArea> {
        Env {
            settings: &self.settings,
            responses: &self.responses,
            pool: &mut self.pool,
            stats: &mut self.stats,
            now_us: 0,
            draining: false,
            features: Features {
                access_log: Part::new(Some(&mut self.log)),
                ..Features::default()
            },
        }
    }
}

/// A connection with its worker's parts, driven by hand.
struct Driver {
    conn: Http1Conn,
    parts: Parts,
    /// Everything written so far.
    wire: Vec<u8>,
}

impl Driver {
    fn new(responses: Responses, conn_limits: ConnLimits) -> Driver {
        Driver {
            conn: Http1Conn::new(0),
            parts: Parts {
                pool: Pool::default(),
                stats: Stats::default(),
                log: LogLines::text(),
                responses,
                settings: Settings {
                    conn_limits,
                    ..Settings::default()
                },
            },
            wire: Vec::new(),
        }
    }

    fn responses(&self) -> &Responses {
        &self.parts.responses
    }

    fn feed(&mut self, data: &[u8]) {
        self.conn.on_data(data, &mut self.parts.env());
    }

    /// Write up to `n` bytes of pending output.
    fn write(&mut self, n: usize) -> usize {
        let out = self.conn.output();
        let n = n.min(out.len());
        self.wire.extend_from_slice(&out[..n]);
        self.conn.wrote(n, &mut self.parts.env());
        n
    }

    fn write_all(&mut self) -> Vec<u8> {
        while self.write(usize::MAX) > 0 {}
        std::mem::take(&mut self.wire)
    }

    #[cfg(feature = "access-log")]
    fn log(&self) -> String {
        String::from_utf8(self.parts.log.lines.clone()).unwrap()
    }
}

fn driver() -> Driver {
    Driver::new(responses(), ConnLimits::default())
}

/// RFC 9112 §9.3 as a table of requests: the oracle's reading of the head and its decision.
#[test]
fn keep_alive_rules_from_the_table() {
    let cases: [(&str, bool, KeepAliveForm); 8] = [
        (
            "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            false,
            KeepAliveForm::KeepAlive11,
        ),
        (
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n",
            true,
            KeepAliveForm::Close,
        ),
        (
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: x, keep-alive\r\nconnection: close\r\n\r\n",
            true,
            KeepAliveForm::Close,
        ),
        ("GET / HTTP/1.0\r\n\r\n", true, KeepAliveForm::Close),
        (
            "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
            false,
            KeepAliveForm::KeepAlive10,
        ),
        (
            "GET / HTTP/1.0\r\nConnection: keep-alive , close\r\n\r\n",
            true,
            KeepAliveForm::Close,
        ),
        (
            "\r\nGET / HTTP/1.0\r\nConnection:\tkeep-alive\t\r\n\r\n",
            false,
            KeepAliveForm::KeepAlive10,
        ),
        (
            "GET / HTTP/1.1\r\nHost: a\r\nX-Connection: close\r\n\r\n",
            false,
            KeepAliveForm::KeepAlive11,
        ),
    ];
    for (head, close, variant) in cases {
        let o = ConnectionOptions::read(head.as_bytes());
        assert_eq!(
            keep_alive_decision(o, false, 1, 0),
            (close, variant),
            "{head:?}"
        );
        // Shutting down, or the last allowed request, closes whatever the client asked.
        assert_eq!(
            keep_alive_decision(o, true, 1, 0),
            (true, KeepAliveForm::Close)
        );
        assert_eq!(
            keep_alive_decision(o, false, 3, 3),
            (true, KeepAliveForm::Close)
        );
        // The connection's own answer agrees.
        let mut d = driver();
        d.feed(head.as_bytes());
        let r = d.responses().clone();
        let want = [&r.head(0, variant)[..], r.body(0)].concat();
        assert_eq!(d.write_all(), want, "{head:?}");
    }
    assert_eq!(
        PERSISTENCE
            .iter()
            .filter(|r| r.0 == HttpVersion::Http10 && r.3)
            .count(),
        1,
        "HTTP/1.0 persists only with keep-alive and no close"
    );
}

/// Small limits: output is refilled in `body_chunk` pieces and parsing stops at `high_water`.
#[test]
fn small_limits_reach_backpressure_and_refills() {
    let limits = ConnLimits {
        high_water: 300,
        body_chunk: 100,
        max_body: u64::MAX,
    };
    let mut d = Driver::new(responses(), limits);
    d.feed(b"GET /mid HTTP/1.1\r\nHost: a\r\n\r\n");
    let head = d.responses().head(3, KeepAliveForm::KeepAlive11).len();
    assert_eq!(
        d.conn.output().len(),
        head + 100,
        "first piece of the 700-byte body"
    );
    // While a body is being refilled, one read shows whether the next head has begun (the
    // header timeout bounds it); then no more reading.
    assert!(d.conn.wants_read());
    d.feed(&GET[..1]);
    assert!(
        !d.conn.wants_read(),
        "no more reading while a body is being refilled"
    );
    let out = d.write_all();
    assert_eq!(out.len(), head + 700);
    assert!(d.conn.wants_read());
    // 20 pipelined requests: parsing stops once 300 bytes are pending.
    d.feed(&[&GET[1..], &GET.repeat(19)].concat());
    let one = d.responses().head(0, KeepAliveForm::KeepAlive11).len() + 12;
    assert_eq!(d.conn.output().len(), one * 300usize.div_ceil(one));
    assert!(!d.conn.wants_read());
    assert_eq!(d.write_all().len(), one * 20);
    assert_eq!(d.conn.next(), Next::Continue);
    assert!(d.conn.is_idle());
}

/// A client that pipelines more than it reads: input held back stays within a head plus
/// one read (the connection stops reading, so TCP flow control pushes back).
#[test]
fn pipelining_faster_than_reading_holds_back_little_input() {
    let mut d = driver();
    let batch = GET.repeat(64 * 1024 / GET.len());
    let mut most = 0;
    for _ in 0..400 {
        if d.conn.wants_read() {
            d.feed(&batch);
        }
        d.write(4096);
        most = most.max(d.conn.pending_input());
        d.wire.clear();
    }
    let head_limit = Limits::default().max_head;
    assert!(most <= head_limit + batch.len(), "input held: {most}");
}

/// A client that reads about as fast as its requests add output, so that output never
/// drains to empty: the written part is dropped as it goes, and the output buffer, written
/// part included, stays within the high-water mark plus one response (docs/limits.md).
#[test]
fn steady_reader_that_never_drains_output_keeps_the_buffer_bounded() {
    let mut d = driver();
    d.feed(&GET.repeat(100));
    let one = d.responses().head(0, KeepAliveForm::KeepAlive11).len() + 12;
    // A few bytes more output a turn than is read.
    let per_turn = GET.repeat(4096 / one + 1);
    let (mut most, mut held) = (0, 0);
    for _ in 0..2000 {
        if d.conn.wants_read() {
            d.feed(&per_turn);
        }
        d.write(4096);
        assert!(!d.conn.output().is_empty());
        most = most.max(d.conn.buffered());
        held = held.max(d.conn.output_held());
        d.wire.clear();
    }
    let high_water = ConnLimits::default().high_water;
    assert!(held >= high_water, "the mark was never reached: {held}");
    assert!(held <= high_water + one, "output buffer: {held}");
    // The input held back is a head plus one read at most, and capacity twice what it held.
    let input = Limits::default().max_head + per_turn.len();
    assert!(
        most <= 2 * (high_water + one + input) + 1024,
        "buffered: {most}"
    );
}

/// CONNECT is never answered 2xx (RFC 9110 §9.3.6): 405 with Allow, connection kept.
#[test]
fn connect_gets_405_with_allow() {
    let mut d = driver();
    d.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    let out = String::from_utf8(d.write_all()).unwrap();
    assert!(
        out.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
        "{out}"
    );
    assert!(
        out.contains("\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE\r\n"),
        "{out}"
    );
    assert!(out.ends_with("\r\n\r\n405 Method Not Allowed\n"), "{out}");
    assert_eq!(d.conn.next(), Next::Continue, "a 405 keeps the connection");
    // Other methods are answered by the routes as before.
    for m in ["POST", "OPTIONS", "DELETE", "BREW"] {
        d.feed(format!("{m} / HTTP/1.1\r\nHost: a\r\n\r\n").as_bytes());
        let out = String::from_utf8(d.write_all()).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{m}: {out}");
    }
}

/// With a list of accepted methods: others get 405, OPTIONS 204, both with Allow.
#[test]
fn accepted_methods_list() {
    let mut r = responses();
    r.accept_only(&["GET", "HEAD", "POST"]);
    let cases: [(&str, &str); 7] = [
        ("GET", "HTTP/1.1 201 Created\r\n"),
        ("HEAD", "HTTP/1.1 201 Created\r\n"),
        ("POST", "HTTP/1.1 201 Created\r\n"),
        ("PUT", "HTTP/1.1 405 Method Not Allowed\r\n"),
        ("get", "HTTP/1.1 405 Method Not Allowed\r\n"),
        ("CONNECT", "HTTP/1.1 405 Method Not Allowed\r\n"),
        ("OPTIONS", "HTTP/1.1 204 No Content\r\n"),
    ];
    for (method, status_line) in cases {
        let mut d = Driver::new(r.clone(), ConnLimits::default());
        let target = if method == "CONNECT" { "a:1" } else { "/r" };
        d.feed(format!("{method} {target} HTTP/1.1\r\nHost: a\r\n\r\n").as_bytes());
        let out = String::from_utf8(d.write_all()).unwrap();
        assert!(out.starts_with(status_line), "{method}: {out}");
        let allow = out.contains("\r\nAllow: GET, HEAD, POST, OPTIONS\r\n");
        assert_eq!(allow, !status_line.contains("201"), "{method}: {out}");
        if method == "OPTIONS" {
            assert!(!out.contains("Content-Length"), "{out}");
            assert!(out.ends_with("\r\n\r\n"), "{out}");
        }
        assert_eq!(d.conn.next(), Next::Continue, "{method}");
    }
    // OPTIONS * (asterisk-form) too.
    let mut d = Driver::new(r.clone(), ConnLimits::default());
    d.feed(b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(d.write_all().starts_with(b"HTTP/1.1 204 No Content\r\n"));
}

/// Error responses to HEAD have the head alone, Content-Length included (RFC 9110 §9.3.2).
#[test]
fn errors_to_head_have_no_body() {
    let cases: [(&[u8], Error); 4] = [
        (b"HEAD / HTTP/1.1\r\n\r\n", Error::MissingHost),
        (
            b"\r\nHEAD / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n",
            Error::InvalidHeaderName,
        ),
        (
            b"HEAD / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            Error::InvalidChunkSize,
        ),
        (
            b"HEAD / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\n\r\n",
            Error::ExpectationFailed,
        ),
    ];
    for (req, error) in cases {
        let mut d = driver();
        d.feed(req);
        let out = d.write_all();
        let [start, rest, body] = d.responses().error(Rule::Request(error));
        let head = &[start, rest].concat()[..];
        assert_eq!(out, head, "{}", String::from_utf8_lossy(req));
        assert!(
            String::from_utf8_lossy(head).contains(&format!("Content-Length: {}\r\n", body.len()))
        );
        assert!(matches!(d.conn.next(), Next::Close { .. }));
        // The same request as GET gets the body.
        let get = String::from_utf8_lossy(req).replace("HEAD", "GET");
        let mut d = driver();
        d.feed(get.as_bytes());
        assert_eq!(d.write_all(), [head, body].concat());
    }
}

/// A body limit: Content-Length over it is refused at once with 413, and the connection
/// closes; at the limit the request is answered.
#[test]
fn body_over_the_limit_gets_413() {
    let limits = ConnLimits {
        max_body: 10,
        ..ConnLimits::default()
    };
    let mut d = Driver::new(responses(), limits);
    d.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789");
    assert!(d.write_all().starts_with(b"HTTP/1.1 200 OK\r\n"));
    d.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n");
    let out = d.write_all();
    let [start, rest, body] = d.responses().error(Rule::BodyTooLarge);
    let head = &[start, rest].concat()[..];
    assert_eq!(out, [head, body].concat(), "413, and no 100 Continue");
    assert!(String::from_utf8_lossy(head).starts_with("HTTP/1.1 413 Content Too Large\r\n"));
    assert_eq!(d.conn.next(), Next::Close { linger: true });
    assert_eq!(d.parts.stats.by_status[413], 1);
    // Unlimited by default.
    let mut d = driver();
    d.feed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999\r\n\r\n");
    assert_eq!(d.conn.next(), Next::Continue);
    assert!(d.conn.output().is_empty(), "waits for the body");
}

/// Each answered request is logged once, when its response is decided, with the status it
/// got; a request the parser rejected is logged with `-` fields.
#[cfg(feature = "access-log")]
#[test]
fn access_log_records_every_response_once_with_its_status() {
    let mut d = driver();
    d.feed(b"GET /r HTTP/1.1\r\nHost: a\r\n\r\nPOST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nab");
    assert_eq!(
        d.log().lines().count(),
        1,
        "the POST is not answered yet: {}",
        d.log()
    );
    d.feed(b"cd");
    d.feed(b"PUT /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\nzz");
    let log = d.log();
    let wire = d.write_all();
    let lines: Vec<&str> = log.lines().collect();
    let tails: Vec<&str> = lines
        .iter()
        // Without a Date field (`--no-date`), the date is `-`, as common log format marks
        // a missing field; a connection driven by hand has no client address (`-`).
        .map(|l| l.strip_prefix("- - ").unwrap())
        .collect();
    // Each line's bytes are its whole answer, head and body: together, the wire.
    let sizes = [86, 93, 194];
    assert_eq!(sizes.iter().sum::<usize>(), wire.len());
    assert_eq!(
        tails,
        [
            "GET /r HTTP/1.1 201 86 0",
            "POST /x HTTP/1.1 200 93 0",
            "PUT /c HTTP/1.1 400 194 0 rule=invalid_chunk_size"
        ],
        "{log}"
    );
    let mut d = driver();
    d.feed(b"GET / HTTP/1.1\r\n\r\n");
    let n = d.write_all().len();
    assert_eq!(
        d.log().lines().last(),
        Some(&*format!("- - - - - 400 {n} 0 rule=missing_host")),
        "{}",
        d.log()
    );
    let mut d = Driver::new(
        responses(),
        ConnLimits {
            max_body: 1,
            ..ConnLimits::default()
        },
    );
    d.feed(b"POST /big HTTP/1.0\r\nContent-Length: 2\r\n\r\n");
    let n = d.write_all().len();
    assert_eq!(
        d.log().lines().last(),
        Some(&*format!(
            "- - POST /big HTTP/1.0 413 {n} 0 rule=body_too_large"
        )),
        "{}",
        d.log()
    );
    assert_eq!(d.log().lines().count(), 1);
}

/// The pool keeps work areas, but not the buffers a burst grew: at most `KEEP_BYTES`.
#[test]
fn pool_keeps_a_bounded_number_of_buffer_bytes() {
    let r = responses();
    let mut pool = Pool::default();
    let mut stats = Stats::default();
    let mut conns: Vec<Http1Conn> = (0..64).map(|_| Http1Conn::new(0)).collect();
    let settings = Settings::default();
    for c in &mut conns {
        let mut env = Env {
            settings: &settings,
            responses: &r,
            pool: &mut pool,
            stats: &mut stats,
            now_us: 0,
            draining: false,
            features: Features::default(),
        };
        // Each connection's output fills to the high-water mark.
        c.on_data(&GET.repeat(64 * 1024 / GET.len()), &mut env);
        assert!(c.buffered() > 64 * 1024);
    }
    for c in &mut conns {
        c.release(&mut pool);
    }
    assert_eq!(pool.len(), 64);
    assert!(
        pool.held_bytes() <= Pool::KEEP_BYTES,
        "{}",
        pool.held_bytes()
    );
}

/// 304 carries no Content-Length (RFC 9110 §8.6) and no body; 204 neither. (A body given for
/// either is refused at start: see tests/suite/cli.rs.)
#[test]
fn not_modified_and_no_content_have_no_length() {
    let (_h, addr) = start(&["--route", "/nm=304", "--route", "/nc=204"]);
    for (path, status) in [("/nm", "304 Not Modified"), ("/nc", "204 No Content")] {
        let out = exchange(addr, format!("GET {path} HTTP/1.0\r\n\r\n").as_bytes());
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(&format!("HTTP/1.1 {status}\r\n")),
            "{text}"
        );
        assert!(
            !text.to_ascii_lowercase().contains("content-length"),
            "{text}"
        );
        assert!(!text.contains("Content-Type"), "{text}");
        assert!(text.ends_with("\r\n\r\n"), "{text}");
    }
}

/// Over loopback: CONNECT gets 405 with Allow and the connection stays open; an error to
/// HEAD ends with its head.
#[test]
fn connect_and_head_errors_over_loopback() {
    let (_h, addr) = start(&[]);
    let mut s = connect(addr);
    s.write_all(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        .unwrap();
    let r = read_responses(&mut s, 1);
    assert_eq!(r[0].status, 405);
    assert_eq!(
        r[0].header("allow"),
        Some("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE")
    );
    s.write_all(GET).unwrap();
    assert_eq!(read_responses(&mut s, 1)[0].status, 200);

    let out = exchange(addr, b"HEAD / HTTP/1.1\r\n\r\n");
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{text}");
    // The length of `400 Bad Request: an HTTP/1.1 request without Host (RFC 9112 §3.2)\n`.
    assert!(text.contains("Content-Length: 67\r\n"), "{text}");
    assert!(text.ends_with("Connection: close\r\n\r\n"), "{text}");
}

/// Over loopback: a client pipelines 5 MB of requests while reading its responses slowly.
/// The server stops reading once input held back exceeds a head, so what it has read but
/// not answered (read from `--stats`: bytes in minus requests parsed) stays near one read,
/// and TCP flow control holds the rest in the client.
#[cfg(feature = "stats")]
#[test]
fn slow_reading_pipelining_client_is_held_back_by_flow_control() {
    // Responses much larger than requests: one read of requests is many times the
    // high-water mark of output.
    let body = "x".repeat(2000);
    let (h, addr) = start(&["--workers", "1", "--stats", "/_stats", "--body", &body]);
    let mut s = connect(addr);
    let mut writer = s.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let batch = GET.repeat(2048);
        for _ in 0..100 {
            if writer.write_all(&batch).is_err() {
                return;
            }
        }
    });
    let held = |addr| -> i64 {
        let mut st = connect(addr);
        st.write_all(b"GET /_stats HTTP/1.0\r\n\r\n").unwrap();
        let body = String::from_utf8(read_to_eof(&mut st)).unwrap();
        let field = |name: &str| -> i64 {
            let at = body.find(&format!("\"{name}\":")).unwrap() + name.len() + 3;
            body[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        // Stats requests (24 bytes) are counted as 27-byte ones: a few bytes off at most.
        field("bytes_in") - field("requests") * GET.len() as i64
    };
    let mut buf = vec![0u8; 1024];
    let mut most = 0;
    let mut got = 0;
    let start = Instant::now();
    let mut next_sample = start;
    while start.elapsed() < Duration::from_secs(3) {
        // At most 1 MB/s of responses (500 a second): far slower than the client sends.
        got += s.read_some(&mut buf).unwrap();
        std::thread::sleep(Duration::from_millis(1));
        if Instant::now() >= next_sample {
            next_sample += Duration::from_millis(250);
            most = most.max(held(addr));
        }
    }
    assert!(got > 100_000, "read only {got} bytes");
    // A head (8 KiB) plus one 64 KiB read, and slack for the stats requests.
    assert!(
        most <= 8192 + 65536 + 4096,
        "server held {most} bytes of input"
    );
    s.shutdown(std::net::Shutdown::Both).unwrap();
    sender.join().unwrap();
    drop(s);
    drop(h);
}

/// Over loopback: a request the parser rejects is in the access log with its status.
#[cfg(feature = "access-log")]
#[test]
fn access_log_has_a_line_for_a_rejected_request() {
    let mut p = Proc::start(&["--workers", "1", "--access-log"]);
    let out = exchange(
        p.addr,
        b"GET /ok HTTP/1.1\r\nHost: t\r\n\r\nGET /x HTTP/1.1\r\n\r\n",
    );
    assert!(
        String::from_utf8_lossy(&out).ends_with(
            "\r\n\r\n400 Bad Request: an HTTP/1.1 request without Host (RFC 9112 §3.2)\n"
        )
    );
    let mut log = std::io::BufReader::new(p.child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut l = String::new();
        log.read_line(&mut l).unwrap();
        lines.push(l);
    }
    // `[DATE] CLIENT METHOD TARGET VERSION STATUS BYTES US`: the two answers' bytes are
    // the whole output.
    let fields: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| {
            let rest = l
                .split_once("] 127.0.0.1:")
                .unwrap_or_else(|| panic!("{l:?}"))
                .1;
            // After the client's port.
            rest.trim_end().split(' ').skip(1).collect()
        })
        .collect();
    assert_eq!(
        fields[0][..4],
        ["GET", "/ok", "HTTP/1.1", "200"],
        "{lines:?}"
    );
    assert_eq!(fields[1][..4], ["-", "-", "-", "400"], "{lines:?}");
    assert_eq!(fields[1][6..], ["rule=missing_host"], "{lines:?}");
    let bytes: usize = fields.iter().map(|f| f[4].parse::<usize>().unwrap()).sum();
    assert_eq!(bytes, out.len(), "{lines:?}");
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut rest = String::new();
    log.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "one line per response");
}

/// `--raw-response` answers every method with its file: no answer by method.
#[test]
fn raw_response_answers_every_method() {
    let common = canned::response::Common {
        server: String::new(),
        date: false,
    };
    let mut r = Responses::raw(
        std::sync::Arc::from(&b"HTTP/1.1 200 OK\r\n\r\n"[..]),
        &common,
    );
    assert_eq!(r.route(b"CONNECT", b""), 0);
    r.accept_only(&["GET"]);
    assert_eq!(r.route(b"PUT", b"/"), 0);
    assert_eq!(r.route(b"OPTIONS", b"/"), 0);
}

/// Over loopback, `--methods GET,HEAD`: another method gets 405 naming the accepted ones,
/// OPTIONS gets 204 with the same `Allow`, and the connection stays open for the next request.
#[test]
fn accepted_methods_over_loopback() {
    let (_h, addr) = start(&["--methods", "GET,HEAD"]);
    let mut s = connect(addr);
    // (request, status, Allow)
    let cases: [(&[u8], u16, Option<&str>); 5] = [
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi",
            405,
            Some("GET, HEAD, OPTIONS"),
        ),
        (
            b"OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n",
            204,
            Some("GET, HEAD, OPTIONS"),
        ),
        (
            b"OPTIONS / HTTP/1.1\r\nHost: t\r\n\r\n",
            204,
            Some("GET, HEAD, OPTIONS"),
        ),
        (
            b"DELETE / HTTP/1.1\r\nHost: t\r\n\r\n",
            405,
            Some("GET, HEAD, OPTIONS"),
        ),
        (GET, 200, None),
    ];
    for (request, status, allow) in cases {
        s.write_all(request).unwrap();
        let r = read_responses(&mut s, 1);
        let shown = String::from_utf8_lossy(request);
        assert_eq!(r[0].status, status, "{shown}");
        assert_eq!(r[0].header("allow"), allow, "{shown}");
        assert_eq!(r[0].header("connection"), None, "{shown}");
        if status == 204 {
            assert_eq!(r[0].header("content-length"), None, "{shown}");
        }
    }
}

/// Over loopback, `--max-body-bytes 10`: a body of 10 bytes is answered, one of 11 gets 413
/// and the connection closes; by Content-Length (before any of the body is read) and by the
/// data of a chunked body.
#[test]
fn max_body_bytes_over_loopback() {
    let (_h, addr) = start(&["--max-body-bytes", "10"]);
    // (request, status)
    let cases: [(&[u8], u16); 6] = [
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123456789",
            200,
        ),
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n0123456789A",
            413,
        ),
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999\r\n\r\n",
            413,
        ),
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n\
              5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n",
            200,
        ),
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n\
              5\r\n01234\r\n6\r\n56789A\r\n0\r\n\r\n",
            413,
        ),
        // Refused as soon as the chunk size says the data will pass the limit.
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n012",
            413,
        ),
    ];
    for (request, status) in cases {
        let shown = String::from_utf8_lossy(request);
        let mut s = connect(addr);
        s.write_all(request).unwrap();
        let r = if status == 200 {
            read_responses(&mut s, 1)
        } else {
            parse_responses(&read_to_eof(&mut s), &[])
        };
        assert_eq!(r.len(), 1, "{shown}");
        assert_eq!(r[0].status, status, "{shown}");
        if status == 413 {
            assert_eq!(r[0].header("connection"), Some("close"), "{shown}");
        }
    }
}

/// A head that does not arrive within the header timeout gets 408 and the connection closes;
/// to a HEAD request without the body, as every other error (RFC 9110 §9.3.2).
#[test]
fn header_timeout_answers_408_without_body_to_head() {
    // (partial head, is a HEAD request)
    let cases: [(&[u8], bool); 4] = [
        (b"HEAD / HTTP/1.1\r\nHost: a\r\n", true),
        (b"\r\nHEAD / HTTP/1.1\r\n", true),
        (b"GET / HTTP/1.1\r\nHost: a\r\n", false),
        (b"HEA", false),
    ];
    let settings = Settings::default();
    for (partial, head_only) in cases {
        let shown = String::from_utf8_lossy(partial);
        let mut d = driver();
        d.feed(partial);
        assert!(d.write_all().is_empty(), "{shown}");
        let due = d.conn.wake_at(&settings).unwrap();
        assert_eq!(due, settings.timeouts.header_us, "{shown}");
        // The clock is whole microseconds rounded up: at `due` the time may not be up yet.
        let mut env = d.parts.env();
        env.now_us = due;
        assert_eq!(d.conn.on_wake(&mut env), Next::Continue);
        assert!(d.write_all().is_empty(), "{shown}: 408 before its time");
        let mut env = d.parts.env();
        env.now_us = due + 1;
        assert_eq!(d.conn.on_wake(&mut env), Next::Continue, "{shown}");
        let out = d.write_all();
        let [start, rest, body] = d.responses().error(Rule::HeaderTimeout);
        let head = &[start, rest].concat()[..];
        let want = if head_only {
            head.to_vec()
        } else {
            [head, body].concat()
        };
        assert_eq!(out, want, "{shown}");
        assert_eq!(d.conn.next(), Next::Close { linger: false }, "{shown}");
        // The line's time runs from the head's first byte (the accept, at 0).
        #[cfg(feature = "access-log")]
        assert_eq!(
            d.log().lines().last(),
            Some(&*format!(
                "- - - - - 408 {} {} rule=header_timeout",
                out.len(),
                due + 1
            )),
            "{shown}: {}",
            d.log()
        );
    }
}

/// After an error the connection lingers, discarding input, for at most LINGER_BYTES (read in
/// pieces of any size, each counted rounded up to a KiB) or LINGER_US, whichever comes first.
#[test]
fn lingering_discards_at_most_linger_bytes() {
    use canned::conn::{LINGER_BYTES, LINGER_US};
    // (size of each read, reads that stay under the bound)
    let cases = [
        (64 * 1024, LINGER_BYTES / (64 * 1024) - 1),
        (1, 1023),
        (1500, 511),
    ];
    for (piece, under) in cases {
        let mut d = driver();
        d.feed(b"GET / HTTP/1.1\r\n\r\n");
        assert!(d.write_all().starts_with(b"HTTP/1.1 400 "));
        assert_eq!(d.conn.next(), Next::Close { linger: true });
        d.conn.start_lingering(0, &mut d.parts.pool);
        let junk = vec![b'x'; piece];
        for _ in 0..under {
            d.feed(&junk);
        }
        assert!(d.conn.wants_read(), "{piece}-byte reads: stopped early");
        assert_eq!(d.conn.next(), Next::Continue, "{piece}-byte reads");
        d.feed(&junk);
        assert!(!d.conn.wants_read(), "{piece}-byte reads: past the bound");
        assert_eq!(
            d.conn.next(),
            Next::Close { linger: false },
            "{piece}-byte reads"
        );
    }
    // The time bound alone, with little input.
    let mut d = driver();
    d.feed(b"GET / HTTP/1.1\r\n\r\n");
    d.write_all();
    d.conn.start_lingering(0, &mut d.parts.pool);
    d.feed(b"x");
    let settings = Settings::default();
    assert_eq!(d.conn.wake_at(&settings), Some(LINGER_US));
    let mut env = d.parts.env();
    env.now_us = LINGER_US;
    assert_eq!(d.conn.on_wake(&mut env), Next::Continue);
    let mut env = d.parts.env();
    env.now_us = LINGER_US + 1;
    assert_eq!(d.conn.on_wake(&mut env), Next::Close { linger: false });
}

/// Over loopback: a client that sends without end after its error response is cut off after
/// about LINGER_BYTES (plus what the socket buffers hold), not read for the whole LINGER_US.
#[test]
fn lingering_client_sending_without_end_is_cut_off() {
    let (_h, addr) = start(&["--workers", "1"]);
    let mut s = connect(addr);
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    assert!(read_responses(&mut s, 1)[0].status == 400);
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    // Far more than the bound plus any loopback socket buffers (a few MiB each way).
    let limit = 256 << 20;
    let junk = vec![b'x'; 64 * 1024];
    let mut sent = 0;
    while sent < limit {
        match s.write_some(&junk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(
        sent < limit,
        "the server kept reading after its error: {} MiB accepted",
        sent >> 20
    );
}

/// A loop turn's access-log lines are bounded (`ACCESS_LOG_TURN_BYTES`): a line that does not
/// fit is dropped whole and counted, and the word a fault adds to its line goes with it
/// instead of landing on the line before.
#[cfg(all(feature = "access-log", feature = "faults"))]
#[test]
fn access_log_lines_past_the_turn_bound_are_dropped_whole_and_counted() {
    use canned::config::{Command as Cli, Config};
    use canned::conn::ACCESS_LOG_TURN_BYTES;
    let args = ["--no-date", "--fault", "/e=error:1:503"];
    let Cli::Run(c) = Config::from_args(args, &[]).unwrap() else {
        panic!("not a run command")
    };
    let (mut responses, _) = canned::server::setup::responses(&c);
    let mut faults = canned::server::setup::faults(&c, &mut responses, None, 0).unwrap();
    let (mut pool, mut stats) = (Pool::default(), Stats::default());
    let request = b"GET /e HTTP/1.1\r\nHost: t\r\n\r\n";
    // Room for 100 bytes: more than the line takes, less than the most a line of its words
    // may take (its room is checked before its numbers are known).
    let mut filler = vec![b'x'; ACCESS_LOG_TURN_BYTES - 100];
    *filler.last_mut().unwrap() = b'\n';
    let mut log = LogLines::text();
    log.lines = filler.clone();
    let settings = Settings::default();
    for turn in 0..2 {
        let mut env = Env {
            settings: &settings,
            responses: &responses,
            pool: &mut pool,
            stats: &mut stats,
            now_us: 0,
            draining: false,
            features: Features {
                access_log: Part::new(Some(&mut log)),
                faults: Part::new(Some(&mut faults)),
                ..Features::default()
            },
        };
        let mut conn = Http1Conn::new(0);
        conn.on_data(request, &mut env);
        assert!(conn.output().starts_with(b"HTTP/1.1 503 "));
        if turn == 0 {
            assert!(log.lines == filler, "the line or its fault word was added");
            assert_eq!(stats.log_lines_dropped, 1);
            // The next turn starts empty.
            log.lines.clear();
        } else {
            // No client known, no clock of its own: `-` and 0 µs.
            let line = format!(
                "- - GET /e HTTP/1.1 503 {} 0 fault=error\n",
                conn.output().len()
            );
            assert_eq!(String::from_utf8_lossy(&log.lines), line);
            assert_eq!(stats.log_lines_dropped, 1);
        }
    }
}
