//! Signals a supervisor or a terminal sends: SIGHUP and SIGQUIT drain as SIGTERM does, a second
//! stop signal ends the drain at once, SIGUSR1 and SIGUSR2 are ignored.

use crate::common;

use common::*;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kill(child: &Reap, sig: libc::c_int) {
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// Wait for the child to exit, at most `within`: its status.
fn exit_within(child: &mut Reap, within: Duration, what: &str) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            t.elapsed() < within,
            "{what}: still running after {within:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// SIGHUP (the terminal went away) and SIGQUIT drain like SIGTERM: exit 0 with the summary,
/// the unix socket file removed. Before, each killed the process at once, leaving the file.
#[test]
fn sighup_and_sigquit_drain_and_exit_0() {
    for (sig, name) in [(libc::SIGHUP, "SIGHUP"), (libc::SIGQUIT, "SIGQUIT")] {
        let path =
            std::env::temp_dir().join(format!("canned-signal-{}-{name}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut cmd = Command::new(bin());
        cmd.arg("--listen")
            .arg(format!("unix:{}", path.display()))
            .args(["--workers", "2"])
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let (mut child, mut stderr, _line) = spawn_listening(&mut cmd);
        let mut s = std::os::unix::net::UnixStream::connect(&path).unwrap();
        s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        assert!(reply.starts_with(b"HTTP/1.1 200 OK\r\n"));
        kill(&child, sig);
        let status = exit_within(&mut child, time_bound(Duration::from_secs(10)), name);
        let mut rest = String::new();
        stderr.read_to_string(&mut rest).unwrap();
        assert_eq!(status.code(), Some(0), "{name}: {status:?} {rest}");
        assert!(
            rest.starts_with("canned: 1 connection, 1 request"),
            "{name}: {rest}"
        );
        assert!(!path.exists(), "{name}: the socket file was left behind");
    }
}

/// A second SIGTERM or SIGINT ends the drain at once: a response held for 30 s no longer
/// holds the exit for the whole `--shutdown-timeout`. Exit 0, as when the timeout ends a drain.
#[test]
fn a_second_stop_signal_ends_the_drain_at_once() {
    for (second, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT")] {
        for workers in ["1", "2"] {
            let mut p = Proc::start(&[
                "--workers",
                workers,
                "--delay",
                "30s",
                "--shutdown-timeout",
                "60s",
            ]);
            let mut s = connect(p.addr);
            s.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
            // Read, and so held by the delay.
            wait_unread_by_server(&s, 0);
            kill(&p.child, libc::SIGTERM);
            // Draining: the held response keeps it running.
            std::thread::sleep(Duration::from_millis(500));
            assert!(
                p.child.try_wait().unwrap().is_none(),
                "exited during the drain"
            );
            let t = Instant::now();
            kill(&p.child, second);
            let status = exit_within(
                &mut p.child,
                time_bound(Duration::from_secs(5)),
                "after the second signal",
            );
            eprintln!(
                "{name}, {workers} workers: exit {:?} after {:?}",
                status.code(),
                t.elapsed()
            );
            assert_eq!(status.code(), Some(0), "{name}");
            let mut rest = String::new();
            p.stderr.read_to_string(&mut rest).unwrap();
            assert!(rest.starts_with("canned: 1 connection"), "{rest}");
        }
    }
}

/// SIGUSR1 and SIGUSR2 are ignored: the server keeps serving (before, either one killed it).
#[test]
fn sigusr1_and_sigusr2_are_ignored() {
    let p = Proc::start(&["--workers", "2"]);
    for sig in [libc::SIGUSR1, libc::SIGUSR2] {
        kill(&p.child, sig);
    }
    std::thread::sleep(Duration::from_millis(200));
    let r = parse_responses(&exchange(p.addr, b"GET / HTTP/1.0\r\n\r\n"), &[]);
    assert_eq!(r[0].status, 200);
    let (code, rest) = p.stop();
    assert_eq!(code, 0, "{rest}");
}

/// With the access log stalled on a stdout nobody reads, a second signal still ends the wait
/// at once: the log's queue is not written out for the rest of `--shutdown-timeout`.
#[cfg(feature = "access-log")]
#[test]
fn a_second_stop_signal_ends_the_wait_for_a_stalled_access_log() {
    for workers in ["1", "2"] {
        // Proc pipes stdout and never reads it: the log fills the pipe.
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--access-log",
            "--shutdown-timeout",
            "60s",
        ]);
        let mut s = connect(p.addr);
        s.write_all(&b"GET / HTTP/1.1\r\nHost: t\r\n\r\n".repeat(10_000))
            .unwrap();
        read_responses(&mut s, 10_000);
        drop(s);
        kill(&p.child, libc::SIGTERM);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            p.child.try_wait().unwrap().is_none(),
            "exited with the log unwritten"
        );
        let t = Instant::now();
        kill(&p.child, libc::SIGTERM);
        let status = exit_within(
            &mut p.child,
            time_bound(Duration::from_secs(5)),
            "after the second signal, stdout stalled",
        );
        eprintln!(
            "{workers} workers: exit {:?} {:?} after the second signal",
            status.code(),
            t.elapsed()
        );
        assert_eq!(status.code(), Some(0));
        let mut rest = String::new();
        p.stderr.read_to_string(&mut rest).unwrap();
        assert!(rest.contains("log_lines_dropped"), "{rest}");
    }
}
