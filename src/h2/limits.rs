//! HTTP/1's limits with their HTTP/2 meaning:
//! - `--max-body-bytes` per stream: a request whose DATA go past the limit is answered 413 at
//!   once (the error's head alone for HEAD), without waiting for its END_STREAM; once the 413
//!   is sent, RST_STREAM NO_ERROR asks the client to stop sending (RFC 9113 §8.1). The rest of
//!   its DATA, until then and after (`closed`), is counted against the connection's window and
//!   discarded, and its trailers are ignored. The `content-length` field is not read: the limit
//!   counts the DATA that came.
//! - `--max-headers`: a request with more regular fields is answered 431 (pseudo-headers
//!   stand for the request line, which HTTP/1 does not count either).
//! - `--max-head-bytes`: the decoded header list, counted as SETTINGS_MAX_HEADER_LIST_SIZE
//!   counts it (§6.5.2), advertised as that setting (at most [`MAX_HEADER_LIST_SIZE`], the
//!   decoder's own bound: a list past that cannot be decoded whole, a connection error); a
//!   larger list is answered 431. The block is decoded whole first, so the HPACK table stays
//!   in step.
//! - `--max-requests`: streams per connection. The last one allowed is followed by GOAWAY
//!   NO_ERROR naming it; the streams the client opens after it are refused (RST_STREAM
//!   REFUSED_STREAM: never processed, safe to retry on a new connection, §8.7), and the
//!   connection closes once the streams taken are answered.

use super::{Env, MAX_HEADER_LIST_SIZE, Own, Phase, SETTINGS, State, stream_error};
use crate::frame::{ErrorCode, HEADER_LEN, kind, setting};
use crate::parser::{Error, Rule};

impl State {
    /// Stream `i`'s body went past `--max-body-bytes`: answer 413.
    #[cold]
    #[inline(never)]
    pub(super) fn body_too_large<W>(&mut self, i: usize, env: &mut Env<'_, W>) {
        self.streams[i].error = Own::Refused(Rule::BodyTooLarge);
        self.streams[i].early = true;
        self.answer(i, env);
    }

    /// DATA on a stream answered before its body ended: discarded, no error.
    pub(super) fn refused_body(&self, stream: u32) -> bool {
        self.streams.iter().any(|s| s.id == stream && s.early)
    }

    /// A stream answered before its request ended is answered: the client need send no more
    /// of its body.
    #[cold]
    pub(super) fn end_refused(&mut self, stream: u32) {
        self.reset_by_us.add(stream);
        self.control(
            kind::RST_STREAM,
            0,
            stream,
            &(ErrorCode::NoError as u32).to_be_bytes(),
        );
    }

    /// A stream was taken: the last one `--max-requests` allows is followed by GOAWAY.
    #[inline]
    pub(super) fn count_stream<W>(&mut self, env: &Env<'_, W>) {
        self.opened = self.opened.saturating_add(1);
        let max = env.settings.max_requests;
        if max > 0 && self.opened == max && !self.goaway_sent {
            self.goaway(ErrorCode::NoError);
        }
    }

    /// A new stream after our GOAWAY: refused past `--max-requests`, else ignored (§6.8).
    pub(super) fn past_max_requests<W>(
        &self,
        stream: u32,
        env: &Env<'_, W>,
    ) -> Result<(), super::Failed> {
        let max = env.settings.max_requests;
        if max > 0 && self.opened >= max {
            return Err(stream_error(ErrorCode::RefusedStream, stream));
        }
        Ok(())
    }

    /// The limit the request whose fields were just decoded goes past, answered 431:
    /// `--max-headers`, or `--max-head-bytes` (as advertised); `None` within them.
    pub(super) fn over_head_limits<W>(&self, env: &Env<'_, W>) -> Option<Rule> {
        let (f, limits) = (&self.fields, env.settings.limits);
        if f.count > limits.max_headers {
            Some(Rule::Request(Error::TooManyHeaders))
        } else if f.list_size > header_list_size(env) as usize {
            Some(Rule::Request(Error::HeadTooLarge))
        } else {
            None
        }
    }

    /// Advertise `--max-head-bytes` as SETTINGS_MAX_HEADER_LIST_SIZE in the SETTINGS frame
    /// still waiting in the output (the connection's first bytes).
    pub(super) fn advertise<W>(&mut self, env: &Env<'_, W>) {
        // Once per connection: whether requests are kept for the echo and the journal (`echo`).
        #[cfg(feature = "echo")]
        {
            self.fields.capture =
                env.settings.switches.by_request() || env.features.journal.is_some();
        }
        let list = header_list_size(env);
        // The setting's value in [`SETTINGS`]: the fifth parameter.
        let at = HEADER_LEN + 6 * 4;
        if self.phase == Phase::Preface
            && self.out_pos == 0
            && self.out.len() >= SETTINGS.len()
            && self.out[at..at + 2] == setting::MAX_HEADER_LIST_SIZE.to_be_bytes()
        {
            self.out[at + 2..at + 6].copy_from_slice(&list.to_be_bytes());
        }
    }
}

/// SETTINGS_MAX_HEADER_LIST_SIZE as advertised: `--max-head-bytes`, at most the decoder's.
pub(super) fn header_list_size<W>(env: &Env<'_, W>) -> u32 {
    let max = env.settings.limits.max_head;
    u32::try_from(max).map_or(MAX_HEADER_LIST_SIZE, |m| m.min(MAX_HEADER_LIST_SIZE))
}
