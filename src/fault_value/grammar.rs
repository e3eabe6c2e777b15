//! The one grammar of a fault value, `KIND[:ARGS][@SHARE]`, each kind named for what the client
//! sees with its numbers in its name (`latency:10ms..50ms`, `drip:1KiB/100ms`, `truncate:50%`,
//! `error:0.1:503`), and each value written back in it ([`fmt::Display`]). Read from a `&str`
//! without allocating: `--fault` and the admin API read it from their text, `--control` from a
//! request's head. A value that breaks a kind's rule gets that rule's one text.

use super::{Cut, Delivery, Drip, Latency};
use crate::values::{self, BANDWIDTH_MAX, EVERY, duration_ms, fraction_millionths, size_bytes};
use core::fmt;

/// One fault value, read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// `latency:D`, `latency:D..D`, `latency:median=D:p99=D`.
    Latency(Latency),
    /// `drip`, `stall`, `truncate`, `reset`, `garbage`, `hang`, `slow-close` or `bandwidth`.
    Delivery(Delivery),
    /// `error:[RATE:]STATUS[:BODY]`: a share of the answers (millionths; every answer without
    /// `RATE`) answered with `status`, and `body` (without one, `STATUS REASON`).
    Error {
        /// The share, in millionths.
        per_million: u32,
        /// 200 to 599.
        status: u16,
        /// The body given, if one was.
        body: Option<&'a str>,
    },
    /// `status:STATUS=SHARE,...`: its arguments, which `--fault` reads (a mix is kept over
    /// many answers, so it is read where it is kept).
    Status(&'a str),
    /// `seq:STEP,...` or `seq-cycle:STEP,...`: its steps, which `--fault` reads.
    Sequence {
        /// The steps, as given.
        steps: &'a str,
        /// `seq-cycle`: after the last step, the first again.
        cycle: bool,
    },
}

/// What is wrong with a fault value: the rule it breaks, one text per rule, for the caller to
/// put after its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bad<'a> {
    /// The rule's text (`drip takes a size or pieces over a time, like ...`).
    Rule(&'static str),
    /// `what` was given a number without its unit, which reads two ways:
    /// `latency: "100" has no unit: write 100ms or 100s`.
    NoUnit {
        /// The kind, or the part of it, given the number.
        what: &'static str,
        /// The number.
        number: &'a str,
    },
    /// Not a kind: `"slow" is not a fault kind (latency, ...)`.
    Kind(&'a str),
}

/// Every kind, for a value that names none of them.
pub const KIND_NAMES: &str = "latency, drip, stall, truncate, reset, garbage, hang, slow-close, \
                              bandwidth, error, status, seq or seq-cycle";

/// The rule of a share.
const SHARE: &str = "a share must be a rate from 0 to 1, like @0.1 or @10%";

impl fmt::Display for Bad<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Bad::Rule(rule) => f.write_str(rule),
            Bad::NoUnit { what, number: n } => {
                write!(f, "{what}: \"{n}\" has no unit: write {n}ms or {n}s")
            }
            Bad::Kind(kind) => write!(f, "{kind:?} is not a fault kind ({KIND_NAMES})"),
        }
    }
}

impl From<Bad<'_>> for String {
    fn from(bad: Bad<'_>) -> String {
        bad.to_string()
    }
}

/// `KIND[:ARGS]@SHARE` split at its last `@`: the value and its share (`0.1` or `10%`, in
/// millionths; every answer without `@`). An error's body may hold an `@`
/// (`error:503:mail admin@example.com`).
pub fn split_share(v: &str) -> Result<(&str, u32), Bad<'_>> {
    values::split_share(v).map_err(|_| Bad::Rule(SHARE))
}

/// `KIND[:ARGS]`: one fault value, without its share.
pub fn parse(v: &str) -> Result<Value<'_>, Bad<'_>> {
    let (kind, args) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    let Some(rule) = rule(kind) else {
        return Err(Bad::Kind(kind));
    };
    let bad = Bad::Rule(rule);
    let delivery = match (kind, args) {
        ("stall", None) => Delivery::Stall,
        (_, None) => return Err(bad),
        ("latency", Some(a)) => return latency(a).map(Value::Latency),
        ("drip", Some(a)) => Delivery::Drip(drip(a)?),
        ("truncate", Some(a)) => Delivery::Truncate(cut(a).ok_or(bad)?),
        ("reset", Some(a)) => Delivery::Reset(cut(a).ok_or(bad)?),
        ("garbage", Some(a)) => match size_bytes(a) {
            Some(Some(n)) if (1..=1 << 20).contains(&n) => Delivery::Garbage(n as u32),
            _ => return Err(bad),
        },
        ("hang", Some(a)) => {
            let (d, reset) = match a.split_once(':') {
                Some((d, "reset")) => (d, true),
                Some(_) => return Err(bad),
                None => (a, false),
            };
            Delivery::Hang {
                ms: millis(d, "hang", rule)?,
                reset,
            }
        }
        ("slow-close", Some(a)) => Delivery::SlowClose(millis(a, "slow-close", rule)?),
        ("bandwidth", Some(a)) => {
            let per_s = a
                .strip_suffix("/s")
                .and_then(size_bytes)
                .flatten()
                .filter(|n| (1..=BANDWIDTH_MAX).contains(n))
                .ok_or(bad)?;
            Delivery::Drip(Drip::Bandwidth { per_s })
        }
        ("error", Some(a)) => return error(a).ok_or(bad),
        ("status", Some(a)) if !a.is_empty() => return Ok(Value::Status(a)),
        ("seq" | "seq-cycle", Some(a)) if !a.is_empty() => {
            return Ok(Value::Sequence {
                steps: a,
                cycle: kind == "seq-cycle",
            });
        }
        _ => return Err(bad),
    };
    Ok(Value::Delivery(delivery))
}

/// The rule of `kind`, or `None` when it is not one.
fn rule(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "latency" => LATENCY,
        "drip" => DRIP,
        "stall" => "stall takes no arguments",
        "truncate" => {
            "truncate takes a size like 512, 64K or 1MiB, or a percentage from 0% to 100% like \
             truncate:50%"
        }
        "reset" => {
            "reset takes a size like 0, 64K or 1MiB, or a percentage from 0% to 100% like \
             reset:50%"
        }
        "garbage" => "garbage takes a size from 1 to 1MiB, like garbage:256",
        "hang" => "hang takes a duration, like hang:2s or hang:2s:reset, at most 1h",
        "slow-close" => "slow-close takes a duration, like slow-close:1s, at most 1h",
        "bandwidth" => "bandwidth takes a rate, like bandwidth:64KiB/s (1/s to 1GiB/s)",
        "error" => {
            "error takes a status from 200 to 599, or a rate from 0 to 1 (10%) then a \
             status, like error:503, error:0.1:503, error:10%:503 or error:0.1:503:busy"
        }
        "status" => "status takes statuses and their shares, like status:200=70%,500=30%",
        "seq" => "seq takes steps, like seq:503,503,ok",
        "seq-cycle" => "seq-cycle takes steps, like seq-cycle:503,ok",
        _ => return None,
    })
}

const LATENCY: &str = "latency takes a duration like latency:100ms, a range like \
                       latency:10ms..50ms, or latency:median=50ms:p99=500ms (p99 above the \
                       median), at most 1h";

const DRIP: &str = "drip takes a size or pieces over a time, like drip:1KiB/100ms or \
                    drip:10pieces/2s (1 B to 1 MiB a piece, 2 to 100000 pieces at least 1 ms \
                    apart, at most 1h)";

/// A duration from 1 ms to 1 h; a number without its unit is named as `what`'s. Called, not
/// inlined: a latency reads up to two, and each copy was some 250 bytes.
#[inline(never)]
fn millis<'a>(v: &'a str, what: &'static str, rule: &'static str) -> Result<u64, Bad<'a>> {
    match duration_ms(v) {
        Some(ms) => Ok(ms),
        None if values::is_bare_number(v) => Err(Bad::NoUnit { what, number: v }),
        None => Err(Bad::Rule(rule)),
    }
}

/// `100ms`; `10ms..50ms`; `median=50ms:p99=500ms`: a latency's arguments.
pub fn latency(a: &str) -> Result<Latency, Bad<'_>> {
    let ms = |v| millis(v, "latency", LATENCY);
    if let Some(rest) = a.strip_prefix("median=") {
        let (median, p99) = rest.split_once(":p99=").ok_or(Bad::Rule(LATENCY))?;
        let (median, p99) = (ms(median)?, ms(p99)?);
        return match p99 > median {
            true => Ok(Latency::lognormal(median, p99)),
            false => Err(Bad::Rule(LATENCY)),
        };
    }
    if let Some((min, max)) = a.split_once("..") {
        let (min, max) = (ms(min)?, ms(max)?);
        return match max >= min {
            true => Ok(Latency::Uniform { min, max }),
            false => Err(Bad::Rule(LATENCY)),
        };
    }
    ms(a).map(Latency::Fixed)
}

/// `1KiB/100ms` (a size a piece) or `10pieces/2s` (N pieces over a time): a drip's arguments.
pub fn drip(a: &str) -> Result<Drip, Bad<'_>> {
    let bad = Bad::Rule(DRIP);
    let (amount, time) = a.split_once('/').ok_or(bad)?;
    let ms = millis(time, "drip's time", DRIP)?;
    if let Some(n) = amount
        .strip_suffix("pieces")
        .or_else(|| amount.strip_suffix("piece"))
    {
        let pieces = whole(n).filter(|p| (2..=100_000).contains(p)).ok_or(bad)? as u32;
        return match ms >= u64::from(pieces - 1) {
            true => Ok(Drip::Pieces {
                pieces,
                over_ms: ms,
            }),
            false => Err(bad),
        };
    }
    match size_bytes(amount) {
        Some(Some(b)) if (1..=1 << 20).contains(&b) => Ok(Drip::Rate {
            bytes: b as u32,
            every_ms: ms,
        }),
        _ => Err(bad),
    }
}

/// `100` (bytes, the size grammar) or `50%`.
fn cut(a: &str) -> Option<Cut> {
    if let Some(p) = a.strip_suffix('%') {
        return whole(p)
            .filter(|&p| p <= 100)
            .map(|p| Cut::Percent(p as u8));
    }
    size_bytes(a).flatten().map(Cut::Bytes)
}

/// `STATUS[:BODY]` or `RATE:STATUS[:BODY]`: a status is three digits, a rate is not.
fn error(a: &str) -> Option<Value<'_>> {
    let (first, rest) = match a.split_once(':') {
        Some((f, r)) => (f, Some(r)),
        None => (a, None),
    };
    let (per_million, status, body) = if first.len() == 3 && whole(first).is_some() {
        (EVERY, first, rest)
    } else {
        match rest?.split_once(':') {
            Some((s, b)) => (fraction_millionths(first)?, s, Some(b)),
            None => (fraction_millionths(first)?, rest?, None),
        }
    };
    let status = whole(status).filter(|s| (200..=599).contains(s) && status.len() == 3)?;
    Some(Value::Error {
        per_million,
        status: status as u16,
        body,
    })
}

/// A whole number of decimal digits only (no sign), `None` when it is not one or overflows.
pub(crate) fn whole(v: &str) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    v.bytes().try_fold(0u64, |n, b| {
        b.is_ascii_digit()
            .then(|| n.checked_mul(10)?.checked_add(u64::from(b - b'0')))?
    })
}

impl fmt::Display for Latency {
    /// `latency:...`, as read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Latency::Fixed(ms) => write!(f, "latency:{ms}ms"),
            Latency::Uniform { min, max } => write!(f, "latency:{min}ms..{max}ms"),
            Latency::LogNormal { median, p99 } => {
                write!(f, "latency:median={median}ms:p99={p99}ms")
            }
        }
    }
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cut::Bytes(n) => write!(f, "{n}"),
            Cut::Percent(p) => write!(f, "{p}%"),
        }
    }
}

impl fmt::Display for Delivery {
    /// The delivery as read (nothing for [`Delivery::Whole`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Delivery::Whole => Ok(()),
            Delivery::Drip(Drip::Rate { bytes, every_ms }) => {
                write!(f, "drip:{bytes}/{every_ms}ms")
            }
            Delivery::Drip(Drip::Pieces { pieces, over_ms }) => {
                write!(f, "drip:{pieces}pieces/{over_ms}ms")
            }
            // Only a request's `/drip` takes it, never a path's fault.
            Delivery::Drip(Drip::Body {
                pieces, over_us, ..
            }) => write!(f, "drip:{pieces}pieces/{over_us}us"),
            Delivery::Drip(Drip::Bandwidth { per_s }) => write!(f, "bandwidth:{per_s}/s"),
            Delivery::Stall => f.write_str("stall"),
            Delivery::Truncate(c) => write!(f, "truncate:{c}"),
            Delivery::Reset(c) => write!(f, "reset:{c}"),
            Delivery::Garbage(n) => write!(f, "garbage:{n}"),
            Delivery::Hang { ms, reset: false } => write!(f, "hang:{ms}ms"),
            Delivery::Hang { ms, reset: true } => write!(f, "hang:{ms}ms:reset"),
            Delivery::SlowClose(ms) => write!(f, "slow-close:{ms}ms"),
        }
    }
}
