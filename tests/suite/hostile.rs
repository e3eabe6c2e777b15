//! A hostile environment around the `canned` binary: a stdout that nobody reads, a stderr whose
//! reader has gone or that nobody reads, a closed stdout for `--help`. Neither traffic, nor shutdown, nor the exit
//! status may depend on them. Figures are printed with `--nocapture`.

use crate::common;
use common::*;
#[cfg(feature = "access-log")]
use std::io::Read;
use std::io::{BufRead, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// A pipe: (read end, write end).
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two new fds into the array, which are then owned here.
    unsafe {
        assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC), 0);
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    }
}

fn sigterm(pid: u32) {
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(pid as i32, libc::SIGTERM);
    }
}

/// Wait for the child to exit, at most `limit`: its status and how long it took.
fn exit_within(child: &mut std::process::Child, limit: Duration) -> Option<(ExitStatus, Duration)> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return Some((status, t.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// Pipeline `n` requests in rounds of `round` on one connection and read their responses,
/// giving up after `limit`: how many were answered.
#[cfg(feature = "access-log")]
fn answered(addr: SocketAddr, n: usize, round: usize, limit: Duration) -> usize {
    let mut s = connect(addr);
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let t = Instant::now();
    let mut done = 0;
    let mut buf = vec![0u8; 1 << 16];
    let mut data = Vec::new();
    while done < n && t.elapsed() < limit {
        let k = round.min(n - done);
        if s.write_all(&GET.repeat(k)).is_err() {
            return done;
        }
        let mut got = 0;
        while got < k && t.elapsed() < limit {
            match s.read_some(&mut buf) {
                Ok(0) => return done + got,
                Ok(m) => data.extend_from_slice(&buf[..m]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return done + got,
            }
            // Responses end with the default body.
            let ends = data.windows(12).filter(|w| w == b"Hello World\n").count();
            if ends > 0 {
                got += ends;
                let last = data
                    .windows(12)
                    .rposition(|w| w == b"Hello World\n")
                    .unwrap();
                data.drain(..last + 12);
            }
        }
        done += got;
    }
    done
}

/// A stdout that nobody reads (a paused log shipper, a full container log pipe): with
/// `--access-log`, traffic goes on well past what the pipe holds, fresh clients are answered,
/// and SIGTERM ends the process with status 0 within `--shutdown-timeout`; the lines that
/// could not be written are counted in the exit summary, and none goes uncounted.
#[cfg(feature = "access-log")]
#[test]
fn a_stdout_nobody_reads_stops_neither_traffic_nor_shutdown() {
    // 50 bytes per line: 4 MiB of lines, far more than the 64 KiB a pipe holds.
    let (clients, each) = (8, 10_000);
    for workers in ["1", "2"] {
        // stdout piped and never read, but kept open: writes to it block once it is full.
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--access-log",
            "--shutdown-timeout",
            "1s",
        ]);
        let addr = p.addr;
        let t = Instant::now();
        let load: Vec<_> = (0..clients)
            .map(|_| {
                std::thread::spawn(move || {
                    answered(addr, each, 500, time_bound(Duration::from_secs(30)))
                })
            })
            .collect();
        let done: usize = load.into_iter().map(|h| h.join().unwrap()).sum();
        let took = t.elapsed();
        let fresh = (0..4)
            .map(|_| answered(addr, 1, 1, time_bound(Duration::from_secs(5))))
            .sum::<usize>();
        sigterm(p.child.id());
        let limit = Duration::from_secs(1) + time_bound(Duration::from_secs(4));
        let exit = exit_within(&mut p.child, limit);
        let mut summary = String::new();
        if exit.is_some() {
            p.stderr.read_to_string(&mut summary).unwrap();
        }
        // What reached the pipe: its first 64 KiB or so.
        let mut written = Vec::new();
        if let (Some(mut out), Some(_)) = (p.child.stdout.take(), exit) {
            out.read_to_end(&mut written).unwrap();
        }
        let lines_written = written.iter().filter(|&&c| c == b'\n').count() as u64;
        let dropped: u64 = summary
            .split("log_lines_dropped ")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        eprintln!(
            "stdout unread, {workers} worker(s): {done} of {} requests answered in {took:.1?}, \
             {fresh} of 4 fresh clients answered; exit {:?} after SIGTERM; {lines_written} \
             lines in the pipe, {dropped} counted as dropped; {}",
            clients * each,
            exit.map(|(s, t)| (s.code(), t)),
            summary.trim()
        );
        assert_eq!(done, clients * each, "{workers} workers");
        assert_eq!(fresh, 4, "{workers} workers");
        let (status, _) = exit.expect("still running after SIGTERM and --shutdown-timeout");
        assert_eq!(status.code(), Some(0), "{status}");
        // Every line is in the pipe or counted; a line may be both (the write in flight at
        // the deadline is counted, though part of it is in the pipe).
        let all = (done + fresh) as u64;
        assert!(dropped > 0, "{summary}");
        assert!(
            dropped <= all && lines_written + dropped >= all,
            "{lines_written} written and {dropped} dropped of {all}"
        );
    }
}

/// A free loopback port (bound and released: nothing else on this host takes ports at random
/// meanwhile in the test environment).
fn free_port() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// Connect, retrying while the server starts.
fn connect_when_up(addr: SocketAddr) -> TcpStream {
    let t = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => {
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                return s;
            }
            Err(e) => {
                assert!(
                    t.elapsed() < time_bound(Duration::from_secs(10)),
                    "never listening: {e}"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// What stderr is for [`diagnostics_that_cannot_be_written_change_nothing`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stderr {
    /// A pipe whose reader has gone: every write fails with EPIPE.
    Closed,
    /// A pipe whose reader is alive but never reads, full before canned starts.
    FullAtStart,
    /// The same pipe read until the listening line, then full.
    FullLater,
}

/// Fill the pipe of `w` until it takes no more. Non-blocking only while filling: the flag is
/// the open file description's, which the child shares.
fn fill(w: &OwnedFd) {
    use std::os::fd::AsRawFd;
    let fd = w.as_raw_fd();
    // SAFETY: fcntl and write on a descriptor owned here; the buffer outlives each call.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        assert_eq!(libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK), 0);
        let junk = [b'x'; 4096];
        while libc::write(fd, junk.as_ptr().cast(), junk.len()) > 0 {}
        // One byte at a time for the last partial page.
        while libc::write(fd, junk.as_ptr().cast(), 1) > 0 {}
        assert_eq!(libc::fcntl(fd, libc::F_SETFL, flags), 0);
    }
}

/// stderr that takes nothing: the listening line, the out-of-fds message and the exit summary
/// cannot be written, and canned serves and exits 0 on SIGTERM all the same. With a closed
/// stderr, `eprintln!` panicked and the release build aborted (SIGABRT); with a full one, each
/// of them waited for a reader that never reads: no request answered, no exit on SIGTERM.
fn diagnostics_that_cannot_be_written_change_nothing(stderr: Stderr) {
    // One of these at a time: each runs a crowd of 40 clients against a child held to 64 fds.
    // Three at once (four test threads) closed the client the test keeps, unanswered, in
    // about half the runs; one at a time, never in the runs since. Not yet explained.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for workers in ["1", "2"] {
        let addr = free_port();
        let (r, w) = pipe();
        let mut r = Some(std::fs::File::from(r));
        match stderr {
            Stderr::Closed => r = None,
            Stderr::FullAtStart => fill(&w),
            Stderr::FullLater => {}
        }
        let mut cmd = Command::new(bin());
        cmd.args(["--listen", &addr.to_string(), "--workers", workers])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(w.try_clone().unwrap()));
        limit_fds(&mut cmd, 64, 40);
        let mut child = Reap(cmd.spawn().unwrap());
        if stderr == Stderr::FullLater {
            // The warning that --max-conns was lowered, then the listening line.
            let mut lines = std::io::BufReader::new(r.as_ref().unwrap()).lines();
            let listening = lines.find(|l| l.as_ref().unwrap().starts_with("canned listening on "));
            assert!(listening.is_some(), "no listening line");
            fill(&w);
        }
        drop(w);
        let mut first = connect_when_up(addr);
        first.write_all(GET).unwrap();
        assert_eq!(
            read_responses(&mut first, 1)[0].status,
            200,
            "{stderr:?}, {workers} workers"
        );
        // More clients than fds: accept fails with EMFILE, and says so on stderr.
        let mut crowd: Vec<TcpStream> = (0..40).map(|_| connect(addr)).collect();
        for s in &mut crowd {
            s.write_all(GET).unwrap();
        }
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().unwrap().is_none(),
            "{stderr:?}, {workers} workers: died"
        );
        drop(crowd);
        first.write_all(GET).unwrap();
        assert_eq!(
            read_responses(&mut first, 1)[0].status,
            200,
            "{stderr:?}, {workers} workers: not answered after the out-of-fds message"
        );
        drop(first);
        sigterm(child.id());
        let (status, took) = exit_within(&mut child, time_bound(Duration::from_secs(10)))
            .unwrap_or_else(|| {
                panic!("{stderr:?}, {workers} workers: still running after SIGTERM")
            });
        eprintln!("stderr {stderr:?}, {workers} worker(s): {status} after {took:.1?}");
        assert_eq!(
            status.code(),
            Some(0),
            "{stderr:?}, {workers} workers: {status}"
        );
        drop(r);
    }
}

#[test]
fn a_closed_stderr_changes_nothing() {
    diagnostics_that_cannot_be_written_change_nothing(Stderr::Closed);
}

#[test]
fn a_stderr_full_from_the_start_changes_nothing() {
    diagnostics_that_cannot_be_written_change_nothing(Stderr::FullAtStart);
}

#[test]
fn a_stderr_that_fills_up_later_changes_nothing() {
    diagnostics_that_cannot_be_written_change_nothing(Stderr::FullLater);
}

/// Started with stdin, stdout and stderr closed (a daemon's careless parent, `2>&-`): the
/// first sockets canned opens would take fds 0 to 2, and a diagnostic meant for stderr would go
/// to a listener or a client. The Rust runtime opens /dev/null on each closed one before `main`
/// (a small build without it, `no_main`, would lose that): this holds it, so that no socket of
/// canned's takes the three numbers and every client gets only its responses.
#[test]
fn closed_standard_fds_are_held_so_no_socket_takes_them() {
    use std::os::unix::process::CommandExt;
    for workers in ["1", "2"] {
        let addr = free_port();
        let mut cmd = Command::new(bin());
        cmd.args(["--listen", &addr.to_string(), "--workers", workers]);
        // SAFETY: close(2) only, async-signal-safe, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                for fd in 0..3 {
                    libc::close(fd);
                }
                Ok(())
            });
        }
        let mut child = Reap(cmd.spawn().unwrap());
        let mut first = connect_when_up(addr);
        first.write_all(GET).unwrap();
        assert_eq!(read_responses(&mut first, 1)[0].status, 200);
        for fd in 0..3 {
            let target = std::fs::read_link(format!("/proc/{}/fd/{fd}", child.id()));
            assert_eq!(
                target.ok().as_deref(),
                Some(std::path::Path::new("/dev/null")),
                "{workers} workers: fd {fd}"
            );
        }
        drop(first);
        sigterm(child.id());
        let (status, _) = exit_within(&mut child, time_bound(Duration::from_secs(10)))
            .expect("still running after SIGTERM");
        assert_eq!(status.code(), Some(0), "{workers} workers: {status}");
    }
}

/// `--help` and `--version` to a closed stdout: a clean exit 1 (as coreutils do), not a panic.
#[test]
fn help_and_version_to_a_closed_stdout_exit_1() {
    for arg in ["--help", "--version"] {
        let (r, w) = pipe();
        drop(r);
        let status = Command::new(bin())
            .arg(arg)
            .stdin(Stdio::null())
            .stdout(Stdio::from(w))
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1), "{arg}: {status}");
        // Written, it exits 0.
        let out = Command::new(bin()).arg(arg).output().unwrap();
        assert!(out.status.success() && !out.stdout.is_empty(), "{arg}");
    }
}
