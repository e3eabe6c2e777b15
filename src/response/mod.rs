//! The canned bytes: every response canned can send, formatted once at start-up.
//!
//! Each route has three heads that differ only in their `Connection` field (RFC 9112 §9.3):
//! HTTP/1.1 keep-alive (none), HTTP/1.0 keep-alive (`Connection: keep-alive`, which `ab -k`
//! looks for) and close (`Connection: close`). A GET answer is a head followed by the body; a
//! HEAD answer is the head alone. The `Date` field is rendered once per second and patched in
//! place ([`Responses::set_date`]), so a response is always a plain slice of these buffers.
//!
//! A head is two pieces: its start (status line, `Server`, `Date`), which each worker keeps
//! and patches, and the rest (the other fields, the `Connection` field of its keep-alive
//! form, and a small body), formatted once and shared by every worker ([`Arc`]): a
//! configuration with many routes or long header fields is in memory once, however many
//! workers serve it, and a response is still two copies, the start and the rest.
//!
//! | file | holds |
//! |---|---|
//! | `spec` | what a route answers, the fields every response shares, the keep-alive forms |
//! | `format` | a spec's bytes, and the bound on them all |
//! | `route` | the counter routes and the answers by method |
//! | `paths` | the paths' table changed while the server runs |
//! | `status` | reason phrases, canned's own error responses and their body |
//! | `date` | the `Date` value |

mod date;
mod format;
mod paths;
mod route;
mod spec;
mod status;
#[cfg(test)]
mod tests;

pub use date::http_date;
pub use format::{INLINE_BODY, MAX_FORMATTED_BYTES, formatted_bytes, rule_body};
pub use route::{CounterPaths, CounterRoutes, DEFAULT_ALLOW, METRICS_CONTENT_TYPE};
pub use spec::{Common, DEFAULT_CONTENT_TYPE, KeepAliveForm, Spec};

pub use status::{CONTINUE, ERROR_STATUSES, error_body, reason};

use crate::parser::Rule;
use format::{Errors, Formatted, format, formatted_len};
use route::{MethodRules, counter_spec, method_not_allowed};
use std::sync::Arc;

/// `Vec<u8>::extend_from_slice` as a call, for the paths no plain request takes (the access
/// log, the journal, `--control`, the echo, faults, the admin API, the heads made when an
/// answer is sent): inlined, each append is a capacity check, a grow call and a copy, about
/// 100 bytes at every site.
pub(crate) trait ExtendCold {
    /// Append `bytes`.
    fn extend_cold(&mut self, bytes: &[u8]);
}

impl ExtendCold for Vec<u8> {
    #[inline(never)]
    fn extend_cold(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// All responses of one worker: routes (index 0 is the default) and one error response per
/// rule a request can break ([`Rule`]). A clone shares the routes' formatted bytes, but for the starts
/// of their heads: the server formats its responses once and gives each worker a clone.
#[derive(Clone, Debug)]
pub struct Responses {
    routes: Vec<Formatted>,
    /// The specs of the routes whose body [`Responses::set_body`] replaces (the counter
    /// routes), by route.
    replaceable: Vec<(usize, Spec)>,
    common: Common,
    /// Exact paths, with the methods they answer and the route answering them (at start
    /// `paths[i]` selects route `i + 1`; `--admin` changes them at run time).
    paths: Vec<(Vec<u8>, Methods, u16)>,
    /// The health route (`u16::MAX`: none).
    health: u16,
    errors: Errors,
    date: [u8; 29],
    /// Answers chosen by method before any route; none for a raw response.
    methods: Option<MethodRules>,
}

/// What [`Responses::append_status_head`] changes in a route's head.
#[derive(Clone, Copy, Debug)]
pub struct StatusHead<'a> {
    /// The status instead of the route's.
    pub status: u16,
    /// The `Content-Length` digits; `None`: no `Content-Length` nor `Content-Type` (204, 304).
    pub length: Option<&'a [u8]>,
    /// Lines (each ending in CRLF) before the empty line.
    pub extra: &'a [u8],
    /// The body is the route's own (a range of it, or none in its stead).
    pub same_body: bool,
}

/// The fields of a route that serves ranges, about its own body.
const VALIDATOR_FIELDS: [&[u8]; 3] = [b"Accept-Ranges: ", b"ETag: ", b"Last-Modified: "];

/// The field a route that serves ranges carries (RFC 9110 §14.3), with its validators.
const SERVES_RANGES: &[u8] = b"Accept-Ranges: bytes\r\n";

/// The methods a route answers.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Methods {
    Any,
    /// GET and HEAD (the health route); any other method goes on to the other routes.
    GetHead,
    /// `method` (and HEAD, for GET); any other goes on to the path's other routes, and after
    /// them to route `not_allowed` (405 with `Allow`).
    One {
        method: Box<[u8]>,
        not_allowed: u16,
    },
}

impl Responses {
    /// Format every route; `routes[0]` answers paths without a route of their own, and
    /// `paths[i]` (an exact path, and whether only GET and HEAD match) selects `routes[i + 1]`.
    pub fn new(routes: &[Spec], paths: &[(Vec<u8>, bool)], common: &Common) -> Responses {
        Responses::build(routes.iter(), paths.to_vec(), common)
    }

    /// [`Responses::new`] from references, so that a configuration's routes are formatted
    /// without a copy of their specs.
    fn build<'a>(
        routes: impl Iterator<Item = &'a Spec>,
        paths: Vec<(Vec<u8>, bool)>,
        common: &Common,
    ) -> Responses {
        let date = if common.date {
            http_date(std::time::SystemTime::now())
        } else {
            [b' '; 29]
        };
        let routes: Vec<Formatted> = routes
            .enumerate()
            .map(|(i, s)| Formatted {
                given: u16::try_from(i).unwrap_or(u16::MAX),
                ..format(s, common, &date)
            })
            .collect();
        let paths: Vec<(Vec<u8>, Methods, u16)> = paths
            .into_iter()
            .enumerate()
            .map(|(i, (p, get_only))| {
                let methods = if get_only {
                    Methods::GetHead
                } else {
                    Methods::Any
                };
                (p, methods, (i + 1) as u16)
            })
            .collect();
        let health = paths
            .iter()
            .find(|p| p.1 == Methods::GetHead)
            .map_or(u16::MAX, |p| p.2);
        assert_eq!(
            routes.len(),
            paths.len() + 1,
            "one path per route after the default"
        );
        let errors = Errors::new(common, &date);
        let mut r = Responses {
            routes,
            replaceable: Vec::new(),
            common: common.clone(),
            paths,
            health,
            errors,
            date,
            methods: None,
        };
        let not_allowed = r.push_route(method_not_allowed(DEFAULT_ALLOW));
        r.methods = Some(MethodRules {
            accepted: Vec::new(),
            not_allowed,
            options: not_allowed,
        });
        r
    }

    /// Answer only `methods` (tokens, e.g. `["GET", "HEAD", "POST"]`) from the routes: any
    /// other method gets 405 with `Allow` listing them, and OPTIONS gets 204 with the same
    /// `Allow` (RFC 9110 §9.3.7). CONNECT stays 405 even when listed. An empty list changes
    /// nothing: every method but CONNECT is answered by the routes. No effect on a raw
    /// response.
    pub fn accept_only(&mut self, methods: &[&str]) {
        let Some(rules) = &self.methods else {
            return;
        };
        if methods.is_empty() {
            return;
        }
        let (not_allowed, options) = (rules.not_allowed, rules.options);
        let mut accepted: Vec<Vec<u8>> = Vec::new();
        for m in methods {
            if *m != "CONNECT" && !accepted.iter().any(|a| a.as_slice() == m.as_bytes()) {
                accepted.push(m.as_bytes().to_vec());
            }
        }
        let mut allow = String::new();
        for m in &accepted {
            allow.push_str(std::str::from_utf8(m).unwrap_or_default());
            allow.push_str(", ");
        }
        if !accepted.iter().any(|m| m == b"OPTIONS") {
            allow.push_str("OPTIONS, ");
        }
        allow.truncate(allow.len() - 2);
        self.replace_route(not_allowed, method_not_allowed(&allow));
        let options_answer = Spec {
            status: 204,
            body: Arc::from(&[][..]),
            content_type: String::new(),
            headers: vec![format!("Allow: {allow}")],
        };
        let options = if options == not_allowed {
            self.push_route(options_answer)
        } else {
            self.replace_route(options, options_answer);
            options
        };
        self.methods = Some(MethodRules {
            accepted,
            not_allowed,
            options,
        });
    }

    // Called, not inlined: start-up and the admin API add routes, each call site had a copy.
    #[inline(never)]
    fn push_route(&mut self, spec: Spec) -> usize {
        self.routes.push(format(&spec, &self.common, &self.date));
        self.routes.len() - 1
    }

    fn replace_route(&mut self, route: usize, spec: Spec) {
        self.routes[route] = format(&spec, &self.common, &self.date);
    }

    /// [`Responses::new`] with the counter routes after the given ones: `--stats` and
    /// `--metrics` one more route each, at the path given in `counters`, whose indices are
    /// returned for the counters' bodies ([`Responses::set_body`]).
    pub fn with_counters<'a>(
        routes: impl Iterator<Item = &'a Spec>,
        mut paths: Vec<(Vec<u8>, bool)>,
        counters: CounterPaths<'_>,
        common: &Common,
    ) -> (Responses, CounterRoutes) {
        let first = paths.len() + 1;
        let mut specs: Vec<Spec> = Vec::new();
        let mut counter_route = |path: Option<&str>, body: &[u8], content_type: &str| {
            let path = path?;
            specs.push(counter_spec(body, content_type));
            paths.push((path.as_bytes().to_vec(), false));
            Some(first + specs.len() - 1)
        };
        let counter_routes = CounterRoutes {
            stats: counter_route(counters.stats, b"{}\n", "application/json"),
            metrics: counter_route(counters.metrics, b"", METRICS_CONTENT_TYPE),
        };
        // The map lets the caller's longer-lived specs chain with these.
        let routes = routes.map(|s| -> &Spec { s }).chain(&specs);
        let mut responses = Responses::build(routes, paths, common);
        responses.replaceable = (first..).zip(specs).collect();
        (responses, counter_routes)
    }

    /// Format a response no path selects (a fault's error response); returns its route
    /// index.
    pub fn add_unrouted(&mut self, spec: &Spec) -> usize {
        self.add_unrouted_at(spec, None)
    }

    /// [`Responses::add_unrouted`] at index `at` (one retired, [`Responses::retire`]), or
    /// after the others.
    pub fn add_unrouted_at(&mut self, spec: &Spec, at: Option<usize>) -> usize {
        let f = format(spec, &self.common, &self.date);
        self.put_route(f, at)
    }

    /// Add a copy of route `of`'s response, the same bytes (its `Accept-Ranges` and
    /// validators included), the same route given ([`Responses::given`]): the route's own
    /// answer as a fault sends it from an index of its own (a drip). Returns its index.
    pub fn add_copy(&mut self, of: usize) -> usize {
        self.add_copy_at(of, None)
    }

    /// [`Responses::add_copy`] at index `at` (one retired), or after the others.
    pub fn add_copy_at(&mut self, of: usize, at: Option<usize>) -> usize {
        let copy = self.routes[of].clone();
        self.put_route(copy, at)
    }

    // Called, not inlined, as `push_route`.
    #[inline(never)]
    fn put_route(&mut self, f: Formatted, at: Option<usize>) -> usize {
        match at {
            Some(at) => {
                self.routes[at] = f;
                at
            }
            None => {
                self.routes.push(f);
                self.routes.len() - 1
            }
        }
    }

    /// The route given ([`Responses::new`]'s routes, the counter routes after them) whose own
    /// response route `route` sends: `route` itself, or the route a copy was made of
    /// ([`Responses::add_copy`]); `None` for any other response (an answer by method, a
    /// fault's, one put at run time, at a new index or at a route's retired one). What a
    /// feature keeps by route given (a route's validators) follows its copies so.
    pub fn given(&self, route: usize) -> Option<usize> {
        let given = self.routes.get(route)?.given;
        (given != u16::MAX).then_some(usize::from(given))
    }

    /// Drop the bytes of route `route`, a response no fault sends any more: the index stays,
    /// empty, until a response is formatted at it again ([`Responses::add_unrouted`]).
    pub fn retire(&mut self, route: usize) {
        self.put_route(Formatted::retired(), Some(route));
    }

    /// Take the routes of `from` (the responses a fault formatted later into a clone of the
    /// same responses, and those it retired or formatted again at a retired index), with
    /// this one's `Date`: the bytes are shared, only the heads' starts are copied. A route
    /// this one sends itself (a counter route) stays, and so does one that `held(route)`
    /// says a response under way still sends: those are returned, to be taken at a later
    /// change. `replaced(route)` is told of each route whose bytes this one had and changes,
    /// so that what was made from them (HTTP/2's HEADERS) is made again or dropped.
    pub fn adopt_routes(
        &mut self,
        from: &Responses,
        held: impl Fn(usize) -> bool,
        mut replaced: impl FnMut(usize),
    ) -> Vec<u16> {
        self.adopt_paths(from);
        let mut kept = Vec::new();
        for (i, f) in from.routes.iter().enumerate() {
            if let Some(own) = self.routes.get(i) {
                if Arc::ptr_eq(&own.rest[0], &f.rest[0]) || self.body_changes(i) {
                    continue;
                }
                if held(i) {
                    kept.push(i as u16);
                    continue;
                }
                replaced(i);
            }
            let mut f = f.clone();
            if let Some(at) = f.date_at {
                f.start[at..at + 29].copy_from_slice(&self.date);
            }
            match self.routes.get_mut(i) {
                Some(own) => *own = f,
                None => self.routes.push(f),
            }
        }
        kept
    }

    /// `--raw-response`: the same bytes, verbatim, for every request and keep-alive form.
    pub fn raw(bytes: Arc<[u8]>, common: &Common) -> Responses {
        let only = Spec {
            status: 200,
            body: bytes.clone(),
            content_type: String::new(),
            headers: Vec::new(),
        };
        let mut r = Responses::new(std::slice::from_ref(&only), &[], common);
        let end = bytes.len() as u32;
        r.routes[0] = Formatted {
            status: 200,
            start: Box::default(),
            date_at: None,
            rest: [bytes.clone(), bytes.clone(), bytes],
            head_end: [end; 3],
            inline_len: 0,
            body_apart: false,
            body: Arc::from(&[][..]),
            send_body: false,
            given: 0,
        };
        // The file is the whole answer to every request, whatever its method.
        r.methods = None;
        r
    }

    /// The route answering `method` on `path`: the first route of the path whose methods take
    /// it; else, when the path has routes by method, its 405; else 0, the default. Inlined in
    /// each caller: called from HTTP/1 and HTTP/2, it would otherwise be a call of its own,
    /// 17 instructions per HTTP/1 request more (`benches/instructions.sh`: 788 against 771).
    #[inline(always)]
    pub fn route(&self, method: &[u8], path: &[u8]) -> usize {
        if let Some(route) = self.methods.as_ref().and_then(|m| m.answer(method)) {
            return route;
        }
        let mut not_allowed = 0;
        for (p, only, route) in self.paths.iter() {
            if p.as_slice() == path {
                let route = usize::from(*route);
                match only {
                    Methods::Any => return route,
                    Methods::GetHead if method == b"GET" || method == b"HEAD" => return route,
                    Methods::GetHead => {}
                    Methods::One {
                        method: m,
                        not_allowed: n,
                    } => {
                        if m.as_ref() == method || (m.as_ref() == b"GET" && method == b"HEAD") {
                            return route;
                        }
                        not_allowed = usize::from(*n);
                    }
                }
            }
        }
        not_allowed
    }

    /// Make routes 1.. answer only the method given for them (`--route 'POST /orders=…'`), by
    /// route index (the default's, first, is ignored): HEAD with the GET route, any other
    /// method of the path with the path's other routes, or with a 405 whose `Allow` lists the
    /// methods of its routes (HEAD after GET). The routes by method must come before the
    /// others of their path; a server without any pays nothing for them in [`Responses::route`]
    /// but the test of one more register.
    pub fn set_route_methods<'a>(&mut self, methods: impl Iterator<Item = Option<&'a str>>) {
        let methods: Vec<Option<&str>> = methods.skip(1).collect();
        let mut done: Vec<Vec<u8>> = Vec::new();
        for i in 0..methods.len().min(self.paths.len()) {
            if methods[i].is_none() || done.contains(&self.paths[i].0) {
                continue;
            }
            let path = self.paths[i].0.clone();
            let mut allow = String::new();
            for (j, m) in methods.iter().enumerate() {
                let Some(m) = m.filter(|_| self.paths[j].0 == path) else {
                    continue;
                };
                if !allow.split(", ").any(|a| a == m) {
                    if !allow.is_empty() {
                        allow.push_str(", ");
                    }
                    allow.push_str(m);
                    if m == "GET" {
                        allow.push_str(", HEAD");
                    }
                }
            }
            let n = self.push_route(method_not_allowed(&allow)) as u16;
            for (j, m) in methods.iter().enumerate() {
                if let Some(m) = m.filter(|_| self.paths[j].0 == path) {
                    self.paths[j].1 = Methods::One {
                        method: m.as_bytes().into(),
                        not_allowed: n,
                    };
                }
            }
            done.push(path);
        }
    }

    /// Replace the body of route `route` (a counter route of [`Responses::with_counters`],
    /// refreshed by its worker), keeping its status and headers; no other route changes.
    pub fn set_body(&mut self, route: usize, body: Arc<[u8]>) {
        let Some((_, spec)) = self.replaceable.iter_mut().find(|(r, _)| *r == route) else {
            return;
        };
        spec.body = body;
        // This worker's own bytes for the route from now on.
        self.routes[route] = Formatted {
            given: self.routes[route].given,
            ..format(spec, &self.common, &self.date)
        };
    }

    /// The current IMF-fixdate (spaces with `--no-date`).
    pub fn date(&self) -> &[u8; 29] {
        &self.date
    }

    /// Whether route `route` answers only GET and HEAD (the health route, kept out of the
    /// access log).
    pub fn is_health(&self, route: usize) -> bool {
        route == usize::from(self.health)
    }

    /// The status code of route `route` (200 for a raw response).
    pub fn status(&self, route: usize) -> u16 {
        self.routes[route].status
    }

    /// The number of routes (the default and the answers by method included).
    pub fn routes(&self) -> usize {
        self.routes.len()
    }

    /// Append the response of route `route` in `form` to `out`: the head, and unless
    /// `head_only` the body, or its first `chunk` bytes when it is longer. Returns the body
    /// offset the rest starts at when only a first piece was appended.
    #[inline(always)]
    pub fn append(
        &self,
        route: usize,
        form: KeepAliveForm,
        head_only: bool,
        chunk: usize,
        out: &mut Vec<u8>,
    ) -> Option<usize> {
        let f = &self.routes[route];
        out.extend_from_slice(&f.start);
        let rest = &f.rest[form as usize];
        // The rest whole, its inlined body included, unless that body is not wanted or is to
        // be sent in pieces smaller than itself.
        let whole = !head_only && f.inline_len as usize <= chunk;
        let end = if whole {
            rest.len()
        } else {
            f.head_end[form as usize] as usize
        };
        out.extend_from_slice(&rest[..end]);
        if head_only || (whole && !f.body_apart) {
            return None;
        }
        if f.body.len() <= chunk {
            out.extend_from_slice(&f.body);
            None
        } else {
            out.extend_from_slice(&f.body[..chunk]);
            Some(chunk)
        }
    }

    /// Append the head of route `route` in `form` to `out` with `Content-Length: LENGTH`
    /// (`length` its digits) instead of its own body's length: the head of a body made when it
    /// is sent (an echo).
    /// The field is found in the head's lines then, not recorded: a route that never echoes
    /// pays nothing for it.
    pub fn append_sized_head(
        &self,
        route: usize,
        form: KeepAliveForm,
        length: &[u8],
        out: &mut Vec<u8>,
    ) {
        const FIELD: &[u8] = b"Content-Length: ";
        let f = &self.routes[route];
        out.extend_cold(&f.start);
        let rest = &f.rest[form as usize][..f.head_end[form as usize] as usize];
        let mut line = 0;
        while line < rest.len() && !rest[line..].starts_with(FIELD) {
            line += rest[line..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(rest.len(), |i| i + 1);
        }
        let at = (line + FIELD.len()).min(rest.len());
        out.extend_cold(&rest[..at]);
        if at < rest.len() {
            out.extend_cold(length);
        }
        let end = rest[at..]
            .iter()
            .position(|&c| c == b'\r')
            .map_or(rest.len(), |i| at + i);
        out.extend_cold(&rest[end..]);
    }

    /// Append the head of route `route` in `form` to `out` for a body whose length is not
    /// known when it starts (the journal, sent a piece at a time): `Transfer-Encoding:
    /// chunked` instead of its `Content-Length` when `chunked`, else no length at all (an
    /// HTTP/1.0 answer whose body ends at the close, RFC 9112 §6.3 (8)).
    pub fn append_unsized_head(
        &self,
        route: usize,
        form: KeepAliveForm,
        chunked: bool,
        out: &mut Vec<u8>,
    ) {
        const FIELD: &[u8] = b"Content-Length: ";
        let f = &self.routes[route];
        out.extend_cold(&f.start);
        let rest = &f.rest[form as usize][..f.head_end[form as usize] as usize];
        for line in rest.split_inclusive(|&c| c == b'\n') {
            if line.starts_with(FIELD) {
                if chunked {
                    out.extend_cold(b"Transfer-Encoding: chunked\r\n");
                }
            } else {
                out.extend_cold(line);
            }
        }
    }

    /// Append the head of route `route` in `form` with status `status` instead of its own, and
    /// `Content-Length: LENGTH` (`length` its digits), or, for a status that has no body (204,
    /// 304: `length` `None`), without `Content-Length` and `Content-Type`: the head of an
    /// answer a request chose (`--control`, a range, a condition), with the lines `extra`
    /// (each ending in CRLF) before its empty line. Another body than the route's (`--control`:
    /// `same_body` false) leaves out the `Accept-Ranges`, `ETag` and `Last-Modified` of a
    /// route that serves ranges (its head says `Accept-Ranges: bytes`), which speak of its
    /// own. Out of the plain path: the lines are found here. Returns where
    /// the `Date` value is in what it appended (none with `--no-date`), for a dripped answer
    /// to send the date of its first piece.
    pub fn append_status_head(
        &self,
        route: usize,
        form: KeepAliveForm,
        head: StatusHead<'_>,
        out: &mut Vec<u8>,
    ) -> Option<usize> {
        let StatusHead {
            status,
            length,
            extra,
            same_body,
        } = head;
        const LENGTH: &[u8] = b"Content-Length: ";
        let f = &self.routes[route];
        let rest = &f.rest[form as usize][..f.head_end[form as usize] as usize];
        let ranged = !same_body
            && rest
                .split_inclusive(|&c| c == b'\n')
                .any(|line| line == SERVES_RANGES);
        let line_end = f
            .start
            .iter()
            .position(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let start = out.len();
        out.extend_cold(b"HTTP/1.1 ");
        out.extend_cold(&[100, 10, 1].map(|d| b'0' + (status / d % 10) as u8));
        out.push(b' ');
        out.extend_cold(reason(status).as_bytes());
        out.extend_cold(b"\r\n");
        let date_at = f
            .date_at
            .filter(|&d| d >= line_end)
            .map(|d| out.len() - start + d - line_end);
        out.extend_cold(&f.start[line_end..]);
        let mut sized = false;
        for line in rest.split_inclusive(|&c| c == b'\n') {
            let last = line == b"\r\n";
            if line.starts_with(LENGTH) || (last && !sized) {
                if let Some(length) = length.filter(|_| !sized) {
                    out.extend_cold(LENGTH);
                    out.extend_cold(length);
                    out.extend_cold(b"\r\n");
                    sized = true;
                }
                if !last {
                    continue;
                }
            }
            if length.is_none() && line.starts_with(b"Content-Type: ") {
                continue;
            }
            if ranged && VALIDATOR_FIELDS.iter().any(|f| line.starts_with(f)) {
                continue;
            }
            if last {
                out.extend_cold(extra);
            }
            out.extend_cold(line);
        }
        date_at
    }

    /// Whether route `route`'s body is replaced while the server runs (a counter route):
    /// its head's `Content-Length` changes with it.
    pub fn body_changes(&self, route: usize) -> bool {
        self.replaceable.iter().any(|(r, _)| *r == route)
    }

    /// The head of route `route` in `form`, in one piece (a copy: the response path
    /// appends it with [`Responses::append`]).
    pub fn head(&self, route: usize, form: KeepAliveForm) -> Vec<u8> {
        let mut head = Vec::with_capacity(self.head_len(route, form));
        self.copy_head(route, form, 0, usize::MAX, &mut head);
        head
    }

    /// The length of [`Responses::head`].
    pub fn head_len(&self, route: usize, form: KeepAliveForm) -> usize {
        let f = &self.routes[route];
        f.start.len() + f.head_end[form as usize] as usize
    }

    /// Append bytes `from..to` of [`Responses::head`] to `out` (`to` is cut to its length).
    pub fn copy_head(
        &self,
        route: usize,
        form: KeepAliveForm,
        from: usize,
        to: usize,
        out: &mut Vec<u8>,
    ) {
        let f = &self.routes[route];
        let rest = &f.rest[form as usize][..f.head_end[form as usize] as usize];
        let start = f.start.len();
        if from < start {
            out.extend_from_slice(&f.start[from..to.min(start)]);
        }
        let (lo, hi) = (from.max(start) - start, to.min(start + rest.len()));
        if hi > start && lo < hi - start {
            out.extend_from_slice(&rest[lo..hi - start]);
        }
    }

    /// Where the `Date` value is in route `route`'s heads (the same in each keep-alive form;
    /// none with `--no-date`): a dripped head sends its own, of the time its first piece went.
    pub fn date_offset(&self, route: usize) -> Option<usize> {
        self.routes[route].date_at
    }

    /// Bytes of the formatted routes, the heads' starts and rests and the bodies inlined in
    /// them, counting once the bytes that workers share (what [`MAX_FORMATTED_BYTES`] bounds).
    pub fn formatted_bytes(&self) -> usize {
        self.routes.iter().map(formatted_len).sum()
    }

    /// The body of route `route`, as sent for GET (empty for 204 and 304).
    pub fn body(&self, route: usize) -> &[u8] {
        let r = &self.routes[route];
        if r.send_body { &r.body } else { &[] }
    }

    /// The error response to a request that broke `rule` (always the close form): its head
    /// in two pieces (the start, this worker's own, and the rest, shared), then its body,
    /// which names the rule ([`rule_body`]).
    pub fn error(&self, rule: Rule) -> [&[u8]; 3] {
        self.errors.get(rule)
    }

    /// Bytes of the error responses: what each worker keeps of its own, and what the workers
    /// share.
    pub fn error_bytes(&self) -> (usize, usize) {
        (self.errors.own_bytes(), self.errors.shared_bytes())
    }

    /// Patch a new date into every head (RFC 9110 §6.6.1). Cheap when the second has not
    /// changed.
    pub fn set_date(&mut self, date: [u8; 29]) {
        if date == self.date {
            return;
        }
        self.date = date;
        for f in &mut self.routes {
            if let Some(at) = f.date_at {
                f.start[at..at + 29].copy_from_slice(&date);
            }
        }
        self.errors.set_date(&date);
    }
}
