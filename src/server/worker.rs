//! One worker's poll loop: accept, one read and one write per ready connection, each
//! connection's deadlines, shutdown. It moves bytes between sockets and [`Conn`]s and knows no
//! HTTP grammar.
//!
//! Sockets are registered level-triggered, so steady traffic needs no `epoll_ctl`: interest
//! changes only when a connection starts or stops having output pending, or is paused by
//! backpressure.
//!
//! Timers: each connection says when it wants to be woken ([`Connection::wake_at`]: its
//! timeouts, a hold (`--delay`, a latency, a drip's pause), lingering), and the worker keeps
//! one entry per connection in [`Deadlines`], sleeping exactly until the earliest. An entry is
//! moved only when the connection's wish comes earlier; when a later wish (a keep-alive
//! connection's idle deadline after each request) is left alone, the entry fires early, the
//! connection reports its real time and the entry is set to it: no heap work per request, none
//! per tick, and a worker with nothing timed sleeps without a timeout.

use super::shared::Shared;
use super::timers::Deadlines;
use crate::config::Config;
use crate::conn::{ConnLimits, Connection, Env, Features, LogSink, Next, Pool, Settings, Switches};
use crate::fault::WorkerFaults;
use crate::response::{CounterRoutes, Responses, http_date};
use crate::stats::{Stats, Summary, stats_json};
use crate::values::US_PER_MS;
use polling::{Event, Events, PollMode, Poller};
use socket2::Socket;
use std::io::{self, Read};
use std::net::Shutdown;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

const WAKE: usize = usize::MAX - 1;
/// A second stop signal: stop now.
const FORCE: usize = usize::MAX - 2;
const LISTENER: usize = usize::MAX / 2;
// Connection keys are slab indices, far below LISTENER.
/// Read buffer shared by a worker's connections.
const SCRATCH: usize = 64 * 1024;
/// How often a worker that stopped accepting at `--max-conns` looks again (the shared count
/// may have fallen through another worker's closes), and how often `--stats`/`--metrics` counters are
/// published (µs).
const RECHECK_US: u64 = 100_000;
/// Draining: how often lingering connections are looked at, to close those whose client has
/// every byte of its last response (µs).
const DRAIN_CHECK_US: u64 = 10_000;
/// Pause after accept fails for lack of file descriptors or memory, or is refused (µs).
const ACCEPT_PAUSE_US: u64 = 100_000;

/// The connections this loop drives, through [`Connection`] (`crate::conn` says why one
/// alias): HTTP/1.
type Conn = crate::h1::Conn;
/// What a connection borrows from the worker's pool while it has work.
type Work = <Conn as Connection>::Work;

/// Why the loop calls a connection.
#[derive(Clone, Copy)]
enum Cause {
    /// Its socket is ready. `hangup`: the peer reset or hung up (EPOLLERR, EPOLLHUP), which
    /// is reported whatever the interest.
    Ready { readable: bool, hangup: bool },
    /// The deadline it asked for came.
    Deadline,
}

struct Slot {
    sock: Socket,
    conn: Conn,
    /// Registered interest.
    interest: Interest,
    /// This connection's entry in the worker's [`Deadlines`] (µs; `u64::MAX`: none), kept
    /// here so that the check after every event reads no heap.
    armed_us: u64,
}

/// What a worker lends its connections on each call: the settings, the canned bytes, the
/// buffer pool, the counters and the access log. Kept apart from the connection slots so that
/// both can be borrowed at once.
struct EnvParts {
    /// What every connection reads that is fixed for the run, built once ([`settings`]).
    settings: Settings,
    responses: Responses,
    pool: Pool<Work>,
    stats: Stats,
    /// `--access-log`: the lines of this loop turn, at most
    /// [`crate::conn::ACCESS_LOG_TURN_BYTES`].
    log: Option<Vec<u8>>,
    /// `--fault` and `--mutate`, when configured.
    faults: Option<WorkerFaults>,
}

impl EnvParts {
    fn env<'a>(
        &'a mut self,
        log_sink: Option<&'a super::log::AccessLog>,
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
                access_log: self.log.as_mut(),
                log_sink: log_sink.map(|l| l as &dyn LogSink),
                faults: self.faults.as_mut(),
            },
        }
    }
}

/// What a worker's connections read that is fixed for the run, from the command line: built
/// once, when the worker is.
fn settings(config: &Config) -> Settings {
    Settings {
        limits: config.limits,
        conn_limits: ConnLimits {
            // `--max-body-bytes 0`: unlimited.
            max_body: match config.max_body_bytes {
                0 => u64::MAX,
                n => n,
            },
            ..ConnLimits::default()
        },
        timeouts: config.timeouts.in_us(),
        max_requests: config.max_requests,
        switches: Switches {
            raw: config.raw.is_some(),
            raw_close: config.raw_close,
            delay_us: config.delay.saturating_mul(US_PER_MS),
            echo: config.routes.iter().any(|r| r.echo.is_some()),
        },
    }
}

/// The responses of a server, formatted once: each worker serves a clone of `responses`,
/// which shares the formatted bytes (only the heads' starts, with the `Date` each worker
/// patches, and the counter routes' bodies are a worker's own).
pub(super) struct Canned {
    responses: Responses,
    counter_routes: CounterRoutes,
    /// By route: its error-rate response's index in `responses` (`--fault error`).
    error_routes: Vec<u16>,
}

impl Canned {
    pub(super) fn new(config: &Config) -> io::Result<Canned> {
        let (mut responses, counter_routes) = super::setup::responses(config);
        let error_routes = super::setup::error_routes(config, &mut responses);
        let bytes = responses.formatted_bytes();
        if bytes > crate::response::MAX_FORMATTED_BYTES {
            // The command line measured its routes before (exit 2); this covers a
            // configuration built in code.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                crate::config::formatted_too_large(bytes),
            ));
        }
        Ok(Canned {
            responses,
            counter_routes,
            error_routes,
        })
    }
}

pub(super) struct Worker {
    /// Also in [`Shared`], for the other workers' `notify`.
    poller: Arc<Poller>,
    listeners: Vec<Socket>,
    /// After running out of fds: when accepting may resume.
    paused_until: Option<u64>,
    /// Listeners are off at `--max-conns` with no idle connection to close; look again at
    /// `limit_recheck_at`.
    at_limit: bool,
    limit_recheck_at: u64,
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    conns: usize,
    deadlines: Deadlines,
    scratch: Vec<u8>,
    parts: EnvParts,
    accepted: u64,
    idle_closed_at_limit: u64,
    /// The millisecond (of the worker's clock) this worker last looked for an idle connection
    /// for another worker: at most one scan of the slots per millisecond while an ask stands.
    looked_for_room_ms: u64,
    config: Arc<Config>,
    shared: Arc<Shared>,
    epoch: Instant,
    /// Microseconds since `epoch` when this loop turn began (one clock read per turn), rounded
    /// up: the unit of every deadline. A deadline `now_us + d` is never before `d` has passed,
    /// and a deadline `t` has passed once `now_us > t` (see [`us_rounded_up`]).
    now_us: u64,
    /// The wall-clock second the `Date` field was last rendered for.
    date_second: u64,
    /// Draining: the time whatever is still open is closed.
    drain_deadline: Option<u64>,
    /// Draining: the next look at lingering connections ([`Worker::close_delivered`]).
    drain_check_at: u64,
    /// The earliest of `paused_until`, `limit_recheck_at` (when at the limit),
    /// `drain_deadline` and `next_publish` (with `--stats` or `--metrics`, while connections are open);
    /// `u64::MAX`: none. A loop turn checks this one number.
    own_deadline: u64,
    /// accept(2) failures that paused accepting ([`Worker::accept_failed`]).
    accept_errors: u64,
    /// This worker's connections that have sent nothing yet ([`Conn::is_silent`]), also
    /// summed over the workers in [`Shared::silent`]: at the limit they are closed first.
    silent: usize,
    /// `--stats`, `--metrics`: this worker's index, the counter routes, the buffer the
    /// metrics text is rendered into (reused) and the next time to publish.
    id: usize,
    counter_routes: CounterRoutes,
    metrics_text: Vec<u8>,
    next_publish: u64,
}

impl Worker {
    pub(super) fn new(
        id: usize,
        listeners: Vec<Socket>,
        config: Arc<Config>,
        shared: Arc<Shared>,
        canned: &Canned,
    ) -> io::Result<Worker> {
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
        let responses = canned.responses.clone();
        let counter_routes = canned.counter_routes;
        let faults = super::setup::faults_with_error_routes(
            &config,
            &responses,
            canned.error_routes.clone(),
            shared.catalogue.clone(),
            id,
        );
        Ok(Worker {
            poller,
            listeners,
            paused_until: None,
            at_limit: false,
            limit_recheck_at: 0,
            slots: Vec::new(),
            free: Vec::new(),
            conns: 0,
            deadlines: Deadlines::default(),
            scratch: vec![0; SCRATCH],
            parts: EnvParts {
                settings: settings(&config),
                responses,
                pool: Pool::default(),
                stats: Stats::default(),
                log: config.access_log.then(Vec::new),
                faults,
            },
            accepted: 0,
            idle_closed_at_limit: 0,
            looked_for_room_ms: u64::MAX,
            config,
            shared,
            epoch: Instant::now(),
            now_us: 0,
            date_second: 0,
            drain_deadline: None,
            drain_check_at: u64::MAX,
            own_deadline: u64::MAX,
            accept_errors: 0,
            silent: 0,
            id,
            counter_routes,
            metrics_text: Vec::new(),
            next_publish: 0,
        })
    }

    pub(super) fn run(mut self) -> Summary {
        self.publish();
        let mut events = Events::with_capacity(NonZeroUsize::new(1024).unwrap());
        loop {
            let deadline = self.poll_deadline();
            events.clear();
            let polled = match deadline {
                Some(at) => self.poller.wait_deadline(&mut events, at),
                None => self.poller.wait(&mut events, None),
            };
            if let Err(e) = polled {
                super::log::diagnostic(format_args!("canned: poll failed: {e}"));
                // The other workers must stop too, or whoever joins them waits for ever.
                super::shared::wake(&self.shared);
                break;
            }
            self.now_us = us_rounded_up(self.epoch.elapsed());
            if self.config.common.date {
                let wall = SystemTime::now();
                let secs = wall
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                if secs != self.date_second {
                    self.date_second = secs;
                    self.parts.responses.set_date(http_date(wall));
                }
            }
            for ev in events.iter() {
                match ev.key {
                    WAKE => self.begin_drain(),
                    FORCE => {
                        // A second signal: what is still open is closed now, as at the end of
                        // `--shutdown-timeout`.
                        self.begin_drain();
                        self.drain_deadline = Some(0);
                        if let Some(log) = &self.shared.log {
                            log.stop_now();
                        }
                    }
                    k if k >= LISTENER => self.accept(k - LISTENER),
                    k => self.on_event(
                        k,
                        Cause::Ready {
                            readable: ev.readable,
                            hangup: ev.is_interrupt() || ev.is_err() == Some(true),
                        },
                    ),
                }
            }
            while let Some(k) = self.deadlines.pop_due(self.now_us) {
                if let Some(slot) = self.slots[k].as_mut() {
                    slot.armed_us = u64::MAX;
                }
                self.on_event(k, Cause::Deadline);
            }
            if self.shared.evictions_wanted.load(Ordering::Relaxed) != 0 {
                self.make_room_for_another_worker();
            }
            if let Some(lines) = self.parts.log.as_mut().filter(|l| !l.is_empty()) {
                // Once per loop turn, to the writer thread: never waits for stdout.
                match &self.shared.log {
                    Some(log) => self.parts.stats.log_lines_dropped += log.hand_off(lines),
                    None => lines.clear(),
                }
            }
            if self.shared.stop.load(Ordering::Relaxed) && self.drain_deadline.is_none() {
                self.begin_drain();
            }
            if self.now_us > self.own_deadline {
                self.worker_timers();
            }
            if let Some(deadline) = self.drain_deadline {
                if self.conns == 0 || self.now_us > deadline {
                    break;
                }
            }
        }
        // Whatever is still open at the shutdown deadline is closed.
        for k in 0..self.slots.len() {
            if self.slots[k].is_some() {
                self.close(k);
            }
        }
        self.summary()
    }

    fn summary(&self) -> Summary {
        Summary {
            connections: self.accepted,
            idle_closed_at_limit: self.idle_closed_at_limit,
            accept_errors: self.accept_errors,
            stats: self.parts.stats.clone(),
        }
    }

    /// How long to sleep: until the earliest deadline of any connection or of the worker
    /// itself; without a timeout when nothing is timed.
    fn poll_deadline(&mut self) -> Option<Instant> {
        let next = self
            .deadlines
            .earliest()
            .unwrap_or(u64::MAX)
            .min(self.own_deadline);
        if next == u64::MAX {
            // Going idle: leave the final counters for the other workers' counter routes.
            self.publish();
            return None;
        }
        // An absolute instant that stays the same until the earliest deadline moves: the
        // poller then leaves its timer armed as it is (no timerfd_settime per wake-up). Never
        // early: the timer fires at or after `next`, when `now_us` (rounded up) is past it
        // (or equal to it, if it fired on the nanosecond: the deadline stays in the heap and
        // the next wait, its timer read, polls again until the clock moves on).
        Some(self.epoch + Duration::from_micros(next))
    }

    /// Recompute [`Worker::own_deadline`] after one of its parts changed.
    #[cold]
    fn update_own_deadline(&mut self) {
        let recheck = if self.at_limit {
            self.limit_recheck_at
        } else {
            u64::MAX
        };
        let publish = if self.counter_routes.any() && self.conns > 0 {
            self.next_publish
        } else {
            u64::MAX
        };
        self.own_deadline = self
            .paused_until
            .unwrap_or(u64::MAX)
            .min(recheck)
            .min(self.drain_deadline.unwrap_or(u64::MAX))
            .min(self.drain_check_at)
            .min(publish);
    }

    /// The worker's own deadlines: resuming after fd exhaustion, looking again at the
    /// connection limit, publishing `--stats`/`--metrics` counters.
    #[cold]
    fn worker_timers(&mut self) {
        let accepting = self.drain_deadline.is_none();
        if let Some(t) = self.paused_until {
            if self.now_us > t && accepting {
                self.paused_until = None;
                if !self.at_limit {
                    self.listen_interest(true);
                }
            }
        }
        if self.at_limit && self.now_us > self.limit_recheck_at && accepting {
            // The shared count may have fallen (another worker's closes) or a connection of
            // this worker gone idle: poll the listeners again; `accept` decides (and asks the
            // other workers again if a client still waits).
            self.at_limit = false;
            self.withdraw_ask_for_room();
            if self.paused_until.is_none() {
                self.listen_interest(true);
            }
        }
        if self.now_us > self.drain_check_at {
            self.drain_check_at = self.now_us + DRAIN_CHECK_US;
            self.close_delivered();
        }
        if self.counter_routes.any() && self.now_us > self.next_publish {
            self.next_publish = self.now_us + RECHECK_US;
            self.publish();
        }
        self.update_own_deadline();
    }

    fn accept(&mut self, i: usize) {
        if self.drain_deadline.is_some() {
            return;
        }
        for round in 0..128 {
            // The slot is taken before the accept, so that two workers never admit more than
            // `--max-conns` between them; an accept that fails gives it back.
            if !self.shared.reserve_slot(self.config.max_conns) {
                if round > 0 {
                    // Whether another client waits is not known: the listener, polled
                    // level-triggered, says so on the next turn.
                    return;
                }
                if !self.close_longest_idle() || !self.shared.reserve_slot(self.config.max_conns) {
                    // At the limit with nothing idle to close (or the room made was taken by
                    // another worker): stop polling the listeners.
                    self.at_limit = true;
                    self.limit_recheck_at = self.now_us + RECHECK_US;
                    self.update_own_deadline();
                    self.listen_interest(false);
                    self.ask_for_room();
                    return;
                }
            }
            let Some(l) = self.listeners.get(i) else {
                self.shared.release_slot();
                return;
            };
            match l.accept4(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) {
                Ok((sock, _)) => self.add(sock),
                Err(e) => {
                    self.shared.release_slot();
                    match e.raw_os_error() {
                        Some(libc::EAGAIN) => return,
                        // The queued connection went away before it was taken (ECONNABORTED),
                        // a protocol error on it (EPROTO), or a signal: the next one may be fine.
                        Some(libc::ECONNABORTED | libc::EPROTO | libc::EINTR) => continue,
                        errno => {
                            self.accept_failed(&e, errno);
                            return;
                        }
                    }
                }
            }
        }
    }

    /// accept(2) failed for want of a resource (EMFILE, ENFILE, ENOBUFS, ENOMEM) or for a
    /// reason that a retry does not change (EPERM from a firewall or LSM): the connection
    /// stays queued and the listener, level-triggered, would wake the loop again at once. Stop
    /// polling the listeners for [`ACCEPT_PAUSE_US`], count it, and say so once per process
    /// for each errno.
    #[cold]
    fn accept_failed(&mut self, e: &io::Error, errno: Option<i32>) {
        self.accept_errors += 1;
        if self.shared.first_report(errno.unwrap_or(0)) && !self.config.quiet {
            let what = if matches!(errno, Some(libc::EMFILE | libc::ENFILE)) {
                "out of file descriptors"
            } else {
                "accept failed"
            };
            super::log::diagnostic(format_args!(
                "canned: {what} ({e}); pausing accept for 100 ms at a time while it lasts"
            ));
        }
        self.paused_until = Some(self.now_us + ACCEPT_PAUSE_US);
        self.update_own_deadline();
        self.listen_interest(false);
    }

    /// At the connection limit: close this worker's longest-silent connection, or its
    /// longest-idle keep-alive connection (no request in progress, no output pending) when no
    /// worker has a silent one, to make room, as nginx reuses its idle keep-alive connections.
    /// A scan over the worker's slots, paid only at the limit.
    #[cold]
    fn close_longest_idle(&mut self) -> bool {
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
        // Another worker's silent connection goes first: ask it instead (`ask_for_room`).
        answered.filter(|_| or_answered).map(|(_, k)| k)
    }

    /// Silent connections ([`Conn::is_silent`]) of the other workers.
    fn others_silent(&self) -> usize {
        self.shared
            .silent
            .load(Ordering::Relaxed)
            .saturating_sub(self.silent)
    }

    /// At the limit with nothing idle of its own: ask the other workers to close one of
    /// theirs (the limit is per process), and wake them to look.
    #[cold]
    fn ask_for_room(&mut self) {
        if self.shared.pollers.len() < 2 {
            return;
        }
        // Counted before the flag is raised: a worker that takes the ask (clears the flag)
        // and decrements never finds the count at zero.
        self.shared.evictions_wanted.fetch_add(1, Ordering::AcqRel);
        if self.shared.room_asked[self.id].swap(true, Ordering::AcqRel) {
            // Already asked: one ask at a time.
            self.shared.evictions_wanted.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        for (id, poller) in self.shared.pollers.iter().enumerate() {
            if id != self.id {
                let _ = poller.notify();
            }
        }
    }

    /// The ask is settled (met, or this worker resumes or drains): take it back if nobody
    /// met it, so that an ask nobody can meet does not stand. Only this worker's own ask: one
    /// that another worker met is already taken.
    fn withdraw_ask_for_room(&mut self) {
        if self.shared.room_asked[self.id].swap(false, Ordering::AcqRel) {
            self.shared.evictions_wanted.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Another worker at the limit has nothing idle: close this worker's longest-idle
    /// keep-alive connection for it, if there is one. The ask is taken (its flag cleared)
    /// first, so that two workers never close two connections for one ask.
    #[cold]
    fn make_room_for_another_worker(&mut self) {
        let ms = self.now_us / US_PER_MS;
        if self.shared.room_asked[self.id].load(Ordering::Acquire)
            || self.drain_deadline.is_some()
            || self.looked_for_room_ms == ms
        {
            return;
        }
        self.looked_for_room_ms = ms;
        let Some(k) = self.longest_idle(self.others_silent() == 0) else {
            return;
        };
        let asked = &self.shared.room_asked;
        let taken = (0..asked.len()).any(|id| {
            id != self.id
                && asked[id]
                    .compare_exchange(true, false, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
        });
        if taken {
            self.shared.evictions_wanted.fetch_sub(1, Ordering::AcqRel);
            self.close(k);
            self.idle_closed_at_limit += 1;
        }
    }

    fn listen_interest(&self, on: bool) {
        for (i, l) in self.listeners.iter().enumerate() {
            let ev = if on {
                Event::readable(LISTENER + i)
            } else {
                Event::none(LISTENER + i)
            };
            let _ = self.poller.modify_with_mode(l, ev, PollMode::Level);
        }
    }

    /// Take a connection just accepted, whose slot in [`Shared::open`] is already reserved.
    fn add(&mut self, sock: Socket) {
        // Nagle would hold back the second write of a pipelined batch.
        let _ = sock.set_tcp_nodelay(true);
        let k = match self.free.pop() {
            Some(k) => k,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        // SAFETY: the socket is deleted from the poller in `close` before it is dropped.
        if unsafe {
            self.poller
                .add_with_mode(&sock, Event::readable(k), PollMode::Level)
        }
        .is_err()
        {
            self.free.push(k);
            self.shared.release_slot();
            return;
        }
        self.slots[k] = Some(Slot {
            sock,
            conn: Conn::new(self.now_us),
            interest: Interest::READ,
            armed_us: u64::MAX,
        });
        self.conns += 1;
        self.accepted += 1;
        self.silent += 1;
        self.shared.silent.fetch_add(1, Ordering::Relaxed);
        if self.conns == 1 && self.counter_routes.any() {
            // Publish counters while there are connections.
            self.update_own_deadline();
        }
        self.rearm(k);
    }

    /// Let a connection act on what happened: its socket is ready (read once if it is
    /// readable and the connection wants input), or its deadline came. Then write its
    /// output and decide what is next.
    fn on_event(&mut self, k: usize, cause: Cause) {
        // Writability needs no test of its own: pending output is flushed on every event.
        let Some(slot) = self.slots.get_mut(k).and_then(Option::as_mut) else {
            return;
        };
        let mut env = self.parts.env(
            self.shared.log.as_ref(),
            self.now_us,
            self.drain_deadline.is_some(),
        );
        match cause {
            Cause::Ready { readable, .. } if readable && slot.conn.wants_read() => {
                match (&slot.sock).read(&mut self.scratch) {
                    Ok(0) if slot.conn.is_held() => {
                        // Gone while its response is held: nothing held can reach it.
                        self.close(k);
                        return;
                    }
                    Ok(0) => slot.conn.on_eof(),
                    Ok(n) => {
                        let was_silent = slot.conn.is_silent();
                        slot.conn.on_data(&self.scratch[..n], &mut env);
                        if was_silent {
                            self.silent -= 1;
                            self.shared.silent.fetch_sub(1, Ordering::Relaxed);
                        }
                    }
                    // Nothing after all (urgent data, a spurious wake-up): not an end.
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => {
                        self.close(k);
                        return;
                    }
                }
            }
            Cause::Ready { hangup: true, .. } => {
                // Not reading (a held response, a drip between pieces, output piled up): a
                // reset, or the peer's FIN while a response is held (asked for then, see
                // `set_interest`). The report stays level-triggered until the socket closes,
                // and would wake the loop on every turn until the hold ends. No response can
                // reach the client (nginx counts the same as a client abort, 499).
                self.close(k);
                return;
            }
            Cause::Ready { .. } => {}
            Cause::Deadline => {
                if let Next::Close { .. } = slot.conn.on_wake(&mut env) {
                    self.close(k);
                    return;
                }
            }
        }
        if !flush(slot, &mut env) {
            self.close(k);
            return;
        }
        self.close_or_rearm(k);
    }

    /// After a connection made progress: close it, start lingering, or update its interest
    /// and deadline.
    fn close_or_rearm(&mut self, k: usize) {
        let Some(slot) = self.slots[k].as_mut() else {
            return;
        };
        match slot.conn.next() {
            Next::Close { linger: false } => self.close(k),
            Next::Reset => {
                // SO_LINGER 0: close sends RST instead of FIN (a `reset` fault).
                let _ = slot.sock.set_linger(Some(Duration::ZERO));
                self.close(k);
            }
            Next::Close { linger: true } => {
                if slot.sock.shutdown(Shutdown::Write).is_err() {
                    self.close(k);
                    return;
                }
                slot.conn.start_lingering(self.now_us, &mut self.parts.pool);
                set_interest(&self.poller, slot, k, Interest::READ);
                self.rearm(k);
            }
            Next::Continue if self.drain_deadline.is_some() && slot.conn.is_idle() => {
                // Its last response in flight is written: nothing left to wait for.
                self.close(k);
            }
            Next::Continue => {
                let read = slot.conn.wants_read();
                let want = Interest {
                    read,
                    write: !slot.conn.output().is_empty(),
                    // A connection that reads sees the FIN as a read of 0 bytes.
                    hangup: !read && slot.conn.is_held(),
                };
                set_interest(&self.poller, slot, k, want);
                self.rearm(k);
            }
        }
    }

    /// Keep the connection's deadline entry no later than the time it wants to be woken. A
    /// later wish leaves the entry alone (it fires early and is set again then).
    #[inline(always)]
    fn rearm(&mut self, k: usize) {
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

    fn close(&mut self, k: usize) {
        if let Some(mut slot) = self.slots[k].take() {
            let _ = self.poller.delete(&slot.sock);
            if slot.conn.is_silent() {
                self.silent -= 1;
                self.shared.silent.fetch_sub(1, Ordering::Relaxed);
            }
            slot.conn.release(&mut self.parts.pool);
            self.deadlines.remove(k);
            self.free.push(k);
            self.conns -= 1;
            self.shared.release_slot();
            if self.conns == 0 && self.counter_routes.any() {
                // The last counts of this worker, for the others' counter routes: it publishes
                // only while it has connections.
                self.publish();
                self.update_own_deadline();
            }
            if self.at_limit && self.drain_deadline.is_none() {
                self.at_limit = false;
                self.withdraw_ask_for_room();
                self.update_own_deadline();
                if self.paused_until.is_none() {
                    self.listen_interest(true);
                }
            }
        }
    }

    /// `--stats`, `--metrics`: publish this worker's counters and refresh the counter routes'
    /// bodies from everyone's.
    #[cold]
    fn publish(&mut self) {
        if !self.counter_routes.any() {
            return;
        }
        let mut total = {
            let mut all = self
                .shared
                .published
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            all[self.id] = self.summary();
            Summary::total(all.iter())
        };
        if let Some(log) = &self.shared.log {
            total.stats.log_lines_dropped += log.dropped();
        }
        let open = self.shared.open.load(Ordering::Relaxed);
        if let Some(route) = self.counter_routes.stats {
            let json = stats_json(&total, open);
            self.parts
                .responses
                .set_body(route, Arc::from(json.into_bytes()));
        }
        if let Some(route) = self.counter_routes.metrics {
            crate::stats::prometheus::render(&total, open, &mut self.metrics_text);
            self.parts
                .responses
                .set_body(route, Arc::from(&self.metrics_text[..]));
        }
    }

    /// Draining: close each lingering connection whose last response the client's TCP has
    /// acknowledged whole (nothing left in the send queue). Lingering is there so that the
    /// client reads that response rather than a reset; once the bytes are in its receive
    /// buffer, a client that keeps sending after `Connection: close` must not hold the exit
    /// for the whole linger (2 s).
    #[cold]
    fn close_delivered(&mut self) {
        for k in 0..self.slots.len() {
            let Some(slot) = self.slots[k].as_ref() else {
                continue;
            };
            if slot.conn.is_lingering() && unacknowledged(&slot.sock) == 0 {
                self.close(k);
            }
        }
    }

    #[cold]
    fn begin_drain(&mut self) {
        if self.drain_deadline.is_some() {
            return;
        }
        let shutdown_us =
            u64::try_from(self.config.shutdown_timeout.as_micros()).unwrap_or(u64::MAX);
        self.drain_deadline = Some(self.now_us.saturating_add(shutdown_us));
        self.drain_check_at = self.now_us + DRAIN_CHECK_US;
        if let Some(log) = &self.shared.log {
            log.drain_by(super::log::after(self.config.shutdown_timeout));
        }
        self.update_own_deadline();
        self.withdraw_ask_for_room();
        let _ = self.poller.delete(&self.shared.wake_r);
        for l in self.listeners.drain(..) {
            let _ = self.poller.delete(&l);
        }
        for k in 0..self.slots.len() {
            let Some(slot) = self.slots[k].as_ref() else {
                continue;
            };
            // A request may already wait in the socket buffer: leave the connection to the
            // loop, which reads it and answers it with `Connection: close` instead of
            // resetting it. With nothing there, the idle connection is closed at once.
            if slot.conn.is_idle()
                && !matches!(
                    slot.sock.peek(&mut [std::mem::MaybeUninit::uninit()]),
                    Ok(1..)
                )
            {
                self.close(k);
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
        self.withdraw_ask_for_room();
    }
}

#[cfg(test)]
impl Worker {
    /// The poller's descriptor, for a test that makes polling fail.
    pub(super) fn poller_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.poller)
    }
}

/// Whole microseconds in `d`, rounded up: the worker's clock. Deadlines count from it, so that
/// `now_us + d` is at least `d` after the moment the clock was read, and one has passed only
/// once the clock is beyond it (`now_us > t`: the real time is then over `now_us - 1 >= t`).
/// Rounded down, a pause could end up to 1 µs before its time; rounded up, it ends at most 1 µs
/// after it, besides the loop's wake-up (a clock of whole milliseconds, by the same rule, made
/// a pause up to 1 ms late).
#[inline]
fn us_rounded_up(d: Duration) -> u64 {
    d.as_secs() * 1_000_000 + u64::from(d.subsec_nanos().div_ceil(1_000))
}

/// Bytes written to `sock` that its peer has not acknowledged (TCP; for a unix socket, not yet
/// read): SIOCOUTQ. When it cannot be told, as if nothing were: the connection then lingers
/// its full time, as outside a drain.
fn unacknowledged(sock: &Socket) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: TIOCOUTQ (SIOCOUTQ) writes one int through the valid pointer; the fd is open
    // (borrowed from `sock`).
    let rc = unsafe {
        libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(sock),
            libc::TIOCOUTQ,
            &mut n,
        )
    };
    if rc == 0 {
        n.max(0) as usize
    } else {
        usize::MAX
    }
}

/// Write pending output: one `send` per batch, more only when a large body refills it.
/// Returns false when the connection failed.
fn flush(slot: &mut Slot, env: &mut Env<'_, Work>) -> bool {
    loop {
        let out = slot.conn.output();
        if out.is_empty() {
            return true;
        }
        let len = out.len();
        match slot.sock.send(out) {
            Ok(n) => {
                slot.conn.wrote(n, env);
                if n < len {
                    return true;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// What a connection's socket is registered for.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Interest {
    read: bool,
    write: bool,
    /// The peer's FIN (EPOLLRDHUP), which a connection that is not reading never sees: asked
    /// for only while a response is held and nothing is read, since a client that half-closes
    /// after its requests still reads their answers.
    hangup: bool,
}

impl Interest {
    const READ: Interest = Interest {
        read: true,
        write: false,
        hangup: false,
    };
}

fn set_interest(poller: &Poller, slot: &mut Slot, k: usize, want: Interest) {
    if slot.interest != want {
        let mut ev = Event::new(k, want.read, want.write);
        ev.set_interrupt(want.hangup);
        if poller
            .modify_with_mode(&slot.sock, ev, PollMode::Level)
            .is_ok()
        {
            slot.interest = want;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker's clock: whole microseconds, rounded up.
    #[test]
    fn the_clock_rounds_up() {
        let ns = Duration::from_nanos;
        assert_eq!(us_rounded_up(ns(0)), 0);
        assert_eq!(us_rounded_up(ns(1)), 1);
        assert_eq!(us_rounded_up(ns(5_000)), 5);
        assert_eq!(us_rounded_up(ns(5_001)), 6);
        assert_eq!(us_rounded_up(ns(5_000_000)), 5_000);
        assert_eq!(us_rounded_up(Duration::new(2, 999_999_999)), 3_000_000);
        assert_eq!(us_rounded_up(Duration::new(7, 0)), 7_000_000);
    }

    /// Memory per idle connection is a goal (64 bytes): keep the slot small.
    #[test]
    fn idle_connection_slot_is_small() {
        assert!(
            std::mem::size_of::<Conn>() <= 24,
            "{}",
            std::mem::size_of::<Conn>()
        );
        assert!(
            std::mem::size_of::<Option<Slot>>() <= 40,
            "{}",
            std::mem::size_of::<Option<Slot>>()
        );
    }
}
