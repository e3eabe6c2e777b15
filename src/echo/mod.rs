//! The echo: a request as canned parsed it, written back as the body of the response.
//!
//! What is echoed is what the strict parser accepted, read from the bytes it validated: the
//! request line, the field lines in order with their names as received and their values
//! without the optional whitespace around them (RFC 9110 §5.5), the body (Content-Length, or
//! chunked and decoded), its trailer fields, and which request of its connection it was. A
//! request the parser rejects gets the rejection any path gets; none is echoed.
//!
//! A connection keeps one capture of its request, in the order the bytes come: the head
//! as received, then the body's data, then the raw trailer section ([`Echoed::new`] names
//! the three parts). The head is copied whole when the parser completes it, and its lines
//! are walked again only when the response is written, so the parser stays as it is; a chunked
//! body is decoded by [`ChunkWalk`] from bytes the decoder already accepted.
//!
//! The five formats ([`EchoFormat`]):
//!
//! - `json` (the default): `{"method":…,"target":…,"path":…,"query":…,"version":…,
//!   "headers":[{"name":…,"value":…}…],"body":…,"trailers":[…],"request_index":N}`. JSON
//!   strings are Unicode, so a value whose bytes are not UTF-8 is given base64-encoded
//!   (RFC 4648 §4, padded) under its name with `_b64` instead (`value_b64`, `body_b64`):
//!   lossless, and a client reads the plain field whenever the bytes were text.
//! - `garden`: http-garden's contract, each string base64: `{"method","version","uri",
//!   "headers":[[name,value]…],"body"}`, the version without `HTTP/` (`1.1`).
//! - `text`: one `Name: value` line per header field and nothing else, what Http11Probe's
//!   `/echo` reads.
//! - `body`: the body alone, decoded; `cookie`: a `name=value` line per cookie of the `Cookie`
//!   fields (Http11Probe's `POST /` and `/cookie`).
//!
//! | file | holds |
//! |---|---|
//! | `capture` | a connection's capture of the request it echoes, as its bytes come |
//! | `captured` | a captured request read back: request line, fields, body, trailers |
//! | `chunks` | the decoder of a chunked body already validated |
//! | `render` | the five formats, measured and written |
//! | `routes` | the routes that echo, and their formats |

mod capture;
mod captured;
mod chunks;
mod render;
mod routes;
#[cfg(test)]
mod tests;

pub use capture::Capture;
pub use captured::{Echoed, Fields, path_and_query};
pub use chunks::ChunkWalk;
pub use render::{EchoFormat, decimal, render, rendered_len};
pub use routes::EchoRoutes;

/// The body bound of an echo when `--max-body-bytes` gives none: an echoed body is kept in
/// memory until the response is written.
pub const DEFAULT_MAX_BODY: u64 = 1 << 20;
