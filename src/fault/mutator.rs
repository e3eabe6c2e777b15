//! `--mutate` at run time: which catalogue variants a worker sends, and the next one.

use crate::mutate::Catalogue;
use std::sync::Arc;

/// Which malformed responses `--mutate` sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutate {
    /// Each request the next variant of the catalogue, in order (`--mutate`).
    Cycle,
    /// Always this variant, by its index in the catalogue (`crate::mutate`) (`--mutate-id`):
    /// an HTTP/1 id on HTTP/1 connections, an HTTP/2 id on HTTP/2 connections; the other
    /// protocol's connections get their plain response.
    One(u16),
}

/// The `--mutate` state of one worker: the catalogue and the variant it sends next.
#[derive(Debug)]
pub struct Mutator {
    catalogue: Arc<Catalogue>,
    /// The variant sent next.
    next: usize,
    /// The HTTP/2 variant sent next (an index among the HTTP/2 ids).
    next_h2: usize,
    /// `--mutate-id`: always this one.
    one: Option<usize>,
}

impl Mutator {
    /// A worker's `--mutate` state, from the start of the catalogue (shared by the workers).
    pub fn new(choice: Mutate, catalogue: Arc<Catalogue>) -> Mutator {
        Mutator {
            catalogue,
            next: 0,
            next_h2: 0,
            one: match choice {
                Mutate::Cycle => None,
                Mutate::One(i) => Some(usize::from(i)),
            },
        }
    }

    /// The variant this HTTP/1 response gets (`None` under `--mutate-id` of an HTTP/2 id);
    /// the cycle moves on either way.
    pub(super) fn next_variant(&mut self) -> Option<usize> {
        let i = self.one.unwrap_or(self.next);
        self.next = (self.next + 1) % self.catalogue.len();
        (i < self.catalogue.len()).then_some(i)
    }

    /// The HTTP/2 variant this stream gets, an index among the HTTP/2 ids (`None` under
    /// `--mutate-id` of an HTTP/1 id); the cycle moves on either way.
    pub(super) fn next_h2(&mut self) -> Option<usize> {
        let i = match self.one {
            Some(i) => crate::mutate::h2_index(i)?,
            None => self.next_h2,
        };
        self.next_h2 = (self.next_h2 + 1) % self.catalogue.h2().len();
        Some(i)
    }

    /// The HTTP/2 variants.
    pub(super) fn h2(&self) -> &crate::mutate::H2Catalogue {
        self.catalogue.h2()
    }

    /// The bytes of catalogue variant `i`.
    pub(super) fn bytes(&self, i: usize) -> &[u8] {
        self.catalogue.bytes(i)
    }
}
