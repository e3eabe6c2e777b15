//! Applying a fault plan to the response it changes: a `--mutate` variant, a latency, an
//! error status (or a status mix's), and how the response is delivered (stalled, garbage,
//! truncated, reset, dripped or paced, hung, closed slowly), each counted and named in the
//! access log.

use super::Http1Conn;
use super::log::{annotate_log, journal_fault, journal_mutate, log_response};
use super::state::{Asked, Env, HeldClose, Pending, Refill, WorkArea};
use crate::fault::{Decision, Delivery, Drip, FaultKind};
use crate::values::US_PER_MS;

impl Http1Conn {
    /// Answer the pending request when faults are configured: with its route's fault (or a
    /// `--mutate` variant) if it has one, else plainly. Out of line, so that the plain path
    /// pays one test.
    #[cold]
    #[inline(never)]
    pub(super) fn respond_with_fault(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        let Some(p) = b.pending.take() else {
            return;
        };
        let Some(d) = env
            .features
            .faults
            .as_deref_mut()
            .and_then(|f| f.decide(p.route as usize))
        else {
            // `decide` answers for every route `applies` names, but for the default route under
            // `--mutate-id` of an HTTP/2 id: it is plain on HTTP/1.
            self.respond_plain(b, p, env);
            return;
        };
        self.served = self.served.saturating_add(1);
        let close = self.closes_after(&p, env);
        let (plan, route) = match d {
            Decision::Mutate(i) => {
                let m = &mut env.stats.mutated;
                if m.len() <= i {
                    m.resize(crate::mutate::COUNT, 0);
                }
                m[i] += 1;
                // No status of its own: a variant may have none, or several.
                let logged = p.logged && log_response(b, 0, env);
                b.hold(0, env);
                if let Some(f) = env.features.faults.as_deref() {
                    b.out.extend_from_slice(f.variant(i));
                }
                if logged {
                    annotate_log(env, "mutate=", crate::mutate::id(i));
                }
                if p.logged {
                    journal_mutate(env, i);
                }
                self.close_after_broken_response();
                return;
            }
            Decision::Fault { plan, route } => (plan, route),
        };
        let asked_route = p.route as usize;
        // A fault's error response is not ranged, nor conditional: only the route's own is,
        // and a copy of it that a fault sends (a drip's), which has the same validators.
        let (p, asked) = if route == p.route {
            (p, b.asked)
        } else if !b.asked.is_whole() && env.representation(route as usize).is_some() {
            (Pending { route, ..p }, b.asked)
        } else {
            (Pending { route, ..p }, Asked::Whole)
        };
        let logged = p.logged && {
            let status = match plan.delivery {
                // Nothing with a status is sent.
                Delivery::Stall | Delivery::Garbage(_) | Delivery::Hang { .. } => 0,
                _ => asked.status(env.responses, p.route),
            };
            log_response(b, status, env)
        };
        if plan.delay_us > 0 {
            env.stats.faults[FaultKind::Latency.index()] += 1;
            if logged {
                annotate_log(env, "fault=", FaultKind::Latency.name());
            }
            if p.logged {
                journal_fault(env, FaultKind::Latency);
            }
        }
        let swapped = if plan.error {
            Some(FaultKind::Error)
        } else if plan.mix > 0 {
            Some(FaultKind::Status)
        } else {
            None
        };
        if let Some(k) = swapped {
            env.stats.faults[k.index()] += 1;
            if logged {
                annotate_log(env, "fault=", k.name());
            }
            if p.logged {
                journal_fault(env, k);
            }
        }
        if let Some(k) = plan.delivery.kind() {
            env.stats.faults[k.index()] += 1;
            if logged {
                annotate_log(env, "fault=", k.name());
            }
            if p.logged {
                journal_fault(env, k);
            }
        }
        match plan.delivery {
            Delivery::Stall => {
                self.stall();
                return;
            }
            Delivery::Garbage(n) => {
                b.hold(plan.delay_us, env);
                if let Some(f) = env.features.faults.as_deref() {
                    b.out.extend_from_slice(f.garbage(asked_route, n));
                }
                self.close_after_broken_response();
                return;
            }
            Delivery::Hang { ms, reset } => {
                // Nothing is sent: the close is due D after the request, a `--delay` and a
                // latency added; output before it is written first.
                let wait_us =
                    env.settings.switches.delay_us + plan.delay_us + ms.saturating_mul(US_PER_MS);
                b.close_at(env.now_us + wait_us);
                self.hang(reset);
                return;
            }
            _ => {}
        }
        env.stats.by_status[asked.status(env.responses, p.route) as usize] += 1;
        b.hold(plan.delay_us, env);
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
            if plan.delay_us > 0 && matches!(b.refill, Refill::None) {
                b.refill = Refill::Paced;
            }
        }
        self.close_after_response(&p, close, env);
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

    /// Hold the response about to be appended for `--delay` (joining the hold of the batch it
    /// belongs to, as a plain response does), then `latency_us` more: a latency fault adds to
    /// the delay. A latency holds output queued before the response with it: responses stay
    /// in order.
    #[cold]
    fn hold(&mut self, latency_us: u64, env: &Env<'_>) {
        let delay = env.settings.switches.delay_us;
        if latency_us > 0 {
            self.hold_until_us = env.now_us + delay + latency_us;
        } else if delay > 0 && self.pending_out() == 0 {
            self.hold_until_us = env.now_us + delay;
        }
    }
}
