//! Faults allocate nothing per request either: a counting global allocator watches the whole
//! process while a warmed-up connection runs keep-alive and pipelined requests that each get a
//! latency, a drip and, for half of them, an error-rate response (of the same bytes, so that
//! the client can count them); then the same with a bandwidth and a status mix.

use crate::counting;

pub fn steady_state_faulted_requests_allocate_nothing() {
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
        // As long as the route's own response, whose head has `Accept-Ranges` and `ETag` (48
        // bytes) that an error response leaves out: every response of a batch is one length.
        concat!(
            "*=error:0.5:200:",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "Hello World\n"
        ),
    ];
    let summary = counting::assert_steady_state_allocates_nothing(&args, 20, 1_000);
    let faults = summary.stats.faults;
    use canned::fault::FaultKind;
    assert!(
        faults[FaultKind::Latency.index()] >= 1_000 && faults[FaultKind::Drip.index()] >= 1_000
    );
    assert!(faults[FaultKind::Error.index()] >= 300, "{faults:?}");
}

/// A bandwidth (a drip with the rate's pieces) and a status mix's draw allocate nothing per
/// request either (`status:200=100%` draws every time and answers with the route's own bytes,
/// so that the client can count them).
pub fn paced_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--fault",
        "*=bandwidth:400KiB/s",
        "--fault",
        "*=status:200=100%",
    ];
    let summary = counting::assert_steady_state_allocates_nothing(&args, 20, 1_000);
    let faults = summary.stats.faults;
    use canned::fault::FaultKind;
    assert!(faults[FaultKind::Bandwidth.index()] >= 1_000, "{faults:?}");
}
