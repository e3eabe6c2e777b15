//! What a worker holds ([`Worker`]: its listeners, connection slots, deadlines, the parts it
//! lends its connections, its counters), how it is built from a [`WorkerSetup`], and what every
//! other part of the loop does to it: close a connection, keep a connection's deadline entry,
//! turn the listeners on and off, recompute its own deadline, publish its counters.

use super::clock::DateClock;
use super::publish::Publisher;
use super::slot::{FORCE, LISTENER, Slot, WAKE, Work};
use crate::conn::{Connection, Env, Features, LogSink, Part, Pool, Settings, Tables};
use crate::fault::WorkerFaults;
use crate::journal::Recorder;
use crate::response::Responses;
use crate::server::log::AccessLog;
use crate::server::setup::WorkerSetup;
use crate::server::shared::Shared;
use crate::server::timers::Deadlines;
use crate::stats::{Stats, Summary};
use crate::transport::Transport;
use polling::{Event, PollMode, Poller};
use socket2::Socket;
use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Read buffer shared by a worker's connections.
const SCRATCH: usize = 64 * 1024;

/// What a worker lends its connections on each call: the settings, the canned bytes, the
/// buffer pool, the counters and the access log. Kept apart from the connection slots so that
/// both can be borrowed at once.
pub(super) struct EnvParts {
    /// What every connection reads that is fixed for the run, built once
    /// ([`WorkerSetup::settings`]).
    pub(super) settings: Settings,
    pub(super) responses: Responses,
    /// What the features keep by route: the echo routes, `--control`'s blocks, the
    /// validators, HTTP/2's HEADERS frames.
    pub(super) tables: Tables,
    pub(super) pool: Pool<Work>,
    pub(super) stats: Stats,
    /// `--access-log`: the lines of this loop turn, at most
    /// [`crate::conn::ACCESS_LOG_TURN_BYTES`], their format and the client of the connection
    /// being handled.
    pub(super) log: Option<crate::conn::LogLines>,
    /// `--fault` and `--mutate`, when configured.
    pub(super) faults: Option<WorkerFaults>,
    /// `--journal`: the ring the workers share.
    pub(super) journal: Option<Recorder>,
}

impl EnvParts {
    pub(super) fn env<'a>(
        &'a mut self,
        log_sink: Option<&'a AccessLog>,
        now_us: u64,
        draining: bool,
    ) -> Env<'a, Work> {
        Env {
            settings: &self.settings,
            responses: &self.responses,
            pool: &mut self.pool,
            stats: &mut self.stats,
            now_us,
            draining,
            features: Features {
                access_log: Part::new(self.log.as_mut()),
                log_sink: log_sink.map(|l| l as &dyn LogSink),
                faults: Part::new(self.faults.as_mut()),
                journal: Part::new(self.journal.as_mut()),
                tables: Some(&self.tables),
                client: None,
            },
        }
    }
}

/// One worker: the listeners it accepts on, the connections it drives, their deadlines and its
/// own, and what it lends its connections.
pub(crate) struct Worker {
    /// Also in [`Shared`], for the other workers' `notify`.
    pub(super) poller: Arc<Poller>,
    pub(super) listeners: Vec<Socket>,
    /// After running out of fds: when accepting may resume.
    pub(super) paused_until: Option<u64>,
    /// Listeners are off at `--max-conns` with no idle connection to close; look again at
    /// `limit_recheck_at`.
    pub(super) at_limit: bool,
    pub(super) limit_recheck_at: u64,
    pub(super) slots: Vec<Option<Slot>>,
    /// `--journal`, `--access-log`, `--echo` and `--control`: each slot's client (its address
    /// `None`: a unix-socket client), kept apart so that a slot stays small; empty without them.
    pub(super) peers: Vec<crate::conn::Client>,
    /// Whether `peers` is kept: a feature reads the client (none in the core).
    #[cfg_attr(
        not(any(
            feature = "journal",
            feature = "access-log",
            feature = "echo",
            feature = "control"
        )),
        allow(dead_code)
    )]
    pub(super) keep_peers: bool,
    pub(super) free: Vec<usize>,
    pub(super) conns: usize,
    pub(super) deadlines: Deadlines,
    pub(super) scratch: Vec<u8>,
    pub(super) parts: EnvParts,
    pub(super) accepted: u64,
    pub(super) idle_closed_at_limit: u64,
    /// The millisecond (of the worker's clock) this worker last looked for an idle connection
    /// for another worker: at most one scan of the slots per millisecond while an ask stands.
    pub(super) looked_for_room_ms: u64,
    /// `--max-conns`, over all workers.
    pub(super) max_conns: usize,
    /// `--quiet`.
    pub(super) quiet: bool,
    /// `--shutdown-timeout`.
    pub(super) shutdown_timeout: Duration,
    pub(super) shared: Arc<Shared>,
    pub(super) epoch: Instant,
    /// Microseconds since `epoch` when this loop turn began (one clock read per turn), rounded
    /// up: the unit of every deadline. A deadline `now_us + d` is never before `d` has passed,
    /// and a deadline `t` has passed once `now_us > t` (see
    /// [`us_rounded_up`](super::clock::us_rounded_up)).
    pub(super) now_us: u64,
    pub(super) date: DateClock,
    /// Draining: the time whatever is still open is closed.
    pub(super) drain_deadline: Option<u64>,
    /// Draining: the next look at lingering connections ([`Worker::close_delivered`]).
    pub(super) drain_check_at: u64,
    /// When to return the pool's freed memory to the system (`u64::MAX`: not due).
    pub(super) trim_at: u64,
    /// The earliest of `paused_until`, `limit_recheck_at` (when at the limit),
    /// `drain_deadline` and the next publishing (with `--stats` or `--metrics`, while
    /// connections are open); `u64::MAX`: none. A loop turn checks this one number.
    pub(super) own_deadline: u64,
    /// accept(2) failures that paused accepting ([`Worker::accept_failed`]).
    pub(super) accept_errors: u64,
    /// This worker's connections that have sent nothing yet ([`Connection::is_silent`]; a
    /// start of the HTTP/2 preface, which may yet be either protocol, counts as nothing), also
    /// summed over the workers in [`Shared::silent`]: at the limit they are closed first.
    pub(super) silent: usize,
    /// This worker's index.
    pub(super) id: usize,
    /// `--stats`, `--metrics`.
    pub(super) publisher: Publisher,
    /// `--admin`: the change of the faults this worker serves ([`Shared::faults`]).
    pub(super) faults_epoch: u64,
    /// `--admin`: the `POST /reset`s this worker has zeroed its counters for.
    pub(super) counter_resets: u64,
    /// The transport its connections are accepted with ([`WorkerSetup::transport`]).
    pub(super) transport: Transport,
    /// The TLS connections' state, by slot (`Slot::tls`), kept apart so that a slot stays
    /// small; empty without a `tls:` listener.
    #[cfg(feature = "tls")]
    pub(super) tls: Vec<Option<Box<crate::transport::tls::TlsConn>>>,
    /// The `tls:` listeners' configuration, and which listeners (by index) are TLS.
    #[cfg(feature = "tls")]
    pub(super) tls_config: Option<std::sync::Arc<crate::transport::tls::Configs>>,
    #[cfg(feature = "tls")]
    pub(super) tls_listeners: Vec<bool>,
}

impl Worker {
    pub(crate) fn new(
        listeners: Vec<Socket>,
        shared: Arc<Shared>,
        setup: WorkerSetup,
    ) -> io::Result<Worker> {
        let id = setup.id;
        let poller = shared.pollers[id].clone();
        for (i, l) in listeners.iter().enumerate() {
            // SAFETY: the listener is deleted from the poller before it is dropped
            // (`begin_drain`, or `Worker::drop`).
            unsafe { poller.add_with_mode(l, Event::readable(LISTENER + i), PollMode::Level)? };
        }
        // SAFETY: the poller is dropped before the wake and stop-now sockets: the worker drops
        // its `poller` before its `shared`, and `Shared` its `pollers` before `wake_r` and
        // `force_r`.
        unsafe {
            poller.add_with_mode(&shared.wake_r, Event::readable(WAKE), PollMode::Level)?;
            poller.add_with_mode(&shared.force_r, Event::readable(FORCE), PollMode::Level)?;
        }
        let now = Instant::now();
        Ok(Worker {
            poller,
            listeners,
            paused_until: None,
            at_limit: false,
            limit_recheck_at: 0,
            slots: Vec::new(),
            peers: Vec::new(),
            keep_peers: setup.access_log
                || setup.journal.is_some()
                || setup.settings.switches.by_request(),
            free: Vec::new(),
            conns: 0,
            deadlines: Deadlines::default(),
            scratch: vec![0; SCRATCH],
            parts: EnvParts {
                settings: setup.settings,
                responses: setup.responses,
                tables: setup.tables,
                pool: Pool::default(),
                stats: Stats::default(),
                log: setup
                    .access_log
                    .then(|| crate::conn::LogLines::new(setup.access_log_json, now)),
                faults: setup.faults,
                journal: setup.journal.map(|journal| Recorder {
                    journal,
                    peer: None,
                    seq: 0,
                }),
            },
            accepted: 0,
            idle_closed_at_limit: 0,
            looked_for_room_ms: u64::MAX,
            max_conns: setup.max_conns,
            quiet: setup.quiet,
            shutdown_timeout: setup.shutdown_timeout,
            shared,
            epoch: now,
            now_us: 0,
            date: DateClock::new(setup.patch_date),
            drain_deadline: None,
            drain_check_at: u64::MAX,
            trim_at: u64::MAX,
            own_deadline: u64::MAX,
            accept_errors: 0,
            silent: 0,
            id,
            publisher: Publisher::new(id, setup.counter_routes),
            faults_epoch: 0,
            counter_resets: 0,
            transport: setup.transport,
            #[cfg(feature = "tls")]
            tls: Vec::new(),
            #[cfg(feature = "tls")]
            tls_config: setup.tls,
            #[cfg(feature = "tls")]
            tls_listeners: setup.tls_listeners,
        })
    }

    pub(super) fn summary(&self) -> Summary {
        Summary {
            connections: self.accepted,
            idle_closed_at_limit: self.idle_closed_at_limit,
            accept_errors: self.accept_errors,
            stats: self.parts.stats.clone(),
        }
    }

    /// `--stats`, `--metrics`: publish this worker's counters and refresh the counter routes'
    /// bodies from everyone's.
    #[cold]
    pub(super) fn publish(&mut self) {
        if !self.publisher.any() {
            return;
        }
        let mine = self.summary();
        self.publisher
            .publish(mine, &self.shared, &mut self.parts.responses);
    }

    /// `--admin` changed the faults: take the new responses (after those it has) and set, in
    /// one step of the loop, so that each request from now on sees them. Responses already
    /// under way keep the bytes they were given.
    #[cold]
    #[inline(never)]
    pub(super) fn adopt_faults(&mut self) {
        let Some(published) = self
            .shared
            .faults
            .as_ref()
            .filter(|_| cfg!(feature = "admin"))
        else {
            return;
        };
        let (tables, epoch) = published.current();
        self.faults_epoch = epoch;
        // The responses this worker's connections are sending: a retired one stays until
        // they are done with it (reported, and looked at again at the next change).
        let mut held = vec![0u64; 1 << 10];
        for slot in self.slots.iter().flatten() {
            slot.conn.responses_held(&mut |r| {
                if let Some(w) = held.get_mut(r / 64) {
                    *w |= 1 << (r % 64);
                }
            });
        }
        let mut replaced = Vec::new();
        let kept = self.parts.responses.adopt_routes(
            &tables.responses,
            |r| held.get(r / 64).is_some_and(|w| w & (1 << (r % 64)) != 0),
            |r| replaced.push(r),
        );
        #[cfg(feature = "http2")]
        if let Some(h2) = &mut self.parts.tables.h2 {
            if let Some(heads) = h2.downcast_ref::<crate::h2::Heads>() {
                let mut heads = heads.clone();
                heads.forget(&replaced);
                *h2 = Arc::new(heads);
            }
        }
        published.report(self.id, epoch, kept);
        if let Some(f) = self.parts.faults.as_mut() {
            f.replace(tables.set.clone());
        }
        if tables.counter_resets != self.counter_resets {
            // `POST /reset`: the counters start again from zero (connections open are not a
            // count of this worker's, and stay).
            self.counter_resets = tables.counter_resets;
            self.parts.stats = crate::stats::Stats::default();
            self.accepted = 0;
            self.idle_closed_at_limit = 0;
            self.accept_errors = 0;
            self.publish();
        }
    }

    /// Recompute [`Worker::own_deadline`] after one of its parts changed.
    #[cold]
    pub(super) fn update_own_deadline(&mut self) {
        let recheck = if self.at_limit {
            self.limit_recheck_at
        } else {
            u64::MAX
        };
        let publish = if self.publisher.any() && self.conns > 0 {
            self.publisher.next_at
        } else {
            u64::MAX
        };
        self.own_deadline = self
            .paused_until
            .unwrap_or(u64::MAX)
            .min(recheck)
            .min(self.drain_deadline.unwrap_or(u64::MAX))
            .min(self.drain_check_at)
            .min(self.trim_at)
            .min(publish);
    }

    pub(super) fn listen_interest(&self, on: bool) {
        for (i, l) in self.listeners.iter().enumerate() {
            let ev = if on {
                Event::readable(LISTENER + i)
            } else {
                Event::none(LISTENER + i)
            };
            let _ = self.poller.modify_with_mode(l, ev, PollMode::Level);
        }
    }

    /// No longer at the limit (a connection closed, or time to look again): withdraw the ask
    /// for room and poll the listeners again, unless accepting is paused.
    pub(super) fn leave_limit(&mut self) {
        self.at_limit = false;
        self.shared.withdraw_ask_for_room(self.id);
        self.update_own_deadline();
        if self.paused_until.is_none() {
            self.listen_interest(true);
        }
    }

    /// Keep the connection's deadline entry no later than the time it wants to be woken. A
    /// later wish leaves the entry alone (it fires early and is set again then).
    #[inline(always)]
    pub(super) fn rearm(&mut self, k: usize) {
        let Some(slot) = self.slots[k].as_mut() else {
            return;
        };
        if let Some(want) = slot.conn.wake_at(&self.parts.settings) {
            if want < slot.armed_us {
                // Never one that has passed: a connection woken now has acted on its deadline
                // (and `pop_due` would hand it back at once).
                slot.armed_us = want.max(self.now_us);
                self.deadlines.set(k, slot.armed_us);
            }
        }
    }

    pub(super) fn close(&mut self, k: usize) {
        if let Some(mut slot) = self.slots[k].take() {
            let _ = self.poller.delete(&slot.sock);
            if slot.conn.is_silent() {
                self.silent -= 1;
                self.shared.silent.fetch_sub(1, Ordering::Relaxed);
            }
            slot.conn.release(&mut self.parts.pool);
            #[cfg(feature = "tls")]
            if slot.tls {
                self.tls[k] = None;
            }
            self.deadlines.remove(k);
            self.free.push(k);
            self.conns -= 1;
            self.shared.release_slot();
            if self.conns == 0 && self.publisher.any() {
                // The last counts of this worker, for the others' counter routes: it publishes
                // only while it has connections.
                self.publish();
                self.update_own_deadline();
            }
            if self.at_limit && self.drain_deadline.is_none() {
                self.leave_limit();
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // The poller outlives the worker (it is shared): leave nothing registered in it that
        // is about to close.
        for l in &self.listeners {
            let _ = self.poller.delete(l);
        }
        self.shared.withdraw_ask_for_room(self.id);
    }
}

#[cfg(test)]
impl Worker {
    /// The poller's descriptor, for a test that makes polling fail.
    pub(crate) fn poller_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.poller)
    }
}
