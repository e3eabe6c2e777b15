//! Test-endpoint features: --delay, --access-log, --stats, --metrics, --raw-response.

use crate::common;
use common::*;
#[cfg(feature = "access-log")]
use std::io::BufRead;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

#[test]
fn delay_holds_responses_without_blocking_the_worker() {
    // A delay long enough that "both at once" (1 s) and "one after the other" (2 s) stay
    // apart on a loaded machine: the upper bound leaves 900 ms for scheduling.
    let (_h, addr) = start(&["--delay", "1s", "--workers", "1"]);
    let t = Instant::now();
    // Two clients at once on one worker: both answered after ~1 s, not 2.
    let mut a = connect(addr);
    let mut b = connect(addr);
    a.write_all(&GET.repeat(3)).unwrap();
    b.write_all(GET).unwrap();
    assert_eq!(read_responses(&mut a, 3).len(), 3);
    assert_eq!(read_responses(&mut b, 1).len(), 1);
    let took = t.elapsed();
    assert!(
        took >= Duration::from_secs(1) && took < time_bound(Duration::from_millis(1900)),
        "{took:?}"
    );
    // Keep-alive: the next request is held again.
    let t = Instant::now();
    a.write_all(GET).unwrap();
    read_responses(&mut a, 1);
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
}

#[cfg(feature = "access-log")]
#[test]
fn access_log_has_one_line_per_request_but_not_for_health() {
    let mut p = Proc::start(&["--workers", "1", "--access-log", "--health", "/healthz"]);
    let mut s = connect(p.addr);
    s.write_all(b"GET /a?x=1 HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\nHEAD /b HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    let mut out = std::io::BufReader::new(p.child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        lines.push(l);
    }
    let (a, b) = (log_line(&lines[0]), log_line(&lines[1]));
    assert_eq!(a.words, "GET /a?x=1 HTTP/1.1 200", "{:?}", lines[0]);
    assert!(
        lines[0].starts_with('[') && lines[0].contains(" GMT] "),
        "{:?}",
        lines[0]
    );
    assert_eq!(b.words, "HEAD /b HTTP/1.1 200", "{:?}", lines[1]);
    let me = s.local_addr().unwrap().to_string();
    assert_eq!((&a.client, &b.client), (&me, &me));
    // The HEAD's answer is its head alone: the GET's less its 12-byte body.
    assert_eq!(a.bytes, b.bytes + "Hello World\n".len() as u64, "{lines:?}");
    drop(s);
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "a line for the health path");
}

#[cfg(feature = "access-log")]
#[test]
fn access_log_has_each_answered_request_once_whichever_path_answered_it() {
    // A large body is written over several turns; with --delay, the requests after the
    // first are answered when the held response is released and written, not when read.
    let path = std::env::temp_dir().join(format!("canned-log-body-{}", std::process::id()));
    std::fs::write(&path, vec![b'x'; 300_000]).unwrap();
    for workers in ["1", "2"] {
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--access-log",
            "--delay",
            "50ms",
            "--body-file",
            path.to_str().unwrap(),
        ]);
        let mut s = connect(p.addr);
        let mut req = Vec::new();
        for i in 0..4 {
            req.extend_from_slice(format!("GET /{i} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        }
        s.write_all(&req).unwrap();
        assert_eq!(read_responses(&mut s, 4).len(), 4);
        drop(s);
        let mut out = p.child.stdout.take().unwrap();
        let (code, _) = p.stop();
        assert_eq!(code, 0);
        let mut log = String::new();
        out.read_to_string(&mut log).unwrap();
        let lines: Vec<LogLine> = log.lines().map(log_line).collect();
        let targets: Vec<&str> = lines
            .iter()
            .map(|l| l.words.split(' ').nth(1).unwrap())
            .collect();
        assert_eq!(
            targets,
            ["/0", "/1", "/2", "/3"],
            "{workers} workers: {log}"
        );
        // Each line counts its whole answer, the body streamed after the line was opened;
        // the first's time runs to the end of its hold.
        assert!(lines.iter().all(|l| l.bytes > 300_000), "{log}");
        assert!(lines[0].us >= 50_000, "{log}");
    }
    std::fs::remove_file(&path).unwrap();
}

#[cfg(feature = "stats")]
#[test]
fn stats_route_reports_counters_summed_over_workers() {
    let (_h, addr) = start(&["--stats", "/_stats", "--workers", "2", "--route", "/nf=404"]);
    for _ in 0..10 {
        exchange(addr, b"GET / HTTP/1.0\r\n\r\n");
    }
    exchange(addr, b"GET /nf HTTP/1.0\r\n\r\n");
    exchange(addr, b"GET / HTTP/1.1\r\n\r\n");
    std::thread::sleep(Duration::from_millis(400));
    let r = parse_responses(&exchange(addr, b"GET /_stats HTTP/1.0\r\n\r\n"), &[]);
    assert_eq!(r[0].header("content-type"), Some("application/json"));
    let body = String::from_utf8(r[0].body.clone()).unwrap();
    // This connection is counted; its request is not yet (refreshed every 100 ms).
    for want in [
        "\"requests\":11,",
        "\"connections_total\":13,",
        "\"connections_open\":1,",
        "\"200\":10",
        "\"404\":1",
        "\"400\":1",
        "\"missing_host\":1",
    ] {
        assert!(body.contains(want), "{want} not in {body}");
    }
}

#[test]
fn raw_response_is_sent_verbatim() {
    let file = std::env::temp_dir().join(format!("canned-raw-{}", std::process::id()));
    let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Bad:\x01\r\n\r\nhello";
    std::fs::write(&file, raw).unwrap();
    let path = file.to_str().unwrap().to_string();
    let (_h, addr) = start(&["--raw-response", &path]);
    let mut s = connect(addr);
    s.write_all(&GET.repeat(2)).unwrap();
    let mut buf = vec![0u8; raw.len() * 2];
    s.read_exact(&mut buf).unwrap();
    assert_eq!(buf, [&raw[..], &raw[..]].concat());
    let (_h2, addr2) = start(&["--raw-response", &path, "--raw-close"]);
    let out = exchange(addr2, &GET.repeat(2));
    assert_eq!(out, raw);
    std::fs::remove_file(&file).unwrap();
}

/// `--metrics PATH` answers the counters summed over workers in the Prometheus text format,
/// next to `--stats`; promtool, when installed (always in CI), accepts the real output.
#[cfg(feature = "stats")]
#[test]
fn metrics_route_answers_prometheus_text() {
    let (_h, addr) = start(&[
        "--metrics",
        "/metrics",
        "--stats",
        "/_stats",
        "--workers",
        "2",
        "--route",
        "/nf=404",
    ]);
    for _ in 0..3 {
        exchange(addr, b"GET / HTTP/1.0\r\n\r\n");
    }
    exchange(addr, b"GET /nf HTTP/1.0\r\n\r\n");
    // The bodies are refreshed every 100 ms: ask until the counters show, within 10 s.
    let deadline = Instant::now() + Duration::from_secs(10);
    let (r, text) = loop {
        let r = parse_responses(&exchange(addr, b"GET /metrics HTTP/1.0\r\n\r\n"), &[]).remove(0);
        let text = String::from_utf8(r.body.clone()).unwrap();
        if text.contains("\ncanned_responses_total{status=\"404\"} 1\n") {
            break (r, text);
        }
        assert!(Instant::now() < deadline, "{text}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some(canned::stats::prometheus::CONTENT_TYPE)
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let requests: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("canned_requests_total "))
        .unwrap_or_else(|| panic!("no canned_requests_total in {text}"))
        .parse()
        .unwrap();
    assert!(requests >= 4, "{text}");
    let stats = parse_responses(&exchange(addr, b"GET /_stats HTTP/1.0\r\n\r\n"), &[]).remove(0);
    assert_eq!(stats.header("content-type"), Some("application/json"));
    if have("promtool") {
        let mut promtool = std::process::Command::new("promtool")
            .args(["check", "metrics"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        promtool.stdin.take().unwrap().write_all(&r.body).unwrap();
        let out = promtool.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "promtool check metrics: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `--server ''` and `--content-type ''` leave their fields out (docs/options.md), routes
/// included; the defaults are there otherwise.
#[test]
fn empty_server_and_content_type_are_left_out() {
    // (flags, expected head of `/` and of the route `/r`)
    let cases: [(&[&str], &str); 3] = [
        (
            &[],
            "HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ",
        ),
        (
            &["--server", ""],
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ",
        ),
        (
            &["--server", "", "--content-type", ""],
            "HTTP/1.1 200 OK\r\nContent-Length: ",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["--workers", "1", "--route", "/r=200:route"];
        args.extend_from_slice(flags);
        let (_h, addr) = start(&args);
        for path in ["/", "/r"] {
            let req = format!("GET {path} HTTP/1.0\r\n\r\n");
            let got = String::from_utf8(exchange(addr, req.as_bytes())).unwrap();
            assert!(got.starts_with(want), "{flags:?} {path}: {got:?}");
        }
    }
}

/// A 204 or 304 route carries no `Content-Type`, whatever `--content-type` says, and neither
/// `Content-Length` nor a body; docs/responses.md says so (it used to list
/// `Content-Type` among the headers of every response).
#[test]
fn no_content_and_not_modified_carry_no_content_type() {
    let (_h, addr) = start(&[
        "--workers",
        "1",
        "--content-type",
        "application/json",
        "--route",
        "/nc=204",
        "--route",
        "/nm=304",
    ]);
    for (path, line) in [("/nc", "204 No Content"), ("/nm", "304 Not Modified")] {
        let req = format!("GET {path} HTTP/1.0\r\n\r\n");
        let got = String::from_utf8(exchange(addr, req.as_bytes())).unwrap();
        assert_eq!(
            got,
            format!("HTTP/1.1 {line}\r\nServer: canned\r\nConnection: close\r\n\r\n")
        );
    }
    let got = String::from_utf8(exchange(addr, b"GET / HTTP/1.0\r\n\r\n")).unwrap();
    assert!(
        got.contains("\r\nContent-Type: application/json\r\n"),
        "{got}"
    );
    let page = include_str!("../../docs/responses.md");
    let claim = "`Content-Type` and `Content-Length` (neither for 204 and 304, whatever\n\
                 `--content-type` says)";
    assert!(
        page.contains(claim),
        "docs/responses.md should say: {claim}"
    );
}
