//! The write side: control frames queued, and the answered streams' HEADERS and DATA pumped
//! into the output within the windows and the peer's frame size, up to [`OUT_HIGH`].

use super::fields::encode_head;
use super::heads::{self, Heads};
use super::{Env, OUT_HIGH, Own, Phase, State, Stream, grpc};
use crate::frame::{ErrorCode, HEADER_LEN, Header, flag, kind};
use crate::response::{KeepAliveForm, Responses};

impl State {
    /// Queue a frame with this payload. Called, not inlined: no plain request sends one (a
    /// connection's SETTINGS ack, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY), and inlined it was
    /// a copy at each of its callers.
    #[inline(never)]
    pub(super) fn control(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
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

    /// After input or output: a drain's GOAWAY, then the answers' frames.
    pub(super) fn after<W>(&mut self, env: &mut Env<'_, W>) {
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
    pub(super) fn pump<W>(&mut self, env: &mut Env<'_, W>) {
        // The streams answered are taken out as a retain would: those kept move down over
        // them (`kept`, behind `i`), and the gap is closed once at the end, not at each
        // stream answered.
        let (mut i, mut kept) = (0, 0);
        // Looked up once for all the streams answered here.
        let heads = Heads::of(env);
        while i < self.streams.len() && self.pending_out() < OUT_HIGH {
            let mut s = self.streams[i];
            i += 1;
            if !s.answering || s.fault.is_some() {
                if kept + 1 != i {
                    self.streams[kept] = s;
                }
                kept += 1;
                continue;
            }
            if s.grpc != grpc::Call::None {
                let room = s.window.min(self.window);
                let sent = grpc::answer(s.grpc, s.id, s.headers_sent, room, &mut self.out);
                s.headers_sent = true;
                if let Some(n) = sent {
                    self.window -= n as i64;
                } else {
                    self.streams[kept] = s;
                    kept += 1;
                }
                continue;
            }
            #[cfg(feature = "echo")]
            if s.error == Own::Kept {
                if self.pump_kept(&mut s, env) {
                    self.flood.answered();
                    self.kept_done(s.id);
                } else {
                    self.streams[kept] = s;
                    kept += 1;
                }
                continue;
            }
            let responses = env.responses;
            let body = match s.error {
                Own::Route => responses.body(s.route as usize),
                Own::Refused(rule) => responses.error(rule)[2],
                #[cfg(feature = "echo")]
                Own::Kept => &[],
            };
            let body = if s.head_only { &[][..] } else { body };
            if !s.headers_sent {
                self.headers_from(&s, body.is_empty(), responses, heads);
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
                if s.early {
                    self.end_refused(s.id);
                }
            } else {
                self.streams[kept] = s;
                kept += 1;
            }
        }
        self.streams.drain(kept..i);
    }

    /// The response HEADERS of stream `s` (and CONTINUATION frames when the block is longer
    /// than the peer's frame size), ending the stream when there is no body.
    pub(super) fn response_headers<W>(&mut self, s: &Stream, no_body: bool, env: &Env<'_, W>) {
        self.headers_from(s, no_body, env.responses, Heads::of(env));
    }

    /// [`State::response_headers`] from the responses and their HEADERS frames, `heads`.
    fn headers_from(
        &mut self,
        s: &Stream,
        no_body: bool,
        responses: &Responses,
        heads: Option<&Heads>,
    ) {
        if let Some(head) = heads
            .and_then(|h| h.get(s.route as usize))
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
            #[cfg(feature = "echo")]
            Own::Kept => self.kept_head(s.id, s.route as usize, responses),
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
