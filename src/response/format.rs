//! The byte formatting: a [`Spec`] becomes the start of its heads (this worker's own, holding
//! the `Date` value) and, by keep-alive form, the rest of each head with a small body after
//! it, shared by every worker.

use super::spec::{Common, DEFAULT_CONTENT_TYPE, KeepAliveForm, Spec};
use super::status::{ERROR_STATUSES, reason};
use crate::parser::Rule;
use std::sync::Arc;

/// Bodies up to this size are formatted into the shared rest of each head, after it, so that
/// the response to GET is two copies (the start, the rest); a larger body is copied on its own.
pub const INLINE_BODY: usize = 1024;

/// One formatted route: the start of its heads is this worker's own (it holds the `Date`
/// value), the rest is shared by every worker.
#[derive(Clone, Debug)]
pub(super) struct Formatted {
    pub(super) status: u16,
    /// The status line, `Server` and `Date` fields: the same for every keep-alive form.
    pub(super) start: Box<[u8]>,
    /// Offset of the 29-byte date value in `start`, if any.
    pub(super) date_at: Option<usize>,
    /// By keep-alive form: the rest of the head, then the body when it is inlined.
    pub(super) rest: [Arc<[u8]>; 3],
    /// By keep-alive form: where the head ends in `rest`.
    pub(super) head_end: [u32; 3],
    /// The length of the body inlined in `rest` (0: none).
    pub(super) inline_len: u32,
    /// The body is sent after `rest` (not inlined in it, and not empty).
    pub(super) body_apart: bool,
    pub(super) body: Arc<[u8]>,
    pub(super) send_body: bool,
    /// The route given whose own response this is: its index, also in a copy of it made
    /// later; `u16::MAX` for any other (an answer by method, a fault's, one put at run time).
    pub(super) given: u16,
}

impl Formatted {
    /// The place of a response no fault sends any more: no bytes.
    pub(super) fn retired() -> Formatted {
        let empty: Arc<[u8]> = Arc::from(&[][..]);
        Formatted {
            status: 500,
            start: Box::default(),
            date_at: None,
            rest: [empty.clone(), empty.clone(), empty.clone()],
            head_end: [0; 3],
            inline_len: 0,
            body_apart: false,
            body: empty,
            send_body: false,
            given: u16::MAX,
        }
    }
}

/// canned's own error responses (the close form), one per [`Rule`]: the start of each
/// status's head is this worker's own (it holds the `Date` value); the rest of each rule's
/// head, with its body after it, is formatted once and shared by every worker.
#[derive(Clone, Debug)]
pub(super) struct Errors {
    /// By status, in [`ERROR_STATUSES`] order: the start of its head, and where its date is.
    starts: Vec<(Box<[u8]>, Option<usize>)>,
    /// By [`Rule::index`].
    rests: Arc<[ErrorRest]>,
}

/// The part of a rule's error response that does not change: the rest of its head, then its
/// body.
#[derive(Debug)]
struct ErrorRest {
    /// Its status's place in [`Errors::starts`].
    start: u8,
    bytes: Box<[u8]>,
    /// Where the head ends in `bytes`.
    head_end: u32,
}

impl Errors {
    /// Every rule's error response: the status line and the body `CODE Reason: what was
    /// wrong (clause)` ([`rule_body`]).
    #[cfg_attr(canned_small, optimize(size))]
    pub(super) fn new(common: &Common, date: &[u8; 29]) -> Errors {
        let starts = ERROR_STATUSES
            .iter()
            .map(|&status| {
                let f = format(&error_spec(status, Vec::new()), common, date);
                (f.start, f.date_at)
            })
            .collect();
        let close = KeepAliveForm::Close as usize;
        let rests = Rule::ALL
            .iter()
            .map(|&rule| {
                let status = rule.status();
                let f = format(&error_spec(status, rule_body(rule)), common, date);
                let head_end = f.head_end[close];
                ErrorRest {
                    start: ERROR_STATUSES
                        .iter()
                        .position(|&s| s == status)
                        .unwrap_or(0) as u8,
                    bytes: [&f.rest[close][..head_end as usize], &f.body[..]]
                        .concat()
                        .into_boxed_slice(),
                    head_end,
                }
            })
            .collect();
        Errors { starts, rests }
    }

    /// The response to a request that broke `rule`: its head in two pieces, then its body.
    pub(super) fn get(&self, rule: Rule) -> [&[u8]; 3] {
        let r = &self.rests[rule.index()];
        let (head, body) = r.bytes.split_at(r.head_end as usize);
        [&self.starts[r.start as usize].0, head, body]
    }

    /// Patch `date` into the start of every head.
    pub(super) fn set_date(&mut self, date: &[u8; 29]) {
        for (start, date_at) in &mut self.starts {
            if let Some(at) = *date_at {
                start[at..at + 29].copy_from_slice(date);
            }
        }
    }

    /// Bytes this worker keeps of its own: the starts of the heads, and the table of rules'
    /// rests (whose bytes every worker shares).
    pub(super) fn own_bytes(&self) -> usize {
        self.starts.iter().map(|(s, _)| s.len()).sum::<usize>()
            + self.starts.capacity() * std::mem::size_of::<(Box<[u8]>, Option<usize>)>()
            + std::mem::size_of::<Arc<[ErrorRest]>>()
    }

    /// Bytes every worker shares: the rests of the heads and the bodies.
    pub(super) fn shared_bytes(&self) -> usize {
        self.rests
            .iter()
            .map(|r| r.bytes.len() + std::mem::size_of::<ErrorRest>())
            .sum()
    }
}

/// The body of the error response to a request that broke `rule`: `400 Bad Request: a bare
/// LF, a line not ended by CRLF (RFC 9112 §2.2)` and a newline.
pub fn rule_body(rule: Rule) -> Vec<u8> {
    let (what, clause) = rule.reason();
    let status = rule.status();
    format!("{status} {}: {what} ({clause})\n", reason(status)).into_bytes()
}

fn error_spec(status: u16, body: Vec<u8>) -> Spec {
    Spec {
        status,
        body: Arc::from(body),
        content_type: DEFAULT_CONTENT_TYPE.into(),
        headers: Vec::new(),
    }
}

/// The three heads of `spec`: the same fields, then no `Connection` field, `keep-alive` or
/// `close`; the start of the heads on its own, the rest of each with a small body after it.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn format(spec: &Spec, common: &Common, date: &[u8; 29]) -> Formatted {
    use std::fmt::Write;
    let no_body = matches!(spec.status, 204 | 304);
    let mut start = String::new();
    let _ = write!(
        start,
        "HTTP/1.1 {} {}\r\n",
        spec.status,
        reason(spec.status)
    );
    if !common.server.is_empty() {
        let _ = write!(start, "Server: {}\r\n", common.server);
    }
    let mut date_at = None;
    if common.date {
        start.push_str("Date: ");
        date_at = Some(start.len());
        // A placeholder of the date's length; the date itself is copied in below.
        start.push_str("Thu, 01 Jan 1970 00:00:00 GMT\r\n");
    }
    let mut start = start.into_bytes().into_boxed_slice();
    if let Some(at) = date_at {
        start[at..at + 29].copy_from_slice(date);
    }
    let mut head = String::new();
    // No Content-Length for 204 (RFC 9110 §8.6: MUST NOT) nor for 304 (allowed only as the
    // length of the 200 response it stands for, which canned does not have).
    if !no_body {
        if !spec.content_type.is_empty() {
            let _ = write!(head, "Content-Type: {}\r\n", spec.content_type);
        }
        let _ = write!(head, "Content-Length: {}\r\n", spec.body.len());
    }
    for h in &spec.headers {
        let _ = write!(head, "{h}\r\n");
    }
    let ends: [&[u8]; 3] = [
        b"\r\n",
        b"Connection: keep-alive\r\n\r\n",
        b"Connection: close\r\n\r\n",
    ];
    let inline = !no_body && spec.body.len() <= INLINE_BODY;
    let body: &[u8] = if inline { &spec.body } else { &[] };
    Formatted {
        status: spec.status,
        start,
        date_at,
        rest: ends.map(|end| Arc::from([head.as_bytes(), end, body].concat())),
        head_end: ends.map(|end| (head.len() + end.len()) as u32),
        inline_len: body.len() as u32,
        body_apart: !no_body && !inline && !spec.body.is_empty(),
        body: spec.body.clone(),
        send_body: !no_body,
        given: u16::MAX,
    }
}

/// The most bytes the formatted responses of a server may take
/// ([`Responses::formatted_bytes`](super::Responses::formatted_bytes),
/// [`formatted_bytes`]): 64 MiB. `--route` multiplies `--header`: past this, start-up is
/// refused rather than the memory taken.
pub const MAX_FORMATTED_BYTES: usize = 64 << 20;

/// The bytes [`Responses::formatted_bytes`](super::Responses::formatted_bytes) counts for one
/// route.
pub(super) fn formatted_len(f: &Formatted) -> usize {
    let rest = if Arc::ptr_eq(&f.rest[0], &f.rest[2]) {
        // A raw response: the file's bytes as given, once, like a body (not counted).
        0
    } else {
        f.rest.iter().map(|r| r.len()).sum()
    };
    f.start.len() + rest
}

/// What [`Responses::formatted_bytes`](super::Responses::formatted_bytes) counts for `spec`,
/// formatted on its own (so that a configuration can be measured before its responses are
/// built).
pub fn formatted_bytes(spec: &Spec, common: &Common) -> usize {
    formatted_len(&format(spec, common, &[b' '; 29]))
}
