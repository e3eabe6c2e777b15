//! The answer plan: what a complete request's answer is, decided once for every protocol from
//! the route it asked for, what the protocols both know of the request ([`Facts`]) and the
//! features configured ([`Configured`]): faults, `--delay`, `--control`'s control. HTTP/1 and
//! HTTP/2 execute a [`Plan`]; neither decides the status recorded, whether anything with a
//! status is sent, or which fault kinds the counters, the access log and the journal name.
//!
//! | file | holds |
//! |---|---|
//! | `mod` | [`decide`], [`count`], and the plain answer, one test on the hot path |
//! | `value` | [`Plan`] and what it is made from |
//! | `fault` | the plan of a route's faults (`--fault`, `--mutate`), out of line |
//! | `control` | the plan of a request's control (`--control`), out of line |

mod control;
mod fault;
mod value;

pub use value::{Configured, Facts, Kinds, Plan, Source};

use crate::fault_value::Delivery;
use crate::response::Responses;
use crate::stats::Stats;

/// Whether `features` change the answer to the request `facts` tells of: a control, `--delay`,
/// or a fault of its route's (`--mutate` on the default route only where its variants may
/// answer). Without, [`decide`] gives the plain answer and need not be asked.
#[inline(always)]
pub fn applies(facts: &Facts, features: &Configured<'_>) -> bool {
    let route = facts.route;
    features.control.is_some()
        || features.delay_us > 0
        || features.faults.as_deref().is_some_and(|f| {
            f.applies(usize::from(route)) && (route != 0 || !f.mutates() || facts.variants)
        })
}

/// The plan of a request's answer: its control's, when it named one; its route's faults',
/// when it has them; the route's response otherwise, held for `--delay`. Inlined: without a
/// control or a fault it is the plain answer, the rest out of line.
#[inline(always)]
pub fn decide(facts: Facts, features: Configured<'_>, responses: &Responses) -> Plan {
    let delay_us = features.delay_us;
    // Without the `control` feature no control is read, and its plan is not linked.
    if let Some(c) = features.control.filter(|_| cfg!(feature = "control")) {
        return control::plan(facts, c, delay_us, responses);
    }
    if let Some(f) = features.faults {
        if f.applies(usize::from(facts.route)) {
            if let Some(plan) = fault::plan(facts, f, delay_us, responses) {
                return plan;
            }
        }
    }
    plain(facts, delay_us, responses)
}

/// The plan of the route's own response, held for `--delay` (`delay_us`).
#[inline(always)]
pub fn plain(facts: Facts, delay_us: u64, responses: &Responses) -> Plan {
    Plan {
        asked: facts.route,
        source: Source::Route(facts.route),
        ranged: facts.ranged_status != 0,
        status: match facts.ranged_status {
            0 => responses.status(usize::from(facts.route)),
            s => s,
        },
        hold_us: delay_us,
        delivery: Delivery::Whole,
        close: facts.close,
        kinds: Kinds::NONE,
    }
}

/// Count `plan` in `--stats`: its status (none when nothing with one is sent), each of its
/// fault kinds, and a malformed variant.
#[inline(always)]
pub fn count(plan: &Plan, stats: &mut Stats) {
    // Known at compile time for the plain answer: no test on its path.
    if plan.sends_status() {
        // Every status has its counter (`Stats::by_status` holds 0 to 599): no bounds
        // panic to link.
        if let Some(n) = stats.by_status.get_mut(usize::from(plan.status)) {
            *n += 1;
        }
    }
    if !plan.kinds.is_empty() || matches!(plan.source, Source::Variant(_)) {
        count_faults(plan, stats);
    }
}

#[cold]
#[inline(never)]
fn count_faults(plan: &Plan, stats: &mut Stats) {
    for k in plan.kinds.as_slice() {
        stats.faults[k.index()] += 1;
    }
    if let Source::Variant(i) = plan.source {
        let m = &mut stats.mutated;
        if m.len() <= usize::from(i) {
            m.resize(crate::mutate::COUNT, 0);
        }
        m[usize::from(i)] += 1;
    }
}

#[cfg(test)]
mod tests;
