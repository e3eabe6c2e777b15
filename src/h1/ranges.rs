//! Ranges and conditional requests on a route that serves them: the answer a head with
//! `Range` or a conditional field gets ([`crate::conditional::evaluate`]), and its head (206,
//! 304, 412, 416) formatted into the output from the route's own, followed by a slice of the
//! route's preformatted body. Out of line: a request without those fields never comes here.

use super::state::{Asked, Env, Pending, Refill, WorkArea};
use crate::conditional::{Answer, evaluate, evaluate_range_only, method, range_field};
use crate::echo::decimal;
use crate::response::StatusHead;

/// The pending request's answer, when the request whose head is `head` on route `route` asks
/// other than the whole response: kept in `b` ([`WorkArea::ask`]). Only a route
/// that serves ranges and conditional requests answers so. Called only when the parser found
/// a `Range` or a conditional field (or an `Upgrade` that is not h2c's, which changes
/// nothing here); `head` is the request's whole head.
#[cold]
#[inline(never)]
pub(super) fn answer(head: &[u8], route: usize, b: &mut WorkArea, env: &Env<'_>) {
    if env.settings.switches.raw {
        return;
    }
    let Some(r) = env.representation(route) else {
        return;
    };
    // Read from the head, here: the plain path keeps only the parser's flag of a request.
    let method = method(head);
    let get_or_head = method == b"GET" || method == b"HEAD";
    let range = range_field(head);
    let len = env.responses.body(route).len() as u64;
    let answer = if r.etag.is_empty() && r.modified.is_none() {
        evaluate_range_only(head, get_or_head, range, len)
    } else {
        evaluate(head, get_or_head, range, len, &r.etag, r.modified)
    };
    b.ask(answer);
}

/// The most bytes of a `Content-Range` line: `Content-Range: bytes ` and three numbers of up
/// to 20 digits, `-`, `/`, CRLF.
const RANGE_LINE: usize = 21 + 3 * 20 + 4;

/// `Content-Range: bytes first-last/len` (or `*/len` without a range) and CRLF, in `buf`.
fn content_range(range: Option<(u64, u64)>, len: u64, buf: &mut [u8; RANGE_LINE]) -> usize {
    let mut at = 0;
    let mut put = |bytes: &[u8], buf: &mut [u8; RANGE_LINE]| {
        buf[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    };
    let mut digits = [0u8; 20];
    put(b"Content-Range: bytes ", buf);
    match range {
        Some((first, last)) => {
            put(decimal(first, &mut digits), buf);
            put(b"-", buf);
            put(decimal(last, &mut digits), buf);
        }
        None => put(b"*", buf),
    }
    put(b"/", buf);
    put(decimal(len, &mut digits), buf);
    put(b"\r\n", buf);
    at
}

impl WorkArea {
    /// Append the response to `p`, whose answer is not the whole response: the head of its
    /// status formatted from its route's (the same fields; `Content-Range` for 206 and 416;
    /// for 304 no `Content-Length` nor `Content-Type`, RFC 9110 §15.4.5; `Content-Length: 0`
    /// for 412 and 416), then for 206 the range of the body, unless the request is HEAD. Returns
    /// the length of the head appended.
    #[cold]
    #[inline(never)]
    pub(super) fn append_answer(
        &mut self,
        p: &Pending,
        asked: Asked,
        close: bool,
        env: &Env<'_>,
    ) -> usize {
        let route = p.route as usize;
        let r = env.responses;
        let len = r.body(route).len() as u64;
        let mut line = [0u8; RANGE_LINE];
        let mut digits = [0u8; 20];
        let start = self.out.len();
        let form = p.variant(close);
        let answer = self.answer_of(asked);
        match answer {
            Answer::Partial { first, last } => {
                let n = content_range(Some((first, last)), len, &mut line);
                let length = decimal(last - first + 1, &mut digits);
                r.append_status_head(
                    route,
                    form,
                    StatusHead {
                        status: 206,
                        length: Some(length),
                        extra: &line[..n],
                        same_body: true,
                    },
                    &mut self.out,
                );
                let head = self.out.len() - start;
                if !p.head_request {
                    let chunk = env.settings.conn_limits.body_chunk.max(1) as u64;
                    let end = (last + 1).min(first + chunk);
                    let body = r.body(route);
                    self.out
                        .extend_from_slice(&body[first as usize..end as usize]);
                    if end <= last {
                        self.refill = Refill::Body {
                            route: p.route,
                            at: end as usize,
                        };
                        self.pacing.body_stop = Some(last as usize + 1);
                    }
                }
                head
            }
            Answer::Unsatisfiable => {
                let n = content_range(None, len, &mut line);
                r.append_status_head(
                    route,
                    form,
                    StatusHead {
                        status: 416,
                        length: Some(b"0"),
                        extra: &line[..n],
                        same_body: true,
                    },
                    &mut self.out,
                );
                self.out.len() - start
            }
            Answer::NotModified => {
                r.append_status_head(
                    route,
                    form,
                    StatusHead {
                        status: 304,
                        length: None,
                        extra: b"",
                        same_body: true,
                    },
                    &mut self.out,
                );
                self.out.len() - start
            }
            Answer::PreconditionFailed | Answer::Whole => {
                let status = answer.status().unwrap_or(412);
                r.append_status_head(
                    route,
                    form,
                    StatusHead {
                        status,
                        length: Some(b"0"),
                        extra: b"",
                        same_body: true,
                    },
                    &mut self.out,
                );
                self.out.len() - start
            }
        }
    }
}
