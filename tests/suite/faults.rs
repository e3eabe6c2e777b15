//! Faults and the malformed-response catalogue, seen from a real client socket: the bytes
//! received, how the connection ends (FIN: a read returns 0; RST: ECONNRESET) and when.
//!
//! Timing: a fault is never early, so lower bounds are exact; upper bounds allow
//! [`slack`] for a loaded machine or an emulator several times slower.
#![cfg(all(
    feature = "access-log",
    feature = "faults",
    feature = "mutate",
    feature = "stats"
))]

use crate::common;
use canned::config::{Command as Cli, Config};
use canned::server::{Handle, Server};
use common::*;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// 3 s, times `CANNED_TEST_TIME_SCALE`.
fn slack() -> Duration {
    time_bound(Duration::from_secs(3))
}

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

/// Never ahead of the pace: a drip of `piece` bytes every `every` has sent, `e` after the
/// request was written, at most the pieces due by then (the first at once). A client that
/// reads late sees more in one read, never more than this, so the bound holds under load.
fn assert_paced(reads: &[(Duration, usize)], piece: usize, every: Duration) {
    let mut total = 0;
    for &(e, n) in reads {
        total += n;
        let due = (e.as_micros() / every.as_micros()) as usize + 1;
        assert!(total <= due * piece, "{total} bytes at {e:?}: {reads:?}");
    }
}

/// Everything read until the connection ends, when each read arrived (from `since`), and how
/// it ended.
fn read_all(s: &mut TcpStream, since: Instant) -> (Vec<u8>, Vec<(Duration, usize)>, End) {
    let mut out = Vec::new();
    let mut reads = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read_some(&mut buf) {
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
    use canned::response::KeepAliveForm;
    let Cli::Run(c) = Config::from_args(["--no-date"], &[]).unwrap() else {
        panic!()
    };
    let (r, _) = canned::server::setup::responses(&c);
    let v = if close {
        KeepAliveForm::Close
    } else {
        KeepAliveForm::KeepAlive11
    };
    [&r.head(0, v)[..], r.body(0)].concat()
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
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(300) + slack(), "{took:?}");
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
    assert!(took < Duration::from_millis(400) + slack(), "{took:?}");
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
        assert!(took < Duration::from_millis(200) + slack(), "{took:?}");
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
    assert!(last >= Duration::from_millis(600), "{reads:?}");
    assert!(last < Duration::from_millis(600) + slack(), "{reads:?}");
    assert!(last - first >= Duration::from_millis(300), "{reads:?}");
    // Four pieces of a quarter each (rounded up), 200 ms apart.
    assert_paced(&reads, want.len().div_ceil(4), Duration::from_millis(200));
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
    let least = Duration::from_millis(100 * (pieces - 1));
    let took = reads.last().unwrap().0;
    assert!(took >= least, "{} bytes in {took:?}", got.len());
    assert!(took < least + slack(), "{took:?}");
    assert_paced(&reads, 16, Duration::from_millis(100));
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
    assert!(took < Duration::from_secs(1) + slack(), "{took:?}");
    let summary = {
        h.shutdown();
        h.join()
    };
    assert_eq!(
        summary.stats.faults[canned::fault::FaultKind::Stall.index()],
        1
    );
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
        "--fault",
        "/hg=hang:1ms",
        "--fault",
        "/sc=slow-close:1ms",
        "--fault",
        "/bw=bandwidth:1MiB/s",
        "--fault",
        "/m=status:503=100%",
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
    assert_eq!(exchange(p.addr, &get("/hg")), b"");
    assert_eq!(
        parse_responses(&exchange(p.addr, &get("/sc")), &[false])[0].status,
        200
    );
    assert_eq!(
        parse_responses(&exchange(p.addr, &get_close("/bw")), &[false])[0].status,
        200
    );
    assert_eq!(
        parse_responses(&exchange(p.addr, &get_close("/m")), &[false])[0].status,
        503
    );
    // Counters are published every 100 ms.
    std::thread::sleep(Duration::from_millis(300));
    let stats = exchange(p.addr, b"GET /stats HTTP/1.0\r\n\r\n");
    let stats = String::from_utf8_lossy(&stats);
    for want in [
        "\"faults\":{\"latency\":2,\"drip\":0,\"stall\":0,\"truncate\":1,\"reset\":0,\"garbage\":1,\"error\":1,\
         \"hang\":1,\"slow-close\":1,\"bandwidth\":1,\"status\":1}",
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
        // A hang, like a stall, sends no status.
        "GET /hg HTTP/1.1 000 fault=hang",
        "GET /sc HTTP/1.1 200 fault=slow-close",
        "GET /bw HTTP/1.1 200 fault=bandwidth",
        "GET /m HTTP/1.1 503 fault=status",
        "GET /stats HTTP/1.0 200",
    ];
    for (line, want) in lines.iter().zip(want) {
        assert_eq!(log_line(line).words, want, "{log}");
    }
    assert!(lines.len() >= want.len(), "{log}");
}

/// The per-connection memory goal (docs/footprint.md): what 10,000 idle keep-alive
/// connections may add to the RSS of the static musl build, in KiB (65 bytes each).
const GOAL_KIB_PER_10_000: u64 = 640;

/// Bytes a connection by which a herd may differ from the idle one: run-to-run noise of the
/// allocator's layout, far below the few hundred bytes of a work area.
const HERD_MARGIN: u64 = 16;
/// Bytes a connection that glibc's retained table copies may add to the goal.
const GLIBC_SLACK: u64 = 32;

/// docs/faults.md (Memory) and docs/footprint.md state the bounds the herd test below holds,
/// from its constants, not a figure from one run of the debug build (which moves from run to
/// run).
#[test]
fn the_docs_state_the_herd_bounds() {
    let readme = [
        include_str!("../../docs/faults.md"),
        include_str!("../../docs/footprint.md"),
    ]
    .concat()
    .replace('\n', " ");
    let goal = GOAL_KIB_PER_10_000 * 1024 / 10_000;
    for claim in [
        format!("within its 640 KiB goal: {goal} bytes a connection"),
        format!("to the idle one within {HERD_MARGIN} bytes a connection"),
        format!(
            "plus {GLIBC_SLACK} bytes under glibc ({} bytes a connection)",
            goal + GLIBC_SLACK
        ),
        format!("and fails above {goal} bytes a connection"),
    ] {
        assert!(readme.contains(&claim), "docs should say: {claim}");
    }
    assert_eq!(GOAL_KIB_PER_10_000, 640);
}

/// Memory per connection held by a fault (docs/faults.md, Memory). Six servers with the same
/// flags, each warmed up with one request of every kind, take a herd of 10,000 connections:
/// idle keep-alive ones (answered), stalled ones, dripping ones waiting for their next piece,
/// hung ones (`hang:60s`), ones whose FIN is held back after their response
/// (`slow-close:60s`) and ones paced at `bandwidth:1KiB/s` between pieces. Each adds what an
/// idle one does, within `HERD_MARGIN` bytes, and none adds more than the goal. The goal is the static musl build's; glibc's heap
/// keeps the earlier, smaller copies of the connection tables as they grow (about 10 to 20
/// bytes a connection more, in amounts that follow the order of every allocation: starting
/// with faults or `--stats` moves them), so a build that maps glibc (the default debug build)
/// is held to the goal plus `GLIBC_SLACK`; under an emulator (`.ci/cross`), whose own
/// memory grows with the code it translates, only the herds are compared. Figures are printed
/// with `--nocapture`; `CANNED_BIN` measures another build.
#[test]
fn ten_thousand_stalled_or_dripping_connections_stay_small() {
    let n = 10_000;
    canned::server::raise_fd_limit();
    // A body that takes a minute at 1 KiB/s: the paced herd is between pieces throughout.
    let dir = std::env::temp_dir().join(format!("canned-herd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bw"), vec![b'b'; 60 * 1024]).unwrap();
    let bw_route = format!("/bw=200:@{}", dir.join("bw").display());
    // A bandwidth's pieces at 1 KiB/s: a tenth of a second's bytes.
    let piece = 102;
    // (bytes a connection, the goal that applies, if any)
    let herd = |name: &str| -> (u64, Option<u64>) {
        let p = Proc::start(&[
            "--workers",
            "1",
            "--max-conns",
            "12000",
            "--fault",
            "/stall=stall",
            "--fault",
            "/drip=drip:1/10s",
            "--fault",
            "/hang=hang:60s",
            "--fault",
            "/slow=slow-close:60s",
            "--route",
            &bw_route,
            "--fault",
            "/bw=bandwidth:1KiB/s",
            "--stats",
            "/stats",
        ]);
        let pid = p.child.id();
        let native = std::fs::read_link(format!("/proc/{pid}/exe"))
            .unwrap()
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("canned"));
        let glibc = std::fs::read_to_string(format!("/proc/{pid}/maps"))
            .unwrap()
            .contains("/libc.so");
        let goal = GOAL_KIB_PER_10_000 * 1024 / 10_000 + if glibc { GLIBC_SLACK } else { 0 };
        let stats = || {
            String::from_utf8_lossy(&exchange(p.addr, b"GET /stats HTTP/1.0\r\n\r\n")).into_owned()
        };
        // Wait until the counters say `want` (they are published every 100 ms).
        let reach = |want: &str| {
            let t = Instant::now();
            while !stats().contains(want) {
                assert!(
                    t.elapsed() < time_bound(Duration::from_secs(60)),
                    "{want} never reached"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        };
        // Warm up: one request of every kind, before every herd.
        exchange(p.addr, b"GET / HTTP/1.0\r\n\r\n");
        let mut warm = ["/stall", "/drip", "/hang", "/slow", "/bw"].map(|path| {
            let mut s = connect(p.addr);
            s.write_all(&get(path)).unwrap();
            s
        });
        assert_eq!(read_n(&mut warm[1], 1), b"H");
        assert_eq!(read_responses(&mut warm[3], 1)[0].status, 200);
        read_n(&mut warm[4], piece);
        reach("\"drip\":1,\"stall\":1");
        reach("\"hang\":1,\"slow-close\":1,\"bandwidth\":1");
        let before = p.rss_kib();
        let path = if name == "idle" { "/" } else { name };
        let t0 = Instant::now();
        let mut conns = Vec::with_capacity(n);
        for _ in 0..n {
            let mut s = connect(p.addr);
            s.write_all(&get(path)).unwrap();
            conns.push(s);
        }
        match name {
            "idle" | "/slow" => {
                for s in &mut conns {
                    assert_eq!(read_responses(s, 1)[0].status, 200);
                }
                if name == "/slow" {
                    reach(&format!("\"slow-close\":{}", n + 1));
                }
            }
            "/hang" => reach(&format!("\"hang\":{}", n + 1)),
            "/bw" => {
                // The first piece; the connection waits for the next.
                for s in &mut conns {
                    read_n(s, piece);
                }
                reach(&format!("\"bandwidth\":{}", n + 1));
            }
            "/drip" => {
                // The first piece, one byte; the connection waits for the next.
                for s in &mut conns {
                    assert_eq!(read_n(s, 1), b"H");
                }
                reach(&format!("\"drip\":{}", n + 1));
            }
            _ => reach(&format!("\"stall\":{}", n + 1)),
        }
        let during = p.rss_kib();
        let took = t0.elapsed();
        if native && matches!(name, "/hang" | "/slow") {
            // Measured while every connection waits: within the 60 s of the first.
            assert!(
                took < Duration::from_secs(60),
                "{name}: the herd took {took:?}"
            );
        }
        let each = during.saturating_sub(before) * 1024 / n as u64;
        eprintln!(
            "{name}: {n} connections; RSS {before} KiB before, {during} KiB with them \
             (+{each} bytes per connection; herd made and measured in {took:.1?})"
        );
        (each, native.then_some(goal))
    };
    let (idle, goal) = herd("idle");
    let within_goal = |name: &str, each: u64| {
        if let Some(goal) = goal {
            assert!(
                each <= goal,
                "{name}: {each} bytes per connection, goal {goal}"
            );
        }
    };
    within_goal("idle", idle);
    for name in ["/stall", "/drip", "/hang", "/slow", "/bw"] {
        let (each, _) = herd(name);
        assert!(
            each <= idle + HERD_MARGIN,
            "{name}: {each} bytes per connection, idle {idle}"
        );
        within_goal(name, each);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The head's `Date` is patched in place once a second, and a dripped head is copied from it a
/// piece at a time: a date split over pieces sent seconds apart still reads as one date, the
/// one of the first piece (not a mix of the dates of the seconds each piece went out in).
#[test]
fn a_dripped_date_is_the_date_of_the_first_piece() {
    let p = Proc::start(&[
        "--workers",
        "1",
        "--server",
        "",
        "--fault",
        "/d=drip:1/80ms",
    ]);
    let mut s = connect(p.addr);
    s.write_all(&get("/d")).unwrap();
    let first = read_n(&mut s, 1);
    let at = std::time::SystemTime::now();
    // `HTTP/1.1 200 OK\r\nDate: ` and the 29-byte date: the date's last digits go out
    // 3.7 s after the first piece.
    let prefix = b"HTTP/1.1 200 OK\r\nDate: ";
    let rest = read_n(&mut s, prefix.len() + 29 - 1);
    let head = [first, rest].concat();
    assert!(
        head.starts_with(prefix),
        "{:?}",
        String::from_utf8_lossy(&head)
    );
    let date = &head[prefix.len()..];
    let second = Duration::from_secs(1);
    let near: Vec<[u8; 29]> = [at - second, at, at + second]
        .into_iter()
        .map(canned::response::http_date)
        .collect();
    assert!(
        near.iter().any(|d| d == date),
        "{:?}, first piece at {:?}",
        String::from_utf8_lossy(date),
        String::from_utf8_lossy(&near[1])
    );
}

/// A request pipelined behind a dripped response is answered after it, at once; the drip
/// streams a large body a chunk at a time, byte for byte, and a HEAD request gets the head
/// alone.
#[test]
fn drip_keeps_pipelined_responses_in_order_and_streams_large_bodies() {
    let body = (0..300_000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>();
    let mut c = Config::default().listen("127.0.0.1:0").unwrap().body(&body);
    c.common.date = false;
    c.workers = 1;
    c.quiet = true;
    c.routes[0].faults.delivery = canned::fault::Delivery::Drip(canned::fault::Drip::Pieces {
        pieces: 3,
        over_ms: 300,
    });
    let (h, addr) = start_config(c);
    let mut s = connect(addr);
    let t = Instant::now();
    let head_req = b"HEAD / HTTP/1.1\r\nHost: t\r\n\r\n";
    s.write_all(&[get("/"), head_req.to_vec(), get_close("/")].concat())
        .unwrap();
    let (got, reads, end) = read_all(&mut s, t);
    assert_eq!(end, End::Fin);
    let r = parse_responses(&got, &[false, true, false]);
    assert_eq!(r.len(), 3);
    assert!(r[0].body == body && r[2].body == body);
    assert_eq!(r[1].header("content-length"), Some("300000"));
    assert!(r[1].body.is_empty());
    // Three drips of 300 ms each, one after the other.
    let took = reads.last().unwrap().0;
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(took < Duration::from_millis(900) + slack(), "{took:?}");
    h.shutdown();
    h.join();
}

/// An error share's response is dripped like the route's own, the pause between pieces kept
/// after the connection gave its work area back (the response is found again by its route).
#[test]
fn a_dripped_error_response_keeps_its_pace() {
    let (h, addr) = start(&[
        "--fault",
        "/e=error:1:503",
        "--fault",
        "/e=drip:32/50ms",
        "--workers",
        "1",
    ]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&get_close("/e")).unwrap();
    let (got, reads, end) = read_all(&mut s, t);
    assert_eq!(end, End::Fin);
    let r = parse_responses(&got, &[false]);
    assert_eq!(
        (r[0].status, r[0].body.as_slice()),
        (503, &b"503 Service Unavailable\n"[..])
    );
    let pieces = got.len().div_ceil(32) as u64;
    let took = reads.last().unwrap().0;
    assert!(took >= Duration::from_millis(50 * (pieces - 1)), "{took:?}");
    assert_paced(&reads, 32, Duration::from_millis(50));
    h.shutdown();
    h.join();
}

/// A connection driven without sockets through a drip: each turn writes all its output, then
/// wakes it when it asks.
struct Driven {
    /// Everything written.
    wire: Vec<u8>,
    /// When it asked to be woken (µs), in turn.
    wakes: Vec<u64>,
    /// Between pieces: (bytes held beyond its own struct, input held back).
    between: Vec<(usize, usize)>,
    /// The most output pending at once.
    most_output: usize,
    /// At the end: idle (open, holding nothing), or what it does next.
    idle: bool,
    next: canned::conn::Next,
}

/// Drive a connection of a server with `args` through `input` until `len` bytes are written.
fn drive_drip(args: &[&str], input: &[u8], len: usize) -> Driven {
    use canned::conn::{Connection, Env, Features, Part, Pool, Settings};
    use canned::h1::Http1Conn;
    use canned::stats::Stats;
    let Cli::Run(c) = Config::from_args(args.iter().copied(), &[]).unwrap() else {
        panic!()
    };
    let (mut responses, _) = canned::server::setup::responses(&c);
    let mut faults = canned::server::setup::faults(&c, &mut responses, None, 0).unwrap();
    let (mut pool, mut stats) = (Pool::default(), Stats::default());
    let settings = Settings {
        limits: c.limits,
        ..Settings::default()
    };
    let mut conn = Http1Conn::new(0);
    let mut now_us = 0;
    let mut d = Driven {
        wire: Vec::new(),
        wakes: Vec::new(),
        between: Vec::new(),
        most_output: 0,
        idle: false,
        next: canned::conn::Next::Continue,
    };
    macro_rules! env {
        () => {
            Env {
                settings: &settings,
                responses: &responses,
                pool: &mut pool,
                stats: &mut stats,
                now_us,
                draining: false,
                features: Features {
                    faults: Part::new(Some(&mut faults)),
                    ..Features::default()
                },
            }
        };
    }
    conn.on_data(input, &mut env!());
    loop {
        loop {
            let n = conn.output().len();
            if n == 0 {
                break;
            }
            d.most_output = d.most_output.max(n);
            d.wire.extend_from_slice(conn.output());
            conn.wrote(n, &mut env!());
        }
        if d.wire.len() >= len {
            break;
        }
        assert!(!conn.wants_read(), "a drip holds input back");
        d.between.push((conn.buffered(), conn.pending_input()));
        let due = conn.wake_at(&settings).unwrap();
        d.wakes.push(due);
        // A deadline has passed once the clock is beyond it.
        now_us = due + 1;
        conn.on_wake(&mut env!());
    }
    d.idle = conn.is_idle() && conn.wants_read() && conn.buffered() == 0;
    d.next = conn.next();
    d
}

/// Between pieces, a dripping connection with nothing else to do holds no work area (it costs
/// what an idle one does); a request pipelined behind the drip keeps one, holding that input,
/// and is answered right after the last piece. A large piece is copied a body chunk at a time.
#[test]
fn a_dripping_connection_holds_no_work_area_between_pieces() {
    let args = ["--no-date", "--fault", "/d=drip:16/100ms"];
    let want = plain(false);
    let pieces = want.len().div_ceil(16) as u64;
    let d = drive_drip(&args, &get("/d"), want.len());
    assert_eq!(d.wire, want);
    assert_eq!(
        d.wakes,
        (1..pieces).map(|i| i * 100_000).collect::<Vec<_>>()
    );
    assert!(d.between.iter().all(|&b| b == (0, 0)), "{:?}", d.between);
    assert!(d.idle);
    let d = drive_drip(&args, &[get("/d"), get("/")].concat(), 2 * want.len());
    assert_eq!(d.wire, want.repeat(2));
    assert_eq!(d.wakes.len() as u64, pieces - 1);
    assert!(
        d.between
            .iter()
            .all(|&(held, input)| held > 0 && input == get("/").len()),
        "{:?}",
        d.between
    );
    assert!(d.idle);
    let body = "x".repeat(300_000);
    let d = drive_drip(
        &[
            "--no-date",
            "--body",
            &body,
            "--fault",
            "/d=drip:2pieces/100ms",
        ],
        &get_close("/d"),
        body.len() + 100,
    );
    assert!(d.wire.ends_with(body.as_bytes()));
    assert_eq!(d.wakes, [100_000]);
    assert_eq!(d.between, [(0, 0)]);
    assert!(
        d.most_output <= canned::conn::BODY_CHUNK,
        "{}",
        d.most_output
    );
    assert_eq!(d.next, canned::conn::Next::Close { linger: false });
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
    let (h, addr) = start(&[
        "--fault",
        "/s=stall",
        "--fault",
        "/h=hang:60s:reset",
        "--fault",
        "/c=slow-close:60s",
        "--shutdown-timeout",
        "20s",
    ]);
    // Stalled, hung, and waiting to close after its response: each idle, closed at once.
    let mut conns = ["/s", "/h", "/c"].map(|path| {
        let mut s = connect(addr);
        s.write_all(&get(path)).unwrap();
        s
    });
    assert_eq!(read_n(&mut conns[2], plain(false).len()), plain(false));
    // The requests are read and faulted before the shutdown starts.
    for s in &conns {
        wait_unread_by_server(s, 0);
    }
    let t = Instant::now();
    h.shutdown();
    h.join();
    assert!(t.elapsed() < slack(), "{:?}", t.elapsed());
    for s in &mut conns {
        let (got, _, end) = read_all(s, Instant::now());
        assert_eq!((got.as_slice(), end), (&b""[..], End::Fin));
    }
}

/// At `--max-conns`, a hung connection counts as idle keep-alive, as a stalled one: it is
/// closed (FIN) to admit a new one.
#[test]
fn a_hung_connection_makes_room_at_the_connection_limit() {
    let (h, addr) = start(&[
        "--fault",
        "/h=hang:60s",
        "--max-conns",
        "1",
        "--workers",
        "1",
    ]);
    let mut hung = connect(addr);
    let t = Instant::now();
    hung.write_all(&get("/h")).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let mut s = connect(addr);
    s.write_all(&get("/")).unwrap();
    assert_eq!(read_responses(&mut s, 1)[0].status, 200);
    let (got, _, end) = read_all(&mut hung, t);
    assert_eq!((got.as_slice(), end), (&b""[..], End::Fin));
    assert!(t.elapsed() < slack(), "{:?}", t.elapsed());
    let summary = {
        h.shutdown();
        h.join()
    };
    assert_eq!(summary.idle_closed_at_limit, 1);
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

/// `--delay` holds every response, a faulted one (and a `--mutate` variant) too, and a
/// latency adds to it: the delay, then the latency.
#[test]
fn delay_holds_faulted_responses_and_a_latency_adds_to_it() {
    let (h, addr) = start(&[
        "--delay",
        "200ms",
        "--fault",
        "/slow=latency:300ms",
        "--fault",
        "/e=error:1:503",
        "--fault",
        "/t=truncate:20",
        "--fault",
        "/d=drip:2pieces/300ms",
        "--fault",
        "/d=latency:100ms",
        "--workers",
        "1",
    ]);
    // A truncated response's bytes come after the delay; a drip's first piece after the delay
    // and the latency, its last 300 ms after that.
    for (path, first, last) in [("/t", 200, 200), ("/d", 300, 600)] {
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(&get_close(path)).unwrap();
        let (got, reads, end) = read_all(&mut s, t);
        assert_eq!(end, End::Fin, "{path}");
        assert!(!got.is_empty(), "{path}");
        let (first, last) = (Duration::from_millis(first), Duration::from_millis(last));
        assert!(reads[0].0 >= first, "{path}: {reads:?}");
        let end = reads.last().unwrap().0;
        assert!(end >= last && end < last + slack(), "{path}: {reads:?}");
    }
    let mut s = connect(addr);
    for (path, status, least) in [("/slow", 200, 500), ("/e", 503, 200), ("/", 200, 200)] {
        let t = Instant::now();
        s.write_all(&get(path)).unwrap();
        let r = read_responses(&mut s, 1);
        let took = t.elapsed();
        assert_eq!(r[0].status, status, "{path}");
        let least = Duration::from_millis(least);
        assert!(took >= least, "{path}: {took:?}");
        assert!(took < least + slack(), "{path}: {took:?}");
    }
    // Pipelined: the response before the latency's waits with it (200 + 300 ms from the
    // request), and the request after it is answered once it is written, after its own delay.
    let t = Instant::now();
    s.write_all(&[get("/"), get("/slow"), get("/")].concat())
        .unwrap();
    let r = read_responses(&mut s, 3);
    let took = t.elapsed();
    assert_eq!(r.iter().map(|r| r.status).collect::<Vec<_>>(), [200; 3]);
    assert!(took >= Duration::from_millis(700), "{took:?}");
    assert!(took < Duration::from_millis(700) + slack(), "{took:?}");
    h.shutdown();
    h.join();
    // docs/faults.md: each held response counts its delay and latency from the moment the
    // one before it is written: two pipelined requests with `--delay 200ms` and
    // `latency:200ms` are answered after 400 and 800 ms.
    let (h, addr) = start(&[
        "--delay",
        "200ms",
        "--fault",
        "/=latency:200ms",
        "--workers",
        "1",
    ]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&[get("/"), get("/")].concat()).unwrap();
    for least in [400, 800] {
        assert_eq!(read_responses(&mut s, 1)[0].status, 200);
        let took = t.elapsed();
        let least = Duration::from_millis(least);
        assert!(
            took >= least && took < least + slack(),
            "{least:?}: {took:?}"
        );
    }
    h.shutdown();
    h.join();
    // A malformed-response variant is held too.
    let (h, addr) = start(&["--delay", "200ms", "--mutate-id", "cl-negative"]);
    let t = Instant::now();
    let got = exchange(addr, &get("/"));
    let took = t.elapsed();
    assert!(!got.is_empty());
    assert!(took >= Duration::from_millis(200), "{took:?}");
    assert!(took < Duration::from_millis(200) + slack(), "{took:?}");
    h.shutdown();
    h.join();
}

/// A response held by a latency when the drain begins (SIGTERM) is still held its full time
/// and written whole, but as the last one: `Connection: close`, then FIN; the process exits
/// once it is out, not at `--shutdown-timeout`.
#[test]
fn a_response_held_by_latency_at_shutdown_says_connection_close() {
    use std::io::BufRead;
    for workers in ["1", "2"] {
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--no-date",
            "--access-log",
            "--fault",
            "/slow=latency:2s",
            "--shutdown-timeout",
            "120s",
        ]);
        let mut log = std::io::BufReader::new(p.child.stdout.take().unwrap());
        let mut s = connect(p.addr);
        let t = Instant::now();
        s.write_all(&get("/slow")).unwrap();
        // The access-log line is written when the response is decided: the request is read
        // and held before the drain begins.
        let mut line = String::new();
        log.read_line(&mut line).unwrap();
        let l = log_line(&line);
        assert_eq!(l.words, "GET /slow HTTP/1.1 200 fault=latency", "{line}");
        // Its time runs to the end of the hold, known when it is decided.
        assert!(l.us >= 2_000_000, "{line}");
        // A second or more for the signal to reach the worker before the hold ends.
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "read too late to test"
        );
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(p.child.id() as i32, libc::SIGTERM);
        }
        let (got, reads, end) = read_all(&mut s, t);
        let took = reads.last().map(|r| r.0);
        assert_eq!(end, End::Fin, "{workers} workers");
        let r = parse_responses(&got, &[]);
        assert_eq!(
            r[0].header("connection"),
            Some("close"),
            "{workers} workers"
        );
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&plain(true)),
            "{workers} workers: not the whole closing response"
        );
        assert!(
            took.is_some_and(|d| d >= Duration::from_secs(2)),
            "{workers} workers: {took:?}"
        );
        drop(s);
        let status = exit_status(&mut p.child, &format!("{workers} workers"));
        assert_eq!(status.code(), Some(0), "{workers} workers");
    }
}

/// A client that goes away while its response is held (a latency) or between two drip pieces
/// costs nothing: the hang-up or reset the socket reports, though the connection neither reads
/// nor writes, closes it. Before, the level-triggered report woke the loop on every turn until
/// the hold ended (measured: 2.8 CPU-seconds in 3 s for a reset during `latency:5s`).
#[test]
fn a_client_gone_during_a_hold_or_a_drip_pause_costs_no_cpu() {
    fn reset(s: TcpStream) {
        socket2::SockRef::from(&s)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
        drop(s);
    }
    let p = Proc::start(&[
        "--workers",
        "1",
        "--no-date",
        "--fault",
        "/slow=latency:5s",
        // Pieces 5 s apart.
        "--fault",
        "/rst=drip:10pieces/45s",
        // Pieces 2 s apart.
        "--fault",
        "/fin=drip:10pieces/18s",
    ]);
    // SAFETY: sysconf(3) has no preconditions.
    let ticks_per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let base = p.fds();
    // The server's CPU time over `secs` seconds, and whether the connection was closed by then.
    let measure = |case: &str, secs: f64| {
        let before = p.cpu_ticks();
        std::thread::sleep(Duration::from_secs_f64(secs));
        let spent = (p.cpu_ticks() - before) as f64 / ticks_per_s;
        eprintln!("{case}: {spent:.2} CPU-s over {secs} s");
        assert!(spent < 0.3, "{case}: {spent:.2} CPU-s over {secs} s");
        assert_eq!(p.fds(), base, "{case}: the connection is still open");
    };

    // Reset while the latency holds the response.
    let mut s = connect(p.addr);
    s.write_all(&get("/slow")).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    reset(s);
    std::thread::sleep(Duration::from_millis(200));
    measure("reset during latency:5s", 2.0);

    // Reset after the first piece, while the drip waits for the second.
    let mut s = connect(p.addr);
    s.write_all(&get("/rst")).unwrap();
    assert!(!read_n(&mut s, 1).is_empty());
    reset(s);
    std::thread::sleep(Duration::from_millis(200));
    measure("reset between drip pieces", 2.0);

    // A plain close after the first piece: the second piece (2 s on) draws a reset, and the
    // drip then waits for the third.
    let mut s = connect(p.addr);
    s.write_all(&get("/fin")).unwrap();
    assert!(!read_n(&mut s, 1).is_empty());
    // All of the first piece read, so that the close sends FIN, not RST.
    s.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    while s.read_some(&mut [0; 4096]).is_ok_and(|n| n > 0) {}
    drop(s);
    std::thread::sleep(Duration::from_millis(2300));
    measure("close between drip pieces", 1.5);
}

/// A dripped response still held (by a latency or `--delay`) when the drain begins has sent
/// nothing yet: it goes out as the last one, with `Connection: close`, as a held whole
/// response does, then FIN, and the process exits 0.
#[test]
fn a_drip_held_at_shutdown_says_connection_close() {
    use std::io::BufRead;
    let cases: [&[&str]; 2] = [
        &[
            "--fault",
            "/d=latency:2s",
            "--fault",
            "/d=drip:4pieces/400ms",
        ],
        &["--delay", "2s", "--fault", "/d=drip:4pieces/400ms"],
    ];
    for hold in cases {
        let mut args = vec![
            "--workers",
            "1",
            "--no-date",
            "--access-log",
            "--shutdown-timeout",
            "120s",
        ];
        args.extend_from_slice(hold);
        let mut p = Proc::start(&args);
        let mut log = std::io::BufReader::new(p.child.stdout.take().unwrap());
        let mut s = connect(p.addr);
        let t = Instant::now();
        s.write_all(&get("/d")).unwrap();
        // The access-log line is written when the response is decided: the request is read
        // and held before the drain begins.
        let mut line = String::new();
        log.read_line(&mut line).unwrap();
        assert!(
            log_line(&line).words.starts_with("GET /d HTTP/1.1 200"),
            "{hold:?}: {line}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "read too late to test"
        );
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(p.child.id() as i32, libc::SIGTERM);
        }
        let (got, reads, end) = read_all(&mut s, t);
        assert_eq!(end, End::Fin, "{hold:?}");
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&plain(true)),
            "{hold:?}: not the whole closing response"
        );
        // Held, then dripped: the last piece 400 ms after the first.
        let first = reads.first().map(|r| r.0);
        let last = reads.last().map(|r| r.0);
        assert!(
            first.is_some_and(|d| d >= Duration::from_secs(2)),
            "{hold:?}: {first:?}"
        );
        assert!(
            last.is_some_and(|d| d >= Duration::from_millis(2400)),
            "{hold:?}: {last:?}"
        );
        drop(s);
        let status = exit_status(&mut p.child, &format!("{hold:?}"));
        assert_eq!(status.code(), Some(0), "{hold:?}");
    }
}

/// The exit status of a server that has answered its last response: it must exit within
/// [`slack`].
fn exit_status(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let exited = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            exited.elapsed() < slack(),
            "{what}: still running after its last response"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `hang:D`: the request is read and nothing is sent for D, then FIN; `hang:D:reset`, then
/// RST. Responses to requests before it are written, requests after it are read and never
/// answered, and a latency adds to D. The hang is not an idle timeout (here shorter than D).
#[test]
fn hang_sends_nothing_for_its_time_then_closes() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--fault",
            "/h=hang:1500ms",
            "--fault",
            "/r=hang:300ms:reset",
            "--fault",
            "/l=hang:300ms",
            "--fault",
            "/l=latency:200ms",
            "--idle-timeout",
            "1s",
            "--workers",
            workers,
        ]);
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(&[get("/"), get("/h"), get("/")].concat())
            .unwrap();
        assert_eq!(read_responses(&mut s, 1)[0].status, 200);
        // More input is read and discarded, never answered.
        s.write_all(&get("/")).unwrap();
        let (rest, _, end) = read_all(&mut s, t);
        let took = t.elapsed();
        assert_eq!(rest, b"", "{workers} workers");
        assert_eq!(end, End::Fin);
        assert!(took >= Duration::from_millis(1500), "{took:?}");
        assert!(took < Duration::from_millis(1500) + slack(), "{took:?}");
        for (path, least, want_end) in [("/r", 300, End::Reset), ("/l", 500, End::Fin)] {
            let mut s = connect(addr);
            let t = Instant::now();
            s.write_all(&get(path)).unwrap();
            let (rest, _, end) = read_all(&mut s, t);
            let took = t.elapsed();
            assert_eq!((rest.as_slice(), end), (&b""[..], want_end), "{path}");
            assert!(took >= Duration::from_millis(least), "{path}: {took:?}");
            assert!(
                took < Duration::from_millis(least) + slack(),
                "{path}: {took:?}"
            );
        }
        let summary = {
            h.shutdown();
            h.join()
        };
        let faults = summary.stats.faults;
        assert_eq!(faults[canned::fault::FaultKind::Hang.index()], 3);
        assert_eq!(faults[canned::fault::FaultKind::Latency.index()], 1);
        assert_eq!(summary.stats.timeouts.iter().sum::<u64>(), 0, "no timeout");
    }
}

/// `slow-close:D`: the whole response at once (its head as the request asked: keep-alive
/// here), then the FIN D after it; meanwhile the connection reads on and answers nothing
/// more, and no input turns the close into a reset. A latency holds the response first; a
/// large body streams whole; a request that asked for a close gets the closing head.
#[test]
fn slow_close_sends_the_response_then_holds_the_fin() {
    let dir = std::env::temp_dir().join(format!("canned-slowclose-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.join("big"), &big).unwrap();
    let big_route = format!("/big=200:@{}", dir.join("big").display());
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--fault",
            "/s=slow-close:500ms",
            "--fault",
            "/l=slow-close:300ms",
            "--fault",
            "/l=latency:200ms",
            "--route",
            &big_route,
            "--fault",
            "/big=slow-close:300ms",
            "--workers",
            workers,
        ]);
        let want = plain(false);
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(&[get("/s"), get("/")].concat()).unwrap();
        assert_eq!(read_n(&mut s, want.len()), want, "{workers} workers");
        let first = t.elapsed();
        s.write_all(&get("/")).unwrap();
        let (rest, _, end) = read_all(&mut s, t);
        let took = t.elapsed();
        assert_eq!((rest.as_slice(), end), (&b""[..], End::Fin));
        assert!(took >= Duration::from_millis(500), "{took:?}");
        assert!(took < Duration::from_millis(500) + slack(), "{took:?}");
        assert!(first < took, "{first:?} then {took:?}");
        // Latency, then the response, then the FIN D after it.
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(&get_close("/l")).unwrap();
        let closing = plain(true);
        assert_eq!(read_n(&mut s, closing.len()), closing);
        assert!(t.elapsed() >= Duration::from_millis(200));
        let (rest, _, end) = read_all(&mut s, t);
        assert_eq!((rest.as_slice(), end), (&b""[..], End::Fin));
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(500), "{took:?}");
        assert!(took < Duration::from_millis(500) + slack(), "{took:?}");
        // A large body, byte for byte.
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(&get("/big")).unwrap();
        let (got, _, end) = read_all(&mut s, t);
        let took = t.elapsed();
        assert_eq!(end, End::Fin);
        let r = parse_responses(&got, &[false]);
        assert_eq!(r.len(), 1);
        assert!(r[0].body == big, "{} bytes of body", r[0].body.len());
        assert!(took >= Duration::from_millis(300), "{took:?}");
        let summary = {
            h.shutdown();
            h.join()
        };
        let faults = summary.stats.faults;
        assert_eq!(faults[canned::fault::FaultKind::SlowClose.index()], 3);
        assert_eq!(summary.stats.by_status[200], 3);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bandwidth:RATE`: the response (head and body) never ahead of the rate — by `e` after the
/// request was written, at most `RATE * e` bytes — and whole after its length over the rate,
/// never earlier; the connection stays open for the next request.
#[test]
fn bandwidth_paces_the_response_at_its_rate() {
    let dir = std::env::temp_dir().join(format!("canned-bandwidth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = vec![b'x'; 20_000];
    std::fs::write(dir.join("b"), &body).unwrap();
    let route = format!("/b=200:@{}", dir.join("b").display());
    let rate = 40 * 1024;
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--route",
            &route,
            "--fault",
            "/b=bandwidth:40KiB/s",
            "--workers",
            workers,
        ]);
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(&get_close("/b")).unwrap();
        let (got, reads, end) = read_all(&mut s, t);
        assert_eq!(end, End::Fin);
        assert_eq!(parse_responses(&got, &[false])[0].body, body);
        let mut total = 0;
        for &(e, n) in &reads {
            total += n;
            assert!(
                total as u128 * 1_000_000 <= rate * e.as_micros(),
                "{total} bytes at {e:?}: {reads:?}"
            );
        }
        let least = Duration::from_micros((got.len() as u64 * 1_000_000).div_ceil(rate as u64));
        let took = reads.last().unwrap().0;
        assert!(took >= least, "{} bytes in {took:?}", got.len());
        assert!(took < least + slack(), "{took:?}");
        // Keep-alive: the next request on the connection, paced too.
        let mut s = connect(addr);
        s.write_all(&[get("/b"), get("/")].concat()).unwrap();
        let r = read_responses(&mut s, 2);
        assert_eq!((r[0].body.len(), r[1].status), (body.len(), 200));
        let summary = {
            h.shutdown();
            h.join()
        };
        let faults = summary.stats.faults;
        assert_eq!(faults[canned::fault::FaultKind::Bandwidth.index()], 2);
        assert_eq!(faults[canned::fault::FaultKind::Drip.index()], 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `slow-close:D` counts D from a clock read after its last byte was written: the next
/// turn's (the turn that wrote it read its clock before the write). Driven without sockets:
/// the response is written in a turn whose clock says 1 ms, the next turn's says 1.5 ms, and
/// the close is due no earlier than 1.5 ms + D.
#[test]
fn a_slow_close_counts_from_after_the_last_write() {
    use canned::conn::{Connection, Env, Features, Next, Part, Pool, Settings};
    use canned::h1::Http1Conn;
    use canned::stats::Stats;
    let args = ["--no-date", "--fault", "/s=slow-close:300ms"];
    let Cli::Run(c) = Config::from_args(args.iter().copied(), &[]).unwrap() else {
        panic!()
    };
    let (mut responses, _) = canned::server::setup::responses(&c);
    let mut faults = canned::server::setup::faults(&c, &mut responses, None, 0).unwrap();
    let (mut pool, mut stats) = (Pool::default(), Stats::default());
    let settings = Settings {
        limits: c.limits,
        ..Settings::default()
    };
    let mut conn = Http1Conn::new(0);
    let mut now_us = 1_000;
    macro_rules! env {
        () => {
            Env {
                settings: &settings,
                responses: &responses,
                pool: &mut pool,
                stats: &mut stats,
                now_us,
                draining: false,
                features: Features {
                    faults: Part::new(Some(&mut faults)),
                    ..Features::default()
                },
            }
        };
    }
    conn.on_data(&get("/s"), &mut env!());
    let mut wire = Vec::new();
    while !conn.output().is_empty() {
        let n = conn.output().len();
        wire.extend_from_slice(conn.output());
        conn.wrote(n, &mut env!());
    }
    assert_eq!(parse_responses(&wire, &[false])[0].status, 200);
    // The next turn.
    now_us = 1_500;
    conn.on_wake(&mut env!());
    assert_eq!(conn.next(), Next::Continue);
    let due = conn.wake_at(&settings).unwrap();
    assert!(due >= 1_500 + 300_000, "due at {due} µs");
    now_us = due;
    conn.on_wake(&mut env!());
    assert_eq!(conn.next(), Next::Continue, "not before its time");
    now_us = due + 1;
    conn.on_wake(&mut env!());
    assert_ne!(conn.next(), Next::Continue, "closed after D");
}
