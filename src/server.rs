//! The poll loop: listeners, accept, one read and one write per ready connection, coarse
//! timers, shutdown. It moves bytes between sockets and [`Conn`]s and knows no HTTP grammar.
//!
//! Each worker owns its listeners (one SO_REUSEPORT socket per address and worker), its
//! `Poller`, its connections and its counters. Sockets are registered level-triggered, so
//! steady traffic needs no `epoll_ctl`: interest changes only when a connection starts or
//! stops having output pending, or is paused by backpressure.

use crate::config::{Config, Listen};
use crate::conn::{Conn, ConnLimits, Env, Next, Pool, Stats, Timeout};
use crate::response::{Responses, Spec, http_date};
use polling::{Event, Events, PollMode, Poller};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io::{self, Read};
use std::net::Shutdown;
use std::num::NonZeroUsize;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::thread::JoinHandle;
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

/// What a server did, summed over its workers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Connections accepted.
    pub connections: u64,
    /// Counters.
    pub stats: Stats,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.stats;
        let errors: u64 = s.errors.iter().sum();
        write!(
            f,
            "canned: {} connections, {} requests, {} errors",
            self.connections, s.requests, errors
        )?;
        let mut sep = " (";
        for (e, n) in crate::parser::Error::ALL.iter().zip(s.errors) {
            if n > 0 {
                write!(f, "{sep}{e} {n}")?;
                sep = ", ";
            }
        }
        for (name, n) in ["header_timeout", "idle_timeout", "write_timeout"]
            .iter()
            .zip(s.timeouts)
        {
            if n > 0 {
                write!(f, "{sep}{name} {n}")?;
                sep = ", ";
            }
        }
        if sep == ", " {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// The write end of the wake-up pipe the signal handler writes to.
static SIGNAL_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(_: libc::c_int) {
    let fd = SIGNAL_FD.load(Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; the buffer is a valid static byte.
        unsafe {
            libc::write(fd, b"s".as_ptr().cast(), 1);
        }
    }
}

struct Shared {
    /// `--stats`: each worker's counters, published every tick.
    published: std::sync::Mutex<Vec<Summary>>,
    stop: AtomicBool,
    wake_r: UnixStream,
    wake_w: UnixStream,
    open: AtomicUsize,
}

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
    config: Arc<Config>,
    /// listeners[worker][address]
    listeners: Vec<Vec<Socket>>,
    addrs: Vec<Listen>,
    shared: Arc<Shared>,
}

/// A running server: its addresses, and how to stop it.
pub struct Handle {
    addrs: Vec<Listen>,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<Summary>>,
    unix: Vec<std::path::PathBuf>,
}

impl Server {
    /// Bind every listener (the real port is known once this returns).
    pub fn bind(config: Config) -> io::Result<Server> {
        let workers = config.workers.max(1);
        let mut listeners: Vec<Vec<Socket>> = (0..workers).map(|_| Vec::new()).collect();
        let mut addrs = Vec::new();
        for l in &config.listen {
            match l {
                Listen::Tcp(want) => {
                    let mut addr = *want;
                    for w in listeners.iter_mut() {
                        let s = tcp_listener(addr, config.backlog, workers > 1)?;
                        if addr.port() == 0 {
                            addr = s
                                .local_addr()?
                                .as_socket()
                                .ok_or_else(|| io::Error::other("no socket address"))?;
                        }
                        w.push(s);
                    }
                    addrs.push(Listen::Tcp(addr));
                }
                Listen::Fd(fd) => {
                    // SAFETY: systemd passes these fds to this process alone (LISTEN_PID); each
                    // is adopted once.
                    let s = unsafe { <Socket as std::os::fd::FromRawFd>::from_raw_fd(*fd) };
                    s.set_nonblocking(true)?;
                    s.set_cloexec(true)?;
                    let shown = match s.local_addr()?.as_socket() {
                        Some(a) => Listen::Tcp(a),
                        None => l.clone(),
                    };
                    for w in listeners.iter_mut() {
                        w.push(s.try_clone()?);
                    }
                    addrs.push(shown);
                }
                Listen::Unix(path) => {
                    // One socket shared by every worker (SO_REUSEPORT is for TCP/UDP).
                    let _ = std::fs::remove_file(path);
                    let s = Socket::new(Domain::UNIX, Type::STREAM, None)?;
                    s.bind(&SockAddr::unix(path)?)?;
                    s.listen(config.backlog)?;
                    s.set_nonblocking(true)?;
                    for w in listeners.iter_mut() {
                        w.push(s.try_clone()?);
                    }
                    addrs.push(l.clone());
                }
            }
        }
        let (wake_r, wake_w) = UnixStream::pair()?;
        wake_r.set_nonblocking(true)?;
        wake_w.set_nonblocking(true)?;
        Ok(Server {
            config: Arc::new(config),
            listeners,
            addrs,
            shared: Arc::new(Shared {
                published: std::sync::Mutex::new(vec![Summary::default(); workers]),
                stop: AtomicBool::new(false),
                wake_r,
                wake_w,
                open: AtomicUsize::new(0),
            }),
        })
    }

    /// The bound addresses, with real ports.
    pub fn addrs(&self) -> &[Listen] {
        &self.addrs
    }

    /// Stop on SIGTERM and SIGINT (for the binary; one server per process).
    pub fn stop_on_signals(&self) -> io::Result<()> {
        SIGNAL_FD.store(self.shared.wake_w.as_raw_fd(), Ordering::Relaxed);
        for sig in [libc::SIGTERM, libc::SIGINT] {
            // SAFETY: a zeroed sigaction is valid; the handler only calls write(2).
            let rc = unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as usize;
                sa.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut())
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // SAFETY: ignoring SIGPIPE has no preconditions; writes use MSG_NOSIGNAL anyway.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        Ok(())
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
        let rest = handle.join();
        total.connections += rest.connections;
        total.stats.add(&rest.stats);
        Ok(total)
    }

    fn start(self, inline_first: bool) -> io::Result<(Handle, Option<Worker>)> {
        let mut workers = Vec::new();
        for (id, listeners) in self.listeners.into_iter().enumerate() {
            workers.push(Worker::new(
                id,
                listeners,
                self.config.clone(),
                self.shared.clone(),
            )?);
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
        let unix = self
            .addrs
            .iter()
            .filter_map(|a| match a {
                Listen::Unix(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        Ok((
            Handle {
                addrs: self.addrs,
                shared: self.shared,
                threads,
                unix,
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

    /// Connections open now, over all workers.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::Relaxed)
    }

    /// Begin a graceful shutdown (as SIGTERM does).
    pub fn shutdown(&self) {
        wake(&self.shared);
    }

    /// Wait for every worker to finish; return the summed counters.
    pub fn join(mut self) -> Summary {
        let mut total = Summary::default();
        for t in self.threads.drain(..) {
            if let Ok(s) = t.join() {
                total.connections += s.connections;
                total.stats.add(&s.stats);
            }
        }
        for p in &self.unix {
            let _ = std::fs::remove_file(p);
        }
        total
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
        for p in &self.unix {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn wake(shared: &Shared) {
    shared.stop.store(true, Ordering::SeqCst);
    let _ = io::Write::write(&mut &shared.wake_w, b"w");
}

fn tcp_listener(addr: std::net::SocketAddr, backlog: i32, reuse_port: bool) -> io::Result<Socket> {
    let s = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    s.set_reuse_address(true)?;
    if reuse_port {
        s.set_reuse_port(true)?;
    }
    if addr.is_ipv6() {
        s.set_only_v6(true)?;
    }
    s.set_nonblocking(true)?;
    s.bind(&addr.into())
        .map_err(|e| io::Error::new(e.kind(), format!("cannot bind {addr}: {e}")))?;
    s.listen(backlog)?;
    Ok(s)
}

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
struct Lend {
    responses: Responses,
    pool: Pool,
    stats: Stats,
    /// Access-log lines of this loop turn.
    log: Vec<u8>,
}

impl Lend {
    fn env<'a>(&'a mut self, config: &Config, now: u64, draining: bool, log: bool) -> Env<'a> {
        Env {
            responses: &self.responses,
            pool: &mut self.pool,
            stats: &mut self.stats,
            limits: config.limits,
            conn_limits: ConnLimits::default(),
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

struct Worker {
    poller: Poller,
    listeners: Vec<Socket>,
    /// The time accepting may resume after running out of fds, or `None` when accepting.
    paused: Option<u64>,
    at_limit: bool,
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    conns: usize,
    scratch: Vec<u8>,
    lend: Lend,
    accepted: u64,
    config: Arc<Config>,
    shared: Arc<Shared>,
    epoch: Instant,
    now: u64,
    second: u64,
    draining: Option<u64>,
    logged_emfile: bool,
    /// `--delay`: (due time, connection) in due order.
    holds: std::collections::VecDeque<(u64, usize)>,
    /// `--stats`: this worker's index and the stats route.
    id: usize,
    stats_route: Option<usize>,
}

impl Worker {
    fn new(
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
            lend: Lend {
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
            second: 0,
            draining: None,
            logged_emfile: false,
            holds: std::collections::VecDeque::new(),
            id,
            stats_route,
        })
    }

    fn run(mut self) -> Summary {
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
                if secs != self.second {
                    self.second = secs;
                    self.lend.responses.set_date(http_date(wall));
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
            if !self.lend.log.is_empty() {
                // One write per loop turn.
                let _ = io::Write::write_all(&mut io::stdout().lock(), &self.lend.log);
                self.lend.log.clear();
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
            stats: self.lend.stats,
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
            .lend
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
        self.settle(k);
    }

    /// After a connection made progress: close it, start lingering, or update its interest.
    fn settle(&mut self, k: usize) {
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
            slot.conn.release(&mut self.lend.pool);
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
            .lend
            .env(&self.config, self.now, self.draining.is_some(), false);
        if !flush(slot, &mut env) {
            self.close(k);
            return;
        }
        if let Some(t) = slot.conn.held_until() {
            self.holds.push_back((t, k));
        }
        self.settle(k);
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
                stats: self.lend.stats.clone(),
            };
            let mut total = Summary::default();
            for w in all.iter() {
                total.connections += w.connections;
                total.stats.add(&w.stats);
            }
            total
        };
        let json = stats_json(&total, self.shared.open.load(Ordering::Relaxed));
        self.lend
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
                .lend
                .env(&self.config, self.now, self.draining.is_some(), false);
            match slot.conn.on_timeout(why, &mut env) {
                Next::Continue if why == Timeout::Header => {
                    if flush(slot, &mut env) {
                        self.settle(k);
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

/// The `--stats` body.
fn stats_json(t: &Summary, open: usize) -> String {
    use std::fmt::Write;
    let s = &t.stats;
    let mut j = format!(
        "{{\"connections_open\":{open},\"connections_total\":{},\"requests\":{},\"responses\":{{",
        t.connections, s.requests
    );
    let mut sep = "";
    for (status, n) in s.by_status.iter().enumerate().filter(|(_, n)| **n > 0) {
        let _ = write!(j, "{sep}\"{status}\":{n}");
        sep = ",";
    }
    j.push_str("},\"errors\":{");
    sep = "";
    for (e, n) in crate::parser::Error::ALL.iter().zip(s.errors) {
        let _ = write!(j, "{sep}\"{e}\":{n}");
        sep = ",";
    }
    let _ = writeln!(
        j,
        "}},\"timeouts\":{{\"header\":{},\"idle\":{},\"write\":{}}},\"bytes_in\":{},\"bytes_out\":{}}}",
        s.timeouts[0], s.timeouts[1], s.timeouts[2], s.bytes_in, s.bytes_out
    );
    j
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

/// Raise the soft RLIMIT_NOFILE to the hard limit (as Go's runtime does) and return it.
pub fn raise_fd_limit() -> u64 {
    // SAFETY: getrlimit/setrlimit with a valid, initialised struct.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return 1024;
        }
        if r.rlim_cur < r.rlim_max {
            let want = libc::rlimit {
                rlim_cur: r.rlim_max,
                rlim_max: r.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                return want.rlim_cur;
            }
        }
        r.rlim_cur
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
