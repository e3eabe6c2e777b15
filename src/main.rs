//! The `canned` binary: parse the command line, bind, serve until SIGTERM or SIGINT.

use canned::config::{Command, Config, help};
use canned::server::{Server, raise_fd_limit};
use std::process::ExitCode;

fn main() -> ExitCode {
    // OsStrings: a variable canned does not read may hold anything, and one it reads that is
    // not UTF-8 is an error naming it, never a panic.
    let env: Vec<_> = std::env::vars_os().collect();
    let mut config = match Config::from_args(std::env::args_os().skip(1), &env) {
        Ok(Command::Run(c)) => *c,
        Ok(Command::Help) => {
            print!("{}", help());
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("canned {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("canned: error: {e}");
            return ExitCode::from(2);
        }
    };
    let fds = raise_fd_limit();
    // Each connection needs one fd; keep some for listeners and the poller.
    let reserve = 32 + 2 * config.workers as u64 * config.listen.len() as u64;
    let fit = fds.saturating_sub(reserve).max(1) as usize;
    if config.max_conns > fit {
        eprintln!(
            "canned: warning: --max-conns {} does not fit in the fd limit {fds}; using {fit}",
            config.max_conns
        );
        config.max_conns = fit;
    }
    let quiet = config.quiet;
    let workers = config.workers;
    let server = match Server::bind(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("canned: error: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = server.stop_on_signals() {
        eprintln!("canned: error: cannot install signal handlers: {e}");
        return ExitCode::from(1);
    }
    if !quiet {
        for a in server.addrs() {
            let shown = a.to_string();
            let note = if server.is_ipv4_fallback(a) {
                " (IPv4 only: this host has no IPv6)"
            } else {
                ""
            };
            let plural = if workers == 1 { "" } else { "s" };
            eprintln!("canned listening on {shown}{note} ({workers} worker{plural})");
        }
    }
    // Unix socket files are removed by the server on its way out.
    let summary = server.run();
    match summary {
        Ok(s) => {
            if !quiet {
                eprintln!("{s}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("canned: error: {e}");
            ExitCode::from(1)
        }
    }
}
