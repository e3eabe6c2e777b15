//! `--admin`'s `/routes/PATH`: a route's answer read, replaced, added and removed while the
//! server runs, driven by curl and Python. A change reaches every worker's keep-alive
//! connections (HTTP/1 and HTTP/2) before their next request; a bad one is refused whole with
//! the line and the reason; an answer replaced 10,000 times leaves memory where it was.
#![cfg(all(feature = "admin", feature = "http2", feature = "ranges"))]

use crate::common;
use common::*;
use std::io::{BufRead, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

/// `curl -X METHOD [--data-binary BODY] URL`: (status, body).
fn curl(method: &str, url: &str, body: Option<&str>) -> (u16, String) {
    let mut c = Command::new("curl");
    c.args(["-s", "-X", method, "-w", "\n%{http_code}"]);
    if let Some(b) = body {
        c.args(["--data-binary", b]);
    }
    let o = c.arg(url).output().unwrap();
    assert!(o.status.success(), "curl {method} {url}");
    let out = String::from_utf8(o.stdout).unwrap();
    let (body, code) = out.rsplit_once('\n').unwrap();
    (code.parse().unwrap(), body.to_string())
}

/// One request to the admin API on its own connection: (status, body).
fn admin(a: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let mut s = connect(a);
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: a\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    s.write_all(&req).unwrap();
    let r = read_to_eof(&mut s);
    let at = r
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("{method} {path}: no answer ({} bytes)", r.len()));
    let status = std::str::from_utf8(&r[9..12]).unwrap().parse().unwrap();
    (status, String::from_utf8_lossy(&r[at + 4..]).into_owned())
}

/// One request of `method` on `path` on keep-alive connection `s`.
fn ask(s: &mut TcpStream, method: &str, path: &str) -> Resp {
    write!(s, "{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    read_responses(s, 1).remove(0)
}

/// A route added, replaced and removed through curl, with 1 and 2 workers: the next request
/// on each of 16 keep-alive connections open before each change gets the new answer, its
/// type and its own fields; after the DELETE the path answers as an unrouted one.
#[test]
fn a_route_change_reaches_every_keep_alive_connection() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--admin",
            "127.0.0.1:0",
            "--body",
            "default",
            "--route",
            "/old=200:at start",
        ]);
        let url = |p: &str| format!("http://{}{p}", h.admin_addr().unwrap());
        let mut conns: Vec<TcpStream> = (0..16).map(|_| connect(addr)).collect();
        for s in &mut conns {
            let r = ask(s, "GET", "/new");
            assert_eq!((r.status, r.body.as_slice()), (200, &b"default"[..]));
        }
        let put = "201:made at runtime\nContent-Type: application/json\nX-Made: yes";
        let (code, body) = curl("PUT", &url("/routes/new"), Some(put));
        assert_eq!(
            (code, body.as_str()),
            (
                201,
                "/new=201:made at runtime\nContent-Type: application/json\nX-Made: yes\n"
            ),
            "{workers} workers"
        );
        for s in &mut conns {
            let r = ask(s, "GET", "/new");
            assert_eq!(
                (r.status, r.body.as_slice()),
                (201, &b"made at runtime"[..])
            );
            assert_eq!(r.header("content-type"), Some("application/json"));
            assert_eq!(r.header("x-made"), Some("yes"));
            assert_eq!(ask(s, "GET", "/old").body, b"at start", "another route");
        }
        // A route given at start, replaced, then removed.
        let (code, _) = curl("PUT", &url("/routes/old"), Some("202:replaced"));
        assert_eq!(code, 200);
        for s in &mut conns {
            let r = ask(s, "GET", "/old");
            assert_eq!((r.status, r.body.as_slice()), (202, &b"replaced"[..]));
        }
        for p in ["/routes/new", "/routes/old"] {
            let (code, body) = curl("DELETE", &url(p), None);
            assert_eq!(code, 200, "{body}");
        }
        for s in &mut conns {
            for p in ["/new", "/old"] {
                let r = ask(s, "GET", p);
                assert_eq!((r.status, r.body.as_slice()), (200, &b"default"[..]), "{p}");
            }
        }
        assert_eq!(curl("GET", &url("/routes/new"), None).0, 404);
        assert_eq!(curl("DELETE", &url("/routes/new"), None).0, 404);
        h.shutdown();
        h.join();
    }
}

/// One HTTP/2 connection (Python's h2) open across a PUT, a second PUT and a DELETE: each
/// stream after a change gets the change, its type and fields included.
#[test]
fn an_http2_connection_sees_each_change() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--admin", "127.0.0.1:0"]);
        let a = h.admin_addr().unwrap();
        let script = r#"
import socket, sys, urllib.request
import h2.connection, h2.events
port, admin = int(sys.argv[1]), int(sys.argv[2])
def change(method, body=None):
    req = urllib.request.Request("http://127.0.0.1:%d/routes/r" % admin, data=body, method=method)
    return urllib.request.urlopen(req).status
s = socket.create_connection(("127.0.0.1", port))
c = h2.connection.H2Connection()
c.initiate_connection()
s.sendall(c.data_to_send())
sid = [1]
def get():
    i = sid[0]; sid[0] += 2
    c.send_headers(i, [(":method", "GET"), (":path", "/r"), (":scheme", "http"), (":authority", "x")], end_stream=True)
    s.sendall(c.data_to_send())
    headers, body = {}, b""
    while True:
        data = s.recv(65536)
        assert data, "closed"
        for e in c.receive_data(data):
            if isinstance(e, h2.events.ResponseReceived):
                headers = {k.decode(): v.decode() for k, v in e.headers}
            elif isinstance(e, h2.events.DataReceived):
                body += e.data
                c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            elif isinstance(e, h2.events.StreamEnded) and e.stream_id == i:
                s.sendall(c.data_to_send())
                return headers, body
        s.sendall(c.data_to_send())
h, b = get()
assert h[":status"] == "200", h
assert change("PUT", b"201:first\r\nContent-Type: application/json\r\nX-Made: 1") == 201
h, b = get()
assert (h[":status"], b, h["content-type"], h["x-made"]) == ("201", b"first", "application/json", "1"), (h, b)
assert change("PUT", b"203:second") == 200
h, b = get()
assert (h[":status"], b, "x-made" in h) == ("203", b"second", False), (h, b)
assert change("DELETE") == 200
h, b = get()
assert h[":status"] == "200" and b != b"second", (h, b)
print("ok")
"#;
        let (port, admin) = (addr.port().to_string(), a.port().to_string());
        let args = [std::ffi::OsStr::new(&port), std::ffi::OsStr::new(&admin)];
        python_ok(script, &args, "HTTP/2 across route changes");
        h.shutdown();
        h.join();
    }
}

/// Routes by method: a PUT with `?method=` adds one, the path's 405 lists the methods of its
/// routes as they are after each change, and GET lists them.
#[test]
fn routes_by_method_keep_their_405_in_step() {
    let (h, addr) = start(&[
        "--admin",
        "127.0.0.1:0",
        "--route",
        "POST /orders=201:created",
    ]);
    let a = h.admin_addr().unwrap();
    let mut s = connect(addr);
    assert_eq!(
        ask(&mut s, "DELETE", "/orders").header("allow"),
        Some("POST")
    );
    let (code, body) = admin(a, "PUT", "/routes/orders?method=DELETE", b"204");
    assert_eq!(code, 201, "{body}");
    assert_eq!(ask(&mut s, "DELETE", "/orders").status, 204);
    assert_eq!(ask(&mut s, "POST", "/orders").status, 201);
    let r = ask(&mut s, "GET", "/orders");
    assert_eq!((r.status, r.header("allow")), (405, Some("POST, DELETE")));
    // A route for every other method, after the routes by method.
    assert_eq!(admin(a, "PUT", "/routes/orders", b"200:list").0, 201);
    assert_eq!(ask(&mut s, "GET", "/orders").body, b"list");
    assert_eq!(ask(&mut s, "DELETE", "/orders").status, 204);
    let (code, list) = admin(a, "GET", "/routes", b"");
    assert_eq!(code, 200);
    assert_eq!(
        list,
        "POST /orders=201:created\nDELETE /orders=204\n/orders=200:list\n"
    );
    assert_eq!(admin(a, "DELETE", "/routes/orders", b"").0, 200);
    assert_eq!(admin(a, "DELETE", "/routes/orders?method=POST", b"").0, 200);
    let r = ask(&mut s, "GET", "/orders");
    assert_eq!((r.status, r.header("allow")), (405, Some("DELETE")));
    assert_eq!(
        admin(a, "DELETE", "/routes/orders?method=DELETE", b"").0,
        200
    );
    assert_eq!(ask(&mut s, "POST", "/orders").status, 200, "unrouted again");
    assert_eq!(admin(a, "GET", "/routes", b"").1, "\n", "none left");
    h.shutdown();
    h.join();
}

/// Every bad PUT is refused whole with a 400 (or 409) naming the line and the reason, and
/// the route answers as before; `@FILE` takes its type from the extension.
#[test]
fn bad_changes_are_refused_whole() {
    let dir = std::env::temp_dir().join(format!("canned-admin-routes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("answer.json");
    std::fs::write(&file, b"{\"ok\":true}").unwrap();
    let (h, addr) = start(&[
        "--admin",
        "127.0.0.1:0",
        "--route",
        "/x=200:kept",
        "--route",
        "/slow=200:ok",
        "--fault",
        "/slow=latency:1ms",
        "--health",
        "/healthz",
        "--echo",
        "/echo",
    ]);
    let a = h.admin_addr().unwrap();
    let cases: &[(&str, &[u8], u16, &str)] = &[
        ("/routes/x", b"999:x", 400, "line 1: status 999"),
        (
            "/routes/x",
            b"200:x\nBad Line",
            400,
            "line 2: \"Bad Line\" is not a header",
        ),
        (
            "/routes/x",
            b"200:x\n\nContent-Length: 3",
            400,
            "line 3: Content-Length is set by",
        ),
        ("/routes/x", b"200:x\nX-A: a\x01b", 400, "line 2:"),
        (
            "/routes/x",
            b"301\nLocation: /a\nLocation: /b",
            400,
            "line 3: a second Location",
        ),
        ("/routes/x", b"204:body", 400, "line 1:"),
        ("/routes/x", b"200:@/nonexistent/file", 400, "line 1:"),
        ("/routes/x", b"", 400, "no answer given"),
        ("/routes/x", b"\xff", 400, "not UTF-8"),
        ("/routes/x?method=HEAD", b"200", 400, "HEAD /x"),
        ("/routes/x?meth=GET", b"200", 400, "not method=METHOD"),
        ("/routes/slow", b"200", 409, "DELETE /faults/slow first"),
        ("/routes/healthz", b"200", 409, "--health"),
        ("/routes/echo", b"200", 409, "--health, --echo"),
        ("/routes/*", b"200", 400, "default response"),
    ];
    let mut s = connect(addr);
    for (path, body, status, says) in cases {
        let (code, answer) = admin(a, "PUT", path, body);
        assert_eq!(code, *status, "PUT {path} {body:?}: {answer}");
        assert!(
            answer.contains(says),
            "PUT {path}: {answer:?} lacks {says:?}"
        );
        let r = ask(&mut s, "GET", "/x");
        assert_eq!((r.status, r.body.as_slice()), (200, &b"kept"[..]));
    }
    assert_eq!(admin(a, "PATCH", "/routes/x", b"").0, 405);
    // A good one, from a file: its type from the extension.
    let put = format!("200:@{}", file.display());
    assert_eq!(admin(a, "PUT", "/routes/x", put.as_bytes()).0, 200);
    let r = ask(&mut s, "GET", "/x");
    assert_eq!(r.body, b"{\"ok\":true}");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(
        admin(a, "GET", "/routes/x", b"")
            .1
            .starts_with(&format!("/x={put}\n")),
        "GET names the file"
    );
    // A route whose answer changed takes no faults (they name its answer at start).
    assert_eq!(admin(a, "PUT", "/faults/x", b"latency:1ms").0, 409);
    // Removing the faults lets the route change.
    assert_eq!(admin(a, "DELETE", "/faults/slow", b"").0, 200);
    assert_eq!(admin(a, "PUT", "/routes/slow", b"200:fast").0, 200);
    assert_eq!(ask(&mut s, "GET", "/slow").body, b"fast");
    h.shutdown();
    h.join();
    let _ = std::fs::remove_dir_all(&dir);
}

/// One route's answer replaced 10,000 times, each a new 6 KB body, on 2 workers with a
/// keep-alive connection asking between changes: memory comes back near where it was
/// (keeping every answer would be 60 MB more), and the last answer is served.
#[test]
fn a_route_replaced_ten_thousand_times_is_freed() {
    let mut p = Proc::start(&[
        "--workers",
        "2",
        "--admin",
        "127.0.0.1:0",
        "--route",
        "/x=200:ok",
    ]);
    let a = admin_addr(&mut p);
    let mut c = connect(p.addr);
    let put = |i: usize| {
        let mut body = format!("200:{i:05}");
        body.extend(std::iter::repeat_n('b', 6_000));
        let (status, answer) = admin(a, "PUT", "/routes/x", body.as_bytes());
        assert_eq!(status, 200, "PUT {i}: {answer}");
    };
    // Every path once before measuring (under emulation, code run for the first time grows
    // the translation cache).
    put(0);
    assert_eq!(ask(&mut c, "GET", "/x").status, 200);
    let before = p.rss_kib();
    for i in 0..10_000 {
        put(i);
        if i % 500 == 0 {
            let r = ask(&mut c, "GET", "/x");
            assert!(r.body.starts_with(format!("{i:05}").as_bytes()) && r.body.len() == 6_005);
        }
    }
    assert_eq!(admin(a, "PUT", "/routes/x", b"200:last").0, 200);
    let deadline = Instant::now() + time_bound(Duration::from_secs(5));
    let mut grown_kib = p.rss_kib().saturating_sub(before);
    while grown_kib >= 8 * 1024 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(ask(&mut c, "GET", "/x").body, b"last");
        grown_kib = p.rss_kib().saturating_sub(before);
    }
    assert_eq!(ask(&mut c, "GET", "/x").body, b"last");
    eprintln!("RSS after 10,000 route changes of 6 KB: +{grown_kib} KiB");
    assert!(grown_kib < 8 * 1024, "RSS grew by {grown_kib} KiB");
}

/// The admin address a server process printed after its listening line.
fn admin_addr(p: &mut Proc) -> SocketAddr {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(p.stderr.read_line(&mut line).unwrap() > 0, "no admin line");
        if let Some(rest) = line.strip_prefix("canned admin API on ") {
            return rest.split(' ').next().unwrap().parse().unwrap();
        }
    }
}

const GO_ROUTES: &str = r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
)

func fail(f string, a ...any) {
	fmt.Fprintf(os.Stderr, f+"\n", a...)
	os.Exit(1)
}

// One client for the traffic, its keep-alive connection kept across the changes.
var traffic = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}

func call(method, path, body string) (int, string) {
	req, _ := http.NewRequest(method, os.Args[1]+path, strings.NewReader(body))
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("%s %s: %v", method, path, err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	return r.StatusCode, string(b)
}

// Connections the traffic opened: one, kept alive across every change.
var opened = 0

func want(what string, status int, body, ctype string) {
	req, _ := http.NewRequest("GET", os.Args[2], nil)
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if !i.Reused {
			opened++
		}
	}}
	r, err := traffic.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil {
		fail("%s: %v", what, err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != status || string(b) != body || (ctype != "" && r.Header.Get("Content-Type") != ctype) {
		fail("%s: %d %q %q, want %d %q %q", what, r.StatusCode, b, r.Header.Get("Content-Type"), status, body, ctype)
	}
}

func main() {
	want("before", 200, "default", "")
	if s, a := call("PUT", "/routes/r", "201:{\"made\":1}\nContent-Type: application/json"); s != 201 {
		fail("PUT: %d %q", s, a)
	}
	want("after the PUT", 201, "{\"made\":1}", "application/json")
	if s, a := call("PUT", "/routes/r", "200:x\nX-A: b\nNot a field"); s != 400 || !strings.HasPrefix(a, "line 3: ") {
		fail("a bad PUT: %d %q", s, a)
	}
	want("after the bad PUT", 201, "{\"made\":1}", "application/json")
	if s, a := call("DELETE", "/routes/r", ""); s != 200 || a != "removed /r\n" {
		fail("DELETE: %d %q", s, a)
	}
	want("after the DELETE", 200, "default", "")
	if opened != 1 {
		fail("the traffic opened %d connections", opened)
	}
	fmt.Println("ok")
}
"#;

/// Go's net/http adds a route, fails to change it with a bad line, and removes it, and sees
/// each change on the keep-alive connection it opened before the first, with 1 and 2 workers.
#[test]
fn go_changes_a_route_and_sees_it_on_its_keep_alive_connection() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new("admin_routes", GO_ROUTES);
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--admin",
            "127.0.0.1:0",
            "--body",
            "default",
            "--workers",
            workers,
        ]);
        let a = h.admin_addr().unwrap();
        let o = go.run(&[format!("http://{a}"), format!("http://{addr}/r")]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "ok\n",
            "{workers} workers: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        h.shutdown();
        h.join();
    }
}

/// A download under way when its route's answer is replaced twice ends with the bytes it
/// began with (its answer's index is kept by the worker sending it, and given to no new
/// answer meanwhile), while a request after the changes gets the new answer, with 1 and 2
/// workers.
#[test]
fn a_download_under_way_keeps_its_bytes_across_changes() {
    let dir = std::env::temp_dir().join(format!("canned-admin-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.bin");
    let big: Vec<u8> = (0..4u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&file, &big).unwrap();
    let route = format!("/big=200:@{}", file.display());
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--admin",
            "127.0.0.1:0",
            "--route",
            &route,
        ]);
        let a = h.admin_addr().unwrap();
        let mut s = connect(addr);
        write!(s, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut got = vec![0u8; 64 * 1024];
        std::io::Read::read_exact(&mut s, &mut got).unwrap();
        for body in ["200:second", "200:third"] {
            assert_eq!(admin(a, "PUT", "/routes/big", body.as_bytes()).0, 200);
        }
        let mut c = connect(addr);
        assert_eq!(ask(&mut c, "GET", "/big").body, b"third");
        let mut rest = Vec::new();
        let head_len = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        while got.len() + rest.len() < head_len + big.len() {
            let mut buf = [0u8; 65536];
            let n = std::io::Read::read(&mut s, &mut buf).unwrap();
            assert!(n > 0, "closed early");
            rest.extend_from_slice(&buf[..n]);
        }
        got.extend_from_slice(&rest);
        assert!(
            got[head_len..] == big[..],
            "{workers} workers: the body changed on the way"
        );
        // The same connection's next request gets the new answer.
        assert_eq!(ask(&mut s, "GET", "/big").body, b"third");
        h.shutdown();
        h.join();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
