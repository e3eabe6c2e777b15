//! HTTP/2 over cleartext (RFC 9113): one connection's life as a state machine, without
//! sockets, beside `h1` and driven by the loop through the same [`Connection`] calls.
//!
//! The connection checks the preface, sends its SETTINGS ([`SETTINGS`]), acknowledges and
//! applies the peer's, reads frames (`crate::frame`), decodes each request's header block with
//! `crate::hpack` (HEADERS and its CONTINUATION frames), checks it against §8.2 and §8.3
//! (`fields`), and answers it with the route the `response` layer picks for HTTP/1 (its
//! method and path, `--methods`, `--health`, the counter routes): the route's head, turned
//! into an HPACK block of static indexes and literals without indexing, then its body in DATA
//! frames within the peer's windows and [`SEND_FRAME_MAX`]. A request's body is
//! discarded as it arrives and its window given back at once; the request is answered at its
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
//! limits per stream and per connection), `unserved` (what HTTP/2 answers 501: `--echo`, the
//! journal, `--control`), this file (the frames, the streams, the calls of the loop).

mod closed;
mod conform;
mod faults;
mod fields;
mod flood;
mod grpc;
mod heads;
mod limits;
mod log;
mod mutate;
mod shape;
#[cfg(test)]
mod tests;
mod unserved;
mod upgrade;

pub use heads::preformat;

use crate::conn::{Connection, LINGER_BYTES, LINGER_US, Next, Pool, Pooled, Settings};
use crate::frame::{
    DEFAULT_WINDOW, ErrorCode, Frame, FrameError, HEADER_LEN, Header, MAX_WINDOW, PREFACE, Sniffed,
    flag, kind, setting,
};
use crate::hpack::Decoder;
use crate::parser::Rule;
use crate::response::{KeepAliveForm, Responses};
use crate::stats::Timeout;
use fields::{RequestFields, encode_head};

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
    /// What HTTP/2 does not serve (501, `unserved`).
    Unserved,
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
    /// What it is answered instead of its route's response, if anything (`limits`,
    /// `unserved`).
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
}

/// The calls of the loop ([`Connection`]).
impl Http2Conn {
    /// [`Connection::new`].
    pub fn new(now_us: u64) -> Http2Conn {
        let mut out = Vec::with_capacity(OUT_HIGH / 4);
        out.extend_from_slice(&SETTINGS);
        Http2Conn {
            st: Box::new(State {
                phase: Phase::Preface,
                preface_at: 0,
                peer_settings: false,
                input: Vec::new(),
                out,
                out_pos: 0,
                decoder: Decoder::new(HEADER_TABLE_SIZE as usize)
                    .max_header_list_size(MAX_HEADER_LIST_SIZE as usize),
                scratch: vec![0; MAX_HEADER_LIST_SIZE as usize],
                block: Vec::new(),
                block_stream: 0,
                block_end_stream: false,
                block_depends_on_itself: false,
                fields: RequestFields::default(),
                head: Vec::new(),
                encoded: Vec::new(),
                streams: Vec::with_capacity(MAX_CONCURRENT_STREAMS as usize),
                last_stream: 0,
                skipped: conform::Skipped::default(),
                reset_by_us: closed::ResetByUs::default(),
                peer_initial_window: DEFAULT_WINDOW,
                peer_max_frame: crate::frame::MIN_MAX_FRAME_SIZE,
                window: DEFAULT_WINDOW as i64,
                recv_window: DEFAULT_WINDOW as i64,
                goaway_sent: false,
                eof: false,
                active_us: now_us,
                head_since_us: now_us,
                out_since_us: now_us,
                served: 0,
                opened: 0,
                linger_left: 0,
                held_log: Vec::new(),
                flood: flood::Flood::new(now_us),
                faults: shape::ConnFaults::default(),
            }),
        }
    }

    /// [`Connection::on_data`].
    pub fn on_data<W>(&mut self, data: &[u8], env: &mut Env<'_, W>) {
        let s = &mut *self.st;
        env.stats.bytes_in += data.len() as u64;
        s.active_us = env.now_us;
        match s.phase {
            Phase::Lingering => {
                s.linger_left = s.linger_left.saturating_sub(data.len());
                return;
            }
            Phase::Closing => return,
            _ => {}
        }
        if s.phase == Phase::Preface && s.preface_at == 0 {
            s.advertise(env);
        }
        if s.input.is_empty() {
            let used = s.process(data, env);
            s.input.extend_from_slice(&data[used..]);
        } else {
            s.input.extend_from_slice(data);
            s.resume(env);
        }
        s.after(env);
    }

    /// [`Connection::on_eof`].
    pub fn on_eof(&mut self) {
        self.st.eof = true;
    }

    /// [`Connection::output`].
    pub fn output(&self) -> &[u8] {
        &self.st.out[self.st.out_pos..]
    }

    /// [`Connection::wrote`].
    pub fn wrote<W>(&mut self, n: usize, env: &mut Env<'_, W>) {
        let s = &mut *self.st;
        env.stats.bytes_out += n as u64;
        if n > 0 {
            s.active_us = env.now_us;
            s.out_since_us = env.now_us;
            s.flood.wrote();
        }
        s.out_pos += n;
        if s.out_pos == s.out.len() {
            s.out.clear();
            s.out_pos = 0;
        } else if s.out_pos >= OUT_HIGH / 2 {
            s.out.drain(..s.out_pos);
            s.out_pos = 0;
        }
        s.wrote_shaped(env.now_us);
        if matches!(s.phase, Phase::Open | Phase::Preface) {
            if !s.input.is_empty() && s.pending_out() < OUT_HIGH {
                s.resume(env);
            }
            s.after(env);
        }
    }

    /// [`Connection::wants_read`].
    pub fn wants_read(&self) -> bool {
        let s = &*self.st;
        match s.phase {
            Phase::Preface | Phase::Open => {
                !s.eof
                    && s.pending_out() < OUT_HIGH
                    && s.input.len() <= HEADER_LEN + MAX_FRAME_SIZE as usize
            }
            Phase::Lingering => !s.eof && s.linger_left > 0,
            Phase::Closing => false,
        }
    }

    /// [`Connection::next`].
    pub fn next(&self) -> Next {
        let s = &*self.st;
        let flushed = s.pending_out() == 0;
        match s.phase {
            Phase::Closing if flushed && s.faults.reset => Next::Reset,
            Phase::Closing if flushed => Next::Close { linger: true },
            Phase::Lingering if s.eof || s.linger_left == 0 => Next::Close { linger: false },
            Phase::Open | Phase::Preface if flushed && s.eof => Next::Close { linger: false },
            _ => Next::Continue,
        }
    }

    /// [`Connection::wake_at`].
    pub fn wake_at(&self, settings: &Settings) -> Option<u64> {
        let s = &*self.st;
        let t = &settings.timeouts;
        // A held stream's deadline or a fault's close (`faults`); while one holds, no idle
        // timeout.
        let timed = match s.phase {
            Phase::Open => s.faults.wake_at(),
            _ => u64::MAX,
        };
        let head = s.head_since_us.saturating_add(t.header_us);
        Some(
            match s.phase {
                Phase::Lingering => s.active_us + LINGER_US,
                Phase::Preface => head,
                _ if s.pending_out() > 0 => s.out_since_us.saturating_add(t.write_us).min(timed),
                _ if s.faults.holds() => timed.min(flood::body_deadline(s.waiting(), t.idle_us)),
                _ => s
                    .active_us
                    .saturating_add(t.idle_us)
                    .min(flood::body_deadline(s.waiting(), t.idle_us)),
            }
            .min(if s.phase == Phase::Open {
                head
            } else {
                u64::MAX
            }),
        )
    }

    /// [`Connection::on_wake`].
    pub fn on_wake<W>(&mut self, env: &mut Env<'_, W>) -> Next {
        let s = &mut *self.st;
        let now = env.now_us;
        let t = env.settings.timeouts;
        if let Some(n) = s.close_due(now) {
            return n;
        }
        match s.phase {
            Phase::Lingering if now > s.active_us + LINGER_US => Next::Close { linger: false },
            Phase::Preface if now > s.head_since_us.saturating_add(t.header_us) => {
                env.stats.timeouts[Timeout::Header as usize] += 1;
                Next::Close { linger: false }
            }
            Phase::Open if now > s.head_since_us.saturating_add(t.header_us) => {
                // A header block not whole in time: its request cannot be answered, and the
                // frames after it cannot be read. Say which streams were, then close.
                env.stats.timeouts[Timeout::Header as usize] += 1;
                s.head_since_us = NO_HEAD;
                s.goaway(ErrorCode::NoError);
                s.phase = Phase::Closing;
                Next::Continue
            }
            Phase::Open | Phase::Closing
                if s.pending_out() > 0 && now > s.out_since_us.saturating_add(t.write_us) =>
            {
                env.stats.timeouts[Timeout::Write as usize] += 1;
                Next::Close { linger: false }
            }
            Phase::Open
                if s.pending_out() == 0
                    && !s.faults.holds()
                    && now > s.active_us.saturating_add(t.idle_us) =>
            {
                env.stats.timeouts[Timeout::Idle as usize] += 1;
                // Say so before closing (§6.8): no stream is lost that the client may retry.
                s.goaway(ErrorCode::NoError);
                s.phase = Phase::Closing;
                Next::Continue
            }
            _ => {
                s.expire_bodies(env);
                s.after(env);
                Next::Continue
            }
        }
    }

    /// [`Connection::start_lingering`].
    pub fn start_lingering<W>(&mut self, now_us: u64, _: &mut Pool<W>) {
        let s = &mut *self.st;
        s.phase = Phase::Lingering;
        s.linger_left = LINGER_BYTES;
        s.active_us = now_us;
        s.input = Vec::new();
    }

    /// [`Connection::release`].
    pub fn release<W>(&mut self, _: &mut Pool<W>) {}

    /// [`Connection::is_lingering`].
    pub fn is_lingering(&self) -> bool {
        self.st.phase == Phase::Lingering
    }

    /// [`Connection::is_idle`].
    pub fn is_idle(&self) -> bool {
        let s = &*self.st;
        matches!(s.phase, Phase::Open)
            && s.streams.is_empty()
            && s.block_stream == 0
            && s.pending_out() == 0
            && s.input.is_empty()
    }

    /// [`Connection::farewell`].
    pub fn farewell(&mut self) -> &[u8] {
        let s = &mut *self.st;
        if s.phase == Phase::Open && !s.goaway_sent {
            s.goaway(ErrorCode::NoError);
        }
        &s.out[s.out_pos..]
    }

    /// [`Connection::is_held`].
    pub fn is_held(&self) -> bool {
        false
    }

    /// [`Connection::is_silent`].
    pub fn is_silent(&self) -> bool {
        false
    }

    /// [`Connection::last_active_us`].
    pub fn last_active_us(&self) -> u64 {
        self.st.active_us
    }

    /// [`Connection::served`].
    pub fn served(&self) -> u32 {
        self.st.served
    }

    /// [`Connection::responses_held`].
    pub fn responses_held(&self, held: &mut dyn FnMut(usize)) {
        for s in &self.st.streams {
            held(usize::from(s.route));
        }
    }
}

/// HTTP/2 borrows nothing from the worker's pool: it takes the loop's environment as it is,
/// whatever the pool lends. The calls are [`Http2Conn`]'s own, which name no pool.
impl<W: Pooled> Connection<W> for Http2Conn {
    #[inline(always)]
    fn new(now_us: u64) -> Http2Conn {
        Http2Conn::new(now_us)
    }

    #[inline(always)]
    fn on_data(&mut self, data: &[u8], env: &mut Env<'_, W>) {
        Http2Conn::on_data(self, data, env)
    }

    #[inline(always)]
    fn on_eof(&mut self) {
        Http2Conn::on_eof(self)
    }

    #[inline(always)]
    fn output(&self) -> &[u8] {
        Http2Conn::output(self)
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize, env: &mut Env<'_, W>) {
        Http2Conn::wrote(self, n, env)
    }

    #[inline(always)]
    fn wants_read(&self) -> bool {
        Http2Conn::wants_read(self)
    }

    #[inline(always)]
    fn next(&self) -> Next {
        Http2Conn::next(self)
    }

    #[inline(always)]
    fn wake_at(&self, settings: &Settings) -> Option<u64> {
        Http2Conn::wake_at(self, settings)
    }

    #[inline(always)]
    fn on_wake(&mut self, env: &mut Env<'_, W>) -> Next {
        Http2Conn::on_wake(self, env)
    }

    #[inline(always)]
    fn start_lingering(&mut self, now_us: u64, pool: &mut Pool<W>) {
        Http2Conn::start_lingering(self, now_us, pool)
    }

    #[inline(always)]
    fn release(&mut self, pool: &mut Pool<W>) {
        Http2Conn::release(self, pool)
    }

    #[inline(always)]
    fn is_lingering(&self) -> bool {
        Http2Conn::is_lingering(self)
    }

    #[inline(always)]
    fn is_idle(&self) -> bool {
        Http2Conn::is_idle(self)
    }

    #[inline(always)]
    fn farewell(&mut self) -> &[u8] {
        Http2Conn::farewell(self)
    }

    #[inline(always)]
    fn is_held(&self) -> bool {
        Http2Conn::is_held(self)
    }

    #[inline(always)]
    fn is_silent(&self) -> bool {
        Http2Conn::is_silent(self)
    }

    #[inline(always)]
    fn last_active_us(&self) -> u64 {
        Http2Conn::last_active_us(self)
    }

    #[inline(always)]
    fn served(&self) -> u32 {
        Http2Conn::served(self)
    }

    #[inline(always)]
    fn responses_held(&self, held: &mut dyn FnMut(usize)) {
        Http2Conn::responses_held(self, held)
    }
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

    /// Process held-back input.
    fn resume<W>(&mut self, env: &mut Env<'_, W>) {
        let input = std::mem::take(&mut self.input);
        let used = self.process(&input, env);
        let mut input = input;
        input.drain(..used);
        // The old buffer kept its capacity; whatever `process` queued went to `out`.
        self.input = input;
    }

    /// Read the preface and whole frames from `buf`; returns the bytes used (all once the
    /// connection is closing). Stops at a partial frame, or while output is over
    /// [`OUT_HIGH`].
    fn process<W>(&mut self, buf: &[u8], env: &mut Env<'_, W>) -> usize {
        let mut at = 0;
        if self.phase == Phase::Preface && self.preface_at < PREFACE.len() {
            // After `Upgrade: h2c` only (and in the tests): with prior knowledge the loop read
            // the preface to decide on HTTP/2 (`prior_knowledge`). The client must send it
            // after the `101` (RFC 7540 §3.5).
            let before = self.preface_at;
            self.preface_at = match crate::frame::sniff(before, buf) {
                Sniffed::Http2 => PREFACE.len(),
                Sniffed::Undecided(matched) => matched,
                Sniffed::Http1 => {
                    // Not the preface: a protocol error (§3.4).
                    self.goaway(ErrorCode::ProtocolError);
                    return buf.len();
                }
            };
            at = self.preface_at - before;
        }
        while self.phase != Phase::Closing {
            if self.pending_out() >= OUT_HIGH {
                break;
            }
            let Some(h) = Header::parse(&buf[at..]) else {
                break;
            };
            if h.len > MAX_FRAME_SIZE {
                self.fail(conn_error(ErrorCode::FrameSizeError), env);
                break;
            }
            let end = at + HEADER_LEN + h.len as usize;
            if end > buf.len() {
                break;
            }
            let payload = &buf[at + HEADER_LEN..end];
            at = end;
            if let Err(e) = self.frame(&h, payload, env) {
                self.fail(e, env);
            }
            if self.block_stream == 0 && self.phase == Phase::Open {
                // No header block open: the next head is timed from its own first byte.
                self.head_since_us = NO_HEAD;
            }
        }
        if self.phase == Phase::Closing {
            return buf.len();
        }
        self.time_head(&buf[at..], env.now_us);
        at
    }

    /// Whether the input left after the whole frames, `rest`, waits for the rest of a head
    /// from the client (a HEADERS frame, a frame whose header is not whole, or a header block
    /// without its END_HEADERS): the header timeout runs from the first read that did.
    /// Whole frames held back by unread output are not waited for.
    fn time_head(&mut self, rest: &[u8], now_us: u64) {
        if self.phase != Phase::Open {
            // The preface and SETTINGS: timed from the accept.
            return;
        }
        let waiting = match Header::parse(rest) {
            None => !rest.is_empty() || self.block_stream != 0,
            Some(h) => {
                rest.len() < HEADER_LEN + h.len as usize
                    && (h.kind == kind::HEADERS || self.block_stream != 0)
            }
        };
        if !waiting {
            self.head_since_us = NO_HEAD;
        } else if self.head_since_us == NO_HEAD {
            self.head_since_us = now_us;
        }
    }

    /// One whole frame.
    fn frame<W>(&mut self, h: &Header, payload: &[u8], env: &mut Env<'_, W>) -> Result<(), Failed> {
        let f = Frame::parse(h, payload, MAX_FRAME_SIZE)?;
        if self.flood.frame(&f, env.now_us).is_err() {
            return Err(conn_error(ErrorCode::EnhanceYourCalm));
        }
        if self.block_stream != 0 {
            match f {
                Frame::Continuation { stream, .. } if stream == self.block_stream => {}
                // §6.10: anything else, a CONTINUATION of another stream included.
                _ => return Err(conn_error(ErrorCode::ProtocolError)),
            }
        }
        if !self.peer_settings {
            match f {
                Frame::Settings { ack: false, .. } => {
                    self.peer_settings = true;
                    self.phase = Phase::Open;
                }
                // §3.4: the preface ends with a SETTINGS frame.
                _ => return Err(conn_error(ErrorCode::ProtocolError)),
            }
        }
        match f {
            Frame::Data {
                stream,
                end_stream,
                flow_len,
                data,
            } => self.data(stream, end_stream, flow_len, data.len(), env),
            Frame::Headers {
                stream,
                end_stream,
                end_headers,
                fragment,
                depends_on_itself,
            } => {
                if stream % 2 == 0 {
                    return Err(conn_error(ErrorCode::ProtocolError));
                }
                self.block.clear();
                self.block_end_stream = end_stream;
                self.block_depends_on_itself = depends_on_itself;
                self.block_stream = stream;
                self.fragment(fragment, end_headers, env)
            }
            Frame::Continuation {
                stream,
                end_headers,
                fragment,
            } => {
                if self.block_stream != stream {
                    // No HEADERS before it (§6.10).
                    return Err(conn_error(ErrorCode::ProtocolError));
                }
                self.fragment(fragment, end_headers, env)
            }
            Frame::Priority { .. } | Frame::Unknown { .. } => Ok(()),
            Frame::RstStream { stream, .. } => {
                if self.is_idle_stream(stream) {
                    return Err(conn_error(ErrorCode::ProtocolError));
                }
                self.streams.retain(|s| s.id != stream);
                Ok(())
            }
            Frame::Settings { ack: true, .. } => Ok(()),
            Frame::Settings { params, .. } => {
                let mut window = None;
                let mut max_frame = None;
                params.each(|id, v| match id {
                    setting::INITIAL_WINDOW_SIZE => window = Some(v),
                    setting::MAX_FRAME_SIZE => max_frame = Some(v),
                    _ => {}
                })?;
                if let Some(w) = window {
                    let delta = i64::from(w) - i64::from(self.peer_initial_window);
                    self.peer_initial_window = w;
                    for s in &mut self.streams {
                        s.window += delta;
                        if s.window > i64::from(MAX_WINDOW) {
                            return Err(conn_error(ErrorCode::FlowControlError));
                        }
                    }
                }
                if let Some(m) = max_frame {
                    self.peer_max_frame = m.min(SEND_FRAME_MAX);
                }
                self.control(kind::SETTINGS, flag::ACK, 0, &[]);
                Ok(())
            }
            Frame::Ping { ack: false, data } => {
                self.control(kind::PING, flag::ACK, 0, &data);
                Ok(())
            }
            Frame::Ping { ack: true, .. } => Ok(()),
            // The peer closes after its GOAWAY (§6.8); until then the connection still
            // answers (a PING, its streams in flight).
            Frame::GoAway { .. } => Ok(()),
            Frame::WindowUpdate {
                stream: 0,
                increment,
            } => {
                self.window += i64::from(increment);
                if self.window > i64::from(MAX_WINDOW) {
                    return Err(conn_error(ErrorCode::FlowControlError));
                }
                Ok(())
            }
            Frame::WindowUpdate { stream, increment } => {
                if self.is_idle_stream(stream) {
                    return Err(conn_error(ErrorCode::ProtocolError));
                }
                if let Some(s) = self.streams.iter_mut().find(|s| s.id == stream) {
                    s.window += i64::from(increment);
                    if s.window > i64::from(MAX_WINDOW) {
                        return Err(stream_error(ErrorCode::FlowControlError, stream));
                    }
                }
                Ok(())
            }
        }
    }

    /// A stream the client has not opened yet (§5.1 "idle"); a frame on it other than
    /// HEADERS and PRIORITY is a connection error.
    fn is_idle_stream(&self, stream: u32) -> bool {
        stream > self.last_stream
    }

    /// DATA: counted against the windows and given back at once (the body is discarded);
    /// END_STREAM makes its request answered.
    fn data<W>(
        &mut self,
        stream: u32,
        end: bool,
        len: u32,
        body: usize,
        env: &mut Env<'_, W>,
    ) -> Result<(), Failed> {
        if self.is_idle_stream(stream) {
            return Err(conn_error(ErrorCode::ProtocolError));
        }
        let len = i64::from(len);
        self.recv_window -= len;
        if self.recv_window < 0 {
            return Err(conn_error(ErrorCode::FlowControlError));
        }
        if len > 0 {
            self.recv_window += len;
            self.control(kind::WINDOW_UPDATE, 0, 0, &(len as u32).to_be_bytes());
        }
        let Some(i) = self
            .streams
            .iter()
            .position(|s| s.id == stream && !s.answering)
        else {
            if self.refused_body(stream) || self.reset_by_us.contains(stream) {
                return Ok(());
            }
            // Closed, or half-closed by its END_STREAM (§6.1, §5.1).
            return Err(stream_error(ErrorCode::StreamClosed, stream));
        };
        let s = &mut self.streams[i];
        s.last_us = env.now_us;
        s.recv_window -= len;
        if s.recv_window < 0 {
            return Err(stream_error(ErrorCode::FlowControlError, stream));
        }
        if !s.length.data(body) || (end && !s.length.ended()) {
            // Not the declared content-length: malformed (§8.1.1).
            return Err(stream_error(ErrorCode::ProtocolError, stream));
        }
        s.received += len as u64;
        if s.received > env.settings.conn_limits.max_body {
            self.body_too_large(i, env);
            return Ok(());
        }
        if end {
            self.answer(i, env);
        } else if len > 0 {
            s.recv_window += len;
            self.control(kind::WINDOW_UPDATE, 0, stream, &(len as u32).to_be_bytes());
        }
        Ok(())
    }

    /// A fragment of the open header block; the block is decoded at its END_HEADERS.
    fn fragment<W>(
        &mut self,
        fragment: &[u8],
        end: bool,
        env: &mut Env<'_, W>,
    ) -> Result<(), Failed> {
        if self.block.len() + fragment.len() > MAX_BLOCK {
            // A CONTINUATION flood, or a block canned does not keep: it cannot be decoded
            // without its whole, so the connection ends (the HPACK table would drift).
            return Err(conn_error(ErrorCode::EnhanceYourCalm));
        }
        if !end {
            self.block.extend_from_slice(fragment);
            return Ok(());
        }
        let stream = std::mem::replace(&mut self.block_stream, 0);
        if self.block.is_empty() {
            self.headers(stream, fragment, env)
        } else {
            self.block.extend_from_slice(fragment);
            let block = std::mem::take(&mut self.block);
            let r = self.headers(stream, &block, env);
            self.block = block;
            r
        }
    }

    /// A whole header block on `stream`: a new request, or its trailers.
    fn headers<W>(
        &mut self,
        stream: u32,
        block: &[u8],
        env: &mut Env<'_, W>,
    ) -> Result<(), Failed> {
        let end_stream = self.block_end_stream;
        let existing = self.streams.iter().position(|s| s.id == stream);
        let new = stream > self.last_stream;
        if !new {
            match existing {
                Some(i) if !self.streams[i].answering => {}
                // Trailers of a body refused (413), or on a stream canned reset: decoded for
                // the table (§4.3), otherwise ignored (`limits`, `closed`).
                Some(i) if self.streams[i].error != Own::Route => {
                    let _ = self.decode(block, true)?;
                    return Ok(());
                }
                None if self.reset_by_us.contains(stream) => {
                    let _ = self.decode(block, true)?;
                    return Ok(());
                }
                // Half-closed (remote): a stream error (§5.1).
                Some(_) => {
                    let _ = self.decode(block, true)?;
                    return Err(stream_error(ErrorCode::StreamClosed, stream));
                }
                // Never opened, the client having skipped it: an unexpected id (§5.1.1).
                None if self.skipped.was_skipped(stream) => {
                    return Err(conn_error(ErrorCode::ProtocolError));
                }
                // Closed: its END_STREAM or RST_STREAM came before (§5.1).
                None => return Err(conn_error(ErrorCode::StreamClosed)),
            }
        }
        let mut decoded = self.decode(block, !new)?;
        if self.block_depends_on_itself {
            // Malformed as a request is, now that the table has the block's entries.
            decoded = Err("a stream that depends on itself (§5.3.1)");
        }
        if !new {
            // Trailers: they end the stream (§8.1), carry no pseudo-header, and are otherwise
            // discarded as the body was.
            let i = existing.unwrap_or(0);
            if decoded.is_err() || !end_stream || !self.streams[i].length.ended() {
                self.streams.remove(i);
                return Err(stream_error(ErrorCode::ProtocolError, stream));
            }
            self.answer(i, env);
            return Ok(());
        }
        self.skipped.opened(self.last_stream, stream);
        self.last_stream = stream;
        if self.goaway_sent {
            // After our GOAWAY, new streams are ignored (§6.8); the block was decoded, so the
            // table stays in step. Past `--max-requests`, they are refused (`limits`).
            return self.past_max_requests(stream, env);
        }
        env.stats.requests += 1;
        if let Err(_why) = decoded {
            // Malformed (§8.1.1): a stream error.
            return Err(stream_error(ErrorCode::ProtocolError, stream));
        }
        if self.streams.len() >= MAX_CONCURRENT_STREAMS as usize {
            return Err(stream_error(ErrorCode::RefusedStream, stream));
        }
        let f = &self.fields;
        let route = env.responses.route(&f.method, f.route_path());
        let head_only = f.method == b"HEAD";
        let length = conform::BodyLength::new(f.semantics.content_length);
        if end_stream && !length.ended() {
            return Err(stream_error(ErrorCode::ProtocolError, stream));
        }
        let switches = &env.settings.switches;
        let refused = switches.by_request()
            && unserved::refused(f, route, env.responses, switches.control(), &mut self.head);
        let error = self.over_head_limits(env);
        // CONNECT asks for a tunnel and sends no END_STREAM (§8.5): its 405 goes at once, as
        // HTTP/1's does, and so does an error that does not depend on the body.
        let early = !end_stream && (error.is_some() || f.method == b"CONNECT");
        let grpc = match error {
            None => grpc::Call::of(
                env.settings.switches.grpc_health(),
                &f.method,
                f.route_path(),
            ),
            Some(_) => grpc::Call::None,
        };
        self.streams.push(Stream {
            id: stream,
            answering: false,
            headers_sent: false,
            route: route as u16,
            head_only,
            at: 0,
            window: i64::from(self.peer_initial_window),
            recv_window: i64::from(INITIAL_WINDOW_SIZE),
            grpc,
            received: 0,
            error: match error {
                Some(rule) => Own::Refused(rule),
                None if refused => Own::Unserved,
                None => Own::Route,
            },
            early,
            last_us: env.now_us,
            fault: None,
            length,
        });
        self.hold_log(stream, route, env);
        self.count_stream(env);
        if end_stream || early {
            let i = self.streams.len() - 1;
            self.answer(i, env);
        }
        Ok(())
    }

    /// Decode a block into [`State::fields`]: an HPACK error is the connection's
    /// (COMPRESSION_ERROR, §4.3); a malformed request is returned for its stream.
    fn decode(&mut self, block: &[u8], trailers: bool) -> Result<Result<(), &'static str>, Failed> {
        self.fields.reset(trailers);
        let fields = &mut self.fields;
        self.decoder
            .decode(block, &mut self.scratch, |f| fields.add(f))
            .map_err(|_| conn_error(ErrorCode::CompressionError))?;
        Ok(self.fields.check())
    }

    /// Stream `i`'s request is complete: it is answered.
    fn answer<W>(&mut self, i: usize, env: &mut Env<'_, W>) {
        // Faults shape a route's answer, not canned's own errors (413, 431, 501) nor an
        // answer that goes before its request has ended.
        let plain = self.streams[i].error == Own::Route && !self.streams[i].early;
        if plain
            && (env.features.faults.is_some() || env.settings.switches.delay_us > 0)
            && self.answer_shaped(i, env)
        {
            return;
        }
        let s = &mut self.streams[i];
        s.answering = true;
        self.served = self.served.saturating_add(1);
        // A gRPC health call is answered in gRPC, never with a variant of the catalogue.
        if plain
            && s.route == 0
            && s.grpc == grpc::Call::None
            && env.features.faults.is_some()
            && self.mutated(i, env)
        {
            return;
        }
        let s = &self.streams[i];
        let (status, rule) = match (s.grpc, s.error) {
            (grpc::Call::None, Own::Route) => (env.responses.status(s.route as usize), None),
            (grpc::Call::None, Own::Refused(rule)) => (rule.status(), Some(rule)),
            (grpc::Call::None, Own::Unserved) => (unserved::STATUS, None),
            _ => (200, None),
        };
        env.stats.by_status[status as usize] += 1;
        if env.features.access_log.is_some() {
            self.log_plain(i, status, rule, env);
        }
    }

    /// Queue a frame with this payload.
    fn control(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
        let h = Header {
            len: payload.len() as u32,
            kind,
            flags,
            stream,
        };
        self.out.extend_from_slice(&h.encode());
        self.out.extend_from_slice(payload);
        self.flood.queued(HEADER_LEN + payload.len());
    }

    /// Send GOAWAY with `code` and the last stream processed (§6.8). Any code but NO_ERROR
    /// closes the connection once it is written.
    fn goaway(&mut self, code: ErrorCode) {
        let mut p = [0u8; 8];
        p[..4].copy_from_slice(&self.last_stream.to_be_bytes());
        p[4..].copy_from_slice(&(code as u32).to_be_bytes());
        self.control(kind::GOAWAY, 0, 0, &p);
        self.goaway_sent = true;
        if code != ErrorCode::NoError || self.streams.is_empty() {
            self.phase = Phase::Closing;
            self.input.clear();
        }
    }

    /// A frame broke a rule: RST_STREAM for a stream error (§5.4.2), GOAWAY for a connection
    /// error (§5.4.1).
    fn fail<W>(&mut self, e: Failed, env: &mut Env<'_, W>) {
        match e.stream {
            Some(id) => {
                self.flood.reset();
                self.streams.retain(|s| s.id != id);
                self.reset_by_us.add(id);
                self.control(kind::RST_STREAM, 0, id, &(e.code as u32).to_be_bytes());
            }
            None => {
                let _ = env;
                self.goaway(e.code);
            }
        }
    }

    /// When the requests still waiting for their bodies had their last frame (`flood`).
    fn waiting(&self) -> impl Iterator<Item = u64> + '_ {
        self.streams
            .iter()
            .filter(|s| !s.answering)
            .map(|s| s.last_us)
    }

    /// Reset (CANCEL) the requests whose body never came (`flood`).
    fn expire_bodies<W>(&mut self, env: &mut Env<'_, W>) {
        let (now, idle) = (env.now_us, env.settings.timeouts.idle_us);
        while let Some(i) = (self.streams.iter())
            .position(|s| !s.answering && flood::body_due(s.last_us, now, idle))
        {
            let id = self.streams.remove(i).id;
            self.reset_by_us.add(id);
            env.stats.timeouts[Timeout::Idle as usize] += 1;
            let code = (ErrorCode::Cancel as u32).to_be_bytes();
            self.control(kind::RST_STREAM, 0, id, &code);
        }
    }

    /// After input or output: a drain's GOAWAY, then the answers' frames.
    fn after<W>(&mut self, env: &mut Env<'_, W>) {
        if env.draining && !self.goaway_sent && self.phase == Phase::Open {
            self.goaway(ErrorCode::NoError);
        }
        if self.phase == Phase::Open {
            self.pump(env);
            self.pump_shaped(env);
        }
        if self.goaway_sent && self.streams.is_empty() && self.phase == Phase::Open {
            self.phase = Phase::Closing;
        }
    }

    /// Fill the output with the answered streams' frames: HEADERS, then DATA within the
    /// windows and the peer's frame size, up to [`OUT_HIGH`].
    fn pump<W>(&mut self, env: &mut Env<'_, W>) {
        let mut i = 0;
        while i < self.streams.len() && self.pending_out() < OUT_HIGH {
            let mut s = self.streams[i];
            if !s.answering || s.fault.is_some() {
                i += 1;
                continue;
            }
            if s.grpc != grpc::Call::None {
                let room = s.window.min(self.window);
                let sent = grpc::answer(s.grpc, s.id, s.headers_sent, room, &mut self.out);
                s.headers_sent = true;
                if let Some(n) = sent {
                    self.window -= n as i64;
                    self.streams.remove(i);
                } else {
                    self.streams[i] = s;
                    i += 1;
                }
                continue;
            }
            let responses = env.responses;
            let body = match s.error {
                Own::Route => responses.body(s.route as usize),
                Own::Unserved => unserved::body(s.route as usize, responses),
                Own::Refused(rule) => responses.error(rule)[2],
            };
            let body = if s.head_only { &[][..] } else { body };
            if !s.headers_sent {
                self.response_headers(&s, body.is_empty(), responses);
                s.headers_sent = true;
            }
            while s.at < body.len() && self.pending_out() < OUT_HIGH {
                let n = (body.len() - s.at)
                    .min(self.peer_max_frame as usize)
                    .min(s.window.max(0) as usize)
                    .min(self.window.max(0) as usize);
                if n == 0 {
                    break;
                }
                let end = s.at + n == body.len();
                let h = Header {
                    len: n as u32,
                    kind: kind::DATA,
                    flags: if end { flag::END_STREAM } else { 0 },
                    stream: s.id,
                };
                self.out.extend_from_slice(&h.encode());
                self.out.extend_from_slice(&body[s.at..s.at + n]);
                s.at += n;
                s.window -= n as i64;
                self.window -= n as i64;
            }
            if s.at == body.len() {
                self.flood.answered();
                self.streams.remove(i);
                if s.early {
                    self.end_refused(s.id);
                }
            } else {
                self.streams[i] = s;
                i += 1;
            }
        }
    }

    /// The response HEADERS of stream `s` (and CONTINUATION frames when the block is longer
    /// than the peer's frame size), ending the stream when there is no body.
    fn response_headers(&mut self, s: &Stream, no_body: bool, responses: &Responses) {
        if let Some(head) = responses
            .h2_head(s.route as usize)
            .filter(|_| s.error == Own::Route)
        {
            return heads::write(&mut self.out, head, s.id, no_body, responses.date());
        }
        self.head.clear();
        match s.error {
            Own::Route => {
                responses.append(
                    s.route as usize,
                    KeepAliveForm::KeepAlive11,
                    true,
                    usize::MAX,
                    &mut self.head,
                );
            }
            Own::Unserved => unserved::head(s.route as usize, responses, &mut self.head),
            Own::Refused(rule) => {
                let [start, head, _] = responses.error(rule);
                self.head.extend_from_slice(start);
                self.head.extend_from_slice(head);
            }
        }
        self.encoded.clear();
        encode_head(&self.head, &mut self.encoded);
        let max = self.peer_max_frame as usize;
        let mut rest = &self.encoded[..];
        let mut first = true;
        loop {
            let n = rest.len().min(max);
            let last = n == rest.len();
            let mut flags = if last { flag::END_HEADERS } else { 0 };
            if first && no_body {
                flags |= flag::END_STREAM;
            }
            let h = Header {
                len: n as u32,
                kind: if first {
                    kind::HEADERS
                } else {
                    kind::CONTINUATION
                },
                flags,
                stream: s.id,
            };
            self.out.extend_from_slice(&h.encode());
            self.out.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            first = false;
            if last {
                break;
            }
        }
    }
}
