//! One worker's poll loop: accept, one read and one write per ready connection, coarse timers,
//! shutdown. It moves bytes between sockets and [`Conn`]s and knows no HTTP grammar.
//!
//! Sockets are registered level-triggered, so steady traffic needs no `epoll_ctl`: interest
//! changes only when a connection starts or stops having output pending, or is paused by
//! backpressure.

use super::Shared;
use super::stats::{Summary, stats_json};
use crate::config::Config;
use crate::conn::{Conn, Env, Next, Pool, Stats, Timeout};
use crate::response::{Responses, Spec, http_date};
use polling::{Event, Events, PollMode, Poller};
use socket2::Socket;
use std::io::{self, Read};
use std::net::Shutdown;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

const WAKE: usize = usize::MAX - 1;
const LISTENER: usize = usize::MAX / 2;
// Connection keys are slab indices, far below LISTENER.
/// Read buffer shared by a worker's connections.
const SCRATCH: usize = 64 * 1024;
/// Timers are checked this often (coarse, never a syscall per request).
const TICK: Duration = Duration::from_millis(100);
/// How long a closing connection's input is drained after an error response (at least; the
/// deadline is kept in whole seconds).
const LINGER: u64 = 2_000;
/// Pause after accept fails for lack of file descriptors.
const FD_PAUSE: u64 = 100;

struct Slot {
    sock: Socket,
    conn: Conn,
    /// Registered interest (read, write).
    interest: (bool, bool),
    /// After shutting down the write side, drain input until this time (worker ms,
    /// compressed to u32 seconds to keep the slot small; 0: not lingering).
    linger: u32,
}

/// What a worker lends its connections on each call: the canned bytes, the buffer pool, the
/// counters and the access log. Kept apart from the connection slots so that both can be
/// borrowed at once.
struct EnvParts {
    responses: Responses,
    pool: Pool,
    stats: Stats,
    /// Access-log lines of this loop turn.
    log: Vec<u8>,
}

impl EnvParts {
    fn env<'a>(&'a mut self, config: &Config, now: u64, draining: bool, log: bool) -> Env<'a> {
        Env {
            responses: &self.responses,
            pool: &mut self.pool,
            stats: &mut self.stats,
            limits: config.limits,
            now,
            max_requests: config.max_requests,
            draining,
            raw: config.raw.is_some(),
            raw_close: config.raw_close,
            delay: config.delay,
            log: (log && config.access_log).then_some(&mut self.log),
        }
    }
}

pub(super) struct Worker {
    poller: Poller,
    listeners: Vec<Socket>,
    /// The time accepting may resume after running out of fds, or `None` when accepting.
    paused: Option<u64>,
    at_limit: bool,
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    conns: usize,
    scratch: Vec<u8>,
    parts: EnvParts,
    accepted: u64,
    config: Arc<Config>,
    shared: Arc<Shared>,
    epoch: Instant,
    now: u64,
    /// The wall-clock second the `Date` field was last rendered for.
    date_second: u64,
    draining: Option<u64>,
    logged_emfile: bool,
    /// `--delay`: (due time, connection) in due order.
    holds: std::collections::VecDeque<(u64, usize)>,
    /// `--stats`: this worker's index and the stats route.
    id: usize,
    stats_route: Option<usize>,
}

impl Worker {
    pub(super) fn new(
        id: usize,
        listeners: Vec<Socket>,
        config: Arc<Config>,
        shared: Arc<Shared>,
    ) -> io::Result<Worker> {
        let poller = Poller::new()?;
        for (i, l) in listeners.iter().enumerate() {
            // SAFETY: the listener is deleted from the poller before it is dropped
            // (`stop_accepting`, or the poller is dropped first with the worker).
            unsafe { poller.add_with_mode(l, Event::readable(LISTENER + i), PollMode::Level)? };
        }
        // SAFETY: `shared` (and so the wake socket) outlives the poller.
        unsafe {
            poller.add_with_mode(&shared.wake_r, Event::readable(WAKE), PollMode::Level)?;
        }
        let (responses, stats_route) = match &config.raw {
            Some(raw) => (Responses::raw(raw.clone(), &config.common), None),
            None => {
                let mut specs: Vec<Spec> = config.routes.iter().map(|r| r.spec.clone()).collect();
                let mut paths: Vec<(Vec<u8>, bool)> = config.routes[1..]
                    .iter()
                    .map(|r| (r.path.as_bytes().to_vec(), r.get_only))
                    .collect();
                if let Some(path) = &config.stats {
                    specs.push(Spec {
                        status: 200,
                        body: Arc::from(&b"{}\n"[..]),
                        content_type: "application/json".into(),
                        headers: vec!["Cache-Control: no-store".into()],
                    });
                    paths.push((path.as_bytes().to_vec(), false));
                }
                let stats_route = config.stats.is_some().then(|| specs.len() - 1);
                (Responses::new(&specs, &paths, &config.common), stats_route)
            }
        };
        Ok(Worker {
            poller,
            listeners,
            paused: None,
            at_limit: false,
            slots: Vec::new(),
            free: Vec::new(),
            conns: 0,
            scratch: vec![0; SCRATCH],
            parts: EnvParts {
                responses,
                pool: Pool::default(),
                stats: Stats::default(),
                log: Vec::new(),
            },
            accepted: 0,
            config,
            shared,
            epoch: Instant::now(),
            now: 0,
            date_second: 0,
            draining: None,
            logged_emfile: false,
            holds: std::collections::VecDeque::new(),
            id,
            stats_route,
        })
    }

    pub(super) fn run(mut self) -> Summary {
        self.publish();
        let mut events = Events::with_capacity(NonZeroUsize::new(1024).unwrap());
        let mut next_tick = 0;
        loop {
            let timeout = if let Some(&(due, _)) = self.holds.front() {
                let now = self.epoch.elapsed().as_millis() as u64;
                Some(TICK.min(Duration::from_millis(due.saturating_sub(now))))
            } else if self.conns > 0 || self.paused.is_some() || self.draining.is_some() {
                Some(TICK)
            } else {
                // Going idle: leave the final counters for the other workers' --stats.
                self.publish();
                None
            };
            events.clear();
            if let Err(e) = self.poller.wait(&mut events, timeout) {
                eprintln!("canned: poll failed: {e}");
                break;
            }
            self.now = self.epoch.elapsed().as_millis() as u64;
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
                    k if k >= LISTENER => self.accept(k - LISTENER),
                    k => self.on_event(k, ev.readable),
                }
            }
            while let Some(&(due, k)) = self.holds.front() {
                if due > self.now {
                    break;
                }
                self.holds.pop_front();
                self.release_held(k);
            }
            if !self.parts.log.is_empty() {
                // One write per loop turn.
                let _ = io::Write::write_all(&mut io::stdout().lock(), &self.parts.log);
                self.parts.log.clear();
            }
            if self.shared.stop.load(Ordering::Relaxed) && self.draining.is_none() {
                self.begin_drain();
            }
            if self.now >= next_tick {
                next_tick = self.now + TICK.as_millis() as u64;
                self.tick();
            }
            if let Some(deadline) = self.draining {
                if self.conns == 0 || self.now >= deadline {
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
        Summary {
            connections: self.accepted,
            stats: self.parts.stats,
        }
    }

    fn accept(&mut self, i: usize) {
        if self.draining.is_some() {
            return;
        }
        for _ in 0..128 {
            if self.shared.open.load(Ordering::Relaxed) >= self.config.max_conns {
                // At the limit: stop polling the listeners until a connection closes.
                self.at_limit = true;
                self.listen_interest(false);
                return;
            }
            let Some(l) = self.listeners.get(i) else {
                return;
            };
            match l.accept4(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) {
                Ok((sock, _)) => self.add(sock),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
                    if !self.logged_emfile && !self.config.quiet {
                        eprintln!(
                            "canned: out of file descriptors ({e}); pausing accept until one is free"
                        );
                    }
                    self.logged_emfile = true;
                    self.paused = Some(self.now + FD_PAUSE);
                    self.listen_interest(false);
                    return;
                }
                // ECONNABORTED and friends concern one connection only.
                Err(_) => continue,
            }
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

    fn add(&mut self, sock: Socket) {
        // Nagle would hold back the date_second write of a pipelined batch.
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
            return;
        }
        self.slots[k] = Some(Slot {
            sock,
            conn: Conn::new(self.now),
            interest: (true, false),
            linger: 0,
        });
        self.conns += 1;
        self.accepted += 1;
        self.shared.open.fetch_add(1, Ordering::Relaxed);
    }

    fn on_event(&mut self, k: usize, readable: bool) {
        // Writability needs no test of its own: pending output is flushed on every event.
        let Some(slot) = self.slots.get_mut(k).and_then(Option::as_mut) else {
            return;
        };
        if slot.linger != 0 {
            // Draining input after an error response: discard until EOF, an error or the
            // deadline.
            let n = (&slot.sock).read(&mut self.scratch).unwrap_or(0);
            if n == 0 || self.now / 1000 >= slot.linger as u64 {
                self.close(k);
            }
            return;
        }
        let mut env = self
            .parts
            .env(&self.config, self.now, self.draining.is_some(), true);
        let held = slot.conn.held_until().is_some();
        if readable && slot.conn.wants_read() {
            match (&slot.sock).read(&mut self.scratch) {
                Ok(0) => slot.conn.on_eof(),
                Ok(n) => slot.conn.on_data(&self.scratch[..n], &mut env),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.close(k);
                    return;
                }
            }
        }
        if !flush(slot, &mut env) {
            self.close(k);
            return;
        }
        if !held {
            if let Some(t) = slot.conn.held_until() {
                // --delay: the fixed delay keeps this queue in deadline order.
                self.holds.push_back((t, k));
            }
        }
        self.close_or_rearm(k);
    }

    /// After a connection made progress: close it, start lingering, or update its interest.
    fn close_or_rearm(&mut self, k: usize) {
        let now = self.now;
        let Some(slot) = self.slots[k].as_mut() else {
            return;
        };
        match slot.conn.next() {
            Next::Close { linger: false } => self.close(k),
            Next::Close { linger: true } => {
                if slot.sock.shutdown(Shutdown::Write).is_err() {
                    self.close(k);
                    return;
                }
                slot.linger = ((now + LINGER) / 1000 + 1) as u32;
                set_interest(&self.poller, slot, k, (true, false));
            }
            Next::Continue => {
                let want = (slot.conn.wants_read(), !slot.conn.output().is_empty());
                set_interest(&self.poller, slot, k, want);
            }
        }
    }

    fn close(&mut self, k: usize) {
        if let Some(mut slot) = self.slots[k].take() {
            let _ = self.poller.delete(&slot.sock);
            slot.conn.release(&mut self.parts.pool);
            self.free.push(k);
            self.conns -= 1;
            self.shared.open.fetch_sub(1, Ordering::Relaxed);
            if self.at_limit && self.draining.is_none() {
                self.at_limit = false;
                if self.paused.is_none() {
                    self.listen_interest(true);
                }
            }
        }
    }

    /// `--delay`: a held response is due.
    fn release_held(&mut self, k: usize) {
        let Some(slot) = self.slots.get_mut(k).and_then(Option::as_mut) else {
            return;
        };
        if !slot.conn.release_due(self.now) {
            return;
        }
        let mut env = self
            .parts
            .env(&self.config, self.now, self.draining.is_some(), false);
        if !flush(slot, &mut env) {
            self.close(k);
            return;
        }
        if let Some(t) = slot.conn.held_until() {
            self.holds.push_back((t, k));
        }
        self.close_or_rearm(k);
    }

    /// `--stats`: publish this worker's counters and refresh the stats body from everyone's.
    fn publish(&mut self) {
        let Some(route) = self.stats_route else {
            return;
        };
        let total = {
            let mut all = self
                .shared
                .published
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            all[self.id] = Summary {
                connections: self.accepted,
                stats: self.parts.stats.clone(),
            };
            let mut total = Summary::default();
            for w in all.iter() {
                total.connections += w.connections;
                total.stats.add(&w.stats);
            }
            total
        };
        let json = stats_json(&total, self.shared.open.load(Ordering::Relaxed));
        self.parts
            .responses
            .set_body(route, Arc::from(json.into_bytes()));
    }

    /// Coarse timers: a sweep over the connections every [`TICK`].
    fn tick(&mut self) {
        self.publish();
        if let Some(t) = self.paused {
            if self.now >= t && self.draining.is_none() {
                self.paused = None;
                self.listen_interest(true);
            }
        }
        if self.at_limit
            && self.shared.open.load(Ordering::Relaxed) < self.config.max_conns
            && self.draining.is_none()
        {
            // Another worker's connection closed.
            self.at_limit = false;
            self.listen_interest(true);
        }
        let timeouts = self.config.timeouts;
        for k in 0..self.slots.len() {
            let Some(slot) = self.slots[k].as_mut() else {
                continue;
            };
            if slot.linger != 0 {
                if self.now / 1000 >= slot.linger as u64 {
                    self.close(k);
                }
                continue;
            }
            let (deadline, why) = slot.conn.deadline(&timeouts);
            if self.now < deadline {
                continue;
            }
            let mut env = self
                .parts
                .env(&self.config, self.now, self.draining.is_some(), false);
            match slot.conn.on_timeout(why, &mut env) {
                Next::Continue if why == Timeout::Header => {
                    if flush(slot, &mut env) {
                        self.close_or_rearm(k);
                    } else {
                        self.close(k);
                    }
                }
                _ => self.close(k),
            }
        }
    }

    fn begin_drain(&mut self) {
        if self.draining.is_some() {
            return;
        }
        self.draining = Some(self.now + self.config.shutdown_timeout.as_millis() as u64);
        let _ = self.poller.delete(&self.shared.wake_r);
        for l in self.listeners.drain(..) {
            let _ = self.poller.delete(&l);
        }
        for k in 0..self.slots.len() {
            if let Some(slot) = &self.slots[k] {
                if slot.conn.is_idle() && slot.linger == 0 {
                    self.close(k);
                }
            }
        }
    }
}

/// Write pending output: one `send` per batch, more only when a large body refills it.
/// Returns false when the connection failed.
fn flush(slot: &mut Slot, env: &mut Env<'_>) -> bool {
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

fn set_interest(poller: &Poller, slot: &mut Slot, k: usize, want: (bool, bool)) {
    if slot.interest != want {
        let ev = Event::new(k, want.0, want.1);
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
