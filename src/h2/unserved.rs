//! What HTTP/2 streams do not serve yet, answered `501 Not Implemented` with one line that
//! says why, never the route's answer: a request that names a `--control` (a known query
//! parameter, an `x-canned-control` field, or one of go-httpbin's paths that is not an echo).
//! The control's grammar reads an HTTP/1 head; routed any other way, such a request would get
//! the route's plain answer (a `status=503` answered 200). go-httpbin's echo paths
//! (`/anything`, `/ip`, `/headers`, ...) are echo routes, served by `echo` as `--echo` is.
//!
//! An upgraded request (`Upgrade: h2c`) never reaches this: with `--control` on, HTTP/1
//! answers it and ignores its `Upgrade` (`h1::upgrade`).

use super::fields::RequestFields;
use crate::echo::decimal;
use crate::parser::{Error, Rule};
use crate::response::Responses;

/// The status of a request HTTP/2 does not serve.
pub(super) const STATUS: u16 = 501;

/// Whether the request in `fields`, routed to `route`, asks for what HTTP/2 does not serve
/// (see the module documentation). Looked at only when `--control` is on; `scratch` is left
/// holding the request line the control's grammar reads.
#[cold]
#[inline(never)]
pub(super) fn refused(
    fields: &RequestFields,
    route: usize,
    responses: &Responses,
    scratch: &mut Vec<u8>,
) -> bool {
    // As on HTTP/1 (`h1::control`): the health route is never controlled.
    if responses.is_health(route) {
        return false;
    }
    if fields.names_control {
        return true;
    }
    // The control's grammar reads an HTTP/1 head: only its request line's target matters
    // here, since the field was looked for above; the draw decides nothing that is kept.
    scratch.clear();
    scratch.extend_from_slice(b"GET ");
    scratch.extend_from_slice(&fields.path);
    scratch.extend_from_slice(b" HTTP/1.1\r\n\r\n");
    !matches!(crate::control::from_head(scratch, route == 0, 0), Ok(None))
}

/// The body of the refusal: what is not served, and what to do.
pub(super) const BODY: &[u8] =
    b"501 Not Implemented: --control is not available over HTTP/2 yet; use HTTP/1.1\n";

/// Append the HTTP/1 head of the refusal to `out`, for HPACK: the head of canned's own 501
/// (its `Server`, `Date` and content type), its `Content-Length` that of [`BODY`].
pub(super) fn head(responses: &Responses, out: &mut Vec<u8>) {
    const LENGTH: &[u8] = b"content-length:";
    let len = BODY.len();
    let [start, rest, _] = responses.error(Rule::Request(Error::UnknownTransferCoding));
    for line in start
        .split_inclusive(|&c| c == b'\n')
        .chain(rest.split_inclusive(|&c| c == b'\n'))
    {
        if line.len() > LENGTH.len() && line[..LENGTH.len()].eq_ignore_ascii_case(LENGTH) {
            let mut digits = [0u8; 20];
            out.extend_from_slice(b"Content-Length: ");
            out.extend_from_slice(decimal(len as u64, &mut digits));
            out.extend_from_slice(b"\r\n");
        } else {
            out.extend_from_slice(line);
        }
    }
}
