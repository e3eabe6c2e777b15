//! The differential check: the same bytes through canned's parser and httparse.
//!
//! canned may be stricter than httparse only by the rules listed in [`STRICTER`]; wherever
//! canned accepts a head, httparse must accept the same head with the same method, target,
//! version, header count and length.
//!
//! Only heads are compared: the chunk-extension grammar (RFC 9112 §7.1.1) that the chunked
//! decoder enforces is checked by the `chunked` target and `tests/suite/chunked.rs`.

use canned::parser::{Error, Limits, Status, Version, parse_request};

/// Errors canned raises by design where httparse accepts (see the parser's strictness table).
pub const STRICTER: &[(Error, &str)] = &[
    (
        Error::BareLf,
        "httparse accepts a bare LF as a line end; canned rejects it (RFC 9112 §2.2, desync risk)",
    ),
    (
        Error::BareCr,
        "httparse may take a CR as part of a line end differently; canned requires CRLF",
    ),
    (
        Error::InvalidTarget,
        "canned checks each target form against its grammar (RFC 9112 §3.2, RFC 3986 §3): origin-form is absolute-path [\"?\" query] of pchar, so `#` (a fragment), a backslash, `\"`, `<`, `>`, `^`, a backquote, `{`, `|`, `}`, brackets outside an IP-literal and a `%` without two hex digits are rejected; absolute-form is an http(s) URI whose authority is uri-host [\":\" port], not empty, without userinfo (RFC 9110 §4.2); the form must fit the method. httparse allows any visible byte (and obs bytes) and any form",
    ),
    (
        Error::InvalidRequestLine,
        "httparse tolerates some request-line shapes canned rejects",
    ),
    (Error::InvalidVersion, "httparse reads only HTTP/1.x"),
    (
        Error::InvalidHeaderValue,
        "canned rejects DEL in field values (not VCHAR, RFC 9110 §5.5)",
    ),
    (
        Error::InvalidHeaderName,
        "httparse accepts some name shapes canned rejects",
    ),
    (Error::ObsFold, "obs-fold is rejected (RFC 9112 §5.2)"),
    (
        Error::MissingHost,
        "HTTP/1.1 needs exactly one Host (RFC 9112 §3.2); httparse does not look",
    ),
    (
        Error::DuplicateHost,
        "two Host fields are rejected (RFC 9112 §3.2)",
    ),
    (
        Error::InvalidHost,
        "a Host value that is not uri-host [\":\" port] (RFC 3986 §3.2.2: IP-literal, IPv4address or reg-name; the port digits only) is rejected (RFC 9112 §3.2); httparse does not look at values",
    ),
    (
        Error::InvalidContentLength,
        "httparse does not interpret Content-Length",
    ),
    (
        Error::ConflictingContentLength,
        "differing Content-Length values are rejected (RFC 9112 §6.3)",
    ),
    (
        Error::ContentLengthWithTransferEncoding,
        "httparse does not interpret framing",
    ),
    (
        Error::TransferEncodingHttp10,
        "Transfer-Encoding in HTTP/1.0 is rejected (RFC 9112 §6.1)",
    ),
    (
        Error::ChunkedNotFinal,
        "a final coding other than chunked, or chunked twice, is rejected (RFC 9112 §6.3 (4)); when chunked is present but not final this 400 wins over an unknown coding's 501",
    ),
    (
        Error::UnknownTransferCoding,
        "unknown transfer codings get 501 (RFC 9112 §6.1) when the framing is otherwise sound",
    ),
    (
        Error::ExpectationFailed,
        "httparse does not interpret Expect",
    ),
    (
        Error::UnsupportedVersion,
        "HTTP/1.x other than 1.0 and 1.1 is refused with 505",
    ),
    (Error::UriTooLong, "canned's head limit"),
    (Error::HeadTooLarge, "canned's head limit"),
    (Error::TooManyHeaders, "canned's header-count limit"),
];

pub fn check(data: &[u8]) {
    let limits = Limits {
        max_head: 4096,
        max_headers: 64,
    };
    let ours = parse_request(data, limits);
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut theirs = httparse::Request::new(&mut headers);
    let other = theirs.parse(data);
    match (ours, other) {
        (Ok(Status::Complete(r)), Ok(httparse::Status::Complete(n))) => {
            assert_eq!(r.head_len, n, "head length differs");
            assert_eq!(
                Some(r.method),
                theirs.method.map(str::as_bytes),
                "method differs"
            );
            assert_eq!(
                Some(r.target),
                theirs.path.map(str::as_bytes),
                "target differs"
            );
            let v = match r.version {
                Version::Http10 => 0,
                Version::Http11 => 1,
            };
            assert_eq!(Some(v), theirs.version, "version differs");
            assert_eq!(r.headers, theirs.headers.len(), "header count differs");
        }
        (Ok(Status::Complete(r)), Ok(httparse::Status::Partial)) => {
            panic!(
                "canned completed a {}-byte head that httparse finds partial",
                r.head_len
            )
        }
        (Ok(Status::Complete(_)), Err(e)) => panic!("canned accepted what httparse rejects: {e}"),
        (Ok(Status::Partial), Ok(httparse::Status::Complete(n))) => {
            panic!("httparse completed a {n}-byte head where canned waits for more")
        }
        (Err(e), Ok(httparse::Status::Complete(_))) => {
            assert!(
                STRICTER.iter().any(|(k, _)| *k == e),
                "canned rejects with {e}, httparse accepts, and that strictness is not documented"
            );
        }
        _ => {}
    }
}
