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

/// The socket-free connection driver and its oracle.
#[cfg(feature = "server")]
pub mod connection {
    use super::split_script;
    use crate::chunked::ChunkedDecoder;
    use crate::conn::{BODY_CHUNK, Conn, Env, Features, HIGH_WATER, Next, Pool, Stats};
    use crate::parser::{Framing, Limits, Parser, Status, Version};
    use crate::response::{CONTINUE, Common, Responses, Spec, Variant};
    use std::sync::Arc;
    use std::vec::Vec;

    /// How the peer behaves: the bytes it sends, how they are split into reads, how much each
    /// write may take, and the server's `--max-requests`.
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
    }

    /// The responses the checks use: a default, a small route and a large one that is
    /// streamed in pieces.
    pub fn responses() -> Responses {
        let spec = |status, body: Vec<u8>| Spec {
            status,
            body: Arc::from(body),
            content_type: "text/plain".into(),
            headers: Vec::new(),
        };
        let big: Vec<u8> = (0..BODY_CHUNK * 2 + 100).map(|i| (i % 251) as u8).collect();
        Responses::new(
            &[
                spec(200, b"Hello World\n".to_vec()),
                spec(201, b"r".to_vec()),
                spec(200, big),
            ],
            &[(b"/r".to_vec(), false), (b"/big".to_vec(), false)],
            &Common {
                server: "canned".into(),
                date: false,
            },
        )
    }

    /// Drive a [`Conn`] through a script with no sockets, checking the memory bounds at
    /// every step; return everything it wrote.
    pub fn run_connection(s: &ConnScript<'_>, responses: &Responses) -> Vec<u8> {
        let mut pool = Pool::default();
        let mut stats = Stats::default();
        let mut conn = Conn::new(0);
        let mut wire = Vec::new();
        let (mut fed, mut r, mut w, mut stalls) = (0, 0, 0, 0);
        let max_read = s.reads.iter().copied().max().unwrap_or(4096).max(1);
        let mut eof_sent = false;
        loop {
            let mut env = Env {
                responses,
                pool: &mut pool,
                stats: &mut stats,
                limits: s.limits,
                now: 0,
                max_requests: s.max_requests,
                draining: false,
                features: Features::default(),
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
                wire.extend_from_slice(&out[..n]);
                conn.wrote(n, &mut env);
                progressed |= n > 0 || size == 0;
            }
            assert!(
                conn.output().len() <= HIGH_WATER + BODY_CHUNK + 4096,
                "pending output {} over its bound",
                conn.output().len()
            );
            assert!(
                conn.pending_input() <= s.limits.max_head + max_read + 8192,
                "buffered input {} over its bound",
                conn.pending_input()
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
        wire
    }

    /// What a connection must send for `input` given at once and read whole, computed from the
    /// parser and decoder directly: one response per complete request, in order, a 100
    /// Continue where due, an error response on the first error, nothing after a close.
    pub fn expected_output(
        input: &[u8],
        max_requests: u32,
        limits: Limits,
        r: &Responses,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut at = 0;
        let mut served = 0u32;
        loop {
            let req = match Parser::new(limits).parse(&input[at..]) {
                Ok(Status::Partial) => break,
                Err(e) => {
                    let (h, b) = r.error(e.status());
                    out.extend_from_slice(h);
                    out.extend_from_slice(b);
                    break;
                }
                Ok(Status::Complete(req)) => req,
            };
            at += req.head_len;
            if req.expect_continue {
                out.extend_from_slice(CONTINUE);
            }
            match req.framing {
                Framing::None => {}
                Framing::Length(n) => {
                    if ((input.len() - at) as u64) < n {
                        break;
                    }
                    at += n as usize;
                }
                Framing::Chunked => match ChunkedDecoder::new().decode(&input[at..]) {
                    Ok(p) if p.done => at += p.consumed,
                    Ok(_) => break,
                    Err(e) => {
                        let (h, b) = r.error(e.status());
                        out.extend_from_slice(h);
                        out.extend_from_slice(b);
                        break;
                    }
                },
            }
            served += 1;
            let close = !req.keep_alive || (max_requests > 0 && served >= max_requests);
            let variant = match (close, req.version) {
                (true, _) => Variant::Close,
                (false, Version::Http10) => Variant::KeepAlive10,
                (false, Version::Http11) => Variant::KeepAlive11,
            };
            let route = r.route(req.method, req.path);
            out.extend_from_slice(r.head(route, variant));
            if !req.is_head {
                out.extend_from_slice(r.body(route));
            }
            if close {
                break;
            }
        }
        out
    }

    /// Fuzz entry: a script from bytes (read sizes, write sizes, max-requests, limits, then
    /// the peer's bytes); the connection's output must equal [`expected_output`].
    pub fn fuzz_connection(data: &[u8]) {
        let (reads, nr, rest) = split_script(data);
        let (writes, nw, rest) = split_script(rest);
        let (&knobs, input) = rest.split_first().unwrap_or((&0, &[]));
        let script = ConnScript {
            input,
            reads: &reads[..nr],
            writes: &writes[..nw],
            max_requests: (knobs & 3) as u32,
            limits: super::fuzz_limits(knobs >> 2),
        };
        let r = responses();
        let got = run_connection(&script, &r);
        let want = expected_output(input, script.max_requests, script.limits, &r);
        if got != want {
            panic!(
                "connection output differs from the expected responses\n got: {:?}\nwant: {:?}",
                String::from_utf8_lossy(&got[..got.len().min(2000)]),
                String::from_utf8_lossy(&want[..want.len().min(2000)])
            );
        }
    }
}
