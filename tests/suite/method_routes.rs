//! Routes by method (`--route 'POST /orders=201:…'`): only that method on the path, HEAD with
//! the GET route, other methods to the path's route without a method, else 405 with `Allow`
//! naming exactly the methods of the path's routes; faults on a route by method; the
//! command line's errors. Raw sockets with one and two workers, and curl.

use crate::common;
use common::*;
use std::io::Write;
use std::process::Command;

/// Send `req` (one request) on a keep-alive connection and read its response.
fn ask(addr: std::net::SocketAddr, req: &str) -> Resp {
    let mut s = connect(addr);
    s.write_all(req.as_bytes()).unwrap();
    let head = req.starts_with("HEAD ");
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = std::io::Read::read(&mut s, &mut chunk).unwrap();
        assert!(n > 0, "closed before a response: {buf:?}");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(r) = parse_responses(&buf, &[head]).into_iter().next() {
            return r;
        }
    }
}

fn req(method: &str, path: &str) -> String {
    let body = if method == "POST" || method == "PUT" {
        "Content-Length: 2\r\n\r\nhi"
    } else {
        "\r\n"
    };
    format!("{method} {path} HTTP/1.1\r\nHost: a\r\n{body}")
}

#[test]
fn a_route_by_method_answers_that_method_only() {
    for workers in ["1", "2"] {
        let (_h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            "POST /orders=201:created",
            "--route",
            "GET /orders=200:list",
            "--route",
            "DELETE /orders=204",
        ]);
        let r = ask(addr, &req("POST", "/orders"));
        assert_eq!((r.status, r.body.as_slice()), (201, &b"created"[..]));
        let r = ask(addr, &req("GET", "/orders?x=1"));
        assert_eq!((r.status, r.body.as_slice()), (200, &b"list"[..]));
        // HEAD is answered by the GET route: its head, no body.
        let r = ask(addr, &req("HEAD", "/orders"));
        assert_eq!(r.status, 200);
        assert_eq!(r.header("Content-Length"), Some("4"));
        assert!(r.body.is_empty());
        let r = ask(addr, &req("DELETE", "/orders"));
        assert_eq!(r.status, 204);
        // Any other method: 405 with the methods the path's routes answer, in their order.
        for m in ["PUT", "PATCH", "OPTIONS", "TRACE", "get"] {
            let r = ask(addr, &req(m, "/orders"));
            assert_eq!(r.status, 405, "{m}");
            assert_eq!(r.header("Allow"), Some("POST, GET, HEAD, DELETE"), "{m}");
        }
        // The 405 keeps the connection open, as every route's answer does.
        let mut s = connect(addr);
        s.write_all(format!("{}{}", req("PUT", "/orders"), req("POST", "/orders")).as_bytes())
            .unwrap();
        let rs = read_responses(&mut s, 2);
        assert_eq!((rs[0].status, rs[1].status), (405, 201));
        // Other paths: the default response, whatever the method.
        let r = ask(addr, &req("PUT", "/other"));
        assert_eq!((r.status, r.body.as_slice()), (200, &b"Hello World\n"[..]));
    }
}

#[test]
fn other_methods_fall_through_to_the_paths_route_without_a_method() {
    for workers in ["1", "2"] {
        // Given before the route by method: the method still wins on its own path.
        let (_h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            "/orders=200:any",
            "--route",
            "POST /orders=201:created",
        ]);
        let r = ask(addr, &req("POST", "/orders"));
        assert_eq!((r.status, r.body.as_slice()), (201, &b"created"[..]));
        for m in ["GET", "PUT", "DELETE"] {
            let r = ask(addr, &req(m, "/orders"));
            assert_eq!((r.status, r.body.as_slice()), (200, &b"any"[..]), "{m}");
        }
    }
}

#[test]
fn allow_lists_only_the_methods_of_its_own_path() {
    let (_h, addr) = start(&[
        "--route",
        "PUT /a=200",
        "--route",
        "POST /b=201",
        "--route",
        "PATCH /a=200",
        "--route",
        "OPTIONS /b=204",
    ]);
    assert_eq!(
        ask(addr, &req("GET", "/a")).header("Allow"),
        Some("PUT, PATCH")
    );
    let r = ask(addr, &req("GET", "/b"));
    assert_eq!((r.status, r.header("Allow")), (405, Some("POST, OPTIONS")));
    assert_eq!(ask(addr, &req("OPTIONS", "/b")).status, 204);
    // HEAD without a GET route is a method like any other.
    let r = ask(addr, &req("HEAD", "/a"));
    assert_eq!((r.status, r.header("Allow")), (405, Some("PUT, PATCH")));
}

#[test]
fn methods_list_is_applied_before_the_routes() {
    let (_h, addr) = start(&["--methods", "GET,POST", "--route", "POST /o=201"]);
    assert_eq!(ask(addr, &req("POST", "/o")).status, 201);
    let r = ask(addr, &req("GET", "/o"));
    assert_eq!((r.status, r.header("Allow")), (405, Some("POST")));
    // PUT is not in --methods: the server's 405, with the server's Allow.
    let r = ask(addr, &req("PUT", "/o"));
    assert_eq!(
        (r.status, r.header("Allow")),
        (405, Some("GET, POST, OPTIONS"))
    );
}

#[cfg(feature = "faults")]
#[test]
fn a_fault_attaches_to_a_route_by_method() {
    for workers in ["1", "2"] {
        let (_h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            "POST /orders=201:created",
            "--route",
            "GET /orders=200:list",
            "--fault",
            "POST /orders=error:100%:503",
            // A new route by method, with the default response.
            "--fault",
            "PUT /new=error:100%:502",
        ]);
        assert_eq!(ask(addr, &req("POST", "/orders")).status, 503);
        assert_eq!(ask(addr, &req("GET", "/orders")).status, 200);
        assert_eq!(ask(addr, &req("PUT", "/new")).status, 502);
        let r = ask(addr, &req("GET", "/new"));
        assert_eq!((r.status, r.header("Allow")), (405, Some("PUT")));
        // A reset on the route by method: the connection ends without a response.
        let (_h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            "POST /o=201",
            "--fault",
            "POST /o=reset:0",
        ]);
        assert!(exchange(addr, req("POST", "/o").as_bytes()).is_empty());
        assert_eq!(ask(addr, &req("GET", "/o")).status, 405);
    }
}

#[test]
fn curl_sees_each_method_answered() {
    if !have("curl") {
        return;
    }
    let p = Proc::start(&[
        "--workers",
        "2",
        "--route",
        "POST /orders=201:created",
        "--route",
        "GET /orders=200:list",
    ]);
    let curl = |args: &[&str]| {
        let o = Command::new("curl")
            .args(["-s", "-i", "--max-time", "10"])
            .args(args)
            .arg(p.url("/orders"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    let post = curl(&["-d", "x=1"]);
    assert!(post.starts_with("HTTP/1.1 201 Created\r\n"), "{post}");
    assert!(post.ends_with("\r\n\r\ncreated"), "{post}");
    let get = curl(&[]);
    assert!(
        get.starts_with("HTTP/1.1 200 OK\r\n") && get.ends_with("list"),
        "{get}"
    );
    let head = curl(&["-I"]);
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(head.contains("Content-Length: 4\r\n"), "{head}");
    let put = curl(&["-X", "PUT"]);
    assert!(
        put.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
        "{put}"
    );
    assert!(put.contains("\r\nAllow: POST, GET, HEAD\r\n"), "{put}");
}

/// The command line's one-line error for `args`.
#[cfg(all(feature = "echo", feature = "faults", feature = "stats"))]
fn error(args: &[&str]) -> String {
    let o = Command::new(bin())
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    let e = String::from_utf8(o.stderr).unwrap();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[cfg(all(feature = "echo", feature = "faults", feature = "stats"))]
#[test]
fn bad_routes_by_method_are_one_line_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--route", "HEAD /a=200"],
            "--route: HEAD /a: a HEAD request is answered by the GET route",
        ),
        (
            &["--route", "CONNECT /a=200"],
            "--route: CONNECT /a: CONNECT is always 405",
        ),
        (
            &["--route", "P@ST /a=200"],
            "--route: \"P@ST\" is not a method name",
        ),
        (&["--route", "POST a=200"], "--route: \"a\" is not a path"),
        (
            &["--route", "POST /a=200", "--route", "POST /a=201"],
            "--route: path POST /a is given twice",
        ),
        (
            &["--route", "POST /a=200", "--health", "/a"],
            "--route POST /a and --health both answer /a",
        ),
        (
            &["--route", "GET /a=200", "--echo", "/a"],
            "--route GET /a and --echo both answer /a",
        ),
        (
            &["--route", "GET /a=200", "--stats", "/a"],
            "--route GET /a and --stats both answer /a",
        ),
        (
            &["--route", "POST /a=200", "--fault", "/a=reset:0"],
            "--fault: /a has routes by method only",
        ),
        (
            &["--fault", "HEAD /a=reset:0"],
            "--fault: HEAD /a: a HEAD request is answered by the GET route",
        ),
    ];
    for (args, want) in cases {
        let e = error(args);
        assert!(
            e.starts_with(&format!("canned: error: {want}")),
            "{args:?}: {e}"
        );
    }
}
