//! A fault value: what a fault does to an answer (the vocabulary) and the one grammar of its
//! text (`KIND[:ARGS][@SHARE]`), shared by `--fault`, the admin API and `--control`. Read
//! without allocating, so that a request's head can carry one: an error is a static text per
//! rule ([`Bad`]), which each caller puts after its own prefix (`--fault: `, `line 2: `,
//! `control: fault: `).
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the vocabulary: a latency, the deliveries (stall, truncate, reset, drip, garbage, hang, slow close, bandwidth) with their cut and pacing, and the kinds as counted |
//! | `grammar` | the grammar of one value (a latency, a delivery, an error answer; a status mix's and a sequence's text), and each written back in it |
//! | `rng`, `math` | the seeded generator a latency and a share draw from, and the functions its lognormal needs |

mod grammar;
pub(crate) mod math;
mod rng;

pub(crate) use grammar::whole;
pub use grammar::{Bad, KIND_NAMES, Value, drip, latency, parse, split_share};
pub use rng::{DEFAULT_SEED, Rng};

use crate::values::US_PER_MS;
use math::{exp, ln};

/// The longest delay a distribution may draw (ms), the longest duration of any fault: a
/// lognormal's tail is unbounded, and a delay past the idle timeout would only look like a
/// stall.
pub const MAX_DELAY_MS: u64 = crate::values::MAX_DURATION_MS;

/// A delay before the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// Always this long (ms).
    Fixed(u64),
    /// Uniform from `min` to `max` inclusive (ms).
    Uniform {
        /// Shortest (ms).
        min: u64,
        /// Longest (ms).
        max: u64,
    },
    /// Lognormal with this median and 99th percentile (ms): `mu = ln(median)`,
    /// `sigma = (ln(p99) - mu) / z99` with `z99` the standard normal's 99th percentile.
    LogNormal {
        /// The median (ms).
        median: u64,
        /// The 99th percentile (ms).
        p99: u64,
    },
}

/// The standard normal distribution's 99th percentile.
const Z99: f64 = 2.326_347_874_040_841;

impl Latency {
    /// A lognormal delay given its median and 99th percentile (ms; `p99 > median > 0`).
    pub fn lognormal(median: u64, p99: u64) -> Latency {
        Latency::LogNormal { median, p99 }
    }

    /// One delay (ms).
    pub fn sample_ms(&self, rng: &mut Rng) -> u64 {
        match *self {
            Latency::Fixed(ms) => ms,
            Latency::Uniform { min, max } => min + rng.below(max - min + 1),
            Latency::LogNormal { median, p99 } => {
                // Two logarithms per draw (tens of nanoseconds) keep the spec `Eq` and exact.
                let mu = ln(median as f64);
                let sigma = (ln(p99 as f64) - mu) / Z99;
                // Rounded to nearest (positive: add a half, then truncate); `as` saturates,
                // and the clamp keeps a freak draw from meaning "never".
                let ms = exp(mu + sigma * rng.normal()) + 0.5;
                (ms as u64).min(MAX_DELAY_MS)
            }
        }
    }
}

/// How much of a response to send before a close: a byte count or a share of its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The first N bytes (all of them when the response is shorter).
    Bytes(u64),
    /// The first N percent (0 to 100), rounded down.
    Percent(u8),
}

impl Cut {
    /// Bytes to send of a response `total` bytes long.
    pub fn keep(self, total: u64) -> u64 {
        match self {
            Cut::Bytes(n) => total.min(n),
            Cut::Percent(p) => total * u64::from(p) / 100,
        }
    }
}

/// How a dripped response is spread out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drip {
    /// `bytes` at once, then `bytes` more every `every_ms`.
    Rate {
        /// Bytes per piece.
        bytes: u32,
        /// Between pieces (ms).
        every_ms: u64,
    },
    /// The whole response in `pieces` pieces, the first at once and the last `over_ms` later.
    Pieces {
        /// Number of pieces (at least 2).
        pieces: u32,
        /// From the first piece to the last (ms).
        over_ms: u64,
    },
    /// The first `head` bytes with the first of `pieces` even pieces of the rest at once, the
    /// last `over_us` later: go-httpbin's `/drip`, which paces the body alone.
    Body {
        /// The head's length, in piece 0 whole.
        head: u32,
        /// Number of pieces of the rest (at least 2).
        pieces: u32,
        /// From the first piece to the last (µs).
        over_us: u64,
    },
    /// At most `per_s` bytes a second (`bandwidth:RATE`): pieces of [`Drip::bandwidth_piece`]
    /// bytes, each due once the rate has paid for the bytes up to its end, so that by `t`
    /// after the response may start at most `per_s * t` bytes are out, and the whole response
    /// takes its length over the rate.
    Bandwidth {
        /// Bytes a second (1 to 1 GiB/s).
        per_s: u64,
    },
}

/// The largest piece of a `bandwidth` drip.
pub const BANDWIDTH_PIECE_MAX: u64 = 64 * 1024;

impl Drip {
    /// Every piece at once: a response delivered whole through the drip's cursor (a
    /// `slow-close`, whose end the cursor sees).
    pub const AT_ONCE: Drip = Drip::Rate {
        bytes: u32::MAX,
        every_ms: 0,
    };

    /// The piece size of `bandwidth:RATE`: a tenth of a second's bytes (ten pieces a second),
    /// at least 1 byte, at most [`BANDWIDTH_PIECE_MAX`] (above 640 KiB/s, more than ten a
    /// second).
    pub fn bandwidth_piece(per_s: u64) -> u64 {
        (per_s / 10).clamp(1, BANDWIDTH_PIECE_MAX)
    }

    /// Whether piece 0 goes as soon as the response may (all but a bandwidth's).
    pub fn first_at_once(self) -> bool {
        !matches!(self, Drip::Bandwidth { .. })
    }

    /// Where piece `i` (from 0) of a response `total` bytes long ends: N pieces split the
    /// response evenly (a piece may be empty when it is shorter than N bytes).
    pub fn piece_end(self, i: u32, total: usize) -> usize {
        let i = i as usize + 1;
        match self {
            Drip::Rate { bytes, .. } => total.min(i.saturating_mul(bytes as usize)),
            Drip::Bandwidth { per_s } => {
                total.min(i.saturating_mul(Drip::bandwidth_piece(per_s) as usize))
            }
            Drip::Pieces { pieces, .. } => {
                (total as u128 * i as u128 / u128::from(pieces)).min(total as u128) as usize
            }
            Drip::Body { head, pieces, .. } => {
                let head = total.min(head as usize);
                let rest = (total - head) as u128 * i as u128 / u128::from(pieces);
                head + rest.min((total - head) as u128) as usize
            }
        }
    }

    /// When piece `i` of a response `total` bytes long is due, in µs after the response may
    /// start. N pieces over D are spread to the microsecond, rounded up: piece `i` is due
    /// `D * i / (N - 1)` after the first (which goes at once), never before. A bandwidth's
    /// piece is due when the rate has paid for every byte up to its end: `end / RATE`, rounded
    /// up to the microsecond.
    pub fn piece_at_us(self, i: u32, total: usize) -> u64 {
        match self {
            Drip::Bandwidth { per_s } => {
                let end = self.piece_end(i, total) as u128;
                let at = (end * 1_000_000).div_ceil(u128::from(per_s.max(1)));
                u64::try_from(at).unwrap_or(u64::MAX)
            }
            Drip::Rate { every_ms, .. } => {
                u64::from(i).saturating_mul(every_ms.saturating_mul(US_PER_MS))
            }
            Drip::Pieces { pieces, over_ms } => {
                let over_us = u128::from(over_ms) * u128::from(US_PER_MS);
                let at = (over_us * u128::from(i.min(pieces - 1))).div_ceil(u128::from(pieces - 1));
                u64::try_from(at).unwrap_or(u64::MAX)
            }
            Drip::Body {
                pieces, over_us, ..
            } => {
                let n = u128::from(pieces.max(2) - 1);
                let at = (u128::from(over_us) * u128::from(i).min(n)).div_ceil(n);
                u64::try_from(at).unwrap_or(u64::MAX)
            }
        }
    }
}

/// How the response (or what stands in for it) reaches the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Delivery {
    /// Whole, as fast as the client reads.
    #[default]
    Whole,
    /// In pieces, paced by the loop's timers.
    Drip(Drip),
    /// Never: the request is read and nothing is answered, on this connection, again.
    Stall,
    /// The first bytes, then a close with FIN.
    Truncate(Cut),
    /// The first bytes, then a reset (RST: SO_LINGER 0 and close).
    Reset(Cut),
    /// This many random bytes instead of the response, then a close with FIN.
    Garbage(u32),
    /// Nothing for `ms` after the request (input read and discarded), then a close: FIN, or
    /// RST with `reset`.
    Hang {
        /// How long nothing is sent (ms).
        ms: u64,
        /// Close with RST instead of FIN.
        reset: bool,
    },
    /// The whole response, then the FIN held back `ms` after its last byte is written (input
    /// read and discarded, nothing more answered).
    SlowClose(u64),
}

/// The kinds, in the order of the `--stats` counters ([`FaultKind::index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A latency delayed the response.
    Latency,
    /// The response was dripped.
    Drip,
    /// The request was never answered.
    Stall,
    /// The response was cut short with FIN.
    Truncate,
    /// The response was cut short with RST.
    Reset,
    /// Random bytes were sent instead.
    Garbage,
    /// Another status was sent.
    Error,
    /// Nothing was sent for a while, then the connection closed.
    Hang,
    /// The FIN was held back after the response.
    SlowClose,
    /// The response was paced at a bandwidth.
    Bandwidth,
    /// A status mix chose another status.
    Status,
}

impl FaultKind {
    /// Every kind, in counter order.
    pub const ALL: [FaultKind; 11] = [
        FaultKind::Latency,
        FaultKind::Drip,
        FaultKind::Stall,
        FaultKind::Truncate,
        FaultKind::Reset,
        FaultKind::Garbage,
        FaultKind::Error,
        FaultKind::Hang,
        FaultKind::SlowClose,
        FaultKind::Bandwidth,
        FaultKind::Status,
    ];

    /// The name in `--fault`, `--stats` and the access log.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Latency => "latency",
            FaultKind::Drip => "drip",
            FaultKind::Stall => "stall",
            FaultKind::Truncate => "truncate",
            FaultKind::Reset => "reset",
            FaultKind::Garbage => "garbage",
            FaultKind::Error => "error",
            FaultKind::Hang => "hang",
            FaultKind::SlowClose => "slow-close",
            FaultKind::Bandwidth => "bandwidth",
            FaultKind::Status => "status",
        }
    }

    /// The counter index.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl Delivery {
    /// Its kind, if it is a fault.
    pub fn kind(self) -> Option<FaultKind> {
        match self {
            Delivery::Whole => None,
            Delivery::Drip(Drip::Bandwidth { .. }) => Some(FaultKind::Bandwidth),
            Delivery::Drip(_) => Some(FaultKind::Drip),
            Delivery::Stall => Some(FaultKind::Stall),
            Delivery::Truncate(_) => Some(FaultKind::Truncate),
            Delivery::Reset(_) => Some(FaultKind::Reset),
            Delivery::Garbage(_) => Some(FaultKind::Garbage),
            Delivery::Hang { .. } => Some(FaultKind::Hang),
            Delivery::SlowClose(_) => Some(FaultKind::SlowClose),
        }
    }
}
