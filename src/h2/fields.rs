//! Header fields both ways: a request's decoded fields checked against RFC 9113 §8.2 and §8.3
//! ([`RequestFields`]), and a response head of the `response` layer turned into an HPACK
//! block ([`encode_head`]) of static-table indexes and literals without indexing, which
//! change no encoder state: the same bytes for every response of a route, whatever the
//! connection has sent before.

use crate::hpack::{Field, Source};
#[cfg(feature = "echo")]
use crate::response::ExtendCold;

/// A value the field rules forbid (§8.2.1).
const BAD_VALUE: &str = "a field value with NUL, CR, LF or surrounding whitespace (§8.2.1)";

/// Which pseudo-header a field is (§8.3), if any.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pseudo {
    Method,
    Scheme,
    Path,
    Authority,
    /// `:status` or one no RFC defines: malformed in a request.
    Other,
    /// A regular field.
    None,
}

impl Pseudo {
    /// The field at `index` of the static table (RFC 7541 Appendix A), or named `name` when
    /// `index` is 0.
    fn of(index: u8, name: &[u8]) -> Pseudo {
        match index {
            1 => Pseudo::Authority,
            2 | 3 => Pseudo::Method,
            4 | 5 => Pseudo::Path,
            6 | 7 => Pseudo::Scheme,
            8..=14 => Pseudo::Other,
            15.. => Pseudo::None,
            0 => match name {
                [b':', pseudo @ ..] => match pseudo {
                    b"method" => Pseudo::Method,
                    b"scheme" => Pseudo::Scheme,
                    b"path" => Pseudo::Path,
                    b"authority" => Pseudo::Authority,
                    _ => Pseudo::Other,
                },
                _ => Pseudo::None,
            },
        }
    }
}

/// What a request's header block said, gathered field by field (the decoder's callback cannot
/// stop), and the first rule it broke.
#[derive(Debug, Default)]
pub(super) struct RequestFields {
    pub(super) method: Vec<u8>,
    pub(super) path: Vec<u8>,
    pub(super) has_method: bool,
    pub(super) has_scheme: bool,
    pub(super) has_path: bool,
    pub(super) has_authority: bool,
    /// A regular field was seen: a pseudo-header after it is malformed (§8.3).
    regular: bool,
    /// The first rule broken (for tests and diagnostics), `None` while well-formed.
    pub(super) malformed: Option<&'static str>,
    /// Trailers: no pseudo-header may appear (§8.1).
    pub(super) trailers: bool,
    /// Its content-length, and host against :authority.
    pub(super) semantics: super::conform::Semantics,
    /// Its regular fields (`--max-headers`: pseudo-headers stand for HTTP/1's request line,
    /// which is no field either).
    pub(super) count: usize,
    /// Its size as SETTINGS_MAX_HEADER_LIST_SIZE counts it (RFC 9113 §6.5.2: names and values
    /// of every field, 32 bytes more each): `--max-head-bytes`.
    pub(super) list_size: usize,
    /// Keep each field as a line of [`RequestFields::lines`] (`--echo`, `--journal`,
    /// `--control`: `echo`).
    #[cfg(feature = "echo")]
    pub(super) capture: bool,
    /// With `capture`: `name: value` CRLF per field, `:method` and `:path` aside (they make the
    /// request line), in the order they came.
    #[cfg(feature = "echo")]
    pub(super) lines: Vec<u8>,
}

impl RequestFields {
    /// Start over for a new block.
    pub(super) fn reset(&mut self, trailers: bool) {
        self.method.clear();
        self.path.clear();
        self.has_method = false;
        self.has_scheme = false;
        self.has_path = false;
        self.has_authority = false;
        self.regular = false;
        self.malformed = None;
        self.trailers = trailers;
        self.semantics.reset();
        self.count = 0;
        self.list_size = 0;
        #[cfg(feature = "echo")]
        self.lines.clear();
    }

    /// A field as a line for the echo and the journal: what the decoder gave, as it gave it.
    /// At most SETTINGS_MAX_HEADER_LIST_SIZE in all, which the decoder enforces.
    #[cfg(feature = "echo")]
    #[cold]
    #[inline(never)]
    fn keep_line(&mut self, name: &[u8], value: &[u8]) {
        if name == b":method" || name == b":path" {
            return;
        }
        self.lines.extend_cold(name);
        self.lines.extend_cold(b": ");
        self.lines.extend_cold(value);
        self.lines.extend_cold(b"\r\n");
    }

    fn fail(&mut self, why: &'static str) {
        self.malformed.get_or_insert(why);
    }

    /// One decoded field, and where HPACK took it from: a name (and value) of the static
    /// table is well-formed (RFC 7541 Appendix A, checked once by a unit test), so it is not
    /// checked again, and its index says which pseudo-header or field it is.
    pub(super) fn add(&mut self, f: Field<'_>, source: Source) {
        let (name, value) = (f.name, f.value);
        #[cfg(feature = "echo")]
        if self.capture {
            self.keep_line(name, value);
        }
        self.list_size += name.len() + value.len() + 32;
        let index = match source {
            Source::Static(i) => i,
            Source::StaticName(i) => {
                if !valid_value(value) {
                    self.fail(BAD_VALUE);
                }
                i
            }
            Source::Other => {
                if !valid_name(name) {
                    self.fail(
                        "a field name with an uppercase letter or a byte outside tchar (§8.2.1)",
                    );
                }
                if !valid_value(value) {
                    self.fail(BAD_VALUE);
                }
                0
            }
        };
        // `:authority` (1), `content-length` (28) and `host` (38) of the static table, or a
        // name it does not index: what they mean together (`conform`).
        if matches!(index, 0 | 1 | 28 | 38) {
            if let Some(why) = self.semantics.field(name, value) {
                self.fail(why);
            }
        }
        let pseudo = Pseudo::of(index, name);
        if pseudo != Pseudo::None {
            if self.regular {
                self.fail("a pseudo-header after a regular field (§8.3)");
            }
            if self.trailers {
                self.fail("a pseudo-header in trailers (§8.1)");
            }
            let seen = match pseudo {
                Pseudo::Method => {
                    self.method.clear();
                    self.method.extend_from_slice(value);
                    &mut self.has_method
                }
                Pseudo::Scheme => &mut self.has_scheme,
                Pseudo::Path => {
                    self.path.clear();
                    self.path.extend_from_slice(value);
                    &mut self.has_path
                }
                Pseudo::Authority => &mut self.has_authority,
                _ => {
                    self.fail("an unknown or response pseudo-header (§8.3)");
                    return;
                }
            };
            if std::mem::replace(seen, true) {
                self.fail("a pseudo-header twice (§8.3.1)");
            }
            return;
        }
        self.regular = true;
        self.count += 1;
        // Of the static table's names, only `transfer-encoding` (57) is connection-specific.
        if matches!(index, 0 | 57) {
            match name {
                b"connection" | b"keep-alive" | b"proxy-connection" | b"transfer-encoding"
                | b"upgrade" => self.fail("a connection-specific field (§8.2.2)"),
                b"te" if value != b"trailers" => self.fail("te other than trailers (§8.2.2)"),
                _ => {}
            }
        }
    }

    /// The request is complete and well-formed, or the first rule it broke (§8.3.1: `:method`,
    /// `:scheme` and a non-empty `:path`, or for CONNECT `:authority` alone).
    pub(super) fn check(&mut self) -> Result<(), &'static str> {
        if !self.trailers {
            if self.has_method && self.method == b"CONNECT" {
                if self.has_scheme || self.has_path || !self.has_authority {
                    self.fail("CONNECT with :scheme or :path, or without :authority (§8.5)");
                }
            } else if !(self.has_method && self.has_scheme && self.has_path) {
                self.fail(":method, :scheme or :path missing (§8.3.1)");
            } else if !valid_path(&self.path, self.method == b"OPTIONS") {
                self.fail(":path neither a path and query nor `*` for OPTIONS (§8.3.1)");
            }
            if self.has_method && !valid_method(&self.method) {
                self.fail(":method not a token (RFC 9110 §9.1)");
            }
        }
        self.malformed.map_or(Ok(()), Err)
    }

    /// The path to route by: `:path` without its query.
    pub(super) fn route_path(&self) -> &[u8] {
        let p = &self.path[..];
        match p.iter().position(|&c| c == b'?') {
            Some(i) => &p[..i],
            None => p,
        }
    }
}

/// The bytes of a field name (§8.2.1): lowercase tchar (RFC 9110 §5.6.2), by byte. A table:
/// every field of every request goes through it (`benches/h2.sh`'s profile).
const NAME_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = matches!(b, b'a'..=b'z' | b'0'..=b'9'
            | b'!' | b'#' | b'$' | b'%' | b'&' | b'\'' | b'*' | b'+' | b'-' | b'.'
            | b'^' | b'_' | b'`' | b'|' | b'~');
        c += 1;
    }
    t
};

/// The bytes of a method (RFC 9110 §9.1: `method = token`): tchar (§5.6.2), either case.
const METHOD_BYTE: [bool; 256] = {
    let mut t = NAME_BYTE;
    let mut c = b'A';
    while c <= b'Z' {
        t[c as usize] = true;
        c += 1;
    }
    t
};

/// The bytes of a `:path` (§8.3.1: the target URI's path and query, RFC 3986 §3.3, §3.4):
/// `pchar / "/" / "?"`, where pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
/// HTTP/1's origin-form takes the same bytes; every other one (a space, a control byte, `#`,
/// `\`, `"`, `<`, `>`, brackets, non-ASCII) makes the request malformed.
const PATH_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'%'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
                    | b'/'
                    | b'?'
            );
        c += 1;
    }
    t
};

/// The bytes a field value may not hold (§8.2.1): NUL, CR, LF.
const VALUE_BAN: [bool; 256] = {
    let mut t = [false; 256];
    t[0] = true;
    t[b'\r' as usize] = true;
    t[b'\n' as usize] = true;
    t
};

/// §8.2.1: a name is lowercase tchar (RFC 9110 §5.6.2), and a pseudo-header's `:` only first.
fn valid_name(name: &[u8]) -> bool {
    let body = name.strip_prefix(b":").unwrap_or(name);
    // And-ed over the whole name, without an exit per byte: names are short, and a loop
    // without a branch per byte is the faster one for them.
    !body.is_empty()
        && body
            .iter()
            .fold(true, |ok, &c| ok & NAME_BYTE[usize::from(c)])
}

/// RFC 9110 §9.1: a method is a non-empty token.
fn valid_method(m: &[u8]) -> bool {
    !m.is_empty() && m.iter().all(|&c| METHOD_BYTE[usize::from(c)])
}

/// §8.3.1: a `:path` starts with `/` and holds only [`PATH_BYTE`]s, each `%` followed by two
/// hex digits (RFC 3986 §2.1, as HTTP/1's origin-form), or is `*` for OPTIONS (asterisk-form).
fn valid_path(p: &[u8], options: bool) -> bool {
    match p {
        [b'/', ..] => {
            let mut pct = false;
            for &c in p {
                if !PATH_BYTE[usize::from(c)] {
                    return false;
                }
                pct |= c == b'%';
            }
            // Rare: only then is the path walked again.
            !pct || pct_encoded(p)
        }
        b"*" => options,
        _ => false,
    }
}

/// Whether every `%` of `p` begins a pct-encoded octet: `%` HEXDIG HEXDIG.
#[cold]
#[inline(never)]
fn pct_encoded(p: &[u8]) -> bool {
    let mut rest = p;
    while let Some(at) = memchr::memchr(b'%', rest) {
        match rest.get(at + 1..at + 3) {
            Some([a, b]) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit() => {
                rest = &rest[at + 3..]
            }
            _ => return false,
        }
    }
    true
}

/// §8.2.1: no NUL, CR or LF, and no whitespace first or last.
fn valid_value(v: &[u8]) -> bool {
    let ws = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t'));
    // Or-ed over the whole value, as the name's bytes are and-ed.
    !v.iter()
        .fold(false, |bad, &c| bad | VALUE_BAN[usize::from(c)])
        && !ws(v.first())
        && !ws(v.last())
}

/// The static table's indexes (RFC 7541 Appendix A) of the response field names canned may
/// send, by name.
const STATIC_NAMES: &[(&[u8], u8)] = &[
    (b"accept-ranges", 18),
    (b"access-control-allow-origin", 20),
    (b"age", 21),
    (b"allow", 22),
    (b"cache-control", 24),
    (b"content-disposition", 25),
    (b"content-encoding", 26),
    (b"content-language", 27),
    (b"content-length", 28),
    (b"content-location", 29),
    (b"content-range", 30),
    (b"content-type", 31),
    (b"date", 33),
    (b"etag", 34),
    (b"expires", 36),
    (b"last-modified", 44),
    (b"link", 45),
    (b"location", 46),
    (b"retry-after", 53),
    (b"server", 54),
    (b"set-cookie", 55),
    (b"strict-transport-security", 56),
    (b"vary", 59),
    (b"via", 60),
    (b"www-authenticate", 61),
];

/// `:status` values with an entry of their own in the static table.
const STATIC_STATUS: &[(&[u8], u8)] = &[
    (b"200", 8),
    (b"204", 9),
    (b"206", 10),
    (b"304", 11),
    (b"400", 12),
    (b"404", 13),
    (b"500", 14),
];

/// An HPACK integer with an `n`-bit prefix whose high bits are `first` (RFC 7541 §5.1).
fn integer(out: &mut Vec<u8>, first: u8, n: u32, mut v: usize) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(first | v as u8);
        return;
    }
    out.push(first | max as u8);
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
}

/// A string literal, not Huffman-coded (§5.2).
fn string(out: &mut Vec<u8>, s: &[u8], lowercase: bool) {
    integer(out, 0, 7, s.len());
    if lowercase {
        out.extend(s.iter().map(u8::to_ascii_lowercase));
    } else {
        out.extend_from_slice(s);
    }
}

/// Append to `out` the HPACK block of an HTTP/1 response head (`HTTP/1.1 SSS Reason\r\n`, then
/// `Name: value\r\n` lines, then `\r\n`): `:status`, then each field with its name in
/// lowercase, connection-specific fields left out (§8.2.2). Every representation is an indexed
/// `:status` or a literal without indexing (§6.2.2), so the block changes no decoder's table.
pub(super) fn encode_head(head: &[u8], out: &mut Vec<u8>) {
    let mut lines = head
        .split(|&c| c == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let status = lines.next().and_then(|l| l.get(9..12)).unwrap_or(b"500");
    match STATIC_STATUS.iter().find(|(s, _)| *s == status) {
        Some((_, i)) => out.push(0x80 | i),
        None => {
            integer(out, 0, 4, 8);
            string(out, status, false);
        }
    }
    for line in lines {
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            continue;
        };
        let name = &line[..colon];
        let mut value = &line[colon + 1..];
        while let [b' ' | b'\t', rest @ ..] = value {
            value = rest;
        }
        while let [rest @ .., b' ' | b'\t'] = value {
            value = rest;
        }
        let lower = |s: &[u8]| eq_ignore_case(s, name);
        if [
            &b"connection"[..],
            b"keep-alive",
            b"proxy-connection",
            b"transfer-encoding",
            b"upgrade",
        ]
        .iter()
        .any(|s| lower(s))
        {
            continue;
        }
        match STATIC_NAMES.iter().find(|(s, _)| lower(s)) {
            Some((_, i)) => integer(out, 0, 4, *i as usize),
            None => {
                out.push(0);
                string(out, name, true);
            }
        }
        string(out, value, false);
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
    use super::*;
    use crate::hpack::Decoder;

    fn decode(block: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut d = Decoder::new(4096);
        let mut scratch = [0; 1024];
        let mut fields = Vec::new();
        d.decode(block, &mut scratch, |f| {
            fields.push((f.name.to_vec(), f.value.to_vec()))
        })
        .unwrap();
        assert_eq!(d.table_size(), 0, "no representation adds to the table");
        fields
    }

    #[test]
    fn a_head_becomes_a_block_that_decodes_to_its_fields() {
        let head = b"HTTP/1.1 200 OK\r\nServer: canned\r\nDate: Wed, 02 Dec 2026 17:00:00 GMT\r\n\
Content-Type: text/plain\r\nContent-Length: 3\r\nX-Custom: a b\r\nConnection: close\r\n\
Access-Control-Allow-Origin: *\r\nAllow: GET\r\n\r\n";
        let mut out = Vec::new();
        encode_head(head, &mut out);
        let fields = decode(&out);
        let want: Vec<(&[u8], &[u8])> = vec![
            (b":status", b"200"),
            (b"server", b"canned"),
            (b"date", b"Wed, 02 Dec 2026 17:00:00 GMT"),
            (b"content-type", b"text/plain"),
            (b"content-length", b"3"),
            (b"x-custom", b"a b"),
            (b"access-control-allow-origin", b"*"),
            (b"allow", b"GET"),
        ];
        let got: Vec<(&[u8], &[u8])> = fields.iter().map(|(n, v)| (&n[..], &v[..])).collect();
        assert_eq!(got, want);
        for (status, indexed) in [(b"404", true), (b"405", false), (b"503", false)] {
            let mut head = b"HTTP/1.1 ".to_vec();
            head.extend_from_slice(status);
            head.extend_from_slice(b" X\r\n\r\n");
            let mut out = Vec::new();
            encode_head(&head, &mut out);
            assert_eq!(out[0] & 0x80 != 0, indexed);
            assert_eq!(decode(&out), vec![(b":status".to_vec(), status.to_vec())]);
        }
        // A name past the 4-bit prefix and a long value take continuation bytes.
        let long = format!(
            "HTTP/1.1 200 OK\r\nWWW-Authenticate: {}\r\n\r\n",
            "v".repeat(300)
        );
        let mut out = Vec::new();
        encode_head(long.as_bytes(), &mut out);
        assert_eq!(decode(&out)[1].1.len(), 300);
    }

    fn check(fields: &[(&[u8], &[u8])], trailers: bool) -> Result<(), &'static str> {
        let mut r = RequestFields::default();
        r.reset(trailers);
        for (name, value) in fields {
            r.add(
                Field {
                    name,
                    value,
                    representation: crate::hpack::Representation::Indexed,
                },
                Source::Other,
            );
        }
        r.check()
    }

    #[test]
    fn pseudo_header_rules() {
        let m: (&[u8], &[u8]) = (b":method", b"GET");
        let s: (&[u8], &[u8]) = (b":scheme", b"http");
        let p: (&[u8], &[u8]) = (b":path", b"/");
        let a: (&[u8], &[u8]) = (b":authority", b"h");
        let x: (&[u8], &[u8]) = (b"x", b"1");
        assert_eq!(check(&[m, s, p], false), Ok(()));
        assert_eq!(check(&[m, s, p, a, x], false), Ok(()));
        assert_eq!(check(&[(b":method", b"CONNECT"), a], false), Ok(()));
        assert_eq!(check(&[x], true), Ok(()));
        type Fields<'a> = &'a [(&'a [u8], &'a [u8])];
        let bad: &[(&str, Fields<'_>, bool)] = &[
            ("no method", &[s, p], false),
            ("no scheme", &[m, p], false),
            ("no path", &[m, s], false),
            ("empty path", &[m, s, (b":path", b"")], false),
            ("method twice", &[m, m, s, p], false),
            ("path twice", &[m, s, p, p], false),
            ("after regular", &[m, s, x, p], false),
            ("status", &[m, s, p, (b":status", b"200")], false),
            ("unknown pseudo", &[m, s, p, (b":foo", b"1")], false),
            ("uppercase", &[m, s, p, (b"X-A", b"1")], false),
            ("space in name", &[m, s, p, (b"x a", b"1")], false),
            ("empty name", &[m, s, p, (b"", b"1")], false),
            ("colon inside", &[m, s, p, (b"x:a", b"1")], false),
            ("connection", &[m, s, p, (b"connection", b"close")], false),
            ("keep-alive", &[m, s, p, (b"keep-alive", b"1")], false),
            (
                "transfer-encoding",
                &[m, s, p, (b"transfer-encoding", b"chunked")],
                false,
            ),
            ("upgrade", &[m, s, p, (b"upgrade", b"h2c")], false),
            ("te gzip", &[m, s, p, (b"te", b"gzip")], false),
            ("value LF", &[m, s, p, (b"x", b"a\nb")], false),
            ("value NUL", &[m, s, p, (b"x", b"a\0b")], false),
            ("value leading space", &[m, s, p, (b"x", b" a")], false),
            (
                "CONNECT with path",
                &[(b":method", b"CONNECT"), a, p],
                false,
            ),
            ("CONNECT no authority", &[(b":method", b"CONNECT")], false),
            ("pseudo in trailers", &[p], true),
            ("method with a space", &[(b":method", b"GE T"), s, p], false),
            (
                "method with ESC",
                &[(b":method", b"GET\x1b[2J"), s, p],
                false,
            ),
            ("method with DEL", &[(b":method", b"GET\x7f"), s, p], false),
            ("empty method", &[(b":method", b""), s, p], false),
            ("path not a path", &[m, s, (b":path", b"not-a-path")], false),
            (
                "a % without hex digits",
                &[m, s, (b":path", b"/a%zz")],
                false,
            ),
            ("a % cut short", &[m, s, (b":path", b"/a%7")], false),
            ("a % last", &[m, s, (b":path", b"/a%")], false),
            ("pct-encoded", &[m, s, (b":path", b"/a%7E?q=%2f")], true),
            ("path with ESC", &[m, s, (b":path", b"/a\x1b[31m")], false),
            ("path with a space", &[m, s, (b":path", b"/a b")], false),
            ("path with a fragment", &[m, s, (b":path", b"/a#b")], false),
            ("path non-ASCII", &[m, s, (b":path", b"/\xc3\xa9")], false),
            ("absolute path", &[m, s, (b":path", b"http://h/")], false),
            ("asterisk for GET", &[m, s, (b":path", b"*")], false),
        ];
        for (what, fields, trailers) in bad {
            assert!(check(fields, *trailers).is_err(), "{what}");
        }
        assert_eq!(check(&[m, s, p, (b"te", b"trailers")], false), Ok(()));
        let options: (&[u8], &[u8]) = (b":method", b"OPTIONS");
        assert_eq!(check(&[options, s, (b":path", b"*")], false), Ok(()));
        let query: (&[u8], &[u8]) = (b":path", b"/a/b;c=d/~e.f_g-h?i=j&k=%20l:m@n/o?p!$'()*+,");
        assert_eq!(check(&[m, s, query], false), Ok(()));
        assert_eq!(check(&[(b":method", b"PROPFIND"), s, p], false), Ok(()));
    }

    /// The static table's entries, by index: what `add` takes on trust for them.
    #[test]
    fn the_static_table_is_well_formed_and_classified_by_index_as_by_name() {
        let mut d = Decoder::new(4096);
        let mut seen = 0;
        for i in 1..=61u8 {
            d.decode_sourced(&[0x80 | i], &mut [0; 64], |f, source| {
                assert_eq!(source, Source::Static(i));
                let (name, value) = (f.name, f.value);
                assert!(valid_name(name) && valid_value(value), "{i}");
                assert!(Pseudo::of(i, name) == Pseudo::of(0, name), "{i}");
                let semantic = [&b":authority"[..], b"content-length", b"host"].contains(&name);
                assert_eq!(matches!(i, 1 | 28 | 38), semantic, "{i}");
                let connection = [
                    &b"connection"[..],
                    b"keep-alive",
                    b"proxy-connection",
                    b"transfer-encoding",
                    b"upgrade",
                    b"te",
                ]
                .contains(&name);
                assert_eq!(i == 57, connection, "{i}");
                seen += 1;
            })
            .unwrap();
        }
        assert_eq!(seen, 61);
        // A field from the static table is checked as the same field from a literal.
        for i in 1..=61u8 {
            let mut by_index = RequestFields::default();
            let mut by_name = RequestFields::default();
            by_index.reset(false);
            by_name.reset(false);
            d.decode_sourced(&[0x80 | i], &mut [0; 64], |f, source| {
                by_index.add(f, source);
                by_name.add(f, Source::Other);
            })
            .unwrap();
            assert_eq!(by_index.check(), by_name.check(), "{i}");
            assert_eq!(
                (by_index.count, by_index.list_size, by_index.has_authority),
                (by_name.count, by_name.list_size, by_name.has_authority),
                "{i}"
            );
        }
    }

    #[test]
    fn fields_are_counted_and_sized_as_section_6_5_2_does() {
        let mut r = RequestFields::default();
        r.reset(false);
        for (name, value) in [
            (&b":method"[..], &b"GET"[..]),
            (b":path", b"/"),
            (b"x-a", b"12"),
        ] {
            r.add(
                Field {
                    name,
                    value,
                    representation: crate::hpack::Representation::Indexed,
                },
                Source::Other,
            );
        }
        assert_eq!(r.count, 1, "pseudo-headers are not counted");
        assert_eq!(r.list_size, (7 + 3 + 32) + (5 + 1 + 32) + (3 + 2 + 32));
        r.reset(false);
        assert_eq!((r.count, r.list_size), (0, 0));
    }
}
