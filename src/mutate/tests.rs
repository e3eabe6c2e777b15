//! The catalogue's tests: each variant breaks what its description says, and only that.

use super::checksum::{adler32, crc32};
use super::*;

/// The head's lines (split at CRLF) up to the first empty one, and what follows it.
fn head_and_body(b: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let mut lines = Vec::new();
    let mut at = 0;
    while let Some(i) = b[at..].windows(2).position(|w| w == b"\r\n") {
        let line = &b[at..at + i];
        at += i + 2;
        if line.is_empty() {
            return (lines, &b[at..]);
        }
        lines.push(line);
    }
    lines.push(&b[at..]);
    (lines, &[])
}

/// The values of every field named `name` (case-insensitive, no whitespace before the
/// colon), trimmed.
fn fields<'a>(b: &'a [u8], name: &str) -> Vec<&'a str> {
    let (lines, _) = head_and_body(b);
    lines[1..]
        .iter()
        .filter_map(|l| {
            let s = std::str::from_utf8(l).ok()?;
            let (n, v) = s.split_once(':')?;
            n.eq_ignore_ascii_case(name).then_some(v.trim())
        })
        .collect()
}

fn status_line(b: &[u8]) -> &[u8] {
    head_and_body(b).0[0]
}

fn body(b: &[u8]) -> &[u8] {
    head_and_body(b).1
}

fn contains(b: &[u8], needle: &[u8]) -> bool {
    b.windows(needle.len()).any(|w| w == needle)
}

/// A chunked body split at LF (size lines keep their CR).
fn chunk_lines(body: &[u8]) -> Vec<&[u8]> {
    body.split(|&c| c == b'\n').collect()
}

fn bare(b: &[u8], byte: u8) -> usize {
    b.iter()
        .enumerate()
        .filter(|&(i, &c)| {
            c == byte
                && match byte {
                    b'\n' => i == 0 || b[i - 1] != b'\r',
                    _ => b.get(i + 1) != Some(&b'\n'),
                }
        })
        .count()
}

type Check = fn(&[u8]) -> bool;

/// What each description says, checked on the bytes.
const CHECKS: &[(&str, Check)] = &[
    ("cl-too-long", |b| {
        fields(b, "content-length") == ["100"] && body(b).len() == 6
    }),
    ("cl-too-short", |b| {
        fields(b, "content-length") == ["2"] && body(b).len() == 6
    }),
    ("cl-missing", |b| {
        fields(b, "content-length").is_empty()
            && fields(b, "transfer-encoding").is_empty()
            && body(b) == b"hello\n"
    }),
    ("cl-duplicate-same", |b| {
        fields(b, "content-length") == ["6", "6"]
    }),
    ("cl-duplicate-conflicting", |b| {
        fields(b, "content-length") == ["6", "10"]
    }),
    ("cl-list-conflicting", |b| {
        fields(b, "content-length") == ["6, 10"]
    }),
    ("cl-negative", |b| fields(b, "content-length") == ["-1"]),
    ("cl-plus-sign", |b| fields(b, "content-length") == ["+6"]),
    ("cl-overflow-u64", |b| {
        let v = fields(b, "content-length");
        v.len() == 1 && v[0].parse::<u64>().is_err() && v[0].parse::<u128>() == Ok(1 << 64)
    }),
    ("cl-overflow-i64", |b| {
        let v = fields(b, "content-length");
        v.len() == 1 && v[0].parse::<i64>().is_err() && v[0].parse::<u64>() == Ok(1 << 63)
    }),
    ("cl-hex", |b| fields(b, "content-length") == ["0x6"]),
    ("cl-empty", |b| fields(b, "content-length") == [""]),
    ("cl-space-inside", |b| {
        fields(b, "content-length") == ["0 6"]
    }),
    ("chunk-size-not-hex", |b| {
        chunked(b) && body(b).starts_with(b"zz\r\n")
    }),
    ("chunk-size-overflow", |b| {
        let line = chunk_lines(body(b))[0];
        let size = std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line));
        chunked(b) && size.is_ok_and(|s| u128::from_str_radix(s, 16) == Ok(1 << 64))
    }),
    ("chunk-size-negative", |b| {
        chunked(b) && body(b).starts_with(b"-6\r\n")
    }),
    ("chunk-size-too-long", |b| {
        // 0x10 = 16 announced, 6 data bytes before the CRLF.
        chunked(b) && body(b).starts_with(b"10\r\nhello\n\r\n")
    }),
    ("chunk-size-too-short", |b| {
        chunked(b) && body(b).starts_with(b"3\r\nhel") && &body(b)[6..8] != b"\r\n"
    }),
    ("chunk-size-space-after", |b| {
        chunked(b) && body(b).starts_with(b"6 \r\n")
    }),
    ("chunk-missing-last", |b| {
        chunked(b) && body(b) == b"6\r\nhello\n\r\n" && !body(b).ends_with(b"0\r\n\r\n")
    }),
    ("chunk-last-no-final-crlf", |b| {
        chunked(b) && body(b) == b"6\r\nhello\n\r\n0\r\n"
    }),
    ("chunk-data-no-crlf", |b| {
        chunked(b) && body(b).starts_with(b"6\r\nhello\n0\r\n")
    }),
    ("chunk-ext-valid", |b| {
        chunked(b) && body(b).starts_with(b"6;name=value;flag\r\n")
    }),
    ("chunk-ext-malformed", |b| {
        chunked(b) && body(b).starts_with(b"6;=x\r\n")
    }),
    ("chunk-ext-64kib", |b| {
        let line = chunk_lines(body(b))[0];
        chunked(b) && line.starts_with(b"6;x=") && line.len() == 4 + 64 * 1024 + 1
    }),
    ("chunk-trailer-valid", |b| {
        chunked(b) && body(b).ends_with(b"0\r\nX-Checksum: 1\r\n\r\n")
    }),
    ("chunk-trailer-content-length", |b| {
        chunked(b) && body(b).ends_with(b"0\r\nContent-Length: 99\r\n\r\n")
    }),
    ("chunk-trailer-no-colon", |b| {
        chunked(b) && body(b).ends_with(b"0\r\nnot a field\r\n\r\n")
    }),
    ("chunk-bare-lf", |b| {
        chunked(b) && !contains(body(b), b"\r") && bare(body(b), b'\n') == 5
    }),
    ("te-and-cl", |b| {
        let (lines, _) = head_and_body(b);
        let te = lines
            .iter()
            .position(|l| l.starts_with(b"Transfer-Encoding"));
        let cl = lines.iter().position(|l| l.starts_with(b"Content-Length"));
        chunked(b) && fields(b, "content-length") == ["6"] && te < cl
    }),
    ("te-cl-first", |b| {
        let (lines, _) = head_and_body(b);
        let te = lines
            .iter()
            .position(|l| l.starts_with(b"Transfer-Encoding"));
        let cl = lines.iter().position(|l| l.starts_with(b"Content-Length"));
        chunked(b) && fields(b, "content-length") == ["6"] && cl < te
    }),
    ("te-chunked-twice", |b| {
        fields(b, "transfer-encoding") == ["chunked, chunked"]
    }),
    ("te-unknown", |b| {
        fields(b, "transfer-encoding") == ["x-unknown"] && fields(b, "content-length").is_empty()
    }),
    ("te-in-http10", |b| {
        status_line(b).starts_with(b"HTTP/1.0 ") && chunked(b)
    }),
    ("te-space-before-colon", |b| {
        head_and_body(b)
            .0
            .contains(&&b"Transfer-Encoding : chunked"[..])
    }),
    ("header-no-colon", |b| {
        head_and_body(b).0[1..].iter().any(|l| !l.contains(&b':'))
    }),
    ("header-space-before-colon", |b| {
        head_and_body(b).0.contains(&&b"Content-Length : 6"[..])
    }),
    ("header-empty-name", |b| {
        head_and_body(b).0.iter().any(|l| l.starts_with(b":"))
    }),
    ("header-name-space", |b| {
        head_and_body(b).0.contains(&&b"X Bad: 1"[..])
    }),
    ("header-obs-fold", |b| {
        let lines = head_and_body(b).0;
        let i = lines.iter().position(|l| l.starts_with(b"X-Folded:"));
        i.is_some_and(|i| lines[i + 1].starts_with(b" "))
    }),
    ("header-fold-first-line", |b| {
        head_and_body(b).0[1].starts_with(b" ")
    }),
    ("header-bare-lf", |b| {
        !contains(b, b"\r") && bare(b, b'\n') == 5
    }),
    ("header-bare-cr", |b| {
        !contains(&b[..b.len() - 1], b"\n") && bare(b, b'\r') == 4
    }),
    ("header-mixed-line-ends", |b| {
        bare(b, b'\n') == 2 && contains(b, b"\r\n\r\n")
    }),
    ("header-line-64kib", |b| {
        head_and_body(b)
            .0
            .iter()
            .any(|l| l.len() == "X-Long: ".len() + 64 * 1024)
            && body(b) == b"hello\n"
    }),
    ("headers-10000", |b| {
        let lines = head_and_body(b).0;
        lines.iter().filter(|l| l.starts_with(b"X-")).count() == 10_000 && body(b) == b"hello\n"
    }),
    ("header-value-nul", |b| {
        head_and_body(b).0.iter().any(|l| l.contains(&0))
    }),
    ("header-value-ctl", |b| {
        head_and_body(b).0.iter().any(|l| l.contains(&1))
    }),
    ("head-no-end", |b| {
        !contains(b, b"\r\n\r\n") && b.ends_with(b"\r\n")
    }),
    ("status-http12", |b| status_line(b) == b"HTTP/1.2 200 OK"),
    ("status-http2", |b| status_line(b) == b"HTTP/2.0 200 OK"),
    ("status-lowercase-version", |b| {
        status_line(b) == b"http/1.1 200 OK"
    }),
    ("status-two-digits", |b| status_line(b) == b"HTTP/1.1 20 OK"),
    ("status-four-digits", |b| {
        status_line(b) == b"HTTP/1.1 2000 OK"
    }),
    ("status-letters", |b| status_line(b) == b"HTTP/1.1 abc OK"),
    ("status-999", |b| status_line(b) == b"HTTP/1.1 999 Unknown"),
    ("status-no-reason-no-space", |b| {
        status_line(b) == b"HTTP/1.1 200"
    }),
    ("status-reason-ctl", |b| {
        status_line(b) == b"HTTP/1.1 200 O\x01K"
    }),
    ("status-reason-nul", |b| {
        status_line(b) == b"HTTP/1.1 200 O\0K"
    }),
    ("status-leading-space", |b| {
        status_line(b).starts_with(b" HTTP/1.1")
    }),
    ("status-missing", |b| b == b"hello\n"),
    ("empty-response", |b| b.is_empty()),
    ("1xx-100-then-200", |b| {
        responses(b) == ["HTTP/1.1 100 Continue", "HTTP/1.1 200 OK"]
    }),
    ("1xx-103-then-200", |b| {
        responses(b) == ["HTTP/1.1 103 Early Hints", "HTTP/1.1 200 OK"]
            && fields(b, "link").len() == 1
    }),
    ("1xx-several", |b| {
        let r = responses(b);
        r.len() == 5
            && r[..4].iter().all(|s| s.starts_with("HTTP/1.1 1"))
            && r[4].ends_with("200 OK")
    }),
    ("1xx-1000", |b| {
        let r = responses(b);
        r.len() == 1001 && r.iter().filter(|s| *s == "HTTP/1.1 100 Continue").count() == 1000
    }),
    ("1xx-only", |b| {
        responses(b) == ["HTTP/1.1 100 Continue"] && b.ends_with(b"\r\n\r\n")
    }),
    ("1xx-with-body", |b| {
        status_line(b) == b"HTTP/1.1 100 Continue"
            && fields(b, "content-length") == ["5"]
            && body(b).starts_with(b"extraHTTP/1.1 200")
    }),
    ("101-unasked", |b| {
        status_line(b).starts_with(b"HTTP/1.1 101 ") && fields(b, "upgrade") == ["websocket"]
    }),
    ("204-with-body", |b| {
        status_line(b).starts_with(b"HTTP/1.1 204 ")
            && fields(b, "content-length") == ["6"]
            && body(b).len() == 6
    }),
    ("204-with-body-no-length", |b| {
        status_line(b).starts_with(b"HTTP/1.1 204 ")
            && fields(b, "content-length").is_empty()
            && body(b).len() == 6
    }),
    ("304-with-body", |b| {
        status_line(b).starts_with(b"HTTP/1.1 304 ")
            && fields(b, "content-length") == ["6"]
            && body(b).len() == 6
    }),
    ("head-with-body", |b| {
        status_line(b) == b"HTTP/1.1 200 OK"
            && fields(b, "content-length") == ["6"]
            && body(b).len() == 6
    }),
    ("nul-before-status", |b| {
        b[0] == 0 && b[1..].starts_with(b"HTTP/1.1 200")
    }),
    ("nul-line-in-head", |b| {
        head_and_body(b).0.contains(&&b"\0"[..])
    }),
    ("two-responses", |b| {
        responses(b).len() == 2 && fields(b, "content-length") == ["6"] && body(b).len() == 6 + 44
    }),
    ("ce-gzip-valid", |b| {
        coded(b, "gzip") && gunzip(body(b)).is_some_and(|m| m.sound() && m.data == b"hello\n")
    }),
    ("ce-deflate-valid", |b| {
        coded(b, "deflate") && unzlib(body(b)).is_some_and(|m| m.sound() && m.data == b"hello\n")
    }),
    ("ce-gzip-not-gzip", |b| {
        coded(b, "gzip") && body(b) == b"hello\n"
    }),
    ("ce-deflate-not-deflate", |b| {
        coded(b, "deflate") && body(b) == b"hello\n" && unzlib(body(b)).is_none()
    }),
    ("ce-deflate-raw", |b| {
        coded(b, "deflate")
            && unzlib(body(b)).is_none()
            && stored(body(b)) == Some((b"hello\n".to_vec(), body(b).len()))
    }),
    ("ce-gzip-truncated", |b| {
        let whole = super::encoding::gzip(b"hello\n", super::encoding::Spoil::Nothing);
        coded(b, "gzip")
            && body(b).len() == 18
            && whole.starts_with(body(b))
            && gunzip(body(b)).is_none()
    }),
    ("ce-deflate-truncated", |b| {
        let whole = super::encoding::zlib(b"hello\n", super::encoding::Spoil::Nothing);
        coded(b, "deflate")
            && body(b).len() == 10
            && whole.starts_with(body(b))
            && unzlib(body(b)).is_none()
    }),
    ("ce-gzip-bad-crc", |b| {
        coded(b, "gzip")
            && gunzip(body(b))
                .is_some_and(|m| m.data == b"hello\n" && m.check != crc32(&m.data) && m.size == 6)
    }),
    ("ce-gzip-bad-isize", |b| {
        coded(b, "gzip")
            && gunzip(body(b))
                .is_some_and(|m| m.data == b"hello\n" && m.check == crc32(&m.data) && m.size == 7)
    }),
    ("ce-deflate-bad-adler", |b| {
        coded(b, "deflate")
            && unzlib(body(b)).is_some_and(|m| m.data == b"hello\n" && m.check != adler32(&m.data))
    }),
    ("ce-gzip-twice", |b| {
        let once = gunzip(body(b)).filter(Member::sound);
        coded(b, "gzip")
            && once
                .is_some_and(|m| gunzip(&m.data).is_some_and(|m| m.sound() && m.data == b"hello\n"))
    }),
    ("ce-deflate-twice", |b| {
        let once = unzlib(body(b)).filter(Member::sound);
        coded(b, "deflate")
            && once
                .is_some_and(|m| unzlib(&m.data).is_some_and(|m| m.sound() && m.data == b"hello\n"))
    }),
];

/// A 200 declaring the one content coding `coding`, its Content-Length the body's.
fn coded(b: &[u8], coding: &str) -> bool {
    status_line(b) == b"HTTP/1.1 200 OK"
        && fields(b, "content-encoding") == [coding]
        && fields(b, "content-length") == [body(b).len().to_string()]
}

/// The data of a DEFLATE stream of stored blocks ending in a final one, and how many bytes it
/// took; `None` for another block type or a stream cut short.
fn stored(d: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut data = Vec::new();
    let mut at = 0;
    loop {
        let head = d.get(at..at + 5)?;
        let len = usize::from(u16::from_le_bytes([head[1], head[2]]));
        if head[0] & !1 != 0 || u16::from_le_bytes([head[3], head[4]]) != !(len as u16) {
            return None;
        }
        data.extend_from_slice(d.get(at + 5..at + 5 + len)?);
        at += 5 + len;
        if head[0] == 1 {
            return Some((data, at));
        }
    }
}

/// A decoded gzip member or zlib stream: its data and the trailer's fields.
struct Member {
    data: Vec<u8>,
    check: u32,
    size: u32,
    crc: bool,
}

impl Member {
    /// Whether the trailer matches the data.
    fn sound(&self) -> bool {
        if self.crc {
            self.check == crc32(&self.data) && self.size as usize == self.data.len()
        } else {
            self.check == adler32(&self.data)
        }
    }
}

/// One gzip member with no optional fields and nothing after it.
fn gunzip(b: &[u8]) -> Option<Member> {
    if b.get(..4)? != [0x1F, 0x8B, 8, 0] {
        return None;
    }
    let (data, n) = stored(&b[10..])?;
    let t: [u8; 8] = b[10 + n..].try_into().ok()?;
    Some(Member {
        data,
        check: u32::from_le_bytes(t[..4].try_into().unwrap()),
        size: u32::from_le_bytes(t[4..].try_into().unwrap()),
        crc: true,
    })
}

/// One zlib stream (deflate, no dictionary, a valid FCHECK) and nothing after it.
fn unzlib(b: &[u8]) -> Option<Member> {
    let (cmf, flg) = (*b.first()?, *b.get(1)?);
    if cmf & 0x0F != 8 || (u16::from(cmf) * 256 + u16::from(flg)) % 31 != 0 || flg & 0x20 != 0 {
        return None;
    }
    let (data, n) = stored(&b[2..])?;
    let t: [u8; 4] = b[2 + n..].try_into().ok()?;
    Some(Member {
        data,
        check: u32::from_be_bytes(t),
        size: 0,
        crc: false,
    })
}

fn chunked(b: &[u8]) -> bool {
    fields(b, "transfer-encoding") == ["chunked"]
        || (status_line(b).starts_with(b"HTTP/1.0") && contains(b, b"Transfer-Encoding: chunked"))
        || contains(b, b"\nTransfer-Encoding: chunked\n")
}

/// The status lines of the responses in `b` (each found after the previous one's head
/// and its Content-Length body, if any).
fn responses(b: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = b;
    while rest.starts_with(b"HTTP/") {
        out.push(String::from_utf8_lossy(status_line(rest)).into_owned());
        let len: usize = fields(rest, "content-length")
            .first()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let body = body(rest);
        rest = &body[len.min(body.len())..];
    }
    out
}

#[test]
fn every_variant_matches_its_description() {
    let c = Catalogue::new();
    const { assert!(COUNT >= 40) };
    assert_eq!(c.len(), COUNT);
    assert_eq!(ids().count(), super::TOTAL);
    for (i, v) in ids().take(COUNT).enumerate() {
        let (_, check) = CHECKS
            .iter()
            .find(|(id, _)| *id == v)
            .unwrap_or_else(|| panic!("{v}: no check"));
        assert!(
            check(c.bytes(i)),
            "{}: {:?}",
            v,
            String::from_utf8_lossy(&c.bytes(i)[..c.bytes(i).len().min(300)])
        );
    }
    for (id, _) in CHECKS {
        assert!(find(id).is_some(), "{id}: a check for no variant");
    }
}

/// The checks are specific: run against a well-formed response, only the one whose
/// variant is those very bytes (meant for a HEAD request) passes.
#[test]
fn checks_reject_a_well_formed_response() {
    let good = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nhello\n";
    let passing: Vec<&str> = CHECKS
        .iter()
        .filter(|(_, check)| check(good))
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(passing, ["head-with-body"]);
}

/// docs/mutate.md's catalogue table lists every variant, in order, with its description and
/// clause.
#[test]
fn docs_table_matches_the_catalogue() {
    let section = include_str!("../../docs/mutate.md")
        .split("\n## Malformed responses on HTTP/2\n")
        .next()
        .unwrap();
    let rows: Vec<&str> = section
        .lines()
        .skip_while(|l| !l.starts_with("| id "))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .collect();
    let want: Vec<String> = ids()
        .zip(&ABOUT)
        .map(|(id, a)| format!("| `{id}` | {} | {} |", a.description, a.rfc))
        .collect();
    assert_eq!(rows, want);
}

/// The clients' reactions (docs/data/mutate-clients.tsv, which `.ci/mutate-clients` checks
/// against real clients) have one row per variant, in the catalogue's order, and a cell for
/// every client the header names.
#[test]
fn client_reactions_cover_the_catalogue() {
    let table = include_str!("../../docs/data/mutate-clients.tsv");
    let mut lines = table.lines().filter(|l| !l.starts_with('#'));
    let columns = lines.next().unwrap().split('\t').count();
    let rows: Vec<&str> = lines
        .inspect(|l| assert_eq!(l.split('\t').count(), columns, "{l}"))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(rows, ids().take(ABOUT.len()).collect::<Vec<_>>());
}

/// Every fixed byte belongs to one variant: no length was cut short to fit in a u16.
#[test]
fn fixed_bytes_are_used_up_exactly() {
    let used: usize = SOURCES
        .iter()
        .map(|s| match s {
            Source::Fixed(n) | Source::AfterOk(n) => usize::from(*n),
            Source::Built(_) => 0,
        })
        .sum();
    assert_eq!(used, FIXED.len());
}

#[test]
fn ids_are_unique_and_plain() {
    for (i, (v, a)) in ids().zip(&ABOUT).enumerate() {
        assert_eq!(find(v), Some(i), "{v} twice");
        assert_eq!(id(i), v);
        assert!(
            v.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{v}"
        );
        assert!(
            !a.description.contains('|') && !a.description.contains('\n'),
            "{v}"
        );
        assert!(a.rfc.starts_with("RFC "), "{v}");
    }
}
