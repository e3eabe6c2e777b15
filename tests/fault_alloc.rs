//! Faults allocate nothing per request either: a counting global allocator watches the whole
//! process while a warmed-up connection runs keep-alive and pipelined requests that each get a
//! latency, a drip and, for half of them, an error-rate response (of the same bytes, so that
//! the client can count them).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: defers to the system allocator; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const REQ: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// Send `batch` requests in one write and read exactly their responses into `buf`.
fn round(s: &mut TcpStream, wire: &[u8], batch: usize, resp_len: usize, buf: &mut [u8]) {
    s.write_all(&wire[..REQ.len() * batch]).unwrap();
    let mut got = 0;
    while got < batch * resp_len {
        let n = s.read(buf).unwrap();
        assert!(n > 0, "closed");
        got += n;
    }
    assert_eq!(got, batch * resp_len, "response bytes");
}

#[test]
fn steady_state_faulted_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--fault",
        "*=latency:1ms..2ms",
        "--fault",
        "*=drip:40/1ms",
        "--fault",
        "*=error:0.5:200:Hello World\n",
    ];
    let canned::config::Command::Run(c) =
        canned::config::Config::from_args(args.iter().copied(), &[]).unwrap()
    else {
        panic!()
    };
    let h = canned::server::Server::bind(*c).unwrap().spawn().unwrap();
    let mut s = TcpStream::connect(h.tcp_addr().unwrap()).unwrap();
    s.set_nodelay(true).unwrap();
    let wire: Vec<u8> = REQ.repeat(16);
    let mut buf = vec![0u8; 1 << 16];
    // Learn the response length, then warm up both paths.
    s.write_all(REQ).unwrap();
    let mut resp_len = 0;
    while !buf[..resp_len].ends_with(b"Hello World\n") {
        resp_len += s.read(&mut buf[resp_len..]).unwrap();
    }
    for _ in 0..20 {
        round(&mut s, &wire, 1, resp_len, &mut buf);
        round(&mut s, &wire, 16, resp_len, &mut buf);
    }
    let before = ALLOCS.load(Ordering::SeqCst);
    let mut requests = 0;
    while requests < 1_000 {
        round(&mut s, &wire, 1, resp_len, &mut buf);
        round(&mut s, &wire, 16, resp_len, &mut buf);
        requests += 17;
    }
    let after = ALLOCS.load(Ordering::SeqCst);
    assert_eq!(
        after - before,
        0,
        "{} allocations over {requests} requests",
        after - before
    );
    drop(s);
    h.shutdown();
    let summary = h.join();
    let faults = summary.stats.faults;
    use canned::fault::Kind;
    assert!(faults[Kind::Latency.index()] >= 1_000 && faults[Kind::Drip.index()] >= 1_000);
    assert!(faults[Kind::Error.index()] >= 300, "{faults:?}");
}
