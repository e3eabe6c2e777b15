//! The blocks `--control`'s bodies are cut from, repeated: made once at start-up, shared by
//! every worker.

use std::sync::Arc;

/// `--control`'s blocks, 64 KiB each, repeated to make a body.
#[derive(Clone, Debug)]
pub struct Blocks {
    /// What a `bytes=N` body is cut from: printable lines.
    pub filler: Arc<[u8]>,
    /// What a `fault=garbage:N` answer is cut from: bytes of the seeded generator.
    pub garbage: Arc<[u8]>,
    /// What a `/drip` body is cut from: `*`s.
    pub stars: Arc<[u8]>,
}

/// The bytes of each block.
const BLOCK: usize = 64 * 1024;

impl Blocks {
    /// The blocks of a server whose `--seed` is `seed` (the garbage is drawn from a stream of
    /// its own).
    pub fn new(seed: u64) -> Blocks {
        const LINE: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\r\n";
        let mut rng = crate::fault_value::Rng::new(seed, u64::MAX);
        Blocks {
            filler: LINE.iter().copied().cycle().take(BLOCK).collect(),
            garbage: rng.bytes(BLOCK).into(),
            stars: std::iter::repeat_n(b'*', BLOCK).collect(),
        }
    }
}
