//! A connection's part of `--control` ([`Chosen`]): HTTP/1's work area holds one with the
//! `control` feature, and none without.

use super::{Control, Refusal};

/// The control of the request being answered, from its head until its answer is decided,
/// and a dripped controlled answer's head while it is sent.
#[derive(Debug, Default)]
pub struct Chosen {
    /// What the pending request asked for (or what is wrong with it), until it is answered.
    pub asked: Option<Result<Control, Refusal>>,
    /// `fault=drip`: the dripped answer's head (and a short body: an error's), formatted when
    /// it was decided, copied a piece at a time.
    pub drip_head: Vec<u8>,
}

/// The capacity kept for the next controlled drip's head: not counted in a pool's capacity
/// sum, so kept small.
pub const DRIP_HEAD_KEEP: usize = 8 * 1024;

impl Chosen {
    /// The pending request's control is dropped unanswered (an error answers instead).
    pub fn forget(&mut self) {
        self.asked = None;
    }

    /// A dripped answer is out: its head's buffer is kept for the next, up to
    /// [`DRIP_HEAD_KEEP`].
    pub fn drip_done(&mut self) {
        if self.drip_head.capacity() > DRIP_HEAD_KEEP {
            self.drip_head = Vec::new();
        }
    }

    /// Give the buffer back (a pool sheds a work area's memory).
    pub fn shed(&mut self) {
        self.drip_head = Vec::new();
    }
}
