//! `--access-log` and `--access-log json` with real clients: each line carries the client's
//! address, the status, the bytes, the time and the protocol, on HTTP/1 and HTTP/2, with
//! 1 and 2 workers.
#![cfg(feature = "access-log")]

mod common;

use common::{Proc, have};
use std::io::BufRead;
use std::process::Command;

/// curl's view of one exchange: its local port, the status, head and body bytes.
fn curl(url: &str, extra: &[&str]) -> (u16, u16, u64, u64) {
    let out = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{local_port} %{http_code} %{size_header} %{size_download}",
        ])
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    let t = String::from_utf8(out.stdout).unwrap();
    let v: Vec<u64> = t.split(' ').map(|x| x.parse().unwrap()).collect();
    (v[0] as u16, v[1] as u16, v[2], v[3])
}

#[test]
fn each_line_carries_client_status_bytes_time_and_protocol_text_and_json() {
    if !have("curl") || !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        for json in [false, true] {
            let mut flags = vec!["--workers", workers, "--access-log"];
            if json {
                flags.push("json");
            }
            let mut p = Proc::start(&flags);
            let url = format!("http://{}/a%01b", p.addr);
            let h1 = curl(&url, &[]);
            let h2 = curl(&url, &["--http2-prior-knowledge"]);
            let mut out = std::io::BufReader::new(p.child.stdout.take().unwrap());
            let mut lines = Vec::new();
            for _ in 0..2 {
                let mut l = String::new();
                out.read_line(&mut l).unwrap();
                lines.push(l);
            }
            lines.sort_by_key(|l| !l.contains("HTTP/1.1"));
            for (line, (port, status, head, body), proto, bytes) in [
                (&lines[0], h1, "HTTP/1.1", h1.2 + h1.3),
                (&lines[1], h2, "HTTP/2", h2.3),
            ] {
                assert_eq!(status, 200);
                let _ = (head, body);
                let client = format!("127.0.0.1:{port}");
                let (c, s, b, us, pr, target) = if json {
                    let script = "import json,sys; o=json.loads(sys.argv[1]); \
                                  print(o['client'], o['status'], o['bytes'], o['duration_us'], o['protocol'], o['target'], o['tls'])";
                    let o = Command::new("python3")
                        .args(["-c", script, line])
                        .output()
                        .unwrap();
                    assert!(o.status.success(), "{line}");
                    let t = String::from_utf8(o.stdout).unwrap();
                    let f: Vec<String> = t.split_whitespace().map(String::from).collect();
                    assert_eq!(f[6], "False", "{line}");
                    (
                        f[0].clone(),
                        f[1].clone(),
                        f[2].clone(),
                        f[3].clone(),
                        f[4].clone(),
                        f[5].clone(),
                    )
                } else {
                    let f: Vec<&str> = line.trim_end().split(' ').collect();
                    // [Day, DD Mon YYYY HH:MM:SS GMT] CLIENT METHOD TARGET VERSION STATUS BYTES US
                    let f = &f[6..];
                    let pr = if f[3] == "HTTP/2.0" { "HTTP/2" } else { f[3] };
                    (
                        f[0].into(),
                        f[4].into(),
                        f[5].into(),
                        f[6].into(),
                        pr.into(),
                        f[2].into(),
                    )
                };
                assert_eq!(c, client, "{line}");
                assert_eq!(s, "200", "{line}");
                assert_eq!(b, bytes.to_string(), "{line}");
                assert_eq!(pr, proto, "{line}");
                assert_eq!(target, "/a%01b", "{line}");
                let us: u64 = us.parse().unwrap();
                assert!(us > 0 && us < 10_000_000, "{line}");
            }
            drop(out);
            p.stop();
        }
    }
}

#[test]
fn a_bad_format_is_one_error_naming_the_flag() {
    let out = Command::new(common::bin())
        .args(["--access-log=xml"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--access-log") && err.contains("json"),
        "{err}"
    );
}
