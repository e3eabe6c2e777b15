//! `--echo`: the request as canned parsed it, written back. http-garden's contract for a table
//! of requests, the JSON and text formats read by real clients (curl, Python's http.client and
//! urllib) with one and two workers, bodies by length and chunked (split across reads), the
//! body bound, and rejections that are the same as on any path.
#![cfg(all(feature = "access-log", feature = "echo"))]

use crate::common;
use common::*;
use std::io::{Read, Write};
use std::process::Command;
use std::time::Duration;

/// Base64 with padding (RFC 4648 §4), written here apart from canned's.
fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for g in bytes.chunks(3) {
        let n = g
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            s.push(if i <= g.len() {
                A[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    s
}

/// What http-garden's hyper server (`images/hyper/garden/src/main.rs`) answers for a request it
/// parsed as `method`, `version` (`1.1`), `uri`, `headers` and `body`: its body, built the way
/// that server builds it.
fn garden(
    method: &str,
    version: &str,
    uri: &str,
    headers: &[(&str, &[u8])],
    body: &[u8],
) -> String {
    let mut result = format!(
        "{{\"method\":\"{}\",\"version\":\"{}\",\"uri\":\"{}\",\"headers\":[",
        b64(method.as_bytes()),
        b64(version.as_bytes()),
        b64(uri.as_bytes())
    );
    for (i, (k, v)) in headers.iter().enumerate() {
        if i > 0 {
            result += ",";
        }
        result += &format!("[\"{}\",\"{}\"]", b64(k.as_bytes()), b64(v));
    }
    result + &format!("],\"body\":\"{}\"}}", b64(body))
}

/// One garden case: the request's bytes, and how it was parsed.
struct GardenCase {
    request: &'static [u8],
    method: &'static str,
    version: &'static str,
    uri: &'static str,
    headers: &'static [(&'static str, &'static [u8])],
    body: &'static [u8],
}

const GARDEN: &[GardenCase] = &[
    GardenCase {
        request: b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        method: "GET",
        version: "1.1",
        uri: "/",
        headers: &[("Host", b"a")],
        body: b"",
    },
    GardenCase {
        request: b"\r\nGET /p/q?x=1&y=%20 HTTP/1.1\r\nHost: a\r\nX-Pad:  \t v \t\r\nEmpty:\r\n\r\n",
        method: "GET",
        version: "1.1",
        uri: "/p/q?x=1&y=%20",
        headers: &[("Host", b"a"), ("X-Pad", b"v"), ("Empty", b"")],
        body: b"",
    },
    GardenCase {
        request: b"OPTIONS http://a:80/abs?q HTTP/1.1\r\nHost: a:80\r\n\r\n",
        method: "OPTIONS",
        version: "1.1",
        uri: "http://a:80/abs?q",
        headers: &[("Host", b"a:80")],
        body: b"",
    },
    GardenCase {
        request: b"GET / HTTP/1.0\r\n\r\n",
        method: "GET",
        version: "1.0",
        uri: "/",
        headers: &[],
        body: b"",
    },
    GardenCase {
        request: b"PURGE /c HTTP/1.1\r\nhost: a\r\nA: 1\r\nB: 2\r\na: 3\r\nX-Obs: caf\xe9\xff\r\n\r\n",
        method: "PURGE",
        version: "1.1",
        uri: "/c",
        headers: &[("host", b"a"), ("A", b"1"), ("B", b"2"), ("a", b"3"), ("X-Obs", b"caf\xe9\xff")],
        body: b"",
    },
    GardenCase {
        request: b"POST /l HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhe\x00lo",
        method: "POST",
        version: "1.1",
        uri: "/l",
        headers: &[("Host", b"a"), ("Content-Length", b"5")],
        body: b"he\x00lo",
    },
    GardenCase {
        request: b"POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;x=\"y\"\r\nabc\r\nA\r\n0123456789\r\n0\r\nT: 1\r\n\r\n",
        method: "POST",
        version: "1.1",
        uri: "/c",
        headers: &[("Host", b"a"), ("Transfer-Encoding", b"chunked")],
        body: b"abc0123456789",
    },
    GardenCase {
        request: b"PUT /z HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
        method: "PUT",
        version: "1.1",
        uri: "/z",
        headers: &[("Host", b"a"), ("Content-Length", b"0")],
        body: b"",
    },
];

/// The table through canned run with the flags of the garden's image
/// (`contrib/http-garden/canned/Dockerfile`: `--echo '*=garden'`), each request on its own
/// connection and all of them pipelined on one: canned's echo is, byte for byte, the body the
/// garden's hyper server builds.
#[test]
fn garden_echo_is_the_gardens_contract() {
    let adapter = adapter_flags("contrib/http-garden/canned/Dockerfile");
    assert_eq!(adapter, ["--echo", "*=garden"]);
    for workers in ["1", "2"] {
        let mut flags = vec!["--workers", workers];
        flags.extend(adapter.iter().map(String::as_str));
        let (h, addr) = start(&flags);
        let mut wire = Vec::new();
        for c in GARDEN {
            let want = garden(c.method, c.version, c.uri, c.headers, c.body);
            let mut s = connect(addr);
            s.write_all(c.request).unwrap();
            let r = &read_responses(&mut s, 1)[0];
            assert_eq!(r.status, 200, "{}", want);
            assert_eq!(r.header("Content-Type"), Some("application/json"));
            assert_eq!(String::from_utf8_lossy(&r.body), want, "{:?}", c.uri);
            if !c.request.starts_with(b"GET / HTTP/1.0") {
                wire.extend_from_slice(c.request);
            }
        }
        let mut s = connect(addr);
        s.write_all(&wire).unwrap();
        let got = read_responses(&mut s, GARDEN.len() - 1);
        let want = GARDEN
            .iter()
            .filter(|c| !c.request.starts_with(b"GET / HTTP/1.0"));
        for (r, c) in got.iter().zip(want) {
            let want = garden(c.method, c.version, c.uri, c.headers, c.body);
            assert_eq!(String::from_utf8_lossy(&r.body), want);
        }
        drop(s);
        h.shutdown();
        h.join();
    }
}

/// The garden's own reading of an echo (`parse_response_json` in its `tools/http1.py`): the
/// five keys, strings and a list of pairs, each base64; run by Python on canned's answers.
#[test]
fn garden_echo_reads_as_the_garden_reads_it() {
    if !have("python3") {
        return;
    }
    let p = Proc::start(&["--workers", "2", "--echo", "*=garden", "--no-date"]);
    let script = format!(
        r#"
import base64, json, socket
def roundtrip(data):
    s = socket.create_connection(("127.0.0.1", {port}))
    s.sendall(data)
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            return out
        out += d
raw = roundtrip(b"POST /g?a=b HTTP/1.1\r\nHost: h\r\nX: \xe9\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nhi\r\n0\r\n\r\n")
head, body = raw.split(b"\r\n\r\n", 1)
assert head.startswith(b"HTTP/1.1 200 "), head
m = json.loads(body, parse_float=lambda s: s, parse_int=lambda s: s, parse_constant=lambda s: s)
assert isinstance(m, dict) and all(k in m for k in ("headers", "uri", "body", "method", "version"))
assert all(isinstance(m[k], str) for k in ("uri", "body", "method", "version"))
headers = []
for pair in m["headers"]:
    assert isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
    headers.append((base64.b64decode(pair[0]).lower(), base64.b64decode(pair[1])))
version = base64.b64decode(m["version"])
assert (base64.b64decode(m["method"]), base64.b64decode(m["uri"]), version) == (b"POST", b"/g?a=b", b"1.1")
assert base64.b64decode(m["body"]) == b"hi"
assert headers == [(b"host", b"h"), (b"x", b"\xe9"), (b"transfer-encoding", b"chunked"), (b"connection", b"close")], headers
print("ok")
"#,
        port = p.addr.port()
    );
    python_ok(&script, &[], "the garden's reading");
}

/// Python's http.client and urllib read the JSON echo, with one and two workers: every field,
/// `_b64` for bytes that are not UTF-8, the request index on a keep-alive connection, HEAD,
/// `Connection: close`, and a body too large for the bound refused with 413.
#[test]
fn python_clients_read_the_json_echo() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--echo",
            "/anything",
            "--echo",
            "/small",
            "--max-body-bytes",
            "64K",
            "--no-date",
        ]);
        let script = format!(
            r#"
import base64, http.client, json, urllib.request
c = http.client.HTTPConnection("127.0.0.1", {port})
for i in range(1, 21):
    c.request("GET", "/anything?i=%d" % i, headers={{"X-Case": "café", "X-Raw": "\udcff".encode("utf-8", "surrogateescape").decode("latin-1")}})
    r = c.getresponse()
    assert r.status == 200 and r.getheader("Content-Type") == "application/json"
    m = json.loads(r.read())
    assert m["method"] == "GET" and m["target"] == "/anything?i=%d" % i, m
    assert m["path"] == "/anything" and m["query"] == "i=%d" % i and m["version"] == "HTTP/1.1"
    assert m["request_index"] == i, m
    h = {{x["name"]: x for x in m["headers"]}}
    assert h["Host"]["value"] == "127.0.0.1:{port}"
    assert h["X-Case"]["value_b64"] == base64.b64encode("café".encode("latin-1")).decode(), h
    assert base64.b64decode(h["X-Raw"]["value_b64"]) == b"\xff"
    assert m["body"] == "" and m["trailers"] == []
body = bytes(range(256)) * 100
c.request("POST", "/anything", body=body)
m = json.loads(c.getresponse().read())
assert base64.b64decode(m["body_b64"]) == body and "body" not in m
c.request("POST", "/anything", body="line\n\"quoted\"\t\\ é".encode())
m = json.loads(c.getresponse().read())
assert m["body"] == "line\n\"quoted\"\t\\ é", m
c.request("HEAD", "/anything")
r = c.getresponse()
assert r.status == 200 and int(r.getheader("Content-Length")) > 100 and r.read() == b""
c.request("POST", "/small", body=b"x" * (64 * 1024 + 1))
r = c.getresponse()
assert r.status == 413 and r.getheader("Connection") == "close", r.status
r.read()
req = urllib.request.Request("http://127.0.0.1:{port}/anything?u", data=b"hello", headers={{"Content-Type": "text/x"}})
m = json.loads(urllib.request.urlopen(req).read())
assert m["body"] == "hello" and m["query"] == "u" and m["request_index"] == 1, m
print("ok")
"#,
            port = p.addr.port()
        );
        python_ok(&script, &[], &format!("{workers} workers"));
    }
}

/// curl's requests echoed: HTTP/1.1 and 1.0, a chunked upload, a query, a header of its own.
#[test]
fn curl_requests_are_echoed() {
    if !have("curl") || !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--echo", "/e", "--no-date"]);
        for extra in [
            &[][..],
            &["--http1.0"],
            &["-H", "Transfer-Encoding: chunked"],
        ] {
            let o = Command::new("curl")
                .args(["-s", "-H", "X-Test: a b", "--data-binary", "payload"])
                .args(extra)
                .arg(p.url("/e?k=v"))
                .output()
                .unwrap();
            assert!(o.status.success());
            let check = r#"
import json, sys
m = json.loads(sys.stdin.buffer.read())
want_version = sys.argv[1]
assert m["method"] == "POST" and m["target"] == "/e?k=v" and m["query"] == "k=v", m
assert m["version"] == want_version and m["body"] == "payload", m
h = [(x["name"], x["value"]) for x in m["headers"]]
assert ("X-Test", "a b") in h and h[0][0] == "Host", h
print("ok")
"#;
            let version = if extra == ["--http1.0"] {
                "HTTP/1.0"
            } else {
                "HTTP/1.1"
            };
            let mut py = Command::new("python3")
                .args(["-c", check, version])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            py.stdin.take().unwrap().write_all(&o.stdout).unwrap();
            let r = py.wait_with_output().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&r.stdout),
                "ok\n",
                "{extra:?}: {} {}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&r.stderr)
            );
        }
    }
}

/// Http11Probe's tests that read `/echo` (`CookieSuite`, `NormalizationSuite`): the text
/// echo has each field as `Name: value`; a malformed name canned accepts is echoed as sent, and
/// a field line it rejects gets 400 (both verdicts the probe passes or warns on, never fails).
#[test]
fn text_echo_is_what_http11probe_reads() {
    let (h, addr) = start(&["--echo", "/echo=text"]);
    let ask = |req: &[u8]| {
        let mut s = connect(addr);
        s.write_all(req).unwrap();
        let r = read_responses(&mut s, 1).remove(0);
        (r.status, String::from_utf8_lossy(&r.body).into_owned())
    };
    let (status, body) = ask(b"GET /echo HTTP/1.1\r\nHost: p\r\nCookie: foo=bar\r\n\r\n");
    assert_eq!((status, body.as_str()), (200, "Host: p\nCookie: foo=bar\n"));
    let (status, body) =
        ask(b"GET /echo HTTP/1.1\r\nHost: p\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n");
    assert_eq!(
        (status, body.as_str()),
        (200, "Host: p\nCookie: a=1\nCookie: b=2\n")
    );
    let (status, body) = ask(b"GET /echo HTTP/1.1\r\nHost: p\r\nCookie: \r\n\r\n");
    assert_eq!((status, body.as_str()), (200, "Host: p\nCookie: \n"));
    // NORM-UNDERSCORE-CL: preserved, not normalized into Content-Length.
    let (status, body) = ask(
        b"POST /echo HTTP/1.1\r\nHost: p\r\nContent-Length: 11\r\nContent_Length: 99\r\n\r\nhello world",
    );
    assert_eq!(status, 200);
    assert_eq!(body, "Host: p\nContent-Length: 11\nContent_Length: 99\n");
    for rejected in [
        &b"POST /echo HTTP/1.1\r\nHost: p\r\nContent-Length: 11\r\nContent-Length : 5\r\n\r\nhello world"[..],
        b"POST /echo HTTP/1.1\r\nHost: p\r\nContent-Length: 11\r\nContent\tLength: 99\r\n\r\nhello world",
        b"GET /echo HTTP/1.1\r\nHost: p\r\nCookie: foo=\x00bar\r\n\r\n",
        b"GET /echo HTTP/1.1\r\nHost: p\r\nCookie: foo=\x01\x02\x03\r\n\r\n",
    ] {
        assert_eq!(ask(rejected).0, 400, "{:?}", String::from_utf8_lossy(rejected));
    }
    // A HEAD request: the head alone, with the length the echo has.
    let mut s = connect(addr);
    s.write_all(b"HEAD /echo HTTP/1.1\r\nHost: p\r\nX: 12\r\nConnection: close\r\n\r\n")
        .unwrap();
    let r = parse_responses(&read_to_eof(&mut s), &[true]).remove(0);
    let echo = "Host: p\nX: 12\nConnection: close\n";
    assert_eq!(
        r.header("Content-Length"),
        Some(echo.len().to_string().as_str())
    );
    assert!(r.body.is_empty());
    h.shutdown();
    h.join();
}

/// A request canned rejects gets, on an echo path, exactly the bytes it gets on any other.
#[test]
fn rejections_are_the_same_on_an_echo_path() {
    let (plain, plain_addr) = start(&[]);
    let (echo, echo_addr) = start(&["--echo", "*", "--echo", "/e=garden"]);
    for bad in [
        &b"GET / HTTP/1.1\r\n\r\n"[..],
        b"GET /e HTTP/1.1\nHost: a\n\n",
        b"GET /e HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        b"GET /e HTTP/2.0\r\nHost: a\r\n\r\n",
        b"GET /e#f HTTP/1.1\r\nHost: a\r\n\r\n",
        b"POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"POST /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"POST /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nz\r\n",
        b"POST /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer\r\n\r\n",
        b"GET /e HTTP/1.1\r\nHost: a\r\nExpect: nothing\r\n\r\n",
        b"HEAD /e HTTP/1.1\r\nHost: a\r\n X: folded\r\n\r\n",
        b"CONNECT a:80 HTTP/1.1\r\nHost: a:80\r\nConnection: close\r\n\r\n",
    ] {
        let want = exchange(plain_addr, bad);
        assert!(
            !want.starts_with(b"HTTP/1.1 200"),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
        assert_eq!(
            String::from_utf8_lossy(&exchange(echo_addr, bad)),
            String::from_utf8_lossy(&want),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
    for h in [plain, echo] {
        h.shutdown();
        h.join();
    }
}

/// The bound on a kept body: 1 MiB without `--max-body-bytes` (a body of exactly that is
/// echoed, one byte more is refused with 413 before it is read, by length or by chunk size), and
/// `--max-body-bytes` when given. Routes that do not echo keep no bound of their own.
#[test]
fn bodies_are_kept_up_to_the_bound() {
    let (h, addr) = start(&["--echo", "/e=text", "--echo", "/g=garden"]);
    let mib = 1 << 20;
    // The body is sent unless it is to be refused before it is read.
    let post = |path: &str, len: usize, send: bool| {
        let mut s = connect(addr);
        let head = format!("POST {path} HTTP/1.1\r\nHost: a\r\nContent-Length: {len}\r\n\r\n");
        s.write_all(head.as_bytes()).unwrap();
        if send {
            s.write_all(&vec![b'a'; len]).unwrap();
        }
        read_responses(&mut s, 1).remove(0)
    };
    let r = post("/g", mib, true);
    assert_eq!(r.status, 200);
    let body = format!("\"body\":\"{}\"}}", b64(&vec![b'a'; mib]));
    assert!(String::from_utf8_lossy(&r.body).ends_with(&body));
    assert_eq!(post("/e", mib + 1, false).status, 413);
    let other = post("/other", 3 * mib, true);
    assert_eq!(other.status, 200, "not an echo: skipped, unbounded");
    let mut s = connect(addr);
    let big = format!(
        "POST /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        mib + 1
    );
    s.write_all(big.as_bytes()).unwrap();
    let got = read_to_eof(&mut s);
    assert!(
        got.starts_with(b"HTTP/1.1 413 "),
        "{}",
        String::from_utf8_lossy(&got)
    );
    h.shutdown();
    h.join();
    let (h, addr) = start(&["--echo", "/e", "--max-body-bytes", "10"]);
    let got = exchange(
        addr,
        b"POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n01234567890",
    );
    assert!(got.starts_with(b"HTTP/1.1 413 "));
    let got = exchange(
        addr,
        b"POST /e HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 10\r\n\r\n0123456789",
    );
    assert!(
        got.starts_with(b"HTTP/1.1 200 ")
            && got
                .windows(52)
                .any(|w| w == b"\"body\":\"0123456789\",\"trailers\":[],\"request_index\":1,")
    );
    h.shutdown();
    h.join();
}

/// A chunked body sent a few bytes at a time, then a pipelined request after it: the echo's
/// data and trailers whatever the reads, `100 Continue` first when asked for, the next request
/// in sync, and the request index counting the connection's requests, echoed or not.
#[test]
fn a_body_split_across_reads_is_kept_whole() {
    let (h, addr) = start(&["--workers", "1", "--echo", "/e"]);
    let mut s = connect(addr);
    let body: &[u8] =
        b"5;ext=1\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nX-Sum: 12\r\nX-T:\tv \r\n\r\n";
    s.write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
    s.write_all(b"POST /e HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    for piece in body.chunks(3) {
        s.write_all(piece).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    s.write_all(b"GET /e?after HTTP/1.1\r\nHost: a\r\n\r\n")
        .unwrap();
    let r = read_responses(&mut s, 4);
    assert_eq!(
        r.iter().map(|r| r.status).collect::<Vec<_>>(),
        [200, 100, 200, 200]
    );
    assert_eq!(r[0].body, b"Hello World\n");
    let echo = String::from_utf8(r[2].body.clone()).unwrap();
    assert!(echo.contains("\"body\":\"hello world!\",\"trailers\":[{\"name\":\"X-Sum\",\"value\":\"12\"},{\"name\":\"X-T\",\"value\":\"v\"}],\"request_index\":2,"), "{echo}");
    let after = String::from_utf8(r[3].body.clone()).unwrap();
    assert!(
        after.contains("\"query\":\"after\"") && after.contains("\"request_index\":3,"),
        "{after}"
    );
    drop(s);
    h.shutdown();
    let stats = h.join().stats;
    assert_eq!(stats.requests, 3);
    assert_eq!(stats.by_status[200], 3);
}

/// The access log names an echoed request like any other, without the echo's bytes.
#[test]
fn the_access_log_names_echoes() {
    let mut p = Proc::start(&[
        "--echo",
        "/e",
        "--access-log",
        "--no-date",
        "--workers",
        "1",
    ]);
    let mut s = connect(p.addr);
    s.write_all(b"POST /e?q HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhiPOST /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        .unwrap();
    let got = read_to_eof(&mut s);
    assert!(got.starts_with(b"HTTP/1.1 200 "));
    drop(s);
    let stdout = p.child.stdout.take().unwrap();
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut log = String::new();
    std::io::BufReader::new(stdout)
        .read_to_string(&mut log)
        .unwrap();
    assert_eq!(
        log_words(&log),
        [
            "POST /e?q HTTP/1.1 200",
            "POST /e HTTP/1.1 400 rule=invalid_chunk_size"
        ]
    );
    // The two answers, the echo and the error, are all that was sent.
    let bytes: u64 = log.lines().map(|l| log_line(l).bytes).sum();
    assert_eq!(bytes, got.len() as u64, "{log}");
}

/// A request to an echo path refused for its announced length, after an echo on the same
/// connection, is logged whole: its line is not cut where the earlier echo's capture began.
#[test]
fn a_refused_echo_after_an_echo_is_logged_whole() {
    let mut p = Proc::start(&[
        "--echo",
        "/e",
        "--access-log",
        "--no-date",
        "--workers",
        "1",
        "--max-body-bytes",
        "10",
    ]);
    let mut s = connect(p.addr);
    s.write_all(b"POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhiPOST /e?a-longer-query HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n")
        .unwrap();
    let got = read_to_eof(&mut s);
    assert!(got.starts_with(b"HTTP/1.1 200 "));
    assert!(String::from_utf8_lossy(&got).contains("HTTP/1.1 413 "));
    drop(s);
    let stdout = p.child.stdout.take().unwrap();
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut log = String::new();
    std::io::BufReader::new(stdout)
        .read_to_string(&mut log)
        .unwrap();
    assert_eq!(
        log_words(&log),
        [
            "POST /e HTTP/1.1 200",
            "POST /e?a-longer-query HTTP/1.1 413 rule=body_too_large"
        ]
    );
    let bytes: u64 = log.lines().map(|l| log_line(l).bytes).sum();
    assert_eq!(bytes, got.len() as u64, "{log}");
}

/// The garden's quirks canned needs none of (`contrib/http-garden/canned`): with the image's
/// flags, HTTP/0.9 and an HTTP/1.1 request without `Host` are refused, and duplicate fields
/// come back apart, in order, with their names as sent.
#[test]
fn garden_adapter_needs_no_quirks() {
    let adapter = adapter_flags("contrib/http-garden/canned/Dockerfile");
    let flags: Vec<&str> = adapter.iter().map(String::as_str).collect();
    let (h, addr) = start(&flags);
    for req in [&b"GET /\r\n"[..], b"GET / HTTP/1.1\r\nX: y\r\n\r\n"] {
        let got = exchange(addr, req);
        assert!(
            got.starts_with(b"HTTP/1.1 400 "),
            "{:?}",
            String::from_utf8_lossy(&got)
        );
    }
    let mut s = connect(addr);
    s.write_all(b"GET / HTTP/1.1\r\nHost: h\r\nx-A: 1\r\nX-a: 2\r\n\r\n")
        .unwrap();
    let r = &read_responses(&mut s, 1)[0];
    let want = garden(
        "GET",
        "1.1",
        "/",
        &[("Host", b"h"), ("x-A", b"1"), ("X-a", b"2")],
        b"",
    );
    assert_eq!(String::from_utf8_lossy(&r.body), want);
    h.shutdown();
    h.join();
}

/// A Go program that POSTs to the echo URL it is given, on one keep-alive connection: a text
/// body by Content-Length, a binary body chunked, and a text body chunked with a trailer field.
/// It decodes each answer with `encoding/json` into the documented fields alone (an unknown
/// field is an error) and compares it with what net/http says it wrote (`httptrace`'s
/// `WroteHeaderField`, every field in order), then prints `ok`.
const GO_ECHO: &str = r#"package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"reflect"
)

type field struct {
	Name     string  `json:"name"`
	Value    *string `json:"value"`
	ValueB64 *string `json:"value_b64"`
}

type echo struct {
	Method       string  `json:"method"`
	Target       string  `json:"target"`
	Path         string  `json:"path"`
	Query        *string `json:"query"`
	Version      string  `json:"version"`
	Headers      []field `json:"headers"`
	Body         *string `json:"body"`
	BodyB64      *string `json:"body_b64"`
	Trailers     []field `json:"trailers"`
	RequestIndex int     `json:"request_index"`
	Client       string  `json:"client"`
	Local        string  `json:"local"`
}

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(1)
}

// pairs turns echoed fields into (name, value) pairs; every value here is text.
func pairs(fs []field) [][2]string {
	out := [][2]string{}
	for _, f := range fs {
		if f.Value == nil || f.ValueB64 != nil {
			fail("field %q: want a text value: %+v", f.Name, f)
		}
		out = append(out, [2]string{f.Name, *f.Value})
	}
	return out
}

// post sends body to url, chunked (its length hidden from net/http) or by length, with the
// trailer fields given, and returns the echo, the fields net/http wrote and whether the
// connection was one it had used before.
func post(url string, body []byte, chunked bool, trailer http.Header) (echo, [][2]string, bool) {
	var r io.Reader = bytes.NewReader(body)
	if chunked {
		r = io.MultiReader(r)
	}
	req, err := http.NewRequest("POST", url, r)
	if err != nil {
		fail("%v", err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("X-Client", "Go net/http")
	req.Trailer = trailer
	var wrote [][2]string
	reused := false
	var local, remote string
	trace := &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			reused = i.Reused
			local, remote = i.Conn.LocalAddr().String(), i.Conn.RemoteAddr().String()
		},
		WroteHeaderField: func(k string, v []string) {
			for _, x := range v {
				wrote = append(wrote, [2]string{k, x})
			}
		},
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("POST %s: %v", url, err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		fail("POST %s: %d %q", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var e echo
	dec := json.NewDecoder(resp.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		fail("POST %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if e.Client != local || e.Local != remote {
		fail("POST %s: client %q local %q, want %q %q", url, e.Client, e.Local, local, remote)
	}
	return e, wrote, reused
}

func main() {
	base := os.Args[1]
	binary := bytes.Repeat(func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}(), 40)
	cases := []struct {
		url, path, query string
		body             []byte
		chunked          bool
		trailer          http.Header
	}{
		{base + "?from=go&n=1", "/anything", "from=go&n=1", []byte("hello, go"), false, nil},
		{base, "/anything", "", binary, true, nil},
		{base + "?t", "/anything", "t", []byte("chunked with a trailer"), true, http.Header{"X-Sum": {"42"}}},
	}
	for i, c := range cases {
		e, wrote, reused := post(c.url, c.body, c.chunked, c.trailer)
		if e.Method != "POST" || e.Version != "HTTP/1.1" || e.Path != c.path {
			fail("case %d: %+v", i, e)
		}
		if want := c.url[len(base)-len(c.path):]; e.Target != want {
			fail("case %d: target %q, want %q", i, e.Target, want)
		}
		if c.query == "" && e.Query != nil || c.query != "" && (e.Query == nil || *e.Query != c.query) {
			fail("case %d: query %v, want %q", i, e.Query, c.query)
		}
		if got := pairs(e.Headers); !reflect.DeepEqual(got, wrote) {
			fail("case %d: echoed fields\n%q\nnet/http wrote\n%q", i, got, wrote)
		}
		var te, cl bool
		for _, f := range wrote {
			te = te || f[0] == "Transfer-Encoding" && f[1] == "chunked"
			cl = cl || f[0] == "Content-Length"
		}
		if te != c.chunked || cl == c.chunked {
			fail("case %d: chunked %v, but net/http wrote %q", i, c.chunked, wrote)
		}
		var body []byte
		if e.BodyB64 != nil {
			if e.Body != nil {
				fail("case %d: body and body_b64", i)
			}
			b, err := base64.StdEncoding.DecodeString(*e.BodyB64)
			if err != nil {
				fail("case %d: %v", i, err)
			}
			body = b
		} else if e.Body != nil {
			body = []byte(*e.Body)
		}
		if !bytes.Equal(body, c.body) {
			fail("case %d: body %q", i, body)
		}
		if (e.BodyB64 != nil) != (i == 1) {
			fail("case %d: body_b64 only for bytes that are not UTF-8: %+v", i, e)
		}
		wantTrailers := [][2]string{}
		for k, v := range c.trailer {
			wantTrailers = append(wantTrailers, [2]string{k, v[0]})
		}
		if got := pairs(e.Trailers); !reflect.DeepEqual(got, wantTrailers) {
			fail("case %d: trailers %q, want %q", i, got, wantTrailers)
		}
		if e.RequestIndex != i+1 || reused != (i > 0) {
			fail("case %d: request_index %d on a connection reused: %v", i, e.RequestIndex, reused)
		}
	}
	fmt.Println("ok")
}
"#;

/// Go's net/http POSTs to `--echo /anything` on one keep-alive connection, with one and two
/// workers: a body by Content-Length, a binary body chunked (`body_b64`) and a chunked one with
/// a trailer field. Every echoed field is one net/http reports writing, in its order, with its
/// value; the body and trailers are what was sent; `request_index` counts 1, 2, 3.
#[test]
fn go_posts_are_echoed() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new("echo", GO_ECHO);
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--echo", "/anything", "--no-date"]);
        let o = go.run(&[p.url("/anything")]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "ok\n",
            "{workers} workers: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (code, _) = p.stop();
        assert_eq!(code, 0);
    }
}

/// The JSON echo names who asked: `client` is the address of the client's socket, `local` the
/// one the request arrived on; an IPv4 client of a `[::]` listener as IPv4. Read by curl and
/// by Python's requests, one and two workers.
#[test]
fn the_json_echo_names_the_client_and_the_local_address() {
    if !have("curl") || !have("python3") {
        return;
    }
    let script = r#"
import sys, requests
url, server = sys.argv[1], sys.argv[2]
r = requests.get(url, stream=True)
mine = "%s:%d" % r.raw._connection.sock.getsockname()[:2]
m = r.json()
assert m["client"] == mine and m["local"] == server, (m, mine, server)
print("ok")
"#;
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--echo", "/e"]);
        let o = Command::new("curl")
            .args(["-s", "-w", "\n%{local_ip}:%{local_port}"])
            .arg(p.url("/e"))
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        let (body, mine) = out.rsplit_once('\n').unwrap();
        let want = format!(",\"client\":\"{mine}\",\"local\":\"{}\"}}", p.addr);
        assert!(body.trim_end().ends_with(&want), "{body}");
        let (url, server) = (p.url("/e"), p.addr.to_string());
        python_ok(script, &[url.as_ref(), server.as_ref()], workers);
    }
    // A dual-stack listener: the addresses of an IPv4 client are IPv4-mapped IPv6 ones.
    if std::net::TcpListener::bind("[::]:0").is_err() {
        return;
    }
    let mut cmd = Command::new(bin());
    cmd.args(["--listen", "[::]:0", "--echo", "/e"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped());
    let (_child, _stderr, line) = spawn_listening(&mut cmd);
    let port = listening_addr(&line).port();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mine = s.local_addr().unwrap();
    s.write_all(b"GET /e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let out = String::from_utf8(read_to_eof(&mut s)).unwrap();
    let want = format!(",\"client\":\"{mine}\",\"local\":\"127.0.0.1:{port}\"}}");
    assert!(out.contains(&want), "{out}");
}
