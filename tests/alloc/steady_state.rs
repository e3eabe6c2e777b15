//! Zero allocations per request in steady state: a counting global allocator watches the
//! whole process (server workers and this client) while a warmed-up connection runs 10,000
//! keep-alive and pipelined requests.

use crate::counting;

pub fn steady_state_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
    ];
    let summary = counting::assert_steady_state_allocates_nothing(&args, 500, 10_000);
    assert!(summary.stats.requests >= 10_000 + 1 + 500 * 17);
}
