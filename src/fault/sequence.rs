//! Sequences: a path that answers a fixed list of steps, one per request, counted over the
//! whole process (`seq:503,503,reset:0,ok`), then repeats its last step (`seq:`) or starts
//! again (`seq-cycle:`), at run time: the steps resolved to responses, and the position every
//! worker shares. The steps as parsed are in `spec`, their grammar in `parse`.

use crate::fault_value::Delivery;
use std::sync::atomic::{AtomicU64, Ordering};

/// What one step sends: the response of index `response` (the route's own, or one formatted
/// for the step), delivered so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Act {
    /// Index in `Responses`.
    pub response: u16,
    /// How it is delivered.
    pub delivery: Delivery,
    /// It is a status step (counted as an `error` fault).
    pub status: bool,
}

/// A sequence at run time: its steps resolved to responses, and the position every worker
/// takes its next step from (one atomic add per request on the path).
#[derive(Debug)]
pub struct Sequence {
    acts: Box<[Act]>,
    cycle: bool,
    position: AtomicU64,
}

impl Sequence {
    /// A sequence of `acts` (at least one), at its first step.
    pub fn new(acts: Vec<Act>, cycle: bool) -> Sequence {
        assert!(!acts.is_empty(), "a sequence has a step");
        Sequence {
            acts: acts.into(),
            cycle,
            position: AtomicU64::new(0),
        }
    }

    /// The next request's step. Relaxed: the count is all the steps share, and each request
    /// takes a position of its own.
    #[inline]
    pub fn next(&self) -> Act {
        let n = self.position.fetch_add(1, Ordering::Relaxed);
        let len = self.acts.len() as u64;
        let i = if self.cycle { n % len } else { n.min(len - 1) };
        self.acts[i as usize]
    }

    /// The responses its steps send (indices in `Responses`).
    pub fn responses(&self) -> impl Iterator<Item = u16> + '_ {
        self.acts.iter().map(|a| a.response)
    }

    /// Start again from the first step.
    pub fn reset(&self) {
        self.position.store(0, Ordering::Relaxed);
    }

    /// Requests that took a step so far.
    pub fn taken(&self) -> u64 {
        self.position.load(Ordering::Relaxed)
    }
}
