//! A WebSocket echo (RFC 6455) on the paths `--websocket` names: the connection HTTP/1 hands
//! over after a valid opening handshake ([`WsConn::upgraded`]), driven by the loop like
//! HTTP/1 and HTTP/2 through [`Connection`].
//!
//! Text and binary messages are echoed whole, in one frame, once their last fragment is in;
//! a ping is answered with a pong carrying its payload, a pong is ignored, a close is echoed
//! with its code and the connection closes once that is written (§5.5.1, §7.1.1: the server
//! closes TCP first). Anything RFC 6455 calls a failure (§7.1.7) is answered with a close
//! naming it and the connection closes: 1002 for a frame that breaks §5 (RSV bits, reserved
//! opcodes, no mask, a control frame fragmented or over 125 bytes, a continuation with no
//! message or a new message inside one, a close of one byte or with a code a peer may not
//! send), 1007 for text that is not UTF-8 (checked as it arrives: a bad byte fails in the
//! read that brings it, §8.1), 1009 for a message over `--websocket-max-message`.
//! No extension is negotiated (permessage-deflate, RFC 7692, is not offered).
//!
//! | file | holds |
//! |---|---|
//! | `handshake` | the `101` and its `Sec-WebSocket-Accept` (SHA-1, base64) |
//! | `frame` | frame headers read and written, unmasking, close codes |
//! | `utf8` | UTF-8 checked across the pieces of a message |
//!
//! Memory: the connection holds its input, its output and the message being reassembled,
//! each reused from message to message (a buffer over [`KEEP_MESSAGE`] is given back once
//! emptied). Reading stops while the output holds [`HIGH_WATER`] or more
//! (backpressure), so a peer that never reads holds at most that plus one message.

mod frame;
mod handshake;
mod utf8;

use crate::conn::{
    Connection, Env, HIGH_WATER, LINGER_BYTES, LINGER_US, Next, Pool, Pooled, Settings,
    WebSocketRequest,
};
use crate::fault::Drip;
use crate::fault::Rng;
use crate::fault::websocket::{FRAMES, WsEnd, WsFaults};
use crate::stats::Timeout;
use frame::{
    BINARY, CLOSE, CONTINUATION, GOING_AWAY, Header, INVALID_DATA, MAX_CONTROL, PING, PONG,
    PROTOCOL_ERROR, TEXT, TOO_BIG,
};
use utf8::Utf8;

/// A buffer (message, output, input) with more capacity than this once emptied is given
/// back: one large message does not keep its memory for the connection's life, and an idle
/// connection holds at most three times this besides its state.
pub const KEEP_MESSAGE: usize = 64 * 1024;

/// One WebSocket connection. See the module documentation.
#[derive(Debug)]
pub struct WsConn {
    st: Box<State>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Reading frames, echoing messages.
    Open,
    /// A close is queued (an echo of the peer's, or one of ours): nothing more is read;
    /// close once it is written.
    Closing,
    /// The write side is shut down; input is discarded for a while.
    Lingering,
}

/// A data frame whose payload is being read: it is taken as it arrives.
#[derive(Clone, Copy, Debug)]
struct Payload {
    fin: bool,
    mask: [u8; 4],
    /// Payload bytes read so far (the mask's phase).
    read: u64,
    /// Payload bytes still to come.
    left: u64,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// Bytes read and not yet used: an incomplete frame header or control frame.
    input: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    /// The data message being reassembled, unmasked.
    message: Vec<u8>,
    /// Its opcode (TEXT or BINARY), `CONTINUATION` while no message is under way.
    message_op: u8,
    /// Its UTF-8 so far, for a text message.
    utf8: Utf8,
    /// The data frame being read, if its header was.
    payload: Option<Payload>,
    max_message: u64,
    eof: bool,
    active_us: u64,
    out_since_us: u64,
    linger_left: usize,
    /// Messages echoed.
    echoed: u32,
    /// `--fault` on the path: what its messages get, `None` without (boxed: a connection
    /// without faults pays a pointer).
    faults: Option<Box<Faults>>,
}

/// The most a ping storm queues at a time: a peer that does not read holds this much of it.
pub const STORM_QUEUE: usize = 16 * 1024;

/// A connection's faults at run time (see `fault::websocket`).
#[derive(Debug)]
struct Faults {
    spec: &'static WsFaults,
    rng: Rng,
    /// The last frame of the output, held back in whole or in part (a latency, a drip):
    /// nothing is read until it is all out.
    held: Option<Held>,
    /// Pings still to send after the last echo: queued as the output drains, [`STORM_QUEUE`]
    /// at most; nothing is read until they are all queued.
    storm_left: u32,
    /// Pings sent (each ping's payload: its number, 4 bytes).
    storm_sent: u32,
    /// The end (`close-after`, `drop-after`) is done.
    ended: bool,
    /// `drop-after:N:reset`: close with RST.
    reset: bool,
    now_us: u64,
}

/// An echo held back: the last `len` bytes of the output, of which `released` may go.
#[derive(Clone, Copy, Debug)]
struct Held {
    len: usize,
    released: usize,
    /// When its first piece may go (µs).
    begin_us: u64,
    /// When it was made: a piece due then goes at once.
    made_us: u64,
    drip: Option<Drip>,
    /// The next piece to release.
    piece: u32,
}

impl Held {
    /// When the next piece is due.
    fn due_us(&self) -> u64 {
        let at = self.drip.map_or(0, |d| d.piece_at_us(self.piece, self.len));
        self.begin_us.saturating_add(at)
    }

    /// Release what is due at `now`; whether all of it is.
    fn advance(&mut self, now: u64) -> bool {
        while self.released < self.len {
            let due = self.due_us();
            if due > self.made_us && now <= due {
                break;
            }
            self.released = match self.drip {
                Some(d) => d.piece_end(self.piece, self.len),
                None => self.len,
            };
            self.piece += 1;
        }
        self.released == self.len
    }
}

impl WsConn {
    /// The connection HTTP/1 handed over at `now_us` after a valid handshake: its `101`
    /// queued, then `input` (frames the client sent right after its handshake) read.
    pub fn upgraded<W>(
        now_us: u64,
        request: WebSocketRequest,
        input: &[u8],
        env: &mut Env<'_, W>,
    ) -> WsConn {
        let mut out = Vec::new();
        handshake::switching_protocols(&request.key, &mut out);
        let mut c = WsConn {
            st: Box::new(State {
                phase: Phase::Open,
                input: Vec::new(),
                out,
                out_pos: 0,
                message: Vec::new(),
                message_op: CONTINUATION,
                utf8: Utf8::default(),
                payload: None,
                max_message: request.max_message,
                eof: false,
                active_us: now_us,
                out_since_us: now_us,
                linger_left: 0,
                echoed: 0,
                faults: request.faults.map(|spec| {
                    Box::new(Faults {
                        spec,
                        rng: spec.rng(&request.key),
                        held: None,
                        storm_left: 0,
                        storm_sent: 0,
                        ended: false,
                        reset: false,
                        now_us,
                    })
                }),
            }),
        };
        // `close-after:0`, `drop-after:0`: before any message.
        c.st.settle();
        if !input.is_empty() {
            // Counted by HTTP/1 when it read them.
            env.stats.bytes_in = env.stats.bytes_in.saturating_sub(input.len() as u64);
            c.on_data(input, env);
        }
        c
    }

    /// [`Connection::on_data`].
    pub fn on_data<W>(&mut self, data: &[u8], env: &mut Env<'_, W>) {
        let s = &mut *self.st;
        env.stats.bytes_in += data.len() as u64;
        s.active_us = env.now_us;
        if let Some(f) = s.faults.as_deref_mut() {
            f.now_us = env.now_us;
        }
        match s.phase {
            Phase::Lingering => {
                s.linger_left = s.linger_left.saturating_sub(data.len());
                return;
            }
            Phase::Closing => return,
            Phase::Open => {}
        }
        if s.input.is_empty() {
            let used = s.process(data);
            s.input.extend_from_slice(&data[used..]);
        } else {
            s.input.extend_from_slice(data);
            s.resume();
        }
    }

    /// Messages echoed so far.
    pub fn echoed(&self) -> u32 {
        self.st.echoed
    }

    /// Bytes held by the connection's buffers (their capacity).
    pub fn buffered(&self) -> usize {
        let s = &*self.st;
        std::mem::size_of::<State>() + s.input.capacity() + s.out.capacity() + s.message.capacity()
    }
}

impl State {
    /// Bytes queued, those held back by a fault included: what backpressure counts.
    fn pending_out(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// Where the bytes that may be written end: before what a fault holds back.
    fn visible_end(&self) -> usize {
        match self.faults.as_deref().and_then(|f| f.held) {
            Some(h) => self.out.len() - (h.len - h.released),
            None => self.out.len(),
        }
    }

    /// Bytes that may be written now.
    fn pending_visible(&self) -> usize {
        self.visible_end() - self.out_pos
    }

    /// A fault holds the connection's reading: an echo held back, or pings still to queue.
    fn paused(&self) -> bool {
        self.faults
            .as_deref()
            .is_some_and(|f| f.held.is_some() || f.storm_left > 0)
    }

    /// After an echo, a release or a write: queue the storm's next pings, then end the
    /// connection if its fault says so and nothing is held.
    fn settle(&mut self) {
        let Some(f) = self.faults.as_deref_mut() else {
            return;
        };
        if f.held.is_some() {
            return;
        }
        while f.storm_left > 0 && self.out.len() - self.out_pos < STORM_QUEUE {
            frame::write_header(&mut self.out, PING, 4);
            self.out.extend_from_slice(&f.storm_sent.to_be_bytes());
            f.storm_sent = f.storm_sent.wrapping_add(1);
            f.storm_left -= 1;
        }
        if f.storm_left > 0 || f.ended || self.phase != Phase::Open {
            return;
        }
        match f.spec.end {
            Some(end) if self.echoed >= end.after() => {
                f.ended = true;
                match end {
                    WsEnd::Close { code, .. } => self.close(Some(code)),
                    WsEnd::Drop { reset, .. } => {
                        f.reset = reset;
                        self.phase = Phase::Closing;
                        self.payload = None;
                        self.input = Vec::new();
                        self.message = Vec::new();
                    }
                }
            }
            _ => {}
        }
    }

    /// A hold's pieces due at `now` released; once it is all out, reading (and a storm, an
    /// end) resumes.
    fn release(&mut self, now: u64) {
        let Some(f) = self.faults.as_deref_mut() else {
            return;
        };
        f.now_us = now;
        let Some(h) = f.held.as_mut() else {
            return;
        };
        if h.advance(now) {
            f.held = None;
            self.settle();
            if self.phase == Phase::Open && !self.input.is_empty() && !self.paused() {
                self.resume();
            }
        }
    }

    /// Process held-back input.
    fn resume(&mut self) {
        let mut input = std::mem::take(&mut self.input);
        let used = self.process(&input);
        input.drain(..used);
        // The buffer keeps its capacity (`process` wrote only to `out` and `message`), up to
        // a bound: an idle connection keeps little.
        if self.phase == Phase::Open && (!input.is_empty() || input.capacity() <= KEEP_MESSAGE) {
            self.input = input;
        }
    }

    /// Read frames from `buf` while open and the output is below the high-water mark;
    /// returns the bytes used (all of them once the connection is closing).
    fn process(&mut self, buf: &[u8]) -> usize {
        let mut at = 0;
        while self.phase == Phase::Open && self.pending_out() < HIGH_WATER && !self.paused() {
            if let Some(p) = self.payload.as_mut() {
                let take = p.left.min((buf.len() - at) as u64) as usize;
                let start = self.message.len();
                frame::unmask_into(&mut self.message, &buf[at..at + take], p.mask, p.read);
                p.read += take as u64;
                p.left -= take as u64;
                at += take;
                let (fin, done) = (p.fin, p.left == 0);
                if self.message_op == TEXT && !self.utf8.feed(&self.message[start..]) {
                    self.fail(INVALID_DATA);
                    break;
                }
                if !done {
                    break;
                }
                self.payload = None;
                if fin {
                    self.echo();
                }
                continue;
            }
            let h = match frame::read_header(&buf[at..]) {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(code) => {
                    self.fail(code);
                    break;
                }
            };
            if h.opcode & 0x8 != 0 {
                let whole = h.size + h.len as usize;
                if buf.len() - at < whole {
                    break;
                }
                let mut small = [0u8; MAX_CONTROL];
                // A control frame's payload, unmasked on the stack (no allocation).
                let n = h.len as usize;
                small[..n].copy_from_slice(&buf[at + h.size..at + whole]);
                for (i, b) in small[..n].iter_mut().enumerate() {
                    *b ^= h.mask[i % 4];
                }
                at += whole;
                self.control(h.opcode, &small[..n]);
                continue;
            }
            if let Err(code) = self.start_frame(&h) {
                self.fail(code);
                break;
            }
            at += h.size;
        }
        if self.phase == Phase::Open {
            at
        } else {
            buf.len()
        }
    }

    /// A data frame's header: check it against the message under way and the limit.
    fn start_frame(&mut self, h: &Header) -> Result<(), u16> {
        match (h.opcode, self.message_op) {
            // A continuation with no message, or a new message inside one (§5.4).
            (CONTINUATION, CONTINUATION) => return Err(PROTOCOL_ERROR),
            (TEXT | BINARY, TEXT | BINARY) => return Err(PROTOCOL_ERROR),
            (TEXT | BINARY, _) => {
                self.message_op = h.opcode;
                self.utf8 = Utf8::default();
            }
            _ => {}
        }
        if (self.message.len() as u64).saturating_add(h.len) > self.max_message {
            return Err(TOO_BIG);
        }
        self.payload = Some(Payload {
            fin: h.fin,
            mask: h.mask,
            read: 0,
            left: h.len,
        });
        Ok(())
    }

    /// The message's last fragment is in: echo it whole.
    fn echo(&mut self) {
        if self.message_op == TEXT && !self.utf8.is_complete() {
            self.fail(INVALID_DATA);
            return;
        }
        if self.faults.is_some() {
            self.echo_faulted();
        } else {
            frame::write_header(&mut self.out, self.message_op, self.message.len());
            self.out.extend_from_slice(&self.message);
        }
        self.message.clear();
        if self.message.capacity() > KEEP_MESSAGE {
            self.message = Vec::new();
        }
        self.message_op = CONTINUATION;
        self.echoed = self.echoed.wrapping_add(1);
        self.settle();
    }

    /// The echo of a path with faults: this message's plan drawn, then the echo (or a
    /// malformed frame instead) queued, held back and followed by pings as it says.
    #[cold]
    #[inline(never)]
    fn echo_faulted(&mut self) {
        let Some(f) = self.faults.as_deref_mut() else {
            return;
        };
        let plan = f.spec.plan(&mut f.rng);
        let start = self.out.len();
        match plan.malformed {
            Some(i) => self.out.extend_from_slice(FRAMES[usize::from(i)]),
            None => {
                frame::write_header(&mut self.out, self.message_op, self.message.len());
                self.out.extend_from_slice(&self.message);
            }
        }
        f.storm_left = plan.storm;
        if plan.delay_us > 0 || plan.drip.is_some() {
            let mut h = Held {
                len: self.out.len() - start,
                released: 0,
                begin_us: f.now_us.saturating_add(plan.delay_us),
                made_us: f.now_us,
                drip: plan.drip,
                piece: 0,
            };
            if !h.advance(f.now_us) {
                f.held = Some(h);
            }
        }
    }

    /// A whole control frame, unmasked.
    fn control(&mut self, opcode: u8, payload: &[u8]) {
        match opcode {
            PING => {
                frame::write_header(&mut self.out, PONG, payload.len());
                self.out.extend_from_slice(payload);
            }
            CLOSE => match payload {
                [] => self.close(None),
                [_] => self.fail(PROTOCOL_ERROR),
                [a, b, reason @ ..] => {
                    let code = u16::from_be_bytes([*a, *b]);
                    if !frame::is_valid_close_code(code) {
                        self.fail(PROTOCOL_ERROR);
                    } else if std::str::from_utf8(reason).is_err() {
                        self.fail(INVALID_DATA);
                    } else {
                        self.close(Some(code));
                    }
                }
            },
            // PONG: unsolicited or not, nothing to answer (§5.5.3).
            _ => {}
        }
    }

    /// Queue a close (with `code`, or empty) and read nothing more.
    fn close(&mut self, code: Option<u16>) {
        match code {
            Some(code) => {
                frame::write_header(&mut self.out, CLOSE, 2);
                self.out.extend_from_slice(&code.to_be_bytes());
            }
            None => frame::write_header(&mut self.out, CLOSE, 0),
        }
        self.phase = Phase::Closing;
        self.payload = None;
        self.input = Vec::new();
        self.message = Vec::new();
    }

    /// Fail the connection (§7.1.7): a close naming why, then close.
    fn fail(&mut self, code: u16) {
        self.close(Some(code));
    }
}

/// Every call out of line: the loop's calls are inlined for HTTP/1, the plain path, and a
/// WebSocket's bodies inlined beside them would cost that path (measured: 4% more
/// instructions per HTTP/1 request with them inlined).
impl<W: Pooled> Connection<W> for WsConn {
    #[inline(never)]
    fn new(now_us: u64) -> WsConn {
        let _ = now_us;
        unreachable!("a WebSocket connection starts from a handshake (WsConn::upgraded)")
    }

    #[inline(never)]
    fn on_data(&mut self, data: &[u8], env: &mut Env<'_, W>) {
        WsConn::on_data(self, data, env)
    }

    #[inline(never)]
    fn on_eof(&mut self) {
        self.st.eof = true;
    }

    #[inline(never)]
    fn output(&self) -> &[u8] {
        &self.st.out[self.st.out_pos..self.st.visible_end()]
    }

    #[inline(never)]
    fn wrote(&mut self, n: usize, env: &mut Env<'_, W>) {
        let s = &mut *self.st;
        env.stats.bytes_out += n as u64;
        if n > 0 {
            s.active_us = env.now_us;
            s.out_since_us = env.now_us;
        }
        s.out_pos += n;
        if s.out_pos == s.out.len() {
            s.out.clear();
            s.out_pos = 0;
            if s.out.capacity() > KEEP_MESSAGE {
                s.out = Vec::new();
            }
        } else if s.out_pos >= HIGH_WATER / 2 {
            s.out.drain(..s.out_pos);
            s.out_pos = 0;
        }
        if s.faults.is_some() {
            s.settle();
        }
        if s.phase == Phase::Open
            && !s.input.is_empty()
            && s.pending_out() < HIGH_WATER
            && !s.paused()
        {
            s.resume();
        }
    }

    #[inline(never)]
    fn wants_read(&self) -> bool {
        let s = &*self.st;
        match s.phase {
            Phase::Open => !s.eof && s.pending_out() < HIGH_WATER && !s.paused(),
            Phase::Lingering => !s.eof && s.linger_left > 0,
            Phase::Closing => false,
        }
    }

    #[inline(never)]
    fn next(&self) -> Next {
        let s = &*self.st;
        let flushed = s.pending_out() == 0;
        match s.phase {
            Phase::Closing if flushed && s.faults.as_deref().is_some_and(|f| f.reset) => {
                Next::Reset
            }
            Phase::Closing if flushed => Next::Close { linger: true },
            Phase::Lingering if s.eof || s.linger_left == 0 => Next::Close { linger: false },
            // The peer closed TCP without a close frame (§7.1.5: 1006, nothing to send).
            Phase::Open if s.eof => Next::Close { linger: false },
            _ => Next::Continue,
        }
    }

    #[inline(never)]
    fn wake_at(&self, settings: &Settings) -> Option<u64> {
        let s = &*self.st;
        let t = &settings.timeouts;
        let usual = match s.phase {
            Phase::Lingering => s.active_us + LINGER_US,
            _ if s.pending_visible() > 0 => s.out_since_us.saturating_add(t.write_us),
            _ => s.active_us.saturating_add(t.idle_us),
        };
        match s.faults.as_deref().and_then(|f| f.held) {
            Some(h) => Some(usual.min(h.due_us().saturating_add(1))),
            None => Some(usual),
        }
    }

    #[inline(never)]
    fn on_wake(&mut self, env: &mut Env<'_, W>) -> Next {
        let s = &mut *self.st;
        let now = env.now_us;
        let t = env.settings.timeouts;
        if s.faults.is_some() {
            s.release(now);
        }
        match s.phase {
            Phase::Lingering if now > s.active_us + LINGER_US => Next::Close { linger: false },
            Phase::Open | Phase::Closing
                if s.pending_visible() > 0 && now > s.out_since_us.saturating_add(t.write_us) =>
            {
                env.stats.timeouts[Timeout::Write as usize] += 1;
                Next::Close { linger: false }
            }
            Phase::Open
                if s.pending_out() == 0
                    && !s.paused()
                    && now > s.active_us.saturating_add(t.idle_us) =>
            {
                env.stats.timeouts[Timeout::Idle as usize] += 1;
                // Say why before closing (§7.4.1: 1001, going away).
                s.close(Some(GOING_AWAY));
                Next::Continue
            }
            _ => Next::Continue,
        }
    }

    #[inline(never)]
    fn start_lingering(&mut self, now_us: u64, _: &mut Pool<W>) {
        let s = &mut *self.st;
        s.phase = Phase::Lingering;
        s.linger_left = LINGER_BYTES;
        s.active_us = now_us;
        s.input = Vec::new();
        s.message = Vec::new();
        s.out = Vec::new();
        s.out_pos = 0;
        if let Some(f) = s.faults.as_deref_mut() {
            f.held = None;
            f.storm_left = 0;
        }
    }

    #[inline(never)]
    fn release(&mut self, _: &mut Pool<W>) {}

    #[inline(never)]
    fn is_lingering(&self) -> bool {
        self.st.phase == Phase::Lingering
    }

    #[inline(never)]
    fn is_idle(&self) -> bool {
        let s = &*self.st;
        s.phase == Phase::Open
            && !s.paused()
            && s.message_op == CONTINUATION
            && s.payload.is_none()
            && s.pending_out() == 0
            && s.input.is_empty()
    }

    /// A drain began: close 1001 (going away, §7.4.1).
    #[inline(never)]
    fn farewell(&mut self) -> &[u8] {
        let s = &mut *self.st;
        if let Some(f) = s.faults.as_deref_mut() {
            // What a fault holds back goes now, before the close.
            f.held = None;
            f.storm_left = 0;
        }
        if s.phase == Phase::Open {
            s.close(Some(GOING_AWAY));
        }
        &s.out[s.out_pos..]
    }

    #[inline(never)]
    fn is_held(&self) -> bool {
        false
    }

    #[inline(never)]
    fn is_silent(&self) -> bool {
        false
    }

    #[inline(never)]
    fn last_active_us(&self) -> u64 {
        self.st.active_us
    }

    #[inline(never)]
    fn served(&self) -> u32 {
        self.st.echoed
    }

    #[inline(never)]
    fn responses_held(&self, _: &mut dyn FnMut(usize)) {}
}

#[cfg(test)]
mod tests {
    use super::State;

    /// An idle connection's own part: the boxed state (its buffers come on top, see the
    /// module documentation).
    #[test]
    fn connection_state_is_small() {
        let size = std::mem::size_of::<State>();
        eprintln!("WebSocket connection state: {size} bytes");
        assert!(size <= 160, "{size}");
    }
}
