//! `--control`: a request chooses its answer, by query parameters (`?status=503&delay=250ms`)
//! and by one header field (`X-Canned-Control: status=503;delay=250ms`), in the grammar of the
//! flags: a status, a delay, a body of N bytes, and the faults of `--fault` (a latency, a way
//! of delivering the answer, an error status), each with an optional share. Read from the
//! head's bytes as the parser validated them, without allocating: an error is a static text
//! naming what is wrong (with, for a duration without its unit, the number), for the 400 it
//! answers.

use crate::echo::EchoFormat;
use crate::values::{
    EVERY, duration_ms, fraction_millionths, is_bare_number, scaled, size_bytes, split_share,
};

/// The request header field that carries a control (matched without regard to case).
pub const HEADER: &[u8] = b"x-canned-control";

/// The longest delay a request may ask for (ms), as for the flags: 1 h.
pub const MAX_DELAY_MS: u64 = crate::values::MAX_DURATION_MS;

/// The largest body a request may ask for (bytes), as for the flags: 1 GiB.
pub const MAX_BYTES: u64 = 1 << 30;

/// The longest value read (after percent-decoding); a longer one is refused.
const MAX_VALUE: usize = 64;

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
    /// `fault=stall`, `truncate:N`, `reset:N`, `drip:...` or `garbage:N`.
    pub delivery: Option<Delivery>,
    /// A `fault=latency:D` was given (counted and logged as a latency fault).
    pub latency: bool,
    /// `fault=latency:D`: held this long besides `delay` (ms); each is at most 1 h, and the
    /// last of each given counts.
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
    fn from_parts(parts: &[&[u8]]) -> Option<Location> {
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

/// How a controlled answer is delivered, when a fault changes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Read the request, never answer.
    Stall,
    /// The first bytes of the answer, then FIN.
    Truncate(Cut),
    /// The first bytes of the answer, then RST.
    Reset(Cut),
    /// The answer in pieces, paced by the loop's timers.
    Drip(Drip),
    /// This many bytes that are not a response (1 B to 1 MiB), then FIN.
    Garbage(u32),
    /// Read the request, send nothing for `ms` (after any delay), then FIN, or RST.
    Hang {
        /// How long (ms, at most 1 h).
        ms: u64,
        /// RST instead of FIN.
        reset: bool,
    },
    /// The whole answer, then the FIN held back `ms` after its last byte is written.
    SlowClose(u64),
}

/// How a dripped answer is spread out: `--fault`'s drip, in the same units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drip {
    /// `drip:SIZE/D`: `bytes` at once, then `bytes` more every `every_ms`.
    Rate {
        /// Bytes per piece (1 to 1 MiB).
        bytes: u32,
        /// Between pieces (ms).
        every_ms: u64,
    },
    /// `drip:Npieces/D`: `pieces` even pieces (2 to 100,000), the last `over_ms` after the
    /// first.
    Pieces {
        /// Number of pieces.
        pieces: u32,
        /// From the first piece to the last (ms).
        over_ms: u64,
    },
    /// go-httpbin's `/drip`: the head with the body's first of `pieces` even pieces (2 to
    /// 1 MiB) at once, the last `over_us` after the first.
    Body {
        /// Number of pieces of the body.
        pieces: u32,
        /// From the first piece to the last (µs).
        over_us: u64,
    },
    /// `bandwidth:RATE`: `per_s` bytes a second (1 B/s to 1 GiB/s), in pieces sized for the
    /// rate as `--fault`'s.
    Bandwidth {
        /// Bytes per second.
        per_s: u64,
    },
}

/// `fault=error:STATUS[:BODY]`: the status an answer takes instead, and its body (without
/// one, `STATUS REASON` and a newline), kept here because the head it was read from is gone
/// when a request's body has been skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorAnswer {
    /// 200 to 599.
    pub status: u16,
    body: [u8; MAX_VALUE],
    /// The body's length; `u8::MAX` for none.
    body_len: u8,
}

impl ErrorAnswer {
    /// The body given, if one was.
    pub fn body(&self) -> Option<&[u8]> {
        self.body.get(..usize::from(self.body_len))
    }
}

/// What is wrong with a request's control, for the one line of the 400 it answers: a static
/// text, and for a duration without its unit, the number, shown in both its readings
/// (`control: delay: "500" has no unit: write 500ms or 500s`). Kept inline, without
/// allocating, because the head it was read from is gone when a request's body has been
/// skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What is wrong, or what the number without a unit was given for.
    why: &'static str,
    number: [u8; MAX_VALUE],
    /// The number's length; 0 for none.
    number_len: u8,
}

impl Refusal {
    /// `why` was given the number `v`, which has no unit.
    fn bare_number(why: &'static str, v: &str) -> Refusal {
        let mut r = Refusal::from(why);
        // Within the value's bound, so it fits.
        let n = v.len().min(MAX_VALUE);
        r.number[..n].copy_from_slice(&v.as_bytes()[..n]);
        r.number_len = n as u8;
        r
    }

    /// The line's pieces, its newline last.
    pub fn parts(&self) -> [&[u8]; 8] {
        let n = &self.number[..usize::from(self.number_len)];
        if n.is_empty() {
            let mut parts: [&[u8]; 8] = [b""; 8];
            parts[..2].copy_from_slice(&[self.why.as_bytes(), b"\n"]);
            return parts;
        }
        [
            self.why.as_bytes(),
            b": \"",
            n,
            b"\" has no unit: write ",
            n,
            b"ms or ",
            n,
            b"s\n",
        ]
    }
}

impl From<&'static str> for Refusal {
    fn from(why: &'static str) -> Refusal {
        Refusal {
            why,
            number: [0; MAX_VALUE],
            number_len: 0,
        }
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
    let mut draws = Draws(draw);
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

/// go-httpbin's paths (`httpbin/handlers.go` in mccutchen/go-httpbin): `/status/CODE` or a
/// weighted list `/status/200:0.7,500:0.3`, `/delay/SECS`, `/bytes/N`, `/stream-bytes/N`.
/// Returns whether `path` is one of them. Their numbers mean what go-httpbin's do, for the
/// clients written against it: `/delay/3` is 3 seconds, where canned's own durations (`delay=`
/// and the faults') must say their unit.
fn httpbin_path(c: &mut Control, path: &[u8], draw: u64) -> Result<bool, &'static str> {
    let Some((name, arg)) = path[1..]
        .iter()
        .position(|&b| b == b'/')
        .map(|i| (&path[1..i + 1], &path[i + 2..]))
    else {
        return Ok(false);
    };
    let mut buf = [0u8; MAX_VALUE];
    let arg = percent_decode(arg, &mut buf)
        .and_then(|v| core::str::from_utf8(v).ok())
        .ok_or("httpbin: the path's value is too long or not text")?;
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
fn redirects_left(path: &[u8]) -> Result<Option<u64>, &'static str> {
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
fn httpbin_redirect(
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
                name == b"absolute" && value.eq_ignore_ascii_case(b"true")
            }));
    let host: &[u8] = if absolute {
        head.split(|&b| b == b'\n')
            .skip(1)
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .find_map(|l| {
                let (name, value) = split_once(l, b':');
                name.eq_ignore_ascii_case(b"host")
                    .then(|| value.trim_ascii())
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
fn httpbin_redirect_to(c: &mut Control, query: &[u8]) -> Result<(), &'static str> {
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
fn httpbin_drip(c: &mut Control, query: &[u8]) -> Result<(), &'static str> {
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
fn go_duration_ns(v: &str) -> Option<u64> {
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
            .ok_or("httpbin: at most 16 statuses in a list")? = (code, weight);
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

/// A whole number of decimal digits only (no sign), `None` when it is not one or overflows: one
/// copy for every number a control reads.
#[inline(never)]
fn whole(v: &str) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    v.bytes().try_fold(0u64, |n, b| {
        b.is_ascii_digit()
            .then(|| n.checked_mul(10)?.checked_add(u64::from(b - b'0')))?
    })
}

/// A status code of three digits, from 200 to 599.
fn status_code(v: &str) -> Option<u16> {
    whole(v)
        .filter(|s| (200..=599).contains(s) && v.len() == 3)
        .map(|s| s as u16)
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
fn set(
    c: &mut Control,
    name: Name,
    raw: &[u8],
    query: bool,
    draws: &mut Draws,
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
        Name::Delay => c.delay_ms = millis(v, "control: delay", BAD_DELAY)?,
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

/// A duration of the flags' grammar, at most [`MAX_DELAY_MS`]; `0` too (no delay). `Err`:
/// `bad`, or for a number without its unit, `what` with both its readings.
fn millis(v: &str, what: &'static str, bad: &'static str) -> Result<u64, Refusal> {
    if v == "0" {
        return Ok(0);
    }
    match duration_ms(v).filter(|&ms| ms <= MAX_DELAY_MS) {
        Some(ms) => Ok(ms),
        None if is_bare_number(v) => Err(Refusal::bare_number(what, v)),
        None => Err(bad.into()),
    }
}

/// The random numbers of one request's shares: splitmix64's steps from a seed.
struct Draws(u64);

impl Draws {
    /// Whether a fault with `share` (millionths) applies: a draw only when the share is less
    /// than every answer, as for `--fault`.
    fn applies(&mut self, share: u32) -> bool {
        if share >= EVERY {
            return true;
        }
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((u128::from(z) * u128::from(EVERY)) >> 64) < u128::from(share)
    }
}

const BAD_FAULT: &str = "control: fault must be latency:D, stall, truncate:N, reset:N, drip:SIZE/D, \
                         bandwidth:RATE, hang:D, hang:D:reset, slow-close:D, garbage:N or \
                         error:STATUS, with an optional @SHARE";

/// `KIND[:ARGS][@SHARE]`: `latency:D`, `stall`, `truncate:N` or `N%`, `reset:N` or `N%`,
/// `drip:SIZE/D` or `drip:Npieces/D`, `garbage:N`, `error:[RATE:]STATUS[:BODY]`. A fault of
/// each group (the latency, the delivery, the error) replaces the one given before it, and
/// its share is drawn at once: one that falls on the other answers leaves its group empty.
fn fault(c: &mut Control, v: &str, draws: &mut Draws) -> Result<(), Refusal> {
    let (v, share) = split_share(v)
        .map_err(|_| "control: a fault's share must be a rate from 0 to 1, like @0.1 or @10%")?;
    let (kind, args) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    let delivery = match (kind, args) {
        ("latency", Some(a)) => {
            let ms = millis(
                a,
                "control: fault=latency",
                "control: fault=latency takes one duration, like latency:250ms, at most 1h",
            )?;
            let applies = draws.applies(share);
            c.latency = applies;
            c.latency_ms = if applies { ms } else { 0 };
            return Ok(());
        }
        ("error", Some(a)) => {
            let (per_million, e) = error_answer(a)?;
            let share = (u64::from(per_million) * u64::from(share) / u64::from(EVERY)) as u32;
            c.error = draws.applies(share).then_some(e);
            return Ok(());
        }
        ("stall", None) => Delivery::Stall,
        ("truncate", Some(a)) => Delivery::Truncate(cut(a)?),
        ("reset", Some(a)) => Delivery::Reset(cut(a)?),
        ("drip", Some(a)) => {
            if let Some((_, time)) = a.split_once('/').filter(|(_, t)| is_bare_number(t)) {
                return Err(Refusal::bare_number("control: fault=drip's time", time));
            }
            Delivery::Drip(drip(a).ok_or(
                "control: fault=drip takes a size or pieces over a time, like drip:1KiB/100ms or \
                 drip:10pieces/2s (1 B to 1 MiB a piece, 2 to 100000 pieces at least 1 ms apart, \
                 at most 1h)",
            )?)
        }
        ("hang", Some(a)) => {
            let (d, reset) = match a.strip_suffix(":reset") {
                Some(d) => (d, true),
                None => (a, false),
            };
            let ms = millis(
                d,
                "control: fault=hang",
                "control: fault=hang takes a duration, like hang:2s or hang:2s:reset, at most 1h",
            )?;
            Delivery::Hang { ms, reset }
        }
        ("slow-close", Some(a)) => Delivery::SlowClose(millis(
            a,
            "control: fault=slow-close",
            "control: fault=slow-close takes a duration, like slow-close:1s, at most 1h",
        )?),
        ("bandwidth", Some(a)) => {
            let per_s = a
                .strip_suffix("/s")
                .and_then(size_bytes)
                .flatten()
                .filter(|n| (1..=crate::values::BANDWIDTH_MAX).contains(n))
                .ok_or(
                    "control: fault=bandwidth takes a rate, like bandwidth:64KiB/s (1/s to 1GiB/s)",
                )?;
            Delivery::Drip(Drip::Bandwidth { per_s })
        }
        ("garbage", Some(a)) => match size_bytes(a) {
            Some(Some(n)) if (1..=1 << 20).contains(&n) => Delivery::Garbage(n as u32),
            _ => {
                return Err(
                    "control: fault=garbage takes a size from 1 to 1MiB, like garbage:256".into(),
                );
            }
        },
        _ => return Err(BAD_FAULT.into()),
    };
    c.delivery = draws.applies(share).then_some(delivery);
    Ok(())
}

/// `1KiB/100ms` (a size a piece) or `10pieces/2s` (N pieces over a time), in the bounds of
/// `--fault`'s drip.
fn drip(a: &str) -> Option<Drip> {
    let (amount, time) = a.split_once('/')?;
    let ms = duration_ms(time).filter(|&ms| ms <= MAX_DELAY_MS)?;
    if let Some(n) = amount
        .strip_suffix("pieces")
        .or_else(|| amount.strip_suffix("piece"))
    {
        let pieces = whole(n).filter(|p| (2..=100_000).contains(p))? as u32;
        return (ms >= u64::from(pieces - 1)).then_some(Drip::Pieces {
            pieces,
            over_ms: ms,
        });
    }
    match size_bytes(amount)? {
        Some(b) if (1..=1 << 20).contains(&b) => Some(Drip::Rate {
            bytes: b as u32,
            every_ms: ms,
        }),
        _ => None,
    }
}

/// `STATUS[:BODY]` or `RATE:STATUS[:BODY]`, as `--fault`'s error: the rate (millionths;
/// every answer without one) and the answer.
fn error_answer(a: &str) -> Result<(u32, ErrorAnswer), &'static str> {
    const BAD: &str =
        "control: fault=error takes a status from 200 to 599, like error:503 or error:0.1:503:busy";
    let (first, rest) = match a.split_once(':') {
        Some((f, r)) => (f, Some(r)),
        None => (a, None),
    };
    let (per_million, status, body) = match status_code(first) {
        Some(s) => (EVERY, s, rest),
        None => {
            let rate = fraction_millionths(first).ok_or(BAD)?;
            let rest = rest.ok_or(BAD)?;
            let (status, body) = match rest.split_once(':') {
                Some((s, b)) => (s, Some(b)),
                None => (rest, None),
            };
            (rate, status_code(status).ok_or(BAD)?, body)
        }
    };
    let mut e = ErrorAnswer {
        status,
        body: [0; MAX_VALUE],
        body_len: u8::MAX,
    };
    if let Some(body) = body {
        // Within the value's bound, so it fits.
        let n = body.len().min(MAX_VALUE);
        e.body[..n].copy_from_slice(&body.as_bytes()[..n]);
        e.body_len = n as u8;
    }
    Ok((per_million, e))
}

/// `100` (bytes, the size grammar) or `50%`.
fn cut(a: &str) -> Result<Cut, &'static str> {
    if let Some(p) = a.strip_suffix('%') {
        return match whole(p) {
            Some(p) if p <= 100 => Ok(Cut::Percent(p as u8)),
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
fn percent_decode<'b>(raw: &[u8], buf: &'b mut [u8]) -> Option<&'b [u8]> {
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
