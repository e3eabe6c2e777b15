//! Status codes: their reason phrases, the error responses canned sends on its own, and the
//! one body format of every error it writes.

/// The interim response sent before reading a body announced with `Expect: 100-continue`.
pub const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// Status codes of the error responses.
pub const ERROR_STATUSES: [u16; 8] = [400, 408, 413, 414, 417, 431, 501, 505];

/// The body of an error canned writes without being given one (its own error responses, the
/// 405 answer, a fault's error rate without a body): `CODE Reason` and a newline.
pub fn error_body(status: u16) -> String {
    format!("{status} {}\n", reason(status))
}

/// The standard reason phrase (RFC 9110 §15), or an empty one for codes without.
pub fn reason(status: u16) -> &'static str {
    let code = [100, 10, 1].map(|d| b'0' + (status / d % 10) as u8);
    REASONS
        .lines()
        .find_map(|l| {
            l.strip_prefix(std::str::from_utf8(&code).ok()?)?
                .strip_prefix(' ')
        })
        .filter(|_| status < 1000)
        .unwrap_or_default()
}

/// `CODE Reason` per line: one string rather than a `match`, which would compile to a table
/// with a string pointer per code (a relocation each in a position-independent binary).
const REASONS: &str = "\
100 Continue
200 OK
201 Created
202 Accepted
203 Non-Authoritative Information
204 No Content
205 Reset Content
206 Partial Content
300 Multiple Choices
301 Moved Permanently
302 Found
303 See Other
304 Not Modified
307 Temporary Redirect
308 Permanent Redirect
400 Bad Request
401 Unauthorized
402 Payment Required
403 Forbidden
404 Not Found
405 Method Not Allowed
406 Not Acceptable
407 Proxy Authentication Required
408 Request Timeout
409 Conflict
410 Gone
411 Length Required
412 Precondition Failed
413 Content Too Large
414 URI Too Long
415 Unsupported Media Type
416 Range Not Satisfiable
417 Expectation Failed
418 I'm a teapot
421 Misdirected Request
422 Unprocessable Content
425 Too Early
426 Upgrade Required
428 Precondition Required
429 Too Many Requests
431 Request Header Fields Too Large
451 Unavailable For Legal Reasons
500 Internal Server Error
501 Not Implemented
502 Bad Gateway
503 Service Unavailable
504 Gateway Timeout
505 HTTP Version Not Supported";
