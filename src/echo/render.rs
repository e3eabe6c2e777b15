//! The formats of an echo, each written once for two sinks: the output buffer, and a
//! counter for the `Content-Length` of a HEAD request's answer. Through `dyn`, so that
//! the formats are in the binary once, and each piece out of line: inlined, the escaping and
//! base64 loops were copied into every field (35 KB of code).

use super::captured::{Echoed, path_and_query};
use std::net::{IpAddr, SocketAddr};

/// How an echo is written (see the `echo` module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoFormat {
    /// JSON, strings as text where the bytes are UTF-8 and base64 where not.
    Json,
    /// http-garden's JSON, every string base64.
    Garden,
    /// `Name: value` lines, the header fields only.
    Text,
    /// The body alone, as decoded.
    Body,
    /// `name=value` lines, one per cookie of the `Cookie` fields.
    Cookie,
    /// go-httpbin's `/ip`: `{"origin":IP}`, with the client's and the local address and port.
    Ip,
    /// go-httpbin's `/headers`: `{"headers":{"Canonical-Name":["value",…],…}}`.
    Headers,
    /// go-httpbin's `/user-agent`: `{"user-agent":…}`.
    UserAgent,
    /// go-httpbin's `/uuid`: `{"uuid":…}`, a random version 4 UUID.
    Uuid,
}

impl EchoFormat {
    /// The format named `name` (`json`, `garden`, `text`, `body`, `cookie`).
    pub fn parse(name: &str) -> Option<EchoFormat> {
        match name {
            "json" => Some(EchoFormat::Json),
            "garden" => Some(EchoFormat::Garden),
            "text" => Some(EchoFormat::Text),
            "body" => Some(EchoFormat::Body),
            "cookie" => Some(EchoFormat::Cookie),
            _ => None,
        }
    }

    /// The `Content-Type` of the echo. The text is the bytes received, in whatever charset
    /// the client wrote them, so none is claimed.
    pub fn content_type(self) -> &'static str {
        match self {
            EchoFormat::Json
            | EchoFormat::Garden
            | EchoFormat::Ip
            | EchoFormat::Headers
            | EchoFormat::UserAgent
            | EchoFormat::Uuid => "application/json",
            EchoFormat::Text | EchoFormat::Cookie => "text/plain",
            EchoFormat::Body => "application/octet-stream",
        }
    }
}

/// Where a format's bytes go.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

/// Counts the bytes instead of keeping them.
struct Count(usize);

impl Sink for Count {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// The length of `e` written in `format`.
pub fn rendered_len(format: EchoFormat, e: &Echoed<'_>) -> usize {
    let mut n = Count(0);
    write(format, e, &mut n);
    n.0
}

/// Append `e` written in `format` to `out`: [`rendered_len`] bytes.
pub fn render(format: EchoFormat, e: &Echoed<'_>, out: &mut Vec<u8>) {
    write(format, e, out);
}

#[inline(never)]
fn write(format: EchoFormat, e: &Echoed<'_>, out: &mut dyn Sink) {
    match format {
        EchoFormat::Json => json(e, out),
        EchoFormat::Garden => garden(e, out),
        EchoFormat::Text => {
            for (name, value) in e.headers() {
                out.put(name);
                out.put(b": ");
                out.put(value);
                out.put(b"\n");
            }
        }
        EchoFormat::Body => out.put(e.body()),
        EchoFormat::Cookie => cookies(e, out),
        EchoFormat::Ip => ip(e, out),
        EchoFormat::Headers => httpbin_headers(e, out),
        EchoFormat::UserAgent => {
            let agent = e.headers().find(|(n, _)| eq_ignore_case(n, b"user-agent"));
            out.put(b"{\"user-agent\":\"");
            text(out, agent.map_or(&[][..], |(_, v)| v));
            out.put(b"\"}\n");
        }
        EchoFormat::Uuid => {
            out.put(b"{\"uuid\":\"");
            out.put(&uuid_v4(random_128()));
            out.put(b"\"}\n");
        }
    }
}

/// `{"origin":"IP","client":"IP:PORT","local":"IP:PORT"}`: go-httpbin's `origin` (the
/// client's address without its port, from the socket: no `X-Forwarded-For` is read), and
/// the addresses as the JSON echo gives them.
#[inline(never)]
fn ip(e: &Echoed<'_>, out: &mut dyn Sink) {
    let (client, _) = e.addresses();
    let mut buf = [0u8; ADDRESS_BYTES];
    out.put(b"{\"origin\":\"");
    out.put(client.map_or(b"unix", |a| address(a, false, &mut buf)));
    out.put(b"\"");
    addresses(e, out);
    out.put(b"}\n");
}

/// `,"client":"IP:PORT","local":"IP:PORT"`, an IPv4 client of an IPv6 listener as IPv4
/// (`127.0.0.1:N`, not `[::ffff:127.0.0.1]:N`), `null` for a unix socket's.
#[inline(never)]
fn addresses(e: &Echoed<'_>, out: &mut dyn Sink) {
    let (client, local) = e.addresses();
    for (key, a) in [(&b",\"client\":"[..], client), (b",\"local\":", local)] {
        out.put(key);
        let mut buf = [0u8; ADDRESS_BYTES];
        match a {
            Some(a) => {
                out.put(b"\"");
                out.put(address(a, true, &mut buf));
                out.put(b"\"");
            }
            None => out.put(b"null"),
        }
    }
}

/// The longest socket address written: `[` 39 digits of IPv6 `%` 10 of a scope `]:` 5.
const ADDRESS_BYTES: usize = 64;

/// `a` as text in `buf`, with its port or without (IPv6 then without brackets, as
/// go-httpbin's `origin`), an IPv4-mapped IPv6 address as the IPv4 one.
fn address(a: SocketAddr, port: bool, buf: &mut [u8; ADDRESS_BYTES]) -> &[u8] {
    use std::fmt::Write;
    /// The formatter's text into `buf` (always room: an address is at most 64 bytes).
    struct Into<'b>(&'b mut [u8], usize);
    impl Write for Into<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let end = self.1 + s.len();
            self.0
                .get_mut(self.1..end)
                .ok_or(std::fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.1 = end;
            Ok(())
        }
    }
    let ip = match a.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let mut w = Into(buf, 0);
    let _ = match (port, ip) {
        (false, ip) => write!(w, "{ip}"),
        (true, IpAddr::V4(v4)) => write!(w, "{v4}:{}", a.port()),
        (true, IpAddr::V6(_)) => write!(w, "{a}"),
    };
    let n = w.1;
    &buf[..n]
}

/// go-httpbin's `/headers` (Go's `http.Header` as JSON): each name once, canonical
/// (`Content-Type`, as Go's `CanonicalMIMEHeaderKey`), with the values of all its fields in
/// order. No map is built: a name is written at its first field, its values gathered then.
#[inline(never)]
fn httpbin_headers(e: &Echoed<'_>, out: &mut dyn Sink) {
    out.put(b"{\"headers\":{");
    let mut sep: &[u8] = b"\"";
    for (i, (name, _)) in e.headers().enumerate() {
        // HTTP/2's `:authority` is HTTP/1's `Host` (RFC 9113 §8.3.1), as go-httpbin shows it;
        // the other pseudo-headers are not header fields.
        let shown: &[u8] = if name == b":authority" { b"host" } else { name };
        if field_named(e, name, 0, i).is_some() || shown.starts_with(b":") {
            continue; // written with an earlier field of that name
        }
        out.put(sep);
        sep = b",\"";
        let mut upper = true;
        for &c in shown {
            let c = if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            };
            out.put(&[c]);
            upper = c == b'-';
        }
        let mut open: &[u8] = b"\":[\"";
        let mut at = i;
        while let Some((j, value)) = field_named(e, name, at, usize::MAX) {
            out.put(open);
            open = b"\",\"";
            text(out, value);
            at = j + 1;
        }
        out.put(b"\"]");
    }
    out.put(b"}}\n");
}

/// The first field named `name` (in any case) among the fields `from..to`: its index and
/// value. Out of line: one copy of the field walk for every use.
#[inline(never)]
fn field_named<'a>(
    e: &Echoed<'a>,
    name: &[u8],
    from: usize,
    to: usize,
) -> Option<(usize, &'a [u8])> {
    e.headers()
        .enumerate()
        .take(to)
        .skip(from)
        .find(|(_, (n, _))| eq_ignore_case(n, name))
        .map(|(j, (_, v))| (j, v))
}

/// A JSON string's contents for go-httpbin's shapes, which have no `_b64` twin: UTF-8 as
/// [`escaped`], other bytes (obs-text, RFC 9110 §5.5) read as ISO-8859-1, each `\u00XX`.
#[inline(never)]
fn text(out: &mut dyn Sink, bytes: &[u8]) {
    if std::str::from_utf8(bytes).is_ok() {
        return escaped(out, bytes);
    }
    for &c in bytes {
        if c.is_ascii() {
            escaped(out, &[c]);
        } else {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.put(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 15)],
            ]);
        }
    }
}

/// 16 random bytes from the kernel (getrandom(2)); should it fail (a kernel before 3.17),
/// from the clock and a count, mixed, which still differ on each call.
fn random_128() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    let mut got = 0;
    while got < bytes.len() {
        // SAFETY: the pointer and length name the unfilled rest of `bytes`, which lives
        // across the call.
        let n = unsafe { libc::getrandom(bytes[got..].as_mut_ptr().cast(), bytes.len() - got, 0) };
        match n {
            n if n > 0 => got += n as usize,
            _ if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => {}
            _ => return random_fallback(),
        }
    }
    bytes
}

#[cold]
fn random_fallback() -> [u8; 16] {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    // The clock's nanoseconds and a count, mixed (splitmix64): not secret, but different on
    // each call, which is what a test's request id needs.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = now ^ COUNT.fetch_add(1, Ordering::Relaxed).rotate_left(32);
    let mut half = || {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (x ^ (x >> 31)).to_le_bytes()
    };
    let (a, b) = (half(), half());
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a);
    bytes[8..].copy_from_slice(&b);
    bytes
}

/// `bytes` as a version 4 UUID (RFC 9562 §5.4): the version, 4, in the top four bits of
/// octet 6, the variant, `10`, in the top two of octet 8; lowercase hex, 8-4-4-4-12.
pub(super) fn uuid_v4(mut bytes: [u8; 16]) -> [u8; 36] {
    bytes[6] = bytes[6] & 0x0f | 0x40;
    bytes[8] = bytes[8] & 0x3f | 0x80;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = [b'-'; 36];
    let mut at = 0;
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            at += 1;
        }
        text[at] = HEX[usize::from(b >> 4)];
        text[at + 1] = HEX[usize::from(b & 15)];
        at += 2;
    }
    text
}

/// Each `name=value` pair of every `Cookie` field (RFC 6265 §4.2.1: pairs separated by `;`
/// and a space), one a line, whitespace before a pair left out; a piece without a name
/// before its `=` is no pair and is skipped.
#[inline(never)]
fn cookies(e: &Echoed<'_>, out: &mut dyn Sink) {
    for (name, value) in e.headers() {
        if !eq_ignore_case(name, b"cookie") {
            continue;
        }
        for piece in value.split(|&b| b == b';') {
            let start = piece.iter().position(|&b| b != b' ' && b != b'\t');
            let pair = &piece[start.unwrap_or(piece.len())..];
            if pair.iter().position(|&b| b == b'=').is_some_and(|i| i > 0) {
                out.put(pair);
                out.put(b"\n");
            }
        }
    }
}

/// `{"method":…,"target":…,"path":…,"query":…,"version":…,"headers":[…],"body":…,
/// "trailers":[…],"request_index":N,"client":…,"local":…}` and a newline.
#[inline(never)]
fn json(e: &Echoed<'_>, out: &mut dyn Sink) {
    let (method, target, version) = e.request_line();
    let (path, query) = path_and_query(target);
    field(out, "{\"method", method);
    field(out, ",\"target", target);
    field(out, ",\"path", path);
    match query {
        Some(q) => field(out, ",\"query", q),
        None => out.put(b",\"query\":null"),
    }
    field(out, ",\"version", version);
    fields(out, ",\"headers\":[", e.headers());
    field(out, "],\"body", e.body());
    fields(out, ",\"trailers\":[", e.trailers());
    out.put(b"],\"request_index\":");
    let mut digits = [0u8; 20];
    out.put(decimal(e.index().into(), &mut digits));
    addresses(e, out);
    out.put(b"}\n");
}

/// `open`, then `{"name":…,"value":…}` for each field, comma-separated (the caller closes).
#[inline(never)]
fn fields<'a>(out: &mut dyn Sink, open: &str, list: impl Iterator<Item = (&'a [u8], &'a [u8])>) {
    out.put(open.as_bytes());
    for (i, (name, value)) in list.enumerate() {
        field(out, if i == 0 { "{\"name" } else { ",{\"name" }, name);
        field(out, ",\"value", value);
        out.put(b"}");
    }
}

/// `key":"text"` when `bytes` are UTF-8, else `key_b64":"base64"`: lossless either way. `key`
/// starts with what comes before the name and its opening quote (`,"body`).
#[inline(never)]
fn field(out: &mut dyn Sink, key: &str, bytes: &[u8]) {
    out.put(key.as_bytes());
    if std::str::from_utf8(bytes).is_ok() {
        out.put(b"\":\"");
        escaped(out, bytes);
    } else {
        out.put(b"_b64\":\"");
        base64(out, bytes);
    }
    out.put(b"\"");
}

/// http-garden's echo: `{"method","version","uri","headers":[[name,value]…],"body"}`, each
/// string base64, as its servers answer (its hyper server's `main.rs`, byte for byte).
#[inline(never)]
fn garden(e: &Echoed<'_>, out: &mut dyn Sink) {
    let (method, target, version) = e.request_line();
    out.put(b"{\"method\":\"");
    base64(out, method);
    out.put(b"\",\"version\":\"");
    base64(out, version.strip_prefix(b"HTTP/").unwrap_or(version));
    out.put(b"\",\"uri\":\"");
    base64(out, target);
    out.put(b"\",\"headers\":[");
    for (i, (name, value)) in e.headers().enumerate() {
        out.put(if i == 0 { b"[\"" } else { b",[\"" });
        base64(out, name);
        out.put(b"\",\"");
        base64(out, value);
        out.put(b"\"]");
    }
    out.put(b"],\"body\":\"");
    base64(out, e.body());
    out.put(b"\"}");
}

/// A JSON string's contents (RFC 8259 §7): `"` and `\` escaped, control characters as
/// `\n`, `\r`, `\t` or `\u00XX`; the rest, UTF-8 already, as it is. Runs of plain text, the
/// common case of a body, are passed over eight bytes at a time.
#[inline(never)]
fn escaped(out: &mut dyn Sink, text: &[u8]) {
    let (mut from, mut i) = (0, 0);
    while i < text.len() {
        i += plain_words(&text[i..]);
        let Some(&c) = text.get(i) else {
            break;
        };
        i += 1;
        let short: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..0x20 => b"",
            _ => continue,
        };
        out.put(&text[from..i - 1]);
        from = i;
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.put(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 15)],
            ]);
        } else {
            out.put(short);
        }
    }
    out.put(&text[from..]);
}

/// The bytes at the start of `text` in whole words of eight that need no escape.
fn plain_words(text: &[u8]) -> usize {
    let mut n = 0;
    for word in text.chunks_exact(8) {
        if needs_escape(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
            break;
        }
        n += 8;
    }
    n
}

/// Whether any byte of `x` is one JSON escapes: below 0x20, `"` or `\`. The exact test for
/// a byte below n, eight lanes at once, for each (`"` and `\` as a zero byte of `x` xor them);
/// the three share their `!x & HIGH`, since `"` and `\` leave the high bit as it is.
fn needs_escape(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let below_space = x.wrapping_sub(ONES * 0x20);
    let quote = (x ^ (ONES * 0x22)).wrapping_sub(ONES);
    let backslash = (x ^ (ONES * 0x5c)).wrapping_sub(ONES);
    (below_space | quote | backslash) & !x & HIGH != 0
}

/// Base64 with padding (RFC 4648 §4), a stack buffer at a time.
#[inline(never)]
fn base64(out: &mut dyn Sink, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut buf = [0u8; 1024];
    let mut n = 0;
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let v = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        let quad = [18, 12, 6, 0].map(|s| ALPHABET[(v >> s & 63) as usize]);
        buf[n..n + 4].copy_from_slice(&quad);
        // One byte: two characters and `==`; two bytes: three and `=`.
        for pad in &mut buf[n + 1 + group.len()..n + 4] {
            *pad = b'=';
        }
        n += 4;
        if n == buf.len() {
            out.put(&buf);
            n = 0;
        }
    }
    out.put(&buf[..n]);
}

/// `n` in decimal, at the end of `digits` (20 bytes hold any `u64`).
#[inline(never)]
pub fn decimal(mut n: u64, digits: &mut [u8]) -> &[u8] {
    let mut at = digits.len();
    while at > 0 {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &digits[at..]
}

/// [`base64`] into a buffer, for the tests.
#[cfg(test)]
pub(super) fn base64_into(out: &mut Vec<u8>, bytes: &[u8]) {
    base64(out, bytes);
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each), and this path is cold. The linker folds the
/// copies of this function that come out identical.
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}
