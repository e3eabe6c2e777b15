//! Faults: how a route misbehaves on purpose, so that a client's timeouts, retries and
//! framing checks can be tested against a server that is slow, silent, cut short or rude.
//!
//! A fault is given per path as `PATH=KIND[:ARGS]` (`--fault`) and named for what the client
//! sees, with its numbers in its name: `latency:10ms..50ms`, `drip:1KiB/100ms`,
//! `truncate:50%`, `reset:0`, `error:0.1:503`. Each route holds at most one fault of each
//! group: a latency before the response, one way of delivering it (drip, stall, truncate,
//! reset, garbage), and an error rate that swaps the response for another status. Everything
//! random is drawn from a seeded generator ([`Rng`], `--seed`), one stream per worker, so
//! that a run with one worker is reproduced exactly.
//!
//! This module parses and samples; the connection applies a [`Plan`] at respond time, and the
//! loop's deadline heap supplies the timing (no thread, no sleep). Specs are in milliseconds,
//! as given; what a response is held for and when a piece is due are in microseconds, the
//! unit of the worker's clock.

use crate::values::{US_PER_MS, fraction};

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
    fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.open_unit(), self.open_unit());
        (-2.0 * ln(u1)).sqrt() * cos_turns(u2)
    }
}

// The logarithm, exponential and cosine the lognormal needs, in a few lines each: the
// platform's (musl's libm) cost 20 KB of tables and code in a static binary, for a delay
// in whole milliseconds where a relative error of 1e-9 is far below the rounding.

/// `ln(x)` for a finite `x > 0` (no subnormals: canned's arguments are at least 2^-54).
/// With `x = 2^e * m`, `m` in `[sqrt(1/2), sqrt(2))` and `s = (m - 1) / (m + 1)`:
/// `ln(m) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...)`, `|s| < 0.172`, seven terms
/// for a relative error below 1e-12.
fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut series = 1.0 / 13.0;
    for k in [11.0, 9.0, 7.0, 5.0, 3.0, 1.0] {
        series = series * s2 + 1.0 / k;
    }
    e as f64 * std::f64::consts::LN_2 + 2.0 * s * series
}

/// `exp(x)`, clamped to `[-700, 700]` (beyond it a delay in ms is 0 or saturates anyway).
/// With `x = k ln 2 + r`, `|r| <= ln(2)/2`: `exp(x) = 2^k exp(r)`, `exp(r)` from its Taylor
/// series to `r^13/13!` (relative error below 1e-15).
fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let t = x * std::f64::consts::LOG2_E;
    // Round to nearest without `f64::round` (a libm call on baseline x86_64).
    let k = (t + if t < 0.0 { -0.5 } else { 0.5 }) as i64;
    let r = x - k as f64 * std::f64::consts::LN_2;
    let mut sum = 1.0;
    for n in (1..=13).rev() {
        sum = 1.0 + sum * r / f64::from(n);
    }
    sum * f64::from_bits(((k + 1023) as u64) << 52)
}

/// `cos(2 pi u)` for `u` in `[0, 1]`: `-cos(y)` with `y = 2 pi u - pi` in `[-pi, pi]`, from
/// its Taylor series to `y^22/22!` (error below 1e-10).
fn cos_turns(u: f64) -> f64 {
    let y = std::f64::consts::TAU * u - std::f64::consts::PI;
    let y2 = y * y;
    let mut sum = 1.0;
    for n in (1..=11).rev() {
        sum = 1.0 - sum * y2 / f64::from((2 * n - 1) * (2 * n));
    }
    -sum
}

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

/// Every fault of one route. [`RouteFaults::default`] is none.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RouteFaults {
    /// A delay before the response.
    pub latency: Option<Latency>,
    /// How the response is delivered.
    pub delivery: Delivery,
    /// A share answered with another status.
    pub error: Option<ErrorRate>,
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

/// The kinds, in the order of the `--stats` counters ([`Kind::index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
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

impl Kind {
    /// Every kind, in counter order.
    pub const ALL: [Kind; 7] = [
        Kind::Latency,
        Kind::Drip,
        Kind::Stall,
        Kind::Truncate,
        Kind::Reset,
        Kind::Garbage,
        Kind::Error,
    ];

    /// The name in `--fault`, `--stats` and the access log.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Latency => "latency",
            Kind::Drip => "drip",
            Kind::Stall => "stall",
            Kind::Truncate => "truncate",
            Kind::Reset => "reset",
            Kind::Garbage => "garbage",
            Kind::Error => "error",
        }
    }

    /// The counter index.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl Delivery {
    /// Its kind, if it is a fault.
    pub fn kind(self) -> Option<Kind> {
        match self {
            Delivery::Whole => None,
            Delivery::Drip(_) => Some(Kind::Drip),
            Delivery::Stall => Some(Kind::Stall),
            Delivery::Truncate(_) => Some(Kind::Truncate),
            Delivery::Reset(_) => Some(Kind::Reset),
            Delivery::Garbage(_) => Some(Kind::Garbage),
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

    /// Draw this response's plan. Draws are made in a fixed order (error, then latency) so
    /// that a seed reproduces a run.
    pub fn plan(&self, rng: &mut Rng) -> Plan {
        let error = self
            .error
            .as_ref()
            .is_some_and(|e| rng.below(1_000_000) < u64::from(e.per_million));
        let delay_us = self
            .latency
            .map_or(0, |l| l.sample_ms(rng).saturating_mul(US_PER_MS));
        Plan {
            delay_us,
            error,
            delivery: self.delivery,
        }
    }

    /// Add one `--fault`'s fault; a second of the same group is an error.
    pub fn add(&mut self, f: Fault) -> Result<(), String> {
        match f {
            Fault::Latency(l) if self.latency.is_none() => self.latency = Some(l),
            Fault::Delivery(d) if self.delivery == Delivery::Whole => self.delivery = d,
            Fault::Error(e) if self.error.is_none() => self.error = Some(e),
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

/// `PATH=KIND[:ARGS]`: the path (or `*`) and its fault. Errors say what is wrong, for the
/// caller to prefix with the flag.
pub fn parse_fault(v: &str) -> Result<(&str, Fault), String> {
    let Some((path, spec)) = v.split_once('=') else {
        return Err(format!("{v:?} is not PATH=KIND[:ARGS]"));
    };
    Ok((path, parse_kind(spec)?))
}

const KINDS: &str = "latency, drip, stall, truncate, reset, garbage or error";

/// `KIND[:ARGS]`.
pub fn parse_kind(spec: &str) -> Result<Fault, String> {
    let (kind, args) = match spec.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (spec, None),
    };
    let need = |what: &str| -> Result<&str, String> {
        args.ok_or_else(|| format!("{kind} needs {what}, like {kind}:{}", example(kind)))
    };
    match kind {
        "latency" => latency(need("a delay")?).map(Fault::Latency),
        "drip" => drip(need("a rate or pieces")?).map(|d| Fault::Delivery(Delivery::Drip(d))),
        "stall" => match args {
            None => Ok(Fault::Delivery(Delivery::Stall)),
            Some(_) => Err("stall takes no arguments".into()),
        },
        "truncate" => cut(need("a length")?).map(|c| Fault::Delivery(Delivery::Truncate(c))),
        "reset" => cut(need("a length")?).map(|c| Fault::Delivery(Delivery::Reset(c))),
        "garbage" => {
            let a = need("a byte count")?;
            let n = size(a)?;
            match u32::try_from(n) {
                Ok(n) if (1..=1 << 20).contains(&n) => Ok(Fault::Delivery(Delivery::Garbage(n))),
                _ => Err(format!("garbage {a} is out of range (1 to 1MiB)")),
            }
        }
        "error" => error_rate(need("a rate and a status")?).map(Fault::Error),
        _ => Err(format!("{kind:?} is not a fault kind ({KINDS})")),
    }
}

fn example(kind: &str) -> &'static str {
    match kind {
        "latency" => "100ms",
        "drip" => "1KiB/100ms",
        "truncate" | "reset" => "50%",
        "garbage" => "64",
        _ => "0.1:503",
    }
}

/// A duration in milliseconds: `250ms`, `1.5s`, `2m`, or plain seconds.
fn millis(v: &str) -> Result<u64, String> {
    let ms = crate::values::duration(v)?;
    if ms > MAX_DELAY_MS {
        return Err(format!("{v} is longer than 1h"));
    }
    Ok(ms)
}

/// `100ms`; `10ms..50ms`; `median=50ms:p99=500ms`.
fn latency(a: &str) -> Result<Latency, String> {
    if let Some(rest) = a.strip_prefix("median=") {
        let Some((median, p99)) = rest.split_once(":p99=") else {
            return Err(format!(
                "{a:?} is not a lognormal latency like median=50ms:p99=500ms"
            ));
        };
        let (median, p99) = (millis(median)?, millis(p99)?);
        if p99 <= median {
            return Err(format!("p99 {p99}ms must be longer than median {median}ms"));
        }
        return Ok(Latency::lognormal(median, p99));
    }
    if let Some((min, max)) = a.split_once("..") {
        let (min, max) = (millis(min)?, millis(max)?);
        if max < min {
            return Err(format!("{a}: the range is empty"));
        }
        return Ok(Latency::Uniform { min, max });
    }
    millis(a).map(Latency::Fixed)
}

/// Bytes, in the size grammar of every option (`512`, `4KiB`, `1M`).
fn size(v: &str) -> Result<u64, String> {
    crate::values::size(v)?.ok_or_else(|| format!("{v} is too large"))
}

/// `1KiB/100ms` (a rate) or `10pieces/2s` (N pieces over a time).
fn drip(a: &str) -> Result<Drip, String> {
    let bad = || format!("{a:?} is not a drip like 1KiB/100ms or 10pieces/2s");
    let (amount, time) = a.split_once('/').ok_or_else(bad)?;
    let ms = millis(time)?;
    if let Some(n) = amount
        .strip_suffix("pieces")
        .or_else(|| amount.strip_suffix("piece"))
    {
        let pieces: u32 = n.parse().map_err(|_| bad())?;
        if !(2..=100_000).contains(&pieces) {
            return Err(format!("{pieces} pieces is out of range (2 to 100000)"));
        }
        if ms < u64::from(pieces - 1) {
            return Err(format!(
                "{pieces} pieces over {ms}ms is less than 1ms between pieces"
            ));
        }
        return Ok(Drip::Pieces {
            pieces,
            over_ms: ms,
        });
    }
    let bytes = size(amount)?;
    match u32::try_from(bytes) {
        Ok(b) if (1..=1 << 20).contains(&b) => Ok(Drip::Rate {
            bytes: b,
            every_ms: ms,
        }),
        _ => Err(format!("{amount} per piece is out of range (1 to 1MiB)")),
    }
}

/// `100` (bytes) or `50%`.
fn cut(a: &str) -> Result<Cut, String> {
    if let Some(p) = a.strip_suffix('%') {
        return match p.parse::<u8>() {
            Ok(p) if p <= 100 => Ok(Cut::Percent(p)),
            _ => Err(format!("{a} is not a percentage from 0% to 100%")),
        };
    }
    size(a).map(Cut::Bytes)
}

/// `0.1:503`, `10%:503`, `0.25:500:BODY`.
fn error_rate(a: &str) -> Result<ErrorRate, String> {
    let mut parts = a.splitn(3, ':');
    let rate = parts.next().unwrap_or("");
    let Some(status) = parts.next() else {
        return Err(format!("{a:?} is not RATE:STATUS[:BODY] like 0.1:503"));
    };
    let body = parts.next().map(String::from);
    let per_million = fraction(rate)?;
    let status = match status.parse::<u16>() {
        Ok(s) if (200..=599).contains(&s) && status.len() == 3 => s,
        _ => return Err(format!("status {status:?} is out of range (200 to 599)")),
    };
    Ok(ErrorRate {
        per_million,
        status,
        body,
    })
}

/// One worker's faults at run time: each route's faults, what they send instead of a
/// response (formatted at start-up), the worker's generator and the `--mutate` counter.
#[derive(Debug)]
pub struct WorkerFaults {
    /// By route index (the same as [`crate::response::Responses`]'); routes beyond have none.
    routes: Vec<RouteFaults>,
    /// By route index: the index in `Responses` of the route's error-rate response.
    error_routes: Vec<u16>,
    /// By route index: the garbage bytes (empty without a garbage fault).
    garbage: Vec<Box<[u8]>>,
    rng: Rng,
    mutate: Option<Mutator>,
    /// By route index: whether [`WorkerFaults::decide`] may change its response.
    applies: Vec<bool>,
    /// By route index in `Responses` (error-rate responses included): the drip of the
    /// route whose response it is, for a dripped response that took up its work area again.
    drips: Vec<Option<Drip>>,
    /// The wall-clock time (Unix µs) at worker time 0, for [`WorkerFaults::date_at`]; set at
    /// its first use.
    wall_us_at_zero: Option<u64>,
}

/// The `--mutate` state of one worker.
#[derive(Debug)]
struct Mutator {
    catalogue: std::sync::Arc<crate::mutate::Catalogue>,
    /// The variant sent next.
    next: usize,
    /// `--mutate-id`: always this one.
    one: Option<usize>,
}

/// What a route does instead of its plain response, decided at respond time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send catalogue variant `i` and close.
    Mutate(usize),
    /// Apply this plan, answering with route `route` (the route's own, or its error response).
    Fault {
        /// Its plan.
        plan: Plan,
        /// The route whose bytes to send.
        route: u16,
    },
}

/// Add the error-rate responses of `config`'s routes to `responses`, once for every worker;
/// returns, by route index, the index in `responses` of the route's error-rate response (the
/// route's own when it has none), for [`WorkerFaults::with_error_routes`].
pub fn add_error_responses(
    config: &crate::config::Config,
    responses: &mut crate::response::Responses,
) -> Vec<u16> {
    let mut error_routes = Vec::with_capacity(config.routes.len());
    for (i, r) in config.routes.iter().enumerate() {
        let e = match &r.faults.error {
            Some(e) => {
                let body = match &e.body {
                    Some(b) => b.clone(),
                    None => format!("{} {}\n", e.status, crate::response::reason(e.status)),
                };
                let spec = crate::response::Spec {
                    status: e.status,
                    body: std::sync::Arc::from(body.into_bytes()),
                    ..r.spec.clone()
                };
                responses.add_unrouted(&spec) as u16
            }
            None => i as u16,
        };
        error_routes.push(e);
    }
    error_routes
}

impl WorkerFaults {
    /// The faults of worker `worker`, or `None` when the configuration has none (the plain
    /// path then pays nothing). The error-rate responses are added to `responses`.
    pub fn new(
        config: &crate::config::Config,
        responses: &mut crate::response::Responses,
        catalogue: Option<std::sync::Arc<crate::mutate::Catalogue>>,
        worker: usize,
    ) -> Option<WorkerFaults> {
        let error_routes = add_error_responses(config, responses);
        WorkerFaults::with_error_routes(config, responses, error_routes, catalogue, worker)
    }

    /// [`WorkerFaults::new`] with the error-rate responses already in `responses`, where
    /// [`add_error_responses`] put them (the server formats them once for all its workers).
    pub fn with_error_routes(
        config: &crate::config::Config,
        responses: &crate::response::Responses,
        error_routes: Vec<u16>,
        catalogue: Option<std::sync::Arc<crate::mutate::Catalogue>>,
        worker: usize,
    ) -> Option<WorkerFaults> {
        let any = config.routes.iter().any(|r| !r.faults.is_none());
        if !any && config.mutate.is_none() {
            return None;
        }
        let mut rng = Rng::new(config.seed, worker as u64);
        let garbage = config
            .routes
            .iter()
            .map(|r| match r.faults.delivery {
                // Drawn from the worker's stream at start-up: the same bytes for every
                // response of the route, reproducible with the seed.
                Delivery::Garbage(n) => (0..n).map(|_| rng.next_u64() as u8).collect(),
                _ => Box::default(),
            })
            .collect();
        let mutate = config.mutate.map(|m| Mutator {
            catalogue: catalogue.unwrap_or_default(),
            next: 0,
            one: match m {
                crate::config::Mutate::Cycle => None,
                crate::config::Mutate::One(i) => Some(usize::from(i)),
            },
        });
        let mut drips = vec![None; responses.routes()];
        for (i, r) in config.routes.iter().enumerate() {
            if let Delivery::Drip(d) = r.faults.delivery {
                drips[i] = Some(d);
                drips[usize::from(error_routes[i])] = Some(d);
            }
        }
        let applies = config
            .routes
            .iter()
            .enumerate()
            .map(|(i, r)| !r.faults.is_none() || (i == 0 && mutate.is_some()))
            .collect();
        Some(WorkerFaults {
            applies,
            routes: config.routes.iter().map(|r| r.faults.clone()).collect(),
            error_routes,
            garbage,
            rng,
            mutate,
            drips,
            wall_us_at_zero: None,
        })
    }

    /// The drip of the response of route `route` (by its index in `Responses`), if it has one.
    pub fn drip(&self, route: usize) -> Option<Drip> {
        self.drips.get(route).copied().flatten()
    }

    /// The `Date` value (IMF-fixdate) of worker time `at_us`, `now_us` being the worker time
    /// now: the head of a dripped response carries the date of its first piece, and each
    /// piece that holds part of it computes the same value. The worker clock is tied to the
    /// wall clock at the first call, and again only when the wall clock moved by more than
    /// two seconds against it (a clock step).
    pub fn date_at(&mut self, at_us: u64, now_us: u64) -> [u8; 29] {
        let unix = |t: std::time::SystemTime| {
            t.duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as u64)
        };
        let wall_us = unix(std::time::SystemTime::now());
        let zero = match self.wall_us_at_zero {
            Some(z) if z.saturating_add(now_us).abs_diff(wall_us) <= 2_000_000 => z,
            _ => {
                let z = wall_us.saturating_sub(now_us);
                self.wall_us_at_zero = Some(z);
                z
            }
        };
        crate::response::http_date(
            std::time::UNIX_EPOCH + std::time::Duration::from_micros(zero.saturating_add(at_us)),
        )
    }

    /// Whether route `route` has a fault (or is the default route under `--mutate`): the
    /// one test a response of a route without one pays.
    #[inline(always)]
    pub fn applies(&self, route: usize) -> bool {
        self.applies.get(route).copied().unwrap_or(false)
    }

    /// What route `route`'s response becomes, or `None` for the plain response.
    pub fn decide(&mut self, route: usize) -> Option<Decision> {
        if route == 0 {
            if let Some(m) = &mut self.mutate {
                let i = m.one.unwrap_or(m.next);
                m.next = (m.next + 1) % m.catalogue.len();
                return Some(Decision::Mutate(i));
            }
        }
        let f = self.routes.get(route).filter(|f| !f.is_none())?;
        let plan = f.plan(&mut self.rng);
        let route = if plan.error {
            self.error_routes[route]
        } else {
            route as u16
        };
        Some(Decision::Fault { plan, route })
    }

    /// The bytes of catalogue variant `i`.
    pub fn variant(&self, i: usize) -> &[u8] {
        self.mutate.as_ref().map_or(&[], |m| m.catalogue.bytes(i))
    }

    /// Route `route`'s garbage bytes.
    pub fn garbage(&self, route: usize) -> &[u8] {
        self.garbage.get(route).map_or(&[], |g| g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(kind: Delivery) -> Fault {
        Fault::Delivery(kind)
    }

    #[test]
    fn specs_parse_to_faults() {
        let cases: &[(&str, Fault)] = &[
            ("latency:100ms", Fault::Latency(Latency::Fixed(100))),
            ("latency:2s", Fault::Latency(Latency::Fixed(2000))),
            (
                "latency:10ms..50ms",
                Fault::Latency(Latency::Uniform { min: 10, max: 50 }),
            ),
            (
                "latency:median=50ms:p99=500ms",
                Fault::Latency(Latency::lognormal(50, 500)),
            ),
            (
                "drip:1KiB/100ms",
                d(Delivery::Drip(Drip::Rate {
                    bytes: 1024,
                    every_ms: 100,
                })),
            ),
            (
                "drip:10/1s",
                d(Delivery::Drip(Drip::Rate {
                    bytes: 10,
                    every_ms: 1000,
                })),
            ),
            (
                "drip:10pieces/2s",
                d(Delivery::Drip(Drip::Pieces {
                    pieces: 10,
                    over_ms: 2000,
                })),
            ),
            ("stall", d(Delivery::Stall)),
            ("truncate:100", d(Delivery::Truncate(Cut::Bytes(100)))),
            ("truncate:0", d(Delivery::Truncate(Cut::Bytes(0)))),
            ("truncate:50%", d(Delivery::Truncate(Cut::Percent(50)))),
            ("reset:0", d(Delivery::Reset(Cut::Bytes(0)))),
            ("reset:1K", d(Delivery::Reset(Cut::Bytes(1024)))),
            ("garbage:64", d(Delivery::Garbage(64))),
            (
                "error:0.1:503",
                Fault::Error(ErrorRate {
                    per_million: 100_000,
                    status: 503,
                    body: None,
                }),
            ),
            (
                "error:25%:500:try again",
                Fault::Error(ErrorRate {
                    per_million: 250_000,
                    status: 500,
                    body: Some("try again".into()),
                }),
            ),
            (
                "error:1:429",
                Fault::Error(ErrorRate {
                    per_million: 1_000_000,
                    status: 429,
                    body: None,
                }),
            ),
            (
                "error:.000001:503",
                Fault::Error(ErrorRate {
                    per_million: 1,
                    status: 503,
                    body: None,
                }),
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(parse_kind(spec).as_ref(), Ok(want), "{spec}");
        }
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let cases: &[(&str, &str)] = &[
            ("slow", "\"slow\" is not a fault kind (latency, drip"),
            ("latency", "latency needs a delay, like latency:100ms"),
            ("latency:fast", "\"fast\" is not a positive duration"),
            ("latency:50ms..10ms", "50ms..10ms: the range is empty"),
            ("latency:2h", "2h is longer than 1h"),
            (
                "latency:median=50ms",
                "\"median=50ms\" is not a lognormal latency",
            ),
            (
                "latency:median=50ms:p99=50ms",
                "p99 50ms must be longer than median 50ms",
            ),
            ("drip:1KiB", "\"1KiB\" is not a drip like 1KiB/100ms"),
            ("drip:0/100ms", "0 per piece is out of range"),
            ("drip:1pieces/1s", "1 pieces is out of range (2 to 100000)"),
            (
                "drip:100pieces/10ms",
                "100 pieces over 10ms is less than 1ms",
            ),
            ("drip:1KB/1s", "\"1KB\" is not a size like 512, 64K or 1MiB"),
            ("stall:5s", "stall takes no arguments"),
            ("truncate", "truncate needs a length, like truncate:50%"),
            ("truncate:101%", "101% is not a percentage from 0% to 100%"),
            ("reset:-1", "\"-1\" is not a size"),
            ("garbage:0", "garbage 0 is out of range (1 to 1MiB)"),
            ("garbage:2M", "garbage 2M is out of range (1 to 1MiB)"),
            ("error:0.1", "\"0.1\" is not RATE:STATUS[:BODY]"),
            ("error:1.5:503", "\"1.5\" is not a rate from 0 to 1"),
            ("error:0.1:99", "status \"99\" is out of range (200 to 599)"),
            ("error:0.1:0503", "status \"0503\" is out of range"),
            ("error:x:503", "\"x\" is not a rate"),
            ("error:0.0000001:503", "\"0.0000001\" is not a rate"),
        ];
        for (spec, want) in cases {
            let e = parse_kind(spec).unwrap_err();
            assert!(e.starts_with(want), "{spec}: {e}");
        }
        assert!(parse_fault("/x").unwrap_err().contains("not PATH=KIND"));
    }

    #[test]
    fn one_fault_per_group_per_route() {
        let mut r = RouteFaults::default();
        assert!(r.is_none());
        r.add(parse_kind("latency:1s").unwrap()).unwrap();
        r.add(parse_kind("truncate:10").unwrap()).unwrap();
        r.add(parse_kind("error:0.5:503").unwrap()).unwrap();
        assert!(!r.is_none());
        for (spec, want) in [
            ("latency:2s", "a second latency"),
            ("stall", "a second drip, stall"),
            ("error:1:500", "a second error rate"),
        ] {
            let e = r.add(parse_kind(spec).unwrap()).unwrap_err();
            assert!(e.starts_with(want), "{spec}: {e}");
        }
    }

    #[test]
    fn cuts_and_drip_steps() {
        let cases: &[(Cut, usize, usize)] = &[
            (Cut::Bytes(10), 100, 10),
            (Cut::Bytes(1000), 100, 100),
            (Cut::Bytes(0), 100, 0),
            (Cut::Percent(50), 101, 50),
            (Cut::Percent(100), 101, 101),
            (Cut::Percent(0), 101, 0),
        ];
        for &(c, total, want) in cases {
            assert_eq!(c.keep(total), want, "{c:?} of {total}");
        }
        // (drip, response length, [(piece end, due µs)] for pieces 0, 1, 2 and the last; the
        // time to the microsecond, rounded up).
        type Steps = (Drip, usize, [(usize, u64); 4], u32);
        let steps: &[Steps] = &[
            (
                Drip::Rate {
                    bytes: 1024,
                    every_ms: 100,
                },
                2500,
                [(1024, 0), (2048, 100_000), (2500, 200_000), (2500, 200_000)],
                2,
            ),
            (
                Drip::Pieces {
                    pieces: 4,
                    over_ms: 600,
                },
                100,
                [(25, 0), (50, 200_000), (75, 400_000), (100, 600_000)],
                3,
            ),
            (
                Drip::Pieces {
                    pieces: 7,
                    over_ms: 1000,
                },
                10,
                [(1, 0), (2, 166_667), (4, 333_334), (10, 1_000_000)],
                6,
            ),
            (
                Drip::Pieces {
                    pieces: 4,
                    over_ms: 300,
                },
                2,
                [(0, 0), (1, 100_000), (1, 200_000), (2, 300_000)],
                3,
            ),
        ];
        for &(drip, total, want, last) in steps {
            let got: Vec<(usize, u64)> = [0, 1, 2, last]
                .iter()
                .map(|&i| (drip.piece_end(i, total), drip.piece_at_us(i)))
                .collect();
            assert_eq!(got, want, "{drip:?} of {total}");
        }
    }

    /// The q-quantile of `n` samples.
    fn quantiles(l: Latency, seed: u64, n: usize) -> Vec<u64> {
        let mut rng = Rng::new(seed, 0);
        let mut v: Vec<u64> = (0..n).map(|_| l.sample_ms(&mut rng)).collect();
        v.sort_unstable();
        v
    }

    /// Median and p99 of 10,000 draws with a fixed seed, within tolerances set by the
    /// sampling error (about 2.5% at the median and 8% at p99 for sigma near 1; the bounds
    /// allow twice that). Deterministic: the seed fixes every draw.
    #[test]
    fn lognormal_median_and_p99() {
        let cases: &[(u64, u64)] = &[(50, 500), (100, 150), (10, 1000), (200, 201)];
        for &(median, p99) in cases {
            for seed in [0, 1, 42] {
                let v = quantiles(Latency::lognormal(median, p99), seed, 10_000);
                let (m, p) = (v[5_000] as f64, v[9_900] as f64);
                let near = |got: f64, want: u64, tol: f64| {
                    (got - want as f64).abs() <= tol * want as f64 + 1.0
                };
                assert!(
                    near(m, median, 0.05),
                    "median {m} for {median}/{p99} seed {seed}"
                );
                assert!(near(p, p99, 0.16), "p99 {p} for {median}/{p99} seed {seed}");
            }
        }
    }

    /// The hand-written ln, exp and cos against std's, over the ranges sampling uses.
    #[test]
    fn math_matches_std() {
        let close = |got: f64, want: f64, what: &str| {
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{what}: got {got}, want {want}"
            );
        };
        for x in [
            2f64.powi(-54),
            1e-9,
            0.3,
            0.5,
            0.707,
            0.708,
            1.0,
            1.5,
            2.0,
            10.0,
            3.6e6,
            1e300,
        ] {
            close(ln(x), x.ln(), &format!("ln {x}"));
        }
        for x in [
            -745.0, -700.0, -20.0, -1.0, -0.35, 0.0, 0.34, 0.35, 1.0, 5.0, 15.1, 700.0,
        ] {
            close(exp(x), x.clamp(-700.0, 700.0).exp(), &format!("exp {x}"));
        }
        for i in 0..=64 {
            let u = f64::from(i) / 64.0;
            close(
                cos_turns(u),
                (std::f64::consts::TAU * u).cos(),
                &format!("cos {u}"),
            );
        }
    }

    #[test]
    fn uniform_covers_its_range_and_no_more() {
        let v = quantiles(Latency::Uniform { min: 10, max: 50 }, 7, 10_000);
        assert_eq!((v[0], v[9_999]), (10, 50));
        let mut counts = [0u32; 41];
        for x in &v {
            counts[(*x - 10) as usize] += 1;
        }
        // Each of 41 values expects 244; a fair generator stays well within half of it.
        assert!(
            counts.iter().all(|&c| (122..=366).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(quantiles(Latency::Fixed(7), 0, 10), vec![7; 10]);
    }

    #[test]
    fn error_share_follows_the_rate_and_the_seed() {
        let r = RouteFaults {
            error: Some(ErrorRate {
                per_million: 100_000,
                status: 503,
                body: None,
            }),
            ..RouteFaults::default()
        };
        let draw = |seed| {
            let mut rng = Rng::new(seed, 0);
            (0..10_000).filter(|_| r.plan(&mut rng).error).count()
        };
        let n = draw(3);
        // Binomial(10000, 0.1): sd 30; the bound is 5 sd.
        assert!((850..=1150).contains(&n), "{n}");
        assert_eq!(draw(3), n, "the same seed draws the same errors");
        assert_ne!(draw(4), n);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let take = |seed, stream| {
            let mut r = Rng::new(seed, stream);
            [r.next_u64(), r.next_u64(), r.next_u64()]
        };
        assert_eq!(take(0, 0), take(0, 0));
        assert_ne!(take(0, 0), take(0, 1));
        assert_ne!(take(0, 0), take(1, 0));
        let mut r = Rng::new(9, 0);
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
