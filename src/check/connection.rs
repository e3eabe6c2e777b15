//! The socket-free connection driver: a script's reads and writes through an [`Http1Conn`], its
//! memory bounds checked at every step, and its output compared with [`expected`].

pub use super::expected::{
    ConnScript, ConnectionOptions, Expected, HttpVersion, PERSISTENCE, VARIANTS, expected,
    expected_output, keep_alive_decision, status_by_method,
};
use super::parse::{fuzz_limits, split_script};
use crate::conn::{BODY_CHUNK, ConnLimits, Connection, Env, Features, Next, Pool, Settings};
use crate::h1::{Http1Conn, WorkArea};
use crate::parser::Rule;
use crate::response::{CONTINUE, Common, KeepAliveForm, Responses, Spec};
use crate::stats::Stats;
use std::sync::Arc;
use std::vec::Vec;

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
        let head = [
            KeepAliveForm::KeepAlive11,
            KeepAliveForm::KeepAlive10,
            KeepAliveForm::Close,
        ]
        .iter()
        .map(|&v| r.head_len(k, v))
        .max()
        .unwrap_or(0);
        head + r.body(k).len().min(body_chunk.max(1))
    });
    let errors = Rule::ALL
        .iter()
        .map(|&rule| r.error(rule).iter().map(|p| p.len()).sum());
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

/// Drive an [`Http1Conn`] through a script with no sockets, checking the memory bounds at
/// every step; return everything it wrote.
pub fn run_connection(s: &ConnScript<'_>, responses: &Responses) -> Vec<u8> {
    run_connection_logged(s, responses).wire
}

/// [`run_connection`], with the access log on.
pub fn run_connection_logged(s: &ConnScript<'_>, responses: &Responses) -> Run {
    let mut pool = Pool::default();
    let mut stats = Stats::default();
    let mut conn = Http1Conn::new(0);
    let mut run = Run::default();
    let mut log = crate::conn::LogLines::text();
    let (mut fed, mut r, mut w, mut stalls) = (0, 0, 0, 0);
    let max_read = s.reads.iter().copied().max().unwrap_or(4096).max(1);
    let hw = s.conn_limits.high_water;
    // Memory bounds (docs/limits.md): parsing stops while the output buffer, its written
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
                access_log: crate::conn::Part::new(Some(&mut log)),
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
            Next::Close { .. } | Next::Reset | Next::Upgrade => break,
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
    run.log = log.lines;
    run
}

/// The statuses of access-log lines, and whether each has a request line.
#[cfg(feature = "access-log")]
fn logged_statuses(log: &[u8]) -> Vec<(u16, bool)> {
    let text = String::from_utf8_lossy(log);
    text.lines()
        .map(|l| {
            // After the date field (`[DATE] `, or `- ` with `--no-date`):
            // `CLIENT METHOD TARGET VERSION STATUS BYTES US`, then notes.
            let rest = l
                .split_once("] ")
                .map_or(l.get(2..).unwrap_or(""), |(_, r)| r);
            let words: Vec<&str> = rest.split(' ').collect();
            let status = words.get(4).and_then(|s| s.parse().ok());
            let status = status.unwrap_or_else(|| panic!("log line without status: {l:?}"));
            (status, words.get(1) != Some(&"-"))
        })
        .collect()
}

/// Fuzz entry: a script from bytes (read sizes, write sizes, two knob bytes, then the
/// peer's bytes); the connection's output must equal [`expected`], and its access log
/// must have one line per response with its status.
///
/// Knobs, first byte: bits 0-1 `--max-requests`, 2-3 head limits ([`fuzz_limits`]),
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
        limits: fuzz_limits(knobs >> 2),
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
    #[cfg(feature = "access-log")]
    assert_eq!(
        logged_statuses(&got.log),
        want.statuses,
        "access log: {:?}",
        String::from_utf8_lossy(&got.log)
    );
}
