//! What an HTTP/2 connection keeps for `--echo` and `--journal` (`echo`): a slot per stream
//! whose request is kept, its buffer reused by the next one, and the bound on them all.

use crate::journal::Reading;

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
    pub(super) journaled: bool,
    /// `buf` holds the answer.
    pub(super) answered: bool,
    /// The answer's length when known (an echo; the journal's is not).
    pub(super) length: Option<usize>,
    /// The journal being read to it.
    pub(super) reading: Option<Reading>,
}

impl Kept {
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
        k.reading = None;
        at
    }

    pub(super) fn free(&mut self, at: usize) {
        let k = &mut self.slots[at];
        k.stream = 0;
        k.buf.clear();
        if k.buf.capacity() > SLOT_KEEP {
            k.buf = Vec::new();
        }
        k.reading = None;
        self.busy -= 1;
    }
}
