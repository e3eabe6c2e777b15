//! A share on a fault (`KIND[:ARGS]@SHARE`), seen from a real client: Python's
//! `http.client`, with one and two workers. The shares stay within four binomial standard
//! deviations, and with `--workers 1` a seed repeats the run exactly.
#![cfg(feature = "faults")]

use crate::common;
use common::*;
use std::process::Command;

/// 100 requests, each on a new connection, by Python's `http.client`: `O` for a response,
/// `R` for a reset, in order.
fn python_outcomes(url_host: &str, port: u16, path: &str) -> String {
    let script = format!(
        r#"
import http.client
out = []
for _ in range(100):
    c = http.client.HTTPConnection("{url_host}", {port}, timeout=10)
    try:
        c.request("GET", "{path}")
        r = c.getresponse()
        r.read()
        out.append("O" if r.status == 200 else "S")
    except (ConnectionResetError, http.client.RemoteDisconnected):
        out.append("R")
    c.close()
print("".join(out))
"#
    );
    let o = Command::new("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

#[test]
fn reset_at_a_share_resets_that_share_and_repeats_with_a_seed() {
    if !have("python3") {
        return;
    }
    let run = |workers: &str| {
        let p = Proc::start(&[
            "--fault",
            "/r=reset:0@30%",
            "--seed",
            "7",
            "--workers",
            workers,
        ]);
        let got = python_outcomes("127.0.0.1", p.addr.port(), "/r");
        p.stop();
        got
    };
    let one = run("1");
    assert_eq!(one.len(), 100, "{one}");
    let resets = one.matches('R').count();
    // Binomial(100, 0.3): mean 30, sd 4.6; the bound is 4 sd.
    assert!((12..=48).contains(&resets), "{one}");
    assert_eq!(one.matches('O').count(), 100 - resets, "{one}");
    assert_eq!(run("1"), one, "one worker and a seed repeat the run");
    let two = run("2");
    assert!((12..=48).contains(&two.matches('R').count()), "{two}");
}

/// `error:503@25%` through curl (one invocation, 200 requests on its keep-alive connection):
/// the 503s are within four binomial standard deviations of 50, the rest are the route's 200,
/// and with one worker the seed repeats the sequence.
#[test]
fn an_error_share_through_curl() {
    if !have("curl") {
        return;
    }
    let run = |workers: &str| {
        let p = Proc::start(&[
            "--fault",
            "/e=error:503@25%",
            "--seed",
            "3",
            "--workers",
            workers,
        ]);
        let url = p.url("/e");
        let mut cmd = Command::new("curl");
        cmd.args(["-s", "-m", "60", "-w", "%{http_code}\\n"]);
        for _ in 0..200 {
            // curl takes one output per URL.
            cmd.args(["-o", "/dev/null", &url]);
        }
        let o = cmd.output().unwrap();
        p.stop();
        let codes = String::from_utf8(o.stdout).unwrap();
        codes.lines().map(str::to_string).collect::<Vec<_>>()
    };
    let one = run("1");
    assert_eq!(one.len(), 200, "{one:?}");
    let errors = one.iter().filter(|c| *c == "503").count();
    // Binomial(200, 0.25): mean 50, sd 6.1; the bound is 4 sd.
    assert!((26..=74).contains(&errors), "{errors} of 200");
    assert!(one.iter().all(|c| c == "503" || c == "200"), "{one:?}");
    assert_eq!(run("1"), one, "one worker and a seed repeat the run");
    let two = run("2");
    let errors = two.iter().filter(|c| *c == "503").count();
    assert!(
        (26..=74).contains(&errors),
        "{errors} of 200 with 2 workers"
    );
}

/// `latency:1s@50%` through Go's net/http (`GO111MODULE=off`, no module proxy): each of 20
/// requests takes either less than the latency or at least all of it (the bound is exact),
/// and both kinds occur, with 1 and 2 workers.
#[test]
fn a_latency_share_through_go() {
    if !have("go") {
        return;
    }
    let go = GoProgram::new(
        "shares",
        r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	for i := 0; i < 20; i++ {
		t := time.Now()
		r, err := http.Get(os.Args[1])
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		io.ReadAll(r.Body)
		r.Body.Close()
		fmt.Println(r.StatusCode, time.Since(t).Microseconds())
	}
}
"#,
    );
    for workers in ["1", "2"] {
        let p = Proc::start(&["--fault", "/l=latency:1s@50%", "--workers", workers]);
        let o = go.run(&[p.url("/l")]);
        p.stop();
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(
            o.status.success(),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (mut late, mut prompt) = (0, 0);
        for line in out.lines() {
            let (status, us) = line.split_once(' ').unwrap();
            assert_eq!(status, "200", "{out}");
            let us: u64 = us.parse().unwrap();
            // Held: never earlier than the latency. Not held: well under it (even emulated).
            if us >= 1_000_000 {
                late += 1;
            } else {
                assert!(us < 900_000, "{us} µs: neither held nor prompt\n{out}");
                prompt += 1;
            }
        }
        assert_eq!(late + prompt, 20, "{out}");
        // Binomial(20, 0.5): mean 10, sd 2.2; the bound is 4 sd.
        assert!((1..=19).contains(&late), "{late} of 20 held\n{out}");
    }
}
