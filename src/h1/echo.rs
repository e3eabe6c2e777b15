//! Echoing a request (`--echo`): its head copied when the parser completes it, its body kept
//! as it is read (within the echo's bound), and the answer written from that capture into the
//! output. The capture lives in the work area's request buffer ([`WorkArea::log_line`], after
//! the access-log line's start, if any), whose capacity the pool keeps: a steady stream of
//! echoes allocates nothing. Out of line: the plain path tests one switch when a head is
//! complete and one as a body is read.

use super::Http1Conn;
use super::log::{keep_journal_head, log_response_from};
use super::state::{Body, EchoCapture, Env, JournalRead, Pending, Refill, WorkArea};
use crate::chunked::ChunkedDecoder;
use crate::conn::{Features, Settings};
use crate::echo::{ChunkWalk, DEFAULT_MAX_BODY, EchoFormat, Echoed, decimal, render, rendered_len};
use crate::journal::{Journal, Recorder};
use crate::parser::Rule;

/// The most room taken for an echoed body by length before its bytes arrive.
const ECHO_RESERVE_BYTES: u64 = 64 * 1024;

impl Http1Conn {
    /// A request's head is complete (`head` its bytes), and read as on any path: its route,
    /// its body's framing, its interim response. If its route echoes, keep the head and answer
    /// now or once the body is in ([`keep_echo_body`], [`keep_echo_chunks`] keep it as it is
    /// read); else answer as on any path. The echo's body bound (`--max-body-bytes`, else
    /// [`DEFAULT_MAX_BODY`]) is checked here: a body over it is refused with 413 before any of
    /// it is read, as the plain path refuses one over `--max-body-bytes`.
    #[cold]
    #[inline(never)]
    pub(super) fn start_echo_or_respond(
        &mut self,
        b: &mut WorkArea,
        head: &[u8],
        settings: &Settings,
        env: &mut Env<'_>,
    ) {
        // `--journal` makes its path an echo route, so that the plain path pays nothing more.
        if env.features.journal.is_some() {
            keep_journal_head(b, head, env);
        }
        if settings.switches.control() && self.start_control(b, head, env) {
            return;
        }
        let Some(p) = b.pending.filter(|p| env.features.echoes(p.route as usize)) else {
            if b.body == Body::None {
                self.respond(b, env);
            }
            return;
        };
        let limit = match settings.conn_limits.max_body {
            u64::MAX => DEFAULT_MAX_BODY,
            n => n,
        };
        b.echo = EchoCapture {
            at: b.log_line.len(),
            head_len: head.len(),
            chunks: None,
        };
        b.log_line.extend_from_slice(head);
        match b.body {
            Body::None => self.respond_echo(b, env),
            Body::Length(n) if n > limit => self.refuse(b, Rule::BodyTooLarge, p.head_request, env),
            // Room for a small body at once rather than by doubling; a larger one grows as it
            // arrives, so that a client announcing a large body gets no more memory than it sends.
            Body::Length(n) => b.log_line.reserve(n.min(ECHO_RESERVE_BYTES) as usize),
            Body::Chunked(_) => {
                // Nothing of the body is decoded yet.
                b.body = Body::Chunked(ChunkedDecoder::with_data_limit(limit));
                b.echo.chunks = Some(ChunkWalk::default());
            }
        }
    }

    /// A request's body is complete: answer it, with its echo if its route echoes. The plain
    /// path tests one switch.
    #[inline(always)]
    pub(super) fn respond_after_body(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        if env.settings.switches.by_request() {
            self.respond_echo_or_not(b, env);
        } else {
            self.respond(b, env);
        }
    }

    #[cold]
    #[inline(never)]
    fn respond_echo_or_not(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        // Without the `control` feature none was kept, and its answer is not linked.
        if let Some(c) = b.control.take().filter(|_| cfg!(feature = "control")) {
            self.respond_control(b, c, env);
        } else if b
            .pending
            .is_some_and(|p| env.features.echoes(p.route as usize))
        {
            self.respond_echo(b, env);
        } else {
            self.respond(b, env);
        }
    }

    /// Answer the pending request with its echo: the route's head with the echo's length,
    /// then (unless it asked for HEAD) the echo itself, written from the capture, which is
    /// then dropped (the access-log line's start before it stays, for the log).
    fn respond_echo(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        let Some(p) = b.pending.take() else {
            return;
        };
        let route = p.route as usize;
        let format = env.features.echo_format(route).unwrap_or(EchoFormat::Json);
        self.served = self.served.saturating_add(1);
        let mut close = self.closes_after(&p, env);
        let delay_us = env.settings.switches.delay_us;
        if delay_us > 0 {
            if b.pending_out() == 0 {
                b.hold_until_us = env.now_us + delay_us;
            }
            // Written from a capture the next request reuses: a drain that begins while it is
            // held cannot write it again with the closing head, so it goes as it is.
            b.last_held = None;
        }
        let out_start = b.out.len();
        let c = b.echo;
        let captured = &b.log_line[c.at..];
        let body_end = c.chunks.map_or(captured.len(), |w| w.body_end() - c.at);
        let client = env.features.client.unwrap_or_default();
        let echoed = Echoed::new(captured, c.head_len, body_end, self.served)
            .with_addresses(client.peer, client.local);
        let mut digits = [0u8; 20];
        let journal = env.features.journal.as_deref();
        if let Some(Recorder { journal: j, .. }) =
            journal.filter(|_| env.features.is_journal(route))
        {
            if echoed.request_line().0 == b"DELETE" {
                j.clear();
            }
            // Sent a piece at a time, its length unknown when it starts: ended by the close
            // when the connection closes after it anyway, or to an HTTP/1.0 client (which has
            // no chunked, RFC 9112 §6.3 (8)); else chunked (RFC 9112 §7.1).
            let chunked = !p.http10 && !close;
            close |= !chunked && !p.head_request;
            let form = p.variant(close);
            env.responses
                .append_unsized_head(route, form, chunked, &mut b.out);
            if !p.head_request {
                let start = b.out.len();
                let reading = j.begin_reading(&mut b.out);
                b.journal_read = JournalRead {
                    reading,
                    chunked,
                    turn_us: env.now_us,
                };
                b.journal_piece(start, j, env.settings.conn_limits.body_chunk);
            }
        } else if p.head_request {
            let length = decimal(rendered_len(format, &echoed) as u64, &mut digits);
            env.responses
                .append_sized_head(route, p.variant(close), length, &mut b.out);
        } else {
            // Written once, then its head after it, turned to the front: a move of the bytes
            // costs less than the measuring pass that would put the head first.
            let start = b.out.len();
            render(format, &echoed, &mut b.out);
            let length = decimal((b.out.len() - start) as u64, &mut digits);
            let head_at = b.out.len();
            env.responses
                .append_sized_head(route, p.variant(close), length, &mut b.out);
            // [body][head] to [head][body] in three moves, with the head copied once more
            // at the end (a rotation by std takes more code for the same moves).
            let (body_len, head_len) = (head_at - start, b.out.len() - head_at);
            b.out.extend_from_within(head_at..);
            b.out.copy_within(start..head_at, start + head_len);
            b.out.copy_within(head_at + head_len.., start);
            b.out.truncate(start + head_len + body_len);
        }
        b.log_line.truncate(c.at);
        b.echo = EchoCapture::default();
        let status = env.responses.status(route);
        env.stats.by_status[status as usize] += 1;
        if p.logged {
            log_response_from(b, status, out_start, env);
        }
        self.close_after_response(&p, close, env);
    }
}

impl WorkArea {
    /// Append the journal's next piece, from `start` of the output: the entries of
    /// [`WorkArea::journal_read`] up to about `bytes` (at least one), as one chunk when it
    /// is chunked, with the last chunk after the end. The next piece is appended once the
    /// output is written ([`Refill::Journal`]): a reader holds a piece, not the journal.
    pub(super) fn journal_piece(&mut self, start: usize, j: &Journal, bytes: usize) {
        let r = &mut self.journal_read;
        let done = j.read_more(&mut r.reading, &mut self.out, bytes.max(1));
        if r.chunked {
            // The piece is never empty (the JSON's start or end, or an entry): an empty
            // chunk would end the body.
            let mut line = [0u8; 18];
            let n = hex_line(self.out.len() - start, &mut line);
            self.out.splice(start..start, line[..n].iter().copied());
            self.out.extend_from_slice(b"\r\n");
            if done {
                self.out.extend_from_slice(b"0\r\n\r\n");
            }
        }
        self.refill = if done { Refill::None } else { Refill::Journal };
    }

    /// The output of [`Refill::Journal`] is written: append the journal's next piece, or
    /// hold it to the next loop turn when one was appended in this one. Formatting costs
    /// more than a copy: a reader whose socket takes all it is given would otherwise keep
    /// the worker from everyone else until its buffers are full.
    pub(super) fn refill_journal(&mut self, env: &Env<'_>) {
        if self.journal_read.turn_us == env.now_us {
            self.hold_until_us = env.now_us;
            return;
        }
        match env.features.journal.as_deref() {
            Some(r) => {
                self.journal_read.turn_us = env.now_us;
                let start = self.out.len();
                self.journal_piece(start, &r.journal, env.settings.conn_limits.body_chunk);
            }
            None => self.refill = Refill::None,
        }
    }

    /// The request `emit_error` refuses may be an echo's: drop its capture, so that the
    /// access log reads only its line's start.
    #[cold]
    #[inline(never)]
    pub(super) fn drop_echo(&mut self, features: &Features<'_>) {
        if self
            .pending
            .is_some_and(|p| features.echoes(p.route as usize))
        {
            self.log_line.truncate(self.echo.at);
            self.echo = EchoCapture::default();
        }
    }
}

/// A chunk's size line for `n` bytes (`HEX CRLF`) in `line`; returns its length.
fn hex_line(mut n: usize, line: &mut [u8; 18]) -> usize {
    let mut digits = [0u8; 16];
    let mut len = 0;
    loop {
        digits[len] = b"0123456789abcdef"[n & 15];
        len += 1;
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    for (i, d) in digits[..len].iter().rev().enumerate() {
        line[i] = *d;
    }
    line[len..len + 2].copy_from_slice(b"\r\n");
    len + 2
}

/// `bytes` of a body by length were read: keep them in `kept` if the request, `pending`, is
/// echoed.
#[cold]
#[inline(never)]
pub(super) fn keep_echo_body(
    kept: &mut Vec<u8>,
    pending: Option<Pending>,
    bytes: &[u8],
    features: &Features<'_>,
) {
    if pending.is_some_and(|p| features.echoes(p.route as usize)) {
        kept.extend_from_slice(bytes);
    }
}

/// `bytes` of a chunked body were accepted by its decoder: keep their data and trailers in
/// `kept`, walked by `c`, if the request, `pending`, is echoed.
#[cold]
#[inline(never)]
pub(super) fn keep_echo_chunks(
    kept: &mut Vec<u8>,
    c: &mut EchoCapture,
    pending: Option<Pending>,
    bytes: &[u8],
    features: &Features<'_>,
) {
    if pending.is_some_and(|p| features.echoes(p.route as usize)) {
        if let Some(walk) = &mut c.chunks {
            walk.walk(bytes, kept);
        }
    }
}
