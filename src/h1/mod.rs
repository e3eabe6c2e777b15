//! HTTP/1: one connection's life as a state machine, without sockets.
//!
//! The poll loop hands an [`Http1Conn`] the bytes it read (`on_data`), end of input (`on_eof`), how
//! much of its `output` it wrote (`wrote`) and the time it asked to be woken at (`wake_at`,
//! `on_wake`), all through [`Connection`]; the connection decides everything else: which
//! requests are complete, what to answer, when to stop reading (backpressure), when its
//! deadlines fall (timeouts, `--delay`, latency and drip holds, lingering) and when to close
//! (`next`). Nothing here knows about sockets or epoll, so the fuzzer and the tests drive it
//! directly.
//!
//! Memory: an idle connection holds no buffer. Input is parsed where the loop read it (a
//! per-worker scratch buffer); only a partial request is copied into a buffer of the
//! connection's own, and output lives in a [`WorkArea`] taken from the worker's
//! [`Pool`] while it is pending. A dripped response is copied from the
//! preformatted bytes a piece at a time; between pieces, a connection with nothing else to do
//! holds no work area either (`Phase::Dripping`).
//!
//! By concern: `state` (the types), `request` (parsing, skipping bodies), `answer` (the
//! response to a request, error responses), `faults` (applying a fault plan), `drip` (pieces
//! of a dripped response), `ranges` (a range or a condition's answer), `deadline` (the timeouts), `log` (access-log lines), `echo` (a
//! request kept and written back, `--echo`), `journal` (a request recorded, the journal's
//! path answered, `--journal`), `control` (an answer a request chose, `--control`). The
//! echo's, the journal's, the control's and the ranges' state are theirs, and [`WorkArea`]
//! holds them, the access log's line and h2c's settings only when their features are built.
//! Every change of phase is made in this file.

mod answer;
mod control;
mod deadline;
mod drip;
mod echo;
mod faults;
#[cfg(feature = "journal")]
mod journal;
mod log;
mod ranges;
mod request;
mod state;
#[cfg(test)]
mod tests;
mod upgrade;
#[cfg(feature = "websocket")]
mod websocket;

pub use state::WorkArea;

use crate::conditional::Answer;
use crate::conn::{Connection, Handoff, LINGER_BYTES, LINGER_US, Next, Pool, Settings};
use crate::fault::Drip;
use crate::parser::{Error, Rule};
use crate::response::KeepAliveForm;
use crate::stats::Timeout;
use drip::ParkedDrip;
use state::{Body, DripCursor, DripSource, DripTail, Env, Pending, Phase, Refill};

/// In the activity field of a parked slow close (`Phase::Hanging` with no work area): its D
/// counts from the next turn's clock, the first read after its last byte was written (this
/// turn's was read before the write); the bits below are D in µs.
const CLOSE_FROM_NEXT_TURN: u64 = 1 << 63;

/// The state of one HTTP/1 connection. See the module documentation.
///
/// An idle keep-alive connection is this struct alone (24 bytes); a request in progress or
/// output pending borrows a [`WorkArea`] from the worker's pool and gives it back as soon as
/// everything is answered and written. So does a connection whose dripped response waits for
/// its next piece (`Phase::Dripping`): the two fields named for two meanings then hold the
/// parked drip.
#[derive(Debug)]
pub struct Http1Conn {
    work: Option<Box<WorkArea>>,
    /// The last input or output progress, or when lingering began (µs). `Phase::Dripping`:
    /// the parked drip's first word instead ([`Http1Conn::parked`]; no timeout runs then, and
    /// nothing reads it as a time).
    active_us_or_parked: u64,
    /// Requests answered.
    served: u32,
    phase: Phase,
    eof: bool,
    /// Two bytes that fit in the struct's padding, for the phase that needs them.
    /// `Phase::Lingering`: how much more input to discard, in KiB, each read counted rounded
    /// up (a byte count would not fit). `Phase::Dripping`: the parked drip's route.
    linger_kib_or_parked_route: u16,
}

impl Connection<WorkArea> for Http1Conn {
    fn new(now_us: u64) -> Http1Conn {
        Http1Conn {
            work: None,
            active_us_or_parked: now_us,
            served: 0,
            phase: Phase::Open,
            eof: false,
            linger_kib_or_parked_route: 0,
        }
    }

    fn on_data(&mut self, data: &[u8], env: &mut Env<'_>) {
        if !matches!(self.phase, Phase::Open) {
            self.on_data_not_open(data, env);
            return;
        }
        env.stats.bytes_in += data.len() as u64;
        let mut b = match self.work.take() {
            Some(b) => b,
            None => {
                let mut b = env.pool.take(env.settings);
                // No output yet: a write timeout would count from here.
                b.out_since_us = env.now_us;
                if self.served == 0 {
                    // The first head must be whole within the header timeout of the accept
                    // (the last activity until now), as nginx's client_header_timeout: a
                    // client cannot hold a slot by sending nothing, or one byte now and then.
                    b.head_since_us = Some(self.active_us_or_parked);
                }
                b
            }
        };
        self.active_us_or_parked = env.now_us;
        if b.input.is_empty() {
            let used = self.process(&mut b, data, env.settings, env);
            if used < data.len() {
                b.input.extend_from_slice(&data[used..]);
            }
        } else {
            b.input.extend_from_slice(data);
            self.resume(&mut b, env);
        }
        log::close_log(&b, env);
        self.keep_or_return(b, env);
    }

    fn on_eof(&mut self) {
        self.eof = true;
    }

    // This, `wrote`, `wants_read` and `next` are inlined into the loop's event
    // (`Event::handle`): called through the worker's protocol enum from its cold paths too,
    // they were left calls (+22 instructions a request, `benches/instructions.sh`).
    #[inline(always)]
    fn output(&self) -> &[u8] {
        match &self.work {
            Some(b) if b.hold_until_us == 0 => &b.out[b.out_pos..],
            _ => &[],
        }
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize, env: &mut Env<'_>) {
        let Some(mut b) = self.work.take() else {
            return;
        };
        debug_assert!(n <= b.pending_out());
        env.stats.bytes_out += n as u64;
        if n > 0 {
            self.active_us_or_parked = env.now_us;
            b.out_since_us = env.now_us;
        }
        b.out_pos += n;
        if b.out_pos < b.out.len() && b.full() && b.out_pos >= b.pending_out() {
            // Parsing stops while the buffer, written part included, is at the high-water
            // mark (`WorkArea::full`), so that a slow reader's output never exceeds the mark
            // plus one response: then drop the written part, once it is at least what
            // remains, so that each move is paid for by as many bytes written since the last.
            b.out.drain(..b.out_pos);
            b.out_pos = 0;
        }
        if b.out_pos == b.out.len() {
            b.out.clear();
            b.out_pos = 0;
            match b.refill {
                Refill::Paced => {
                    if cfg!(feature = "faults") {
                        b.pace(env)
                    }
                }
                Refill::Body { route, at } => {
                    let body = env.responses.body(route as usize);
                    let stop = b.pacing.body_stop.unwrap_or(body.len());
                    let end = stop.min(at + env.settings.conn_limits.body_chunk.max(1));
                    b.out.extend_from_slice(&body[at..end]);
                    b.refill = if end < stop {
                        Refill::Body { route, at: end }
                    } else {
                        // A range's end, or a cut's: the next body is sent whole.
                        b.pacing.body_stop = None;
                        Refill::None
                    };
                }
                Refill::Repeat { left, block } => {
                    if cfg!(feature = "control") {
                        b.refill_repeat(left, block, env)
                    }
                }
                #[cfg(feature = "journal")]
                Refill::Journal => b.refill_journal(env),
                Refill::None => {}
            }
            if matches!(b.refill, Refill::None)
                && !b.input.is_empty()
                && matches!(self.phase, Phase::Open)
            {
                self.resume(&mut b, env);
                log::close_log(&b, env);
            }
        }
        self.keep_or_return(b, env);
    }

    /// Not after a close was decided, not after end of input, not while input held back by
    /// output is longer than a request head may be, and, while output piles up, only until
    /// some input is held: TCP flow control pushes back on a client that pipelines faster than
    /// it reads, and the one read shows whether a head has begun, which the header timeout
    /// bounds whatever is unread (`hold_back`).
    #[inline(always)]
    fn wants_read(&self) -> bool {
        match self.phase {
            Phase::Open => {
                !self.eof
                    && self.work.as_ref().is_none_or(|b| {
                        if matches!(b.refill, Refill::None) && !b.full() {
                            b.input.len() <= b.parser.limits().max_head
                        } else {
                            b.input.is_empty()
                        }
                    })
            }
            Phase::Lingering => !self.eof && self.linger_kib_or_parked_route > 0,
            Phase::Stalled | Phase::Hanging | Phase::HangingReset => !self.eof,
            Phase::Closing { .. } | Phase::Resetting | Phase::Dripping | Phase::Upgrading => false,
        }
    }

    #[inline(always)]
    fn next(&self) -> Next {
        let flushed = self
            .work
            .as_ref()
            .is_none_or(|b| b.pending_out() == 0 && matches!(b.refill, Refill::None));
        match self.phase {
            Phase::Closing { linger } if flushed => Next::Close { linger },
            Phase::Resetting if flushed => Next::Reset,
            Phase::Upgrading if flushed => Next::Upgrade,
            // A hang (or slow close) ends by its timer alone, the client's half-close or not:
            // FIN or RST after D (`Http1Conn::close_after_hang`).
            Phase::Open | Phase::Lingering | Phase::Stalled if flushed && self.eof => {
                Next::Close { linger: false }
            }
            Phase::Lingering if self.linger_kib_or_parked_route == 0 => {
                Next::Close { linger: false }
            }
            _ => Next::Continue,
        }
    }

    /// The earliest of its timeouts, the end of a hold (`--delay`, a latency, a drip's
    /// pause) and the end of lingering.
    #[inline(always)]
    fn wake_at(&self, settings: &Settings) -> Option<u64> {
        match self.phase {
            Phase::Lingering => return Some(self.active_us_or_parked + LINGER_US),
            Phase::Dripping if cfg!(feature = "faults") => return Some(self.parked().due_us),
            Phase::Hanging | Phase::HangingReset if self.work.is_none() => {
                // A slow close not yet timed: the next turn.
                return Some(match self.active_us_or_parked {
                    w if w & CLOSE_FROM_NEXT_TURN != 0 => 0,
                    at => at,
                });
            }
            _ => {}
        }
        let due = self.deadline(&settings.timeouts).0;
        match self.work.as_deref() {
            Some(b) if b.hold_until_us != 0 => Some(due.min(b.hold_until_us)),
            _ => Some(due),
        }
    }

    /// Releases held output, and handles an expired timeout: a late head is answered with
    /// 408 before closing, anything else closes at once.
    fn on_wake(&mut self, env: &mut Env<'_>) -> Next {
        let now = env.now_us;
        if matches!(self.phase, Phase::Lingering) {
            return if now > self.active_us_or_parked + LINGER_US {
                Next::Close { linger: false }
            } else {
                Next::Continue
            };
        }
        if self.phase.is_dripping() {
            if now <= self.parked().due_us {
                return Next::Continue;
            }
            self.work = Some(self.unpark(env));
        }
        if let (Some(reset), None) = (self.phase.hang_reset(), &self.work) {
            let w = self.active_us_or_parked;
            if w & CLOSE_FROM_NEXT_TURN != 0 {
                // The turn after the slow close's last byte was written: D from now.
                self.active_us_or_parked = now.saturating_add(w & !CLOSE_FROM_NEXT_TURN);
            } else if now > w {
                self.close_after_hang(reset, now);
            }
            return Next::Continue;
        }
        if let Some(mut b) = self.work.take() {
            if b.hold_until_us != 0 && now > b.hold_until_us {
                self.release_hold(&mut b, env);
            }
            if cfg!(feature = "faults")
                && b.hold_until_us == 0
                && b.pending_out() == 0
                && matches!(b.refill, Refill::Paced)
            {
                // A latency or a drip's pause ended with nothing left to write.
                b.pace(env);
            }
            #[cfg(feature = "journal")]
            if b.hold_until_us == 0 && b.pending_out() == 0 && matches!(b.refill, Refill::Journal) {
                // The journal's next piece, held for this turn.
                b.refill_journal(env);
            }
            self.keep_or_return(b, env);
        }
        if self.phase.is_dripping() || (self.phase.hang_reset().is_some() && self.work.is_none()) {
            // Parked again: an empty piece, nothing to write until the next one; or the
            // output before a hang's close is written, and the close waits.
            return Next::Continue;
        }
        let (due, why) = self.deadline(&env.settings.timeouts);
        if now > due {
            return self.on_timeout(why, env);
        }
        Next::Continue
    }

    fn start_lingering(&mut self, now_us: u64, pool: &mut Pool<WorkArea>) {
        self.release(pool);
        self.phase = Phase::Lingering;
        self.linger_kib_or_parked_route = (LINGER_BYTES / 1024) as u16;
        self.active_us_or_parked = now_us;
    }

    fn release(&mut self, pool: &mut Pool<WorkArea>) {
        if let Some(b) = self.work.take() {
            pool.put(b);
        }
    }

    fn take_handoff(&mut self, pool: &mut Pool<WorkArea>) -> Option<Handoff> {
        self.handoff(pool)
    }

    fn is_lingering(&self) -> bool {
        matches!(self.phase, Phase::Lingering)
    }

    fn is_idle(&self) -> bool {
        self.work.is_none()
            && matches!(
                self.phase,
                Phase::Open | Phase::Stalled | Phase::Hanging | Phase::HangingReset
            )
    }

    #[inline]
    fn is_held(&self) -> bool {
        match self.work.as_deref() {
            Some(b) => b.hold_until_us != 0,
            None => self.phase.is_dripping(),
        }
    }

    fn is_silent(&self) -> bool {
        self.served == 0 && self.work.is_none() && matches!(self.phase, Phase::Open)
    }

    fn last_active_us(&self) -> u64 {
        self.active_us_or_parked
    }

    fn served(&self) -> u32 {
        self.served
    }

    fn responses_held(&self, held: &mut dyn FnMut(usize)) {
        if self.phase.is_dripping() {
            held(usize::from(self.parked().route));
        }
        let Some(b) = self.work.as_deref() else {
            return;
        };
        if let Some(p) = b.pending {
            held(usize::from(p.route));
        }
        if let Refill::Body { route, .. } = b.refill {
            held(usize::from(route));
        }
        if let Some((_, p, _)) = b.last_held {
            held(usize::from(p.route));
        }
        if let Some(c) = b.pacing.drip.filter(|_| cfg!(feature = "faults")) {
            held(usize::from(c.route));
            if let DripSource::Control {
                tail: DripTail::Body { route },
                ..
            } = c.source
            {
                held(usize::from(route));
            }
        }
    }
}

/// What the tests and the fuzzer measure: the memory a connection holds.
impl Http1Conn {
    /// Bytes of input held back (a partial request, or requests paused by backpressure).
    pub fn pending_input(&self) -> usize {
        self.work.as_ref().map_or(0, |b| b.input.len())
    }

    /// Bytes in the output buffer, the written part not yet dropped included (at most the
    /// high-water mark plus one response).
    pub fn output_held(&self) -> usize {
        self.work.as_ref().map_or(0, |b| b.out.len())
    }

    /// Bytes held by this connection beyond its own struct (work area and buffer capacity).
    pub fn buffered(&self) -> usize {
        self.work.as_ref().map_or(0, |b| {
            std::mem::size_of::<WorkArea>() + b.input.capacity() + b.out.capacity()
        })
    }
}

/// The phase transitions, and what decides them.
impl Http1Conn {
    /// [`Connection::on_data`] in any phase but open.
    #[cold]
    #[inline(never)]
    fn on_data_not_open(&mut self, data: &[u8], env: &mut Env<'_>) {
        match self.phase {
            Phase::Lingering => {
                // Discarded: the response is out and the write side shut.
                let kib = u16::try_from(data.len().div_ceil(1024)).unwrap_or(u16::MAX);
                self.linger_kib_or_parked_route =
                    self.linger_kib_or_parked_route.saturating_sub(kib);
                return;
            }
            Phase::Dripping if cfg!(feature = "faults") => {
                // Not asked for (a drip holds input back), but taken: the work area holds it
                // until the response is out.
                self.work = Some(self.unpark(env));
                if matches!(self.phase, Phase::Open) {
                    self.on_data(data, env);
                    return;
                }
            }
            Phase::Upgrading => {
                // Not asked for; kept for the protocol it turns into.
                env.stats.bytes_in += data.len() as u64;
                if let Some(b) = self.work.as_mut() {
                    b.input.extend_from_slice(data);
                }
                return;
            }
            Phase::Hanging | Phase::HangingReset => {
                // Read and discarded; the close keeps its time (held in the activity field
                // once the output is written).
                env.stats.bytes_in += data.len() as u64;
                return;
            }
            _ => {}
        }
        env.stats.bytes_in += data.len() as u64;
        self.active_us_or_parked = env.now_us;
        if matches!(self.phase, Phase::Stalled) {
            // Read and never answered.
            return;
        }
        if !data.is_empty() {
            self.phase = Phase::Closing { linger: true };
        }
    }

    /// Keep the work area while it has work, else give it back.
    #[inline(always)]
    fn keep_or_return(&mut self, b: Box<WorkArea>, env: &mut Env<'_>) {
        if b.is_done()
            || (cfg!(feature = "faults") && matches!(b.refill, Refill::Paced) && self.park(&b))
        {
            env.pool.put(b);
        } else {
            self.work = Some(b);
        }
    }

    /// The drip parked in the connection's own fields (`Phase::Dripping` only).
    fn parked(&self) -> ParkedDrip {
        debug_assert!(self.phase.is_dripping());
        ParkedDrip::unpack(self.active_us_or_parked, self.linger_kib_or_parked_route)
    }

    /// A work area whose only work is a dripped response waiting for its next piece: keep the
    /// drip in the connection's own fields instead (`Phase::Dripping`). Returns whether it
    /// did, and the work area can go back to the pool.
    #[cold]
    #[inline(never)]
    fn park(&mut self, b: &WorkArea) -> bool {
        if let Some(close) = b.pacing.close {
            // A hang or slow close: once its output is written, the connection waits with no
            // work area, its close time in its own fields.
            if b.hold_until_us != 0 || b.pending_out() > 0 || b.pacing.drip.is_some() {
                return false;
            }
            debug_assert!(self.phase.hang_reset().is_some());
            self.active_us_or_parked = if close.after_us > 0 {
                // A slow close (no time of its own): D after the last byte's write, which
                // came after this turn's clock was read; the next turn's clock is after it.
                debug_assert_eq!(close.at_us, 0);
                CLOSE_FROM_NEXT_TURN | close.after_us.min(!CLOSE_FROM_NEXT_TURN)
            } else {
                close.at_us
            };
            return true;
        }
        let Some(c) = b.pacing.drip else {
            return false;
        };
        if c.source != DripSource::Route {
            // Its head is in the work area, and its drip is the request's own.
            return false;
        }
        let only_waiting = b.hold_until_us != 0
            && c.copied == c.released
            && b.pending_out() == 0
            && b.input.is_empty()
            && b.body == Body::None
            && b.pending.is_none()
            && !b.parser.in_progress()
            && b.head_since_us.is_none()
            && b.last_held.is_none()
            && b.pacing.body_stop.is_none()
            && c.answer == Answer::Whole;
        if !only_waiting {
            return false;
        }
        let linger = match (self.phase, c.variant) {
            (Phase::Open, KeepAliveForm::KeepAlive11 | KeepAliveForm::KeepAlive10) => false,
            (Phase::Closing { linger }, KeepAliveForm::Close) => linger,
            _ => return false,
        };
        let parked = ParkedDrip {
            due_us: b.hold_until_us,
            next: c.next,
            variant: c.variant,
            linger,
            head_only: c.head_only,
            route: c.route,
        };
        let Some((word, route)) = parked.pack() else {
            return false;
        };
        self.active_us_or_parked = word;
        self.linger_kib_or_parked_route = route;
        self.phase = Phase::Dripping;
        true
    }

    /// A parked drip (`Phase::Dripping`) takes a work area again, held until its next piece
    /// is due, and the connection the phase the response leads to.
    #[cold]
    #[inline(never)]
    fn unpark(&mut self, env: &mut Env<'_>) -> Box<WorkArea> {
        let w = self.parked();
        let drip = env
            .features
            .faults
            .as_deref()
            .and_then(|f| f.drip(w.route as usize))
            // Not reached (a drip comes from the faults); send the rest at once.
            .unwrap_or(Drip::Rate {
                bytes: u32::MAX,
                every_ms: 0,
            });
        let mut c = DripCursor {
            drip,
            source: DripSource::Route,
            route: w.route,
            variant: w.variant,
            head_only: w.head_only,
            from_us: 0,
            next: w.next,
            released: 0,
            copied: 0,
            answer: Answer::Whole,
            answer_head: 0,
        };
        c.from_us = w
            .due_us
            .saturating_sub(drip.piece_at_us(w.next, c.len(env.responses)));
        if w.next > 0 {
            c.released = drip.piece_end(w.next - 1, c.len(env.responses));
            c.copied = c.released;
        }
        let mut b = env.pool.take(env.settings);
        b.pacing.drip = Some(c);
        b.refill = Refill::Paced;
        b.hold_until_us = w.due_us;
        b.out_since_us = env.now_us;
        self.phase = match w.variant {
            KeepAliveForm::Close => Phase::Closing { linger: w.linger },
            _ => Phase::Open,
        };
        self.linger_kib_or_parked_route = 0;
        self.active_us_or_parked = env.now_us;
        b
    }

    /// A hold's time passed: its output may be written. A drain that began while the response
    /// was held makes it the last one, and it says so (RFC 9112 §9.6).
    fn release_hold(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        b.hold_until_us = 0;
        b.out_since_us = env.now_us;
        let last = env.draining && matches!(self.phase, Phase::Open) && !env.settings.switches.raw;
        if let Some((at, p, asked)) = b.last_held.take() {
            if last {
                // Held by `--delay` or a latency, whole: answered again with the closing head.
                b.out.truncate(at);
                b.refill = Refill::None;
                b.append_response(&p, asked, true, env);
                self.phase = Phase::Closing { linger: true };
            }
        } else if last {
            // A drip with nothing sent yet (held, or its first pieces empty) only changes its
            // head: every variant's head has its `Date` at the same offset. A controlled drip's
            // head, and a range's or a condition's (206, 304, 412, 416), is formatted already:
            // it goes as it is, as a held echo does.
            let route_drip = |c: &&mut DripCursor| {
                c.copied == 0 && c.source == DripSource::Route && c.answer == Answer::Whole
            };
            if let Some(c) = b
                .pacing
                .drip
                .as_mut()
                .filter(route_drip)
                .filter(|_| cfg!(feature = "faults"))
            {
                c.variant = KeepAliveForm::Close;
                self.phase = Phase::Closing { linger: true };
            }
        }
    }

    fn on_timeout(&mut self, why: Timeout, env: &mut Env<'_>) -> Next {
        env.stats.timeouts[why as usize] += 1;
        if why == Timeout::Header && matches!(self.phase, Phase::Open) {
            if let Some(mut b) = self.work.take() {
                // Not in the middle of a response (a drip's pause): no 408 after part of it.
                if b.pending_out() == 0 && matches!(b.refill, Refill::None) {
                    b.answer_late_head(env);
                    log::close_log(&b, env);
                    self.phase = Phase::Closing { linger: false };
                    self.active_us_or_parked = env.now_us;
                    b.out_since_us = env.now_us;
                    self.work = Some(b);
                    return Next::Continue;
                }
                self.work = Some(b);
            }
        }
        Next::Close { linger: false }
    }

    /// A close or a fault decided that nothing more is answered; `unanswered`: requests came
    /// after it.
    #[cold]
    fn answer_no_more(&mut self, unanswered: bool) {
        if unanswered && matches!(self.phase, Phase::Closing { .. }) {
            // Requests after the close are not answered; drain them before closing so that
            // the unread bytes do not turn the close into a reset.
            self.phase = Phase::Closing { linger: true };
        }
    }

    /// The response to `p` is out (or queued): close after it when `close`. A close the
    /// client did not ask for may cross requests it already sent: drain them (linger) instead
    /// of answering them with a reset.
    #[inline(always)]
    fn close_after_response(&mut self, p: &Pending, close: bool, env: &Env<'_>) {
        if close {
            let server_initiated = p.keep_alive && !env.settings.switches.raw;
            self.phase = Phase::Closing {
                linger: server_initiated,
            };
        }
    }

    /// Answer the error of `rule` (the head alone for a HEAD request), and close, draining
    /// what the client sends on.
    #[cold]
    fn refuse(&mut self, b: &mut WorkArea, rule: Rule, head_request: bool, env: &mut Env<'_>) {
        b.emit_error(rule, head_request, env);
        self.phase = Phase::Closing { linger: true };
    }

    /// A request failed to parse, or its chunked body to decode: count it, answer its error
    /// status and close.
    fn fail(&mut self, b: &mut WorkArea, e: Error, head_request: bool, env: &mut Env<'_>) {
        env.stats.errors[e.index()] += 1;
        self.refuse(b, Rule::Request(e), head_request, env);
    }

    /// A response whose end the client cannot know (a malformed one, garbage, a truncated
    /// one) is the last: close after it, draining what the client sends on.
    fn close_after_broken_response(&mut self) {
        self.phase = Phase::Closing { linger: true };
    }

    /// A `stall` fault: read and discard input, answer nothing more.
    fn stall(&mut self) {
        self.phase = Phase::Stalled;
    }

    /// A `reset` fault: answer nothing more, reset once the output is written.
    fn reset_after_output(&mut self) {
        self.phase = Phase::Resetting;
    }

    /// A `hang` fault, or a `slow-close` fault's response: answer nothing more, read and
    /// discard input, and close once the work area's [`HeldClose`](state::HeldClose) says.
    fn hang(&mut self, reset: bool) {
        self.phase = if reset {
            Phase::HangingReset
        } else {
            Phase::Hanging
        };
    }

    /// A hang's (or slow close's) time passed: close with FIN (then drain input, as any
    /// close canned decides), or RST.
    #[cold]
    fn close_after_hang(&mut self, reset: bool, now: u64) {
        self.phase = if reset {
            Phase::Resetting
        } else {
            Phase::Closing { linger: true }
        };
        self.active_us_or_parked = now;
    }
}
