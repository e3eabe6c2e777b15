//! The HTTP/2 catalogue: responses on an HTTP/2 connection that break one rule of RFC 9113's
//! framing and fields or of RFC 7541's HPACK each, in `--mutate` order after HTTP/1's.
//!
//! A variant is frames built once at start-up ([`H2Catalogue::new`]) with the stream ids left
//! to patch: [`Variant::write`] copies its bytes and writes the request's stream id (or the
//! even id after it) where the variant names it. Header blocks use only static-table indexes
//! and literals without indexing, so a variant that a client rejects per stream leaves the
//! client's HPACK table as it was and the connection goes on; a variant that breaks the
//! connection (a connection error, a block the client cannot decode) closes it after
//! ([`Variant::closes`]).

use super::catalogue::About;
use crate::frame::{MAX_WINDOW, flag, kind, setting};

/// One HTTP/2 variant: its bytes, where the stream ids go, and whether the connection closes
/// after it.
#[derive(Debug)]
pub struct Variant {
    bytes: Box<[u8]>,
    /// (offset of a frame's stream id, added to the request's stream id).
    patches: Box<[(u32, u8)]>,
    close: bool,
}

impl Variant {
    /// Append the variant to `out`, on the request's stream `stream`.
    pub fn write(&self, stream: u32, out: &mut Vec<u8>) {
        let at = out.len();
        out.extend_from_slice(&self.bytes);
        for &(off, add) in self.patches.iter() {
            let id = stream.wrapping_add(u32::from(add)) & MAX_WINDOW;
            let off = at + off as usize;
            out[off..off + 4].copy_from_slice(&id.to_be_bytes());
        }
    }

    /// Whether the connection closes after it (it breaks the connection, not one stream).
    pub fn closes(&self) -> bool {
        self.close
    }

    /// Its bytes with the stream ids unpatched (0 where the request's stream goes).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Every HTTP/2 variant, built once.
#[derive(Debug)]
pub struct H2Catalogue {
    variants: Vec<Variant>,
}

impl H2Catalogue {
    /// Build every variant.
    pub fn new() -> H2Catalogue {
        let variants = BUILD
            .iter()
            .map(|f| {
                let mut b = B::default();
                f(&mut b);
                Variant {
                    bytes: b.out.into_boxed_slice(),
                    patches: b.patches.into_boxed_slice(),
                    close: b.close,
                }
            })
            .collect();
        H2Catalogue { variants }
    }

    /// Variant `i` (an index among the HTTP/2 ids).
    pub fn variant(&self, i: usize) -> &Variant {
        &self.variants[i]
    }

    /// The number of variants.
    pub fn len(&self) -> usize {
        self.variants.len()
    }

    /// Whether there are none (never).
    pub fn is_empty(&self) -> bool {
        self.variants.is_empty()
    }
}

impl Default for H2Catalogue {
    fn default() -> Self {
        H2Catalogue::new()
    }
}

/// A frame's stream.
#[derive(Clone, Copy)]
enum Sid {
    /// The request's stream plus this (1: the even id after it).
    Req(u8),
    /// This id.
    Id(u32),
}

/// The request's stream.
const S: Sid = Sid::Req(0);

/// A variant being built.
#[derive(Default)]
struct B {
    out: Vec<u8>,
    patches: Vec<(u32, u8)>,
    close: bool,
}

// The builder's helpers are called, not inlined, into the catalogue's variants (built once
// at start-up): inlined, each variant's closure carried its own copy of them.
impl B {
    /// A frame whose length field says `len`, whatever the payload.
    fn frame_len(&mut self, len: usize, kind: u8, flags: u8, sid: Sid, payload: &[u8]) {
        let l = (len as u32).to_be_bytes();
        self.out.extend_from_slice(&[l[1], l[2], l[3], kind, flags]);
        let id = match sid {
            Sid::Req(add) => {
                self.patches.push((self.out.len() as u32, add));
                0
            }
            Sid::Id(id) => id,
        };
        self.out.extend_from_slice(&id.to_be_bytes());
        self.out.extend_from_slice(payload);
    }

    fn frame(&mut self, kind: u8, flags: u8, sid: Sid, payload: &[u8]) {
        self.frame_len(payload.len(), kind, flags, sid, payload);
    }

    /// HEADERS with END_HEADERS (and `flags`).
    #[inline(never)]
    fn headers(&mut self, flags: u8, sid: Sid, block: &[u8]) {
        self.frame(kind::HEADERS, flag::END_HEADERS | flags, sid, block);
    }

    #[inline(never)]
    fn data(&mut self, flags: u8, sid: Sid, body: &[u8]) {
        self.frame(kind::DATA, flags, sid, body);
    }

    /// A well-formed response: `:status 200`, text/plain, length 6, `hello\n`.
    #[inline(never)]
    fn ok(&mut self, sid: Sid) {
        self.headers(0, sid, &ok_block());
        self.data(flag::END_STREAM, sid, BODY);
    }

    /// A response with this header block and the body.
    #[inline(never)]
    fn with_block(&mut self, block: &[u8]) {
        self.headers(0, S, block);
        self.data(flag::END_STREAM, S, BODY);
    }

    fn settings(&mut self, id: u16, value: u32) {
        let mut p = id.to_be_bytes().to_vec();
        p.extend_from_slice(&value.to_be_bytes());
        self.frame(kind::SETTINGS, 0, Sid::Id(0), &p);
    }

    fn close(&mut self) {
        self.close = true;
    }
}

const BODY: &[u8] = b"hello\n";

/// An HPACK integer with an `n`-bit prefix, the prefix's high bits `first` (RFC 7541 §5.1).
#[inline(never)]
fn int(n: u32, first: u8, v: u64) -> Vec<u8> {
    let max = (1u64 << n) - 1;
    if v < max {
        return vec![first | v as u8];
    }
    let mut out = vec![first | max as u8];
    let mut v = v - max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
    out
}

/// A string literal, not Huffman-coded.
fn string(s: &[u8]) -> Vec<u8> {
    [int(7, 0, s.len() as u64), s.to_vec()].concat()
}

/// An indexed field (§6.1).
#[inline(never)]
fn indexed(i: u64) -> Vec<u8> {
    int(7, 0x80, i)
}

/// A literal without indexing, its name a static-table index (§6.2.2).
fn lit(name: u64, value: &[u8]) -> Vec<u8> {
    [int(4, 0, name), string(value)].concat()
}

/// A literal without indexing with a new name (§6.2.2).
fn lit_name(name: &[u8], value: &[u8]) -> Vec<u8> {
    [vec![0], string(name), string(value)].concat()
}

/// Static table indexes (RFC 7541 Appendix A).
const STATUS_200: u64 = 8;
const STATUS_204: u64 = 9;
const PATH_SLASH: u64 = 4;
const METHOD_GET: u64 = 2;
const SCHEME_HTTP: u64 = 6;
const CONTENT_LENGTH: u64 = 28;
const CONTENT_TYPE: u64 = 31;
const TRANSFER_ENCODING: u64 = 57;

fn content_type() -> Vec<u8> {
    lit(CONTENT_TYPE, b"text/plain")
}

fn length(v: &[u8]) -> Vec<u8> {
    lit(CONTENT_LENGTH, v)
}

/// `:status 200`, text/plain, content-length 6.
fn ok_block() -> Vec<u8> {
    [indexed(STATUS_200), content_type(), length(b"6")].concat()
}

/// The OK block with one more field after its own.
fn ok_and(field: Vec<u8>) -> Vec<u8> {
    [ok_block(), field].concat()
}

/// `:status` of this value, as a literal.
fn status(v: &[u8]) -> Vec<u8> {
    lit(STATUS_200, v)
}

/// `id, rfc, description, |b| build;` for each variant, in `--mutate` order.
macro_rules! h2_catalogue {
    ($($id:literal, $rfc:literal, $desc:literal, |$b:ident| $build:expr;)*) => {
        /// Every HTTP/2 variant's id, one per line, in `--mutate` order.
        pub(super) const IDS: &str = concat!($($id, "\n"),*);
        /// The number of HTTP/2 variants.
        pub const COUNT: usize = [$($id),*].len();
        /// What each HTTP/2 variant breaks, in `--mutate` order.
        pub static ABOUT: [About; COUNT] = [$(About { description: $desc, rfc: $rfc }),*];
        /// How each is built.
        static BUILD: [fn(&mut B); COUNT] = [$(|$b: &mut B| $build),*];
    };
}

// Every HTTP/2 variant. Ids never change meaning; new ones are added at the end.
h2_catalogue! {
    "h2-valid", "RFC 9113 §8.1",
        "a well-formed response: HEADERS (:status 200, content-length 6) and DATA with END_STREAM (legal; the control)",
        |b| b.ok(S);
    "h2-frame-too-large", "RFC 9113 §4.2",
        "a DATA frame of 16,385 bytes, over the SETTINGS_MAX_FRAME_SIZE of 16,384 a client starts with",
        |b| {
            b.headers(0, S, &[indexed(STATUS_200), length(b"16385")].concat());
            b.data(flag::END_STREAM, S, &[b'x'; 16_385]);
            b.close();
        };
    "h2-headers-stream-0", "RFC 9113 §6.2",
        "the response HEADERS (with END_STREAM) on stream 0",
        |b| {
            b.headers(flag::END_STREAM, Sid::Id(0), &ok_block());
            b.close();
        };
    "h2-data-stream-0", "RFC 9113 §6.1",
        "HEADERS on the stream, then its DATA on stream 0",
        |b| {
            b.headers(0, S, &ok_block());
            b.data(flag::END_STREAM, Sid::Id(0), BODY);
            b.close();
        };
    "h2-data-before-headers", "RFC 9113 §8.1",
        "a DATA frame before the response's HEADERS, then the whole response",
        |b| {
            b.data(0, S, BODY);
            b.ok(S);
        };
    "h2-data-pad-too-long", "RFC 9113 §6.1",
        "DATA with PADDED whose pad length 200 exceeds its 7-byte payload",
        |b| {
            b.headers(0, S, &ok_block());
            b.frame(kind::DATA, flag::PADDED | flag::END_STREAM, S, &[&[200u8][..], BODY].concat());
            b.close();
        };
    "h2-headers-pad-too-long", "RFC 9113 §6.2",
        "HEADERS with PADDED whose pad length 255 exceeds its payload",
        |b| {
            let p = [&[255u8][..], &ok_block()].concat();
            b.frame(kind::HEADERS, flag::PADDED | flag::END_HEADERS, S, &p);
            b.data(flag::END_STREAM, S, BODY);
            b.close();
        };
    "h2-data-after-end-stream", "RFC 9113 §5.1, §6.1",
        "the whole response, then another DATA frame on the stream it ended",
        |b| {
            b.ok(S);
            b.data(flag::END_STREAM, S, b"extra\n");
            b.close();
        };
    "h2-no-end-stream", "RFC 9113 §8.1",
        "HEADERS and DATA without END_STREAM, then close: an incomplete stream",
        |b| {
            b.headers(0, S, &ok_block());
            b.data(0, S, BODY);
            b.close();
        };
    "h2-cl-too-long", "RFC 9113 §8.1.1",
        "content-length 100 with 6 bytes of DATA and END_STREAM",
        |b| b.with_block(&[indexed(STATUS_200), content_type(), length(b"100")].concat());
    "h2-cl-too-short", "RFC 9113 §8.1.1",
        "content-length 2 with 6 bytes of DATA",
        |b| b.with_block(&[indexed(STATUS_200), content_type(), length(b"2")].concat());
    "h2-goaway-mid-response", "RFC 9113 §6.8",
        "HEADERS and half the DATA, GOAWAY NO_ERROR with last stream 0 (the stream was not processed), the rest, then close",
        |b| {
            b.headers(0, S, &ok_block());
            b.data(0, S, b"hel");
            b.frame(kind::GOAWAY, 0, Sid::Id(0), &[0, 0, 0, 0, 0, 0, 0, 0]);
            b.data(flag::END_STREAM, S, b"lo\n");
            b.close();
        };
    "h2-rst-stream-0", "RFC 9113 §6.4",
        "RST_STREAM CANCEL on stream 0, then the response",
        |b| {
            b.frame(kind::RST_STREAM, 0, Sid::Id(0), &8u32.to_be_bytes());
            b.ok(S);
            b.close();
        };
    "h2-settings-enable-push", "RFC 9113 §6.5.2",
        "SETTINGS with SETTINGS_ENABLE_PUSH 2 (a server may send no value but 0), then the response",
        |b| {
            b.settings(setting::ENABLE_PUSH, 2);
            b.ok(S);
            b.close();
        };
    "h2-settings-window-too-large", "RFC 9113 §6.5.2",
        "SETTINGS with SETTINGS_INITIAL_WINDOW_SIZE 2^31, over 2^31-1, then the response",
        |b| {
            b.settings(setting::INITIAL_WINDOW_SIZE, 1 << 31);
            b.ok(S);
            b.close();
        };
    "h2-settings-frame-size-too-small", "RFC 9113 §6.5.2",
        "SETTINGS with SETTINGS_MAX_FRAME_SIZE 16,383, under 16,384, then the response",
        |b| {
            b.settings(setting::MAX_FRAME_SIZE, 16_383);
            b.ok(S);
            b.close();
        };
    "h2-settings-ack-with-payload", "RFC 9113 §6.5",
        "a SETTINGS ACK with a 6-byte payload, then the response",
        |b| {
            b.frame(kind::SETTINGS, flag::ACK, Sid::Id(0), &[0, 3, 0, 0, 0, 100]);
            b.ok(S);
            b.close();
        };
    "h2-settings-bad-length", "RFC 9113 §6.5",
        "SETTINGS of 5 bytes, not a multiple of 6, then the response",
        |b| {
            b.frame(kind::SETTINGS, 0, Sid::Id(0), &[0, 3, 0, 0, 100]);
            b.ok(S);
            b.close();
        };
    "h2-settings-on-stream", "RFC 9113 §6.5",
        "SETTINGS on the request's stream instead of stream 0, then the response",
        |b| {
            b.frame(kind::SETTINGS, 0, S, &[0, 3, 0, 0, 0, 100]);
            b.ok(S);
            b.close();
        };
    "h2-ping-bad-length", "RFC 9113 §6.7",
        "a PING of 7 bytes, not 8, then the response",
        |b| {
            b.frame(kind::PING, 0, Sid::Id(0), b"canned!");
            b.ok(S);
            b.close();
        };
    "h2-ping-on-stream", "RFC 9113 §6.7",
        "a PING on the request's stream instead of stream 0, then the response",
        |b| {
            b.frame(kind::PING, 0, S, b"canned!!");
            b.ok(S);
            b.close();
        };
    "h2-push-promise", "RFC 9113 §6.6, §8.4",
        "PUSH_PROMISE of stream 2 (GET /) on the request's stream, then the response: an error where the client sent SETTINGS_ENABLE_PUSH 0",
        |b| {
            let block = [indexed(METHOD_GET), indexed(SCHEME_HTTP), indexed(PATH_SLASH), lit(1, b"localhost")].concat();
            b.frame(kind::PUSH_PROMISE, flag::END_HEADERS, S, &[&2u32.to_be_bytes()[..], &block].concat());
            b.ok(S);
            b.close();
        };
    "h2-even-stream", "RFC 9113 §5.1.1",
        "the whole response on the even stream after the request's, which the server never opened",
        |b| {
            b.ok(Sid::Req(1));
            b.close();
        };
    "h2-continuation-without-headers", "RFC 9113 §6.10",
        "the header block in a CONTINUATION frame with no HEADERS before it, then DATA",
        |b| {
            b.frame(kind::CONTINUATION, flag::END_HEADERS, S, &ok_block());
            b.data(flag::END_STREAM, S, BODY);
            b.close();
        };
    "h2-frame-inside-header-block", "RFC 9113 §4.3, §6.10",
        "HEADERS without END_HEADERS, a PING, then the CONTINUATION that ends the block",
        |b| {
            let block = ok_block();
            b.frame(kind::HEADERS, 0, S, &block[..1]);
            b.frame(kind::PING, 0, Sid::Id(0), b"canned!!");
            b.frame(kind::CONTINUATION, flag::END_HEADERS, S, &block[1..]);
            b.data(flag::END_STREAM, S, BODY);
            b.close();
        };
    "h2-window-update-zero", "RFC 9113 §6.9",
        "WINDOW_UPDATE of increment 0 on stream 0, then the response",
        |b| {
            b.frame(kind::WINDOW_UPDATE, 0, Sid::Id(0), &0u32.to_be_bytes());
            b.ok(S);
            b.close();
        };
    "h2-window-update-zero-stream", "RFC 9113 §6.9",
        "WINDOW_UPDATE of increment 0 on the request's stream (a stream error), then the response",
        |b| {
            b.frame(kind::WINDOW_UPDATE, 0, S, &0u32.to_be_bytes());
            b.ok(S);
        };
    "h2-window-overflow", "RFC 9113 §6.9.1",
        "WINDOW_UPDATE of 2^31-1 on stream 0: the client's send window passes 2^31-1; then the response",
        |b| {
            b.frame(kind::WINDOW_UPDATE, 0, Sid::Id(0), &MAX_WINDOW.to_be_bytes());
            b.ok(S);
            b.close();
        };
    "h2-window-overflow-stream", "RFC 9113 §6.9.1",
        "WINDOW_UPDATE of 2^31-1 on the request's stream: its send window passes 2^31-1; then the response",
        |b| {
            b.frame(kind::WINDOW_UPDATE, 0, S, &MAX_WINDOW.to_be_bytes());
            b.ok(S);
        };
    "h2-hpack-index-out-of-range", "RFC 7541 §2.3.3",
        "an indexed field of index 200, past the static table and the empty dynamic table",
        |b| {
            b.with_block(&[indexed(STATUS_200), indexed(200), content_type()].concat());
            b.close();
        };
    "h2-hpack-index-zero", "RFC 7541 §6.1",
        "an indexed field of index 0, which is not used",
        |b| {
            b.with_block(&ok_and(indexed(0)));
            b.close();
        };
    "h2-huffman-bad-padding", "RFC 7541 §5.2",
        "a Huffman-coded value (a) whose padding bits are 0s, not the EOS prefix",
        |b| {
            b.with_block(&ok_and(vec![0, 1, b'x', 0x81, 0x18]));
            b.close();
        };
    "h2-huffman-padding-too-long", "RFC 7541 §5.2",
        "a Huffman-coded value (a) followed by 11 bits of padding, over 7",
        |b| {
            b.with_block(&ok_and(vec![0, 1, b'x', 0x82, 0x1f, 0xff]));
            b.close();
        };
    "h2-huffman-eos", "RFC 7541 §5.2",
        "a Huffman-coded value holding the EOS symbol (30 bits of 1s)",
        |b| {
            b.with_block(&ok_and(vec![0, 1, b'x', 0x84, 0xff, 0xff, 0xff, 0xff]));
            b.close();
        };
    "h2-hpack-table-size-over", "RFC 7541 §4.2, §6.3",
        "a dynamic table size update to 8,192, over the SETTINGS_HEADER_TABLE_SIZE of 4,096",
        |b| {
            b.with_block(&[int(5, 0x20, 8192), ok_block()].concat());
            b.close();
        };
    "h2-hpack-table-size-late", "RFC 7541 §4.2",
        "a dynamic table size update after the first field of the block",
        |b| {
            b.with_block(&[indexed(STATUS_200), int(5, 0x20, 0), content_type(), length(b"6")].concat());
            b.close();
        };
    "h2-hpack-integer-overflow", "RFC 7541 §5.1",
        "an index encoded as an integer of 2^63 and more (ten continuation bytes)",
        |b| {
            let mut i = vec![0xff];
            i.extend_from_slice(&[0xff; 9]);
            i.push(0x7f);
            b.with_block(&ok_and(i));
            b.close();
        };
    "h2-hpack-string-past-end", "RFC 7541 §5.2",
        "a literal whose value length (100) runs past the end of the block",
        |b| {
            b.with_block(&ok_and(vec![0, 1, b'x', 100, b'a', b'b']));
            b.close();
        };
    "h2-status-twice", "RFC 9113 §8.3",
        "two :status fields",
        |b| b.with_block(&[indexed(STATUS_200), ok_block()].concat());
    "h2-status-missing", "RFC 9113 §8.3.2",
        "no :status field",
        |b| b.with_block(&[content_type(), length(b"6")].concat());
    "h2-status-two-digits", "RFC 9113 §8.3.2, RFC 9110 §15",
        ":status 20: not 3 digits",
        |b| b.with_block(&[status(b"20"), content_type(), length(b"6")].concat());
    "h2-status-letters", "RFC 9113 §8.3.2, RFC 9110 §15",
        ":status abc",
        |b| b.with_block(&[status(b"abc"), content_type(), length(b"6")].concat());
    "h2-status-after-regular", "RFC 9113 §8.3",
        ":status after a regular field (content-type)",
        |b| b.with_block(&[content_type(), indexed(STATUS_200), length(b"6")].concat());
    "h2-request-pseudo", "RFC 9113 §8.3",
        "a request pseudo-header (:path /) in the response",
        |b| b.with_block(&[indexed(STATUS_200), indexed(PATH_SLASH), content_type(), length(b"6")].concat());
    "h2-unknown-pseudo", "RFC 9113 §8.3",
        "an undefined pseudo-header (:x 1)",
        |b| b.with_block(&[indexed(STATUS_200), lit_name(b":x", b"1"), content_type(), length(b"6")].concat());
    "h2-header-uppercase", "RFC 9113 §8.2.1",
        "a field name with uppercase letters (X-Upper)",
        |b| b.with_block(&ok_and(lit_name(b"X-Upper", b"1")));
    "h2-header-name-space", "RFC 9113 §8.2.1",
        "a field name with a space in it (x bad)",
        |b| b.with_block(&ok_and(lit_name(b"x bad", b"1")));
    "h2-header-value-crlf", "RFC 9113 §8.2.1",
        "a field value holding CR LF (x-bad: a CR LF x-injected: 1)",
        |b| b.with_block(&ok_and(lit_name(b"x-bad", b"a\r\nx-injected: 1")));
    "h2-header-connection", "RFC 9113 §8.2.2",
        "a connection-specific field: connection: close",
        |b| b.with_block(&ok_and(lit_name(b"connection", b"close")));
    "h2-header-transfer-encoding", "RFC 9113 §8.2.2",
        "a connection-specific field: transfer-encoding: chunked (with the DATA not chunked)",
        |b| b.with_block(&ok_and(lit(TRANSFER_ENCODING, b"chunked")));
    "h2-header-keep-alive", "RFC 9113 §8.2.2",
        "a connection-specific field: keep-alive: timeout=5",
        |b| b.with_block(&ok_and(lit_name(b"keep-alive", b"timeout=5")));
    "h2-1xx-then-200", "RFC 9113 §8.1",
        "an interim :status 100 HEADERS before the final response (legal)",
        |b| {
            b.headers(0, S, &status(b"100"));
            b.ok(S);
        };
    "h2-1xx-end-stream", "RFC 9113 §8.1",
        "a :status 100 HEADERS with END_STREAM: an interim response that ends the stream",
        |b| b.headers(flag::END_STREAM, S, &status(b"100"));
    "h2-1xx-after-final", "RFC 9113 §8.1",
        "HEADERS :status 200, then HEADERS :status 100 without END_STREAM, then the DATA",
        |b| {
            b.headers(0, S, &ok_block());
            b.headers(0, S, &status(b"100"));
            b.data(flag::END_STREAM, S, BODY);
        };
    "h2-trailers-pseudo", "RFC 9113 §8.1",
        "the response, then trailers holding :status 200",
        |b| {
            b.headers(0, S, &ok_block());
            b.data(0, S, BODY);
            b.headers(flag::END_STREAM, S, &indexed(STATUS_200));
        };
    "h2-trailers-no-end-stream", "RFC 9113 §8.1",
        "the response, then a trailers HEADERS without END_STREAM, then close",
        |b| {
            b.headers(0, S, &ok_block());
            b.data(0, S, BODY);
            b.headers(0, S, &lit_name(b"x-trailer", b"1"));
            b.close();
        };
    "h2-204-with-data", "RFC 9113 §8.1.1, RFC 9110 §15.3.5",
        ":status 204 followed by 6 bytes of DATA",
        |b| {
            b.headers(0, S, &[indexed(STATUS_204), content_type()].concat());
            b.data(flag::END_STREAM, S, BODY);
        };
}
