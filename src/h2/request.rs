//! A request: its header block decoded into [`RequestFields`] and checked, its stream
//! opened (or refused, or its trailers taken), routed, and answered at its END_STREAM.

use super::{
    Env, Failed, INITIAL_WINDOW_SIZE, MAX_CONCURRENT_STREAMS, Own, State, Stream, conform,
    conn_error, grpc, stream_error,
};
use crate::frame::ErrorCode;
use crate::plan::{self, Facts};

impl State {
    /// A whole header block on `stream`: a new request, or its trailers.
    pub(super) fn headers<W>(
        &mut self,
        stream: u32,
        block: &[u8],
        env: &mut Env<'_, W>,
    ) -> Result<(), Failed> {
        let end_stream = self.block_end_stream;
        let existing = self.streams.iter().position(|s| s.id == stream);
        let new = stream > self.last_stream;
        if !new {
            match existing {
                Some(i) if !self.streams[i].answering => {}
                // Trailers of a body refused (413), or on a stream canned reset: decoded for
                // the table (§4.3), otherwise ignored (`limits`, `closed`).
                Some(i) if self.streams[i].error != Own::Route => {
                    let _ = self.decode(block, true)?;
                    return Ok(());
                }
                None if self.reset_by_us.contains(stream) => {
                    let _ = self.decode(block, true)?;
                    return Ok(());
                }
                // Half-closed (remote): a stream error (§5.1).
                Some(_) => {
                    let _ = self.decode(block, true)?;
                    return Err(stream_error(ErrorCode::StreamClosed, stream));
                }
                // Never opened, the client having skipped it: an unexpected id (§5.1.1).
                None if self.skipped.was_skipped(stream) => {
                    return Err(conn_error(ErrorCode::ProtocolError));
                }
                // Closed: its END_STREAM or RST_STREAM came before (§5.1).
                None => return Err(conn_error(ErrorCode::StreamClosed)),
            }
        }
        let mut decoded = self.decode(block, !new)?;
        if self.block_depends_on_itself {
            // Malformed as a request is, now that the table has the block's entries.
            decoded = Err("a stream that depends on itself (§5.3.1)");
        }
        if !new {
            // Trailers: they end the stream (§8.1), carry no pseudo-header, and are otherwise
            // discarded as the body was.
            let i = existing.unwrap_or(0);
            if decoded.is_err() || !end_stream || !self.streams[i].length.ended() {
                self.streams.remove(i);
                return Err(stream_error(ErrorCode::ProtocolError, stream));
            }
            #[cfg(feature = "echo")]
            if self.streams[i].error == Own::Kept {
                self.keep_trailers(stream);
            }
            self.answer(i, env);
            return Ok(());
        }
        self.skipped.opened(self.last_stream, stream);
        self.last_stream = stream;
        if self.goaway_sent {
            // After our GOAWAY, new streams are ignored (§6.8); the block was decoded, so the
            // table stays in step. Past `--max-requests`, they are refused (`limits`).
            return self.past_max_requests(stream, env);
        }
        env.stats.requests += 1;
        if let Err(_why) = decoded {
            // Malformed (§8.1.1): a stream error.
            return Err(stream_error(ErrorCode::ProtocolError, stream));
        }
        if self.streams.len() >= MAX_CONCURRENT_STREAMS as usize {
            return Err(stream_error(ErrorCode::RefusedStream, stream));
        }
        let f = &self.fields;
        let route = env.responses.route(&f.method, f.route_path());
        let head_only = f.method == b"HEAD";
        let length = conform::BodyLength::new(f.semantics.content_length);
        if end_stream && !length.ended() {
            return Err(stream_error(ErrorCode::ProtocolError, stream));
        }
        // `--echo`, `--journal` and `--control`, out of line: one test without them.
        #[cfg(feature = "echo")]
        let own = match self.fields.capture {
            true => self.keep_or_refuse(stream, route, env)?,
            false => Own::Route,
        };
        #[cfg(not(feature = "echo"))]
        let own = Own::Route;
        let f = &self.fields;
        let error = match own {
            Own::Refused(rule) => Some(rule),
            _ => self.over_head_limits(env),
        };
        // CONNECT asks for a tunnel and sends no END_STREAM (§8.5): its 405 goes at once, as
        // HTTP/1's does, and so does an error that does not depend on the body.
        let early = !end_stream && (error.is_some() || f.method == b"CONNECT");
        let grpc = match error {
            None => grpc::Call::of(
                env.settings.switches.grpc_health(),
                &f.method,
                f.route_path(),
            ),
            Some(_) => grpc::Call::None,
        };
        self.streams.push(Stream {
            id: stream,
            answering: false,
            headers_sent: false,
            route: route as u16,
            head_only,
            at: 0,
            window: i64::from(self.peer_initial_window),
            recv_window: i64::from(INITIAL_WINDOW_SIZE),
            grpc,
            received: 0,
            error: match error {
                Some(rule) => Own::Refused(rule),
                None => own,
            },
            early,
            last_us: env.now_us,
            fault: None,
            length,
        });
        // Without an access log, no call: this is every request's path.
        if env.features.access_log.is_some() {
            self.hold_log(stream, route, env);
        }
        self.count_stream(env);
        if end_stream || early {
            let i = self.streams.len() - 1;
            self.answer(i, env);
        }
        Ok(())
    }

    /// Decode a block into [`State::fields`]: an HPACK error is the connection's
    /// (COMPRESSION_ERROR, §4.3); a malformed request is returned for its stream.
    pub(super) fn decode(
        &mut self,
        block: &[u8],
        trailers: bool,
    ) -> Result<Result<(), &'static str>, Failed> {
        self.fields.reset(trailers);
        let fields = &mut self.fields;
        self.decoder
            .decode_sourced(block, &mut self.scratch, |f, source| fields.add(f, source))
            .map_err(|_| conn_error(ErrorCode::CompressionError))?;
        Ok(self.fields.check())
    }

    /// Stream `i`'s request is complete: it is answered.
    pub(super) fn answer<W>(&mut self, i: usize, env: &mut Env<'_, W>) {
        // Faults shape a route's answer, not canned's own errors (413, 431, 501) nor an
        // answer that goes before its request has ended.
        let plain = self.streams[i].error == Own::Route && !self.streams[i].early;
        if plain && (env.features.faults.is_some() || env.settings.switches.delay_us > 0) {
            let s = &mut self.streams[i];
            // Under `--mutate` the default route's streams get HTTP/2's own variants, held
            // by `--delay`; a gRPC health call is answered in gRPC, never with a variant.
            if s.route == 0 && s.grpc == grpc::Call::None && env.features.faults.is_some() {
                s.answering = true;
                if self.mutated(i, env) {
                    self.served = self.served.saturating_add(1);
                    return;
                }
                self.streams[i].answering = false;
            }
            if self.answer_shaped(i, env) {
                return;
            }
        }
        let s = &mut self.streams[i];
        s.answering = true;
        self.served = self.served.saturating_add(1);
        let s = &self.streams[i];
        let (status, rule) = match (s.grpc, s.error) {
            (grpc::Call::None, Own::Route) => {
                // The plain answer's plan: its route's response, whole, not held.
                let facts = Facts {
                    route: s.route,
                    ranged_status: 0,
                    close: false,
                    variants: false,
                };
                let plan = plan::plain(facts, 0, env.responses);
                plan::count(&plan, env.stats);
                (plan.status, None)
            }
            #[cfg(feature = "echo")]
            (grpc::Call::None, Own::Kept) => match self.answer_kept(i, env) {
                Some(status) => {
                    env.stats.by_status[status as usize] += 1;
                    (status, None)
                }
                None => return,
            },
            (grpc::Call::None, Own::Refused(rule)) => {
                env.stats.by_status[rule.status() as usize] += 1;
                (rule.status(), Some(rule))
            }
            _ => {
                env.stats.by_status[200] += 1;
                (200, None)
            }
        };
        #[cfg(feature = "journal")]
        if self.fields.capture {
            self.journal_kept(i, status, plan::Kinds::NONE, rule, env);
        }
        if env.features.access_log.is_some() {
            // An answer from its slot (an echo, the journal) is held by `--delay` as a
            // route's is, and its line runs to the hold's end, as HTTP/1's does.
            #[cfg(feature = "echo")]
            let until_us = match (self.streams[i].error, env.settings.switches.delay_us) {
                (Own::Kept, delay) if delay > 0 => env.now_us + delay,
                _ => 0,
            };
            #[cfg(not(feature = "echo"))]
            let until_us = 0;
            self.log_plain(i, status, rule, until_us, env);
        }
    }
}
