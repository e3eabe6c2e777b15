//! Reading requests: parse the heads in what arrived, skip their bodies (by length or
//! chunked, within the body limit; an echo keeps them, see `echo`), and hand each complete
//! request to its answer.

use super::Http1Conn;
#[cfg(feature = "echo")]
use super::echo::{keep_echo_body, keep_echo_chunks};
use super::log::keep_request_line;
use super::state::{Body, Env, Pending, Phase, Refill, WorkArea};
use crate::chunked::ChunkedDecoder;
use crate::conn::Settings;
use crate::parser::{Framing, Rule, Status, Version};
use crate::response::CONTINUE;

impl Http1Conn {
    /// Process buffered input (after output drained or more input arrived).
    pub(super) fn resume(&mut self, b: &mut WorkArea, env: &mut Env<'_>) {
        let input = std::mem::take(&mut b.input);
        let used = self.process(b, &input, env.settings, env);
        let mut input = input;
        if used >= input.len() {
            input.clear();
        } else {
            input.drain(..used);
        }
        b.input = input;
    }

    /// Parse and answer what `buf` holds; returns the bytes used (all of them once a close is
    /// decided: later requests are not answered). `settings` is `env.settings`, passed apart:
    /// as an argument of its own the compiler knows nothing the loop writes can change it, and
    /// leaves the parser's inner loop its registers (read through `env`, the body limit took
    /// one from it: `benches/instructions.sh` measures the difference).
    pub(super) fn process(
        &mut self,
        b: &mut WorkArea,
        buf: &[u8],
        settings: &Settings,
        env: &mut Env<'_>,
    ) -> usize {
        let mut at = 0;
        loop {
            if !matches!(self.phase, Phase::Open) {
                self.answer_no_more(at < buf.len());
                return buf.len();
            }
            match &mut b.body {
                Body::Length(left) => {
                    let take = (*left).min((buf.len() - at) as u64);
                    #[cfg(feature = "echo")]
                    if settings.switches.echo() {
                        let kept = &buf[at..at + take as usize];
                        keep_echo_body(&mut b.echo, b.pending, kept, &env.features);
                    }
                    at += take as usize;
                    *left -= take;
                    if *left > 0 {
                        return at;
                    }
                    b.body = Body::None;
                    self.respond_after_body(b, env);
                }
                Body::Chunked(d) => match d.decode(&buf[at..]) {
                    Ok(p) => {
                        #[cfg(feature = "echo")]
                        if settings.switches.echo() {
                            let kept = &buf[at..at + p.consumed];
                            keep_echo_chunks(&mut b.echo, b.pending, kept, &env.features);
                        }
                        at += p.consumed;
                        if !p.done {
                            if d.over_limit() {
                                // The chunks announced more data than the body limit: 413
                                // and close, as for a Content-Length over it.
                                let head_request = b.pending.is_some_and(|p| p.head_request);
                                self.refuse(b, Rule::BodyTooLarge, head_request, env);
                                return buf.len();
                            }
                            return at;
                        }
                        #[cfg(feature = "journal")]
                        b.journal.set_body_len(d.data_len());
                        b.body = Body::None;
                        self.respond_after_body(b, env);
                    }
                    Err(e) => {
                        let head_request = b.pending.is_some_and(|p| p.head_request);
                        self.fail(b, e, head_request, env);
                        return buf.len();
                    }
                },
                Body::None => {
                    if at == buf.len() {
                        return at;
                    }
                    if !matches!(b.refill, Refill::None) || b.full() {
                        b.hold_back(&buf[at..], env.now_us);
                        return at;
                    }
                    match b.parser.parse(&buf[at..]) {
                        Ok(Status::Partial) => {
                            b.head_since_us.get_or_insert(env.now_us);
                            return at;
                        }
                        Err(e) => {
                            // Only the bytes the parser examined: the answer must not depend
                            // on how much of the rest had arrived.
                            let seen = (b.parser.position() + 1).min(buf.len() - at);
                            let head_request = is_head_request(&buf[at..at + seen]);
                            self.fail(b, e, head_request, env);
                            return buf.len();
                        }
                        Ok(Status::Complete(req)) => {
                            at += req.head_len;
                            env.stats.requests += 1;
                            let route = env.responses.route(req.method, req.path);
                            let logged = env.features.access_log.is_some() && {
                                let logged = !env.responses.is_health(route);
                                if logged {
                                    keep_request_line(b, &req);
                                } else {
                                    // The line before ends here: this answer is not its.
                                    super::log::close_log(b, env);
                                }
                                logged
                            };
                            b.head_since_us = None;
                            b.pending = Some(Pending {
                                route: route as u16,
                                head_request: req.is_head,
                                keep_alive: req.keep_alive,
                                http10: req.version == Version::Http10,
                                logged,
                            });
                            b.ask_whole();
                            // One test on the plain path for both.
                            if req.range_or_conditional | req.upgrade {
                                let head = &buf[at - req.head_len..at];
                                if cfg!(feature = "http2")
                                    && req.upgrade
                                    && self.upgrade(b, &req, head, env)
                                {
                                    return at;
                                }
                                if cfg!(feature = "ranges") && req.range_or_conditional {
                                    super::ranges::answer(head, route, b, env);
                                }
                            }
                            b.body = match req.framing {
                                Framing::None => Body::None,
                                Framing::Length(n) if n > settings.conn_limits.max_body => {
                                    // Refused before any of it is read (RFC 9110 §15.5.14).
                                    self.refuse(b, Rule::BodyTooLarge, req.is_head, env);
                                    return buf.len();
                                }
                                Framing::Length(n) => Body::Length(n),
                                Framing::Chunked => Body::Chunked(ChunkedDecoder::with_data_limit(
                                    settings.conn_limits.max_body,
                                )),
                            };
                            if req.expect_continue && !env.settings.switches.raw {
                                b.out.extend_from_slice(CONTINUE);
                            }
                            if settings.switches.by_request() {
                                let head = &buf[at - req.head_len..at];
                                self.start_echo_or_respond(b, head, settings, env);
                            } else if b.body == Body::None {
                                self.respond(b, env);
                            }
                        }
                    }
                }
            }
        }
    }
}

impl WorkArea {
    /// The header timeout expired with a partial head in the input: answer 408 (with no body
    /// when the head asks for HEAD).
    /// Input held back, unparsed, while output piles up. A head that has begun there is timed
    /// as one being parsed (the header timeout counts from the read that brought it), so that
    /// a client cannot trickle a head for as long as it leaves responses unread; whole heads
    /// are not (a pipelining client that reads slowly is bounded by the write timeout).
    #[cold]
    #[inline(never)]
    pub(super) fn hold_back(&mut self, held: &[u8], now_us: u64) {
        if self.head_since_us.is_none() && !has_head_end(held) {
            self.head_since_us = Some(now_us);
        }
    }

    pub(super) fn answer_late_head(&mut self, env: &mut Env<'_>) {
        let head_request = is_head_request(&self.input);
        self.input.clear();
        self.emit_error(Rule::HeaderTimeout, head_request, env);
    }
}

/// Whether `buf` holds the end of a head, CRLF CRLF. Found by `memchr` for each LF rather than
/// by `memchr::memmem`, whose searchers (about 5 KB of code) nothing else links, on this cold
/// path.
fn has_head_end(buf: &[u8]) -> bool {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', &buf[from..]) {
        let lf = from + i;
        if lf >= 3 && &buf[lf - 3..=lf] == b"\r\n\r\n" {
            return true;
        }
        from = lf + 1;
    }
    false
}

/// Whether the request starting at `buf` (after any empty lines, RFC 9112 §2.2) asks for HEAD,
/// read from the bytes themselves so that a request the parser rejected is known too.
fn is_head_request(buf: &[u8]) -> bool {
    let start = buf
        .iter()
        .position(|&c| c != b'\r' && c != b'\n')
        .unwrap_or(buf.len());
    buf[start..].starts_with(b"HEAD ")
}

#[cfg(test)]
mod tests {
    use super::has_head_end;

    /// CRLF CRLF anywhere, the bytes around it and a head split before it alike; a bare LF
    /// pair, or CRLF CRLF not yet whole, is no end.
    #[test]
    fn a_head_ends_at_crlf_crlf() {
        let cases: &[(&[u8], bool)] = &[
            (b"", false),
            (b"\r\n\r\n", true),
            (b"\n\r\n", false),
            (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
            (b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next", true),
            (b"GET / HTTP/1.1\r\nHost: a\r\n\r", false),
            (b"GET / HTTP/1.1\nHost: a\n\n", false),
            (b"\n\n\r\n\r\r\n", false),
            (b"a\r\n\r\n", true),
        ];
        for &(buf, end) in cases {
            let want = buf.windows(4).any(|w| w == b"\r\n\r\n");
            assert_eq!(want, end, "{buf:?}");
            assert_eq!(has_head_end(buf), end, "{buf:?}");
        }
    }
}
