//! A counting global allocator for the tests that prove steady-state requests allocate
//! nothing: it watches the whole process (server workers and the test's client). Included by
//! `tests/alloc.rs` and `tests/fault_alloc.rs`, each its own process.

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

/// Serve with `args` (one worker, body `Hello World\n`), warm a keep-alive connection up with
/// `warm_up` rounds of one and of 16 pipelined requests, then assert that at least `requests`
/// more requests made no allocation anywhere in the process. Returns the server's summary.
pub fn assert_steady_state_allocates_nothing(
    args: &[&str],
    warm_up: usize,
    requests: usize,
) -> canned::server::Summary {
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
        let n = s.read(&mut buf[resp_len..]).unwrap();
        assert!(n > 0, "closed");
        resp_len += n;
    }
    for _ in 0..warm_up {
        round(&mut s, &wire, 1, resp_len, &mut buf);
        round(&mut s, &wire, 16, resp_len, &mut buf);
    }
    let before = ALLOCS.load(Ordering::SeqCst);
    let mut done = 0;
    while done < requests {
        round(&mut s, &wire, 1, resp_len, &mut buf);
        round(&mut s, &wire, 16, resp_len, &mut buf);
        done += 17;
    }
    let after = ALLOCS.load(Ordering::SeqCst);
    assert_eq!(
        after - before,
        0,
        "{} allocations over {done} requests",
        after - before
    );
    drop(s);
    h.shutdown();
    h.join()
}
