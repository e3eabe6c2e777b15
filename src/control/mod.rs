//! `--control`: a request chooses its answer, by query parameters (`?status=503&delay=250ms`)
//! and by one header field (`X-Canned-Control: status=503;delay=250ms`), in the grammar of the
//! flags: a status, a delay, a body of N bytes, and the faults of `--fault` (a latency, a way
//! of delivering the answer, an error status), each with an optional share, read by the one
//! grammar of a fault value ([`fault_value`]) into its vocabulary. Read
//! from the head's bytes as the parser validated them, without allocating: an error is a
//! static text naming what is wrong (with, for a duration without its unit, the number), for
//! the 400 it answers.
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the parameters, the field, and their reading |
//! | `types` | what a request asked for, and the text of what is wrong, kept inline |
//! | `chosen` | a connection's part: the control of the request being answered |
//! | `httpbin` | go-httpbin's paths |
//! | `blocks` | the blocks its bodies are cut from |

mod blocks;
mod chosen;
mod httpbin;
mod types;

use crate::fault_value::{self, Bad, Rng, Value};
use crate::values::{EVERY, duration_ms, is_bare_number, size_bytes};
pub use blocks::Blocks;
pub use chosen::{Chosen, DRIP_HEAD_KEEP};
pub use httpbin::{HTTPBIN_ECHO_PATHS, HTTPBIN_MAX_BYTES, HTTPBIN_MAX_DELAY_MS};
use httpbin::{httpbin_drip, httpbin_path, httpbin_redirect, httpbin_redirect_to, redirects_left};
pub use types::{Control, ErrorAnswer, Location, MAX_LOCATION, PARTS, Refusal};
use types::{MAX_VALUE, percent_decode, split_once, status_code};

/// The request header field that carries a control (matched without regard to case).
pub const HEADER: &[u8] = b"x-canned-control";

/// The longest delay a request may ask for (ms), as for the flags: 1 h.
pub const MAX_DELAY_MS: u64 = crate::values::MAX_DURATION_MS;

/// The largest body a request may ask for (bytes), as for the flags: 1 GiB.
pub const MAX_BYTES: u64 = 1 << 30;

/// The draw of a request's control ([`from_head`]): the clock and the request count, mixed
/// (splitmix64's finaliser), as the share of a fault and a weighted status are drawn.
pub fn draw(now_us: u64, requests: u64) -> u64 {
    let mut draw = now_us ^ requests.rotate_left(32);
    draw = (draw ^ (draw >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    draw = (draw ^ (draw >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    draw ^ (draw >> 31)
}

/// The control of the request whose head is `head` (its bytes, as the parser accepted them):
/// `Ok(None)` when it names none (no known query parameter, no control field and, with
/// `paths`, no httpbin path), else what it asks for, or the one-line text of what is wrong.
/// `draw` is a random number: for a weighted list of statuses, and the seed of the draws of
/// the faults' shares.
pub fn from_head(head: &[u8], paths: bool, draw: u64) -> Result<Option<Control>, Refusal> {
    let mut c = Control::default();
    let mut draws = Rng::new(draw, 0);
    let mut any = false;
    let mut lines = head.split(|&b| b == b'\n');
    let request_line = loop {
        match lines.next() {
            // Empty lines before the request line (RFC 9112 §2.2).
            Some(l) if l.is_empty() || l == b"\r" => continue,
            Some(l) => break l,
            None => return Ok(None),
        }
    };
    // On `/drip` and `/redirect-to` the query is go-httpbin's (`numbytes`, `duration`,
    // `delay`, `code`; `url`, `status_code`).
    let mut drip_path = false;
    if paths {
        if let Some(path) = path_of(request_line) {
            let query = query_of(request_line).unwrap_or(b"");
            if path == b"/drip" {
                httpbin_drip(&mut c, query)?;
                (any, drip_path) = (true, true);
            } else if path == b"/redirect-to" {
                httpbin_redirect_to(&mut c, query)?;
                (any, drip_path) = (true, true);
            } else if let Some(n) = redirects_left(path)? {
                httpbin_redirect(&mut c, path, query, head, n)?;
                any = true;
            } else {
                any = httpbin_path(&mut c, path, draw)?;
            }
        }
    }
    if let Some(query) = query_of(request_line).filter(|_| !drip_path) {
        for pair in query.split(|&b| b == b'&') {
            let (name, value) = split_once(pair, b'=');
            if let Some(name) = known(name) {
                set(&mut c, name, value, true, &mut draws)?;
                any = true;
            }
        }
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let (name, value) = split_once(line, b':');
        if !eq_ignore_case(name, HEADER) {
            continue;
        }
        any = true;
        for pair in value.split(|&b| b == b';') {
            let pair = pair.trim_ascii();
            if pair.is_empty() {
                continue;
            }
            let (name, value) = split_once(pair, b'=');
            let Some(name) = known(name) else {
                return Err("control: unknown parameter (status, delay, bytes or fault)".into());
            };
            set(&mut c, name, value, false, &mut draws)?;
        }
    }
    Ok(any.then_some(c))
}

/// The query of the request line's target (after its first `?`), if any.
fn query_of(line: &[u8]) -> Option<&[u8]> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let sp = line.iter().position(|&b| b == b' ')?;
    let rest = &line[sp + 1..];
    let target = &rest[..rest.iter().position(|&b| b == b' ').unwrap_or(rest.len())];
    let q = target.iter().position(|&b| b == b'?')?;
    Some(&target[q + 1..])
}

/// The path of the request line's target (before any `?`), for an origin-form target.
fn path_of(line: &[u8]) -> Option<&[u8]> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let sp = line.iter().position(|&b| b == b' ')?;
    let rest = &line[sp + 1..];
    let target = &rest[..rest.iter().position(|&b| b == b' ').unwrap_or(rest.len())];
    let path = &target[..target
        .iter()
        .position(|&b| b == b'?')
        .unwrap_or(target.len())];
    path.starts_with(b"/").then_some(path)
}

#[derive(Clone, Copy)]
enum Name {
    Status,
    Delay,
    Bytes,
    Fault,
}

fn known(name: &[u8]) -> Option<Name> {
    match name {
        b"status" => Some(Name::Status),
        b"delay" => Some(Name::Delay),
        b"bytes" => Some(Name::Bytes),
        b"fault" => Some(Name::Fault),
        _ => None,
    }
}

/// Read `raw` (percent-decoded when it comes from the query) as `name`'s value into `c`.
fn set(
    c: &mut Control,
    name: Name,
    raw: &[u8],
    query: bool,
    draws: &mut Rng,
) -> Result<(), Refusal> {
    let mut buf = [0u8; MAX_VALUE];
    let v = if query {
        percent_decode(raw, &mut buf)
    } else if raw.len() <= MAX_VALUE {
        Some(raw)
    } else {
        None
    };
    let v = v
        .and_then(|v| core::str::from_utf8(v).ok())
        .ok_or("control: a value is too long or not text")?;
    match name {
        Name::Status => {
            c.status = Some(status_code(v).ok_or("control: status must be a code from 200 to 599")?)
        }
        Name::Delay => c.delay_ms = millis(v)?,
        Name::Bytes => {
            c.bytes = Some(match size_bytes(v) {
                Some(Some(n)) if n <= MAX_BYTES => n,
                Some(_) => return Err("control: bytes is over 1GiB".into()),
                None => return Err("control: bytes must be a size like 512, 64K or 1MiB".into()),
            })
        }
        Name::Fault => fault(c, v, draws)?,
    }
    Ok(())
}

const BAD_DELAY: &str = "control: delay must be a duration like 250ms, 2s or 1m, at most 1h";

/// A duration of the flags' grammar, at most [`MAX_DELAY_MS`]; `0` too (no delay).
fn millis(v: &str) -> Result<u64, Refusal> {
    if v == "0" {
        return Ok(0);
    }
    match duration_ms(v).filter(|&ms| ms <= MAX_DELAY_MS) {
        Some(ms) => Ok(ms),
        None if is_bare_number(v) => Err(Refusal::new(
            "control: ",
            Bad::NoUnit {
                what: "delay",
                number: v,
            },
        )),
        None => Err(BAD_DELAY.into()),
    }
}

/// What a `fault=` value's error follows.
const FAULT: &str = "control: fault: ";

/// `KIND[:ARGS][@SHARE]`, a fault value of `--fault`'s grammar. A fault of each group (the
/// latency, the delivery, the error) replaces the one given before it, and its share is drawn
/// at once, as `--fault` draws it: one that falls on the other answers leaves its group empty.
/// A status mix and a sequence are kept over many answers: a request takes neither.
fn fault(c: &mut Control, v: &str, rng: &mut Rng) -> Result<(), Refusal> {
    let bad = |b| Refusal::new(FAULT, b);
    let (v, share) = fault_value::split_share(v).map_err(bad)?;
    match fault_value::parse(v).map_err(bad)? {
        Value::Latency(l) => {
            c.latency = applies(share, rng);
            c.latency_ms = if c.latency { l.sample_ms(rng) } else { 0 };
        }
        Value::Delivery(d) => c.delivery = applies(share, rng).then_some(d),
        Value::Error {
            per_million,
            status,
            body,
        } => {
            let share = (u64::from(per_million) * u64::from(share) / u64::from(EVERY)) as u32;
            c.error = applies(share, rng).then(|| ErrorAnswer::new(status, body));
        }
        Value::Status(_) | Value::Sequence { .. } => {
            return Err(bad(Bad::Rule(
                "status and seq span many answers: give them to --fault (a request takes \
                 status=CODE)",
            )));
        }
    }
    Ok(())
}

/// Whether a fault with `share` (millionths) applies: a draw only when the share is less than
/// every answer, as for `--fault`.
fn applies(share: u32, rng: &mut Rng) -> bool {
    share >= EVERY || rng.below(u64::from(EVERY)) < u64::from(share)
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each), and this path is cold. The linker folds the
/// copies of this function that come out identical.
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

#[cfg(test)]
mod tests;
