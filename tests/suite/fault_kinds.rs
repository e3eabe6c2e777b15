//! `hang`, `slow-close`, `bandwidth` and `status` seen from real clients: curl, Go's
//! net/http and Python's `http.client`, with one and two workers. Lower bounds on time are
//! exact (a pause is never early: each is measured from before the request was sent); upper
//! bounds are generous, times `CANNED_TEST_TIME_SCALE`, except the bandwidth's 5%.
#![cfg(feature = "faults")]

use crate::common;
use common::*;
use std::process::Command;
use std::time::{Duration, Instant};

/// One Go program for every case: `URL N` sends N GETs in turn with the default client
/// (keep-alive), printing for each `STATUS BODY_BYTES` or `error MESSAGE`, then the µs since
/// the request began and since the program began.
const GO_CLIENT: &str = r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	n, _ := strconv.Atoi(os.Args[2])
	start := time.Now()
	for i := 0; i < n; i++ {
		t := time.Now()
		r, err := http.Get(os.Args[1])
		if err != nil {
			fmt.Printf("error %q %d %d\n", err.Error(), time.Since(t).Microseconds(), time.Since(start).Microseconds())
			continue
		}
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			fmt.Printf("error %q %d %d\n", err.Error(), time.Since(t).Microseconds(), time.Since(start).Microseconds())
			continue
		}
		fmt.Println(r.StatusCode, len(b), time.Since(t).Microseconds(), time.Since(start).Microseconds())
	}
}
"#;

/// The Go client's lines for `n` GETs of `url`, each split at its last two fields: (what,
/// µs of the request, µs since the program began).
fn go_get(go: &GoProgram, url: &str, n: usize) -> Vec<(String, u64, u64)> {
    let o = go.run(&[url, &n.to_string()]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<(String, u64, u64)> = out
        .lines()
        .map(|l| {
            let (rest, since) = l.rsplit_once(' ').unwrap();
            let (what, took) = rest.rsplit_once(' ').unwrap();
            (
                what.to_string(),
                took.parse().unwrap(),
                since.parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(lines.len(), n, "{out}");
    lines
}

/// Run curl with `args`: (stdout, exit code, wall time of the whole run).
fn curl(args: &[&str]) -> (String, i32, Duration) {
    let t = Instant::now();
    let o = Command::new("curl").args(args).output().unwrap();
    let took = t.elapsed();
    (
        String::from_utf8(o.stdout).unwrap(),
        o.status.code().unwrap_or(-1),
        took,
    )
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// 3 s, times `CANNED_TEST_TIME_SCALE`.
fn slack() -> Duration {
    time_bound(Duration::from_secs(3))
}

/// `hang:D` through curl (an empty reply after D: exit 52; with `:reset`, a receive failure:
/// exit 56) and Go (an error after D, never earlier), with 1 and 2 workers.
#[test]
fn hang_through_curl_and_go() {
    let go = have("go").then(|| GoProgram::new("hang", GO_CLIENT));
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--fault",
            "/h=hang:700ms",
            "--fault",
            "/r=hang:400ms:reset",
            "--workers",
            workers,
        ]);
        if have("curl") {
            for (path, least, exit) in [("/h", 700, 52), ("/r", 400, 56)] {
                let (out, code, took) =
                    curl(&["-s", "-m", "20", "-w", "%{http_code}", &p.url(path)]);
                assert_eq!(
                    (out.as_str(), code),
                    ("000", exit),
                    "{path}, {workers} workers"
                );
                assert!(took >= ms(least), "{path}: {took:?}");
                assert!(took < ms(least) + slack(), "{path}: {took:?}");
            }
        }
        if let Some(go) = &go {
            for (path, least, says) in [("/h", 700, "EOF"), ("/r", 400, "reset by peer")] {
                let got = go_get(go, &p.url(path), 1);
                let (what, took, _) = &got[0];
                assert!(
                    what.starts_with("error") && what.contains(says),
                    "{path}: {got:?}"
                );
                assert!(*took >= least * 1000, "{path}: {got:?}");
                assert!(
                    Duration::from_micros(*took) < ms(least) + slack(),
                    "{got:?}"
                );
            }
        }
        p.stop();
    }
}

/// `slow-close:D` through curl and Go, two GETs on one keep-alive connection: the first is
/// answered at once and whole; the second, sent on the same connection, is not answered, and
/// only the FIN D after the first response lets the client retry it on a new connection (both
/// clients do, for a GET) — so the pair ends no earlier than D after the run began.
#[test]
fn slow_close_through_curl_and_go() {
    let go = have("go").then(|| GoProgram::new("slowclose", GO_CLIENT));
    for workers in ["1", "2"] {
        let p = Proc::start(&["--fault", "/s=slow-close:800ms", "--workers", workers]);
        let url = p.url("/s");
        if have("curl") {
            let (out, code, took) = curl(&[
                "-s",
                "-m",
                "20",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code} %{num_connects} %{time_total}\\n",
                &url,
                "-o",
                "/dev/null",
                &url,
            ]);
            assert_eq!(code, 0, "{out}");
            let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split(' ').collect()).collect();
            assert_eq!(lines.len(), 2, "{out}");
            assert_eq!((lines[0][0], lines[1][0]), ("200", "200"), "{out}");
            // The first on a new connection, at once; the second reconnected after the FIN.
            assert_eq!((lines[0][1], lines[1][1]), ("1", "1"), "{out}");
            let first: f64 = lines[0][2].parse().unwrap();
            assert!(first < 0.8, "{out}");
            assert!(took >= ms(800), "{took:?}: {out}");
            assert!(took < ms(800) + slack(), "{took:?}: {out}");
        }
        if let Some(go) = &go {
            let got = go_get(go, &url, 2);
            assert_eq!(got[0].0, "200 12", "{got:?}");
            assert!(got[0].1 < 800_000, "{got:?}");
            assert_eq!(got[1].0, "200 12", "retried after the FIN: {got:?}");
            assert!(got[1].2 >= 800_000, "{got:?}");
            assert!(
                Duration::from_micros(got[1].2) < ms(800) + slack(),
                "{got:?}"
            );
        }
        p.stop();
    }
}

/// `bandwidth:1MiB/s` on a 4 MiB `--body-file`: 4 s within 5%, never less than the bytes
/// over the rate (head and body through curl, which counts them, its 5% from the moment it
/// sent the request (`time_pretransfer`) on; the body alone through Go
/// and Python, a bound a head's bytes short of exact). curl with 1 worker, Go and Python with
/// 2.
#[test]
fn bandwidth_takes_length_over_rate_within_5_percent() {
    let dir = std::env::temp_dir().join(format!("canned-bw4m-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("body");
    let len = 4u64 << 20;
    std::fs::write(&file, vec![b'b'; len as usize]).unwrap();
    let file = file.to_str().unwrap().to_string();
    let rate = 1u64 << 20;
    // 5% of the 4 s, times the time scale (1 unless emulated).
    let within = Duration::from_millis(200) * time_scale();
    let start = |workers: &str| {
        Proc::start(&[
            "--body-file",
            &file,
            "--fault",
            "/=bandwidth:1MiB/s",
            "--workers",
            workers,
        ])
    };
    if have("curl") {
        let p = start("1");
        let (out, code, _) = curl(&[
            "-s",
            "-m",
            "30",
            "-o",
            "/dev/null",
            "-w",
            "%{size_header} %{size_download} %{time_total} %{time_pretransfer}",
            &p.url("/"),
        ]);
        p.stop();
        assert_eq!(code, 0, "{out}");
        let f: Vec<&str> = out.split(' ').collect();
        let (head, body): (u64, u64) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        assert_eq!(body, len, "{out}");
        let least = Duration::from_micros(((head + body) * 1_000_000).div_ceil(rate));
        let took = Duration::from_secs_f64(f[2].parse().unwrap());
        // curl's total counts its own start (name lookup, connect) before the request is
        // sent, which the server's pace does not: the lower bound takes the total (exact,
        // a pause is never early), the 5% the time from the request on.
        let own = Duration::from_secs_f64(f[3].parse().unwrap());
        eprintln!(
            "curl: {} bytes in {took:?}, {own:?} of it before the request (least {least:?})",
            head + body
        );
        assert!(took >= least, "{out}: least {least:?}");
        assert!(took - own <= least + within, "{out}: least {least:?}");
    }
    let least = Duration::from_micros((len * 1_000_000).div_ceil(rate));
    if have("go") {
        let p = start("2");
        let go = GoProgram::new("bw4m", GO_CLIENT);
        let got = go_get(&go, &p.url("/"), 1);
        p.stop();
        assert_eq!(got[0].0, format!("200 {len}"), "{got:?}");
        let took = Duration::from_micros(got[0].1);
        eprintln!("go: {len} body bytes in {took:?} (least {least:?})");
        assert!(took >= least, "{got:?}");
        assert!(took <= least + within, "{got:?}");
    }
    if have("python3") {
        let p = start("2");
        let script = r#"
import http.client, sys, time
port, length, least, most = (int(a) for a in sys.argv[1:])
t = time.monotonic()
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
c.request("GET", "/")
r = c.getresponse()
body = r.read()
took = int((time.monotonic() - t) * 1e6)
assert r.status == 200 and len(body) == length, (r.status, len(body))
assert least <= took <= most, (took, least, most)
print("ok")
"#;
        let args = [
            p.addr.port().to_string(),
            len.to_string(),
            least.as_micros().to_string(),
            (least + within).as_micros().to_string(),
        ];
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        python_ok(script, &args, "python bandwidth");
        p.stop();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The statuses curl gets for 200 requests on one connection.
fn curl_statuses(url: &str) -> Vec<String> {
    let mut args = vec!["-s", "-m", "60", "-w", "%{http_code}\\n"];
    for _ in 0..200 {
        args.extend(["-o", "/dev/null", url]);
    }
    let (out, code, _) = curl(&args);
    assert_eq!(code, 0);
    out.lines().map(str::to_string).collect()
}

/// Counts of 200, 500 and 503 in `codes` within four binomial standard deviations of 70%,
/// 20% and 10% of them, and nothing else.
fn assert_mix(codes: &[String], what: &str) {
    let n = codes.len() as f64;
    for (status, p) in [("200", 0.7), ("500", 0.2), ("503", 0.1)] {
        let got = codes.iter().filter(|c| *c == status).count() as f64;
        let (mean, sd) = (n * p, (n * p * (1.0 - p)).sqrt());
        assert!(
            (got - mean).abs() <= 4.0 * sd,
            "{what}: {got} of {n} were {status}: {codes:?}"
        );
    }
    assert!(
        codes
            .iter()
            .all(|c| ["200", "500", "503"].contains(&c.as_str())),
        "{what}: {codes:?}"
    );
}

/// `status:200=70%,500=20%,503=10%` through curl (200 requests on one connection), Python
/// (100, each on a new connection, with the bodies) and Go: the counts within four binomial
/// standard deviations, and with `--seed` and one worker the same sequence again.
#[test]
fn a_status_mix_through_curl_python_and_go() {
    let mix = "/m=status:200=70%,500=20%,503=10%";
    let start =
        |workers: &str| Proc::start(&["--fault", mix, "--seed", "11", "--workers", workers]);
    if have("curl") {
        let run = |workers: &str| {
            let p = start(workers);
            let codes = curl_statuses(&p.url("/m"));
            p.stop();
            codes
        };
        let one = run("1");
        assert_eq!(one.len(), 200);
        assert_mix(&one, "curl, 1 worker");
        assert_eq!(run("1"), one, "one worker and a seed repeat the run");
        assert_mix(&run("2"), "curl, 2 workers");
    }
    if have("python3") {
        let script = r#"
import http.client, sys
port = int(sys.argv[1])
out = []
for _ in range(100):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/m")
    r = c.getresponse()
    body = r.read()
    want = {200: b"Hello World\n", 500: b"500 Internal Server Error\n", 503: b"503 Service Unavailable\n"}
    assert body == want[r.status], (r.status, body)
    out.append(str(r.status))
    c.close()
print(" ".join(out))
"#;
        let run = |workers: &str| {
            let p = start(workers);
            let o = Command::new("python3")
                .args(["-c", script, &p.addr.port().to_string()])
                .output()
                .unwrap();
            p.stop();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let out = String::from_utf8(o.stdout).unwrap();
            out.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let one = run("1");
        assert_eq!(one.len(), 100);
        assert_mix(&one, "python, 1 worker");
        assert_eq!(run("1"), one, "one worker and a seed repeat the run");
        assert_mix(&run("2"), "python, 2 workers");
    }
    if have("go") {
        let go = GoProgram::new("mix", GO_CLIENT);
        for workers in ["1", "2"] {
            let p = start(workers);
            let got = go_get(&go, &p.url("/m"), 100);
            p.stop();
            let codes: Vec<String> = got
                .iter()
                .map(|(what, _, _)| what.split(' ').next().unwrap().to_string())
                .collect();
            assert_mix(&codes, &format!("go, {workers} workers"));
        }
    }
}

/// How a raw client that half-closes after its request (`shutdown(SHUT_WR)`) sees the end:
/// the bytes before it, when it came (from before the request), and FIN or RST.
fn half_close_end(addr: std::net::SocketAddr, path: &str) -> (Vec<u8>, Duration, &'static str) {
    use std::io::{ErrorKind, Write};
    let mut s = connect(addr);
    s.set_read_timeout(Some(time_bound(Duration::from_secs(20))))
        .unwrap();
    let t = Instant::now();
    write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read_some(&mut buf) {
            Ok(0) => return (got, t.elapsed(), "FIN"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                return (got, t.elapsed(), "RST");
            }
            // A signal to the test process (the in-process servers' own) is not the end.
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => panic!("{path}: {e} after {} bytes", got.len()),
        }
    }
}

/// A client's half-close does not end a hang or a slow close early: nothing, then FIN (RST
/// for `hang:D:reset`) no earlier than D; the slow close's whole response first. With one
/// and two workers.
#[test]
fn a_half_close_does_not_cut_a_hang_or_a_slow_close_short() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--fault",
            "/h=hang:600ms",
            "--fault",
            "/r=hang:600ms:reset",
            "--fault",
            "/s=slow-close:600ms",
            "--workers",
            workers,
        ]);
        for (path, end, empty) in [
            ("/h", "FIN", true),
            ("/r", "RST", true),
            ("/s", "FIN", false),
        ] {
            let (got, took, how) = half_close_end(addr, path);
            assert_eq!(how, end, "{workers} {path}");
            assert_eq!(got.is_empty(), empty, "{workers} {path}: {got:?}");
            if !empty {
                assert_eq!(parse_responses(&got, &[false])[0].status, 200);
            }
            assert!(took >= ms(600), "{workers} {path}: {took:?}");
            assert!(took < ms(600) + slack(), "{workers} {path}: {took:?}");
        }
        h.shutdown();
        h.join();
    }
}
