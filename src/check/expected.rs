//! What a connection must send and log for a script, computed from the parser, the decoder and
//! RFC 9112's keep-alive tables, never from the connection's own decisions.

use crate::chunked::ChunkedDecoder;
use crate::conn::ConnLimits;
use crate::parser::{Framing, Limits, Parser, Rule, Status};
use crate::response::{CONTINUE, KeepAliveForm, Responses};
use std::vec::Vec;

/// How the peer behaves: the bytes it sends, how they are split into reads, how much each
/// write may take, and the server's settings.
#[derive(Clone, Debug)]
pub struct ConnScript<'a> {
    /// Bytes the peer sends.
    pub input: &'a [u8],
    /// Sizes of successive reads (cycled; 0 counts as 1).
    pub reads: &'a [usize],
    /// Sizes of successive writes (cycled; 0 means the socket is full this turn).
    pub writes: &'a [usize],
    /// Close after this many responses (0: unlimited).
    pub max_requests: u32,
    /// Head limits.
    pub limits: Limits,
    /// High-water mark, body refill size, body limit.
    pub conn_limits: ConnLimits,
    /// The server is shutting down from the start: every response closes.
    pub draining: bool,
}

/// The HTTP version of a request line, read from its last 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpVersion {
    /// `HTTP/1.0`
    Http10,
    /// `HTTP/1.1`
    Http11,
}

/// What the keep-alive rules look at in a request head, read from its bytes without the
/// parser: the version and the `close` and `keep-alive` connection options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionOptions {
    /// The request line's version.
    pub version: HttpVersion,
    /// `close` is among the `Connection` field values (any case).
    pub close: bool,
    /// `keep-alive` is among them.
    pub keep_alive: bool,
}

impl ConnectionOptions {
    /// Read a complete, valid head (as the parser accepted it).
    pub fn read(head: &[u8]) -> ConnectionOptions {
        let text = String::from_utf8_lossy(head);
        let mut lines = text.split("\r\n").skip_while(|l| l.is_empty());
        let request_line = lines.next().unwrap_or_default();
        let version = if request_line.ends_with("HTTP/1.0") {
            HttpVersion::Http10
        } else {
            HttpVersion::Http11
        };
        let (mut close, mut keep_alive) = (false, false);
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            if !name.eq_ignore_ascii_case("connection") {
                continue;
            }
            for option in value.split(',') {
                let option = option.trim_matches([' ', '\t']);
                close |= option.eq_ignore_ascii_case("close");
                keep_alive |= option.eq_ignore_ascii_case("keep-alive");
            }
        }
        ConnectionOptions {
            version,
            close,
            keep_alive,
        }
    }
}

/// RFC 9112 §9.3, row by row: (version, `close` option, `keep-alive` option) -> whether
/// the connection persists after the response. "If the close connection option is
/// present, the connection will not persist"; otherwise HTTP/1.1 persists, and HTTP/1.0
/// persists only with the keep-alive connection option (§9.3, and RFC 9112 Appendix C.2.2
/// for HTTP/1.0's keep-alive).
pub const PERSISTENCE: [(HttpVersion, bool, bool, bool); 8] = [
    (HttpVersion::Http11, false, false, true),
    (HttpVersion::Http11, false, true, true),
    (HttpVersion::Http11, true, false, false),
    (HttpVersion::Http11, true, true, false),
    (HttpVersion::Http10, false, false, false),
    (HttpVersion::Http10, false, true, true),
    (HttpVersion::Http10, true, false, false),
    (HttpVersion::Http10, true, true, false),
];

/// Which head a response uses, by (closes, version): a closing response says
/// `Connection: close`; an HTTP/1.0 keep-alive response says `Connection: keep-alive`
/// (the client asked for it and HTTP/1.0 does not persist without it); HTTP/1.1 needs no
/// field.
pub const VARIANTS: [(bool, HttpVersion, KeepAliveForm); 4] = [
    (true, HttpVersion::Http10, KeepAliveForm::Close),
    (true, HttpVersion::Http11, KeepAliveForm::Close),
    (false, HttpVersion::Http10, KeepAliveForm::KeepAlive10),
    (false, HttpVersion::Http11, KeepAliveForm::KeepAlive11),
];

/// The close decision and head variant for one response, from the tables: the
/// connection closes when RFC 9112 §9.3 says it does not persist, when the server is
/// shutting down, or when this is response number `max_requests`.
pub fn keep_alive_decision(
    options: ConnectionOptions,
    draining: bool,
    served: u32,
    max_requests: u32,
) -> (bool, KeepAliveForm) {
    let persists = PERSISTENCE
        .iter()
        .find(|row| (row.0, row.1, row.2) == (options.version, options.close, options.keep_alive))
        .map(|row| row.3)
        .expect("every combination is a row");
    let close = !persists || draining || (max_requests > 0 && served >= max_requests);
    let variant = VARIANTS
        .iter()
        .find(|row| (row.0, row.1) == (close, options.version))
        .map(|row| row.2)
        .expect("every combination is a row");
    (close, variant)
}

/// The status a method gets by itself (RFC 9110 §9.1), given the accepted-method list,
/// or `None` when the routes decide.
pub fn status_by_method(method: &[u8], accepted: &[&str]) -> Option<u16> {
    if method == b"CONNECT" {
        return Some(405);
    }
    if accepted.is_empty() {
        None
    } else if method == b"OPTIONS" {
        Some(204)
    } else if accepted.iter().any(|m| m.as_bytes() == method) {
        None
    } else {
        Some(405)
    }
}

/// What a connection must send and log, computed from the parser and decoder directly
/// and the keep-alive tables above, never from the connection's own decisions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expected {
    /// The bytes on the wire.
    pub wire: Vec<u8>,
    /// The status of each response, in order, and whether its request head was complete
    /// (an access-log line with the request line) or not (`- - -`).
    pub statuses: Vec<(u16, bool)>,
}

/// What a connection must send for `input` given at once and read whole: one response
/// per complete request, in order, a 100 Continue where due, an error response on the
/// first error (head alone for HEAD), nothing after a close.
pub fn expected_output(input: &[u8], max_requests: u32, limits: Limits, r: &Responses) -> Vec<u8> {
    let s = ConnScript {
        input,
        reads: &[],
        writes: &[],
        max_requests,
        limits,
        conn_limits: ConnLimits::default(),
        draining: false,
    };
    expected(&s, &[], r).wire
}

/// [`expected_output`] for a whole script (body limit, shutdown), with the log's statuses.
/// `accepted` is the method list `r` was built with.
pub fn expected(s: &ConnScript<'_>, accepted: &[&str], r: &Responses) -> Expected {
    let input = s.input;
    let mut out = Expected::default();
    let error = |out: &mut Expected, rule: Rule, head: bool, complete: bool| {
        let [start, h, b] = r.error(rule);
        out.wire.extend_from_slice(start);
        out.wire.extend_from_slice(h);
        if !head {
            out.wire.extend_from_slice(b);
        }
        out.statuses.push((rule.status(), complete));
    };
    let mut at = 0;
    let mut served = 0u32;
    loop {
        let mut parser = Parser::new(s.limits);
        let req = match parser.parse(&input[at..]) {
            Ok(Status::Partial) => break,
            Err(e) => {
                // HEAD only if the method was read before the error was found.
                let rest = &input[at..(at + parser.position() + 1).min(input.len())];
                let start = rest.iter().position(|&c| c != b'\r' && c != b'\n');
                let head = start.is_some_and(|i| rest[i..].starts_with(b"HEAD "));
                error(&mut out, Rule::Request(e), head, false);
                break;
            }
            Ok(Status::Complete(req)) => req,
        };
        let options = ConnectionOptions::read(&input[at..at + req.head_len]);
        at += req.head_len;
        let head_only = req.method == b"HEAD";
        match req.framing {
            Framing::Length(n) if n > s.conn_limits.max_body => {
                error(&mut out, Rule::BodyTooLarge, head_only, true);
                break;
            }
            _ => {}
        }
        if req.expect_continue {
            out.wire.extend_from_slice(CONTINUE);
        }
        match req.framing {
            Framing::None => {}
            Framing::Length(n) => {
                if ((input.len() - at) as u64) < n {
                    break;
                }
                at += n as usize;
            }
            Framing::Chunked => {
                let mut decoder = ChunkedDecoder::with_data_limit(s.conn_limits.max_body);
                match decoder.decode(&input[at..]) {
                    Ok(p) if p.done => at += p.consumed,
                    Ok(_) if decoder.over_limit() => {
                        error(&mut out, Rule::BodyTooLarge, head_only, true);
                        break;
                    }
                    Ok(_) => break,
                    Err(e) => {
                        error(&mut out, Rule::Request(e), head_only, true);
                        break;
                    }
                }
            }
        }
        served += 1;
        let (close, variant) = keep_alive_decision(options, s.draining, served, s.max_requests);
        let route = r.route(req.method, req.path);
        if let Some(status) = status_by_method(req.method, accepted) {
            assert_eq!(
                r.status(route),
                status,
                "{} answered by the wrong route",
                String::from_utf8_lossy(req.method)
            );
        }
        out.wire.extend_from_slice(&r.head(route, variant));
        if !head_only {
            out.wire.extend_from_slice(r.body(route));
        }
        out.statuses.push((r.status(route), true));
        if close {
            break;
        }
    }
    out
}
