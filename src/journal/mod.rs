//! `--journal N`: the last N requests, in a ring every worker records into, answered as JSON
//! on `--journal-path` and cleared by a DELETE there. Each entry keeps the request head as
//! received (at most `--max-head-bytes`, in a slot of that size), its time, client address,
//! body length, the status sent and the faults applied. The ring's memory is taken once at
//! start, `N * (head limit + ENTRY_BYTES)`, so that recording copies bytes and allocates
//! nothing; the JSON is formatted only when the journal is asked for, a piece at a time as
//! it is sent ([`Journal::begin_reading`]), never whole and never under the lock for more
//! than an entry.

use crate::response::ExtendCold;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Mutex;

use crate::echo::Echoed;
use crate::fault::FaultKind;
use crate::parser::Rule;

mod recording;
pub use recording::{HEAD_KEEP, Recording, Sending};

/// The most entries `--journal` keeps: with the default head limit (8 KiB), at most about
/// 826 MB of address space, touched only as entries are written.
pub const MAX_ENTRIES: u64 = 100_000;

/// The entries `--journal-path` keeps without `--journal`.
pub const DEFAULT_ENTRIES: u64 = 1000;

/// The bytes of an entry beside its head slot (documented with the memory bound).
pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// One request, as recorded when its response was decided.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Its number since start (1 for the first request recorded).
    seq: u64,
    /// Wall-clock time, in microseconds since the Unix epoch.
    time_us: u64,
    /// The client's address (`None`: a unix-socket client).
    peer: Option<SocketAddr>,
    /// The head's bytes in its slot (0: no head was complete, an error or a timeout).
    head_len: u32,
    /// The body's bytes as framed (Content-Length, or the chunks' data).
    body_len: u64,
    /// The status sent (0: none, as for a stall or garbage).
    status: u16,
    /// [`FaultKind`]s applied, one bit per [`FaultKind::index`].
    faults: u16,
    /// `--mutate`: the catalogue's variant sent, plus one (0: none).
    mutate: u16,
    /// The [`Rule`] the request broke, its [`Rule::index`] plus one (0: none).
    rule: u8,
}

/// What a connection records about a request whose response it just decided.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// The head as received (empty when none was complete).
    pub head: &'a [u8],
    /// The client's address, when a TCP client.
    pub peer: Option<SocketAddr>,
    /// The body's length.
    pub body_len: u64,
    /// The status sent (0: none).
    pub status: u16,
}

struct Ring {
    entries: Vec<Entry>,
    heads: Vec<u8>,
    /// Entries recorded since start: the next one goes to slot `recorded % capacity`.
    recorded: u64,
    /// Entries recorded before the last DELETE: those are gone.
    cleared: u64,
}

/// A worker's way into the journal: the ring, and what the call being made adds to a record.
#[derive(Debug)]
pub struct Recorder {
    /// The ring the workers share.
    pub journal: std::sync::Arc<Journal>,
    /// The client of the connection being called (`None`: a unix-socket client).
    pub peer: Option<SocketAddr>,
    /// The number of the entry last recorded, for the faults noted after it (0: none).
    pub seq: u64,
}

/// The journal, shared by the workers.
pub struct Journal {
    ring: Mutex<Ring>,
    capacity: usize,
    slot_bytes: usize,
    /// `--journal-path`: the echo route that answers the journal instead (`u16::MAX`: none).
    route: u16,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("capacity", &self.capacity)
            .field("slot_bytes", &self.slot_bytes)
            .field("route", &self.route)
            .finish()
    }
}

impl Journal {
    /// A journal of `capacity` entries (1 to [`MAX_ENTRIES`]) of heads up to `slot_bytes`,
    /// its memory taken now.
    pub fn new(capacity: usize, slot_bytes: usize) -> Journal {
        let capacity = capacity.clamp(1, MAX_ENTRIES as usize);
        let empty = Entry {
            seq: 0,
            time_us: 0,
            peer: None,
            head_len: 0,
            body_len: 0,
            status: 0,
            faults: 0,
            mutate: 0,
            rule: 0,
        };
        Journal {
            ring: Mutex::new(Ring {
                entries: vec![empty; capacity],
                // Zeroed memory from the system: its pages are touched as slots are written.
                heads: vec![0; capacity * slot_bytes],
                recorded: 0,
                cleared: 0,
            }),
            capacity,
            slot_bytes,
            route: u16::MAX,
        }
    }

    /// The journal, answered by route `route` (`--journal-path`, an echo route) instead of
    /// its echo.
    pub fn answered_by(self, route: Option<usize>) -> Journal {
        let route = route
            .and_then(|r| u16::try_from(r).ok())
            .unwrap_or(u16::MAX);
        Journal { route, ..self }
    }

    /// Whether route `route` answers the journal.
    pub fn answers(&self, route: usize) -> bool {
        usize::from(self.route) == route
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Record `r` now; returns its number, for [`Journal::add_fault`].
    pub fn record(&self, r: &Record<'_>) -> u64 {
        let time_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        let head = &r.head[..r.head.len().min(self.slot_bytes)];
        let mut ring = self.lock();
        ring.recorded += 1;
        let seq = ring.recorded;
        let i = ((seq - 1) % self.capacity as u64) as usize;
        let at = i * self.slot_bytes;
        ring.heads[at..at + head.len()].copy_from_slice(head);
        ring.entries[i] = Entry {
            seq,
            time_us,
            peer: r.peer,
            head_len: head.len() as u32,
            body_len: r.body_len,
            status: r.status,
            faults: 0,
            mutate: 0,
            rule: 0,
        };
        seq
    }

    /// Note that fault `kind` changed the response to entry `seq` (if still kept).
    pub fn add_fault(&self, seq: u64, kind: FaultKind) {
        self.with_entry(seq, |e| e.faults |= 1 << kind.index());
    }

    /// Note that the response to entry `seq` was the catalogue's variant `i`.
    pub fn set_mutate(&self, seq: u64, i: usize) {
        self.with_entry(seq, |e| e.mutate = i as u16 + 1);
    }

    /// Note the answer to entry `seq`, recorded before it was decided (an HTTP/2 stream whose
    /// body was still to come): its status and its body's length.
    pub fn set_answer(&self, seq: u64, status: u16, body_len: u64) {
        self.with_entry(seq, |e| {
            e.status = status;
            e.body_len = body_len;
        });
    }

    /// Note that entry `seq` was refused for breaking `rule`.
    pub fn set_rule(&self, seq: u64, rule: Rule) {
        self.with_entry(seq, |e| e.rule = rule.index() as u8 + 1);
    }

    fn with_entry(&self, seq: u64, f: impl FnOnce(&mut Entry)) {
        let mut ring = self.lock();
        let i = ((seq.max(1) - 1) % self.capacity as u64) as usize;
        if ring.entries[i].seq == seq && seq > ring.cleared {
            f(&mut ring.entries[i]);
        }
    }

    /// Forget every entry (DELETE on the journal path).
    pub fn clear(&self) {
        let mut ring = self.lock();
        ring.cleared = ring.recorded;
    }

    /// Append the journal as JSON to `out`: `{"capacity","recorded","entries":[…]}`, the
    /// entries oldest first. Whole, for a caller that keeps it whole (a test); a server
    /// sends it a piece at a time ([`Journal::begin_reading`]).
    pub fn render(&self, out: &mut Vec<u8>) {
        let mut r = self.begin_reading(out);
        while !self.read_more(&mut r, out, usize::MAX) {}
    }

    /// Start reading the journal: append the JSON's start to `out`; [`Journal::read_more`]
    /// appends the entries kept now, then the end. Nothing is copied or held meanwhile: a
    /// reader costs the pieces it is sent, however large the journal, and the workers
    /// recording wait at most for one entry to be formatted.
    pub fn begin_reading(&self, out: &mut Vec<u8>) -> Reading {
        let (recorded, cleared) = {
            let ring = self.lock();
            (ring.recorded, ring.cleared)
        };
        let kept = (recorded - cleared).min(self.capacity as u64);
        out.extend_cold(b"{\"capacity\":");
        push_number(out, self.capacity as u64);
        out.extend_cold(b",\"recorded\":");
        push_number(out, recorded);
        out.extend_cold(b",\"entries\":[");
        Reading {
            next: recorded - kept + 1,
            last: recorded,
            sent: false,
        }
    }

    /// Append the next entries of reading `r` to `out`, until it has grown by `bytes` (or
    /// more, by one entry), and at the end the JSON's end: returns true when that was
    /// appended. The lock is taken per entry. An entry overwritten (or cleared) since the
    /// reading began is left out: its `seq` is missing from the answer.
    pub fn read_more(&self, r: &mut Reading, out: &mut Vec<u8>, bytes: usize) -> bool {
        let start = out.len();
        while r.next <= r.last {
            if out.len() - start >= bytes {
                return false;
            }
            let seq = r.next;
            r.next += 1;
            let ring = self.lock();
            let i = ((seq - 1) % self.capacity as u64) as usize;
            let e = &ring.entries[i];
            if e.seq != seq || seq <= ring.cleared {
                continue;
            }
            if r.sent {
                out.push(b',');
            }
            r.sent = true;
            let at = i * self.slot_bytes;
            render_entry(e, &ring.heads[at..at + e.head_len as usize], out);
        }
        out.extend_cold(b"]}\n");
        true
    }
}

/// Where a reading of the journal is ([`Journal::begin_reading`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// The next entry to send.
    next: u64,
    /// The last entry kept when the reading began.
    last: u64,
    /// An entry was sent: the next one follows a comma.
    sent: bool,
}

fn render_entry(e: &Entry, head: &[u8], out: &mut Vec<u8>) {
    out.extend_cold(b"{\"seq\":");
    push_number(out, e.seq);
    out.extend_cold(b",\"time_us\":");
    push_number(out, e.time_us);
    out.extend_cold(b",\"client\":");
    match e.peer {
        Some(a) => {
            // An address has nothing to escape.
            out.push(b'"');
            let _ = write!(out, "{a}");
            out.push(b'"');
        }
        None => out.extend_cold(b"null"),
    }
    if head.is_empty() {
        out.extend_cold(b",\"method\":null,\"target\":null,\"headers\":[]");
    } else {
        let req = Echoed::new(head, head.len(), head.len(), 0);
        let (method, target, _) = req.request_line();
        out.extend_cold(b",\"method\":");
        push_string(out, method);
        out.extend_cold(b",\"target\":");
        push_string(out, target);
        out.extend_cold(b",\"headers\":[");
        for (n, (name, value)) in req.headers().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.push(b'[');
            push_string(out, name);
            out.push(b',');
            push_string(out, value);
            out.push(b']');
        }
        out.push(b']');
    }
    out.extend_cold(b",\"body_length\":");
    push_number(out, e.body_len);
    out.extend_cold(b",\"status\":");
    match e.status {
        0 => out.extend_cold(b"null"),
        s => push_number(out, u64::from(s)),
    }
    out.extend_cold(b",\"faults\":[");
    let mut first = true;
    for k in FaultKind::ALL {
        if e.faults & (1 << k.index()) != 0 {
            if !first {
                out.push(b',');
            }
            first = false;
            push_string(out, k.name().as_bytes());
        }
    }
    if e.mutate > 0 {
        if !first {
            out.push(b',');
        }
        let name = format!("mutate={}", crate::mutate::id(usize::from(e.mutate - 1)));
        push_string(out, name.as_bytes());
    }
    out.extend_cold(b"],\"rule\":");
    match Rule::ALL.get(usize::from(e.rule).wrapping_sub(1)) {
        Some(r) => push_string(out, r.name().as_bytes()),
        None => out.extend_cold(b"null"),
    }
    out.push(b'}');
}

fn push_number(out: &mut Vec<u8>, n: u64) {
    let _ = write!(out, "{n}");
}

/// `\u00XX` for a byte that JSON escapes by its value (a control, or one that is not UTF-8):
/// written without a formatter, as a large head may hold thousands.
fn push_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_cold(&[
        b'\\',
        b'u',
        b'0',
        b'0',
        HEX[usize::from(b >> 4)],
        HEX[usize::from(b & 15)],
    ]);
}

/// A JSON string of `bytes`: UTF-8 as it is, with quotes, backslashes and controls escaped;
/// a byte that is not UTF-8 (obs-text) as the character of its value (`\u00XX`).
fn push_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.extend_cold(b"\\\""),
                '\\' => out.extend_cold(b"\\\\"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => push_escape(out, c as u8),
                c => {
                    let mut b = [0; 4];
                    out.extend_cold(c.encode_utf8(&mut b).as_bytes());
                }
            }
        }
        for &b in chunk.invalid() {
            push_escape(out, b);
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memory figures of docs/echo-and-control.md (Request journal).
    #[test]
    fn memory_is_the_readmes() {
        assert_eq!(ENTRY_BYTES, 72);
        let most = MAX_ENTRIES as usize * (8 * 1024 + ENTRY_BYTES);
        assert_eq!(most / 1_000_000, 826, "{most} bytes");
    }

    /// The ring keeps the last entries, in order; a fault noted on one that was overwritten
    /// or cleared changes nothing.
    #[test]
    fn the_ring_keeps_the_last_entries() {
        let j = Journal::new(2, 64);
        let head = |t: &str| format!("GET {t} HTTP/1.1\r\nHost: a\r\n\r\n");
        fn rec(h: &str, status: u16) -> Record<'_> {
            Record {
                head: h.as_bytes(),
                peer: None,
                body_len: 0,
                status,
            }
        }
        let first = j.record(&rec(&head("/1"), 200));
        let second = j.record(&rec("", 400));
        let third = j.record(&rec(&head("/3"), 200));
        j.add_fault(first, FaultKind::Error);
        j.add_fault(third, FaultKind::Latency);
        j.set_rule(second, Rule::Request(crate::parser::Error::BareLf));
        let mut out = Vec::new();
        j.render(&mut out);
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.starts_with("{\"capacity\":2,\"recorded\":3,\"entries\":[{\"seq\":2,"),
            "{s}"
        );
        assert!(s.contains("\"target\":\"/3\""), "{s}");
        assert!(
            s.contains("\"status\":200,\"faults\":[\"latency\"],\"rule\":null}]}\n"),
            "{s}"
        );
        assert!(
            s.contains("\"method\":null,\"target\":null,\"headers\":[],\"body_length\":0,\"status\":400,\"faults\":[],\"rule\":\"bare_lf\"}"),
            "{s}"
        );
        assert!(!s.contains("\"/1\"") && !s.contains("error"), "{s}");
        j.clear();
        j.add_fault(third, FaultKind::Error);
        let mut out = Vec::new();
        j.render(&mut out);
        assert_eq!(out, b"{\"capacity\":2,\"recorded\":3,\"entries\":[]}\n");
    }

    /// A reading in pieces is the whole rendering, cut; an entry overwritten or cleared
    /// while it is read is left out, and what is sent stays JSON.
    #[test]
    fn a_reading_goes_in_pieces_and_skips_what_is_gone() {
        let j = Journal::new(4, 64);
        let rec = |t: &str| {
            let h = format!("GET {t} HTTP/1.1\r\nHost: a\r\n\r\n");
            j.record(&Record {
                head: h.as_bytes(),
                peer: None,
                body_len: 0,
                status: 200,
            });
        };
        for t in ["/1", "/2", "/3", "/4"] {
            rec(t);
        }
        let mut whole = Vec::new();
        j.render(&mut whole);
        let mut pieces = Vec::new();
        let mut r = j.begin_reading(&mut pieces);
        let mut n = 0;
        while !j.read_more(&mut r, &mut pieces, 1) {
            n += 1;
        }
        assert_eq!((pieces, n), (whole, 3));
        // /1 sent; then /5 and /6 overwrite /1 and /2, and the rest is cleared after /3.
        let mut out = Vec::new();
        let mut r = j.begin_reading(&mut out);
        assert!(!j.read_more(&mut r, &mut out, 1));
        rec("/5");
        rec("/6");
        assert!(!j.read_more(&mut r, &mut out, 1));
        let s = String::from_utf8(out.clone()).unwrap();
        assert!(
            s.contains("\"/1\"") && !s.contains("\"/2\"") && s.contains("\"/3\""),
            "{s}"
        );
        j.clear();
        assert!(j.read_more(&mut r, &mut out, 1));
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.ends_with("\"rule\":null}]}\n") && !s.contains("/4"),
            "{s}"
        );
    }

    /// A head longer than its slot is cut to it; bytes that are not UTF-8 are escaped.
    #[test]
    fn heads_are_bounded_and_escaped() {
        let j = Journal::new(1, 40);
        let h = b"GET /\xff\"q HTTP/1.1\r\nX: \x01\r\nLong: aaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
        j.record(&Record {
            head: h,
            peer: Some("127.0.0.1:9".parse().unwrap()),
            body_len: 3,
            status: 0,
        });
        let mut out = Vec::new();
        j.render(&mut out);
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\"client\":\"127.0.0.1:9\""), "{s}");
        assert!(s.contains("\"target\":\"/\\u00ff\\\"q\""), "{s}");
        assert!(s.contains("[\"X\",\"\\u0001\"]"), "{s}");
        assert!(s.contains("\"body_length\":3,\"status\":null"), "{s}");
    }
}
