//! The `--fault` grammar: `PATH=KIND[:ARGS]`, each kind named for what the client sees, with
//! its numbers in its name. Errors say what is wrong, for the caller to prefix with the flag.

use super::spec::{
    ALWAYS, Cut, Delivery, Drip, ErrorRate, Fault, Latency, MAX_STEPS, MIX_MAX, SequenceSpec,
    StatusMix, Step,
};
use crate::values::{self, duration, fraction, size};

/// `PATH=KIND[:ARGS][@SHARE]`: the path (or `*`), its fault and the share of responses it
/// applies to (millionths). Errors say what is wrong, for the caller to prefix with the flag.
pub fn parse_fault(v: &str) -> Result<(&str, Fault, u32), String> {
    let Some((path, spec)) = v.split_once('=') else {
        return Err(format!("{v:?} is not PATH=KIND[:ARGS]"));
    };
    let (spec, share) = split_share(spec)?;
    Ok((path, parse_fault_spec(spec)?, share))
}

/// `KIND[:ARGS]@SHARE`: the fault and its share (`0.1` or `10%`, in millionths); without
/// `@`, every response ([`ALWAYS`](super::ALWAYS)). The last `@` counts, so an error body may hold one; and
/// in an error with a body, an `@` followed by no share is the body's own
/// (`error:503:mail admin@example.com`).
pub fn split_share(spec: &str) -> Result<(&str, u32), String> {
    values::split_share(spec).map_err(|share| match fraction(share) {
        Err(e) => format!("share {e}"),
        Ok(_) => format!("share {share:?} is not a rate"),
    })
}

/// Every kind, for an error that found none of them.
const KIND_NAMES: &str = "latency, drip, stall, truncate, reset, garbage, hang, slow-close, \
     bandwidth, error, status, seq or seq-cycle";

/// `KIND[:ARGS]`: one fault, the part of a `--fault` value after `PATH=`.
pub fn parse_fault_spec(spec: &str) -> Result<Fault, String> {
    let (kind, args) = match spec.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (spec, None),
    };
    let need = |what: &str| -> Result<&str, String> {
        args.ok_or_else(|| format!("{kind} needs {what}, like {kind}:{}", example_args(kind)))
    };
    match kind {
        "latency" => parse_latency(need("a delay")?).map(Fault::Latency),
        "drip" => parse_drip(need("a rate or pieces")?).map(|d| Fault::Delivery(Delivery::Drip(d))),
        "stall" => match args {
            None => Ok(Fault::Delivery(Delivery::Stall)),
            Some(_) => Err("stall takes no arguments".into()),
        },
        "truncate" => parse_cut(need("a length")?).map(|c| Fault::Delivery(Delivery::Truncate(c))),
        "reset" => parse_cut(need("a length")?).map(|c| Fault::Delivery(Delivery::Reset(c))),
        "garbage" => {
            let a = need("a byte count")?;
            let n = parse_size(a)?;
            match u32::try_from(n) {
                Ok(n) if (1..=1 << 20).contains(&n) => Ok(Fault::Delivery(Delivery::Garbage(n))),
                _ => Err(format!("garbage {a} is out of range (1 to 1MiB)")),
            }
        }
        "error" => parse_error_rate(need("a rate and a status")?).map(Fault::Error),
        "hang" => parse_hang(need("a time")?).map(Fault::Delivery),
        "slow-close" => {
            parse_millis(need("a time")?).map(|ms| Fault::Delivery(Delivery::SlowClose(ms)))
        }
        "bandwidth" => parse_bandwidth(need("a rate")?)
            .map(|per_s| Fault::Delivery(Delivery::Drip(Drip::Bandwidth { per_s }))),
        "status" => parse_status_mix(need("statuses and shares")?).map(Fault::Status),
        "seq" => parse_sequence(need("steps")?, false).map(Fault::Sequence),
        "seq-cycle" => parse_sequence(need("steps")?, true).map(Fault::Sequence),
        _ => Err(format!("{kind:?} is not a fault kind ({KIND_NAMES})")),
    }
}

/// The arguments of an example of `kind`, for an error that found none.
fn example_args(kind: &str) -> &'static str {
    match kind {
        "latency" => "100ms",
        "drip" => "1KiB/100ms",
        "truncate" | "reset" => "50%",
        "garbage" => "64",
        "hang" | "slow-close" => "10s",
        "bandwidth" => "64KiB/s",
        "status" => "200=70%,500=20%,503=10%",
        "seq" | "seq-cycle" => "503,503,ok",
        _ => "0.1:503",
    }
}

/// A duration in milliseconds: `250ms`, `1.5s` or `2m` (a bare number is refused), at most 1 h.
fn parse_millis(v: &str) -> Result<u64, String> {
    duration(v)
}

/// `100ms`; `10ms..50ms`; `median=50ms:p99=500ms`.
pub(super) fn parse_latency(a: &str) -> Result<Latency, String> {
    if let Some(rest) = a.strip_prefix("median=") {
        let Some((median, p99)) = rest.split_once(":p99=") else {
            return Err(format!(
                "{a:?} is not a lognormal latency like median=50ms:p99=500ms"
            ));
        };
        let (median, p99) = (parse_millis(median)?, parse_millis(p99)?);
        if p99 <= median {
            return Err(format!("p99 {p99}ms must be longer than median {median}ms"));
        }
        return Ok(Latency::lognormal(median, p99));
    }
    if let Some((min, max)) = a.split_once("..") {
        let (min, max) = (parse_millis(min)?, parse_millis(max)?);
        if max < min {
            return Err(format!("{a}: the range is empty"));
        }
        return Ok(Latency::Uniform { min, max });
    }
    parse_millis(a).map(Latency::Fixed)
}

/// Bytes, in the size grammar of every option (`512`, `4KiB`, `1M`).
fn parse_size(v: &str) -> Result<u64, String> {
    size(v)?.ok_or_else(|| format!("{v} is too large"))
}

/// `1KiB/100ms` (a rate) or `10pieces/2s` (N pieces over a time).
pub(super) fn parse_drip(a: &str) -> Result<Drip, String> {
    let bad = || format!("{a:?} is not a drip like 1KiB/100ms or 10pieces/2s");
    let (amount, time) = a.split_once('/').ok_or_else(bad)?;
    let ms = parse_millis(time)?;
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
    let bytes = parse_size(amount)?;
    match u32::try_from(bytes) {
        Ok(b) if (1..=1 << 20).contains(&b) => Ok(Drip::Rate {
            bytes: b,
            every_ms: ms,
        }),
        _ => Err(format!("{amount} per piece is out of range (1 to 1MiB)")),
    }
}

/// `100` (bytes) or `50%`.
fn parse_cut(a: &str) -> Result<Cut, String> {
    if let Some(p) = a.strip_suffix('%') {
        return match p.parse::<u8>() {
            Ok(p) if p <= 100 => Ok(Cut::Percent(p)),
            _ => Err(format!("{a} is not a percentage from 0% to 100%")),
        };
    }
    parse_size(a).map(Cut::Bytes)
}

/// `0.1:503`, `10%:503`, `0.25:500:BODY`; or without a rate, `503` and `500:BODY` (every
/// response, or the share after `@`).
fn parse_error_rate(a: &str) -> Result<ErrorRate, String> {
    let first = a.split(':').next().unwrap_or("");
    if first.len() == 3 && first.bytes().all(|b| b.is_ascii_digit()) && first >= "200" {
        return parse_error_rate(&format!("1:{a}"));
    }
    let mut parts = a.splitn(3, ':');
    let rate = parts.next().unwrap_or("");
    let Some(status) = parts.next() else {
        return Err(format!("{a:?} is not [RATE:]STATUS[:BODY] like 0.1:503"));
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

/// `10s` (then FIN) or `10s:reset` (then RST).
fn parse_hang(a: &str) -> Result<Delivery, String> {
    let (time, reset) = match a.split_once(':') {
        Some((time, "reset")) => (time, true),
        Some((_, then)) => {
            return Err(format!(
                "{then:?} is not what follows a hang (hang:D, or hang:D:reset)"
            ));
        }
        None => (a, false),
    };
    Ok(Delivery::Hang {
        ms: parse_millis(time)?,
        reset,
    })
}

/// `64KiB/s`: bytes a second, in the size grammar, from 1 B/s to 1 GiB/s.
fn parse_bandwidth(a: &str) -> Result<u64, String> {
    let Some(amount) = a.strip_suffix("/s") else {
        return Err(format!("{a:?} is not a rate like 64KiB/s"));
    };
    let per_s = parse_size(amount)?;
    if !(1..=values::BANDWIDTH_MAX).contains(&per_s) {
        return Err(format!("{a} is out of range (1/s to 1GiB/s)"));
    }
    Ok(per_s)
}

/// `200=70%,500=20%,503=10%`: statuses (200 to 599, each once) with their shares (`0.7` or
/// `70%`), at most 100% in all; the rest are the route's own response.
fn parse_status_mix(a: &str) -> Result<StatusMix, String> {
    let mut entries: Vec<(u16, u32)> = Vec::new();
    for item in a.split(',') {
        let Some((status, share)) = item.split_once('=') else {
            return Err(format!(
                "{item:?} is not STATUS=SHARE like 500=20% (in status:200=70%,500=30%)"
            ));
        };
        let code = match status.parse::<u16>() {
            Ok(s) if (200..=599).contains(&s) && status.len() == 3 => s,
            _ => return Err(format!("status {status:?} is out of range (200 to 599)")),
        };
        if entries.iter().any(|&(s, _)| s == code) {
            return Err(format!("status {code} is given twice"));
        }
        entries.push((code, fraction(share)?));
    }
    if entries.len() > MIX_MAX {
        return Err(format!("{} statuses, more than {MIX_MAX}", entries.len()));
    }
    let sum: u64 = entries.iter().map(|&(_, s)| u64::from(s)).sum();
    if sum > u64::from(ALWAYS) {
        // In whole numbers: a float's `{}` would link the float formatter (15 KB).
        let (whole, part) = (sum / 10_000, sum % 10_000);
        let part = format!(".{part:04}");
        let part = part.trim_end_matches('0').trim_end_matches('.');
        return Err(format!("the shares sum to {whole}{part}%, more than 100%"));
    }
    Ok(StatusMix { entries })
}

/// `STEP,STEP,...`, the arguments of `seq:` (`cycle: false`) or `seq-cycle:`.
pub fn parse_sequence(args: &str, cycle: bool) -> Result<SequenceSpec, String> {
    let mut steps = Vec::new();
    for step in args.split(',') {
        if steps.len() == MAX_STEPS {
            return Err(format!("a sequence has at most {MAX_STEPS} steps"));
        }
        steps.push(parse_step(step)?);
    }
    Ok(SequenceSpec { steps, cycle })
}

/// One step: `ok`, a status, or a delivery fault of the `--fault` grammar.
fn parse_step(s: &str) -> Result<Step, String> {
    if s == "ok" || s == "200" {
        return Ok(Step::Own);
    }
    if s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()) {
        return match s.parse::<u16>() {
            Ok(status) if (200..=599).contains(&status) => Ok(Step::Status(status)),
            _ => Err(format!("step {s:?}: a status is 200 to 599")),
        };
    }
    if s.is_empty() {
        return Err("a sequence has an empty step (two commas, or one at an end)".into());
    }
    match parse_fault_spec(s) {
        Ok(Fault::Delivery(d)) => Ok(Step::Delivery(d)),
        Ok(_) => Err(format!(
            "step {s:?}: a step is ok, a status, or one of drip, stall, truncate, reset, \
             garbage, hang, slow-close, bandwidth"
        )),
        Err(e) => Err(format!("step {s:?}: {e}")),
    }
}
