//! The chunked decoder's specification (RFC 9112 §7.1): input, expected outcome.

use canned::check::{chunked_invariants, decode_in_pieces};
use canned::chunked::{ChunkedDecoder, Progress};
use canned::parser::Error;

#[derive(Debug)]
enum Want {
    /// The body ends after this many bytes.
    Done(usize),
    /// All input consumed, body not ended.
    More,
    Err(Error),
}
use Want::*;

#[rustfmt::skip]
const CASES: &[(&str, &[u8], Want)] = &[
    ("empty body", b"0\r\n\r\n", Done(5)),
    ("one chunk", b"5\r\nhello\r\n0\r\n\r\n", Done(15)),
    ("two chunks", b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", Done(20)),
    ("next request follows", b"1\r\na\r\n0\r\n\r\nGET / HTTP/1.1\r\n", Done(11)),
    ("upper hex", b"A\r\n0123456789\r\n0\r\n\r\n", Done(20)),
    ("lower hex", b"a\r\n0123456789\r\n0\r\n\r\n", Done(20)),
    ("leading zeros", b"0005\r\nhello\r\n000\r\n\r\n", Done(20)),
    ("extension", b"5;name=value\r\nhello\r\n0\r\n\r\n", Done(26)),
    ("quoted extension", b"5;n=\"a b\"\r\nhello\r\n0\r\n\r\n", Done(23)),
    ("BWS before ;", b"5 ;n\r\nhello\r\n0\r\n\r\n", Done(18)),
    ("ext on last chunk", b"0;x\r\n\r\n", Done(7)),
    ("trailers", b"0\r\nX-Sum: 1\r\nY: 2\r\n\r\n", Done(21)),
    ("data with CRLF inside", b"4\r\n\r\n\r\n\r\n0\r\n\r\n", Done(14)),
    ("body hides a request", b"1a\r\nGET /smuggled HTTP/1.1\r\n\r\n\r\n0\r\n\r\n", Done(37)),
    ("incomplete size", b"5", More),
    ("incomplete data", b"5\r\nhel", More),
    ("incomplete trailers", b"0\r\nX: 1\r\n", More),
    ("no size", b"\r\n", Err(Error::InvalidChunkSize)),
    ("non-hex size", b"g\r\n", Err(Error::InvalidChunkSize)),
    ("0x prefix", b"0x5\r\nhello\r\n0\r\n\r\n", Err(Error::InvalidChunkSize)),
    ("negative size", b"-5\r\n", Err(Error::InvalidChunkSize)),
    ("space before size", b" 5\r\n", Err(Error::InvalidChunkSize)),
    ("space after size", b"5 \r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("overflow", b"fffffffffffffffff\r\n", Err(Error::ChunkSizeOverflow)),
    ("2^64 + 5 wraps elsewhere", b"10000000000000005\r\nhello\r\n", Err(Error::ChunkSizeOverflow)),
    ("bare LF after size", b"5\nhello\r\n0\r\n\r\n", Err(Error::BareLf)),
    ("bare CR after size", b"5\rhello\r\n", Err(Error::BareCr)),
    ("bare LF after data", b"5\r\nhello\n0\r\n\r\n", Err(Error::InvalidChunkData)),
    ("data too long", b"5\r\nhello!\r\n0\r\n\r\n", Err(Error::InvalidChunkData)),
    ("data CR then not LF", b"5\r\nhello\rX", Err(Error::BareCr)),
    ("bare LF in ext", b"5;a\nhello\r\n", Err(Error::BareLf)),
    ("CTL in ext", b"5;a\x01\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    // --- chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ), §7.1.1 ---
    ("ext name only, several", b"5;a;b;c\r\nhello\r\n0\r\n\r\n", Done(21)),
    ("ext BWS everywhere it is allowed", b"5 \t; a = b ;\tc\t=\t\"d\" ;e\r\nhello\r\n0\r\n\r\n", Done(37)),
    ("ext token value, every tchar", b"1;n=!#$%&'*+-.^_`|~09aZ\r\na\r\n0\r\n\r\n", Done(33)),
    ("ext quoted-pair and specials", b"1;n=\"a\\\"b\\\\c;d=e,\t\xff\"\r\na\r\n0\r\n\r\n", Done(30)),
    ("ext empty quoted-string", b"1;n=\"\"\r\na\r\n0\r\n\r\n", Done(16)),
    ("ext on last chunk with value", b"0;n=\"v\"\r\n\r\n", Done(11)),
    ("bare ;", b"5;\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("bare ; on last chunk", b"0;\r\n\r\n", Err(Error::InvalidChunkExt)),
    ("; then BWS only", b"5; \r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("empty extension between ;", b"5;a;;b\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("= without name", b"5;=b\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("name with /", b"5;a/b\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("name with @", b"5;a@b=c\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("name with obs-text", b"5;caf\xe9\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("name with ,", b"5;a,b\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("= and no value", b"5;a=\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("two values", b"5;a=b=c\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("token value with (", b"5;a=b(c\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("space inside a name", b"5;a b\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("BWS before CRLF after name", b"5;a \r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("BWS before CRLF after value", b"5;a=b\t\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("unterminated quoted-string", b"5;a=\"bc\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("quoted-string, bare LF inside", b"5;a=\"b\nhello\r\n", Err(Error::BareLf)),
    ("quoted-string, CTL inside", b"5;a=\"b\x01\"\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("quoted-string, DEL inside", b"5;a=\"b\x7f\"\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("quoted-pair escaping a CTL", b"5;a=\"\\\x01\"\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("quoted-pair escaping CR", b"5;a=\"\\\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("text after the closing quote", b"5;a=\"b\"c\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("quote inside a token value", b"5;a=b\"c\"\r\nhello\r\n", Err(Error::InvalidChunkExt)),
    ("bare LF ending", b"0\r\n\n", Err(Error::BareLf)),
    ("bare CR ending", b"0\r\n\rX", Err(Error::BareCr)),
    ("trailer obs-fold", b"0\r\nX: 1\r\n 2\r\n\r\n", Err(Error::InvalidTrailer)),
    ("trailer without colon", b"0\r\nX\r\n\r\n", Err(Error::BareCr)),
    ("trailer bare LF", b"0\r\nX: 1\n\r\n", Err(Error::BareLf)),
    ("trailer NUL", b"0\r\nX: \0\r\n\r\n", Err(Error::InvalidTrailer)),
];

#[test]
fn table() {
    for (name, input, want) in CASES {
        let got = ChunkedDecoder::new().decode(input);
        match (want, got) {
            (
                Done(n),
                Ok(Progress {
                    consumed,
                    done: true,
                }),
            ) => assert_eq!(consumed, *n, "{name}"),
            (
                More,
                Ok(Progress {
                    consumed,
                    done: false,
                }),
            ) => assert_eq!(consumed, input.len(), "{name}"),
            (Err(e), Result::Err(g)) => assert_eq!(g, *e, "{name}"),
            (want, got) => panic!("{name}: want {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn split_invariance() {
    for (name, input, _) in CASES {
        for cut in 0..=input.len() {
            chunked_invariants(input, &[cut]);
            for cut2 in cut..=input.len() {
                chunked_invariants(input, &[cut, cut2]);
            }
        }
        let all: Vec<usize> = (0..input.len()).collect();
        assert_eq!(
            decode_in_pieces(input, &all),
            ChunkedDecoder::new().decode(input),
            "{name}: byte by byte"
        );
    }
}

#[test]
fn long_size_line_and_trailers_are_bounded() {
    let mut ext = b"1;".to_vec();
    ext.extend(std::iter::repeat_n(b'a', 5000));
    assert_eq!(
        ChunkedDecoder::new().decode(&ext),
        Result::Err(Error::InvalidChunkExt)
    );
    let mut quoted = b"1;a=\"".to_vec();
    quoted.extend(std::iter::repeat_n(b'q', 5000));
    assert_eq!(
        ChunkedDecoder::new().decode(&quoted),
        Result::Err(Error::InvalidChunkExt)
    );
    // Exactly at the bound, extensions are accepted.
    let mut fit = b"1;a=".to_vec();
    fit.extend(std::iter::repeat_n(b'v', 4096 - 4 - 1));
    fit.extend_from_slice(b"\r\na\r\n0\r\n\r\n");
    assert!(ChunkedDecoder::new().decode(&fit).unwrap().done);
    let mut zeros = vec![b'0'; 5000];
    zeros.extend_from_slice(b"\r\n\r\n");
    assert_eq!(
        ChunkedDecoder::new().decode(&zeros),
        Result::Err(Error::InvalidChunkExt)
    );
    let mut trailers = b"0\r\n".to_vec();
    for _ in 0..1000 {
        trailers.extend_from_slice(b"X-Trailer: 0123\r\n");
    }
    assert_eq!(
        ChunkedDecoder::new().decode(&trailers),
        Result::Err(Error::InvalidTrailer)
    );
}

#[test]
fn large_chunk_is_skipped_in_bulk() {
    let mut d = ChunkedDecoder::new();
    assert_eq!(d.decode(b"100000\r\n").unwrap().consumed, 8);
    let data = vec![b'x'; 0x100000];
    let p = d.decode(&data).unwrap();
    assert_eq!((p.consumed, p.done), (0x100000, false));
    let p = d.decode(b"\r\n0\r\n\r\nNEXT").unwrap();
    assert_eq!((p.consumed, p.done), (7, true));
}

#[test]
fn decode_after_the_end_is_an_error_not_a_panic() {
    let mut d = ChunkedDecoder::new();
    let p = d.decode(b"0\r\n\r\nGET").unwrap();
    assert_eq!((p.consumed, p.done), (5, true));
    assert!(d.is_done());
    for more in [&b"GET"[..], b"", b"0\r\n\r\n"] {
        assert_eq!(
            d.decode(more),
            Result::Err(Error::InvalidChunkData),
            "{more:?}"
        );
    }
}

/// `with_data_limit`: the decoder stops right after the size line that takes the announced
/// data past the limit, whatever comes after it and however the input is split.
#[test]
fn data_limit_stops_after_the_size_line_that_passes_it() {
    /// (name, limit, input, consumed, over the limit, data announced)
    type Case = (&'static str, u64, &'static [u8], usize, bool, u64);
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("at the limit", 10, b"5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", 25, false, 10),
        ("one past", 10, b"5\r\n01234\r\n6\r\n56789A\r\n0\r\n\r\n", 13, true, 11),
        ("first chunk too big", 10, b"b\r\n0123456789A\r\n0\r\n\r\n", 3, true, 11),
        ("garbage after the size line is not seen", 4, b"5\r\n\x00\x00", 3, true, 5),
        ("with an extension", 4, b"5;a=b\r\n01234", 7, true, 5),
        ("no limit", u64::MAX, b"5\r\n01234\r\n0\r\n\r\n", 15, false, 5),
        ("zero limit, empty body", 0, b"0\r\n\r\n", 5, false, 0),
    ];
    for &(name, limit, input, consumed, over, announced) in cases {
        for cut in 0..=input.len() {
            let mut d = ChunkedDecoder::with_data_limit(limit);
            let first = d.decode(&input[..cut]).unwrap();
            let total = if first.done || d.over_limit() {
                first.consumed
            } else {
                // Not ended and not over: every byte offered was consumed.
                assert_eq!(first.consumed, cut, "{name}, cut {cut}");
                cut + d.decode(&input[cut..]).unwrap().consumed
            };
            assert_eq!(total, consumed, "{name}, cut {cut}");
            assert_eq!(d.over_limit(), over, "{name}, cut {cut}");
            assert_eq!(d.data_len(), announced, "{name}, cut {cut}");
            if over {
                // Nothing more is consumed once over the limit.
                let after = d.decode(b"0\r\n\r\n").unwrap();
                assert_eq!((after.consumed, after.done), (0, false), "{name}");
            }
        }
    }
}
