//! The catalogue's table: every malformed response with its id, the clause it breaks and its
//! bytes, in `--mutate` order.

use super::encoding::{Spoil, deflate_stored, gzip, zlib};

/// What a variant breaks, in [`ABOUT`]: kept apart from the bytes because the server never
/// prints it (docs/mutate.md's table does), so that it is not linked into the binary.
pub struct About {
    /// What is wrong, in one line.
    pub description: &'static str,
    /// The clause it breaks.
    pub rfc: &'static str,
}

/// Where a variant's bytes come from.
pub(super) enum Source {
    /// The next this many bytes of `FIXED`.
    Fixed(u16),
    /// [`OK_HEAD`] and then the next this many bytes of `FIXED`: the start that most variants
    /// share, stored once.
    AfterOk(u16),
    /// Built once at start-up (large or repetitive responses).
    Built(fn() -> Vec<u8>),
}

/// The start of most variants: a status line and a content type.
pub const OK_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n";

/// `id, rfc, description, bytes;` for each variant, where the bytes are `ok "..."` (after
/// [`OK_HEAD`]), `bytes "..."` (whole) or `built FUNCTION`. The ids and the fixed bytes become
/// one string each, and each variant's source a few bytes: a table of a pointer or two per
/// variant would cost a relocation each in a position-independent binary.
macro_rules! catalogue {
    ($($id:literal, $rfc:literal, $desc:literal, $kind:ident $bytes:tt;)*) => {
        /// Every variant's id, one per line, in `--mutate` order.
        pub(super) const IDS: &str = concat!($($id, "\n"),*);
        /// The bytes of the fixed variants, one after the other in `--mutate` order.
        pub(super) const FIXED: &str = concat!($(catalogue!(@text $kind $bytes)),*);
        /// Each variant's bytes, in `--mutate` order.
        pub(super) static SOURCES: [Source; COUNT] = [$(catalogue!(@source $kind $bytes)),*];
        /// The number of variants.
        pub const COUNT: usize = [$($id),*].len();
        /// What each variant breaks, in `--mutate` order.
        pub static ABOUT: [About; COUNT] = [$(About { description: $desc, rfc: $rfc }),*];
    };
    (@text built $f:tt) => { "" };
    (@text $kind:ident $bytes:tt) => { $bytes };
    (@source ok $bytes:tt) => { Source::AfterOk($bytes.len() as u16) };
    (@source bytes $bytes:tt) => { Source::Fixed($bytes.len() as u16) };
    (@source built $f:tt) => { Source::Built($f) };
}

// Every variant, in `--mutate` order. Ids never change meaning; new ones are added at the end.
catalogue! {
    "cl-too-long", "RFC 9112 §6.3, §8",
        "Content-Length 100 with a 6-byte body, then close: an incomplete message",
        ok "Content-Length: 100\r\n\r\nhello\n";
    "cl-too-short", "RFC 9112 §6.3",
        "Content-Length 2 with a 6-byte body: 4 bytes left over where the next response would start",
        ok "Content-Length: 2\r\n\r\nhello\n";
    "cl-missing", "RFC 9112 §6.3 (8)",
        "neither Content-Length nor Transfer-Encoding: the body ends at close (legal, but rarely met)",
        ok "\r\nhello\n";
    "cl-duplicate-same", "RFC 9110 §8.6",
        "two Content-Length fields of the same value 6 (a recipient may accept it)",
        ok "Content-Length: 6\r\nContent-Length: 6\r\n\r\nhello\n";
    "cl-duplicate-conflicting", "RFC 9112 §6.3 (5)",
        "two Content-Length fields, 6 and 10: an unrecoverable error",
        ok "Content-Length: 6\r\nContent-Length: 10\r\n\r\nhello\n";
    "cl-list-conflicting", "RFC 9112 §6.3 (5)",
        "one Content-Length field holding the list 6, 10",
        ok "Content-Length: 6, 10\r\n\r\nhello\n";
    "cl-negative", "RFC 9110 §8.6",
        "Content-Length -1: not 1*DIGIT",
        ok "Content-Length: -1\r\n\r\nhello\n";
    "cl-plus-sign", "RFC 9110 §8.6",
        "Content-Length +6: a sign is not 1*DIGIT",
        ok "Content-Length: +6\r\n\r\nhello\n";
    "cl-overflow-u64", "RFC 9110 §8.6",
        "Content-Length 18446744073709551616 (2^64): overflows a 64-bit length",
        ok "Content-Length: 18446744073709551616\r\n\r\nhello\n";
    "cl-overflow-i64", "RFC 9110 §8.6",
        "Content-Length 9223372036854775808 (2^63): overflows a signed 64-bit length",
        ok "Content-Length: 9223372036854775808\r\n\r\nhello\n";
    "cl-hex", "RFC 9110 §8.6",
        "Content-Length 0x6: not decimal digits",
        ok "Content-Length: 0x6\r\n\r\nhello\n";
    "cl-empty", "RFC 9110 §8.6",
        "an empty Content-Length value",
        ok "Content-Length: \r\n\r\nhello\n";
    "cl-space-inside", "RFC 9110 §8.6",
        "Content-Length 0 6: a space between digits",
        ok "Content-Length: 0 6\r\n\r\nhello\n";
    "chunk-size-not-hex", "RFC 9112 §7.1",
        "chunk size zz: not HEXDIG",
        ok "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\n\r\n0\r\n\r\n";
    "chunk-size-overflow", "RFC 9112 §7.1",
        "chunk size 10000000000000000 (2^64): overflows a 64-bit size",
        ok "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\nhello\n\r\n0\r\n\r\n";
    "chunk-size-negative", "RFC 9112 §7.1",
        "chunk size -6",
        ok "Transfer-Encoding: chunked\r\n\r\n-6\r\nhello\n\r\n0\r\n\r\n";
    "chunk-size-too-long", "RFC 9112 §7.1, §8",
        "chunk size 0x10 with 6 bytes of data, then close: an incomplete chunk",
        ok "Transfer-Encoding: chunked\r\n\r\n10\r\nhello\n\r\n0\r\n\r\n";
    "chunk-size-too-short", "RFC 9112 §7.1",
        "chunk size 3 with 6 bytes of data: no CRLF where the chunk ends",
        ok "Transfer-Encoding: chunked\r\n\r\n3\r\nhello\n\r\n0\r\n\r\n";
    "chunk-size-space-after", "RFC 9112 §7.1, §7.1.1",
        "chunk size followed by a space and CRLF (whitespace without an extension)",
        ok "Transfer-Encoding: chunked\r\n\r\n6 \r\nhello\n\r\n0\r\n\r\n";
    "chunk-missing-last", "RFC 9112 §7.1, §8",
        "one chunk and then close, without the last chunk (0) and trailer section",
        ok "Transfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n";
    "chunk-last-no-final-crlf", "RFC 9112 §7.1, §8",
        "the last chunk 0 without the CRLF that ends the trailer section, then close",
        ok "Transfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n0\r\n";
    "chunk-data-no-crlf", "RFC 9112 §7.1",
        "chunk data not followed by CRLF before the next chunk size",
        ok "Transfer-Encoding: chunked\r\n\r\n6\r\nhello\n0\r\n\r\n";
    "chunk-ext-valid", "RFC 9112 §7.1.1",
        "well-formed chunk extensions (;name=value;flag) that a client must ignore (legal)",
        ok "Transfer-Encoding: chunked\r\n\r\n6;name=value;flag\r\nhello\n\r\n0\r\n\r\n";
    "chunk-ext-malformed", "RFC 9112 §7.1.1",
        "a chunk extension without a name (6;=x)",
        ok "Transfer-Encoding: chunked\r\n\r\n6;=x\r\nhello\n\r\n0\r\n\r\n";
    "chunk-ext-64kib", "RFC 9112 §7.1.1",
        "a 64 KiB chunk extension (clients are expected to limit it)",
        built chunk_ext_64kib;
    "chunk-trailer-valid", "RFC 9112 §7.1.2",
        "a trailer field after the last chunk (legal)",
        ok "Transfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n0\r\nX-Checksum: 1\r\n\r\n";
    "chunk-trailer-content-length", "RFC 9110 §6.5.1",
        "Content-Length 99 sent as a trailer field, where framing fields are forbidden",
        ok "Transfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n0\r\nContent-Length: 99\r\n\r\n";
    "chunk-trailer-no-colon", "RFC 9112 §7.1.2, §5",
        "a trailer line without a colon",
        ok "Transfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n0\r\nnot a field\r\n\r\n";
    "chunk-bare-lf", "RFC 9112 §2.2, §7.1",
        "chunk lines ended by bare LF",
        ok "Transfer-Encoding: chunked\r\n\r\n6\nhello\n\n0\n\n";
    "te-and-cl", "RFC 9112 §6.1, §6.3 (3)",
        "Transfer-Encoding: chunked together with Content-Length 6 (chunked must win)",
        ok "Transfer-Encoding: chunked\r\nContent-Length: 6\r\n\r\n6\r\nhello\n\r\n0\r\n\r\n";
    "te-cl-first", "RFC 9112 §6.1, §6.3 (3)",
        "Content-Length 6 before Transfer-Encoding: chunked (chunked must win)",
        ok "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n0\r\n\r\n";
    "te-chunked-twice", "RFC 9112 §6.1",
        "Transfer-Encoding: chunked, chunked (chunked applied twice)",
        ok "Transfer-Encoding: chunked, chunked\r\n\r\n6\r\nhello\n\r\n0\r\n\r\n";
    "te-unknown", "RFC 9112 §6.1",
        "Transfer-Encoding: x-unknown without chunked: the body runs to close",
        ok "Transfer-Encoding: x-unknown\r\n\r\nhello\n";
    "te-in-http10", "RFC 9112 §6.1",
        "an HTTP/1.0 response with Transfer-Encoding: chunked",
        bytes "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n0\r\n\r\n";
    "te-space-before-colon", "RFC 9112 §5.1",
        "Transfer-Encoding : chunked, with whitespace before the colon",
        ok "Transfer-Encoding : chunked\r\n\r\n6\r\nhello\n\r\n0\r\n\r\n";
    "header-no-colon", "RFC 9112 §5",
        "a header line without a colon",
        ok "Content-Length: 6\r\nX-Broken header line\r\n\r\nhello\n";
    "header-space-before-colon", "RFC 9112 §5.1",
        "Content-Length : 6, with whitespace before the colon",
        ok "Content-Length : 6\r\n\r\nhello\n";
    "header-empty-name", "RFC 9112 §5",
        "a field with an empty name (: value)",
        ok "Content-Length: 6\r\n: value\r\n\r\nhello\n";
    "header-name-space", "RFC 9110 §5.1",
        "a field name with a space in it (X Bad: 1)",
        ok "Content-Length: 6\r\nX Bad: 1\r\n\r\nhello\n";
    "header-obs-fold", "RFC 9112 §5.2",
        "a field value continued on the next line (obs-fold)",
        ok "Content-Length: 6\r\nX-Folded: first\r\n second\r\n\r\nhello\n";
    "header-fold-first-line", "RFC 9112 §2.2",
        "whitespace at the start of the first field line, right after the status line",
        bytes "HTTP/1.1 200 OK\r\n Content-Length: 6\r\n\r\nhello\n";
    "header-bare-lf", "RFC 9112 §2.2",
        "every line of the head ended by bare LF",
        bytes "HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 6\n\nhello\n";
    "header-bare-cr", "RFC 9112 §2.2",
        "every line of the head ended by bare CR",
        bytes "HTTP/1.1 200 OK\rContent-Type: text/plain\rContent-Length: 6\r\rhello\n";
    "header-mixed-line-ends", "RFC 9112 §2.2",
        "one field line ended by bare LF among CRLF lines",
        ok "Content-Length: 6\nX-A: 1\r\n\r\nhello\n";
    "header-line-64kib", "RFC 9112 §2.3",
        "one field line of 64 KiB (a client is expected to limit it)",
        built header_line_64kib;
    "headers-10000", "RFC 9112 §2.3",
        "10,000 header fields (a client is expected to limit them)",
        built headers_10000;
    "header-value-nul", "RFC 9110 §5.5",
        "a NUL byte in a field value",
        ok "Content-Length: 6\r\nX-A: a\0b\r\n\r\nhello\n";
    "header-value-ctl", "RFC 9110 §5.5",
        "a control character (0x01) in a field value",
        ok "Content-Length: 6\r\nX-A: a\x01b\r\n\r\nhello\n";
    "head-no-end", "RFC 9112 §2.1, §8",
        "a head without the empty line that ends it, then close",
        ok "Content-Length: 6\r\n";
    "status-http12", "RFC 9112 §2.3, §4",
        "status line HTTP/1.2 200 OK (a later minor version)",
        bytes "HTTP/1.2 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-http2", "RFC 9112 §2.3",
        "status line HTTP/2.0 200 OK on an HTTP/1.1 connection",
        bytes "HTTP/2.0 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-lowercase-version", "RFC 9112 §2.3",
        "status line http/1.1 200 OK (the name is case-sensitive)",
        bytes "http/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-two-digits", "RFC 9112 §4",
        "status code 20: not 3 digits",
        bytes "HTTP/1.1 20 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-four-digits", "RFC 9112 §4",
        "status code 2000: not 3 digits",
        bytes "HTTP/1.1 2000 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-letters", "RFC 9112 §4",
        "status code abc",
        bytes "HTTP/1.1 abc OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-999", "RFC 9110 §15",
        "status code 999: three digits but no such class",
        bytes "HTTP/1.1 999 Unknown\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-no-reason-no-space", "RFC 9112 §4",
        "status line HTTP/1.1 200 without the space before the (empty) reason",
        bytes "HTTP/1.1 200\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-reason-ctl", "RFC 9112 §4",
        "a control character (0x01) in the reason phrase",
        bytes "HTTP/1.1 200 O\x01K\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-reason-nul", "RFC 9112 §4",
        "a NUL byte in the reason phrase",
        bytes "HTTP/1.1 200 O\0K\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-leading-space", "RFC 9112 §4",
        "a space before HTTP/1.1 on the status line",
        bytes " HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "status-missing", "RFC 9112 §2.1",
        "a body with no status line or head at all (an HTTP/0.9-style response)",
        bytes "hello\n";
    "empty-response", "RFC 9112 §2.1, §8",
        "the connection closes without a byte sent",
        bytes "";
    "1xx-100-then-200", "RFC 9110 §15.2",
        "an unasked-for 100 Continue before the final 200 (legal)",
        bytes "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "1xx-103-then-200", "RFC 8297 §2",
        "103 Early Hints with a Link field before the final 200 (legal)",
        bytes "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "1xx-several", "RFC 9110 §15.2",
        "100, 102 and two 103 interim responses before the final 200 (legal)",
        bytes "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </b.js>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "1xx-1000", "RFC 9110 §15.2",
        "1,000 interim 100 Continue responses before the final 200",
        built interim_1000;
    "1xx-only", "RFC 9110 §15.2, RFC 9112 §8",
        "a 100 Continue and then close, no final response",
        bytes "HTTP/1.1 100 Continue\r\n\r\n";
    "1xx-with-body", "RFC 9112 §6.3 (1)",
        "a 100 Continue with Content-Length 5 and a body, then the final 200",
        bytes "HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\nextraHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "101-unasked", "RFC 9110 §15.2.2",
        "101 Switching Protocols to a request that asked for no upgrade, then bytes",
        bytes "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\nhello\n";
    "204-with-body", "RFC 9110 §15.3.5, RFC 9112 §6.3 (1)",
        "204 No Content with Content-Length 6 and a body",
        bytes "HTTP/1.1 204 No Content\r\nContent-Length: 6\r\n\r\nhello\n";
    "204-with-body-no-length", "RFC 9110 §15.3.5",
        "204 No Content followed by body bytes, no Content-Length",
        bytes "HTTP/1.1 204 No Content\r\n\r\nhello\n";
    "304-with-body", "RFC 9110 §15.4.5, RFC 9112 §6.3 (1)",
        "304 Not Modified with Content-Length 6 and a body",
        bytes "HTTP/1.1 304 Not Modified\r\nContent-Length: 6\r\n\r\nhello\n";
    "head-with-body", "RFC 9110 §9.3.2, RFC 9112 §6.3 (1)",
        "a body after the head (send the request as HEAD to see it)",
        ok "Content-Length: 6\r\n\r\nhello\n";
    "nul-before-status", "RFC 9112 §2.1",
        "a NUL byte before the status line",
        bytes "\0HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n";
    "nul-line-in-head", "RFC 9112 §5",
        "a line holding only a NUL byte among the fields",
        ok "Content-Length: 6\r\n\0\r\n\r\nhello\n";
    "two-responses", "RFC 9112 §9.3",
        "two complete responses to one request",
        ok "Content-Length: 6\r\n\r\nhello\nHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nagain\n";
    "ce-gzip-valid", "RFC 9110 §8.4.1.3, RFC 1952",
        "Content-Encoding: gzip and a well-formed gzip member holding hello (legal; stored deflate blocks)",
        built ce_gzip_valid;
    "ce-deflate-valid", "RFC 9110 §8.4.1.2, RFC 1950",
        "Content-Encoding: deflate and a well-formed zlib stream holding hello (legal; stored deflate blocks)",
        built ce_deflate_valid;
    "ce-gzip-not-gzip", "RFC 9110 §8.4, RFC 1952 §2.3.1",
        "Content-Encoding: gzip on the plain body hello: no gzip magic (ID1 ID2)",
        built ce_gzip_not_gzip;
    "ce-deflate-not-deflate", "RFC 9110 §8.4, RFC 1950 §2.2",
        "Content-Encoding: deflate on the plain body hello: no zlib header (its FCHECK fails)",
        built ce_deflate_not_deflate;
    "ce-deflate-raw", "RFC 9110 §8.4.1.2, RFC 1950 §2.2",
        "Content-Encoding: deflate on raw DEFLATE data without the zlib wrapper (a known misuse)",
        built ce_deflate_raw;
    "ce-gzip-truncated", "RFC 1952 §2.2, RFC 1951 §3.2.4",
        "a gzip member cut 3 bytes into its stored block: no end of stream, no trailer (Content-Length matches)",
        built ce_gzip_truncated;
    "ce-deflate-truncated", "RFC 1950 §2.2, RFC 1951 §3.2.4",
        "a zlib stream cut 3 bytes into its stored block: no end of stream, no ADLER32 (Content-Length matches)",
        built ce_deflate_truncated;
    "ce-gzip-bad-crc", "RFC 1952 §2.3.1",
        "a gzip member whose CRC32 is wrong (its lowest bit flipped)",
        built ce_gzip_bad_crc;
    "ce-gzip-bad-isize", "RFC 1952 §2.3.1",
        "a gzip member whose ISIZE says 7 bytes for 6",
        built ce_gzip_bad_isize;
    "ce-deflate-bad-adler", "RFC 1950 §2.2",
        "a zlib stream whose ADLER32 is wrong (its lowest bit flipped)",
        built ce_deflate_bad_adler;
    "ce-gzip-twice", "RFC 9110 §8.4",
        "hello gzip-encoded twice while Content-Encoding says gzip once: decoded once, a gzip member",
        built ce_gzip_twice;
    "ce-deflate-twice", "RFC 9110 §8.4",
        "hello deflate-encoded twice while Content-Encoding says deflate once: decoded once, a zlib stream",
        built ce_deflate_twice;
}

fn chunk_ext_64kib() -> Vec<u8> {
    let mut b = [OK_HEAD, b"Transfer-Encoding: chunked\r\n\r\n6;x="].concat();
    b.resize(b.len() + 64 * 1024, b'a');
    b.extend_from_slice(b"\r\nhello\n\r\n0\r\n\r\n");
    b
}

fn header_line_64kib() -> Vec<u8> {
    let mut b = [OK_HEAD, b"Content-Length: 6\r\nX-Long: "].concat();
    b.resize(b.len() + 64 * 1024, b'a');
    b.extend_from_slice(b"\r\n\r\nhello\n");
    b
}

fn headers_10000() -> Vec<u8> {
    let mut b = [OK_HEAD, b"Content-Length: 6\r\n"].concat();
    for i in 0..10_000 {
        b.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
    }
    b.extend_from_slice(b"\r\nhello\n");
    b
}

fn interim_1000() -> Vec<u8> {
    let mut b = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(1000);
    b.extend_from_slice(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n");
    b
}

/// A 200 whose body `body` is declared as Content-Encoding `coding`, with its exact length.
fn encoded(coding: &str, body: &[u8]) -> Vec<u8> {
    let mut b = OK_HEAD.to_vec();
    let head = format!(
        "Content-Encoding: {coding}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    b.extend_from_slice(head.as_bytes());
    b.extend_from_slice(body);
    b
}

/// The body the Content-Encoding variants encode.
const PLAIN: &[u8] = b"hello\n";

/// How far into a stream the truncated variants cut: its header, the stored block's 5-byte
/// header and 3 of the 6 data bytes.
fn cut(stream: Vec<u8>, header: usize) -> Vec<u8> {
    stream[..header + 5 + 3].to_vec()
}

fn ce_gzip_valid() -> Vec<u8> {
    encoded("gzip", &gzip(PLAIN, Spoil::Nothing))
}

fn ce_deflate_valid() -> Vec<u8> {
    encoded("deflate", &zlib(PLAIN, Spoil::Nothing))
}

fn ce_gzip_not_gzip() -> Vec<u8> {
    encoded("gzip", PLAIN)
}

fn ce_deflate_not_deflate() -> Vec<u8> {
    encoded("deflate", PLAIN)
}

fn ce_deflate_raw() -> Vec<u8> {
    encoded("deflate", &deflate_stored(PLAIN))
}

fn ce_gzip_truncated() -> Vec<u8> {
    encoded("gzip", &cut(gzip(PLAIN, Spoil::Nothing), 10))
}

fn ce_deflate_truncated() -> Vec<u8> {
    encoded("deflate", &cut(zlib(PLAIN, Spoil::Nothing), 2))
}

fn ce_gzip_bad_crc() -> Vec<u8> {
    encoded("gzip", &gzip(PLAIN, Spoil::Check))
}

fn ce_gzip_bad_isize() -> Vec<u8> {
    encoded("gzip", &gzip(PLAIN, Spoil::Size))
}

fn ce_deflate_bad_adler() -> Vec<u8> {
    encoded("deflate", &zlib(PLAIN, Spoil::Check))
}

fn ce_gzip_twice() -> Vec<u8> {
    encoded("gzip", &gzip(&gzip(PLAIN, Spoil::Nothing), Spoil::Nothing))
}

fn ce_deflate_twice() -> Vec<u8> {
    encoded(
        "deflate",
        &zlib(&zlib(PLAIN, Spoil::Nothing), Spoil::Nothing),
    )
}
