//! `--max-conns`: what a worker does at the limit. It closes its longest-silent connection,
//! else its longest-idle keep-alive one, to make room; with nothing of its own to close it stops
//! polling its listeners and asks the other workers for room (the limit is per process), and
//! it meets their asks from its own idle connections.

use super::state::Worker;
use crate::conn::Connection;
use crate::values::US_PER_MS;
use std::sync::atomic::Ordering;

/// How often a worker that stopped accepting at `--max-conns` looks again: the shared count
/// may have fallen through another worker's closes (µs).
pub(super) const LIMIT_RECHECK_US: u64 = 100_000;

impl Worker {
    /// At the limit with nothing idle to close (or the room made was taken by another worker):
    /// stop polling the listeners, look again in [`LIMIT_RECHECK_US`], and ask the other
    /// workers for room.
    #[cold]
    pub(super) fn stop_at_limit(&mut self) {
        self.at_limit = true;
        self.limit_recheck_at = self.now_us + LIMIT_RECHECK_US;
        self.update_own_deadline();
        self.listen_interest(false);
        self.shared.ask_for_room(self.id);
    }

    /// At the connection limit: close this worker's longest-silent connection, or its
    /// longest-idle keep-alive connection (no request in progress, no output pending) when no
    /// worker has a silent one, to make room, as nginx reuses its idle keep-alive connections.
    /// A scan over the worker's slots, paid only at the limit.
    #[cold]
    pub(super) fn close_longest_idle(&mut self) -> bool {
        let Some(k) = self.longest_idle(self.others_silent() == 0) else {
            return false;
        };
        self.close(k);
        self.idle_closed_at_limit += 1;
        true
    }

    /// The connection to close at the limit: the longest-silent one that has sent nothing
    /// since its accept (nothing waiting in its socket either), else the longest-idle
    /// keep-alive one (answered at least once, no request in progress, no output pending). A
    /// herd of silent sockets then makes room among itself, not by closing real clients.
    fn longest_idle(&self, or_answered: bool) -> Option<usize> {
        let mut silent: Option<(u64, usize)> = None;
        let mut answered: Option<(u64, usize)> = None;
        for (k, slot) in self.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            let oldest = if slot.conn.is_silent() {
                &mut silent
            } else if slot.conn.is_idle() && slot.conn.served() > 0 {
                &mut answered
            } else {
                continue;
            };
            let since = slot.conn.last_active_us();
            if oldest.is_none_or(|(t, _)| since < t) {
                *oldest = Some((since, k));
            }
        }
        if let Some((_, k)) = silent {
            // Just accepted, its first request may be in the socket buffer, unread.
            let sock = &self.slots[k].as_ref()?.sock;
            if !matches!(sock.peek(&mut [std::mem::MaybeUninit::uninit()]), Ok(1..)) {
                return Some(k);
            }
        }
        // Another worker's silent connection goes first: ask it instead (`stop_at_limit`).
        answered.filter(|_| or_answered).map(|(_, k)| k)
    }

    /// Silent connections ([`Connection::is_silent`]) of the other workers.
    fn others_silent(&self) -> usize {
        self.shared
            .silent
            .load(Ordering::Relaxed)
            .saturating_sub(self.silent)
    }

    /// Another worker at the limit has nothing idle: close this worker's longest-idle
    /// keep-alive connection for it, if there is one. The ask is taken (its flag cleared)
    /// first, so that two workers never close two connections for one ask.
    #[cold]
    pub(super) fn make_room_for_another_worker(&mut self) {
        let ms = self.now_us / US_PER_MS;
        if self.shared.asks_for_room(self.id)
            || self.drain_deadline.is_some()
            || self.looked_for_room_ms == ms
        {
            return;
        }
        self.looked_for_room_ms = ms;
        let Some(k) = self.longest_idle(self.others_silent() == 0) else {
            return;
        };
        if self.shared.take_ask_for_room(self.id) {
            self.close(k);
            self.idle_closed_at_limit += 1;
        }
    }
}
