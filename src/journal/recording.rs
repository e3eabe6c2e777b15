//! A connection's part of the journal ([`Recording`]): HTTP/1's work area holds one with the
//! `journal` feature, and none without.

use super::{Journal, Reading, Record};
use std::net::SocketAddr;

/// The entry of the request a connection is answering, its head kept from the moment the
/// parser completes it until it is recorded with its status; and the journal being sent to a
/// request for it.
#[derive(Debug, Default)]
pub struct Recording {
    /// The head kept; its capacity stays for the next one, up to [`HEAD_KEEP`].
    head: Vec<u8>,
    entry: Entry,
    /// The journal being sent, when a request asked for it.
    pub sending: Sending,
}

/// The entry of the request being answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Entry {
    /// Nothing to record: no request, one the journal does not record (its own path, the
    /// health path), or one recorded already.
    #[default]
    None,
    /// Recorded once its status is known, with the head kept and its body's length.
    Due { body_len: u64 },
}

/// The journal being sent: where its reading is, and how its pieces go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sending {
    /// Where the reading is ([`Journal::read_more`]).
    pub reading: Reading,
    /// Each piece is a chunk (HTTP/1.1's chunked coding).
    pub chunked: bool,
    /// The loop turn (its clock, µs) the last piece was appended in: one a turn.
    pub turn_us: u64,
}

/// The capacity kept for the next head (the default head limit): a pool of connections' parts
/// keeps at most this much each beyond what it counts.
pub const HEAD_KEEP: usize = 8 * 1024;

impl Recording {
    /// Whether the request being answered is recorded once its status is known.
    #[inline(always)]
    pub fn is_due(&self) -> bool {
        self.entry != Entry::None
    }

    /// Keep `head`, the head of the request being answered, with its body's length as far as
    /// known (`body_len`, 0 for a chunked one until [`Recording::set_body_len`]).
    pub fn keep(&mut self, head: &[u8], body_len: u64) {
        self.head.clear();
        self.head.extend_from_slice(head);
        self.entry = Entry::Due { body_len };
    }

    /// The request being answered is not recorded.
    pub fn skip(&mut self) {
        self.head.clear();
        self.entry = Entry::None;
    }

    /// A response with no request head behind it (an error, a timeout): recorded, with
    /// unknown fields, when the journal is on (`on`).
    pub fn expect_unparsed(&mut self, on: bool) {
        self.head.clear();
        self.entry = match on {
            true => Entry::Due { body_len: 0 },
            false => Entry::None,
        };
    }

    /// The chunked body of the request being answered had `n` bytes of data.
    pub fn set_body_len(&mut self, n: u64) {
        if let Entry::Due { body_len } = &mut self.entry {
            *body_len = n;
        }
    }

    /// Record the request being answered in `journal`, from `peer`, answered with `status` (0:
    /// none sent). Returns its number there, or `None` when it is not recorded.
    pub fn record(
        &mut self,
        journal: &Journal,
        peer: Option<SocketAddr>,
        status: u16,
    ) -> Option<u64> {
        let Entry::Due { body_len } = std::mem::take(&mut self.entry) else {
            return None;
        };
        let seq = journal.record(&Record {
            head: &self.head,
            peer,
            body_len,
            status,
        });
        self.clear_head();
        Some(seq)
    }

    /// Forget a request kept and never answered (its client left mid-body): the next
    /// connection lent the same part must not record it.
    #[inline(always)]
    pub fn forget(&mut self) {
        if self.is_due() {
            self.entry = Entry::None;
            self.clear_head();
        }
    }

    /// Give back the head's buffer.
    pub fn shed(&mut self) {
        self.head = Vec::new();
    }

    fn clear_head(&mut self) {
        self.head.clear();
        if self.head.capacity() > HEAD_KEEP {
            // A pool keeps these parts without counting this buffer: keep it small.
            self.head = Vec::new();
        }
    }
}
