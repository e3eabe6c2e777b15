//! Conditional requests (RFC 9110 §13) and ranges together: what a request head with
//! `If-Match`, `If-None-Match`, `If-Modified-Since`, `If-Unmodified-Since`, `If-Range` or
//! `Range` asks of a representation with a given entity-tag and modification time, evaluated
//! in the order of §13.2.2, without allocation (`no_std`).
//!
//! | step | field (when present) | false | RFC 9110 |
//! |---|---|---|---|
//! | 1 | `If-Match` | 412 | §13.1.1 |
//! | 2 | `If-Unmodified-Since`, without `If-Match` | 412 | §13.1.4 |
//! | 3 | `If-None-Match` | 304 for GET and HEAD, else 412 | §13.1.2 |
//! | 4 | `If-Modified-Since`, without `If-None-Match`, GET and HEAD only | 304 | §13.1.3 |
//! | 5 | `If-Range`, with `Range`, GET and HEAD only | the whole body, 200 | §13.1.5 |
//! | 6 | `Range`, GET and HEAD only | 206, or 416 (see [`crate::range`]) | §14.2 |
//!
//! A date that is not an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), a field given twice
//! with a date, or an `If-Modified-Since` on another method is ignored (§13.1.3, §13.1.4).
//! The obsolete RFC 850 and asctime forms are not read, and a date in one is ignored too.
//! The validators each route compares with are kept here too ([`Representations`]), made at
//! start-up.
//!
//! ```
//! use canned::conditional::{Answer, evaluate};
//!
//! let head = b"GET / HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n";
//! assert_eq!(evaluate(head, true, None, 10, b"\"v1\"", Some(0)), Answer::NotModified);
//! let head = b"GET / HTTP/1.1\r\nHost: x\r\nIf-Range: \"v0\"\r\n\r\n";
//! assert_eq!(evaluate(head, true, Some(b"bytes=0-1"), 10, b"\"v1\"", None), Answer::Whole);
//! ```

use crate::range::{Outcome, resolve};

/// What a request gets, all its conditions and its range evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The whole response, as without the fields.
    Whole,
    /// 206: bytes `first..=last` of the body.
    Partial {
        /// The first byte's offset.
        first: u64,
        /// The last byte's offset (inclusive).
        last: u64,
    },
    /// 416 with `Content-Range: bytes */LEN`.
    Unsatisfiable,
    /// 304 (no body).
    NotModified,
    /// 412 (no body).
    PreconditionFailed,
}

impl Answer {
    /// The status this answer has, `None` for the route's own (the whole response).
    pub fn status(self) -> Option<u16> {
        match self {
            Answer::Whole => None,
            Answer::Partial { .. } => Some(206),
            Answer::Unsatisfiable => Some(416),
            Answer::NotModified => Some(304),
            Answer::PreconditionFailed => Some(412),
        }
    }
}

/// The conditional fields of one head (values OWS-trimmed; a date field that came twice has
/// an empty value, which is no date and so is ignored).
#[derive(Default)]
struct Fields<'a> {
    if_modified_since: Option<&'a [u8]>,
    if_unmodified_since: Option<&'a [u8]>,
    if_range: Option<&'a [u8]>,
    /// `If-Match` and `If-None-Match` may come in several lines (§5.3): each is read as a
    /// list of its own, and any line's match is a match.
    if_match_lines: u16,
    if_none_match_lines: u16,
}

fn trim(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\r'] = v {
        v = rest;
    }
    v
}

/// Keep `v` as the field's value, or an empty (invalid) one when it came before.
fn once<'a>(slot: &mut Option<&'a [u8]>, v: &'a [u8]) {
    *slot = Some(if slot.is_some() { b"" } else { v });
}

impl<'a> Fields<'a> {
    /// The conditional fields of `head` (a whole head the parser accepted).
    fn scan(head: &'a [u8]) -> Fields<'a> {
        let mut f = Fields::default();
        for line in head.split(|&c| c == b'\n').skip(1) {
            let Some(colon) = line.iter().position(|&c| c == b':') else {
                continue;
            };
            let (name, value) = (&line[..colon], trim(&line[colon + 1..]));
            if eq_ignore_case(name, b"if-match") {
                f.if_match_lines += 1;
            } else if eq_ignore_case(name, b"if-none-match") {
                f.if_none_match_lines += 1;
            } else if eq_ignore_case(name, b"if-modified-since") {
                once(&mut f.if_modified_since, value);
            } else if eq_ignore_case(name, b"if-unmodified-since") {
                once(&mut f.if_unmodified_since, value);
            } else if eq_ignore_case(name, b"if-range") {
                once(&mut f.if_range, value);
            }
        }
        f
    }
}

/// The `Range` field's value in `head` (a whole head the parser accepted), OWS trimmed, as
/// [`crate::parser::Request::range`] has it: empty when the field came twice (RFC 9110 §5.3),
/// `None` without it. For a caller that kept only the parser's flag.
pub fn range_field(head: &[u8]) -> Option<&[u8]> {
    let mut range = None;
    for line in head.split(|&c| c == b'\n').skip(1) {
        if let Some(colon) = line.iter().position(|&c| c == b':') {
            if eq_ignore_case(&line[..colon], b"range") {
                once(&mut range, trim(&line[colon + 1..]));
            }
        }
    }
    range
}

/// The method of the request whose head is `head` (a whole head the parser accepted, maybe
/// after empty lines, RFC 9112 §2.2).
pub fn method(head: &[u8]) -> &[u8] {
    let start = head
        .iter()
        .position(|&c| c != b'\r' && c != b'\n')
        .unwrap_or(head.len());
    let line = &head[start..];
    &line[..line.iter().position(|&c| c == b' ').unwrap_or(line.len())]
}

/// Whether any line of field `name` in `head` lists a tag matching `etag` (`*` matches any),
/// compared strongly or weakly (§8.8.3.2).
fn any_line_matches(head: &[u8], name: &[u8], etag: &[u8], strong: bool) -> bool {
    head.split(|&c| c == b'\n').skip(1).any(|line| {
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            return false;
        };
        eq_ignore_case(&line[..colon], name) && list_matches(trim(&line[colon + 1..]), etag, strong)
    })
}

/// One entity-tag: (weak, opaque-tag with its quotes), and the rest of the input.
///
/// ```text
/// entity-tag = [ weak ] opaque-tag      weak = %s"W/"
/// opaque-tag = DQUOTE *etagc DQUOTE     etagc = %x21 / %x23-7E / obs-text
/// ```
fn entity_tag(v: &[u8]) -> Option<(bool, &[u8], &[u8])> {
    let (weak, v) = match v.strip_prefix(b"W/") {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    if v.first() != Some(&b'"') {
        return None;
    }
    let end = v[1..].iter().position(|&c| c == b'"')? + 2;
    if !v[1..end - 1]
        .iter()
        .all(|&c| c == 0x21 || (0x23..=0x7e).contains(&c) || c >= 0x80)
    {
        return None;
    }
    Some((weak, &v[..end], &v[end..]))
}

/// Whether `v` is an entity-tag as `--etag` takes it: exactly one.
pub fn is_entity_tag(v: &[u8]) -> bool {
    entity_tag(v).is_some_and(|(_, _, rest)| rest.is_empty())
}

/// Whether the list `v` (`*`, or `1#entity-tag`) has a member matching `etag`; a malformed
/// list matches nothing.
fn list_matches(v: &[u8], etag: &[u8], strong: bool) -> bool {
    if v == b"*" {
        return true;
    }
    let Some((ours_weak, ours, _)) = entity_tag(etag) else {
        return false;
    };
    let mut v = v;
    loop {
        while let [b' ' | b'\t' | b',', rest @ ..] = v {
            v = rest;
        }
        if v.is_empty() {
            return false;
        }
        let Some((weak, tag, rest)) = entity_tag(v) else {
            return false;
        };
        if tag == ours && !(strong && (weak || ours_weak)) {
            return true;
        }
        v = rest;
    }
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) as seconds since
/// 1970, or `None` when it is not one.
pub fn parse_date(v: &[u8]) -> Option<u64> {
    const MONTHS: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    const DAYS: [&[u8; 3]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
    if v.len() != 29 || &v[3..5] != b", " || &v[25..] != b" GMT" {
        return None;
    }
    if !DAYS.iter().any(|d| &v[..3] == *d) {
        return None;
    }
    let num = |r: core::ops::Range<usize>| -> Option<u64> {
        v[r].iter().try_fold(0u64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u64::from(c - b'0'))
        })
    };
    let sep = [
        (4, b' '),
        (7, b' '),
        (11, b' '),
        (16, b' '),
        (19, b':'),
        (22, b':'),
    ];
    if sep.iter().any(|&(i, c)| v[i] != c) {
        return None;
    }
    let day = num(5..7)?;
    let month = MONTHS.iter().position(|m| &v[8..11] == *m)? as u64 + 1;
    let year = num(12..16)?;
    let (h, m, s) = (num(17..19)?, num(20..22)?, num(23..25)?);
    if !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 || year < 1970 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm), from 1970-01-01.
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + h * 3_600 + m * 60 + s)
}

/// What a request whose head is `head` gets from a representation without validators
/// (`--no-validators`): the conditions are not read, but an `If-Range`, which nothing can
/// match, sends the whole body.
pub fn evaluate_range_only(
    head: &[u8],
    get_or_head: bool,
    range: Option<&[u8]>,
    len: u64,
) -> Answer {
    let Some(range) = range.filter(|_| get_or_head) else {
        return Answer::Whole;
    };
    if Fields::scan(head).if_range.is_some() {
        return Answer::Whole;
    }
    match resolve(range, len) {
        Outcome::Whole => Answer::Whole,
        Outcome::Partial { first, last } => Answer::Partial { first, last },
        Outcome::Unsatisfiable => Answer::Unsatisfiable,
    }
}

/// What a request whose head is `head` gets from a representation of `len` bytes whose
/// entity-tag is `etag` (quotes included, `W/` when weak; empty: none) and whose
/// modification time is `modified` (seconds since 1970; `None`: none). `get_or_head`: the
/// method is GET or HEAD; `range`: the `Range` value the parser found.
pub fn evaluate(
    head: &[u8],
    get_or_head: bool,
    range: Option<&[u8]>,
    len: u64,
    etag: &[u8],
    modified: Option<u64>,
) -> Answer {
    let f = Fields::scan(head);
    let date = |v: Option<&[u8]>| v.and_then(parse_date);
    // 1, 2: If-Match, else If-Unmodified-Since.
    if f.if_match_lines > 0 {
        if !any_line_matches(head, b"if-match", etag, true) {
            return Answer::PreconditionFailed;
        }
    } else if let (Some(since), Some(m)) = (date(f.if_unmodified_since), modified) {
        if m > since {
            return Answer::PreconditionFailed;
        }
    }
    // 3, 4: If-None-Match, else If-Modified-Since.
    if f.if_none_match_lines > 0 {
        if any_line_matches(head, b"if-none-match", etag, false) {
            return if get_or_head {
                Answer::NotModified
            } else {
                Answer::PreconditionFailed
            };
        }
    } else if let (true, Some(since), Some(m)) = (get_or_head, date(f.if_modified_since), modified)
    {
        if m <= since {
            return Answer::NotModified;
        }
    }
    // 5, 6: If-Range, then Range.
    let Some(range) = range.filter(|_| get_or_head) else {
        return Answer::Whole;
    };
    if let Some(v) = f.if_range {
        let matches = if v.first() == Some(&b'"') || v.starts_with(b"W/") {
            crate::range::if_range_matches(v, etag)
        } else {
            // §13.1.5: a date matches only when it is exactly the Last-Modified.
            parse_date(v).is_some_and(|d| Some(d) == modified)
        };
        if !matches {
            return Answer::Whole;
        }
    }
    match resolve(range, len) {
        Outcome::Whole => Answer::Whole,
        Outcome::Partial { first, last } => Answer::Partial { first, last },
        Outcome::Unsatisfiable => Answer::Unsatisfiable,
    }
}

/// What a route that serves ranges and conditional requests compares them with: its
/// validators, as its heads carry them (`ETag`, `Last-Modified`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Representation {
    /// The entity-tag, quotes included (`W/` when weak); empty: none (`--no-validators`).
    pub etag: Box<[u8]>,
    /// The modification time, seconds since 1970; `None`: none.
    pub modified: Option<u64>,
}

/// The routes that serve ranges and conditional requests, with their validators, by route as
/// the routes were given at start-up: made once, shared by every worker (a copy of a route's
/// response that a fault sends is looked up by the route it copies).
#[derive(Clone, Debug, Default)]
pub struct Representations(std::sync::Arc<[Option<Representation>]>);

impl Representations {
    /// By route, the representation of each route that serves ranges (none: empty).
    pub fn new(by_route: Vec<Option<Representation>>) -> Representations {
        if by_route.iter().all(Option::is_none) {
            return Representations::default();
        }
        Representations(by_route.into())
    }

    /// The validators of route `route`, when it serves ranges and conditional requests.
    pub fn get(&self, route: usize) -> Option<&Representation> {
        self.0.get(route)?.as_ref()
    }
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each), and this path is cold. The linker folds the
/// copies of this function that come out identical.
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

#[cfg(test)]
mod tests {
    use super::{Answer, evaluate, is_entity_tag, parse_date};
    use Answer::{NotModified, Partial, PreconditionFailed, Unsatisfiable, Whole};

    const TAG: &[u8] = b"\"v1\"";
    /// Tue, 01 Dec 2026 00:00:00 GMT
    const WHEN: u64 = 1_796_083_200;
    const BEFORE: &str = "Mon, 30 Nov 2026 00:00:00 GMT";
    const AT: &str = "Tue, 01 Dec 2026 00:00:00 GMT";
    const AFTER: &str = "Wed, 02 Dec 2026 00:00:00 GMT";

    fn ask(fields: &str, method: &str, range: Option<&str>) -> Answer {
        let head = format!("{method} / HTTP/1.1\r\nHost: x\r\n{fields}\r\n");
        let get_or_head = method == "GET" || method == "HEAD";
        evaluate(
            head.as_bytes(),
            get_or_head,
            range.map(str::as_bytes),
            100,
            TAG,
            Some(WHEN),
        )
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date(AT.as_bytes()), Some(WHEN));
        assert_eq!(
            parse_date(b"Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(0),
            "the epoch"
        );
        assert_eq!(
            parse_date(b"Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        for bad in [
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Xyz, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "",
        ] {
            assert_eq!(parse_date(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn entity_tags() {
        for good in ["\"\"", "\"x\"", "W/\"x\"", "\"a,b\""] {
            assert!(is_entity_tag(good.as_bytes()), "{good}");
        }
        for bad in ["x", "\"x", "w/\"x\"", "\"x\" ", "\"a\"\"b\"", "\"a b\""] {
            assert!(!is_entity_tag(bad.as_bytes()), "{bad}");
        }
    }

    /// (fields, method, Range, answer, why): RFC 9110 §13.2.2's order, one case per step and
    /// per pair of steps that decide against each other.
    #[test]
    fn precedence() {
        let range = Some("bytes=0-9");
        let part = Partial { first: 0, last: 9 };
        let h = |name: &str, v: &str| format!("{name}: {v}\r\n");
        let cases: Vec<(String, &str, Option<&str>, Answer, &str)> = vec![
            (String::new(), "GET", None, Whole, "no field"),
            (String::new(), "GET", range, part, "a range alone"),
            (String::new(), "POST", range, Whole, "a range on POST"),
            (
                String::new(),
                "GET",
                Some("bytes=100-"),
                Unsatisfiable,
                "416",
            ),
            (h("If-Match", "\"v1\""), "GET", None, Whole, "1 true"),
            (
                h("If-Match", "\"v0\""),
                "GET",
                None,
                PreconditionFailed,
                "1 false",
            ),
            (h("If-Match", "*"), "GET", None, Whole, "1 star"),
            (
                h("If-Match", "\"v0\", \"v1\""),
                "GET",
                None,
                Whole,
                "1 list",
            ),
            (
                h("If-Match", "W/\"v1\""),
                "GET",
                None,
                PreconditionFailed,
                "1 weak never matches",
            ),
            (
                h("If-Match", "\"v0\"") + &h("If-Match", "\"v1\""),
                "GET",
                None,
                Whole,
                "1 two lines",
            ),
            (h("If-Unmodified-Since", AT), "GET", None, Whole, "2 true"),
            (
                h("If-Unmodified-Since", BEFORE),
                "PUT",
                None,
                PreconditionFailed,
                "2 false",
            ),
            (
                h("If-Unmodified-Since", "yesterday"),
                "GET",
                None,
                Whole,
                "2 invalid date ignored",
            ),
            (
                h("If-Match", "\"v1\"") + &h("If-Unmodified-Since", BEFORE),
                "GET",
                None,
                Whole,
                "2 ignored with If-Match",
            ),
            (
                h("If-None-Match", "\"v1\""),
                "GET",
                None,
                NotModified,
                "3 false, GET",
            ),
            (
                h("If-None-Match", "\"v1\""),
                "HEAD",
                None,
                NotModified,
                "3 false, HEAD",
            ),
            (
                h("If-None-Match", "W/\"v1\""),
                "GET",
                None,
                NotModified,
                "3 weak comparison",
            ),
            (
                h("If-None-Match", "\"v1\""),
                "POST",
                None,
                PreconditionFailed,
                "3 false, POST",
            ),
            (h("If-None-Match", "*"), "GET", None, NotModified, "3 star"),
            (
                h("If-None-Match", "\"v0\""),
                "GET",
                range,
                part,
                "3 true, then the range",
            ),
            (
                h("If-Match", "\"v0\"") + &h("If-None-Match", "\"v1\""),
                "GET",
                None,
                PreconditionFailed,
                "1 before 3",
            ),
            (
                h("If-Modified-Since", AT),
                "GET",
                None,
                NotModified,
                "4 false",
            ),
            (
                h("If-Modified-Since", AFTER),
                "GET",
                None,
                NotModified,
                "4 false, later date",
            ),
            (h("If-Modified-Since", BEFORE), "GET", None, Whole, "4 true"),
            (
                h("If-Modified-Since", AT),
                "POST",
                None,
                Whole,
                "4 only GET and HEAD",
            ),
            (
                h("If-Modified-Since", AT) + &h("If-Modified-Since", AT),
                "GET",
                None,
                Whole,
                "4 twice: invalid",
            ),
            (
                h("If-None-Match", "\"v0\"") + &h("If-Modified-Since", AT),
                "GET",
                None,
                Whole,
                "4 ignored with If-None-Match",
            ),
            (
                h("If-Unmodified-Since", BEFORE) + &h("If-None-Match", "\"v1\""),
                "GET",
                None,
                PreconditionFailed,
                "2 before 3",
            ),
            (h("If-Range", "\"v1\""), "GET", range, part, "5 tag matches"),
            (h("If-Range", "\"v0\""), "GET", range, Whole, "5 other tag"),
            (
                h("If-Range", "W/\"v1\""),
                "GET",
                range,
                Whole,
                "5 weak never matches",
            ),
            (h("If-Range", AT), "GET", range, part, "5 date exactly"),
            (h("If-Range", AFTER), "GET", range, Whole, "5 other date"),
            (
                h("If-Range", "\"v0\""),
                "GET",
                None,
                Whole,
                "5 without Range: ignored",
            ),
            (
                h("If-Modified-Since", AT) + &h("If-Range", "\"v1\""),
                "GET",
                range,
                NotModified,
                "4 before 5",
            ),
        ];
        for (fields, method, range, want, why) in cases {
            assert_eq!(ask(&fields, method, range), want, "{why}: {fields:?}");
        }
    }

    #[test]
    fn a_weak_tag_of_ours() {
        let head = b"GET / HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"x\"\r\n\r\n";
        assert_eq!(evaluate(head, true, None, 1, b"W/\"x\"", None), NotModified);
        let head = b"GET / HTTP/1.1\r\nHost: x\r\nIf-Range: W/\"x\"\r\n\r\n";
        let range = Some(&b"bytes=0-0"[..]);
        assert_eq!(evaluate(head, true, range, 1, b"W/\"x\"", None), Whole);
        let head = b"GET / HTTP/1.1\r\nHost: x\r\nIf-Match: \"x\"\r\n\r\n";
        assert_eq!(
            evaluate(head, true, None, 1, b"W/\"x\"", None),
            PreconditionFailed
        );
    }
}
