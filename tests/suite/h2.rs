//! HTTP/2 over cleartext with prior knowledge, on the same listeners as HTTP/1: real clients
//! (curl, nghttp, h2load) and raw frames for the protocol's rules, with 1 and 2 workers.
#![cfg(feature = "http2")]

use crate::common;

use canned::frame::{ErrorCode, Header, PREFACE, flag, kind};
use common::*;
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

/// GET / (the static table's :method GET, :scheme http, :path /).
const GET_ROOT: &[u8] = &[0x82, 0x86, 0x84];

/// The preface and an empty SETTINGS frame.
fn hello() -> Vec<u8> {
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &[]));
    b
}

/// Every frame until the server closes: (header, payload).
fn frames_until_close(s: &mut TcpStream) -> Vec<(Header, Vec<u8>)> {
    split(&read_to_eof(s))
}

/// Read frames until one satisfies `done`.
fn frames_until(
    s: &mut TcpStream,
    done: impl Fn(&Header, &[u8]) -> bool,
) -> Vec<(Header, Vec<u8>)> {
    frames_until_all(s, |fs| fs.iter().any(|(h, p)| done(h, p)))
}

/// Read frames until those read so far satisfy `done`.
fn frames_until_all(
    s: &mut TcpStream,
    done: impl Fn(&[(Header, Vec<u8>)]) -> bool,
) -> Vec<(Header, Vec<u8>)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let fs = split(&got);
        if done(&fs) {
            return fs;
        }
        let n = s.read_some(&mut buf).expect("frames before the timeout");
        assert!(n > 0, "closed before the frame came: {fs:?}");
        got.extend_from_slice(&buf[..n]);
    }
}

fn goaway_code(fs: &[(Header, Vec<u8>)]) -> Option<(u32, u32)> {
    fs.iter()
        .find(|(h, _)| h.kind == kind::GOAWAY)
        .map(|(_, p)| {
            (
                u32::from_be_bytes(p[..4].try_into().unwrap()),
                u32::from_be_bytes(p[4..8].try_into().unwrap()),
            )
        })
}

fn raw(addr: SocketAddr, bytes: &[u8]) -> Vec<(Header, Vec<u8>)> {
    let mut s = connect(addr);
    s.write_all(bytes).unwrap();
    frames_until_close(&mut s)
}

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20", "--http2-prior-knowledge"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "curl {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn curl_prior_knowledge_get_head_route_404_post() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            "/a=200:hello",
            "--route",
            "/gone=404:nope",
            "--health",
            "/healthz",
        ]);
        let url = |p: &str| format!("http://{addr}{p}");
        let fmt = "%{http_code} %{http_version} %{size_download}\n";
        assert_eq!(
            curl(&["-w", fmt, "-o", "/dev/null", &url("/a")]),
            "200 2 5\n"
        );
        assert_eq!(curl(&[&url("/a")]), "hello");
        assert_eq!(curl(&[&url("/?q=1")]), "Hello World\n");
        assert_eq!(
            curl(&["-w", fmt, "-o", "/dev/null", &url("/gone")]),
            "404 2 4\n"
        );
        assert_eq!(
            curl(&["-w", fmt, "-o", "/dev/null", &url("/healthz")]),
            "200 2 2\n"
        );
        let head = curl(&["-I", &url("/a")]);
        assert!(head.starts_with("HTTP/2 200"), "{head}");
        assert!(head.contains("content-length: 5"), "{head}");
        let post = curl(&[
            "-w",
            fmt,
            "-o",
            "/dev/null",
            "--data-binary",
            "@Cargo.toml",
            &url("/a"),
        ]);
        assert_eq!(post, "200 2 5\n");
        // HTTP/1 on the same listener is unchanged.
        let r = exchange(
            addr,
            b"GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        );
        assert!(r.starts_with(b"HTTP/1.1 200 OK\r\n") && r.ends_with(b"hello"));
        h.shutdown();
        h.join();
    }
}

/// A body larger than the windows (3 MB against 64 KiB) waits for WINDOW_UPDATE and resumes:
/// the client gets every byte.
#[test]
fn a_large_body_file_needs_window_updates() {
    if !have("curl") {
        return;
    }
    let path = std::env::temp_dir().join(format!("canned-h2-big-{}", std::process::id()));
    let body: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&path, &body).unwrap();
    let out = std::env::temp_dir().join(format!("canned-h2-big-{}.out", std::process::id()));
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--body-file", path.to_str().unwrap()]);
        curl(&["-o", out.to_str().unwrap(), &format!("http://{addr}/")]);
        assert!(std::fs::read(&out).unwrap() == body, "the body, whole");
        h.shutdown();
        h.join();
    }
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn nghttp_and_h2load() {
    let (h, addr) = start(&["--route", "/a=200:hello"]);
    if have("nghttp") {
        let out = Command::new("timeout")
            .args(["20", "nghttp", "-nv", &format!("http://{addr}/a")])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains("[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):100]"),
            "{text}"
        );
        assert!(
            text.contains("recv SETTINGS frame <length=0, flags=0x01"),
            "{text}"
        );
        assert!(text.contains(":status: 200"), "{text}");
        assert!(
            text.contains("recv DATA frame <length=5, flags=0x01"),
            "{text}"
        );
    }
    if have("h2load") {
        let t = Instant::now();
        let out = Command::new("timeout")
            .args([
                "60",
                "h2load",
                "-n",
                "2000",
                "-c",
                "4",
                "-m",
                "10",
                &format!("http://{addr}/a"),
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains("2000 succeeded, 0 failed, 0 errored"),
            "{text}"
        );
        assert!(text.contains("status codes: 2000 2xx"), "{text}");
        assert!(t.elapsed() < time_bound(Duration::from_secs(30)));
    }
    h.shutdown();
    h.join();
}

/// SETTINGS first, ACKed; PING answered with the same data; a response on stream 1.
#[test]
fn settings_ack_ping_and_a_response_from_raw_frames() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        let mut s = connect(addr);
        let mut b = hello();
        b.extend(frame(kind::PING, 0, 0, b"canned!!"));
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            1,
            GET_ROOT,
        ));
        s.write_all(&b).unwrap();
        let fs = frames_until(&mut s, |h, _| {
            h.kind == kind::DATA && h.has(flag::END_STREAM)
        });
        assert_eq!(fs[0].0.kind, kind::SETTINGS, "the server's SETTINGS first");
        assert!(!fs[0].0.has(flag::ACK));
        assert!(
            fs.iter()
                .any(|(h, p)| h.kind == kind::SETTINGS && h.has(flag::ACK) && p.is_empty())
        );
        assert!(
            fs.iter()
                .any(|(h, p)| h.kind == kind::PING && h.has(flag::ACK) && p == b"canned!!")
        );
        let data: Vec<u8> = fs
            .iter()
            .filter(|(h, _)| h.kind == kind::DATA && h.stream == 1)
            .flat_map(|(_, p)| p.clone())
            .collect();
        assert_eq!(data, b"Hello World\n");
        drop(s);
        h.shutdown();
        h.join();
    }
}

/// Connection errors end in GOAWAY with the RFC 9113 code; stream errors in RST_STREAM.
#[test]
fn goaway_and_rst_stream_codes() {
    let (h, addr) = start(&[]);
    let code = |c: ErrorCode| c as u32;
    let with = |frames: &[Vec<u8>]| {
        let mut b = hello();
        for f in frames {
            b.extend_from_slice(f);
        }
        raw(addr, &b)
    };
    // Not the preface whole: HTTP/1, whose grammar answers version 2.0 with 505.
    let r = exchange(addr, b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n");
    assert!(
        r.starts_with(b"HTTP/1.1 505 "),
        "{}",
        String::from_utf8_lossy(&r)
    );
    // Its start, then something else: still HTTP/1 (§3.4), the answer of the same bytes in
    // one piece.
    let mut s = connect(addr);
    s.write_all(&PREFACE[..16]).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    s.write_all(b"XX\r\n\r\n").unwrap();
    let r = read_to_eof(&mut s);
    assert_eq!(
        r,
        exchange(addr, b"PRI * HTTP/2.0\r\nXX\r\n\r\n"),
        "{}",
        String::from_utf8_lossy(&r)
    );
    assert!(r.starts_with(b"HTTP/1.1 "));
    // Not SETTINGS first (§3.4).
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::PING, 0, 0, &[0; 8]));
    assert_eq!(
        goaway_code(&raw(addr, &b)),
        Some((0, code(ErrorCode::ProtocolError)))
    );
    let cases: &[(&str, Vec<u8>, ErrorCode)] = &[
        (
            "DATA on stream 0",
            frame(kind::DATA, 0, 0, b"x"),
            ErrorCode::ProtocolError,
        ),
        (
            "HEADERS on stream 0",
            frame(kind::HEADERS, flag::END_HEADERS, 0, GET_ROOT),
            ErrorCode::ProtocolError,
        ),
        (
            "PING on stream 1",
            frame(kind::PING, 0, 1, &[0; 8]),
            ErrorCode::ProtocolError,
        ),
        (
            "PING of 7 bytes",
            frame(kind::PING, 0, 0, &[0; 7]),
            ErrorCode::FrameSizeError,
        ),
        (
            "SETTINGS of 5 bytes",
            frame(kind::SETTINGS, 0, 0, &[0; 5]),
            ErrorCode::FrameSizeError,
        ),
        (
            "ENABLE_PUSH 2",
            frame(kind::SETTINGS, 0, 0, &[0, 2, 0, 0, 0, 2]),
            ErrorCode::ProtocolError,
        ),
        (
            "PUSH_PROMISE",
            frame(kind::PUSH_PROMISE, flag::END_HEADERS, 1, &[0, 0, 0, 2]),
            ErrorCode::ProtocolError,
        ),
        (
            "WINDOW_UPDATE overflow",
            frame(kind::WINDOW_UPDATE, 0, 0, &[0x7f, 0xff, 0xff, 0xff]),
            ErrorCode::FlowControlError,
        ),
        (
            "DATA on an idle stream",
            frame(kind::DATA, 0, 3, b"x"),
            ErrorCode::ProtocolError,
        ),
        (
            "even stream",
            frame(kind::HEADERS, flag::END_HEADERS, 2, GET_ROOT),
            ErrorCode::ProtocolError,
        ),
        (
            "a bad HPACK index",
            frame(
                kind::HEADERS,
                flag::END_HEADERS | flag::END_STREAM,
                1,
                &[0xff, 0x7f],
            ),
            ErrorCode::CompressionError,
        ),
        (
            "a frame over MAX_FRAME_SIZE",
            frame(kind::DATA, 0, 1, &vec![0; 16_385]),
            ErrorCode::FrameSizeError,
        ),
    ];
    for (what, f, c) in cases {
        let fs = with(std::slice::from_ref(f));
        assert_eq!(
            goaway_code(&fs).map(|g| g.1),
            Some(code(*c)),
            "{what}: {fs:?}"
        );
    }
    // HEADERS interrupted by another frame before its CONTINUATION (§6.10).
    let fs = with(&[
        frame(kind::HEADERS, flag::END_STREAM, 1, &GET_ROOT[..1]),
        frame(kind::PING, 0, 0, &[0; 8]),
    ]);
    assert_eq!(goaway_code(&fs), Some((0, code(ErrorCode::ProtocolError))));
    // A malformed request (an uppercase name, §8.2.1) is a stream error; the connection goes on.
    let mut s = connect(addr);
    let mut b = hello();
    let mut bad = GET_ROOT.to_vec();
    bad.extend_from_slice(&[0x00, 0x01, b'X', 0x01, b'1']);
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &bad,
    ));
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        3,
        GET_ROOT,
    ));
    s.write_all(&b).unwrap();
    let fs = frames_until(&mut s, |h, _| {
        h.kind == kind::DATA && h.stream == 3 && h.has(flag::END_STREAM)
    });
    let rst = fs
        .iter()
        .find(|(h, _)| h.kind == kind::RST_STREAM)
        .expect("RST_STREAM");
    assert_eq!(
        (rst.0.stream, rst.1.as_slice()),
        (1, &code(ErrorCode::ProtocolError).to_be_bytes()[..])
    );
    // HEADERS, then CONTINUATION: one request.
    let mut b = Vec::new();
    b.extend(frame(kind::HEADERS, flag::END_STREAM, 5, &GET_ROOT[..2]));
    b.extend(frame(
        kind::CONTINUATION,
        flag::END_HEADERS,
        5,
        &GET_ROOT[2..],
    ));
    s.write_all(&b).unwrap();
    frames_until(&mut s, |h, _| {
        h.kind == kind::DATA && h.stream == 5 && h.has(flag::END_STREAM)
    });
    drop(s);
    h.shutdown();
    h.join();
}

/// More streams than SETTINGS_MAX_CONCURRENT_STREAMS (100) at once: the 101st is refused.
#[test]
fn max_concurrent_streams_is_enforced() {
    let (h, addr) = start(&["--workers", "1"]);
    let mut s = connect(addr);
    let mut b = hello();
    // Open streams without END_STREAM: each waits for its body.
    for i in 0..101u32 {
        b.extend(frame(kind::HEADERS, flag::END_HEADERS, 1 + 2 * i, GET_ROOT));
    }
    s.write_all(&b).unwrap();
    let fs = frames_until(&mut s, |h, _| h.kind == kind::RST_STREAM);
    let rst = fs.iter().find(|(h, _)| h.kind == kind::RST_STREAM).unwrap();
    assert_eq!(rst.0.stream, 201);
    assert_eq!(rst.1, (ErrorCode::RefusedStream as u32).to_be_bytes());
    drop(s);
    h.shutdown();
    h.join();
}

/// With `--no-http2`, the preface is an HTTP/1 request line of version 2.0: 505, as before.
#[test]
fn no_http2_answers_the_preface_505() {
    let (h, addr) = start(&["--no-http2"]);
    let r = exchange(addr, &hello());
    assert!(
        r.starts_with(b"HTTP/1.1 505 "),
        "{}",
        String::from_utf8_lossy(&r)
    );
    h.shutdown();
    h.join();
}

/// At a drain, a connection with a response in flight gets GOAWAY with its last stream, and
/// the response is finished before the close.
#[test]
fn drain_sends_goaway_with_the_last_stream_and_finishes_it() {
    let path = std::env::temp_dir().join(format!("canned-h2-drain-{}", std::process::id()));
    std::fs::write(&path, vec![b'x'; 200_000]).unwrap();
    let p = Proc::start(&["--workers", "1", "--body-file", path.to_str().unwrap()]);
    let mut s = connect(p.addr);
    let mut b = hello();
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        GET_ROOT,
    ));
    s.write_all(&b).unwrap();
    // The first 64 KiB window's worth arrives, then the stream waits for WINDOW_UPDATE.
    let data = |fs: &[(Header, Vec<u8>)]| -> usize {
        fs.iter()
            .filter(|(h, _)| h.kind == kind::DATA)
            .map(|(_, p)| p.len())
            .sum()
    };
    frames_until_all(&mut s, |fs| data(fs) == 65_535);
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(p.child.id() as i32, libc::SIGTERM) };
    std::thread::sleep(Duration::from_millis(100));
    let mut w = frame(kind::WINDOW_UPDATE, 0, 0, &1_000_000u32.to_be_bytes());
    w.extend(frame(
        kind::WINDOW_UPDATE,
        0,
        1,
        &1_000_000u32.to_be_bytes(),
    ));
    s.write_all(&w).unwrap();
    let fs = frames_until_close(&mut s);
    assert_eq!(data(&fs), 200_000 - 65_535, "the rest of the body");
    let kinds: Vec<_> = fs
        .iter()
        .map(|(h, p)| (h.kind, h.stream, p.len()))
        .collect();
    assert_eq!(
        goaway_code(&fs),
        Some((1, 0)),
        "GOAWAY, last stream 1, NO_ERROR: {kinds:?}"
    );
    assert!(
        fs.iter()
            .any(|(h, _)| h.kind == kind::DATA && h.stream == 1 && h.has(flag::END_STREAM)),
        "the response finished"
    );
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let _ = std::fs::remove_file(&path);
}

/// At a drain, an idle connection (its responses all written) is told GOAWAY NO_ERROR with
/// its last stream before the close, so that its client knows no request was lost; with 1
/// and 2 workers.
#[test]
fn drain_says_goaway_to_an_idle_connection() {
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers]);
        let mut conns = Vec::new();
        for _ in 0..4 {
            let mut s = connect(p.addr);
            let mut b = hello();
            b.extend(frame(
                kind::HEADERS,
                flag::END_HEADERS | flag::END_STREAM,
                1,
                GET_ROOT,
            ));
            s.write_all(&b).unwrap();
            let fs = frames_until(&mut s, |h, _| {
                h.kind == kind::DATA && h.has(flag::END_STREAM)
            });
            assert_eq!(goaway_code(&fs), None);
            conns.push(s);
        }
        std::thread::sleep(Duration::from_millis(100));
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(p.child.id() as i32, libc::SIGTERM) };
        for s in &mut conns {
            let fs = frames_until_close(s);
            assert_eq!(
                goaway_code(&fs),
                Some((1, 0)),
                "last stream 1, NO_ERROR: {fs:?}"
            );
        }
        let (code, _) = p.stop();
        assert_eq!(code, 0);
    }
}

/// At a drain, a busy connection whose stream waits for flow-control credit (nothing to read,
/// nothing it can write) gets GOAWAY NO_ERROR at once, not at `--shutdown-timeout`; its
/// stream is then finished once the client gives credit; with 1 and 2 workers.
#[test]
fn drain_says_goaway_at_once_to_a_stream_waiting_for_its_window() {
    let path = std::env::temp_dir().join(format!("canned-h2-drain-busy-{}", std::process::id()));
    std::fs::write(&path, vec![b'x'; 200_000]).unwrap();
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--shutdown-timeout",
            "20s",
            "--body-file",
            path.to_str().unwrap(),
        ]);
        let mut s = connect(p.addr);
        let mut b = hello();
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            1,
            GET_ROOT,
        ));
        s.write_all(&b).unwrap();
        let data = |fs: &[(Header, Vec<u8>)]| -> usize {
            fs.iter()
                .filter(|(h, _)| h.kind == kind::DATA)
                .map(|(_, p)| p.len())
                .sum()
        };
        frames_until_all(&mut s, |fs| data(fs) == 65_535);
        let t = Instant::now();
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(p.child.id() as i32, libc::SIGTERM) };
        let fs = frames_until(&mut s, |h, _| h.kind == kind::GOAWAY);
        assert!(
            t.elapsed() < time_bound(Duration::from_secs(5)),
            "GOAWAY after {:?}",
            t.elapsed()
        );
        assert_eq!(goaway_code(&fs), Some((1, 0)), "last stream 1, NO_ERROR");
        let mut w = frame(kind::WINDOW_UPDATE, 0, 0, &1_000_000u32.to_be_bytes());
        w.extend(frame(
            kind::WINDOW_UPDATE,
            0,
            1,
            &1_000_000u32.to_be_bytes(),
        ));
        s.write_all(&w).unwrap();
        let fs = frames_until_close(&mut s);
        assert_eq!(data(&fs), 200_000 - 65_535, "the rest of the body");
        assert!(
            fs.iter()
                .any(|(h, _)| h.kind == kind::DATA && h.has(flag::END_STREAM)),
            "the response finished"
        );
        let (code, _) = p.stop();
        assert_eq!(code, 0);
    }
    let _ = std::fs::remove_file(&path);
}

/// A header block over 32 KiB (a CONTINUATION flood) ends in GOAWAY ENHANCE_YOUR_CALM.
#[test]
fn a_header_block_over_its_bound_is_enhance_your_calm() {
    let (h, addr) = start(&["--workers", "1"]);
    let mut b = hello();
    b.extend(frame(kind::HEADERS, 0, 1, &vec![0x82; 16_384]));
    b.extend(frame(kind::CONTINUATION, 0, 1, &vec![0x82; 16_384]));
    b.extend(frame(kind::CONTINUATION, 0, 1, &vec![0x82; 16_384]));
    let fs = raw(addr, &b);
    assert_eq!(
        goaway_code(&fs),
        Some((0, ErrorCode::EnhanceYourCalm as u32))
    );
    h.shutdown();
    h.join();
}

/// `--idle-timeout`: an idle HTTP/2 connection gets GOAWAY NO_ERROR, never before the timeout,
/// then the close.
#[test]
fn idle_timeout_ends_with_goaway_no_error() {
    let (h, addr) = start(&["--workers", "1", "--idle-timeout", "1s"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(&hello()).unwrap();
    let fs = frames_until_close(&mut s);
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert!(t.elapsed() < time_bound(Duration::from_secs(8)));
    assert_eq!(goaway_code(&fs), Some((0, 0)));
    h.shutdown();
    h.join();
}

/// `--header-timeout`: the preface and the client's SETTINGS must come within it.
#[test]
fn the_preface_without_settings_times_out() {
    let (h, addr) = start(&["--workers", "1", "--header-timeout", "1s"]);
    let mut s = connect(addr);
    let t = Instant::now();
    s.write_all(PREFACE).unwrap();
    let fs = frames_until_close(&mut s);
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert!(t.elapsed() < time_bound(Duration::from_secs(8)));
    assert_eq!(fs[0].0.kind, kind::SETTINGS);
    h.shutdown();
    h.join();
}

/// HTTP/1 requests whose first bytes are the preface's (`P`, `PRI `, `PRI * HTTP/`).
const PREFACE_LOOKALIKES: &[&[u8]] = &[
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
    b"PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
    b"PATCH / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"PRI / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"PRI * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\rX",
];

/// RFC 9113 §3.4: a connection is HTTP/2 once its bytes can no longer be an HTTP/1 request.
/// Each look-alike split in two at every point (one connection per split, the second part
/// sent after a pause, so that each part comes in a read of its own), and sent a byte at a
/// time: the same HTTP/1 answer as in one piece.
#[test]
fn http1_requests_that_start_like_the_preface_stay_http1_however_split() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        for req in PREFACE_LOOKALIKES {
            let whole = exchange(addr, req);
            let shown = String::from_utf8_lossy(req);
            assert!(whole.starts_with(b"HTTP/1.1 "), "{shown}");
            let mut split: Vec<(usize, TcpStream)> = (1..req.len())
                .map(|at| {
                    let mut s = connect(addr);
                    s.write_all(&req[..at]).unwrap();
                    (at, s)
                })
                .collect();
            std::thread::sleep(Duration::from_millis(100));
            for (at, s) in &mut split {
                s.write_all(&req[*at..]).unwrap();
            }
            for (at, s) in &mut split {
                let r = read_to_eof(s);
                assert_eq!(
                    String::from_utf8_lossy(&r),
                    String::from_utf8_lossy(&whole),
                    "{shown:?} split after {at} bytes, {workers} workers"
                );
            }
        }
        let trickled: Vec<_> = PREFACE_LOOKALIKES
            .iter()
            .map(|req| {
                std::thread::spawn(move || {
                    let mut s = connect(addr);
                    for b in *req {
                        s.write_all(&[*b]).unwrap();
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    read_to_eof(&mut s)
                })
            })
            .collect();
        for (req, t) in PREFACE_LOOKALIKES.iter().zip(trickled) {
            let r = t.join().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&r),
                String::from_utf8_lossy(&exchange(addr, req)),
                "{:?} a byte at a time, {workers} workers",
                String::from_utf8_lossy(req)
            );
        }
        h.shutdown();
        h.join();
    }
}

/// The preface, SETTINGS and a GET sent a byte at a time, or split in two at every point of
/// the preface: HTTP/2, the GET answered.
#[test]
fn the_preface_split_anywhere_is_http2() {
    let mut req = hello();
    req.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        GET_ROOT,
    ));
    let answered = |s: &mut TcpStream| {
        let fs = frames_until(s, |h, _| h.kind == kind::DATA && h.stream == 1);
        assert_eq!(fs[0].0.kind, kind::SETTINGS);
        assert!(
            fs.iter()
                .any(|(h, _)| h.kind == kind::HEADERS && h.stream == 1)
        );
    };
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        let mut split: Vec<(usize, TcpStream)> = (1..=PREFACE.len())
            .map(|at| {
                let mut s = connect(addr);
                s.write_all(&req[..at]).unwrap();
                (at, s)
            })
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        for (at, s) in &mut split {
            s.write_all(&req[*at..]).unwrap();
            answered(s);
        }
        let mut s = connect(addr);
        for b in &req {
            s.write_all(&[*b]).unwrap();
            std::thread::sleep(Duration::from_millis(10));
        }
        answered(&mut s);
        h.shutdown();
        h.join();
    }
}

/// Send `bytes` one at a time, `every` apart, until the server ends the connection (its FIN
/// or reset, read by a thread of its own); returns how long after the call that came, and
/// the frames read before it. The trickle stops after `give_up`.
fn trickle_until_closed(
    s: &mut TcpStream,
    bytes: &[u8],
    every: Duration,
    give_up: Duration,
) -> (Duration, Vec<(Header, Vec<u8>)>) {
    let t = Instant::now();
    let mut r = s.try_clone().unwrap();
    let reader = std::thread::spawn(move || {
        let got = read_to_eof(&mut r);
        (t.elapsed(), split(&got))
    });
    for b in bytes {
        if reader.is_finished() || s.write_all(&[*b]).is_err() {
            break;
        }
        let next = Instant::now() + every;
        while Instant::now() < next && !reader.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    while !reader.is_finished() && t.elapsed() < give_up {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = s.shutdown(std::net::Shutdown::Both);
    reader.join().unwrap()
}

/// `--header-timeout` bounds the preface and the client's SETTINGS from the accept, however
/// slowly they come: one byte every 400 ms, from the first byte or after a whole preface,
/// does not slide the deadline (HTTP/1's heads are timed the same way).
#[test]
fn the_preface_and_settings_trickled_are_closed_at_the_header_timeout() {
    let (h, addr) = start(&["--workers", "1", "--header-timeout", "2s"]);
    let settings = frame(kind::SETTINGS, 0, 0, &[0, 3, 0, 0, 0, 100]);
    for whole_preface in [false, true] {
        let mut s = connect(addr);
        let t = Instant::now();
        if whole_preface {
            s.write_all(PREFACE).unwrap();
        }
        let rest = if whole_preface {
            settings.clone()
        } else {
            [&PREFACE[..], &settings].concat()
        };
        trickle_until_closed(
            &mut s,
            &rest,
            Duration::from_millis(400),
            Duration::from_secs(8),
        );
        let took = t.elapsed();
        assert!(took >= Duration::from_secs(2), "{took:?}");
        assert!(
            took < time_bound(Duration::from_secs(4)),
            "{took:?}, whole preface first: {whole_preface}"
        );
    }
    h.shutdown();
    h.join();
}

/// `--header-timeout` bounds each header block from the first byte of its HEADERS frame to
/// its END_HEADERS, as it bounds HTTP/1's heads: a trickled HEADERS frame, or a CONTINUATION
/// that never ends the block, is closed with GOAWAY NO_ERROR. An idle connection between
/// requests is not timed by it.
#[test]
fn a_header_block_trickled_is_closed_at_the_header_timeout() {
    let (h, addr) = start(&["--workers", "1", "--header-timeout", "1s"]);
    let headers = frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        GET_ROOT,
    );
    let open = frame(kind::HEADERS, flag::END_STREAM, 1, &GET_ROOT[..1]);
    let continuation = frame(kind::CONTINUATION, flag::END_HEADERS, 1, &GET_ROOT[1..]);
    for (first, trickled) in [(&[][..], &headers), (&open[..], &continuation)] {
        let mut s = connect(addr);
        s.write_all(&hello()).unwrap();
        frames_until(&mut s, |h, _| {
            h.kind == kind::SETTINGS && h.flags & flag::ACK != 0
        });
        // Idle for longer than the header timeout: still open.
        std::thread::sleep(Duration::from_millis(1_500));
        assert_eq!(h.open_connections(), 1);
        s.write_all(first).unwrap();
        let (took, fs) = trickle_until_closed(
            &mut s,
            trickled,
            Duration::from_millis(300),
            Duration::from_secs(6),
        );
        assert!(took >= Duration::from_secs(1), "{took:?}");
        assert!(
            took < time_bound(Duration::from_secs(3)),
            "{took:?}, {first:?}"
        );
        assert_eq!(goaway_code(&fs), Some((0, 0)), "{fs:?}");
    }
    h.shutdown();
    h.join();
}
