//! Faults and the malformed-response catalogue, seen from a real client socket: the bytes
//! received, how the connection ends (FIN: a read returns 0; RST: ECONNRESET) and when.
//!
//! Timing: a fault is never early, so lower bounds are exact; upper bounds allow
//! [`SLACK`] for a loaded machine or an emulator several times slower.

mod common;
use canned::config::{Command as Cli, Config};
use canned::server::{Handle, Server};
use common::*;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

const SLACK: Duration = Duration::from_secs(3);

fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").into_bytes()
}

/// How a connection ended, as the client sees it.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// A read returned 0: the server closed with FIN.
    Fin,
    /// A read failed with ECONNRESET: the server reset the connection.
    Reset,
}

/// Everything read until the connection ends, when each read arrived (from `since`), and how
/// it ended.
fn read_all(s: &mut TcpStream, since: Instant) -> (Vec<u8>, Vec<(Duration, usize)>, End) {
    let mut out = Vec::new();
    let mut reads = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (out, reads, End::Fin),
            Ok(n) => {
                reads.push((since.elapsed(), n));
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return (out, reads, End::Reset),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => panic!("read failed after {} bytes: {e}", out.len()),
        }
    }
}

/// Read exactly `n` bytes.
fn read_n(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    s.read_exact(&mut b).unwrap();
    b
}

/// Start a server from a built configuration (for what flags cannot say compactly).
fn start_config(c: Config) -> (Handle, SocketAddr) {
    let h = Server::bind(c).unwrap().spawn().unwrap();
    let addr = h.tcp_addr().unwrap();
    (h, addr)
}

/// The plain response to `GET /` (keep-alive, or closing), as formatted by the library.
fn plain(close: bool) -> Vec<u8> {
    use canned::response::{Responses, Variant};
    let Cli::Run(c) = Config::from_args(["--no-date"], &[]).unwrap() else {
        panic!()
    };
    let (r, _) = Responses::from_config(&c);
    let v = if close {
        Variant::Close
    } else {
        Variant::KeepAlive11
    };
    [r.head(0, v), r.body(0)].concat()
}

fn get_close(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").into_bytes()
}

#[test]
fn latency_fixed_holds_the_response_and_is_never_early() {
    let (h, addr) = start(&["--fault", "/slow=latency:300ms", "--workers", "1"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&get("/slow")).unwrap();
    let r = read_responses(&mut s, 1);
    let took = t.elapsed();
    assert_eq!(r[0].status, 200);
    // The worker's clock is whole milliseconds, rounded down at the start of the turn that
    // read the request: the hold may end up to 1 ms short of the client's clock.
    assert!(took >= Duration::from_millis(299), "{took:?}");
    assert!(took < Duration::from_millis(300) + SLACK, "{took:?}");
    // The connection stays open: a path without the fault is answered at once.
    let t = Instant::now();
    s.write_all(&get("/")).unwrap();
    assert_eq!(read_responses(&mut s, 1)[0].status, 200);
    assert!(
        t.elapsed() < Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
    h.shutdown();
    h.join();
}

/// Each pipelined request waits for its own delay after the one before it: responses stay in
/// order, and the second ends no earlier than both delays.
#[test]
fn latency_delays_pipelined_responses_in_turn() {
    let (h, addr) = start(&["--fault", "/slow=latency:200ms", "--workers", "1"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&[get("/slow"), get("/slow"), get("/")].concat())
        .unwrap();
    let r = read_responses(&mut s, 3);
    let took = t.elapsed();
    assert_eq!(r.iter().map(|r| r.status).collect::<Vec<_>>(), [200; 3]);
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_millis(400) + SLACK, "{took:?}");
    h.shutdown();
    h.join();
}

#[test]
fn latency_uniform_stays_in_its_range() {
    let (h, addr) = start(&["--fault", "/r=latency:100ms..200ms", "--workers", "1"]);
    let mut s = connect(addr);
    for _ in 0..5 {
        let t = Instant::now();
        s.write_all(&get("/r")).unwrap();
        read_responses(&mut s, 1);
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(100), "{took:?}");
        assert!(took < Duration::from_millis(200) + SLACK, "{took:?}");
    }
    h.shutdown();
    h.join();
}

/// `drip:4pieces/600ms`: the whole response, in pieces, the last no earlier than 600 ms after
/// the request; the first well before it.
#[test]
fn drip_in_pieces_spreads_the_response_over_the_time() {
    let want = plain(true);
    let (h, addr) = start(&["--fault", "/d=drip:4pieces/600ms", "--workers", "1"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&get_close("/d")).unwrap();
    let (got, reads, end) = read_all(&mut s, t);
    assert_eq!(end, End::Fin);
    assert_eq!(got, want);
    let (first, last) = (reads[0].0, reads.last().unwrap().0);
    // Whole-millisecond worker clock: up to 1 ms short a piece (see the latency test).
    assert!(last >= Duration::from_millis(596), "{reads:?}");
    assert!(last < Duration::from_millis(600) + SLACK, "{reads:?}");
    assert!(last - first >= Duration::from_millis(300), "{reads:?}");
    // Four pieces of a quarter each (rounded up).
    let piece = want.len().div_ceil(4);
    assert!(reads.iter().all(|&(_, n)| n <= 2 * piece), "{reads:?}");
    h.shutdown();
    h.join();
}

/// `drip:16/100ms`: 16 bytes at once, then 16 more every 100 ms.
#[test]
fn drip_at_a_rate_takes_length_over_rate() {
    let (h, addr) = start(&["--fault", "/d=drip:16/100ms", "--workers", "1"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&get_close("/d")).unwrap();
    let (got, reads, end) = read_all(&mut s, t);
    assert_eq!(end, End::Fin);
    let r = parse_responses(&got, &[false]);
    assert_eq!(r[0].body, b"Hello World\n");
    let pieces = got.len().div_ceil(16) as u64;
    // The worker's clock is whole milliseconds, rounded down at the start of a loop turn, and
    // each piece is due a pause after the turn that sent the last one: a pause may be up to
    // 1 ms short of the client's clock, so the lower bound allows 1 ms a piece.
    let least = Duration::from_millis(99 * (pieces - 1));
    let took = reads.last().unwrap().0;
    assert!(took >= least, "{} bytes in {took:?}", got.len());
    assert!(took < least + SLACK, "{took:?}");
    assert!(reads.iter().all(|&(_, n)| n <= 32), "{reads:?}");
    h.shutdown();
    h.join();
}

/// `stall`: the request is read and never answered, nor are requests pipelined after it; the
/// idle timeout closes the connection (FIN).
#[test]
fn stall_never_answers_and_the_idle_timeout_closes() {
    let (h, addr) = start(&[
        "--fault",
        "/s=stall",
        "--idle-timeout",
        "1s",
        "--workers",
        "1",
    ]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&[get("/"), get("/s"), get("/")].concat())
        .unwrap();
    let first = read_responses(&mut s, 1);
    assert_eq!(first[0].status, 200);
    // More input is read and discarded, never answered.
    s.write_all(&get("/")).unwrap();
    let (rest, _, end) = read_all(&mut s, t);
    let took = t.elapsed();
    assert_eq!(rest, b"");
    assert_eq!(end, End::Fin);
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_secs(1) + SLACK, "{took:?}");
    let summary = {
        h.shutdown();
        h.join()
    };
    assert_eq!(summary.stats.faults[canned::fault::Kind::Stall.index()], 1);
    assert_eq!(summary.stats.timeouts[1], 1, "closed by the idle timeout");
}

/// Truncate: the first N bytes (or N%) of the response, then FIN; later pipelined requests
/// are not answered.
#[test]
fn truncate_sends_the_first_bytes_then_fin() {
    let want = plain(false);
    let cases: &[(&str, usize)] = &[
        ("truncate:20", 20),
        ("truncate:0", 0),
        ("truncate:50%", (want.len()) / 2),
        ("truncate:100000", want.len()),
    ];
    for &(spec, len) in cases {
        let (h, addr) = start(&["--fault", &format!("/t={spec}")]);
        let mut s = connect(addr);
        s.write_all(&[get("/t"), get("/")].concat()).unwrap();
        let (got, _, end) = read_all(&mut s, Instant::now());
        assert_eq!(end, End::Fin, "{spec}");
        assert_eq!(got, want[..len], "{spec}");
        h.shutdown();
        h.join();
    }
}

/// A cut beyond the first 64 KiB piece of a large body stops the streamed body there.
#[test]
fn truncate_cuts_a_streamed_body_exactly() {
    let body = vec![b'x'; 300_000];
    let mut c = Config::default().listen("127.0.0.1:0").unwrap().body(&body);
    c.common.date = false;
    c.workers = 1;
    c.quiet = true;
    c.routes[0].faults.delivery =
        canned::fault::Delivery::Truncate(canned::fault::Cut::Bytes(150_000));
    let (h, addr) = start_config(c);
    let mut s = connect(addr);
    s.write_all(&get("/")).unwrap();
    let (got, _, end) = read_all(&mut s, Instant::now());
    assert_eq!(end, End::Fin);
    assert_eq!(got.len(), 150_000);
    assert!(got.starts_with(b"HTTP/1.1 200 OK\r\n"));
    assert!(got.ends_with(b"xxxx"));
    h.shutdown();
    h.join();
}

/// Reset: the first N bytes, then RST (the client's read fails with ECONNRESET).
#[test]
fn reset_sends_the_first_bytes_then_rst() {
    let want = plain(false);
    for &(spec, len) in &[("reset:10", 10), ("reset:0", 0), ("reset:100%", want.len())] {
        let (h, addr) = start(&["--fault", &format!("/r={spec}")]);
        let mut s = connect(addr);
        s.write_all(&get("/r")).unwrap();
        let mut got = read_n(&mut s, len);
        let (rest, _, end) = read_all(&mut s, Instant::now());
        got.extend_from_slice(&rest);
        assert_eq!(end, End::Reset, "{spec}");
        assert_eq!(got, want[..len], "{spec}");
        h.shutdown();
        h.join();
    }
}

/// Garbage: N bytes that are not a response, the same for a seed, then FIN.
#[test]
fn garbage_sends_random_bytes_then_fin() {
    let run = |seed: &str| {
        let (h, addr) = start(&["--fault", "/g=garbage:64", "--seed", seed, "--workers", "1"]);
        let mut s = connect(addr);
        s.write_all(&get("/g")).unwrap();
        let (got, _, end) = read_all(&mut s, Instant::now());
        assert_eq!(end, End::Fin);
        h.shutdown();
        h.join();
        got
    };
    let a = run("7");
    assert_eq!(a.len(), 64);
    assert!(!a.starts_with(b"HTTP/"));
    assert_eq!(run("7"), a, "the seed fixes the bytes");
    assert_ne!(run("8"), a);
}

/// An error rate answers its share with the other status, on a connection that stays open;
/// the seed fixes which requests.
#[test]
fn error_rate_answers_a_share_with_another_status() {
    let statuses = |flags: &[&str]| {
        let (h, addr) = start(flags);
        let mut s = connect(addr);
        let mut got = Vec::new();
        for _ in 0..20 {
            s.write_all(&get("/e").repeat(10)).unwrap();
            got.extend(read_responses(&mut s, 10));
        }
        h.shutdown();
        h.join();
        got
    };
    let flags = [
        "--fault",
        "/e=error:0.3:503",
        "--seed",
        "3",
        "--workers",
        "1",
    ];
    let got = statuses(&flags);
    let errors: Vec<_> = got.iter().filter(|r| r.status == 503).collect();
    // Binomial(200, 0.3): mean 60, sd 6.5; the bound is 4 sd.
    assert!((34..=86).contains(&errors.len()), "{}", errors.len());
    assert!(
        errors
            .iter()
            .all(|r| r.body == b"503 Service Unavailable\n")
    );
    assert!(
        got.iter()
            .all(|r| r.status == 503 || r.body == b"Hello World\n")
    );
    let again = statuses(&flags);
    assert_eq!(
        again.iter().map(|r| r.status).collect::<Vec<_>>(),
        got.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    let all = statuses(&["--fault", "/e=error:1:429:slow down"]);
    assert!(
        all.iter()
            .all(|r| r.status == 429 && r.body == b"slow down")
    );
}

/// `--mutate` sends the catalogue in order, one variant per request, each followed by a close;
/// routes answer as usual.
#[test]
fn mutate_sends_the_catalogue_in_order_then_closes() {
    let catalogue = canned::mutate::Catalogue::new();
    let (h, addr) = start(&["--mutate", "--workers", "1", "--route", "/ok=200:fine"]);
    for i in 0..catalogue.len() + 2 {
        let mut s = connect(addr);
        s.write_all(&get("/anything")).unwrap();
        let (got, _, end) = read_all(&mut s, Instant::now());
        assert_eq!(end, End::Fin);
        let id = canned::mutate::id(i % catalogue.len());
        assert_eq!(got, catalogue.bytes(i % catalogue.len()), "{id}");
    }
    let fine = exchange(addr, b"GET /ok HTTP/1.0\r\n\r\n");
    assert!(fine.ends_with(b"\r\n\r\nfine"));
    let summary = {
        h.shutdown();
        h.join()
    };
    assert_eq!(summary.stats.mutated[0], 2);
    assert_eq!(
        summary.stats.mutated[1..].iter().sum::<u64>() as usize,
        catalogue.len()
    );
}

#[test]
fn mutate_id_replays_one_variant() {
    let i = canned::mutate::find("chunk-size-overflow").unwrap();
    let want = canned::mutate::Catalogue::new().bytes(i).to_vec();
    let (h, addr) = start(&["--mutate-id", "chunk-size-overflow"]);
    for _ in 0..3 {
        assert_eq!(exchange(addr, &get("/")), want);
    }
    h.shutdown();
    h.join();
}

/// The access log names the fault or the variant sent, with the status sent; `--stats`
/// counts them.
#[test]
fn access_log_and_stats_record_faults_and_variants() {
    let p = Proc::start(&[
        "--workers",
        "1",
        "--no-date",
        "--access-log",
        "--fault",
        "/t=truncate:5",
        "--fault",
        "/l=latency:1ms",
        "--fault",
        "/e=error:1:503",
        "--fault",
        "/g=garbage:3",
        "--health",
        "/h",
        "--fault",
        "/h=latency:1ms",
        "--mutate-id",
        "cl-negative",
        "--stats",
        "/stats",
    ]);
    exchange(p.addr, &get("/t"));
    exchange(p.addr, &get("/x"));
    let mut s = connect(p.addr);
    s.write_all(&get("/l")).unwrap();
    read_responses(&mut s, 1);
    exchange(p.addr, &get("/g"));
    // The health route is never logged, its fault included, even right after another line.
    s.write_all(&[get("/e"), get_close("/h")].concat()).unwrap();
    let both = read_to_eof(&mut s);
    assert_eq!(parse_responses(&both, &[false, false])[0].status, 503);
    // Counters are published every 100 ms.
    std::thread::sleep(Duration::from_millis(300));
    let stats = exchange(p.addr, b"GET /stats HTTP/1.0\r\n\r\n");
    let stats = String::from_utf8_lossy(&stats);
    for want in [
        "\"faults\":{\"latency\":2,\"drip\":0,\"stall\":0,\"truncate\":1,\"reset\":0,\"garbage\":1,\"error\":1}",
        "\"mutate\":{\"cl-negative\":1}",
    ] {
        assert!(stats.contains(want), "{want} not in {stats}");
    }
    let mut child = p.child;
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    child.wait().unwrap();
    let mut log = String::new();
    let mut out = child.stdout.take().unwrap();
    out.read_to_string(&mut log).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let want = [
        "GET /t HTTP/1.1 200 fault=truncate",
        // A variant or garbage has no status of its own: 000.
        "GET /x HTTP/1.1 000 mutate=cl-negative",
        "GET /l HTTP/1.1 200 fault=latency",
        "GET /g HTTP/1.1 000 fault=garbage",
        "GET /e HTTP/1.1 503 fault=error",
        "GET /stats HTTP/1.0 200",
    ];
    for (line, want) in lines.iter().zip(want) {
        assert!(line.ends_with(want), "{want} in {log}");
    }
    assert!(lines.len() >= want.len(), "{log}");
}

/// Memory per connection held by a fault: 10,000 stalled connections hold what an idle one
/// does (no work area); 10,000 dripping ones each hold a work area and a copy of the response.
/// Figures are printed with `--nocapture`.
#[test]
fn ten_thousand_stalled_or_dripping_connections_stay_small() {
    let n = 10_000;
    canned::server::raise_fd_limit();
    let cases: &[(&str, &str, u64)] = &[
        // An idle keep-alive connection measures about 50-65 bytes (README, Footprint).
        ("stall", "/f=stall", 200),
        ("drip", "/f=drip:1/10s", 2048),
    ];
    for &(name, fault, most) in cases {
        let p = Proc::start(&[
            "--workers",
            "1",
            "--max-conns",
            "12000",
            "--fault",
            fault,
            "--stats",
            "/stats",
        ]);
        // Warm up: one request of each kind the herd makes.
        exchange(p.addr, b"GET / HTTP/1.0\r\n\r\n");
        let before = p.rss_kib();
        let mut conns = Vec::with_capacity(n);
        for _ in 0..n {
            let mut s = connect(p.addr);
            s.write_all(&get("/f")).unwrap();
            conns.push(s);
        }
        // Every request read and given its fault (the stats route is published every 100 ms).
        let want = format!("\"{name}\":{n}");
        let t = Instant::now();
        loop {
            let stats = exchange(p.addr, b"GET /stats HTTP/1.0\r\n\r\n");
            if String::from_utf8_lossy(&stats).contains(&want) {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "{want} never reached"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let during = p.rss_kib();
        let each = during.saturating_sub(before) * 1024 / n as u64;
        eprintln!(
            "{name}: {n} connections; RSS {before} KiB before, {during} KiB with them \
             (+{each} bytes per connection)"
        );
        assert!(each <= most, "{name}: {each} bytes per connection");
        drop(conns);
    }
}

/// An error share and a delivery fault combine: the error response is what gets cut.
#[test]
fn error_then_truncate_cuts_the_error_response() {
    let (h, addr) = start(&["--fault", "/c=error:1:503", "--fault", "/c=truncate:12"]);
    let mut s = connect(addr);
    s.write_all(&[get("/c"), get("/c")].concat()).unwrap();
    let (got, _, end) = read_all(&mut s, Instant::now());
    assert_eq!(end, End::Fin);
    assert_eq!(got, b"HTTP/1.1 503");
    h.shutdown();
    h.join();
}

/// Reset closes the connection: requests pipelined after it are not answered.
#[test]
fn reset_answers_nothing_after_it() {
    let (h, addr) = start(&["--fault", "/r=reset:0"]);
    let mut s = connect(addr);
    s.write_all(&[get("/"), get("/r"), get("/")].concat())
        .unwrap();
    let first = read_responses(&mut s, 1);
    assert_eq!(first[0].status, 200);
    let (rest, _, end) = read_all(&mut s, Instant::now());
    assert_eq!((rest.as_slice(), end), (&b""[..], End::Reset));
    h.shutdown();
    h.join();
}

/// Shutdown does not wait for a stalled connection: nothing is in flight on it.
#[test]
fn shutdown_closes_a_stalled_connection_at_once() {
    let (h, addr) = start(&["--fault", "/s=stall", "--shutdown-timeout", "20s"]);
    let mut s = connect(addr);
    s.write_all(&get("/s")).unwrap();
    // The request is read and stalled before the shutdown starts.
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    h.shutdown();
    h.join();
    assert!(t.elapsed() < SLACK, "{:?}", t.elapsed());
    let (got, _, end) = read_all(&mut s, Instant::now());
    assert_eq!((got.as_slice(), end), (&b""[..], End::Fin));
}

/// The pause between drip pieces is not a write timeout: a drip slower than
/// `--write-timeout` still delivers the whole response.
#[test]
fn drip_pauses_longer_than_the_write_timeout_are_not_timeouts() {
    let (h, addr) = start(&["--fault", "/d=drip:2pieces/2s", "--write-timeout", "1s"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&get_close("/d")).unwrap();
    let (got, _, end) = read_all(&mut s, t);
    assert_eq!((got, end), (plain(true), End::Fin));
    assert!(t.elapsed() >= Duration::from_secs(2), "{:?}", t.elapsed());
    h.shutdown();
    h.join();
}
