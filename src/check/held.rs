//! Responses held back by time (`--delay`, a latency, a drip between pieces) and a client
//! that hangs up: the connection driven with a clock, EOF at a scripted point.

use super::expected::{ConnScript, expected};
use super::parse::{fuzz_limits, split_script};
use crate::config::{Command, Config};
use crate::conn::{ConnLimits, Connection, Env, Features, Next, Pool, Settings, Switches};
use crate::fault::WorkerFaults;
use crate::h1::Http1Conn;
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
    let (mut responses, _) = crate::server::setup::responses(&config);
    let faults = crate::server::setup::faults(&config, &mut responses, None, 0);
    (*config, responses, faults)
}

/// Fuzz entry: read sizes, then two knob bytes, then the peer's bytes. The connection is
/// driven as the worker drives it: reads while it wants them, output written whole, its
/// clock moved to each deadline it asks for. The peer hangs up (EOF) after the read
/// numbered by the first knob byte, or when its bytes run out. Checks:
/// - nothing is writable while a response is held ([`Http1Conn::is_held`](crate::conn::Connection::is_held));
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
    let mut conn = Http1Conn::new(0);
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
                faults: crate::conn::Part::new(faults.as_mut()),
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
            Next::Close { .. } | Next::Reset | Next::Upgrade => {
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
