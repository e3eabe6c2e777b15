//! `--journal N` with `--journal-path`: the last N requests, from every worker, read back as
//! JSON by real clients (Python's http.client, curl) with one and two workers; the ring's
//! bound, DELETE, HEAD, faults and refused requests in it, and the journal path left out.
#![cfg(all(
    feature = "echo",
    feature = "faults",
    feature = "journal",
    feature = "mutate"
))]

use crate::common;
use common::*;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The journal at `/j`, as curl reads it.
fn journal_by_curl(p: &Proc) -> String {
    let o = Command::new("curl")
        .arg("-s")
        .arg(p.url("/j"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run the Python `script` (`{port}` filled in) against `p`; it prints `ok` when it passes.
fn python(p: &Proc, script: &str) {
    let script = script.replace("{port}", &p.addr.port().to_string());
    python_ok(&script, &[], "journal");
}

/// Requests on 30 connections (spread over the workers by the kernel), each in the journal
/// once, in order of their answers, with every field; the ring keeps the last N.
#[test]
fn python_reads_every_workers_requests() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--journal",
            "50",
            "--journal-path",
            "/_journal",
            "--fault",
            "/broken=error:1:503",
            "--no-date",
        ]);
        python(
            &p,
            r#"
import http.client, json
def journal():
    c = http.client.HTTPConnection("127.0.0.1", {port})
    c.request("GET", "/_journal")
    r = c.getresponse()
    assert r.status == 200 and r.getheader("Content-Type") == "application/json"
    return json.loads(r.read())
j = journal()
assert j == {"capacity": 50, "recorded": 0, "entries": []}, j
for i in range(30):
    c = http.client.HTTPConnection("127.0.0.1", {port})
    c.request("POST", "/in?i=%d" % i, body=b"x" * i, headers={"X-Case": str(i)})
    r = c.getresponse(); r.read()
    assert r.status == 200
    c.close()
j = journal()
assert j["recorded"] == 30 and len(j["entries"]) == 30, j
for i, e in enumerate(j["entries"]):
    assert e["seq"] == i + 1 and e["method"] == "POST" and e["target"] == "/in?i=%d" % i, e
    assert e["status"] == 200 and e["faults"] == [] and e["body_length"] == i, e
    assert e["client"].startswith("127.0.0.1:"), e
    h = dict(e["headers"])
    assert h["Host"] == "127.0.0.1:{port}" and h["X-Case"] == str(i), h
    assert e["headers"][0][0] == "Host", e
times = [e["time_us"] for e in j["entries"]]
assert times == sorted(times) and times[0] > 1_600_000_000_000_000, times
c = http.client.HTTPConnection("127.0.0.1", {port})
c.request("GET", "/broken")
r = c.getresponse(); r.read()
assert r.status == 503
e = journal()["entries"][-1]
assert e["target"] == "/broken" and e["status"] == 503 and e["faults"] == ["error"], e
# The ring keeps the last 50.
for i in range(40):
    c.request("GET", "/more/%d" % i)
    c.getresponse().read()
j = journal()
assert j["recorded"] == 71 and len(j["entries"]) == 50, (j["recorded"], len(j["entries"]))
assert j["entries"][0]["seq"] == 22 and j["entries"][-1]["target"] == "/more/39", j["entries"][0]
# HEAD: the head of the chunked JSON, no body.
c.request("HEAD", "/_journal")
r = c.getresponse()
assert r.status == 200 and r.getheader("Transfer-Encoding") == "chunked" and r.read() == b""
# DELETE clears it; what follows is kept.
c.request("DELETE", "/_journal")
r = c.getresponse()
assert r.status == 200 and json.loads(r.read())["entries"] == []
c.request("GET", "/after")
c.getresponse().read()
j = journal()
assert [e["target"] for e in j["entries"]] == ["/after"] and j["entries"][0]["seq"] == 72, j
print("ok")
"#,
        );
    }
}

/// curl's requests, chunked and by length, and a request canned refuses (400), as the journal
/// has them; with one and two workers.
#[test]
fn curl_requests_and_refusals_are_journaled() {
    if !have("curl") || !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--journal",
            "10",
            "--journal-path",
            "/j",
        ]);
        for extra in [
            &["--data-binary", "hello"][..],
            &[
                "-H",
                "Transfer-Encoding: chunked",
                "--data-binary",
                "abcdef",
            ],
        ] {
            let o = Command::new("curl")
                .args(["-s", "-o", "/dev/null", "-H", "X-From: curl"])
                .args(extra)
                .arg(p.url("/c"))
                .output()
                .unwrap();
            assert!(o.status.success());
        }
        let refused = exchange(
            p.addr,
            b"GET /bad HTTP/1.1\r\nHost: t\r\nBad Name: x\r\n\r\n",
        );
        assert!(
            refused.starts_with(b"HTTP/1.1 400 "),
            "{}",
            String::from_utf8_lossy(&refused)
        );
        let o = Command::new("curl")
            .args(["-s"])
            .arg(p.url("/j"))
            .output()
            .unwrap();
        let check = r#"
import json, sys
j = json.loads(sys.stdin.buffer.read())
e = j["entries"]
assert len(e) == 3, j
assert e[0]["body_length"] == 5 and ["X-From", "curl"] in e[0]["headers"], e[0]
assert e[1]["body_length"] == 6 and ["Transfer-Encoding", "chunked"] in e[1]["headers"], e[1]
assert e[2]["status"] == 400 and e[2]["method"] is None and e[2]["headers"] == [], e[2]
assert all(x["client"].startswith("127.0.0.1:") for x in e)
print("ok")
"#;
        let mut py = Command::new("python3")
            .args(["-c", check])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        py.stdin.take().unwrap().write_all(&o.stdout).unwrap();
        let r = py.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            "ok\n",
            "{workers} workers: {} {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
    }
}

/// A request refused for a rule is journaled with the rule's name over HTTP/2 (a stream
/// answered 431 for `--max-headers`) as over HTTP/1.1; with one and two workers.
#[test]
#[cfg(feature = "http2")]
fn a_refusals_rule_is_journaled_over_http2_as_over_http1() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--journal-path",
            "/j",
            "--max-headers",
            "3",
        ]);
        for http in ["--http1.1", "--http2-prior-knowledge"] {
            let o = Command::new("curl")
                .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", http])
                .args(["-H", "A: 1", "-H", "B: 2", "-H", "C: 3"])
                .arg(p.url("/many"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&o.stdout), "431", "{http}");
        }
        let journal = journal_by_curl(&p);
        assert_eq!(
            journal.matches("\"status\":431").count(),
            2,
            "{workers} workers: {journal}"
        );
        assert_eq!(
            journal.matches("\"rule\":\"too_many_headers\"").count(),
            2,
            "{workers} workers: {journal}"
        );
    }
}

/// The `--health` path and the journal's own are not recorded; a latency fault and a
/// `--mutate-id` variant (which has no status) are named.
#[test]
fn health_faults_and_variants_in_the_journal() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--journal-path",
            "/_j",
            "--health",
            "/h",
            "--route",
            "/slow=200:slow",
            "--fault",
            "/slow=latency:10ms",
            "--mutate-id",
            "cl-missing",
            "--no-date",
        ]);
        python(
            &p,
            r#"
import http.client, json, socket
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", {port})
    c.request("GET", path)
    r = c.getresponse(); b = r.read(); c.close()
    return r.status, b
assert get("/h") == (200, b"ok")
assert get("/slow") == (200, b"slow")
s = socket.create_connection(("127.0.0.1", {port}))
s.sendall(b"GET /m HTTP/1.1\r\nHost: t\r\n\r\n")
assert s.recv(65536).startswith(b"HTTP/1.1 200")
s.close()
st, b = get("/_j")
j = json.loads(b)
assert j["capacity"] == 1000, j
e = j["entries"]
assert [x["target"] for x in e] == ["/slow", "/m"], e
assert e[0]["faults"] == ["latency"] and e[0]["status"] == 200, e[0]
assert e[1]["faults"] == ["mutate=cl-missing"] and e[1]["status"] is None, e[1]
print("ok")
"#,
        );
    }
}

/// A unix-socket client has no address: `client` is `null`; a TCP client's beside it has its
/// own.
#[test]
fn a_unix_socket_client_is_null() {
    if !have("python3") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("canned-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sock = dir.join("s");
    let listen = format!("unix:{}", sock.display());
    let p = Proc::start(&[
        "--listen",
        &listen,
        "--journal",
        "5",
        "--journal-path",
        "/j",
    ]);
    let script = r#"
import json, socket, sys
u = socket.socket(socket.AF_UNIX)
u.connect(sys.argv[1])
u.sendall(b"GET /over-unix HTTP/1.1\r\nHost: u\r\nConnection: close\r\n\r\n")
while u.recv(65536): pass
t = socket.create_connection(("127.0.0.1", {port}))
t.sendall(b"GET /j HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
d = b""
while True:
    k = t.recv(65536)
    if not k: break
    d += k
e = json.loads(d.split(b"\r\n\r\n", 1)[1])["entries"]
assert [x["target"] for x in e] == ["/over-unix"] and e[0]["client"] is None, e
print("ok")
"#
    .replace("{port}", &p.addr.port().to_string());
    python_ok(&script, &[sock.as_os_str()], "a unix-socket client");
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The options' errors: one line naming the flag, exit 2.
#[test]
fn bad_journal_options_are_refused() {
    for (args, names) in [
        (&["--journal", "10"][..], "--journal"),
        (&["--journal", "0", "--journal-path", "/j"], "--journal"),
        (
            &["--journal", "100001", "--journal-path", "/j"],
            "--journal",
        ),
        (&["--journal", "5", "--journal-path", "j"], "--journal-path"),
        (
            &["--journal", "5", "--journal-path", "/j=json"],
            "--journal-path",
        ),
        (
            &["--journal", "5", "--journal-path", "/j", "--echo", "/j"],
            "/j",
        ),
    ] {
        let o = Command::new(bin()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
    }
}

/// A Go program: `BASE` sends requests from two clients (two keep-alive connections, which
/// the kernel may give to different workers), noting for each the fields net/http wrote
/// (`httptrace`), its connection's local address and the time around it; then it reads the
/// journal with `encoding/json` into the documented fields alone and compares every entry with
/// its request, clears it with DELETE and checks what is kept after. It prints `ok`.
const GO_JOURNAL: &str = r#"package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"reflect"
	"time"
)

type entry struct {
	Seq        int        `json:"seq"`
	TimeUs     int64      `json:"time_us"`
	Client     *string    `json:"client"`
	Method     *string    `json:"method"`
	Target     *string    `json:"target"`
	Headers    [][]string `json:"headers"`
	BodyLength int        `json:"body_length"`
	Status     *int       `json:"status"`
	Rule       *string    `json:"rule"`
	Faults     []string   `json:"faults"`
}

type journal struct {
	Capacity int     `json:"capacity"`
	Recorded int     `json:"recorded"`
	Entries  []entry `json:"entries"`
}

type sent struct {
	method, target string
	body           []byte
	chunked        bool
	status         int
	faults         []string
	wrote          [][]string
	local          string
	before, after  int64
}

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(1)
}

var clients = []*http.Client{{Transport: &http.Transport{}}, {Transport: &http.Transport{}}}

func send(base string, c *http.Client, s *sent) {
	var body io.Reader
	if s.body != nil {
		body = bytes.NewReader(s.body)
		if s.chunked {
			body = io.MultiReader(body)
		}
	}
	req, err := http.NewRequest(s.method, base+s.target, body)
	if err != nil {
		fail("%v", err)
	}
	req.Header.Set("X-Go", s.target)
	trace := &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { s.local = i.Conn.LocalAddr().String() },
		WroteHeaderField: func(k string, v []string) {
			for _, x := range v {
				s.wrote = append(s.wrote, []string{k, x})
			}
		},
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	s.before = time.Now().UnixMicro()
	r, err := c.Do(req)
	if err != nil {
		fail("%s %s: %v", s.method, s.target, err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	s.after = time.Now().UnixMicro()
	if r.StatusCode != s.status {
		fail("%s %s: %d", s.method, s.target, r.StatusCode)
	}
}

func read(base, method string) journal {
	req, _ := http.NewRequest(method, base+"/_journal", nil)
	r, err := clients[0].Do(req)
	if err != nil {
		fail("%s /_journal: %v", method, err)
	}
	defer r.Body.Close()
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/json" {
		fail("%s /_journal: %d %q", method, r.StatusCode, r.Header.Get("Content-Type"))
	}
	var j journal
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		fail("%s /_journal: %v", method, err)
	}
	io.Copy(io.Discard, r.Body)
	return j
}

func check(e entry, seq int, s *sent) {
	if e.Seq != seq || e.Client == nil || *e.Client != s.local || e.Method == nil || *e.Method != s.method || e.Target == nil || *e.Target != s.target {
		fail("entry %d: %+v, sent %+v", seq, e, s)
	}
	if !reflect.DeepEqual(e.Headers, s.wrote) {
		fail("entry %d: headers %q, net/http wrote %q", seq, e.Headers, s.wrote)
	}
	// Every request here is well formed: none broke a rule.
	if e.BodyLength != len(s.body) || e.Status == nil || *e.Status != s.status || e.Rule != nil || !reflect.DeepEqual(e.Faults, s.faults) {
		fail("entry %d: %+v, sent %+v", seq, e, s)
	}
	// Decided after the request was sent and before its answer was read.
	if e.TimeUs < s.before || e.TimeUs > s.after {
		fail("entry %d: time_us %d not within %d..%d", seq, e.TimeUs, s.before, s.after)
	}
}

func main() {
	base := os.Args[1]
	if j := read(base, "GET"); j.Capacity != 20 || j.Recorded != 0 || len(j.Entries) != 0 {
		fail("at start: %+v", j)
	}
	reqs := []*sent{
		{method: "GET", target: "/a?x=1", status: 200, faults: []string{}},
		{method: "POST", target: "/b", body: []byte("12345"), status: 200, faults: []string{}},
		{method: "POST", target: "/c", body: []byte("chunked body"), chunked: true, status: 200, faults: []string{}},
		{method: "PUT", target: "/broken", body: []byte{}, status: 503, faults: []string{"error"}},
		{method: "DELETE", target: "/d/e", status: 200, faults: []string{}},
		{method: "GET", target: "/broken?again", status: 503, faults: []string{"error"}},
	}
	for i, s := range reqs {
		send(base, clients[i%2], s)
	}
	j := read(base, "GET")
	if j.Capacity != 20 || j.Recorded != len(reqs) || len(j.Entries) != len(reqs) {
		fail("after %d requests: %+v", len(reqs), j)
	}
	for i, s := range reqs {
		check(j.Entries[i], i+1, s)
	}
	if j := read(base, "DELETE"); j.Recorded != len(reqs) || len(j.Entries) != 0 {
		fail("DELETE: %+v", j)
	}
	after := &sent{method: "GET", target: "/after", status: 200, faults: []string{}}
	send(base, clients[1], after)
	j = read(base, "GET")
	if j.Recorded != len(reqs)+1 || len(j.Entries) != 1 {
		fail("after the DELETE: %+v", j)
	}
	check(j.Entries[0], len(reqs)+1, after)
	fmt.Println("ok")
}
"#;

/// Go's net/http, from two keep-alive connections, with one and two workers: GET, POST by
/// length and chunked, PUT, DELETE, a faulted path; the journal read with `encoding/json` has
/// every request once, in order, each with the connection's own address as net/http has it, the
/// fields net/http wrote in order, the body's length, the status, the faults, and a time within
/// the request's; DELETE clears it, `recorded` and `seq` go on counting.
#[test]
fn go_reads_the_journal_of_its_requests() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new("journal", GO_JOURNAL);
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--journal",
            "20",
            "--journal-path",
            "/_journal",
            "--fault",
            "/broken=error:1:503",
        ]);
        let o = go.run(&[p.url("")]);
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

/// A journal of `n` entries whose `X-Big` value, `value_len` bytes that are not UTF-8, is
/// six bytes a byte in JSON (`\u00ff`): about 48 KB an entry with the default head limit.
fn fill_big_journal(addr: std::net::SocketAddr, n: usize, value_len: usize) {
    let mut s = connect(addr);
    let big = vec![0xffu8; value_len];
    let mut done = 0;
    while done < n {
        let batch = (n - done).min(50);
        let mut reqs = Vec::new();
        for i in done..done + batch {
            reqs.extend_from_slice(
                format!("GET /fill/{i} HTTP/1.1\r\nHost: t\r\nX-Big: ").as_bytes(),
            );
            reqs.extend_from_slice(&big);
            reqs.extend_from_slice(b"\r\n\r\n");
        }
        s.write_all(&reqs).unwrap();
        let r = read_responses(&mut s, batch);
        assert!(r.iter().all(|r| r.status == 200), "{:?}", r[0]);
        done += batch;
    }
}

/// Six GETs of a 47 MB journal that never read: each holds a piece of it, not the whole
/// (RSS grows by a few MiB, not 6 x 47 MB), and meanwhile, and while another reader takes
/// it slowly, requests on other connections are answered at once, with one worker (the
/// readers' own) and two (the lock every worker records through).
#[test]
fn a_large_journal_is_streamed_to_readers_that_wait() {
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--journal-path", "/j"]);
        fill_big_journal(p.addr, 1000, 8000);
        let before = p.rss_kib();
        let mut readers = Vec::new();
        for _ in 0..6 {
            let mut s = connect(p.addr);
            s.write_all(b"GET /j HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
            readers.push(s);
        }
        // Requests on another connection at once, and while a seventh reader takes the
        // journal 4 KiB every 20 ms.
        let mut plain = connect(p.addr);
        let mut worst = Duration::ZERO;
        let mut ask = |worst: &mut Duration| {
            let t = Instant::now();
            plain
                .write_all(b"GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
                .unwrap();
            assert_eq!(read_responses(&mut plain, 1)[0].status, 200);
            *worst = (*worst).max(t.elapsed());
        };
        ask(&mut worst);
        // Each answer has begun.
        for s in &mut readers {
            let mut first = [0u8; 16];
            s.read_exact(&mut first).unwrap();
            assert_eq!(&first, b"HTTP/1.1 200 OK\r");
        }
        let mut slow = connect(p.addr);
        slow.write_all(b"GET /j HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 4096];
        for _ in 0..50 {
            slow.read_exact(&mut buf).unwrap();
            ask(&mut worst);
            std::thread::sleep(Duration::from_millis(20));
        }
        let grown_kib = p.rss_kib().saturating_sub(before);
        eprintln!("{workers} workers: slowest plain request {worst:?}, RSS +{grown_kib} KiB");
        assert!(
            worst < time_bound(Duration::from_millis(500)),
            "{workers} workers: a plain request waited {worst:?} while the journal was read"
        );
        // Seven readers, each a piece of 64 KiB and one entry (48 KB) in its output; the rest
        // is the allocator's and, under emulation, its code cache (8 MiB).
        assert!(
            grown_kib < 16 * 1024,
            "{workers} workers: RSS grew by {grown_kib} KiB with 7 readers of the journal"
        );
    }
}

/// The journal sent a piece at a time is whole, valid JSON, read by Python's http.client
/// (chunked, on a keep-alive connection, the next request answered after it), by an
/// HTTP/1.0 request (ended by the close), as a HEAD (its head alone), and by the admin API's
/// `GET /journal`; every entry is there, in order, its value decoded.
#[test]
fn the_streamed_journal_is_whole_json() {
    if !have("python3") {
        return;
    }
    let (h, addr) = start(&["--journal-path", "/j", "--admin", "127.0.0.1:0"]);
    fill_big_journal(addr, 300, 8000);
    let admin = h.admin_addr().unwrap();
    let script = r#"
import http.client, json, socket, sys
port, admin = int(sys.argv[1]), int(sys.argv[2])
def check(j):
    # The 300 made for it, and `/after` once it was sent.
    assert j["capacity"] == 1000 and j["recorded"] in (300, 301), (j["capacity"], j["recorded"])
    e = j["entries"][:300]
    assert [x["seq"] for x in e] == list(range(1, 301)), len(e)
    for i, x in enumerate(e):
        assert x["target"] == "/fill/%d" % i, x["target"]
        assert dict(x["headers"])["X-Big"] == "\xff" * 8000
c = http.client.HTTPConnection("127.0.0.1", port)
c.request("GET", "/j")
r = c.getresponse()
assert r.status == 200 and r.getheader("Transfer-Encoding") == "chunked", r.getheaders()
body = r.read()
assert len(body) > 300 * 48000, len(body)
check(json.loads(body))
c.request("HEAD", "/j")
r = c.getresponse()
assert r.status == 200 and r.getheader("Transfer-Encoding") == "chunked" and r.read() == b""
c.request("GET", "/after")
assert c.getresponse().read() == b"Hello World\n"
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET /j HTTP/1.0\r\n\r\n")
d = b""
while True:
    k = s.recv(1 << 20)
    if not k: break
    d += k
head, body = d.split(b"\r\n\r\n", 1)
assert b"Content-Length" not in head and b"Transfer-Encoding" not in head, head
check(json.loads(body))
c = http.client.HTTPConnection("127.0.0.1", admin)
c.request("GET", "/journal")
r = c.getresponse()
assert r.status == 200 and r.getheader("Content-Type") == "application/json"
j = json.loads(r.read())
check(j)
assert j["recorded"] == 301 and j["entries"][300]["target"] == "/after"
print("ok")
"#;
    let (port, admin) = (addr.port().to_string(), admin.port().to_string());
    let args = [std::ffi::OsStr::new(&port), std::ffi::OsStr::new(&admin)];
    python_ok(script, &args, "the streamed journal");
    drop(h);
}

/// The admin API's `GET /journal` to a client that reads it slowly, taking some every 100 ms,
/// for longer in all than the 2 s a client has to go without reading: the whole journal
/// arrives, to its last chunk (it was cut at 2 s, where emulation makes even a quick reader
/// slow).
#[test]
fn a_slow_reader_gets_the_whole_journal_from_the_api() {
    let (h, addr) = start(&["--journal-path", "/j", "--admin", "127.0.0.1:0"]);
    fill_big_journal(addr, 100, 8000);
    let admin = h.admin_addr().unwrap();
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    // A small receive buffer: the server waits on the reader, not on the kernel's buffers.
    s.set_recv_buffer_size(16 * 1024).unwrap();
    s.connect(&admin.into()).unwrap();
    let mut s: std::net::TcpStream = s.into();
    s.write_all(b"GET /journal HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0; 64 * 1024];
    loop {
        match s.read_some(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => panic!("after {} bytes: {e}", got.len()),
        }
        if started.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "read too fast to test: {:?}",
        started.elapsed()
    );
    assert!(
        got.ends_with(b"\r\n0\r\n\r\n"),
        "cut after {} bytes",
        got.len()
    );
    assert!(got.len() > 100 * 48_000, "{}", got.len());
    drop(h);
}

/// A gRPC health call held by `--delay` or a latency fault is journaled with its status and
/// the fault, and logged, as any other held stream is (it had a journal entry without status
/// and no access-log line); with one and two workers.
#[test]
#[cfg(feature = "http2")]
fn a_held_grpc_call_is_journaled_and_logged() {
    if !have("curl") {
        return;
    }
    let check = "/grpc.health.v1.Health/Check";
    for workers in ["1", "2"] {
        for (hold, kind) in [
            (["--delay", "5ms"], "[]"),
            (["--fault", "*=latency:5ms"], "[\"latency\"]"),
        ] {
            let mut args = vec![
                "--workers",
                workers,
                "--grpc-health",
                "--journal-path",
                "/j",
            ];
            args.extend(hold);
            args.extend(["--access-log", "--no-date"]);
            let mut p = Proc::start(&args);
            let stdout = p.child.stdout.take().unwrap();
            let o = Command::new("curl")
                .args(["-s", "-o", "/dev/null", "-w", "%{http_code}"])
                .args([
                    "--http2-prior-knowledge",
                    "-H",
                    "content-type: application/grpc",
                ])
                .args(["-H", "te: trailers", "--data-binary", "@-"])
                .arg(p.url(check))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    c.stdin.take().unwrap().write_all(&[0; 5])?;
                    c.wait_with_output()
                })
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&o.stdout), "200", "{hold:?}");
            let journal = journal_by_curl(&p);
            let want = format!("\"status\":200,\"faults\":{kind}");
            assert!(
                journal.contains(check) && journal.contains(&want),
                "{workers} workers {hold:?}: {journal}"
            );
            let (code, _) = p.stop();
            assert_eq!(code, 0);
            let mut log = String::new();
            Read::read_to_string(&mut { stdout }, &mut log).unwrap();
            let mut want = format!("POST {check} HTTP/2.0 200");
            if kind != "[]" {
                want.push_str(" fault=latency");
            }
            assert!(
                log_words(&log).contains(&want),
                "{workers} workers {hold:?}: {log}"
            );
        }
    }
}

/// A stream given one of HTTP/2's `--mutate` variants is journaled and logged as an HTTP/1
/// request given one of HTTP/1's: no status, ` mutate=ID` (it had no line, and an entry that
/// named no variant); held by `--delay` or not, with one and two workers.
#[test]
#[cfg(all(feature = "http2", feature = "access-log"))]
fn a_variant_is_journaled_and_logged_over_http2_as_over_http1() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        for delay in [&[][..], &["--delay", "5ms"]] {
            let mut args = vec!["--workers", workers, "--mutate", "--journal-path", "/j"];
            args.extend(["--access-log", "--no-date"]);
            args.extend(delay);
            let mut p = Proc::start(&args);
            let stdout = p.child.stdout.take().unwrap();
            // Each on a connection of its own: the first of its worker's cycle.
            for http in ["--http1.1", "--http2-prior-knowledge"] {
                Command::new("curl")
                    .args(["-s", "-o", "/dev/null", http])
                    .arg(p.url("/"))
                    .status()
                    .unwrap();
            }
            let journal = journal_by_curl(&p);
            for id in ["cl-too-long", "h2-valid"] {
                let want = format!("\"status\":null,\"faults\":[\"mutate={id}\"]");
                assert!(
                    journal.contains(&want),
                    "{workers} workers {delay:?}: {journal}"
                );
            }
            let (code, _) = p.stop();
            assert_eq!(code, 0);
            let mut log = String::new();
            Read::read_to_string(&mut { stdout }, &mut log).unwrap();
            let words = log_words(&log);
            for want in [
                "GET / HTTP/1.1 000 mutate=cl-too-long",
                "GET / HTTP/2.0 000 mutate=h2-valid",
            ] {
                assert!(
                    words.iter().any(|w| w == want),
                    "{workers} workers {delay:?}: {log}"
                );
            }
        }
    }
}

/// An HTTP/2 echo whose rendering would take the connection past its 4 MiB of echoes is
/// refused (RST_STREAM REFUSED_STREAM, docs/http2.md) and journaled as not answered: no
/// status (it was journaled as answered 200). A body of 1,000,000 control bytes, each
/// rendered as a six-byte JSON escape; with one and two workers.
#[test]
#[cfg(feature = "http2")]
fn an_echo_refused_for_the_connections_bound_is_journaled_unanswered() {
    if !have("curl") {
        return;
    }
    let body = std::env::temp_dir().join(format!("canned-refused-{}.bin", std::process::id()));
    std::fs::write(&body, vec![1u8; 1_000_000]).unwrap();
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--echo", "/e", "--journal-path", "/j"]);
        let o = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}"])
            .args(["--http2-prior-knowledge", "--data-binary"])
            .arg(format!("@{}", body.display()))
            .arg(p.url("/e"))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout), "000", "refused");
        let journal = journal_by_curl(&p);
        let entries = journal.matches("\"target\":\"/e\"").count();
        assert!(entries >= 1, "{workers} workers: {journal}");
        assert_eq!(
            journal
                .matches("\"body_length\":1000000,\"status\":null")
                .count(),
            entries,
            "{workers} workers: {journal}"
        );
    }
    let _ = std::fs::remove_file(&body);
}
