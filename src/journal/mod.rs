//! `--journal N`: the last N requests, in a ring every worker records into, answered as JSON
//! on `--journal-path` and cleared by a DELETE there. Each entry keeps the request head as
//! received (at most `--max-head-bytes`, in a slot of that size), its time, client address,
//! body length, the status sent and the faults applied. The ring's memory is taken once at
//! start, `N * (head limit + ENTRY_BYTES)`, so that recording copies bytes and allocates
//! nothing; the JSON is formatted only when the journal is asked for.

use std::net::SocketAddr;
use std::sync::Mutex;

use crate::echo::Echoed;
use crate::fault::FaultKind;
use crate::parser::Rule;

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
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("capacity", &self.capacity)
            .field("slot_bytes", &self.slot_bytes)
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
        }
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
    /// entries oldest first.
    pub fn render(&self, out: &mut Vec<u8>) {
        let ring = self.lock();
        let kept = (ring.recorded - ring.cleared).min(self.capacity as u64);
        out.extend_from_slice(b"{\"capacity\":");
        push_number(out, self.capacity as u64);
        out.extend_from_slice(b",\"recorded\":");
        push_number(out, ring.recorded);
        out.extend_from_slice(b",\"entries\":[");
        for (n, seq) in (ring.recorded - kept + 1..=ring.recorded).enumerate() {
            if n > 0 {
                out.push(b',');
            }
            let i = ((seq - 1) % self.capacity as u64) as usize;
            let at = i * self.slot_bytes;
            let e = &ring.entries[i];
            render_entry(e, &ring.heads[at..at + e.head_len as usize], out);
        }
        out.extend_from_slice(b"]}\n");
    }
}

fn render_entry(e: &Entry, head: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"seq\":");
    push_number(out, e.seq);
    out.extend_from_slice(b",\"time_us\":");
    push_number(out, e.time_us);
    out.extend_from_slice(b",\"client\":");
    match e.peer {
        Some(a) => push_string(out, a.to_string().as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    if head.is_empty() {
        out.extend_from_slice(b",\"method\":null,\"target\":null,\"headers\":[]");
    } else {
        let req = Echoed::new(head, head.len(), head.len(), 0);
        let (method, target, _) = req.request_line();
        out.extend_from_slice(b",\"method\":");
        push_string(out, method);
        out.extend_from_slice(b",\"target\":");
        push_string(out, target);
        out.extend_from_slice(b",\"headers\":[");
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
    out.extend_from_slice(b",\"body_length\":");
    push_number(out, e.body_len);
    out.extend_from_slice(b",\"status\":");
    match e.status {
        0 => out.extend_from_slice(b"null"),
        s => push_number(out, u64::from(s)),
    }
    out.extend_from_slice(b",\"faults\":[");
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
    out.extend_from_slice(b"],\"rule\":");
    match Rule::ALL.get(usize::from(e.rule).wrapping_sub(1)) {
        Some(r) => push_string(out, r.name().as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.push(b'}');
}

fn push_number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(n.to_string().as_bytes());
}

/// A JSON string of `bytes`: UTF-8 as it is, with quotes, backslashes and controls escaped;
/// a byte that is not UTF-8 (obs-text) as the character of its value (`\u00XX`).
fn push_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
                }
                c => {
                    let mut b = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
            }
        }
        for &b in chunk.invalid() {
            out.extend_from_slice(format!("\\u{:04x}", b).as_bytes());
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's memory figures (Echo and control, Request journal).
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
