//! The floor: the physical limit of canned's design on this machine, for `benches/load.sh`.
//!
//! A minimal single-threaded, level-triggered epoll loop with std, libc and memchr only. It
//! does no parsing at all: one canned response per CRLFCRLF, one read and one write per batch.
//! The only concession to HTTP is closing after answering an HTTP/1.0 request without
//! `Keep-Alive`, so that `ab` without `-k` can use it; for an HTTP/1.1 request that look is one
//! `memmem` search, so that the floor's instructions are those of the loop itself. Never
//! shipped; a reference to measure against.
//!
//! Usage: `floor PORT` (listens on 127.0.0.1:PORT; with 0, on a free port). It names the port
//! on stderr as canned does, `floor listening on 127.0.0.1:PORT`.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};

const RESP: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nHello World\n";
/// For HTTP/1.0 keep-alive (`ab -k` needs the header).
const RESP_KA10: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: keep-alive\r\n\r\nHello World\n";

struct Conn {
    s: TcpStream,
    /// Bytes of a CRLFCRLF matched at the end of the previous read.
    carry: usize,
    /// Unwritten output.
    out: Vec<u8>,
    close: bool,
}

fn ctl(ep: RawFd, op: i32, fd: RawFd, events: u32) {
    let mut ev = libc::epoll_event {
        events,
        u64: fd as u64,
    };
    // SAFETY: valid epoll fd and event struct.
    unsafe { libc::epoll_ctl(ep, op, fd, &mut ev) };
}

fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| {
            // `cargo bench` runs every bench target: do nothing then.
            eprintln!("floor: reference server for benches/load.sh; usage: floor PORT");
            std::process::exit(0)
        });
    let l = TcpListener::bind(("127.0.0.1", port)).unwrap();
    eprintln!("floor listening on {}", l.local_addr().unwrap());
    l.set_nonblocking(true).unwrap();
    // SAFETY: plain syscall.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    ctl(ep, libc::EPOLL_CTL_ADD, l.as_raw_fd(), libc::EPOLLIN as u32);
    let mut conns: HashMap<RawFd, Conn> = HashMap::new();
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 1024];
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::with_capacity(1 << 20);
    let http10_finder = memchr::memmem::Finder::new(b"HTTP/1.0");
    loop {
        // SAFETY: the buffer holds 1024 events.
        let n = unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), 1024, -1) };
        for ev in &events[..n.max(0) as usize] {
            let fd = ev.u64 as RawFd;
            if fd == l.as_raw_fd() {
                while let Ok((s, _)) = l.accept() {
                    s.set_nonblocking(true).unwrap();
                    s.set_nodelay(true).unwrap();
                    let fd = s.as_raw_fd();
                    ctl(ep, libc::EPOLL_CTL_ADD, fd, libc::EPOLLIN as u32);
                    conns.insert(
                        fd,
                        Conn {
                            s,
                            carry: 0,
                            out: Vec::new(),
                            close: false,
                        },
                    );
                }
                continue;
            }
            let Some(c) = conns.get_mut(&fd) else {
                continue;
            };
            let mut dead = false;
            if ev.events & libc::EPOLLIN as u32 != 0 && c.out.is_empty() {
                match c.s.read(&mut buf) {
                    Ok(0) => dead = true,
                    Ok(k) => {
                        let data = &buf[..k];
                        let http10 = http10_finder.find(data).is_some();
                        let ka = http10
                            && data
                                .windows(10)
                                .any(|w| w.eq_ignore_ascii_case(b"keep-alive"));
                        c.close = http10 && !ka;
                        let resp = if http10 && ka { RESP_KA10 } else { RESP };
                        // Count CRLFCRLF, carrying a partial match across reads.
                        let pat = b"\r\n\r\n";
                        let mut m = c.carry;
                        out.clear();
                        for &b in data {
                            m = if b == pat[m] {
                                m + 1
                            } else if b == b'\r' {
                                1
                            } else {
                                0
                            };
                            if m == 4 {
                                out.extend_from_slice(resp);
                                m = 0;
                            }
                        }
                        c.carry = m;
                        if !out.is_empty() {
                            match c.s.write(&out) {
                                Ok(w) if w < out.len() => {
                                    c.out.extend_from_slice(&out[w..]);
                                    ctl(ep, libc::EPOLL_CTL_MOD, fd, libc::EPOLLOUT as u32);
                                }
                                Ok(_) => dead = c.close,
                                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                                    c.out.extend_from_slice(&out);
                                    ctl(ep, libc::EPOLL_CTL_MOD, fd, libc::EPOLLOUT as u32);
                                }
                                Err(_) => dead = true,
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => dead = true,
                }
            } else if ev.events & libc::EPOLLOUT as u32 != 0 {
                match c.s.write(&c.out) {
                    Ok(w) => {
                        c.out.drain(..w);
                        if c.out.is_empty() {
                            ctl(ep, libc::EPOLL_CTL_MOD, fd, libc::EPOLLIN as u32);
                            dead = c.close;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => dead = true,
                }
            } else if ev.events & (libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0 {
                dead = true;
            }
            if dead {
                ctl(ep, libc::EPOLL_CTL_DEL, fd, 0);
                conns.remove(&fd);
            }
        }
    }
}
