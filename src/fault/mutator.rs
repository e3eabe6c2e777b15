//! `--mutate` at run time: which catalogue variants a worker sends, and the next one.

use crate::mutate::Catalogue;
use std::sync::Arc;

/// Which malformed responses `--mutate` sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutate {
    /// Each request the next variant of the catalogue, in order (`--mutate`).
    Cycle,
    /// Always this variant, by its index in the catalogue (`crate::mutate`) (`--mutate-id`).
    One(u16),
}

/// The `--mutate` state of one worker: the catalogue and the variant it sends next.
#[derive(Debug)]
pub struct Mutator {
    catalogue: Arc<Catalogue>,
    /// The variant sent next.
    next: usize,
    /// `--mutate-id`: always this one.
    one: Option<usize>,
}

impl Mutator {
    /// A worker's `--mutate` state, from the start of the catalogue (shared by the workers).
    pub fn new(choice: Mutate, catalogue: Arc<Catalogue>) -> Mutator {
        Mutator {
            catalogue,
            next: 0,
            one: match choice {
                Mutate::Cycle => None,
                Mutate::One(i) => Some(usize::from(i)),
            },
        }
    }

    /// The variant this response gets; the cycle moves on either way.
    pub(super) fn next_variant(&mut self) -> usize {
        let i = self.one.unwrap_or(self.next);
        self.next = (self.next + 1) % self.catalogue.len();
        i
    }

    /// The bytes of catalogue variant `i`.
    pub(super) fn bytes(&self, i: usize) -> &[u8] {
        self.catalogue.bytes(i)
    }
}
