//! The `Range` field's grammar (RFC 9110 §14.1.1) and its resolution against a body's length
//! (§14.1.2, §15.3.7, §15.5.17), without allocation (`no_std`).
//!
//! ```text
//! ranges-specifier = range-unit "=" range-set
//! range-set        = 1#range-spec
//! range-spec       = int-range / suffix-range / other-range
//! int-range        = first-pos "-" [ last-pos ]
//! suffix-range     = "-" suffix-length
//! ```
//!
//! Only the `bytes` unit and a single range are served: several ranges are answered with the
//! whole body (200), which §14.2 allows ("a server MAY ignore the Range header field"), and a
//! malformed field is ignored the same way. Only a well-formed single range whose first byte is
//! past the end is unsatisfiable (416).
//!
//! ```
//! use canned::range::{Outcome, resolve};
//!
//! assert_eq!(resolve(b"bytes=0-3", 10), Outcome::Partial { first: 0, last: 3 });
//! assert_eq!(resolve(b"bytes=-4", 10), Outcome::Partial { first: 6, last: 9 });
//! assert_eq!(resolve(b"bytes=10-", 10), Outcome::Unsatisfiable);
//! assert_eq!(resolve(b"items=0-3", 10), Outcome::Whole);
//! ```

/// What a request's `Range` field asks of a body of a given length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The whole body, 200: the field is malformed, names another unit, or lists several ranges.
    Whole,
    /// Bytes `first..=last` of the body, 206 with `Content-Range: bytes first-last/LEN`.
    Partial {
        /// The first byte's offset.
        first: u64,
        /// The last byte's offset (inclusive, as `Content-Range` writes it).
        last: u64,
    },
    /// 416 with `Content-Range: bytes */LEN`: the one range starts past the end, or is a
    /// zero-length suffix, or the body is empty.
    Unsatisfiable,
}

/// One range-spec before it meets a length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spec {
    /// `first-` or `first-last`.
    From { first: u64, last: Option<u64> },
    /// `-n`: the last `n` bytes.
    Suffix(u64),
}

/// Optional whitespace (RFC 9110 §5.6.3): spaces and tabs.
fn trim(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// `1*DIGIT` as a `u64`; `None` when empty, not digits, or over `u64::MAX`.
fn digits(v: &[u8]) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    v.iter().try_fold(0u64, |n, &b| {
        if b.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

/// One range-spec, or `None` when it is not one.
fn spec(v: &[u8]) -> Option<Spec> {
    let v = trim(v);
    let dash = v.iter().position(|&b| b == b'-')?;
    let (before, after) = (&v[..dash], &v[dash + 1..]);
    if before.is_empty() {
        return digits(after).map(Spec::Suffix);
    }
    let first = digits(before)?;
    let last = if after.is_empty() {
        None
    } else {
        Some(digits(after)?)
    };
    // §14.1.1: an int-range with last-pos below first-pos is invalid.
    match last {
        Some(last) if last < first => None,
        _ => Some(Spec::From { first, last }),
    }
}

/// What the `Range` field value `value` asks of a body of `len` bytes.
pub fn resolve(value: &[u8], len: u64) -> Outcome {
    let value = trim(value);
    // §14.1: the range unit is case-insensitive.
    let Some(set) = value
        .get(..6)
        .filter(|unit| eq_ignore_case(unit, b"bytes="))
        .map(|_| &value[6..])
    else {
        return Outcome::Whole;
    };
    let mut specs = set.split(|&b| b == b',').filter(|s| !trim(s).is_empty());
    let (Some(one), None) = (specs.next(), specs.next()) else {
        return Outcome::Whole;
    };
    match spec(one) {
        None => Outcome::Whole,
        Some(Spec::From { first, .. }) if first >= len => Outcome::Unsatisfiable,
        Some(Spec::From { first, last }) => Outcome::Partial {
            first,
            last: last.map_or(len - 1, |last| last.min(len - 1)),
        },
        Some(Spec::Suffix(0)) => Outcome::Unsatisfiable,
        Some(Spec::Suffix(_)) if len == 0 => Outcome::Unsatisfiable,
        Some(Spec::Suffix(n)) => Outcome::Partial {
            first: len.saturating_sub(n),
            last: len - 1,
        },
    }
}

/// Whether an `If-Range` value names the representation whose strong entity-tag is `etag`
/// (quotes included, `"abc"`): only a strong tag matches, compared byte for byte (RFC 9110
/// §13.1.5, §8.8.3.2); a weak tag or a date never does here, so the whole body is sent.
pub fn if_range_matches(value: &[u8], etag: &[u8]) -> bool {
    let value = trim(value);
    value.len() >= 2 && value[0] == b'"' && value == etag
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
    use super::{Outcome, if_range_matches, resolve};
    use Outcome::{Partial, Unsatisfiable, Whole};

    /// (field value, body length, outcome, RFC 9110 clause).
    const CASES: &[(&[u8], u64, Outcome, &str)] = &[
        (
            b"bytes=0-499",
            10_000,
            Partial {
                first: 0,
                last: 499,
            },
            "14.1.2 first 500",
        ),
        (
            b"bytes=500-999",
            10_000,
            Partial {
                first: 500,
                last: 999,
            },
            "14.1.2 second 500",
        ),
        (
            b"bytes=-500",
            10_000,
            Partial {
                first: 9_500,
                last: 9_999,
            },
            "14.1.2 final 500",
        ),
        (
            b"bytes=9500-",
            10_000,
            Partial {
                first: 9_500,
                last: 9_999,
            },
            "14.1.2 from 9500",
        ),
        (
            b"bytes=0-0",
            10_000,
            Partial { first: 0, last: 0 },
            "14.1.2 first byte",
        ),
        (
            b"bytes=-1",
            10_000,
            Partial {
                first: 9_999,
                last: 9_999,
            },
            "14.1.2 last byte",
        ),
        (
            b"bytes=0-",
            1,
            Partial { first: 0, last: 0 },
            "a- on one byte",
        ),
        (
            b"bytes=5-100",
            10,
            Partial { first: 5, last: 9 },
            "14.1.2 last-pos past the end",
        ),
        (
            b"bytes=-100",
            10,
            Partial { first: 0, last: 9 },
            "14.1.2 suffix longer than body",
        ),
        (
            b"BYTES=1-2",
            10,
            Partial { first: 1, last: 2 },
            "14.1 unit case-insensitive",
        ),
        (
            b" bytes=1-2 ",
            10,
            Partial { first: 1, last: 2 },
            "5.6.3 OWS around the value",
        ),
        (
            b"bytes= 1-2 ,",
            10,
            Partial { first: 1, last: 2 },
            "5.6.1 empty list elements",
        ),
        (
            b"bytes=10-",
            10,
            Unsatisfiable,
            "14.1.1 first-pos at the end",
        ),
        (
            b"bytes=10-20",
            10,
            Unsatisfiable,
            "14.1.1 first-pos past the end",
        ),
        (b"bytes=-0", 10, Unsatisfiable, "14.1.1 zero-length suffix"),
        (b"bytes=0-", 0, Unsatisfiable, "15.5.17 empty body"),
        (b"bytes=-5", 0, Unsatisfiable, "15.5.17 empty body, suffix"),
        (
            b"bytes=5-1",
            10,
            Whole,
            "14.1.1 last-pos below first-pos: invalid",
        ),
        (
            b"bytes=0-1,3-4",
            10,
            Whole,
            "14.2 several ranges: whole body",
        ),
        (b"bytes=", 10, Whole, "14.1.1 empty range-set"),
        (b"bytes=-", 10, Whole, "no digits"),
        (b"bytes=a-b", 10, Whole, "not digits"),
        (b"bytes=1-2-3", 10, Whole, "two dashes"),
        (b"bytes=18446744073709551616-", 10, Whole, "over u64"),
        (b"bytes 0-1", 10, Whole, "no ="),
        (b"items=0-1", 10, Whole, "14.1 other unit"),
        (b"", 10, Whole, "empty field"),
    ];

    #[test]
    fn table() {
        for &(value, len, want, clause) in CASES {
            let got = resolve(value, len);
            assert_eq!(
                got,
                want,
                "{clause}: {:?} on {len}",
                core::str::from_utf8(value)
            );
        }
    }

    /// Every truncation of a valid value is an answer, never a panic, and a partial range
    /// always lies inside the body.
    #[test]
    fn truncations_stay_inside() {
        for &(value, len, _, _) in CASES {
            for end in 0..=value.len() {
                if let Partial { first, last } = resolve(&value[..end], len) {
                    assert!(first <= last && last < len, "{:?}", &value[..end]);
                }
            }
        }
    }

    /// (If-Range value, strong tag, matches): RFC 9110 §13.1.5 and §8.8.3.2.
    #[test]
    fn if_range() {
        let cases: [(&[u8], &[u8], bool); 6] = [
            (b"\"v1\"", b"\"v1\"", true),
            (b" \"v1\" ", b"\"v1\"", true),
            (b"\"v2\"", b"\"v1\"", false),
            (b"W/\"v1\"", b"\"v1\"", false),
            (b"Tue, 01 Dec 2026 00:00:00 GMT", b"\"v1\"", false),
            (b"", b"", false),
        ];
        for (value, etag, want) in cases {
            assert_eq!(if_range_matches(value, etag), want, "{value:?}");
        }
    }
}
