//! The faults a route can be given, as parsed: a latency, a way of delivering the response, an
//! error rate; and what one response gets of them ([`Draw`]), drawn at respond time.

use crate::fault_value::{Delivery, Latency, Rng};
use crate::values::US_PER_MS;

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

/// What one response gets, decided at respond time from its route's faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Draw {
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
    pub fn plan(&self, rng: &mut Rng) -> Draw {
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
        Draw {
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
