//! A worker whose poll fails stops serving; `Server::run` must still return instead of
//! waiting forever for the other workers. Kept in its own test binary: it swaps a file
//! descriptor under a running worker and installs a signal handler for the whole process.

use canned::config::{Command as Cli, Config};
use canned::server::Server;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

extern "C" fn ignore(_: libc::c_int) {}

/// The epoll fd that thread `tid` of this process is blocked on, once it is.
fn blocked_on_epoll(tid: libc::pid_t) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // "NR arg1 arg2 ..." while in a syscall: epoll_wait and epoll_pwait take the epoll fd
        // first.
        let syscall =
            std::fs::read_to_string(format!("/proc/self/task/{tid}/syscall")).unwrap_or_default();
        let fd = syscall
            .split(' ')
            .nth(1)
            .and_then(|a| i32::from_str_radix(a.trim_start_matches("0x"), 16).ok());
        if let Some(fd) = fd {
            let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap_or_default();
            if target.as_os_str() == "anon_inode:[eventpoll]" {
                return fd;
            }
        }
        assert!(Instant::now() < deadline, "worker never blocked in epoll");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_failed_poll_in_the_inline_worker_does_not_hang_run() {
    // SAFETY: installs a handler that does nothing, so that SIGUSR1 only interrupts a syscall.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = ignore as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        assert_eq!(libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut()), 0);
    }
    let args = ["--listen", "127.0.0.1:0", "--quiet", "--workers", "2"];
    let Cli::Run(c) = Config::from_args(args, &[]).unwrap() else {
        panic!("not a run command")
    };
    let server = Server::bind(*c).unwrap();
    let (tid_tx, tid_rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // SAFETY: gettid has no preconditions.
        tid_tx.send(unsafe { libc::gettid() }).unwrap();
        let _ = done_tx.send(server.run().map(|s| s.connections));
    });
    let tid = tid_rx.recv().unwrap();
    let epoll = blocked_on_epoll(tid);
    // Put /dev/null where the inline worker's epoll fd was: its next poll fails (EINVAL), as a
    // poll can fail for real (ENOMEM, a kernel limit).
    let null = std::fs::File::open("/dev/null").unwrap();
    // SAFETY: dup2 onto an fd the poller owns; the poller closes whatever is there when it is
    // dropped, and that is now this duplicate. tgkill targets our own thread.
    unsafe {
        assert!(libc::dup2(null.as_raw_fd(), epoll) >= 0);
        libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, libc::SIGUSR1);
    }
    let returned = done_rx.recv_timeout(Duration::from_secs(30));
    assert!(
        matches!(returned, Ok(Ok(0))),
        "run did not return after its worker's poll failed: {returned:?}"
    );
}
