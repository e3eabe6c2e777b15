//! go-httpbin's paths under `--control`: a table of requests, what go-httpbin answers (read
//! from its handlers, `httpbin/handlers.go` in mccutchen/go-httpbin), and what canned answers,
//! asserted with curl, Python's http.client and Go's net/http, one and two workers.
#![cfg(all(feature = "control", feature = "stats"))]

use crate::common;
use common::*;
use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

/// One row: the target; go-httpbin's status, body length (`None`: a JSON echo, its length
/// varies) and content type; canned's status, body length and content type; and the least
/// time the whole answer takes (ms; the client measures from before it sends to the body's
/// end, so the bound is exact, and allows 10 s more).
struct Row {
    target: &'static str,
    httpbin: (u16, Option<usize>, &'static str),
    canned: (u16, Option<usize>, &'static str),
    least_ms: u64,
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
        least_ms: 0,
    },
    Row {
        target: "/status/201",
        httpbin: (201, Some(0), TEXT),
        canned: (201, Some(0), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/status/418",
        httpbin: (418, Some(13), TEXT),
        canned: (418, Some(0), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/status/200:1,500:0",
        httpbin: (200, Some(0), TEXT),
        canned: (200, Some(0), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/status/500:0,502:2",
        httpbin: (502, Some(0), TEXT),
        canned: (502, Some(0), TEXT),
        least_ms: 0,
    },
    // A bad code: writeError's JSON 400; canned's one line.
    Row {
        target: "/status/abc",
        httpbin: (400, None, JSON),
        canned: (400, Some(79), TEXT),
        least_ms: 0,
    },
    // Bytes: N random bytes (handleBytes); canned's N filler bytes.
    Row {
        target: "/bytes/100",
        httpbin: (200, Some(100), OCTETS),
        canned: (200, Some(100), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/bytes/0",
        httpbin: (200, Some(0), ""),
        canned: (200, Some(0), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/bytes/1048577",
        httpbin: (400, None, JSON),
        canned: (400, Some(50), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/stream-bytes/30000",
        httpbin: (200, Some(30000), OCTETS),
        canned: (200, Some(30000), TEXT),
        least_ms: 0,
    },
    // Delay: the request's JSON after the delay (RequestWithBody); canned's route body.
    Row {
        target: "/delay/0.1",
        httpbin: (200, None, JSON),
        canned: (200, Some(12), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/delay/11",
        httpbin: (400, None, JSON),
        canned: (400, Some(82), TEXT),
        least_ms: 0,
    },
    // The echo paths: go-httpbin's JSON of args, headers, origin and url; canned's JSON echo.
    Row {
        target: "/anything?x=1",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
        least_ms: 0,
    },
    Row {
        target: "/get",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
        least_ms: 0,
    },
    Row {
        target: "/headers",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
        least_ms: 0,
    },
    Row {
        target: "/ip",
        httpbin: (200, None, JSON),
        canned: (200, None, JSON),
        least_ms: 0,
    },
    // Drip: after `delay`, the head and the first of `numbytes` `*`s, the others paced so
    // that the last goes `duration` after the first; text/plain with Content-Length (Drip).
    Row {
        target: "/drip?duration=0&delay=0",
        httpbin: (200, Some(10), TEXT),
        canned: (200, Some(10), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/drip?numbytes=101&duration=0&delay=0&code=404",
        httpbin: (404, Some(101), TEXT),
        canned: (404, Some(101), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/drip?numbytes=4&duration=300ms&delay=0",
        httpbin: (200, Some(4), TEXT),
        canned: (200, Some(4), TEXT),
        least_ms: 300,
    },
    Row {
        target: "/drip?numbytes=3&duration=0.2&delay=0.1",
        httpbin: (200, Some(3), TEXT),
        canned: (200, Some(3), TEXT),
        least_ms: 300,
    },
    // One byte: no pause after it, so the duration takes no time (computePausePerWrite).
    Row {
        target: "/drip?numbytes=1&duration=300ms&delay=100ms",
        httpbin: (200, Some(1), TEXT),
        canned: (200, Some(1), TEXT),
        least_ms: 100,
    },
    // A bad value: writeError's JSON 400; canned's one line naming the parameter.
    Row {
        target: "/drip?duration=1m",
        httpbin: (400, None, JSON),
        canned: (400, Some(91), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/drip?numbytes=0",
        httpbin: (400, None, JSON),
        canned: (400, Some(53), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/drip?code=600",
        httpbin: (400, None, JSON),
        canned: (400, Some(53), TEXT),
        least_ms: 0,
    },
    Row {
        target: "/drip?duration=7s&delay=4s",
        httpbin: (400, None, JSON),
        canned: (400, Some(67), TEXT),
        least_ms: 0,
    },
];

fn check(row: &Row, got: (u16, usize, &str, u64), client: &str) {
    assert!(
        (row.least_ms..row.least_ms + 10_000).contains(&got.3),
        "{client} {}: {} ms",
        row.target,
        got.3
    );
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
            let start = Instant::now();
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
            let ms = start.elapsed().as_millis() as u64;
            let out = String::from_utf8(o.stdout).unwrap();
            let mut f = out.splitn(3, ' ');
            let status = f.next().unwrap().parse().unwrap();
            let len = f.next().unwrap().parse().unwrap();
            check(row, (status, len, f.next().unwrap_or(""), ms), "curl");
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
import http.client, sys, time
c = http.client.HTTPConnection("{}", {}, timeout=10)
for t in sys.argv[1:]:
    start = time.monotonic()
    c.request("GET", t)
    r = c.getresponse()
    b = r.read()
    ms = int((time.monotonic() - start) * 1000)
    print(r.status, len(b), ms, r.getheader("Content-Type", ""))
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
            let mut f = line.splitn(4, ' ');
            let status = f.next().unwrap().parse().unwrap();
            let len = f.next().unwrap().parse().unwrap();
            let ms = f.next().unwrap().parse().unwrap();
            check(row, (status, len, f.next().unwrap_or(""), ms), "python");
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
	"time"
)

func main() {
	for _, t := range os.Args[2:] {
		start := time.Now()
		r, err := http.Get(os.Args[1] + t)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		ms := time.Since(start).Milliseconds()
		if len(r.TransferEncoding) > 0 {
			fmt.Println("error: Transfer-Encoding", r.TransferEncoding)
			os.Exit(1)
		}
		fmt.Println(r.StatusCode, len(b), ms, r.Header.Get("Content-Type"))
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
            let mut f = line.splitn(4, ' ');
            let status = f.next().unwrap().parse().unwrap();
            let len = f.next().unwrap().parse().unwrap();
            let ms = f.next().unwrap().parse().unwrap();
            check(row, (status, len, f.next().unwrap_or(""), ms), "go");
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

/// `/drip`'s pacing as go-httpbin's "writes are actually incremental": Python's http.client
/// reads the head no earlier than `delay`, then one `*` at a time, byte `i` no earlier than
/// `delay + i * duration / (numbytes - 1)` after the request was sent; the connection stays
/// open for the next request, and a HEAD gets the head alone. One and two workers.
#[test]
fn drip_writes_are_incremental() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let script = format!(
            r#"
import http.client, time
c = http.client.HTTPConnection("{}", {}, timeout=20)
ms = lambda: (time.monotonic() - start) * 1000
start = time.monotonic()
c.request("GET", "/drip?numbytes=4&duration=300ms&delay=100ms")
r = c.getresponse()
print("head", r.status, r.getheader("Content-Length"), r.getheader("Transfer-Encoding"), ms())
for i in range(4):
    b = r.read(1)
    print("byte", b.decode(), ms())
print("rest", len(r.read()))
start = time.monotonic()
c.request("HEAD", "/drip?numbytes=4&duration=0&delay=50ms")
r = c.getresponse()
print("HEAD", r.status, r.getheader("Content-Length"), len(r.read()), ms())
c.request("GET", "/drip?numbytes=2&duration=0&delay=0")
r = c.getresponse()
print("again", r.status, r.read().decode())
"#,
            p.addr.ip(),
            p.addr.port()
        );
        let o = Command::new("python3")
            .args(["-c", &script])
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split(' ').collect()).collect();
        assert_eq!(
            lines.len(),
            8,
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let at = |l: &[&str]| l.last().unwrap().parse::<f64>().unwrap();
        assert_eq!(lines[0][..4], ["head", "200", "4", "None"], "{out}");
        assert!(at(&lines[0]) >= 100.0, "{out}");
        for i in 0..4 {
            assert_eq!(lines[1 + i][1], "*", "{out}");
            let least = 100.0 + 100.0 * i as f64;
            assert!(
                (least..least + 10_000.0).contains(&at(&lines[1 + i])),
                "byte {i}: {out}"
            );
        }
        // Paced, not sent whole at the end: the first byte well before the last.
        assert!(at(&lines[4]) - at(&lines[1]) > 100.0, "{out}");
        assert_eq!(lines[5], ["rest", "0"], "{out}");
        assert_eq!(lines[6][..4], ["HEAD", "200", "4", "0"], "{out}");
        assert!(at(&lines[6]) >= 50.0, "{out}");
        assert_eq!(lines[7], ["again", "200", "**"], "{out}");
    }
}

/// Whether `s` is a version 4 UUID as RFC 9562 §5.4 lays it out: 8-4-4-4-12 lowercase hex,
/// the version nibble 4, the variant bits `10`.
fn is_uuid_v4(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|g| g.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
        && s.as_bytes()[14] == b'4'
        && matches!(s.as_bytes()[19], b'8' | b'9' | b'a' | b'b')
}

/// The string value of `"key":"…"` in a one-line JSON object without escapes in it.
fn json_str<'a>(json: &'a str, key: &str) -> &'a str {
    let from = json
        .find(&format!("\"{key}\":\""))
        .unwrap_or_else(|| panic!("no {key} in {json}"))
        + key.len()
        + 4;
    &json[from..from + json[from..].find('"').unwrap()]
}

/// `/ip`, `/headers`, `/user-agent`, `/uuid` as go-httpbin answers them, read by curl: the
/// client's address is curl's socket's, the local one the server's.
#[test]
fn who_asked_with_curl() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let get = |path: &str| {
            let o = Command::new("curl")
                .args(["-s", "-A", "who-asked/1.0", "-H", "x-who: me", "-w"])
                .arg("\n%{local_ip}:%{local_port}")
                .arg(p.url(path))
                .output()
                .unwrap();
            let out = String::from_utf8(o.stdout).unwrap();
            let (body, local) = out.rsplit_once('\n').unwrap();
            (body.to_string(), local.to_string())
        };
        let (ip, curl_addr) = get("/ip");
        assert_eq!(json_str(&ip, "client"), curl_addr, "{ip}");
        assert_eq!(json_str(&ip, "local"), p.addr.to_string(), "{ip}");
        assert_eq!(json_str(&ip, "origin"), "127.0.0.1", "{ip}");
        let (headers, _) = get("/headers");
        assert!(headers.starts_with("{\"headers\":{"), "{headers}");
        assert!(headers.contains("\"X-Who\":[\"me\"]"), "{headers}");
        assert!(
            headers.contains("\"User-Agent\":[\"who-asked/1.0\"]"),
            "{headers}"
        );
        let (agent, _) = get("/user-agent");
        assert_eq!(agent, "{\"user-agent\":\"who-asked/1.0\"}\n");
        let (a, _) = get("/uuid");
        let (b, _) = get("/uuid");
        let (a, b) = (json_str(&a, "uuid"), json_str(&b, "uuid"));
        assert!(is_uuid_v4(a) && is_uuid_v4(b), "{a} {b}");
        assert_ne!(a, b);
    }
}

/// The same with Python's requests, several requests on one kept-alive connection, the
/// client's address read from its socket.
#[test]
fn who_asked_with_python_requests() {
    if !have("python3") {
        return;
    }
    let script = r#"
import re, sys, requests
base, server = sys.argv[1], sys.argv[2]
s = requests.Session()
r = s.get(base + "/ip", stream=True)
mine = "%s:%d" % r.raw._connection.sock.getsockname()[:2]
ip = r.json()
assert ip["client"] == mine, (ip, mine)
assert ip["origin"] == mine.rsplit(":", 1)[0], ip
assert ip["local"] == server, (ip, server)
h = s.get(base + "/headers", headers={"x-who": "me"}).json()["headers"]
assert h["X-Who"] == ["me"], h
assert h["User-Agent"] == [s.headers["User-Agent"]], h
assert s.get(base + "/user-agent", headers={"User-Agent": "who/2"}).json() == {"user-agent": "who/2"}
v4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
a, b = (s.get(base + "/uuid").json()["uuid"] for _ in range(2))
assert v4.match(a) and v4.match(b) and a != b, (a, b)
print("ok")
"#;
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--control"]);
        let (base, server) = (p.url(""), p.addr.to_string());
        python_ok(
            script,
            &[base.as_ref(), server.as_ref()],
            &format!("{workers} workers"),
        );
    }
}

/// A `/status/` list takes 16 codes with their weights (six decimals each fit), and a 17th
/// is refused as one code too many, whatever the weights' length.
#[test]
fn a_status_list_takes_16_weighted_codes() {
    let (h, addr) = start(&["--control"]);
    let list = |n: u16, weight: &str| {
        (0..n)
            .map(|i| format!("{}:{weight}", 200 + i))
            .collect::<Vec<_>>()
            .join(",")
    };
    let get = |target: &str| {
        let req = format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, req.as_bytes()), &[false]);
        (
            r[0].status,
            String::from_utf8_lossy(&r[0].body).into_owned(),
        )
    };
    for weight in ["1", "0.5", "0.999999"] {
        let (status, body) = get(&format!("/status/{}", list(16, weight)));
        assert!((200..216).contains(&status), "{weight}: {status} {body}");
        let (status, body) = get(&format!("/status/{}", list(17, weight)));
        assert_eq!(
            (status, body.as_str()),
            (
                400,
                "httpbin: too many codes in a status list: at most 16\n"
            ),
            "{weight}"
        );
    }
    h.shutdown();
}

/// Over HTTP/2 an absolute redirect is on the request's `:authority`, which takes the place
/// of `Host` (RFC 9113 §8.3.1), as HTTP/1.1's is on its `Host`.
#[test]
fn an_absolute_redirect_over_http2_names_the_authority() {
    if !have("curl") {
        return;
    }
    let (h, addr) = start(&["--control"]);
    for (path, location) in [
        ("/absolute-redirect/2", "/absolute-redirect/1"),
        ("/redirect/2?absolute=true", "/absolute-redirect/1"),
        ("/absolute-redirect/1", "/get"),
    ] {
        for version in ["--http1.1", "--http2-prior-knowledge"] {
            // One request a call: curl 7.88 does not reuse a prior-knowledge connection.
            let out = Command::new("curl")
                .args(["-s", "--max-time", "20", "-o", "/dev/null", version])
                .args(["-w", "%{http_code} %{redirect_url}"])
                .arg(format!("http://{addr}{path}"))
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("302 http://{addr}{location}"),
                "{path} {version}"
            );
        }
    }
    h.shutdown();
}
