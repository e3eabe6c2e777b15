//! Http11Probe's tests that need an echo, run against canned with the flags of its adapter
//! (`contrib/http11probe/CannedServer/Dockerfile`): each case is the probe's request, byte for
//! byte, and its validator's rule for a pass (its `ComplianceSuite.cs` `EchoValidator` and
//! `CookieSuite.cs`). canned must pass every one, with 1 and 2 workers.
#![cfg(feature = "echo")]

use crate::common;

use common::*;
use std::io::Write;

/// What the probe's validator accepts of a 2xx response's body.
enum Want {
    /// The body (without trailing CR and LF) is this.
    Body(&'static str),
    /// The body holds each of these.
    Holds(&'static [&'static str]),
}

struct Case {
    id: &'static str,
    request: String,
    want: Want,
}

fn cases() -> Vec<Case> {
    let host = "Host: localhost:8080\r\n";
    let post = |body: &str| format!("POST / HTTP/1.1\r\n{host}{body}");
    let get = |path: &str, cookie: &str| format!("GET {path} HTTP/1.1\r\n{host}{cookie}\r\n");
    vec![
        Case {
            id: "COMP-POST-CL-BODY",
            request: post("Content-Length: 5\r\n\r\nhello"),
            want: Want::Body("hello"),
        },
        Case {
            id: "COMP-CHUNKED-BODY",
            request: post("Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
            want: Want::Body("hello"),
        },
        Case {
            id: "COMP-CHUNKED-MULTI",
            request: post(
                "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            ),
            want: Want::Body("hello world"),
        },
        Case {
            id: "COMP-CHUNKED-TRAILER-VALID",
            request: post(
                "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n",
            ),
            want: Want::Body("hello"),
        },
        Case {
            id: "COMP-CHUNKED-HEX-UPPERCASE",
            request: post("Transfer-Encoding: chunked\r\n\r\nA\r\nhelloworld\r\n0\r\n\r\n"),
            want: Want::Body("helloworld"),
        },
        Case {
            id: "COOK-ECHO",
            request: get("/echo", "Cookie: foo=bar\r\n"),
            want: Want::Holds(&["Cookie: foo=bar"]),
        },
        Case {
            id: "COOK-MULTI-HEADER",
            request: get("/echo", "Cookie: a=1\r\nCookie: b=2\r\n"),
            want: Want::Holds(&["Cookie: a=1", "Cookie: b=2"]),
        },
        Case {
            id: "COOK-PARSED-BASIC",
            request: get("/cookie", "Cookie: foo=bar\r\n"),
            want: Want::Body("foo=bar"),
        },
        Case {
            id: "COOK-PARSED-MULTI",
            request: get("/cookie", "Cookie: a=1; b=2; c=3\r\n"),
            want: Want::Body("a=1\nb=2\nc=3"),
        },
        Case {
            id: "COOK-PARSED-EMPTY-VAL",
            request: get("/cookie", "Cookie: foo=\r\n"),
            want: Want::Holds(&["foo="]),
        },
        Case {
            id: "COOK-PARSED-SPECIAL",
            request: get("/cookie", "Cookie: a=hello world; b=x=y\r\n"),
            want: Want::Body("a=hello world\nb=x=y"),
        },
        Case {
            id: "COOK-MALFORMED",
            request: get("/echo", "Cookie: ===;;;\r\n"),
            want: Want::Holds(&["Cookie: ===;;;"]),
        },
    ]
}

fn check(case: &Case, r: &Resp) {
    assert!(
        (200..300).contains(&r.status),
        "{}: status {}",
        case.id,
        r.status
    );
    let body = String::from_utf8_lossy(&r.body);
    match case.want {
        Want::Body(b) => assert_eq!(body.trim_end_matches(['\r', '\n']), b, "{}", case.id),
        Want::Holds(all) => {
            for part in all {
                assert!(body.contains(part), "{}: {part:?} not in {body:?}", case.id);
            }
        }
    }
}

#[test]
fn echo_tests_pass_with_the_adapters_flags() {
    let adapter = adapter_flags("contrib/http11probe/CannedServer/Dockerfile");
    for workers in ["1", "2"] {
        let mut flags = vec!["--workers", workers];
        flags.extend(adapter.iter().map(String::as_str));
        let (h, addr) = start(&flags);
        // The probe sends each request on a connection of its own.
        for case in &cases() {
            let mut s = connect(addr);
            s.write_all(case.request.as_bytes()).unwrap();
            check(case, &read_responses(&mut s, 1)[0]);
        }
        // And all of them pipelined on one connection.
        let wire: String = cases().iter().map(|c| c.request.as_str()).collect();
        let mut s = connect(addr);
        s.write_all(wire.as_bytes()).unwrap();
        for (case, r) in cases().iter().zip(read_responses(&mut s, cases().len())) {
            check(case, &r);
        }
        drop(s);
        h.shutdown();
        h.join();
    }
}

/// The probe's cookie tests that canned must refuse or survive (COOK-NUL, COOK-CONTROL-CHARS:
/// 400 without the byte echoed, or a 2xx without it; COOK-OVERSIZED: 400 or 431): a strict
/// parser refuses control bytes in a field value, and a 64 KiB field is over the head limit.
#[test]
fn hostile_cookies_are_refused() {
    let adapter = adapter_flags("contrib/http11probe/CannedServer/Dockerfile");
    let flags: Vec<&str> = adapter.iter().map(String::as_str).collect();
    let (h, addr) = start(&flags);
    for (id, cookie, status) in [
        ("COOK-NUL", "foo=\0bar".to_string(), 400),
        ("COOK-CONTROL-CHARS", "foo=\x01\x02\x03".to_string(), 400),
        ("COOK-OVERSIZED", format!("big={}", "A".repeat(65536)), 431),
    ] {
        let req = format!("GET /echo HTTP/1.1\r\nHost: localhost:8080\r\nCookie: {cookie}\r\n\r\n");
        let got = exchange(addr, req.as_bytes());
        let head = String::from_utf8_lossy(&got[..got.len().min(12)]).to_string();
        assert_eq!(head, format!("HTTP/1.1 {status}"), "{id}");
        assert!(!got.contains(&0), "{id}: a NUL came back");
    }
    h.shutdown();
    h.join();
}
