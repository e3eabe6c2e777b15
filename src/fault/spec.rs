//! The faults a route can be given, as parsed: a latency, a way of delivering the response, an
//! error rate; and what one response gets of them ([`Plan`]), drawn at respond time.

use super::math::{exp, ln};
use super::rng::Rng;
use crate::values::US_PER_MS;

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

/// A weighted mix of statuses (`status:200=70%,500=30%`): each status with its share of the
/// route's responses (millionths, summing to at most [`ALWAYS`]); the rest are the route's own
/// response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusMix {
    /// `(status, share)` in the order given: the draw walks their shares in this order.
    pub entries: Vec<(u16, u32)>,
}

/// The most statuses a mix holds.
pub const MIX_MAX: usize = 16;

/// The most steps a sequence takes.
pub const MAX_STEPS: usize = 1000;

/// One step of a sequence, as parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `ok` or `200`: the route's own answer.
    Own,
    /// `503`: this status, with the route's content type and headers and the body
    /// `STATUS REASON` (as an `error:STATUS` fault sends).
    Status(u16),
    /// `reset:0`, `truncate:50%`, `drip:1KiB/100ms`, `stall`, `garbage:64`, `hang:1s`,
    /// `slow-close:1s`, `bandwidth:1KiB/s`: the route's own answer, delivered so.
    Delivery(Delivery),
}

/// A sequence as parsed: its steps, and what comes after the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceSpec {
    /// At least one.
    pub steps: Vec<Step>,
    /// `seq-cycle:`: after the last step, the first again; `seq:`: the last step for ever.
    pub cycle: bool,
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
    /// Shares answered with other statuses (in the error rate's group: one or the other).
    pub mix: Option<StatusMix>,
    /// `seq:`: the answers of the route's requests in turn, over the whole process (with
    /// neither `delivery` nor `error` nor `mix`, which its steps stand for).
    pub sequence: Option<SequenceSpec>,
}

impl Default for RouteFaults {
    fn default() -> Self {
        RouteFaults {
            latency: None,
            latency_share: ALWAYS,
            delivery: Delivery::Whole,
            delivery_share: ALWAYS,
            error: None,
            mix: None,
            sequence: None,
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
    /// `drip`, `stall`, `truncate`, `reset`, `garbage`, `hang`, `slow-close` or `bandwidth`.
    Delivery(Delivery),
    /// `error:...`
    Error(ErrorRate),
    /// `status:...`
    Status(StatusMix),
    /// `seq:...`, `seq-cycle:...`
    Sequence(SequenceSpec),
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

/// What one response gets, decided at respond time from its route's faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Plan {
    /// Hold the response this long first (µs, the unit of the worker's clock; 0: no
    /// latency).
    pub delay_us: u64,
    /// Answer with the route's error response instead.
    pub error: bool,
    /// Answer with the status mix's entry `mix - 1` instead (0: not).
    pub mix: u8,
    /// How to deliver it.
    pub delivery: Delivery,
}

impl RouteFaults {
    /// Whether the route has any fault.
    pub fn is_none(&self) -> bool {
        self.latency.is_none()
            && self.delivery == Delivery::Whole
            && self.error.is_none()
            && self.mix.is_none()
            && self.sequence.is_none()
    }

    /// Draw this response's plan. Draws are made in a fixed order so that a seed reproduces
    /// a run: the error rate or the status mix (one draw), the latency's share (only when it
    /// has one), the latency, the delivery's share (only when it has one).
    pub fn plan(&self, rng: &mut Rng) -> Plan {
        let error = self
            .error
            .as_ref()
            .is_some_and(|e| rng.below(u64::from(ALWAYS)) < u64::from(e.per_million));
        let mix = self.mix.as_ref().map_or(0, |m| m.draw(rng));
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
            mix,
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
    /// The error names the fault given before that this one clashes with, for the caller to
    /// put after the new fault's text: `reset:0 clashes with stall: ...`.
    pub fn add_share(&mut self, f: Fault, share: u32) -> Result<(), String> {
        let clash = |given: Option<String>, rule: &str| {
            Err(format!(
                "clashes with {}: {rule}",
                given.unwrap_or_default()
            ))
        };
        let in_sequence = "a path with a sequence takes its drips, stalls, truncates, resets, \
                           garbage, hangs, slow-closes, bandwidths and statuses as steps of the \
                           sequence";
        match &f {
            Fault::Sequence(_) if share != ALWAYS => {
                return Err("takes no share: a sequence's steps say what each request gets".into());
            }
            Fault::Sequence(_) if self.delivery != Delivery::Whole => {
                return clash(self.delivery_spec(), in_sequence);
            }
            Fault::Sequence(_) if self.error.is_some() || self.mix.is_some() => {
                return clash(self.error_spec(), in_sequence);
            }
            Fault::Delivery(_) | Fault::Error(_) | Fault::Status(_) if self.sequence.is_some() => {
                return clash(self.sequence_spec(), in_sequence);
            }
            _ => {}
        }
        match f {
            Fault::Sequence(s) if self.sequence.is_none() => self.sequence = Some(s),
            Fault::Sequence(_) => {
                return clash(self.sequence_spec(), "a path takes one sequence");
            }
            Fault::Latency(l) if self.latency.is_none() => {
                self.latency = Some(l);
                self.latency_share = share;
            }
            Fault::Delivery(d) if self.delivery == Delivery::Whole => {
                self.delivery = d;
                self.delivery_share = share;
            }
            Fault::Status(mut m) if self.error.is_none() && self.mix.is_none() => {
                for (_, per_million) in &mut m.entries {
                    *per_million =
                        (u64::from(*per_million) * u64::from(share) / u64::from(ALWAYS)) as u32;
                }
                self.mix = Some(m);
            }
            Fault::Error(mut e) if self.error.is_none() && self.mix.is_none() => {
                e.per_million =
                    (u64::from(e.per_million) * u64::from(share) / u64::from(ALWAYS)) as u32;
                self.error = Some(e);
            }
            Fault::Latency(_) => return clash(self.latency_spec(), "a path takes one latency"),
            Fault::Delivery(_) => {
                return clash(
                    self.delivery_spec(),
                    "a path takes one drip, stall, truncate, reset, garbage, hang, slow-close \
                     or bandwidth",
                );
            }
            Fault::Error(_) | Fault::Status(_) => {
                return clash(
                    self.error_spec(),
                    "a path takes one error rate or status mix",
                );
            }
        }
        Ok(())
    }
}

impl StatusMix {
    /// One draw: the entry it falls in, plus one (0: the route's own response). Its shares
    /// are walked in order over one draw below [`ALWAYS`].
    fn draw(&self, rng: &mut Rng) -> u8 {
        let x = rng.below(u64::from(ALWAYS));
        let mut upto = 0u64;
        for (i, &(_, share)) in self.entries.iter().enumerate() {
            upto += u64::from(share);
            if x < upto {
                return i as u8 + 1;
            }
        }
        0
    }
}
