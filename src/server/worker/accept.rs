//! Accepting: up to a batch of connections per listener wake-up, each within `--max-conns`
//! (making room at the limit, see `evict`), and the pause after accept(2) fails for want of a
//! resource.

use super::slot::{Interest, ProtocolConn, Slot};
use super::state::Worker;
use crate::conn::{Client, Connection};
use crate::transport::Transport;
use polling::{Event, PollMode};
use socket2::Socket;
use std::io;
use std::sync::atomic::Ordering;

/// Pause after accept fails for lack of file descriptors or memory, or is refused (µs).
const ACCEPT_PAUSE_US: u64 = 100_000;
/// Connections taken per listener wake-up at most: the listener, polled level-triggered,
/// reports the rest on the next turn.
const ACCEPTS_PER_WAKE: usize = 128;

impl Worker {
    pub(super) fn accept(&mut self, i: usize) {
        if self.drain_deadline.is_some() {
            return;
        }
        for round in 0..ACCEPTS_PER_WAKE {
            // The slot is taken before the accept, so that two workers never admit more than
            // `--max-conns` between them; an accept that fails gives it back.
            if !self.shared.reserve_slot(self.max_conns) {
                if round > 0 {
                    // Whether another client waits is not known: the listener, polled
                    // level-triggered, says so on the next turn.
                    return;
                }
                if !self.close_longest_idle() || !self.shared.reserve_slot(self.max_conns) {
                    self.stop_at_limit();
                    return;
                }
            }
            let Some(l) = self.listeners.get(i) else {
                self.shared.release_slot();
                return;
            };
            match l.accept4(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) {
                Ok((sock, addr)) => {
                    // Kept only for a feature that reads it (the core has none).
                    #[cfg(any(
                        feature = "journal",
                        feature = "access-log",
                        feature = "echo",
                        feature = "control"
                    ))]
                    let client = self.keep_peers.then(|| Client {
                        peer: addr.as_socket(),
                        local: sock.local_addr().ok().and_then(|a| a.as_socket()),
                        tls: false,
                    });
                    #[cfg(not(any(
                        feature = "journal",
                        feature = "access-log",
                        feature = "echo",
                        feature = "control"
                    )))]
                    let client: Option<Client> = {
                        let _ = addr;
                        None
                    };
                    self.add(i, sock, client);
                }
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
        if self.shared.first_report(errno.unwrap_or(0)) && !self.quiet {
            let what = if matches!(errno, Some(libc::EMFILE | libc::ENFILE)) {
                "out of file descriptors"
            } else {
                "accept failed"
            };
            crate::server::log::diagnostic(format_args!(
                "canned: {what} ({e}); pausing accept for 100 ms at a time while it lasts"
            ));
        }
        self.paused_until = Some(self.now_us + ACCEPT_PAUSE_US);
        self.update_own_deadline();
        self.listen_interest(false);
    }

    /// Take a connection just accepted on listener `i`, whose slot in [`Shared::open`] is
    /// already reserved.
    ///
    /// [`Shared::open`]: crate::server::shared::Shared::open
    fn add(&mut self, i: usize, sock: Socket, client: Option<Client>) {
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
        #[cfg(feature = "tls")]
        let tls = self.tls_listeners.get(i).copied().unwrap_or(false);
        #[cfg(not(feature = "tls"))]
        let tls = false;
        #[cfg(feature = "tls")]
        if tls && !self.add_tls(k) {
            let _ = self.poller.delete(&sock);
            self.free.push(k);
            self.shared.release_slot();
            return;
        }
        self.slots[k] = Some(Slot {
            sock,
            transport: self.transport_for(i),
            conn: ProtocolConn::new(self.now_us),
            interest: Interest::READ,
            armed_us: u64::MAX,
            sniffed: 0,
            #[cfg(feature = "tls")]
            tls,
        });
        if let Some(client) = client {
            let client = Client { tls, ..client };
            // Grown with the slots, so that a steady number of connections allocates nothing.
            if self.peers.len() <= k {
                self.peers.resize(k + 1, Client::default());
            }
            self.peers[k] = client;
        }
        self.conns += 1;
        self.accepted += 1;
        self.silent += 1;
        self.shared.silent.fetch_add(1, Ordering::Relaxed);
        if self.conns == 1 && self.publisher.any() {
            // Publish counters while there are connections.
            self.update_own_deadline();
        }
        self.rearm(k);
    }

    /// A TLS connection's state for slot `k`, before its ClientHello. Out of line: the plain
    /// listeners' accepts never come here.
    #[cfg(feature = "tls")]
    #[cold]
    #[inline(never)]
    fn add_tls(&mut self, k: usize) -> bool {
        let Some(config) = self.tls_config.as_ref() else {
            return false;
        };
        let Ok(conn) = crate::transport::tls::TlsConn::new(config) else {
            return false;
        };
        // Grown with the slots, so that a steady number of connections allocates only its
        // TLS state.
        if self.tls.len() <= k {
            self.tls.resize_with(k + 1, || None);
        }
        self.tls[k] = Some(conn);
        true
    }

    /// The transport of a connection accepted on listener `i`: the plain one (TCP and unix
    /// sockets alike), unless the tests asked for another.
    #[inline(always)]
    fn transport_for(&self, _listener: usize) -> Transport {
        self.transport
    }
}
