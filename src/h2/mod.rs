//! HTTP/2 over cleartext (RFC 9113): one connection's life as a state machine, without
//! sockets, beside `h1` and driven by the loop through the same [`Connection`](crate::conn::Connection) calls.
//!
//! The connection checks the preface, sends its SETTINGS ([`SETTINGS`]), acknowledges and
//! applies the peer's, reads frames (`crate::frame`), decodes each request's header block with
//! `crate::hpack` (HEADERS and its CONTINUATION frames), checks it against §8.2 and §8.3
//! (`fields`), and answers it with the route the `response` layer picks for HTTP/1 (its
//! method and path, `--methods`, `--health`, the counter routes): the route's head, turned
//! into an HPACK block of static indexes and literals without indexing, then its body in DATA
//! frames within the peer's windows and [`SEND_FRAME_MAX`]. A request's body is
//! discarded as it arrives (kept, within bounds, when its route echoes: `echo`) and its
//! window given back at once; the request is answered at its
//! END_STREAM. PING is acknowledged, PRIORITY and unknown frames ignored, a RST_STREAM ends its
//! stream, and a connection error sends GOAWAY with the RFC's code, then closes. At a drain,
//! GOAWAY with the last stream id, then the streams in flight are finished.
//!
//! Memory, bounded per connection (all of it taken at the preface, in one [`Box`] whose
//! buffers keep their capacity: no allocation per request once they have grown):
//! - input: a partial frame (at most 9 + [`MAX_FRAME_SIZE`] bytes), or the rest of one read
//!   held back while output is over [`OUT_HIGH`];
//! - output: [`OUT_HIGH`] plus one frame, and the control frames answering one read;
//! - a header block: at most [`MAX_BLOCK`] bytes; the HPACK table its 4,096 bytes, the
//!   Huffman scratch [`MAX_HEADER_LIST_SIZE`];
//! - streams: at most [`MAX_CONCURRENT_STREAMS`] entries; one more is refused (RST_STREAM
//!   REFUSED_STREAM); with `--access-log`, under 300 bytes each of their method and path.
//!
//! By concern: `fields` (the request's fields checked, the response head encoded), `flood`
//! (the budgets against floods, and a request body that never comes), `faults` (`--fault` and
//! `--delay` per stream) and `shape` (what they keep), `heads` (the HEADERS preformatted at
//! start-up), `grpc` (`--grpc-health`), `mutate` (the catalogue), `upgrade` (a connection
//! from HTTP/1.1's `Upgrade: h2c`), `log` and `limits` (the access log per stream, HTTP/1's
//! limits per stream and per connection), `echo` and `kept` (`--echo` and `--journal`: a
//! request kept, echoed, recorded; the journal read), `control` (`--control`: the answer a
//! request chose). Those three are built with their cargo features (`echo`, `journal`,
//! `control`), and so are the state and the calls that serve them alone.
//! The connection itself: `calls` (the calls of the loop, its timers),
//! `read` (the preface, frames cut and dispatched), `flow` (DATA and the windows, the peer's
//! SETTINGS), `request` (a header block decoded, its stream opened and answered), `write`
//! (control frames, the HEADERS and DATA pump), `close` (GOAWAY, RST_STREAM, bodies that
//! never come), and this file (the limits advertised, the connection's and streams' state).

mod calls;
mod close;
mod closed;
mod conform;
#[cfg(feature = "control")]
mod control;
#[cfg(feature = "echo")]
mod echo;
mod faults;
mod fields;
mod flood;
mod flow;
mod grpc;
mod heads;
#[cfg(feature = "echo")]
mod kept;
mod limits;
mod log;
mod mutate;
mod read;
mod request;
mod shape;
#[cfg(test)]
mod tests;
mod upgrade;
mod write;

pub use heads::{H2Head, Heads, preformat};

use crate::conn::{Pooled, Settings};
use crate::frame::{DEFAULT_WINDOW, ErrorCode, FrameError, HEADER_LEN, kind, setting};
use crate::hpack::Decoder;
use crate::parser::Rule;
use fields::RequestFields;

/// The environment of an HTTP/2 connection's calls: the loop's, whatever its pool lends (`W`:
/// HTTP/2 borrows nothing from it).
pub type Env<'a, W> = crate::conn::Env<'a, W>;

/// SETTINGS_MAX_CONCURRENT_STREAMS advertised, and enforced.
pub const MAX_CONCURRENT_STREAMS: u32 = 100;
/// SETTINGS_INITIAL_WINDOW_SIZE advertised: each stream's receive window.
pub const INITIAL_WINDOW_SIZE: u32 = DEFAULT_WINDOW;
/// SETTINGS_MAX_FRAME_SIZE advertised: the largest frame payload read.
pub const MAX_FRAME_SIZE: u32 = 16_384;
/// SETTINGS_HEADER_TABLE_SIZE advertised: the HPACK decoder's table.
pub const HEADER_TABLE_SIZE: u32 = 4_096;
/// SETTINGS_MAX_HEADER_LIST_SIZE advertised: the decoded fields of one block, counted as
/// RFC 9113 §6.5.2 does.
pub const MAX_HEADER_LIST_SIZE: u32 = 16_384;
/// The largest header block (HEADERS and its CONTINUATION frames) read: a longer one ends the
/// connection with ENHANCE_YOUR_CALM.
pub const MAX_BLOCK: usize = 32 * 1024;
/// Output is filled with DATA up to this much pending, and no frame is read past it.
pub const OUT_HIGH: usize = 64 * 1024;
/// The largest frame canned sends, whatever SETTINGS_MAX_FRAME_SIZE the peer allows (RFC 9113
/// §4.2: a sender may always send smaller frames). 16 KiB is the initial value, which every
/// peer must accept, and what canned reads ([`MAX_FRAME_SIZE`]): the output then holds at most
/// [`OUT_HIGH`] and one such frame, where a peer allowing 16 MiB frames with large windows
/// would otherwise have one 16 MiB frame built for it. Its 9-byte header costs 0.05%; nginx
/// sends 8 KiB pieces.
pub const SEND_FRAME_MAX: u32 = 16_384;

/// The server's SETTINGS frame, sent first (§3.4).
pub const SETTINGS: [u8; HEADER_LEN + 30] = {
    let mut f = [0u8; HEADER_LEN + 30];
    f[2] = 30;
    f[3] = kind::SETTINGS;
    let params = [
        (setting::MAX_CONCURRENT_STREAMS, MAX_CONCURRENT_STREAMS),
        (setting::INITIAL_WINDOW_SIZE, INITIAL_WINDOW_SIZE),
        (setting::MAX_FRAME_SIZE, MAX_FRAME_SIZE),
        (setting::HEADER_TABLE_SIZE, HEADER_TABLE_SIZE),
        (setting::MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST_SIZE),
    ];
    let mut i = 0;
    while i < params.len() {
        let at = HEADER_LEN + 6 * i;
        let id = params[i].0.to_be_bytes();
        let v = params[i].1.to_be_bytes();
        f[at] = id[0];
        f[at + 1] = id[1];
        f[at + 2] = v[0];
        f[at + 3] = v[1];
        f[at + 4] = v[2];
        f[at + 5] = v[3];
        i += 1;
    }
    f
};

/// No head is being waited for (`State::head_since_us`).
const NO_HEAD: u64 = u64::MAX;

/// An empty work area: what a pool lends to an HTTP/2 connection driven without a worker (the
/// tests). HTTP/2 borrows nothing from any pool (its buffers are its own, taken once at the
/// preface), and takes whatever environment it is given.
#[derive(Debug)]
pub struct NoWork;

impl Pooled for NoWork {
    fn new(_: &Settings) -> NoWork {
        NoWork
    }
    fn renew(&mut self, _: &Settings) {}
    fn reset(&mut self) {}
    fn shed(&mut self) {}
    fn capacity(&self) -> usize {
        0
    }
}

/// One HTTP/2 connection. See the module documentation.
#[derive(Debug)]
pub struct Http2Conn {
    st: Box<State>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Reading the client preface, then its SETTINGS.
    Preface,
    Open,
    /// A GOAWAY for an error is queued: read nothing more, close once written.
    Closing,
    /// The write side is shut: discard input for a while, then close.
    Lingering,
}

/// What a stream is answered with in its route's stead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Own {
    /// Its route's response.
    Route,
    /// canned's error for a limit the request went past (413, 431): its body names it.
    Refused(Rule),
    /// The echo of its request, the journal, or the answer its control chose, from its slot
    /// (`echo`, `control`).
    #[cfg(feature = "echo")]
    Kept,
}

/// A stream the client opened and canned has not finished answering.
#[derive(Clone, Copy, Debug)]
struct Stream {
    id: u32,
    /// Its request's END_STREAM came: it is answered.
    answering: bool,
    headers_sent: bool,
    route: u16,
    head_only: bool,
    /// Body bytes sent.
    at: usize,
    /// The peer's receive window for it (may go negative after a SETTINGS change, §6.9.2).
    window: i64,
    /// Its receive window as the peer sees it.
    recv_window: i64,
    /// A gRPC health call (`--grpc-health`), answered instead of the route.
    grpc: grpc::Call,
    /// Body bytes received (`--max-body-bytes`).
    received: u64,
    /// What it is answered instead of its route's response, if anything (`limits`, `echo`,
    /// `control`).
    error: Own,
    /// Answered before its request's END_STREAM (a 413, a 431, CONNECT's 405): once the
    /// answer is sent, RST_STREAM NO_ERROR asks the client to send no more (§8.1), and its
    /// DATA until then is discarded (`limits`).
    early: bool,
    /// When its HEADERS or its last DATA came (`flood`: a body that never comes).
    last_us: u64,
    /// Its answer as its faults or `--delay` shape it (`faults`); `None`: plain.
    fault: Option<shape::Shaped>,
    /// Its request body against its content-length.
    length: conform::BodyLength,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// Bytes of the preface matched so far.
    preface_at: usize,
    /// The peer's first SETTINGS came (it must be the first frame, §3.4).
    peer_settings: bool,
    input: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    decoder: Decoder,
    scratch: Vec<u8>,
    /// A header block being gathered (HEADERS, then CONTINUATION frames).
    block: Vec<u8>,
    /// Its stream (0: none open; then any frame but its CONTINUATION is an error, §6.10).
    block_stream: u32,
    block_end_stream: bool,
    /// Its HEADERS named its own stream as its dependency: the stream is reset once the block
    /// is decoded (§5.3.1, §4.3).
    block_depends_on_itself: bool,
    fields: RequestFields,
    /// The route's HTTP/1 head, to encode.
    head: Vec<u8>,
    /// The encoded header block of a response.
    encoded: Vec<u8>,
    streams: Vec<Stream>,
    /// The highest stream the client opened.
    last_stream: u32,
    /// The streams it skipped below it.
    skipped: conform::Skipped,
    /// The streams canned reset lately, whose frames in flight are ignored (`closed`).
    reset_by_us: closed::ResetByUs,
    /// The peer's SETTINGS_INITIAL_WINDOW_SIZE, and its SETTINGS_MAX_FRAME_SIZE capped at
    /// [`SEND_FRAME_MAX`].
    peer_initial_window: u32,
    peer_max_frame: u32,
    /// The connection's send window.
    window: i64,
    /// The connection's receive window as the peer sees it.
    recv_window: i64,
    /// A GOAWAY was sent: no new stream is answered.
    goaway_sent: bool,
    eof: bool,
    active_us: u64,
    /// When the head the connection waits for began (µs; [`NO_HEAD`]: none): the preface
    /// and SETTINGS from the accept, a header block from the read that brought the first byte
    /// of its HEADERS frame (or of a frame whose 9-byte header is not whole yet) until its
    /// END_HEADERS. `--header-timeout` bounds it as HTTP/1's heads: input does not refresh it.
    head_since_us: u64,
    out_since_us: u64,
    served: u32,
    /// Streams opened and taken (`--max-requests`, `limits`).
    opened: u32,
    linger_left: usize,
    /// `--access-log`: the streams' words until they are answered (`log`).
    held_log: Vec<u8>,
    flood: flood::Flood,
    faults: shape::ConnFaults,
    /// `--echo`, `--journal` and `--control`: the requests kept, and their answers (`echo`).
    #[cfg(feature = "echo")]
    echo: kept::Kept,
}

/// What the tests measure.
impl Http2Conn {
    /// Streams open or being answered.
    pub fn streams(&self) -> usize {
        self.st.streams.len()
    }

    /// Bytes held by the connection's buffers (their capacity).
    pub fn buffered(&self) -> usize {
        let s = &*self.st;
        std::mem::size_of::<State>()
            + s.input.capacity()
            + s.out.capacity()
            + s.scratch.capacity()
            + s.block.capacity()
            + s.head.capacity()
            + s.encoded.capacity()
            + s.fields.method.capacity()
            + s.fields.path.capacity()
            + s.streams.capacity() * std::mem::size_of::<Stream>()
            + s.kept_capacity()
    }
}

/// An error found while reading frames: the connection's (GOAWAY) or one stream's
/// (RST_STREAM).
type Failed = FrameError;

fn conn_error(code: ErrorCode) -> Failed {
    FrameError { code, stream: None }
}

fn stream_error(code: ErrorCode, stream: u32) -> Failed {
    FrameError {
        code,
        stream: Some(stream),
    }
}

impl State {
    fn pending_out(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// The earliest time an answer held in a slot is due (µs; `u64::MAX`: none held, and
    /// always without `echo`).
    #[inline(always)]
    fn kept_due(&self) -> u64 {
        #[cfg(feature = "echo")]
        return self.echo.due();
        #[cfg(not(feature = "echo"))]
        u64::MAX
    }

    /// The capacity of the fields' lines and the slots' buffers (`echo`; what the tests
    /// measure).
    fn kept_capacity(&self) -> usize {
        #[cfg(feature = "echo")]
        return self.fields.lines.capacity() + self.echo.capacity();
        #[cfg(not(feature = "echo"))]
        0
    }
}

impl Own {
    /// Whether the stream is answered from its slot (never without `echo`).
    #[inline(always)]
    fn kept(self) -> bool {
        #[cfg(feature = "echo")]
        return self == Own::Kept;
        #[cfg(not(feature = "echo"))]
        false
    }
}
