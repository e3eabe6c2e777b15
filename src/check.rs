//! Invariant checks shared by the unit tests, the corpus replay and the fuzz targets.
//!
//! Each function panics with a description when an invariant does not hold, so a fuzzer
//! reports it as a crash and a test as a failure.

use crate::chunked::{ChunkedDecoder, Progress};
use crate::parser::{Error, Limits, Parser, Status, parse_request};

/// Feed `data` to one parser in pieces ending at each of `cuts` (ascending offsets, taken
/// modulo the input length), then the whole; return the first result that is not partial.
pub fn parse_in_pieces<'b>(
    data: &'b [u8],
    cuts: &[usize],
    limits: Limits,
) -> Result<Status<'b>, Error> {
    let mut p = Parser::new(limits);
    let mut last = 0;
    for &c in cuts {
        let c = if data.is_empty() { 0 } else { c % data.len() };
        if c < last {
            continue;
        }
        last = c;
        match p.parse(&data[..c]) {
            Ok(Status::Partial) => {}
            done => return done,
        }
    }
    p.parse(data)
}

/// The request parser's invariants on `data`:
/// - the same bytes always give the same result;
/// - a complete head never claims more than the input, and every strict prefix of it is
///   partial;
/// - feeding the bytes in the pieces given by `cuts` gives exactly the one-shot result.
pub fn parser_invariants(data: &[u8], cuts: &[usize], limits: Limits) {
    let once = parse_request(data, limits);
    assert_eq!(
        once,
        parse_request(data, limits),
        "parse is not deterministic"
    );
    if let Ok(Status::Complete(req)) = once {
        assert!(req.head_len <= data.len(), "consumed more than the input");
        assert!(
            req.head_len <= limits.max_head,
            "head longer than the limit"
        );
        // Checking every prefix is quadratic: sample at most 512 of them, always the last.
        let n = req.head_len;
        let step = (n / 512).max(1);
        for k in (0..n).step_by(step).chain(core::iter::once(n - 1)) {
            let r = parse_request(&data[..k], limits);
            assert_eq!(
                r,
                Ok(Status::Partial),
                "strict prefix of {k} bytes is not partial"
            );
        }
        assert_eq!(
            parse_request(&data[..n], limits),
            once,
            "the head alone parses differently"
        );
    }
    let pieces = parse_in_pieces(data, cuts, limits);
    assert_eq!(
        pieces, once,
        "split parse differs from one-shot (cuts {cuts:?})"
    );
}

/// Decode `data` as a chunked body in pieces ending at `cuts` (as [`parse_in_pieces`]).
/// Returns the total consumed and whether the body ended, or the error.
pub fn decode_in_pieces(data: &[u8], cuts: &[usize]) -> Result<Progress, Error> {
    let mut d = ChunkedDecoder::new();
    let mut consumed = 0;
    let mut last = 0;
    for &c in cuts.iter().chain(core::iter::once(&usize::MAX)) {
        let c = if c == usize::MAX || data.is_empty() {
            data.len()
        } else {
            c % data.len()
        };
        if c < last {
            continue;
        }
        let p = d.decode(&data[consumed..c])?;
        assert!(
            p.consumed <= c - consumed,
            "decoder consumed more than given"
        );
        consumed += p.consumed;
        last = c;
        if p.done {
            break;
        }
    }
    Ok(Progress {
        consumed,
        done: d.is_done(),
    })
}

/// The chunked decoder's invariants on `data`: split invariance, consumption bounded by the
/// input, and nothing consumed past the end of the body.
pub fn chunked_invariants(data: &[u8], cuts: &[usize]) {
    let once = ChunkedDecoder::new().decode(data);
    if let Ok(p) = once {
        assert!(p.consumed <= data.len(), "consumed more than the input");
        if !p.done {
            assert_eq!(
                p.consumed,
                data.len(),
                "stopped early without ending the body"
            );
        } else {
            // The body is exactly the consumed bytes: they alone decode to the end.
            let again = ChunkedDecoder::new().decode(&data[..p.consumed]);
            assert_eq!(again, once, "the body alone decodes differently");
        }
    }
    assert_eq!(
        decode_in_pieces(data, cuts),
        once,
        "split decode differs from one-shot (cuts {cuts:?})"
    );
}

/// Split a fuzz input into cut points and data: the first byte says how many cuts (up to
/// 15), each cut is the next two bytes (little-endian).
pub fn split_script(data: &[u8]) -> ([usize; 15], usize, &[u8]) {
    let mut cuts = [0usize; 15];
    let Some((&n, mut rest)) = data.split_first() else {
        return (cuts, 0, data);
    };
    let n = (n as usize % 16).min(15);
    let mut k = 0;
    while k < n && rest.len() >= 2 {
        cuts[k] = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        rest = &rest[2..];
        k += 1;
    }
    cuts[..k].sort_unstable();
    (cuts, k, rest)
}

/// Limits chosen by a fuzz byte: the defaults, or small ones that the input can reach.
pub fn fuzz_limits(b: u8) -> Limits {
    match b % 4 {
        0 => Limits::default(),
        1 => Limits {
            max_head: 64,
            max_headers: 2,
        },
        2 => Limits {
            max_head: 256,
            max_headers: 8,
        },
        _ => Limits {
            max_head: 1024,
            max_headers: 0,
        },
    }
}

/// Fuzz entry: any bytes through the parser, with every invariant of [`parser_invariants`].
pub fn fuzz_parse_request(data: &[u8]) {
    let limits = fuzz_limits(data.first().copied().unwrap_or(0));
    let data = data.get(1..).unwrap_or(&[]);
    let half = [data.len() / 2];
    parser_invariants(data, &half, limits);
}

/// Fuzz entry: the fuzzer chooses the bytes and the split points.
pub fn fuzz_parse_split(data: &[u8]) {
    let (cuts, n, rest) = split_script(data);
    let limits = fuzz_limits(rest.first().copied().unwrap_or(0));
    let rest = rest.get(1..).unwrap_or(&[]);
    parser_invariants(rest, &cuts[..n], limits);
}

/// Fuzz entry: the chunked decoder with split points.
pub fn fuzz_chunked(data: &[u8]) {
    let (cuts, n, rest) = split_script(data);
    chunked_invariants(rest, &cuts[..n]);
}

#[cfg(feature = "server")]
pub use connection::{ConnScript, expected_output, fuzz_connection, run_connection};
#[cfg(feature = "server")]
pub use held::fuzz_held;

/// The socket-free connection driver and its oracle.
#[cfg(feature = "server")]
pub mod connection {
    use super::split_script;
    use crate::chunked::ChunkedDecoder;
    use crate::conn::{BODY_CHUNK, ConnLimits, Connection, Env, Features, Next, Pool, Settings};
    use crate::h1::{Conn, WorkArea};
    use crate::parser::{Framing, Limits, Parser, Status};
    use crate::response::{CONTINUE, Common, ERROR_STATUSES, Responses, Spec, Variant};
    use crate::stats::Stats;
    use std::sync::Arc;
    use std::vec::Vec;

    /// How the peer behaves: the bytes it sends, how they are split into reads, how much each
    /// write may take, and the server's settings.
    #[derive(Clone, Debug)]
    pub struct ConnScript<'a> {
        /// Bytes the peer sends.
        pub input: &'a [u8],
        /// Sizes of successive reads (cycled; 0 counts as 1).
        pub reads: &'a [usize],
        /// Sizes of successive writes (cycled; 0 means the socket is full this turn).
        pub writes: &'a [usize],
        /// Close after this many responses (0: unlimited).
        pub max_requests: u32,
        /// Head limits.
        pub limits: Limits,
        /// High-water mark, body refill size, body limit.
        pub conn_limits: ConnLimits,
        /// The server is shutting down from the start: every response closes.
        pub draining: bool,
    }

    /// The responses the checks use: a default, a small route, a middle-sized one and a large
    /// one that is streamed in pieces.
    pub fn responses() -> Responses {
        let spec = |status, body: Vec<u8>| Spec {
            status,
            body: Arc::from(body),
            content_type: "text/plain".into(),
            headers: Vec::new(),
        };
        let body = |n: usize| -> Vec<u8> { (0..n).map(|i| (i % 251) as u8).collect() };
        Responses::new(
            &[
                spec(200, b"Hello World\n".to_vec()),
                spec(201, b"r".to_vec()),
                spec(200, body(BODY_CHUNK * 2 + 100)),
                spec(200, body(700)),
                spec(304, Vec::new()),
            ],
            &[
                (b"/r".to_vec(), false),
                (b"/big".to_vec(), false),
                (b"/mid".to_vec(), false),
                (b"/nm".to_vec(), false),
            ],
            &Common {
                server: "canned".into(),
                date: false,
            },
        )
    }

    /// The most output one response can add: a head and the first body piece, or an error.
    fn largest_response(r: &Responses, body_chunk: usize) -> usize {
        let routes = (0..r.routes()).map(|k| {
            let head = [Variant::KeepAlive11, Variant::KeepAlive10, Variant::Close]
                .iter()
                .map(|&v| r.head_len(k, v))
                .max()
                .unwrap_or(0);
            head + r.body(k).len().min(body_chunk.max(1))
        });
        let errors = ERROR_STATUSES.iter().map(|&s| {
            let (h, b) = r.error(s);
            h.len() + b.len()
        });
        routes.chain(errors).max().unwrap_or(0)
    }

    /// What a run produced: the bytes written and the access-log lines.
    #[derive(Clone, Debug, Default)]
    pub struct Run {
        /// Everything written to the peer.
        pub wire: Vec<u8>,
        /// The access log.
        pub log: Vec<u8>,
    }

    /// Drive a [`Conn`] through a script with no sockets, checking the memory bounds at
    /// every step; return everything it wrote.
    pub fn run_connection(s: &ConnScript<'_>, responses: &Responses) -> Vec<u8> {
        run_connection_logged(s, responses).wire
    }

    /// [`run_connection`], with the access log on.
    pub fn run_connection_logged(s: &ConnScript<'_>, responses: &Responses) -> Run {
        let mut pool = Pool::default();
        let mut stats = Stats::default();
        let mut conn = Conn::new(0);
        let mut run = Run::default();
        let (mut fed, mut r, mut w, mut stalls) = (0, 0, 0, 0);
        let max_read = s.reads.iter().copied().max().unwrap_or(4096).max(1);
        let hw = s.conn_limits.high_water;
        // Memory bounds (README, Limits): parsing stops while the output buffer, its written
        // part included, is at the high-water mark, so the buffer is below it plus what one
        // request adds (a 100 Continue and a response); input held back is at most a head plus
        // one read; a buffer's capacity is at most twice the most it held (growth by doubling).
        let out_bound = hw + CONTINUE.len() + largest_response(responses, s.conn_limits.body_chunk);
        let in_bound = s.limits.max_head + max_read;
        let held_bound = size_of::<WorkArea>() + 2 * (in_bound + out_bound);
        let mut eof_sent = false;
        let settings = Settings {
            limits: s.limits,
            conn_limits: s.conn_limits,
            max_requests: s.max_requests,
            ..Settings::default()
        };
        loop {
            let mut env = Env {
                settings: &settings,
                responses,
                pool: &mut pool,
                stats: &mut stats,
                now_us: 0,
                draining: s.draining,
                features: Features {
                    access_log: Some(&mut run.log),
                    ..Features::default()
                },
            };
            let mut progressed = false;
            if conn.wants_read() {
                if fed < s.input.len() {
                    let size = s
                        .reads
                        .get(r % s.reads.len().max(1))
                        .copied()
                        .unwrap_or(4096);
                    r += 1;
                    let end = (fed + size.max(1)).min(s.input.len());
                    conn.on_data(&s.input[fed..end], &mut env);
                    fed = end;
                    progressed = true;
                } else if !eof_sent {
                    conn.on_eof();
                    eof_sent = true;
                    progressed = true;
                }
            }
            let out = conn.output();
            if !out.is_empty() {
                let size = s
                    .writes
                    .get(w % s.writes.len().max(1))
                    .copied()
                    .unwrap_or(usize::MAX);
                w += 1;
                // A run of full-socket turns ends: the peer reads eventually.
                let size = if size == 0 && stalls < 3 {
                    0
                } else {
                    size.max(1)
                };
                stalls = if size == 0 { stalls + 1 } else { 0 };
                let n = size.min(out.len());
                run.wire.extend_from_slice(&out[..n]);
                conn.wrote(n, &mut env);
                progressed |= n > 0 || size == 0;
            }
            assert!(
                conn.output_held() <= out_bound,
                "output buffer {} over its bound {out_bound}",
                conn.output_held()
            );
            assert!(
                conn.pending_input() <= in_bound,
                "buffered input {} over its bound {in_bound}",
                conn.pending_input()
            );
            assert!(
                conn.buffered() <= held_bound,
                "buffer capacity {} over its bound {held_bound}",
                conn.buffered()
            );
            match conn.next() {
                Next::Close { .. } | Next::Reset => break,
                Next::Continue if !progressed => {
                    // Nothing more can happen: all input given, no output pending.
                    assert!(eof_sent && conn.output().is_empty(), "connection stuck");
                    break;
                }
                Next::Continue => {}
            }
        }
        conn.release(&mut pool);
        assert!(
            pool.held_bytes() <= Pool::KEEP_BYTES,
            "pool keeps {} bytes",
            pool.held_bytes()
        );
        run
    }

    /// The HTTP version of a request line, read from its last 8 bytes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum HttpVersion {
        /// `HTTP/1.0`
        Http10,
        /// `HTTP/1.1`
        Http11,
    }

    /// What the keep-alive rules look at in a request head, read from its bytes without the
    /// parser: the version and the `close` and `keep-alive` connection options.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ConnectionOptions {
        /// The request line's version.
        pub version: HttpVersion,
        /// `close` is among the `Connection` field values (any case).
        pub close: bool,
        /// `keep-alive` is among them.
        pub keep_alive: bool,
    }

    impl ConnectionOptions {
        /// Read a complete, valid head (as the parser accepted it).
        pub fn read(head: &[u8]) -> ConnectionOptions {
            let text = String::from_utf8_lossy(head);
            let mut lines = text.split("\r\n").skip_while(|l| l.is_empty());
            let request_line = lines.next().unwrap_or_default();
            let version = if request_line.ends_with("HTTP/1.0") {
                HttpVersion::Http10
            } else {
                HttpVersion::Http11
            };
            let (mut close, mut keep_alive) = (false, false);
            for line in lines {
                let Some((name, value)) = line.split_once(':') else {
                    continue;
                };
                if !name.eq_ignore_ascii_case("connection") {
                    continue;
                }
                for option in value.split(',') {
                    let option = option.trim_matches([' ', '\t']);
                    close |= option.eq_ignore_ascii_case("close");
                    keep_alive |= option.eq_ignore_ascii_case("keep-alive");
                }
            }
            ConnectionOptions {
                version,
                close,
                keep_alive,
            }
        }
    }

    /// RFC 9112 §9.3, row by row: (version, `close` option, `keep-alive` option) -> whether
    /// the connection persists after the response. "If the close connection option is
    /// present, the connection will not persist"; otherwise HTTP/1.1 persists, and HTTP/1.0
    /// persists only with the keep-alive connection option (§9.3, and RFC 9112 Appendix C.2.2
    /// for HTTP/1.0's keep-alive).
    pub const PERSISTENCE: [(HttpVersion, bool, bool, bool); 8] = [
        (HttpVersion::Http11, false, false, true),
        (HttpVersion::Http11, false, true, true),
        (HttpVersion::Http11, true, false, false),
        (HttpVersion::Http11, true, true, false),
        (HttpVersion::Http10, false, false, false),
        (HttpVersion::Http10, false, true, true),
        (HttpVersion::Http10, true, false, false),
        (HttpVersion::Http10, true, true, false),
    ];

    /// Which head a response uses, by (closes, version): a closing response says
    /// `Connection: close`; an HTTP/1.0 keep-alive response says `Connection: keep-alive`
    /// (the client asked for it and HTTP/1.0 does not persist without it); HTTP/1.1 needs no
    /// field.
    pub const VARIANTS: [(bool, HttpVersion, Variant); 4] = [
        (true, HttpVersion::Http10, Variant::Close),
        (true, HttpVersion::Http11, Variant::Close),
        (false, HttpVersion::Http10, Variant::KeepAlive10),
        (false, HttpVersion::Http11, Variant::KeepAlive11),
    ];

    /// The close decision and head variant for one response, from the tables: the
    /// connection closes when RFC 9112 §9.3 says it does not persist, when the server is
    /// shutting down, or when this is response number `max_requests`.
    pub fn keep_alive_decision(
        options: ConnectionOptions,
        draining: bool,
        served: u32,
        max_requests: u32,
    ) -> (bool, Variant) {
        let persists = PERSISTENCE
            .iter()
            .find(|row| {
                (row.0, row.1, row.2) == (options.version, options.close, options.keep_alive)
            })
            .map(|row| row.3)
            .expect("every combination is a row");
        let close = !persists || draining || (max_requests > 0 && served >= max_requests);
        let variant = VARIANTS
            .iter()
            .find(|row| (row.0, row.1) == (close, options.version))
            .map(|row| row.2)
            .expect("every combination is a row");
        (close, variant)
    }

    /// The status a method gets by itself (RFC 9110 §9.1), given the accepted-method list,
    /// or `None` when the routes decide.
    pub fn status_by_method(method: &[u8], accepted: &[&str]) -> Option<u16> {
        if method == b"CONNECT" {
            return Some(405);
        }
        if accepted.is_empty() {
            None
        } else if method == b"OPTIONS" {
            Some(204)
        } else if accepted.iter().any(|m| m.as_bytes() == method) {
            None
        } else {
            Some(405)
        }
    }

    /// What a connection must send and log, computed from the parser and decoder directly
    /// and the keep-alive tables above, never from the connection's own decisions.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct Expected {
        /// The bytes on the wire.
        pub wire: Vec<u8>,
        /// The status of each response, in order, and whether its request head was complete
        /// (an access-log line with the request line) or not (`- - -`).
        pub statuses: Vec<(u16, bool)>,
    }

    /// What a connection must send for `input` given at once and read whole: one response
    /// per complete request, in order, a 100 Continue where due, an error response on the
    /// first error (head alone for HEAD), nothing after a close.
    pub fn expected_output(
        input: &[u8],
        max_requests: u32,
        limits: Limits,
        r: &Responses,
    ) -> Vec<u8> {
        let s = ConnScript {
            input,
            reads: &[],
            writes: &[],
            max_requests,
            limits,
            conn_limits: ConnLimits::default(),
            draining: false,
        };
        expected(&s, &[], r).wire
    }

    /// [`expected_output`] for a whole script (body limit, shutdown), with the log's statuses.
    /// `accepted` is the method list `r` was built with.
    pub fn expected(s: &ConnScript<'_>, accepted: &[&str], r: &Responses) -> Expected {
        let input = s.input;
        let mut out = Expected::default();
        let error = |out: &mut Expected, status: u16, head: bool, complete: bool| {
            let (h, b) = r.error(status);
            out.wire.extend_from_slice(h);
            if !head {
                out.wire.extend_from_slice(b);
            }
            out.statuses.push((status, complete));
        };
        let mut at = 0;
        let mut served = 0u32;
        loop {
            let mut parser = Parser::new(s.limits);
            let req = match parser.parse(&input[at..]) {
                Ok(Status::Partial) => break,
                Err(e) => {
                    // HEAD only if the method was read before the error was found.
                    let rest = &input[at..(at + parser.position() + 1).min(input.len())];
                    let start = rest.iter().position(|&c| c != b'\r' && c != b'\n');
                    let head = start.is_some_and(|i| rest[i..].starts_with(b"HEAD "));
                    error(&mut out, e.status(), head, false);
                    break;
                }
                Ok(Status::Complete(req)) => req,
            };
            let options = ConnectionOptions::read(&input[at..at + req.head_len]);
            at += req.head_len;
            let head_only = req.method == b"HEAD";
            match req.framing {
                Framing::Length(n) if n > s.conn_limits.max_body => {
                    error(&mut out, 413, head_only, true);
                    break;
                }
                _ => {}
            }
            if req.expect_continue {
                out.wire.extend_from_slice(CONTINUE);
            }
            match req.framing {
                Framing::None => {}
                Framing::Length(n) => {
                    if ((input.len() - at) as u64) < n {
                        break;
                    }
                    at += n as usize;
                }
                Framing::Chunked => {
                    let mut decoder = ChunkedDecoder::with_data_limit(s.conn_limits.max_body);
                    match decoder.decode(&input[at..]) {
                        Ok(p) if p.done => at += p.consumed,
                        Ok(_) if decoder.over_limit() => {
                            error(&mut out, 413, head_only, true);
                            break;
                        }
                        Ok(_) => break,
                        Err(e) => {
                            error(&mut out, e.status(), head_only, true);
                            break;
                        }
                    }
                }
            }
            served += 1;
            let (close, variant) = keep_alive_decision(options, s.draining, served, s.max_requests);
            let route = r.route(req.method, req.path);
            if let Some(status) = status_by_method(req.method, accepted) {
                assert_eq!(
                    r.status(route),
                    status,
                    "{} answered by the wrong route",
                    String::from_utf8_lossy(req.method)
                );
            }
            out.wire.extend_from_slice(&r.head(route, variant));
            if !head_only {
                out.wire.extend_from_slice(r.body(route));
            }
            out.statuses.push((r.status(route), true));
            if close {
                break;
            }
        }
        out
    }

    /// The statuses of access-log lines, and whether each has a request line.
    fn logged_statuses(log: &[u8]) -> Vec<(u16, bool)> {
        let text = String::from_utf8_lossy(log);
        text.lines()
            .map(|l| {
                let status = l.rsplit(' ').next().and_then(|s| s.parse().ok());
                let status = status.unwrap_or_else(|| panic!("log line without status: {l:?}"));
                // After the date field: `[DATE] `, or `- ` with `--no-date`.
                let rest = l
                    .split_once("] ")
                    .map_or(l.get(2..).unwrap_or(""), |(_, r)| r);
                (status, !rest.starts_with("- - - "))
            })
            .collect()
    }

    /// Fuzz entry: a script from bytes (read sizes, write sizes, two knob bytes, then the
    /// peer's bytes); the connection's output must equal [`expected`], and its access log
    /// must have one line per response with its status.
    ///
    /// Knobs, first byte: bits 0-1 `--max-requests`, 2-3 head limits ([`super::fuzz_limits`]),
    /// 4-5 high-water mark and body refill size, 6 a 10-byte body limit, 7 shutting down.
    /// Second byte: bit 0 the accepted-method list `GET, HEAD, POST`, bits 1-3 the peer's
    /// bytes repeated 2^n times.
    pub fn fuzz_connection(data: &[u8]) {
        let (reads, nr, rest) = split_script(data);
        let (writes, nw, rest) = split_script(rest);
        let (&knobs, rest) = rest.split_first().unwrap_or((&0, &[]));
        let (&more, input) = rest.split_first().unwrap_or((&0, &[]));
        // Small high-water marks and refill sizes reach backpressure and body refills with
        // inputs of a few hundred bytes.
        let (high_water, body_chunk) = match (knobs >> 4) & 3 {
            0 => (crate::conn::HIGH_WATER, BODY_CHUNK),
            1 => (100, 50),
            2 => (1, 1000),
            _ => (700, 1),
        };
        // The peer's bytes repeated up to 128 times (64 KiB at most): a long pipeline against
        // small limits reaches the input bound and output that never drains.
        let repeat = (1usize << ((more >> 1) & 7))
            .min(65_536 / input.len().max(1))
            .max(1);
        let input = &input.repeat(repeat)[..];
        let accepted: &[&str] = if more & 1 == 1 {
            &["GET", "HEAD", "POST"]
        } else {
            &[]
        };
        let script = ConnScript {
            input,
            reads: &reads[..nr],
            writes: &writes[..nw],
            max_requests: (knobs & 3) as u32,
            limits: super::fuzz_limits(knobs >> 2),
            conn_limits: ConnLimits {
                high_water,
                body_chunk,
                max_body: if knobs & 0x40 != 0 { 10 } else { u64::MAX },
            },
            draining: knobs & 0x80 != 0,
        };
        let mut r = responses();
        r.accept_only(accepted);
        let got = run_connection_logged(&script, &r);
        let want = expected(&script, accepted, &r);
        if got.wire != want.wire {
            panic!(
                "connection output differs from the expected responses\n got: {:?}\nwant: {:?}",
                String::from_utf8_lossy(&got.wire[..got.wire.len().min(2000)]),
                String::from_utf8_lossy(&want.wire[..want.wire.len().min(2000)])
            );
        }
        assert_eq!(
            logged_statuses(&got.log),
            want.statuses,
            "access log: {:?}",
            String::from_utf8_lossy(&got.log)
        );
    }
}

/// Responses held back by time (`--delay`, a latency, a drip between pieces) and a client
/// that hangs up: the connection driven with a clock, EOF at a scripted point.
#[cfg(feature = "server")]
pub mod held {
    use super::connection::{ConnScript, expected};
    use super::{fuzz_limits, split_script};
    use crate::config::{Command, Config};
    use crate::conn::{ConnLimits, Connection, Env, Features, Next, Pool, Settings, Switches};
    use crate::fault::WorkerFaults;
    use crate::h1::Conn;
    use crate::response::Responses;
    use crate::stats::Stats;
    use std::vec::Vec;

    /// The routes: `/l` held by a latency, `/d` dripped in pieces, `/` plain; `delay_ms`:
    /// `--delay`.
    fn server(delay_ms: u64) -> (Config, Responses, Option<WorkerFaults>) {
        let delay = format!("{delay_ms}ms");
        let mut args = vec![
            "--route",
            "/l=200:held",
            "--route",
            "/d=200:dripped in pieces",
            "--fault",
            "/l=latency:3ms",
            "--fault",
            "/d=drip:4/2ms",
            "--no-date",
        ];
        if delay_ms > 0 {
            args.extend(["--delay", &delay]);
        }
        let Ok(Command::Run(config)) = Config::from_args(args, &[]) else {
            panic!("the held-connection configuration is valid")
        };
        let (mut responses, _) = Responses::from_config(&config);
        let faults = WorkerFaults::new(&config, &mut responses, None, 0);
        (*config, responses, faults)
    }

    /// Fuzz entry: read sizes, then two knob bytes, then the peer's bytes. The connection is
    /// driven as the worker drives it: reads while it wants them, output written whole, its
    /// clock moved to each deadline it asks for. The peer hangs up (EOF) after the read
    /// numbered by the first knob byte, or when its bytes run out. Checks:
    /// - nothing is writable while a response is held ([`Conn::is_held`]);
    /// - a hang-up while a response is held is where the worker closes: the bytes written until
    ///   then are a prefix of [`expected`]'s; otherwise the output is all of it;
    /// - a hang-up while held is seen as the worker sees it: as a read of 0 bytes when the
    ///   connection reads, as EPOLLRDHUP when it does not;
    /// - after a hang-up outside a hold the connection closes within its holds (milliseconds)
    ///   and a linger, never by waiting out a timeout.
    ///
    /// Second knob byte: bits 0-1 `--delay` (0, 1, 5 ms), 2-3 head limits.
    pub fn fuzz_held(data: &[u8]) {
        let (reads, nr, rest) = split_script(data);
        let (&eof_after, rest) = rest.split_first().unwrap_or((&u8::MAX, &[]));
        let (&knobs, input) = rest.split_first().unwrap_or((&0, &[]));
        let delay_ms = [0, 1, 5, 0][usize::from(knobs & 3)];
        let limits = fuzz_limits(knobs >> 2);
        let (config, responses, mut faults) = server(delay_ms);
        let settings = Settings {
            limits,
            switches: Switches {
                delay_us: config.delay * 1_000,
                ..Switches::default()
            },
            ..Settings::default()
        };
        let script = ConnScript {
            input,
            reads: &reads[..nr],
            writes: &[],
            max_requests: 0,
            limits,
            conn_limits: ConnLimits::default(),
            draining: false,
        };
        let mut pool = Pool::default();
        let mut stats = Stats::default();
        let mut conn = Conn::new(0);
        let (mut now, mut fed, mut r) = (0u64, 0usize, 0usize);
        let mut wire = Vec::new();
        let mut hung_up_at: Option<u64> = None;
        let mut closed_while_held = false;
        let mut closed = false;
        for _ in 0..100_000 {
            let mut env = Env {
                settings: &settings,
                responses: &responses,
                pool: &mut pool,
                stats: &mut stats,
                now_us: now,
                draining: false,
                features: Features {
                    faults: faults.as_mut(),
                    ..Features::default()
                },
            };
            if conn.is_held() {
                assert!(conn.output().is_empty(), "output writable while held");
            }
            let mut progressed = false;
            let gone = r >= usize::from(eof_after) || fed == input.len();
            if hung_up_at.is_none() && gone && !conn.wants_read() && conn.is_held() {
                // Not reading while held: the worker asks for EPOLLRDHUP and closes on it.
                hung_up_at = Some(now);
                closed_while_held = true;
                closed = true;
                break;
            }
            if conn.wants_read() && hung_up_at.is_none() {
                if gone {
                    hung_up_at = Some(now);
                    if conn.is_held() {
                        // The worker closes here: nothing held can reach the client.
                        closed_while_held = true;
                        closed = true;
                        break;
                    }
                    conn.on_eof();
                } else {
                    let size = reads.get(r % nr.max(1)).copied().unwrap_or(4096).max(1);
                    let end = (fed + size).min(input.len());
                    conn.on_data(&input[fed..end], &mut env);
                    fed = end;
                    r += 1;
                }
                progressed = true;
            }
            let out = conn.output();
            if !out.is_empty() {
                let n = out.len();
                wire.extend_from_slice(out);
                conn.wrote(n, &mut env);
                progressed = true;
            }
            match conn.next() {
                Next::Close { .. } | Next::Reset => {
                    closed = true;
                    break;
                }
                Next::Continue if progressed => {}
                Next::Continue => {
                    // Nothing to do until a deadline: move the clock past it.
                    let at = conn
                        .wake_at(&settings)
                        .expect("a connection with nothing to do waits for a deadline");
                    now = now.max(at) + 1;
                    env.now_us = now;
                    if let Next::Close { .. } = conn.on_wake(&mut env) {
                        closed = true;
                        break;
                    }
                }
            }
        }
        assert!(closed, "the connection did not close within 100,000 steps");
        if let Some(gone) = hung_up_at {
            // Once the peer is gone, nothing but a hold (milliseconds here) or the linger of a
            // close canned decided may keep the connection: no timeout is waited out. (`None`:
            // the server closed first, a `Connection: close` or an error.)
            let most = crate::conn::LINGER_US + 100_000;
            assert!(
                now <= gone + most,
                "closed {} µs after the hang-up",
                now - gone
            );
        }
        // What the bytes sent before the hang-up ask for.
        let script = ConnScript {
            input: &input[..fed],
            ..script
        };
        let want = expected(&script, &[], &responses).wire;
        if closed_while_held {
            assert!(
                want.starts_with(&wire),
                "written bytes are not a prefix of the expected ones\n got: {:?}\nwant: {:?}",
                String::from_utf8_lossy(&wire),
                String::from_utf8_lossy(&want)
            );
        } else {
            assert_eq!(
                String::from_utf8_lossy(&wire),
                String::from_utf8_lossy(&want),
                "output differs from the expected responses"
            );
        }
        conn.release(&mut pool);
    }
}
