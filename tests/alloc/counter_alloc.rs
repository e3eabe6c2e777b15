//! `--stats` and `--metrics` requests allocate nothing either. Their bodies are re-rendered
//! by the worker every 100 ms while connections are open, and that republish allocates (the
//! counters summed into a new summary, a new body, the route's heads formatted again), so the
//! claim is per request: over keep-alive and pipelined requests, a third each to `/`, `/stats`
//! and `/metrics`, the process allocates in no more rounds than the republishes that fell
//! among them can touch. A request that allocated would touch every round.

use crate::counting;

pub fn counter_route_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--stats",
        "/stats",
        "--metrics",
        "/metrics",
    ];
    let requests: [(&[u8], &[u8]); 3] = [
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
        (
            b"GET /stats HTTP/1.1\r\nHost: t\r\n\r\n",
            b"{\"connections_open\":1,",
        ),
        (
            b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n",
            b"# HELP canned_requests_total ",
        ),
    ];
    let r = counting::count_allocations_per_round(&args, &requests, 300, 60_000);
    // Republishes are at least 100 ms apart (the worker's clock is whole milliseconds rounded
    // up, so 99 ms on a finer one), one may come at the start, and the client reading the
    // count between two rounds can split one across both.
    let republishes = r.elapsed.as_millis() as usize / 99 + 1;
    eprintln!(
        "{} requests in {} rounds over {:?}: {} allocations in {} rounds (at most {} \
         republishes)",
        r.requests, r.rounds, r.elapsed, r.allocations, r.rounds_allocating, republishes
    );
    assert!(
        r.rounds_allocating <= 2 * republishes,
        "{} of {} rounds allocated ({} allocations) in {:?}",
        r.rounds_allocating,
        r.rounds,
        r.allocations,
        r.elapsed
    );
    // Meaningful only if most rounds fall between republishes.
    assert!(
        r.rounds >= 10 * 2 * republishes,
        "too slow: {} rounds in {:?}",
        r.rounds,
        r.elapsed
    );
    let stats = r.summary.stats;
    assert!(stats.requests as usize >= r.requests + 300 * 16);
    assert_eq!(stats.by_status[200], stats.requests);
}
