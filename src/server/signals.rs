//! SIGTERM and SIGINT: the handler writes one byte to the server's wake-up socket, which the
//! workers poll.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};

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

/// Install the handler for SIGTERM and SIGINT, writing to `wake_fd`; ignore SIGPIPE.
pub(super) fn install(wake_fd: RawFd) -> io::Result<()> {
    SIGNAL_FD.store(wake_fd, Ordering::Relaxed);
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
