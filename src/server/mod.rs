//! The server: listeners, workers and shutdown. A newcomer's map of where a byte goes:
//!
//! - `listen`: binding TCP and unix sockets, socket activation, the fd limit;
//! - `setup`: a worker's parts, built once from the `Config`;
//! - `worker`: the poll loop that accepts, reads into and writes from each connection, and runs
//!   its timers, at `--max-conns` makes room, and drains;
//! - `shared`: what the workers share: the stop flags and wake-up sockets, the connection slots
//!   of `--max-conns` and the eviction asks, the accept failures already reported;
//! - `signals`: the stop signals wake the workers for a graceful shutdown, a second one stops
//!   them at once;
//! - `timers`: each worker's connection deadlines, one heap entry per connection;
//! - `log`: the access log's queue and the thread that writes it to stdout; diagnostics;
//! - `admin`: `--admin`, the listener of the admin API and its thread, which changes the faults
//!   the workers serve (published through `shared`).
//!
//! This file composes them (`Server`, `Handle`); none of them imports it.
//!
//! Each worker owns its listeners (one SO_REUSEPORT socket per address and worker), its
//! connections and its counters; its `Poller` is shared only so that another worker at
//! `--max-conns` can wake it to close an idle connection.

mod admin;
mod listen;
mod log;
pub mod setup;
mod shared;
mod signals;
mod timers;
mod worker;

pub use crate::stats::Summary;
pub use listen::{max_conns_that_fit, raise_fd_limit};
pub use log::diagnostic;

use crate::config::{Config, Listen};
use shared::{FaultTables, PublishedFaults, Shared, wake};
use socket2::Socket;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use worker::Worker;

/// A bound server, not yet serving. See [`Server::bind`].
///
/// ```
/// use canned::config::Config;
/// use canned::server::Server;
/// use std::io::{Read, Write};
///
/// let config = Config::default().listen("127.0.0.1:0").unwrap().body("pong\n");
/// let server = Server::bind(config)?.spawn()?;
/// let mut s = std::net::TcpStream::connect(server.tcp_addr().unwrap())?;
/// s.write_all(b"GET / HTTP/1.0\r\n\r\n")?;
/// let mut reply = String::new();
/// s.read_to_string(&mut reply)?;
/// assert!(reply.starts_with("HTTP/1.1 200 OK\r\n") && reply.ends_with("\r\n\r\npong\n"));
/// server.shutdown();
/// assert_eq!(server.join().stats.requests, 1);
/// # std::io::Result::Ok(())
/// ```
pub struct Server {
    /// Read here and in `setup` only: each worker is given its parts, built from it once.
    config: Config,
    /// The responses, formatted once: each worker serves a clone, which shares their bytes.
    canned: setup::Canned,
    /// `listeners[worker][address]`
    listeners: Vec<Vec<Socket>>,
    addrs: Vec<Listen>,
    ipv4_fallbacks: Vec<std::net::SocketAddr>,
    unix_files: Vec<listen::UnixSocketFile>,
    shared: Arc<Shared>,
    /// `--admin`: its listener and API, served on a thread of its own.
    admin: Option<admin::Admin>,
    /// What the connections' bytes cross their sockets through: the plain transport, but in
    /// the tests ([`Server::transport`]).
    transport: crate::transport::Transport,
}

/// A running server: its addresses, and how to stop it.
pub struct Handle {
    addrs: Vec<Listen>,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<Summary>>,
    /// `--access-log`: the thread writing to stdout.
    log_writer: Option<JoinHandle<()>>,
    /// `--admin`: its address and thread.
    admin_addr: Option<std::net::SocketAddr>,
    admin: Option<JoinHandle<()>>,
    /// Removed when the handle is dropped, after the workers have stopped.
    #[expect(dead_code, reason = "held for its Drop")]
    unix_files: Vec<listen::UnixSocketFile>,
}

impl Server {
    /// Bind every listener (the real port is known once this returns).
    #[cfg_attr(canned_small, optimize(size))]
    pub fn bind(config: Config) -> io::Result<Server> {
        let workers = config.workers.max(1);
        // Before the listeners: a client that connects as soon as the port answers finds the
        // CA of `--tls-ca-out` written.
        let tls = setup::tls_config(&config)?;
        let bound = listen::bind_all(&config, workers)?;
        let catalogue = (cfg!(feature = "mutate") && config.mutate.is_some())
            .then(|| Arc::new(crate::mutate::Catalogue::new()));
        let log = (cfg!(feature = "access-log") && config.access_log)
            .then(|| log::AccessLog::new(config.shutdown_timeout));
        #[cfg_attr(not(feature = "tls"), allow(unused_mut))]
        let mut canned = setup::Canned::new(&config)?;
        #[cfg(feature = "tls")]
        canned.set_tls(tls);
        #[cfg(not(feature = "tls"))]
        let _ = tls;
        let admin_listener = match config.admin.filter(|_| cfg!(feature = "admin")) {
            Some(addr) => Some(
                admin::bind(addr).map_err(|e| listen::admin_bind_error(e, addr, &bound.addrs))?,
            ),
            None => None,
        };
        let published = admin_listener.as_ref().map(|_| {
            PublishedFaults::new(
                FaultTables {
                    set: canned.fault_set.clone(),
                    responses: canned.responses().clone(),
                    counter_resets: 0,
                },
                workers,
            )
        });
        let shared = Arc::new(Shared::new(workers, catalogue, log, published)?);
        let admin = admin_listener.map(|l| {
            admin::Admin::new(
                l,
                &config,
                canned.responses().clone(),
                canned.fault_responses.clone(),
                canned.fault_set.clone(),
                canned.journal.clone(),
                shared.clone(),
            )
        });
        Ok(Server {
            config,
            canned,
            listeners: bound.listeners,
            addrs: bound.addrs,
            ipv4_fallbacks: bound.ipv4_fallbacks,
            unix_files: bound.unix_files,
            shared,
            admin,
            transport: crate::transport::Transport::Plain,
        })
    }

    /// For the tests: accept every connection with this transport instead of the plain one.
    #[cfg(any(test, feature = "check"))]
    #[doc(hidden)]
    pub fn transport(mut self, transport: crate::transport::Transport) -> Server {
        self.transport = transport;
        self
    }

    /// `--admin`: the admin API's address.
    pub fn admin_addr(&self) -> Option<std::net::SocketAddr> {
        self.admin
            .as_ref()
            .filter(|_| cfg!(feature = "admin"))
            .and_then(admin::Admin::addr)
    }

    /// The bound addresses, with real ports.
    pub fn addrs(&self) -> &[Listen] {
        &self.addrs
    }

    /// Whether `addr` (one of [`addrs`](Server::addrs)) is `0.0.0.0` because `[::]` was asked
    /// for on a host without IPv6: it serves IPv4 clients only.
    pub fn is_ipv4_fallback(&self, addr: &Listen) -> bool {
        matches!(addr, Listen::Tcp(a) | Listen::Tls(a) if self.ipv4_fallbacks.contains(a))
    }

    /// Drain and stop on SIGTERM, SIGINT, SIGHUP or SIGQUIT; stop at once on a second one;
    /// ignore SIGUSR1, SIGUSR2 and SIGPIPE (for the binary; one server per process).
    pub fn stop_on_signals(&self) -> io::Result<()> {
        signals::install(
            self.shared.wake_w.as_raw_fd(),
            self.shared.force_w.as_raw_fd(),
        )
    }

    /// Serve on worker threads; return at once.
    pub fn spawn(self) -> io::Result<Handle> {
        let (handle, first) = self.start(false)?;
        debug_assert!(first.is_none());
        Ok(handle)
    }

    /// Serve, with worker 0 on the calling thread, until stopped; return the summary.
    pub fn run(self) -> io::Result<Summary> {
        let (handle, first) = self.start(true)?;
        let mut total = first.map(|w| w.run()).unwrap_or_default();
        // The inline worker also returns when its poll fails: stop the others rather than
        // wait for them forever.
        wake(&handle.shared);
        let rest = handle.join();
        total.add(&rest);
        Ok(total)
    }

    #[cfg_attr(canned_small, optimize(size), inline(never))]
    fn start(mut self, inline_first: bool) -> io::Result<(Handle, Option<Worker>)> {
        let admin_addr = self.admin_addr();
        let admin_api = self.admin.take();
        let mut workers = Vec::new();
        for (id, listeners) in self.listeners.into_iter().enumerate() {
            let catalogue = if cfg!(feature = "mutate") {
                self.shared.catalogue.clone()
            } else {
                None
            };
            let mut setup = self.canned.worker(&self.config, catalogue, id);
            setup.transport = self.transport;
            workers.push(Worker::new(listeners, self.shared.clone(), setup)?);
        }
        let first = if inline_first {
            Some(workers.remove(0))
        } else {
            None
        };
        let threads = workers
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                std::thread::Builder::new()
                    .name(format!("canned-{}", i + usize::from(inline_first)))
                    .spawn(move || w.run())
            })
            .collect::<io::Result<Vec<_>>>()?;
        // A thread beside the workers; when it cannot start, the workers (running) are stopped
        // before the error is reported.
        let beside = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(f)
                .inspect_err(|_| wake(&self.shared))
        };
        let admin = match admin_api.filter(|_| cfg!(feature = "admin")) {
            Some(a) => Some(beside("canned-admin", Box::new(move || a.run()))?),
            None => None,
        };
        let log_writer = match self.shared.log() {
            Some(_) => {
                let shared = self.shared.clone();
                Some(beside(
                    "canned-log",
                    Box::new(move || {
                        if let Some(log) = shared.log() {
                            log.write_to_stdout();
                        }
                    }),
                )?)
            }
            None => None,
        };
        Ok((
            Handle {
                addrs: self.addrs,
                shared: self.shared,
                threads,
                log_writer,
                admin_addr,
                admin,
                unix_files: self.unix_files,
            },
            first,
        ))
    }
}

impl Handle {
    /// The bound addresses, with real ports.
    pub fn addrs(&self) -> &[Listen] {
        &self.addrs
    }

    /// The first TCP address.
    pub fn tcp_addr(&self) -> Option<std::net::SocketAddr> {
        self.addrs.iter().find_map(|a| match a {
            Listen::Tcp(a) => Some(*a),
            _ => None,
        })
    }

    /// `--admin`: the admin API's address.
    pub fn admin_addr(&self) -> Option<std::net::SocketAddr> {
        self.admin_addr
    }

    /// Connections open now, over all workers.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::Relaxed)
    }

    /// Begin a graceful shutdown (as SIGTERM does).
    pub fn shutdown(&self) {
        wake(&self.shared);
    }

    /// Wait for every worker to finish, and for the access log to be written (until the
    /// shutdown deadline at most); return the summed counters.
    pub fn join(mut self) -> Summary {
        let mut total = Summary::default();
        for t in self.threads.drain(..) {
            if let Ok(s) = t.join() {
                total.add(&s);
            }
        }
        total.stats.log_lines_dropped += self.finish_log();
        self.join_admin();
        total
    }

    /// Wait for the admin thread, which leaves on the workers' wake-up.
    fn join_admin(&mut self) {
        if let Some(a) = self.admin.take().filter(|_| cfg!(feature = "admin")) {
            wake(&self.shared);
            let _ = a.join();
        }
    }

    /// Let the log writer finish, until the shutdown deadline at most; returns the lines it
    /// dropped. A writer still blocked then is left behind (the process exit ends it).
    fn finish_log(&mut self) -> u64 {
        let Some(log) = self.shared.log() else {
            return 0;
        };
        let written = log.finish();
        if let Some(w) = self.log_writer.take() {
            if written {
                let _ = w.join();
            }
        }
        log.dropped()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            wake(&self.shared);
            for t in self.threads.drain(..) {
                let _ = t.join();
            }
        }
        self.finish_log();
        self.join_admin();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A worker whose poll fails stops the others: `run` (worker 0 on the calling thread)
    /// returns instead of waiting for ever in `join`.
    #[test]
    fn a_poll_failure_in_the_inline_worker_stops_the_others() {
        let mut config = Config::default().listen("127.0.0.1:0").unwrap();
        config.workers = 2;
        config.quiet = true;
        let (handle, first) = Server::bind(config).unwrap().start(true).unwrap();
        let first = first.unwrap();
        let null = std::fs::File::open("/dev/null").unwrap();
        // SAFETY: dup2 onto the poller's own descriptor, which stays open (now /dev/null, on
        // which epoll_wait fails with EINVAL) until the poller closes it.
        assert!(unsafe { libc::dup2(null.as_raw_fd(), first.poller_fd()) } >= 0);
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            first.run();
            let _ = done.send(handle.join());
        });
        assert!(
            finished.recv_timeout(Duration::from_secs(10)).is_ok(),
            "join hung after a poll failure"
        );
    }

    #[test]
    fn dropping_the_server_clears_the_handlers_fd() {
        let _turn = signals::TEST_TURN.lock().unwrap_or_else(|e| e.into_inner());
        let config = Config::default().listen("127.0.0.1:0").unwrap();
        let server = Server::bind(Config {
            workers: 1,
            ..config
        })
        .unwrap();
        server.stop_on_signals().unwrap();
        assert!(signals::handler_fds().0 >= 0);
        assert!(signals::handler_fds().1 >= 0);
        drop(server);
        assert_eq!(signals::handler_fds().0, -1);
        assert_eq!(signals::handler_fds().1, -1);
        // A signal now finds no fd (and no closed or reused fd to write to).
        signals::deliver(libc::SIGTERM);
    }
}
