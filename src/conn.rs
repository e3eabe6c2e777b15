//! One connection's life, without sockets.
//!
//! The poll loop hands a [`Conn`] the bytes it read ([`Conn::on_data`]), end of input
//! ([`Conn::on_eof`]), how much of [`Conn::output`] it wrote ([`Conn::wrote`]) and expired
//! deadlines ([`Conn::on_timeout`]); the connection decides everything else: which requests
//! are complete, what to answer, when to stop reading (backpressure) and when to close
//! ([`Conn::next`]). Nothing here knows about sockets or epoll, so the fuzzer and the tests
//! drive it directly.
//!
//! Memory: an idle connection holds no buffer. Input is parsed where the loop read it (a
//! per-worker scratch buffer); only a partial request is copied into a buffer of the
//! connection's own, and output lives in a buffer taken from the worker's [`Pool`] while it
//! is pending.

use crate::chunked::ChunkedDecoder;
use crate::parser::{Error, Framing, Limits, Parser, Status, Version};
use crate::response::{CONTINUE, Responses, Variant};

/// Stop reading from a connection while this much output is pending (backpressure).
pub const HIGH_WATER: usize = 256 * 1024;
/// Bodies up to this size are copied into the output; larger ones are streamed in pieces of
/// this size so that a large body never sits in memory more than once.
pub const BODY_CHUNK: usize = 64 * 1024;

/// A per-worker free list of byte buffers, so that steady-state traffic allocates nothing.
#[derive(Debug, Default)]
pub struct Pool {
    free: Vec<Vec<u8>>,
}

impl Pool {
    const KEEP: usize = 64;
    const MAX_CAPACITY: usize = 2 * HIGH_WATER;

    /// An empty buffer, reused when one is free.
    pub fn take(&mut self) -> Vec<u8> {
        self.free.pop().unwrap_or_else(|| Vec::with_capacity(4096))
    }

    /// Give a buffer back.
    pub fn put(&mut self, mut buf: Vec<u8>) {
        if buf.capacity() == 0
            || buf.capacity() > Self::MAX_CAPACITY
            || self.free.len() >= Self::KEEP
        {
            return;
        }
        buf.clear();
        self.free.push(buf);
    }

    /// Buffers held for reuse.
    pub fn len(&self) -> usize {
        self.free.len()
    }

    /// Whether no buffer is held.
    pub fn is_empty(&self) -> bool {
        self.free.is_empty()
    }
}

/// Timeouts, in milliseconds.
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

/// Counters of one worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Complete request heads.
    pub requests: u64,
    /// Responses started, by status code (index = status).
    pub by_status: Vec<u64>,
    /// Rejected requests, by [`Error::index`].
    pub errors: [u64; Error::ALL.len()],
    /// Timeouts: header, idle, write.
    pub timeouts: [u64; 3],
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            requests: 0,
            by_status: vec![0; 600],
            errors: [0; Error::ALL.len()],
            timeouts: [0; 3],
            bytes_in: 0,
            bytes_out: 0,
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
    /// Monotonic time in milliseconds (any origin).
    pub now: u64,
    /// Close after this many responses (0: unlimited).
    pub max_requests: u32,
    /// The server is shutting down: the next response closes.
    pub draining: bool,
    /// Send the same bytes for every request (`--raw-response`): the route head alone, and
    /// keep the connection open unless `raw_close`.
    pub raw: bool,
    /// With `raw`, close after each response.
    pub raw_close: bool,
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    /// Answer nothing more; close once the output is written.
    Closing {
        linger: bool,
    },
}

/// The state of one connection. See the module documentation.
#[derive(Debug)]
pub struct Conn {
    parser: Parser,
    body: Body,
    pending: Option<Pending>,
    phase: Phase,
    eof: bool,
    /// Requests answered.
    served: u32,
    /// Unprocessed input (a partial request, or requests held back by backpressure).
    input: Vec<u8>,
    /// Pending output and how much of it is written.
    out: Vec<u8>,
    out_pos: usize,
    /// A large body still to copy: (route, offset).
    tail: Option<(u16, usize)>,
    /// When the current head started, or the last input / output progress.
    head_since: Option<u64>,
    active: u64,
}

impl Conn {
    /// A new connection accepted at time `now`.
    pub fn new(limits: Limits, now: u64) -> Conn {
        Conn {
            parser: Parser::new(limits),
            body: Body::None,
            pending: None,
            phase: Phase::Open,
            eof: false,
            served: 0,
            input: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            tail: None,
            head_since: None,
            active: now,
        }
    }

    /// Bytes read from the peer.
    pub fn on_data(&mut self, data: &[u8], env: &mut Env<'_>) {
        env.stats.bytes_in += data.len() as u64;
        self.active = env.now;
        if self.phase != Phase::Open {
            if !data.is_empty() {
                self.phase = Phase::Closing { linger: true };
            }
            return;
        }
        if self.input.is_empty() {
            let used = self.process(data, env);
            if used < data.len() {
                self.input = env.pool.take();
                self.input.extend_from_slice(&data[used..]);
            }
        } else {
            self.input.extend_from_slice(data);
            self.resume(env);
        }
    }

    /// The peer will send nothing more. Requests already received are still answered.
    pub fn on_eof(&mut self) {
        self.eof = true;
    }

    /// Output waiting to be written.
    pub fn output(&self) -> &[u8] {
        &self.out[self.out_pos..]
    }

    /// `n` bytes of [`Conn::output`] were written.
    pub fn wrote(&mut self, n: usize, env: &mut Env<'_>) {
        debug_assert!(n <= self.out.len() - self.out_pos);
        env.stats.bytes_out += n as u64;
        if n > 0 {
            self.active = env.now;
        }
        self.out_pos += n;
        if self.out_pos < self.out.len() {
            return;
        }
        self.out.clear();
        self.out_pos = 0;
        if let Some((route, at)) = self.tail {
            let body = env.responses.body(route as usize);
            let end = body.len().min(at + BODY_CHUNK);
            self.out.extend_from_slice(&body[at..end]);
            self.tail = (end < body.len()).then_some((route, end));
        }
        if self.tail.is_none() && !self.input.is_empty() && self.phase == Phase::Open {
            self.resume(env);
        }
        if self.out.is_empty() {
            env.pool.put(std::mem::take(&mut self.out));
        }
    }

    /// Whether the loop should read from this connection: not after a close was decided, not
    /// after end of input, and not while output piles up.
    pub fn wants_read(&self) -> bool {
        self.phase == Phase::Open
            && !self.eof
            && self.tail.is_none()
            && self.out.len() - self.out_pos < HIGH_WATER
    }

    /// What to do next; see [`Next`].
    pub fn next(&self) -> Next {
        let flushed = self.out_pos == self.out.len() && self.tail.is_none();
        match self.phase {
            Phase::Closing { linger } if flushed => Next::Close { linger },
            Phase::Open if flushed && self.eof => Next::Close { linger: false },
            _ => Next::Continue,
        }
    }

    /// No request is in progress and no output is pending: the connection may be closed
    /// without losing anything (idle keep-alive).
    pub fn is_idle(&self) -> bool {
        self.input.is_empty()
            && self.out.is_empty()
            && self.tail.is_none()
            && self.body == Body::None
            && !self.parser.in_progress()
    }

    /// Requests answered so far.
    pub fn served(&self) -> u32 {
        self.served
    }

    /// Bytes of input held back (a partial request, or requests paused by backpressure).
    pub fn pending_input(&self) -> usize {
        self.input.len()
    }

    /// Bytes held by this connection's buffers (capacity).
    pub fn buffered(&self) -> usize {
        self.input.capacity() + self.out.capacity()
    }

    /// When this connection times out, and why.
    pub fn deadline(&self, t: &Timeouts) -> (u64, Timeout) {
        if self.out_pos < self.out.len() || self.tail.is_some() {
            (self.active + t.write, Timeout::Write)
        } else if let Some(since) = self.head_since {
            (since + t.header, Timeout::Header)
        } else {
            (self.active + t.idle, Timeout::Idle)
        }
    }

    /// The deadline passed. A late head is answered with 408 before closing; anything else
    /// closes at once. Returns what to do.
    pub fn on_timeout(&mut self, why: Timeout, env: &mut Env<'_>) -> Next {
        env.stats.timeouts[why as usize] += 1;
        if why == Timeout::Header && self.out.is_empty() && self.phase == Phase::Open {
            self.emit_error(408, env);
            self.phase = Phase::Closing { linger: false };
            self.active = env.now;
            return Next::Continue;
        }
        Next::Close { linger: false }
    }

    /// Process buffered input (after output drained or more input arrived).
    fn resume(&mut self, env: &mut Env<'_>) {
        let input = std::mem::take(&mut self.input);
        let used = self.process(&input, env);
        let mut input = input;
        if used >= input.len() {
            input.clear();
            env.pool.put(input);
        } else {
            input.drain(..used);
            self.input = input;
        }
    }

    /// Parse and answer what `buf` holds; returns the bytes used (all of them once a close is
    /// decided: later requests are not answered).
    fn process(&mut self, buf: &[u8], env: &mut Env<'_>) -> usize {
        let mut at = 0;
        loop {
            if self.phase != Phase::Open {
                if at < buf.len() {
                    // Requests after the close are not answered; drain them before closing
                    // so that the unread bytes do not turn the close into a reset.
                    self.phase = Phase::Closing { linger: true };
                }
                return buf.len();
            }
            match &mut self.body {
                Body::Length(left) => {
                    let take = (*left).min((buf.len() - at) as u64);
                    at += take as usize;
                    *left -= take;
                    if *left > 0 {
                        return at;
                    }
                    self.body = Body::None;
                    self.respond(env);
                }
                Body::Chunked(d) => match d.decode(&buf[at..]) {
                    Ok(p) => {
                        at += p.consumed;
                        if !p.done {
                            return at;
                        }
                        self.body = Body::None;
                        self.respond(env);
                    }
                    Err(e) => {
                        self.fail(e, env);
                        return buf.len();
                    }
                },
                Body::None => {
                    if at == buf.len()
                        || self.tail.is_some()
                        || self.out.len() - self.out_pos >= HIGH_WATER
                    {
                        return at;
                    }
                    match self.parser.parse(&buf[at..]) {
                        Ok(Status::Partial) => {
                            self.head_since.get_or_insert(env.now);
                            return at;
                        }
                        Err(e) => {
                            self.fail(e, env);
                            return buf.len();
                        }
                        Ok(Status::Complete(req)) => {
                            self.head_since = None;
                            at += req.head_len;
                            env.stats.requests += 1;
                            let route = env.responses.route(req.method, req.path);
                            self.pending = Some(Pending {
                                route: route as u16,
                                head: req.is_head,
                                keep_alive: req.keep_alive,
                                http10: req.version == Version::Http10,
                            });
                            self.body = match req.framing {
                                Framing::None => Body::None,
                                Framing::Length(n) => Body::Length(n),
                                Framing::Chunked => Body::Chunked(ChunkedDecoder::new()),
                            };
                            if req.expect_continue && !env.raw {
                                self.push(CONTINUE, env);
                            }
                            if self.body == Body::None {
                                self.respond(env);
                            }
                        }
                    }
                }
            }
        }
    }

    fn push(&mut self, bytes: &[u8], env: &mut Env<'_>) {
        if self.out.capacity() == 0 {
            self.out = env.pool.take();
        }
        self.out.extend_from_slice(bytes);
    }

    /// Answer the request whose head (and body) is complete.
    fn respond(&mut self, env: &mut Env<'_>) {
        let Some(p) = self.pending.take() else {
            return;
        };
        self.served += 1;
        let close = if env.raw {
            env.raw_close
        } else {
            !p.keep_alive
                || env.draining
                || (env.max_requests > 0 && self.served >= env.max_requests)
        };
        let variant = match (close, p.http10) {
            (true, _) => Variant::Close,
            (false, true) => Variant::KeepAlive10,
            (false, false) => Variant::KeepAlive11,
        };
        let route = p.route as usize;
        let r = env.responses;
        env.stats.by_status[r.status(route) as usize] += 1;
        self.push(r.head(route, variant), env);
        if !p.head && !env.raw {
            let body = r.body(route);
            if body.len() <= BODY_CHUNK {
                self.push(body, env);
            } else {
                self.push(&body[..BODY_CHUNK], env);
                self.tail = Some((p.route, BODY_CHUNK));
            }
        }
        if close {
            self.phase = Phase::Closing { linger: false };
        }
    }

    fn fail(&mut self, e: Error, env: &mut Env<'_>) {
        env.stats.errors[e.index()] += 1;
        self.emit_error(e.status(), env);
        self.phase = Phase::Closing { linger: true };
    }

    fn emit_error(&mut self, status: u16, env: &mut Env<'_>) {
        self.pending = None;
        self.body = Body::None;
        self.head_since = None;
        env.stats.by_status[status as usize] += 1;
        let (head, body) = env.responses.error(status);
        self.push(head, env);
        self.push(body, env);
    }

    /// Give every buffer back to the pool (before dropping the connection).
    pub fn release(&mut self, pool: &mut Pool) {
        pool.put(std::mem::take(&mut self.input));
        pool.put(std::mem::take(&mut self.out));
        self.out_pos = 0;
        self.tail = None;
    }
}
