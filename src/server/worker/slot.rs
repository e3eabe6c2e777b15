//! One connection as its worker holds it ([`Slot`]: the socket, the state machine, the
//! registered interest, the deadline entry), the poller's keys, and the two socket calls every
//! event may make: write the pending output ([`flush`]) and change what the socket is polled
//! for ([`set_interest`]).

use crate::conn::{Connection, Env, Next, Pool, Settings};
use polling::{Event, PollMode, Poller};
use socket2::Socket;
use std::io;

/// What a connection borrows from the worker's pool while it has work: HTTP/1's work areas
/// (an HTTP/2 connection holds its own buffers).
pub(super) type Work = <crate::h1::Conn as Connection>::Work;

/// The connections the loop drives, through [`Connection`]: HTTP/1, or HTTP/2 once the first
/// bytes of a fresh connection are the HTTP/2 preface (unless `--no-http2`). The one place the
/// worker names a protocol. An event matches on it once (`Worker::on_event`); the calls
/// outside events go through its [`Connection`], a match per call. The preface is looked for
/// in one place, the event's read (`Event::handle`), only while nothing has been handed to the
/// connection (`is_silent`); the bytes of it received so far are counted in [`Slot::sniffed`].
pub(super) enum Conn {
    H1(crate::h1::Conn),
    #[cfg(feature = "http2")]
    H2(crate::h2::Conn),
}

/// An HTTP/2 connection's environment from the loop's: the same parts, and an empty pool of
/// its own (it borrows nothing; an empty pool allocates nothing).
#[cfg(feature = "http2")]
macro_rules! h2_env {
    ($env:expr, $pool:ident) => {{
        let env: &mut Env<'_, Work> = $env;
        Env {
            settings: env.settings,
            responses: env.responses,
            pool: &mut $pool,
            stats: &mut *env.stats,
            now_us: env.now_us,
            draining: env.draining,
            features: crate::conn::Features {
                access_log: env.features.access_log.reborrow(),
                log_sink: env.features.log_sink,
                faults: env.features.faults.reborrow(),
                journal: env.features.journal.reborrow(),
            },
        }
    }};
}

/// Dispatch a call to the connection's protocol; `$h2env` names an HTTP/2 environment made
/// from `$env` for the HTTP/2 arm.
macro_rules! both {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            Conn::H1($c) => $e,
            #[cfg(feature = "http2")]
            Conn::H2($c) => $e,
        }
    };
}

#[cfg(feature = "http2")]
impl Conn {
    /// The first bytes of a fresh connection are the HTTP/2 preface: `sniffed` bytes of it in
    /// earlier reads, then `data`. It is HTTP/2 from now on, its preface timed from the accept.
    #[cold]
    #[inline(never)]
    pub(super) fn turn_h2(&mut self, sniffed: usize, data: &[u8], env: &mut Env<'_, Work>) {
        let mut c = crate::h2::Conn::new(self.last_active_us());
        let mut pool = Pool::default();
        let mut env = h2_env!(env, pool);
        if sniffed > 0 {
            c.on_data(&crate::frame::PREFACE[..sniffed], &mut env);
        }
        c.on_data(data, &mut env);
        *self = Conn::H2(c);
    }
}

#[cfg(feature = "http2")]
impl Conn {
    /// HTTP/1 answered `Upgrade: h2c` with `101` and wrote it ([`Next::Upgrade`]): the
    /// connection turns HTTP/2, the request its stream 1.
    #[cold]
    #[inline(never)]
    pub(super) fn upgrade(&mut self, env: &mut Env<'_, Work>) {
        let Conn::H1(c) = self else {
            return;
        };
        let handoff = c.take_handoff(env.pool);
        let mut pool = Pool::default();
        let c = crate::h2::Conn::upgraded(self.last_active_us(), handoff, &mut h2_env!(env, pool));
        *self = Conn::H2(c);
    }
}

/// Run `f` with an HTTP/2 connection's environment made from the loop's `env`.
#[cfg(feature = "http2")]
#[inline(always)]
pub(super) fn with_h2_env<R>(
    env: &mut Env<'_, Work>,
    f: impl FnOnce(&mut crate::h2::Env<'_>) -> R,
) -> R {
    let mut pool = Pool::default();
    f(&mut h2_env!(env, pool))
}

impl Connection for Conn {
    type Work = Work;

    #[inline(always)]
    fn new(now_us: u64) -> Conn {
        Conn::H1(crate::h1::Conn::new(now_us))
    }

    /// Bytes for the connection's protocol as it is: which protocol a fresh connection speaks
    /// is decided by the event that reads its first bytes (`Event::handle`).
    #[inline(always)]
    fn on_data(&mut self, data: &[u8], env: &mut Env<'_, Work>) {
        match self {
            Conn::H1(c) => c.on_data(data, env),
            #[cfg(feature = "http2")]
            Conn::H2(c) => {
                let mut pool = Pool::default();
                c.on_data(data, &mut h2_env!(env, pool))
            }
        }
    }

    #[inline(always)]
    fn on_eof(&mut self) {
        both!(self, c => c.on_eof())
    }

    #[inline(always)]
    fn output(&self) -> &[u8] {
        both!(self, c => c.output())
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize, env: &mut Env<'_, Work>) {
        match self {
            Conn::H1(c) => c.wrote(n, env),
            #[cfg(feature = "http2")]
            Conn::H2(c) => {
                let mut pool = Pool::default();
                c.wrote(n, &mut h2_env!(env, pool))
            }
        }
    }

    #[inline(always)]
    fn wants_read(&self) -> bool {
        both!(self, c => c.wants_read())
    }

    #[inline(always)]
    fn next(&self) -> Next {
        both!(self, c => c.next())
    }

    #[inline(always)]
    fn wake_at(&self, settings: &Settings) -> Option<u64> {
        both!(self, c => c.wake_at(settings))
    }

    #[inline(always)]
    fn on_wake(&mut self, env: &mut Env<'_, Work>) -> Next {
        match self {
            Conn::H1(c) => c.on_wake(env),
            #[cfg(feature = "http2")]
            Conn::H2(c) => {
                let mut pool = Pool::default();
                c.on_wake(&mut h2_env!(env, pool))
            }
        }
    }

    #[inline(always)]
    fn start_lingering(&mut self, now_us: u64, pool: &mut Pool<Work>) {
        match self {
            Conn::H1(c) => c.start_lingering(now_us, pool),
            #[cfg(feature = "http2")]
            Conn::H2(c) => c.start_lingering(now_us, &mut Pool::default()),
        }
    }

    #[inline(always)]
    fn release(&mut self, pool: &mut Pool<Work>) {
        match self {
            Conn::H1(c) => c.release(pool),
            #[cfg(feature = "http2")]
            Conn::H2(c) => c.release(&mut Pool::default()),
        }
    }

    #[inline(always)]
    fn is_lingering(&self) -> bool {
        both!(self, c => c.is_lingering())
    }

    #[inline(always)]
    fn is_idle(&self) -> bool {
        both!(self, c => c.is_idle())
    }

    fn farewell(&mut self) -> &[u8] {
        both!(self, c => c.farewell())
    }

    #[inline(always)]
    fn is_held(&self) -> bool {
        both!(self, c => c.is_held())
    }

    #[inline(always)]
    fn is_silent(&self) -> bool {
        both!(self, c => c.is_silent())
    }

    #[inline(always)]
    fn last_active_us(&self) -> u64 {
        both!(self, c => c.last_active_us())
    }

    #[inline(always)]
    fn served(&self) -> u32 {
        both!(self, c => c.served())
    }
}

/// The poller's key of the worker's wake-up socket (drain).
pub(super) const WAKE: usize = usize::MAX - 1;
/// The key of the stop-now socket: a second stop signal.
pub(super) const FORCE: usize = usize::MAX - 2;
/// The key of listener `i` is `LISTENER + i`. Connection keys are slab indices, far below.
pub(super) const LISTENER: usize = usize::MAX / 2;

pub(super) struct Slot {
    pub(super) sock: Socket,
    pub(super) conn: Conn,
    /// Registered interest.
    pub(super) interest: Interest,
    /// This connection's entry in the worker's deadlines (µs; `u64::MAX`: none), kept here so
    /// that the check after every event reads no heap.
    pub(super) armed_us: u64,
    /// Bytes of the HTTP/2 preface read while the connection is silent and not yet handed to
    /// it: all it has sent could still be either protocol (RFC 9113 §3.4). It stays silent
    /// meanwhile, timed by its header timeout from the accept. A byte of the slot's padding.
    pub(super) sniffed: u8,
}

/// What a connection's socket is registered for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Interest {
    pub(super) read: bool,
    pub(super) write: bool,
    /// The peer's FIN (EPOLLRDHUP), which a connection that is not reading never sees: asked
    /// for only while a response is held and nothing is read, since a client that half-closes
    /// after its requests still reads their answers.
    pub(super) hangup: bool,
}

impl Interest {
    pub(super) const READ: Interest = Interest {
        read: true,
        write: false,
        hangup: false,
    };
}

#[inline(always)]
pub(super) fn set_interest(
    poller: &Poller,
    sock: &Socket,
    interest: &mut Interest,
    k: usize,
    want: Interest,
) {
    if *interest != want {
        let mut ev = Event::new(k, want.read, want.write);
        ev.set_interrupt(want.hangup);
        if poller.modify_with_mode(sock, ev, PollMode::Level).is_ok() {
            *interest = want;
        }
    }
}

/// Write pending output: one `send` per batch, more only when a large body refills it.
/// Returns false when the connection failed.
pub(super) fn flush<C: Connection>(
    sock: &Socket,
    conn: &mut C,
    env: &mut Env<'_, C::Work>,
) -> bool {
    loop {
        let out = conn.output();
        if out.is_empty() {
            return true;
        }
        let len = out.len();
        match sock.send(out) {
            Ok(n) => {
                conn.wrote(n, env);
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
