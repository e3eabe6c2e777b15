//! Listening sockets: TCP (one socket per address and worker, SO_REUSEPORT between a process's
//! own workers), unix sockets and sockets passed by systemd (socket activation), and the fd
//! limit they all count against.

use crate::config::{Config, Listen, check_passed_to_this_process};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Descriptors each worker's `Poller` holds (epoll, its notifier and its timer; polling 3.x on
/// Linux).
const POLLER_FDS: u64 = 3;
/// Descriptors kept for everything else: stdio, the wake-up pair, a probe socket and a few
/// connections. Small on purpose: how many connections fit is `--max-conns`'s business.
const RESERVED_FDS: u64 = 16;

/// Everything [`bind_all`] opened.
pub(super) struct Bound {
    /// `listeners[worker][address]`.
    pub listeners: Vec<Vec<Socket>>,
    /// The addresses, with real ports.
    pub addrs: Vec<Listen>,
    /// The unix socket files this process created, removed when dropped.
    pub unix_files: Vec<UnixSocketFile>,
    /// `[::]` addresses bound as `0.0.0.0` because this host has no IPv6.
    pub ipv4_fallbacks: Vec<SocketAddr>,
}

/// Bind every configured address for `workers` workers (`config.workers`, at least 1).
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn bind_all(config: &Config, workers: usize) -> io::Result<Bound> {
    // The budget main lowered `--max-conns` to; here only whether the workers fit.
    max_conns_that_fit(config)?;
    let mut inherited = adopt_inherited(&config.listen)?.into_iter();
    let mut bound = Bound {
        listeners: (0..workers).map(|_| Vec::new()).collect(),
        addrs: Vec::new(),
        unix_files: Vec::new(),
        ipv4_fallbacks: Vec::new(),
    };
    for (i, l) in config.listen.iter().enumerate() {
        match l {
            Listen::Tcp(want) | Listen::Tls(want) => {
                let (sockets, addr, fell_back) =
                    bind_tcp(*want, config.backlog, workers, config.reuse_port)
                        .map_err(|e| own_clash(e, *want, &config.listen[..i]))?;
                for (w, s) in bound.listeners.iter_mut().zip(sockets) {
                    w.push(s);
                }
                if fell_back {
                    bound.ipv4_fallbacks.push(addr);
                }
                bound.addrs.push(match l {
                    Listen::Tls(_) => Listen::Tls(addr),
                    _ => Listen::Tcp(addr),
                });
            }
            Listen::Fd(fd) => {
                // A duplicate: the `Listen` keeps owning (and in the end closes) its fd.
                let s = Socket::from(fd.try_clone()?);
                add_fd_listener(&mut bound, s, fd.as_raw_fd(), l)?;
            }
            Listen::Inherited(fd) => {
                // Owned here: the workers' duplicates keep it open, the last one closes it.
                let owned = inherited
                    .next()
                    .ok_or_else(|| io::Error::other("an inherited socket was not adopted"))?;
                add_fd_listener(&mut bound, Socket::from(owned), *fd, l)?;
            }
            Listen::Unix(path) => {
                let shown = format!("unix:{}", path.display());
                remove_stale_socket(path, &shown)?;
                let s = Socket::new(Domain::UNIX, Type::STREAM, None)?;
                s.bind(&SockAddr::unix(path)?).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot listen on {shown}: {e}"))
                })?;
                // From here on an error removes the file again (the guard is dropped).
                bound.unix_files.push(UnixSocketFile::created(path)?);
                s.listen(config.backlog)?;
                s.set_nonblocking(true)?;
                // One socket shared by every worker (SO_REUSEPORT is for TCP/UDP).
                for w in bound.listeners.iter_mut() {
                    w.push(s.try_clone()?);
                }
                bound.addrs.push(l.clone());
            }
        }
    }
    Ok(bound)
}

/// Serve `s`, a socket given as a descriptor (`fd`, for messages): a listening stream socket,
/// shared by every worker.
#[cfg_attr(canned_small, optimize(size))]
fn add_fd_listener(bound: &mut Bound, s: Socket, fd: RawFd, l: &Listen) -> io::Result<()> {
    // Anything but a listening stream socket would never accept: polled, it reports an error
    // condition on every turn and the worker spins.
    if s.r#type()? != Type::STREAM || !s.is_listener()? {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("fd {fd} is not a listening stream socket"),
        ));
    }
    s.set_nonblocking(true)?;
    let shown = match s.local_addr()?.as_socket() {
        Some(a) => Listen::Tcp(a),
        None => l.clone(),
    };
    for w in bound.listeners.iter_mut() {
        w.push(s.try_clone()?);
    }
    bound.addrs.push(shown);
    Ok(())
}

/// The file descriptors a server needs before its first connection: for each worker its
/// poller (epoll, its notifier and its timer: [`POLLER_FDS`]) and one socket per listener, plus
/// [`RESERVED_FDS`] for the process (stdin, stdout, stderr, the wake-up pair and whatever a
/// library user holds). What is left of the fd limit is for connections, one fd each.
///
/// `Ok(None)`: no limit. `Ok(Some(n))`: `n` connections fit (at least 1). An error names
/// `--workers` when the workers alone do not fit, before anything is opened.
#[cfg_attr(canned_small, optimize(size))]
fn connections_that_fit(
    workers: u64,
    listeners: u64,
    limit: Option<u64>,
) -> io::Result<Option<u64>> {
    let Some(limit) = limit else { return Ok(None) };
    let per_worker = POLLER_FDS + listeners;
    let needed = workers
        .saturating_mul(per_worker)
        .saturating_add(RESERVED_FDS);
    if needed >= limit {
        return Err(io::Error::other(format!(
            "--workers {workers} needs {needed} file descriptors before any connection ({per_worker} \
             per worker, {POLLER_FDS} for its poller and one per listener, and {RESERVED_FDS} for the \
             process), leaving none of the limit of {limit}; use fewer workers or raise the limit \
             (ulimit -n)"
        )));
    }
    Ok(Some(limit - needed))
}

/// The fd budget, the one used by `main` and by `bind_all`: the `--max-conns` that fits in
/// the fd limit beside `config`'s workers and listeners (`connections_that_fit`), or the
/// error naming `--workers` when nothing fits. Checked before anything is opened, rather
/// than failing half-way with "Too many open files".
#[cfg_attr(canned_small, optimize(size))]
pub fn max_conns_that_fit(config: &Config) -> io::Result<usize> {
    let fit = connections_that_fit(
        config.workers.max(1) as u64,
        config.listen.len() as u64,
        fd_limit(),
    )?;
    // `--admin`: its poller, its listener and the one connection it serves at a time.
    let admin = if config.admin.is_some() {
        POLLER_FDS + 2
    } else {
        0
    };
    let fit = fit.map(|n| n.saturating_sub(admin).max(1));
    Ok(fit.map_or(config.max_conns, |n| {
        config
            .max_conns
            .min(usize::try_from(n).unwrap_or(usize::MAX))
    }))
}

/// The soft RLIMIT_NOFILE, or `None` when unlimited or unknown.
#[cfg_attr(canned_small, optimize(size))]
fn fd_limit() -> Option<u64> {
    // SAFETY: getrlimit with a valid, initialised struct.
    let mut r: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `r` is a valid out-pointer for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0
        || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(r.rlim_cur as u64)
}

/// Bind `want` for `workers` workers: the sockets, the address they listen on, and whether
/// `[::]` fell back to `0.0.0.0`.
///
/// Without `share`, the address must be free: a first socket without SO_REUSEPORT is bound
/// to it, which fails with EADDRINUSE if anyone listens there, even a SO_REUSEPORT group of
/// another process (Linux lets a SO_REUSEPORT socket of the same user join such a group
/// silently). That socket also turns port 0 into a real port. It is kept bound, not
/// listening, until the workers' sockets listen: a non-listening SO_REUSEADDR socket does not
/// stop them from binding.
#[cfg_attr(canned_small, optimize(size))]
fn bind_tcp(
    want: SocketAddr,
    backlog: i32,
    workers: usize,
    share: bool,
) -> io::Result<(Vec<Socket>, SocketAddr, bool)> {
    let reuse_port = share || workers > 1;
    let named = |addr: SocketAddr, e: io::Error| {
        let why = match what_holds(addr, &e, share) {
            Some(why) => why,
            None if share => "address in use (by a process that does not share it)".into(),
            None => "address in use (another process listens there; --reuse-port shares it)".into(),
        };
        io::Error::new(e.kind(), format!("cannot listen on {addr}: {why}"))
    };
    let (first, addr, fell_back) =
        first_socket(want, |a| bound_socket(a, share)).map_err(|e| named(want, e))?;
    let mut sockets = Vec::with_capacity(workers);
    // The first socket serves when it can: when sharing (it has SO_REUSEPORT), or as the only
    // worker (it needs none).
    let probe = if share || workers == 1 {
        first.listen(backlog).map_err(|e| named(addr, e))?;
        sockets.push(first);
        None
    } else {
        Some(first)
    };
    while sockets.len() < workers {
        let s = bound_socket(addr, reuse_port).map_err(|e| named(addr, e))?;
        s.listen(backlog).map_err(|e| named(addr, e))?;
        sockets.push(s);
    }
    drop(probe);
    Ok((sockets, addr, fell_back))
}

/// What holds `addr` when binding it failed with `e`: the OS's text for any error but
/// address-in-use; a socket that does not listen when nothing accepts there; `None` when
/// something listens (the caller says what may share it). With `share` (SO_REUSEPORT), a
/// listener is not the cause, so nothing is tried.
#[cfg_attr(canned_small, optimize(size))]
fn what_holds(addr: SocketAddr, e: &io::Error, share: bool) -> Option<String> {
    if e.kind() != io::ErrorKind::AddrInUse {
        return Some(e.to_string());
    }
    (!share && !someone_listens(addr)).then(|| {
        "address in use, but nothing listens there: a socket that does not listen holds the \
         port (a connection in TIME-WAIT, as `ss -tan` shows, or a socket only bound)"
            .to_string()
    })
}

/// `--admin`'s bind error `e` for `addr`, told as `--listen`'s are: one of canned's own
/// listeners (`listening`, with their real ports) that covers the address, another process
/// listening there, or a socket that does not listen.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn admin_bind_error(e: io::Error, addr: SocketAddr, listening: &[Listen]) -> io::Error {
    let why = match own_listener(e.kind(), addr, listening) {
        Some(first) => {
            format!("canned's own --listen {first} covers it; give --admin another port")
        }
        None => what_holds(addr, &e, false)
            .unwrap_or_else(|| "address in use (another process listens there)".to_string()),
    };
    io::Error::new(e.kind(), format!("--admin: cannot listen on {addr}: {why}"))
}

/// The first of `earlier` that covers `want`, when binding `want` failed with address in use.
#[cfg_attr(canned_small, optimize(size))]
fn own_listener(kind: io::ErrorKind, want: SocketAddr, earlier: &[Listen]) -> Option<&Listen> {
    let covers =
        |a: SocketAddr, b: SocketAddr| a.ip().is_unspecified() && (a.is_ipv6() || b.is_ipv4());
    if kind != io::ErrorKind::AddrInUse || want.port() == 0 {
        return None;
    }
    earlier.iter().find(|l| match l {
        Listen::Tcp(a) | Listen::Tls(a) => {
            a.port() == want.port() && (a.ip() == want.ip() || covers(*a, want) || covers(want, *a))
        }
        _ => false,
    })
}

/// An address-in-use error for `want` told as what it is when one of this process's own
/// earlier listeners (`earlier`) already covers the address: the same port on the same
/// address, or on a wildcard that includes it (`[::]` covers IPv4 too).
#[cfg_attr(canned_small, optimize(size))]
fn own_clash(e: io::Error, want: SocketAddr, earlier: &[Listen]) -> io::Error {
    match own_listener(e.kind(), want, earlier) {
        Some(first) => io::Error::new(
            e.kind(),
            format!("cannot listen on {want}: --listen {first}, given before it, covers it"),
        ),
        None => e,
    }
}

/// Whether something accepts connections on `addr` (a wildcard is tried on loopback, IPv4
/// then IPv6): what tells a listener apart from a port held by a connection.
#[cfg_attr(canned_small, optimize(size))]
fn someone_listens(addr: SocketAddr) -> bool {
    let port = addr.port();
    let (first, second) = if addr.ip().is_unspecified() {
        let v6 = SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port));
        (SocketAddr::from((Ipv4Addr::LOCALHOST, port)), Some(v6))
    } else {
        (addr, None)
    };
    [Some(first), second].into_iter().flatten().any(|a| {
        // A local connection is accepted or refused at once; one still in progress when the
        // send timeout (which bounds connect on Linux) ends is a listener with a full backlog.
        Socket::new(Domain::for_address(a), Type::STREAM, None)
            .and_then(|s| {
                s.set_write_timeout(Some(std::time::Duration::from_millis(200)))?;
                s.connect(&a.into())
            })
            .map_or_else(|e| e.raw_os_error() == Some(libc::EINPROGRESS), |()| true)
    })
}

/// Open the first socket for `want` with `open`. An unspecified IPv6 address falls back to
/// `0.0.0.0` on a host without IPv6: socket(2) fails with EAFNOSUPPORT when the kernel has no
/// IPv6, bind(2) with EADDRNOTAVAIL when the address family is present but unusable.
#[cfg_attr(canned_small, optimize(size))]
fn first_socket(
    want: SocketAddr,
    open: impl Fn(SocketAddr) -> io::Result<Socket>,
) -> io::Result<(Socket, SocketAddr, bool)> {
    let resolved = |s: Socket, fell_back| {
        let addr = s
            .local_addr()?
            .as_socket()
            .ok_or_else(|| io::Error::other("no socket address"))?;
        Ok((s, addr, fell_back))
    };
    match open(want) {
        Ok(s) => resolved(s, false),
        Err(e)
            if want.is_ipv6()
                && want.ip().is_unspecified()
                && matches!(
                    e.raw_os_error(),
                    Some(libc::EAFNOSUPPORT | libc::EADDRNOTAVAIL)
                ) =>
        {
            let v4 = SocketAddr::from((Ipv4Addr::UNSPECIFIED, want.port()));
            resolved(open(v4)?, true)
        }
        Err(e) => Err(e),
    }
}

/// A bound, not yet listening, non-blocking TCP socket. `[::]` is dual-stack (IPV6_V6ONLY
/// off, so IPv4 clients reach it as `::ffff:a.b.c.d`); any other IPv6 address is v6-only.
#[cfg_attr(canned_small, optimize(size))]
fn bound_socket(addr: SocketAddr, reuse_port: bool) -> io::Result<Socket> {
    let s = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    s.set_reuse_address(true)?;
    if reuse_port {
        s.set_reuse_port(true)?;
    }
    if addr.is_ipv6() {
        s.set_only_v6(!addr.ip().is_unspecified())?;
    }
    s.set_nonblocking(true)?;
    s.bind(&addr.into())?;
    Ok(s)
}

/// Make way for a unix socket at `path`: nothing there is fine; a stale socket (one that
/// refuses connections: its server is gone) is removed; anything else is refused and left
/// untouched.
#[cfg_attr(canned_small, optimize(size))]
fn remove_stale_socket(path: &Path, shown: &str) -> io::Result<()> {
    let in_use = || {
        io::Error::new(
            io::ErrorKind::AddrInUse,
            format!(
                "cannot listen on {shown}: {} is in use by another server",
                path.display()
            ),
        )
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot listen on {shown}: {e}"),
            ));
        }
        Ok(m) if !m.file_type().is_socket() => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "cannot listen on {shown}: {} exists and is not a socket",
                    path.display()
                ),
            ));
        }
        Ok(_) => {}
    }
    // Non-blocking, so that a live server with a full backlog cannot make this wait.
    let probe = Socket::new(Domain::UNIX, Type::STREAM, None)?;
    probe.set_nonblocking(true)?;
    match probe.connect(&SockAddr::unix(path)?) {
        Ok(()) => Err(in_use()),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(in_use()),
        Err(e) if e.raw_os_error() == Some(libc::ECONNREFUSED) => {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io::Error::new(
                    e.kind(),
                    format!("cannot remove the stale socket {shown}: {e}"),
                )),
                _ => Ok(()),
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("cannot check whether {shown} is in use: {e}"),
        )),
    }
}

/// A unix socket file this process created: removed when dropped, but only if the path still
/// names that same file (a server started after this one may have replaced it).
pub(super) struct UnixSocketFile {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl UnixSocketFile {
    #[cfg_attr(canned_small, optimize(size))]
    fn created(path: &Path) -> io::Result<UnixSocketFile> {
        let m = std::fs::symlink_metadata(path)?;
        Ok(UnixSocketFile {
            path: path.to_owned(),
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

impl Drop for UnixSocketFile {
    #[cfg_attr(canned_small, optimize(size))]
    fn drop(&mut self) {
        if let Ok(m) = std::fs::symlink_metadata(&self.path) {
            if m.file_type().is_socket() && m.dev() == self.dev && m.ino() == self.ino {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

/// Set once the inherited sockets are taken, so that they are owned once per process.
static LISTEN_FDS_TAKEN: AtomicBool = AtomicBool::new(false);

/// Take ownership of the sockets systemd passed to this process that `listen` names
/// ([`Listen::Inherited`], in order): only when this process's own environment passes them
/// ([`check_passed_to_this_process`], the command line's own check, made again here where
/// they are taken), and only once per process.
#[cfg_attr(canned_small, optimize(size))]
fn adopt_inherited(listen: &[Listen]) -> io::Result<Vec<OwnedFd>> {
    let fds: Vec<RawFd> = listen
        .iter()
        .filter_map(|l| match l {
            Listen::Inherited(fd) => Some(*fd),
            _ => None,
        })
        .collect();
    if fds.is_empty() {
        return Ok(Vec::new());
    }
    let refused = |why: &str| io::Error::other(format!("LISTEN_FDS: {why}"));
    check_passed_to_this_process(&fds).map_err(|why| refused(&why))?;
    if LISTEN_FDS_TAKEN.swap(true, Ordering::SeqCst) {
        return Err(refused("the inherited sockets were taken already"));
    }
    Ok(fds
        .into_iter()
        .map(|fd| {
            // SAFETY: this process's own environment passes these fds to it (LISTEN_PID), they
            // are open sockets, and LISTEN_FDS_TAKEN makes this the only owner in the process.
            let owned = unsafe { OwnedFd::from_raw_fd(fd) };
            debug_assert_eq!(owned.as_raw_fd(), fd);
            owned
        })
        .collect())
}

/// Raise the soft RLIMIT_NOFILE to the hard limit (as Go's runtime does) and return it.
#[cfg_attr(canned_small, optimize(size))]
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
                // rlim_t is u32 on some 32-bit targets.
                return want.rlim_cur as u64;
            }
        }
        r.rlim_cur as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_ipv6_falls_back_to_ipv4_only_without_ipv6() {
        let v6_fails = |errno| {
            move |a: SocketAddr| {
                if a.is_ipv6() {
                    Err(io::Error::from_raw_os_error(errno))
                } else {
                    bound_socket(a, false)
                }
            }
        };
        // (asked for, what IPv6 fails with, falls back)
        let cases = [
            ("[::]:0", libc::EAFNOSUPPORT, true),
            ("[::]:0", libc::EADDRNOTAVAIL, true),
            ("[::]:0", libc::EACCES, false),
            ("[::1]:0", libc::EAFNOSUPPORT, false),
        ];
        for (want, errno, falls_back) in cases {
            let got = first_socket(want.parse().unwrap(), v6_fails(errno));
            match got {
                Ok((_, addr, fell_back)) => {
                    assert!(falls_back && fell_back, "{want} {errno}");
                    assert!(addr.ip().is_unspecified() && addr.is_ipv4(), "{addr}");
                    assert_ne!(addr.port(), 0);
                }
                Err(e) => assert!(!falls_back && e.raw_os_error() == Some(errno), "{want}"),
            }
        }
    }

    #[test]
    fn fd_budget_counts_workers_and_listeners() {
        // (workers, listeners, limit, fits)
        let cases = [
            (1, 1, Some(1024), true),
            (251, 1, Some(1024), true),
            (252, 1, Some(1024), false),
            (1, 1, Some(64), true),
            (5000, 1, Some(20_000), false),
            (5000, 1, None, true),
            (u64::MAX, 2, Some(u64::MAX - 1), false),
        ];
        for (workers, listeners, limit, fits) in cases {
            let got = connections_that_fit(workers, listeners, limit).map(|_| ());
            assert_eq!(got.is_ok(), fits, "{workers} x {listeners} in {limit:?}");
            if let (Ok(()), Some(limit)) = (&got, limit) {
                // What is left is for connections: the same formula, at least one.
                let left = connections_that_fit(workers, listeners, Some(limit)).unwrap();
                assert_eq!(left, Some(limit - 16 - workers * (3 + listeners)));
                assert!(left.unwrap() >= 1);
            }
            if let Err(e) = got {
                assert!(
                    e.to_string()
                        .starts_with(&format!("--workers {workers} needs "))
                );
            }
        }
    }
}
