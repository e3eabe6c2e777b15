//! The seeded generator every random fault draws from: one stream per worker, so that a run
//! with one worker is reproduced exactly from its `--seed`.

use super::math::{cos_turns, ln};

/// A small, fast, seeded generator: splitmix64 (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014). Every output is a bijective mix of a counter, so
/// any seed, 0 included, gives a full-period stream; the worker's index picks the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

/// The seed when `--seed` is not given: fixed, so that two runs of the same command line
/// draw the same delays and errors.
pub const DEFAULT_SEED: u64 = 0;

impl Rng {
    /// The generator of stream `stream` (a worker's index) for `seed`.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng {
            state: seed ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03),
        };
        // Decorrelate nearby seeds and streams.
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` bytes, the low byte of one draw each. Out of line: start-up and `--admin` code,
    /// whose inlined copies of the collecting loop took 6 KB.
    #[inline(never)]
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.next_u64() as u8);
        }
        v
    }

    /// Uniform in `[0, n)` (Lemire's multiply-shift; the bias is below 2^-32 for any `n`
    /// canned uses).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `(0, 1)`: 53 random bits, never 0 (a logarithm follows).
    fn open_unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal sample (Box–Muller).
    pub(super) fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.open_unit(), self.open_unit());
        (-2.0 * ln(u1)).sqrt() * cos_turns(u2)
    }
}
