//! What HTTP/2 streams do not serve yet, answered `501 Not Implemented` with one line that
//! says why, never the route's answer: `--echo` (and `--control`'s httpbin echo paths),
//! `--journal-path`, and a request that names a `--control` (a known query parameter, an
//! `x-canned-control` field, or one of go-httpbin's paths). Each needs HTTP/1's machinery: the
//! request's head and body kept as they came, read back by the echo, the journal's recorder
//! and the control's grammar. Routed any other way, such a request would get the route's
//! plain answer: an echo route's empty body, a journal that is neither read nor cleared, a
//! `status=503` answered 200.
//!
//! An upgraded request (`Upgrade: h2c`) never reaches this: with `--echo` or `--control` on,
//! HTTP/1 answers it and ignores its `Upgrade` (`h1::upgrade`).

use super::fields::RequestFields;
use crate::echo::decimal;
use crate::parser::{Error, Rule};
use crate::response::Responses;

/// The status of a request HTTP/2 does not serve.
pub(super) const STATUS: u16 = 501;

/// Whether the request in `fields`, routed to `route`, asks for what HTTP/2 does not serve
/// (see the module documentation), `control` saying whether `--control` is on. Looked at only
/// when a route echoes or `--control` is on; `scratch` is left holding the request line the
/// control's grammar reads.
#[cold]
#[inline(never)]
pub(super) fn refused(
    fields: &RequestFields,
    route: usize,
    responses: &Responses,
    control: bool,
    scratch: &mut Vec<u8>,
) -> bool {
    if responses.echoes(route) {
        return true;
    }
    // As on HTTP/1 (`h1::control`): the health route is never controlled.
    if !control || responses.is_health(route) {
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

/// The body of the refusal of a request to `route`: what is not served, and what to do.
pub(super) fn body(route: usize, responses: &Responses) -> &'static [u8] {
    if responses.is_journal(route) {
        b"501 Not Implemented: the journal (--journal-path) is not available over HTTP/2 yet; use HTTP/1.1\n"
    } else if responses.echoes(route) {
        b"501 Not Implemented: the echo (--echo, --control's /anything) is not available over HTTP/2 yet; use HTTP/1.1\n"
    } else {
        b"501 Not Implemented: --control is not available over HTTP/2 yet; use HTTP/1.1\n"
    }
}

/// Append the HTTP/1 head of the refusal of a request to `route` to `out`, for HPACK: the
/// head of canned's own 501 (its `Server`, `Date` and content type), its `Content-Length`
/// that of [`body`].
pub(super) fn head(route: usize, responses: &Responses, out: &mut Vec<u8>) {
    const LENGTH: &[u8] = b"content-length:";
    let len = body(route, responses).len();
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
