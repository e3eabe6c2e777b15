//! The answer to a complete request: its route's response (held for `--delay`), or the fault
//! plan's when its route has one; whether the response closes the connection; the error
//! responses.

use super::Http1Conn;
use super::log::{log_response, log_rule};
use super::state::{Asked, Body, Env, Pending, Refill, WorkArea};
use crate::parser::Rule;
use crate::plan::{self, Facts};
use crate::response::ExtendCold;

impl Http1Conn {
    /// Answer the request whose head (and body) is complete.
    pub(super) fn respond(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        if let Some(f) = env.features.faults.as_deref() {
            if b.pending.is_some_and(|p| f.applies(p.route as usize)) {
                self.respond_with_fault(b, env);
                return;
            }
        }
        let Some(p) = b.pending.take() else {
            return;
        };
        self.respond_plain(b, p, env);
    }

    /// Whether the response to `p` (the `served`th) closes the connection.
    #[inline(always)]
    pub(super) fn closes_after(&self, p: &Pending, env: &Env<'_>) -> bool {
        let s = env.settings;
        if s.switches.raw {
            s.switches.raw_close
        } else {
            !p.keep_alive || env.draining || (s.max_requests > 0 && self.served >= s.max_requests)
        }
    }

    /// What the plan of the answer to `p` (the `served`th, asking for `asked`) reads of it.
    #[inline(always)]
    pub(super) fn facts(&self, p: &Pending, asked: Asked, env: &Env<'_>) -> Facts {
        Facts {
            route: p.route,
            ranged_status: if asked.is_whole() {
                0
            } else {
                asked.status(env.responses, p.route)
            },
            close: self.closes_after(p, env),
            variants: true,
        }
    }

    /// Answer `p` with its route's response, or with what its `Range` and conditional fields
    /// ask: one test of the plain path, the rest out of line.
    #[inline(always)]
    pub(super) fn respond_plain(&mut self, b: &mut WorkArea, p: Pending, env: &mut Env<'_>) {
        if !b.asked().is_whole() {
            self.respond_asked(b, p, env);
            return;
        }
        self.respond_as::<true>(b, p, env);
    }

    /// [`Http1Conn::respond_plain`] for a request whose answer is not the whole response.
    #[cold]
    #[inline(never)]
    fn respond_asked(&mut self, b: &mut WorkArea, p: Pending, env: &mut Env<'_>) {
        self.respond_as::<false>(b, p, env);
    }

    /// Answer `p`; `WHOLE`: with its route's own response, known at compile time.
    #[inline(always)]
    fn respond_as<const WHOLE: bool>(&mut self, b: &mut WorkArea, p: Pending, env: &mut Env<'_>) {
        self.served = self.served.saturating_add(1);
        let asked = if WHOLE { Asked::Whole } else { b.asked() };
        let delay_us = env.settings.switches.delay_us;
        let plan = plan::plain(self.facts(&p, asked, env), delay_us, env.responses);
        let close = plan.close;
        plan::count(&plan, env.stats);
        if p.logged {
            log_response(b, plan.status, env);
        }
        if plan.hold_us > 0 {
            if b.pending_out() == 0 {
                b.hold_until_us = env.now_us + plan.hold_us;
            }
            if b.hold_until_us != 0 {
                b.last_held = Some((b.out.len(), p, asked));
            }
        }
        if WHOLE {
            b.append_whole(&p, close, env);
        } else {
            b.append_response(&p, asked, close, env);
        }
        self.close_after_response(&p, close, env);
    }
}

impl WorkArea {
    /// Append the response to `p`: the head of the variant that `close` and the request's
    /// version call for, then the body (its first piece, when it is streamed).
    #[inline(always)]
    pub(super) fn append_response(
        &mut self,
        p: &Pending,
        asked: Asked,
        close: bool,
        env: &Env<'_>,
    ) {
        if !asked.is_whole() {
            self.append_answer(p, asked, close, env);
            return;
        }
        self.append_whole(p, close, env);
    }

    /// [`WorkArea::append_response`] for the route's own response.
    #[inline(always)]
    pub(super) fn append_whole(&mut self, p: &Pending, close: bool, env: &Env<'_>) {
        let head_only = p.head_request || env.settings.switches.raw;
        let chunk = env.settings.conn_limits.body_chunk.max(1);
        if let Some(at) = env.responses.append(
            p.route as usize,
            p.variant(close),
            head_only,
            chunk,
            &mut self.out,
        ) {
            self.refill = Refill::Body { route: p.route, at };
        }
    }

    /// Answer a request that broke `rule` with its error (the response closes the connection;
    /// its body and the access log name the rule). The response to a HEAD request has the
    /// head alone, with the Content-Length its body would have had (RFC 9110 §9.3.2: the same
    /// fields as for GET).
    pub(super) fn emit_error(&mut self, rule: Rule, head_request: bool, env: &mut Env<'_>) {
        let status = rule.status();
        #[cfg(feature = "echo")]
        if env.settings.switches.echo() {
            self.drop_echo(&env.features);
        }
        #[cfg(feature = "control")]
        self.control.forget();
        let logged = match self.pending.take() {
            Some(p) => p.logged,
            // No request head was complete: log it with unknown fields.
            None => {
                #[cfg(feature = "journal")]
                self.journal.expect_unparsed(env.features.journal.is_some());
                env.features.access_log.is_some() || env.features.journal.is_some()
            }
        };
        if logged {
            log_rule(self, rule, env);
        }
        self.body = Body::None;
        self.head_since_us = None;
        self.parser.reset();
        env.stats.by_status[status as usize] += 1;
        let [start, head, body] = env.responses.error(rule);
        self.out.extend_cold(start);
        self.out.extend_cold(head);
        if !head_request {
            self.out.extend_cold(body);
        }
    }
}
