//! `--access-log` per stream: one line a stream, `[DATE] CLIENT METHOD TARGET HTTP/2.0 STATUS
//! BYTES US` (`crate::conn::log_line`), as HTTP/1 writes it (the `:path` stands for the target). A stream's `METHOD TARGET ` is kept
//! from its HEADERS (the fields are gone once the next block is decoded) until it is
//! answered; the `--health` path is not logged, as in HTTP/1.
//!
//! What a stream keeps is bounded: at most [`METHOD_KEPT`] bytes of its method and
//! [`PATH_KEPT`] of its `:path`, each cut marked with [`CUT`] (a `[` can be in neither once the
//! request is well-formed), so that 100 streams with 16 KB paths hold 27 KiB, not 1.6 MiB.
//! Control bytes, a space, `\` and non-ASCII are written `\xNN` (`push_log_word`).

use super::{Env, Own, State, grpc};
use crate::conn::log_line::{self, LINE_OVERHEAD, Request as LogRequest};
use crate::conn::{ACCESS_LOG_TURN_BYTES, push_log_word};
use crate::fault::FaultKind;
use crate::frame::HEADER_LEN;
use crate::parser::Rule;
use crate::response::ExtendCold;

/// Each held entry: the stream id (4 bytes), the words' length (2 bytes), when its HEADERS
/// came (8 bytes, µs), the words.
const ENTRY_HEAD: usize = 14;
/// The most of a method kept for its line (escapes included).
const METHOD_KEPT: usize = 32;
/// The most of a `:path` kept for its line (escapes included).
const PATH_KEPT: usize = 224;
/// What follows a method or a path that was cut.
const CUT: &[u8] = b"[...]";

/// What the access log says of a stream's answer.
#[derive(Clone, Copy)]
pub(super) struct Answered<'a> {
    /// The status sent (0: none).
    pub(super) status: u16,
    /// ` rule=NAME` when the answer is canned's error for a limit the stream went past.
    pub(super) rule: Option<Rule>,
    /// [`State::answer_bytes`], or a fault's.
    pub(super) bytes: u64,
    /// ` fault=KIND` for each.
    pub(super) faults: &'a [FaultKind],
    /// The end of a hold (`--delay`, a latency), 0 without one.
    pub(super) until_us: u64,
    /// ` mutate=ID` for the catalogue's variant sent instead.
    pub(super) mutate: Option<usize>,
}

impl State {
    /// Keep `METHOD TARGET ` of `stream`'s request (its fields just decoded), when logging.
    pub(super) fn hold_log<W>(&mut self, stream: u32, route: usize, env: &Env<'_, W>) {
        if env.features.access_log.is_none() || env.responses.is_health(route) {
            return;
        }
        self.forget_logs();
        let f = &self.fields;
        let held = &mut self.held_log;
        let start = held.len();
        held.extend_cold(&stream.to_be_bytes());
        held.extend_cold(&[0, 0]);
        held.extend_cold(&env.now_us.to_be_bytes());
        for (word, kept) in [(&f.method, METHOD_KEPT), (&f.path, PATH_KEPT)] {
            if !push_log_word(held, word, kept) {
                held.extend_cold(CUT);
            }
            held.push(b' ');
        }
        // At most 32 + 224 + 2 * 6 bytes.
        let len = (held.len() - start - ENTRY_HEAD) as u16;
        held[start + 4..start + 6].copy_from_slice(&len.to_be_bytes());
    }

    /// Stream 1 of an upgraded connection: its words from HTTP/1 (empty: not logged).
    pub(super) fn upgraded_log<W>(&mut self, words: &[u8], env: &Env<'_, W>) {
        if env.features.access_log.is_none() || words.is_empty() {
            return;
        }
        let Ok(len) = u16::try_from(words.len()) else {
            return;
        };
        self.held_log.extend_cold(&1u32.to_be_bytes());
        self.held_log.extend_cold(&len.to_be_bytes());
        self.held_log.extend_cold(&env.now_us.to_be_bytes());
        self.held_log.extend_cold(words);
    }

    /// Stream `i` is answered with `status`, neither held nor shaped by a fault: its line,
    /// with ` rule=NAME` when the answer is canned's error for a limit it went past.
    #[cold]
    #[inline(never)]
    pub(super) fn log_plain<W>(
        &mut self,
        i: usize,
        status: u16,
        rule: Option<Rule>,
        until_us: u64,
        env: &mut Env<'_, W>,
    ) {
        let a = Answered {
            status,
            rule,
            bytes: self.answer_bytes(i, env),
            faults: &[],
            until_us,
            mutate: None,
        };
        self.log_answer(self.streams[i].id, &a, env);
    }

    /// `stream` is answered as `a` says: write its line, if it has one held.
    pub(super) fn log_answer<W>(&mut self, stream: u32, a: &Answered<'_>, env: &mut Env<'_, W>) {
        let Answered {
            status,
            rule,
            bytes,
            faults,
            until_us,
            mutate,
        } = *a;
        let Some(log) = env.features.access_log.as_deref_mut() else {
            return;
        };
        let Some((at, end)) = find(&self.held_log, stream) else {
            return;
        };
        let since_us = u64::from_be_bytes(
            self.held_log[at + 6..at + ENTRY_HEAD]
                .try_into()
                .unwrap_or_default(),
        );
        let words = &self.held_log[at + ENTRY_HEAD..end];
        let date = env.responses.date();
        let len = date.len() + 2 * words.len() + LINE_OVERHEAD;
        if log.lines.len() + len > ACCESS_LOG_TURN_BYTES {
            match env.features.log_sink {
                Some(sink) => env.stats.log_lines_dropped += sink.hand_off(&mut log.lines),
                None => {
                    env.stats.log_lines_dropped += 1;
                    self.held_log.drain(at..end);
                    return;
                }
            }
        }
        let req = LogRequest {
            words,
            version: b"HTTP/2.0",
        };
        let json = log.json;
        let open = log_line::open(
            &mut log.lines,
            json,
            date,
            log.client.as_ref(),
            &req,
            status,
        );
        if let Some(rule) = rule {
            log_line::note(&mut log.lines, json, "rule=", rule.name());
        }
        for k in faults {
            log_line::note(&mut log.lines, json, "fault=", k.name());
        }
        if let Some(i) = mutate {
            log_line::note(&mut log.lines, json, "mutate=", crate::mutate::id(i));
        }
        // To the end of a hold (`--delay`, a latency) when there is one.
        let end_us = log.now_us(env.now_us).max(until_us);
        log_line::close(
            &mut log.lines,
            json,
            open,
            bytes,
            end_us.saturating_sub(since_us),
        );
        self.held_log.drain(at..end);
    }

    /// The bytes of stream `i`'s answer as the access log counts them: the payloads of its
    /// HEADERS (the HPACK block, CONTINUATION frames included) and DATA frames (a cut
    /// answer's to its cut, a journal's whole), gRPC's trailers too; HTTP/1 counts its head
    /// and body, the same less the framing. The frames are formatted at the output's end and
    /// taken back: work done only with the log.
    #[cold]
    #[inline(never)]
    pub(super) fn answer_bytes<W>(&mut self, i: usize, env: &Env<'_, W>) -> u64 {
        let responses = env.responses;
        let s = self.streams[i];
        let mark = self.out.len();
        let mut data = 0;
        if s.grpc == grpc::Call::None {
            let body = match s.error {
                Own::Route => responses.body(s.route as usize).len(),
                Own::Refused(rule) => responses.error(rule)[2].len(),
                #[cfg(feature = "echo")]
                Own::Kept => self.kept_bytes(s.id, env),
            };
            data = if s.head_only { 0 } else { body };
            // A truncate or a reset sends the body to its cut (`faults`).
            if let Some(super::shape::Shaped {
                how: super::shape::How::Cut { cut, .. },
                ..
            }) = s.fault
            {
                data = cut.keep(data as u64) as usize;
            }
            self.response_headers(&s, data == 0, env);
        } else {
            // Room for all of it: its HEADERS, DATA and trailers.
            grpc::answer(s.grpc, s.id, false, i64::MAX, &mut self.out);
        }
        let mut frames = &self.out[mark..];
        let mut payloads = data as u64;
        while frames.len() >= HEADER_LEN {
            let len =
                usize::from(frames[0]) << 16 | usize::from(frames[1]) << 8 | usize::from(frames[2]);
            payloads += len as u64;
            frames = &frames[(HEADER_LEN + len).min(frames.len())..];
        }
        self.out.truncate(mark);
        payloads
    }

    /// Drop the held words of streams that ended unanswered (reset, refused, malformed):
    /// what is held is at most one entry per open stream.
    fn forget_logs(&mut self) {
        let mut at = 0;
        while at < self.held_log.len() {
            let (id, end) = entry(&self.held_log, at);
            if self.streams.iter().any(|s| s.id == id && !s.answering) || id == 0 {
                at = end;
            } else {
                self.held_log.drain(at..end);
            }
        }
    }
}

/// The entry at `at`: its stream and its end.
fn entry(held: &[u8], at: usize) -> (u32, usize) {
    let id = u32::from_be_bytes([held[at], held[at + 1], held[at + 2], held[at + 3]]);
    let len = u16::from_be_bytes([held[at + 4], held[at + 5]]) as usize;
    (id, at + ENTRY_HEAD + len)
}

/// Where `stream`'s entry is.
fn find(held: &[u8], stream: u32) -> Option<(usize, usize)> {
    let mut at = 0;
    while at < held.len() {
        let (id, end) = entry(held, at);
        if id == stream {
            return Some((at, end));
        }
        at = end;
    }
    None
}
