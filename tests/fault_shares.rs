//! A share on a fault (`KIND[:ARGS]@SHARE`), seen from a real client: Python's
//! `http.client`, with one and two workers. The shares stay within four binomial standard
//! deviations, and with `--workers 1` a seed repeats the run exactly.

mod common;
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
