//! `--control`: a request chooses its status, delay, body size and delivery fault by query
//! parameters or by `X-Canned-Control`, read by curl, Python's http.client and raw sockets,
//! with one and two workers; bad values get 400 with one line; without the option nothing
//! changes.

mod common;
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
            "/?bytes=1T",
            "control: bytes must be a size like 512, 64K or 1MiB\n",
        ),
        (
            "/?fault=drip:1KiB/100ms",
            "control: fault drip, garbage and error are not available per request\n",
        ),
    ] {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, req.as_bytes()), &[false]);
        assert_eq!(r[0].status, 400, "{target}");
        assert_eq!(String::from_utf8_lossy(&r[0].body), first, "{target}");
    }
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
    let mut s = connect(p.addr);
    s.write_all(b"GET /?fault=stall HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let stats = String::from_utf8_lossy(&get("/stats")).into_owned();
    let want = "\"faults\":{\"latency\":1,\"drip\":0,\"stall\":1,\"truncate\":1,\"reset\":0,\"garbage\":0,\"error\":0,\"hang\":0,\"slow-close\":0,\"bandwidth\":0,\"status\":0}";
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
        "GET /?fault=stall HTTP/1.1 000 fault=stall",
        "GET /stats HTTP/1.1 200",
    ];
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), want.len(), "{log}");
    for (line, want) in lines.iter().zip(want) {
        assert!(line.ends_with(want), "{want} in {log}");
    }
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
