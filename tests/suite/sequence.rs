//! Sequences (`--fault PATH=seq:STEP,...`), seen from real clients: the position is the
//! process's, so "the first two requests fail" holds with any `--workers` and concurrent
//! clients; `seq:` then repeats its last step, `seq-cycle:` starts again.
#![cfg(feature = "faults")]

use crate::common;
use common::*;
use std::process::Command;
use std::time::{Duration, Instant};

/// Python: `threads` threads, each `per_thread` requests on new connections to `path`, all
/// at once; the outcomes counted: `STATUS` or `reset`, as `{"503": 2, "200": 78}`.
fn python_counts(port: u16, path: &str, threads: usize, per_thread: usize) -> String {
    let script = format!(
        r#"
import http.client, threading, collections, json
counts = collections.Counter()
lock = threading.Lock()
start = threading.Barrier({threads})
def client():
    start.wait()
    for _ in range({per_thread}):
        c = http.client.HTTPConnection("127.0.0.1", {port}, timeout=10)
        try:
            c.request("GET", "{path}")
            r = c.getresponse()
            body = r.read()
            key = str(r.status)
            if r.status == 503:
                assert body == b"503 Service Unavailable\n", body
        except (ConnectionResetError, http.client.RemoteDisconnected):
            key = "reset"
        with lock:
            counts[key] += 1
        c.close()
ts = [threading.Thread(target=client) for _ in range({threads})]
for t in ts: t.start()
for t in ts: t.join()
print(json.dumps(dict(sorted(counts.items()))))
"#
    );
    let o = Command::new("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// 8 Python threads, 10 requests each, with 1 and 4 workers: exactly two 503s and one reset
/// in the whole run, every other answer the route's own 200.
#[test]
fn the_first_requests_of_the_run_fail_whatever_the_workers() {
    if !have("python3") {
        return;
    }
    for workers in ["1", "4"] {
        let p = Proc::start(&[
            "--fault",
            "/flaky=seq:503,503,reset:0,ok",
            "--workers",
            workers,
        ]);
        let got = python_counts(p.addr.port(), "/flaky", 8, 10);
        assert_eq!(
            got, r#"{"200": 77, "503": 2, "reset": 1}"#,
            "--workers {workers}"
        );
        // Other paths take no step.
        let plain = python_counts(p.addr.port(), "/other", 2, 2);
        assert_eq!(plain, r#"{"200": 4}"#);
        p.stop();
    }
}

/// curl, 8 processes at once of 5 requests each on their keep-alive connection, 4 workers:
/// exactly 2 × 503 then all 200; then `seq-cycle:` alternates for one client.
#[test]
fn curl_sees_two_failures_then_success_and_a_cycle() {
    if !have("curl") {
        return;
    }
    let p = Proc::start(&[
        "--fault",
        "/flaky=seq:503,503,ok",
        "--fault",
        "/cycle=seq-cycle:502,ok",
        "--workers",
        "4",
    ]);
    let url = p.url("/flaky");
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let mut c = Command::new("curl");
            c.args(["-s", "-w", "%{http_code}\\n"]);
            for _ in 0..5 {
                c.args(["-o", "/dev/null", &url]);
            }
            c.stdout(std::process::Stdio::piped()).spawn().unwrap()
        })
        .collect();
    let mut codes: Vec<String> = Vec::new();
    for c in clients {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success());
        codes.extend(
            String::from_utf8(o.stdout)
                .unwrap()
                .lines()
                .map(String::from),
        );
    }
    assert_eq!(codes.len(), 40);
    assert_eq!(codes.iter().filter(|c| *c == "503").count(), 2, "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| *c == "200").count(),
        38,
        "{codes:?}"
    );
    let mut c = Command::new("curl");
    c.args(["-s", "-w", "%{http_code} "]);
    for _ in 0..5 {
        c.args(["-o", "/dev/null"]).arg(p.url("/cycle"));
    }
    let o = c.output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "502 200 502 200 502 ");
    p.stop();
}

/// Steps that hang and close slowly, through curl with 1 and 2 workers: the `hang` step is an
/// empty reply (exit 52) no earlier than its 300 ms; the `slow-close` step answers 200 at once,
/// a second GET on that connection is not answered, and once the FIN comes 400 ms after the
/// response curl sends it again on a new connection, where the last step (`ok`) answers it; and
/// `ok` holds after.
#[test]
fn hang_and_slow_close_steps_through_curl() {
    if !have("curl") {
        return;
    }
    let slack = time_bound(Duration::from_secs(3));
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--fault",
            "/f=seq:hang:300ms,slow-close:400ms,ok",
            "--workers",
            workers,
        ]);
        let url = p.url("/f");
        let t = Instant::now();
        let o = Command::new("curl")
            .args(["-s", "-m", "20", "-w", "%{http_code}", &url])
            .output()
            .unwrap();
        let took = t.elapsed();
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            (out.as_ref(), o.status.code()),
            ("000", Some(52)),
            "{workers}"
        );
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_millis(300) + slack, "{took:?}");
        let t = Instant::now();
        let o = Command::new("curl")
            .args(["-s", "-m", "20", "-o", "/dev/null", "-w"])
            .arg("%{http_code} %{num_connects} %{time_total}\\n")
            .args([&url, "-o", "/dev/null", &url])
            .output()
            .unwrap();
        let took = t.elapsed();
        let out = String::from_utf8(o.stdout).unwrap();
        assert_eq!(o.status.code(), Some(0), "{out}");
        let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split(' ').collect()).collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!((lines[0][0], lines[1][0]), ("200", "200"), "{out}");
        assert_eq!(
            (lines[0][1], lines[1][1]),
            ("1", "1"),
            "a new connection: {out}"
        );
        assert!(lines[0][2].parse::<f64>().unwrap() < 0.4, "{out}");
        assert!(took >= Duration::from_millis(400), "{took:?}: {out}");
        assert!(took < Duration::from_millis(400) + slack, "{took:?}: {out}");
        let o = Command::new("curl")
            .args([
                "-s",
                "-m",
                "20",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                &url,
            ])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout), "200");
        p.stop();
    }
}

/// A sequence takes no share, and no delivery fault or error rate beside it: one line naming
/// `--fault`, exit 2.
#[test]
fn a_sequence_beside_a_delivery_fault_is_a_bad_flag() {
    for faults in [
        &["/f=seq:503,ok@10%"][..],
        &["/f=seq:503,ok", "/f=reset:0"],
        &["/f=error:0.5:503", "/f=seq:ok,503"],
        &["/f=seq:503,,ok"],
    ] {
        let mut c = Command::new(bin());
        c.args(["--listen", "127.0.0.1:0"]);
        for f in faults {
            c.args(["--fault", f]);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{faults:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("canned: error: --fault"),
            "{faults:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// A Go program: `URL G N` starts G goroutines, each with a client of its own (one keep-alive
/// connection each), released together, each sending N GETs in turn; it prints the outcomes
/// counted in order of their keys, `STATUS=COUNT` (`error=COUNT` for a request that got no
/// answer), then `conns=` the distinct connections used. A 200 must have the route's body
/// and a 503 `503 Service Unavailable`.
const GO_SEQUENCE: &str = r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

func main() {
	g, _ := strconv.Atoi(os.Args[2])
	n, _ := strconv.Atoi(os.Args[3])
	var mu sync.Mutex
	counts := map[string]int{}
	conns := map[string]bool{}
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < g; i++ {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			c := &http.Client{Transport: &http.Transport{}}
			ready.Done()
			<-start
			for j := 0; j < n; j++ {
				local := ""
				trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { local = i.Conn.LocalAddr().String() }}
				req, _ := http.NewRequest("GET", os.Args[1], nil)
				req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
				key := "error"
				if r, err := c.Do(req); err == nil {
					b, err := io.ReadAll(r.Body)
					r.Body.Close()
					want := map[int]string{200: "Hello World\n", 503: "503 Service Unavailable\n"}[r.StatusCode]
					if err == nil && string(b) == want {
						key = strconv.Itoa(r.StatusCode)
					} else {
						key = fmt.Sprintf("bad-%d-%q", r.StatusCode, b)
					}
				}
				mu.Lock()
				counts[key]++
				conns[local] = true
				mu.Unlock()
			}
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	keys := []string{}
	for k, v := range counts {
		keys = append(keys, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(keys)
	fmt.Printf("%s conns=%d\n", strings.Join(keys, " "), len(conns))
}
"#;

/// Go's net/http, 8 goroutines at once of 10 requests each, every goroutine on a keep-alive
/// connection of its own, with 1, 2 and 4 workers: exactly two 503s in the whole run, the
/// other 78 answered 200, and each goroutine kept its one connection (the 503s close nothing).
#[test]
fn go_goroutines_see_exactly_two_failures() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new("sequence", GO_SEQUENCE);
    for workers in ["1", "2", "4"] {
        let p = Proc::start(&["--fault", "/flaky=seq:503,503,ok", "--workers", workers]);
        let o = go.run(&[p.url("/flaky"), "8".into(), "10".into()]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "200=78 503=2 conns=8\n",
            "--workers {workers}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (code, _) = p.stop();
        assert_eq!(code, 0);
    }
}
