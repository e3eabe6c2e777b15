//! `--control`: a request chooses its answer, by query parameters (`?status=503&delay=250ms`)
//! and by one header field (`X-Canned-Control: status=503;delay=250ms`), in the grammar of the
//! flags: a status, a delay, a body of N bytes, and a delivery fault. Read from the head's
//! bytes as the parser validated them, without allocating: an error is a static text naming
//! what is wrong, for the 400 it answers.

use crate::values::{duration_ms, size_bytes};

/// The request header field that carries a control (matched without regard to case).
pub const HEADER: &[u8] = b"x-canned-control";

/// The longest delay a request may ask for (ms), as for the flags: 1 h.
pub const MAX_DELAY_MS: u64 = 3_600_000;

/// The largest body a request may ask for (bytes), as for the flags: 1 GiB.
pub const MAX_BYTES: u64 = 1 << 30;

/// The longest value read (after percent-decoding); a longer one is refused.
const MAX_VALUE: usize = 64;

/// What a request asked for. Fields it did not name are `None` (or 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Control {
    /// `status=CODE` (200 to 599).
    pub status: Option<u16>,
    /// `delay=D`, plus `fault=latency:D`: the answer is held this long (ms).
    pub delay_ms: u64,
    /// `bytes=SIZE`: the body is this many filler bytes.
    pub bytes: Option<u64>,
    /// `fault=stall`, `fault=truncate:N`, `fault=reset:N`.
    pub delivery: Option<Delivery>,
    /// A `fault=latency:D` was given (counted and logged as a latency fault).
    pub latency: bool,
}

/// How a controlled answer is delivered, when a fault changes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Read the request, never answer.
    Stall,
    /// The first bytes of the answer, then FIN.
    Truncate(Cut),
    /// The first bytes of the answer, then RST.
    Reset(Cut),
}

/// How much of an answer a truncate or reset fault lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The first N bytes.
    Bytes(u64),
    /// The first N percent (0 to 100), rounded down.
    Percent(u8),
}

impl Cut {
    /// Bytes to send of an answer `total` bytes long.
    pub fn keep(self, total: u64) -> u64 {
        match self {
            Cut::Bytes(n) => total.min(n),
            Cut::Percent(p) => total * u64::from(p) / 100,
        }
    }
}

/// The control of the request whose head is `head` (its bytes, as the parser accepted them):
/// `Ok(None)` when it names none (no known query parameter, no control field), else what it
/// asks for, or the one-line text of what is wrong.
pub fn from_head(head: &[u8]) -> Result<Option<Control>, &'static str> {
    let mut c = Control::default();
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
    if let Some(query) = query_of(request_line) {
        for pair in query.split(|&b| b == b'&') {
            let (name, value) = split_once(pair, b'=');
            if let Some(name) = known(name) {
                set(&mut c, name, value, true)?;
                any = true;
            }
        }
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let (name, value) = split_once(line, b':');
        if !name.eq_ignore_ascii_case(HEADER) {
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
                return Err("control: unknown parameter (status, delay, bytes or fault)");
            };
            set(&mut c, name, value, false)?;
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

fn split_once(s: &[u8], byte: u8) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == byte) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, &[]),
    }
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
fn set(c: &mut Control, name: Name, raw: &[u8], query: bool) -> Result<(), &'static str> {
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
            c.status = Some(match v.parse::<u16>() {
                Ok(s) if (200..=599).contains(&s) && v.len() == 3 => s,
                _ => return Err("control: status must be a code from 200 to 599"),
            })
        }
        Name::Delay => c.delay_ms = millis(v).ok_or(BAD_DELAY)?,
        Name::Bytes => {
            c.bytes = Some(match size_bytes(v) {
                Some(Some(n)) if n <= MAX_BYTES => n,
                Some(_) => return Err("control: bytes is over 1GiB"),
                None => return Err("control: bytes must be a size like 512, 64K or 1MiB"),
            })
        }
        Name::Fault => fault(c, v)?,
    }
    Ok(())
}

const BAD_DELAY: &str = "control: delay must be a duration like 250ms, 2s or 1m, at most 1h";

/// A duration of the flags' grammar, at most [`MAX_DELAY_MS`]; `0` too (no delay).
fn millis(v: &str) -> Option<u64> {
    if v == "0" {
        return Some(0);
    }
    duration_ms(v).filter(|&ms| ms <= MAX_DELAY_MS)
}

/// `latency:D`, `stall`, `truncate:N` or `N%`, `reset:N` or `N%`.
fn fault(c: &mut Control, v: &str) -> Result<(), &'static str> {
    let (kind, args) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    match (kind, args) {
        ("latency", Some(a)) => {
            c.delay_ms = c.delay_ms.saturating_add(millis(a).ok_or(
                "control: fault=latency takes one duration, like latency:250ms, at most 1h",
            )?);
            c.latency = true;
        }
        ("stall", None) => c.delivery = Some(Delivery::Stall),
        ("truncate", Some(a)) => c.delivery = Some(Delivery::Truncate(cut(a)?)),
        ("reset", Some(a)) => c.delivery = Some(Delivery::Reset(cut(a)?)),
        ("drip" | "garbage" | "error", _) => {
            return Err("control: fault drip, garbage and error are not available per request");
        }
        _ => {
            return Err(
                "control: fault must be latency:D, stall, truncate:N or N%, or reset:N or N%",
            );
        }
    }
    Ok(())
}

/// `100` (bytes, the size grammar) or `50%`.
fn cut(a: &str) -> Result<Cut, &'static str> {
    if let Some(p) = a.strip_suffix('%') {
        return match p.parse::<u8>() {
            Ok(p) if p <= 100 => Ok(Cut::Percent(p)),
            _ => Err("control: a cut must be a size or a percentage from 0% to 100%"),
        };
    }
    match size_bytes(a) {
        Some(Some(n)) => Ok(Cut::Bytes(n)),
        _ => Err("control: a cut must be a size or a percentage from 0% to 100%"),
    }
}

/// `%XX` decoded (and `+` as a space, as a form encodes it) into `buf`; `None` when the value
/// does not fit or an escape is malformed.
fn percent_decode<'b>(raw: &[u8], buf: &'b mut [u8; MAX_VALUE]) -> Option<&'b [u8]> {
    let (mut i, mut n) = (0, 0);
    while i < raw.len() {
        let b = match raw[i] {
            b'%' => {
                let hex = |c: u8| (c as char).to_digit(16);
                let hi = hex(*raw.get(i + 1)?)?;
                let lo = hex(*raw.get(i + 2)?)?;
                i += 2;
                (hi * 16 + lo) as u8
            }
            b'+' => b' ',
            b => b,
        };
        *buf.get_mut(n)? = b;
        n += 1;
        i += 1;
    }
    Some(&buf[..n])
}

#[cfg(test)]
mod tests;
