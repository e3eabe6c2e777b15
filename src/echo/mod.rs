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
//! The three formats ([`EchoFormat`]):
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
//!
//! | file | holds |
//! |---|---|
//! | `chunks` | the decoder of a chunked body already validated |
//! | `render` | the three formats, measured and written |

mod chunks;
mod render;
#[cfg(test)]
mod tests;

pub use chunks::ChunkWalk;
pub use render::{render, rendered_len};

/// The body bound of an echo when `--max-body-bytes` gives none: an echoed body is kept in
/// memory until the response is written.
pub const DEFAULT_MAX_BODY: u64 = 1 << 20;

/// How an echo is written (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoFormat {
    /// JSON, strings as text where the bytes are UTF-8 and base64 where not.
    Json,
    /// http-garden's JSON, every string base64.
    Garden,
    /// `Name: value` lines, the header fields only.
    Text,
}

impl EchoFormat {
    /// The format named `name` (`json`, `garden`, `text`).
    pub fn parse(name: &str) -> Option<EchoFormat> {
        match name {
            "json" => Some(EchoFormat::Json),
            "garden" => Some(EchoFormat::Garden),
            "text" => Some(EchoFormat::Text),
            _ => None,
        }
    }

    /// The `Content-Type` of the echo. The text is the bytes received, in whatever charset
    /// the client wrote them, so none is claimed.
    pub fn content_type(self) -> &'static str {
        match self {
            EchoFormat::Json | EchoFormat::Garden => "application/json",
            EchoFormat::Text => "text/plain",
        }
    }
}

/// One captured request, read as its parts: `head` is the head as the parser accepted it
/// (empty lines before the request line included, the final CRLF too), `body` the body's
/// data, `trailers` the chunked body's trailer field lines, each ending in CRLF.
#[derive(Clone, Copy, Debug)]
pub struct Echoed<'a> {
    head: &'a [u8],
    body: &'a [u8],
    trailers: &'a [u8],
    /// Which request of its connection this is, from 1.
    index: u32,
}

impl<'a> Echoed<'a> {
    /// The capture `captured`: its head is the first `head_len` bytes, its body runs up to
    /// `body_end`, its trailers after that.
    pub fn new(captured: &'a [u8], head_len: usize, body_end: usize, index: u32) -> Echoed<'a> {
        let (head, rest) = captured.split_at(head_len.min(captured.len()));
        let (body, trailers) = rest.split_at(body_end.saturating_sub(head.len()).min(rest.len()));
        Echoed {
            head,
            body,
            trailers,
            index,
        }
    }

    /// The method, the target and the version (`HTTP/1.1`) of the request line.
    pub fn request_line(&self) -> (&'a [u8], &'a [u8], &'a [u8]) {
        let line = Lines(self.request()).next().unwrap_or_default();
        // One SP between the parts (RFC 9112 §3): the parser accepts no other.
        let mut parts = line.splitn(3, |&c| c == b' ');
        let method = parts.next().unwrap_or_default();
        let target = parts.next().unwrap_or_default();
        let version = parts.next().unwrap_or_default();
        (method, target, version)
    }

    /// The header fields, in order: (name, value).
    pub fn headers(&self) -> Fields<'a> {
        let mut lines = Lines(self.request());
        lines.next();
        Fields(lines)
    }

    /// The trailer fields of a chunked body, in order: (name, value).
    pub fn trailers(&self) -> Fields<'a> {
        Fields(Lines(self.trailers))
    }

    /// The head from its request line on: the empty lines before it are skipped (RFC 9112
    /// §2.2).
    fn request(&self) -> &'a [u8] {
        let start = self.head.iter().position(|&c| c != b'\r' && c != b'\n');
        &self.head[start.unwrap_or(self.head.len())..]
    }

    /// The body's data, decoded.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Which request of its connection this is, from 1.
    pub fn index(&self) -> u32 {
        self.index
    }
}

/// The path and the query of a target: origin-form `/p?q`, absolute-form
/// `http://host/p?q` (`/` when it has no path, as RFC 9112 §3.2.2 reads it), `*` (neither).
pub fn path_and_query(target: &[u8]) -> (&[u8], Option<&[u8]>) {
    let after_authority = match target.windows(3).position(|w| w == b"://") {
        Some(i) if !target.starts_with(b"/") => {
            let rest = &target[i + 3..];
            let end = rest
                .iter()
                .position(|&c| c == b'/' || c == b'?')
                .unwrap_or(rest.len());
            &rest[end..]
        }
        _ if target == b"*" => return (&[], None),
        _ => target,
    };
    let (path, query) = match after_authority.iter().position(|&c| c == b'?') {
        Some(q) => (&after_authority[..q], Some(&after_authority[q + 1..])),
        None => (after_authority, None),
    };
    (if path.is_empty() { b"/" } else { path }, query)
}

/// The lines of a head or a trailer section, each without its CRLF, up to the first empty
/// one. The bytes passed the parser: no line holds a CR or an LF of its own.
struct Lines<'a>(&'a [u8]);

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let end = self.0.iter().position(|&c| c == b'\n')?;
        let line = &self.0[..end];
        self.0 = &self.0[end + 1..];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            self.0 = &[];
            return None;
        }
        Some(line)
    }
}

/// Field lines (RFC 9112 §5.1): `name ":" OWS value OWS`, as (name, value).
pub struct Fields<'a>(Lines<'a>);

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let line = self.0.next()?;
        let colon = line.iter().position(|&c| c == b':').unwrap_or(line.len());
        let value = line.get(colon + 1..).unwrap_or_default();
        let ows = |c: &u8| *c != b' ' && *c != b'\t';
        let start = value.iter().position(ows).unwrap_or(value.len());
        let end = value.iter().rposition(ows).map_or(start, |i| i + 1);
        Some((&line[..colon], &value[start..end]))
    }
}
