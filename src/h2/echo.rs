//! `--echo` and `--journal` over HTTP/2: a stream's request kept as an HTTP/1 head would be,
//! so that the echo's formats and the journal read it the same way. Its request line is
//! `:method`, `:path` and `HTTP/2`; its fields follow in the order HPACK decoded them, the
//! other pseudo-headers (`:scheme`, `:authority`) among them under their own names; then its
//! body from its DATA frames, then its trailers. A request upgraded from HTTP/1.1 keeps the
//! HTTP/1.1 head it came with.
//!
//! Kept only for a stream that echoes or is journaled, in a slot of the connection whose
//! buffer is reused by the next one: a steady stream of echoes allocates nothing once the
//! slots have grown. Bounded: a stream's echoed body by `--max-body-bytes` or
//! [`DEFAULT_MAX_BODY`] (413 past it, as HTTP/1's echo), and everything a connection keeps,
//! requests and rendered answers, by [`ECHO_CONN_BYTES`]: the stream that would go past it is
//! refused with RST_STREAM REFUSED_STREAM, which a client may retry (RFC 9113 §8.7).
//! The journal's path is sent a piece at a time, as over HTTP/1, a piece held at once.

use super::control::Asked;
use super::kept::{ECHO_CONN_BYTES, Refill, SLOT_KEEP, Slot};
use super::{Env, Failed, OUT_HIGH, Own, State, Stream, stream_error};
use crate::control::{Control, Refusal};
use crate::echo::{DEFAULT_MAX_BODY, EchoFormat, Echoed, decimal, render, rendered_len};
use crate::frame::{ErrorCode, Header, flag, kind};
#[cfg(feature = "journal")]
use crate::journal::{Record, Recorder};
use crate::parser::Rule;
use crate::plan::Kinds;
#[cfg(feature = "control")]
use crate::response::ExtendCold;
use crate::response::{KeepAliveForm, Responses};

/// How a new stream is answered, as far as the echo and the journal say.
pub(super) enum Keep {
    /// As any stream (it may be journaled).
    Plain,
    /// From its slot: the echo, the journal, or the answer its control chose.
    Slot,
    /// Its declared body is over the echo's bound: 413.
    TooLarge,
}

/// The echo's body bound: `--max-body-bytes`, else [`DEFAULT_MAX_BODY`].
fn body_limit(max_body: u64) -> u64 {
    match max_body {
        u64::MAX => DEFAULT_MAX_BODY,
        n => n,
    }
}

impl State {
    /// A new request on `stream`, routed to `route`, when `--echo`, `--journal` or
    /// `--control` is on: how it is answered, its control read and its request kept.
    #[cold]
    #[inline(never)]
    pub(super) fn keep_or_refuse<W>(
        &mut self,
        stream: u32,
        route: usize,
        env: &Env<'_, W>,
    ) -> Result<Own, Failed> {
        let asked = match env.settings.switches.control() {
            #[cfg(feature = "control")]
            true => match self.control_of(route, env) {
                Asked::Answer(a) => Some(a),
                Asked::None => None,
            },
            _ => None,
        };
        Ok(match self.keep_request(stream, route, asked, env)? {
            Keep::Plain => Own::Route,
            Keep::Slot => Own::Kept,
            Keep::TooLarge => Own::Refused(Rule::BodyTooLarge),
        })
    }

    /// The fields of the block just decoded are a new request on `stream`, routed to `route`:
    /// keep it if it echoes or is journaled.
    #[cold]
    #[inline(never)]
    pub(super) fn keep_request<W>(
        &mut self,
        stream: u32,
        route: usize,
        asked: Option<Result<Control, Refusal>>,
        env: &Env<'_, W>,
    ) -> Result<Keep, Failed> {
        let echoes = env.features.echoes(route);
        // A control only with `control` (HTTP/1 reads none without it).
        let asked = asked.filter(|_| cfg!(feature = "control"));
        #[cfg(feature = "journal")]
        let journaled = env.features.journal.is_some()
            && !env.features.is_journal(route)
            && !env.responses.is_health(route);
        if !echoes && asked.is_none() {
            #[cfg(feature = "journal")]
            if journaled {
                self.record_now(stream, env);
            }
            return Ok(Keep::Plain);
        }
        let limit = body_limit(env.settings.conn_limits.max_body);
        if echoes
            && self
                .fields
                .semantics
                .content_length
                .is_some_and(|n| n > limit)
        {
            return Ok(Keep::TooLarge);
        }
        let f = &self.fields;
        let head_len = f.method.len() + f.path.len() + b"  HTTP/2\r\n\r\n".len() + f.lines.len();
        let free = self.echo.find(0);
        if !self.echo.room(free, head_len) {
            return Err(stream_error(ErrorCode::RefusedStream, stream));
        }
        let at = self.echo.take_slot(stream);
        let k = &mut self.echo.slots[at];
        k.buf.extend_cold(&f.method);
        k.buf.push(b' ');
        k.buf.extend_cold(&f.path);
        k.buf.extend_cold(b" HTTP/2\r\n");
        k.buf.extend_cold(&f.lines);
        k.buf.extend_cold(b"\r\n");
        k.head_len = k.buf.len();
        k.body_end = k.buf.len();
        k.echoes = echoes;
        #[cfg(feature = "journal")]
        {
            k.journaled = journaled;
        }
        let slot = echoes || asked.is_some();
        #[cfg(feature = "control")]
        {
            k.asked = asked;
        }
        Ok(if slot { Keep::Slot } else { Keep::Plain })
    }

    /// Record the request just decoded on `stream` in the journal now, as the echo shows it,
    /// its answer noted when it is decided ([`State::journal_kept`]): a stream waiting for
    /// its body keeps nothing of its head.
    #[cfg(feature = "journal")]
    fn record_now<W>(&mut self, stream: u32, env: &Env<'_, W>) {
        let Some(j) = env.features.journal.as_deref() else {
            return;
        };
        let f = &self.fields;
        let head = &mut self.head;
        head.clear();
        head.extend_cold(&f.method);
        head.push(b' ');
        head.extend_cold(&f.path);
        head.extend_cold(b" HTTP/2\r\n");
        head.extend_cold(&f.lines);
        head.extend_cold(b"\r\n");
        let seq = j.journal.record(&Record {
            head,
            peer: j.peer,
            body_len: 0,
            status: 0,
        });
        self.echo.recorded.push((stream, seq));
    }

    /// Keep the HTTP/1.1 head of a request upgraded to HTTP/2 (stream 1), and the control HTTP/1
    /// read from it; returns whether it is answered from its slot.
    #[cold]
    #[inline(never)]
    pub(super) fn keep_upgraded<W>(
        &mut self,
        head: &[u8],
        route: usize,
        asked: Option<Result<Control, Refusal>>,
        env: &Env<'_, W>,
    ) -> bool {
        let r = env.responses;
        let echoes = env.features.echoes(route);
        let asked = asked.filter(|_| cfg!(feature = "control"));
        let journaled = env.features.journal.is_some()
            && !env.features.is_journal(route)
            && !r.is_health(route);
        if !echoes && !journaled && asked.is_none() {
            return false;
        }
        let at = self.echo.take_slot(1);
        let k = &mut self.echo.slots[at];
        k.buf.extend_cold(head);
        k.head_len = k.buf.len();
        k.body_end = k.buf.len();
        k.echoes = echoes;
        let slot = echoes || asked.is_some();
        #[cfg(feature = "journal")]
        {
            k.journaled = journaled;
        }
        #[cfg(feature = "control")]
        {
            k.asked = asked;
        }
        slot
    }

    /// DATA of stream `i`, which echoes: keep it, within the stream's and the connection's
    /// bounds. Returns false when the stream was refused (413) instead.
    #[cold]
    #[inline(never)]
    pub(super) fn keep_body<W>(
        &mut self,
        i: usize,
        data: &[u8],
        env: &mut Env<'_, W>,
    ) -> Result<bool, Failed> {
        let stream = self.streams[i].id;
        let Some(at) = self.echo.find(stream) else {
            return Ok(true);
        };
        if !self.echo.slots[at].echoes || env.features.is_journal(self.streams[i].route.into()) {
            return Ok(true);
        }
        let limit = body_limit(env.settings.conn_limits.max_body);
        let k = &self.echo.slots[at];
        if (k.body_end - k.head_len + data.len()) as u64 > limit {
            self.echo.free(at);
            self.body_too_large(i, env);
            return Ok(false);
        }
        if !self.echo.room(Some(at), data.len()) {
            self.echo.free(at);
            return Err(stream_error(ErrorCode::RefusedStream, stream));
        }
        let k = &mut self.echo.slots[at];
        k.buf.extend_cold(data);
        k.body_end = k.buf.len();
        Ok(true)
    }

    /// The trailers of stream `stream` were just decoded: keep them after its body.
    #[cold]
    #[inline(never)]
    pub(super) fn keep_trailers(&mut self, stream: u32) {
        if let Some(at) = self.echo.find(stream) {
            let k = &mut self.echo.slots[at];
            if k.echoes {
                k.buf.extend_cold(&self.fields.lines);
            }
        }
    }

    /// Stream `i`, answered from its slot, is answered: render its echo (or begin reading the
    /// journal, or make the answer its control chose) into its slot, in place of its request.
    /// Returns the status sent, or `None` when it was refused instead or its control's plan
    /// answers it (counted, journaled and logged then).
    #[cold]
    #[inline(never)]
    pub(super) fn answer_kept<W>(&mut self, i: usize, env: &mut Env<'_, W>) -> Option<u16> {
        let s = self.streams[i];
        let route = usize::from(s.route);
        let Some(at) = self.echo.find(s.id) else {
            return Some(env.responses.status(route));
        };
        let delay = env.settings.switches.delay_us;
        #[cfg(feature = "control")]
        if let Some(asked) = self.echo.slots[at].asked {
            self.answer_control(i, at, asked, env);
            return None;
        }
        // Recorded before its request gives way to its answer.
        let _entry = self.journal_kept(i, env.responses.status(route), Kinds::NONE, None, env);
        let client = env.features.client.unwrap_or_default();
        let kept = &mut self.echo;
        let k = &kept.slots[at];
        let echoed = Echoed::new(&k.buf, k.head_len, k.body_end, self.served)
            .with_addresses(client.peer, client.local);
        let out = &mut kept.spare;
        out.clear();
        #[cfg(feature = "journal")]
        let journal = (env.features.journal.as_deref()).filter(|_| env.features.is_journal(route));
        #[cfg(not(feature = "journal"))]
        let journal = None::<()>;
        let (length, refill) = match journal {
            #[cfg(feature = "journal")]
            Some(j) => (None, journal_answer(j, &echoed, s.head_only, out)),
            _ => {
                let format = env.features.echo_format(route).unwrap_or(EchoFormat::Json);
                if s.head_only {
                    (Some(rendered_len(format, &echoed)), Refill::None)
                } else {
                    render(format, &echoed, out);
                    (Some(out.len()), Refill::None)
                }
            }
        };
        let k = &mut kept.slots[at];
        std::mem::swap(&mut k.buf, &mut kept.spare);
        kept.spare.clear();
        if kept.spare.capacity() > SLOT_KEEP {
            kept.spare = Vec::new();
        }
        k.answered = true;
        k.length = length;
        k.refill = refill;
        k.hold_until_us = if delay > 0 { env.now_us + delay } else { 0 };
        if kept.held() > ECHO_CONN_BYTES {
            // Rendered larger than the request it was made from (escapes, base64): a refusal
            // now would lose nothing the client cannot ask again.
            kept.free(at);
            // Not answered: its entry says so, as a reset stream's does.
            #[cfg(feature = "journal")]
            if let (Some(seq), Some(j)) = (_entry, env.features.journal.as_deref()) {
                j.journal.set_answer(seq, 0, s.received);
            }
            self.fail(stream_error(ErrorCode::RefusedStream, s.id), env);
            return None;
        }
        Some(env.responses.status(route))
    }

    /// Record stream `i`'s request in the journal, answered with `status` and changed by the
    /// fault kinds `kinds` (a plan's), if it is journaled; its slot is freed unless it is
    /// answered from it. Called when `--echo`, `--journal` or
    /// `--control` is on. Returns its entry's number, if it has one.
    /// Nothing without `journal`.
    #[cfg_attr(not(feature = "journal"), allow(unused_variables))]
    #[inline(always)]
    pub(super) fn journal_kept<W>(
        &mut self,
        i: usize,
        status: u16,
        kinds: Kinds,
        rule: Option<Rule>,
        env: &mut Env<'_, W>,
    ) -> Option<u64> {
        #[cfg(feature = "journal")]
        return self.record_kept(i, status, kinds, rule, env);
        #[cfg(not(feature = "journal"))]
        None
    }

    #[cfg(feature = "journal")]
    #[cold]
    #[inline(never)]
    fn record_kept<W>(
        &mut self,
        i: usize,
        status: u16,
        kinds: Kinds,
        rule: Option<Rule>,
        env: &mut Env<'_, W>,
    ) -> Option<u64> {
        if !self.keeps() {
            return None;
        }
        let s = self.streams[i];
        if let Some(r) = self.echo.recorded.iter().position(|r| r.0 == s.id) {
            let (_, seq) = self.echo.recorded.swap_remove(r);
            let j = env.features.journal.as_deref_mut()?;
            j.journal.set_answer(seq, status, s.received);
            j.seq = seq;
            for &kind in kinds.as_slice() {
                j.journal.add_fault(seq, kind);
            }
            if let Some(rule) = rule {
                j.journal.set_rule(seq, rule);
            }
            return Some(seq);
        }
        let at = self.echo.find(s.id)?;
        let k = &mut self.echo.slots[at];
        let mut recorded = None;
        if std::mem::take(&mut k.journaled) && !k.answered {
            if let Some(j) = env.features.journal.as_deref_mut() {
                j.seq = j.journal.record(&Record {
                    head: &k.buf[..k.head_len],
                    peer: j.peer,
                    body_len: s.received,
                    status,
                });
                for &kind in kinds.as_slice() {
                    j.journal.add_fault(j.seq, kind);
                }
                if let Some(rule) = rule {
                    j.journal.set_rule(j.seq, rule);
                }
                recorded = Some(j.seq);
            }
        }
        if !k.answers() {
            self.echo.free(at);
        }
        recorded
    }

    /// Fill the output with stream `s`'s answer from its slot: its HEADERS, then DATA within
    /// the windows, a journal's next piece read once the last one is sent. Returns whether it
    /// is all sent.
    #[cold]
    #[inline(never)]
    pub(super) fn pump_kept<W>(&mut self, s: &mut Stream, env: &Env<'_, W>) -> bool {
        let Some(at) = self.echo.find(s.id) else {
            return true;
        };
        if !s.headers_sent {
            let k = &mut self.echo.slots[at];
            if k.hold_until_us > env.now_us {
                return false;
            }
            k.hold_until_us = 0;
            let no_body = k.no_body();
            let empty = s.head_only || no_body || k.length == Some(0);
            self.response_headers(s, empty, env);
            s.headers_sent = true;
            if empty {
                return true;
            }
        }
        self.kept_frames(s, usize::MAX, true, env)
    }

    /// DATA frames of stream `s`'s answer from its slot, up to `limit` bytes of it in all,
    /// within the windows, the last of the answer ending the stream when `ends`. Returns
    /// whether the answer, or its first `limit` bytes, are all sent.
    pub(super) fn kept_frames<W>(
        &mut self,
        s: &mut Stream,
        limit: usize,
        ends: bool,
        env: &Env<'_, W>,
    ) -> bool {
        let Some(at) = self.echo.find(s.id) else {
            return true;
        };
        let chunk = env.settings.conn_limits.body_chunk.max(1);
        let k = &mut self.echo.slots[at];
        while self.out.len() - self.out_pos < OUT_HIGH {
            if k.sent >= limit {
                return true;
            }
            if s.at == k.buf.len() {
                // The next piece only once some of it can go: a stream held by its windows,
                // or paced, holds no more than it may send.
                let room = s.window.min(self.window);
                if room <= 0 && !matches!(k.refill, Refill::None) {
                    return false;
                }
                let piece = match limit {
                    usize::MAX => chunk,
                    _ => chunk.min(limit - k.sent).min(room.max(1) as usize),
                };
                if !refill(k, piece, chunk, env) {
                    return true;
                }
                s.at = 0;
            }
            let n = (k.buf.len() - s.at)
                .min(limit - k.sent)
                .min(self.peer_max_frame as usize)
                .min(s.window.max(0) as usize)
                .min(self.window.max(0) as usize);
            if n == 0 {
                return false;
            }
            let end = ends && s.at + n == k.buf.len() && matches!(k.refill, Refill::None);
            let h = Header {
                len: n as u32,
                kind: kind::DATA,
                flags: if end { flag::END_STREAM } else { 0 },
                stream: s.id,
            };
            self.out.extend_cold(&h.encode());
            self.out.extend_cold(&k.buf[s.at..s.at + n]);
            s.at += n;
            k.sent += n;
            s.window -= n as i64;
            self.window -= n as i64;
            if end {
                return true;
            }
        }
        false
    }

    /// The length of stream `id`'s answer from its slot, as far as known (the access log).
    pub(super) fn kept_len(&self, id: u32) -> usize {
        let at = self.echo.find(id);
        at.and_then(|at| self.echo.slots[at].length).unwrap_or(0)
    }

    /// [`State::kept_len`], a journal's answer whole: its first piece and the rest of its
    /// reading, formatted here to be counted (the access log).
    pub(super) fn kept_bytes<W>(&self, id: u32, env: &Env<'_, W>) -> usize {
        #[cfg(feature = "journal")]
        if let (Some(at), Some(j)) = (self.echo.find(id), env.features.journal.as_deref()) {
            let k = &self.echo.slots[at];
            if let Refill::Journal(mut r) = k.refill {
                let mut rest = Vec::new();
                j.journal.read_more(&mut r, &mut rest, usize::MAX);
                return k.buf.len() + rest.len();
            }
        }
        #[cfg(not(feature = "journal"))]
        let _ = env;
        self.kept_len(id)
    }

    /// Stream `id`, answered from its slot, is done: free the slot.
    pub(super) fn kept_done(&mut self, id: u32) {
        if let Some(at) = self.echo.find(id) {
            self.echo.free(at);
        }
    }

    /// Free the slots of streams gone (reset by either side, or refused).
    #[cold]
    #[inline(never)]
    pub(super) fn sweep_kept(&mut self) {
        #[cfg(feature = "journal")]
        {
            let streams = &self.streams;
            (self.echo.recorded).retain(|r| streams.iter().any(|s| s.id == r.0));
        }
        for at in 0..self.echo.slots.len() {
            let id = self.echo.slots[at].stream;
            if id != 0 && !self.streams.iter().any(|s| s.id == id) {
                self.echo.free(at);
            }
        }
    }

    /// Whether any slot is in use.
    pub(super) fn keeps(&self) -> bool {
        #[cfg(feature = "journal")]
        let recorded = !self.echo.recorded.is_empty();
        #[cfg(not(feature = "journal"))]
        let recorded = false;
        self.echo.busy > 0 || recorded
    }

    /// The HTTP/1 head of stream `s`'s answer from its slot, in [`State::head`]: the route's,
    /// with the echo's length, or without one for the journal (HTTP/2 needs none); or the
    /// head its control chose.
    pub(super) fn kept_head(&mut self, id: u32, route: usize, responses: &Responses) {
        let at = self.echo.find(id);
        let length = at.and_then(|at| self.echo.slots[at].length);
        #[cfg(feature = "control")]
        if let Some(c) = at.and_then(|at| self.echo.slots[at].control) {
            return super::control::controlled_head(c, route, length, responses, &mut self.head);
        }
        match length {
            Some(n) => {
                let mut digits = [0u8; 20];
                let n = decimal(n as u64, &mut digits);
                responses.append_sized_head(route, KeepAliveForm::KeepAlive11, n, &mut self.head);
            }
            None => responses.append_unsized_head(
                route,
                KeepAliveForm::KeepAlive11,
                false,
                &mut self.head,
            ),
        }
    }
}

/// Put the next piece of slot `k`'s answer in its buffer, once the last one is sent: the
/// journal's next entries (a body chunk's), the filler's next bytes, or the route body's; at
/// most `piece` of those (a body chunk, or less for a paced answer). Returns false when there
/// is none.
#[cfg_attr(not(feature = "control"), allow(unused_variables))]
fn refill<W>(k: &mut Slot, piece: usize, chunk: usize, env: &Env<'_, W>) -> bool {
    k.buf.clear();
    match &mut k.refill {
        Refill::None => {}
        #[cfg(feature = "journal")]
        Refill::Journal(r) => match env.features.journal.as_deref() {
            Some(j) => {
                if j.journal.read_more(r, &mut k.buf, chunk) {
                    k.refill = Refill::None;
                }
            }
            None => return false,
        },
        #[cfg(feature = "control")]
        Refill::Repeat { left, stars } => {
            let sent = k.sent;
            let block = match stars {
                true => env.features.stars(),
                false => env.features.filler(),
            };
            // The block's first `period` bytes, repeated, as HTTP/1 sends them a body chunk
            // at a time: a smaller piece goes on from where the last one ended.
            let period = block.len().min(chunk);
            let from = sent.checked_rem(period).unwrap_or(0);
            let n = (*left).min((period - from) as u64).min(piece as u64) as usize;
            k.buf.extend_cold(&block[from..from + n]);
            *left -= n as u64;
            if *left == 0 || n == 0 {
                k.refill = Refill::None;
            }
        }
        #[cfg(feature = "control")]
        Refill::Route { route, at } => {
            let body = env.responses.body(usize::from(*route));
            let n = (body.len() - *at).min(piece);
            k.buf.extend_cold(&body[*at..*at + n]);
            *at += n;
            if *at == body.len() {
                k.refill = Refill::None;
            }
        }
    }
    !k.buf.is_empty()
}

/// The journal's answer (its route's): the journal cleared by a DELETE, then its first piece
/// in `out`, the rest read a piece at a time; none for HEAD.
#[cfg(feature = "journal")]
fn journal_answer(j: &Recorder, echoed: &Echoed<'_>, head_only: bool, out: &mut Vec<u8>) -> Refill {
    if echoed.request_line().0 == b"DELETE" {
        j.journal.clear();
    }
    match head_only {
        true => Refill::None,
        false => Refill::Journal(j.journal.begin_reading(out)),
    }
}
