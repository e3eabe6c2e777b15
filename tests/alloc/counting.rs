//! The counting global allocator of the tests that prove steady-state requests allocate
//! nothing: it watches the whole process (server workers and the test's client), so the tests
//! that read it run one at a time (`main.rs`): a second test running beside one would be
//! counted too.
// A build without some features runs only some of the tests, which use part of this.
#![allow(dead_code)]

use crate::retry::ReadSome;
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

/// A server in this process with `args`, and a client connection to it (no Nagle delay).
pub fn serve(args: &[&str]) -> (canned::server::Handle, TcpStream) {
    let canned::config::Command::Run(c) =
        canned::config::Config::from_args(args.iter().copied(), &[]).unwrap()
    else {
        panic!()
    };
    let h = canned::server::Server::bind(*c).unwrap().spawn().unwrap();
    let s = TcpStream::connect(h.tcp_addr().unwrap()).unwrap();
    s.set_nodelay(true).unwrap();
    (h, s)
}

/// Serve with `args` (one worker, body `Hello World\n`), warm a keep-alive connection up with
/// `warm_up` rounds of one and of 16 pipelined requests, then assert that at least `requests`
/// more requests made no allocation anywhere in the process. Returns the server's summary.
pub fn assert_steady_state_allocates_nothing(
    args: &[&str],
    warm_up: usize,
    requests: usize,
) -> canned::server::Summary {
    let (h, mut s) = serve(args);
    let wire: Vec<u8> = REQ.repeat(16);
    let mut buf = vec![0u8; 1 << 16];
    // Learn the response length, then warm up both paths.
    s.write_all(REQ).unwrap();
    let mut resp_len = 0;
    while !buf[..resp_len].ends_with(b"Hello World\n") {
        let n = s.read_some(&mut buf[resp_len..]).unwrap();
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

/// What [`count_allocations_per_round`] saw.
pub struct Rounds {
    /// Requests answered in the counted rounds.
    pub requests: usize,
    /// Rounds (one write of a batch, then reading all its responses).
    pub rounds: usize,
    /// Rounds during which the process allocated.
    pub rounds_allocating: usize,
    /// Allocations over all counted rounds.
    pub allocations: u64,
    /// How long the counted rounds took.
    pub elapsed: std::time::Duration,
    /// The server's summary once stopped.
    pub summary: canned::server::Summary,
}

/// Serve with `args` (one worker) and run keep-alive rounds on one connection, each one
/// request or 15 pipelined ones, the requests taken in turn from `requests`: `warm_up`
/// rounds of each size, then rounds until `count` more requests are answered, counting
/// allocations anywhere in the process round by round. Responses are framed by their
/// `Content-Length` (a counter route's length changes as its counters grow) and each body
/// must start with the prefix given beside its request. Neither the reading nor the framing
/// allocates.
pub fn count_allocations_per_round(
    args: &[&str],
    requests: &[(&[u8], &[u8])],
    warm_up: usize,
    count: usize,
) -> Rounds {
    count_allocations_then(args, requests, warm_up, count, |_| {})
}

/// [`count_allocations_per_round`], then `after` with the server's address once the counted
/// rounds are done and before it stops (to read back what it kept).
pub fn count_allocations_then(
    args: &[&str],
    requests: &[(&[u8], &[u8])],
    warm_up: usize,
    count: usize,
    after: impl FnOnce(std::net::SocketAddr),
) -> Rounds {
    count_allocations_around(args, |_| {}, requests, warm_up, count, after)
}

/// [`count_allocations_then`], with `before` given the server first, once its connection is
/// open and before the warm-up (to change it through the admin API).
pub fn count_allocations_around(
    args: &[&str],
    before: impl FnOnce(&canned::server::Handle),
    requests: &[(&[u8], &[u8])],
    warm_up: usize,
    count: usize,
    after: impl FnOnce(std::net::SocketAddr),
) -> Rounds {
    let (h, mut s) = serve(args);
    before(&h);
    const BATCH: usize = 15;
    let mut wire = Vec::new();
    let mut prefixes = Vec::new();
    for i in 0..BATCH + requests.len() {
        let (req, prefix) = requests[i % requests.len()];
        wire.extend_from_slice(req);
        prefixes.push(prefix);
    }
    let starts: Vec<usize> = (0..=BATCH + requests.len())
        .map(|i| (0..i).map(|j| requests[j % requests.len()].0.len()).sum())
        .collect();
    let mut buf = vec![0u8; 4 << 20];
    let mut next = 0; // index of the next request in `requests`
    let mut round = |s: &mut TcpStream, batch: usize, buf: &mut [u8]| {
        let first = next % requests.len();
        s.write_all(&wire[starts[first]..starts[first + batch]])
            .unwrap();
        read_framed(s, &prefixes[first..first + batch], buf);
        next += batch;
    };
    for _ in 0..warm_up {
        round(&mut s, 1, &mut buf);
        round(&mut s, BATCH, &mut buf);
    }
    let (mut done, mut rounds, mut rounds_allocating, mut allocations) = (0, 0, 0, 0);
    let t = std::time::Instant::now();
    while done < count {
        for batch in [1, BATCH] {
            let before = ALLOCS.load(Ordering::SeqCst);
            round(&mut s, batch, &mut buf);
            let n = ALLOCS.load(Ordering::SeqCst) - before;
            rounds += 1;
            rounds_allocating += usize::from(n > 0);
            allocations += n;
            done += batch;
        }
    }
    let elapsed = t.elapsed();
    drop(s);
    after(h.tcp_addr().unwrap());
    h.shutdown();
    Rounds {
        requests: done,
        rounds,
        rounds_allocating,
        allocations,
        elapsed,
        summary: h.join(),
    }
}

/// Read one response per entry of `prefixes` (the callers count their statuses), framed by `Content-Length`, each body
/// starting with its prefix; no more bytes than those.
fn read_framed(s: &mut TcpStream, prefixes: &[&[u8]], buf: &mut [u8]) {
    let (mut have, mut at) = (0, 0);
    for prefix in prefixes {
        let (head_end, body_len) = loop {
            if let Some(end) = buf[at..have].windows(4).position(|w| w == b"\r\n\r\n") {
                let head = &buf[at..at + end];
                assert!(head.starts_with(b"HTTP/1.1 "), "not a response");
                let len = head
                    .split(|&b| b == b'\n')
                    .find_map(|l| {
                        let l = l.strip_suffix(b"\r").unwrap_or(l);
                        let (name, value) = l.split_at(l.iter().position(|&b| b == b':')?);
                        name.eq_ignore_ascii_case(b"content-length")
                            .then(|| value[1..].trim_ascii())
                    })
                    .expect("no Content-Length")
                    .iter()
                    .fold(0usize, |n, &d| {
                        assert!(d.is_ascii_digit(), "bad Content-Length");
                        n * 10 + usize::from(d - b'0')
                    });
                break (at + end + 4, len);
            }
            have += fill(s, &mut buf[have..]);
        };
        while have < head_end + body_len {
            have += fill(s, &mut buf[have..]);
        }
        assert!(
            buf[head_end..head_end + body_len].starts_with(prefix),
            "unexpected body"
        );
        at = head_end + body_len;
    }
    assert_eq!(have, at, "more bytes than {} responses", prefixes.len());
}

fn fill(s: &mut TcpStream, into: &mut [u8]) -> usize {
    assert!(!into.is_empty(), "responses larger than the read buffer");
    let n = s.read(into).unwrap();
    assert!(n > 0, "closed");
    n
}

/// Allocations (and reallocations) anywhere in the process so far.
pub fn allocations() -> u64 {
    ALLOCS.load(Ordering::SeqCst)
}
