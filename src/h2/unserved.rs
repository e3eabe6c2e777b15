//! What HTTP/2 streams do not serve yet, answered `501 Not Implemented` with one line that
//! says why, never the route's answer: a `--control` that asks for a delivery fault (stall,
//! truncate, reset, drip, bandwidth, garbage, hang, slow-close; `control` reads it), which
//! HTTP/1 applies to its connection's bytes. Routed any other way, such a request would get
//! an answer that is not the one it asked for.
//!
//! An upgraded request (`Upgrade: h2c`) never reaches this: HTTP/1 does not take the upgrade
//! of a request whose control asks for a delivery fault, and answers it (`h1::upgrade`).

use crate::echo::decimal;
use crate::parser::{Error, Rule};
use crate::response::Responses;

/// The status of a request HTTP/2 does not serve.
pub(super) const STATUS: u16 = 501;

/// The body of the refusal: what is not served, and what to do.
pub(super) const BODY: &[u8] =
    b"501 Not Implemented: --control's delivery faults are not available over HTTP/2 yet; use HTTP/1.1\n";

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
