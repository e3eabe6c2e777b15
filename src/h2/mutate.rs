//! `--mutate` on HTTP/2: a stream on the default route is answered with the next variant of
//! the HTTP/2 catalogue (`crate::mutate`'s `h2-` ids), written whole into the output on the
//! request's stream; a variant that breaks the connection closes it after.

use super::shape::{How, Shaped};
use super::{Env, Phase, State};

impl State {
    /// Answer stream `i` (its request complete, on the default route) with the next HTTP/2
    /// variant, if `--mutate` gives it one: now, or once `--delay` has passed, as HTTP/1
    /// holds its variants. Out of line: only reached with faults configured.
    #[cold]
    #[inline(never)]
    pub(super) fn mutated<W>(&mut self, i: usize, env: &mut Env<'_, W>) -> bool {
        let Some(faults) = env.features.faults.as_deref_mut() else {
            return false;
        };
        let Some((j, v)) = faults.next_h2() else {
            return false;
        };
        let bytes = v.bytes().len() as u64;
        let delay = env.settings.switches.delay_us;
        // Journaled and logged as HTTP/1's variants are: no status (a variant may have none,
        // or several), the variant named.
        let id = crate::mutate::COUNT + j;
        #[cfg(feature = "journal")]
        if self.keeps() {
            let entry = self.journal_kept(i, 0, crate::plan::Kinds::NONE, None, env);
            if let (Some(seq), Some(r)) = (entry, env.features.journal.as_deref()) {
                r.journal.set_mutate(seq, id);
            }
        }
        if env.features.access_log.is_some() {
            let a = super::log::Answered {
                status: 0,
                rule: None,
                bytes,
                faults: &[],
                until_us: env.now_us + delay,
                mutate: Some(id),
            };
            self.log_answer(self.streams[i].id, &a, env);
        }
        let s = &mut self.streams[i];
        if delay > 0 {
            s.fault = Some(Shaped {
                at_us: env.now_us + delay,
                how: How::Variant(j as u16),
            });
            self.faults.shaped += 1;
            return true;
        }
        // Nothing left to send: the next pump drops it.
        s.headers_sent = true;
        s.head_only = true;
        let id = s.id;
        self.write_variant(id, j, env);
        true
    }

    /// Write HTTP/2 variant `j` on stream `id`, and count it.
    pub(super) fn write_variant<W>(&mut self, id: u32, j: usize, env: &mut Env<'_, W>) {
        let Some(v) = env.features.faults.as_deref().and_then(|f| f.h2_variant(j)) else {
            return;
        };
        v.write(id, &mut self.out);
        let close = v.closes();
        let k = crate::mutate::COUNT + j;
        let m = &mut env.stats.mutated;
        if m.len() <= k {
            m.resize(crate::mutate::TOTAL, 0);
        }
        m[k] += 1;
        if close {
            // The client cannot be trusted to be in step any more (its HPACK table, its
            // streams): no GOAWAY, since some variants are about GOAWAY itself.
            self.goaway_sent = true;
            self.phase = Phase::Closing;
            self.input.clear();
        }
    }
}
