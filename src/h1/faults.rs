//! Applying a fault plan to the response it changes: a `--mutate` variant, a latency, an
//! error status (or a status mix's), and how the response is delivered (stalled, garbage,
//! truncated, reset, dripped or paced, hung, closed slowly), each counted and named in the
//! access log.

use super::Http1Conn;
use super::log::log_plan;
use super::state::{Asked, Env, HeldClose, Pending, Refill, WorkArea};
use crate::fault::{Delivery, Drip};
use crate::plan::{self, Configured, Plan, Source};
use crate::values::US_PER_MS;

impl Http1Conn {
    /// Answer the pending request when faults are configured for its route: as the plan of
    /// its route's faults (`crate::plan`) says (or plainly, when they leave it so). Out of
    /// line, so that the plain path pays one test.
    #[cold]
    #[inline(never)]
    pub(super) fn respond_with_fault(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        let Some(p) = b.pending.take() else {
            return;
        };
        self.served = self.served.saturating_add(1);
        let facts = self.facts(&p, b.asked(), env);
        let features = Configured {
            faults: env.features.faults.as_deref_mut(),
            delay_us: env.settings.switches.delay_us,
            control: None,
        };
        let plan = plan::decide(facts, features, env.responses);
        self.execute(b, p, plan, env);
    }

    /// Send `plan`'s answer to `p`: its route's response (ranged when the plan says so), a
    /// malformed variant or garbage, held, delivered and ended as it says; logged, journaled
    /// and counted as it says.
    fn execute(&mut self, b: &mut WorkArea, p: Pending, plan: Plan, env: &mut Env<'_>) {
        log_plan(b, &plan, p.logged, env);
        plan::count(&plan, env.stats);
        let route = match plan.source {
            Source::Route(route) => route,
            Source::Variant(i) => {
                b.hold(plan.hold_us, env);
                if let Some(f) = env.features.faults.as_deref() {
                    b.out.extend_from_slice(f.variant(usize::from(i)));
                }
                self.close_after_broken_response();
                return;
            }
            // A control's answer is made by `h1::control`.
            Source::Control => return,
        };
        let asked = if plan.ranged { b.asked() } else { Asked::Whole };
        let p = Pending { route, ..p };
        let close = plan.close;
        if self.deliver_nothing(b, &plan, env) {
            return;
        }
        if let Delivery::Garbage(n) = plan.delivery {
            b.hold(plan.hold_us, env);
            if let Some(f) = env.features.faults.as_deref() {
                b.out
                    .extend_from_slice(f.garbage(usize::from(plan.asked), n));
            }
            self.close_after_broken_response();
            return;
        }
        b.hold(plan.hold_us, env);
        if let Delivery::SlowClose(ms) = plan.delivery {
            // The whole response through a drip's cursor, which sees its end; then the FIN
            // waits D after its last byte is written (`Http1Conn::park`).
            b.close_after_written(ms);
            b.start_drip(Drip::AT_ONCE, &p, asked, close, env);
            b.last_held = None;
            self.hang(false);
            return;
        }
        if let Delivery::Drip(drip) = plan.delivery {
            b.start_drip(drip, &p, asked, close, env);
            // A response held before it is not the last: a drain that begins while the drip
            // is held changes the drip's head instead (`Http1Conn::release_hold`).
            b.last_held = None;
        } else {
            let start = b.out.len();
            b.append_response(&p, asked, close, env);
            if let Delivery::Truncate(cut) | Delivery::Reset(cut) = plan.delivery {
                let sent_now = b.out.len() - start;
                let (rest, body_at) = match b.refill {
                    Refill::Body { route, at } => {
                        let body = env.responses.body(route as usize).len();
                        (b.pacing.body_stop.unwrap_or(body) - at, Some(at))
                    }
                    _ => (0, None),
                };
                // At most `sent_now + rest`, which is a length.
                let keep = cut.keep((sent_now + rest) as u64) as usize;
                if keep <= sent_now {
                    b.out.truncate(start + keep);
                    b.refill = Refill::None;
                } else if let Some(at) = body_at {
                    b.pacing.body_stop = Some(at + keep - sent_now);
                }
                match plan.delivery {
                    Delivery::Reset(_) => self.reset_after_output(),
                    _ => self.close_after_broken_response(),
                }
                return;
            }
            if b.hold_until_us != 0 {
                // Whole: a drain that begins while it is held turns it into the closing
                // response, as a `--delay` hold's (`Http1Conn::release_hold`).
                b.last_held = Some((start, p, asked));
            }
            if plan.hold_us > env.settings.switches.delay_us && matches!(b.refill, Refill::None) {
                b.refill = Refill::Paced;
            }
        }
        self.close_after_response(&p, close, env);
    }
}

impl Http1Conn {
    /// When `plan`'s delivery sends nothing (a stall; a hang, whose close is due D after the
    /// request, the hold added), do so and return true; output before it is written first.
    /// A path's faults and a request's control alike.
    pub(super) fn deliver_nothing(&mut self, b: &mut WorkArea, plan: &Plan, env: &Env<'_>) -> bool {
        match plan.delivery {
            Delivery::Stall => self.stall(),
            Delivery::Hang { ms, reset } => {
                b.close_at(env.now_us + plan.hold_us + ms.saturating_mul(US_PER_MS));
                self.hang(reset);
            }
            _ => return false,
        }
        true
    }
}

impl WorkArea {
    /// A hang: nothing more is sent, and the connection closes at `at_us` (`Http1Conn::park`),
    /// once the output before it is written.
    pub(super) fn close_at(&mut self, at_us: u64) {
        self.pacing.close = Some(HeldClose { at_us, after_us: 0 });
        self.refill = Refill::Paced;
    }

    /// A slow close: the FIN waits `ms` after the response's last byte is written
    /// (`Http1Conn::park`).
    pub(super) fn close_after_written(&mut self, ms: u64) {
        self.pacing.close = Some(HeldClose {
            at_us: 0,
            after_us: ms.saturating_mul(US_PER_MS),
        });
    }

    /// Hold the response about to be appended `hold_us`: for `--delay` alone, joining the
    /// hold of the batch it belongs to, as a plain response does; longer (a latency fault
    /// adds to the delay), holding output queued before the response with it: responses stay
    /// in order.
    #[cold]
    fn hold(&mut self, hold_us: u64, env: &Env<'_>) {
        let delay = env.settings.switches.delay_us;
        if hold_us > delay {
            self.hold_until_us = env.now_us + hold_us;
        } else if delay > 0 && self.pending_out() == 0 {
            self.hold_until_us = env.now_us + delay;
        }
    }
}
