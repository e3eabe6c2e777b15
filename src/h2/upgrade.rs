//! A connection that began as HTTP/1.1 and asked for h2c (`Upgrade: h2c`, RFC 7540 §3.2):
//! built from the HTTP/1 side's [`H2cRequest`] once its `101` is written. The `HTTP2-Settings`
//! payload is applied as the peer's SETTINGS (the `101` acknowledges it: no SETTINGS ACK,
//! §3.2.1), the request becomes stream 1, half-closed (remote), answered as any stream once
//! the client's preface and SETTINGS have come; canned's SETTINGS go first, as on every
//! HTTP/2 connection.

use super::{Env, Http2Conn, Stream};
use crate::conn::H2cRequest;
use crate::frame::{ErrorCode, Frame, Header, PREFACE, kind, setting};

impl Http2Conn {
    /// The HTTP/2 connection of a client that spoke it from its first byte (prior knowledge,
    /// RFC 9113 §3.3): the loop read the whole preface, and decided on it, once it could no
    /// longer be HTTP/1 (`crate::frame::sniff`); `rest` came after it in the same read. The
    /// preface is not looked at again here.
    #[cold]
    #[inline(never)]
    pub fn prior_knowledge<W>(now_us: u64, rest: &[u8], env: &mut Env<'_, W>) -> Http2Conn {
        let mut c = Http2Conn::new(now_us);
        let s = &mut *c.st;
        s.preface_at = PREFACE.len();
        s.active_us = env.now_us;
        env.stats.bytes_in += PREFACE.len() as u64;
        s.advertise(env);
        if !rest.is_empty() {
            c.on_data(rest, env);
        }
        c
    }

    /// The HTTP/2 connection an upgraded HTTP/1.1 request continues on.
    #[cold]
    #[inline(never)]
    pub fn upgraded<W>(
        now_us: u64,
        h: H2cRequest,
        input: &[u8],
        env: &mut Env<'_, W>,
    ) -> Http2Conn {
        let mut c = Http2Conn::new(now_us);
        let s = &mut *c.st;
        let header = Header {
            len: h.settings.len() as u32,
            kind: kind::SETTINGS,
            flags: 0,
            stream: 0,
        };
        let mut window = None;
        let mut max_frame = None;
        let applied = match Frame::parse(&header, &h.settings, super::MAX_FRAME_SIZE) {
            Ok(Frame::Settings { params, .. }) => params.each(|id, v| match id {
                setting::INITIAL_WINDOW_SIZE => window = Some(v),
                setting::MAX_FRAME_SIZE => max_frame = Some(v),
                _ => {}
            }),
            Ok(_) => Err(super::conn_error(ErrorCode::ProtocolError)),
            Err(e) => Err(e),
        };
        if let Err(e) = applied {
            s.goaway(e.code);
            return c;
        }
        s.peer_initial_window = window.unwrap_or(s.peer_initial_window);
        s.peer_max_frame = max_frame.map_or(s.peer_max_frame, |m| m.min(super::SEND_FRAME_MAX));
        s.last_stream = 1;
        s.streams.push(Stream {
            id: 1,
            answering: false,
            headers_sent: false,
            route: h.route as u16,
            head_only: h.head_only,
            at: 0,
            window: i64::from(s.peer_initial_window),
            recv_window: 0,
            received: 0,
            error: super::Own::Route,
            early: false,
            // A gRPC call has a body: it is never upgraded.
            grpc: super::grpc::Call::None,
            last_us: env.now_us,
            fault: None,
            // HTTP/1 answers a request with a body itself: stream 1 has none.
            length: super::conform::BodyLength::new(None),
        });
        s.upgraded_log(&h.log_words, env);
        s.advertise(env);
        #[cfg(feature = "echo")]
        {
            #[cfg(feature = "control")]
            let control = h.control.map(|c| *c);
            #[cfg(not(feature = "control"))]
            let control = None;
            if s.fields.capture && s.keep_upgraded(&h.head, h.route, control, env) {
                s.streams[0].error = super::Own::Kept;
            }
        }
        s.count_stream(env);
        s.answer(0, env);
        if !input.is_empty() {
            // Counted when HTTP/1 read it.
            env.stats.bytes_in -= input.len() as u64;
            c.on_data(input, env);
        }
        c
    }
}
