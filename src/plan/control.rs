//! The plan of a request's control (`--control`): its status (400 for a control that cannot
//! be read), its delay and latency, an error status, a delivery fault. The protocol makes the
//! answer's head and body from the control. Out of line: without `--control` nothing here
//! runs.

use super::value::{Facts, Kinds, Plan, Source, silent};
use crate::control::{Control, Refusal};
use crate::fault_value::{Delivery, FaultKind};
use crate::response::Responses;
use crate::values::US_PER_MS;

/// The plan of the answer control `asked` chose for a request to `facts.route`.
#[cold]
#[inline(never)]
pub(super) fn plan(
    facts: Facts,
    asked: &Result<Control, Refusal>,
    delay_us: u64,
    responses: &Responses,
) -> Plan {
    let route = facts.route;
    let c = asked.as_ref().ok();
    let status = match c {
        None => 400,
        Some(Control { error: Some(e), .. }) => e.status,
        Some(c) => c.status.unwrap_or(responses.status(usize::from(route))),
    };
    let delivery = c.and_then(|c| c.delivery).unwrap_or(Delivery::Whole);
    let held_ms = c.map_or(0, |c| c.delay_ms + c.latency_ms);
    let latency = c.is_some_and(|c| c.latency);
    let error = c.and_then(|c| c.error).map(|_| FaultKind::Error);
    Plan {
        asked: route,
        source: Source::Control,
        ranged: false,
        status: if silent(delivery) { 0 } else { status },
        hold_us: delay_us + held_ms.saturating_mul(US_PER_MS),
        delivery,
        close: facts.close,
        kinds: Kinds::of(latency, error, delivery),
    }
}
