//! go-httpbin's paths, answered by `--control` where no route of canned's own answers
//! (`httpbin/handlers.go` in mccutchen/go-httpbin): the echoes, `/status/`, `/delay/`,
//! `/bytes/`, `/stream-bytes/`, the redirects and `/drip`. Their numbers mean what
//! go-httpbin's do, for the clients written against it.

use super::types::{
    Control, Location, MAX_LOCATION, MAX_VALUE, percent_decode, split_once, status_code,
};
use crate::echo::EchoFormat;
use crate::fault_value::{Delivery, Drip, whole};
use crate::values::{duration_ms, scaled};

/// go-httpbin's paths that echo the request, answered where no route of their own answers:
/// `--echo`'s JSON, or go-httpbin's shape where a client reads one field (`/ip`, `/headers`,
/// `/user-agent`, `/uuid`).
pub const HTTPBIN_ECHO_PATHS: [(&str, EchoFormat); 7] = [
    ("/anything", EchoFormat::Json),
    ("/get", EchoFormat::Json),
    ("/post", EchoFormat::Json),
    ("/headers", EchoFormat::Headers),
    ("/ip", EchoFormat::Ip),
    ("/user-agent", EchoFormat::UserAgent),
    ("/uuid", EchoFormat::Uuid),
];

/// The largest body an httpbin path may ask for: go-httpbin's default `MaxBodySize`, 1 MiB.
pub const HTTPBIN_MAX_BYTES: u64 = 1 << 20;

/// The longest delay an httpbin path may ask for: go-httpbin's default `MaxDuration`, 10 s.
pub const HTTPBIN_MAX_DELAY_MS: u64 = 10_000;

/// The most choices in a weighted `/status/` list.
const MAX_CHOICES: usize = 16;

/// The longest value of an httpbin path, percent-decoded: room for a `/status/` list of more
/// than [`MAX_CHOICES`] codes with weights of six decimals (`599:0.999999,`), so that such a
/// list is refused for its count. (Past 256 bytes the buffer is cleared by one call to
/// `memset` rather than by stores written inline: the smaller code.)
const MAX_PATH_VALUE: usize = 320;

/// go-httpbin's paths (`httpbin/handlers.go` in mccutchen/go-httpbin): `/status/CODE` or a
/// weighted list `/status/200:0.7,500:0.3`, `/delay/SECS`, `/bytes/N`, `/stream-bytes/N`.
/// Returns whether `path` is one of them. Their numbers mean what go-httpbin's do, for the
/// clients written against it: `/delay/3` is 3 seconds, where canned's own durations (`delay=`
/// and the faults') must say their unit.
pub(super) fn httpbin_path(c: &mut Control, path: &[u8], draw: u64) -> Result<bool, &'static str> {
    let Some((name, arg)) = path[1..]
        .iter()
        .position(|&b| b == b'/')
        .map(|i| (&path[1..i + 1], &path[i + 2..]))
    else {
        return Ok(false);
    };
    let mut buf = [0u8; MAX_PATH_VALUE];
    let arg = percent_decode(arg, &mut buf)
        .and_then(|v| core::str::from_utf8(v).ok())
        .ok_or("httpbin: the path's value must be text of at most 320 bytes")?;
    match name {
        b"status" => {
            c.status = Some(weighted_status(arg, draw)?);
            c.bytes = Some(0);
        }
        b"delay" => {
            c.delay_ms = seconds(arg)
                .filter(|&ms| ms <= HTTPBIN_MAX_DELAY_MS)
                .ok_or("httpbin: delay must be seconds (like 1.5) or a duration (like 250ms), at most 10s")?;
        }
        b"bytes" | b"stream-bytes" => {
            let n = match whole(arg) {
                Some(n) if n <= HTTPBIN_MAX_BYTES => n,
                _ => return Err("httpbin: the byte count must be from 0 to 1048576"),
            };
            c.bytes = Some(n);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// go-httpbin's `/redirect/N`, `/relative-redirect/N` and `/absolute-redirect/N`: N, the
/// redirects left (1 or more), when `path` is one of them.
pub(super) fn redirects_left(path: &[u8]) -> Result<Option<u64>, &'static str> {
    let arg = [
        &b"/redirect/"[..],
        b"/relative-redirect/",
        b"/absolute-redirect/",
    ]
    .iter()
    .find_map(|p| path.strip_prefix(*p));
    let Some(arg) = arg else {
        return Ok(None);
    };
    match core::str::from_utf8(arg).ok().and_then(whole) {
        Some(n) if n >= 1 => Ok(Some(n)),
        _ => Err("httpbin: the redirect count must be a whole number, 1 or more"),
    }
}

/// go-httpbin's redirects by count: 302 to the next of the chain, `/get` after the last.
/// `/relative-redirect/N` and `/redirect/N` answer a relative `Location`, `/absolute-redirect/N`
/// and `/redirect/N?absolute=true` an absolute one on the request's `Host`.
pub(super) fn httpbin_redirect(
    c: &mut Control,
    path: &[u8],
    query: &[u8],
    head: &[u8],
    n: u64,
) -> Result<(), &'static str> {
    let absolute = path.starts_with(b"/absolute-redirect/")
        || (path.starts_with(b"/redirect/")
            && query.split(|&b| b == b'&').any(|pair| {
                let (name, value) = split_once(pair, b'=');
                name == b"absolute" && eq_ignore_case(value, b"true")
            }));
    let host: &[u8] = if absolute {
        head.split(|&b| b == b'\n')
            .skip(1)
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .find_map(|l| {
                let (name, value) = split_once(l, b':');
                eq_ignore_case(name, b"host").then(|| value.trim_ascii())
            })
            .filter(|h| !h.is_empty())
            .ok_or("httpbin: an absolute redirect needs the request's Host")?
    } else {
        b""
    };
    let mut digits = [0u8; 20];
    let next = crate::echo::decimal(n - 1, &mut digits);
    let (scheme, at): (&[u8], &[u8]) = if absolute {
        (b"http://", host)
    } else {
        (b"", b"")
    };
    let rest: [&[u8]; 2] = match (n, absolute) {
        (1, _) => [b"/get", b""],
        (_, true) => [b"/absolute-redirect/", next],
        (_, false) => [b"/relative-redirect/", next],
    };
    c.location = Some(
        Location::from_parts(&[scheme, at, rest[0], rest[1]])
            .ok_or("httpbin: the request's Host is too long for an absolute redirect")?,
    );
    (c.status, c.bytes) = (Some(302), Some(0));
    Ok(())
}

/// go-httpbin's `/redirect-to?url=URL&status_code=CODE`: `CODE` (300 to 399, 302 when not
/// given) with `Location: URL`, as given (absolute or relative, percent-decoded, visible
/// ASCII, at most [`MAX_LOCATION`] bytes).
pub(super) fn httpbin_redirect_to(c: &mut Control, query: &[u8]) -> Result<(), &'static str> {
    let (mut url, mut code) = (None, None);
    for pair in query.split(|&b| b == b'&') {
        match split_once(pair, b'=') {
            (b"url", v) => url = Some(v),
            (b"status_code", v) => code = Some(v),
            _ => {}
        }
    }
    let url = url
        .filter(|u| !u.is_empty())
        .ok_or("httpbin: redirect-to needs url=")?;
    let mut buf = [0u8; MAX_LOCATION];
    let location = percent_decode(url, &mut buf)
        .and_then(|u| Location::from_parts(&[u]))
        .ok_or(
            "httpbin: url must be a URI reference of at most 256 bytes, visible ASCII once decoded",
        )?;
    let status = match code {
        None => 302,
        Some(v) => core::str::from_utf8(v)
            .ok()
            .and_then(whole)
            .filter(|s| (300..=399).contains(s))
            .ok_or("httpbin: status_code must be from 300 to 399")? as u16,
    };
    (c.status, c.bytes, c.location) = (Some(status), Some(0), Some(location));
    Ok(())
}

/// go-httpbin's defaults for `/drip` (`DefaultDefaultParams`): 10 bytes, over 2 s, after 2 s.
const DRIP_NUMBYTES: u64 = 10;
const DRIP_DURATION_NS: u64 = 2_000_000_000;
const DRIP_DELAY_NS: u64 = 2_000_000_000;
const NS_PER_MS: u64 = 1_000_000;

/// go-httpbin's `/drip?numbytes=N&duration=D&delay=D&code=CODE` (`Drip` in its handlers):
/// after `delay`, the head and the first of N `*`s, then the others spread evenly so that the
/// last goes `duration` after the first (go-httpbin pauses `duration / (N - 1)`, rounded up,
/// between writes); with one byte or no duration, the body whole. Each parameter is read from
/// its first value, an empty one taking the default, others ignored. Durations are seconds
/// (`0.5`, to the millisecond below, as go-httpbin reads them) or Go durations (`250ms`,
/// `1m30s`), from 0 to 10 s, and together at most 10 s; N from 1 to 1 MiB.
pub(super) fn httpbin_drip(c: &mut Control, query: &[u8]) -> Result<(), &'static str> {
    const BAD_DURATION: &str = "httpbin: invalid duration: seconds (like 0.5) or a Go duration \
                                (like 250ms), from 0 to 10s";
    const BAD_DELAY: &str = "httpbin: invalid delay: seconds (like 0.5) or a Go duration \
                             (like 250ms), from 0 to 10s";
    const BAD_NUMBYTES: &str = "httpbin: invalid numbytes: a count from 1 to 1048576";
    const BAD_CODE: &str = "httpbin: invalid status code: a code from 200 to 599";
    let (mut duration_ns, mut delay_ns) = (DRIP_DURATION_NS, DRIP_DELAY_NS);
    let (mut numbytes, mut code) = (DRIP_NUMBYTES, 200);
    let max_ns = HTTPBIN_MAX_DELAY_MS * NS_PER_MS;
    let mut seen = [false; 4];
    for pair in query.split(|&b| b == b'&') {
        let (name, raw) = split_once(pair, b'=');
        let i = match name {
            b"duration" => 0,
            b"delay" => 1,
            b"numbytes" => 2,
            b"code" => 3,
            _ => continue,
        };
        if core::mem::replace(&mut seen[i], true) {
            continue;
        }
        let mut buf = [0u8; MAX_VALUE];
        let v = percent_decode(raw, &mut buf).and_then(|v| core::str::from_utf8(v).ok());
        match (i, v) {
            (_, Some("")) => {}
            (0, v) => {
                duration_ns = v
                    .and_then(go_duration_ns)
                    .filter(|&d| d <= max_ns)
                    .ok_or(BAD_DURATION)?
            }
            (1, v) => {
                delay_ns = v
                    .and_then(go_duration_ns)
                    .filter(|&d| d <= max_ns)
                    .ok_or(BAD_DELAY)?
            }
            (2, v) => {
                numbytes = v
                    .and_then(|v| whole(v.strip_prefix('+').unwrap_or(v)))
                    .filter(|n| (1..=HTTPBIN_MAX_BYTES).contains(n))
                    .ok_or(BAD_NUMBYTES)?
            }
            (_, v) => {
                code = v
                    .and_then(|v| whole(v.strip_prefix('+').unwrap_or(v)))
                    .filter(|n| (200..=599).contains(n))
                    .ok_or(BAD_CODE)? as u16
            }
        }
    }
    if duration_ns + delay_ns > max_ns {
        return Err("httpbin: too much time: duration and delay add up to more than 10s");
    }
    c.status = Some(code);
    c.bytes = Some(numbytes);
    c.stars = true;
    // Never early: held to the millisecond above.
    c.delay_ms = delay_ns.div_ceil(NS_PER_MS);
    if duration_ns > 0 && numbytes > 1 {
        c.delivery = Some(Delivery::Drip(Drip::Body {
            // The head's length, which the connection knows when it formats the head.
            head: 0,
            pieces: numbytes as u32,
            over_us: duration_ns.div_ceil(1_000),
        }));
    }
    Ok(())
}

/// go-httpbin's `parseDuration`: a Go duration (`250ms`, `1.5s`, `1m30s`, `0`; units `ns`,
/// `us`, `µs`, `ms`, `s`, `m`, `h`, at most six decimals each), else seconds (`1.5`) to the
/// millisecond below, in ns; `None` for anything else, or a negative one (which go-httpbin
/// refuses as shorter than 0).
pub(super) fn go_duration_ns(v: &str) -> Option<u64> {
    let (negative, unsigned) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let ns = match scaled(unsigned, 1_000) {
        Some(ms) => ms.checked_mul(NS_PER_MS)?,
        None => {
            let mut rest = unsigned;
            let mut total = 0u64;
            while !rest.is_empty() {
                let n = rest
                    .bytes()
                    .position(|b| !(b.is_ascii_digit() || b == b'.'))
                    .unwrap_or(rest.len());
                let (num, after) = rest.split_at(n);
                let u = after
                    .bytes()
                    .position(|b| b.is_ascii_digit() || b == b'.')
                    .unwrap_or(after.len());
                let (unit, after) = after.split_at(u);
                let scale = match unit {
                    "ns" => 1,
                    "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
                    "ms" => NS_PER_MS,
                    "s" => 1_000 * NS_PER_MS,
                    "m" => 60_000 * NS_PER_MS,
                    "h" => 3_600_000 * NS_PER_MS,
                    _ => return None,
                };
                total = total.checked_add(scaled(num, scale)?)?;
                rest = after;
            }
            if unsigned.is_empty() {
                return None;
            }
            total
        }
    };
    (!negative || ns == 0).then_some(ns)
}

/// `503`, or `200:0.7,500:0.3` (a weight defaults to 1; weights need not sum to 1), chosen by
/// `draw` in proportion to the weights, as go-httpbin's `weightedRandomChoice`.
fn weighted_status(arg: &str, draw: u64) -> Result<u16, &'static str> {
    const BAD: &str =
        "httpbin: status must be a code from 200 to 599, or a list like 200:0.7,500:0.3";
    let mut choices = [(0u16, 0u64); MAX_CHOICES];
    let mut n = 0;
    let mut total = 0u64;
    for pair in arg.split(',') {
        let (code, weight) = match pair.split_once(':') {
            Some((c, w)) => (c, decimal_millionths(w).ok_or(BAD)?),
            None => (pair, 1_000_000),
        };
        let code = status_code(code).ok_or(BAD)?;
        *choices
            .get_mut(n)
            .ok_or("httpbin: too many codes in a status list: at most 16")? = (code, weight);
        n += 1;
        total = total.saturating_add(weight);
    }
    if total == 0 {
        return Err(BAD);
    }
    let mut at = draw % total;
    for &(code, weight) in &choices[..n] {
        if at < weight {
            return Ok(code);
        }
        at -= weight;
    }
    Err(BAD)
}

/// A decimal `0.7`, `2` or `.25` (at most six places) in millionths: the flags' grammar of
/// rates and durations.
fn decimal_millionths(v: &str) -> Option<u64> {
    scaled(v, 1_000_000)
}

/// go-httpbin's duration: a Go duration (`250ms`, `1.5s`, `2m`), or seconds (`1.5`), in ms.
fn seconds(v: &str) -> Option<u64> {
    if let Some(ms) = decimal_millionths(v) {
        return Some(ms / 1_000);
    }
    duration_ms(v)
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each), and this path is cold. The linker folds the
/// copies of this function that come out identical.
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}
