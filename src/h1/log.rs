//! Access-log lines: `[DATE] METHOD TARGET VERSION STATUS`, kept from the request line until
//! the response is decided, then appended to the loop turn's lines, with a fault's or a
//! malformed variant's name when one changed the response.

use super::state::{Body, Env, WorkArea};
use crate::conn::{ACCESS_LOG_TURN_BYTES, push_log_word};
use crate::fault::FaultKind;
use crate::journal::Record;
use crate::parser::{Request, Rule, Version};

/// Keep `METHOD TARGET VERSION ` of an access-log line until the response is decided.
pub(super) fn request_line(line: &mut Vec<u8>, req: &Request<'_>) {
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

/// Append the access-log line `[DATE] METHOD TARGET VERSION STATUS` of the response being
/// sent; `- - -` stands for a request line that was never parsed (an error or a timeout), and
/// `-` for the date with `--no-date` (common log format's mark of a missing field). Returns
/// whether the line was written: one that would take the turn's lines past
/// [`ACCESS_LOG_TURN_BYTES`] goes after them once they are handed to the
/// [`LogSink`](crate::conn::LogSink), or with none, is dropped whole and counted.
pub(super) fn log_response(b: &mut WorkArea, status: u16, env: &mut Env<'_>) -> bool {
    if b.journaled {
        record_journal(b, status, env);
    }
    let Some(log) = env.features.access_log.as_deref_mut() else {
        // Not kept for a later response, whatever this caller passed.
        b.log_line.clear();
        return false;
    };
    let date = env.responses.date();
    // Spaces with `--no-date`; an IMF-fixdate starts with the day's name.
    let dated = date[0] != b' ';
    let request = if b.log_line.is_empty() {
        &b"- - - "[..]
    } else {
        &b.log_line[..]
    };
    let len = if dated { date.len() + 3 } else { 2 } + request.len() + 4;
    if log.len() + len > ACCESS_LOG_TURN_BYTES {
        match env.features.log_sink {
            Some(sink) => env.stats.log_lines_dropped += sink.hand_off(log),
            None => {
                env.stats.log_lines_dropped += 1;
                b.log_line.clear();
                return false;
            }
        }
    }
    if dated {
        log.push(b'[');
        log.extend_from_slice(date);
        log.extend_from_slice(b"] ");
    } else {
        log.extend_from_slice(b"- ");
    }
    log.extend_from_slice(request);
    b.log_line.clear();
    log.extend_from_slice(&[
        b'0' + (status / 100) as u8,
        b'0' + (status / 10 % 10) as u8,
        b'0' + (status % 10) as u8,
        b'\n',
    ]);
    true
}

/// [`log_response`] for canned's error to a request that broke `rule`: the access-log line
/// ends with ` rule=NAME`, and the journal's entry names it too.
#[cold]
#[inline(never)]
pub(super) fn log_rule(b: &mut WorkArea, rule: Rule, env: &mut Env<'_>) {
    let journaled = b.journaled;
    if log_response(b, rule.status(), env) {
        annotate_log(env, "rule=", rule.name());
    }
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
        if log.last() == Some(&b'\n') {
            log.pop();
            log.push(b' ');
            log.extend_from_slice(key.as_bytes());
            log.extend_from_slice(value.as_bytes());
            log.push(b'\n');
        }
    }
}

/// `--journal`: keep the head of the request just parsed (`head`, the pending one) until its
/// response is decided, unless it asks for the journal itself or the `--health` path; its
/// response is then logged (recorded). Copied into a buffer whose capacity the pool keeps:
/// nothing is allocated in steady state.
#[cold]
#[inline(never)]
pub(super) fn keep_journal_head(b: &mut WorkArea, head: &[u8], env: &Env<'_>) {
    let Some(p) = b.pending.as_mut() else {
        return;
    };
    let route = p.route as usize;
    b.journaled = !env.responses.is_journal(route) && !env.responses.is_health(route);
    p.logged |= b.journaled;
    b.journal_head.clear();
    if b.journaled {
        b.journal_head.extend_from_slice(head);
    }
    b.journal_body = match b.body {
        Body::Length(n) => n,
        _ => 0,
    };
}

/// `--journal`: record the request being answered, with the status sent (0: none).
#[cold]
#[inline(never)]
fn record_journal(b: &mut WorkArea, status: u16, env: &mut Env<'_>) {
    b.journaled = false;
    if let Some(j) = env.features.journal.as_deref_mut() {
        j.seq = j.journal.record(&Record {
            head: &b.journal_head,
            peer: j.peer,
            body_len: b.journal_body,
            status,
        });
    }
    b.journal_head.clear();
    if b.journal_head.capacity() > JOURNAL_HEAD_KEEP {
        // The pool keeps work areas without counting this buffer: keep it small.
        b.journal_head = Vec::new();
    }
    b.journal_body = 0;
}

/// The capacity a work area keeps for the next journaled head (the default head limit): at
/// most 64 work areas a worker keep as much, beyond the pool's own bound.
const JOURNAL_HEAD_KEEP: usize = 8 * 1024;

/// `--journal`: note the fault `kind` on the entry just recorded.
pub(super) fn journal_fault(env: &Env<'_>, kind: FaultKind) {
    if let Some(j) = env.features.journal.as_deref().filter(|j| j.seq > 0) {
        j.journal.add_fault(j.seq, kind);
    }
}

/// `--journal`: note the malformed variant `i` on the entry just recorded.
pub(super) fn journal_mutate(env: &Env<'_>, i: usize) {
    if let Some(j) = env.features.journal.as_deref().filter(|j| j.seq > 0) {
        j.journal.set_mutate(j.seq, i);
    }
}
