//! Every count of `--stats` (and the exit summary) that a limit decides, reached with one and
//! with two workers: the counts are summed over workers, whichever worker took the client.
#![cfg(feature = "stats")]

use crate::common;

use common::*;
use std::io::Write;
use std::time::{Duration, Instant};

/// `"name":n` in the `--stats` body, or 0.
fn count(json: &str, name: &str) -> u64 {
    json.split(&format!("\"{name}\":"))
        .nth(1)
        .and_then(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// The `--stats` body once `ready` holds of it (counters are published every 100 ms).
fn stats_when(addr: std::net::SocketAddr, ready: impl Fn(&str) -> bool) -> String {
    let t = Instant::now();
    loop {
        let reply = exchange(addr, b"GET /_stats HTTP/1.0\r\n\r\n");
        let json = String::from_utf8_lossy(&reply).into_owned();
        if ready(&json) || t.elapsed() > time_bound(Duration::from_secs(5)) {
            return json;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_limit_count_with_one_and_two_workers() {
    // A body large enough to fill the socket buffers of a client that reads nothing.
    let file = std::env::temp_dir().join(format!("canned-limit-counters-{}", std::process::id()));
    std::fs::write(&file, vec![b'b'; 8 << 20]).unwrap();
    /// Removes the body file however the test ends.
    struct Remove(std::path::PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let _remove = Remove(file.clone());
    let big = format!("/big=200:@{}", file.display());
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--stats",
            "/_stats",
            "--route",
            &big,
            "--max-head-bytes",
            "256",
            "--max-headers",
            "4",
            "--max-body-bytes",
            "10",
            "--header-timeout",
            "300ms",
            "--idle-timeout",
            "400ms",
            "--write-timeout",
            "300ms",
        ]);
        let a = p.addr;
        let status = |req: &[u8]| parse_responses(&exchange(a, req), &[])[0].status;
        // Head limits: 431 twice (size, count), 414, 400 for a method that never ends.
        let long_value = format!(
            "GET / HTTP/1.1\r\nHost: t\r\nX: {}\r\n\r\n",
            "v".repeat(300)
        );
        assert_eq!(status(long_value.as_bytes()), 431);
        assert_eq!(
            status(b"GET / HTTP/1.1\r\nHost: t\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n"),
            431
        );
        let long_target = format!("GET /{} HTTP/1.1\r\nHost: t\r\n\r\n", "a".repeat(300));
        assert_eq!(status(long_target.as_bytes()), 414);
        assert_eq!(status(&[b'G'; 300]), 400);
        // The body limit: 413, by Content-Length and by chunks.
        assert_eq!(
            status(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n"),
            413
        );
        assert_eq!(
            status(b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n"),
            413
        );
        // Timeouts: a partial head (408), a silent keep-alive connection, unread output.
        let mut s = connect(a);
        s.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
        assert_eq!(parse_responses(&read_to_eof(&mut s), &[])[0].status, 408);
        let mut s = connect(a);
        s.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
        read_responses(&mut s, 1);
        assert!(read_to_eof(&mut s).is_empty());
        let mut unread = connect(a);
        unread
            .write_all(b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        let want = [
            ("head_too_large", 1),
            ("too_many_headers", 1),
            ("uri_too_long", 1),
            ("invalid_method", 1),
            ("431", 2),
            ("414", 1),
            ("413", 2),
            ("408", 1),
            ("header", 1),
            ("idle", 1),
            ("write", 1),
        ];
        // Every worker's counts, published as each one's last connection closes.
        let json = stats_when(a, |j| want.iter().all(|&(name, n)| count(j, name) == n));
        for (name, n) in want {
            assert_eq!(count(&json, name), n, "{workers} workers: {name} in {json}");
        }
        drop(unread);
        let (code, summary) = p.stop();
        assert_eq!(code, 0);
        for part in [
            "4 errors (invalid_method 1, uri_too_long 1, head_too_large 1, too_many_headers 1)",
            "3 timeouts (header 1, idle 1, write 1)",
            "400 1, 408 1, 413 2, 414 1, 431 2",
        ] {
            assert!(
                summary.contains(part),
                "{workers} workers: {part} in {summary}"
            );
        }
    }
}
