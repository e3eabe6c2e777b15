//! A dripped response, piece by piece: starting it, releasing the pieces that fell due,
//! copying them into the output (with one `Date` for the whole response), ending a fault's
//! pacing, and the drip parked in the connection's own fields between pieces.

use super::state::{Asked, DripCursor, DripSource, DripTail, Env, Pending, Refill, WorkArea};
use crate::conditional::Answer;
use crate::fault::Drip;
use crate::response::ExtendCold;
use crate::response::{KeepAliveForm, Responses};

/// A dripped response waiting for its next piece on a connection with nothing else to do
/// (`Phase::Dripping`): what it takes to go on, packed into the connection's own fields, so
/// that such a connection costs what an idle one does. The numbers that do not fit (a piece
/// index from 2^16 on, worker time from 2^44 µs, 203 days) keep the work area instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ParkedDrip {
    /// When the next piece is due (µs).
    pub(super) due_us: u64,
    /// The next piece's index.
    pub(super) next: u32,
    /// The head sent, which says what follows the response: keep-alive, or a close.
    pub(super) variant: KeepAliveForm,
    /// With [`KeepAliveForm::Close`]: linger after it (`Phase::Closing`).
    pub(super) linger: bool,
    /// The response to a HEAD request: the head alone.
    pub(super) head_only: bool,
    /// The route whose bytes are dripped.
    pub(super) route: u16,
}

impl ParkedDrip {
    pub(super) const DUE_BITS: u32 = 44;
    pub(super) const NEXT_BITS: u32 = 16;

    /// `(word, route)`, the connection's two fields, or `None` when a number does not fit.
    pub(super) fn pack(self) -> Option<(u64, u16)> {
        if self.due_us >> Self::DUE_BITS != 0 || self.next >> Self::NEXT_BITS != 0 {
            return None;
        }
        let at = Self::DUE_BITS + Self::NEXT_BITS;
        let bits = self.due_us
            | u64::from(self.next) << Self::DUE_BITS
            | (self.variant as u64) << at
            | u64::from(self.linger) << (at + 2)
            | u64::from(self.head_only) << (at + 3);
        Some((bits, self.route))
    }

    pub(super) fn unpack(word: u64, route: u16) -> ParkedDrip {
        let at = Self::DUE_BITS + Self::NEXT_BITS;
        ParkedDrip {
            due_us: word & ((1 << Self::DUE_BITS) - 1),
            next: ((word >> Self::DUE_BITS) & ((1 << Self::NEXT_BITS) - 1)) as u32,
            variant: match (word >> at) & 3 {
                0 => KeepAliveForm::KeepAlive11,
                1 => KeepAliveForm::KeepAlive10,
                _ => KeepAliveForm::Close,
            },
            linger: (word >> (at + 2)) & 1 == 1,
            head_only: (word >> (at + 3)) & 1 == 1,
            route,
        }
    }
}

impl DripCursor {
    /// The response's length.
    #[inline(never)]
    pub(super) fn len(&self, r: &Responses) -> usize {
        match self.source {
            DripSource::Route if self.answer != Answer::Whole => {
                let body = match self.answer {
                    Answer::Partial { first, last } if !self.head_only => {
                        (last - first + 1) as usize
                    }
                    _ => 0,
                };
                self.answer_head as usize + body
            }
            DripSource::Route => {
                let head = r.head_len(self.route as usize, self.variant);
                if self.head_only {
                    head
                } else {
                    head + r.body(self.route as usize).len()
                }
            }
            DripSource::Control { head_len, tail, .. } => {
                head_len
                    + match tail {
                        DripTail::None => 0,
                        DripTail::Body { route } => r.body(route as usize).len(),
                        DripTail::Filler { len } | DripTail::Stars { len } => {
                            usize::try_from(len).unwrap_or(usize::MAX)
                        }
                    }
            }
        }
    }

    /// When the next piece is due (µs).
    fn next_due_us(&self, r: &Responses) -> u64 {
        self.from_us
            .saturating_add(self.drip.piece_at_us(self.next, self.len(r)))
    }
}

impl WorkArea {
    /// A dripped answer that is not the route's own response: format its head once, into
    /// [`Ranged::answer_head`](super::state::Ranged::answer_head), for the pieces to be copied
    /// from. Returns the head's length.
    #[cfg(feature = "ranges")]
    #[cold]
    #[inline(never)]
    fn start_answer_drip(&mut self, p: &Pending, asked: Asked, close: bool, env: &Env<'_>) -> u32 {
        let (out, refill, stop) = (
            std::mem::take(&mut self.out),
            self.refill,
            self.pacing.body_stop,
        );
        let mut head = std::mem::take(&mut self.ranges.answer_head);
        head.clear();
        self.out = head;
        let head_only = Pending {
            head_request: true,
            ..*p
        };
        self.append_answer(&head_only, asked, close, env);
        self.ranges.answer_head = std::mem::replace(&mut self.out, out);
        (self.refill, self.pacing.body_stop) = (refill, stop);
        self.ranges.answer_head.len() as u32
    }

    /// Start dripping the response to `p` (route `p.route`'s bytes): piece 0 at once, behind
    /// any output before it, or when a latency's hold ends (`hold_until_us`). Nothing is copied
    /// but the pieces due.
    pub(super) fn start_drip(
        &mut self,
        drip: Drip,
        p: &Pending,
        asked: Asked,
        close: bool,
        env: &mut Env<'_>,
    ) {
        #[cfg(feature = "ranges")]
        let answer_head = match asked.is_whole() {
            true => 0,
            false => self.start_answer_drip(p, asked, close, env),
        };
        #[cfg(not(feature = "ranges"))]
        let answer_head = 0;
        let c = DripCursor {
            drip,
            source: DripSource::Route,
            route: p.route,
            variant: p.variant(close),
            head_only: p.head_request || env.settings.switches.raw,
            from_us: 0,
            next: 0,
            released: 0,
            copied: 0,
            answer: self.answer_of(asked),
            answer_head,
        };
        self.begin_drip(c, env);
    }

    /// Start dripping the response `c` stands for (its pieces from 0): piece 0 at once,
    /// behind any output before it, or when a hold ends (`hold_until_us`).
    pub(super) fn begin_drip(&mut self, mut c: DripCursor, env: &mut Env<'_>) {
        c.from_us = if self.hold_until_us != 0 {
            self.hold_until_us
        } else {
            env.now_us
        };
        self.pacing.drip = Some(c);
        self.refill = Refill::Paced;
        if let Some(c) = self.pacing.drip {
            // Room for the most one copy adds (a short response whole, else a body chunk), so
            // that however many pieces fall due at once, a warmed-up buffer does not grow.
            let most = c
                .len(env.responses)
                .min(env.settings.conn_limits.body_chunk.max(1));
            self.out.reserve(most);
        }
        if self.hold_until_us == 0 {
            if self.pending_out() == 0 {
                self.pace(env);
            } else {
                self.drip_more(env);
            }
        }
    }

    /// A paced response's output is all written (or was empty): copy more of a drip, or hold
    /// until its next piece is due, or end the pacing (a latency's response, or the drip, is
    /// out).
    pub(super) fn pace(&mut self, env: &mut Env<'_>) {
        if self.drip_more(env) {
            self.out_since_us = env.now_us;
            return;
        }
        match self.pacing.drip {
            Some(c) if c.copied < c.len(env.responses) => {
                self.hold_until_us = c.next_due_us(env.responses);
            }
            _ => {
                self.pacing.drip = None;
                if self.pacing.close.is_none() {
                    // The response is out: later requests may be answered.
                    self.refill = Refill::None;
                }
                // Else a hang or slow close waits (`Http1Conn::park`): still paced.
                #[cfg(feature = "control")]
                self.control.drip_done();
            }
        }
    }

    /// Release the drip pieces due by now, and copy up to a body chunk of the released bytes
    /// into `out` (so that a large piece is never in memory whole). Returns whether it copied
    /// any.
    fn drip_more(&mut self, env: &mut Env<'_>) -> bool {
        let Some(mut c) = self.pacing.drip else {
            return false;
        };
        let total = c.len(env.responses);
        // Piece 0 goes as soon as the response may (this is called once its hold, if any, has
        // passed), but a bandwidth's once the rate has paid for it; a later piece once its time
        // has passed.
        while c.released < total
            && ((c.next == 0 && c.drip.first_at_once())
                || env.now_us > c.next_due_us(env.responses))
        {
            c.released = c.drip.piece_end(c.next, total);
            c.next = c.next.saturating_add(1);
        }
        let more = c.copied < c.released;
        if more {
            let end = c.released.min(
                c.copied
                    .saturating_add(env.settings.conn_limits.body_chunk.max(1)),
            );
            // The heads of a controlled answer and of a range or condition's, where built.
            #[cfg(feature = "control")]
            let drip_head = &mut self.control.drip_head[..];
            #[cfg(not(feature = "control"))]
            let drip_head: &mut [u8] = &mut [];
            #[cfg(feature = "ranges")]
            let answer_head = &self.ranges.answer_head[..];
            #[cfg(not(feature = "ranges"))]
            let answer_head: &[u8] = &[];
            copy_drip(&mut self.out, drip_head, &c, end, answer_head, env);
            c.copied = end;
        }
        self.pacing.drip = Some(c);
        more
    }
}

/// Copy the dripped response's bytes from `c.copied` to `end` into `out`. The head's `Date`
/// value is patched in place once a second, so a piece that holds part of it gets the value for
/// the time of the response's first piece instead: the client reads one date however the head
/// is split. A controlled answer's head (`drip_head`) gets the date of the time its first
/// piece is copied, once.
fn copy_drip(
    out: &mut Vec<u8>,
    drip_head: &mut [u8],
    c: &DripCursor,
    end: usize,
    answer_head: &[u8],
    env: &mut Env<'_>,
) {
    if let DripSource::Control {
        head_len,
        date_at,
        tail,
    } = c.source
    {
        copy_controlled(
            out,
            drip_head,
            c.copied,
            end,
            (head_len, date_at, tail),
            env,
        );
        return;
    }
    let r = env.responses;
    let route = c.route as usize;
    let whole = c.answer == Answer::Whole;
    let head_len = if whole {
        r.head_len(route, c.variant)
    } else {
        answer_head.len()
    };
    let (start, at) = (c.copied, out.len());
    if start < head_len {
        let date_at = if whole {
            r.copy_head(route, c.variant, start, end.min(head_len), out);
            r.date_offset(route)
        } else {
            out.extend_cold(&answer_head[start..end.min(head_len)]);
            // The answer's status line differs from the route's; the fields after it do not.
            // `HTTP/1.1 NNN Reason\r\n`
            let line = |status: u16| 15 + crate::response::reason(status).len();
            let status = c.answer.status().unwrap_or(200);
            r.date_offset(route)
                .map(|d| d - line(r.status(route)) + line(status))
        };
        if let Some(d) = date_at {
            let (lo, hi) = (d.max(start), (d + r.date().len()).min(end));
            if lo < hi {
                let date = match env.features.faults.as_deref_mut() {
                    Some(f) => f.date_at(c.from_us, env.now_us),
                    None => *r.date(),
                };
                out[at + lo - start..at + hi - start].copy_from_slice(&date[lo - d..hi - d]);
            }
        }
    }
    if end > head_len {
        let first = match c.answer {
            Answer::Partial { first, .. } => first as usize,
            _ => 0,
        };
        let body = &r.body(route)[first..];
        out.extend_cold(&body[start.max(head_len) - head_len..end - head_len]);
    }
}

/// [`copy_drip`] for an answer a request chose: bytes `start..end` of its head and short
/// body (`head`), then of its tail.
fn copy_controlled(
    out: &mut Vec<u8>,
    head: &mut [u8],
    start: usize,
    end: usize,
    (head_len, date_at, tail): (usize, Option<usize>, DripTail),
    env: &Env<'_>,
) {
    let r = env.responses;
    if start == 0 {
        if let Some(d) = date_at.filter(|&d| d + 29 <= head.len()) {
            head[d..d + 29].copy_from_slice(r.date());
        }
    }
    if start < head_len {
        out.extend_cold(&head[start..end.min(head_len).min(head.len())]);
    }
    if end <= head_len {
        return;
    }
    let (from, to) = (start.max(head_len) - head_len, end - head_len);
    match tail {
        DripTail::None => {}
        DripTail::Body { route } => out.extend_cold(&r.body(route as usize)[from..to]),
        DripTail::Stars { .. } => {
            let block = env.features.stars();
            let mut k = from;
            while k < to && !block.is_empty() {
                let n = (to - k).min(block.len());
                out.extend_cold(&block[..n]);
                k += n;
            }
        }
        DripTail::Filler { .. } => {
            // The bytes a `bytes=N` body has at these offsets: the block's first body chunk,
            // repeated (`WorkArea::refill_repeat`).
            let block = env.features.filler();
            let period = env.settings.conn_limits.body_chunk.max(1).min(block.len());
            let mut k = from;
            while k < to && period > 0 {
                let off = k % period;
                let n = (to - k).min(period - off);
                out.extend_cold(&block[off..off + n]);
                k += n;
            }
        }
    }
}
