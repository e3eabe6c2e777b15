//! The `canned` binary: parse the command line, bind, serve until SIGTERM or SIGINT.
#![cfg_attr(canned_small, feature(optimize_attribute))]

use canned::config::{Command, Config, environment, help};
#[cfg(feature = "manual")]
use canned::config::{completions, man_page};
use canned::server::{Server, diagnostic, max_conns_that_fit, raise_fd_limit};
use std::process::ExitCode;

/// `eprintln!` that never waits and never panics ([`diagnostic`]): a stderr nobody reads holds
/// neither start-up nor the exit, and one whose reader has gone does not abort the release
/// build (SIGABRT instead of exit 0 on SIGTERM). A diagnostic that cannot be written is left out.
macro_rules! say {
    ($($arg:tt)*) => {
        diagnostic(format_args!($($arg)*))
    };
}

/// Write `text` to stdout: exit 0, or 1 when it could not be written (a closed pipe, a full
/// disk), as coreutils do, instead of `print!`'s panic. Straight to fd 1: std's buffered stdout
/// (its lock and line writer) is left out of the binary.
fn print(text: &str) -> ExitCode {
    let mut rest = text.as_bytes();
    while !rest.is_empty() {
        // SAFETY: the pointer and length describe `rest`, initialized bytes that outlive the
        // call; fd 1 is only written to.
        let n = unsafe { libc::write(1, rest.as_ptr().cast(), rest.len()) };
        if n > 0 {
            rest = &rest[n as usize..];
            continue;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) if n < 0 => {}
            Some(libc::EAGAIN) if n < 0 => {
                // Another holder of the open file made it non-blocking: wait for room.
                let mut fd = libc::pollfd {
                    fd: 1,
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd, for the duration of the call.
                unsafe { libc::poll(&mut fd, 1, -1) };
            }
            _ => return ExitCode::from(1),
        }
    }
    ExitCode::SUCCESS
}

#[cfg_attr(canned_small, optimize(size))]
fn main() -> ExitCode {
    // OsStrings: a variable canned reads that is not UTF-8 is an error naming it, never a panic.
    let env = environment();
    let mut config = match Config::from_args(std::env::args_os().skip(1), &env) {
        Ok(Command::Run(c)) => *c,
        Ok(Command::Help) => return print(&help()),
        // `canned VERSION`, and the commit when built from a git checkout (build.rs).
        Ok(Command::Version) => return print(concat!(env!("CANNED_VERSION_LINE"), "\n")),
        #[cfg(feature = "mutate")]
        Ok(Command::MutateList) => return print(&canned::mutate::id_lines().concat()),
        #[cfg(feature = "tls")]
        Ok(Command::TlsList) => return print(&canned::transport::tls::case_lines()),
        #[cfg(feature = "manual")]
        Ok(Command::Man) => return print(&man_page()),
        #[cfg(feature = "manual")]
        Ok(Command::Completions(shell)) => return print(&completions(shell)),
        Err(e) => {
            say!("canned: error: {e}");
            return ExitCode::from(2);
        }
    };
    let fds = raise_fd_limit();
    // One budget (`max_conns_that_fit`): the workers' fds first, then one per connection. The
    // workers alone not fitting is the one error; a `--max-conns` that does not fit beside
    // them is lowered with one warning.
    let fit = match max_conns_that_fit(&config) {
        Ok(fit) => fit,
        Err(e) => {
            say!("canned: error: {e}");
            return ExitCode::from(1);
        }
    };
    if config.max_conns > fit {
        say!(
            "canned: warning: --max-conns {} does not fit in the fd limit {fds} beside the \
             workers' descriptors; using {fit}",
            config.max_conns
        );
        config.max_conns = fit;
    }
    let quiet = config.quiet;
    let workers = config.workers;
    let server = match Server::bind(config) {
        Ok(s) => s,
        Err(e) => {
            say!("canned: error: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = server.stop_on_signals() {
        say!("canned: error: cannot install signal handlers: {e}");
        return ExitCode::from(1);
    }
    if !quiet {
        for a in server.addrs() {
            let note = if server.is_ipv4_fallback(a) {
                " (IPv4 only: this host has no IPv6)"
            } else {
                ""
            };
            let plural = if workers == 1 { "" } else { "s" };
            say!("canned listening on {a}{note} ({workers} worker{plural})");
        }
        if let Some(a) = server.admin_addr() {
            say!("canned admin API on {a} (unauthenticated: for test networks only)");
        }
    }
    // Unix socket files are removed by the server on its way out.
    let summary = server.run();
    match summary {
        Ok(s) => {
            if !quiet {
                say!("{s}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("canned: error: {e}");
            ExitCode::from(1)
        }
    }
}

/// std names each worker thread through `pthread_setname_np` on the thread itself. musl's
/// implementation also handles other threads, for which it formats a /proc path with
/// `snprintf`, and that links printf with its floating-point formatting (8 KB) into the static
/// binary. Defined here, this one is linked instead of musl's: it names the calling thread
/// only, as musl's does (PR_SET_NAME; a name over 15 bytes is ERANGE), and refuses any other.
#[cfg(target_env = "musl")]
#[unsafe(no_mangle)]
unsafe extern "C" fn pthread_setname_np(
    thread: libc::pthread_t,
    name: *const libc::c_char,
) -> libc::c_int {
    // SAFETY: pthread_self has no preconditions; `name` is NUL-terminated (this unsafe fn's
    // contract), and PR_SET_NAME reads at most 16 bytes of it.
    unsafe {
        if thread != libc::pthread_self() {
            return libc::ENOTSUP;
        }
        if libc::strnlen(name, 16) > 15 {
            return libc::ERANGE;
        }
        if libc::prctl(libc::PR_SET_NAME, name) != 0 {
            return *libc::__errno_location();
        }
    }
    0
}
