//! `wait` arms its timer only when the deadline changes and clears its notifier only when it
//! fired. These check that timeouts, changed deadlines and notifications behave as before, and
//! (on Linux, with strace) that a repeated wait makes no syscall besides the wait itself.
//!
//! Lower bounds on elapsed time are exact (a wait never returns before its deadline); upper
//! bounds are generous (seconds against deadlines of milliseconds), so that a loaded machine or
//! an emulator does not fail them. A watchdog notifies the poller after `WATCHDOG` so that a
//! wait that would block forever fails instead of hanging.
#![cfg(unix)]

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use polling::{Event, Events, PollMode, Poller};

const WATCHDOG: Duration = Duration::from_secs(40);
/// "Returns at once", allowing for a loaded machine.
const PROMPTLY: Duration = Duration::from_secs(10);
/// A deadline no test waits for.
const FAR: Duration = Duration::from_secs(120);

/// Notifies the poller once `WATCHDOG` has passed, unless dropped first.
struct Watchdog(Option<mpsc::Sender<()>>);

impl Watchdog {
    fn new(poller: &Arc<Poller>) -> Watchdog {
        let (stop, stopped) = mpsc::channel::<()>();
        let poller = poller.clone();
        thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(WATCHDOG) {
                poller.notify().unwrap();
            }
        });
        Watchdog(Some(stop))
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.0.take());
    }
}

/// A socket that stays readable (level-triggered) until `drain`, so that waits return at once.
struct Ready {
    read: UnixStream,
    _write: UnixStream,
}

const READY_KEY: usize = 7;

impl Ready {
    fn add(poller: &Poller) -> io::Result<Ready> {
        let (read, mut write) = UnixStream::pair()?;
        write.write_all(&[1])?;
        read.set_nonblocking(true)?;
        unsafe { poller.add_with_mode(&read, Event::readable(READY_KEY), PollMode::Level)? };
        Ok(Ready {
            read,
            _write: write,
        })
    }

    fn drain(&mut self) -> io::Result<()> {
        let mut byte = [0u8; 1];
        self.read.read_exact(&mut byte)
    }
}

fn new_poller() -> io::Result<(Arc<Poller>, Watchdog)> {
    let poller = Arc::new(Poller::new()?);
    let watchdog = Watchdog::new(&poller);
    Ok((poller, watchdog))
}

#[test]
fn deadline_times_out_then_returns_at_once_until_changed() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();

    let deadline = Instant::now() + Duration::from_millis(100);
    assert_eq!(poller.wait_deadline(&mut events, deadline)?, 0);
    assert!(Instant::now() >= deadline, "returned before the deadline");

    // The same deadline, now past: no blocking.
    for _ in 0..3 {
        let start = Instant::now();
        assert_eq!(poller.wait_deadline(&mut events, deadline)?, 0);
        assert!(start.elapsed() < PROMPTLY, "a past deadline blocked");
    }

    // A new deadline after the timer fired: armed again.
    let later = Instant::now() + Duration::from_millis(100);
    assert_eq!(poller.wait_deadline(&mut events, later)?, 0);
    assert!(Instant::now() >= later, "returned before the new deadline");
    Ok(())
}

#[test]
fn timeout_still_times_out_every_time() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();
    for timeout_ms in [50, 50, 1, 120, 0, 30] {
        let timeout = Duration::from_millis(timeout_ms);
        let start = Instant::now();
        assert_eq!(poller.wait(&mut events, Some(timeout))?, 0);
        let elapsed = start.elapsed();
        assert!(elapsed >= timeout, "{elapsed:?} < {timeout:?}");
        assert!(elapsed < PROMPTLY, "{timeout:?} took {elapsed:?}");
    }
    Ok(())
}

#[test]
fn changed_deadline_is_honoured() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();

    // (case, deadline armed by a wait that returns at once, deadline then waited for)
    let cases = [
        ("earlier than armed", FAR, Duration::from_millis(100)),
        (
            "later than armed",
            Duration::from_millis(30),
            Duration::from_millis(300),
        ),
    ];
    for (name, armed, next) in cases {
        let ready = Ready::add(&poller)?;
        events.clear();
        assert_eq!(
            poller.wait_deadline(&mut events, Instant::now() + armed)?,
            1
        );
        drop(ready);

        events.clear();
        let start = Instant::now();
        let deadline = start + next;
        assert_eq!(poller.wait_deadline(&mut events, deadline)?, 0, "{name}");
        assert!(
            Instant::now() >= deadline,
            "{name}: returned before the deadline"
        );
        assert!(
            start.elapsed() < PROMPTLY,
            "{name}: took {:?}",
            start.elapsed()
        );
    }
    Ok(())
}

#[test]
fn no_deadline_after_a_deadline_disarms_the_timer() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();
    let mut ready = Ready::add(&poller)?;

    // Arm for 30 ms, return at once through `ready`.
    assert_eq!(
        poller.wait_deadline(&mut events, Instant::now() + Duration::from_millis(30))?,
        1
    );
    ready.drain()?;

    // No deadline: only the notification 400 ms later may end the wait, not the old timer.
    let notifier = poller.clone();
    let start = Instant::now();
    let notify_at = thread::spawn(move || {
        thread::sleep(Duration::from_millis(400));
        notifier.notify().unwrap();
    });
    events.clear();
    assert_eq!(poller.wait(&mut events, None)?, 0);
    let elapsed = start.elapsed();
    notify_at.join().unwrap();
    assert!(
        elapsed >= Duration::from_millis(400),
        "woken after {elapsed:?} by a timer that should have been disarmed"
    );
    Ok(())
}

#[test]
fn notify_still_wakes() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();

    // (case, deadline given to the wait: none, far, or already past)
    let deadlines: [(&str, Option<Duration>); 3] = [
        ("no deadline", None),
        ("far deadline", Some(FAR)),
        ("past deadline", Some(Duration::ZERO)),
    ];
    for (name, after) in deadlines {
        let deadline = after.map(|after| Instant::now() + after);
        let wait = |events: &mut Events| match deadline {
            None => poller.wait(events, None),
            Some(deadline) => poller.wait_deadline(events, deadline),
        };
        for round in 0..20 {
            // Notified before the wait: returns at once.
            poller.notify()?;
            let start = Instant::now();
            assert_eq!(wait(&mut events)?, 0, "{name}");
            assert!(start.elapsed() < PROMPTLY, "{name}, round {round}");

            // Notified during the wait (a wait for a past deadline does not block).
            if after == Some(Duration::ZERO) {
                continue;
            }
            let notifier = poller.clone();
            let start = Instant::now();
            let notify = thread::spawn(move || {
                thread::sleep(Duration::from_millis(5));
                notifier.notify().unwrap();
            });
            assert_eq!(wait(&mut events)?, 0, "{name}");
            notify.join().unwrap();
            assert!(start.elapsed() < PROMPTLY, "{name}, round {round}");
        }

        // Every notification was consumed: a short timeout now times out in full.
        let timeout = Duration::from_millis(50);
        let start = Instant::now();
        assert_eq!(poller.wait(&mut events, Some(timeout))?, 0);
        assert!(
            start.elapsed() >= timeout,
            "{name}: a stale notification woke the wait"
        );
    }
    Ok(())
}

#[test]
fn timer_and_notification_are_each_consumed() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();

    // (timer fired, notified) before a wait for the deadline the timer is armed for
    let cases = [(true, false), (false, true), (true, true)];
    for (timer_fired, notified) in cases {
        let name = format!("timer fired: {timer_fired}, notified: {notified}");
        let armed = if timer_fired {
            Duration::from_millis(20)
        } else {
            FAR
        };
        let deadline = Instant::now() + armed;
        let ready = Ready::add(&poller)?;
        events.clear();
        assert_eq!(poller.wait_deadline(&mut events, deadline)?, 1, "{name}");
        drop(ready);
        if timer_fired {
            thread::sleep(Duration::from_millis(60));
        }
        if notified {
            poller.notify()?;
        }

        let start = Instant::now();
        events.clear();
        assert_eq!(poller.wait_deadline(&mut events, deadline)?, 0, "{name}");
        assert!(
            start.elapsed() < PROMPTLY,
            "{name}: took {:?}",
            start.elapsed()
        );

        // Nothing stale is left to cut a short timeout short.
        let timeout = Duration::from_millis(50);
        let start = Instant::now();
        assert_eq!(poller.wait(&mut events, Some(timeout))?, 0);
        assert!(
            start.elapsed() >= timeout,
            "{name}: a stale event woke the wait"
        );
    }
    Ok(())
}

/// The scenarios `syscalls_per_wait` counts, each between two `getppid` markers. Run on its own
/// it just exercises them.
#[test]
#[ignore = "run under strace by syscalls_per_wait"]
fn syscall_scenarios() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let mut events = Events::new();
    let _ready = Ready::add(&poller)?;
    let marker = || unsafe { libc::getppid() };
    let far = Instant::now() + FAR;
    // Warm up: the first wait arms the timer.
    poller.wait_deadline(&mut events, far)?;

    marker();
    for _ in 0..WAITS {
        events.clear();
        poller.wait_deadline(&mut events, far)?;
    }
    marker();
    for _ in 0..WAITS {
        events.clear();
        poller.wait(&mut events, None)?;
    }
    marker();
    for i in 0..WAITS {
        events.clear();
        poller.wait_deadline(&mut events, far + Duration::from_millis(i as u64 + 1))?;
    }
    marker();
    for _ in 0..WAITS {
        poller.notify()?;
        events.clear();
        poller.wait(&mut events, None)?;
    }
    marker();
    Ok(())
}

const WAITS: usize = 200;

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn syscalls_per_wait() -> io::Result<()> {
    use std::process::Command;

    let trace = std::env::temp_dir().join(format!("polling-rearm-{}.strace", std::process::id()));
    let status = Command::new("strace")
        .args(["-f", "-qq", "-e", "signal=none", "-o"])
        .arg(&trace)
        .args([
            "-e",
            "trace=getppid,timerfd_settime,epoll_ctl,read,epoll_wait,epoll_pwait,epoll_pwait2",
        ])
        .arg(std::env::current_exe()?)
        .args([
            "syscall_scenarios",
            "--exact",
            "--ignored",
            "--test-threads=1",
        ])
        .output();
    let output = match status {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            eprintln!("syscalls_per_wait skipped: strace is not installed");
            return Ok(());
        }
        other => other?,
    };
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let _ = std::fs::remove_file(&trace);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() && stderr.contains("ptrace") {
        eprintln!("syscalls_per_wait skipped: strace cannot trace here: {stderr}");
        return Ok(());
    }
    assert!(output.status.success(), "scenarios failed: {stderr}");

    // Syscall names between consecutive markers.
    let mut phases: Vec<Vec<&str>> = Vec::new();
    for line in text.lines() {
        // "PID name(args) = result", or "PID <... name resumed>..." for a call another
        // thread's line interrupted (counted at its start).
        let Some(call) = line.split_once(' ').map(|(_, rest)| rest.trim_start()) else {
            continue;
        };
        if call.starts_with("<...") {
            continue;
        }
        let name = call.split('(').next().unwrap_or("");
        if name == "getppid" {
            phases.push(Vec::new());
        } else if let Some(phase) = phases.last_mut() {
            phase.push(name);
        }
    }
    assert_eq!(phases.len(), 5, "markers not found in:\n{text}");
    let count = |phase: usize, name: &str| phases[phase].iter().filter(|n| **n == name).count();
    let waits = |phase: usize| {
        phases[phase]
            .iter()
            .filter(|n| n.starts_with("epoll_wait") || n.starts_with("epoll_pwait"))
            .count()
    };

    // (scenario, phase, timerfd_settime, epoll_ctl, read). The first wait without a deadline
    // after waits with one disarms the timer: one timerfd_settime. A pipe notifier is read
    // until it is empty: two reads per notification.
    let notifier_reads = if cfg!(polling_test_epoll_pipe) {
        2 * WAITS
    } else {
        WAITS
    };
    let cases = [
        ("same deadline", 0, 0, 0, 0),
        ("no deadline", 1, 1, 0, 0),
        ("new deadline each wait", 2, WAITS, 0, 0),
        ("notify then wait", 3, 1, 0, notifier_reads),
    ];
    for (name, phase, settime, ctl, read) in cases {
        assert_eq!(
            count(phase, "timerfd_settime"),
            settime,
            "{name}: timerfd_settime"
        );
        assert_eq!(count(phase, "epoll_ctl"), ctl, "{name}: epoll_ctl");
        assert_eq!(count(phase, "read"), read, "{name}: read");
        assert_eq!(waits(phase), WAITS, "{name}: one epoll_wait per wait");
    }
    Ok(())
}

/// With interrupt interest and neither read nor write interest, the peer shutting down its
/// writing side (EPOLLRDHUP) is reported as an interrupt; without it, nothing is reported.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn interrupt_interest_reports_the_peers_shutdown() -> io::Result<()> {
    let (poller, _watchdog) = new_poller()?;
    let (ours, theirs) = UnixStream::pair()?;
    // SAFETY: `ours` is deleted from the poller before it is dropped.
    unsafe {
        poller.add_with_mode(&ours, Event::none(1).with_interrupt(), PollMode::Level)?;
    }
    let mut events = Events::new();
    poller.wait(&mut events, Some(Duration::from_millis(50)))?;
    assert_eq!(events.len(), 0, "nothing happened yet");
    theirs.shutdown(std::net::Shutdown::Write)?;
    events.clear();
    poller.wait(&mut events, Some(PROMPTLY))?;
    let ev = events.iter().next().expect("the shutdown is reported");
    assert_eq!(ev.key, 1);
    assert!(ev.is_interrupt());
    // Without interrupt interest the same half-close is not reported.
    poller.modify_with_mode(&ours, Event::none(1), PollMode::Level)?;
    events.clear();
    poller.wait(&mut events, Some(Duration::from_millis(50)))?;
    assert_eq!(events.len(), 0);
    poller.delete(&ours)?;
    Ok(())
}
