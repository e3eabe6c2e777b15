//! The value grammars every option and fault shares: sizes, durations, counts and rates, the
//! time units, and the one splitter of lists and `name=value` pairs. Parsed without floating
//! point (which would add its tables to the binary).

/// Microseconds in a millisecond: specs are given in milliseconds, the worker's clock counts µs.
pub const US_PER_MS: u64 = 1_000;

/// The fastest `bandwidth:RATE` (bytes a second), for `--fault` and `--control` alike: 1 GiB/s.
pub const BANDWIDTH_MAX: u64 = 1 << 30;

/// `n` (read from `v`; `None` when it overflowed) if it is from `min` to `max`.
#[inline(never)]
pub fn within(n: Option<u64>, v: &str, min: u64, max: u64) -> Result<u64, String> {
    match n {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ if min == 0 => Err(format!("{v} is out of range (at most {max})")),
        _ => Err(format!("{v} is out of range ({min} to {max})")),
    }
}

/// A whole number `v` from `min` to `max`.
pub fn count(v: &str, min: u64, max: u64) -> Result<u64, String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{v:?} is not a whole number"));
    }
    within(v.parse().ok(), v, min, max)
}

/// Bytes, the one size grammar of every option and fault: `512` or `512B`, `64K` or `64KiB`,
/// `1M` or `1MiB`, `2G` or `2GiB` (powers of 1024; a lone letter may be lower-case). `None`
/// when the value is over `u64::MAX` bytes.
#[inline(never)]
pub fn size(v: &str) -> Result<Option<u64>, String> {
    match size_bytes(v) {
        Some(n) => Ok(n),
        None => Err(format!("{v:?} is not a size like 512, 64K or 1MiB")),
    }
}

/// [`size`] without an error text, so that a request's control is read without allocating:
/// `None` when `v` is not a size, `Some(None)` when it is over `u64::MAX` bytes.
pub fn size_bytes(v: &str) -> Option<Option<u64>> {
    let (digits, unit) = v.split_at(leading(v, |b| b.is_ascii_digit()));
    let shift = match unit {
        "" | "B" => 0,
        "K" | "k" | "KiB" => 10,
        "M" | "m" | "MiB" => 20,
        "G" | "g" | "GiB" => 30,
        _ => 64,
    };
    if digits.is_empty() || shift >= 64 {
        return None;
    }
    Some(
        digits
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(1 << shift)),
    )
}

/// The length of the longest start of `v` whose bytes are all `class`.
fn leading(v: &str, class: impl Fn(u8) -> bool) -> usize {
    v.bytes().position(|b| !class(b)).unwrap_or(v.len())
}

/// The longest duration anything is given, in milliseconds: every option (`--delay`, the
/// timeouts), every fault and every request's control. 1 h: longer is a typo, not a test.
pub const MAX_DURATION_MS: u64 = 3_600_000;

/// `10s`, `500ms`, `1.5s`, `2m` or `1h`, in milliseconds: more than zero, at most
/// [`MAX_DURATION_MS`]. A number without its unit is refused, with both of its readings: a
/// client's tools differ on what it means (WireMock and Toxiproxy count milliseconds, `curl
/// --max-time` seconds).
pub fn duration(v: &str) -> Result<u64, String> {
    match duration_any(v) {
        Some(Some(ms)) if ms > 0 && ms <= MAX_DURATION_MS => Ok(ms),
        None if is_bare_number(v) => Err(format!("{v:?} has no unit: write {v}ms or {v}s")),
        Some(Some(0)) | None => Err(format!(
            "{v:?} is not a positive duration like 10s, 500ms or 2m"
        )),
        Some(_) => Err(format!("{v:?} is too long (at most 1h)")),
    }
}

/// [`duration`] without an error text (`None` when `v` is not one), so that a request's
/// control is read without allocating.
pub fn duration_ms(v: &str) -> Option<u64> {
    duration_any(v)?.filter(|&ms| ms > 0 && ms <= MAX_DURATION_MS)
}

/// Whether `v` is a number that is not zero, without a unit: a duration that must say
/// whether it is `ms` or `s`. Zero reads the same in both, so `0` is not one. Called, not
/// inlined into every duration's parse.
#[inline(never)]
pub fn is_bare_number(v: &str) -> bool {
    is_decimal(v) && v.bytes().any(|b| matches!(b, b'1'..=b'9'))
}

/// A duration of any length: `None` when `v` is not one (a bare number is not),
/// `Some(None)` when it is over `u64::MAX` milliseconds.
fn duration_any(v: &str) -> Option<Option<u64>> {
    let (num, unit) = v.split_at(leading(v, |b| b.is_ascii_digit() || b == b'.'));
    let mult: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    is_decimal(num).then(|| scaled(num, mult))
}

/// `0.1`, `1`, `0`, `.5` or `10%`, in millionths, so that the value is exact.
pub fn fraction(v: &str) -> Result<u32, String> {
    fraction_millionths(v)
        .ok_or_else(|| format!("{v:?} is not a rate from 0 to 1 (like 0.1) or 0% to 100%"))
}

/// [`fraction`] without an error text (`None` when `v` is not one), so that a request's
/// control is read without allocating.
pub fn fraction_millionths(v: &str) -> Option<u32> {
    let (num, scale) = match v.strip_suffix('%') {
        Some(p) => (p, 10_000),
        None => (v, 1_000_000),
    };
    scaled(num, scale)
        .filter(|&t| t <= 1_000_000)
        .map(|t| t as u32)
}

/// A share of every response, in millionths: the share of a fault without `@SHARE`.
pub const EVERY: u32 = 1_000_000;

/// A fault's `KIND[:ARGS]@SHARE` split at its last `@`: the fault, and its share in
/// millionths ([`EVERY`] without `@`), or `Err` with the text after the `@` when it is not a
/// share. Only the last `@` counts, so an error's body may hold one; and in an error with a
/// body, an `@` followed by no share is the body's own (`error:503:mail admin@example.com`).
/// The one share grammar of `--fault` and of a request's control; no allocation.
pub fn split_share(spec: &str) -> Result<(&str, u32), &str> {
    match spec.rsplit_once('@') {
        Some((fault, share)) => match fraction_millionths(share) {
            Some(share) => Ok((fault, share)),
            None if error_with_body(spec) => Ok((spec, EVERY)),
            None => Err(share),
        },
        None => Ok((spec, EVERY)),
    }
}

/// `error:[RATE:]STATUS:BODY`: an error whose text after its status is a body.
fn error_with_body(spec: &str) -> bool {
    let Some(args) = spec.strip_prefix("error:") else {
        return false;
    };
    let mut fields = args.splitn(3, ':');
    let first = fields.next().unwrap_or("");
    // `RATE:STATUS:BODY` or `STATUS:BODY`: a status is three digits, a rate is not.
    let status_first = first.len() == 3 && first.bytes().all(|b| b.is_ascii_digit());
    match (fields.next(), fields.next()) {
        (Some(_), Some(_)) => true,
        (Some(_), None) => status_first,
        _ => false,
    }
}

/// A decimal `12`, `1.5` or `.25` (at most six digits after the point) times `scale`, rounded
/// down; `None` when it is not one or overflows. The one decimal grammar of durations and rates,
/// without floating point (which would add its tables to the binary).
pub fn scaled(num: &str, scale: u64) -> Option<u64> {
    if !is_decimal(num) {
        return None;
    }
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let value = |s: &str| {
        if s.is_empty() {
            Some(0)
        } else {
            s.parse::<u64>().ok()
        }
    };
    let (i, f) = (value(int)?, value(frac)?);
    i.checked_mul(scale)?
        .checked_add(f * scale / 10u64.pow(frac.len() as u32))
}

/// Whether `num` is a decimal [`scaled`] reads (whatever its size). Called, not inlined into
/// every caller.
#[inline(never)]
fn is_decimal(num: &str) -> bool {
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac) && frac.len() <= 6
}

/// `s` split at the first `byte` (which is dropped), or `s` whole and "": one out-of-line
/// copy for every list, option-table entry and file line the command line splits.
#[inline(never)]
pub fn split_at_byte(s: &str, byte: u8) -> (&str, &str) {
    match s.bytes().position(|b| b == byte) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_each_kind() {
        for (v, ms) in [
            ("1.5s", 1500),
            ("250ms", 250),
            ("2s", 2000),
            ("0.25m", 15_000),
            ("1h", 3_600_000),
        ] {
            assert_eq!(duration(v), Ok(ms), "{v}");
        }
        for (v, why) in [
            ("500", "\"500\" has no unit: write 500ms or 500s"),
            ("1.5", "\"1.5\" has no unit: write 1.5ms or 1.5s"),
            (
                "0",
                "\"0\" is not a positive duration like 10s, 500ms or 2m",
            ),
            (
                "99999999999999s",
                "\"99999999999999s\" is too long (at most 1h)",
            ),
        ] {
            assert_eq!(duration(v), Err(why.to_string()), "{v}");
        }
        assert_eq!(duration_ms("250"), None);
        for (v, bytes) in [
            ("0", 0),
            ("8192", 8192),
            ("64K", 65536),
            ("1m", 1 << 20),
            ("2G", 2 << 30),
            ("512B", 512),
            ("1KiB", 1024),
            ("3MiB", 3 << 20),
            ("1GiB", 1 << 30),
        ] {
            assert_eq!(size(v), Ok(Some(bytes)), "{v}");
        }
        assert_eq!(size("99999999999G"), Ok(None));
        for bad in ["", "K", "1KB", "1 K", "1kib", "1T", "-1"] {
            assert!(size(bad).is_err(), "{bad:?}");
        }
    }
}
