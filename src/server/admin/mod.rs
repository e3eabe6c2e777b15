//! `--admin ADDR`: a listener of its own, apart from the workers, that changes the faults at
//! run time (see `api`). One thread, blocking, one connection at a time and one request per
//! connection: a strict HTTP/1.1 head (canned's own parser), a body of at most
//! [`MAX_BODY`] bytes by `Content-Length`, and an answer with `Connection: close`. It stops
//! with the workers, on the same wake-up socket.
//!
//! Unauthenticated: anyone who reaches the address can change what canned answers, so the
//! default address of a bare port is the loopback one. For test networks.

mod api;
mod routes;

use crate::config::Config;
use crate::fault::{FaultResponses, FaultSet};
use crate::journal::Journal;
use crate::parser::{Framing, Limits, Parser, Status};
use crate::response::ExtendCold;
use crate::response::{Responses, reason};
use crate::server::shared::Shared;
use api::{Answer, Api};
use polling::{Event, Events, PollMode, Poller};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The largest request body the API reads (a fault list).
pub(super) const MAX_BODY: usize = 64 * 1024;
/// The bytes of the journal formatted at a time for `GET /journal`.
const JOURNAL_PIECE: usize = 64 * 1024;
/// How long a client has, in all, to send its request; then, to read the answer, how long it
/// may go without taking a byte of it (the API's own work between the two is not charged to
/// the client: under emulation a change to 1,200 paths takes longer than a client's whole
/// budget; and a journal of tens of MB takes longer than that to send to a client that reads
/// it as it comes).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(2);
/// The most an answer may take to send, whatever the client's pace: a client that takes a
/// byte now and then holds the API no longer than this.
const ANSWER_LIMIT: Duration = Duration::from_secs(120);
/// How long what a client sends after the answer is read and dropped, in all.
const DRAIN_TIME: Duration = Duration::from_millis(200);
/// The pause after an accept fails for want of resources (out of fds): the listener stays
/// readable, and accepting again at once would spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

const LISTENER: usize = 0;
const WAKE: usize = 1;

/// The admin listener and what its API changes.
pub(crate) struct Admin {
    listener: TcpListener,
    api: Api,
    shared: Arc<Shared>,
}

/// Bind the admin address (before the workers start, so that a taken port is an error at
/// start).
pub(super) fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let l = TcpListener::bind(addr)?;
    l.set_nonblocking(true)?;
    Ok(l)
}

impl Admin {
    /// The API of `config`'s server on `listener`; the workers serve `responses` and `set`.
    pub(super) fn new(
        listener: TcpListener,
        config: &Config,
        responses: Responses,
        builder: FaultResponses,
        set: Arc<FaultSet>,
        journal: Option<Arc<Journal>>,
        shared: Arc<Shared>,
    ) -> Admin {
        let api = Api::new(config, responses, builder, set, journal, shared.clone());
        Admin {
            listener,
            api,
            shared,
        }
    }

    /// The bound address.
    pub(super) fn addr(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Serve until the workers are asked to stop.
    pub(super) fn run(mut self) {
        let Ok(poller) = Poller::new() else {
            crate::server::log::diagnostic(format_args!("canned: admin: cannot poll"));
            return;
        };
        // SAFETY: both are deleted from the poller before it is dropped, at the end of this
        // function, while `self` (the listener, and `shared` with the wake-up socket) lives.
        let added = unsafe {
            poller
                .add_with_mode(&self.listener, Event::readable(LISTENER), PollMode::Level)
                .and_then(|()| {
                    poller.add_with_mode(
                        &self.shared.wake_r,
                        Event::readable(WAKE),
                        PollMode::Level,
                    )
                })
        };
        if added.is_ok() {
            self.serve(&poller);
        }
        let _ = poller.delete(&self.listener);
        let _ = poller.delete(&self.shared.wake_r);
    }

    fn serve(&mut self, poller: &Poller) {
        let mut events = Events::new();
        loop {
            events.clear();
            if poller.wait(&mut events, None).is_err() {
                return;
            }
            if self.shared.stop.load(Ordering::SeqCst) || events.iter().any(|e| e.key == WAKE) {
                return;
            }
            loop {
                match self.listener.accept() {
                    Ok((s, _)) => self.handle(s),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // The client gone before it was accepted: the next one.
                    Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => {}
                    // Out of fds, or another failure: the next readiness tries again, after
                    // a pause.
                    Err(_) => {
                        std::thread::sleep(ACCEPT_BACKOFF);
                        break;
                    }
                }
            }
        }
    }

    /// One request on `s`, answered, then closed.
    fn handle(&mut self, s: TcpStream) {
        let _ = s.set_nonblocking(false);
        let mut s = Client {
            s,
            deadline: Instant::now() + CLIENT_TIMEOUT,
            answer_until: None,
            shared: &self.shared,
        };
        let answer = match read_request(&mut s) {
            Ok(req) => self.api.answer(
                &req.method,
                &req.path,
                req.query.as_deref(),
                &req.buf[req.body_at..],
            ),
            Err(Refusal::Answer(a)) => a,
            Err(Refusal::Gone) => return,
        };
        let now = Instant::now();
        s.deadline = now + CLIENT_TIMEOUT;
        s.answer_until = Some(now + ANSWER_LIMIT);
        let length = match answer.journal {
            Some(_) => "Transfer-Encoding: chunked".to_string(),
            None => format!("Content-Length: {}", answer.body.len()),
        };
        let mut out = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n{length}\r\nConnection: close\r\n\r\n",
            answer.status,
            reason(answer.status),
            if answer.json {
                "application/json"
            } else {
                "text/plain; charset=utf-8"
            },
        )
        .into_bytes();
        out.extend_cold(&answer.body);
        let sent = match &answer.journal {
            Some(j) => s.write_all(&out).and_then(|()| send_journal(j, &mut s)),
            None => s.write_all(&out),
        };
        if sent.is_ok() {
            // FIN, then what the client still sends is read and dropped, briefly, so that
            // the close is not a reset that loses the answer.
            let _ = s.s.shutdown(Shutdown::Write);
            s.deadline = Instant::now() + DRAIN_TIME;
            let mut sink = [0u8; 4096];
            let mut left = MAX_BODY;
            while let Ok(n @ 1..) = s.read(&mut sink) {
                left = left.saturating_sub(n);
                if left == 0 {
                    break;
                }
            }
        }
    }
}

/// The journal as chunks of about [`JOURNAL_PIECE`] bytes, each formatted as the one before
/// is written: the admin thread holds one piece, and the workers recording wait at most for
/// one entry to be formatted.
fn send_journal(j: &Journal, s: &mut impl Write) -> io::Result<()> {
    let mut piece = Vec::with_capacity(JOURNAL_PIECE + 1024);
    let mut reading = j.begin_reading(&mut piece);
    loop {
        let done = j.read_more(&mut reading, &mut piece, JOURNAL_PIECE);
        s.write_all(format!("{:x}\r\n", piece.len()).as_bytes())?;
        piece.extend_cold(b"\r\n");
        if done {
            piece.extend_cold(b"0\r\n\r\n");
        }
        s.write_all(&piece)?;
        if done {
            return Ok(());
        }
        piece.clear();
    }
}

/// An admin client: its socket, blocking, with a deadline for reading its request and another
/// for writing the answer, and the stop flag looked at before each, so that a client that
/// trickles its bytes holds neither the listener nor a shutdown beyond the deadline.
struct Client<'a> {
    s: TcpStream,
    deadline: Instant,
    /// While the answer is sent: the deadline moves on with each write that takes bytes, up to
    /// this.
    answer_until: Option<Instant>,
    shared: &'a Shared,
}

impl Client<'_> {
    /// What is left of the deadline, or an error once it passed or the server stops.
    fn left(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || self.shared.stop.load(Ordering::SeqCst) {
            return Err(io::ErrorKind::TimedOut.into());
        }
        Ok(left)
    }
}

impl Read for Client<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.s.set_read_timeout(Some(self.left()?))?;
        self.s.read(buf)
    }
}

impl Write for Client<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.s.set_write_timeout(Some(self.left()?))?;
        let n = self.s.write(buf)?;
        if let Some(until) = self.answer_until.filter(|_| n > 0) {
            self.deadline = until.min(Instant::now() + CLIENT_TIMEOUT);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A request read whole: its bytes, where its body starts in them, and its parts copied out
/// (the parser's path is not always a slice of the bytes: an absolute-form or asterisk-form
/// target gives its own `/`).
struct Request {
    buf: Vec<u8>,
    method: Vec<u8>,
    path: Vec<u8>,
    query: Option<Vec<u8>>,
    body_at: usize,
}

/// Why no request is answered by the API.
enum Refusal {
    /// Answered here: a bad request.
    Answer(Answer),
    /// The client left, or took too long.
    Gone,
}

fn refuse(status: u16, why: impl Into<String>) -> Refusal {
    let mut body = why.into();
    body.push('\n');
    Refusal::Answer(Answer {
        status,
        json: false,
        body: body.into_bytes(),
        journal: None,
    })
}

/// Read one request: a strict head of at most the default head limit, and its body by
/// `Content-Length`, at most [`MAX_BODY`] bytes.
fn read_request(s: &mut (impl Read + Write)) -> Result<Request, Refusal> {
    let limits = Limits::default();
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let mut parser = Parser::new(limits);
    let (head_len, length, method, path, query, expect) = loop {
        let n = match s.read(&mut chunk) {
            Ok(0) | Err(_) => return Err(Refusal::Gone),
            Ok(n) => n,
        };
        buf.extend_cold(&chunk[..n]);
        // The parser resumes where it stopped in the bytes so far.
        match parser.parse(&buf) {
            Ok(Status::Partial) => continue,
            Ok(Status::Complete(r)) => {
                let length = match r.framing {
                    Framing::None => 0,
                    Framing::Length(n) if n <= MAX_BODY as u64 => n as usize,
                    Framing::Length(_) => {
                        return Err(refuse(413, format!("a body is at most {MAX_BODY} bytes")));
                    }
                    Framing::Chunked => {
                        return Err(refuse(411, "send the body with Content-Length"));
                    }
                };
                let query = r
                    .target
                    .iter()
                    .position(|&c| c == b'?')
                    .map(|q| r.target[q + 1..].to_vec());
                break (
                    r.head_len,
                    length,
                    r.method.to_vec(),
                    r.path.to_vec(),
                    query,
                    r.expect_continue,
                );
            }
            Err(e) => return Err(refuse(e.status(), e.to_string())),
        }
    };
    if expect && buf.len() < head_len + length {
        let _ = s.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    while buf.len() < head_len + length {
        let n = match s.read(&mut chunk) {
            Ok(0) | Err(_) => return Err(Refusal::Gone),
            Ok(n) => n,
        };
        buf.extend_cold(&chunk[..n]);
    }
    // One request per connection: anything after its body is not read.
    buf.truncate(head_len + length);
    Ok(Request {
        buf,
        method,
        path,
        query,
        body_at: head_len,
    })
}
