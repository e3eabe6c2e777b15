//! What a request's control asked for ([`Control`]), kept inline because the head it was read
//! from is gone once a request's body has been skipped, and the text of what is wrong with one
//! ([`Refusal`]); with the byte helpers the control's readers share.

use crate::fault_value::{Bad, Delivery, whole};

/// The longest value read (after percent-decoding); a longer one is refused.
pub(super) const MAX_VALUE: usize = 64;

/// What a request asked for. Fields it did not name are `None` (or 0); a fault whose share
/// fell on the other answers is not named either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Control {
    /// `status=CODE` (200 to 599).
    pub status: Option<u16>,
    /// `delay=D`: the answer is held this long (ms), and [`Control::latency_ms`] more.
    pub delay_ms: u64,
    /// `bytes=SIZE`: the body is this many filler bytes.
    pub bytes: Option<u64>,
    /// go-httpbin's `/drip`: the `bytes` body is `*`s, not the filler block.
    pub stars: bool,
    /// `fault=stall`, `truncate:N`, `reset:N`, `drip:...`, `garbage:N`, `hang:D`,
    /// `slow-close:D` or `bandwidth:RATE`: the fault grammar's delivery (never
    /// [`Delivery::Whole`]).
    pub delivery: Option<Delivery>,
    /// A `fault=latency:...` was given (counted and logged as a latency fault).
    pub latency: bool,
    /// `fault=latency:...`: held this long besides `delay` (ms, drawn as `--fault`'s: fixed,
    /// uniform or lognormal); each is at most 1 h, and the last of each given counts.
    pub latency_ms: u64,
    /// `fault=error:STATUS[:BODY]`: answered with this status and body instead (counted and
    /// logged as an error fault).
    pub error: Option<ErrorAnswer>,
    /// go-httpbin's redirects: the `Location` the answer carries (its status is `status`).
    pub location: Option<Location>,
}

/// The most bytes of a redirect's `Location` (go-httpbin's `/redirect-to?url=`, or an
/// absolute redirect's `http://HOST/...`); a longer one is refused.
pub const MAX_LOCATION: usize = 256;

/// A redirect's `Location` value, kept inline (the head it was made from is gone when a
/// request's body has been skipped): visible ASCII only, so it cannot end its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    bytes: [u8; MAX_LOCATION],
    len: u16,
}

impl Location {
    /// The value.
    pub fn value(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The pieces written in a row, or `None` when they are longer than [`MAX_LOCATION`] or
    /// hold anything but visible ASCII (RFC 3986 §2: a URI reference is visible ASCII).
    pub(super) fn from_parts(parts: &[&[u8]]) -> Option<Location> {
        let mut l = Location {
            bytes: [0; MAX_LOCATION],
            len: 0,
        };
        for p in parts {
            let at = usize::from(l.len);
            l.bytes.get_mut(at..at + p.len())?.copy_from_slice(p);
            l.len += p.len() as u16;
        }
        let ok = l.len > 0 && l.value().iter().all(|b| (0x21..0x7f).contains(b));
        ok.then_some(l)
    }
}

/// `fault=error:STATUS[:BODY]`: the grammar's error answer ([`Value::Error`](crate::fault_value::Value::Error)) kept inline: the
/// status an answer takes instead, and its body (without one, `STATUS REASON` and a newline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorAnswer {
    /// 200 to 599.
    pub status: u16,
    body: Inline,
    /// Whether a body was given.
    has_body: bool,
}

impl ErrorAnswer {
    /// `status`, and `body` (at most the value's bound, which holds it).
    pub(super) fn new(status: u16, body: Option<&str>) -> ErrorAnswer {
        ErrorAnswer {
            status,
            body: Inline::new(body.unwrap_or("")),
            has_body: body.is_some(),
        }
    }

    /// The body given, if one was.
    pub fn body(&self) -> Option<&[u8]> {
        self.has_body.then(|| self.body.bytes())
    }
}

/// A piece of a value, kept inline (at most [`MAX_VALUE`] bytes, the bound of every value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Inline {
    bytes: [u8; MAX_VALUE],
    len: u8,
}

impl Inline {
    fn new(v: &str) -> Inline {
        let n = v.len().min(MAX_VALUE);
        let mut i = Inline {
            bytes: [0; MAX_VALUE],
            len: n as u8,
        };
        i.bytes[..n].copy_from_slice(&v.as_bytes()[..n]);
        i
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// How a [`Refusal`]'s line reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// The rule's text.
    Rule,
    /// `WHAT: "N" has no unit: write Nms or Ns`.
    NoUnit,
    /// `"KIND" is not a fault kind (...)`.
    Kind,
}

/// What is wrong with a request's control, for the one line of the 400 it answers: a prefix
/// naming the parameter (`control: `, `control: fault=`) and the rule it breaks, in the fault
/// grammar's words ([`Bad`]) for a fault. Kept inline, without allocating, because the head it
/// was read from is gone when a request's body has been skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    prefix: &'static str,
    /// The rule, or what a number without its unit was given for.
    text: &'static str,
    /// The number without its unit, or the kind that is none.
    value: Inline,
    form: Form,
}

/// The most pieces of a [`Refusal`]'s line.
pub const PARTS: usize = 9;

impl Refusal {
    /// `bad`, after `prefix`.
    pub(super) fn new(prefix: &'static str, bad: Bad<'_>) -> Refusal {
        let (text, value, form) = match bad {
            Bad::Rule(rule) => (rule, "", Form::Rule),
            Bad::NoUnit { what, number } => (what, number, Form::NoUnit),
            Bad::Kind(kind) => (crate::fault_value::KIND_NAMES, kind, Form::Kind),
        };
        Refusal {
            prefix,
            text,
            value: Inline::new(value),
            form,
        }
    }

    /// The line's pieces, its newline last (the rest empty).
    pub fn parts(&self) -> [&[u8]; PARTS] {
        let (p, t, v) = (
            self.prefix.as_bytes(),
            self.text.as_bytes(),
            self.value.bytes(),
        );
        let mut parts: [&[u8]; PARTS] = [b""; PARTS];
        match self.form {
            Form::Rule => parts[..3].copy_from_slice(&[p, t, b"\n"]),
            Form::NoUnit => parts.copy_from_slice(&[
                p,
                t,
                b": \"",
                v,
                b"\" has no unit: write ",
                v,
                b"ms or ",
                v,
                b"s\n",
            ]),
            Form::Kind => {
                parts[..6].copy_from_slice(&[p, b"\"", v, b"\" is not a fault kind (", t, b")\n"])
            }
        }
        parts
    }
}

impl From<&'static str> for Refusal {
    /// The whole line, without a prefix.
    fn from(why: &'static str) -> Refusal {
        Refusal::new("", Bad::Rule(why))
    }
}

impl core::fmt::Display for Refusal {
    /// The line, without its newline.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for p in self.parts() {
            f.write_str(core::str::from_utf8(p.strip_suffix(b"\n").unwrap_or(p)).unwrap_or(""))?;
        }
        Ok(())
    }
}

/// A status code of three digits, from 200 to 599.
pub(super) fn status_code(v: &str) -> Option<u16> {
    whole(v)
        .filter(|s| (200..=599).contains(s) && v.len() == 3)
        .map(|s| s as u16)
}

pub(super) fn split_once(s: &[u8], byte: u8) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == byte) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, &[]),
    }
}

/// `%XX` decoded (and `+` as a space, as a form encodes it) into `buf`; `None` when the value
/// does not fit or an escape is malformed.
pub(super) fn percent_decode<'b>(raw: &[u8], buf: &'b mut [u8]) -> Option<&'b [u8]> {
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
