//! Listening sockets: TCP (one SO_REUSEPORT socket per address and worker), unix sockets and
//! sockets passed by systemd (socket activation), and the fd limit they all count against.

use crate::config::{Config, Listen};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io;

/// Bind every configured address for `workers` workers: `listeners[worker][address]`, and the
/// addresses with real ports.
pub(super) fn bind_all(
    config: &Config,
    workers: usize,
) -> io::Result<(Vec<Vec<Socket>>, Vec<Listen>)> {
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
    Ok((listeners, addrs))
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
