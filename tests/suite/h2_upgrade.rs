//! `Upgrade: h2c` from HTTP/1.1 (RFC 7540 §3.2), and what applies per HTTP/2 stream with its
//! HTTP/1 meaning: `--access-log` (one line a stream), `--max-body-bytes` (413, then
//! RST_STREAM NO_ERROR), `--stats` counts. Raw bytes and curl, with 1 and 2 workers.
#![cfg(all(feature = "access-log", feature = "http2", feature = "stats"))]

use crate::common;

use canned::frame::{Header, PREFACE, flag, kind, setting};
use common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

/// Read into `got` until the frames after its first `skip` bytes satisfy `done`.
fn read_until(
    s: &mut TcpStream,
    got: &mut Vec<u8>,
    skip: usize,
    done: impl Fn(&[(Header, Vec<u8>)]) -> bool,
) -> Vec<(Header, Vec<u8>)> {
    let mut buf = [0u8; 65536];
    loop {
        if got.len() >= skip {
            let fs = split(&got[skip..]);
            if done(&fs) {
                return fs;
            }
        }
        let n = s.read_some(&mut buf).expect("frames before the timeout");
        assert!(n > 0, "closed early: {:?}", String::from_utf8_lossy(got));
        got.extend_from_slice(&buf[..n]);
    }
}

const SWITCHING: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

/// base64url without padding.
fn base64url(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

fn upgrade_request(path: &str, settings: &[u8], extra: &str) -> Vec<u8> {
    format!(
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
         Upgrade: h2c\r\nHTTP2-Settings: {}\r\n{extra}\r\n",
        base64url(settings)
    )
    .into_bytes()
}

/// The request, the preface and SETTINGS in one write: 101, canned's SETTINGS, the ACK of
/// the client's SETTINGS frame alone (the HTTP2-Settings need none), then stream 1's answer
/// within the window HTTP2-Settings gave (INITIAL_WINDOW_SIZE 2), the rest after a
/// WINDOW_UPDATE; then a second request, stream 3, on the same connection.
#[test]
fn upgrade_answers_101_then_stream_1_within_the_settings_given() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--route", "/a=200:hello"]);
        let mut s = connect(addr);
        let mut settings = setting::INITIAL_WINDOW_SIZE.to_be_bytes().to_vec();
        settings.extend(2u32.to_be_bytes());
        let mut req = upgrade_request("/a", &settings, "");
        req.extend_from_slice(PREFACE);
        req.extend(frame(kind::SETTINGS, 0, 0, &[]));
        s.write_all(&req).unwrap();
        let mut got = Vec::new();
        let fs = read_until(&mut s, &mut got, SWITCHING.len(), |fs| {
            fs.iter()
                .any(|(h, _)| h.kind == kind::DATA && h.stream == 1)
        });
        assert!(
            got.starts_with(SWITCHING),
            "{:?}",
            String::from_utf8_lossy(&got)
        );
        assert_eq!(fs[0].0.kind, kind::SETTINGS, "{fs:?}");
        assert_eq!(fs[0].0.flags & flag::ACK, 0);
        let acks = |fs: &[(Header, Vec<u8>)]| {
            fs.iter()
                .filter(|(h, _)| h.kind == kind::SETTINGS && h.flags & flag::ACK != 0)
                .count()
        };
        let headers = fs
            .iter()
            .find(|(h, _)| h.kind == kind::HEADERS && h.stream == 1)
            .expect("stream 1's HEADERS");
        assert_eq!(headers.0.flags & flag::END_STREAM, 0);
        let data: Vec<_> = fs.iter().filter(|(h, _)| h.kind == kind::DATA).collect();
        assert_eq!(data.len(), 1, "{fs:?}");
        assert_eq!(data[0].1, b"he", "the window of 2 from HTTP2-Settings");
        // Nothing more until the window grows.
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut buf = [0u8; 1024];
        assert!(s.read_some(&mut buf).is_err(), "DATA beyond the window");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(&frame(kind::WINDOW_UPDATE, 0, 1, &100u32.to_be_bytes()))
            .unwrap();
        // GET / on stream 3.
        s.write_all(&frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            3,
            &[0x82, 0x86, 0x84],
        ))
        .unwrap();
        // Its window too is the 2 bytes of HTTP2-Settings.
        s.write_all(&frame(kind::WINDOW_UPDATE, 0, 3, &100u32.to_be_bytes()))
            .unwrap();
        let fs = read_until(&mut s, &mut got, SWITCHING.len(), |fs| {
            let ended = |id| {
                fs.iter().any(|(h, _)| {
                    h.kind == kind::DATA && h.stream == id && h.flags & flag::END_STREAM != 0
                })
            };
            ended(1) && ended(3)
        });
        let body = |id| -> Vec<u8> {
            fs.iter()
                .filter(|(h, _)| h.kind == kind::DATA && h.stream == id)
                .flat_map(|(_, p)| p.clone())
                .collect()
        };
        assert_eq!(body(1), b"hello");
        assert_eq!(body(3), b"Hello World\n");
        assert_eq!(
            acks(&fs),
            1,
            "one SETTINGS ACK, for the SETTINGS frame: {fs:?}"
        );
        drop(s);
        stop(h);
    }
}

/// What is not an upgrade is HTTP/1.1 as before: a body, `--no-http2`, HTTP2-Settings
/// missing, twice or not base64url, `Connection` without `upgrade`, HTTP/1.0.
#[test]
fn upgrade_ignored_when_not_asked_for_whole_or_off() {
    let settings = base64url(&[0, 3, 0, 0, 0, 100]);
    let cases: Vec<(&str, String)> = vec![
        (
            "a body",
            format!(
                "POST / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\n\
                 Upgrade: h2c\r\nHTTP2-Settings: {settings}\r\nContent-Length: 3\r\n\r\nabc"
            ),
        ),
        (
            "no HTTP2-Settings",
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: h2c\r\n\r\n"
                .into(),
        ),
        (
            "HTTP2-Settings twice",
            format!(
                "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\n\
                 Upgrade: h2c\r\nHTTP2-Settings: {settings}\r\nHTTP2-Settings: {settings}\r\n\r\n"
            ),
        ),
        (
            "not base64url",
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\n\
             Upgrade: h2c\r\nHTTP2-Settings: AAM+AABk\r\n\r\n"
                .into(),
        ),
        (
            "Connection without upgrade",
            format!(
                "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nUpgrade: h2c\r\n\
                 HTTP2-Settings: {settings}\r\n\r\n"
            ),
        ),
        (
            "HTTP/1.0",
            format!(
                "GET / HTTP/1.0\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n\
                 HTTP2-Settings: {settings}\r\n\r\n"
            ),
        ),
        (
            "another protocol",
            format!(
                "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\n\
                 Upgrade: websocket\r\nHTTP2-Settings: {settings}\r\n\r\n"
            ),
        ),
    ];
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        for (what, req) in &cases {
            let got = exchange(addr, req.as_bytes());
            let text = String::from_utf8_lossy(&got);
            assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{what}: {text}");
            assert!(text.ends_with("Hello World\n"), "{what}: {text}");
        }
        stop(h);
        let (h, addr) = start(&["--workers", workers, "--no-http2"]);
        let req = upgrade_request("/", &[0, 3, 0, 0, 0, 100], "Connection: close\r\n");
        let text = String::from_utf8_lossy(&exchange(addr, &req)).into_owned();
        assert!(
            text.starts_with("HTTP/1.1 200 OK\r\n"),
            "--no-http2: {text}"
        );
        stop(h);
    }
}

/// Bad values in HTTP2-Settings are the connection's error after the 101, as in a SETTINGS
/// frame (§6.5.2): GOAWAY PROTOCOL_ERROR for a MAX_FRAME_SIZE below 16,384.
#[test]
fn upgrade_with_bad_settings_ends_in_goaway() {
    let (h, addr) = start(&[]);
    let mut s = connect(addr);
    let mut settings = setting::MAX_FRAME_SIZE.to_be_bytes().to_vec();
    settings.extend(100u32.to_be_bytes());
    s.write_all(&upgrade_request("/", &settings, "")).unwrap();
    let got = read_to_eof(&mut s);
    assert!(got.starts_with(SWITCHING));
    let fs = split(&got[SWITCHING.len()..]);
    let goaway = fs
        .iter()
        .find(|(h, _)| h.kind == kind::GOAWAY)
        .expect("GOAWAY");
    assert_eq!(goaway.1[4..8], 1u32.to_be_bytes(), "PROTOCOL_ERROR");
    stop(h);
}

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "curl {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The number after `"key":` in the `--stats` JSON.
fn stat(json: &str, key: &str) -> u64 {
    let at = json
        .find(&format!("\"{key}\":"))
        .map_or(json.len(), |i| i + key.len() + 3);
    json[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0)
}

/// Wait until the `--stats` JSON at `url` satisfies `done` (its counters are published every
/// 100 ms; each poll is a request of its own).
fn stats_until(url: &str, done: impl Fn(&str) -> bool) -> String {
    let until = Instant::now() + time_bound(Duration::from_secs(10));
    loop {
        let s = curl(&[url]);
        if done(&s) {
            return s;
        }
        assert!(Instant::now() < until, "never reached: {s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Per stream with HTTP/1's meaning: an access-log line a stream (`HTTP/2.0`, the upgraded
/// request's too, the health path's not), `--max-body-bytes` 413 then RST_STREAM NO_ERROR,
/// and `--stats` counting each stream's request and status.
#[test]
fn access_log_max_body_and_stats_per_stream() {
    if !have("curl") {
        return;
    }
    let big = std::env::temp_dir().join(format!("canned-h2-upgrade-{}", std::process::id()));
    std::fs::write(&big, vec![b'x'; 5000]).unwrap();
    let big_arg = format!("@{}", big.display());
    for workers in ["1", "2"] {
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--access-log",
            "--no-date",
            "--max-body-bytes",
            "1000",
            "--stats",
            "/s",
            "--health",
            "/healthz",
        ]);
        let mut stdout = p.child.stdout.take().unwrap();
        let fmt = "%{http_code} %{http_version}\n";
        let up = |path: &str| curl(&["--http2", "-o", "/dev/null", "-w", fmt, &p.url(path)]);
        assert_eq!(up("/up"), "200 2\n");
        let pk = ["--http2-prior-knowledge", "-o", "/dev/null", "-w", fmt];
        let post = |path: &str, data: &str| {
            let mut a = pk.to_vec();
            a.extend(["--data-binary", data]);
            let url = p.url(path);
            a.push(&url);
            curl(&a)
        };
        assert_eq!(post("/big", &big_arg), "413 2\n");
        assert_eq!(post("/small", "abc"), "200 2\n");
        let mut a = pk.to_vec();
        let health = p.url("/healthz");
        a.push(&health);
        assert_eq!(curl(&a), "200 2\n");
        if have("nghttp") {
            // 413 before the body ends, then RST_STREAM NO_ERROR.
            let out = Command::new("nghttp")
                .args(["-nv", "-t", "20", "-d"])
                .arg(&big)
                .arg(p.url("/n"))
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains(":status: 413"), "{text}");
            assert!(text.contains("recv RST_STREAM"), "{text}");
            assert!(text.contains("error_code=NO_ERROR"), "{text}");
        }
        // Five streams (four without nghttp), and the polls of /s as they come.
        let (streams, too_large) = if have("nghttp") { (5, 2) } else { (4, 1) };
        let stats = stats_until(&p.url("/s"), |s| stat(s, "413") == too_large);
        assert!(stat(&stats, "requests") >= streams, "{stats}");
        assert!(stat(&stats, "200") >= streams - too_large, "{stats}");
        let (code, _) = p.stop();
        assert_eq!(code, 0);
        let mut log = String::new();
        stdout.read_to_string(&mut log).unwrap();
        let lines: Vec<String> = log
            .lines()
            .filter(|l| !l.contains(" /s "))
            .map(|l| log_line(l).words)
            .collect();
        let mut want = vec![
            "GET /up HTTP/2.0 200",
            "POST /big HTTP/2.0 413 rule=body_too_large",
            "POST /small HTTP/2.0 200",
        ];
        if have("nghttp") {
            want.push("POST /n HTTP/2.0 413 rule=body_too_large");
        }
        assert_eq!(lines, want, "{log}");
    }
    let _ = std::fs::remove_file(&big);
}

fn stop(h: canned::server::Handle) {
    h.shutdown();
    h.join();
}

/// A stream reset before its END_STREAM and a malformed one write no access-log line; both
/// count as requests without a response in `--stats`; the stream after them is logged.
#[test]
fn reset_and_malformed_streams_are_not_logged() {
    if !have("curl") {
        return;
    }
    let mut p = Proc::start(&[
        "--workers",
        "1",
        "--access-log",
        "--no-date",
        "--stats",
        "/s",
    ]);
    let mut stdout = p.child.stdout.take().unwrap();
    let mut s = connect(p.addr);
    let get_root = [0x82, 0x86, 0x84];
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &[]));
    b.extend(frame(kind::HEADERS, flag::END_HEADERS, 1, &get_root));
    b.extend(frame(kind::RST_STREAM, 0, 1, &8u32.to_be_bytes()));
    // An uppercase field name (§8.2.1): RST_STREAM PROTOCOL_ERROR.
    let mut malformed = get_root.to_vec();
    malformed.extend([0x00, 0x01, b'A', 0x01, b'b']);
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        3,
        &malformed,
    ));
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        5,
        &get_root,
    ));
    s.write_all(&b).unwrap();
    let mut got = Vec::new();
    let fs = read_until(&mut s, &mut got, 0, |fs| {
        fs.iter()
            .any(|(h, _)| h.kind == kind::DATA && h.stream == 5 && h.flags & flag::END_STREAM != 0)
    });
    assert!(
        fs.iter()
            .any(|(h, p)| h.kind == kind::RST_STREAM && h.stream == 3 && p[..] == [0, 0, 0, 1]),
        "{fs:?}"
    );
    stats_until(&p.url("/s"), |j| {
        let answered: u64 = ["200", "404"].iter().map(|k| stat(j, k)).sum();
        stat(j, "requests") == answered + 2
    });
    drop(s);
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut log = String::new();
    stdout.read_to_string(&mut log).unwrap();
    let lines: Vec<String> = log
        .lines()
        .filter(|l| !l.contains(" /s "))
        .map(|l| log_line(l).words)
        .collect();
    assert_eq!(lines, ["GET / HTTP/2.0 200"], "{log}");
}
