//! systemd socket activation (sd_listen_fds(3)): whether `LISTEN_PID` names this process, and
//! whether this process's own environment passes it the sockets a configuration names. Read
//! when the command line asks for the sockets and again when the server takes them.

use std::os::fd::RawFd;

/// The first fd systemd passes (`SD_LISTEN_FDS_START`); the others follow it.
pub(super) const FIRST_INHERITED_FD: RawFd = 3;

/// Whether a `LISTEN_PID` value names this process: the variables were set for it, not for
/// a parent (a shell) that passed its environment on.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn names_this_process(listen_pid: &str) -> bool {
    listen_pid.trim() == std::process::id().to_string()
}

/// Whether this process's own environment passes it exactly the sockets `fds`: `LISTEN_PID`
/// names it, `LISTEN_FDS` counts them, they are fds 3 and up, and each is an open socket. The
/// environment is the only evidence that nothing else in the process owns these fds, so the
/// server checks it again right before it takes them: a caller's environment slice or a
/// hand-made [`super::Listen::Inherited`] is not enough. `Err` says what is wrong.
#[cfg_attr(canned_small, optimize(size))]
pub fn check_passed_to_this_process(fds: &[RawFd]) -> Result<(), String> {
    if !(1..=64).contains(&fds.len()) {
        return Err("LISTEN_FDS must be from 1 to 64".into());
    }
    let var = |name| std::env::var_os(name).and_then(|v| v.into_string().ok());
    let passed = match (var("LISTEN_FDS"), var("LISTEN_PID")) {
        (Some(n), Some(pid)) if names_this_process(&pid) => n.trim().parse::<usize>().ok(),
        _ => None,
    };
    let first = FIRST_INHERITED_FD;
    if passed != Some(fds.len()) || !fds.iter().copied().eq(first..first + fds.len() as RawFd) {
        return Err("the process environment does not pass these sockets to this process".into());
    }
    for &fd in fds {
        // SAFETY: fstat writes into a valid, zeroed struct; an fd that is not open gives EBADF.
        let is_socket = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFSOCK
        };
        if !is_socket {
            return Err(format!("fd {fd} is not an open socket"));
        }
    }
    Ok(())
}
