//! HTTP/2 requests with HTTP/1's meaning: CONNECT answered 405 at once, `:method` and `:path`
//! checked (RFC 9113 §8.3.1) and never written raw into the access log (nor HTTP/1's),
//! `--max-requests`, `--max-headers` and `--max-head-bytes` per connection and per stream
//! (with prior knowledge and after `Upgrade: h2c`), `--grpc-health` under `--delay`, a
//! latency fault and `--mutate`, and what `--access-log` keeps per open stream. Raw frames,
//! gRPC's Python client; 1 and 2 workers where the worker count matters.
#![cfg(all(
    feature = "access-log",
    feature = "faults",
    feature = "http2",
    feature = "mutate"
))]

use crate::common;

use canned::frame::{ErrorCode, PREFACE, flag, kind, setting};
use common::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::Duration;

fn hello() -> Vec<u8> {
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &[]));
    b
}

/// An HPACK integer (RFC 7541 §5.1).
fn hpack_int(first: u8, n: u32, mut v: usize, out: &mut Vec<u8>) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(first | v as u8);
        return;
    }
    out.push(first | max as u8);
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
}

/// A header block of literals without indexing, new names, no Huffman.
fn block(fields: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut b = Vec::new();
    for (name, value) in fields {
        b.push(0);
        hpack_int(0, 7, name.len(), &mut b);
        b.extend_from_slice(name);
        hpack_int(0, 7, value.len(), &mut b);
        b.extend_from_slice(value);
    }
    b
}

/// A request's block: `:method`, `:scheme http`, `:path`, `:authority x`, then `extra`.
fn request(method: &[u8], path: &[u8], extra: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut f: Vec<(&[u8], &[u8])> = vec![
        (b":method", method),
        (b":scheme", b"http"),
        (b":path", path),
        (b":authority", b"x"),
    ];
    f.extend_from_slice(extra);
    block(&f)
}

/// HEADERS with END_HEADERS, and END_STREAM when `end`.
fn headers(stream: u32, end: bool, block: &[u8]) -> Vec<u8> {
    let flags = flag::END_HEADERS | if end { flag::END_STREAM } else { 0 };
    frame(kind::HEADERS, flags, stream, block)
}

/// Read into `got` until the frames after its first `skip` bytes satisfy `done`.
fn read_until(
    s: &mut TcpStream,
    got: &mut Vec<u8>,
    skip: usize,
    done: impl Fn(&Frames) -> bool,
) -> Frames {
    let mut buf = [0u8; 65536];
    loop {
        if got.len() >= skip {
            let fs = split(&got[skip..]);
            if done(&fs) {
                return fs;
            }
        }
        let n = s
            .read_some(&mut buf)
            .unwrap_or_else(|e| panic!("{e} before the frames came: {:?}", split(&got[skip..])));
        assert!(n > 0, "closed early: {:?}", split(&got[skip..]));
        got.extend_from_slice(&buf[..n]);
    }
}

fn frames_until(s: &mut TcpStream, done: impl Fn(&Frames) -> bool) -> Frames {
    read_until(s, &mut Vec::new(), 0, done)
}

fn frames_until_close(s: &mut TcpStream) -> Frames {
    split(&read_to_eof(s))
}

/// The `:status` of each response HEADERS, by stream, decoded in order.
fn statuses(fs: &Frames) -> Vec<(u32, String)> {
    let mut d = canned::hpack::Decoder::new(4096);
    let mut scratch = vec![0u8; 16384];
    let mut out = Vec::new();
    for (h, p) in fs.iter().filter(|(h, _)| h.kind == kind::HEADERS) {
        let mut status = String::new();
        d.decode(p, &mut scratch, |f| {
            if f.name == b":status" {
                status = String::from_utf8_lossy(f.value).into_owned();
            }
        })
        .unwrap();
        if !status.is_empty() {
            out.push((h.stream, status));
        }
    }
    out
}

fn status_of(fs: &Frames, stream: u32) -> Option<String> {
    statuses(fs)
        .into_iter()
        .find(|(s, _)| *s == stream)
        .map(|(_, st)| st)
}

/// The RST_STREAM codes, by stream.
fn resets(fs: &Frames) -> Vec<(u32, u32)> {
    fs.iter()
        .filter(|(h, _)| h.kind == kind::RST_STREAM)
        .map(|(h, p)| (h.stream, u32::from_be_bytes(p[..4].try_into().unwrap())))
        .collect()
}

fn goaway(fs: &Frames) -> Option<(u32, u32)> {
    fs.iter()
        .find(|(h, _)| h.kind == kind::GOAWAY)
        .map(|(_, p)| {
            (
                u32::from_be_bytes(p[..4].try_into().unwrap()),
                u32::from_be_bytes(p[4..8].try_into().unwrap()),
            )
        })
}

fn ended(fs: &Frames, stream: u32) -> bool {
    fs.iter()
        .any(|(h, _)| h.stream == stream && h.has(flag::END_STREAM))
}

/// Every stream's frames after its END_STREAM (canned's side): none may follow (§5.1).
fn after_end_stream(fs: &Frames) -> Vec<(u32, u8)> {
    let mut ended = std::collections::HashSet::new();
    let mut bad = Vec::new();
    for (h, _) in fs {
        if h.stream == 0 {
            continue;
        }
        if ended.contains(&h.stream) && h.kind != kind::RST_STREAM {
            bad.push((h.stream, h.kind));
        }
        if h.has(flag::END_STREAM) && matches!(h.kind, kind::HEADERS | kind::DATA) {
            ended.insert(h.stream);
        }
    }
    bad
}

/// A connection that gives up reading after 5 s (scaled): a hang fails the test, not the
/// suite's timeout.
fn connect_quick(addr: SocketAddr) -> TcpStream {
    let s = connect(addr);
    s.set_read_timeout(Some(time_bound(Duration::from_secs(5))))
        .unwrap();
    s
}

/// The SETTINGS_MAX_HEADER_LIST_SIZE in canned's first SETTINGS.
fn advertised_list_size(fs: &Frames) -> Option<u32> {
    let (_, p) = fs
        .iter()
        .find(|(h, _)| h.kind == kind::SETTINGS && !h.has(flag::ACK))?;
    p.chunks(6)
        .find(|c| u16::from_be_bytes([c[0], c[1]]) == setting::MAX_HEADER_LIST_SIZE)
        .map(|c| u32::from_be_bytes(c[2..6].try_into().unwrap()))
}

/// CONNECT (§8.5: `:method` and `:authority` alone, no END_STREAM, as a tunnel starts) is
/// answered 405 at once, as HTTP/1 answers it, then RST_STREAM NO_ERROR; the connection goes
/// on.
#[test]
fn connect_is_answered_405_at_once() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        let h1 = exchange(
            addr,
            b"CONNECT x:1 HTTP/1.1\r\nHost: x:1\r\nConnection: close\r\n\r\n",
        );
        assert!(h1.starts_with(b"HTTP/1.1 405 "), "{h1:?}");
        let mut s = connect_quick(addr);
        let mut b = hello();
        b.extend(headers(
            1,
            false,
            &block(&[(b":method", b"CONNECT"), (b":authority", b"x:1")]),
        ));
        s.write_all(&b).unwrap();
        let mut got = Vec::new();
        let fs = read_until(&mut s, &mut got, 0, |fs| !resets(fs).is_empty());
        assert_eq!(status_of(&fs, 1).as_deref(), Some("405"), "{fs:?}");
        assert!(ended(&fs, 1));
        assert_eq!(resets(&fs), vec![(1, ErrorCode::NoError as u32)]);
        // The connection goes on.
        s.write_all(&headers(3, true, &request(b"GET", b"/", &[])))
            .unwrap();
        let fs = read_until(&mut s, &mut got, 0, |fs| ended(fs, 3));
        assert_eq!(status_of(&fs, 3).as_deref(), Some("200"));
        assert_eq!(resets(&fs), vec![(1, ErrorCode::NoError as u32)]);
        assert!(goaway(&fs).is_none(), "{fs:?}");
        h.shutdown();
        h.join();
    }
}

/// Malformed pseudo-headers (§8.3.1; RFC 9110 §9.1: a method is a token; `:path` a path and
/// query, or `*` for OPTIONS) are stream errors, RST_STREAM PROTOCOL_ERROR, and write no
/// access-log line; a control byte in an HTTP/1 target is a 400. The log holds no control
/// byte but each line's end.
#[test]
fn malformed_pseudo_headers_are_reset_and_the_log_holds_no_control_byte() {
    let mut p = Proc::start(&["--workers", "1", "--access-log", "--no-date"]);
    let mut stdout = p.child.stdout.take().unwrap();
    let mut s = connect_quick(p.addr);
    let bad: [(&[u8], &[u8]); 6] = [
        (b"GE T", b"/"),
        (b"GET\x1b[31m", b"/"),
        (b"\x07GET", b"/"),
        (b"GET", b"not-a-path"),
        (b"GET", b"/a\x1b]0;title\x07"),
        (b"GET", b"*"),
    ];
    let mut b = hello();
    for (i, (method, path)) in bad.iter().enumerate() {
        b.extend(headers(1 + 2 * i as u32, true, &request(method, path, &[])));
    }
    let ok = 1 + 2 * bad.len() as u32;
    b.extend(headers(ok, true, &request(b"GET", b"/fine?a=%1b", &[])));
    s.write_all(&b).unwrap();
    let fs = frames_until(&mut s, |fs| ended(fs, ok));
    let want: Vec<(u32, u32)> = (0..bad.len() as u32)
        .map(|i| (1 + 2 * i, ErrorCode::ProtocolError as u32))
        .collect();
    assert_eq!(resets(&fs), want, "{:?}", statuses(&fs));
    assert_eq!(statuses(&fs), vec![(ok, "200".to_string())]);
    drop(s);
    let h1 = exchange(
        p.addr,
        b"GET /a\x1b[2J HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(h1.starts_with(b"HTTP/1.1 400 "), "{h1:?}");
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut log = Vec::new();
    stdout.read_to_end(&mut log).unwrap();
    let text = String::from_utf8_lossy(&log);
    assert!(
        !log.iter().any(|&c| (c < 0x20 && c != b'\n') || c == 0x7f),
        "{text:?}"
    );
    assert!(
        log_words(&text).contains(&"GET /fine?a=%1b HTTP/2.0 200".to_string()),
        "{text:?}"
    );
    assert!(
        !text.contains("title"),
        "a reset stream is not logged: {text:?}"
    );
}

/// The issue's case: `--max-requests 2 --max-headers 5 --max-head-bytes 200`, eight streams
/// at once on one connection, each with six fields: the first two are answered 431, GOAWAY
/// NO_ERROR names the second, the six after it are refused (REFUSED_STREAM), and the
/// connection closes once the two are answered. SETTINGS_MAX_HEADER_LIST_SIZE says 200.
#[test]
fn limits_per_stream_and_per_connection_with_prior_knowledge() {
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--max-requests",
            "2",
            "--max-headers",
            "5",
            "--max-head-bytes",
            "200",
        ]);
        let six: Vec<(&[u8], &[u8])> = vec![(b"x-a", b"1"); 6];
        let mut s = connect_quick(p.addr);
        let mut b = hello();
        for i in 0..8 {
            b.extend(headers(1 + 2 * i, true, &request(b"GET", b"/", &six)));
        }
        s.write_all(&b).unwrap();
        let fs = frames_until_close(&mut s);
        assert_eq!(advertised_list_size(&fs), Some(200));
        assert_eq!(
            statuses(&fs),
            vec![(1, "431".to_string()), (3, "431".to_string())]
        );
        assert_eq!(goaway(&fs), Some((3, ErrorCode::NoError as u32)));
        let refused: Vec<(u32, u32)> = (2..8)
            .map(|i| (1 + 2 * i, ErrorCode::RefusedStream as u32))
            .collect();
        assert_eq!(resets(&fs), refused);
        // Within the limits: 166 bytes of pseudo-headers (§6.5.2: 32 bytes each on top of
        // name and value) are answered; one field of 43 more takes the list past 200.
        let mut s = connect_quick(p.addr);
        let mut b = hello();
        b.extend(headers(1, true, &request(b"GET", b"/", &[])));
        b.extend(headers(
            3,
            true,
            &request(b"GET", b"/", &[(b"x-a", b"12345678")]),
        ));
        s.write_all(&b).unwrap();
        let fs = frames_until_close(&mut s);
        assert_eq!(
            statuses(&fs),
            vec![(1, "200".to_string()), (3, "431".to_string())]
        );
    }
}

/// `--max-headers` and `--max-head-bytes` on a stream that has not ended: 431 at once, then
/// RST_STREAM NO_ERROR; the connection goes on.
#[test]
fn a_431_goes_before_the_body() {
    let (h, addr) = start(&["--workers", "1", "--max-headers", "2"]);
    let mut s = connect_quick(addr);
    let three: Vec<(&[u8], &[u8])> = vec![(b"x-a", b"1"); 3];
    let mut b = hello();
    b.extend(headers(1, false, &request(b"POST", b"/", &three)));
    s.write_all(&b).unwrap();
    let mut got = Vec::new();
    let fs = read_until(&mut s, &mut got, 0, |fs| !resets(fs).is_empty());
    assert_eq!(status_of(&fs, 1).as_deref(), Some("431"));
    assert_eq!(resets(&fs), vec![(1, ErrorCode::NoError as u32)]);
    s.write_all(&headers(3, true, &request(b"GET", b"/", &three[..2])))
        .unwrap();
    let fs = read_until(&mut s, &mut got, 0, |fs| ended(fs, 3));
    assert_eq!(status_of(&fs, 3).as_deref(), Some("200"));
    assert_eq!(resets(&fs), vec![(1, ErrorCode::NoError as u32)]);
    h.shutdown();
    h.join();
}

const SWITCHING: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

/// After `Upgrade: h2c` the limits mean the same: the upgraded request is stream 1, the first
/// of `--max-requests 2`; stream 3 over `--max-headers` is 431, GOAWAY names it, stream 5 is
/// refused; SETTINGS_MAX_HEADER_LIST_SIZE is `--max-head-bytes`.
#[test]
fn limits_after_upgrade() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--max-requests",
            "2",
            "--max-headers",
            "5",
            "--max-head-bytes",
            "300",
        ]);
        let mut s = connect_quick(addr);
        // HTTP2-Settings: SETTINGS_ENABLE_PUSH 0.
        let mut b = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
Upgrade: h2c\r\nHTTP2-Settings: AAIAAAAA\r\n\r\n"
            .to_vec();
        b.extend(hello());
        let six: Vec<(&[u8], &[u8])> = vec![(b"x-a", b"1"); 6];
        b.extend(headers(3, true, &request(b"GET", b"/", &six)));
        b.extend(headers(5, true, &request(b"GET", b"/", &[])));
        s.write_all(&b).unwrap();
        let got = read_to_eof(&mut s);
        assert!(
            got.starts_with(SWITCHING),
            "{:?}",
            String::from_utf8_lossy(&got)
        );
        let fs = split(&got[SWITCHING.len()..]);
        assert_eq!(advertised_list_size(&fs), Some(300));
        assert_eq!(
            statuses(&fs),
            vec![(1, "200".to_string()), (3, "431".to_string())]
        );
        assert_eq!(goaway(&fs), Some((3, ErrorCode::NoError as u32)));
        assert_eq!(resets(&fs), vec![(5, ErrorCode::RefusedStream as u32)]);
        h.shutdown();
        h.join();
    }
}

/// `--max-requests 1` after an upgrade: stream 1 is the last, GOAWAY names it at once.
#[test]
fn max_requests_one_after_upgrade() {
    let (h, addr) = start(&["--workers", "1", "--max-requests", "1"]);
    let mut s = connect_quick(addr);
    let mut b = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
Upgrade: h2c\r\nHTTP2-Settings: AAIAAAAA\r\n\r\n"
        .to_vec();
    b.extend(hello());
    b.extend(headers(3, true, &request(b"GET", b"/", &[])));
    s.write_all(&b).unwrap();
    let got = read_to_eof(&mut s);
    assert!(
        got.starts_with(SWITCHING),
        "{:?}",
        String::from_utf8_lossy(&got)
    );
    let fs = split(&got[SWITCHING.len()..]);
    assert_eq!(statuses(&fs), vec![(1, "200".to_string())]);
    assert_eq!(goaway(&fs), Some((1, ErrorCode::NoError as u32)));
    assert_eq!(resets(&fs), vec![(3, ErrorCode::RefusedStream as u32)]);
    h.shutdown();
    h.join();
}

/// Whether Python has gRPC and its health service; in CI they must be there.
fn have_grpcio() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import grpc, grpc_health.v1.health_pb2_grpc"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 grpcio-health-checking is not installed"
        );
        eprintln!("skipping: python3 grpcio-health-checking is not installed");
    }
    ok
}

/// gRPC's own client: 10 Checks on one channel, each SERVING.
const GRPC_CHECKS: &str = r#"
import sys, grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
ch = grpc.insecure_channel(sys.argv[1])
stub = health_pb2_grpc.HealthStub(ch)
for _ in range(10):
    r = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert r.status == health_pb2.HealthCheckResponse.SERVING, r
ch.close()
print("ok")
"#;

const CHECK_PATH: &[u8] = b"/grpc.health.v1.Health/Check";

/// A Check call: HEADERS, then its empty HealthCheckRequest with END_STREAM.
fn check_call(stream: u32) -> Vec<u8> {
    let mut b = headers(
        stream,
        false,
        &request(
            b"POST",
            CHECK_PATH,
            &[(b"content-type", b"application/grpc"), (b"te", b"trailers")],
        ),
    );
    b.extend(frame(
        kind::DATA,
        flag::END_STREAM,
        stream,
        &[0, 0, 0, 0, 0],
    ));
    b
}

/// `--grpc-health` under `--delay 10ms`, `--fault '*=latency:10ms'` and `--mutate`: gRPC's
/// client gets SERVING every time, and on the wire each call is HEADERS with
/// `application/grpc`, the SERVING message, the trailers ending the stream, and nothing after
/// (with the delays, not before them).
#[test]
fn grpc_health_under_delay_latency_and_mutate() {
    let grpc = have_grpcio();
    for extra in [
        &["--delay", "10ms"][..],
        &["--fault", "*=latency:10ms"],
        &["--mutate"],
    ] {
        for workers in ["1", "2"] {
            let mut args = vec!["--workers", workers, "--grpc-health"];
            args.extend_from_slice(extra);
            let (h, addr) = start(&args);
            if grpc {
                let a = addr.to_string();
                python_ok(GRPC_CHECKS, &[a.as_ref()], &format!("grpcio {extra:?}"));
            }
            let mut s = connect_quick(addr);
            let mut b = hello();
            for i in 0..3 {
                b.extend(check_call(1 + 2 * i));
            }
            let t = std::time::Instant::now();
            s.write_all(&b).unwrap();
            let mut got = Vec::new();
            read_until(&mut s, &mut got, 0, |fs| {
                (0..3).all(|i| ended(fs, 1 + 2 * i))
            });
            if extra[0] != "--mutate" {
                assert!(t.elapsed() >= Duration::from_millis(10), "{extra:?}");
            }
            // Whatever follows on those streams is written before the answer to a PING sent
            // after they ended.
            s.write_all(&frame(kind::PING, 0, 0, &[9; 8])).unwrap();
            let all = read_until(&mut s, &mut got, 0, |fs| {
                fs.iter()
                    .any(|(h, _)| h.kind == kind::PING && h.has(flag::ACK))
            });
            assert_eq!(after_end_stream(&all), vec![], "{extra:?}: {all:?}");
            for i in 0..3 {
                let on: Vec<_> = all
                    .iter()
                    .filter(|(h, _)| {
                        h.stream == 1 + 2 * i && matches!(h.kind, kind::HEADERS | kind::DATA)
                    })
                    .collect();
                assert_eq!(on.len(), 3, "{extra:?}: {on:?}");
                assert!(on[0].1.windows(16).any(|w| w == b"application/grpc"));
                assert_eq!(on[1].1, [0, 0, 0, 0, 2, 0x08, 0x01]);
                assert!(on[2].1.windows(11).any(|w| w == b"grpc-status"));
            }
            h.shutdown();
            h.join();
        }
    }
}

/// `--access-log` keeps at most a bounded prefix of each open stream's method and path: 20
/// connections, each with 100 streams open (HEADERS with a 16,000-byte `:path`, no
/// END_STREAM), grow the server's RSS by about what they do without the log (it kept each
/// path whole: 1.6 MiB per connection more).
#[test]
fn access_log_keeps_a_bounded_prefix_per_open_stream() {
    let path = {
        let mut p = b"/".to_vec();
        p.extend(std::iter::repeat_n(b'p', 16_000));
        p
    };
    let mut b = hello();
    for i in 0..100u32 {
        b.extend(headers(1 + 2 * i, false, &request(b"GET", &path, &[])));
    }
    const N: u64 = 20;
    let per_conn = |log: bool| {
        let mut args = vec!["--workers", "2", "--max-head-bytes", "16384"];
        if log {
            args.push("--access-log");
        }
        let p = Proc::start_with(&args, |c| {
            c.stdout(std::process::Stdio::null());
        });
        // Every stream taken once the PING after them is acknowledged (frames are read in
        // order); canned answers none of them.
        let open = |s: &mut TcpStream| {
            s.write_all(&b).unwrap();
            s.write_all(&frame(kind::PING, 0, 0, &[7; 8])).unwrap();
            frames_until(s, |fs| {
                fs.iter()
                    .any(|(h, _)| h.kind == kind::PING && h.has(flag::ACK))
            });
        };
        let mut warm = connect_quick(p.addr);
        open(&mut warm);
        drop(warm);
        let before = p.rss_kib();
        let conns: Vec<TcpStream> = (0..N)
            .map(|_| {
                let mut s = connect_quick(p.addr);
                open(&mut s);
                s
            })
            .collect();
        let grown = p.rss_kib().saturating_sub(before) / N;
        drop(conns);
        grown
    };
    let without = per_conn(false);
    let with = per_conn(true);
    eprintln!("per connection: {without} KiB without the access log, {with} KiB with it");
    // 100 entries of at most 280 bytes: 28 KiB, and the noise of two processes; under
    // emulation, its code cache (8 MiB in all, as tests/suite/h2_floods.rs allows).
    let slack = if time_scale() > 1 { 8 * 1024 / N } else { 0 };
    assert!(
        with < without + 64 + slack,
        "{with} KiB with the log, {without} without"
    );
}

/// The DATA payloads of `stream`, in order.
fn body_of(fs: &Frames, stream: u32) -> Vec<u8> {
    fs.iter()
        .filter(|(h, _)| h.kind == kind::DATA && h.stream == stream)
        .flat_map(|(_, p)| p.clone())
        .collect()
}

/// `--echo` over HTTP/2 with raw frames: two streams' bodies interleaved in pieces, one with
/// trailers, each echoed whole and alone (fields in the order sent, `:authority` among them,
/// the trailers after the body); a body over `--max-body-bytes` answered 413 as HTTP/1's
/// echo does; HEAD gets the echo's length alone; then the journal holds the requests as
/// HTTP/2 received them. 1 and 2 workers.
#[test]
fn echo_streams_interleaved_with_trailers_and_a_413() {
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--echo",
            "/e",
            "--echo",
            "/t=text",
            "--max-body-bytes",
            "100",
            "--journal-path",
            "/j",
        ]);
        let mut s = connect_quick(p.addr);
        let mut b = hello();
        b.extend(headers(
            1,
            false,
            &request(b"POST", b"/e?q=1", &[(b"x-one", b"1")]),
        ));
        b.extend(headers(
            3,
            false,
            &request(b"PUT", b"/t", &[(b"x-two", b"2")]),
        ));
        for piece in [&b"ab"[..], b"cd"] {
            b.extend(frame(kind::DATA, 0, 1, piece));
            b.extend(frame(kind::DATA, 0, 3, &piece.to_ascii_uppercase()));
        }
        b.extend(frame(kind::DATA, flag::END_STREAM, 1, b"e"));
        b.extend(headers(3, true, &block(&[(b"x-trailer", b"t")])));
        b.extend(headers(5, false, &request(b"POST", b"/e", &[])));
        b.extend(frame(kind::DATA, flag::END_STREAM, 5, &[b'x'; 101]));
        b.extend(headers(7, true, &request(b"HEAD", b"/e", &[])));
        s.write_all(&b).unwrap();
        let fs = frames_until(&mut s, |fs| [1, 3, 5, 7].iter().all(|&id| ended(fs, id)));
        let mut got = statuses(&fs);
        got.sort();
        let want: Vec<(u32, String)> = [(1, "200"), (3, "200"), (5, "413"), (7, "200")]
            .iter()
            .map(|&(id, s)| (id, s.to_string()))
            .collect();
        assert_eq!(got, want, "{workers} workers");
        let json = String::from_utf8(body_of(&fs, 1)).unwrap();
        assert!(
            json.starts_with(
                r#"{"method":"POST","target":"/e?q=1","path":"/e","query":"q=1","version":"HTTP/2","headers":[{"name":":scheme","value":"http"},{"name":":authority","value":"x"},{"name":"x-one","value":"1"}],"body":"abcde","trailers":[],"request_index":"#
            ),
            "{json}"
        );
        let text = String::from_utf8(body_of(&fs, 3)).unwrap();
        assert_eq!(text, ":scheme: http\n:authority: x\nx-two: 2\n");
        assert!(body_of(&fs, 7).is_empty());

        // The text format shows no body nor trailers: the JSON of stream 3 does.
        let mut s = connect_quick(p.addr);
        let mut b = hello();
        b.extend(headers(1, false, &request(b"PUT", b"/e", &[])));
        b.extend(frame(kind::DATA, 0, 1, b"AB"));
        b.extend(headers(1, true, &block(&[(b"x-trailer", b"t")])));
        b.extend(headers(3, true, &request(b"GET", b"/j", &[])));
        s.write_all(&b).unwrap();
        let fs = frames_until(&mut s, |fs| ended(fs, 1) && ended(fs, 3));
        let json = String::from_utf8(body_of(&fs, 1)).unwrap();
        assert!(
            json.contains(r#""body":"AB","trailers":[{"name":"x-trailer","value":"t"}]"#),
            "{json}"
        );
        let journal = String::from_utf8(body_of(&fs, 3)).unwrap();
        assert!(
            journal.contains(r#""method":"PUT","target":"/t","headers":[[":scheme","http"],[":authority","x"],["x-two","2"]],"body_length":4,"status":200"#),
            "{workers} workers: {journal}"
        );
    }
}
