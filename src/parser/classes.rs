//! The byte classes of the request grammar, and the scan over a run of one class.
//!
//! Each class is a 256-entry table with the ABNF beside it, plus two quick tests that vouch for
//! the common bytes of the class several at a time: sixteen with SSE2 (part of every x86_64
//! target), eight in a word elsewhere. A byte a quick test cannot vouch for is looked up in the
//! table, so the tests only decide the speed, never the grammar. The SSE2 loads are the only
//! `unsafe` of the parser.

/// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|"
///       / "~" / DIGIT / ALPHA                                     (RFC 9110 §5.6.2)
pub(crate) static TCHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        i += 1;
    }
    t
};

/// field-vchar = VCHAR / obs-text, plus SP and HTAB inside a value  (RFC 9110 §5.5)
pub(crate) static VALUE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i == 0x09 || (i >= 0x20 && i != 0x7f);
        i += 1;
    }
    t
};

/// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"                  (RFC 3986 §2.3)
const fn unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

/// sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
///                                                                      (RFC 3986 §2.2)
const fn sub_delim(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// request-target bytes that need no context (RFC 9112 §3.2, RFC 3986 §3.3, §3.4):
/// pchar = unreserved / pct-encoded / sub-delims / ":" / "@", plus "/" and "?" (path
/// separators and query). "%" (it needs two hex digits after it) and "[" "]" (allowed only in
/// the IP-literal of an authority) are handled by the scanner; every other byte, `#`, `\`,
/// `"`, `<`, `>`, `^`, `` ` ``, `{`, `|`, `}`, SP, CTL and non-ASCII among them, ends or
/// rejects the target. With a leading "/" this is exactly origin-form.
pub(super) static TARGET: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = unreserved(c) || sub_delim(c) || matches!(c, b':' | b'@' | b'/' | b'?');
        i += 1;
    }
    t
};

/// reg-name = *( unreserved / pct-encoded / sub-delims ), "%" handled apart (RFC 3986 §3.2.2)
pub(super) static REG_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = unreserved(c) || sub_delim(c);
        i += 1;
    }
    t
};

/// Letters, digits, `-` and `.`: the bytes of almost every host name and IPv4 address (a
/// subset of [`REG_NAME`]; the quick tests of [`HostCommon`] are exact for it).
pub(super) static HOST_COMMON: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'-' || c == b'.';
        i += 1;
    }
    t
};

/// A byte class as [`skip`] uses it.
pub(super) trait Class {
    /// The exact class: what alone decides which bytes belong to it.
    const TABLE: &'static [bool; 256];
    /// Eight bytes (a little-endian word): the high bit set in every byte the test cannot
    /// vouch for. It may flag a byte of the class (the table then takes it), never miss one
    /// outside it.
    fn word_bad(x: u64) -> u64;
    /// Sixteen bytes: bit k set when byte k is one the test cannot vouch for, as `word_bad`.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn block_bad(b: &[u8; 16]) -> u32;
}

/// Field values ([`VALUE`]): everything but CTLs and DEL is vouched for; HTAB is flagged.
pub(super) struct Value;
/// Request-targets ([`TARGET`]): `&'()*+,-./0-9:;`, `?@A-Z` and `a-z` are vouched for; the
/// rarer target bytes (`=`, `_`, `!`, `$`, `~`, `%`, brackets) are flagged with the invalid
/// ones. Three ranges, not five: measured faster on every input of `benches/parse.rs`.
pub(super) struct Target;
/// Field names and methods ([`TCHAR`]): letters, digits and `-` are vouched for.
pub(super) struct Token;
/// Host names ([`HOST_COMMON`]): letters, digits, `-` and `.`, exactly.
pub(super) struct HostCommon;
/// reg-name ([`REG_NAME`]), with the quick tests of [`HostCommon`].
pub(super) struct RegName;

/// Every byte but `?`: run over a target already checked, to find where its query starts.
pub(super) struct NotQuery;

/// [`NotQuery`]'s table.
static NOT_QUERY: [bool; 256] = {
    let mut t = [true; 256];
    t[b'?' as usize] = false;
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` in `a..=b` (both below 0x80), of a byte below 0x80 only.
/// Adding 0x80 - a to the low seven bits sets the high bit exactly when the byte is at least
/// a, and never carries into the next byte, so every flag is exact.
#[inline(always)]
fn word_within(x: u64, a: u64, b: u64) -> u64 {
    let low = x & !HIGH;
    let at_least = |a: u64| low + ONES * (0x80 - a);
    at_least(a) & !at_least(b + 1)
}

impl Class for Value {
    const TABLE: &'static [bool; 256] = &VALUE;
    /// Bytes below 0x20 or equal to 0x7f (bytes >= 0x80 are obs-text). The bit trick ("any
    /// byte < n", n <= 128) can flag a byte above a flagged one by a borrow, never miss one.
    #[inline(always)]
    fn word_bad(x: u64) -> u64 {
        let below_space = x.wrapping_sub(ONES * 0x20) & !x;
        let y = x ^ (ONES * 0x7f);
        let del = y.wrapping_sub(ONES) & !y;
        (below_space | del) & HIGH
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn block_bad(b: &[u8; 16]) -> u32 {
        use core::arch::x86_64::*;
        // SAFETY: `b` is 16 readable bytes and `_mm_loadu_si128` needs no alignment; the rest
        // computes on registers, with SSE2, which every x86_64 target has (the cfg above).
        unsafe {
            let x = _mm_loadu_si128(b.as_ptr().cast());
            let at_least_space = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x20)), x);
            let del = _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f));
            !_mm_movemask_epi8(_mm_andnot_si128(del, at_least_space)) as u32 & 0xffff
        }
    }
}

impl Class for NotQuery {
    const TABLE: &'static [bool; 256] = &NOT_QUERY;
    /// The bytes equal to `?` ("any byte zero" of the word with `?` taken away, which can
    /// flag a byte above a flagged one by a borrow, never miss one).
    #[inline(always)]
    fn word_bad(x: u64) -> u64 {
        let y = x ^ (ONES * b'?' as u64);
        y.wrapping_sub(ONES) & !y & HIGH
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn block_bad(b: &[u8; 16]) -> u32 {
        use core::arch::x86_64::*;
        // SAFETY: as for `Value::block_bad`.
        unsafe {
            let x = _mm_loadu_si128(b.as_ptr().cast());
            _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b'?' as i8))) as u32
        }
    }
}

/// Bit k set for each byte k of `x` in `a..=b` (as unsigned bytes, `a <= b`): the byte moved
/// down by `a` then compared, signed, after shifting the range to the bottom of `i8`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
macro_rules! block_within {
    ($x:expr, $a:expr, $b:expr) => {
        _mm_cmplt_epi8(
            _mm_add_epi8($x, _mm_set1_epi8((0x80u8.wrapping_sub($a)) as i8)),
            _mm_set1_epi8((0x80u8 + ($b - $a) + 1) as i8),
        )
    };
}

impl Class for Target {
    const TABLE: &'static [bool; 256] = &TARGET;
    #[inline(always)]
    fn word_bad(x: u64) -> u64 {
        let ok =
            word_within(x, 0x26, 0x3b) | word_within(x, 0x3f, 0x5a) | word_within(x, 0x61, 0x7a);
        (!ok | x) & HIGH
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn block_bad(b: &[u8; 16]) -> u32 {
        use core::arch::x86_64::*;
        // SAFETY: as for `Value::block_bad`.
        unsafe {
            let x = _mm_loadu_si128(b.as_ptr().cast());
            let ok = _mm_or_si128(
                _mm_or_si128(block_within!(x, 0x26, 0x3b), block_within!(x, 0x3f, 0x5a)),
                block_within!(x, 0x61, 0x7a),
            );
            !_mm_movemask_epi8(ok) as u32 & 0xffff
        }
    }
}

impl Class for Token {
    const TABLE: &'static [bool; 256] = &TCHAR;
    #[inline(always)]
    fn word_bad(x: u64) -> u64 {
        let ok = word_within(x, 0x2d, 0x2d)
            | word_within(x, 0x30, 0x39)
            | word_within(x | (ONES * 0x20), 0x61, 0x7a);
        (!ok | x) & HIGH
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn block_bad(b: &[u8; 16]) -> u32 {
        use core::arch::x86_64::*;
        // SAFETY: as for `Value::block_bad`.
        unsafe {
            let x = _mm_loadu_si128(b.as_ptr().cast());
            // A letter of either case is a lower-case letter once 0x20 is set.
            let lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
            let ok = _mm_or_si128(
                _mm_or_si128(
                    _mm_cmpeq_epi8(x, _mm_set1_epi8(b'-' as i8)),
                    block_within!(x, 0x30, 0x39),
                ),
                block_within!(lower, 0x61, 0x7a),
            );
            !_mm_movemask_epi8(ok) as u32 & 0xffff
        }
    }
}

impl Class for HostCommon {
    const TABLE: &'static [bool; 256] = &HOST_COMMON;
    #[inline(always)]
    fn word_bad(x: u64) -> u64 {
        let ok = word_within(x, 0x2d, 0x2e)
            | word_within(x, 0x30, 0x39)
            | word_within(x | (ONES * 0x20), 0x61, 0x7a);
        (!ok | x) & HIGH
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn block_bad(b: &[u8; 16]) -> u32 {
        use core::arch::x86_64::*;
        // SAFETY: as for `Value::block_bad`.
        unsafe {
            let x = _mm_loadu_si128(b.as_ptr().cast());
            let lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
            let ok = _mm_or_si128(
                _mm_or_si128(block_within!(x, 0x2d, 0x2e), block_within!(x, 0x30, 0x39)),
                block_within!(lower, 0x61, 0x7a),
            );
            !_mm_movemask_epi8(ok) as u32 & 0xffff
        }
    }
}

impl Class for RegName {
    const TABLE: &'static [bool; 256] = &REG_NAME;
    #[inline(always)]
    fn word_bad(x: u64) -> u64 {
        HostCommon::word_bad(x)
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn block_bad(b: &[u8; 16]) -> u32 {
        HostCommon::block_bad(b)
    }
}

/// Bytes the field lines' block path takes in one step: [`LANES`] SSE2 blocks of 16.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) const STEP: usize = 16 * LANES;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const LANES: usize = 2;

/// The [`STEP`] bytes of `w` at `base` (`w.len() >= STEP`, `base <= w.len()`): bit k set when
/// byte `base + k` is one [`Class::block_bad`] cannot vouch for, and for every k at or past
/// the end of `w` (a step that would run past the end is loaded from the last bytes and moved
/// down). The bits depend on `base` and the bytes alone, never on what the scan found before,
/// so the processor computes the masks of the next steps while the positions in this one are
/// being worked out.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(super) fn block_at<C: Class>(w: &[u8], base: usize) -> u64 {
    #[inline(always)]
    fn lanes<C: Class>(b: &[u8; STEP]) -> u64 {
        let mut m = 0;
        for k in 0..LANES {
            if let Some(lane) = b[16 * k..].first_chunk::<16>() {
                m |= (C::block_bad(lane) as u64) << (16 * k);
            }
        }
        m
    }
    match w.get(base..).and_then(|r| r.first_chunk::<STEP>()) {
        Some(b) => lanes::<C>(b),
        None => {
            let Some(from) = w.len().checked_sub(STEP) else {
                return !0;
            };
            let Some(b) = w[from..].first_chunk::<STEP>() else {
                return !0;
            };
            lanes::<C>(b).checked_shr((base - from) as u32).unwrap_or(0) | !0u64 << (w.len() - base)
        }
    }
}

/// Advance `*i` over bytes of class `C`, several at a time: the quick test flags the bytes it
/// cannot vouch for, each flagged byte is looked up in the table, lowest first, and the scan
/// stops at the first one outside the class. Fewer than eight bytes left: byte by byte.
/// Measured (eight at a time): about 2x a byte-wise table loop on browser headers, 3x on a
/// 4 KiB cookie; going straight to the flagged bytes saves the byte-wise steps before the end
/// of most short values.
#[inline(always)]
pub(super) fn skip<C: Class>(w: &[u8], i: &mut usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while let Some(b) = w.get(*i..).and_then(|r| r.first_chunk::<16>()) {
        let mut bad = C::block_bad(b);
        while bad != 0 {
            let k = bad.trailing_zeros() as usize;
            if !C::TABLE[b[k] as usize] {
                *i += k;
                return;
            }
            bad &= bad - 1;
        }
        *i += 16;
    }
    while let Some(b) = w.get(*i..).and_then(|r| r.first_chunk::<8>()) {
        let mut bad = C::word_bad(u64::from_le_bytes(*b));
        while bad != 0 {
            let k = bad.trailing_zeros() as usize / 8;
            if !C::TABLE[b[k] as usize] {
                *i += k;
                return;
            }
            bad &= bad - 1;
        }
        *i += 8;
    }
    while *i < w.len() && C::TABLE[w[*i] as usize] {
        *i += 1;
    }
}

/// The length of the run of class `C` bytes that starts `w[from..to]`. Bytes of `w` after
/// `to` may be read, to test a short run in one step, but never counted.
#[inline(always)]
pub(super) fn run_within<C: Class>(w: &[u8], from: usize, to: usize) -> usize {
    let len = to - from;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if len < 16 {
        if let Some(b) = w.get(from..).and_then(|r| r.first_chunk::<16>()) {
            // Byte `len` stands for the end of the run.
            let mut bad = C::block_bad(b) | 1 << len;
            loop {
                let k = bad.trailing_zeros() as usize;
                if k == len || !C::TABLE[b[k] as usize] {
                    return k;
                }
                bad &= bad - 1;
            }
        }
    }
    if len < 8 {
        if let Some(b) = w.get(from..).and_then(|r| r.first_chunk::<8>()) {
            let mut bad = C::word_bad(u64::from_le_bytes(*b)) | 0x80 << (8 * len);
            loop {
                let k = bad.trailing_zeros() as usize / 8;
                if k == len || !C::TABLE[b[k] as usize] {
                    return k;
                }
                bad &= bad - 1;
            }
        }
    }
    let mut k = from;
    skip::<C>(&w[..to], &mut k);
    k - from
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value at every offset of runs 15 and 27 bytes long, so that it falls in a
    /// word and the byte-wise tail, and in a block (SSE2) or a second word: the scan stops
    /// exactly at it when it is outside the class, and runs to the end when it is inside.
    fn scan_agrees_with_the_table<C: Class>() {
        for len in [15, 27] {
            for c in 0..=255u8 {
                for at in 0..len {
                    let mut run = [b'a'; 27];
                    run[at] = c;
                    let mut i = 0;
                    skip::<C>(&run[..len], &mut i);
                    let want = if C::TABLE[c as usize] { len } else { at };
                    assert_eq!(i, want, "byte {c:#04x} at {at} of {len}");
                }
            }
        }
    }

    /// A bounded run counts the class bytes before `to` only, whatever follows, however much
    /// of the buffer is left after it.
    fn bounded_run_agrees_with_the_table<C: Class>() {
        for len in 0..20 {
            for tail in [0, 3, 20] {
                for c in 0..=255u8 {
                    for at in 0..len {
                        let mut w = [b'a'; 3 + 20 + 20];
                        w[3 + at] = c;
                        let end = 3 + len;
                        w[end..].fill(b'\0');
                        let want = if C::TABLE[c as usize] { len } else { at };
                        let got = run_within::<C>(&w[..end + tail], 3, end);
                        assert_eq!(got, want, "byte {c:#04x} at {at} of {len}, {tail} after");
                    }
                }
                let w = [b'a'; 3 + 20 + 20];
                let end = 3 + len;
                assert_eq!(run_within::<C>(&w[..end + tail], 3, end), len);
            }
        }
    }

    #[test]
    fn quick_tests_never_decide_the_grammar() {
        scan_agrees_with_the_table::<Value>();
        scan_agrees_with_the_table::<Target>();
        scan_agrees_with_the_table::<Token>();
        scan_agrees_with_the_table::<HostCommon>();
        scan_agrees_with_the_table::<RegName>();
        scan_agrees_with_the_table::<NotQuery>();
        bounded_run_agrees_with_the_table::<Value>();
        bounded_run_agrees_with_the_table::<HostCommon>();
        bounded_run_agrees_with_the_table::<NotQuery>();
    }
}
