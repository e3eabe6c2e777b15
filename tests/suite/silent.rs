//! Clients that hold a slot without asking for anything: sockets that never send a byte, and
//! clients that leave while their response is held (`--delay`, a latency, a drip between
//! pieces). Neither may keep a connection, or a `--max-conns` slot, from someone else.

use crate::common;

use common::*;
#[cfg(feature = "faults")]
use std::io::Read;
use std::io::Write;
#[cfg(feature = "faults")]
use std::net::Shutdown;
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[cfg(feature = "faults")]
fn wait_open(h: &canned::server::Handle, n: usize, within: Duration) -> Duration {
    let t = Instant::now();
    while h.open_connections() != n && t.elapsed() < within {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(h.open_connections(), n, "after {:?}", t.elapsed());
    t.elapsed()
}

/// A socket that sends nothing is closed at the header timeout counted from its accept,
/// without a response (a preconnecting client is not sent a 408 it never asked for), and
/// counted as a header timeout.
#[test]
fn a_silent_connection_is_closed_at_the_header_timeout_from_accept() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--header-timeout",
            "300ms",
            "--idle-timeout",
            "60s",
        ]);
        let t = Instant::now();
        let mut s = connect(addr);
        let got = read_to_eof(&mut s);
        let took = t.elapsed();
        assert!(got.is_empty(), "{got:?}");
        assert!(
            took >= Duration::from_millis(300) && took < time_bound(Duration::from_secs(3)),
            "{took:?}"
        );
        // One byte now and then does not restart it: the first head must be whole in time.
        let t = Instant::now();
        let mut s = connect(addr);
        for b in b"GET / HT" {
            if s.write_all(&[*b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(60));
        }
        let r = parse_responses(&read_to_eof(&mut s), &[]);
        let took = t.elapsed();
        assert!(!r.is_empty(), "closed without the 408 after {took:?}");
        assert_eq!(r[0].status, 408);
        assert!(took < time_bound(Duration::from_secs(3)), "{took:?}");
        h.shutdown();
        assert_eq!(h.join().stats.timeouts[0], 2, "{workers} workers");
    }
}

/// At `--max-conns` a herd of silent sockets makes room among itself: the oldest silent one
/// is closed before an answered keep-alive client, and a new client is answered at once (on
/// main, the real client was closed and a new one waited for the idle timeout, 7.7 s).
#[test]
fn at_the_limit_silent_sockets_are_evicted_before_keep_alive_clients() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--max-conns",
            "20",
            "--header-timeout",
            "5s",
            "--idle-timeout",
            "30s",
        ]);
        let mut real = connect(addr);
        real.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        assert_eq!(read_responses(&mut real, 1)[0].status, 200);
        let herd: Vec<TcpStream> = (0..40).map(|_| connect(addr)).collect();
        std::thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        let mut fresh = connect(addr);
        fresh
            .write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        fresh
            .set_read_timeout(Some(time_bound(Duration::from_secs(4))))
            .unwrap();
        assert_eq!(read_responses(&mut fresh, 1)[0].status, 200);
        let took = t.elapsed();
        assert!(took < time_bound(Duration::from_secs(2)), "{took:?}");
        // The keep-alive client kept its connection.
        real.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        real.set_read_timeout(Some(time_bound(Duration::from_secs(4))))
            .unwrap();
        assert_eq!(
            read_responses(&mut real, 1)[0].status,
            200,
            "{workers} workers"
        );
        drop(herd);
        h.shutdown();
        h.join();
    }
}

/// A client that hangs up (FIN) while its response is held or between drip pieces is closed
/// at once, and its `--max-conns` slot is free again; before, a drip of one byte every 10 s
/// kept the socket in CLOSE-WAIT until the next piece.
#[cfg(feature = "faults")]
#[test]
fn a_client_gone_during_a_hold_or_a_drip_pause_is_closed_at_once() {
    let cases: [&[&str]; 3] = [
        &["--fault", "/d=drip:1/10s"],
        &["--fault", "/d=latency:10s"],
        &["--delay", "10s"],
    ];
    for flags in cases {
        for workers in ["1", "2"] {
            let mut args = vec!["--workers", workers, "--max-conns", "3"];
            args.extend_from_slice(flags);
            let (h, addr) = start(&args);
            for half_close in [false, true] {
                let mut s = connect(addr);
                s.write_all(b"GET /d HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
                wait_open(&h, 1, Duration::from_secs(5));
                if flags[1].starts_with("/d=drip") {
                    // The first piece is out at once.
                    let mut b = [0u8; 1];
                    s.read_exact(&mut b).unwrap();
                }
                std::thread::sleep(Duration::from_millis(100));
                if half_close {
                    s.shutdown(Shutdown::Write).unwrap();
                } else {
                    drop(s);
                }
                let took = wait_open(&h, 0, time_bound(Duration::from_secs(3)));
                eprintln!(
                    "{flags:?}, {workers} workers, half-close {half_close}: closed after {took:?}"
                );
            }
            h.shutdown();
            h.join();
        }
    }
}
