//! The read side: the preface, whole frames cut from the input, and each frame dispatched
//! (§4, §6): header blocks gathered for `request`, DATA, SETTINGS and WINDOW_UPDATE for
//! `flow`, PING answered, PRIORITY and unknown frames ignored; held-back input resumed once
//! the output drains below [`OUT_HIGH`], and the header timeout's start kept.

use super::{Env, Failed, MAX_BLOCK, MAX_FRAME_SIZE, NO_HEAD, OUT_HIGH, Phase, State, conn_error};
use crate::frame::{ErrorCode, Frame, HEADER_LEN, Header, PREFACE, Sniffed, flag, kind};

impl State {
    /// Process held-back input.
    pub(super) fn resume<W>(&mut self, env: &mut Env<'_, W>) {
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
    pub(super) fn process<W>(&mut self, buf: &[u8], env: &mut Env<'_, W>) -> usize {
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
    pub(super) fn time_head(&mut self, rest: &[u8], now_us: u64) {
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
    pub(super) fn frame<W>(
        &mut self,
        h: &Header,
        payload: &[u8],
        env: &mut Env<'_, W>,
    ) -> Result<(), Failed> {
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
            } => self.data(stream, end_stream, flow_len, data, env),
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
                #[cfg(feature = "echo")]
                if self.keeps() {
                    self.sweep_kept();
                }
                Ok(())
            }
            Frame::Settings { ack: true, .. } => Ok(()),
            Frame::Settings { params, .. } => self.apply_settings(params),
            Frame::Ping { ack: false, data } => {
                self.control(kind::PING, flag::ACK, 0, &data);
                Ok(())
            }
            Frame::Ping { ack: true, .. } => Ok(()),
            // The peer closes after its GOAWAY (§6.8); until then the connection still
            // answers (a PING, its streams in flight).
            Frame::GoAway { .. } => Ok(()),
            Frame::WindowUpdate { stream, increment } => self.window_update(stream, increment),
        }
    }

    /// A stream the client has not opened yet (§5.1 "idle"); a frame on it other than
    /// HEADERS and PRIORITY is a connection error.
    pub(super) fn is_idle_stream(&self, stream: u32) -> bool {
        stream > self.last_stream
    }

    /// A fragment of the open header block; the block is decoded at its END_HEADERS.
    pub(super) fn fragment<W>(
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
}
