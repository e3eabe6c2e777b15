//! go-httpbin's paths under `--control`: a table of requests, what go-httpbin answers (read
//! from its handlers, `httpbin/handlers.go` in mccutchen/go-httpbin), and what canned answers,
//! asserted with curl, Python's http.client and Go's net/http, one and two workers.

mod common;
use common::*;
use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

/// One row: the target; go-httpbin's status, body length (`None`: a JSON echo, its length
/// varies) and content type; canned's status, body length and content type.
struct Row {
    target: &'static str,
    httpbin: (u16, Option<usize>, &'static str),
    canned: (u16, Option<usize>, &'static str),
}

const TEXT: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";
const OCTETS: &str = "application/octet-stream";

const ROWS: &[Row] = &[
    // Status: an empty text/plain body (doStatus), but for its special cases (418's body).
    Row {
        target: "/status/503",
        httpbin: (503, Some(0), TEXT),
        canned: (503, Some(0), TEXT),
    },
    Row {
        target: "/status/201",
        httpbin: (201, Some(0), TEXT),
        canned: (201, Some(0), TEXT),
    },
    Row {
        target: "/status/418",
        httpbin: (418, Some(13), TEXT),
        canned: (418, Some(0), TEXT),
    },
    Row {
        target: "/status/200:1,500:0",
        httpbin: (200, Some(0), TEXT),
        canned: (200, Some(0), TEXT),
    },
    Row {
        target: "/status/500:0,502:2",
        httpbin: (502, Some(0), TEXT),
        canned: (502, Some(0), TEXT),
    },
    // A bad code: writeError's JSON 400; canned's one line.
    Row {
        target: "/status/abc",
        httpbin: (400, None, JSON),
        canned: (400, Some(79), TEXT),
    },
    // Bytes: N random bytes (handleBytes); canned's N filler bytes.
    Row {
        target: "/bytes/100",
        httpbin: (200, Some(100), OCTETS),
        canned: (200, Some(100), TEXT),
    },
    Row {
        target: "/bytes/0",
        httpbin: (200, Some(0), ""),
        canned: (200, Some(0), TEXT),
    },
    Row {
        target: "/bytes/1048577",
        httpbin: (400, None, JSON),
        canned: (400, Some(50), TEXT),
    },
    Row {
        target: "/stream-bytes/30000",
        httpbin: (200, Some(30000), OCTETS),
        canned: (200, Some(30000), TEXT),
    },
    // Delay: the request's JSON after the delay (RequestWithBody); canned's route body.
    Row {
        target: "/delay/0.1",
        httpbin: (200, None, JSON),
        canned: (200, Some(12), TEXT),
    },
    Row {
        target: "/delay/11",
        httpbin: (400, None, JSON),
        canned: (400, Some(82), TEXT),
    },
    // The echo paths: go-httpbin's JSON of args, headers, origin and url; canned's JSON echo.
    Row {
        target: "/anything?x=1",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
    },
    Row {
        target: "/get",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
    },
    Row {
        target: "/headers",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
    },
    Row {
        target: "/ip",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
    },
];

fn check(row: &Row, got: (u16, usize, &str), client: &str) {
    let (status, len, ctype) = row.canned;
    assert_eq!(got.0, status, "{client} {}", row.target);
    if let Some(len) = len {
        assert_eq!(got.1, len, "{client} {}", row.target);
    }
    assert_eq!(got.2, ctype, "{client} {}", row.target);
    // Where canned answers as go-httpbin does, the table says so: same status always.
    assert_eq!(row.httpbin.0, status, "{}", row.target);
}

#[test]
fn table_with_curl() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        for row in ROWS {
            let o = Command::new("curl")
                .args([
                    "-s",
                    "-o",
                    "/dev/null",
                    "-w",
                    "%{http_code} %{size_download} %{content_type}",
                ])
                .arg(p.url(row.target))
                .output()
                .unwrap();
            let out = String::from_utf8(o.stdout).unwrap();
            let mut f = out.splitn(3, ' ');
            let status = f.next().unwrap().parse().unwrap();
            let len = f.next().unwrap().parse().unwrap();
            check(row, (status, len, f.next().unwrap_or("")), "curl");
        }
        let start = Instant::now();
        let o = Command::new("curl")
            .args(["-s", &p.url("/delay/0.3")])
            .output()
            .unwrap();
        assert_eq!(o.stdout, b"Hello World\n");
        assert!(start.elapsed() >= Duration::from_millis(300));
    }
}

#[test]
fn table_with_python() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let targets: Vec<&str> = ROWS.iter().map(|r| r.target).collect();
        let script = format!(
            r#"
import http.client, sys
c = http.client.HTTPConnection("{}", {}, timeout=10)
for t in sys.argv[1:]:
    c.request("GET", t)
    r = c.getresponse()
    b = r.read()
    print(r.status, len(b), r.getheader("Content-Type", ""))
"#,
            p.addr.ip(),
            p.addr.port()
        );
        let o = Command::new("python3")
            .args(["-c", &script])
            .args(&targets)
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        assert_eq!(
            out.lines().count(),
            ROWS.len(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for (row, line) in ROWS.iter().zip(out.lines()) {
            let mut f = line.splitn(3, ' ');
            let status = f.next().unwrap().parse().unwrap();
            let len = f.next().unwrap().parse().unwrap();
            check(row, (status, len, f.next().unwrap_or("")), "python");
        }
    }
}

#[test]
fn table_with_go() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new(
        "httpbin",
        r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	for _, t := range os.Args[2:] {
		r, err := http.Get(os.Args[1] + t)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		fmt.Println(r.StatusCode, len(b), r.Header.Get("Content-Type"))
	}
}
"#,
    );
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let mut args = vec![p.url("")];
        args.extend(ROWS.iter().map(|r| r.target.to_string()));
        let o = go.run(&args);
        let out = String::from_utf8(o.stdout).unwrap();
        assert_eq!(
            out.lines().count(),
            ROWS.len(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for (row, line) in ROWS.iter().zip(out.lines()) {
            let mut f = line.splitn(3, ' ');
            let status = f.next().unwrap().parse().unwrap();
            let len = f.next().unwrap().parse().unwrap();
            check(row, (status, len, f.next().unwrap_or("")), "go");
        }
    }
}

#[test]
fn a_route_of_its_own_wins() {
    let (h, addr) = start(&[
        "--control",
        "--route",
        "/status/503=200:mine",
        "--route",
        "/get=201:got",
    ]);
    for (target, status, body) in [
        ("/status/503", 200, "mine"),
        ("/get", 201, "got"),
        ("/status/504", 504, ""),
    ] {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, req.as_bytes()), &[false]);
        assert_eq!(
            (r[0].status, String::from_utf8_lossy(&r[0].body).as_ref()),
            (status, body),
            "{target}"
        );
    }
    h.shutdown();
}

#[test]
fn without_control_no_httpbin_paths() {
    let (h, addr) = start(&[]);
    for target in ["/status/503", "/bytes/5", "/get"] {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, req.as_bytes()), &[false]);
        assert_eq!(
            (r[0].status, &r[0].body[..]),
            (200, &b"Hello World\n"[..]),
            "{target}"
        );
    }
    h.shutdown();
}

/// `--stats` and `--metrics` on an httpbin echo path keep it: the counters answer, not the echo.
#[test]
fn counters_keep_their_paths() {
    let (h, addr) = start(&["--control", "--stats", "/get", "--metrics", "/ip"]);
    let mut s = connect(addr);
    s.write_all(b"GET /get HTTP/1.1\r\nHost: h\r\n\r\nGET /ip HTTP/1.1\r\nHost: h\r\n\r\nGET /post HTTP/1.1\r\nHost: h\r\n\r\n")
        .unwrap();
    let r = read_responses(&mut s, 3);
    let text = |i: usize| String::from_utf8_lossy(&r[i].body).to_string();
    assert!(
        text(0).contains("\"requests\"") && !text(0).contains("\"method\""),
        "{}",
        text(0)
    );
    assert!(
        text(1).contains("_total") && !text(1).contains("\"method\""),
        "{}",
        text(1)
    );
    assert!(text(2).contains("\"method\":\"GET\""), "{}", text(2));
    h.shutdown();
    h.join();
}
