//! Access-log lines (`crate::conn::log_line`): the request's words kept from the request line
//! until the response is decided, then the line opened in the loop turn's lines, with a
//! fault's or a malformed variant's name when one changed the response, and closed with the
//! answer's bytes and time once it is queued.

use super::state::{Env, Refill, WorkArea};
use crate::conn::log_line;
#[cfg(feature = "access-log")]
use crate::conn::{
    ACCESS_LOG_TURN_BYTES,
    log_line::{LINE_OVERHEAD, OpenLine, Request as LogRequest},
    push_log_word,
};
use crate::fault::FaultKind;
#[cfg(feature = "access-log")]
use crate::parser::Version;
use crate::parser::{Request, Rule};
use crate::plan::{Plan, Source};

/// Keep `METHOD TARGET VERSION ` of an access-log line until the response is decided, and
/// when the request's first byte was read.
#[inline(always)]
pub(super) fn keep_request_line(b: &mut WorkArea, req: &Request<'_>) {
    #[cfg(feature = "access-log")]
    {
        request_line(&mut b.log_line, req);
        b.log_since_us = b.head_since_us.unwrap_or(0);
    }
    #[cfg(not(feature = "access-log"))]
    let _ = (b, req);
}

#[cfg(feature = "access-log")]
fn request_line(line: &mut Vec<u8>, req: &Request<'_>) {
    line.clear();
    // The parser takes no control byte in either, but the log is the client's words written
    // to a terminal or a file: escaped whatever the parser's rules become.
    push_log_word(line, req.method, usize::MAX);
    line.push(b' ');
    push_log_word(line, req.target, usize::MAX);
    line.extend_from_slice(match req.version {
        Version::Http10 => b" HTTP/1.0 ",
        Version::Http11 => b" HTTP/1.1 ",
    });
}

/// Open the access-log line of the response being decided (`crate::conn::log_line`): its
/// bytes are those the output gains from here until [`close_log`]. `- - -` stands for a
/// request line that was never parsed (an error or a timeout). Returns whether the line was
/// written: one that would take the turn's lines past [`ACCESS_LOG_TURN_BYTES`] goes after
/// them once they are handed to the [`LogSink`](crate::conn::LogSink), or with none, is
/// dropped whole and counted.
pub(super) fn log_response(b: &mut WorkArea, status: u16, env: &mut Env<'_>) -> bool {
    let mark = b.out.len();
    log_response_from(b, status, mark, env)
}

/// [`log_response`] for an answer already appended from `mark` of the output.
pub(super) fn log_response_from(
    b: &mut WorkArea,
    status: u16,
    mark: usize,
    env: &mut Env<'_>,
) -> bool {
    #[cfg(feature = "journal")]
    if b.journal.is_due() {
        super::journal::record(b, status, env);
    }
    if env.features.access_log.is_none() {
        // Not kept for a later response, whatever this caller passed.
        #[cfg(feature = "access-log")]
        b.log_line.clear();
        return false;
    }
    #[cfg(feature = "access-log")]
    return open_line(b, status, mark, env);
    #[cfg(not(feature = "access-log"))]
    {
        let _ = (b, status, mark);
        false
    }
}

/// [`log_response_from`] with the access log on.
#[cfg(feature = "access-log")]
fn open_line(b: &mut WorkArea, status: u16, mark: usize, env: &mut Env<'_>) -> bool {
    // A pipelined request's line before this one: its answer is all queued.
    close_log(b, env);
    let date = env.responses.date();
    let len = date.len() + 2 * b.log_line.len() + LINE_OVERHEAD;
    let Some(log) = env.features.access_log.as_deref_mut() else {
        return false;
    };
    if log.lines.len() + len > ACCESS_LOG_TURN_BYTES {
        match env.features.log_sink {
            Some(sink) => env.stats.log_lines_dropped += sink.hand_off(&mut log.lines),
            None => {
                env.stats.log_lines_dropped += 1;
                b.log_line.clear();
                return false;
            }
        }
    }
    let req = LogRequest {
        words: &b.log_line,
        version: b"",
    };
    let at = log_line::open(
        &mut log.lines,
        log.json,
        date,
        log.client.as_ref(),
        &req,
        status,
    );
    // A request's first byte (0: read in this turn); without a request, the unfinished
    // head's (a 408, an error), else now.
    let since_us = match (b.log_since_us, b.head_since_us) {
        (0, Some(head)) => head,
        (0, None) => env.now_us,
        (since, _) => since,
    };
    b.log_since_us = 0;
    b.log_line.clear();
    log.open = Some(OpenLine { at, since_us, mark });
    true
}

/// Close the line [`log_response`] opened, if any: its bytes are what the output gained since
/// (and the rest of a body or of a drip to come), its time runs to now (or to the end of a
/// hold). Called where a line may have been opened (a request answered): the end of a read's
/// event, a pipelined request answered after a write, a late head's 408. Before the turn's
/// lines are handed to the writer, none is open.
#[inline(always)]
pub(super) fn close_log(b: &WorkArea, env: &mut Env<'_>) {
    if let Some(log) = env.features.access_log.as_deref() {
        if log.open.is_some() {
            close_open_line(b, env);
        }
    }
}

#[cold]
#[inline(never)]
fn close_open_line(b: &WorkArea, env: &mut Env<'_>) {
    let (responses, now_us) = (env.responses, env.now_us);
    // The journal's pieces to come (none is in the output before its line is opened).
    #[cfg(feature = "journal")]
    let journal = match (b.refill, env.features.journal.as_deref()) {
        (Refill::Journal, Some(r)) => {
            b.journal_left(&r.journal, env.settings.conn_limits.body_chunk)
        }
        _ => 0,
    };
    #[cfg(not(feature = "journal"))]
    let journal = 0;
    let Some(log) = env.features.access_log.as_deref_mut() else {
        return;
    };
    let Some(open) = log.open.take() else {
        return;
    };
    let mut bytes = b.out.len().saturating_sub(open.mark) as u64 + journal;
    match b.refill {
        Refill::Body { route, at } => {
            let body = responses.body(route as usize);
            bytes += b.pacing.body_stop.unwrap_or(body.len()).saturating_sub(at) as u64;
        }
        Refill::Repeat { left, .. } => bytes += left,
        // A drip's pieces not yet copied: all of them are sent unless the client goes away.
        Refill::Paced => {
            if let Some(c) = b.pacing.drip {
                bytes += c.len(responses).saturating_sub(c.copied) as u64;
            }
        }
        _ => {}
    }
    let end = log.now_us(now_us).max(b.hold_until_us);
    log_line::close(
        &mut log.lines,
        log.json,
        open.at,
        bytes,
        end.saturating_sub(open.since_us),
    );
}

/// [`log_response`] for canned's error to a request that broke `rule`: the access-log line
/// ends with ` rule=NAME`, and the journal's entry names it too.
#[cold]
#[inline(never)]
pub(super) fn log_rule(b: &mut WorkArea, rule: Rule, env: &mut Env<'_>) {
    #[cfg(feature = "journal")]
    let journaled = b.journal.is_due();
    if log_response(b, rule.status(), env) {
        annotate_log(env, "rule=", rule.name());
    }
    #[cfg(feature = "journal")]
    if let Some(j) = env
        .features
        .journal
        .as_deref()
        .filter(|j| journaled && j.seq > 0)
    {
        j.journal.set_rule(j.seq, rule);
    }
}

/// Add ` KEYVALUE` to the access-log line just written (the request's), if logging. Past
/// [`ACCESS_LOG_TURN_BYTES`] by a few such words at most: the line's room was checked without
/// them, and dropping it now would leave half a line.
pub(super) fn annotate_log(env: &mut Env<'_>, key: &str, value: &str) {
    if let Some(log) = env.features.access_log.as_deref_mut() {
        log_line::note(&mut log.lines, log.json, key, value);
    }
}

/// When the request is logged (`logged`): open the access-log line of `plan`'s answer and
/// record its journal entry, each with the plan's status, then note its fault kinds (or its
/// malformed variant) on both. Returns whether the line was written.
#[cold]
#[inline(never)]
pub(super) fn log_plan(b: &mut WorkArea, plan: &Plan, logged: bool, env: &mut Env<'_>) -> bool {
    if !logged {
        return false;
    }
    let written = log_response(b, plan.status, env);
    for &k in plan.kinds.as_slice() {
        if written {
            annotate_log(env, "fault=", k.name());
        }
        journal_fault(env, k);
    }
    if let Source::Variant(i) = plan.source {
        let i = usize::from(i);
        if written {
            annotate_log(env, "mutate=", crate::mutate::id(i));
        }
        journal_mutate(env, i);
    }
    written
}

/// `--journal`: note the fault `kind` on the entry just recorded.
fn journal_fault(env: &Env<'_>, kind: FaultKind) {
    if let Some(j) = env.features.journal.as_deref().filter(|j| j.seq > 0) {
        j.journal.add_fault(j.seq, kind);
    }
}

/// `--journal`: note the malformed variant `i` on the entry just recorded.
fn journal_mutate(env: &Env<'_>, i: usize) {
    if let Some(j) = env.features.journal.as_deref().filter(|j| j.seq > 0) {
        j.journal.set_mutate(j.seq, i);
    }
}
