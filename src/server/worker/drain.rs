//! Shutdown: a worker stops accepting, closes its idle connections, tells the others it is
//! going (HTTP/2's GOAWAY) and lets them finish their responses until `--shutdown-timeout`,
//! and closes lingering ones as soon as their client has every byte; a second signal closes
//! everything at once.

use super::state::Worker;
use crate::conn::Connection;
use socket2::Socket;

/// Draining: how often lingering connections are looked at, to close those whose client has
/// every byte of its last response (µs).
pub(super) const DRAIN_CHECK_US: u64 = 10_000;

impl Worker {
    #[cold]
    pub(super) fn begin_drain(&mut self) {
        if self.drain_deadline.is_some() {
            return;
        }
        let shutdown_us = u64::try_from(self.shutdown_timeout.as_micros()).unwrap_or(u64::MAX);
        self.drain_deadline = Some(self.now_us.saturating_add(shutdown_us));
        self.drain_check_at = self.now_us + DRAIN_CHECK_US;
        if let Some(log) = self.shared.log() {
            log.drain_by(crate::server::log::after(self.shutdown_timeout));
        }
        self.update_own_deadline();
        self.shared.withdraw_ask_for_room(self.id);
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
            // resetting it. With nothing there, the idle connection is closed at once, after
            // its protocol's goodbye if it has one (HTTP/2's GOAWAY: an idle connection's
            // socket buffer has room for its 17 bytes; if not, it is not sent).
            let idle = slot.conn.is_idle();
            if idle
                && !matches!(
                    slot.sock.peek(&mut [std::mem::MaybeUninit::uninit()]),
                    Ok(1..)
                )
            {
                if let Some(slot) = self.slots[k].as_mut() {
                    let bye = slot.conn.farewell();
                    if !bye.is_empty() {
                        #[cfg(feature = "tls")]
                        if slot.tls {
                            if let Some(Some(t)) = self.tls.get_mut(k) {
                                let _ = crate::transport::Io::write(&mut **t, &slot.sock, bye);
                            }
                        } else {
                            let _ = slot.transport.write(&slot.sock, bye);
                        }
                        #[cfg(not(feature = "tls"))]
                        let _ = slot.transport.write(&slot.sock, bye);
                    }
                    // TLS's end, after the protocol's goodbye (RFC 8446 §6.1).
                    #[cfg(feature = "tls")]
                    if slot.tls {
                        if let Some(Some(t)) = self.tls.get_mut(k) {
                            crate::transport::Io::close_notify(&mut **t, &slot.sock);
                        }
                    }
                }
                self.close(k);
            } else if !idle {
                // A busy connection says goodbye now too, not once it is next active: an
                // HTTP/2 stream waiting for flow-control credit may not be until the deadline
                // (RFC 9113 §6.8: GOAWAY, then the streams in flight are finished). Its
                // deadline, due at once, runs its event this turn: it writes the GOAWAY and
                // watches for the socket's room.
                if let Some(slot) = self.slots[k].as_mut() {
                    if !slot.conn.farewell().is_empty() {
                        slot.armed_us = 0;
                        self.deadlines.set(k, 0);
                    }
                }
            }
        }
    }

    /// A second signal: what is still open is closed now, as at the end of
    /// `--shutdown-timeout`.
    #[cold]
    pub(super) fn stop_now(&mut self) {
        self.begin_drain();
        self.drain_deadline = Some(0);
        if let Some(log) = self.shared.log() {
            log.stop_now();
        }
    }

    /// Draining: close each lingering connection whose last response the client's TCP has
    /// acknowledged whole (nothing left in the send queue). Lingering is there so that the
    /// client reads that response rather than a reset; once the bytes are in its receive
    /// buffer, a client that keeps sending after `Connection: close` must not hold the exit
    /// for the whole linger (2 s).
    #[cold]
    pub(super) fn close_delivered(&mut self) {
        for k in 0..self.slots.len() {
            let Some(slot) = self.slots[k].as_ref() else {
                continue;
            };
            if slot.conn.is_lingering() && unacknowledged(&slot.sock) == 0 {
                self.close(k);
            }
        }
    }
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
