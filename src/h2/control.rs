//! `--control` over HTTP/2: the control a stream's request names (a query parameter, an
//! `x-canned-control` field, one of go-httpbin's paths where no route answers), read by the
//! control's grammar from the request's path and fields, and answered as over HTTP/1: its
//! status, its delay and latency, a body of N filler bytes, an error status and body, a
//! redirect's `Location`, or 400 with the one line that says what is wrong. A delivery fault
//! (stall, truncate, reset, drip, bandwidth, garbage, hang, slow-close) shapes that answer
//! per stream as a `--fault` of its kind shapes a route's (`faults`). A request upgraded
//! from HTTP/1.1 comes with the control HTTP/1 read from its head (`upgrade`). Out of line:
//! without `--control` nothing here runs.

use super::kept::{Controlled, Refill};
use super::{Env, State};
use crate::control::{Control, MAX_LOCATION, Refusal, from_head};
use crate::echo::decimal;
use crate::fault::Delivery;
use crate::plan::{self, Configured, Facts};
use crate::response::ExtendCold;
use crate::response::{KeepAliveForm, Responses, StatusHead, reason};

/// What a request's control asks of HTTP/2: a value passed once, on the stack (a `Box`
/// would allocate per request).
#[allow(clippy::large_enum_variant)]
pub(super) enum Asked {
    /// It names none.
    None,
    /// An answer HTTP/2 makes (`Err`: 400 with the line).
    Answer(Result<Control, Refusal>),
}

impl State {
    /// `--control` is on and the request just decoded is routed to `route`: the control it
    /// names. The grammar reads an HTTP/1 head: its request line is the method and `:path`,
    /// its fields the request's, `:authority` named `host`.
    #[cold]
    #[inline(never)]
    pub(super) fn control_of<W>(&mut self, route: usize, env: &Env<'_, W>) -> Asked {
        // As on HTTP/1 (`h1::control`): echo routes and the health route are never controlled.
        if env.features.echoes(route) || env.responses.is_health(route) {
            return Asked::None;
        }
        let f = &self.fields;
        let head = &mut self.head;
        head.clear();
        head.extend_cold(&f.method);
        head.push(b' ');
        head.extend_cold(&f.path);
        head.extend_cold(b" HTTP/1.1\r\n");
        // Every field, as HTTP/1's head has them; `:authority` as the `Host` it takes the
        // place of (RFC 9113 §8.3.1), for an absolute redirect.
        for line in f.lines.split_inclusive(|&c| c == b'\n') {
            let line = match line.strip_prefix(b":authority") {
                Some(value) => {
                    head.extend_cold(b"host");
                    value
                }
                None => line,
            };
            head.extend_cold(line);
        }
        head.extend_cold(b"\r\n");
        let draw = crate::control::draw(env.now_us, env.stats.requests);
        asked(from_head(head, route == 0, draw))
    }

    /// Stream `i`'s request is complete: make the answer its control chose in slot `at`, as
    /// HTTP/1 does (`h1::control`), from its plan (`crate::plan`): counted, journaled and
    /// logged here, held or delivered as the plan says.
    pub(super) fn answer_control<W>(
        &mut self,
        i: usize,
        at: usize,
        asked: Result<Control, Refusal>,
        env: &mut Env<'_, W>,
    ) {
        let s = self.streams[i];
        let route = usize::from(s.route);
        let facts = Facts {
            route: s.route,
            ranged_status: 0,
            close: false,
            variants: false,
        };
        let features = Configured {
            faults: None,
            delay_us: env.settings.switches.delay_us,
            control: Some(&asked),
        };
        let plan = plan::decide(facts, features, env.responses);
        let (c, message) = match asked {
            Ok(c) => (c, None),
            Err(why) => (Control::default(), Some(why)),
        };
        // 0 for a stall, a hang or garbage, whose head is never sent.
        let status = plan.status;
        plan::count(&plan, env.stats);
        let no_body = matches!(status, 204 | 304);
        let code = [100, 10, 1].map(|d| b'0' + (status / d % 10) as u8);
        let short: Option<[&[u8]; crate::control::PARTS]> = match (&message, &c.error) {
            (Some(m), _) => Some(m.parts()),
            (None, Some(e)) => {
                let mut parts: [&[u8]; crate::control::PARTS] = [b""; crate::control::PARTS];
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
        // Recorded before its request gives way to its answer.
        self.journal_kept(i, plan.status, plan.kinds, None, env);
        let r = env.responses;
        let f = &env.features;
        let block = if c.stars { f.stars() } else { f.filler() };
        let filler = c.bytes.is_some() && !block.is_empty();
        let body_len: u64 = match (short, c.bytes) {
            // 205 Reset Content: no content (RFC 9110 §15.3.6).
            _ if no_body || status == 205 => 0,
            (Some(parts), _) => parts.iter().map(|p| p.len() as u64).sum(),
            (None, Some(n)) if filler => n,
            _ => r.body(route).len() as u64,
        };
        let k = &mut self.echo.slots[at];
        k.buf.clear();
        k.refill = Refill::None;
        if !s.head_only && body_len > 0 {
            match short {
                Some(parts) => parts.iter().for_each(|p| k.buf.extend_cold(p)),
                None if filler => {
                    k.refill = Refill::Repeat {
                        left: body_len,
                        stars: c.stars,
                    }
                }
                None => {
                    k.refill = Refill::Route {
                        route: s.route,
                        at: 0,
                    }
                }
            }
        }
        k.answered = true;
        k.length = Some(body_len as usize);
        k.control = Some(Controlled {
            status,
            location: c
                .location
                .filter(|_| message.is_none() && c.error.is_none()),
            no_body,
        });
        if plan.delivery == Delivery::Whole {
            k.hold_until_us = if plan.hold_us > 0 {
                env.now_us + plan.hold_us
            } else {
                0
            };
        } else {
            self.deliver_kept(i, &plan, env);
        }
        if env.features.access_log.is_some() {
            self.log_shaped(i, &plan, env);
        }
    }
}

/// What a control read by the grammar asks of HTTP/2.
pub(super) fn asked(read: Result<Option<Control>, Refusal>) -> Asked {
    match read {
        Ok(None) => Asked::None,
        Ok(Some(c)) => Asked::Answer(Ok(c)),
        Err(why) => Asked::Answer(Err(why)),
    }
}

/// Append the HTTP/1 head of a controlled answer to `out`, for HPACK: the route's, with the
/// control's status, the body's `length` (none for 204 and 304) and a redirect's `Location`.
pub(super) fn controlled_head(
    c: Controlled,
    route: usize,
    length: Option<usize>,
    responses: &Responses,
    out: &mut Vec<u8>,
) {
    let mut digits = [0u8; 20];
    let length = length
        .filter(|_| !c.no_body)
        .map(|n| decimal(n as u64, &mut digits));
    let mut location = [0u8; MAX_LOCATION + 12];
    let extra: &[u8] = match c.location {
        Some(l) => {
            let v = l.value();
            location[..10].copy_from_slice(b"Location: ");
            location[10..10 + v.len()].copy_from_slice(v);
            location[10 + v.len()..12 + v.len()].copy_from_slice(b"\r\n");
            &location[..12 + v.len()]
        }
        None => b"",
    };
    let head = StatusHead {
        status: c.status,
        length,
        extra,
        same_body: false,
    };
    responses.append_status_head(route, KeepAliveForm::KeepAlive11, head, out);
}
