//! `--journal` over HTTP/1: the entry of the request being answered (the work area's
//! [`Recording`](crate::journal::Recording)), its head kept when the parser completes it and recorded with its status
//! once the response is decided (`log`), and the journal's own path, answered as an echo route
//! is and sent a piece at a time. Built with the `journal` feature only.

use super::state::{Body, Env, Pending, Refill, WorkArea};
use crate::journal::{Journal, Recorder, Sending};
use crate::response::ExtendCold;

/// Keep the head of the request just parsed (`head`, the pending one) until its response is
/// decided, unless it asks for the journal itself or the `--health` path; its response is
/// then logged (recorded). Copied into a buffer whose capacity the pool keeps: nothing is
/// allocated in steady state.
#[cold]
#[inline(never)]
pub(super) fn keep_head(b: &mut WorkArea, head: &[u8], env: &Env<'_>) {
    let Some(p) = b.pending.as_mut() else {
        return;
    };
    let route = p.route as usize;
    if env.features.is_journal(route) || env.responses.is_health(route) {
        b.journal.skip();
        return;
    }
    p.logged = true;
    let body_len = match b.body {
        Body::Length(n) => n,
        _ => 0,
    };
    b.journal.keep(head, body_len);
}

/// Record the request being answered, with the status sent (0: none).
#[cold]
#[inline(never)]
pub(super) fn record(b: &mut WorkArea, status: u16, env: &mut Env<'_>) {
    match env.features.journal.as_deref_mut() {
        Some(r) => {
            if let Some(seq) = b.journal.record(&r.journal, r.peer, status) {
                r.seq = seq;
            }
        }
        None => b.journal.forget(),
    }
}

impl WorkArea {
    /// Answer `p`, a request for the journal's path, with the journal: the journal cleared
    /// first by a DELETE (`delete`). Returns whether the connection closes after it.
    pub(super) fn answer_journal(
        &mut self,
        r: &Recorder,
        delete: bool,
        p: &Pending,
        close: bool,
        env: &Env<'_>,
    ) -> bool {
        if delete {
            r.journal.clear();
        }
        // Sent a piece at a time, its length unknown when it starts: ended by the close
        // when the connection closes after it anyway, or to an HTTP/1.0 client (which has
        // no chunked, RFC 9112 §6.3 (8)); else chunked (RFC 9112 §7.1).
        let chunked = !p.http10 && !close;
        let close = close || (!chunked && !p.head_request);
        let form = p.variant(close);
        env.responses
            .append_unsized_head(p.route as usize, form, chunked, &mut self.out);
        if !p.head_request {
            let start = self.out.len();
            let reading = r.journal.begin_reading(&mut self.out);
            self.journal.sending = Sending {
                reading,
                chunked,
                turn_us: env.now_us,
            };
            self.journal_piece(start, &r.journal, env.settings.conn_limits.body_chunk);
        }
        close
    }

    /// Append the journal's next piece, from `start` of the output: the entries of the
    /// reading up to about `bytes` (at least one), as one chunk when it is chunked, with the
    /// last chunk after the end. The next piece is appended once the output is written
    /// ([`Refill::Journal`]): a reader holds a piece, not the journal.
    fn journal_piece(&mut self, start: usize, j: &Journal, bytes: usize) {
        let s = &mut self.journal.sending;
        let done = j.read_more(&mut s.reading, &mut self.out, bytes.max(1));
        if s.chunked {
            // The piece is never empty (the JSON's start or end, or an entry): an empty
            // chunk would end the body.
            let mut line = [0u8; 18];
            let n = hex_line(self.out.len() - start, &mut line);
            self.out.splice(start..start, line[..n].iter().copied());
            self.out.extend_cold(b"\r\n");
            if done {
                self.out.extend_cold(b"0\r\n\r\n");
            }
        }
        self.refill = if done { Refill::None } else { Refill::Journal };
    }

    /// The bytes of the journal's pieces still to be appended after the one in the output,
    /// framed as [`WorkArea::journal_piece`] frames them: formatted here to be counted (the
    /// access log).
    #[cold]
    #[inline(never)]
    pub(super) fn journal_left(&self, j: &Journal, bytes: usize) -> u64 {
        let s = self.journal.sending;
        let mut r = s.reading;
        let mut piece = Vec::new();
        let mut n = 0;
        loop {
            piece.clear();
            let done = j.read_more(&mut r, &mut piece, bytes.max(1));
            n += piece.len();
            if s.chunked {
                n += hex_line(piece.len(), &mut [0; 18]) + 2 + if done { 5 } else { 0 };
            }
            if done {
                return n as u64;
            }
        }
    }

    /// The output of [`Refill::Journal`] is written: append the journal's next piece, or
    /// hold it to the next loop turn when one was appended in this one. Formatting costs
    /// more than a copy: a reader whose socket takes all it is given would otherwise keep
    /// the worker from everyone else until its buffers are full.
    pub(super) fn refill_journal(&mut self, env: &Env<'_>) {
        if self.journal.sending.turn_us == env.now_us {
            self.hold_until_us = env.now_us;
            return;
        }
        match env.features.journal.as_deref() {
            Some(r) => {
                self.journal.sending.turn_us = env.now_us;
                let start = self.out.len();
                self.journal_piece(start, &r.journal, env.settings.conn_limits.body_chunk);
            }
            None => self.refill = Refill::None,
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
