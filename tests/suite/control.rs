//! `--control`: a request chooses its status, delay, body size and faults (latency, stall,
//! truncate, reset, drip, garbage, error, each with a share) by query parameters or by
//! `X-Canned-Control`, read by curl, Python's http.client and raw sockets, with one and two
//! workers; bad values get 400 with one line; without the option nothing changes.
#![cfg(all(
    feature = "access-log",
    feature = "control",
    feature = "echo",
    feature = "faults",
    feature = "journal",
    feature = "stats"
))]

use crate::common;
use common::*;
use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

/// curl's `-w` of `%{http_code} %{size_download}` for `url` with `args`.
fn curl(url: &str, args: &[&str]) -> String {
    let o = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{size_download}",
        ])
        .args(args)
        .arg(url)
        .output()
        .unwrap();
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn curl_chooses_status_bytes_and_faults() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control", "--no-date"]);
        let cases: &[(&str, &[&str], &str)] = &[
            ("/", &[], "200 12"),
            ("/?x=1", &[], "200 12"),
            ("/any/path?status=503", &[], "503 12"),
            ("/?status=404&bytes=10", &[], "404 10"),
            ("/?bytes=1MiB", &[], "200 1048576"),
            ("/?bytes=3MiB", &[], "200 3145728"),
            ("/?bytes=0", &[], "200 0"),
            ("/?status=204", &[], "204 0"),
            (
                "/",
                &["-H", "X-Canned-Control: status=502;bytes=100"],
                "502 100",
            ),
            (
                "/?status=500",
                &["-H", "x-canned-control: status=201"],
                "201 12",
            ),
            ("/?status=9999", &[], "400 47"),
            ("/?bytes=2GiB", &[], "400 28"),
            ("/", &["-H", "X-Canned-Control: colour=red"], "400 59"),
            ("/?fault=stall", &["-m", "1"], "000 0"),
            ("/?fault=reset:0", &[], "000 0"),
            ("/?fault=error:503", &[], "503 24"),
            ("/?fault=error:429:slow%20down&bytes=1K", &[], "429 9"),
            (
                "/",
                &["-H", "X-Canned-Control: fault=error:0.5:502@0"],
                "200 12",
            ),
            ("/?fault=garbage:64", &[], "000 0"),
            ("/?fault=drip:1MiB/1s&bytes=5000", &[], "200 5000"),
        ];
        for (path, args, want) in cases {
            assert_eq!(
                &curl(&p.url(path), args),
                want,
                "{path} {args:?}, {workers} workers"
            );
        }
        // A cut counts the head's bytes: the body is what is left of 1000.
        let head = "HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3145728\r\n\r\n";
        let got = curl(&p.url("/?bytes=3MiB&fault=truncate:1000"), &[]);
        assert_eq!(
            got,
            format!("200 {}", 1000 - head.len()),
            "{workers} workers"
        );
        let start = Instant::now();
        assert_eq!(curl(&p.url("/?delay=300ms&bytes=5"), &[]), "200 5");
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < time_bound(Duration::from_secs(5)), "{took:?}");
        let start = Instant::now();
        assert_eq!(curl(&p.url("/?fault=latency:200ms"), &[]), "200 12");
        assert!(start.elapsed() >= Duration::from_millis(200));
        // The issue's example: 1 KiB at once, then 1 KiB every 100 ms; the head and 3 KiB
        // are four pieces, the last 300 ms after the first.
        let start = Instant::now();
        assert_eq!(
            curl(&p.url("/?fault=drip:1KiB/100ms&bytes=3K"), &[]),
            "200 3072"
        );
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < time_bound(Duration::from_secs(5)), "{took:?}");
    }
}

#[test]
fn bad_values_get_one_line() {
    let (h, addr) = start(&["--control", "--workers", "1"]);
    for (target, first) in [
        (
            "/?status=99",
            "control: status must be a code from 200 to 599\n",
        ),
        (
            "/?delay=61m",
            "control: delay must be a duration like 250ms, 2s or 1m, at most 1h\n",
        ),
        (
            "/?delay=abc",
            "control: delay must be a duration like 250ms, 2s or 1m, at most 1h\n",
        ),
        (
            "/?delay=500",
            "control: delay: \"500\" has no unit: write 500ms or 500s\n",
        ),
        (
            "/?fault=latency:100@50%25",
            "control: fault: latency: \"100\" has no unit: write 100ms or 100s\n",
        ),
        (
            "/?bytes=1T",
            "control: bytes must be a size like 512, 64K or 1MiB\n",
        ),
        (
            "/?fault=hang:2h",
            "control: fault: hang takes a duration, like hang:2s or hang:2s:reset, at most 1h\n",
        ),
        (
            "/?fault=bandwidth:1KiB",
            "control: fault: bandwidth takes a rate, like bandwidth:64KiB/s (1/s to 1GiB/s)\n",
        ),
        (
            "/?fault=drip:1KiB",
            "control: fault: drip takes a size or pieces over a time, like drip:1KiB/100ms or drip:10pieces/2s (1 B to 1 MiB a piece, 2 to 100000 pieces at least 1 ms apart, at most 1h)\n",
        ),
        (
            "/?fault=garbage:2MiB",
            "control: fault: garbage takes a size from 1 to 1MiB, like garbage:256\n",
        ),
        (
            "/?fault=error:700",
            "control: fault: error takes a status from 200 to 599, or a rate from 0 to 1 (10%) then a status, like error:503, error:0.1:503, error:10%:503 or error:0.1:503:busy\n",
        ),
        (
            "/?fault=error:503@150%25",
            "control: fault: a share must be a rate from 0 to 1, like @0.1 or @10%\n",
        ),
        (
            "/?fault=flood",
            "control: fault: \"flood\" is not a fault kind (latency, drip, stall, truncate, reset, garbage, hang, slow-close, bandwidth, error, status, seq or seq-cycle)\n",
        ),
    ] {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, req.as_bytes()), &[false]);
        assert_eq!(r[0].status, 400, "{target}");
        assert_eq!(String::from_utf8_lossy(&r[0].body), first, "{target}");
    }
    // The number is kept past a body the answer waits for, with its unit's two readings.
    let req = b"POST / HTTP/1.1\r\nHost: x\r\nX-Canned-Control: fault=hang:3\r\n\
                Content-Length: 5\r\nConnection: close\r\n\r\nhello";
    let r = parse_responses(&exchange(addr, req), &[false]);
    assert_eq!(r[0].status, 400);
    assert_eq!(
        String::from_utf8_lossy(&r[0].body),
        "control: fault: hang: \"3\" has no unit: write 3ms or 3s\n"
    );
    // A bad control is a well-formed request: the connection stays open.
    let mut s = connect(addr);
    s.write_all(
        b"GET /?status=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /?status=201 HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .unwrap();
    let r = read_responses(&mut s, 2);
    assert_eq!((r[0].status, r[1].status), (400, 201));
    h.shutdown();
}

#[test]
fn pipelined_bodies_and_head_requests() {
    let (h, addr) = start(&["--control", "--workers", "2"]);
    let mut s = connect(addr);
    s.write_all(
        b"POST /?status=201&bytes=70000 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello\
          HEAD /?bytes=1K HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let r = parse_responses(&read_to_eof(&mut s), &[false, true, false]);
    assert_eq!(r[0].status, 201);
    assert_eq!(r[0].body.len(), 70_000);
    assert!(r[0].body.starts_with(b"abcdefghij"));
    assert_eq!(r[1].header("content-length"), Some("1024"));
    assert!(r[1].body.is_empty());
    assert_eq!((r[2].status, &r[2].body[..]), (200, &b"Hello World\n"[..]));
    let mut s = connect(addr);
    // The truncated answer ends the connection at half its bytes.
    s.write_all(b"GET /?bytes=64K&fault=truncate:50%25 HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let rest = read_to_eof(&mut s);
    let whole = "HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 65536\r\n\r\n".len() + 65536;
    assert_eq!(rest.len(), whole / 2);
    // 205 carries no content (RFC 9110 §15.3.6), even with a body asked for.
    let mut s = connect(addr);
    s.write_all(
        b"GET /?status=205 HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /?status=205&bytes=10 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let r = parse_responses(&read_to_eof(&mut s), &[false, false]);
    for r in &r {
        assert_eq!(r.status, 205);
        assert_eq!(r.header("content-length"), Some("0"));
        assert!(r.body.is_empty());
    }
    h.shutdown();
}

#[test]
fn without_the_option_queries_change_nothing() {
    let (h, addr) = start(&["--workers", "1"]);
    let req = b"GET /?status=503&bytes=10 HTTP/1.1\r\nHost: x\r\nX-Canned-Control: status=500\r\nConnection: close\r\n\r\n";
    let r = parse_responses(&exchange(addr, req), &[false]);
    assert_eq!((r[0].status, &r[0].body[..]), (200, &b"Hello World\n"[..]));
    h.shutdown();
}

#[test]
fn python_reads_controlled_answers() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let script = format!(
            r#"
import http.client, time
c = http.client.HTTPConnection("{host}", {port}, timeout=10)
for target, headers, status, length in [
    ("/?status=503", {{}}, 503, 12),
    ("/?bytes=200000", {{}}, 200, 200000),
    ("/", {{"X-Canned-Control": "status=418;bytes=7"}}, 418, 7),
    ("/?status=abc", {{}}, 400, 47),
    ("/?status=304", {{}}, 304, 0),
]:
    c.request("GET", target, headers=headers)
    r = c.getresponse()
    body = r.read()
    assert (r.status, len(body)) == (status, length), (target, r.status, len(body))
t = time.monotonic()
c.request("GET", "/?delay=250ms")
r = c.getresponse(); r.read()
assert time.monotonic() - t >= 0.25
print("ok")
"#,
            host = p.addr.ip(),
            port = p.addr.port()
        );
        let o = Command::new("python3")
            .args(["-c", &script])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            "ok",
            "{workers} workers: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// The access log names the status sent and the faults a control asked for; `--stats` counts
/// them; the echo paths and `--health` take no control, and `--delay` adds to a control's.
#[test]
fn access_log_stats_and_paths_without_control() {
    use std::io::Read;
    let p = Proc::start(&[
        "--workers",
        "1",
        "--no-date",
        "--control",
        "--access-log",
        "--stats",
        "/stats",
        "--health",
        "/h",
        "--echo",
        "/e=text",
        "--delay",
        "100ms",
    ]);
    let get = |target: &str| {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        exchange(p.addr, req.as_bytes())
    };
    let r = parse_responses(&get("/h?status=503"), &[false]);
    assert_eq!((r[0].status, &r[0].body[..]), (200, &b"ok"[..]));
    let r = parse_responses(&get("/e?status=503"), &[false]);
    assert_eq!(
        (r[0].status, &r[0].body[..]),
        (200, &b"Host: x\nConnection: close\n"[..])
    );
    let start = Instant::now();
    let r = parse_responses(&get("/?status=503&delay=200ms"), &[false]);
    assert_eq!(r[0].status, 503);
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "{:?}",
        start.elapsed()
    );
    get("/?fault=truncate:5");
    get("/?fault=latency:1ms&status=201");
    get("/?fault=garbage:10");
    get("/?fault=error:503&fault=drip:1K/1ms");
    let mut s = connect(p.addr);
    s.write_all(b"GET /?fault=stall HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let stats = String::from_utf8_lossy(&get("/stats")).into_owned();
    let want = "\"faults\":{\"latency\":1,\"drip\":1,\"stall\":1,\"truncate\":1,\"reset\":0,\"garbage\":1,\"error\":1,\"hang\":0,\"slow-close\":0,\"bandwidth\":0,\"status\":0}";
    assert!(stats.contains(want), "{want} not in {stats}");
    drop(s);
    let mut child = p.child;
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    child.wait().unwrap();
    let mut log = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    let want = [
        "GET /e?status=503 HTTP/1.1 200",
        "GET /?status=503&delay=200ms HTTP/1.1 503",
        "GET /?fault=truncate:5 HTTP/1.1 200 fault=truncate",
        "GET /?fault=latency:1ms&status=201 HTTP/1.1 201 fault=latency",
        "GET /?fault=garbage:10 HTTP/1.1 000 fault=garbage",
        "GET /?fault=error:503&fault=drip:1K/1ms HTTP/1.1 503 fault=error fault=drip",
        "GET /?fault=stall HTTP/1.1 000 fault=stall",
        "GET /stats HTTP/1.1 200",
    ];
    let lines: Vec<LogLine> = log.lines().map(log_line).collect();
    assert_eq!(lines.len(), want.len(), "{log}");
    for (line, want) in lines.iter().zip(want) {
        assert_eq!(line.words, want, "{log}");
    }
    // The held answer's time runs to the end of its hold: `--delay` and `delay=`.
    assert!(lines[1].us >= 300_000, "{log}");
}

/// A request that names no control gets its path's faults; one that does, none of them.
#[test]
fn a_control_replaces_the_paths_faults() {
    let (h, addr) = start(&["--control", "--fault", "/f=error:1:500"]);
    for (target, status) in [
        ("/f", 500),
        ("/f?x=1", 500),
        ("/f?status=201", 201),
        ("/f?delay=0", 200),
    ] {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, req.as_bytes()), &[false]);
        assert_eq!(r[0].status, status, "{target}");
    }
    h.shutdown();
}

/// Everything read until the connection ends, when each read arrived (from `since`), and
/// whether it ended with FIN (not a reset).
fn read_timed(
    s: &mut std::net::TcpStream,
    since: Instant,
) -> (Vec<u8>, Vec<(Duration, usize)>, bool) {
    use std::io::ErrorKind;
    let (mut out, mut reads, mut buf) = (Vec::new(), Vec::new(), [0u8; 65536]);
    loop {
        match s.read_some(&mut buf) {
            Ok(0) => return (out, reads, true),
            Ok(n) => {
                reads.push((since.elapsed(), n));
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return (out, reads, false),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => panic!("read failed after {} bytes: {e}", out.len()),
        }
    }
}

/// Never ahead of the drip's schedule: by `e` after the request was written (no earlier than
/// the server read it), at most the bytes of the pieces due by then, piece `i` (from 0) due
/// `at_us(i)` after the first and ending at `end(i)`, of `pieces`. A client that reads late
/// sees more in one read, never more than this, so the bound holds under load.
fn assert_never_early(
    reads: &[(Duration, usize)],
    hold: Duration,
    pieces: u64,
    at_us: impl Fn(u64) -> u64,
    end: impl Fn(u64) -> usize,
) {
    let mut total = 0;
    for &(e, n) in reads {
        total += n;
        assert!(
            e >= hold,
            "{n} bytes at {e:?}, before the hold of {hold:?}: {reads:?}"
        );
        let since = (e - hold).as_micros() as u64;
        let mut due = 0;
        while due + 1 < pieces && at_us(due + 1) <= since {
            due += 1;
        }
        assert!(total <= end(due), "{total} bytes at {e:?}: {reads:?}");
    }
}

/// `fault=drip` paces the answer the request chose (its status, body and size), by rate or by
/// pieces, after its delay, never ahead of the drip's schedule: every lower bound is the
/// schedule's own. One and two workers, raw sockets.
#[test]
fn a_controlled_drip_follows_its_schedule() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--control", "--workers", workers]);
        // (target, control field, status, body length, hold, pieces: Rate(bytes, every) or
        // Pieces(n, over))
        enum Pace {
            Rate(usize, u64),
            Pieces(u64, u64),
        }
        let cases: [(&str, &str, u16, usize, u64, Pace); 5] = [
            (
                "/?fault=drip:16/60ms&status=503",
                "",
                503,
                12,
                0,
                Pace::Rate(16, 60),
            ),
            (
                "/?fault=drip:4pieces/300ms&bytes=100000",
                "",
                200,
                100_000,
                0,
                Pace::Pieces(4, 300),
            ),
            (
                "/",
                "X-Canned-Control: fault=drip:2pieces/200ms;delay=150ms;bytes=1K\r\n",
                200,
                1024,
                150,
                Pace::Pieces(2, 200),
            ),
            (
                "/?fault=drip:40/50ms&fault=error:503:busy",
                "",
                503,
                4,
                0,
                Pace::Rate(40, 50),
            ),
            (
                "/?fault=drip:16K/50ms&bytes=70000&status=201",
                "",
                201,
                70_000,
                0,
                Pace::Rate(16384, 50),
            ),
        ];
        for (target, field, status, body_len, hold_ms, pace) in cases {
            let mut s = connect(addr);
            let req =
                format!("GET {target} HTTP/1.1\r\nHost: x\r\n{field}Connection: close\r\n\r\n");
            let t = Instant::now();
            s.write_all(req.as_bytes()).unwrap();
            let (got, reads, fin) = read_timed(&mut s, t);
            assert!(
                fin,
                "{target}: a drip ends its connection as asked, with FIN"
            );
            let r = parse_responses(&got, &[false]);
            assert_eq!(
                (r[0].status, r[0].body.len()),
                (status, body_len),
                "{target}"
            );
            let total = got.len();
            let hold = Duration::from_millis(hold_ms);
            let last = match pace {
                Pace::Rate(bytes, every_ms) => {
                    let pieces = total.div_ceil(bytes) as u64;
                    assert_never_early(
                        &reads,
                        hold,
                        pieces,
                        |i| i * every_ms * 1000,
                        |i| total.min((i as usize + 1) * bytes),
                    );
                    Duration::from_millis(every_ms * (pieces - 1))
                }
                Pace::Pieces(n, over_ms) => {
                    let over_us = over_ms * 1000;
                    assert_never_early(
                        &reads,
                        hold,
                        n,
                        |i| (over_us * i.min(n - 1)).div_ceil(n - 1),
                        |i| total * (i as usize + 1).min(n as usize) / n as usize,
                    );
                    Duration::from_millis(over_ms)
                }
            };
            let took = reads.last().unwrap().0;
            assert!(took >= hold + last, "{target}: {took:?}, {reads:?}");
            assert!(
                took < hold + last + time_bound(Duration::from_secs(3)),
                "{target}: {took:?}"
            );
            if body_len == 4 {
                assert_eq!(r[0].body, b"busy");
            }
        }
        // Keep-alive: the request pipelined behind a dripped answer is answered after it, and
        // a HEAD is dripped as its head alone.
        let mut s = connect(addr);
        let t = Instant::now();
        s.write_all(
            b"GET /?fault=drip:2pieces/200ms HTTP/1.1\r\nHost: x\r\n\r\n\
              HEAD /?fault=drip:2pieces/200ms&bytes=50 HTTP/1.1\r\nHost: x\r\n\r\n\
              GET /?status=202 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .unwrap();
        let (got, reads, _) = read_timed(&mut s, t);
        let r = parse_responses(&got, &[false, true, false]);
        assert_eq!((r[0].status, &r[0].body[..]), (200, &b"Hello World\n"[..]));
        assert_eq!(
            (r[1].status, r[1].header("content-length")),
            (200, Some("50"))
        );
        assert!(r[1].body.is_empty());
        assert_eq!(r[2].status, 202);
        let took = reads.last().unwrap().0;
        assert!(took >= Duration::from_millis(400), "{took:?}: {reads:?}");
        h.shutdown();
    }
}

/// `fault=garbage:N`: exactly N bytes that are not a response, then FIN; the requests after
/// it are not answered. The bytes are the seeded generator's (the same for the same
/// `--seed`), a 64 KiB block repeated.
#[test]
fn controlled_garbage_is_n_bytes_then_fin() {
    let garbage = |seed: &str, workers: &str, target: &str| {
        let (h, addr) = start(&["--control", "--workers", workers, "--seed", seed]);
        let mut s = connect(addr);
        let req = format!(
            "GET {target} HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes()).unwrap();
        let (got, _, fin) = read_timed(&mut s, Instant::now());
        assert!(fin, "{target}: FIN, not a reset");
        h.shutdown();
        got
    };
    for workers in ["1", "2"] {
        for n in [1, 256, 65_536, 100_000, 1 << 20] {
            let got = garbage("7", workers, &format!("/?fault=garbage:{n}"));
            assert_eq!(got.len(), n, "garbage:{n}");
            assert!(!got.starts_with(b"HTTP/"));
            if n > 65_536 {
                assert_eq!(got[65_536..], got[..n - 65_536], "a 64 KiB block, repeated");
            }
        }
        let h = garbage("7", workers, "/");
        assert!(h.starts_with(b"HTTP/1.1 200"), "a request without control");
    }
    let a = garbage("7", "1", "/?fault=garbage:1K");
    let b = garbage("7", "2", "/?delay=50ms&fault=garbage:1K");
    let c = garbage("8", "1", "/?fault=garbage:1K");
    assert_eq!(a, b, "the same seed, the same bytes");
    assert_ne!(a, c, "another seed, other bytes");
    // Bytes of every value: not printable filler.
    assert!(a.iter().any(|&b| b >= 0x80) && a.iter().any(|&b| b < 0x20));
}

/// `fault=error:STATUS[:BODY]`: the status, with its body or `STATUS REASON`, the route's
/// content type and headers, on a connection that stays open; a rate or a share answers that
/// share of the requests with it and the others as asked.
#[test]
fn controlled_errors_replace_the_answer() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--control",
            "--workers",
            workers,
            "--header",
            "X-Env: test",
            "--content-type",
            "application/json",
        ]);
        let mut s = connect(addr);
        s.write_all(
            b"GET /?fault=error:503 HTTP/1.1\r\nHost: x\r\n\r\n\
              GET /json?fault=error:500:%7B%22e%22%3A1%7D HTTP/1.1\r\nHost: x\r\n\r\n\
              POST /?fault=error:429:slow+down&status=201 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc\
              HEAD /?fault=error:502 HTTP/1.1\r\nHost: x\r\n\r\n\
              GET /?fault=error:204 HTTP/1.1\r\nHost: x\r\n\r\n\
              GET / HTTP/1.1\r\nHost: x\r\nX-Canned-Control: fault=error:404:gone;fault=truncate:3\r\n\r\n",
        )
        .unwrap();
        let got = read_to_eof(&mut s);
        let cut = got.len() - 3;
        let r = parse_responses(&got[..cut], &[false, false, false, true, false]);
        let want: [(u16, &[u8], &str); 5] = [
            (503, b"503 Service Unavailable\n", "application/json"),
            (500, b"{\"e\":1}", "application/json"),
            (429, b"slow down", "application/json"),
            (502, b"", "application/json"),
            (204, b"", ""),
        ];
        for (r, (status, body, ctype)) in r.iter().zip(want) {
            assert_eq!((r.status, &r.body[..]), (status, body), "{workers} workers");
            assert_eq!(r.header("x-env"), Some("test"));
            if status != 204 {
                assert_eq!(r.header("content-type"), Some(ctype));
            }
        }
        assert_eq!(
            r[3].header("content-length"),
            Some("16"),
            "HEAD: the GET's length"
        );
        // An error's answer takes the delivery fault too: three bytes of it, then FIN.
        assert_eq!(&got[cut..], b"HTT");
        h.shutdown();
    }
}

/// Python's http.client reads a dripped answer whole, no earlier than its last piece, an
/// error's status and body, and an error share (`@25%`) within four standard deviations of
/// its share; garbage from a raw socket is N bytes, then end of stream.
#[test]
fn python_reads_drips_errors_shares_and_garbage() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let script = r#"
import http.client, socket, sys, time
host, port = sys.argv[1], int(sys.argv[2])
c = http.client.HTTPConnection(host, port, timeout=10)
t = time.monotonic()
c.request("GET", "/?fault=drip:3pieces/400ms&bytes=30000")
r = c.getresponse(); body = r.read()
assert (r.status, len(body)) == (200, 30000), (r.status, len(body))
assert time.monotonic() - t >= 0.4
c.request("GET", "/?fault=error:503:try%20later")
r = c.getresponse(); body = r.read()
assert (r.status, body) == (503, b"try later"), (r.status, body)
c.request("GET", "/", headers={"X-Canned-Control": "fault=error:418"})
r = c.getresponse(); body = r.read()
assert (r.status, body) == (418, b"418 I'm a teapot\n"), (r.status, body)
n = 0
for _ in range(400):
    c.request("GET", "/?fault=error:503@25%25")
    r = c.getresponse(); r.read()
    assert r.status in (200, 503), r.status
    n += r.status == 503
# 400 requests at 25%: mean 100, four standard deviations 35.
assert 65 <= n <= 135, n
s = socket.create_connection((host, port), timeout=10)
s.sendall(b"GET /?fault=garbage:5000 HTTP/1.1\r\nHost: x\r\n\r\n")
got = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    got += b
assert len(got) == 5000, len(got)
print("ok")
"#;
        let (host, port) = (p.addr.ip().to_string(), p.addr.port().to_string());
        python_ok(
            script,
            &[host.as_ref(), port.as_ref()],
            &format!("{workers} workers"),
        );
    }
}

/// A control's faults are recorded in the journal entry of its request, as a `--fault`'s.
#[test]
fn the_journal_records_a_controls_faults() {
    let (h, addr) = start(&[
        "--control",
        "--workers",
        "1",
        "--journal",
        "10",
        "--journal-path",
        "/_j",
    ]);
    let get = |target: &str| {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        exchange(addr, req.as_bytes())
    };
    get("/?fault=error:503&fault=latency:1ms");
    get("/?fault=garbage:10");
    get("/?fault=drip:1K/1ms");
    // The journal's length is not known when it starts: to a closing request, its body ends
    // at the close.
    let r = get("/_j");
    let at = r.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let journal = String::from_utf8_lossy(&r[at..]).into_owned();
    for want in [
        "\"target\":\"/?fault=error:503&fault=latency:1ms\"",
        "\"status\":503,\"faults\":[\"latency\",\"error\"]",
        "\"status\":null,\"faults\":[\"garbage\"]",
        "\"status\":200,\"faults\":[\"drip\"]",
    ] {
        assert!(journal.contains(want), "{want} in {journal}");
    }
    h.shutdown();
}

/// How a raw client sees the end of `target`'s answer: the bytes, when the end came (from
/// before the request), and FIN or RST.
fn raw_end(addr: std::net::SocketAddr, target: &str) -> (Vec<u8>, Duration, &'static str) {
    use std::io::ErrorKind;
    let mut s = connect(addr);
    s.set_read_timeout(Some(time_bound(Duration::from_secs(20))))
        .unwrap();
    let t = Instant::now();
    write!(s, "GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read_some(&mut buf) {
            Ok(0) => return (got, t.elapsed(), "FIN"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return (got, t.elapsed(), "RST"),
            Err(e) => panic!("{target}: {e} after {} bytes", got.len()),
        }
    }
}

/// `fault=hang:D`, `hang:D:reset`, `slow-close:D` and `bandwidth:RATE` per request, as
/// `--fault`'s: nothing then FIN (RST) no earlier than D; the whole answer, then FIN no
/// earlier than D; the bytes no faster than the rate. Raw sockets and curl, with one and two
/// workers.
#[test]
fn hang_slow_close_and_bandwidth_per_request() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--control", "--workers", workers]);
        let d = Duration::from_millis(400);
        for (target, end, empty) in [
            ("/?fault=hang:400ms", "FIN", true),
            ("/?fault=hang:400ms:reset", "RST", true),
            ("/?fault=slow-close:400ms&status=201", "FIN", false),
            ("/?fault=hang:300ms&delay=100ms", "FIN", true),
        ] {
            let (got, took, how) = raw_end(addr, target);
            assert_eq!(
                (how, got.is_empty()),
                (end, empty),
                "{workers} {target}: {got:?}"
            );
            if !empty {
                assert_eq!(parse_responses(&got, &[false])[0].status, 201);
            }
            assert!(took >= d, "{workers} {target}: {took:?}");
            assert!(took < d + time_bound(Duration::from_secs(5)), "{took:?}");
        }
        if have("curl") {
            let url = format!("http://{addr}/?fault=hang:300ms");
            let t = Instant::now();
            let o = Command::new("curl")
                .args(["-s", "-m", "20"])
                .arg(&url)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(52), "an empty reply");
            assert!(t.elapsed() >= Duration::from_millis(300));
            // 40 KiB at 20 KiB/s: never faster than the rate, the first piece (a tenth of a
            // second's bytes) at once.
            let t = Instant::now();
            let got = curl(
                &format!("http://{addr}/?fault=bandwidth:20KiB/s&bytes=40K"),
                &[],
            );
            let took = t.elapsed();
            assert_eq!(got, "200 40960");
            assert!(took >= Duration::from_millis(1900), "{took:?}");
            assert!(took < time_bound(Duration::from_secs(10)), "{took:?}");
        }
        h.shutdown();
        h.join();
    }
}

/// A Go program: `BASE CASE...` sends each case, `TARGET` or `TARGET|CONTROL` (CONTROL as the
/// value of `X-Canned-Control`), in turn with one client (keep-alive), printing for each
/// `STATUS BYTES MICROS REUSED PRINTABLE BODY ERROR`: the status (0 without an answer), the
/// body's bytes read, the µs from before the request was sent to the end of the body or its
/// error, whether the connection was used before, whether every body byte was printable
/// ASCII or CR or LF (the filler's lines), the body's first 16 bytes and the error (`""` for none), the last two quoted.
const GO_CONTROL: &str = r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"time"
)

func main() {
	for _, c := range os.Args[2:] {
		target, control, hasControl := strings.Cut(c, "|")
		req, err := http.NewRequest("GET", os.Args[1]+target, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if hasControl {
			req.Header.Set("X-Canned-Control", control)
		}
		reused := false
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
		t := time.Now()
		status, body, msg := 0, []byte{}, ""
		r, err := http.DefaultClient.Do(req)
		if err == nil {
			status = r.StatusCode
			body, err = io.ReadAll(r.Body)
			r.Body.Close()
		}
		took := time.Since(t).Microseconds()
		if err != nil {
			msg = err.Error()
		}
		printable := true
		for _, b := range body {
			printable = printable && (b >= 0x20 && b < 0x7f || b == 0x0d || b == 0x0a)
		}
		head := body
		if len(head) > 16 {
			head = head[:16]
		}
		fmt.Printf("%d %d %d %v %v %q %q\n", status, len(body), took, reused, printable, head, msg)
	}
}
"#;

/// One line of [`GO_CONTROL`]'s.
#[derive(Debug)]
struct GoAnswer {
    status: u16,
    bytes: usize,
    micros: u64,
    reused: bool,
    printable: bool,
    rest: String,
}

/// Go's net/http asks for a status, a body size and a delay (by query and by
/// `X-Canned-Control`), and a truncated answer, with one and two workers: the status and
/// bytes asked for, on one keep-alive connection; each delay no earlier than asked (measured
/// from before the request was sent) and well within seconds after; `fault=truncate:1000` the
/// first 1000 bytes, head included, which net/http reports as an unexpected EOF in the body,
/// and the client's next request answered on a new connection.
#[test]
fn go_chooses_status_delay_bytes_and_truncate() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new("control", GO_CONTROL);
    let head = "HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 65536\r\n\r\n";
    let cases = [
        "/?status=503",
        "/any|status=502;bytes=100",
        "/?bytes=1MiB",
        "/?bytes=0&status=201",
        "/?delay=300ms&bytes=5",
        "/x|delay=250ms;status=202",
        "/?bytes=64K&fault=truncate:1000",
        "/?status=404",
    ];
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control", "--no-date"]);
        let mut args = vec![p.url("")];
        args.extend(cases.iter().map(|c| c.to_string()));
        let o = go.run(&args);
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(
            o.status.success(),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got: Vec<GoAnswer> = out
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.splitn(6, ' ').collect();
                GoAnswer {
                    status: f[0].parse().unwrap(),
                    bytes: f[1].parse().unwrap(),
                    micros: f[2].parse().unwrap(),
                    reused: f[3].parse().unwrap(),
                    printable: f[4].parse().unwrap(),
                    rest: f[5].to_string(),
                }
            })
            .collect();
        assert_eq!(got.len(), cases.len(), "{out}");
        let what = |i: usize| format!("{}, {workers} workers: {:?}", cases[i], got[i]);
        let no_error = |i: usize| assert!(got[i].rest.ends_with(" \"\""), "{}", what(i));
        // Status and size, by query and by the field: the route's body with a status alone,
        // else the filler's printable lines.
        for (i, status, bytes) in [(0, 503, 12), (1, 502, 100), (2, 200, 1 << 20), (3, 201, 0)] {
            assert_eq!(
                (got[i].status, got[i].bytes),
                (status, bytes),
                "{}",
                what(i)
            );
            assert!(got[i].printable, "{}", what(i));
            no_error(i);
        }
        assert!(got[0].rest.starts_with("\"Hello World\\n\""), "{}", what(0));
        // Delays: never early, and not held much past them.
        for (i, status, bytes, least) in [(4, 200, 5, 300_000), (5, 202, 12, 250_000)] {
            assert_eq!(
                (got[i].status, got[i].bytes),
                (status, bytes),
                "{}",
                what(i)
            );
            no_error(i);
            assert!(got[i].micros >= least, "{}", what(i));
            let most = time_bound(Duration::from_secs(5)) + Duration::from_micros(least);
            assert!(Duration::from_micros(got[i].micros) < most, "{}", what(i));
        }
        // Every request so far on the first connection.
        assert!(!got[0].reused, "{}", what(0));
        for (i, g) in got.iter().enumerate().take(7).skip(1) {
            assert!(g.reused, "{}", what(i));
        }
        // The cut: the head whole, the body short of its Content-Length.
        assert_eq!(got[6].status, 200, "{}", what(6));
        assert_eq!(got[6].bytes, 1000 - head.len(), "{}", what(6));
        assert!(got[6].rest.ends_with(" \"unexpected EOF\""), "{}", what(6));
        // The connection is gone: the next request is on a new one.
        assert_eq!((got[7].status, got[7].reused), (404, false), "{}", what(7));
        no_error(7);
        let (code, _) = p.stop();
        assert_eq!(code, 0);
    }
}

/// One fault value means the same wherever it is given: `--fault` on the default response,
/// `fault=` in a request's query and in `X-Canned-Control`, and the admin API's `PUT
/// /faults/*`, each read by one grammar: the answers' bytes are the same, and the admin API
/// lists the fault as the command line's.
#[test]
fn a_fault_value_means_the_same_to_fault_control_and_admin() {
    let body = "0123456789".repeat(10);
    let req = |target: &str, field: &str| {
        let field = match field {
            "" => String::new(),
            f => format!("X-Canned-Control: fault={f}\r\n"),
        };
        format!("GET {target} HTTP/1.1\r\nHost: x\r\n{field}Connection: close\r\n\r\n")
    };
    let admin = |a, method: &str, path: &str, body: &str| {
        let r = format!(
            "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let r = parse_responses(&exchange(a, r.as_bytes()), &[false]);
        (
            r[0].status,
            String::from_utf8_lossy(&r[0].body).into_owned(),
        )
    };
    for value in [
        "latency:20ms",
        "latency:5ms..10ms",
        "truncate:20",
        "truncate:50%",
        "truncate:10@100%",
        "stall@0",
        "reset:0",
        "drip:16/1ms",
        "drip:3pieces/10ms",
        "bandwidth:1MiB/s",
        "slow-close:10ms",
        "hang:20ms",
        "hang:20ms:reset",
        "garbage:64",
        "error:503",
        "error:429:slow down",
        "error:1:503:busy",
    ] {
        let fault = format!("*={value}");
        let (h, addr) = start(&[
            "--control",
            // A controlled answer serves no ranges, and a route does only with a 200.
            "--status",
            "203",
            "--admin",
            "127.0.0.1:0",
            "--body",
            &body,
            "--fault",
            &fault,
        ]);
        let a = h.admin_addr().unwrap();
        let by_flag = exchange(addr, req("/x", "").as_bytes());
        let query = value.replace('%', "%25").replace(' ', "%20");
        let by_query = exchange(addr, req(&format!("/x?fault={query}"), "").as_bytes());
        let by_field = exchange(addr, req("/x", value).as_bytes());
        let listed = admin(a, "GET", "/faults/*", "");
        assert_eq!(admin(a, "DELETE", "/faults/*", "").0, 200, "{value}");
        let put = admin(a, "PUT", "/faults/*", value);
        assert_eq!(put.0, 200, "{value}: {}", put.1);
        let by_admin = exchange(addr, req("/x", "").as_bytes());
        // Garbage is random bytes: drawn from one block for a control, from the route's own
        // for `--fault`, so its length is what they share.
        let text = |b: &[u8]| match value.starts_with("garbage:") {
            true => format!("{} bytes", b.len()),
            false => String::from_utf8_lossy(b).into_owned(),
        };
        assert_eq!(text(&by_query), text(&by_flag), "{value}: the query");
        assert_eq!(text(&by_field), text(&by_flag), "{value}: the field");
        assert_eq!(text(&by_admin), text(&by_flag), "{value}: the admin API");
        assert_eq!(admin(a, "GET", "/faults/*", ""), listed, "{value}");
        h.shutdown();
    }
}

/// A control's latency and error are named in the access log over HTTP/2 as over HTTP/1.1,
/// without a delivery fault as with one: one plan names them for both.
#[cfg(feature = "http2")]
#[test]
fn a_controls_faults_are_logged_over_http2_as_over_http1() {
    if !have("curl") {
        return;
    }
    let mut p = Proc::start(&["--workers", "1", "--control", "--access-log", "--no-date"]);
    let stdout = p.child.stdout.take().unwrap();
    let targets = [
        "/?fault=latency:1ms&status=201",
        "/?fault=error:503",
        "/?fault=error:503&fault=drip:1K/1ms",
    ];
    for flag in ["--http1.1", "--http2-prior-knowledge"] {
        for target in targets {
            let got = curl(&p.url(target), &[flag]);
            assert!(got.starts_with("201 ") || got.starts_with("503 "), "{got}");
        }
    }
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut log = String::new();
    std::io::Read::read_to_string(&mut { stdout }, &mut log).unwrap();
    let mut want = Vec::new();
    for version in ["HTTP/1.1", "HTTP/2.0"] {
        want.extend([
            format!("GET {} {version} 201 fault=latency", targets[0]),
            format!("GET {} {version} 503 fault=error", targets[1]),
            format!("GET {} {version} 503 fault=error fault=drip", targets[2]),
        ]);
    }
    assert_eq!(log_words(&log), want, "{log}");
}
