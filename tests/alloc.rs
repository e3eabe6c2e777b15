//! Zero allocations per request in steady state: a counting global allocator watches the
//! whole process (server workers and this client) while a warmed-up connection runs 10,000
//! keep-alive and pipelined requests.

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
fn steady_state_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
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
    let resp_len = s.read(&mut buf).unwrap();
    assert!(buf[..resp_len].ends_with(b"Hello World\n"));
    for _ in 0..500 {
        round(&mut s, &wire, 1, resp_len, &mut buf);
        round(&mut s, &wire, 16, resp_len, &mut buf);
    }
    let before = ALLOCS.load(Ordering::SeqCst);
    let mut requests = 0;
    while requests < 10_000 {
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
    assert!(summary.stats.requests >= 10_000 + 1 + 500 * 17);
}
