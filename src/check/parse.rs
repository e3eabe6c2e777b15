//! The parser's and the chunked decoder's invariants, and the fuzz entries that drive them.

use crate::chunked::{ChunkedDecoder, Progress};
use crate::parser::{Error, Limits, Parser, Status, parse_request};

/// Feed `data` to one parser in pieces ending at each of `cuts` (ascending offsets, taken
/// modulo the input length), then the whole; return the first result that is not partial.
pub fn parse_in_pieces<'b>(
    data: &'b [u8],
    cuts: &[usize],
    limits: Limits,
) -> Result<Status<'b>, Error> {
    let mut p = Parser::new(limits);
    let mut last = 0;
    for &c in cuts {
        let c = if data.is_empty() { 0 } else { c % data.len() };
        if c < last {
            continue;
        }
        last = c;
        match p.parse(&data[..c]) {
            Ok(Status::Partial) => {}
            done => return done,
        }
    }
    p.parse(data)
}

/// The request parser's invariants on `data`:
/// - the same bytes always give the same result;
/// - a complete head never claims more than the input, and every strict prefix of it is
///   partial;
/// - feeding the bytes in the pieces given by `cuts` gives exactly the one-shot result.
pub fn parser_invariants(data: &[u8], cuts: &[usize], limits: Limits) {
    let once = parse_request(data, limits);
    assert_eq!(
        once,
        parse_request(data, limits),
        "parse is not deterministic"
    );
    if let Ok(Status::Complete(req)) = once {
        assert!(req.head_len <= data.len(), "consumed more than the input");
        assert!(
            req.head_len <= limits.max_head,
            "head longer than the limit"
        );
        // Checking every prefix is quadratic: sample at most 512 of them, always the last.
        let n = req.head_len;
        let step = (n / 512).max(1);
        for k in (0..n).step_by(step).chain(core::iter::once(n - 1)) {
            let r = parse_request(&data[..k], limits);
            assert_eq!(
                r,
                Ok(Status::Partial),
                "strict prefix of {k} bytes is not partial"
            );
        }
        assert_eq!(
            parse_request(&data[..n], limits),
            once,
            "the head alone parses differently"
        );
    }
    let pieces = parse_in_pieces(data, cuts, limits);
    assert_eq!(
        pieces, once,
        "split parse differs from one-shot (cuts {cuts:?})"
    );
}

/// Decode `data` as a chunked body in pieces ending at `cuts` (as [`parse_in_pieces`]).
/// Returns the total consumed and whether the body ended, or the error.
pub fn decode_in_pieces(data: &[u8], cuts: &[usize]) -> Result<Progress, Error> {
    let mut d = ChunkedDecoder::new();
    let mut consumed = 0;
    let mut last = 0;
    for &c in cuts.iter().chain(core::iter::once(&usize::MAX)) {
        let c = if c == usize::MAX || data.is_empty() {
            data.len()
        } else {
            c % data.len()
        };
        if c < last {
            continue;
        }
        let p = d.decode(&data[consumed..c])?;
        assert!(
            p.consumed <= c - consumed,
            "decoder consumed more than given"
        );
        consumed += p.consumed;
        last = c;
        if p.done {
            break;
        }
    }
    Ok(Progress {
        consumed,
        done: d.is_done(),
    })
}

/// The chunked decoder's invariants on `data`: split invariance, consumption bounded by the
/// input, and nothing consumed past the end of the body.
pub fn chunked_invariants(data: &[u8], cuts: &[usize]) {
    let once = ChunkedDecoder::new().decode(data);
    if let Ok(p) = once {
        assert!(p.consumed <= data.len(), "consumed more than the input");
        if !p.done {
            assert_eq!(
                p.consumed,
                data.len(),
                "stopped early without ending the body"
            );
        } else {
            // The body is exactly the consumed bytes: they alone decode to the end.
            let again = ChunkedDecoder::new().decode(&data[..p.consumed]);
            assert_eq!(again, once, "the body alone decodes differently");
        }
    }
    assert_eq!(
        decode_in_pieces(data, cuts),
        once,
        "split decode differs from one-shot (cuts {cuts:?})"
    );
}

/// Split a fuzz input into cut points and data: the first byte says how many cuts (up to
/// 15), each cut is the next two bytes (little-endian).
pub fn split_script(data: &[u8]) -> ([usize; 15], usize, &[u8]) {
    let mut cuts = [0usize; 15];
    let Some((&n, mut rest)) = data.split_first() else {
        return (cuts, 0, data);
    };
    let n = (n as usize % 16).min(15);
    let mut k = 0;
    while k < n && rest.len() >= 2 {
        cuts[k] = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        rest = &rest[2..];
        k += 1;
    }
    cuts[..k].sort_unstable();
    (cuts, k, rest)
}

/// Limits chosen by a fuzz byte: the defaults, or small ones that the input can reach.
pub fn fuzz_limits(b: u8) -> Limits {
    match b % 4 {
        0 => Limits::default(),
        1 => Limits {
            max_head: 64,
            max_headers: 2,
        },
        2 => Limits {
            max_head: 256,
            max_headers: 8,
        },
        _ => Limits {
            max_head: 1024,
            max_headers: 0,
        },
    }
}

/// Fuzz entry: any bytes through the parser, with every invariant of [`parser_invariants`].
pub fn fuzz_parse_request(data: &[u8]) {
    let limits = fuzz_limits(data.first().copied().unwrap_or(0));
    let data = data.get(1..).unwrap_or(&[]);
    let half = [data.len() / 2];
    parser_invariants(data, &half, limits);
}

/// Fuzz entry: the fuzzer chooses the bytes and the split points.
pub fn fuzz_parse_split(data: &[u8]) {
    let (cuts, n, rest) = split_script(data);
    let limits = fuzz_limits(rest.first().copied().unwrap_or(0));
    let rest = rest.get(1..).unwrap_or(&[]);
    parser_invariants(rest, &cuts[..n], limits);
}

/// Fuzz entry: the chunked decoder with split points.
pub fn fuzz_chunked(data: &[u8]) {
    let (cuts, n, rest) = split_script(data);
    chunked_invariants(rest, &cuts[..n]);
}
