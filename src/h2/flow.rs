//! Flow control (§5.2, §6.9) and the peer's SETTINGS (§6.5): DATA counted against the
//! receive windows and given back at once (a body is discarded), WINDOW_UPDATE and a new
//! SETTINGS_INITIAL_WINDOW_SIZE applied to the send windows.

#[cfg(feature = "echo")]
use super::Own;
use super::{Env, Failed, SEND_FRAME_MAX, State, conn_error, stream_error};
use crate::frame::{ErrorCode, MAX_WINDOW, flag, kind, setting};

impl State {
    /// DATA: counted against the windows and given back at once (the body is discarded);
    /// END_STREAM makes its request answered.
    pub(super) fn data<W>(
        &mut self,
        stream: u32,
        end: bool,
        len: u32,
        body: &[u8],
        env: &mut Env<'_, W>,
    ) -> Result<(), Failed> {
        if self.is_idle_stream(stream) {
            return Err(conn_error(ErrorCode::ProtocolError));
        }
        let len = i64::from(len);
        self.recv_window -= len;
        if self.recv_window < 0 {
            return Err(conn_error(ErrorCode::FlowControlError));
        }
        if len > 0 {
            self.recv_window += len;
            self.control(kind::WINDOW_UPDATE, 0, 0, &(len as u32).to_be_bytes());
        }
        let Some(i) = self
            .streams
            .iter()
            .position(|s| s.id == stream && !s.answering)
        else {
            if self.refused_body(stream) || self.reset_by_us.contains(stream) {
                return Ok(());
            }
            // Closed, or half-closed by its END_STREAM (§6.1, §5.1).
            return Err(stream_error(ErrorCode::StreamClosed, stream));
        };
        let s = &mut self.streams[i];
        s.last_us = env.now_us;
        s.recv_window -= len;
        if s.recv_window < 0 {
            return Err(stream_error(ErrorCode::FlowControlError, stream));
        }
        if !s.length.data(body.len()) || (end && !s.length.ended()) {
            // Not the declared content-length: malformed (§8.1.1).
            return Err(stream_error(ErrorCode::ProtocolError, stream));
        }
        s.received += len as u64;
        if s.received > env.settings.conn_limits.max_body {
            self.body_too_large(i, env);
            return Ok(());
        }
        #[cfg(feature = "echo")]
        if s.error == Own::Kept && !self.keep_body(i, body, env)? {
            return Ok(());
        }
        if end {
            self.answer(i, env);
        } else if len > 0 {
            self.streams[i].recv_window += len;
            self.control(kind::WINDOW_UPDATE, 0, stream, &(len as u32).to_be_bytes());
        }
        Ok(())
    }

    /// The peer's SETTINGS (§6.5): a new initial window moves every stream's send window by
    /// the difference (§6.9.2); its frame size is capped at [`SEND_FRAME_MAX`]. Acknowledged.
    pub(super) fn apply_settings(
        &mut self,
        params: crate::frame::Settings<'_>,
    ) -> Result<(), Failed> {
        let mut window = None;
        let mut max_frame = None;
        params.each(|id, v| match id {
            setting::INITIAL_WINDOW_SIZE => window = Some(v),
            setting::MAX_FRAME_SIZE => max_frame = Some(v),
            _ => {}
        })?;
        if let Some(w) = window {
            let delta = i64::from(w) - i64::from(self.peer_initial_window);
            self.peer_initial_window = w;
            for s in &mut self.streams {
                s.window += delta;
                if s.window > i64::from(MAX_WINDOW) {
                    return Err(conn_error(ErrorCode::FlowControlError));
                }
            }
        }
        if let Some(m) = max_frame {
            self.peer_max_frame = m.min(SEND_FRAME_MAX);
        }
        self.control(kind::SETTINGS, flag::ACK, 0, &[]);
        Ok(())
    }

    /// WINDOW_UPDATE: the connection's send window (stream 0) or one stream's grows; past
    /// 2^31-1 it is a flow-control error (§6.9.1).
    pub(super) fn window_update(&mut self, stream: u32, increment: u32) -> Result<(), Failed> {
        if stream == 0 {
            self.window += i64::from(increment);
            if self.window > i64::from(MAX_WINDOW) {
                return Err(conn_error(ErrorCode::FlowControlError));
            }
            return Ok(());
        }
        if self.is_idle_stream(stream) {
            return Err(conn_error(ErrorCode::ProtocolError));
        }
        if let Some(s) = self.streams.iter_mut().find(|s| s.id == stream) {
            s.window += i64::from(increment);
            if s.window > i64::from(MAX_WINDOW) {
                return Err(stream_error(ErrorCode::FlowControlError, stream));
            }
        }
        Ok(())
    }
}
