//! One connection as its worker holds it ([`Slot`]: the socket, the state machine, the
//! registered interest, the deadline entry), the poller's keys, and the two socket calls every
//! event may make: write the pending output ([`flush`]) and change what the socket is polled
//! for ([`set_interest`]).

use crate::conn::{Connection, Env};
use polling::{Event, PollMode, Poller};
use socket2::Socket;
use std::io;

/// The connections the loop drives, through [`Connection`] (`crate::conn` says why one
/// alias): HTTP/1. The one place the worker names a protocol (see the `worker` module's
/// documentation for a second one).
pub(super) type Conn = crate::h1::Conn;
/// What a connection borrows from the worker's pool while it has work.
pub(super) type Work = <Conn as Connection>::Work;

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

pub(super) fn set_interest(poller: &Poller, slot: &mut Slot, k: usize, want: Interest) {
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

/// Write pending output: one `send` per batch, more only when a large body refills it.
/// Returns false when the connection failed.
pub(super) fn flush(slot: &mut Slot, env: &mut Env<'_, Work>) -> bool {
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
