//! The access log's way to stdout, and diagnostics' to stderr. Each worker hands its loop
//! turn's lines to one bounded queue without waiting, and one writer thread (started only with
//! `--access-log`) makes the blocking writes to fd 1: a stdout that nobody reads (a paused log
//! shipper, a full container log pipe) then stops neither traffic nor shutdown. Lines that find
//! no room are dropped whole and counted (`log_lines_dropped`).
//!
//! A thread rather than a non-blocking stdout: `O_NONBLOCK` belongs to the open file
//! description, which stdout shares with whoever else holds it (the shell, the supervisor, a
//! sibling process), and setting it would change their writes too. The thread writes to fd 1
//! directly, not through std's stdout and its lock, so that nothing at process exit waits for a
//! write that cannot finish.

use crate::conn::LogSink;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Bytes the queue holds for the writer, over all workers.
pub(super) const QUEUE_BYTES: usize = 4 * 1024 * 1024;
/// Capacity a worker's turn buffer and the writer's batch keep once their lines are handed on:
/// a burst's buffers go back to the allocator.
pub(super) const KEEP_BYTES: usize = 64 * 1024;
/// Once this much capacity was given back, the writer asks the allocator to return free memory
/// to the system when it next has nothing to write (glibc keeps freed blocks otherwise).
const TRIM_AFTER: usize = 256 * 1024;

/// The queue between the workers and the writer thread.
#[derive(Debug)]
pub(super) struct AccessLog {
    queue: Mutex<Queue>,
    /// The writer waits on it for lines or the stop.
    queued: Condvar,
    /// [`AccessLog::finish`] waits on it for the writer to have written everything.
    written: Condvar,
    /// Lines the writer could not write (a write error, the shutdown deadline).
    dropped: AtomicU64,
    /// Lines of the batch in flight written so far.
    batch_written: AtomicU64,
    /// `--shutdown-timeout`: how long [`AccessLog::finish`] waits when no worker drained.
    shutdown_timeout: Duration,
}

#[derive(Debug, Default)]
struct Queue {
    lines: Vec<u8>,
    /// Lines in `lines`.
    count: u64,
    /// Lines in the batch the writer is writing now (0: none).
    writing: u64,
    /// Capacity given back since the allocator was last asked to return free memory.
    freed: usize,
    /// The server has stopped: the writer returns once the queue is empty.
    stop: bool,
    /// The shutdown deadline, from the first worker to begin draining.
    deadline: Option<Instant>,
}

impl LogSink for AccessLog {
    /// Move a loop turn's lines to the queue, never waiting for stdout (the writer holds the
    /// lock only to take the queue). Lines past [`QUEUE_BYTES`] are dropped whole; returns
    /// how many. `lines` is left empty, its capacity above [`KEEP_BYTES`] given back.
    fn hand_off(&self, lines: &mut Vec<u8>) -> u64 {
        let all = count_lines(lines);
        let (dropped, was_empty) = {
            let mut q = self.lock();
            let room = QUEUE_BYTES.saturating_sub(q.lines.len());
            let (fit, dropped) = if lines.len() <= room {
                (lines.len(), 0)
            } else {
                let fit = memchr::memrchr(b'\n', &lines[..room]).map_or(0, |i| i + 1);
                (fit, count_lines(&lines[fit..]))
            };
            let was_empty = q.count == 0;
            q.lines.extend_from_slice(&lines[..fit]);
            q.count += all - dropped;
            lines.clear();
            // Under the lock, so that the writer's trim after these lines comes after this.
            q.freed += give_back(lines);
            (dropped, was_empty)
        };
        if was_empty {
            // Lines already queued mean the writer is busy or has been woken for them.
            self.queued.notify_one();
        }
        dropped
    }
}

impl AccessLog {
    pub(super) fn new(shutdown_timeout: Duration) -> AccessLog {
        AccessLog {
            queue: Mutex::new(Queue::default()),
            queued: Condvar::new(),
            written: Condvar::new(),
            dropped: AtomicU64::new(0),
            batch_written: AtomicU64::new(0),
            shutdown_timeout,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A worker began draining: the queue is written until `deadline` at most (the first
    /// worker's counts).
    pub(super) fn drain_by(&self, deadline: Instant) {
        let mut q = self.lock();
        q.deadline.get_or_insert(deadline);
    }

    /// A second stop signal: the queue is written until now at most, so that a stdout nobody
    /// reads does not hold the exit for the rest of `--shutdown-timeout`.
    pub(super) fn stop_now(&self) {
        let mut q = self.lock();
        q.deadline = Some(Instant::now());
        self.written.notify_all();
    }

    /// Lines the writer dropped (the workers count their own).
    pub(super) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// The writer thread: take what is queued, write it, give the batch's capacity back.
    pub(super) fn write_to_stdout(&self) {
        let mut batch = Vec::new();
        let mut q = self.lock();
        loop {
            q.writing = 0;
            if q.count == 0 {
                self.written.notify_all();
                if q.stop {
                    return;
                }
                if q.freed >= TRIM_AFTER {
                    q.freed = 0;
                    drop(q);
                    crate::conn::return_free_memory();
                    q = self.lock();
                    continue;
                }
                q = self.queued.wait(q).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            std::mem::swap(&mut q.lines, &mut batch);
            q.writing = std::mem::take(&mut q.count);
            self.batch_written.store(0, Ordering::Relaxed);
            drop(q);
            let progress = |written: &[u8]| {
                self.batch_written
                    .fetch_add(count_lines(written), Ordering::Relaxed);
            };
            if let Err(at) = write_stdout(&batch, progress) {
                // EPIPE (the reader has gone), EBADF, ENOSPC...: these lines are lost.
                self.dropped
                    .fetch_add(count_lines(&batch[at..]), Ordering::Relaxed);
            }
            batch.clear();
            let freed = give_back(&mut batch);
            q = self.lock();
            q.freed += freed;
        }
    }

    /// The server has stopped: let the writer finish the queue, but wait no later than the
    /// shutdown deadline. Lines not written whole by then are counted as dropped (the writer may be
    /// blocked for good on a stdout nobody reads: it is left to the process exit). Returns
    /// whether everything was written and the writer has returned or is about to.
    pub(super) fn finish(&self) -> bool {
        let mut q = self.lock();
        q.stop = true;
        self.queued.notify_one();
        q.deadline
            .get_or_insert_with(|| after(self.shutdown_timeout));
        while q.count != 0 || q.writing != 0 {
            let now = Instant::now();
            // Read again each turn: a second stop signal moves it to now (`stop_now`, or the
            // signal's flag once the workers have returned).
            let deadline = q.deadline.unwrap_or(now);
            if now >= deadline || super::signals::forced() {
                let in_flight = q
                    .writing
                    .saturating_sub(self.batch_written.load(Ordering::Relaxed));
                let lost = q.count + in_flight;
                q.lines = Vec::new();
                q.count = 0;
                // What is left of the batch in flight is counted here, whatever the writer
                // does with it.
                q.writing = 0;
                self.dropped.fetch_add(lost, Ordering::Relaxed);
                return false;
            }
            q = self
                .written
                // In steps: a signal handler cannot notify a condition variable.
                .wait_timeout(q, (deadline - now).min(Duration::from_millis(50)))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

/// `timeout` from now; a timeout past what the clock can hold is 100 years.
pub(super) fn after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

fn count_lines(bytes: &[u8]) -> u64 {
    // A plain count: memchr's counting routines are 3 KB of code for this cold path.
    bytes.iter().filter(|&&c| c == b'\n').count() as u64
}

/// Shrink an empty buffer to [`KEEP_BYTES`]; returns the capacity given back.
fn give_back(buf: &mut Vec<u8>) -> usize {
    let capacity = buf.capacity();
    if capacity <= KEEP_BYTES {
        return 0;
    }
    buf.shrink_to(KEEP_BYTES);
    capacity - buf.capacity()
}

/// Bytes per write(2): a blocking write to a pipe returns only once all of it is in, so that
/// the lines known to be written (counted at the shutdown deadline) are those of whole writes.
const WRITE_BYTES: usize = 64 * 1024;

/// Write all of `bytes` to fd 1, blocking (also when another holder of the open file made it
/// non-blocking), telling `progress` what each write took. `Err(n)`: a write failed after
/// `n` bytes.
fn write_stdout(bytes: &[u8], progress: impl Fn(&[u8])) -> Result<(), usize> {
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..bytes.len().min(at + WRITE_BYTES)];
        // SAFETY: the pointer and length describe `rest`, initialized bytes that outlive the
        // call; fd 1 is only written to.
        let n = unsafe { libc::write(1, rest.as_ptr().cast(), rest.len()) };
        if n > 0 {
            progress(&rest[..n as usize]);
            at += n as usize;
            continue;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) if n < 0 => {}
            Some(libc::EAGAIN) if n < 0 => {
                let mut fd = libc::pollfd {
                    fd: 1,
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd, for the duration of the call.
                unsafe { libc::poll(&mut fd, 1, -1) };
            }
            _ => return Err(at),
        }
    }
    Ok(())
}

/// Write one diagnostic line to stderr (a warning, the listening line, the exit summary)
/// without ever waiting: what stderr cannot take at once (a pipe whose reader is alive but not
/// reading, a stopped terminal) is left out, as is everything when it is closed. `eprintln!`
/// waits, and with it start-up, a worker's loop or the exit; it also panics when the reader
/// has gone, and the release build aborts on a panic.
pub fn diagnostic(line: std::fmt::Arguments<'_>) {
    static STDERR: OnceLock<Stderr> = OnceLock::new();
    let line = format!("{line}\n");
    STDERR
        .get_or_init(|| Stderr::of(libc::STDERR_FILENO))
        .write_now(line.as_bytes());
}

/// How stderr is written without waiting, decided once from what it is. Not by setting
/// `O_NONBLOCK` on fd 2: that flag belongs to the open file description, which stderr shares
/// with the parent and its other children, and their writes would fail with EAGAIN too.
#[derive(Debug)]
enum Stderr {
    /// A socket (systemd connects stderr to the journal through one): `send` with
    /// `MSG_DONTWAIT` is non-blocking for that call alone.
    Socket(RawFd),
    /// A pipe, FIFO or terminal opened again through `/proc/self/fd`: a description of canned's
    /// own to the same pipe, on which `O_NONBLOCK` changes nobody else's writes.
    Reopened(OwnedFd),
    /// A pipe or terminal that cannot be opened again (no `/proc`, a pipe another user made):
    /// written only when poll(2) says it has room, [`libc::PIPE_BUF`] bytes at a time, which a
    /// pipe with room takes whole without waiting (pipe(7)). Another writer to the same pipe
    /// can fill it between the poll and the write; canned's own diagnostics take turns.
    Polled(RawFd),
    /// A regular file: a write never waits for a reader.
    Plain(RawFd),
    /// Closed.
    Closed,
}

impl Stderr {
    fn of(fd: RawFd) -> Stderr {
        let Some(st) = fstat(fd) else {
            return Stderr::Closed;
        };
        match st.st_mode & libc::S_IFMT {
            libc::S_IFSOCK => Stderr::Socket(fd),
            libc::S_IFREG => Stderr::Plain(fd),
            libc::S_IFIFO | libc::S_IFCHR => {
                reopen(fd, &st).map_or(Stderr::Polled(fd), Stderr::Reopened)
            }
            _ => Stderr::Polled(fd),
        }
    }

    /// Write what `bytes` the file takes now; returns how many.
    fn write_now(&self, bytes: &[u8]) -> usize {
        match self {
            Stderr::Socket(fd) => write_while_taken(bytes, |b| {
                // SAFETY: the pointer and length describe `b`, initialized bytes that outlive
                // the call.
                unsafe {
                    libc::send(
                        *fd,
                        b.as_ptr().cast(),
                        b.len(),
                        libc::MSG_DONTWAIT | NO_SIGPIPE,
                    )
                }
            }),
            Stderr::Reopened(fd) => write_while_taken(bytes, |b| write(fd.as_raw_fd(), b)),
            Stderr::Plain(fd) => write_while_taken(bytes, |b| write(*fd, b)),
            Stderr::Polled(fd) => {
                // Two of canned's threads must not both write into the room one poll saw.
                static TURN: Mutex<()> = Mutex::new(());
                let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
                write_while_taken(bytes, |b| {
                    let mut p = libc::pollfd {
                        fd: *fd,
                        events: libc::POLLOUT,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd, for the duration of the call.
                    let ready = unsafe { libc::poll(&mut p, 1, 0) };
                    if ready != 1 || p.revents & libc::POLLOUT == 0 {
                        return 0;
                    }
                    write(*fd, &b[..b.len().min(libc::PIPE_BUF)])
                })
            }
            Stderr::Closed => 0,
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
const NO_SIGPIPE: libc::c_int = libc::MSG_NOSIGNAL;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const NO_SIGPIPE: libc::c_int = 0;

fn fstat(fd: RawFd) -> Option<libc::stat> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat fills the buffer when it returns 0, and only then is it read.
    unsafe { (libc::fstat(fd, st.as_mut_ptr()) == 0).then(|| st.assume_init()) }
}

/// `fd`'s pipe or terminal as a new, non-blocking open file description of this process, if
/// `/proc/self/fd` can open it again (Linux) and it is the same file.
fn reopen(fd: RawFd, st: &libc::stat) -> Option<OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    let own = std::fs::OpenOptions::new()
        .write(true)
        // O_NOCTTY: a terminal must not become the controlling one of a process without one.
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(format!("/proc/self/fd/{fd}"))
        .ok()?;
    let same =
        fstat(own.as_raw_fd()).is_some_and(|o| o.st_dev == st.st_dev && o.st_ino == st.st_ino);
    same.then(|| own.into())
}

fn write(fd: RawFd, bytes: &[u8]) -> isize {
    // SAFETY: the pointer and length describe `bytes`, initialized bytes that outlive the call.
    unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) }
}

/// Hand `bytes` to `write` until it takes none (0, or EAGAIN: no room) or fails (EPIPE: the
/// reader has gone, EBADF...); a write interrupted by a signal is tried again. Returns how many
/// bytes were taken.
fn write_while_taken(bytes: &[u8], mut write: impl FnMut(&[u8]) -> isize) -> usize {
    let mut at = 0;
    while at < bytes.len() {
        let n = write(&bytes[at..]);
        if n > 0 {
            at += n as usize;
        } else if n == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::FromRawFd;

    /// Fill the pipe or socket `fd` until it takes no more, non-blocking only meanwhile.
    fn fill(fd: RawFd) {
        // SAFETY: fcntl and write on a descriptor owned by the caller; the buffer outlives
        // each call.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            assert_eq!(libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK), 0);
            let junk = [b'x'; 4096];
            while libc::write(fd, junk.as_ptr().cast(), junk.len()) > 0 {}
            while libc::write(fd, junk.as_ptr().cast(), 1) > 0 {}
            assert_eq!(libc::fcntl(fd, libc::F_SETFL, flags), 0);
        }
    }

    /// Read everything in `fd` (a pipe or socket), without waiting for more.
    fn drain(fd: RawFd) {
        let mut buf = vec![0u8; 64 * 1024];
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd; the buffer outlives the read and is as long as said.
        while unsafe { libc::poll(&mut p, 1, 0) } == 1 && p.revents & libc::POLLIN != 0 {
            assert!(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0);
        }
    }

    /// `write_now` on `stderr`, failing the test if it waits.
    fn written_within_a_second(stderr: Stderr, line: &'static [u8]) -> (Stderr, usize) {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let n = stderr.write_now(line);
            tx.send((stderr, n)).unwrap();
        });
        rx.recv_timeout(Duration::from_secs(1))
            .expect("a diagnostic waited for a stderr nobody reads")
    }

    /// Each way of writing stderr, to a pipe or socket whose reader is alive but not reading:
    /// nothing is written and nothing waits; once the reader has read, the line is written
    /// whole. Stderr's own open file description stays blocking (the parent shares it).
    #[test]
    fn a_full_stderr_takes_nothing_and_never_waits() {
        let line: &'static [u8] = b"canned listening on 127.0.0.1:8080 (1 worker)\n";
        let mut fds = [0; 2];
        // SAFETY: each call writes two new descriptors into the array, owned here from then.
        let (pipe, sockets) = unsafe {
            assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC), 0);
            let pipe = (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]));
            assert_eq!(
                libc::socketpair(
                    libc::AF_UNIX,
                    libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                    0,
                    fds.as_mut_ptr()
                ),
                0
            );
            (
                pipe,
                (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])),
            )
        };
        let (pr, pw) = (pipe.0.as_raw_fd(), pipe.1.as_raw_fd());
        let (sr, sw) = (sockets.0.as_raw_fd(), sockets.1.as_raw_fd());
        let reopened = Stderr::of(pw);
        assert!(matches!(reopened, Stderr::Reopened(_)), "{reopened:?}");
        let socket = Stderr::of(sw);
        assert!(matches!(socket, Stderr::Socket(_)), "{socket:?}");
        for (stderr, w, r) in [
            (reopened, pw, pr),
            (Stderr::Polled(pw), pw, pr),
            (socket, sw, sr),
        ] {
            let what = format!("{stderr:?}");
            fill(w);
            let (stderr, n) = written_within_a_second(stderr, line);
            assert_eq!(n, 0, "{what}");
            drain(r);
            let (_, n) = written_within_a_second(stderr, line);
            assert_eq!(n, line.len(), "{what}");
            // SAFETY: F_GETFL on a descriptor owned here.
            let flags = unsafe { libc::fcntl(w, libc::F_GETFL) };
            assert_eq!(flags & libc::O_NONBLOCK, 0, "{what}");
            drain(r);
        }
        // The reader gone (EPIPE), then stderr closed (EBADF): nothing written, no error.
        drop(pipe.0);
        assert_eq!(Stderr::Polled(pw).write_now(line), 0);
        assert_eq!(Stderr::of(pw).write_now(line), 0);
        drop(sockets.0);
        assert_eq!(Stderr::of(sw).write_now(line), 0);
        drop(pipe.1);
        assert!(matches!(Stderr::of(pw), Stderr::Closed));
    }

    /// A turn's lines that do not all fit in the queue: the ones that fit are queued, the rest
    /// dropped whole and counted, and the turn's buffer keeps no more than the floor.
    #[test]
    fn a_full_queue_drops_whole_lines_and_counts_them() {
        let log = AccessLog::new(Duration::ZERO);
        let line = b"- GET /a HTTP/1.1 200\n";
        let mut turn = line.repeat(QUEUE_BYTES / line.len() + 100);
        assert_eq!(log.hand_off(&mut turn), 100);
        assert!(turn.is_empty() && turn.capacity() <= KEEP_BYTES);
        {
            let q = log.lock();
            assert_eq!(q.count, (QUEUE_BYTES / line.len()) as u64);
            assert_eq!(q.lines.len(), QUEUE_BYTES / line.len() * line.len());
            assert!(q.lines.ends_with(line));
        }
        let mut more = line.repeat(3);
        assert_eq!(log.hand_off(&mut more), 3);
        // Nobody writes them: at the (past) deadline they count as dropped too.
        assert!(!log.finish());
        assert_eq!(log.dropped(), (QUEUE_BYTES / line.len()) as u64);
    }
}
