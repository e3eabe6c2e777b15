//! Controlled answers allocate nothing in steady state: the control is read from the head
//! without allocating, its head written into the connection's output buffer, and a `bytes=N`
//! body cut from the shared filler block. Over keep-alive and pipelined requests, in turn a
//! plain one, a status by query, a 100,000-byte body, a status and size by header, a bad
//! value (400), a duration without its unit (400, the number kept inline), a dripped answer (its head kept in the work area, its pieces on the timers), an
//! error with its body, go-httpbin's `/drip` (its `*`s cut from their block) and its
//! redirects (the `Location` kept inline, through a request body skipped), and its `/ip`,
//! `/headers`, `/user-agent` and `/uuid`, the process (server and client) makes no allocation
//! at all.

use crate::counting;

pub fn controlled_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--control",
    ];
    let requests: [(&[u8], &[u8]); 15] = [
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
        (
            b"GET /?status=503 HTTP/1.1\r\nHost: t\r\n\r\n",
            b"Hello World\n",
        ),
        (
            b"GET /?bytes=100000 HTTP/1.1\r\nHost: t\r\n\r\n",
            b"abcdefghij",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nX-Canned-Control: status=201;bytes=5\r\n\r\n",
            b"abcde",
        ),
        (
            b"GET /?delay=9h HTTP/1.1\r\nHost: t\r\n\r\n",
            b"control: delay",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nX-Canned-Control: fault=latency:250\r\n\r\n",
            b"control: fault: latency: \"250\" has no unit: write 250ms or 250s\n",
        ),
        (
            b"GET /?fault=drip:2pieces/1ms&bytes=3000 HTTP/1.1\r\nHost: t\r\n\r\n",
            b"abcdefghij",
        ),
        (
            b"GET /?fault=error:502:busy HTTP/1.1\r\nHost: t\r\n\r\n",
            b"busy",
        ),
        (
            b"GET /drip?numbytes=300&duration=2ms&delay=0 HTTP/1.1\r\nHost: t\r\n\r\n",
            b"**********",
        ),
        (b"GET /absolute-redirect/2 HTTP/1.1\r\nHost: t\r\n\r\n", b""),
        (
            b"POST /redirect-to?url=%2Fx&status_code=307 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
            b"",
        ),
        (
            b"GET /ip HTTP/1.1\r\nHost: t\r\n\r\n",
            b"{\"origin\":\"127.0.0.1\",\"client\":\"127.0.0.1:",
        ),
        (
            b"GET /headers HTTP/1.1\r\nHost: t\r\nx-a: 1\r\nX-A: 2\r\n\r\n",
            b"{\"headers\":{\"Host\":[\"t\"],\"X-A\":[\"1\",\"2\"]}}\n",
        ),
        (
            b"GET /user-agent HTTP/1.1\r\nHost: t\r\nUser-Agent: u/1\r\n\r\n",
            b"{\"user-agent\":\"u/1\"}\n",
        ),
        (b"GET /uuid HTTP/1.1\r\nHost: t\r\n\r\n", b"{\"uuid\":\""),
    ];
    let n = requests.len() as u64;
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
    assert!(stats.by_status[503].abs_diff(stats.requests / n) <= 1);
    assert!(stats.by_status[502].abs_diff(stats.requests / n) <= 1);
    assert!(stats.by_status[302].abs_diff(stats.requests / n) <= 1);
    assert!(stats.by_status[307].abs_diff(stats.requests / n) <= 1);
    // `fault=drip` and `/drip`.
    assert!(
        stats.faults[1].abs_diff(stats.requests * 2 / n) <= 2,
        "drips"
    );
}
