//! A captured request read back: its request line, its header and trailer fields (walked
//! again from the bytes the parser validated), its body, its index on its connection, and the
//! addresses of its connection.

use std::net::SocketAddr;

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
    /// The client's address (`None`: a unix-socket client, or not known).
    client: Option<SocketAddr>,
    /// The address the request arrived on (`None`: a unix socket, or not known).
    local: Option<SocketAddr>,
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
            client: None,
            local: None,
        }
    }

    /// The same capture, with the addresses of its connection: the client's and the one the
    /// request arrived on.
    pub fn with_addresses(self, client: Option<SocketAddr>, local: Option<SocketAddr>) -> Self {
        Echoed {
            client,
            local,
            ..self
        }
    }

    /// The client's address, and the address the request arrived on.
    pub fn addresses(&self) -> (Option<SocketAddr>, Option<SocketAddr>) {
        (self.client, self.local)
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
        // From the name's second byte: an HTTP/2 pseudo-header (`:authority`) begins with a
        // colon, and an HTTP/1 field name is never empty.
        let colon = (line.iter().skip(1).position(|&c| c == b':')).map_or(line.len(), |i| i + 1);
        let value = line.get(colon + 1..).unwrap_or_default();
        let ows = |c: &u8| *c != b' ' && *c != b'\t';
        let start = value.iter().position(ows).unwrap_or(value.len());
        let end = value.iter().rposition(ows).map_or(start, |i| i + 1);
        Some((&line[..colon], &value[start..end]))
    }
}
