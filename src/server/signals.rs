//! SIGTERM, SIGINT, SIGHUP and SIGQUIT: the first writes one byte to the server's wake-up
//! socket, which the workers poll, and they drain; any later one writes to the stop-now socket,
//! which they poll too, and they stop at once. SIGUSR1 and SIGUSR2 are ignored, so that a
//! stray `kill -USR1` (a log rotator's habit) does not end the process with no drain.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

/// The write end of the wake-up pipe the signal handler writes to (-1: none).
static SIGNAL_FD: AtomicI32 = AtomicI32::new(-1);
/// The write end of the stop-now pipe, for every signal after the first (-1: none).
static FORCE_FD: AtomicI32 = AtomicI32::new(-1);
/// Stop signals received so far.
static RECEIVED: AtomicUsize = AtomicUsize::new(0);

/// A second stop signal reached the server (its stop-now fd was written).
static FORCED: AtomicBool = AtomicBool::new(false);

/// Whether a second stop signal asked the server to stop at once.
pub(super) fn forced() -> bool {
    FORCED.load(Ordering::SeqCst)
}

/// The signals that stop the server: SIGTERM (supervisors, `docker stop`, Kubernetes), SIGINT
/// (Ctrl-C), SIGHUP (the terminal went away) and SIGQUIT. Each drains as SIGTERM does.
pub(super) const STOP_SIGNALS: [libc::c_int; 4] =
    [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];
/// Handlers running now: `uninstall` waits for them before the fd may close.
static IN_HANDLER: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    // write(2) may set errno; the interrupted code must find it as it left it.
    let saved = errno::get();
    IN_HANDLER.fetch_add(1, Ordering::SeqCst);
    let first = RECEIVED.fetch_add(1, Ordering::SeqCst) == 0;
    let fd = if first { &SIGNAL_FD } else { &FORCE_FD }.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; the buffer is a valid static byte, and
        // `uninstall` keeps `fd` open while IN_HANDLER counts this call.
        let wrote = unsafe { libc::write(fd, b"s".as_ptr().cast(), 1) };
        if !first && wrote == 1 {
            FORCED.store(true, Ordering::SeqCst);
        }
    }
    IN_HANDLER.fetch_sub(1, Ordering::SeqCst);
    errno::set(saved);
}

/// Install the handler for [`STOP_SIGNALS`], writing to `wake_fd` for the first one received and
/// to `force_fd` for any later one; ignore SIGPIPE, SIGUSR1 and SIGUSR2.
pub(super) fn install(wake_fd: RawFd, force_fd: RawFd) -> io::Result<()> {
    FORCE_FD.store(force_fd, Ordering::SeqCst);
    SIGNAL_FD.store(wake_fd, Ordering::SeqCst);
    for sig in STOP_SIGNALS {
        // SAFETY: a zeroed sigaction is valid; the handler only calls write(2) and touches
        // atomics and errno.
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
    // SAFETY: ignoring a signal has no preconditions. SIGPIPE: the writes to a client
    // (socket2's `send` passes flags 0, no MSG_NOSIGNAL) and the access log's to fd 1 would
    // raise it when the peer has gone; ignored, each is an EPIPE error instead. Rust's runtime
    // already ignores SIGPIPE before `main`; this holds for a host that restored the default.
    unsafe {
        for sig in [libc::SIGPIPE, libc::SIGUSR1, libc::SIGUSR2] {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
    Ok(())
}

/// Stop the handler from writing to `wake_fd`, before it closes. A handler that already
/// loaded the fd finishes its write first. The handler stays installed: a later signal
/// finds no fd and does nothing (the process no longer has a server to stop).
pub(super) fn uninstall(wake_fd: RawFd) {
    if SIGNAL_FD
        .compare_exchange(wake_fd, -1, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
    {
        FORCE_FD.store(-1, Ordering::SeqCst);
        // A handler on this thread would have finished before we got here; one on another
        // thread is a write(2) away from done.
        while IN_HANDLER.load(Ordering::SeqCst) > 0 {
            std::hint::spin_loop();
        }
    }
}

/// errno, saved and restored around the handler.
mod errno {
    #[cfg(any(target_os = "android", target_os = "netbsd", target_os = "openbsd"))]
    use libc::__errno as location;
    #[cfg(any(target_os = "linux", target_os = "emscripten", target_os = "redox"))]
    use libc::__errno_location as location;
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "dragonfly"
    ))]
    use libc::__error as location;

    pub(super) fn get() -> libc::c_int {
        // SAFETY: the thread's errno location is always valid for this thread.
        unsafe { *location() }
    }

    pub(super) fn set(v: libc::c_int) {
        // SAFETY: as in `get`.
        unsafe { *location() = v }
    }
}

/// SIGNAL_FD is process-wide: the tests that change it take turns.
#[cfg(test)]
pub(super) static TEST_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The fds the handler writes to now, first signal and later ones (-1: none).
#[cfg(test)]
pub(super) fn handler_fds() -> (RawFd, RawFd) {
    (
        SIGNAL_FD.load(Ordering::SeqCst),
        FORCE_FD.load(Ordering::SeqCst),
    )
}

/// A signal delivered to the handler on this thread.
#[cfg(test)]
pub(super) fn deliver(sig: libc::c_int) {
    on_signal(sig);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handler_leaves_errno_as_it_found_it() {
        let _turn = TEST_TURN.lock().unwrap_or_else(|e| e.into_inner());
        // A write that fails is the case where write(2) sets errno: an fd number far above
        // any fd limit gives EBADF (a closed fd could be reused by a test running alongside).
        // Both fds: the first signal writes to one, later ones to the other.
        let before = SIGNAL_FD.swap(i32::MAX, Ordering::SeqCst);
        let force_before = FORCE_FD.swap(i32::MAX, Ordering::SeqCst);
        for value in [0, libc::EINTR, libc::EAGAIN] {
            errno::set(value);
            on_signal(libc::SIGTERM);
            assert_eq!(errno::get(), value);
        }
        SIGNAL_FD.store(before, Ordering::SeqCst);
        FORCE_FD.store(force_before, Ordering::SeqCst);
    }
}
