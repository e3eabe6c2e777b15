//! What an HTTP/2 connection keeps for `--echo`, `--journal` and `--control` (`echo`,
//! `control`): a slot per stream whose request is kept or whose answer is made for it, its
//! buffer reused by the next one, and the bound on them all.

#[cfg(feature = "control")]
use crate::control::{Control, Location, Refusal};
#[cfg(feature = "journal")]
use crate::journal::Reading;

/// Where the rest of a slot's answer comes from once its buffer is sent.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum Refill {
    #[default]
    None,
    /// The journal, read a piece at a time.
    #[cfg(feature = "journal")]
    Journal(Reading),
    /// `left` bytes of the filler block (`stars`: go-httpbin's `*`s), repeated (`control`).
    #[cfg(feature = "control")]
    Repeat { left: u64, stars: bool },
    /// The route's body from `at` (`control`).
    #[cfg(feature = "control")]
    Route { route: u16, at: usize },
}

/// The head of an answer a request chose (`--control`).
#[cfg(feature = "control")]
#[derive(Clone, Copy, Debug)]
pub(super) struct Controlled {
    pub(super) status: u16,
    /// go-httpbin's redirects.
    pub(super) location: Option<Location>,
    /// 204 and 304: no `Content-Length`, no body.
    pub(super) no_body: bool,
}

/// The most bytes one HTTP/2 connection keeps for its streams' echoes and journal entries:
/// their requests, heads and bodies, and their answers once rendered.
pub const ECHO_CONN_BYTES: usize = 4 << 20;

/// The capacity a free slot keeps for the next request.
pub(super) const SLOT_KEEP: usize = 16 * 1024;

/// What the connection keeps for its streams (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct Kept {
    pub(super) slots: Vec<Slot>,
    /// Slots in use.
    pub(super) busy: usize,
    /// A buffer an answer is rendered into, then swapped with its request's.
    pub(super) spare: Vec<u8>,
    /// Streams answered plainly whose request the journal recorded when it came, and its
    /// number there, for the status once it is decided: no head is kept for them.
    #[cfg(feature = "journal")]
    pub(super) recorded: Vec<(u32, u64)>,
}

#[derive(Debug, Default)]
pub(super) struct Slot {
    /// Its stream (0: free).
    pub(super) stream: u32,
    /// The request as received (head, body, trailers); once answered, the answer's body.
    pub(super) buf: Vec<u8>,
    pub(super) head_len: usize,
    pub(super) body_end: usize,
    /// It is answered with its echo (or the journal): its body and trailers are kept.
    pub(super) echoes: bool,
    /// It is recorded in the journal once answered.
    #[cfg(feature = "journal")]
    pub(super) journaled: bool,
    /// `buf` holds the answer.
    pub(super) answered: bool,
    /// The answer's length when known (an echo; the journal's is not).
    pub(super) length: Option<usize>,
    /// Where the rest of the answer comes from.
    pub(super) refill: Refill,
    /// Bytes of the answer's body sent.
    pub(super) sent: usize,
    /// The control the request named (`Err`: the one line saying what is wrong with it).
    #[cfg(feature = "control")]
    pub(super) asked: Option<Result<Control, Refusal>>,
    /// The head of the answer it chose.
    #[cfg(feature = "control")]
    pub(super) control: Option<Controlled>,
    /// Its HEADERS wait until the clock is past this (µs; 0: not held): `--delay`, and a
    /// control's delay and latency.
    pub(super) hold_until_us: u64,
}

impl Kept {
    /// The earliest time a held answer is due (µs; `u64::MAX`: none held).
    #[inline]
    pub(super) fn due(&self) -> u64 {
        if self.busy == 0 {
            return u64::MAX;
        }
        self.held_due()
    }

    #[cold]
    #[inline(never)]
    fn held_due(&self) -> u64 {
        (self.slots.iter())
            .filter(|k| k.stream != 0 && k.hold_until_us != 0)
            .map(|k| k.hold_until_us)
            .min()
            .unwrap_or(u64::MAX)
    }

    pub(super) fn find(&self, stream: u32) -> Option<usize> {
        self.slots.iter().position(|k| k.stream == stream)
    }

    /// Bytes held: the capacity of every buffer, in use or kept for the next request.
    pub(super) fn held(&self) -> usize {
        self.spare.capacity() + self.slots.iter().map(|k| k.buf.capacity()).sum::<usize>()
    }

    /// Whether `more` bytes appended to slot `at` (a new one: `None`) keep what the
    /// connection holds within [`ECHO_CONN_BYTES`], counting the buffer's growth.
    pub(super) fn room(&self, at: Option<usize>, more: usize) -> bool {
        let (len, cap) = at.map_or((0, 0), |at| {
            let b = &self.slots[at].buf;
            (b.len(), b.capacity())
        });
        let grown = match len + more {
            n if n <= cap => cap,
            n => n.max(2 * cap),
        };
        self.held() - cap + grown <= ECHO_CONN_BYTES
    }

    /// The buffers' capacity (what the tests measure).
    pub(super) fn capacity(&self) -> usize {
        self.spare.capacity()
            + (self.slots.iter())
                .map(|k| k.buf.capacity() + std::mem::size_of::<Slot>())
                .sum::<usize>()
    }

    pub(super) fn take_slot(&mut self, stream: u32) -> usize {
        let kept = self;
        kept.busy += 1;
        let at = match kept.find(0) {
            Some(at) => at,
            None => {
                kept.slots.push(Slot::default());
                kept.slots.len() - 1
            }
        };
        let k = &mut kept.slots[at];
        k.stream = stream;
        k.buf.clear();
        k.answered = false;
        k.length = None;
        k.refill = Refill::None;
        k.sent = 0;
        #[cfg(feature = "control")]
        {
            k.asked = None;
            k.control = None;
        }
        k.hold_until_us = 0;
        at
    }

    pub(super) fn free(&mut self, at: usize) {
        let k = &mut self.slots[at];
        k.stream = 0;
        k.buf.clear();
        if k.buf.capacity() > SLOT_KEEP {
            k.buf = Vec::new();
        }
        k.refill = Refill::None;
        #[cfg(feature = "control")]
        {
            k.asked = None;
            k.control = None;
        }
        k.hold_until_us = 0;
        self.busy -= 1;
    }
}

impl Slot {
    /// It is answered from its slot (its echo, or the answer its control chose): kept until
    /// that answer is sent.
    #[cfg(feature = "journal")]
    pub(super) fn answers(&self) -> bool {
        #[cfg(feature = "control")]
        return self.echoes || self.asked.is_some();
        #[cfg(not(feature = "control"))]
        self.echoes
    }

    /// Its answer has no body (a control's 204 or 304).
    pub(super) fn no_body(&self) -> bool {
        #[cfg(feature = "control")]
        return self.control.is_some_and(|c| c.no_body);
        #[cfg(not(feature = "control"))]
        false
    }
}
