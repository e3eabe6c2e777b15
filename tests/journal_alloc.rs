//! Recording into the journal allocates nothing: its ring is taken whole at start, and each
//! request's head is kept in its connection's work area, whose capacity the pool keeps. Over
//! keep-alive and pipelined requests, by length and chunked, with the ring wrapping
//! many times, the process (server and client) makes no allocation at all.

#[path = "common/counting.rs"]
mod counting;

#[test]
fn journaled_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--journal",
        "100",
        "--journal-path",
        "/_journal",
    ];
    let requests: [(&[u8], &[u8]); 4] = [
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
        (
            b"POST /p?q=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world",
            b"Hello World\n",
        ),
        (
            b"POST /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            b"Hello World\n",
        ),
        (b"GET /f HTTP/1.1\r\nHost: t\r\nX: y\r\n\r\n", b"Hello World\n"),
    ];
    let r = counting::count_allocations_per_round(&args, &requests, 700, 30_000);
    eprintln!(
        "{} requests in {} rounds over {:?}: {} allocations in {} rounds",
        r.requests, r.rounds, r.elapsed, r.allocations, r.rounds_allocating
    );
    assert_eq!(
        r.allocations, 0,
        "{} of {} rounds allocated",
        r.rounds_allocating, r.rounds
    );
    let stats = r.summary.stats;
    assert!(stats.requests as usize >= r.requests + 700 * 16);
}
