//! `--grpc-health`: the gRPC health service's Check over HTTP/2, with gRPC's own Python client
//! (the `grpcio-health-checking` package), nghttp and raw frames byte for byte, with 1 and 2
//! workers; without the option the path is any path.
#![cfg(all(feature = "http2", feature = "stats"))]

use crate::common;

use canned::frame::{Header, PREFACE, flag, kind};
use common::*;
use std::io::Write;
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

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

/// The preface and a SETTINGS frame with these (id, value) pairs.
fn hello(settings: &[(u16, u32)]) -> Vec<u8> {
    let mut p = Vec::new();
    for (id, v) in settings {
        p.extend_from_slice(&id.to_be_bytes());
        p.extend_from_slice(&v.to_be_bytes());
    }
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &p));
    b
}

/// A literal without indexing, with a static-table name (4-bit prefix, index below 15 or the
/// two-byte form) or a new name (`index` 0).
fn literal(index: u8, name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut b = if index == 0 {
        let mut b = vec![0, name.len() as u8];
        b.extend_from_slice(name);
        b
    } else if index < 15 {
        vec![index]
    } else {
        vec![0x0f, index - 15]
    };
    b.push(value.len() as u8);
    b.extend_from_slice(value);
    b
}

/// A gRPC request's header block: `method` (static index 2 GET, 3 POST), `:scheme http`,
/// `path`, `content-type: application/grpc`, `te: trailers`.
fn grpc_block(method: u8, path: &str) -> Vec<u8> {
    let mut b = vec![0x80 | method, 0x86];
    b.extend(literal(4, b":path", path.as_bytes()));
    b.extend(literal(31, b"content-type", b"application/grpc"));
    b.extend(literal(0, b"te", b"trailers"));
    b
}

/// A gRPC message: not compressed, its length, then the protobuf bytes.
fn message(protobuf: &[u8]) -> Vec<u8> {
    let mut b = vec![0];
    b.extend_from_slice(&(protobuf.len() as u32).to_be_bytes());
    b.extend_from_slice(protobuf);
    b
}

const CHECK: &str = "/grpc.health.v1.Health/Check";
const WATCH: &str = "/grpc.health.v1.Health/Watch";

/// The response's header block: `:status 200` indexed, `content-type` literal.
fn head_block() -> Vec<u8> {
    let mut b = vec![0x88];
    b.extend(literal(31, b"content-type", b"application/grpc"));
    b
}

/// The HEADERS and DATA frames on `stream`: (type, flags, payload).
fn on(fs: &[(Header, Vec<u8>)], stream: u32) -> Vec<(u8, u8, Vec<u8>)> {
    fs.iter()
        .filter(|(h, _)| h.stream == stream && matches!(h.kind, kind::HEADERS | kind::DATA))
        .map(|(h, p)| (h.kind, h.flags, p.clone()))
        .collect()
}

fn ended(fs: &[(Header, Vec<u8>)], stream: u32) -> bool {
    fs.iter()
        .any(|(h, _)| h.stream == stream && h.has(flag::END_STREAM))
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

/// gRPC's own client: Check for "" and for a name, SERVING; Watch, UNIMPLEMENTED; 20 Checks
/// more on the same channel. Prints `ok`.
const GRPC_CLIENT: &str = r#"
import sys, grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
ch = grpc.insecure_channel(sys.argv[1])
stub = health_pb2_grpc.HealthStub(ch)
SERVING = health_pb2.HealthCheckResponse.SERVING
for svc in ["", "canned.Example"]:
    r = stub.Check(health_pb2.HealthCheckRequest(service=svc), timeout=10)
    assert r.status == SERVING, r
try:
    for m in stub.Watch(health_pb2.HealthCheckRequest(service=""), timeout=10):
        raise AssertionError("Watch answered " + str(m))
    raise AssertionError("Watch ended without a status")
except grpc.RpcError as e:
    assert e.code() == grpc.StatusCode.UNIMPLEMENTED, e
for _ in range(20):
    assert stub.Check(health_pb2.HealthCheckRequest(), timeout=10).status == SERVING
ch.close()
print("ok")
"#;

/// The `requests` counter of `--stats` on /stats, read over HTTP/1.
fn stats_requests(addr: std::net::SocketAddr) -> u64 {
    let r = exchange(
        addr,
        b"GET /stats HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    let text = String::from_utf8_lossy(&r);
    let at = text.find("\"requests\":").expect("a requests counter") + 11;
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap()
}

#[test]
fn grpcio_health_check_is_serving_and_counted() {
    if !have_grpcio() {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--grpc-health", "--stats", "/stats"]);
        let t = Instant::now();
        let a = addr.to_string();
        python_ok(
            GRPC_CLIENT,
            &[a.as_ref()],
            &format!("grpcio, {workers} workers"),
        );
        assert!(t.elapsed() < time_bound(Duration::from_secs(30)));
        // 23 calls; the counters are published every 100 ms, and each read of them is a
        // request too (at most 20 of them here, fewer than the calls).
        let mut polls = 0;
        let mut n = stats_requests(addr);
        while n < 23 && polls < 20 {
            std::thread::sleep(Duration::from_millis(250));
            polls += 1;
            n = stats_requests(addr);
        }
        assert!((23..=23 + polls + 1).contains(&n), "{n} requests, {polls}");
        h.shutdown();
        h.join();
    }
}

/// The frames byte for byte: HEADERS, DATA with the 5-byte prefix and `08 01`, trailers with
/// `grpc-status: 0` and END_STREAM, on two streams at once (their ids written in); Watch a
/// trailers-only UNIMPLEMENTED; GET on the path its route; a zero window holds the DATA and
/// trailers until WINDOW_UPDATE.
#[test]
fn raw_frames_byte_for_byte() {
    let mut trailers = vec![0, 11];
    trailers.extend_from_slice(b"grpc-status");
    trailers.extend_from_slice(b"\x010");
    let serving = [0u8, 0, 0, 0, 2, 0x08, 0x01];
    let check_frames = vec![
        (kind::HEADERS, flag::END_HEADERS, head_block()),
        (kind::DATA, 0, serving.to_vec()),
        (
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            trailers,
        ),
    ];
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--grpc-health"]);
        let mut s = connect(addr);
        let mut b = hello(&[]);
        // Stream 1: its HealthCheckRequest in a DATA frame; stream 3: a service name
        // (field 1, length 3, "foo"), split over two DATA frames.
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS,
            1,
            &grpc_block(3, CHECK),
        ));
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS,
            3,
            &grpc_block(3, CHECK),
        ));
        b.extend(frame(kind::DATA, flag::END_STREAM, 1, &message(&[])));
        let m = message(b"\x0a\x03foo");
        b.extend(frame(kind::DATA, 0, 3, &m[..6]));
        b.extend(frame(kind::DATA, flag::END_STREAM, 3, &m[6..]));
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS,
            5,
            &grpc_block(3, WATCH),
        ));
        b.extend(frame(kind::DATA, flag::END_STREAM, 5, &message(&[])));
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            7,
            &grpc_block(2, CHECK),
        ));
        s.write_all(&b).unwrap();
        let fs = frames_until_all(&mut s, |fs| [1, 3, 5, 7].iter().all(|&i| ended(fs, i)));
        assert_eq!(on(&fs, 1), check_frames, "{workers} workers");
        assert_eq!(on(&fs, 3), check_frames);
        let mut watch = head_block();
        watch.extend(literal(0, b"grpc-status", b"12"));
        assert_eq!(
            on(&fs, 5),
            vec![(kind::HEADERS, flag::END_HEADERS | flag::END_STREAM, watch)]
        );
        let get = on(&fs, 7);
        assert_eq!(get.last().unwrap().2, b"Hello World\n", "GET: the route");

        // A zero stream window: HEADERS alone, then the rest at WINDOW_UPDATE.
        let mut s = connect(addr);
        let mut b = hello(&[(0x4, 0)]);
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS,
            1,
            &grpc_block(3, CHECK),
        ));
        b.extend(frame(kind::DATA, flag::END_STREAM, 1, &message(&[])));
        s.write_all(&b).unwrap();
        let fs = frames_until_all(&mut s, |fs| !on(fs, 1).is_empty());
        assert_eq!(on(&fs, 1), check_frames[..1]);
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut buf = [0u8; 4096];
        let held = match s.read_some(&mut buf) {
            Ok(n) => split(&buf[..n]),
            Err(_) => Vec::new(),
        };
        assert!(on(&held, 1).is_empty(), "nothing within a zero window");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(&frame(kind::WINDOW_UPDATE, 0, 1, &7u32.to_be_bytes()))
            .unwrap();
        let fs = frames_until_all(&mut s, |fs| ended(fs, 1));
        assert_eq!(on(&fs, 1), check_frames[1..]);
        h.shutdown();
        h.join();
    }
}

#[test]
fn nghttp_check() {
    if !have("nghttp") {
        return;
    }
    let (h, addr) = start(&["--grpc-health"]);
    let body = std::env::temp_dir().join(format!("canned-grpc-req-{}", std::process::id()));
    std::fs::write(&body, [0u8, 0, 0, 0, 0]).unwrap();
    let out = Command::new("timeout")
        .args(["20", "nghttp", "-nv", "-d"])
        .arg(&body)
        .args([
            "-H",
            "content-type: application/grpc",
            "-H",
            "te: trailers",
            &format!("http://{addr}{CHECK}"),
        ])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&body);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for line in [
        ":status: 200",
        "content-type: application/grpc",
        "recv DATA frame <length=7, flags=0x00",
        "grpc-status: 0",
        "recv HEADERS frame <length=15, flags=0x05",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    h.shutdown();
    h.join();
}

/// Without `--grpc-health` the path is any path (the default response, over HTTP/2 as over
/// HTTP/1), and gRPC's client fails; with it, HTTP/1 still gets the path's route.
#[test]
fn without_the_option_or_over_http1_the_path_is_any_path() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        let mut s = connect(addr);
        let mut b = hello(&[]);
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS,
            1,
            &grpc_block(3, CHECK),
        ));
        b.extend(frame(kind::DATA, flag::END_STREAM, 1, &message(&[])));
        s.write_all(&b).unwrap();
        let fs = frames_until_all(&mut s, |fs| ended(fs, 1));
        let got = on(&fs, 1);
        assert_eq!(
            got.last().unwrap(),
            &(kind::DATA, flag::END_STREAM, b"Hello World\n".to_vec())
        );
        if have_grpcio() {
            let a = addr.to_string();
            python_ok(
                r#"
import sys, grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(sys.argv[1]))
try:
    stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
    raise AssertionError("a Check answered without --grpc-health")
except grpc.RpcError as e:
    assert e.code() != grpc.StatusCode.OK, e
print("ok")
"#,
                &[a.as_ref()],
                "grpcio without --grpc-health",
            );
        }
        h.shutdown();
        h.join();

        let (h, addr) = start(&["--workers", workers, "--grpc-health"]);
        let r = exchange(
            addr,
            format!(
                "POST {CHECK} HTTP/1.1\r\nHost: t\r\nContent-Type: application/grpc\r\n\
                 Content-Length: 5\r\nConnection: close\r\n\r\n\0\0\0\0\0"
            )
            .as_bytes(),
        );
        assert!(
            r.starts_with(b"HTTP/1.1 200 OK\r\n") && r.ends_with(b"Hello World\n"),
            "{}",
            String::from_utf8_lossy(&r)
        );
        h.shutdown();
        h.join();
    }
}

#[test]
fn grpc_health_needs_http2() {
    let got = canned::config::Config::from_args(["--grpc-health", "--no-http2"], &[]);
    let err = got.expect_err("an error").to_string();
    assert!(err.contains("cannot be combined"), "{err}");
    let env = vec![("CANNED_GRPC_HEALTH".into(), "1".into())];
    match canned::config::Config::from_args(["--listen", "127.0.0.1:0"], &env) {
        Ok(canned::config::Command::Run(c)) => assert!(c.grpc_health),
        other => panic!("{other:?}"),
    }
}
