//! The HTTP/1.x request-head parser: strict, incremental, zero-copy, `core` only.
//!
//! The parser is a resumable scanner: it keeps its place (which part of which line) between
//! calls, so each byte is examined once however the head arrives (a field line the block
//! path below leaves to the scan, twice), and runs of method, target, field-name and
//! field-value bytes are checked sixteen at a time with SSE2, eight elsewhere (the byte
//! classes and those tests are in `classes`). With SSE2, whole field lines are taken from
//! masks of 32 bytes at fixed steps (`field_blocks`), and any line that is not well formed
//! from the scan. Every decision depends only on the bytes before it, so the result for a
//! given byte string never depends on how it was split into calls: an error found in a prefix
//! is the error of every extension of it, and a complete head is complete whatever follows it.
//!
//! Strictness choices (RFC 9112 unless noted):
//!
//! | input | outcome | why |
//! |---|---|---|
//! | bare LF as a line end | rejected, 400 | §2.2 allows accepting it; a front end that disagrees would frame differently (desync) |
//! | bare CR anywhere | rejected, 400 | §2.2 |
//! | empty lines before the request line | skipped | §2.2 (SHOULD ignore at least one) |
//! | more than one SP between request-line parts | rejected, 400 | §3 |
//! | version other than `HTTP/1.0` / `HTTP/1.1` | 505 when `HTTP/d.d`, otherwise 400 | §2.3, RFC 9110 §15.6.6 |
//! | a target byte outside its form's grammar: `#`, `\`, `"`, `<`, `>`, `^`, `` ` ``, `{`, `\|`, `}`, SP, CTL, non-ASCII; `[`, `]` outside an IP-literal | rejected, 400 | §3.2, RFC 3986 §3.3, §3.4 (origin-form is `absolute-path [ "?" query ]` of pchar) |
//! | `%` not followed by two hex digits in a target | rejected, 400 | RFC 3986 §2.1 |
//! | authority-form without CONNECT, `*` without OPTIONS | rejected, 400 | §3.2.3, §3.2.4 |
//! | absolute-form with a scheme other than `http`/`https` | rejected, 400 | §3.2.2: nothing else can name this server |
//! | absolute-form authority not `uri-host [ ":" port ]`, empty, or with userinfo | rejected, 400 | RFC 3986 §3.2, RFC 9110 §4.2.1, §4.2.4 |
//! | `Host` not `uri-host [ ":" port ]`, or with an empty host (`Host:`, `Host: :80`) | rejected, 400 | §3.2, RFC 3986 §3.2.2, §3.2.3, RFC 9110 §4.2.1 |
//! | a method that does not end within the head limit | rejected, 400 (not 414: the target is not what is long) | RFC 9110 §9.1 |
//! | whitespace before the colon of a field | rejected, 400 | §5.1 |
//! | obs-fold (a line starting with SP/HTAB) | rejected, 400 | §5.2 |
//! | NUL or other CTL in a field value | rejected, 400 | RFC 9110 §5.5 |
//! | HTTP/1.1 without Host, or with two | rejected, 400 | §3.2 |
//! | `Content-Length` not all digits, signed, or overflowing u64 | rejected, 400 | §6.3 (5) |
//! | several `Content-Length` values (fields or list members) | accepted if all equal, else 400 | §6.3 (5) |
//! | `Transfer-Encoding` with `Content-Length` | rejected, 400 | §6.3 (3): a smuggling vector, rejected rather than repaired |
//! | `Transfer-Encoding` in HTTP/1.0 | rejected, 400 | §6.1: HTTP/1.0 framing cannot be trusted |
//! | final transfer coding not `chunked`, or `chunked` twice | rejected, 400 | §6.3 (4), §6.1 |
//! | a transfer coding other than chunked/gzip/deflate/compress | rejected, 501, once the head is complete: any 400 of the head wins | §6.1 |
//! | `chunked` present but not final, with an unknown coding too | rejected, 400, not 501 | §6.3 (4): the length cannot be known, so the framing error wins |
//! | `Expect` other than `100-continue` | rejected, 417 | RFC 9110 §10.1.1 |

use memchr::memchr;

mod classes;

use classes::{HostCommon, NotQuery, REG_NAME, RegName, Target, Token, Value, run_within, skip};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use classes::{STEP, block_at};
pub(crate) use classes::{TCHAR, VALUE};

/// Limits the caller imposes on one request head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum bytes in a head, request line and final empty line included (431, or 414 when
    /// the request line alone does not fit).
    pub max_head: usize,
    /// Maximum number of header fields (431).
    pub max_headers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_head: 8 * 1024,
            max_headers: 100,
        }
    }
}

/// The protocol version of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// `HTTP/1.0`
    Http10,
    /// `HTTP/1.1`
    Http11,
}

/// The form of the request-target (RFC 9112 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `/path?query`
    Origin,
    /// `http://host/path?query`
    Absolute,
    /// `host:port`, CONNECT only
    Authority,
    /// `*`, OPTIONS only
    Asterisk,
}

/// How the body of a request is framed (RFC 9112 §6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// No body.
    None,
    /// `Content-Length: n`, n > 0.
    Length(u64),
    /// `Transfer-Encoding: chunked` (decode with [`crate::chunked::ChunkedDecoder`]).
    Chunked,
}

/// A complete request head, borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'b> {
    /// The method token, case-sensitive.
    pub method: &'b [u8],
    /// The request-target as sent.
    pub target: &'b [u8],
    /// The path of the target without the query (`/` for an absolute-form target without a
    /// path; empty for authority and asterisk forms).
    pub path: &'b [u8],
    /// The form of the target.
    pub form: Form,
    /// The version.
    pub version: Version,
    /// Whether the connection stays open after this request (RFC 9112 §9.3).
    pub keep_alive: bool,
    /// How the body is framed.
    pub framing: Framing,
    /// `Expect: 100-continue` on an HTTP/1.1 request (ignored in HTTP/1.0, RFC 9110 §10.1.1).
    pub expect_continue: bool,
    /// The method is `HEAD`.
    pub is_head: bool,
    /// The `Range` field's value (OWS trimmed; empty when the field came twice, which makes it
    /// invalid, RFC 9110 §5.3), for [`crate::range::resolve`]; `None` without the field.
    pub range: Option<&'b [u8]>,
    /// A `Range` or a conditional field came (`If-Match`, `If-None-Match`,
    /// `If-Modified-Since`, `If-Unmodified-Since`, `If-Range`, RFC 9110 §13.1): the head is to
    /// be read for them. One flag for all of them, so that a request without one pays a
    /// single test.
    pub range_or_conditional: bool,
    /// An `Upgrade` field came (RFC 9110 §7.8; `h2c`, RFC 7540 §3.2): the head is to be read
    /// for the protocol it asks for.
    pub upgrade: bool,
    /// The number of header fields.
    pub headers: usize,
    /// Bytes of the head, empty lines before the request line and the final CRLF included.
    pub head_len: usize,
}

/// The result of feeding bytes to the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status<'b> {
    /// The head is complete.
    Complete(Request<'b>),
    /// More bytes are needed.
    Partial,
}

/// Why a request (or its chunked body) was rejected. Each kind maps to one status code in
/// [`Error::status`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    /// The method is empty or contains a byte that is not a tchar (RFC 9110 §9.1).
    InvalidMethod,
    /// The request-target is empty, has a byte outside the grammar of its form (a `#`, a
    /// backslash, a `%` not followed by two hex digits, ...), or its form does not fit the
    /// method (RFC 9112 §3.2, RFC 3986 §3).
    InvalidTarget,
    /// The request line is not `method SP target SP version` (RFC 9112 §3).
    InvalidRequestLine,
    /// The version is not of the form `HTTP/d.d` (RFC 9112 §2.3).
    InvalidVersion,
    /// `HTTP/d.d` other than 1.0 and 1.1 (505, RFC 9110 §15.6.6).
    UnsupportedVersion,
    /// A field name is empty, has a non-tchar byte, or whitespace before the colon (RFC 9112 §5.1).
    InvalidHeaderName,
    /// A field value holds a control byte (RFC 9110 §5.5).
    InvalidHeaderValue,
    /// A field line starting with whitespace (obs-fold, RFC 9112 §5.2).
    ObsFold,
    /// A LF not preceded by CR (RFC 9112 §2.2).
    BareLf,
    /// A CR not followed by LF (RFC 9112 §2.2).
    BareCr,
    /// HTTP/1.1 request without Host (RFC 9112 §3.2).
    MissingHost,
    /// More than one Host field (RFC 9112 §3.2).
    DuplicateHost,
    /// Content-Length is not 1*DIGIT or overflows (RFC 9112 §6.3).
    InvalidContentLength,
    /// Content-Length values disagree (RFC 9112 §6.3).
    ConflictingContentLength,
    /// Transfer-Encoding together with Content-Length (RFC 9112 §6.3).
    ContentLengthWithTransferEncoding,
    /// Transfer-Encoding in an HTTP/1.0 request (RFC 9112 §6.1).
    TransferEncodingHttp10,
    /// The final transfer coding is not chunked, or chunked appears twice (RFC 9112 §6.3).
    /// Takes precedence over [`Error::UnknownTransferCoding`] when chunked is present.
    ChunkedNotFinal,
    /// A transfer coding canned does not know, in a list that is otherwise well framed (501,
    /// RFC 9112 §6.1).
    UnknownTransferCoding,
    /// An `Expect` other than `100-continue` (417, RFC 9110 §10.1.1).
    ExpectationFailed,
    /// The request line does not fit in the head limit (414).
    UriTooLong,
    /// The head does not fit in the head limit (431).
    HeadTooLarge,
    /// More header fields than the limit (431).
    TooManyHeaders,
    /// A chunk size that is not hex (RFC 9112 §7.1).
    InvalidChunkSize,
    /// A chunk size larger than 2^60.
    ChunkSizeOverflow,
    /// A malformed or too long chunk extension (RFC 9112 §7.1.1).
    InvalidChunkExt,
    /// Chunk data not followed by CRLF (RFC 9112 §7.1), or input offered to a decoder whose
    /// body has already ended.
    InvalidChunkData,
    /// A malformed or too large trailer section (RFC 9112 §7.1.2).
    InvalidTrailer,
    /// A Host value that is not `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2).
    InvalidHost,
}

impl Error {
    /// Every kind, in declaration order (for counters and tests).
    pub const ALL: [Error; 28] = [
        Error::InvalidMethod,
        Error::InvalidTarget,
        Error::InvalidRequestLine,
        Error::InvalidVersion,
        Error::UnsupportedVersion,
        Error::InvalidHeaderName,
        Error::InvalidHeaderValue,
        Error::ObsFold,
        Error::BareLf,
        Error::BareCr,
        Error::MissingHost,
        Error::DuplicateHost,
        Error::InvalidContentLength,
        Error::ConflictingContentLength,
        Error::ContentLengthWithTransferEncoding,
        Error::TransferEncodingHttp10,
        Error::ChunkedNotFinal,
        Error::UnknownTransferCoding,
        Error::ExpectationFailed,
        Error::UriTooLong,
        Error::HeadTooLarge,
        Error::TooManyHeaders,
        Error::InvalidChunkSize,
        Error::ChunkSizeOverflow,
        Error::InvalidChunkExt,
        Error::InvalidChunkData,
        Error::InvalidTrailer,
        Error::InvalidHost,
    ];

    /// The response status for this error: the one place where that is decided.
    pub const fn status(self) -> u16 {
        match self {
            Error::UnsupportedVersion => 505,
            Error::UnknownTransferCoding => 501,
            Error::ExpectationFailed => 417,
            Error::UriTooLong => 414,
            Error::HeadTooLarge | Error::TooManyHeaders => 431,
            _ => 400,
        }
    }

    /// A short snake_case name, for logs and counters.
    pub const fn name(self) -> &'static str {
        match self {
            Error::InvalidMethod => "invalid_method",
            Error::InvalidTarget => "invalid_target",
            Error::InvalidRequestLine => "invalid_request_line",
            Error::InvalidVersion => "invalid_version",
            Error::UnsupportedVersion => "unsupported_version",
            Error::InvalidHeaderName => "invalid_header_name",
            Error::InvalidHeaderValue => "invalid_header_value",
            Error::ObsFold => "obs_fold",
            Error::BareLf => "bare_lf",
            Error::BareCr => "bare_cr",
            Error::MissingHost => "missing_host",
            Error::DuplicateHost => "duplicate_host",
            Error::InvalidContentLength => "invalid_content_length",
            Error::ConflictingContentLength => "conflicting_content_length",
            Error::ContentLengthWithTransferEncoding => "content_length_with_transfer_encoding",
            Error::TransferEncodingHttp10 => "transfer_encoding_http10",
            Error::ChunkedNotFinal => "chunked_not_final",
            Error::UnknownTransferCoding => "unknown_transfer_coding",
            Error::ExpectationFailed => "expectation_failed",
            Error::UriTooLong => "uri_too_long",
            Error::HeadTooLarge => "head_too_large",
            Error::TooManyHeaders => "too_many_headers",
            Error::InvalidChunkSize => "invalid_chunk_size",
            Error::ChunkSizeOverflow => "chunk_size_overflow",
            Error::InvalidChunkExt => "invalid_chunk_ext",
            Error::InvalidChunkData => "invalid_chunk_data",
            Error::InvalidTrailer => "invalid_trailer",
            Error::InvalidHost => "invalid_host",
        }
    }

    /// The index of this kind in [`Error::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// What was wrong, and the clause that says so: the text of canned's error body. Each
    /// kind has its own; a limit's says which limit.
    pub const fn reason(self) -> (&'static str, &'static str) {
        match self {
            Error::InvalidMethod => ("the method is not a token", "RFC 9110 §9.1"),
            Error::InvalidTarget => (
                "the request-target does not fit the grammar of its form",
                "RFC 9112 §3.2",
            ),
            Error::InvalidRequestLine => (
                "the request line is not method SP request-target SP HTTP-version",
                "RFC 9112 §3",
            ),
            Error::InvalidVersion => ("the version is not HTTP/DIGIT.DIGIT", "RFC 9112 §2.3"),
            Error::UnsupportedVersion => (
                "a version other than HTTP/1.0 and HTTP/1.1",
                "RFC 9110 §15.6.6",
            ),
            Error::InvalidHeaderName => (
                "a field name that is not a token, or whitespace before its colon",
                "RFC 9112 §5.1",
            ),
            Error::InvalidHeaderValue => ("a control character in a field value", "RFC 9110 §5.5"),
            Error::ObsFold => (
                "a field line that starts with whitespace (obs-fold)",
                "RFC 9112 §5.2",
            ),
            Error::BareLf => ("a bare LF, a line not ended by CRLF", "RFC 9112 §2.2"),
            Error::BareCr => ("a bare CR, not followed by LF", "RFC 9112 §2.2"),
            Error::MissingHost => ("an HTTP/1.1 request without Host", "RFC 9112 §3.2"),
            Error::DuplicateHost => ("more than one Host field", "RFC 9112 §3.2"),
            Error::InvalidContentLength => (
                "a Content-Length that is not digits, or past 2^64",
                "RFC 9112 §6.3",
            ),
            Error::ConflictingContentLength => {
                ("Content-Length values that differ", "RFC 9112 §6.3")
            }
            Error::ContentLengthWithTransferEncoding => (
                "Transfer-Encoding together with Content-Length",
                "RFC 9112 §6.3",
            ),
            Error::TransferEncodingHttp10 => {
                ("Transfer-Encoding in an HTTP/1.0 request", "RFC 9112 §6.1")
            }
            Error::ChunkedNotFinal => (
                "the final transfer coding is not chunked, or chunked comes twice",
                "RFC 9112 §6.3",
            ),
            Error::UnknownTransferCoding => (
                "a transfer coding other than chunked, gzip, deflate and compress",
                "RFC 9112 §6.1",
            ),
            Error::ExpectationFailed => ("an Expect other than 100-continue", "RFC 9110 §10.1.1"),
            Error::UriTooLong => (
                "the request line is longer than the head limit",
                "RFC 9110 §15.5.15",
            ),
            Error::HeadTooLarge => ("the head is larger than the head limit", "RFC 6585 §5"),
            Error::TooManyHeaders => ("more header fields than the limit", "RFC 6585 §5"),
            Error::InvalidChunkSize => ("a chunk size that is not hex digits", "RFC 9112 §7.1"),
            Error::ChunkSizeOverflow => ("a chunk size past 2^60", "RFC 9112 §7.1"),
            Error::InvalidChunkExt => {
                ("a malformed or too long chunk extension", "RFC 9112 §7.1.1")
            }
            Error::InvalidChunkData => ("chunk data not followed by CRLF", "RFC 9112 §7.1"),
            Error::InvalidTrailer => (
                "a malformed or too large trailer section",
                "RFC 9112 §7.1.2",
            ),
            Error::InvalidHost => (
                "a Host that is not uri-host [ \":\" port ], or an empty host",
                "RFC 9112 §3.2",
            ),
        }
    }
}

/// A rule a request broke, which canned names in its error response's body, its access log
/// and its journal: the parser's [`Error`]s, and the two limits a server holds a request to
/// beyond its head's grammar (a body limit, a header timeout). One table of names: a rule
/// named for an [`Error`] has that error's [`Error::name`], the one `--stats` counts it by.
///
/// ```
/// use canned::parser::{Error, Rule};
/// let r = Rule::Request(Error::BareLf);
/// assert_eq!((r.name(), r.status()), ("bare_lf", 400));
/// assert_eq!(r.reason().1, "RFC 9112 §2.2");
/// assert_eq!(Rule::ALL.len(), Error::ALL.len() + 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The head, or its chunked body, broke the grammar or a head limit.
    Request(Error),
    /// The body is larger than the body limit (413).
    BodyTooLarge,
    /// The head did not arrive within the header timeout (408).
    HeaderTimeout,
}

impl Rule {
    /// Every rule: the [`Error`]s in [`Error::ALL`] order, then the server's. A rule's place
    /// here is its [`Rule::index`].
    pub const ALL: [Rule; Error::ALL.len() + 2] = {
        let mut all = [Rule::BodyTooLarge; Error::ALL.len() + 2];
        let mut i = 0;
        while i < Error::ALL.len() {
            all[i] = Rule::Request(Error::ALL[i]);
            i += 1;
        }
        all[i + 1] = Rule::HeaderTimeout;
        all
    };

    /// The index of this rule in [`Rule::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Rule::Request(e) => e.index(),
            Rule::BodyTooLarge => Error::ALL.len(),
            Rule::HeaderTimeout => Error::ALL.len() + 1,
        }
    }

    /// A short snake_case name, stable: the access log's ` rule=NAME`, the journal's `rule`.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Request(e) => e.name(),
            Rule::BodyTooLarge => "body_too_large",
            Rule::HeaderTimeout => "header_timeout",
        }
    }

    /// The response status.
    pub const fn status(self) -> u16 {
        match self {
            Rule::Request(e) => e.status(),
            Rule::BodyTooLarge => 413,
            Rule::HeaderTimeout => 408,
        }
    }

    /// What was wrong, and the clause that says so.
    pub const fn reason(self) -> (&'static str, &'static str) {
        match self {
            Rule::Request(e) => e.reason(),
            Rule::BodyTooLarge => (
                "the body is larger than the body limit",
                "RFC 9110 §15.5.14",
            ),
            Rule::HeaderTimeout => (
                "the head did not arrive within the header timeout",
                "RFC 9110 §15.5.9",
            ),
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// An incremental request-head parser.
///
/// Feed it the bytes received so far, from the first byte of the request; after
/// [`Status::Partial`], feed it the same bytes followed by more. After [`Status::Complete`] it
/// is ready for the next request, which starts `head_len` bytes later (after any body).
///
/// ```
/// use canned::parser::{Parser, Limits, Status, Framing};
/// let mut p = Parser::new(Limits::default());
/// assert_eq!(p.parse(b"GET / HTTP/1.1\r\nHo"), Ok(Status::Partial));
/// match p.parse(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n") {
///     Ok(Status::Complete(r)) => {
///         assert_eq!(r.path, b"/");
///         assert!(r.keep_alive);
///         assert_eq!(r.framing, Framing::None);
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Parser {
    limits: Limits,
    /// Next byte to examine: bytes before it are never looked at again.
    pos: u32,
    phase: Phase,
    /// Start of the request line (after skipped empty lines).
    start: u32,
    /// Start of the current field line, and its colon.
    line: u32,
    colon: u32,
    method_end: u32,
    target_end: u32,
    path: (u32, u32),
    headers: u16,
    flags: u32,
    form: Form,
    content_length: u64,
    /// The Host value (OWS trimmed), checked once the head is complete.
    host: (u32, u32),
    /// The Range value (OWS trimmed), when `F_RANGE` is set.
    range: (u32, u32),
}

/// Where the scanner is inside the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    LineStart,
    LeadingLf,
    Method,
    Target,
    Version,
    Name,
    Value,
    EndLf,
}

const F_REQUEST_LINE: u32 = 1;
const F_HTTP11: u32 = 1 << 1;
const F_HOST: u32 = 1 << 2;
const F_CLOSE: u32 = 1 << 3;
const F_KEEP_ALIVE: u32 = 1 << 4;
const F_CONTENT_LENGTH: u32 = 1 << 5;
const F_TE: u32 = 1 << 6;
const F_TE_LAST_CHUNKED: u32 = 1 << 7;
const F_TE_CHUNKED_MISPLACED: u32 = 1 << 8;
const F_EXPECT: u32 = 1 << 9;
const F_HEAD: u32 = 1 << 10;
const F_PATH_ROOT: u32 = 1 << 11;
/// A `[` or `]` in the target: valid only in the IP-literal of an authority.
const F_TARGET_BRACKET: u32 = 1 << 12;
/// A transfer coding canned does not know (501 unless the framing is already a 400).
const F_TE_UNKNOWN: u32 = 1 << 13;
const F_RANGE: u32 = 1 << 14;
/// A conditional field (RFC 9110 §13.1).
const F_CONDITIONAL: u32 = 1 << 15;
/// An `Upgrade` field (RFC 9110 §7.8).
const F_UPGRADE: u32 = 1 << 16;

impl Parser {
    /// A parser with the given limits. Limits above 4 GiB of head or 65,535 headers are capped.
    pub fn new(limits: Limits) -> Self {
        Parser::fresh(Limits {
            max_head: limits.max_head.min(u32::MAX as usize),
            max_headers: limits.max_headers.min(u16::MAX as usize - 1),
        })
    }

    /// A parser at the start of a request, with limits already capped.
    #[inline(always)]
    fn fresh(limits: Limits) -> Self {
        Parser {
            limits,
            pos: 0,
            phase: Phase::LineStart,
            start: 0,
            line: 0,
            colon: 0,
            method_end: 0,
            target_end: 0,
            path: (0, 0),
            headers: 0,
            flags: 0,
            form: Form::Origin,
            content_length: 0,
            host: (0, 0),
            range: (0, 0),
        }
    }

    /// Forget any partial request.
    pub fn reset(&mut self) {
        *self = Parser::fresh(self.limits);
    }

    /// The limits this parser enforces.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether any byte of a request has been seen (a partial request is pending).
    pub fn in_progress(&self) -> bool {
        self.pos != 0
    }

    /// Bytes of the current request examined so far. After an error: the offset of the byte
    /// that was rejected (or of the end of the bytes examined), so that `buf[..position() + 1]`
    /// holds everything the decision was based on, whichever way the input was split.
    pub fn position(&self) -> usize {
        self.pos as usize
    }

    /// Parse the bytes received so far. See the type's documentation.
    ///
    /// The scan is sequential and resumable: each byte is examined once, a decision depends
    /// only on the bytes before it (and, for a CR, the byte after it), so an error or a
    /// complete head found in a prefix is the result for every extension of that prefix, and
    /// any split of the input gives the one-shot result.
    ///
    /// Inlined at each call: the connection's is the hot path, and a second caller (the
    /// `--admin` listener's) would otherwise leave it a call (+54 instructions a request).
    #[inline(always)]
    pub fn parse<'b>(&mut self, buf: &'b [u8]) -> Result<Status<'b>, Error> {
        self.parse_with::<true>(buf)
    }

    /// [`Parser::parse`], with the field lines' block path (`BLOCKS`) or with the byte-exact
    /// scan alone, which the tests compare it with.
    #[inline(always)]
    fn parse_with<'b, const BLOCKS: bool>(&mut self, buf: &'b [u8]) -> Result<Status<'b>, Error> {
        let window = &buf[..buf.len().min(self.limits.max_head)];
        if self.pos == 0 && window.first_chunk::<16>() == Some(b"GET / HTTP/1.1\r\n") {
            if let Some(head_len) = self.root_head(window) {
                return Ok(Status::Complete(root_request(buf, head_len)));
            }
            self.root_request_line();
        }
        let mut i = self.pos as usize;
        let scanned = self.scan::<BLOCKS>(window, &mut i);
        self.pos = i as u32;
        match scanned? {
            Some(head_len) => {
                let req = self.finish(buf, head_len)?;
                self.reset();
                Ok(Status::Complete(req))
            }
            None if buf.len() >= self.limits.max_head => Err(if self.flags & F_REQUEST_LINE != 0 {
                Error::HeadTooLarge
            } else {
                match self.phase {
                    // No method is that long: the method is what is wrong, not the target.
                    Phase::Method => Error::InvalidMethod,
                    Phase::LineStart | Phase::LeadingLf => Error::InvalidRequestLine,
                    // Nor a version: `HTTP/1.1` fits in any head limit.
                    Phase::Version => Error::InvalidVersion,
                    _ => Error::UriTooLong,
                }
            }),
            None => Ok(Status::Partial),
        }
    }

    /// Advance `*i` through `w`; `Some(head_len)` at the end of the head, `None` when `w`
    /// runs out first.
    ///
    /// The phases run in the order of the bytes, each falling straight into the next, and the
    /// field lines loop without going back through a dispatch: the phase is looked at once, to
    /// resume where the last call stopped, and stored once, on the way out.
    fn scan<const BLOCKS: bool>(
        &mut self,
        w: &[u8],
        i: &mut usize,
    ) -> Result<Option<usize>, Error> {
        let mut phase = self.phase;
        let scanned = self.scan_from::<BLOCKS>(w, i, &mut phase);
        self.phase = phase;
        scanned
    }

    /// [`Parser::scan`] with the phase in a local.
    #[inline(always)]
    fn scan_from<const BLOCKS: bool>(
        &mut self,
        w: &[u8],
        i: &mut usize,
        phase: &mut Phase,
    ) -> Result<Option<usize>, Error> {
        if self.flags & F_REQUEST_LINE == 0 {
            if !self.scan_request_line(w, i, phase)? {
                return Ok(None);
            }
            *phase = Phase::LineStart;
        }
        loop {
            // The field the name names, when the scan has seen which; otherwise it is looked
            // up from the name at the end of the line.
            let mut field = None;
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            if BLOCKS && *phase == Phase::LineStart {
                if let Some(head_len) = self.field_blocks(w, i)? {
                    *phase = Phase::EndLf;
                    return Ok(Some(head_len));
                }
            }
            if *phase == Phase::LineStart {
                let Some(&c) = w.get(*i) else {
                    return Ok(None);
                };
                match c {
                    b'\r' => {
                        *i += 1;
                        *phase = Phase::EndLf;
                    }
                    b' ' | b'\t' => return Err(Error::ObsFold),
                    b'\n' => return Err(Error::BareLf),
                    _ => {
                        self.line = *i as u32;
                        *phase = Phase::Name;
                    }
                }
            }
            if *phase == Phase::EndLf {
                let Some(&c) = w.get(*i) else {
                    return Ok(None);
                };
                if c != b'\n' {
                    return Err(Error::BareCr);
                }
                *i += 1;
                return Ok(Some(*i));
            }
            if *phase == Phase::Name {
                // Most requests have it first (every client the benchmarks measure): one
                // comparison, the scan's outcome.
                if self.headers == 0
                    && *i == self.line as usize
                    && w.get(*i..*i + 5) == Some(b"Host:")
                {
                    self.colon = *i as u32 + 4;
                    *i += 5;
                    field = Some(Field::Host);
                } else {
                    // field-name = token, no whitespace before ":"  (RFC 9112 §5.1)
                    skip::<Token>(w, i);
                    let Some(&c) = w.get(*i) else {
                        return Ok(None);
                    };
                    if c != b':' || *i == self.line as usize {
                        return Err(Error::InvalidHeaderName);
                    }
                    self.colon = *i as u32;
                    *i += 1;
                }
                *phase = Phase::Value;
            }
            // field-value bytes: VCHAR / obs-text / SP / HTAB  (RFC 9110 §5.5)
            skip::<Value>(w, i);
            let Some(&c) = w.get(*i) else {
                return Ok(None);
            };
            match c {
                b'\r' => {
                    if !crlf_at(w, *i)? {
                        return Ok(None);
                    }
                    let field = field.unwrap_or_else(|| {
                        Field::named(&w[self.line as usize..self.colon as usize])
                    });
                    self.header(field, &w[self.colon as usize + 1..*i])?;
                    *i += 2;
                    *phase = Phase::LineStart;
                }
                b'\n' => return Err(Error::BareLf),
                _ => return Err(Error::InvalidHeaderValue),
            }
        }
    }

    /// Whole field lines from the line start at `*i`, and the empty line after them, in steps
    /// of [`STEP`] bytes from there: the name's and the value's masks of a step depend only on
    /// where it starts, so the next steps' are computed while the positions in this one are
    /// worked out from the bits, and the chain from one field to the next is a few bit
    /// operations, not a load and a test at an offset only known at the end of the last field
    /// (measured: about 0.75 and 0.6 of the scan's time on inputs b and c of `capi/benches`).
    /// `Some(head_len)` at the end of the head. Anything else than a well-formed line (an
    /// error, the end of the bytes) stops it at the start of that line, `*i`, for the scan
    /// that follows, byte-exact, to take: the outcome is that scan's, with every field line
    /// before counted and acted on as it would have.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn field_blocks(&mut self, w: &[u8], i: &mut usize) -> Result<Option<usize>, Error> {
        let len = w.len();
        if len < *i + 16 || len < STEP {
            return Ok(None);
        }
        let mut base = *i;
        let mut tok = block_at::<Token>(w, base);
        let mut val = block_at::<Value>(w, base);
        // The next byte to look at is `base + rel`, `rel` at most STEP + 1.
        let mut rel = 0u32;
        loop {
            let line = base + rel as usize;
            *i = line;
            // field-name = token, no whitespace before ":"  (RFC 9112 §5.1)
            let colon = loop {
                let m = tok & (!0u64).checked_shl(rel).unwrap_or(0);
                if m == 0 {
                    base += STEP;
                    rel = rel.saturating_sub(STEP as u32);
                    tok = block_at::<Token>(w, base);
                    val = block_at::<Value>(w, base);
                    continue;
                }
                let k = m.trailing_zeros();
                let at = base + k as usize;
                let Some(&c) = w.get(at) else {
                    return Ok(None);
                };
                if c == b':' && at != line {
                    break at;
                }
                if TCHAR[c as usize] {
                    rel = k + 1;
                    continue;
                }
                // The empty line that ends the head.
                if c == b'\r' && at == line && w.get(at + 1) == Some(&b'\n') {
                    *i = at + 2;
                    return Ok(Some(at + 2));
                }
                return Ok(None);
            };
            rel = (colon - base) as u32 + 1;
            // field-value bytes: VCHAR / obs-text / SP / HTAB  (RFC 9110 §5.5)
            let cr = loop {
                let m = val & (!0u64).checked_shl(rel).unwrap_or(0);
                if m == 0 {
                    // A long value: its blocks need no name mask.
                    loop {
                        base += STEP;
                        val = block_at::<Value>(w, base);
                        if val != 0 {
                            break;
                        }
                    }
                    tok = block_at::<Token>(w, base);
                    rel = 0;
                    continue;
                }
                let k = m.trailing_zeros();
                let at = base + k as usize;
                match w.get(at) {
                    Some(b'\r') => break at,
                    Some(b'\t') => rel = k + 1,
                    _ => return Ok(None),
                }
            };
            if w.get(cr + 1) != Some(&b'\n') {
                return Ok(None);
            }
            self.line = line as u32;
            self.colon = colon as u32;
            *i = cr;
            self.header(Field::named(&w[line..colon]), &w[colon + 1..cr])?;
            rel = (cr - base) as u32 + 2;
        }
    }

    /// The request line, from wherever the last call stopped in it: `true` once its CRLF is
    /// passed and it is checked.
    #[inline(always)]
    fn scan_request_line(
        &mut self,
        w: &[u8],
        i: &mut usize,
        phase: &mut Phase,
    ) -> Result<bool, Error> {
        // RFC 9112 §2.2: empty lines before the request line are ignored.
        loop {
            match *phase {
                Phase::LineStart => {
                    let Some(&c) = w.get(*i) else {
                        return Ok(false);
                    };
                    match c {
                        b'\r' => {
                            *i += 1;
                            *phase = Phase::LeadingLf;
                        }
                        b'\n' => return Err(Error::BareLf),
                        _ => {
                            self.start = *i as u32;
                            *phase = Phase::Method;
                            break;
                        }
                    }
                }
                Phase::LeadingLf => {
                    let Some(&c) = w.get(*i) else {
                        return Ok(false);
                    };
                    if c != b'\n' {
                        return Err(Error::BareCr);
                    }
                    *i += 1;
                    *phase = Phase::LineStart;
                }
                _ => break,
            }
        }
        if *phase == Phase::Method {
            // Almost every request: one comparison, the same outcome as the scan below.
            if *i == self.start as usize && w.get(*i..*i + 4) == Some(b"GET ") {
                self.method_end = 3;
                *i += 4;
            } else {
                // method = token                              (RFC 9110 §9.1)
                skip::<Token>(w, i);
                let Some(&c) = w.get(*i) else {
                    return Ok(false);
                };
                if c != b' ' || *i == self.start as usize {
                    return Err(if c == b'\r' || c == b'\n' {
                        Error::InvalidRequestLine
                    } else {
                        Error::InvalidMethod
                    });
                }
                self.method_end = *i as u32 - self.start;
                *i += 1;
            }
            *phase = Phase::Target;
        }
        if *phase == Phase::Target {
            let t0 = (self.start + self.method_end + 1) as usize;
            loop {
                // request-target characters  (RFC 9112 §3.2, RFC 3986 §3.3, §3.4)
                skip::<Target>(w, i);
                let Some(&c) = w.get(*i) else {
                    return Ok(false);
                };
                match c {
                    // pct-encoded = "%" HEXDIG HEXDIG           (RFC 3986 §2.1)
                    b'%' => match (w.get(*i + 1), w.get(*i + 2)) {
                        (Some(h), _) if !h.is_ascii_hexdigit() => {
                            return Err(Error::InvalidTarget);
                        }
                        (Some(_), Some(l)) if !l.is_ascii_hexdigit() => {
                            return Err(Error::InvalidTarget);
                        }
                        (Some(_), Some(_)) => *i += 3,
                        _ => return Ok(false),
                    },
                    b'[' | b']' => {
                        self.flags |= F_TARGET_BRACKET;
                        *i += 1;
                    }
                    b' ' if *i > t0 => {
                        self.target_end = *i as u32;
                        *i += 1;
                        break;
                    }
                    b'\r' => {
                        let Some(&n) = w.get(*i + 1) else {
                            return Ok(false);
                        };
                        return Err(if n == b'\n' {
                            Error::InvalidRequestLine
                        } else {
                            Error::BareCr
                        });
                    }
                    b'\n' => return Err(Error::BareLf),
                    _ => return Err(Error::InvalidTarget),
                }
            }
            *phase = Phase::Version;
        }
        // Almost every request: one comparison, the same outcome as the scan below. Only at
        // the version's start: a scan resumed inside a longer version (split input) must
        // still see all of it.
        if *i == self.target_end as usize + 1 && w.get(*i..*i + 10) == Some(b"HTTP/1.1\r\n") {
            self.flags |= F_HTTP11;
            self.request_line_checked(w)?;
            *i += 10;
            return Ok(true);
        }
        while *i < w.len() && w[*i] > b' ' && w[*i] < 0x7f {
            *i += 1;
        }
        let Some(&c) = w.get(*i) else {
            return Ok(false);
        };
        match c {
            b'\r' => {
                if !crlf_at(w, *i)? {
                    return Ok(false);
                }
                self.request_line(w, *i)?;
                *i += 2;
                Ok(true)
            }
            b'\n' => Err(Error::BareLf),
            _ => Err(Error::InvalidVersion),
        }
    }

    /// `GET / HTTP/1.1` and its CRLF start the head: the request line of every load
    /// generator pointed at a server's root, taken in one comparison with the outcome the
    /// scan and [`Parser::request_line_checked`] would reach.
    #[inline(always)]
    fn root_request_line(&mut self) {
        self.start = 0;
        self.method_end = 3;
        self.target_end = 5;
        self.flags |= F_HTTP11 | F_REQUEST_LINE;
        self.form = Form::Origin;
        self.path = (4, 5);
        self.pos = 16;
    }

    /// `GET / HTTP/1.1`, a `Host` field of the common shape (letters, digits, `-` and `.`, then
    /// an optional `:` and digits, with no whitespace around it) and the end of the head: the
    /// whole head of a load generator such as wrk, taken in one pass with the outcome the scan
    /// and [`Parser::finish`] would reach (one field, a valid Host, no framing). Anything else,
    /// a prefix of it included, takes the scan. `w` starts with the request line.
    #[inline(always)]
    fn root_head(&self, w: &[u8]) -> Option<usize> {
        const HOST: usize = 22;
        if w.get(16..HOST) != Some(b"Host: ") || self.limits.max_headers == 0 {
            return None;
        }
        let mut k = HOST;
        skip::<HostCommon>(w, &mut k);
        if k == HOST {
            return None;
        }
        if w.get(k) == Some(&b':') {
            k += 1;
            while w.get(k).is_some_and(u8::is_ascii_digit) {
                k += 1;
            }
        }
        (w.get(k..k + 4) == Some(b"\r\n\r\n")).then_some(k + 4)
    }

    /// The request line is complete (its CR is at `cr`): check the version and the form of
    /// the target.
    fn request_line(&mut self, w: &[u8], cr: usize) -> Result<(), Error> {
        let version = &w[self.target_end as usize + 1..cr];
        // HTTP-version = "HTTP/" DIGIT "." DIGIT            (RFC 9112 §2.3)
        self.flags |= match version {
            b"HTTP/1.1" => F_HTTP11,
            b"HTTP/1.0" => 0,
            [b'H', b'T', b'T', b'P', b'/', a, b'.', b]
                if a.is_ascii_digit() && b.is_ascii_digit() =>
            {
                return Err(Error::UnsupportedVersion);
            }
            _ => return Err(Error::InvalidVersion),
        };
        self.request_line_checked(w)
    }

    /// The request line's version is checked (and in the flags): check the form of the
    /// target.
    #[inline(always)]
    fn request_line_checked(&mut self, w: &[u8]) -> Result<(), Error> {
        let start = self.start as usize;
        let method = &w[start..start + self.method_end as usize];
        let t0 = start + self.method_end as usize + 1;
        let brackets = self.flags & F_TARGET_BRACKET != 0;
        let (form, path) = target_form(method, w, t0, self.target_end as usize, brackets)?;
        if method == b"HEAD" {
            self.flags |= F_HEAD;
        }
        self.flags |= F_REQUEST_LINE;
        self.form = form;
        match path {
            Some((a, b)) => self.path = ((t0 + a) as u32, (t0 + b) as u32),
            None if form == Form::Absolute => self.flags |= F_PATH_ROOT,
            None => self.path = (t0 as u32, t0 as u32),
        }
        Ok(())
    }

    /// A complete field line: count it and take what the connection needs from it.
    #[inline(always)]
    fn header(&mut self, field: Field, raw: &[u8]) -> Result<(), Error> {
        self.headers += 1;
        if self.headers as usize > self.limits.max_headers {
            return Err(Error::TooManyHeaders);
        }
        if field == Field::Other {
            return Ok(());
        }
        self.known_header(field, raw)
    }

    /// A field line the parser acts on.
    fn known_header(&mut self, field: Field, raw: &[u8]) -> Result<(), Error> {
        let value = trim_ows(raw);
        match field {
            Field::Host => {
                if self.flags & F_HOST != 0 {
                    return Err(Error::DuplicateHost);
                }
                // Checked in `finish`, out of the per-field loop (measured: the check here
                // made every field line of the scan a few instructions dearer).
                let at =
                    self.colon as usize + 1 + (value.as_ptr() as usize - raw.as_ptr() as usize);
                self.host = (at as u32, (at + value.len()) as u32);
                self.flags |= F_HOST;
            }
            Field::Range => {
                let at =
                    self.colon as usize + 1 + (value.as_ptr() as usize - raw.as_ptr() as usize);
                self.range = if self.flags & F_RANGE != 0 {
                    (0, 0)
                } else {
                    (at as u32, (at + value.len()) as u32)
                };
                self.flags |= F_RANGE;
            }
            Field::Conditional => self.flags |= F_CONDITIONAL,
            Field::Upgrade => self.flags |= F_UPGRADE,
            Field::Expect => {
                if !value.eq_ignore_ascii_case(b"100-continue") {
                    return Err(Error::ExpectationFailed);
                }
                self.flags |= F_EXPECT;
            }
            Field::Connection => {
                for token in value.split(|&c| c == b',').map(trim_ows) {
                    if token.eq_ignore_ascii_case(b"close") {
                        self.flags |= F_CLOSE;
                    } else if token.eq_ignore_ascii_case(b"keep-alive") {
                        self.flags |= F_KEEP_ALIVE;
                    }
                }
            }
            Field::ContentLength => {
                for member in value.split(|&c| c == b',').map(trim_ows) {
                    let n = parse_decimal(member).ok_or(Error::InvalidContentLength)?;
                    if self.flags & F_CONTENT_LENGTH != 0 && n != self.content_length {
                        return Err(Error::ConflictingContentLength);
                    }
                    self.flags |= F_CONTENT_LENGTH;
                    self.content_length = n;
                }
            }
            Field::TransferEncoding => {
                // Decided at the end of the head: a misplaced chunked (400) outranks an
                // unknown coding (501), in one field or across several (RFC 9112 §6.3 (4)).
                self.flags |= F_TE;
                for member in value.split(|&c| c == b',').map(trim_ows) {
                    if member.is_empty() {
                        continue;
                    }
                    let coding = trim_ows(member.split(|&c| c == b';').next().unwrap_or(b""));
                    if coding.eq_ignore_ascii_case(b"chunked") {
                        if self.flags & F_TE_LAST_CHUNKED != 0 || member.len() != coding.len() {
                            self.flags |= F_TE_CHUNKED_MISPLACED;
                        }
                        self.flags |= F_TE_LAST_CHUNKED;
                    } else {
                        if !KNOWN_CODINGS.iter().any(|k| coding.eq_ignore_ascii_case(k)) {
                            self.flags |= F_TE_UNKNOWN;
                        }
                        if self.flags & F_TE_LAST_CHUNKED != 0 {
                            self.flags |= F_TE_CHUNKED_MISPLACED;
                        }
                        self.flags &= !F_TE_LAST_CHUNKED;
                    }
                }
            }
            Field::Other => {}
        }
        Ok(())
    }

    fn finish<'b>(&self, buf: &'b [u8], head_len: usize) -> Result<Request<'b>, Error> {
        let http11 = self.flags & F_HTTP11 != 0;
        if http11 && self.flags & F_HOST == 0 {
            return Err(Error::MissingHost);
        }
        // Host = uri-host [ ":" port ]                  (RFC 9112 §3.2, RFC 9110 §7.2)
        if self.flags & F_HOST != 0
            && !valid_authority_in(buf, self.host.0 as usize, self.host.1 as usize)
        {
            return Err(Error::InvalidHost);
        }
        // Most heads carry none of the fields that change the framing or the connection.
        if self.flags & (F_TE | F_CONTENT_LENGTH | F_CLOSE | F_KEEP_ALIVE | F_EXPECT) == 0 {
            return Ok(self.request(buf, head_len, http11, http11, Framing::None));
        }
        let framing = if self.flags & F_TE != 0 {
            if !http11 {
                return Err(Error::TransferEncodingHttp10);
            }
            if self.flags & F_CONTENT_LENGTH != 0 {
                return Err(Error::ContentLengthWithTransferEncoding);
            }
            // chunked present but not final: the length cannot be determined, 400 whatever
            // else the list holds; then an unknown coding, 501; then no chunked at all, 400.
            if self.flags & F_TE_CHUNKED_MISPLACED != 0 {
                return Err(Error::ChunkedNotFinal);
            }
            if self.flags & F_TE_UNKNOWN != 0 {
                return Err(Error::UnknownTransferCoding);
            }
            if self.flags & F_TE_LAST_CHUNKED == 0 {
                return Err(Error::ChunkedNotFinal);
            }
            Framing::Chunked
        } else if self.content_length > 0 {
            Framing::Length(self.content_length)
        } else {
            Framing::None
        };
        let keep_alive = if self.flags & F_CLOSE != 0 {
            false
        } else {
            http11 || self.flags & F_KEEP_ALIVE != 0
        };
        Ok(self.request(buf, head_len, http11, keep_alive, framing))
    }

    /// The request the checked head describes.
    #[inline(always)]
    fn request<'b>(
        &self,
        buf: &'b [u8],
        head_len: usize,
        http11: bool,
        keep_alive: bool,
        framing: Framing,
    ) -> Request<'b> {
        let target_end = self.target_end as usize;
        let rl = self.start as usize;
        let method = &buf[rl..rl + self.method_end as usize];
        let target = &buf[rl + self.method_end as usize + 1..target_end];
        let path: &'b [u8] = if self.flags & F_PATH_ROOT != 0 {
            b"/"
        } else {
            &buf[self.path.0 as usize..self.path.1 as usize]
        };
        Request {
            method,
            target,
            path,
            form: self.form,
            version: if http11 {
                Version::Http11
            } else {
                Version::Http10
            },
            keep_alive,
            framing,
            expect_continue: http11 && self.flags & F_EXPECT != 0 && framing != Framing::None,
            is_head: self.flags & F_HEAD != 0,
            range: if self.flags & F_RANGE != 0 {
                Some(&buf[self.range.0 as usize..self.range.1 as usize])
            } else {
                None
            },
            range_or_conditional: self.flags & (F_RANGE | F_CONDITIONAL) != 0,
            upgrade: self.flags & F_UPGRADE != 0,
            headers: self.headers as usize,
            head_len,
        }
    }
}

/// The request [`Parser::root_head`] found: `GET /`, HTTP/1.1, one field (Host), no body.
#[inline(always)]
fn root_request(buf: &[u8], head_len: usize) -> Request<'_> {
    Request {
        method: &buf[..3],
        target: &buf[4..5],
        path: &buf[4..5],
        form: Form::Origin,
        version: Version::Http11,
        keep_alive: true,
        framing: Framing::None,
        expect_continue: false,
        is_head: false,
        range: None,
        range_or_conditional: false,
        upgrade: false,
        headers: 1,
        head_len,
    }
}

/// The header fields the parser acts on; the others it only counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Host,
    Expect,
    Range,
    Conditional,
    Upgrade,
    Connection,
    ContentLength,
    TransferEncoding,
    Other,
}

impl Field {
    /// The field a name names (field names are case-insensitive, RFC 9110 §5.1). `name` is a
    /// token: its length and first letter leave at most two names to compare it with, each
    /// in a few words.
    #[inline(always)]
    fn named(name: &[u8]) -> Field {
        let Some(&first) = name.first() else {
            return Field::Other;
        };
        match (name.len(), first | 0x20) {
            (4, b'h') if token_is(name, b"host") => Field::Host,
            (5, b'r') if token_is(name, b"range") => Field::Range,
            (6, b'e') if token_is(name, b"expect") => Field::Expect,
            (7, b'u') if token_is(name, b"upgrade") => Field::Upgrade,
            (8, b'i') if token_is(name, b"if-match") || token_is(name, b"if-range") => {
                Field::Conditional
            }
            (10, b'c') if token_is(name, b"connection") => Field::Connection,
            (13, b'i') if token_is(name, b"if-none-match") => Field::Conditional,
            (14, b'c') if token_is(name, b"content-length") => Field::ContentLength,
            (17, b't') if token_is(name, b"transfer-encoding") => Field::TransferEncoding,
            (17, b'i') if token_is(name, b"if-modified-since") => Field::Conditional,
            (19, b'i') if token_is(name, b"if-unmodified-since") => Field::Conditional,
            _ => Field::Other,
        }
    }
}

/// Whether the token `name` is `lower` (lower-case letters and `-`) in any case. Setting
/// 0x20 in every byte of a token turns exactly its upper-case letters into lower-case ones,
/// and leaves `-` (the one byte that becomes `-` so, CR, is not a token byte), so names of 8
/// bytes or more are compared in words of 8, the last one overlapping the one before.
/// Measured: as fast as a comparison unrolled for each name's length, at 44 bytes of flash
/// on thumbv7em more than `eq_ignore_ascii_case` (the unrolled one took 640).
#[inline(always)]
fn token_is(name: &[u8], lower: &[u8]) -> bool {
    #[inline(always)]
    fn word(s: &[u8], at: usize) -> u64 {
        match s.get(at..).and_then(|r| r.first_chunk::<8>()) {
            Some(b) => u64::from_le_bytes(*b),
            None => 0,
        }
    }
    const FOLD: u64 = 0x2020_2020_2020_2020;
    let n = name.len();
    if n != lower.len() || n < 8 {
        return n == lower.len() && name.iter().zip(lower).all(|(&c, &l)| c | 0x20 == l);
    }
    let mut at = 0;
    while at + 8 < n {
        if word(name, at) | FOLD != word(lower, at) {
            return false;
        }
        at += 8;
    }
    word(name, n - 8) | FOLD == word(lower, n - 8)
}

const KNOWN_CODINGS: [&[u8]; 5] = [b"gzip", b"x-gzip", b"deflate", b"compress", b"x-compress"];

/// The form of the target `w[t0..end]` and its path (offsets into the target), or why it
/// does not fit the method.
#[inline(always)]
fn target_form(
    method: &[u8],
    w: &[u8],
    t0: usize,
    end: usize,
    brackets: bool,
) -> Result<(Form, Option<(usize, usize)>), Error> {
    let target = &w[t0..end];
    if target[0] == b'/' {
        // origin-form = absolute-path [ "?" query ]      (RFC 9112 §3.2.1): the scan has
        // checked that every byte is pchar, "/" or "?" and every "%" escape; brackets alone
        // were let through, for an authority.
        if brackets {
            return Err(Error::InvalidTarget);
        }
        // The path ends at the first "?": a short target is looked through in one step, with
        // the rest of the request line read after it.
        return Ok((Form::Origin, Some((0, run_within::<NotQuery>(w, t0, end)))));
    }
    other_target_form(method, target, brackets)
}

/// [`target_form`] of a target that does not start with `/`.
#[inline(never)]
fn other_target_form(
    method: &[u8],
    target: &[u8],
    brackets: bool,
) -> Result<(Form, Option<(usize, usize)>), Error> {
    if method == b"CONNECT" {
        // authority-form = uri-host ":" port           (RFC 9112 §3.2.3)
        let colon = target.iter().rposition(|&c| c == b':');
        return match colon {
            Some(c)
                if c > 0
                    && c + 1 < target.len()
                    && target[c + 1..].iter().all(u8::is_ascii_digit)
                    && !target
                        .iter()
                        .any(|&b| matches!(b, b'/' | b'?' | b'#' | b'@')) =>
            {
                Ok((Form::Authority, None))
            }
            _ => Err(Error::InvalidTarget),
        };
    }
    if target == b"*" {
        return if method == b"OPTIONS" {
            Ok((Form::Asterisk, None))
        } else {
            Err(Error::InvalidTarget)
        };
    }
    // absolute-form = absolute-URI (RFC 9112 §3.2.2). Only `http://` and `https://` name
    // something this server could be: anything else (`a.example:443` parses as a URI with the
    // scheme `a.example`) is rejected rather than guessed at.
    // http-URI = "http" "://" authority path-abempty [ "?" query ]   (RFC 9110 §4.2.1)
    let auth = if target.len() > 7 && target[..7].eq_ignore_ascii_case(b"http://") {
        7
    } else if target.len() > 8 && target[..8].eq_ignore_ascii_case(b"https://") {
        8
    } else {
        return Err(Error::InvalidTarget);
    };
    let path_start = auth
        + target[auth..]
            .iter()
            .position(|&c| c == b'/' || c == b'?')
            .unwrap_or(target.len() - auth);
    // authority = uri-host [ ":" port ] with a host that is not empty (RFC 9110 §4.2.1) and
    // no userinfo (RFC 9110 §4.2.4: a recipient treats it as an error); the path and query
    // hold no brackets (RFC 3986 §3.3, §3.4).
    let authority = &target[auth..path_start];
    if matches!(authority.first(), None | Some(b':'))
        || !valid_authority(authority)
        || (brackets && memchr::memchr2(b'[', b']', &target[path_start..]).is_some())
    {
        return Err(Error::InvalidTarget);
    }
    let end = path_start + memchr(b'?', &target[path_start..]).unwrap_or(target.len() - path_start);
    if end == path_start {
        Ok((Form::Absolute, None))
    } else {
        Ok((Form::Absolute, Some((path_start, end))))
    }
}

/// authority without userinfo: uri-host [ ":" port ], port = *DIGIT    (RFC 3986 §3.2.2-3)
fn valid_authority(s: &[u8]) -> bool {
    valid_authority_in(s, 0, s.len())
}

/// [`valid_authority`] of `w[from..to]`. Every request's Host comes here, so the common shape
/// (letters, digits, `-` and `.`, then an optional `:` and digits) is checked in one short
/// pass, which may read the bytes after `to` (the rest of the head) to take a short host in
/// one step; anything else takes [`valid_authority_exact`].
#[inline(always)]
fn valid_authority_in(w: &[u8], from: usize, to: usize) -> bool {
    let k = from + run_within::<HostCommon>(w, from, to);
    // An empty uri-host (`Host:`, `Host: :80`) is not one: RFC 9110 §4.2.1, a recipient MUST
    // reject an http URI with an empty host as invalid (here and in the exact grammar).
    if k == to {
        return k != from;
    }
    if k != from && w[k] == b':' && w[k + 1..to].iter().all(u8::is_ascii_digit) {
        return true;
    }
    valid_authority_exact(&w[from..to])
}

/// uri-host = IP-literal / IPv4address / reg-name. An IPv4address is also a reg-name, so
/// outside brackets only the reg-name characters need checking.
#[cold]
fn valid_authority_exact(s: &[u8]) -> bool {
    let mut k = 0;
    if s.first() == Some(&b'[') {
        match memchr(b']', s) {
            Some(close) if ip_literal(&s[1..close]) => k = close + 1,
            _ => return false,
        }
    } else {
        loop {
            skip::<RegName>(s, &mut k);
            // pct-encoded = "%" HEXDIG HEXDIG              (RFC 3986 §2.1)
            if s.get(k) != Some(&b'%') {
                break;
            }
            if !(s.get(k + 1).is_some_and(u8::is_ascii_hexdigit)
                && s.get(k + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            k += 3;
        }
        if k == 0 {
            return false;
        }
    }
    match &s[k..] {
        [] => true,
        [b':', port @ ..] => port.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// IP-literal = "[" ( IPv6address / IPvFuture ) "]", without the brackets (RFC 3986 §3.2.2)
fn ip_literal(s: &[u8]) -> bool {
    match s {
        // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        [b'v' | b'V', rest @ ..] => match rest.iter().position(|&c| c == b'.') {
            Some(dot) => {
                dot > 0
                    && rest[..dot].iter().all(u8::is_ascii_hexdigit)
                    && dot + 1 < rest.len()
                    && rest[dot + 1..]
                        .iter()
                        .all(|&c| REG_NAME[c as usize] || c == b':')
            }
            None => false,
        },
        _ => ipv6(s),
    }
}

/// IPv6address (RFC 3986 §3.2.2): eight 16-bit pieces (h16 = 1*4HEXDIG, the last two may be
/// an IPv4address), or fewer with one "::" standing for at least one zero piece.
fn ipv6(s: &[u8]) -> bool {
    let double = s.windows(2).position(|w| w == b"::");
    match double {
        None => pieces(s, true) == Some(8),
        Some(p) => match (pieces(&s[..p], false), pieces(&s[p + 2..], true)) {
            (Some(a), Some(b)) => a + b <= 7,
            _ => false,
        },
    }
}

/// The number of 16-bit pieces in `h16 *( ":" h16 )` (an empty string has none), the last
/// possibly an IPv4address worth two; `None` when malformed.
fn pieces(s: &[u8], ipv4_last: bool) -> Option<usize> {
    if s.is_empty() {
        return Some(0);
    }
    let mut n = 0;
    let mut groups = s.split(|&c| c == b':').peekable();
    while let Some(g) = groups.next() {
        let last = groups.peek().is_none();
        if last && ipv4_last && g.contains(&b'.') {
            return ipv4(g).then_some(n + 2);
        }
        if g.is_empty() || g.len() > 4 || !g.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet, dec-octet 0-255 without
/// leading zeros                                                          (RFC 3986 §3.2.2)
fn ipv4(s: &[u8]) -> bool {
    let mut octets = 0;
    for o in s.split(|&c| c == b'.') {
        octets += 1;
        let ok = match o {
            [d] => d.is_ascii_digit(),
            [b'1'..=b'9', d] => d.is_ascii_digit(),
            [b'1', a, b] => a.is_ascii_digit() && b.is_ascii_digit(),
            [b'2', b'0'..=b'4', b] => b.is_ascii_digit(),
            [b'2', b'5', b'0'..=b'5'] => true,
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    octets == 4
}

/// The CR at `cr` ends a line: `Ok(true)` when LF follows, `Ok(false)` when the next byte
/// has not arrived, a bare CR otherwise (RFC 9112 §2.2).
#[inline(always)]
fn crlf_at(w: &[u8], cr: usize) -> Result<bool, Error> {
    match w.get(cr + 1) {
        None => Ok(false),
        Some(b'\n') => Ok(true),
        Some(_) => Err(Error::BareCr),
    }
}

/// OWS = *( SP / HTAB )                                             (RFC 9110 §5.6.3)
#[inline(always)]
fn trim_ows(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// Content-Length = 1*DIGIT, overflow-checked                       (RFC 9110 §8.6)
fn parse_decimal(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(n)
}

/// Parse one complete head from `buf` with a fresh parser.
pub fn parse_request(buf: &[u8], limits: Limits) -> Result<Status<'_>, Error> {
    Parser::new(limits).parse(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Heads of the benchmarks' and the clients' shapes, each at least a few blocks long.
    fn seeds() -> [&'static [u8]; 4] {
        [
            b"GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\nsec-ch-ua: \"Chromium\";v=\"119\"\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n",
            b"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nX-Custom-Header-1: value-1-abcdefghij\r\nX-Custom-Header-22: value-22-abcdefghij\r\nExpect: 100-continue\r\n\r\n",
            b"PUT /x HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\nHost: h:80\r\nRange: bytes=0-1\r\nIf-None-Match: \"e\"\r\nCookie: session_id=0123456789abcdef; session_id=0123456789abcdef; end=1\r\n\r\n",
            b"GET / HTTP/1.0\r\nA: b\r\nConnection: close\r\nx_y.z!#$%&'*+^`|~: \t v\t\x80\xff \r\nHost: [::1]:8\r\n\r\n",
        ]
    }

    /// A name is the field it names in any case, and no other: every known name with each
    /// byte in turn made upper-case, and with each byte in turn replaced by every other token
    /// byte, against a case-insensitive comparison.
    #[test]
    fn field_names_in_any_case_and_no_other() {
        let known: [(&[u8], Field); 13] = [
            (b"host", Field::Host),
            (b"upgrade", Field::Upgrade),
            (b"range", Field::Range),
            (b"expect", Field::Expect),
            (b"if-match", Field::Conditional),
            (b"if-range", Field::Conditional),
            (b"connection", Field::Connection),
            (b"if-none-match", Field::Conditional),
            (b"content-length", Field::ContentLength),
            (b"transfer-encoding", Field::TransferEncoding),
            (b"if-modified-since", Field::Conditional),
            (b"if-unmodified-since", Field::Conditional),
            (b"x-custom-header-1", Field::Other),
        ];
        for (name, field) in known {
            assert_eq!(Field::named(name), field);
            assert_eq!(Field::named(&name.to_ascii_uppercase()), field);
            for at in 0..name.len() {
                let mut n = name.to_vec();
                n[at] = n[at].to_ascii_uppercase();
                assert_eq!(
                    Field::named(&n),
                    field,
                    "{:?}",
                    n.escape_ascii().to_string()
                );
                for c in (0..=255u8).filter(|&c| TCHAR[c as usize]) {
                    n[at] = c;
                    let want = known
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(&n))
                        .map_or(Field::Other, |&(_, f)| f);
                    assert_eq!(Field::named(&n), want, "{:?}", n.escape_ascii().to_string());
                }
            }
            assert_eq!(Field::named(&name[1..]), Field::Other);
        }
        assert_eq!(Field::named(b""), Field::Other);
    }

    /// The block path of the field lines reaches the byte-exact scan's outcome, and stops at
    /// the same byte, for heads changed at random places into the bytes the grammar turns on:
    /// both one-shot and fed in two pieces, under limits that cut some of them.
    #[test]
    fn field_blocks_agree_with_the_scan() {
        const BYTES: &[u8] = b":\r\n\t \0\x7f\x80\xffa_-/\"(,;=?@[]{}";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let seed = seeds()[round % 4];
            let mut head = seed.to_vec();
            for _ in 0..1 + next() % 3 {
                let at = next() as usize % head.len();
                let b = BYTES[next() as usize % BYTES.len()];
                match next() % 3 {
                    0 => head[at] = b,
                    1 => head.insert(at, b),
                    _ => drop(head.remove(at)),
                }
            }
            let limits = Limits {
                max_head: if round % 5 == 0 {
                    40 + next() as usize % 200
                } else {
                    8192
                },
                max_headers: if round % 7 == 0 {
                    next() as usize % 6
                } else {
                    100
                },
            };
            let cut = next() as usize % (head.len() + 1);
            for pieces in [&[head.len()][..], &[cut, head.len()]] {
                let (mut blocks, mut bytes) = (Parser::new(limits), Parser::new(limits));
                for &end in pieces {
                    let got = blocks.parse_with::<true>(&head[..end]);
                    let want = bytes.parse_with::<false>(&head[..end]);
                    assert_eq!(
                        got,
                        want,
                        "{:?} cut at {pieces:?}",
                        head.escape_ascii().to_string()
                    );
                    assert_eq!(
                        blocks.position(),
                        bytes.position(),
                        "{:?}",
                        head.escape_ascii().to_string()
                    );
                    if got != Ok(Status::Partial) {
                        break;
                    }
                }
            }
        }
    }
}
