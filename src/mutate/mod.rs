//! The malformed-response catalogue: responses that break one rule of HTTP/1.1 framing, syntax
//! or content coding each, for testing how a client copes (`--mutate`, `--mutate-id`).
//!
//! Every variant has a stable id, a one-line description and the RFC clause it breaks (or
//! stretches: a few are legal but rarely met, and named as such). The bytes are built once at
//! start-up ([`Catalogue::new`]) and sent verbatim; the connection closes after each one,
//! since the client cannot know where a broken response ends.

mod catalogue;
mod checksum;
mod encoding;
#[cfg(test)]
mod tests;

pub use catalogue::{ABOUT, About, COUNT, OK_HEAD};
use catalogue::{FIXED, IDS, SOURCES, Source};

/// The index of the variant `id`.
pub fn find(id: &str) -> Option<usize> {
    ids().position(|v| v == id)
}

/// Every variant's id, in `--mutate` order, one a line (`--mutate-list`).
pub fn id_lines() -> &'static str {
    IDS
}

/// Every variant's id, in `--mutate` order.
pub fn ids() -> impl Iterator<Item = &'static str> {
    let mut rest = IDS;
    std::iter::from_fn(move || {
        let (id, after) = rest.split_once('\n')?;
        rest = after;
        Some(id)
    })
}

/// The id of variant `i` (`""` past the end).
pub fn id(i: usize) -> &'static str {
    ids().nth(i).unwrap_or_default()
}

/// Every variant's bytes, built once.
#[derive(Debug)]
pub struct Catalogue {
    bytes: Vec<Box<[u8]>>,
}

impl Catalogue {
    /// Build every variant's bytes.
    pub fn new() -> Catalogue {
        let mut rest = FIXED.as_bytes();
        let mut next = |n: u16| {
            let (b, after) = rest.split_at(usize::from(n));
            rest = after;
            b
        };
        let bytes = SOURCES
            .iter()
            .map(|s| match *s {
                Source::Fixed(n) => Box::from(next(n)),
                Source::AfterOk(n) => [OK_HEAD, next(n)].concat().into_boxed_slice(),
                Source::Built(f) => f().into_boxed_slice(),
            })
            .collect();
        Catalogue { bytes }
    }

    /// The bytes of variant `i`.
    pub fn bytes(&self, i: usize) -> &[u8] {
        &self.bytes[i]
    }

    /// The number of variants.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are none (never).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl Default for Catalogue {
    fn default() -> Self {
        Catalogue::new()
    }
}
