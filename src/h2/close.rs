//! GOAWAY and the ends of streams: a connection error's GOAWAY (§5.4.1, §6.8), a stream
//! error's RST_STREAM (§5.4.2), and the requests whose body never came reset (`flood`).

use super::{Env, Failed, Phase, State, flood};
use crate::frame::{ErrorCode, kind};
use crate::stats::Timeout;

impl State {
    /// Send GOAWAY with `code` and the last stream processed (§6.8). Any code but NO_ERROR
    /// closes the connection once it is written. Called, not inlined: a drain, a limit or an
    /// error sends it, never a plain request.
    #[inline(never)]
    pub(super) fn goaway(&mut self, code: ErrorCode) {
        let mut p = [0u8; 8];
        p[..4].copy_from_slice(&self.last_stream.to_be_bytes());
        p[4..].copy_from_slice(&(code as u32).to_be_bytes());
        self.control(kind::GOAWAY, 0, 0, &p);
        self.goaway_sent = true;
        if code != ErrorCode::NoError || self.streams.is_empty() {
            self.phase = Phase::Closing;
            self.input.clear();
        }
    }

    /// A frame broke a rule: RST_STREAM for a stream error (§5.4.2), GOAWAY for a connection
    /// error (§5.4.1).
    pub(super) fn fail<W>(&mut self, e: Failed, env: &mut Env<'_, W>) {
        match e.stream {
            Some(id) => {
                self.flood.reset();
                self.streams.retain(|s| s.id != id);
                #[cfg(feature = "echo")]
                if self.keeps() {
                    self.sweep_kept();
                }
                self.reset_by_us.add(id);
                self.control(kind::RST_STREAM, 0, id, &(e.code as u32).to_be_bytes());
            }
            None => {
                let _ = env;
                self.goaway(e.code);
            }
        }
    }

    /// When the requests still waiting for their bodies had their last frame (`flood`).
    pub(super) fn waiting(&self) -> impl Iterator<Item = u64> + '_ {
        self.streams
            .iter()
            .filter(|s| !s.answering)
            .map(|s| s.last_us)
    }

    /// Reset (CANCEL) the requests whose body never came (`flood`).
    pub(super) fn expire_bodies<W>(&mut self, env: &mut Env<'_, W>) {
        let (now, idle) = (env.now_us, env.settings.timeouts.idle_us);
        while let Some(i) = (self.streams.iter())
            .position(|s| !s.answering && flood::body_due(s.last_us, now, idle))
        {
            let id = self.streams.remove(i).id;
            self.reset_by_us.add(id);
            env.stats.timeouts[Timeout::Idle as usize] += 1;
            let code = (ErrorCode::Cancel as u32).to_be_bytes();
            self.control(kind::RST_STREAM, 0, id, &code);
            #[cfg(feature = "echo")]
            if self.keeps() {
                self.sweep_kept();
            }
        }
    }
}
