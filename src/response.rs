//! The canned bytes: every response canned can send, formatted once at start-up.
//!
//! Each route has three heads that differ only in their `Connection` field (RFC 9112 §9.3):
//! HTTP/1.1 keep-alive (none), HTTP/1.0 keep-alive (`Connection: keep-alive`, which `ab -k`
//! looks for) and close (`Connection: close`). A GET answer is a head followed by the body; a
//! HEAD answer is the head alone. The `Date` field is rendered once per second and patched in
//! place ([`Responses::set_date`]), so a response is always a plain slice of these buffers.
//!
//! A head is two pieces: its start (status line, `Server`, `Date`), which each worker keeps
//! and patches, and the rest (the other fields, the `Connection` field of its variant, and a
//! small body), formatted once and shared by every worker ([`Arc`]): a configuration with many
//! routes or long header fields is in memory once, however many workers serve it, and a
//! response is still two copies, the start and the rest.

use std::sync::Arc;

/// Which of a route's heads a response uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// HTTP/1.1, connection stays open.
    KeepAlive11 = 0,
    /// HTTP/1.0 with `Connection: keep-alive`.
    KeepAlive10 = 1,
    /// The connection closes after this response.
    Close = 2,
}

/// What one route answers.
#[derive(Debug, PartialEq, Eq)]
pub struct Spec {
    /// Status code, 200..=599.
    pub status: u16,
    /// The body (not sent for HEAD, nor for 204 and 304).
    pub body: Arc<[u8]>,
    /// `Content-Type`, or none when empty.
    pub content_type: String,
    /// Extra header lines, each `Name: value`, already validated.
    pub headers: Vec<String>,
}

/// Cloned out of line: a route's spec is copied in several places at start-up, and the
/// derived clone is inlined into each.
impl Clone for Spec {
    #[inline(never)]
    fn clone(&self) -> Spec {
        Spec {
            status: self.status,
            body: self.body.clone(),
            content_type: self.content_type.clone(),
            headers: self.headers.clone(),
        }
    }
}

/// Header fields common to every response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Common {
    /// `Server` field value; empty to omit.
    pub server: String,
    /// Send a `Date` field.
    pub date: bool,
}

/// Bodies up to this size are formatted into the shared rest of each head, after it, so that
/// the response to GET is two copies (the start, the rest); a larger body is copied on its own.
pub const INLINE_BODY: usize = 1024;

/// One formatted route: the start of its heads is this worker's own (it holds the `Date`
/// value), the rest is shared by every worker.
#[derive(Clone, Debug)]
struct Formatted {
    status: u16,
    /// The status line, `Server` and `Date` fields: the same for every variant.
    start: Box<[u8]>,
    /// Offset of the 29-byte date value in `start`, if any.
    date_at: Option<usize>,
    /// By variant: the rest of the head, then the body when it is inlined.
    rest: [Arc<[u8]>; 3],
    /// By variant: where the head ends in `rest`.
    head_end: [u32; 3],
    /// The length of the body inlined in `rest` (0: none).
    inline_len: u32,
    /// The body is sent after `rest` (not inlined in it, and not empty).
    body_apart: bool,
    body: Arc<[u8]>,
    send_body: bool,
}

/// A formatted error response, whole: small, and this worker's own.
#[derive(Clone, Debug)]
struct Whole {
    /// The close variant's head.
    head: Vec<u8>,
    date_at: Option<usize>,
    body: Arc<[u8]>,
}

/// Where the counter routes are among a server's routes, each refreshed by its worker with
/// [`Responses::set_body`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterRoutes {
    /// `--stats`: JSON counters.
    pub stats: Option<usize>,
    /// `--metrics`: the same counters in the Prometheus text format.
    pub metrics: Option<usize>,
}

impl CounterRoutes {
    /// Whether any counter route is served (the worker then publishes its counters).
    pub fn any(&self) -> bool {
        self.stats.is_some() || self.metrics.is_some()
    }
}

/// All responses of one worker: routes (index 0 is the default) and one error response per
/// status code canned sends. A clone shares the routes' formatted bytes, but for the starts
/// of their heads: the server formats its responses once and gives each worker a clone.
#[derive(Clone, Debug)]
pub struct Responses {
    routes: Vec<Formatted>,
    /// The specs of the routes whose body [`Responses::set_body`] replaces (the counter
    /// routes), by route.
    replaceable: Vec<(usize, Spec)>,
    common: Common,
    /// Exact paths of routes 1.., with whether only GET and HEAD match.
    paths: Vec<(Vec<u8>, bool)>,
    errors: Vec<(u16, Whole)>,
    date: [u8; 29],
    /// Answers chosen by method before any route; none for a raw response.
    methods: Option<MethodRules>,
}

/// How requests are answered by method before the routes are looked at (RFC 9110 §9.1). The
/// answers are routes of their own (after the configured ones), so they keep the connection
/// open and have HEAD and keep-alive variants like any route.
#[derive(Clone, Debug)]
struct MethodRules {
    /// The methods the routes answer; empty: every method but CONNECT.
    accepted: Vec<Vec<u8>>,
    /// The route answering 405 with `Allow`.
    not_allowed: usize,
    /// With `accepted` set, the route answering OPTIONS: 204 with `Allow`.
    options: usize,
}

impl MethodRules {
    /// The route answering `method` by its method alone, if any.
    fn answer(&self, method: &[u8]) -> Option<usize> {
        // CONNECT asks for a tunnel; canned is not a proxy, and a 2xx would tell the client
        // that the tunnel is open (RFC 9110 §9.3.6).
        if method == b"CONNECT" {
            return Some(self.not_allowed);
        }
        if self.accepted.is_empty() {
            return None;
        }
        if method == b"OPTIONS" {
            return Some(self.options);
        }
        if self.accepted.iter().any(|m| m.as_slice() == method) {
            None
        } else {
            Some(self.not_allowed)
        }
    }
}

/// The `Allow` value of a 405 when no method list is configured: the methods of RFC 9110 §9
/// and PATCH (RFC 5789), all answered by the routes; CONNECT alone is not.
pub const DEFAULT_ALLOW: &str = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE";

/// The interim response sent before reading a body announced with `Expect: 100-continue`.
pub const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// The `Content-Type` of the `--metrics` route: the Prometheus text exposition format,
/// version 0.0.4, which `crate::stats::prometheus` renders.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Status codes of the error responses.
pub const ERROR_STATUSES: [u16; 8] = [400, 408, 413, 414, 417, 431, 501, 505];

impl Responses {
    /// Format every route; `routes[0]` answers paths without a route of their own, and
    /// `paths[i]` (an exact path, and whether only GET and HEAD match) selects `routes[i + 1]`.
    pub fn new(routes: &[Spec], paths: &[(Vec<u8>, bool)], common: &Common) -> Responses {
        Responses::build(routes.iter(), paths, common)
    }

    /// [`Responses::new`] from references, so that a configuration's routes are formatted
    /// without a copy of their specs.
    fn build<'a>(
        routes: impl Iterator<Item = &'a Spec>,
        paths: &[(Vec<u8>, bool)],
        common: &Common,
    ) -> Responses {
        let date = if common.date {
            http_date(std::time::SystemTime::now())
        } else {
            [b' '; 29]
        };
        let routes: Vec<Formatted> = routes.map(|s| format(s, common, &date)).collect();
        assert_eq!(
            routes.len(),
            paths.len() + 1,
            "one path per route after the default"
        );
        let errors = ERROR_STATUSES
            .iter()
            .map(|&status| {
                let body = format!("{} {}\n", status, reason(status));
                let spec = Spec {
                    status,
                    body: Arc::from(body.into_bytes()),
                    content_type: "text/plain; charset=utf-8".into(),
                    headers: Vec::new(),
                };
                let f = format(&spec, common, &date);
                let close = Variant::Close as usize;
                let whole = Whole {
                    head: [&f.start[..], &f.rest[close][..f.head_end[close] as usize]].concat(),
                    date_at: f.date_at,
                    body: f.body,
                };
                (status, whole)
            })
            .collect();
        let mut r = Responses {
            routes,
            replaceable: Vec::new(),
            common: common.clone(),
            paths: paths.to_vec(),
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

    fn push_route(&mut self, spec: Spec) -> usize {
        self.routes.push(format(&spec, &self.common, &self.date));
        self.routes.len() - 1
    }

    fn replace_route(&mut self, route: usize, spec: Spec) {
        self.routes[route] = format(&spec, &self.common, &self.date);
    }

    /// The responses a server answers with: the configured routes (or the raw response),
    /// with `--stats` and `--metrics` one more route each, whose indices are returned for the
    /// counters' bodies, and with `--methods` the 405 and OPTIONS answers of
    /// [`Responses::accept_only`].
    pub fn from_config(config: &crate::config::Config) -> (Responses, CounterRoutes) {
        if let Some(raw) = &config.raw {
            return (
                Responses::raw(raw.clone(), &config.common),
                CounterRoutes::default(),
            );
        }
        let mut specs: Vec<Spec> = Vec::new();
        let mut paths: Vec<(Vec<u8>, bool)> = config.routes[1..]
            .iter()
            .map(|r| (r.path.as_bytes().to_vec(), r.get_only))
            .collect();
        let mut counter_route = |path: &Option<String>, body: &[u8], content_type: &str| {
            let path = path.as_ref()?;
            specs.push(Spec {
                status: 200,
                body: Arc::from(body),
                content_type: content_type.into(),
                headers: vec!["Cache-Control: no-store".into()],
            });
            paths.push((path.as_bytes().to_vec(), false));
            Some(config.routes.len() + specs.len() - 1)
        };
        let counters = CounterRoutes {
            stats: counter_route(&config.stats, b"{}\n", "application/json"),
            metrics: counter_route(&config.metrics, b"", METRICS_CONTENT_TYPE),
        };
        let routes = config.routes.iter().map(|r| &r.spec).chain(&specs);
        let mut responses = Responses::build(routes, &paths, &config.common);
        responses.replaceable = (config.routes.len()..).zip(specs).collect();
        if !config.methods.is_empty() {
            let methods: Vec<&str> = config.methods.iter().map(String::as_str).collect();
            responses.accept_only(&methods);
        }
        (responses, counters)
    }

    /// Format a response no path selects (a fault's error response); returns its route
    /// index.
    pub fn add_unrouted(&mut self, spec: &Spec) -> usize {
        self.push_route(spec.clone())
    }

    /// `--raw-response`: the same bytes, verbatim, for every request and variant.
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
        };
        // The file is the whole answer to every request, whatever its method.
        r.methods = None;
        r
    }

    /// The route answering `path` (0, the default, when no route matches).
    pub fn route(&self, method: &[u8], path: &[u8]) -> usize {
        if let Some(route) = self.methods.as_ref().and_then(|m| m.answer(method)) {
            return route;
        }
        for (i, (p, get_only)) in self.paths.iter().enumerate() {
            if p.as_slice() == path && (!get_only || method == b"GET" || method == b"HEAD") {
                return i + 1;
            }
        }
        0
    }

    /// Replace the body of route `route` (a counter route of [`Responses::from_config`],
    /// refreshed by its worker), keeping its status and headers; no other route changes.
    pub fn set_body(&mut self, route: usize, body: Arc<[u8]>) {
        let Some((_, spec)) = self.replaceable.iter_mut().find(|(r, _)| *r == route) else {
            return;
        };
        spec.body = body;
        // This worker's own bytes for the route from now on.
        self.routes[route] = format(spec, &self.common, &self.date);
    }

    /// The current IMF-fixdate (spaces with `--no-date`).
    pub fn date(&self) -> &[u8; 29] {
        &self.date
    }

    /// Whether route `route` answers only GET and HEAD (the health route, kept out of the
    /// access log).
    pub fn is_health(&self, route: usize) -> bool {
        route > 0 && self.paths.get(route - 1).is_some_and(|p| p.1)
    }

    /// The status code of route `route` (200 for a raw response).
    pub fn status(&self, route: usize) -> u16 {
        self.routes[route].status
    }

    /// The number of routes (the default and the answers by method included).
    pub fn routes(&self) -> usize {
        self.routes.len()
    }

    /// Append the response of route `route` for `variant` to `out`: the head, and unless
    /// `head_only` the body, or its first `chunk` bytes when it is longer. Returns the body
    /// offset the rest starts at when only a first piece was appended.
    #[inline(always)]
    pub fn append(
        &self,
        route: usize,
        variant: Variant,
        head_only: bool,
        chunk: usize,
        out: &mut Vec<u8>,
    ) -> Option<usize> {
        let f = &self.routes[route];
        out.extend_from_slice(&f.start);
        let rest = &f.rest[variant as usize];
        // The rest whole, its inlined body included, unless that body is not wanted or is to
        // be sent in pieces smaller than itself.
        let whole = !head_only && f.inline_len as usize <= chunk;
        let end = if whole {
            rest.len()
        } else {
            f.head_end[variant as usize] as usize
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

    /// The head of route `route` for `variant`, in one piece (a copy: the response path
    /// appends it with [`Responses::append`]).
    pub fn head(&self, route: usize, variant: Variant) -> Vec<u8> {
        let mut head = Vec::with_capacity(self.head_len(route, variant));
        self.copy_head(route, variant, 0, usize::MAX, &mut head);
        head
    }

    /// The length of [`Responses::head`].
    pub fn head_len(&self, route: usize, variant: Variant) -> usize {
        let f = &self.routes[route];
        f.start.len() + f.head_end[variant as usize] as usize
    }

    /// Append bytes `from..to` of [`Responses::head`] to `out` (`to` is cut to its length).
    pub fn copy_head(
        &self,
        route: usize,
        variant: Variant,
        from: usize,
        to: usize,
        out: &mut Vec<u8>,
    ) {
        let f = &self.routes[route];
        let rest = &f.rest[variant as usize][..f.head_end[variant as usize] as usize];
        let start = f.start.len();
        if from < start {
            out.extend_from_slice(&f.start[from..to.min(start)]);
        }
        let (lo, hi) = (from.max(start) - start, to.min(start + rest.len()));
        if hi > start && lo < hi - start {
            out.extend_from_slice(&rest[lo..hi - start]);
        }
    }

    /// Where the `Date` value is in route `route`'s heads (the same in each variant; none
    /// with `--no-date`): a dripped head sends its own ([`crate::fault::WorkerFaults::date_at`]).
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

    /// The full error response for `status` (always the close variant).
    pub fn error(&self, status: u16) -> (&[u8], &[u8]) {
        let (_, f) = self
            .errors
            .iter()
            .find(|(s, _)| *s == status)
            .unwrap_or(&self.errors[0]);
        (&f.head, &f.body)
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
        for (_, f) in &mut self.errors {
            if let Some(at) = f.date_at {
                f.head[at..at + 29].copy_from_slice(&date);
            }
        }
    }
}

/// The three heads of `spec`: the same fields, then no `Connection` field, `keep-alive` or
/// `close`; the start of the heads on its own, the rest of each with a small body after it.
fn format(spec: &Spec, common: &Common, date: &[u8; 29]) -> Formatted {
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
    }
}

/// The most bytes the formatted responses of a server may take ([`Responses::formatted_bytes`],
/// [`formatted_bytes`]): 64 MiB. `--route` multiplies `--header`: past this, start-up is
/// refused rather than the memory taken.
pub const MAX_FORMATTED_BYTES: usize = 64 << 20;

/// The bytes [`Responses::formatted_bytes`] counts for one route.
fn formatted_len(f: &Formatted) -> usize {
    let rest = if Arc::ptr_eq(&f.rest[0], &f.rest[2]) {
        // A raw response: the file's bytes as given, once, like a body (not counted).
        0
    } else {
        f.rest.iter().map(|r| r.len()).sum()
    };
    f.start.len() + rest
}

/// What [`Responses::formatted_bytes`] counts for `spec`, formatted on its own (so that a
/// configuration can be measured before its responses are built).
pub fn formatted_bytes(spec: &Spec, common: &Common) -> usize {
    formatted_len(&format(spec, common, &[b' '; 29]))
}

/// The 405 answer, with `Allow: allow`.
fn method_not_allowed(allow: &str) -> Spec {
    Spec {
        status: 405,
        body: Arc::from(&b"405 Method Not Allowed\n"[..]),
        content_type: "text/plain; charset=utf-8".into(),
        headers: vec![format!("Allow: {allow}")],
    }
}

/// The standard reason phrase (RFC 9110 §15), or an empty one for codes without.
pub fn reason(status: u16) -> &'static str {
    let code = [100, 10, 1].map(|d| b'0' + (status / d % 10) as u8);
    REASONS
        .lines()
        .find_map(|l| {
            l.strip_prefix(std::str::from_utf8(&code).ok()?)?
                .strip_prefix(' ')
        })
        .filter(|_| status < 1000)
        .unwrap_or_default()
}

/// `CODE Reason` per line: one string rather than a `match`, which would compile to a table
/// with a string pointer per code (a relocation each in a position-independent binary).
const REASONS: &str = "\
100 Continue
200 OK
201 Created
202 Accepted
203 Non-Authoritative Information
204 No Content
205 Reset Content
206 Partial Content
300 Multiple Choices
301 Moved Permanently
302 Found
303 See Other
304 Not Modified
307 Temporary Redirect
308 Permanent Redirect
400 Bad Request
401 Unauthorized
402 Payment Required
403 Forbidden
404 Not Found
405 Method Not Allowed
406 Not Acceptable
407 Proxy Authentication Required
408 Request Timeout
409 Conflict
410 Gone
411 Length Required
412 Precondition Failed
413 Content Too Large
414 URI Too Long
415 Unsupported Media Type
416 Range Not Satisfiable
417 Expectation Failed
418 I'm a teapot
421 Misdirected Request
422 Unprocessable Content
425 Too Early
426 Upgrade Required
428 Precondition Required
429 Too Many Requests
431 Request Header Fields Too Large
451 Unavailable For Legal Reasons
500 Internal Server Error
501 Not Implemented
502 Bad Gateway
503 Service Unavailable
504 Gateway Timeout
505 HTTP Version Not Supported";

/// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
pub fn http_date(t: std::time::SystemTime) -> [u8; 29] {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const WD: [&[u8; 3]; 7] = [b"Thu", b"Fri", b"Sat", b"Sun", b"Mon", b"Tue", b"Wed"];
    const MON: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let mut out = *b"Thu, 01 Jan 1970 00:00:00 GMT";
    out[..3].copy_from_slice(WD[(days.rem_euclid(7)) as usize]);
    let two = |o: &mut [u8], v: u64| {
        o[0] = b'0' + (v / 10) as u8;
        o[1] = b'0' + (v % 10) as u8;
    };
    two(&mut out[5..7], day as u64);
    out[8..11].copy_from_slice(MON[(month - 1) as usize]);
    let y = year.clamp(0, 9999) as u64;
    two(&mut out[12..14], y / 100);
    two(&mut out[14..16], y % 100);
    two(&mut out[17..19], rem / 3600);
    two(&mut out[20..22], rem / 60 % 60);
    two(&mut out[23..25], rem % 60);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn imf_fixdate() {
        let at = |s| http_date(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(&at(0), b"Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(&at(784_111_777), b"Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(&at(951_782_400), b"Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(&at(1_796_049_126), b"Mon, 30 Nov 2026 14:32:06 GMT");
    }

    #[test]
    fn reason_phrases() {
        for (status, want) in [
            (100, "Continue"),
            (200, "OK"),
            (418, "I'm a teapot"),
            (505, "HTTP Version Not Supported"),
            (299, ""),
            (1200, ""),
            (0, ""),
        ] {
            assert_eq!(reason(status), want, "{status}");
        }
    }

    fn spec(status: u16, body: &str) -> Spec {
        Spec {
            status,
            body: Arc::from(body.as_bytes()),
            content_type: "text/plain".into(),
            headers: vec!["X-A: b".into()],
        }
    }

    #[test]
    fn heads_differ_only_in_connection() {
        let common = Common {
            server: "canned".into(),
            date: false,
        };
        let r = Responses::new(&[spec(200, "Hello World\n")], &[], &common);
        let ka = r.head(0, Variant::KeepAlive11);
        assert_eq!(
            ka,
            b"HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nX-A: b\r\n\r\n"
        );
        assert!(
            r.head(0, Variant::KeepAlive10)
                .ends_with(b"X-A: b\r\nConnection: keep-alive\r\n\r\n")
        );
        assert!(
            r.head(0, Variant::Close)
                .ends_with(b"Connection: close\r\n\r\n")
        );
        assert_eq!(r.body(0), b"Hello World\n");
    }

    #[test]
    fn no_content_has_no_length_and_no_body() {
        let common = Common {
            server: String::new(),
            date: false,
        };
        let r = Responses::new(&[spec(204, "ignored")], &[], &common);
        assert_eq!(
            r.head(0, Variant::KeepAlive11),
            b"HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n"
        );
        assert_eq!(r.body(0), b"");
    }

    /// RFC 9110 §8.6: no Content-Length on 204 (MUST NOT) nor on 304 (canned has no 200
    /// response whose length it could repeat); neither has a body or a Content-Type.
    #[test]
    fn no_content_and_not_modified_have_no_length() {
        let common = Common {
            server: String::new(),
            date: false,
        };
        for (status, line) in [(204, "204 No Content"), (304, "304 Not Modified")] {
            let r = Responses::new(&[spec(status, "ignored")], &[], &common);
            for v in [Variant::KeepAlive11, Variant::KeepAlive10, Variant::Close] {
                let head = String::from_utf8(r.head(0, v)).unwrap();
                assert!(
                    head.starts_with(&format!("HTTP/1.1 {line}\r\nX-A: b\r\n")),
                    "{head}"
                );
                assert!(!head.contains("Content-"), "{head}");
            }
            assert_eq!(r.body(0), b"");
        }
    }

    /// A worker's clone shares the rest of every head with the others; the `Date` it patches
    /// is its own.
    #[test]
    fn clones_share_the_rest_and_patch_their_own_date() {
        let common = Common {
            server: "canned".into(),
            date: true,
        };
        let a = Responses::new(&[spec(200, "x")], &[], &common);
        let mut b = a.clone();
        for v in 0..3 {
            assert!(Arc::ptr_eq(&a.routes[0].rest[v], &b.routes[0].rest[v]));
        }
        b.set_date(http_date(UNIX_EPOCH + Duration::from_secs(784_111_777)));
        let mine = String::from_utf8(b.head(0, Variant::KeepAlive11)).unwrap();
        let theirs = String::from_utf8(a.head(0, Variant::KeepAlive11)).unwrap();
        assert!(
            mine.contains("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
            "{mine}"
        );
        assert!(!theirs.contains("1994"), "{theirs}");
        assert_eq!(mine.len(), theirs.len());
    }

    /// What [`Responses::append`] writes is the head and the body, in every variant, for a
    /// body inlined in the head's rest, a body apart from it, and pieces smaller than each.
    #[test]
    fn append_writes_the_head_then_the_body() {
        let common = Common {
            server: "canned".into(),
            date: false,
        };
        let big = "b".repeat(INLINE_BODY + 1);
        let r = Responses::new(
            &[spec(200, "small"), spec(200, &big)],
            &[(b"/big".to_vec(), false)],
            &common,
        );
        for route in 0..2 {
            for v in [Variant::KeepAlive11, Variant::KeepAlive10, Variant::Close] {
                let head = r.head(route, v);
                let body = r.body(route);
                for chunk in [1, 3, 64 * 1024] {
                    let mut out = Vec::new();
                    let rest = r.append(route, v, false, chunk, &mut out);
                    let sent = body.len().min(chunk);
                    assert_eq!(out, [&head[..], &body[..sent]].concat());
                    assert_eq!(rest, (sent < body.len()).then_some(sent));
                    let mut out = Vec::new();
                    assert_eq!(r.append(route, v, true, chunk, &mut out), None);
                    assert_eq!(out, head);
                }
            }
        }
    }

    #[test]
    fn date_is_patched_in_place() {
        let common = Common {
            server: "canned".into(),
            date: true,
        };
        let mut r = Responses::new(&[spec(200, "x")], &[], &common);
        let d = http_date(UNIX_EPOCH + Duration::from_secs(784_111_777));
        r.set_date(d);
        for v in [Variant::KeepAlive11, Variant::KeepAlive10, Variant::Close] {
            let h = String::from_utf8(r.head(0, v)).unwrap();
            assert!(
                h.contains("\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
                "{h}"
            );
        }
        let (head, body) = r.error(431);
        let h = std::str::from_utf8(head).unwrap();
        assert!(h.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(h.contains("Date: Sun, 06 Nov 1994 08:49:37 GMT"));
        assert!(h.ends_with("Connection: close\r\n\r\n"));
        assert_eq!(body, b"431 Request Header Fields Too Large\n");
    }
}
