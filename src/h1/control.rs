//! An answer a request chose (`--control`): its status, its delay, a body of N filler bytes
//! (slices of one shared block, repeated) and a delivery fault, or 400 with the one line that
//! says what is wrong with its control. Out of line: without `--control` nothing here runs.

use super::Conn;
use super::log::{annotate_log, log_response};
use super::state::{Body, Env, Refill, WorkArea};
use crate::control::{Control, Delivery, from_head};
use crate::echo::decimal;
use crate::fault::FaultKind;
use crate::response::StatusHead;

impl Conn {
    /// A head is complete and `--control` is on: when it names a control (and its route is
    /// neither an echo nor `--health`), keep it and answer now or once the body is skipped.
    /// Returns whether it did.
    #[cold]
    #[inline(never)]
    pub(super) fn start_control(
        &mut self,
        b: &mut WorkArea,
        head: &[u8],
        env: &mut Env<'_>,
    ) -> bool {
        let Some(p) = b.pending else {
            return false;
        };
        let route = p.route as usize;
        if env.responses.echoes(route) || env.responses.is_health(route) {
            return false;
        }
        // The httpbin paths only where no route of its own answers; the draw of a weighted
        // status from the clock and the request count, mixed (splitmix64's finaliser).
        let mut draw = env.now_us ^ env.stats.requests.rotate_left(32);
        draw = (draw ^ (draw >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        draw = (draw ^ (draw >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        draw ^= draw >> 31;
        let control = match from_head(head, route == 0, draw) {
            Ok(None) => return false,
            Ok(Some(c)) => Ok(c),
            Err(why) => Err(why),
        };
        b.control = Some(control);
        if b.body == Body::None {
            if let Some(c) = b.control.take() {
                self.respond_control(b, c, env);
            }
        }
        true
    }

    /// Answer the pending request as its control asks (`Err`: 400 with the text).
    pub(super) fn respond_control(
        &mut self,
        b: &mut WorkArea,
        control: Result<Control, &'static str>,
        env: &mut Env<'_>,
    ) {
        let Some(p) = b.pending.take() else {
            return;
        };
        let route = p.route as usize;
        self.served = self.served.saturating_add(1);
        let close = self.closes_after(&p, env);
        let (c, status, message) = match control {
            Ok(c) => (c, c.status.unwrap_or(env.responses.status(route)), None),
            Err(why) => (Control::default(), 400, Some(why)),
        };
        let stalled = c.delivery == Some(Delivery::Stall);
        let logged = p.logged && log_response(b, if stalled { 0 } else { status }, env);
        let note = |kind: FaultKind, env: &mut Env<'_>| {
            env.stats.faults[kind.index()] += 1;
            if logged {
                annotate_log(env, "fault=", kind.name());
            }
        };
        if c.latency {
            note(FaultKind::Latency, env);
        }
        match c.delivery {
            Some(Delivery::Stall) => note(FaultKind::Stall, env),
            Some(Delivery::Truncate(_)) => note(FaultKind::Truncate, env),
            Some(Delivery::Reset(_)) => note(FaultKind::Reset, env),
            None => {}
        }
        if stalled {
            self.stall();
            return;
        }
        env.stats.by_status[status as usize] += 1;
        let delay_us = env.settings.switches.delay_us + (c.delay_ms + c.latency_ms) * 1_000;
        if delay_us > 0 {
            // Output queued before it is held with it: answers stay in order.
            b.hold_until_us = b.hold_until_us.max(env.now_us + delay_us);
            b.last_held = None;
        }
        let no_body = matches!(status, 204 | 304);
        let filler = env.responses.filler();
        let body_len: u64 = match (message, c.bytes) {
            // 205 Reset Content: no content (RFC 9110 §15.3.6), framed as `Content-Length: 0`.
            _ if no_body || status == 205 => 0,
            (Some(m), _) => m.len() as u64 + 1,
            (None, Some(n)) if !filler.is_empty() => n,
            _ => env.responses.body(route).len() as u64,
        };
        let mut digits = [0u8; 20];
        let length = (!no_body).then(|| decimal(body_len, &mut digits));
        let start = b.out.len();
        let head = StatusHead {
            status,
            length,
            extra: b"",
            same_body: false,
        };
        env.responses
            .append_status_head(route, p.variant(close), head, &mut b.out);
        if !p.head_request && body_len > 0 {
            let chunk = env.settings.conn_limits.body_chunk.max(1);
            if let Some(m) = message {
                b.out.extend_from_slice(m.as_bytes());
                b.out.push(b'\n');
            } else if c.bytes.is_some() {
                b.refill = Refill::Filler { left: body_len };
                b.refill_filler(body_len, env);
            } else {
                let body = env.responses.body(route);
                let end = body.len().min(chunk);
                b.out.extend_from_slice(&body[..end]);
                if end < body.len() {
                    b.refill = Refill::Body {
                        route: p.route,
                        at: end,
                    };
                }
            }
        }
        if let Some(Delivery::Truncate(cut) | Delivery::Reset(cut)) = c.delivery {
            let sent_now = (b.out.len() - start) as u64;
            let rest = match b.refill {
                Refill::Filler { left } => left,
                Refill::Body { route, at } => {
                    (env.responses.body(route as usize).len() - at) as u64
                }
                _ => 0,
            };
            let keep = cut.keep(sent_now + rest);
            if keep <= sent_now {
                b.out.truncate(start + keep as usize);
                b.refill = Refill::None;
            } else {
                match &mut b.refill {
                    Refill::Filler { left } => *left = keep - sent_now,
                    Refill::Body { at, .. } => {
                        b.pacing.body_stop = Some(*at + (keep - sent_now) as usize);
                    }
                    _ => {}
                }
            }
            if matches!(c.delivery, Some(Delivery::Reset(_))) {
                self.reset_after_output();
            } else {
                self.close_after_broken_response();
            }
            return;
        }
        self.close_after_response(&p, close, env);
    }
}

impl WorkArea {
    /// Append the next piece of a `bytes=N` body (`left` bytes to go): at most a body chunk,
    /// cut from the filler block.
    pub(super) fn refill_filler(&mut self, left: u64, env: &Env<'_>) {
        let filler = env.responses.filler();
        let chunk = env.settings.conn_limits.body_chunk.max(1).min(filler.len());
        let mut room = chunk as u64;
        let mut left = left;
        while left > 0 && room > 0 {
            let n = left.min(room).min(filler.len() as u64) as usize;
            self.out.extend_from_slice(&filler[..n]);
            left -= n as u64;
            room -= n as u64;
        }
        self.refill = if left > 0 {
            Refill::Filler { left }
        } else {
            Refill::None
        };
    }
}
