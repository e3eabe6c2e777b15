//! One connection as its worker holds it ([`Slot`]: the socket, the state machine, the
//! registered interest, the deadline entry), the poller's keys, and the two socket calls every
//! event may make: write the pending output ([`flush`]) and change what the socket is polled
//! for ([`set_interest`]).

use crate::conn::{Connection, Env, Handoff, Next, Pool, Settings, Upgrade};
use crate::transport::{Io, Transport};
use polling::{Event, PollMode, Poller};
use socket2::Socket;
use std::io;

/// What a connection borrows from the worker's pool while it has work: HTTP/1's work areas
/// (an HTTP/2 connection holds its own buffers, and takes the loop's environment as it is).
pub(super) type Work = crate::h1::WorkArea;

/// The connections the loop drives, through [`Connection`]: HTTP/1, or HTTP/2 once the first
/// bytes of a fresh connection are the HTTP/2 preface (unless `--no-http2`) or once HTTP/1
/// hands it over ([`Handoff`]). The one place the worker names a protocol. An event matches
/// on it once (`Worker::on_event`); the calls outside events go through its [`Connection`], a
/// match per call. The preface is looked for in one place, the event's read
/// (`Silence::first_bytes`), only while nothing has been handed to the connection
/// (`is_silent`); the bytes of it received so far are counted in [`Slot::sniffed`].
pub(super) enum ProtocolConn {
    H1(crate::h1::Http1Conn),
    #[cfg(feature = "http2")]
    H2(crate::h2::Http2Conn),
    #[cfg(feature = "websocket")]
    Ws(crate::ws::WsConn),
}

/// Dispatch a call to the connection's protocol.
macro_rules! both {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            ProtocolConn::H1($c) => $e,
            #[cfg(feature = "http2")]
            ProtocolConn::H2($c) => $e,
            #[cfg(feature = "websocket")]
            ProtocolConn::Ws($c) => $e,
        }
    };
}

/// Dispatch a call to the protocol of a connection handed over from HTTP/1 or to HTTP/2 by
/// its preface (every protocol but HTTP/1; `else`: HTTP/1's).
macro_rules! upgraded {
    ($self:expr, $c:ident => $e:expr, else $h1:expr) => {
        match $self {
            ProtocolConn::H1(_) => $h1,
            #[cfg(feature = "http2")]
            ProtocolConn::H2($c) => $e,
            #[cfg(feature = "websocket")]
            ProtocolConn::Ws($c) => $e,
        }
    };
}
pub(super) use upgraded;

impl ProtocolConn {
    /// The first bytes of a fresh connection are the HTTP/2 preface, `rest` what followed it
    /// in the read that completed it: it is HTTP/2 from now on, its preface timed from the
    /// accept.
    #[cfg(feature = "http2")]
    #[cold]
    #[inline(never)]
    pub(super) fn prior_knowledge(&mut self, rest: &[u8], env: &mut Env<'_, Work>) {
        let c = crate::h2::Http2Conn::prior_knowledge(self.last_active_us(), rest, env);
        *self = ProtocolConn::H2(c);
    }

    /// The connection's protocol answered [`Next::Upgrade`] and wrote its answer: it continues
    /// as what its [`Handoff`] names. False when this build has no such protocol.
    #[cold]
    #[inline(never)]
    pub(super) fn upgrade(&mut self, env: &mut Env<'_, Work>) -> bool {
        if !cfg!(feature = "http2") {
            // No protocol to hand over to: h1 never asks (it answers `Upgrade` as HTTP/1).
            return false;
        }
        let Some(handoff) = self.take_handoff(env.pool) else {
            return false;
        };
        let now_us = self.last_active_us();
        match handoff.target {
            #[cfg(feature = "http2")]
            Upgrade::H2c(request) => {
                let c = crate::h2::Http2Conn::upgraded(now_us, request, &handoff.input, env);
                *self = ProtocolConn::H2(c);
                true
            }
            #[cfg(not(feature = "http2"))]
            Upgrade::H2c(_) => {
                let _ = now_us;
                false
            }
            #[cfg(feature = "websocket")]
            Upgrade::WebSocket(request) => {
                let c = crate::ws::WsConn::upgraded(now_us, request, &handoff.input, env);
                *self = ProtocolConn::Ws(c);
                true
            }
        }
    }
}

impl Connection<Work> for ProtocolConn {
    #[inline(always)]
    fn new(now_us: u64) -> ProtocolConn {
        ProtocolConn::H1(crate::h1::Http1Conn::new(now_us))
    }

    /// Bytes for the connection's protocol as it is: which protocol a fresh connection speaks
    /// is decided by the event that reads its first bytes (`Silence::first_bytes`).
    #[inline(always)]
    fn on_data(&mut self, data: &[u8], env: &mut Env<'_, Work>) {
        both!(self, c => c.on_data(data, env))
    }

    #[inline(always)]
    fn on_eof(&mut self) {
        both!(self, c => Connection::<Work>::on_eof(c))
    }

    #[inline(always)]
    fn output(&self) -> &[u8] {
        both!(self, c => Connection::<Work>::output(c))
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize, env: &mut Env<'_, Work>) {
        both!(self, c => c.wrote(n, env))
    }

    #[inline(always)]
    fn wants_read(&self) -> bool {
        both!(self, c => Connection::<Work>::wants_read(c))
    }

    #[inline(always)]
    fn next(&self) -> Next {
        both!(self, c => Connection::<Work>::next(c))
    }

    #[inline(always)]
    fn wake_at(&self, settings: &Settings) -> Option<u64> {
        both!(self, c => Connection::<Work>::wake_at(c, settings))
    }

    #[inline(always)]
    fn on_wake(&mut self, env: &mut Env<'_, Work>) -> Next {
        both!(self, c => c.on_wake(env))
    }

    #[inline(always)]
    fn start_lingering(&mut self, now_us: u64, pool: &mut Pool<Work>) {
        both!(self, c => c.start_lingering(now_us, pool))
    }

    #[inline(always)]
    fn release(&mut self, pool: &mut Pool<Work>) {
        both!(self, c => c.release(pool))
    }

    fn take_handoff(&mut self, pool: &mut Pool<Work>) -> Option<Handoff> {
        both!(self, c => c.take_handoff(pool))
    }

    #[inline(always)]
    fn is_lingering(&self) -> bool {
        both!(self, c => Connection::<Work>::is_lingering(c))
    }

    #[inline(always)]
    fn is_idle(&self) -> bool {
        both!(self, c => Connection::<Work>::is_idle(c))
    }

    fn farewell(&mut self) -> &[u8] {
        both!(self, c => Connection::<Work>::farewell(c))
    }

    #[inline(always)]
    fn is_held(&self) -> bool {
        both!(self, c => Connection::<Work>::is_held(c))
    }

    #[inline(always)]
    fn is_silent(&self) -> bool {
        both!(self, c => Connection::<Work>::is_silent(c))
    }

    #[inline(always)]
    fn last_active_us(&self) -> u64 {
        both!(self, c => Connection::<Work>::last_active_us(c))
    }

    #[inline(always)]
    fn served(&self) -> u32 {
        both!(self, c => Connection::<Work>::served(c))
    }

    fn responses_held(&self, held: &mut dyn FnMut(usize)) {
        both!(self, c => Connection::<Work>::responses_held(c, held))
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
    /// What the connection's bytes cross the socket through, chosen at accept: zero-sized
    /// when the plain one is the only one built.
    pub(super) transport: Transport,
    pub(super) conn: ProtocolConn,
    /// Registered interest.
    pub(super) interest: Interest,
    /// This connection's entry in the worker's deadlines (µs; `u64::MAX`: none), kept here so
    /// that the check after every event reads no heap.
    pub(super) armed_us: u64,
    /// Bytes of the HTTP/2 preface read while the connection is silent and not yet handed to
    /// it: all it has sent could still be either protocol (RFC 9113 §3.4). It stays silent
    /// meanwhile, timed by its header timeout from the accept. A byte of the slot's padding.
    pub(super) sniffed: u8,
    /// Accepted on a TLS listener: its transport is its entry in `Worker::tls`, not
    /// `transport`. A byte of the slot's padding.
    #[cfg(feature = "tls")]
    pub(super) tls: bool,
}

/// What a connection's socket is registered for: read, write, and the peer's FIN (EPOLLRDHUP),
/// which a connection that is not reading never sees, asked for only while a response is
/// held and nothing is read (a client that half-closes after its requests still reads their
/// answers). One byte, so that the slot keeps room for its transport.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Interest(u8);

impl Interest {
    const READ_BIT: u8 = 1;
    const WRITE_BIT: u8 = 2;
    const HANGUP_BIT: u8 = 4;

    pub(super) const READ: Interest = Interest::new(true, false, false);

    #[inline(always)]
    pub(super) const fn new(read: bool, write: bool, hangup: bool) -> Interest {
        Interest(
            ((read as u8) * Interest::READ_BIT)
                | ((write as u8) * Interest::WRITE_BIT)
                | ((hangup as u8) * Interest::HANGUP_BIT),
        )
    }

    fn read(self) -> bool {
        self.0 & Interest::READ_BIT != 0
    }

    fn write(self) -> bool {
        self.0 & Interest::WRITE_BIT != 0
    }

    fn hangup(self) -> bool {
        self.0 & Interest::HANGUP_BIT != 0
    }
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
        let mut ev = Event::new(k, want.read(), want.write());
        ev.set_interrupt(want.hangup());
        if poller.modify_with_mode(sock, ev, PollMode::Level).is_ok() {
            *interest = want;
        }
    }
}

/// Write pending output through the connection's transport: one write per batch, more only
/// when a large body refills it (or the transport has bytes of its own). Returns false when
/// the connection failed.
#[inline(always)]
pub(super) fn flush<C: Connection<Work>, T: Io>(
    sock: &Socket,
    transport: &mut T,
    conn: &mut C,
    env: &mut Env<'_, Work>,
) -> bool {
    loop {
        let out = conn.output();
        if out.is_empty() && !transport.wants_write() {
            return true;
        }
        let len = out.len();
        match transport.write(sock, out) {
            // With no output, the transport sent bytes of its own: it says when it is done.
            Ok(_) if len == 0 => {}
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

    /// Memory per idle connection is a goal (64 bytes): keep the slot small. Measured with
    /// the tests' second transport built in (its one byte fits beside the interest's): the
    /// server's slot, with the plain transport alone, is no larger.
    #[test]
    fn idle_connection_slot_is_small() {
        assert_eq!(std::mem::size_of::<Transport>(), 1);
        assert!(
            std::mem::size_of::<ProtocolConn>() <= 24,
            "{}",
            std::mem::size_of::<ProtocolConn>()
        );
        assert!(
            std::mem::size_of::<Option<Slot>>() <= 40,
            "{}",
            std::mem::size_of::<Option<Slot>>()
        );
    }
}
