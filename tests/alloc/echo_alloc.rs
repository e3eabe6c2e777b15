//! Echoes allocate nothing in steady state: the request is kept in its connection's work area
//! and the echo written into its output buffer, both lent by the pool with their capacity.
//! Over keep-alive and pipelined requests, in turn a plain one, a JSON echo of a body by
//! length, a garden echo of a chunked body with trailers, and a text echo, the process (server
//! and client) makes no allocation at all.

use crate::counting;

pub fn echo_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--echo",
        "/e",
        "--echo",
        "/g=garden",
        "--echo",
        "/t=text",
    ];
    let requests: [(&[u8], &[u8]); 4] = [
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
        (
            b"POST /e?q=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world",
            b"{\"method\":\"POST\",\"target\":\"/e?q=1\"",
        ),
        (
            b"POST /g HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n",
            b"{\"method\":\"UE9TVA==\",\"version\":\"MS4x\",\"uri\":\"L2c=\"",
        ),
        (b"GET /t HTTP/1.1\r\nHost: t\r\nX: y\r\n\r\n", b"Host: t\nX: y\n"),
    ];
    // The JSON echo names the request's index on its connection: warmed up past 10,000 and
    // counted below 100,000, its digits, and so the echo's length, stay the same.
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
    assert_eq!(stats.by_status[200], stats.requests);
}
