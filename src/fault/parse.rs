//! `--fault`'s `PATH=KIND[:ARGS][@SHARE]`: each value read by the one grammar of
//! [`fault_value`], which `--control` shares; here, what only a path's
//! faults hold, kept over many answers: a status mix and a sequence. Errors say what is wrong,
//! for the caller to prefix with the flag.

use super::spec::{ALWAYS, ErrorRate, Fault, MAX_STEPS, MIX_MAX, SequenceSpec, StatusMix, Step};
use crate::fault_value::{self, Value};
use crate::values::fraction;

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
/// `@`, every response ([`ALWAYS`](super::ALWAYS)).
pub fn split_share(spec: &str) -> Result<(&str, u32), String> {
    Ok(fault_value::split_share(spec)?)
}

/// `KIND[:ARGS]`: one fault, the part of a `--fault` value after `PATH=`.
pub fn parse_fault_spec(spec: &str) -> Result<Fault, String> {
    Ok(match fault_value::parse(spec)? {
        Value::Latency(l) => Fault::Latency(l),
        Value::Delivery(d) => Fault::Delivery(d),
        Value::Error {
            per_million,
            status,
            body,
        } => Fault::Error(ErrorRate {
            per_million,
            status,
            body: body.map(String::from),
        }),
        Value::Status(a) => Fault::Status(parse_status_mix(a)?),
        Value::Sequence { steps, cycle } => Fault::Sequence(parse_sequence(steps, cycle)?),
    })
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
