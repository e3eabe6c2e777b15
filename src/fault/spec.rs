//! The faults a route can be given, as parsed: a latency, a way of delivering the response, an
//! error rate; and what one response gets of them ([`Plan`]), drawn at respond time.

use super::math::{exp, ln};
use super::rng::Rng;
use crate::values::US_PER_MS;

/// The longest delay a distribution may draw (ms): a lognormal's tail is unbounded, and a
/// delay past the idle timeout would only look like a stall.
pub const MAX_DELAY_MS: u64 = 3_600_000;

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
    pub fn keep(self, total: usize) -> usize {
        match self {
            Cut::Bytes(n) => total.min(usize::try_from(n).unwrap_or(usize::MAX)),
            Cut::Percent(p) => total * usize::from(p) / 100,
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
}

impl Drip {
    /// Where piece `i` (from 0) of a response `total` bytes long ends: N pieces split the
    /// response evenly (a piece may be empty when it is shorter than N bytes).
    pub fn piece_end(self, i: u32, total: usize) -> usize {
        let i = i as usize + 1;
        match self {
            Drip::Rate { bytes, .. } => total.min(i.saturating_mul(bytes as usize)),
            Drip::Pieces { pieces, .. } => {
                (total as u128 * i as u128 / u128::from(pieces)).min(total as u128) as usize
            }
        }
    }

    /// When piece `i` is due, in µs after the first (which goes at once). N pieces over D are
    /// spread to the microsecond, rounded up: piece `i` is due `D * i / (N - 1)` after the
    /// first, never before.
    pub fn piece_at_us(self, i: u32) -> u64 {
        match self {
            Drip::Rate { every_ms, .. } => {
                u64::from(i).saturating_mul(every_ms.saturating_mul(US_PER_MS))
            }
            Drip::Pieces { pieces, over_ms } => {
                let over_us = u128::from(over_ms) * u128::from(US_PER_MS);
                let at = (over_us * u128::from(i.min(pieces - 1))).div_ceil(u128::from(pieces - 1));
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
}

/// A share of a route's requests answered with another status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorRate {
    /// The share, in millionths.
    pub per_million: u32,
    /// The status they get (200-599).
    pub status: u16,
    /// Their body; `None`: the status and its reason phrase.
    pub body: Option<String>,
}

/// A share of every response (millionths): the fault applies to this many in a million.
pub const ALWAYS: u32 = crate::values::EVERY;

/// Every fault of one route. [`RouteFaults::default`] is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteFaults {
    /// A delay before the response.
    pub latency: Option<Latency>,
    /// The share of responses the latency applies to (millionths; [`ALWAYS`] draws nothing).
    pub latency_share: u32,
    /// How the response is delivered.
    pub delivery: Delivery,
    /// The share of responses delivered so (millionths; [`ALWAYS`] draws nothing).
    pub delivery_share: u32,
    /// A share answered with another status.
    pub error: Option<ErrorRate>,
}

impl Default for RouteFaults {
    fn default() -> Self {
        RouteFaults {
            latency: None,
            latency_share: ALWAYS,
            delivery: Delivery::Whole,
            delivery_share: ALWAYS,
            error: None,
        }
    }
}

/// Whether a fault with share `share` applies to this response: a draw only when the share
/// is less than every response, so that faults without one draw nothing.
fn applies(share: u32, rng: &mut Rng) -> bool {
    share >= ALWAYS || rng.below(u64::from(ALWAYS)) < u64::from(share)
}

/// One `--fault` value's fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `latency:...`
    Latency(Latency),
    /// `drip`, `stall`, `truncate`, `reset` or `garbage`.
    Delivery(Delivery),
    /// `error:...`
    Error(ErrorRate),
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
}

impl FaultKind {
    /// Every kind, in counter order.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::Latency,
        FaultKind::Drip,
        FaultKind::Stall,
        FaultKind::Truncate,
        FaultKind::Reset,
        FaultKind::Garbage,
        FaultKind::Error,
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
            Delivery::Drip(_) => Some(FaultKind::Drip),
            Delivery::Stall => Some(FaultKind::Stall),
            Delivery::Truncate(_) => Some(FaultKind::Truncate),
            Delivery::Reset(_) => Some(FaultKind::Reset),
            Delivery::Garbage(_) => Some(FaultKind::Garbage),
        }
    }
}

/// What one response gets, decided at respond time from its route's faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Plan {
    /// Hold the response this long first (µs, the unit of the worker's clock; 0: no
    /// latency).
    pub delay_us: u64,
    /// Answer with the route's error response instead.
    pub error: bool,
    /// How to deliver it.
    pub delivery: Delivery,
}

impl RouteFaults {
    /// Whether the route has any fault.
    pub fn is_none(&self) -> bool {
        self.latency.is_none() && self.delivery == Delivery::Whole && self.error.is_none()
    }

    /// Draw this response's plan. Draws are made in a fixed order so that a seed reproduces
    /// a run: the error rate, the latency's share (only when it has one), the latency, the
    /// delivery's share (only when it has one).
    pub fn plan(&self, rng: &mut Rng) -> Plan {
        let error = self
            .error
            .as_ref()
            .is_some_and(|e| rng.below(u64::from(ALWAYS)) < u64::from(e.per_million));
        let delay_us = match self.latency {
            Some(l) if applies(self.latency_share, rng) => {
                l.sample_ms(rng).saturating_mul(US_PER_MS)
            }
            _ => 0,
        };
        let delivery = match self.delivery {
            Delivery::Whole => Delivery::Whole,
            d if applies(self.delivery_share, rng) => d,
            _ => Delivery::Whole,
        };
        Plan {
            delay_us,
            error,
            delivery,
        }
    }

    /// Add one `--fault`'s fault, applied to every response; a second of the same group is
    /// an error.
    pub fn add(&mut self, f: Fault) -> Result<(), String> {
        self.add_share(f, ALWAYS)
    }

    /// Add one `--fault`'s fault, applied to a share of the responses (millionths): an error
    /// rate's share is multiplied by it.
    pub fn add_share(&mut self, f: Fault, share: u32) -> Result<(), String> {
        match f {
            Fault::Latency(l) if self.latency.is_none() => {
                self.latency = Some(l);
                self.latency_share = share;
            }
            Fault::Delivery(d) if self.delivery == Delivery::Whole => {
                self.delivery = d;
                self.delivery_share = share;
            }
            Fault::Error(mut e) if self.error.is_none() => {
                e.per_million =
                    (u64::from(e.per_million) * u64::from(share) / u64::from(ALWAYS)) as u32;
                self.error = Some(e);
            }
            Fault::Latency(_) => return Err("a second latency for the same path".into()),
            Fault::Delivery(_) => {
                return Err(
                    "a second drip, stall, truncate, reset or garbage for the same path".into(),
                );
            }
            Fault::Error(_) => return Err("a second error rate for the same path".into()),
        }
        Ok(())
    }
}
