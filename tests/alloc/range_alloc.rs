//! Ranges and conditional requests allocate nothing in steady state: the answer is evaluated
//! from the head without allocating, its head (206, 412, 416) written into the connection's
//! output buffer, and a range's body sent as slices of the preformatted body. Over keep-alive
//! and pipelined requests, in turn a plain one, a small range, a 99,990-byte range streamed in
//! body chunks, a suffix range, an unsatisfiable one (416), a failed `If-Match` (412), a range
//! behind a true `If-None-Match`, and several ranges (the whole body), the process (server and
//! client) makes no allocation at all.

use crate::counting;

pub fn range_and_conditional_requests_allocate_nothing() {
    let body: String = "0123456789".repeat(10_000);
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--body",
        &body,
    ];
    let requests: [(&[u8], &[u8]); 8] = [
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"0123456789"),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=5-7\r\n\r\n",
            b"567",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=10-\r\n\r\n",
            b"0123456789",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=-3\r\n\r\n",
            b"789",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=100000-\r\n\r\n",
            b"",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nIf-Match: \"other\"\r\n\r\n",
            b"",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"other\"\r\nRange: bytes=1-2\r\n\r\n",
            b"12",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=0-1,5-6\r\n\r\n",
            b"0123456789",
        ),
    ];
    let r = counting::count_allocations_per_round(&args, &requests, 300, 10_000);
    eprintln!(
        "{} requests in {} rounds over {:?}: {} allocations in {} rounds",
        r.requests, r.rounds, r.elapsed, r.allocations, r.rounds_allocating
    );
    assert_eq!(
        r.allocations, 0,
        "{} of {} rounds allocated",
        r.rounds_allocating, r.rounds
    );
    let by_status = &r.summary.stats.by_status;
    // A quarter each of 206 (three of eight) and the rest as asked.
    assert!(by_status[206] >= 3 * 10_000 / 8, "{}", by_status[206]);
    assert!(by_status[416] >= 10_000 / 8 && by_status[412] >= 10_000 / 8);
    assert!(by_status[200] >= 2 * 10_000 / 8);
}
