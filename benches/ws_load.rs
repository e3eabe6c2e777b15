//! The WebSocket echo benchmark's load generator (benches/ws.sh): CONNS connections, each with
//! one 64-byte text message in flight (masked, as a client's must be), the next sent as soon
//! as its echo is read whole; one thread, non-blocking sockets and one level-triggered poller. Prints the
//! messages echoed a second over SECONDS after a second's warm-up.
//!
//!     cargo run --release --example ws_load -- 127.0.0.1:8080/ 256 5

use polling::{Event, Events, PollMode, Poller};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const PAYLOAD: usize = 64;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).map_or("127.0.0.1:8080/", String::as_str);
    let conns: usize = args.get(2).map_or(256, |v| v.parse().expect("CONNS"));
    let seconds: u64 = args.get(3).map_or(5, |v| v.parse().expect("SECONDS"));
    let (addr, path) = target.split_at(target.find('/').unwrap_or(target.len()));
    let path = if path.is_empty() { "/" } else { path };

    // One masked text frame of 64 bytes: the same bytes for every message.
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    let mut message = vec![0x81, 0x80 | PAYLOAD as u8];
    message.extend_from_slice(&mask);
    message.extend(
        (0..PAYLOAD).map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[i % 36] ^ mask[i % 4]),
    );
    let echo_len = 2 + PAYLOAD;

    let poller = Poller::new().unwrap();
    let mut socks = Vec::with_capacity(conns);
    for _ in 0..conns {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: bench\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
        .unwrap();
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert_eq!(s.read(&mut b).unwrap(), 1, "closed during the handshake");
            head.push(b[0]);
        }
        assert!(
            head.starts_with(b"HTTP/1.1 101"),
            "{}",
            String::from_utf8_lossy(&head)
        );
        s.set_nonblocking(true).unwrap();
        socks.push(s);
    }
    let mut got = vec![0usize; conns];
    for (i, s) in socks.iter_mut().enumerate() {
        // SAFETY: each socket is deleted from the poller before it is dropped (at exit).
        unsafe {
            poller
                .add_with_mode(&*s, Event::readable(i), PollMode::Level)
                .unwrap()
        };
        s.write_all(&message).unwrap();
    }
    let mut events = Events::new();
    let mut buf = vec![0u8; 64 * 1024];
    let start = Instant::now();
    let warm = Duration::from_secs(1);
    let end = warm + Duration::from_secs(seconds);
    let mut counted = 0u64;
    let mut counting = false;
    let mut ticks_at_warm = 0;
    loop {
        let now = start.elapsed();
        if now >= end {
            break;
        }
        if !counting && now >= warm {
            counting = true;
            counted = 0;
            ticks_at_warm = own_cpu_ticks();
        }
        events.clear();
        poller
            .wait(&mut events, Some(Duration::from_millis(100)))
            .unwrap();
        for ev in events.iter() {
            let i = ev.key;
            let s = &mut socks[i];
            // Level-triggered: one read per event, no re-arming (two syscalls a message).
            match s.read(&mut buf) {
                Ok(0) => panic!("connection {i} closed"),
                Ok(n) => {
                    got[i] += n;
                    while got[i] >= echo_len {
                        got[i] -= echo_len;
                        counted += 1;
                        s.write_all(&message).unwrap();
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => panic!("connection {i}: {e}"),
            }
        }
    }
    let took = start.elapsed().saturating_sub(warm).as_secs_f64();
    let ticks = own_cpu_ticks() - ticks_at_warm;
    for s in &socks {
        poller.delete(s).unwrap();
    }
    // The generator's own CPU per message: when it is near the servers', the rate measures
    // the generator as much as the server (the server's CPU per message does not).
    let own_us = ticks as f64 * 10_000.0 / counted.max(1) as f64;
    println!(
        "{counted} messages in {took:.2} s, load generator {own_us:.2} CPU µs/message: {:.0} messages/s",
        counted as f64 / took
    );
}

/// This process's user and system CPU time, in clock ticks (100 a second on Linux).
fn own_cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis: utime and stime are the 12th and
    // 13th of them.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let f: Vec<&str> = after.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    n(11) + n(12)
}
