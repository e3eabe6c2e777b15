//! One connection's life, without sockets.
//!
//! The poll loop hands a [`Conn`] the bytes it read ([`Conn::on_data`]), end of input
//! ([`Conn::on_eof`]), how much of [`Conn::output`] it wrote ([`Conn::wrote`]) and the time
//! it asked to be woken at ([`Conn::wake_at`], [`Conn::on_wake`]); the connection decides
//! everything else: which requests are complete, what to answer, when to stop reading
//! (backpressure), when its deadlines fall (timeouts, `--delay`, lingering) and when to close
//! ([`Conn::next`]). Nothing here knows about sockets or epoll, so the fuzzer and the tests
//! drive it directly.
//!
//! Memory: an idle connection holds no buffer. Input is parsed where the loop read it (a
//! per-worker scratch buffer); only a partial request is copied into a buffer of the
//! connection's own, and output lives in a buffer taken from the worker's [`Pool`] while it
//! is pending. A dripped response is copied from the preformatted bytes a piece at a time;
//! between pieces, a connection with nothing else to do holds no buffer either
//! (`Phase::Dripping`).

use crate::chunked::ChunkedDecoder;
use crate::fault::{Decision, Delivery, Drip, WorkerFaults};
use crate::parser::{Error, Framing, Limits, Parser, Status, Version};
use crate::response::{CONTINUE, KeepAliveForm, Responses};
use crate::values::US_PER_MS;

/// Stop reading from a connection while its output buffer holds this much (backpressure): the
/// server's [`ConnLimits::high_water`].
pub const HIGH_WATER: usize = 256 * 1024;
/// Bodies up to this size are copied into the output; larger ones are streamed in pieces of
/// this size so that a large body never sits in memory more than once: the server's
/// [`ConnLimits::body_chunk`].
pub const BODY_CHUNK: usize = 64 * 1024;

/// The memory and size limits a connection enforces. The server passes the defaults (and the
/// configured body limit); the fuzz target picks small values so that backpressure, body
/// refills and the input bound happen with inputs of a few hundred bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    /// Stop parsing requests, and reading, while the output buffer holds this much, its
    /// written part not yet dropped included (backpressure): the buffer never holds more than
    /// this plus one response.
    pub high_water: usize,
    /// Bodies up to this size are copied into the output whole; larger ones in pieces of this
    /// size, each copied once the previous one is written (at least 1).
    pub body_chunk: usize,
    /// Largest request body accepted, in bytes: a larger Content-Length is answered 413 (RFC
    /// 9110 §15.5.14) and the connection closes. `u64::MAX`: unlimited.
    pub max_body: u64,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            high_water: HIGH_WATER,
            body_chunk: BODY_CHUNK,
            max_body: u64::MAX,
        }
    }
}

/// A per-worker free list of connection work areas (parser state and buffers), so that
/// steady-state traffic allocates nothing and an idle connection holds none.
#[derive(Debug, Default)]
pub struct Pool {
    // Boxed: a work area moves between the pool and a connection as a pointer, and an idle
    // connection holds only `Option<Box<WorkArea>>` (8 bytes).
    #[allow(clippy::vec_box)]
    free: Vec<Box<WorkArea>>,
    /// Buffer capacity of the work areas in `free`.
    held: usize,
    /// Work areas lent to connections.
    lent: usize,
    /// Buffer bytes freed since the allocator was last asked to return free memory.
    freed: usize,
}

impl Pool {
    /// Work areas kept for reuse.
    const KEEP: usize = 64;
    /// Buffer bytes kept for reuse, over all kept work areas. A burst of slow-reading
    /// pipelining clients fills every connection's output to the high-water mark; keeping
    /// those buffers would keep that burst's memory for good. This is enough for steady
    /// keep-alive traffic (a few KiB per connection) and for one large body in flight.
    pub const KEEP_BYTES: usize = 256 * 1024;
    /// Once this many buffer bytes were freed and no connection holds a work area, ask the
    /// allocator to return its free memory to the system.
    const TRIM_AFTER: usize = 1024 * 1024;

    // Inlined into the hot path's one caller, as before the cold `unpark` became another.
    #[inline(always)]
    fn take(&mut self, limits: Limits, conn: ConnLimits) -> Box<WorkArea> {
        self.lent += 1;
        match self.free.pop() {
            Some(mut b) => {
                self.held -= b.capacity();
                b.parser = Parser::new(limits);
                b.high_water = conn.high_water;
                b
            }
            None => Box::new(WorkArea::new(limits, conn)),
        }
    }

    fn put(&mut self, mut b: Box<WorkArea>) {
        self.lent = self.lent.saturating_sub(1);
        if self.free.len() >= Self::KEEP || self.held + b.capacity() > Self::KEEP_BYTES {
            self.freed += b.capacity();
            b.input = Vec::new();
            b.out = Vec::new();
            b.log_line = Vec::new();
        }
        if self.free.len() < Self::KEEP {
            b.reset();
            self.held += b.capacity();
            self.free.push(b);
        }
        if self.lent == 0 && self.freed >= Self::TRIM_AFTER {
            self.freed = 0;
            return_free_memory();
        }
    }

    /// Buffer bytes held by the kept work areas (at most [`Pool::KEEP_BYTES`]).
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// Work areas held for reuse.
    pub fn len(&self) -> usize {
        self.free.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.free.is_empty()
    }
}

/// Ask the C allocator to return the free memory it holds to the system, after a burst. glibc
/// keeps freed blocks in its heaps (it raises its trim threshold as large blocks are freed, and
/// it never trims the middle of a heap by itself): 64 slow-reading pipelining clients left
/// 22 MiB above idle for good before the pool bounded what it keeps, and still 0.2 to 2.8 MiB
/// after, until this call (`benches/burst_rss.py`). It walks the heaps once, and runs only
/// when no connection holds a work area. musl's allocator unmaps large freed blocks by itself.
pub(crate) fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of glibc's heaps; no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Timeouts as configured, in milliseconds; a connection checks them as [`TimeoutsUs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// From the first byte of a request head to its last.
    pub header: u64,
    /// Without any input, between requests or inside a body.
    pub idle: u64,
    /// Output pending without progress.
    pub write: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            header: 10_000,
            idle: 60_000,
            write: 30_000,
        }
    }
}

impl Timeouts {
    /// The same timeouts in microseconds, the unit of the connection's clock.
    pub fn in_us(self) -> TimeoutsUs {
        TimeoutsUs {
            header_us: self.header.saturating_mul(US_PER_MS),
            idle_us: self.idle.saturating_mul(US_PER_MS),
            write_us: self.write.saturating_mul(US_PER_MS),
        }
    }
}

/// [`Timeouts`] in microseconds, the unit of [`Env::now_us`]: what [`Conn::wake_at`] and
/// [`Conn::on_wake`] take (the worker converts the configured ones once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutsUs {
    /// From the first byte of a request head to its last.
    pub header_us: u64,
    /// Without any input, between requests or inside a body.
    pub idle_us: u64,
    /// Output pending without progress.
    pub write_us: u64,
}

impl Default for TimeoutsUs {
    fn default() -> Self {
        Timeouts::default().in_us()
    }
}

/// Why a connection timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// The head did not arrive in time (answered with 408).
    Header,
    /// Nothing arrived in time.
    Idle,
    /// The client did not read its output in time.
    Write,
}

impl Timeout {
    /// Every kind, in the order of [`Stats::timeouts`].
    pub const ALL: [Timeout; 3] = [Timeout::Header, Timeout::Idle, Timeout::Write];

    /// The name used in `--stats` and the exit summary.
    pub fn name(self) -> &'static str {
        match self {
            Timeout::Header => "header",
            Timeout::Idle => "idle",
            Timeout::Write => "write",
        }
    }
}

/// How long a connection closed while the client may still be sending drains its input
/// after shutting down its write side (µs), so the client reads the response, not a reset.
pub const LINGER_US: u64 = 2_000_000;

/// The most input a lingering connection discards before it closes (bytes): without a bound,
/// a client that keeps sending after its error response keeps its worker reading for all of
/// [`LINGER_US`] (gigabytes over loopback).
pub const LINGER_BYTES: usize = 1 << 20;

/// Counters of one worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Complete request heads.
    pub requests: u64,
    /// Responses started, by status code (index = status).
    pub by_status: Vec<u64>,
    /// Rejected requests, by [`Error::index`].
    pub errors: [u64; Error::ALL.len()],
    /// Timeouts, by [`Timeout::ALL`].
    pub timeouts: [u64; Timeout::ALL.len()],
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// Responses given a fault, by [`crate::fault::FaultKind::index`].
    pub faults: [u64; crate::fault::FaultKind::ALL.len()],
    /// Malformed responses sent, by index in the catalogue (`crate::mutate::id`).
    pub mutated: Vec<u64>,
    /// Access-log lines dropped: the loop turn's lines were [`ACCESS_LOG_TURN_BYTES`] already,
    /// or stdout did not take them in time (a full queue, a write error, the shutdown deadline).
    pub log_lines_dropped: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            requests: 0,
            by_status: vec![0; 600],
            errors: [0; Error::ALL.len()],
            timeouts: [0; Timeout::ALL.len()],
            bytes_in: 0,
            bytes_out: 0,
            faults: [0; crate::fault::FaultKind::ALL.len()],
            mutated: Vec::new(),
            log_lines_dropped: 0,
        }
    }
}

impl Stats {
    /// Add another worker's counters.
    pub fn add(&mut self, o: &Stats) {
        self.requests += o.requests;
        for (a, b) in self.by_status.iter_mut().zip(&o.by_status) {
            *a += b;
        }
        for (a, b) in self.errors.iter_mut().zip(&o.errors) {
            *a += b;
        }
        for (a, b) in self.timeouts.iter_mut().zip(&o.timeouts) {
            *a += b;
        }
        self.bytes_in += o.bytes_in;
        self.bytes_out += o.bytes_out;
        for (a, b) in self.faults.iter_mut().zip(&o.faults) {
            *a += b;
        }
        if self.mutated.len() < o.mutated.len() {
            self.mutated.resize(o.mutated.len(), 0);
        }
        for (a, b) in self.mutated.iter_mut().zip(&o.mutated) {
            *a += b;
        }
        self.log_lines_dropped += o.log_lines_dropped;
    }
}

/// Everything a connection needs from its worker, passed on each call.
pub struct Env<'a> {
    /// The preformatted responses.
    pub responses: &'a Responses,
    /// Buffers to borrow.
    pub pool: &'a mut Pool,
    /// Counters to update.
    pub stats: &'a mut Stats,
    /// Request head limits.
    pub limits: Limits,
    /// Output high-water mark, body refill size and request body limit.
    pub conn_limits: ConnLimits,
    /// Monotonic time in whole microseconds (any origin), rounded up: the unit of every
    /// deadline. Deadlines count from it, so that `now_us + d` is never before `d` has passed;
    /// a deadline `t` has passed once `now_us > t` (at `now_us == t` it may still be under
    /// way).
    pub now_us: u64,
    /// Close after this many responses (0: unlimited).
    pub max_requests: u32,
    /// The server is shutting down: the next response closes.
    pub draining: bool,
    /// The test-endpoint features, all off on the plain path.
    pub features: Features<'a>,
}

/// Switches of the test-endpoint features. [`Features::default`] is all off: plain canned.
#[derive(Default)]
pub struct Features<'a> {
    /// Send the same bytes for every request (`--raw-response`): the route head alone, and
    /// keep the connection open unless `raw_close`.
    pub raw: bool,
    /// With `raw`, close after each response (`--raw-close`).
    pub raw_close: bool,
    /// Hold each batch of responses this long (µs; 0: none; `--delay`).
    pub delay_us: u64,
    /// Where to append access-log lines, when enabled (`--access-log`): at most
    /// [`ACCESS_LOG_TURN_BYTES`] (a line that does not fit is dropped whole and counted).
    pub access_log: Option<&'a mut Vec<u8>>,
    /// Where a full `access_log` goes before the next line: the server's queue to stdout.
    /// Without one, a line that does not fit is dropped.
    pub log_sink: Option<&'a dyn LogSink>,
    /// `--fault` and `--mutate`: the worker's faults, `None` when none is configured.
    pub faults: Option<&'a mut WorkerFaults>,
}

/// By hand: a derived `Debug` would make every [`LogSink`] one, and put the log queue's
/// formatting (its mutex, its times) into the binary through the trait object's vtable.
impl std::fmt::Debug for Features<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Features")
            .field("raw", &self.raw)
            .field("raw_close", &self.raw_close)
            .field("delay_us", &self.delay_us)
            .field("access_log", &self.access_log)
            .field("log_sink", &self.log_sink.is_some())
            .field("faults", &self.faults)
            .finish()
    }
}

/// The access-log lines one loop turn may leave for stdout. A turn's lines had no bound: 1,000
/// clients pipelining 1,400 requests each made 44 MiB of them, kept as capacity for good.
pub const ACCESS_LOG_TURN_BYTES: usize = 1024 * 1024;

/// Takes a loop turn's access-log lines that reached [`ACCESS_LOG_TURN_BYTES`] before the
/// turn ends, so that a fast stdout loses none.
pub trait LogSink {
    /// Take the lines (leaving `lines` empty) without waiting for stdout; returns how many
    /// were dropped for want of room.
    fn hand_off(&self, lines: &mut Vec<u8>) -> u64;
}

/// What the loop should do with a connection after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Keep it; poll for reading if [`Conn::wants_read`], for writing if output is pending.
    Continue,
    /// Close it now that its output is written. With `linger`, shut down the write side and
    /// discard input for a short while first, so that the client reads the response instead
    /// of a reset.
    Close {
        /// Shut down writing and drain input before closing.
        linger: bool,
    },
    /// Close it now with a reset (RST: SO_LINGER 0, then close), its output written (a
    /// `reset` fault).
    Reset,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    None,
    Length(u64),
    Chunked(ChunkedDecoder),
}

/// A response waiting for its request body to be skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    route: u16,
    head: bool,
    keep_alive: bool,
    http10: bool,
    /// The access-log line's `METHOD TARGET VERSION ` is in [`WorkArea::log_line`].
    logged: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    /// Answer nothing more; close once the output is written.
    Closing {
        linger: bool,
    },
    /// The write side is shut down; input is discarded until end of input, [`LINGER_US`]
    /// after `Conn::active` or [`LINGER_BYTES`] of it.
    Lingering,
    /// A `stall` fault: input is read and discarded, nothing more is answered, until the
    /// client closes or the idle timeout ends it.
    Stalled,
    /// A `reset` fault: answer nothing more; reset once the output is written.
    Resetting,
    /// A `drip` fault's response waits for its next piece, and the connection has nothing
    /// else to do: it holds no work area, and [`Waiting`] is packed into `active` and
    /// `phase_data`. The next piece (or input) takes a work area again, with the phase the
    /// response leads to (open, or closing).
    Dripping,
}

/// The state of one connection. See the module documentation.
///
/// An idle keep-alive connection is this struct alone (24 bytes); a request in progress or
/// output pending borrows a [`WorkArea`] from the worker's [`Pool`] and gives it back
/// as soon as everything is answered and written. So does a connection whose dripped
/// response waits for its next piece (`Phase::Dripping`).
#[derive(Debug)]
pub struct Conn {
    work: Option<Box<WorkArea>>,
    /// Last input or output progress (µs), or when lingering started. [`Phase::Dripping`]:
    /// the packed [`Waiting`] instead (no timeout runs then, and nothing reads it as a time).
    active_us: u64,
    /// Requests answered.
    served: u32,
    phase: Phase,
    eof: bool,
    /// Two bytes that fit in the struct's padding, for the phase that needs them.
    /// [`Phase::Lingering`]: how much more input to discard, in KiB, each read counted rounded
    /// up (a byte count would not fit). [`Phase::Dripping`]: the route of the response.
    phase_data: u16,
}

/// A dripped response waiting for its next piece on a connection with nothing else to do
/// ([`Phase::Dripping`]): what it takes to go on, in the connection's own fields (`active`,
/// `phase_data`), so that such a connection costs what an idle one does. The numbers that do
/// not fit (a piece index from 2^16 on, worker time from 2^44 µs, 203 days) keep the work
/// area instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Waiting {
    /// When the next piece is due (µs).
    due_us: u64,
    /// The next piece's index.
    next: u32,
    /// The head sent, which says what follows the response: keep-alive, or a close.
    variant: KeepAliveForm,
    /// With [`KeepAliveForm::Close`]: linger after it ([`Phase::Closing`]).
    linger: bool,
    /// The response to a HEAD request: the head alone.
    head_only: bool,
    /// The route whose bytes are dripped.
    route: u16,
}

impl Waiting {
    const DUE_BITS: u32 = 44;
    const NEXT_BITS: u32 = 16;

    /// `(active, phase_data)`, or `None` when a number does not fit.
    fn pack(self) -> Option<(u64, u16)> {
        if self.due_us >> Self::DUE_BITS != 0 || self.next >> Self::NEXT_BITS != 0 {
            return None;
        }
        let at = Self::DUE_BITS + Self::NEXT_BITS;
        let bits = self.due_us
            | u64::from(self.next) << Self::DUE_BITS
            | (self.variant as u64) << at
            | u64::from(self.linger) << (at + 2)
            | u64::from(self.head_only) << (at + 3);
        Some((bits, self.route))
    }

    fn unpack(active: u64, phase_data: u16) -> Waiting {
        let at = Self::DUE_BITS + Self::NEXT_BITS;
        Waiting {
            due_us: active & ((1 << Self::DUE_BITS) - 1),
            next: ((active >> Self::DUE_BITS) & ((1 << Self::NEXT_BITS) - 1)) as u32,
            variant: match (active >> at) & 3 {
                0 => KeepAliveForm::KeepAlive11,
                1 => KeepAliveForm::KeepAlive10,
                _ => KeepAliveForm::Close,
            },
            linger: (active >> (at + 2)) & 1 == 1,
            head_only: (active >> (at + 3)) & 1 == 1,
            route: phase_data,
        }
    }
}

/// What a connection holds only while it has work: the parser's place in a partial head, the
/// body being skipped, unprocessed input and unwritten output.
#[derive(Debug)]
pub struct WorkArea {
    parser: Parser,
    body: Body,
    pending: Option<Pending>,
    /// Unprocessed input (a partial request, or requests held back by backpressure).
    input: Vec<u8>,
    /// Pending output and how much of it is written.
    out: Vec<u8>,
    out_pos: usize,
    /// The rest of a large body, still to copy into `out`: (route, offset).
    body_rest: Option<(u16, usize)>,
    /// When the current head started (µs).
    head_since_us: Option<u64>,
    /// When output last made progress, or became pending (µs): the write timeout counts from
    /// here, so input cannot refresh it.
    out_since_us: u64,
    /// `--delay`, a latency or a drip's pause: output is held until this time has passed (µs),
    /// 0 when not held.
    hold_until_us: u64,
    /// `--delay` or a latency fault: where the last held response starts in `out`, and what it
    /// answers, so that a drain that begins while it is held can turn it into the closing
    /// response.
    last_held: Option<(usize, Pending)>,
    /// [`ConnLimits::high_water`], kept here for [`Conn::wants_read`].
    high_water: usize,
    /// With the access log: `METHOD TARGET VERSION ` of the request being answered, written
    /// out with its status when the response is decided.
    log_line: Vec<u8>,
    /// A fault's pacing of the response being sent; all off on the plain path.
    pacing: Pacing,
}

/// `body_rest` names this route while a latency or drip fault's response is not all out:
/// every test the plain path makes of `body_rest` (stop parsing, stop reading, keep the work
/// area, not flushed yet) then holds later requests back, and the plain path tests nothing
/// more. The refill that a real `body_rest` takes decides when the pacing ends.
const PACED: u16 = u16::MAX;

/// How a fault paces the response it changed (see [`PACED`]).
#[derive(Debug, Default)]
struct Pacing {
    /// A drip in progress.
    drip: Option<DripCursor>,
    /// A truncate or reset fault that cuts a streamed body: the body offset to stop at.
    body_stop: Option<usize>,
}

impl Pacing {
    fn clear(&mut self) {
        self.drip = None;
        self.body_stop = None;
    }
}

/// Where a dripped response stands. Its bytes are the route's preformatted head for
/// `variant` and, unless `head_only`, its body: nothing is copied but the piece being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DripCursor {
    drip: Drip,
    route: u16,
    variant: KeepAliveForm,
    head_only: bool,
    /// When piece 0 is due (µs): each piece's time counts from it, however late the loop
    /// wakes, so that the whole response takes the time asked for.
    from_us: u64,
    /// The next piece to release.
    next: u32,
    /// The end of the pieces released so far (due, and so sent as fast as the client reads).
    released: usize,
    /// The end of what was copied into the output (at most a body chunk ahead of the written).
    copied: usize,
}

impl DripCursor {
    /// The response's length.
    fn len(&self, r: &Responses) -> usize {
        let head = r.head_len(self.route as usize, self.variant);
        if self.head_only {
            head
        } else {
            head + r.body(self.route as usize).len()
        }
    }

    /// When the next piece is due (µs).
    fn next_due_us(&self) -> u64 {
        self.from_us
            .saturating_add(self.drip.piece_at_us(self.next))
    }
}

impl WorkArea {
    fn new(limits: Limits, conn: ConnLimits) -> WorkArea {
        WorkArea {
            parser: Parser::new(limits),
            body: Body::None,
            pending: None,
            input: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            body_rest: None,
            head_since_us: None,
            out_since_us: 0,
            hold_until_us: 0,
            last_held: None,
            high_water: conn.high_water,
            log_line: Vec::new(),
            pacing: Pacing::default(),
        }
    }

    fn reset(&mut self) {
        self.parser.reset();
        self.body = Body::None;
        self.pending = None;
        self.input.clear();
        self.out.clear();
        self.out_pos = 0;
        self.body_rest = None;
        self.head_since_us = None;
        self.hold_until_us = 0;
        self.last_held = None;
        self.pacing.clear();
        self.log_line.clear();
    }

    fn capacity(&self) -> usize {
        self.input.capacity() + self.out.capacity() + self.log_line.capacity()
    }

    /// Nothing in progress: the work area can go back to the pool.
    fn is_done(&self) -> bool {
        self.input.is_empty()
            && self.out_pos == self.out.len()
            && self.body_rest.is_none()
            && self.body == Body::None
            && self.pending.is_none()
            && !self.parser.in_progress()
    }

    fn pending_out(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// The output buffer, its written part included, is at the high-water mark: parse no more
    /// requests and read no more until it drains. Counting the written part bounds the buffer
    /// itself, not only what is pending, to the mark plus one response.
    #[inline(always)]
    fn full(&self) -> bool {
        self.out.len() >= self.high_water
    }
}

impl Conn {
    /// A new connection accepted at time `now_us`.
    pub fn new(now_us: u64) -> Conn {
        Conn {
            work: None,
            active_us: now_us,
            served: 0,
            phase: Phase::Open,
            eof: false,
            phase_data: 0,
        }
    }

    /// Bytes read from the peer.
    pub fn on_data(&mut self, data: &[u8], env: &mut Env<'_>) {
        if !matches!(self.phase, Phase::Open) {
            self.on_data_not_open(data, env);
            return;
        }
        env.stats.bytes_in += data.len() as u64;
        let mut b = match self.work.take() {
            Some(b) => b,
            None => {
                let mut b = env.pool.take(env.limits, env.conn_limits);
                // No output yet: a write timeout would count from here.
                b.out_since_us = env.now_us;
                if self.served == 0 {
                    // The first head must be whole within the header timeout of the accept
                    // (`active_us` until now), as nginx's client_header_timeout: a client
                    // cannot hold a slot by sending nothing, or one byte now and then.
                    b.head_since_us = Some(self.active_us);
                }
                b
            }
        };
        self.active_us = env.now_us;
        if b.input.is_empty() {
            let used = self.process(&mut b, data, env);
            if used < data.len() {
                b.input.extend_from_slice(&data[used..]);
            }
        } else {
            b.input.extend_from_slice(data);
            self.resume(&mut b, env);
        }
        self.keep_or_return(b, env);
    }

    /// [`Conn::on_data`] in any phase but open.
    #[cold]
    #[inline(never)]
    fn on_data_not_open(&mut self, data: &[u8], env: &mut Env<'_>) {
        match self.phase {
            Phase::Lingering => {
                // Discarded: the response is out and the write side shut.
                let kib = u16::try_from(data.len().div_ceil(1024)).unwrap_or(u16::MAX);
                self.phase_data = self.phase_data.saturating_sub(kib);
                return;
            }
            Phase::Dripping => {
                // Not asked for (a drip holds input back), but taken: the work area holds it
                // until the response is out.
                self.work = Some(self.unpark(env));
                if matches!(self.phase, Phase::Open) {
                    self.on_data(data, env);
                    return;
                }
            }
            _ => {}
        }
        env.stats.bytes_in += data.len() as u64;
        self.active_us = env.now_us;
        if matches!(self.phase, Phase::Stalled) {
            // Read and never answered.
            return;
        }
        if !data.is_empty() {
            self.phase = Phase::Closing { linger: true };
        }
    }

    /// Keep the work area while it has work, else give it back.
    #[inline(always)]
    fn keep_or_return(&mut self, b: Box<WorkArea>, env: &mut Env<'_>) {
        if b.is_done() || (b.body_rest == Some((PACED, 0)) && self.park(&b)) {
            env.pool.put(b);
        } else {
            self.work = Some(b);
        }
    }

    /// A work area whose only work is a dripped response waiting for its next piece: keep the
    /// drip in the connection's own fields instead ([`Phase::Dripping`]). Returns whether it
    /// did, and the work area can go back to the pool.
    #[cold]
    #[inline(never)]
    fn park(&mut self, b: &WorkArea) -> bool {
        let Some(c) = b.pacing.drip else {
            return false;
        };
        let only_waiting = b.hold_until_us != 0
            && c.copied == c.released
            && b.pending_out() == 0
            && b.input.is_empty()
            && b.body == Body::None
            && b.pending.is_none()
            && !b.parser.in_progress()
            && b.head_since_us.is_none()
            && b.last_held.is_none()
            && b.pacing.body_stop.is_none();
        if !only_waiting {
            return false;
        }
        let linger = match (self.phase, c.variant) {
            (Phase::Open, KeepAliveForm::KeepAlive11 | KeepAliveForm::KeepAlive10) => false,
            (Phase::Closing { linger }, KeepAliveForm::Close) => linger,
            _ => return false,
        };
        let waiting = Waiting {
            due_us: b.hold_until_us,
            next: c.next,
            variant: c.variant,
            linger,
            head_only: c.head_only,
            route: c.route,
        };
        let Some((active, phase_data)) = waiting.pack() else {
            return false;
        };
        self.active_us = active;
        self.phase_data = phase_data;
        self.phase = Phase::Dripping;
        true
    }

    /// A parked drip ([`Phase::Dripping`]) takes a work area again, held until its next piece
    /// is due, and the connection the phase the response leads to.
    #[cold]
    #[inline(never)]
    fn unpark(&mut self, env: &mut Env<'_>) -> Box<WorkArea> {
        let w = Waiting::unpack(self.active_us, self.phase_data);
        let drip = env
            .features
            .faults
            .as_deref()
            .and_then(|f| f.drip(w.route as usize))
            // Not reached (a drip comes from the faults); send the rest at once.
            .unwrap_or(Drip::Rate {
                bytes: u32::MAX,
                every_ms: 0,
            });
        let mut c = DripCursor {
            drip,
            route: w.route,
            variant: w.variant,
            head_only: w.head_only,
            from_us: w.due_us.saturating_sub(drip.piece_at_us(w.next)),
            next: w.next,
            released: 0,
            copied: 0,
        };
        if w.next > 0 {
            c.released = drip.piece_end(w.next - 1, c.len(env.responses));
            c.copied = c.released;
        }
        let mut b = env.pool.take(env.limits, env.conn_limits);
        b.pacing.drip = Some(c);
        b.body_rest = Some((PACED, 0));
        b.hold_until_us = w.due_us;
        b.out_since_us = env.now_us;
        self.phase = match w.variant {
            KeepAliveForm::Close => Phase::Closing { linger: w.linger },
            _ => Phase::Open,
        };
        self.phase_data = 0;
        self.active_us = env.now_us;
        b
    }

    /// The peer will send nothing more. Requests already received are still answered.
    pub fn on_eof(&mut self) {
        self.eof = true;
    }

    /// Output waiting to be written (none while `--delay` holds it).
    pub fn output(&self) -> &[u8] {
        match &self.work {
            Some(b) if b.hold_until_us == 0 => &b.out[b.out_pos..],
            _ => &[],
        }
    }

    /// `n` bytes of [`Conn::output`] were written.
    pub fn wrote(&mut self, n: usize, env: &mut Env<'_>) {
        let Some(mut b) = self.work.take() else {
            return;
        };
        debug_assert!(n <= b.pending_out());
        env.stats.bytes_out += n as u64;
        if n > 0 {
            self.active_us = env.now_us;
            b.out_since_us = env.now_us;
        }
        b.out_pos += n;
        if b.out_pos < b.out.len() && b.full() && b.out_pos >= b.pending_out() {
            // Parsing stops while the buffer, written part included, is at the high-water
            // mark (`WorkArea::full`), so that a slow reader's output never exceeds the mark
            // plus one response: then drop the written part, once it is at least what
            // remains, so that each move is paid for by as many bytes written since the last.
            b.out.drain(..b.out_pos);
            b.out_pos = 0;
        }
        if b.out_pos == b.out.len() {
            b.out.clear();
            b.out_pos = 0;
            match b.body_rest {
                Some((PACED, _)) => pace(&mut b, env),
                Some((route, at)) => {
                    let body = env.responses.body(route as usize);
                    let stop = b.pacing.body_stop.unwrap_or(body.len());
                    let end = stop.min(at + env.conn_limits.body_chunk.max(1));
                    b.out.extend_from_slice(&body[at..end]);
                    b.body_rest = (end < stop).then_some((route, end));
                }
                None => {}
            }
            if b.body_rest.is_none() && !b.input.is_empty() && matches!(self.phase, Phase::Open) {
                self.resume(&mut b, env);
            }
        }
        self.keep_or_return(b, env);
    }

    /// Whether the loop should read from this connection: not after a close was decided, not
    /// after end of input, not while output piles up, and not while input held back by that
    /// output is longer than a request head may be, so that TCP flow control pushes back on a
    /// client that pipelines faster than it reads.
    pub fn wants_read(&self) -> bool {
        match self.phase {
            Phase::Open => {
                !self.eof
                    && self.work.as_ref().is_none_or(|b| {
                        b.body_rest.is_none()
                            && !b.full()
                            && b.input.len() <= b.parser.limits().max_head
                    })
            }
            Phase::Lingering => !self.eof && self.phase_data > 0,
            Phase::Stalled => !self.eof,
            Phase::Closing { .. } | Phase::Resetting | Phase::Dripping => false,
        }
    }

    /// What to do next; see [`Next`].
    pub fn next(&self) -> Next {
        let flushed = self
            .work
            .as_ref()
            .is_none_or(|b| b.pending_out() == 0 && b.body_rest.is_none());
        match self.phase {
            Phase::Closing { linger } if flushed => Next::Close { linger },
            Phase::Resetting if flushed => Next::Reset,
            Phase::Open | Phase::Lingering | Phase::Stalled if flushed && self.eof => {
                Next::Close { linger: false }
            }
            Phase::Lingering if self.phase_data == 0 => Next::Close { linger: false },
            _ => Next::Continue,
        }
    }

    /// The loop shut down the write side after [`Next::Close`] with `linger`: discard input
    /// until end of input, [`LINGER_US`] from `now_us` or [`LINGER_BYTES`] of it.
    pub fn start_lingering(&mut self, now_us: u64, pool: &mut Pool) {
        self.release(pool);
        self.phase = Phase::Lingering;
        self.phase_data = (LINGER_BYTES / 1024) as u16;
        self.active_us = now_us;
    }

    /// Its last response is written and its write side shut: it only drains the client's
    /// input so that the client reads that response, not a reset ([`Conn::start_lingering`]).
    pub fn is_lingering(&self) -> bool {
        matches!(self.phase, Phase::Lingering)
    }

    /// No request is in progress and no output is pending: the connection may be closed
    /// without losing anything (idle keep-alive).
    pub fn is_idle(&self) -> bool {
        self.work.is_none() && matches!(self.phase, Phase::Open | Phase::Stalled)
    }

    /// A response is held back by time: `--delay`, a latency, a drip between its pieces. The
    /// loop then watches for the peer's hang-up, which no read would see.
    #[inline]
    pub fn is_held(&self) -> bool {
        match self.work.as_deref() {
            Some(b) => b.hold_until_us != 0,
            None => matches!(self.phase, Phase::Dripping),
        }
    }

    /// Nothing received yet: accepted, no byte of a first request read.
    pub fn is_silent(&self) -> bool {
        self.served == 0 && self.work.is_none() && matches!(self.phase, Phase::Open)
    }

    /// When the last input or output progress was (µs): among idle connections, the
    /// smallest is the longest idle (meaningless for a connection that is not idle).
    pub fn last_active_us(&self) -> u64 {
        self.active_us
    }

    /// Requests answered so far.
    pub fn served(&self) -> u32 {
        self.served
    }

    /// Bytes of input held back (a partial request, or requests paused by backpressure).
    pub fn pending_input(&self) -> usize {
        self.work.as_ref().map_or(0, |b| b.input.len())
    }

    /// Bytes in the output buffer, the written part not yet dropped included (at most the
    /// high-water mark plus one response).
    pub fn output_held(&self) -> usize {
        self.work.as_ref().map_or(0, |b| b.out.len())
    }

    /// Bytes held by this connection beyond its own struct (work area and buffer capacity).
    pub fn buffered(&self) -> usize {
        self.work.as_ref().map_or(0, |b| {
            std::mem::size_of::<WorkArea>() + b.input.capacity() + b.out.capacity()
        })
    }

    /// When the loop should call [`Conn::on_wake`] (µs): once [`Env::now_us`] is past the
    /// earliest of the connection's deadlines (its timeouts, the end of a `--delay` or latency
    /// hold, the end of lingering). `None`: nothing timed.
    #[inline(always)]
    pub fn wake_at(&self, t: &TimeoutsUs) -> Option<u64> {
        match self.phase {
            Phase::Lingering => return Some(self.active_us + LINGER_US),
            Phase::Dripping => {
                return Some(Waiting::unpack(self.active_us, self.phase_data).due_us);
            }
            _ => {}
        }
        let due = self.deadline(t).0;
        match self.work.as_deref() {
            Some(b) if b.hold_until_us != 0 => Some(due.min(b.hold_until_us)),
            _ => Some(due),
        }
    }

    /// The time asked for by [`Conn::wake_at`] (with the same timeouts) passed, or another one:
    /// the loop may call early or late, the connection checks the clock itself (a deadline has
    /// passed once `env.now_us` is beyond it). Releases held output, and handles an
    /// expired timeout: a late head is answered with 408 before closing, anything else closes
    /// at once. Returns [`Next::Close`] to close now without writing, else `Continue` (write
    /// any output, then ask [`Conn::next`]).
    pub fn on_wake(&mut self, t: &TimeoutsUs, env: &mut Env<'_>) -> Next {
        let now = env.now_us;
        if matches!(self.phase, Phase::Lingering) {
            return if now > self.active_us + LINGER_US {
                Next::Close { linger: false }
            } else {
                Next::Continue
            };
        }
        if matches!(self.phase, Phase::Dripping) {
            if now <= Waiting::unpack(self.active_us, self.phase_data).due_us {
                return Next::Continue;
            }
            self.work = Some(self.unpark(env));
        }
        if let Some(mut b) = self.work.take() {
            if b.hold_until_us != 0 && now > b.hold_until_us {
                b.hold_until_us = 0;
                b.out_since_us = now;
                if let Some((at, p)) = b.last_held.take() {
                    if env.draining && matches!(self.phase, Phase::Open) && !env.features.raw {
                        // A drain began while this response was held (by `--delay` or a
                        // latency): it becomes the last one, and says so (RFC 9112 §9.6).
                        b.out.truncate(at);
                        b.body_rest = None;
                        append_response(&mut b, &p, true, env);
                        self.phase = Phase::Closing { linger: true };
                    }
                } else if env.draining && matches!(self.phase, Phase::Open) && !env.features.raw {
                    // A drip with nothing sent yet (held, or its first pieces empty) becomes
                    // the last response the same way: only its head changes, and every
                    // variant's head has its `Date` at the same offset.
                    if let Some(c) = b.pacing.drip.as_mut().filter(|c| c.copied == 0) {
                        c.variant = KeepAliveForm::Close;
                        self.phase = Phase::Closing { linger: true };
                    }
                }
            }
            if b.hold_until_us == 0 && b.pending_out() == 0 && b.body_rest == Some((PACED, 0)) {
                // A latency or a drip's pause ended with nothing left to write.
                pace(&mut b, env);
            }
            self.keep_or_return(b, env);
        }
        if matches!(self.phase, Phase::Dripping) {
            // Parked again: an empty piece, nothing to write until the next one.
            return Next::Continue;
        }
        let (due, why) = self.deadline(t);
        if now > due {
            return self.on_timeout(why, env);
        }
        Next::Continue
    }

    /// When this connection times out, and why. The header timeout runs whenever a head is
    /// in progress, even with output pending; the write timeout counts from the last write
    /// progress (or from when the work area was taken, or held output released), so input
    /// does not refresh it.
    #[inline(always)]
    fn deadline(&self, t: &TimeoutsUs) -> (u64, Timeout) {
        let Some(b) = self.work.as_deref() else {
            if self.served == 0 && matches!(self.phase, Phase::Open) && t.header_us < t.idle_us {
                // Accepted and silent: the first head's header timeout runs from the accept.
                return (self.active_us + t.header_us, Timeout::Header);
            }
            return (self.active_us + t.idle_us, Timeout::Idle);
        };
        let writing = b.pending_out() > 0 || b.body_rest.is_some();
        let mut due = if b.hold_until_us != 0 {
            // Held output is not pending yet: the write timeout starts at its release.
            (u64::MAX, Timeout::Write)
        } else if writing {
            (b.out_since_us + t.write_us, Timeout::Write)
        } else if b.head_since_us.is_none() {
            (self.active_us + t.idle_us, Timeout::Idle)
        } else {
            (u64::MAX, Timeout::Header)
        };
        if let Some(since) = b.head_since_us {
            if since + t.header_us < due.0 {
                due = (since + t.header_us, Timeout::Header);
            }
        }
        due
    }

    fn on_timeout(&mut self, why: Timeout, env: &mut Env<'_>) -> Next {
        env.stats.timeouts[why as usize] += 1;
        if why == Timeout::Header && matches!(self.phase, Phase::Open) {
            if let Some(mut b) = self.work.take() {
                if b.pending_out() == 0 {
                    // The partial head is still in the input: a HEAD request's 408 has no body.
                    let head = is_head_request(&b.input);
                    b.input.clear();
                    emit_error_to(&mut b, 408, head, env);
                    self.phase = Phase::Closing { linger: false };
                    self.active_us = env.now_us;
                    b.out_since_us = env.now_us;
                    self.work = Some(b);
                    return Next::Continue;
                }
                self.work = Some(b);
            }
        }
        Next::Close { linger: false }
    }

    /// Process buffered input (after output drained or more input arrived).
    fn resume(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        let input = std::mem::take(&mut b.input);
        let used = self.process(b, &input, env);
        let mut input = input;
        if used >= input.len() {
            input.clear();
        } else {
            input.drain(..used);
        }
        b.input = input;
    }

    /// A close or a fault decided that nothing more is answered; `unanswered`: requests came
    /// after it.
    #[cold]
    fn answer_no_more(&mut self, unanswered: bool) {
        if unanswered && matches!(self.phase, Phase::Closing { .. }) {
            // Requests after the close are not answered; drain them before closing so that
            // the unread bytes do not turn the close into a reset.
            self.phase = Phase::Closing { linger: true };
        }
    }

    /// Parse and answer what `buf` holds; returns the bytes used (all of them once a close is
    /// decided: later requests are not answered).
    fn process(&mut self, b: &mut WorkArea, buf: &[u8], env: &mut Env<'_>) -> usize {
        let mut at = 0;
        loop {
            if !matches!(self.phase, Phase::Open) {
                self.answer_no_more(at < buf.len());
                return buf.len();
            }
            match &mut b.body {
                Body::Length(left) => {
                    let take = (*left).min((buf.len() - at) as u64);
                    at += take as usize;
                    *left -= take;
                    if *left > 0 {
                        return at;
                    }
                    b.body = Body::None;
                    self.respond(b, env);
                }
                Body::Chunked(d) => match d.decode(&buf[at..]) {
                    Ok(p) => {
                        at += p.consumed;
                        if !p.done {
                            if d.over_limit() {
                                // The chunks announced more data than the body limit: 413
                                // and close, as for a Content-Length over it.
                                let head = b.pending.is_some_and(|p| p.head);
                                emit_error_to(b, 413, head, env);
                                self.phase = Phase::Closing { linger: true };
                                return buf.len();
                            }
                            return at;
                        }
                        b.body = Body::None;
                        self.respond(b, env);
                    }
                    Err(e) => {
                        let head = b.pending.is_some_and(|p| p.head);
                        self.fail(b, e, head, env);
                        return buf.len();
                    }
                },
                Body::None => {
                    if at == buf.len() || b.body_rest.is_some() || b.full() {
                        return at;
                    }
                    match b.parser.parse(&buf[at..]) {
                        Ok(Status::Partial) => {
                            b.head_since_us.get_or_insert(env.now_us);
                            return at;
                        }
                        Err(e) => {
                            // Only the bytes the parser examined: the answer must not depend
                            // on how much of the rest had arrived.
                            let seen = (b.parser.position() + 1).min(buf.len() - at);
                            let head = is_head_request(&buf[at..at + seen]);
                            self.fail(b, e, head, env);
                            return buf.len();
                        }
                        Ok(Status::Complete(req)) => {
                            b.head_since_us = None;
                            at += req.head_len;
                            env.stats.requests += 1;
                            let route = env.responses.route(req.method, req.path);
                            let logged = env.features.access_log.is_some()
                                && !env.responses.is_health(route);
                            if logged {
                                request_line(&mut b.log_line, &req);
                            }
                            b.pending = Some(Pending {
                                route: route as u16,
                                head: req.is_head,
                                keep_alive: req.keep_alive,
                                http10: req.version == Version::Http10,
                                logged,
                            });
                            b.body = match req.framing {
                                Framing::None => Body::None,
                                Framing::Length(n) if n > env.conn_limits.max_body => {
                                    // Refused before any of it is read: 413 and close
                                    // (RFC 9110 §15.5.14), draining what the client sends on.
                                    emit_error_to(b, 413, req.is_head, env);
                                    self.phase = Phase::Closing { linger: true };
                                    return buf.len();
                                }
                                Framing::Length(n) => Body::Length(n),
                                Framing::Chunked => Body::Chunked(ChunkedDecoder::with_data_limit(
                                    env.conn_limits.max_body,
                                )),
                            };
                            if req.expect_continue && !env.features.raw {
                                b.out.extend_from_slice(CONTINUE);
                            }
                            if b.body == Body::None {
                                self.respond(b, env);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Answer the request whose head (and body) is complete.
    fn respond(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        if let Some(f) = env.features.faults.as_deref() {
            if b.pending.is_some_and(|p| f.applies(p.route as usize)) {
                self.respond_with_fault(b, env);
                return;
            }
        }
        let Some(p) = b.pending.take() else {
            return;
        };
        self.respond_plain(b, p, env);
    }

    /// Whether the response to `p` (the `served`th) closes the connection.
    #[inline(always)]
    fn closes_after(&self, p: &Pending, env: &Env<'_>) -> bool {
        if env.features.raw {
            env.features.raw_close
        } else {
            !p.keep_alive
                || env.draining
                || (env.max_requests > 0 && self.served >= env.max_requests)
        }
    }

    /// Answer `p` with its route's response.
    #[inline(always)]
    fn respond_plain(&mut self, b: &mut WorkArea, p: Pending, env: &mut Env<'_>) {
        self.served = self.served.saturating_add(1);
        let close = self.closes_after(&p, env);
        let status = env.responses.status(p.route as usize);
        env.stats.by_status[status as usize] += 1;
        if p.logged {
            log_response(b, status, env);
        }
        if env.features.delay_us > 0 {
            if b.pending_out() == 0 {
                b.hold_until_us = env.now_us + env.features.delay_us;
            }
            if b.hold_until_us != 0 {
                b.last_held = Some((b.out.len(), p));
            }
        }
        append_response(b, &p, close, env);
        if close {
            // A close the client did not ask for may cross requests it already sent: drain
            // them instead of answering them with a reset.
            let server_initiated = p.keep_alive && !env.features.raw;
            self.phase = Phase::Closing {
                linger: server_initiated,
            };
        }
    }

    /// Answer `p` when faults are configured: with its route's fault (or a `--mutate`
    /// variant) if it has one, else plainly. Out of line, so that the plain path pays one test.
    #[cold]
    #[inline(never)]
    fn respond_with_fault(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        use crate::fault::FaultKind;
        let Some(p) = b.pending.take() else {
            return;
        };
        let Some(d) = env
            .features
            .faults
            .as_deref_mut()
            .and_then(|f| f.decide(p.route as usize))
        else {
            // Not reached: `decide` answers for every route `applies` names.
            self.respond_plain(b, p, env);
            return;
        };
        self.served = self.served.saturating_add(1);
        let close = self.closes_after(&p, env);
        let (plan, route) = match d {
            Decision::Mutate(i) => {
                let m = &mut env.stats.mutated;
                if m.len() <= i {
                    m.resize(crate::mutate::COUNT, 0);
                }
                m[i] += 1;
                // No status of its own: a variant may have none, or several.
                let logged = p.logged && log_response(b, 0, env);
                hold(b, 0, env);
                if let Some(f) = env.features.faults.as_deref() {
                    b.out.extend_from_slice(f.variant(i));
                }
                if logged {
                    annotate_log(env, "mutate=", crate::mutate::id(i));
                }
                // The client cannot know where a broken response ends.
                self.phase = Phase::Closing { linger: true };
                return;
            }
            Decision::Fault { plan, route } => (plan, route),
        };
        let logged = p.logged && {
            let status = match plan.delivery {
                // Nothing with a status is sent.
                Delivery::Stall | Delivery::Garbage(_) => 0,
                _ => env.responses.status(route as usize),
            };
            log_response(b, status, env)
        };
        if plan.delay_us > 0 {
            env.stats.faults[FaultKind::Latency.index()] += 1;
            if logged {
                annotate_log(env, "fault=", FaultKind::Latency.name());
            }
        }
        if plan.error {
            env.stats.faults[FaultKind::Error.index()] += 1;
            if logged {
                annotate_log(env, "fault=", FaultKind::Error.name());
            }
        }
        if let Some(k) = plan.delivery.kind() {
            env.stats.faults[k.index()] += 1;
            if logged {
                annotate_log(env, "fault=", k.name());
            }
        }
        match plan.delivery {
            Delivery::Stall => {
                self.phase = Phase::Stalled;
                return;
            }
            Delivery::Garbage(_) => {
                hold(b, plan.delay_us, env);
                if let Some(f) = env.features.faults.as_deref() {
                    b.out.extend_from_slice(f.garbage(p.route as usize));
                }
                self.phase = Phase::Closing { linger: true };
                return;
            }
            _ => {}
        }
        env.stats.by_status[env.responses.status(route as usize) as usize] += 1;
        hold(b, plan.delay_us, env);
        let p = Pending { route, ..p };
        if let Delivery::Drip(drip) = plan.delivery {
            start_drip(b, drip, &p, close, env);
            // A response held before it is not the last: a drain that begins while the drip
            // is held changes the drip's head instead (`Conn::on_wake`).
            b.last_held = None;
        } else {
            let start = b.out.len();
            append_response(b, &p, close, env);
            if let Delivery::Truncate(cut) | Delivery::Reset(cut) = plan.delivery {
                let sent_now = b.out.len() - start;
                let rest = b
                    .body_rest
                    .map_or(0, |(r, at)| env.responses.body(r as usize).len() - at);
                let keep = cut.keep(sent_now + rest);
                if keep <= sent_now {
                    b.out.truncate(start + keep);
                    b.body_rest = None;
                } else if let Some((_, at)) = b.body_rest {
                    b.pacing.body_stop = Some(at + keep - sent_now);
                }
                self.phase = match plan.delivery {
                    Delivery::Reset(_) => Phase::Resetting,
                    _ => Phase::Closing { linger: true },
                };
                return;
            }
            if b.hold_until_us != 0 {
                // Whole: a drain that begins while it is held turns it into the closing
                // response, as a `--delay` hold's (`Conn::on_wake`).
                b.last_held = Some((start, p));
            }
            if plan.delay_us > 0 && b.body_rest.is_none() {
                b.body_rest = Some((PACED, 0));
            }
        }
        if close {
            let server_initiated = p.keep_alive && !env.features.raw;
            self.phase = Phase::Closing {
                linger: server_initiated,
            };
        }
    }

    /// A request (`head`: a HEAD request) failed: answer its error status and close.
    fn fail(&mut self, b: &mut WorkArea, e: Error, head: bool, env: &mut Env<'_>) {
        env.stats.errors[e.index()] += 1;
        emit_error_to(b, e.status(), head, env);
        self.phase = Phase::Closing { linger: true };
    }

    /// Give the work area back to the pool (before dropping the connection).
    pub fn release(&mut self, pool: &mut Pool) {
        if let Some(b) = self.work.take() {
            pool.put(b);
        }
    }
}

/// Hold the response about to be appended for `--delay` (joining the hold of the batch it
/// belongs to, as a plain response does), then `latency_us` more: a latency fault adds to the
/// delay. A latency holds output queued before the response with it: responses stay in order.
#[cold]
fn hold(b: &mut WorkArea, latency_us: u64, env: &Env<'_>) {
    let delay = env.features.delay_us;
    if latency_us > 0 {
        b.hold_until_us = env.now_us + delay + latency_us;
    } else if delay > 0 && b.pending_out() == 0 {
        b.hold_until_us = env.now_us + delay;
    }
}

/// Append the response to `p`: the head of the variant that `close` and the request's version
/// call for, then the body (its first piece, when it is streamed).
#[inline(always)]
fn append_response(b: &mut WorkArea, p: &Pending, close: bool, env: &Env<'_>) {
    let variant = match (close, p.http10) {
        (true, _) => KeepAliveForm::Close,
        (false, true) => KeepAliveForm::KeepAlive10,
        (false, false) => KeepAliveForm::KeepAlive11,
    };
    let head_only = p.head || env.features.raw;
    let chunk = env.conn_limits.body_chunk.max(1);
    if let Some(at) = env
        .responses
        .append(p.route as usize, variant, head_only, chunk, &mut b.out)
    {
        b.body_rest = Some((p.route, at));
    }
}

/// Start dripping the response to `p` (route `p.route`'s bytes): piece 0 at once, behind any
/// output before it, or when a latency's hold ends (`hold_until_us`). Nothing is copied but the
/// pieces due.
fn start_drip(b: &mut WorkArea, drip: Drip, p: &Pending, close: bool, env: &mut Env<'_>) {
    let variant = match (close, p.http10) {
        (true, _) => KeepAliveForm::Close,
        (false, true) => KeepAliveForm::KeepAlive10,
        (false, false) => KeepAliveForm::KeepAlive11,
    };
    b.pacing.drip = Some(DripCursor {
        drip,
        route: p.route,
        variant,
        head_only: p.head || env.features.raw,
        from_us: if b.hold_until_us != 0 {
            b.hold_until_us
        } else {
            env.now_us
        },
        next: 0,
        released: 0,
        copied: 0,
    });
    b.body_rest = Some((PACED, 0));
    if let Some(c) = b.pacing.drip {
        // Room for the most one copy adds (a short response whole, else a body chunk), so
        // that however many pieces fall due at once, a warmed-up buffer does not grow.
        let most = c.len(env.responses).min(env.conn_limits.body_chunk.max(1));
        b.out.reserve(most);
    }
    if b.hold_until_us == 0 {
        if b.pending_out() == 0 {
            pace(b, env);
        } else {
            drip_more(b, env);
        }
    }
}

/// Release the drip pieces due by now, and copy up to a body chunk of the released bytes into
/// `out` (so that a large piece is never in memory whole). Returns whether it copied any.
fn drip_more(b: &mut WorkArea, env: &mut Env<'_>) -> bool {
    let Some(mut c) = b.pacing.drip else {
        return false;
    };
    let total = c.len(env.responses);
    // Piece 0 goes as soon as the response may (this is called once its hold, if any, has
    // passed); a later piece once its time has passed.
    while c.released < total && (c.next == 0 || env.now_us > c.next_due_us()) {
        c.released = c.drip.piece_end(c.next, total);
        c.next = c.next.saturating_add(1);
    }
    let more = c.copied < c.released;
    if more {
        let end = c
            .released
            .min(c.copied.saturating_add(env.conn_limits.body_chunk.max(1)));
        copy_drip(&mut b.out, &c, end, env);
        c.copied = end;
    }
    b.pacing.drip = Some(c);
    more
}

/// Copy the dripped response's bytes from `c.copied` to `end` into `out`. The head's `Date`
/// value is patched in place once a second, so a piece that holds part of it gets the value for
/// the time of the response's first piece instead: the client reads one date however the head
/// is split.
fn copy_drip(out: &mut Vec<u8>, c: &DripCursor, end: usize, env: &mut Env<'_>) {
    let r = env.responses;
    let route = c.route as usize;
    let head_len = r.head_len(route, c.variant);
    let (start, at) = (c.copied, out.len());
    if start < head_len {
        r.copy_head(route, c.variant, start, end.min(head_len), out);
        if let Some(d) = r.date_offset(route) {
            let (lo, hi) = (d.max(start), (d + r.date().len()).min(end));
            if lo < hi {
                let date = match env.features.faults.as_deref_mut() {
                    Some(f) => f.date_at(c.from_us, env.now_us),
                    None => *r.date(),
                };
                out[at + lo - start..at + hi - start].copy_from_slice(&date[lo - d..hi - d]);
            }
        }
    }
    if end > head_len {
        let body = r.body(route);
        out.extend_from_slice(&body[start.max(head_len) - head_len..end - head_len]);
    }
}

/// A paced response's output is all written (or was empty): copy more of a drip, or hold until
/// its next piece is due, or end the pacing (a latency's response, or the drip, is out).
fn pace(b: &mut WorkArea, env: &mut Env<'_>) {
    if drip_more(b, env) {
        b.out_since_us = env.now_us;
        return;
    }
    match b.pacing.drip {
        Some(c) if c.copied < c.len(env.responses) => b.hold_until_us = c.next_due_us(),
        _ => {
            // The response is out: later requests may be answered.
            b.pacing.drip = None;
            b.body_rest = None;
        }
    }
}

/// Add ` KEYVALUE` to the access-log line just written (the request's), if logging. Past
/// [`ACCESS_LOG_TURN_BYTES`] by a few such words at most: the line's room was checked without
/// them, and dropping it now would leave half a line.
fn annotate_log(env: &mut Env<'_>, key: &str, value: &str) {
    if let Some(log) = env.features.access_log.as_deref_mut() {
        if log.last() == Some(&b'\n') {
            log.pop();
            log.push(b' ');
            log.extend_from_slice(key.as_bytes());
            log.extend_from_slice(value.as_bytes());
            log.push(b'\n');
        }
    }
}

/// Whether the request starting at `buf` (after any empty lines, RFC 9112 §2.2) asks for HEAD,
/// read from the bytes themselves so that a request the parser rejected is known too.
fn is_head_request(buf: &[u8]) -> bool {
    let start = buf
        .iter()
        .position(|&c| c != b'\r' && c != b'\n')
        .unwrap_or(buf.len());
    buf[start..].starts_with(b"HEAD ")
}

/// Keep `METHOD TARGET VERSION ` of an access-log line until the response is decided.
fn request_line(line: &mut Vec<u8>, req: &crate::parser::Request<'_>) {
    line.clear();
    line.extend_from_slice(req.method);
    line.push(b' ');
    line.extend_from_slice(req.target);
    line.extend_from_slice(match req.version {
        Version::Http10 => b" HTTP/1.0 ",
        Version::Http11 => b" HTTP/1.1 ",
    });
}

/// Append the access-log line `[DATE] METHOD TARGET VERSION STATUS` of the response being
/// sent; `- - -` stands for a request line that was never parsed (an error or a timeout), and
/// `-` for the date with `--no-date` (common log format's mark of a missing field). Returns
/// whether the line was written: one that would take the turn's lines past
/// [`ACCESS_LOG_TURN_BYTES`] goes after them once they are handed to the [`LogSink`], or
/// with none, is dropped whole and counted.
fn log_response(b: &mut WorkArea, status: u16, env: &mut Env<'_>) -> bool {
    let Some(log) = env.features.access_log.as_deref_mut() else {
        // Not kept for a later response, whatever this caller passed.
        b.log_line.clear();
        return false;
    };
    let date = env.responses.date();
    // Spaces with `--no-date`; an IMF-fixdate starts with the day's name.
    let dated = date[0] != b' ';
    let request = if b.log_line.is_empty() {
        &b"- - - "[..]
    } else {
        &b.log_line[..]
    };
    let len = if dated { date.len() + 3 } else { 2 } + request.len() + 4;
    if log.len() + len > ACCESS_LOG_TURN_BYTES {
        match env.features.log_sink {
            Some(sink) => env.stats.log_lines_dropped += sink.hand_off(log),
            None => {
                env.stats.log_lines_dropped += 1;
                b.log_line.clear();
                return false;
            }
        }
    }
    if dated {
        log.push(b'[');
        log.extend_from_slice(date);
        log.extend_from_slice(b"] ");
    } else {
        log.extend_from_slice(b"- ");
    }
    log.extend_from_slice(request);
    b.log_line.clear();
    log.extend_from_slice(&[
        b'0' + (status / 100) as u8,
        b'0' + (status / 10 % 10) as u8,
        b'0' + (status % 10) as u8,
        b'\n',
    ]);
    true
}

/// Answer `status` (an error: the response closes the connection). The response to a HEAD
/// request has the head alone, with the Content-Length its body would have had (RFC 9110
/// §9.3.2: the same fields as for GET).
fn emit_error_to(b: &mut WorkArea, status: u16, head: bool, env: &mut Env<'_>) {
    let logged = match b.pending.take() {
        Some(p) => p.logged,
        // No request head was complete: log it with unknown fields.
        None => env.features.access_log.is_some(),
    };
    if logged {
        log_response(b, status, env);
    }
    b.body = Body::None;
    b.head_since_us = None;
    b.parser.reset();
    env.stats.by_status[status as usize] += 1;
    let (head_bytes, body) = env.responses.error(status);
    b.out.extend_from_slice(head_bytes);
    if !head {
        b.out.extend_from_slice(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of a parked drip survives packing into the connection's fields, up to the
    /// largest numbers that fit; a larger one does not pack (the work area is kept).
    #[test]
    fn a_waiting_drip_packs_and_unpacks() {
        let top = |bits: u32| (1u64 << bits) - 1;
        for variant in [
            KeepAliveForm::KeepAlive11,
            KeepAliveForm::KeepAlive10,
            KeepAliveForm::Close,
        ] {
            for (linger, head_only) in [(false, false), (true, false), (false, true), (true, true)]
            {
                for (due_us, next, route) in [
                    (0, 0, 0),
                    (1_234, 5, 7),
                    (
                        top(Waiting::DUE_BITS),
                        top(Waiting::NEXT_BITS) as u32,
                        u16::MAX,
                    ),
                ] {
                    let w = Waiting {
                        due_us,
                        next,
                        variant,
                        linger,
                        head_only,
                        route,
                    };
                    let (active, data) = w.pack().unwrap();
                    assert_eq!(Waiting::unpack(active, data), w);
                }
            }
        }
        let w = Waiting {
            due_us: 1,
            next: 1,
            variant: KeepAliveForm::Close,
            linger: true,
            head_only: true,
            route: 1,
        };
        assert!(
            Waiting {
                due_us: 1 << Waiting::DUE_BITS,
                ..w
            }
            .pack()
            .is_none()
        );
        assert!(
            Waiting {
                next: 1 << Waiting::NEXT_BITS,
                ..w
            }
            .pack()
            .is_none()
        );
    }

    /// Memory per connection is a goal (README, Footprint): a parked drip lives in the
    /// connection's own fields, which stay 24 bytes.
    #[test]
    fn a_connection_stays_24_bytes() {
        assert!(std::mem::size_of::<Conn>() <= 24);
        assert_eq!(std::mem::size_of::<Phase>(), 1);
    }
}
