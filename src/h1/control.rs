//! An answer a request chose (`--control`): its status, its delay, a body of N filler bytes
//! (slices of one shared block, repeated), an error status, and a delivery fault (stalled,
//! cut, reset, dripped, or garbage instead), or 400 with the one line that says what is wrong
//! with its control. Out of line: without `--control` nothing here runs, and without the
//! `control` feature only the repeated blocks' refill is built.

use super::Http1Conn;
use super::state::{Block, Env, Refill, WorkArea};
use crate::response::ExtendCold;
#[cfg(feature = "control")]
use {
    super::log::log_plan,
    super::state::{Body, DripCursor, DripSource, DripTail},
    crate::conditional::Answer,
    crate::control::{Control, MAX_LOCATION, PARTS, Refusal, from_head},
    crate::echo::decimal,
    crate::fault::{Delivery, Drip},
    crate::plan::{self, Configured},
    crate::response::{StatusHead, reason},
};

/// Without the `control` feature no request names a control: nothing is kept, nothing is
/// answered here.
#[cfg(not(feature = "control"))]
impl Http1Conn {
    #[inline(always)]
    pub(super) fn start_control(&mut self, _: &mut WorkArea, _: &[u8], _: &mut Env<'_>) -> bool {
        false
    }

    #[cfg(feature = "echo")]
    #[inline(always)]
    pub(super) fn respond_control(
        &mut self,
        _: &mut WorkArea,
        _: Result<crate::control::Control, crate::control::Refusal>,
        _: &mut Env<'_>,
    ) {
    }
}

#[cfg(feature = "control")]
impl Http1Conn {
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
        if env.features.echoes(route) || env.responses.is_health(route) {
            return false;
        }
        // The httpbin paths only where no route of its own answers; the draw of a weighted
        // status from the clock and the request count, as HTTP/2 draws it.
        let draw = crate::control::draw(env.now_us, env.stats.requests);
        let control = match from_head(head, route == 0, draw) {
            Ok(None) => return false,
            Ok(Some(c)) => Ok(c),
            Err(why) => Err(why),
        };
        if b.body == Body::None {
            self.respond_control(b, control, env);
        } else {
            b.control.asked = Some(control);
        }
        true
    }

    /// Answer the pending request as its control asks (`Err`: 400 with the text).
    pub(super) fn respond_control(
        &mut self,
        b: &mut WorkArea,
        control: Result<Control, Refusal>,
        env: &mut Env<'_>,
    ) {
        let Some(p) = b.pending.take() else {
            return;
        };
        let route = p.route as usize;
        self.served = self.served.saturating_add(1);
        let mut facts = self.facts(&p, super::state::Asked::Whole, env);
        facts.variants = false;
        let features = Configured {
            faults: None,
            delay_us: env.settings.switches.delay_us,
            control: Some(&control),
        };
        let plan = plan::decide(facts, features, env.responses);
        let close = plan.close;
        let (c, message) = match control {
            Ok(c) => (c, None),
            Err(why) => (Control::default(), Some(why)),
        };
        log_plan(b, &plan, p.logged, env);
        plan::count(&plan, env.stats);
        if self.deliver_nothing(b, &plan, env) {
            return;
        }
        let delay_us = plan.hold_us;
        if delay_us > 0 {
            // Output queued before it is held with it: answers stay in order.
            b.hold_until_us = b.hold_until_us.max(env.now_us + delay_us);
            b.last_held = None;
        }
        if let Delivery::Garbage(n) = plan.delivery {
            b.refill_repeat(u64::from(n), Block::Garbage, env);
            self.close_after_broken_response();
            return;
        }
        let status = plan.status;
        let no_body = matches!(status, 204 | 304);
        // A short body, in pieces: the 400's line, or an error's body (its own, or `STATUS
        // REASON`).
        let code = [100, 10, 1].map(|d| b'0' + (status / d % 10) as u8);
        let short: Option<[&[u8]; PARTS]> = match (&message, &c.error) {
            (Some(m), _) => Some(m.parts()),
            (None, Some(e)) => {
                let mut parts: [&[u8]; PARTS] = [b""; PARTS];
                match e.body() {
                    Some(body) => parts[0] = body,
                    None => {
                        parts[..4].copy_from_slice(&[&code, b" ", reason(status).as_bytes(), b"\n"])
                    }
                }
                Some(parts)
            }
            (None, None) => None,
        };
        let block = if c.stars { Block::Stars } else { Block::Filler };
        let filler = c.bytes.is_some() && !block_of(block, env).is_empty();
        let body_len: u64 = match (short, c.bytes) {
            // 205 Reset Content: no content (RFC 9110 §15.3.6), framed as `Content-Length: 0`.
            _ if no_body || status == 205 => 0,
            (Some(parts), _) => parts.iter().map(|p| p.len() as u64).sum(),
            (None, Some(n)) if filler => n,
            _ => env.responses.body(route).len() as u64,
        };
        let mut digits = [0u8; 20];
        let length = (!no_body).then(|| decimal(body_len, &mut digits));
        // go-httpbin's redirects: the `Location` line, on the stack.
        let mut location = [0u8; MAX_LOCATION + 12];
        let extra: &[u8] = match c
            .location
            .filter(|_| message.is_none() && c.error.is_none())
        {
            Some(l) => {
                let v = l.value();
                location[..10].copy_from_slice(b"Location: ");
                location[10..10 + v.len()].copy_from_slice(v);
                location[10 + v.len()..12 + v.len()].copy_from_slice(b"\r\n");
                &location[..12 + v.len()]
            }
            None => b"",
        };
        let send_body = !p.head_request && body_len > 0;
        let form = p.variant(close);
        let slow_close = match plan.delivery {
            Delivery::SlowClose(ms) => Some(ms),
            _ => None,
        };
        // A drip's pacing; `None` for a slow close: the whole answer through a drip's cursor,
        // which sees its end, then the FIN waits D after its last byte is written
        // (`Http1Conn::park`).
        let paced = match plan.delivery {
            Delivery::Drip(d) => Some(Some(d)),
            Delivery::SlowClose(_) => Some(None),
            _ => None,
        };
        if let Some(paced) = paced {
            // The head (and a short body) formatted now, the rest cut from where it is, each
            // piece copied when it is due.
            b.control.drip_head.clear();
            let head = StatusHead {
                status,
                length,
                extra,
                same_body: false,
            };
            let date_at =
                env.responses
                    .append_status_head(route, form, head, &mut b.control.drip_head);
            let mut tail = DripTail::None;
            if send_body {
                match short {
                    Some(parts) => parts
                        .iter()
                        .for_each(|p| b.control.drip_head.extend_cold(p)),
                    None if filler && c.stars => tail = DripTail::Stars { len: body_len },
                    None if filler => tail = DripTail::Filler { len: body_len },
                    None => tail = DripTail::Body { route: p.route },
                }
            }
            let cursor = DripCursor {
                drip: paced.map_or(Drip::AT_ONCE, |d| with_head(d, b.control.drip_head.len())),
                source: DripSource::Control {
                    head_len: b.control.drip_head.len(),
                    date_at,
                    tail,
                },
                route: p.route,
                variant: form,
                head_only: p.head_request,
                from_us: 0,
                next: 0,
                released: 0,
                copied: 0,
                answer: Answer::Whole,
                answer_head: 0,
            };
            if let Some(ms) = slow_close {
                b.close_after_written(ms);
            }
            b.begin_drip(cursor, env);
            if slow_close.is_some() {
                b.last_held = None;
                self.hang(false);
            } else {
                self.close_after_response(&p, close, env);
            }
            return;
        }
        let start = b.out.len();
        let head = StatusHead {
            status,
            length,
            extra,
            same_body: false,
        };
        env.responses
            .append_status_head(route, form, head, &mut b.out);
        if send_body {
            let chunk = env.settings.conn_limits.body_chunk.max(1);
            if let Some(parts) = short {
                parts.iter().for_each(|p| b.out.extend_cold(p));
            } else if filler {
                b.refill_repeat(body_len, block, env);
            } else {
                let body = env.responses.body(route);
                let end = body.len().min(chunk);
                b.out.extend_cold(&body[..end]);
                if end < body.len() {
                    b.refill = Refill::Body {
                        route: p.route,
                        at: end,
                    };
                }
            }
        }
        if let Delivery::Truncate(cut) | Delivery::Reset(cut) = plan.delivery {
            let sent_now = (b.out.len() - start) as u64;
            let rest = match b.refill {
                Refill::Repeat { left, .. } => left,
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
                    Refill::Repeat { left, .. } => *left = keep - sent_now,
                    Refill::Body { at, .. } => {
                        b.pacing.body_stop = Some(*at + (keep - sent_now) as usize);
                    }
                    _ => {}
                }
            }
            if matches!(plan.delivery, Delivery::Reset(_)) {
                self.reset_after_output();
            } else {
                self.close_after_broken_response();
            }
            return;
        }
        self.close_after_response(&p, close, env);
    }
}

/// A drip with `head`, the length of the head (and short body), which go-httpbin's `/drip`
/// sends with its body's first piece.
#[cfg(feature = "control")]
fn with_head(d: Drip, head: usize) -> Drip {
    match d {
        Drip::Body {
            pieces, over_us, ..
        } => Drip::Body {
            head: u32::try_from(head).unwrap_or(u32::MAX),
            pieces,
            over_us,
        },
        d => d,
    }
}

/// The block a repeated body is cut from.
fn block_of<'r>(block: Block, env: &Env<'r>) -> &'r [u8] {
    match block {
        Block::Filler => env.features.filler(),
        Block::Garbage => env.features.garbage(),
        Block::Stars => env.features.stars(),
    }
}

impl WorkArea {
    /// Append the next piece of a `bytes=N` body or of a garbage answer (`left` bytes to go):
    /// at most a body chunk, cut from the start of its block.
    pub(super) fn refill_repeat(&mut self, left: u64, block: Block, env: &Env<'_>) {
        let bytes = block_of(block, env);
        let chunk = env.settings.conn_limits.body_chunk.max(1).min(bytes.len());
        let n = left.min(chunk as u64) as usize;
        self.out.extend_cold(&bytes[..n]);
        let left = left - n as u64;
        self.refill = if left > 0 && n > 0 {
            Refill::Repeat { left, block }
        } else {
            Refill::None
        };
    }
}
