//! Faults per stream (`--fault`, `--delay`): what a stream's answer becomes when its route has
//! a fault or responses are delayed, drawn from the `fault` layer as HTTP/1 draws it (one
//! [`WorkerFaults::decide`] per stream), and how it is sent without holding up the other
//! streams of the connection.
//!
//! - a latency and `--delay` hold the stream's HEADERS until the clock is past its deadline;
//! - a drip or a bandwidth paces its body's DATA frames: the drip's pieces of the body, each
//!   due when the drip says, counted from its HEADERS;
//! - a stall never answers the stream; a hang too, and the connection closes D after the
//!   request (FIN, or RST with `:reset`);
//! - a truncate sends the HEADERS and the first N bytes (or N percent) of the body, then
//!   RST_STREAM INTERNAL_ERROR; a reset the same bytes, then resets the TCP connection;
//! - garbage sends N bytes that are not a frame, then closes (FIN);
//! - a slow close sends the answer whole, then closes the connection D after its last byte is
//!   written;
//! - an error share, a status mix and a sequence's status step answer with their status.
//!
//! Each held stream keeps its own deadline; the connection's wake-up is the earliest.

#[cfg(feature = "echo")]
use super::Own;
use super::shape::{How, Shaped};
use super::{Env, Phase, State, Stream, grpc};
use crate::conn::Next;
use crate::fault::{Delivery, WorkerFaults};
use crate::frame::{ErrorCode, Header, flag, kind};
use crate::plan::{self, Configured, Facts, Plan, Source};
use crate::response::ExtendCold;
use crate::values::US_PER_MS;

impl State {
    /// Stream `i`'s request is complete and faults or `--delay` are configured: its answer
    /// as the plan of its route's faults says (`crate::plan`). Returns false when neither
    /// applies (answered plainly then).
    #[cold]
    #[inline(never)]
    pub(super) fn answer_shaped<W>(&mut self, i: usize, env: &mut Env<'_, W>) -> bool {
        let asked = self.streams[i].route;
        let facts = Facts {
            route: asked,
            ranged_status: 0,
            close: false,
            // Under `--mutate`, the default route's streams get HTTP/2's own catalogue
            // (`mutate`), never a draw of HTTP/1's.
            variants: false,
        };
        let features = Configured {
            faults: env.features.faults.as_deref_mut(),
            delay_us: env.settings.switches.delay_us,
            control: None,
        };
        if !plan::applies(&facts, &features) {
            return false;
        }
        let mut plan = plan::decide(facts, features, env.responses);
        let Source::Route(route) = plan.source else {
            return false;
        };
        // A gRPC health call under `--delay` or a latency: its answer held as the plan says
        // (its hold alone, [`Plan::hold_only`]), then sent in gRPC as ever.
        if self.streams[i].grpc != grpc::Call::None {
            if plan.hold_us == 0 {
                return false;
            }
            plan = plan.hold_only(200);
        }
        plan::count(&plan, env.stats);
        let how = self.how(plan.delivery, plan.hold_us, plan.asked, env.now_us);
        #[cfg(feature = "journal")]
        if self.keeps() {
            // The journal's entry, recorded when the request came: the plan's status (none
            // for a stall, a hang or garbage) and fault kinds, as HTTP/1 records them.
            self.journal_kept(i, plan.status, plan.kinds, None, env);
        }
        let s = &mut self.streams[i];
        s.answering = true;
        s.route = route;
        s.fault = Some(Shaped {
            at_us: held_until(plan.hold_us, env.now_us),
            how,
        });
        self.served = self.served.saturating_add(1);
        self.faults.shaped += 1;
        if env.features.access_log.is_some() {
            self.log_shaped(i, &plan, env);
        }
        true
    }

    /// How a stream asking for `delivery` (of route `asked`) is sent, held `hold` µs from
    /// `now`: a hang's close is due D after the request, a `--delay` and a latency added.
    fn how(&mut self, delivery: Delivery, hold: u64, asked: u16, now: u64) -> How {
        match delivery {
            Delivery::Whole => How::Whole,
            Delivery::Drip(drip) => How::Drip { drip, released: 0 },
            Delivery::Stall => How::Stall,
            Delivery::Truncate(cut) => How::Cut { cut, reset: false },
            Delivery::Reset(cut) => How::Cut { cut, reset: true },
            Delivery::Garbage(n) => How::Garbage { n, route: asked },
            Delivery::Hang { ms, reset } => {
                let at = now + hold + ms.saturating_mul(US_PER_MS);
                let f = &mut self.faults;
                if f.close_at_us == 0 || at < f.close_at_us {
                    f.close_at_us = at;
                    f.close_reset = reset;
                }
                How::Stall
            }
            Delivery::SlowClose(ms) => How::SlowClose(ms),
        }
    }

    /// Stream `i`, answered from its slot as its control chose (`control`), is delivered as
    /// `plan` says (not whole): sent as a `--fault` of that kind sends a route's answer (its
    /// body the slot's). Counted and journaled by `control`.
    #[cfg(feature = "control")]
    #[cold]
    #[inline(never)]
    pub(super) fn deliver_kept<W>(&mut self, i: usize, plan: &Plan, env: &mut Env<'_, W>) {
        let how = self.how(plan.delivery, plan.hold_us, plan.asked, env.now_us);
        self.streams[i].fault = Some(Shaped {
            at_us: held_until(plan.hold_us, env.now_us),
            how,
        });
        self.faults.shaped += 1;
    }

    /// The access-log line of stream `i`, answered as `plan` says: its status (`000` when
    /// none is sent), the bytes of the answer (garbage's own; a cut answer's to its cut),
    /// ` fault=KIND` for each of its fault kinds, its time to the end of its hold (none for
    /// a stall or a hang).
    #[cold]
    #[inline(never)]
    pub(super) fn log_shaped<W>(&mut self, i: usize, plan: &Plan, env: &mut Env<'_, W>) {
        let s = self.streams[i];
        // A stall or a hang sends nothing: its line is written at once, as HTTP/1's is.
        let (bytes, held) = match plan.delivery {
            Delivery::Stall | Delivery::Hang { .. } => (0, false),
            Delivery::Garbage(n) => (u64::from(n), true),
            _ => (self.answer_bytes(i, env), true),
        };
        let a = super::log::Answered {
            status: plan.status,
            rule: None,
            bytes,
            faults: plan.kinds.as_slice(),
            until_us: if held {
                held_until(plan.hold_us, env.now_us)
            } else {
                0
            },
            mutate: None,
        };
        self.log_answer(s.id, &a, env);
    }

    /// Send what the shaped streams may send now (after [`State::pump`]), and note the
    /// earliest deadline of those held.
    pub(super) fn pump_shaped<W>(&mut self, env: &mut Env<'_, W>) {
        if self.faults.shaped == 0 {
            return;
        }
        let now = env.now_us;
        let mut due = u64::MAX;
        let mut shaped = 0;
        let mut i = 0;
        while i < self.streams.len() {
            let mut s = self.streams[i];
            let Some(f) = s.fault.filter(|_| s.answering) else {
                i += 1;
                continue;
            };
            if self.phase != Phase::Open {
                return;
            }
            shaped += 1;
            match self.shape(&mut s, f, now, env) {
                Step::Wait(at) => {
                    due = due.min(at);
                    self.streams[i] = s;
                    i += 1;
                }
                Step::Blocked => {
                    self.streams[i] = s;
                    i += 1;
                }
                Step::Done => {
                    self.streams.remove(i);
                    #[cfg(feature = "echo")]
                    if s.error == Own::Kept {
                        self.kept_done(s.id);
                    }
                    shaped -= 1;
                }
            }
        }
        // Counted again: a stream reset by the client or by an error is gone.
        self.faults.shaped = shaped;
        self.faults.next_due_us = due;
    }

    /// Send what stream `s` may send now.
    fn shape<W>(&mut self, s: &mut Stream, mut f: Shaped, now: u64, env: &mut Env<'_, W>) -> Step {
        if matches!(f.how, How::Stall) {
            return Step::Blocked;
        }
        if s.grpc != grpc::Call::None {
            if !s.headers_sent && now <= f.at_us {
                return Step::Wait(f.at_us);
            }
            if self.pending_out() >= super::OUT_HIGH {
                return Step::Blocked;
            }
            // Its HEADERS now, its DATA and trailers once the windows hold the DATA.
            let room = s.window.min(self.window);
            let sent = grpc::answer(s.grpc, s.id, s.headers_sent, room, &mut self.out);
            s.headers_sent = true;
            return match sent {
                Some(n) => {
                    self.window -= n as i64;
                    Step::Done
                }
                None => Step::Blocked,
            };
        }
        if !s.headers_sent {
            if f.at_us != 0 && now <= f.at_us {
                return Step::Wait(f.at_us);
            }
            if self.pending_out() >= super::OUT_HIGH {
                return Step::Blocked;
            }
            if let How::Variant(j) = f.how {
                self.write_variant(s.id, usize::from(j), env);
                return Step::Done;
            }
            if let How::Garbage { n, route } = f.how {
                self.garbage(n, route, s.error.kept(), env);
                return Step::Done;
            }
            let ends = matches!(f.how, How::Whole | How::Drip { .. } | How::SlowClose(_));
            let empty = self.body_of(s, env.responses).1 == 0;
            self.response_headers(s, ends && empty, env);
            s.headers_sent = true;
            f.at_us = now;
        }
        let (body, total) = self.body_of(s, env.responses);
        let (limit, ends) = match &mut f.how {
            How::Drip { drip, released } => {
                // Release every piece due: the first at once (but a bandwidth's), each other
                // once the clock is past its time, until the body is whole.
                loop {
                    let r = *released;
                    if r > 0 && drip.piece_end(r - 1, total) >= total {
                        break;
                    }
                    let first = r == 0 && drip.first_at_once();
                    if !first && now <= f.at_us.saturating_add(drip.piece_at_us(r, total)) {
                        break;
                    }
                    *released += 1;
                }
                let limit = match *released {
                    0 => 0,
                    r => drip.piece_end(r - 1, total),
                };
                (limit, true)
            }
            How::Cut { cut, .. } => (cut.keep(total as u64) as usize, false),
            _ => (total, true),
        };
        s.fault = Some(f);
        // A controlled answer's body is its slot's (`echo`), the route's otherwise.
        let sent = match s.error {
            #[cfg(feature = "echo")]
            Own::Kept => self.kept_frames(s, limit, ends, env),
            _ => {
                self.data_frames(s, body, limit, ends);
                s.at >= limit
            }
        };
        if !sent {
            return Step::Blocked;
        }
        match f.how {
            How::Drip { drip, released } if limit < total => {
                Step::Wait(f.at_us.saturating_add(drip.piece_at_us(released, total)))
            }
            How::Cut { reset: false, .. } => {
                let code = (ErrorCode::InternalError as u32).to_be_bytes();
                self.control(kind::RST_STREAM, 0, s.id, &code);
                Step::Done
            }
            How::Cut { reset: true, .. } => {
                self.faults.reset = true;
                self.close_now();
                Step::Done
            }
            How::SlowClose(ms) => {
                let after = ms.saturating_mul(US_PER_MS);
                let f = &mut self.faults;
                f.close_after_us = Some(f.close_after_us.map_or(after, |a| a.max(after)));
                Step::Done
            }
            _ => Step::Done,
        }
    }

    /// DATA frames of `body` from the stream's cursor up to `limit`, within the windows and
    /// the peer's frame size; the last of the body ends the stream when `ends`.
    fn data_frames(&mut self, s: &mut Stream, body: &[u8], limit: usize, ends: bool) {
        while s.at < limit && self.pending_out() < super::OUT_HIGH {
            let n = (limit - s.at)
                .min(self.peer_max_frame as usize)
                .min(s.window.max(0) as usize)
                .min(self.window.max(0) as usize);
            if n == 0 {
                break;
            }
            let end = ends && s.at + n == body.len();
            let h = Header {
                len: n as u32,
                kind: kind::DATA,
                flags: if end { flag::END_STREAM } else { 0 },
                stream: s.id,
            };
            self.out.extend_cold(&h.encode());
            self.out.extend_cold(&body[s.at..s.at + n]);
            s.at += n;
            s.window -= n as i64;
            self.window -= n as i64;
        }
    }

    /// Garbage instead of an answer: its first byte's top bit set, so that its first nine
    /// bytes, read as a frame header, announce a frame of over 8 MiB (more than any
    /// SETTINGS_MAX_FRAME_SIZE a client we know of allows); then the connection closes.
    /// A control's (`kept`) are cut from the shared garbage block, repeated, as HTTP/1's.
    fn garbage<W>(&mut self, n: u32, route: u16, kept: bool, env: &Env<'_, W>) {
        let at = self.out.len();
        match env.features.faults.as_deref() {
            Some(f) if !kept => self
                .out
                .extend_cold(WorkerFaults::garbage(f, route as usize, n)),
            _ => {
                let block = env.features.garbage();
                let mut left = n as usize;
                while left > 0 && !block.is_empty() {
                    let k = left.min(block.len());
                    self.out.extend_cold(&block[..k]);
                    left -= k;
                }
            }
        }
        if let Some(first) = self.out.get_mut(at) {
            *first |= 0x80;
        }
        self.close_now();
    }

    /// Read nothing more; close once the output is written (FIN, or RST after a reset).
    fn close_now(&mut self) {
        self.phase = Phase::Closing;
        self.input.clear();
    }

    /// After output was written: a slow close's wait starts once all of it is.
    pub(super) fn wrote_shaped(&mut self, now_us: u64) {
        if self.pending_out() == 0 {
            if let Some(after) = self.faults.close_after_us.take() {
                let at = now_us.saturating_add(after);
                let f = &mut self.faults;
                if f.close_at_us == 0 || at < f.close_at_us {
                    f.close_at_us = at;
                    f.close_reset = false;
                }
            }
        }
    }

    /// On a wake-up: a hang's or a slow close's close, once due. Returns what the loop
    /// should do, or `None` when it is not due.
    pub(super) fn close_due(&mut self, now_us: u64) -> Option<Next> {
        let at = self.faults.close_at_us;
        if at == 0 || now_us <= at || self.phase != Phase::Open {
            return None;
        }
        self.faults.close_at_us = 0;
        self.faults.reset = self.faults.close_reset;
        self.close_now();
        Some(Next::Continue)
    }
}

/// What a shaped stream does next.
enum Step {
    /// Held until the clock is past this.
    Wait(u64),
    /// Waits for a window, for room in the output, or for ever (a stall).
    Blocked,
    /// Answered (or cut): it is dropped.
    Done,
}

impl State {
    /// Stream `s`'s body as a shaped answer sends it, and its length: the route's; or, for an
    /// answer from its slot, none here (`kept_frames` sends it) and the slot's length.
    fn body_of<'r>(
        &self,
        s: &Stream,
        responses: &'r crate::response::Responses,
    ) -> (&'r [u8], usize) {
        match s.error {
            _ if s.head_only => (&[], 0),
            #[cfg(feature = "echo")]
            Own::Kept => (&[], self.kept_len(s.id)),
            _ => {
                let body = responses.body(s.route as usize);
                (body, body.len())
            }
        }
    }
}

/// When a stream held `hold_us` from `now_us` is due (0: not held).
fn held_until(hold_us: u64, now_us: u64) -> u64 {
    if hold_us > 0 { now_us + hold_us } else { 0 }
}
