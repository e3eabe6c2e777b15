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
mod h2;
#[cfg(test)]
mod tests;

pub use catalogue::{ABOUT, About, COUNT, OK_HEAD};
use catalogue::{FIXED, IDS, SOURCES, Source};
pub use h2::{ABOUT as H2_ABOUT, COUNT as H2_COUNT, H2Catalogue, Variant as H2Variant};

/// The number of ids of both catalogues: HTTP/1's ([`COUNT`]), then HTTP/2's (`h2-`), indexed
/// in that order by [`find`] and [`id`].
pub const TOTAL: usize = COUNT + H2_COUNT;

/// The index of the variant `id`.
pub fn find(id: &str) -> Option<usize> {
    ids().position(|v| v == id)
}

/// Every variant's id, in `--mutate` order, one a line (`--mutate-list`): HTTP/1's, then
/// HTTP/2's.
pub fn id_lines() -> [&'static str; 2] {
    [IDS, h2::IDS]
}

/// Every variant's id, in `--mutate` order: HTTP/1's, then HTTP/2's.
pub fn ids() -> impl Iterator<Item = &'static str> {
    lines(IDS).chain(lines(h2::IDS))
}

/// The index among the HTTP/2 ids of id index `i`, if it is one.
pub fn h2_index(i: usize) -> Option<usize> {
    i.checked_sub(COUNT).filter(|&j| j < H2_COUNT)
}

fn lines(mut rest: &'static str) -> impl Iterator<Item = &'static str> {
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

/// Every variant's bytes, built once: HTTP/1's, and HTTP/2's.
#[derive(Debug)]
pub struct Catalogue {
    bytes: Vec<Box<[u8]>>,
    h2: H2Catalogue,
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
        Catalogue {
            bytes,
            h2: H2Catalogue::new(),
        }
    }

    /// The HTTP/2 variants.
    pub fn h2(&self) -> &H2Catalogue {
        &self.h2
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
