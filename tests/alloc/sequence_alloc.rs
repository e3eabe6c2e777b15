//! Sequences allocate nothing per request, with the admin listener on: a counting global
//! allocator watches the whole process.

use crate::counting;

/// A sequence's steps, with `--admin` listening (its thread idle): a step is an atomic add
/// and a look-up, nothing allocated. `seq-cycle:ok,drip:40/1ms` alternates the route's own
/// answer and a drip of a copy of it (the same bytes, so that the client can count them).
pub fn steady_state_sequence_steps_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--admin",
        "127.0.0.1:0",
        "--fault",
        "*=latency:1ms",
        "--fault",
        "*=seq-cycle:ok,drip:40/1ms",
    ];
    let summary = counting::assert_steady_state_allocates_nothing(&args, 20, 1_000);
    let faults = summary.stats.faults;
    use canned::fault::FaultKind;
    assert!(faults[FaultKind::Drip.index()] >= 500, "{faults:?}");
}
