//! What the faults of HTTP/2 streams keep (`faults` applies them): how each shaped stream's
//! answer is sent ([`Shaped`]) and the connection's own part ([`ConnFaults`]: a close due, the
//! earliest deadline of a held stream).

use crate::fault::{Cut, Drip};

/// How a shaped stream's answer is sent.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shaped {
    /// Before its HEADERS: hold them until the clock is past this (µs; 0: not held). After:
    /// when its drip started.
    pub(super) at_us: u64,
    pub(super) how: How,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum How {
    Whole,
    /// Its body in the drip's pieces; `released` of them may be sent.
    Drip {
        drip: Drip,
        released: u32,
    },
    /// Never answered.
    Stall,
    /// The body cut at `cut`, then RST_STREAM (or, with `reset`, the connection reset).
    Cut {
        cut: Cut,
        reset: bool,
    },
    /// `n` of the asked route's garbage bytes instead, then a close.
    Garbage {
        n: u32,
        route: u16,
    },
    /// Whole, then the connection closed `ms` after its last byte is written.
    SlowClose(u64),
    /// HTTP/2's `--mutate` variant `j` instead (held by `--delay`).
    Variant(u16),
}

/// The connection's side of its streams' faults.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ConnFaults {
    /// Close the connection once the clock is past this (µs; 0: not), with a reset when
    /// `reset`.
    pub(super) close_at_us: u64,
    pub(super) close_reset: bool,
    /// Reset (RST) instead of FIN when the connection closes.
    pub(super) reset: bool,
    /// A slow close waits for the output to be written, then closes this long after (µs).
    pub(super) close_after_us: Option<u64>,
    /// The earliest deadline of a held stream (µs; `u64::MAX`: none).
    pub(super) next_due_us: u64,
    /// Streams sent by this file.
    pub(super) shaped: u32,
}

impl ConnFaults {
    /// The connection's earliest fault deadline (`u64::MAX`: none).
    pub(super) fn wake_at(&self) -> u64 {
        let close = if self.close_at_us == 0 {
            u64::MAX
        } else {
            self.close_at_us
        };
        if self.shaped == 0 {
            close
        } else {
            close.min(self.next_due_us)
        }
    }

    /// Something is held by time: the connection is not idle while it lasts.
    pub(super) fn holds(&self) -> bool {
        self.close_at_us != 0
            || self.close_after_us.is_some()
            || (self.shaped > 0 && self.next_due_us != u64::MAX)
    }
}
