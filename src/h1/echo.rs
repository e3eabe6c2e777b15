//! Echoing a request (`--echo`): its head copied when the parser completes it, its body kept
//! as it is read (within the echo's bound), and the answer written from that capture into the
//! output. The capture ([`Capture`](crate::echo::Capture)) is the work area's, built with the
//! `echo` feature only; the pool keeps its buffer's capacity: a steady stream of echoes
//! allocates nothing. Out of line: the plain path tests one switch when a head is complete and
//! one as a body is read.

use super::Http1Conn;
#[cfg(feature = "echo")]
use super::log::log_response_from;
#[cfg(feature = "echo")]
use super::state::Pending;
use super::state::{Body, Env, WorkArea};
#[cfg(feature = "echo")]
use crate::chunked::ChunkedDecoder;
#[cfg(feature = "echo")]
use crate::conn::Features;
use crate::conn::Settings;
#[cfg(feature = "echo")]
use crate::echo::{Capture, DEFAULT_MAX_BODY, EchoFormat, decimal, render, rendered_len};
#[cfg(feature = "echo")]
use crate::parser::Rule;

/// The most room taken for an echoed body by length before its bytes arrive.
#[cfg(feature = "echo")]
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
        #[cfg(feature = "journal")]
        if env.features.journal.is_some() {
            super::journal::keep_head(b, head, env);
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
        #[cfg(feature = "echo")]
        self.start_echo(b, p, head, settings, env);
        #[cfg(not(feature = "echo"))]
        let _ = p;
    }

    /// The head of `p`, a request to an echo route, is complete: keep it, and answer now or
    /// once its body is in.
    #[cfg(feature = "echo")]
    fn start_echo(
        &mut self,
        b: &mut WorkArea,
        p: Pending,
        head: &[u8],
        settings: &Settings,
        env: &mut Env<'_>,
    ) {
        let limit = match settings.conn_limits.max_body {
            u64::MAX => DEFAULT_MAX_BODY,
            n => n,
        };
        b.echo.start(head, matches!(b.body, Body::Chunked(_)));
        match b.body {
            Body::None => self.respond_echo(b, env),
            Body::Length(n) if n > limit => self.refuse(b, Rule::BodyTooLarge, p.head_request, env),
            // Room for a small body at once rather than by doubling; a larger one grows as it
            // arrives, so that a client announcing a large body gets no more memory than it sends.
            Body::Length(n) => b.echo.reserve(n.min(ECHO_RESERVE_BYTES) as usize),
            Body::Chunked(_) => {
                // Nothing of the body is decoded yet.
                b.body = Body::Chunked(ChunkedDecoder::with_data_limit(limit));
            }
        }
    }

    /// A request's body is complete: answer it, with its echo if its route echoes. The plain
    /// path tests one switch.
    #[inline(always)]
    pub(super) fn respond_after_body(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        if env.settings.switches.by_request() {
            #[cfg(feature = "echo")]
            self.respond_echo_or_not(b, env);
        } else {
            self.respond(b, env);
        }
    }

    #[cfg(feature = "echo")]
    #[cold]
    #[inline(never)]
    fn respond_echo_or_not(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        // Without the `control` feature none was kept, and its answer is not linked.
        if let Some(c) = b.take_control() {
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
    /// then dropped.
    #[cfg(feature = "echo")]
    fn respond_echo(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        let Some(p) = b.pending.take() else {
            return;
        };
        let route = p.route as usize;
        let format = env.features.echo_format(route).unwrap_or(EchoFormat::Json);
        self.served = self.served.saturating_add(1);
        let close = self.closes_after(&p, env);
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
        let client = env.features.client.unwrap_or_default();
        let echoed = (b.echo.echoed(self.served)).with_addresses(client.peer, client.local);
        let mut digits = [0u8; 20];
        #[cfg(feature = "journal")]
        let journal = (env.features.journal.as_deref()).filter(|_| env.features.is_journal(route));
        #[cfg(not(feature = "journal"))]
        let journal = None::<()>;
        let close = match journal {
            #[cfg(feature = "journal")]
            Some(r) => {
                let delete = echoed.request_line().0 == b"DELETE";
                b.answer_journal(r, delete, &p, close, env)
            }
            _ if p.head_request => {
                let length = decimal(rendered_len(format, &echoed) as u64, &mut digits);
                env.responses
                    .append_sized_head(route, p.variant(close), length, &mut b.out);
                close
            }
            _ => {
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
                close
            }
        };
        b.echo.clear();
        let status = env.responses.status(route);
        env.stats.by_status[status as usize] += 1;
        if p.logged {
            log_response_from(b, status, out_start, env);
        }
        self.close_after_response(&p, close, env);
    }
}

impl WorkArea {
    /// The request `emit_error` refuses may be an echo's: drop its capture.
    #[cfg(feature = "echo")]
    #[cold]
    #[inline(never)]
    pub(super) fn drop_echo(&mut self, features: &Features<'_>) {
        if self
            .pending
            .is_some_and(|p| features.echoes(p.route as usize))
        {
            self.echo.clear();
        }
    }
}

/// `bytes` of a body by length were read: keep them in `c` if the request, `pending`, is
/// echoed.
#[cfg(feature = "echo")]
#[cold]
#[inline(never)]
pub(super) fn keep_echo_body(
    c: &mut Capture,
    pending: Option<Pending>,
    bytes: &[u8],
    features: &Features<'_>,
) {
    if pending.is_some_and(|p| features.echoes(p.route as usize)) {
        c.keep_body(bytes);
    }
}

/// `bytes` of a chunked body were accepted by its decoder: keep their data and trailers in
/// `c`, if the request, `pending`, is echoed.
#[cfg(feature = "echo")]
#[cold]
#[inline(never)]
pub(super) fn keep_echo_chunks(
    c: &mut Capture,
    pending: Option<Pending>,
    bytes: &[u8],
    features: &Features<'_>,
) {
    if pending.is_some_and(|p| features.echoes(p.route as usize)) {
        c.keep_chunks(bytes);
    }
}
