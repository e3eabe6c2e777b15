//! The plan of a route's faults: a `--mutate` variant, or what [`WorkerFaults::decide`] drew
//! (a latency, an error or a status of the mix, a sequence's step, a delivery). Out of line:
//! a route without faults never comes here.

use super::value::{Facts, Kinds, Plan, Source, silent};
use crate::fault::{Decision, WorkerFaults};
use crate::fault_value::{Delivery, FaultKind};
use crate::response::Responses;

/// The plan of route `facts.route`'s faults, `None` when they leave its response plain
/// (`--mutate-id` of an HTTP/2 id on HTTP/1, `--mutate` on HTTP/2, which has its own).
#[cold]
#[inline(never)]
pub(super) fn plan(
    facts: Facts,
    faults: &mut WorkerFaults,
    delay_us: u64,
    responses: &Responses,
) -> Option<Plan> {
    let asked = facts.route;
    if asked == 0 && faults.mutates() && !facts.variants {
        return None;
    }
    let (draw, route) = match faults.decide(usize::from(asked))? {
        Decision::Mutate(i) => {
            return Some(Plan {
                asked,
                source: Source::Variant(i as u16),
                ranged: false,
                // No status of its own: a variant may have none, or several.
                status: 0,
                hold_us: delay_us,
                delivery: Delivery::Whole,
                close: true,
                kinds: Kinds::NONE,
            });
        }
        Decision::Fault { draw, route } => (draw, route),
    };
    // A fault's error response is not ranged, nor conditional: only the route's own is, and
    // a copy of it that a fault sends (a drip's), which has the same validators (it was made
    // from the same route given).
    let ranged = facts.ranged_status != 0
        && (route == asked || {
            let given = responses.given(usize::from(route));
            given.is_some() && given == responses.given(usize::from(asked))
        });
    let status = match draw.delivery {
        d if silent(d) => 0,
        _ if ranged => facts.ranged_status,
        _ => responses.status(usize::from(route)),
    };
    let swapped = if draw.error {
        Some(FaultKind::Error)
    } else {
        (draw.mix > 0).then_some(FaultKind::Status)
    };
    Some(Plan {
        asked,
        source: Source::Route(route),
        ranged,
        status,
        hold_us: delay_us + draw.delay_us,
        delivery: draw.delivery,
        close: facts.close,
        kinds: Kinds::of(draw.delay_us > 0, swapped, draw.delivery),
    })
}
