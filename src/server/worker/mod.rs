//! One worker's poll loop: each turn, one wait, then accept, one read and one write per ready
//! connection, each connection's deadlines, the worker's own, shutdown. It moves bytes between
//! sockets and connections, knows no HTTP grammar and reads no command line: what it needs of
//! that was built once, before it started (`setup::WorkerSetup`).
//!
//! Sockets are registered level-triggered, so steady traffic needs no `epoll_ctl`: interest
//! changes only when a connection starts or stops having output pending, or is paused by
//! backpressure.
//!
//! Timers: each connection says when it wants to be woken ([`Connection::wake_at`]: its
//! timeouts, a hold (`--delay`, a latency, a drip's pause), lingering), and the worker keeps
//! one entry per connection in its [`Deadlines`](crate::server::timers::Deadlines), sleeping exactly until the earliest. An entry is
//! moved only when the connection's wish comes earlier; when a later wish (a keep-alive
//! connection's idle deadline after each request) is left alone, the entry fires early, the
//! connection reports its real time and the entry is set to it: no heap work per request, none
//! per tick, and a worker with nothing timed sleeps without a timeout.
//!
//! The files, bottom to top (each calls only into those before it):
//!
//! - `clock`: the microseconds of every deadline, and the `Date` field's second;
//! - `slot`: one connection as the worker holds it, the poller's keys, the write and the
//!   interest change of every event;
//! - `publish`: `--stats` and `--metrics`, the counters shared between workers;
//! - `state`: the [`Worker`] itself, built from its setup, and what every part does to it
//!   (close a connection, keep its deadline, turn the listeners on and off);
//! - `evict`: `--max-conns`: making room, the asks between workers;
//! - `drain`: shutdown;
//! - `accept`: accepting, and the pause when accept(2) fails;
//! - this file: the loop, the dispatch of its events and the worker's own deadlines.
//!
//! # Two protocols
//!
//! The loop drives connections through [`Connection`] alone; the one name of a protocol is
//! `slot::ProtocolConn`, an enum over HTTP/1 (`crate::h1`) and HTTP/2 (`crate::h2`). An event matches
//! on it once, in [`Worker::on_event`], and runs its whole handling (read, flush, interest,
//! deadline) in `Event::handle`, generic over [`Connection`]: compiled once per protocol, so
//! that HTTP/1's is the code of an HTTP/1-only loop. The calls outside events (accept, close,
//! drain, `--max-conns`) go through the enum's own [`Connection`], a match per call. A
//! connection starts as HTTP/1 at accept and turns HTTP/2 when its first bytes are the HTTP/2
//! connection preface (unless `--no-http2`), decided once they can no longer be an HTTP/1
//! request (a `POST` split after its `P` stays HTTP/1); nothing else in the loop changes.

mod accept;
mod clock;
mod drain;
mod evict;
mod publish;
mod slot;
mod state;

pub(super) use state::Worker;

use self::clock::us_rounded_up;
use self::drain::DRAIN_CHECK_US;
use self::publish::PUBLISH_US;

/// How long after buffers were given back the worker returns them to the system: at most one
/// heap walk a second.
const TRIM_DELAY_US: u64 = 1_000_000;
use self::slot::{FORCE, Interest, LISTENER, ProtocolConn, Slot, WAKE, Work, flush, set_interest};
use crate::conn::{Connection, Env, LogSink, Next, Settings};
#[cfg(feature = "http2")]
use crate::frame::Sniffed;
use crate::server::timers::Deadlines;
use crate::stats::Summary;
use crate::transport::Io;
use polling::Events;
use polling::Poller;
use socket2::Socket;
use std::io;
use std::num::NonZeroUsize;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Why the loop calls a connection.
#[derive(Clone, Copy)]
enum Cause {
    /// Its socket is ready. `hangup`: the peer reset or hung up (EPOLLERR, EPOLLHUP), which
    /// is reported whatever the interest.
    Ready { readable: bool, hangup: bool },
    /// The deadline it asked for came.
    Deadline,
}

impl Worker {
    pub(crate) fn run(mut self) -> Summary {
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
                crate::server::log::diagnostic(format_args!("canned: poll failed: {e}"));
                // The other workers must stop too, or whoever joins them waits for ever.
                crate::server::shared::wake(&self.shared);
                break;
            }
            self.now_us = us_rounded_up(self.epoch.elapsed());
            self.date.refresh(&mut self.parts.responses);
            if let Some(published) = self
                .shared
                .faults
                .as_ref()
                .filter(|_| cfg!(feature = "admin"))
            {
                // Before this turn's requests: one published before they were sent applies.
                if published.epoch() != self.faults_epoch {
                    self.adopt_faults();
                }
            }
            for ev in events.iter() {
                match ev.key {
                    WAKE => self.begin_drain(),
                    FORCE => self.stop_now(),
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
            if self.trim_at == u64::MAX && self.parts.pool.trim_due() {
                self.trim_at = self.now_us + TRIM_DELAY_US;
                self.update_own_deadline();
            }
            if self.shared.room_wanted() {
                self.make_room_for_another_worker();
            }
            if let Some(lines) = self
                .parts
                .log
                .as_mut()
                .map(|l| &mut l.lines)
                .filter(|l| cfg!(feature = "access-log") && !l.is_empty())
            {
                // Once per loop turn, to the writer thread: never waits for stdout.
                match self.shared.log() {
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

    /// The worker's own deadlines: resuming after fd exhaustion, looking again at the
    /// connection limit, looking at lingering connections while draining, publishing
    /// `--stats`/`--metrics` counters, returning freed buffer memory to the system.
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
            self.leave_limit();
        }
        if self.now_us > self.drain_check_at {
            self.drain_check_at = self.now_us + DRAIN_CHECK_US;
            self.close_delivered();
        }
        if self.now_us > self.trim_at {
            self.trim_at = u64::MAX;
            self.parts.pool.trim();
        }
        if self.publisher.any() && self.now_us > self.publisher.next_at {
            self.publisher.next_at = self.now_us + PUBLISH_US;
            self.publish();
        }
        self.update_own_deadline();
    }

    /// Let a connection act on what happened: its socket is ready (read once if it is
    /// readable and the connection wants input), or its deadline came. Then write its
    /// output and decide what is next. One match on the protocol per event: the rest is
    /// [`Event::handle`], compiled once for each (the HTTP/1 one tests for no protocol).
    fn on_event(&mut self, k: usize, cause: Cause) {
        // Writability needs no test of its own: pending output is flushed on every event.
        let Some(slot) = self.slots.get_mut(k).and_then(Option::as_mut) else {
            return;
        };
        let mut env = self.parts.env(
            self.shared.log(),
            self.now_us,
            self.drain_deadline.is_some(),
        );
        // Kept only when a feature reads it: one test on the plain path.
        #[cfg(any(
            feature = "journal",
            feature = "access-log",
            feature = "echo",
            feature = "control"
        ))]
        if let Some(&client) = self.peers.get(k) {
            if let Some(j) = env.features.journal.as_deref_mut() {
                j.peer = client.peer;
            }
            if let Some(l) = env.features.access_log.as_deref_mut() {
                l.client = Some(client);
            }
            env.features.client = Some(client);
        }
        let Slot {
            sock,
            transport,
            conn,
            interest,
            armed_us,
            sniffed,
            #[cfg(feature = "tls")]
            tls,
        } = slot;
        let no_http2 = env.settings.switches.no_http2;
        macro_rules! event {
            ($transport:expr) => {
                Event {
                    k,
                    sock,
                    transport: $transport,
                    interest,
                    armed_us,
                    sniffed,
                    poller: &self.poller,
                    deadlines: &mut self.deadlines,
                    now_us: self.now_us,
                    silent: &mut self.silent,
                    shared_silent: &self.shared.silent,
                }
            };
        }
        #[cfg(feature = "tls")]
        if *tls {
            let after = match self.tls.get_mut(k).and_then(Option::as_deref_mut) {
                Some(t) => event!(t).tls(conn, cause, &mut self.scratch, no_http2, &mut env),
                None => After::Close,
            };
            if let After::Close = after {
                self.close(k);
            }
            return;
        }
        let preface = match cfg!(feature = "http2") && !no_http2 {
            true => Preface::Sniff,
            false => Preface::Ignore,
        };
        let after = event!(transport).drive(conn, cause, &mut self.scratch, preface, &mut env);
        if let After::Close = after {
            self.close(k);
        }
    }
}

/// What an event leaves the loop to do once the connection is no longer borrowed.
enum After {
    Done,
    Close,
    /// The connection's first bytes were the HTTP/2 preface, its start counted in
    /// `Slot::sniffed` and its end at the start of the first `n` bytes of the scratch buffer,
    /// the rest of which came after it: the connection turns HTTP/2 and takes them.
    #[cfg(feature = "http2")]
    PriorKnowledge(usize),
    /// The connection's protocol wrote its answer to a request for another one
    /// ([`Next::Upgrade`]): the connection continues as its [`crate::conn::Handoff`] says.
    Upgrade,
}

/// What a silent connection's first bytes are ([`Silence::first_bytes`]).
enum FirstBytes {
    /// HTTP/1's: hand them to the connection.
    Http1,
    /// The start of the HTTP/2 preface: held back, counted in `Slot::sniffed`.
    #[cfg(feature = "http2")]
    Undecided,
    /// The rest of the preface: the connection turns HTTP/2 ([`After::PriorKnowledge`]).
    #[cfg(feature = "http2")]
    Http2,
    /// Not the preface where it is required ([`Preface::Required`]): a connection error
    /// (RFC 9113 §3.4), closed without a GOAWAY, as the peer does not speak HTTP/2.
    #[cfg(all(feature = "http2", feature = "tls"))]
    NotHttp2,
}

/// Whether a silent connection's first bytes are looked at for the HTTP/2 preface.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Preface {
    /// No: they are HTTP/1's (`--no-http2`, or ALPN chose `http/1.1`).
    Ignore,
    /// Yes: the preface makes it HTTP/2, anything else HTTP/1 (prior knowledge).
    Sniff,
    /// They must be the preface (ALPN chose `h2`).
    #[cfg(all(feature = "http2", feature = "tls"))]
    Required,
}

/// One event's view of the worker: the connection's slot (but for the connection itself) and
/// the parts of the worker it changes. `T`: its transport (the slot's, or a TLS connection).
struct Event<'a, T: Io> {
    k: usize,
    sock: &'a Socket,
    transport: &'a mut T,
    interest: &'a mut Interest,
    armed_us: &'a mut u64,
    sniffed: &'a mut u8,
    poller: &'a Poller,
    deadlines: &'a mut Deadlines,
    now_us: u64,
    silent: &'a mut usize,
    shared_silent: &'a AtomicUsize,
}

impl<T: Io> Event<'_, T> {
    /// The event, on whichever protocol the connection speaks, then the switch to another
    /// one if it asks for it.
    #[inline(always)]
    fn drive(
        mut self,
        conn: &mut ProtocolConn,
        cause: Cause,
        scratch: &mut [u8],
        preface: Preface,
        env: &mut Env<'_, Work>,
    ) -> After {
        match conn {
            ProtocolConn::H1(c) => match self.handle(c, cause, scratch, preface, env) {
                after @ (After::Done | After::Close) => after,
                after => self.switch(conn, after, scratch, env),
            },
            // Every protocol a connection is handed over to (none in the core).
            #[allow(unreachable_patterns)]
            _ => self.handle_upgraded(conn, cause, scratch, env),
        }
    }

    /// [`Event::drive`] for a TLS connection: compiled apart, out of the plain path. The
    /// protocol ALPN chose is the connection's (RFC 9113 §3.2, RFC 7301): after `h2`, the first
    /// bytes must be the HTTP/2 preface (§3.4), after `http/1.1` they are HTTP/1's whatever
    /// they are; without ALPN the preface is looked for, as over TCP.
    #[cfg(feature = "tls")]
    #[inline(never)]
    fn tls(
        self,
        conn: &mut ProtocolConn,
        cause: Cause,
        scratch: &mut [u8],
        no_http2: bool,
        env: &mut Env<'_, Work>,
    ) -> After {
        let preface = match self.transport.alpn() {
            _ if no_http2 || !cfg!(feature = "http2") => Preface::Ignore,
            #[cfg(feature = "http2")]
            Some(b"h2") => Preface::Required,
            Some(_) => Preface::Ignore,
            None => Preface::Sniff,
        };
        self.drive(conn, cause, scratch, preface, env)
    }

    /// The event for one protocol's connection. `preface`: data read while the connection is
    /// silent is looked at for the HTTP/2 preface (and handed back as [`After::TurnH2`]); a
    /// start of it is held back, counted in `sniffed`, until the protocol is known.
    #[inline(always)]
    fn handle<C: Connection<Work>>(
        &mut self,
        conn: &mut C,
        cause: Cause,
        scratch: &mut [u8],
        preface: Preface,
        env: &mut Env<'_, Work>,
    ) -> After {
        match cause {
            Cause::Ready { readable, .. }
                if readable && (conn.wants_read() || self.transport.wants_read()) =>
            {
                match self.transport.read(self.sock, scratch) {
                    Ok(0) if conn.is_held() => {
                        // Gone while its response is held: nothing held can reach it.
                        return After::Close;
                    }
                    Ok(0) => conn.on_eof(),
                    Ok(n) => {
                        let hand = !conn.is_silent()
                            || match self
                                .silence()
                                .first_bytes(conn, &scratch[..n], preface, env)
                            {
                                FirstBytes::Http1 => true,
                                // Still silent: the next read decides.
                                #[cfg(feature = "http2")]
                                FirstBytes::Undecided => false,
                                #[cfg(feature = "http2")]
                                FirstBytes::Http2 => return After::PriorKnowledge(n),
                                #[cfg(all(feature = "http2", feature = "tls"))]
                                FirstBytes::NotHttp2 => return After::Close,
                            };
                        if hand {
                            conn.on_data(&scratch[..n], env);
                        }
                    }
                    // Nothing after all (urgent data, a spurious wake-up): not an end.
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return After::Close,
                }
            }
            Cause::Ready { hangup: true, .. } => {
                // Not reading (a held response, a drip between pieces, output piled up): a
                // reset, or the peer's FIN while a response is held (asked for then, see
                // `finish`). The report stays level-triggered until the socket closes, and
                // would wake the loop on every turn until the hold ends. No response can
                // reach the client (nginx counts the same as a client abort, 499).
                return After::Close;
            }
            Cause::Ready { .. } => {}
            Cause::Deadline => {
                self.transport.on_wake(self.now_us);
                if let Next::Close { .. } = conn.on_wake(env) {
                    // A timeout's close (idle keep-alive, a late head): TLS's end too.
                    self.transport.close_notify(self.sock);
                    return After::Close;
                }
            }
        }
        self.finish(conn, env)
    }

    /// The parts of the event that [`Silence::first_bytes`] changes, lent apart: an event
    /// lent whole to a call out of line would be kept in memory, its fields stored and
    /// loaded again on every event (8 instructions a request, `benches/instructions.sh`).
    #[inline(always)]
    fn silence(&mut self) -> Silence<'_> {
        Silence {
            sniffed: self.sniffed,
            silent: self.silent,
            shared_silent: self.shared_silent,
        }
    }
}

/// A silent connection's count in its worker and beyond, and the bytes of the HTTP/2 preface
/// it has sent (`Slot::sniffed`).
struct Silence<'a> {
    sniffed: &'a mut u8,
    silent: &'a mut usize,
    shared_silent: &'a AtomicUsize,
}

impl Silence<'_> {
    /// A silent connection read `data`: whether it is HTTP/1's, the start of the HTTP/2
    /// preface and more is needed, or HTTP/2's (`preface`: looked for). Out of line: once per
    /// connection, not per request.
    #[cold]
    #[inline(never)]
    fn first_bytes<C: Connection<Work>>(
        mut self,
        conn: &mut C,
        data: &[u8],
        preface: Preface,
        env: &mut Env<'_, Work>,
    ) -> FirstBytes {
        #[cfg(feature = "http2")]
        if preface != Preface::Ignore {
            let held = usize::from(*self.sniffed);
            match crate::frame::sniff(held, data) {
                Sniffed::Http2 => {
                    self.no_longer_silent();
                    return FirstBytes::Http2;
                }
                Sniffed::Undecided(at) => {
                    *self.sniffed = at as u8;
                    return FirstBytes::Undecided;
                }
                #[cfg(feature = "tls")]
                // Still silent: the close counts it out.
                Sniffed::Http1 if preface == Preface::Required => return FirstBytes::NotHttp2,
                Sniffed::Http1 => {}
            }
        }
        #[cfg(not(feature = "http2"))]
        let _ = (preface, data, &self.sniffed);
        self.no_longer_silent();
        let sniffed = usize::from(std::mem::take(self.sniffed));
        if sniffed > 0 {
            // A start of the preface was held back and what followed is not the rest of it:
            // HTTP/1 gets it first, as if it had come in the same read.
            conn.on_data(&crate::frame::PREFACE[..sniffed], env);
        }
        FirstBytes::Http1
    }

    /// The connection has sent its first bytes that count (a request, or the HTTP/2 preface).
    fn no_longer_silent(&mut self) {
        *self.silent -= 1;
        self.shared_silent.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<T: Io> Event<'_, T> {
    /// The connection continues in another protocol ([`After::Upgrade`],
    /// [`After::PriorKnowledge`]): it becomes that protocol's, and the rest of the event (its
    /// first output, interest, deadline) goes through the enum. Out of line: once per
    /// connection at most. The event is moved in, not lent: see [`Event::silence`].
    /// [`Event::handle`] for the protocols but HTTP/1 (the caller handles HTTP/1 itself), out
    /// of line and with the event moved in (see [`Event::silence`]): the plain path's event
    /// then compiles as a test of one variant (measured: a third protocol's arm inlined beside
    /// HTTP/1's cost it 4% more instructions per request, an event lent to this call 1%; without
    /// `cold`, the plain path kept 1% of it).
    #[cold]
    #[inline(never)]
    // The core hands no connection over: its one arm is HTTP/1's, which reads none of these.
    #[allow(unused_mut, unused_variables)]
    fn handle_upgraded(
        mut self,
        conn: &mut ProtocolConn,
        cause: Cause,
        scratch: &mut [u8],
        env: &mut Env<'_, Work>,
    ) -> After {
        let after = slot::upgraded!(
            conn,
            c => self.handle(c, cause, scratch, Preface::Ignore, env),
            else After::Done
        );
        match after {
            After::Done | After::Close => after,
            _ => self.switch(conn, after, scratch, env),
        }
    }

    #[cold]
    #[inline(never)]
    fn switch(
        mut self,
        conn: &mut ProtocolConn,
        after: After,
        scratch: &[u8],
        env: &mut Env<'_, Work>,
    ) -> After {
        // One inlined `finish` for both ways in (it is 2.4 KB).
        let switched = match after {
            After::Upgrade => conn.upgrade(env),
            #[cfg(feature = "http2")]
            After::PriorKnowledge(n) => {
                // The preface's start came in earlier reads, its end in this one.
                let held = usize::from(std::mem::take(self.sniffed));
                let rest = crate::frame::PREFACE.len() - held;
                conn.prior_knowledge(&scratch[rest..n], env);
                true
            }
            _ => {
                #[cfg(not(feature = "http2"))]
                let _ = scratch;
                false
            }
        };
        if switched {
            self.finish(conn, env)
        } else {
            After::Close
        }
    }

    /// After a connection made progress: write its output, then close it, start lingering,
    /// or update its interest and deadline.
    #[inline(always)]
    fn finish<C: Connection<Work>>(&mut self, conn: &mut C, env: &mut Env<'_, Work>) -> After {
        if !flush(self.sock, self.transport, conn, env) {
            return After::Close;
        }
        match conn.next() {
            Next::Close { linger: false } => {
                self.transport.close_notify(self.sock);
                After::Close
            }
            Next::Upgrade => After::Upgrade,
            Next::Reset => {
                // SO_LINGER 0: close sends RST instead of FIN (a `reset` fault).
                let _ = self.sock.set_linger(Some(Duration::ZERO));
                After::Close
            }
            Next::Close { linger: true } => {
                if self.transport.shutdown(self.sock).is_err() {
                    return After::Close;
                }
                conn.start_lingering(self.now_us, env.pool);
                set_interest(
                    self.poller,
                    self.sock,
                    self.interest,
                    self.k,
                    Interest::READ,
                );
                self.rearm(conn, env.settings);
                After::Done
            }
            Next::Continue if env.draining && conn.is_idle() => {
                // Its last response in flight is written: nothing left to wait for.
                self.transport.close_notify(self.sock);
                After::Close
            }
            Next::Continue => {
                let read = conn.wants_read() || self.transport.wants_read();
                let want = Interest::new(
                    read,
                    !conn.output().is_empty() || self.transport.wants_write(),
                    // A connection that reads sees the FIN as a read of 0 bytes.
                    !read && conn.is_held(),
                );
                set_interest(self.poller, self.sock, self.interest, self.k, want);
                self.rearm(conn, env.settings);
                After::Done
            }
        }
    }

    /// [`Worker::rearm`] for this event's connection.
    #[inline(always)]
    fn rearm<C: Connection<Work>>(&mut self, conn: &C, settings: &Settings) {
        let want = match (conn.wake_at(settings), self.transport.wake_at(self.now_us)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(want) = want {
            if want < *self.armed_us {
                *self.armed_us = want.max(self.now_us);
                self.deadlines.set(self.k, *self.armed_us);
            }
        }
    }
}
