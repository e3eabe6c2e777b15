//! The command line and environment: everything canned can be told, checked before anything
//! starts.
//!
//! Every option is one entry of the `OPTIONS` table: its flag, its environment variable, the
//! kind of value it takes with the setting it changes, its help text, and the options it
//! conflicts with or needs. Each setting's effect is one arm of an exhaustive `match`, so a
//! setting without an effect does not compile. Parsing, the environment fallback, duplicate and
//! conflict checks and `--help` all read that table; unit tests check the README's option
//! table and the precedence rule against it, option by option.

use crate::conn::Timeouts;
use crate::fault::{Mutate, RouteFaults};
use crate::parser::{Limits, TCHAR, VALUE};
use crate::response::{Common, Spec};
use crate::values::{count, duration, size, within};
use std::ffi::OsString;
use std::net::{Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// Where to listen.
#[derive(Clone, Debug)]
pub enum Listen {
    /// A TCP address (port 0 picks a free port). The unspecified IPv6 address `[::]` is
    /// dual-stack: IPv4 clients are served too.
    Tcp(SocketAddr),
    /// A Unix domain socket path. Only a stale socket there is replaced; the socket file is
    /// removed on exit.
    Unix(std::path::PathBuf),
    /// A listening socket inherited through systemd socket activation (`LISTEN_FDS`), or
    /// handed over by the caller. The fd is owned: the server listens on duplicates of it, and
    /// it is closed once, when the last `Listen` holding it is dropped.
    Fd(Arc<std::os::fd::OwnedFd>),
}

impl PartialEq for Listen {
    fn eq(&self, other: &Self) -> bool {
        use std::os::fd::AsRawFd;
        match (self, other) {
            (Listen::Tcp(a), Listen::Tcp(b)) => a == b,
            (Listen::Unix(a), Listen::Unix(b)) => a == b,
            // Two live owned fds share a number only if they are the same fd.
            (Listen::Fd(a), Listen::Fd(b)) => a.as_raw_fd() == b.as_raw_fd(),
            _ => false,
        }
    }
}

impl Eq for Listen {}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Tcp(a) => write!(f, "{a}"),
            Listen::Unix(p) => write!(f, "unix:{}", p.display()),
            Listen::Fd(fd) => write!(f, "fd:{}", std::os::fd::AsRawFd::as_raw_fd(&**fd)),
        }
    }
}

/// A route: an exact path with its own response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The exact path (no query).
    pub path: String,
    /// Its response.
    pub spec: Spec,
    /// Only GET and HEAD match (the health route).
    pub get_only: bool,
    /// `--fault`: how this route misbehaves (none by default).
    pub faults: RouteFaults,
}

/// Everything a server is configured with. Build one with [`Config::default`] and its
/// setters, or from a command line with [`Config::from_args`].
///
/// ```
/// let c = canned::config::Config::default().listen("127.0.0.1:0").unwrap().body("pong\n");
/// assert_eq!(c.routes[0].spec.body.as_ref(), b"pong\n");
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    /// Listeners.
    pub listen: Vec<Listen>,
    /// `--reuse-port`: bind TCP listeners with SO_REUSEPORT so that other processes may listen
    /// on the same port (zero-downtime restarts). Off: a port another process holds is an
    /// error ("address in use").
    pub reuse_port: bool,
    /// Worker threads.
    pub workers: usize,
    /// Listen backlog.
    pub backlog: i32,
    /// Open connections per process.
    pub max_conns: usize,
    /// Close a connection after this many responses (0: unlimited).
    pub max_requests: u32,
    /// Head limits.
    pub limits: Limits,
    /// `--max-body-bytes`: the largest request body, in bytes, by Content-Length or chunked
    /// total; a larger one is answered 413 (0: unlimited).
    pub max_body_bytes: u64,
    /// `--methods`: the request methods answered, each a token (case-sensitive, RFC 9110
    /// §9.1); any other is answered 405 with an `Allow` field. Empty: every method.
    pub methods: Vec<String>,
    /// Timeouts.
    pub timeouts: Timeouts,
    /// How long shutdown waits for responses in flight.
    pub shutdown_timeout: Duration,
    /// Routes; `routes[0]` is the default response and its path is ignored.
    pub routes: Vec<Route>,
    /// `Server` and `Date`.
    pub common: Common,
    /// Print nothing but errors.
    pub quiet: bool,
    /// `--raw-response`: these bytes verbatim for every request.
    pub raw: Option<Arc<[u8]>>,
    /// `--raw-close`: close after each raw response.
    pub raw_close: bool,
    /// `--delay`: hold each batch of responses this long (ms; 0: none).
    pub delay: u64,
    /// `--access-log`: one line per request on stdout.
    pub access_log: bool,
    /// `--stats PATH`: a JSON counters route.
    pub stats: Option<String>,
    /// `--metrics PATH`: the same counters as `stats`, in the Prometheus text exposition
    /// format (`text/plain; version=0.0.4`).
    pub metrics: Option<String>,
    /// `--mutate` or `--mutate-id`: answer paths without a route of their own with the
    /// malformed-response catalogue.
    pub mutate: Option<Mutate>,
    /// `--seed`: the seed of the generator that draws fault delays, error shares and garbage.
    pub seed: u64,
}

impl Default for Config {
    #[inline(never)]
    fn default() -> Self {
        Config {
            listen: Vec::new(),
            reuse_port: false,
            workers: default_workers(),
            backlog: 1024,
            max_conns: 10_000,
            max_requests: 0,
            limits: Limits::default(),
            max_body_bytes: 0,
            methods: Vec::new(),
            timeouts: Timeouts::default(),
            shutdown_timeout: Duration::from_secs(5),
            routes: vec![Route {
                path: String::new(),
                spec: Spec {
                    status: 200,
                    body: Arc::from(&b"Hello World\n"[..]),
                    content_type: DEFAULT_TYPE.into(),
                    headers: Vec::new(),
                },
                get_only: false,
                faults: RouteFaults::default(),
            }],
            common: Common {
                server: "canned".into(),
                date: true,
            },
            quiet: false,
            raw: None,
            raw_close: false,
            delay: 0,
            access_log: false,
            stats: None,
            metrics: None,
            seed: crate::fault::DEFAULT_SEED,
            mutate: None,
        }
    }
}

const DEFAULT_TYPE: &str = "text/plain; charset=utf-8";
/// The port when no address is given.
const DEFAULT_PORT: u16 = 8080;
/// More threads than this are a typo, not a configuration (and each costs descriptors).
const MAX_WORKERS: u64 = 1024;
/// Routes are matched by a linear scan per request.
const MAX_ROUTES: u16 = 1000;

/// How an option's value is read, and the setting a valid value changes. Each setting's
/// effect is an arm of an exhaustive `match` ([`Toggle::set`], [`Number::set`],
/// [`Text::set`], [`Bytes::set`]), so a setting without an effect does not compile. (A
/// closure per option would cost a function, an unwind entry and a relocation each.)
#[derive(Clone, Copy)]
enum Kind {
    /// No value: given or not (`VAR=1` or `0` in the environment).
    Switch(Toggle),
    /// A whole number from `min` to `max`.
    Count { min: u16, max: u64, set: Number },
    /// A number of bytes from `min` to `max`, in the grammar of [`size`].
    Size { min: u16, max: u64, set: Number },
    /// `10s`, `500ms`, `2m`, `1h` or plain seconds, in milliseconds.
    Duration(Number),
    /// A request path the server answers: `/healthz`.
    Path(Text),
    /// A header field value (`--server`, `--content-type`).
    FieldValue(Text),
    /// Any text.
    Text(Text),
    /// A file, read whole at start-up.
    File(Bytes),
    /// A numeric socket address or `unix:PATH`: a listener.
    Address,
    /// A header line `Name: value` on every response.
    Header,
    /// `PATH=STATUS[:BODY]`: a route.
    Route,
    /// Comma-separated method tokens: the methods answered.
    Methods,
    /// `PATH=KIND[:ARGS]`: a fault on a route.
    Fault,
    /// An id of the malformed-response catalogue.
    MutateId,
}

/// Settings turned on by a switch.
#[derive(Clone, Copy)]
enum Toggle {
    ReusePort,
    NoDate,
    RawClose,
    AccessLog,
    Quiet,
    Mutate,
}

impl Toggle {
    fn set(self, c: &mut Config) {
        match self {
            Toggle::ReusePort => c.reuse_port = true,
            Toggle::NoDate => c.common.date = false,
            Toggle::RawClose => c.raw_close = true,
            Toggle::AccessLog => c.access_log = true,
            Toggle::Quiet => c.quiet = true,
            Toggle::Mutate => c.mutate = Some(Mutate::Cycle),
        }
    }
}

/// Numeric settings (counts, sizes, durations in milliseconds). Each kind's range keeps the
/// casts below lossless.
#[derive(Clone, Copy)]
enum Number {
    Port,
    Workers,
    Backlog,
    MaxConns,
    Status,
    MaxRequests,
    MaxHeadBytes,
    MaxHeaders,
    MaxBodyBytes,
    HeaderTimeout,
    IdleTimeout,
    WriteTimeout,
    ShutdownTimeout,
    Delay,
    Seed,
}

impl Number {
    fn set(self, c: &mut Config, n: u64) {
        match self {
            Number::Port => c.listen.push(every_interface(n as u16)),
            Number::Workers => c.workers = n as usize,
            Number::Backlog => c.backlog = n as i32,
            Number::MaxConns => c.max_conns = n as usize,
            Number::Status => c.routes[0].spec.status = n as u16,
            Number::MaxRequests => c.max_requests = n as u32,
            Number::MaxHeadBytes => c.limits.max_head = n as usize,
            Number::MaxHeaders => c.limits.max_headers = n as usize,
            Number::MaxBodyBytes => c.max_body_bytes = n,
            Number::HeaderTimeout => c.timeouts.header = n,
            Number::IdleTimeout => c.timeouts.idle = n,
            Number::WriteTimeout => c.timeouts.write = n,
            Number::ShutdownTimeout => c.shutdown_timeout = Duration::from_millis(n),
            Number::Delay => c.delay = n,
            Number::Seed => c.seed = n,
        }
    }
}

/// Settings that take text (already checked by their kind).
#[derive(Clone, Copy)]
enum Text {
    Body,
    ContentType,
    Server,
    Health,
    Stats,
    Metrics,
}

impl Text {
    fn set(self, c: &mut Config, v: &str) {
        match self {
            Text::Body => c.routes[0].spec.body = Arc::from(v.as_bytes()),
            Text::ContentType => c.routes[0].spec.content_type = v.into(),
            Text::Server => c.common.server = v.into(),
            Text::Health => c.routes.push(health(v.into())),
            Text::Stats => c.stats = Some(v.into()),
            Text::Metrics => c.metrics = Some(v.into()),
        }
    }
}

/// Settings that take a file's contents.
#[derive(Clone, Copy)]
enum Bytes {
    Body,
    RawResponse,
}

impl Bytes {
    fn set(self, c: &mut Config, b: Arc<[u8]>) {
        match self {
            Bytes::Body => c.routes[0].spec.body = b,
            Bytes::RawResponse => c.raw = Some(b),
        }
    }
}

/// Whether an option takes one value or many.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Repeat {
    Once,
    /// Up to `most` values; the environment variable holds them separated by `sep`.
    Many {
        sep: u8,
        most: u16,
    },
}

/// One option: its names, its value, its help and its relations to other options.
#[derive(Clone, Copy)]
struct Opt {
    /// `--flag VALUE`, the variable and the help text, one line each (the help may take
    /// more), then, after a NUL, the title of the `--help` section the option opens. Written by
    /// [`opt!`] as one string: one pointer to relocate in a position-independent binary
    /// instead of four.
    text: &'static str,
    kind: Kind,
    repeat: Repeat,
    /// Options this one cannot be combined with (symmetric), or needs.
    relations: &'static [Relation],
}

#[derive(Clone, Copy)]
enum Relation {
    ConflictsWith(&'static str),
    Needs(&'static str),
}

/// `opt!("--flag VALUE", "VARIABLE", kind, "help")`, optionally followed by `section: "Title"`:
/// a table entry. The variable is read when neither the flag nor a conflicting one is given;
/// in the help, each `\n` starts an indented line.
macro_rules! opt {
    ($flag:literal, $var:literal, $kind:expr, $help:literal $(, section: $title:literal)?) => {
        Opt {
            text: concat!($flag, "\n", $var, "\n", $help $(, "\0", $title)?),
            kind: $kind,
            repeat: Repeat::Once,
            relations: &[],
        }
    };
}

impl Opt {
    const fn repeatable(self, sep: char, most: u16) -> Opt {
        let repeat = Repeat::Many {
            sep: sep as u8,
            most,
        };
        Opt { repeat, ..self }
    }
    const fn related(self, relations: &'static [Relation]) -> Opt {
        Opt { relations, ..self }
    }
    /// (`--flag VALUE`, the variable, the help, the section title or "").
    fn texts(&self) -> (&'static str, &'static str, &'static str, &'static str) {
        let (usage, rest) = cut(self.text, b'\n');
        let (var, rest) = cut(rest, b'\n');
        let (help, title) = cut(rest, 0);
        (usage, var, help, title)
    }
    #[inline(never)]
    fn flag(&self) -> &'static str {
        cut(cut(self.text, b'\n').0, b' ').0
    }
    fn var(&self) -> &'static str {
        self.texts().1
    }
    fn conflicts(&self) -> impl Iterator<Item = &'static str> {
        self.relations.iter().filter_map(|r| match r {
            Relation::ConflictsWith(flag) => Some(*flag),
            Relation::Needs(_) => None,
        })
    }
    fn needs(&self) -> Option<&'static str> {
        self.relations.iter().find_map(|r| match r {
            Relation::Needs(flag) => Some(*flag),
            Relation::ConflictsWith(_) => None,
        })
    }
    #[inline(never)]
    fn conflicts_with(&self, other: &Opt) -> bool {
        self.conflicts().any(|f| f == other.flag()) || other.conflicts().any(|f| f == self.flag())
    }
}

/// Every option. Options take effect in this order, whatever the order on the command line:
/// `--route` comes after `--content-type` and `--header`, whose values its routes take.
static OPTIONS: &[Opt] = &[
    opt!(
        "--listen ADDR",
        "CANNED_LISTEN",
        Kind::Address,
        "Listen on ADDR: 127.0.0.1:8080, [::1]:8080, port 0 for any free\n\
         port, or unix:/path; numeric only; repeatable (default [::]:8080)",
        section: "Listening"
    )
    .repeatable(',', 64),
    opt!(
        "--port N",
        "PORT",
        Kind::Count {
            min: 0,
            max: u16::MAX as u64,
            set: Number::Port,
        },
        "Listen on port N of every interface, IPv6 and IPv4 (--listen [::]:N)"
    )
    .related(&[Relation::ConflictsWith("--listen")]),
    opt!(
        "--reuse-port",
        "CANNED_REUSE_PORT",
        Kind::Switch(Toggle::ReusePort),
        "Let other processes listen on the same port (SO_REUSEPORT, for\n\
         restarts without downtime); without it a port in use is an error"
    ),
    opt!(
        "--workers N",
        "CANNED_WORKERS",
        Kind::Count {
            min: 1,
            max: MAX_WORKERS,
            set: Number::Workers,
        },
        "Worker threads, at most 1024 (default: the CPUs canned may run on,\n\
         fewer under a cgroup v2 CPU quota)"
    ),
    opt!(
        "--backlog N",
        "CANNED_BACKLOG",
        Kind::Count {
            min: 1,
            max: i32::MAX as u64,
            set: Number::Backlog,
        },
        "Listen backlog (default 1024)"
    ),
    opt!(
        "--max-conns N",
        "CANNED_MAX_CONNS",
        Kind::Count {
            min: 1,
            max: u32::MAX as u64,
            set: Number::MaxConns,
        },
        "Open connections per process (default 10000)"
    ),
    opt!(
        "--body TEXT",
        "CANNED_BODY",
        Kind::Text(Text::Body),
        "Response body (default \"Hello World\\n\")",
        section: "Response"
    ),
    opt!(
        "--body-file PATH",
        "CANNED_BODY_FILE",
        Kind::File(Bytes::Body),
        "Response body from a file"
    )
    .related(&[Relation::ConflictsWith("--body")]),
    opt!(
        "--status CODE",
        "CANNED_STATUS",
        Kind::Count {
            min: 200,
            max: 599,
            set: Number::Status,
        },
        "Status code, 200-599 (default 200)"
    ),
    opt!(
        "--content-type TYPE",
        "CANNED_CONTENT_TYPE",
        Kind::FieldValue(Text::ContentType),
        "Content-Type (default text/plain; charset=utf-8; empty to omit)"
    ),
    opt!(
        "--header 'NAME: VALUE'",
        "CANNED_HEADER",
        Kind::Header,
        "Extra header on every response; repeatable"
    )
    .repeatable('\n', 100),
    opt!(
        "--route PATH=STATUS[:BODY]",
        "CANNED_ROUTE",
        Kind::Route,
        "Answer the exact PATH (query ignored) with STATUS and BODY (@FILE\n\
         reads a file; default empty), the content type and the headers;\n\
         repeatable, at most 1000"
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--health PATH",
        "CANNED_HEALTH",
        Kind::Path(Text::Health),
        "Answer GET and HEAD on PATH with 200 \"ok\""
    ),
    opt!(
        "--server NAME",
        "CANNED_SERVER",
        Kind::FieldValue(Text::Server),
        "Server header (default canned; empty to omit)"
    ),
    opt!(
        "--no-date",
        "CANNED_NO_DATE",
        Kind::Switch(Toggle::NoDate),
        "Leave out the Date header (byte-identical output)"
    ),
    opt!(
        "--raw-response PATH",
        "CANNED_RAW_RESPONSE",
        Kind::File(Bytes::RawResponse),
        "Send the file verbatim as the whole response to every request\n\
         (no status line or headers added)"
    )
    .related(&[
        Relation::ConflictsWith("--body"),
        Relation::ConflictsWith("--body-file"),
        Relation::ConflictsWith("--status"),
        Relation::ConflictsWith("--content-type"),
        Relation::ConflictsWith("--header"),
        Relation::ConflictsWith("--route"),
        Relation::ConflictsWith("--health"),
        Relation::ConflictsWith("--server"),
        Relation::ConflictsWith("--stats"),
        Relation::ConflictsWith("--metrics"),
        Relation::ConflictsWith("--methods"),
    ]),
    opt!(
        "--raw-close",
        "CANNED_RAW_CLOSE",
        Kind::Switch(Toggle::RawClose),
        "With --raw-response, close after each response"
    )
    .related(&[Relation::Needs("--raw-response")]),
    opt!(
        "--max-requests N",
        "CANNED_MAX_REQUESTS",
        Kind::Count {
            min: 0,
            max: u32::MAX as u64,
            set: Number::MaxRequests,
        },
        "Close a connection after N responses (0 = unlimited, default)",
        section: "Limits and timeouts"
    ),
    opt!(
        "--max-head-bytes N",
        "CANNED_MAX_HEAD_BYTES",
        Kind::Size {
            min: 16,
            max: u32::MAX as u64,
            set: Number::MaxHeadBytes,
        },
        "Largest request head (default 8K; 431, or 414 for the request line)"
    ),
    opt!(
        "--max-headers N",
        "CANNED_MAX_HEADERS",
        Kind::Count {
            min: 0,
            max: u32::MAX as u64,
            set: Number::MaxHeaders,
        },
        "Most header fields (default 100; 431 beyond)"
    ),
    opt!(
        "--max-body-bytes N",
        "CANNED_MAX_BODY_BYTES",
        Kind::Size {
            min: 0,
            max: u64::MAX,
            set: Number::MaxBodyBytes,
        },
        "Largest request body (0 = unlimited, default; 413 beyond)"
    ),
    opt!(
        "--methods LIST",
        "CANNED_METHODS",
        Kind::Methods,
        "Answer only these methods, comma-separated (default every\n\
         method; 405 for others)"
    ),
    opt!(
        "--header-timeout D",
        "CANNED_HEADER_TIMEOUT",
        Kind::Duration(Number::HeaderTimeout),
        "The whole head must arrive within D (default 10s; 408), the\n\
         first one counted from the accept"
    ),
    opt!(
        "--idle-timeout D",
        "CANNED_IDLE_TIMEOUT",
        Kind::Duration(Number::IdleTimeout),
        "Close a connection idle for D between requests or inside a\n\
         body (default 60s)"
    ),
    opt!(
        "--write-timeout D",
        "CANNED_WRITE_TIMEOUT",
        Kind::Duration(Number::WriteTimeout),
        "Close a client that does not read for D (default 30s)"
    ),
    opt!(
        "--shutdown-timeout D",
        "CANNED_SHUTDOWN_TIMEOUT",
        Kind::Duration(Number::ShutdownTimeout),
        "On SIGTERM/SIGINT/SIGHUP/SIGQUIT, wait at most D for responses\n\
         in flight (default 5s); a second signal stops at once"
    ),
    opt!(
        "--delay D",
        "CANNED_DELAY",
        Kind::Duration(Number::Delay),
        "Hold each batch of responses for D (latency simulation; faulted\n\
         responses too, and a --fault latency adds to it)",
        section: "Test-endpoint features"
    ),
    opt!(
        "--access-log",
        "CANNED_ACCESS_LOG",
        Kind::Switch(Toggle::AccessLog),
        "One line per request on stdout (never for the --health path)"
    ),
    opt!(
        "--stats PATH",
        "CANNED_STATS",
        Kind::Path(Text::Stats),
        "Answer PATH with JSON counters summed over workers (every 100 ms)"
    ),
    opt!(
        "--metrics PATH",
        "CANNED_METRICS",
        Kind::Path(Text::Metrics),
        "Answer PATH with the same counters in Prometheus text format"
    ),
    opt!(
        "--fault PATH=KIND[:ARGS]",
        "CANNED_FAULT",
        Kind::Fault,
        "Misbehave on PATH (a --route's, or a new route with the default\n\
         response; * for every path without a route): latency:100ms,\n\
         latency:10ms..50ms, latency:median=50ms:p99=500ms, drip:1KiB/100ms,\n\
         drip:10pieces/2s, stall, truncate:N or N%, reset:N or N%,\n\
         garbage:N, error:RATE:STATUS[:BODY]; repeatable, one of each group\n\
         (latency; drip/stall/truncate/reset/garbage; error) per path"
    )
    .repeatable('\n', MAX_ROUTES)
    .related(&[Relation::ConflictsWith("--raw-response")]),
    opt!(
        "--seed N",
        "CANNED_SEED",
        Kind::Count {
            min: 0,
            max: u64::MAX,
            set: Number::Seed,
        },
        "Seed of the fault delays, error shares and garbage (default 0;\n\
         each worker draws its own stream)"
    ),
    opt!(
        "--mutate",
        "CANNED_MUTATE",
        Kind::Switch(Toggle::Mutate),
        "Answer each request on a path without a route with the next\n\
         malformed response of the catalogue (see README), then close"
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    opt!(
        "--mutate-id ID",
        "CANNED_MUTATE_ID",
        Kind::MutateId,
        "Like --mutate, always with the catalogue's variant ID"
    )
    .related(&[
        Relation::ConflictsWith("--mutate"),
        Relation::ConflictsWith("--raw-response"),
    ]),
    opt!(
        "--quiet",
        "CANNED_QUIET",
        Kind::Switch(Toggle::Quiet),
        "Print only errors and warnings",
        section: "Other"
    ),
];

const HELP_INTRO: &str = "\
canned: a tiny, very fast HTTP/1.x responder

Usage: canned [OPTIONS]

Every accepted request is answered with the same preformatted response (or a route's).
Each option can also be set from the environment variable shown. A flag replaces the
variable of its option and of the options it conflicts with; two conflicting options
from the same place are an error. Durations: 10s, 500ms, 2m, 1h or plain seconds.
Sizes, for options and faults alike: 512 or 512B, 64K or 64KiB, 1M or 1MiB, 2G or 2GiB
(powers of 1024).
";
/// Where the help lines of an option start.
const HELP_INDENT: &str = "        ";

/// The `--help` text, from the option table.
pub fn help() -> String {
    let mut h = String::from(HELP_INTRO);
    for o in OPTIONS {
        let (usage, var, mut text, title) = o.texts();
        if !title.is_empty() {
            append(&mut h, &["\n", title, ":\n"]);
        }
        let close = match (o.kind, o.repeat) {
            (Kind::Switch(_), _) => "=1]",
            (_, Repeat::Many { sep: b',', .. }) => ", comma-separated]",
            (_, Repeat::Many { .. }) => ", one per line]",
            _ => "]",
        };
        append(&mut h, &["  ", usage, "  [", var, close]);
        while !text.is_empty() {
            let (line, rest) = cut(text, b'\n');
            append(&mut h, &["\n", HELP_INDENT, line]);
            text = rest;
        }
        h.push('\n');
    }
    h.push_str(HELP_END);
    h
}

/// The end of `--help`: the commands outside the table.
const HELP_END: &str = "  --mutate-list
        Print the ids of the malformed-response catalogue (for --mutate-id)
  -h, --help
        Print this help
  -V, --version
        Print the version and the commit it was built from
";

/// `pieces`, one after the other: one out-of-line loop rather than a capacity check and a
/// copy inlined for each piece.
#[inline(never)]
fn append(s: &mut String, pieces: &[&str]) {
    for piece in pieces {
        s.push_str(piece);
    }
}

/// The variables of the process environment that [`Config::from_args`] reads (one per option,
/// and systemd's `LISTEN_FDS` and `LISTEN_PID`), with their values: what `main` passes it.
/// Looked up by name rather than by collecting the whole environment, which takes more code.
pub fn environment() -> Vec<(OsString, OsString)> {
    let mut env = Vec::new();
    for name in OPTIONS
        .iter()
        .map(Opt::var)
        .chain(["LISTEN_FDS", "LISTEN_PID"])
    {
        if let Some(value) = std::env::var_os(name) {
            env.push((OsString::from(name), value));
        }
    }
    env
}

/// `s` split at the first `byte` (which is dropped), or `s` whole.
#[inline(never)]
fn cut(s: &str, byte: u8) -> (&str, &str) {
    match s.bytes().position(|b| b == byte) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    }
}

/// What the command line asked for.
#[derive(Debug)]
pub enum Command {
    /// Run a server.
    Run(Box<Config>),
    /// Print the help.
    Help,
    /// Print the version.
    Version,
    /// Print the ids of the malformed-response catalogue, one a line.
    MutateList,
}

/// A bad flag or value: the message names the flag (or variable) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// The one-line refusal of responses that take `total` bytes formatted, over
/// [`crate::response::MAX_FORMATTED_BYTES`].
#[cold]
#[inline(never)]
pub fn formatted_too_large(total: usize) -> String {
    format!(
        "--header, --route: the responses would take {total} bytes once formatted (each \
         route's three heads carry every header), over the limit of {} (64 MiB); give fewer \
         routes or shorter headers",
        crate::response::MAX_FORMATTED_BYTES
    )
}

/// `what` is wrong with the value of `name` (a flag or a variable).
fn fail<T>(name: &str, what: impl std::fmt::Display) -> Result<T, ArgError> {
    Err(arg_error(name, &what))
}

/// `NAME: WHAT`: one out-of-line formatter for every error of every option.
#[cold]
#[inline(never)]
fn arg_error(name: &str, what: &dyn std::fmt::Display) -> ArgError {
    ArgError(format!("{name}: {what}"))
}

/// One value of one option, and the flag or variable it came from (for messages).
struct Given<'a> {
    opt: usize,
    from: &'static str,
    value: &'a str,
}

fn find(flag: &str) -> Option<usize> {
    OPTIONS.iter().position(|o| o.flag() == flag)
}

/// An argument's name and, for `--flag=value`, its value, as bytes (either may be non-UTF-8).
fn split_arg(arg: &OsString) -> (&[u8], Option<&[u8]>) {
    let bytes = arg.as_encoded_bytes();
    match bytes.iter().position(|&b| b == b'=') {
        Some(eq) if bytes.starts_with(b"--") => (&bytes[..eq], Some(&bytes[eq + 1..])),
        _ => (bytes, None),
    }
}

/// Whether `arg` is a flag canned knows, so that it is never taken as another flag's value.
fn is_flag(arg: &OsString) -> bool {
    let name = split_arg(arg).0;
    matches!(
        name,
        b"-h" | b"--help" | b"-V" | b"--version" | b"--mutate-list"
    ) || OPTIONS.iter().any(|o| o.flag().as_bytes() == name)
}

fn utf8<'a>(name: &str, value: &'a [u8]) -> Result<&'a str, ArgError> {
    std::str::from_utf8(value).or_else(|_| fail(name, "the value is not valid UTF-8"))
}

/// The value of variable `name`, if set. Only the variables canned reads are looked at, so
/// others may hold anything.
fn var<'a>(env: &'a [(OsString, OsString)], name: &str) -> Result<Option<&'a str>, ArgError> {
    match env.iter().find(|(k, _)| k == name) {
        Some((_, v)) => utf8(name, v.as_encoded_bytes()).map(Some),
        None => Ok(None),
    }
}

/// The flags in `args`, in order, or the help or version command.
#[inline(never)]
fn read_flags<'a>(
    args: &'a [OsString],
    given: &mut Vec<Given<'a>>,
) -> Result<Option<Command>, ArgError> {
    let mut rest = args.iter().peekable();
    // The switch just read, if the argument before this one was one: `--access-log yes`.
    let mut after_switch: Option<&'static str> = None;
    while let Some(arg) = rest.next() {
        let (name, inline) = split_arg(arg);
        match (name, inline) {
            (b"-h" | b"--help", None) => return Ok(Some(Command::Help)),
            (b"-V" | b"--version", None) => return Ok(Some(Command::Version)),
            (b"--mutate-list", None) => return Ok(Some(Command::MutateList)),
            _ => {}
        }
        let Some(i) = std::str::from_utf8(name).ok().and_then(find) else {
            // Quoted with escapes when it holds a control character, so the error stays one line.
            let mut shown = arg.to_string_lossy().into_owned();
            if shown.contains(char::is_control) {
                shown = format!("{shown:?}");
            }
            return match (name.first(), after_switch) {
                (Some(b'-'), _) => fail(&shown, "unknown option (see --help)"),
                (_, Some(switch)) => fail(
                    switch,
                    format!("takes no value, and {shown:?} is not an option (see --help)"),
                ),
                _ => fail(&shown, "unexpected argument (see --help)"),
            };
        };
        let o = &OPTIONS[i];
        after_switch = matches!(o.kind, Kind::Switch(_)).then(|| o.flag());
        let value = match (o.kind, inline) {
            (Kind::Switch(_), None) => "",
            (Kind::Switch(_), Some(_)) => return fail(o.flag(), "takes no value"),
            (_, Some(v)) => utf8(o.flag(), v)?,
            (_, None) => match rest.next_if(|next| !is_flag(next)) {
                Some(v) => utf8(o.flag(), v.as_encoded_bytes())?,
                None => return fail(o.flag(), "needs a value"),
            },
        };
        if o.repeat == Repeat::Once && given.iter().any(|g| g.opt == i) {
            return fail(o.flag(), "is given twice (it takes one value)");
        }
        given.push(Given {
            opt: i,
            from: o.flag(),
            value,
        });
    }
    Ok(None)
}

/// The environment's values for every option that no flag replaces: neither its own flag nor
/// that of an option it conflicts with was given.
fn read_env<'a>(
    env: &'a [(OsString, OsString)],
    given: &mut Vec<Given<'a>>,
) -> Result<(), ArgError> {
    let flagged: Vec<&Opt> = given.iter().map(|g| &OPTIONS[g.opt]).collect();
    for (i, o) in OPTIONS.iter().enumerate() {
        if flagged
            .iter()
            .any(|f| f.flag() == o.flag() || f.conflicts_with(o))
        {
            continue;
        }
        let Some(v) = var(env, o.var())? else {
            continue;
        };
        let from = o.var();
        match (o.kind, o.repeat) {
            (Kind::Switch(_), _) => match v {
                "1" | "true" => given.push(Given {
                    opt: i,
                    from,
                    value: "",
                }),
                "" | "0" | "false" => {}
                _ => {
                    let what = format!("{v:?} is not 1, true, 0, false or empty");
                    return fail(from, what);
                }
            },
            (_, Repeat::Many { sep, .. }) => {
                let mut rest = v;
                while !rest.is_empty() {
                    let (item, next) = cut(rest, sep);
                    let value = item.strip_suffix('\r').unwrap_or(item);
                    if !value.is_empty() {
                        given.push(Given {
                            opt: i,
                            from,
                            value,
                        });
                    }
                    rest = next;
                }
            }
            (_, Repeat::Once) => given.push(Given {
                opt: i,
                from,
                value: v,
            }),
        }
    }
    Ok(())
}

/// Counts, conflicts and requirements between the options given.
fn check_relations(given: &[Given]) -> Result<(), ArgError> {
    let first = |i: usize| given.iter().find(|g| g.opt == i);
    for (i, o) in OPTIONS.iter().enumerate() {
        let Some(mine) = first(i) else { continue };
        if let Repeat::Many { most, .. } = o.repeat {
            let n = given.iter().filter(|g| g.opt == i).count();
            if n > usize::from(most) {
                return fail(mine.from, format!("{n} values given, at most {most}"));
            }
        }
        for (j, other) in OPTIONS.iter().enumerate().skip(i + 1) {
            if let (true, Some(theirs)) = (o.conflicts_with(other), first(j)) {
                let both = format!("{} and {} cannot be combined", mine.from, theirs.from);
                return Err(ArgError(both));
            }
        }
        if let Some(needed) = o.needs() {
            if !given.iter().any(|g| OPTIONS[g.opt].flag() == needed) {
                return fail(mine.from, format!("needs {needed}"));
            }
        }
    }
    Ok(())
}

/// Read one value and apply its effect. Returns the request path the value makes the server
/// answer, if any, for the check that no path is answered twice.
#[inline(never)]
fn apply<'v>(c: &mut Config, kind: Kind, v: &'v str) -> Result<Option<&'v str>, String> {
    match kind {
        Kind::Switch(set) => set.set(c),
        Kind::Count { min, max, set } => set.set(c, count(v, min.into(), max)?),
        Kind::Size { min, max, set } => set.set(c, within(size(v)?, v, min.into(), max)?),
        Kind::Duration(set) => set.set(c, duration(v)?),
        Kind::Path(set) => {
            check_path(v)?;
            set.set(c, v);
            return Ok(Some(v));
        }
        Kind::FieldValue(set) => set.set(c, field_value(v)?),
        Kind::Text(set) => set.set(c, v),
        Kind::File(set) => set.set(c, read_file(v)?),
        Kind::Address => {
            let l = parse_listen(v)?;
            // Port 0 twice is two free ports; any other address twice would clash with itself.
            // (Paths compared as bytes: `Path`'s own comparison walks components, at a cost.)
            let twice = c.listen.iter().any(|x| match (x, &l) {
                (Listen::Tcp(a), Listen::Tcp(b)) => a == b && a.port() != 0,
                (Listen::Unix(a), Listen::Unix(b)) => a.as_os_str() == b.as_os_str(),
                _ => false,
            });
            if twice {
                return Err(format!("{v} is given twice"));
            }
            c.listen.push(l);
        }
        Kind::Header => {
            let line = header(v)?;
            c.routes[0].spec.headers.push(line);
        }
        Kind::Route => {
            let r = route(v, &c.routes[0].spec)?;
            c.routes.push(r);
            return Ok(v.split_once('=').map(|(path, _)| path));
        }
        Kind::Methods => c.methods = methods(v)?,
        Kind::Fault => return add_fault(c, v),
        Kind::MutateId => {
            let Some(i) = crate::mutate::find(v) else {
                return Err(format!(
                    "{v:?} is not a variant id of the catalogue (like cl-negative; see README)"
                ));
            };
            c.mutate = Some(Mutate::One(i as u16));
        }
    }
    Ok(None)
}

impl Config {
    /// Parse a command line (without the program name) and an environment. A flag replaces
    /// the environment's value of its option, and of every option it conflicts with;
    /// repeatable flags replace the environment's whole list. Arguments and variables are
    /// `OsString`s: a non-UTF-8 value canned reads is an error, any other is ignored.
    #[inline(never)]
    pub fn from_args<I, S>(args: I, env: &[(OsString, OsString)]) -> Result<Command, ArgError>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let mut given = Vec::new();
        if let Some(command) = read_flags(&args, &mut given)? {
            return Ok(command);
        }
        read_env(env, &mut given)?;
        check_relations(&given)?;
        let mut c = Config::default();
        let mut paths: Vec<(&str, &str)> = Vec::new();
        // In table order; each option's values in the order given.
        let in_order = (0..OPTIONS.len()).flat_map(|i| given.iter().filter(move |g| g.opt == i));
        for g in in_order {
            let answered = apply(&mut c, OPTIONS[g.opt].kind, g.value)
                .map_err(|what| arg_error(g.from, &what))?;
            let Some(path) = answered else { continue };
            match paths.iter().find(|(_, p)| *p == path) {
                Some(&(other, _)) if other == g.from => {
                    return fail(other, format!("path {path} is given twice"));
                }
                Some(&(other, _)) => {
                    let both = format!("{other} and {} both answer {path}", g.from);
                    return Err(ArgError(both));
                }
                None => paths.push((g.from, path)),
            }
        }
        let kind_given = |is: fn(Kind) -> bool| given.iter().find(|g| is(OPTIONS[g.opt].kind));
        // A 204 or 304 has no body to send the one given (a route's is checked with its own).
        if let Some(body) =
            kind_given(|k| matches!(k, Kind::Text(Text::Body) | Kind::File(Bytes::Body)))
        {
            if let Err(why) = no_body_status(c.routes[0].spec.status.into()) {
                let status = kind_given(|k| {
                    matches!(
                        k,
                        Kind::Count {
                            set: Number::Status,
                            ..
                        }
                    )
                })
                .map_or("--status", |g| g.from);
                let both = format!("{status} and {} cannot be combined: {why}", body.from);
                return Err(ArgError(both));
            }
        }
        // systemd socket activation (sd_listen_fds(3)): inherited sockets start at fd 3 and
        // are the only listeners, so an address given too is an error rather than ignored.
        if let (Some(fds), Some(pid)) = (var(env, "LISTEN_FDS")?, var(env, "LISTEN_PID")?) {
            if pid.trim() == std::process::id().to_string() {
                let address = |k| {
                    matches!(
                        k,
                        Kind::Address
                            | Kind::Count {
                                set: Number::Port,
                                ..
                            }
                    )
                };
                if let Some(g) = kind_given(address) {
                    let both = format!(
                        "{} and LISTEN_FDS cannot be combined: under socket activation the \
                         inherited sockets are the only listeners",
                        g.from
                    );
                    return Err(ArgError(both));
                }
                let n = count(fds, 1, 64).or_else(|what| fail("LISTEN_FDS", what))?;
                c.listen =
                    crate::server::adopt_listen_fds(n as i32).or_else(|e| fail("LISTEN_FDS", e))?;
            }
        }
        if c.listen.is_empty() {
            c.listen.push(every_interface(DEFAULT_PORT));
        }
        c.check_formatted_bytes().map_err(ArgError)?;
        Ok(Command::Run(Box::new(c)))
    }

    /// Refuse a configuration whose responses would take more than
    /// [`crate::response::MAX_FORMATTED_BYTES`] once formatted: each route's three heads carry
    /// every `--header`, so routes multiply headers. Measured one route at a time, so that a
    /// refused configuration never takes the memory.
    pub fn check_formatted_bytes(&self) -> Result<(), String> {
        use crate::response::{MAX_FORMATTED_BYTES, formatted_bytes};
        if self.raw.is_some() {
            return Ok(());
        }
        let mut total = 0usize;
        for r in &self.routes {
            total = total.saturating_add(formatted_bytes(&r.spec, &self.common));
            if let Some(e) = &r.faults.error {
                // Its error-rate response: the route's fields, another status and body.
                let body = e.body.as_deref().unwrap_or_default().as_bytes();
                let spec = Spec {
                    status: e.status,
                    body: Arc::from(body),
                    ..r.spec.clone()
                };
                total = total.saturating_add(formatted_bytes(&spec, &self.common));
            }
        }
        if total <= MAX_FORMATTED_BYTES {
            return Ok(());
        }
        Err(formatted_too_large(total))
    }

    /// Add a listener (`127.0.0.1:0`, `[::1]:8080`, `unix:/path`).
    pub fn listen(mut self, addr: &str) -> Result<Self, ArgError> {
        let l = parse_listen(addr).or_else(|what| fail("--listen", what))?;
        self.listen.push(l);
        Ok(self)
    }

    /// Set the default body.
    pub fn body(mut self, body: impl AsRef<[u8]>) -> Self {
        self.routes[0].spec.body = Arc::from(body.as_ref());
        self
    }

    /// Add a route (`PATH=STATUS[:BODY]`) with the default response's content type and headers.
    #[inline(never)]
    pub fn route(mut self, r: &str) -> Result<Self, ArgError> {
        let r = route(r, &self.routes[0].spec).or_else(|what| fail("--route", what))?;
        self.routes.push(r);
        Ok(self)
    }
}

/// The default `--workers`: the CPUs this process may run on (its affinity mask, as `taskset`
/// or a cpuset sets it), fewer when a cgroup v2 CPU quota allows less ([`cgroup_cpus`]). Read
/// here rather than through `std::thread::available_parallelism`, which does the same and
/// also reads cgroup v1 and the mount table: 12 KB of code, most of a path library.
fn default_workers() -> usize {
    // SAFETY: a zeroed cpu_set_t is an empty set, and sched_getaffinity writes at most the
    // size it is given.
    let cpus = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) == 0 {
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .count()
        } else {
            // More CPUs than the set holds (1024): every online one.
            libc::sysconf(libc::_SC_NPROCESSORS_ONLN).max(1) as usize
        }
    };
    cpus.min(cgroup_cpus().unwrap_or(usize::MAX)).max(1)
}

/// The CPUs that the cgroup v2 CPU quota of this process allows (`cpu.max`: QUOTA PERIOD,
/// rounded up), the lowest along its cgroup and the cgroups above it; `None` without a quota.
/// The cgroup is read from /proc/self/cgroup (`0::/PATH`), under the unified hierarchy at
/// /sys/fs/cgroup: in a container with its own cgroup namespace PATH is `/` and the file is the
/// container's limit.
fn cgroup_cpus() -> Option<usize> {
    use std::os::unix::ffi::OsStrExt;
    const ROOT: &[u8] = b"/sys/fs/cgroup";
    let own = read_bounded("/proc/self/cgroup".as_ref(), 4096).ok()?;
    let own = own
        .split(|&b| b == b'\n')
        .find_map(|l| l.strip_prefix(b"0::/"))?;
    let mut dir = [ROOT, b"/", own].concat();
    let mut least: Option<usize> = None;
    loop {
        let file = [&dir[..], b"/cpu.max"].concat();
        let text = read_bounded(std::ffi::OsStr::from_bytes(&file), 64).unwrap_or_default();
        if let Some(cpus) = quota_cpus(&text) {
            least = Some(least.map_or(cpus, |l| l.min(cpus)));
        }
        match dir.iter().rposition(|&b| b == b'/') {
            Some(i) if i > ROOT.len() => dir.truncate(i),
            _ => return least,
        }
    }
}

/// The CPUs a `cpu.max` file allows: `150000 100000` (a quota of 150 ms per 100 ms) is 2;
/// `max 100000` (no quota) is `None`.
fn quota_cpus(cpu_max: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(cpu_max).ok()?;
    let (quota, period) = cut(text.trim_end_matches('\n'), b' ');
    let (Ok(quota), Ok(period)) = (quota.parse::<u64>(), period.parse::<u64>()) else {
        return None;
    };
    (period > 0).then(|| quota.div_ceil(period).max(1) as usize)
}

/// Port `port` of every interface: the IPv6 wildcard, which the server binds dual-stack.
fn every_interface(port: u16) -> Listen {
    Listen::Tcp(SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)))
}

/// The longest unix socket path: `sun_path` (108 bytes on Linux) less its terminating NUL.
const MAX_UNIX_PATH: usize = 107;

#[inline(never)]
fn parse_listen(v: &str) -> Result<Listen, String> {
    match v.strip_prefix("unix:") {
        Some("") => Err("unix: needs a path".into()),
        // sun_path holds 108 bytes on Linux, the terminating NUL included.
        Some(path) if path.len() > MAX_UNIX_PATH => Err(format!(
            "unix:{path} is {} bytes long; a unix socket path holds at most {MAX_UNIX_PATH}",
            path.len()
        )),
        Some(path) => Ok(Listen::Unix(path.into())),
        None => v.parse().map(Listen::Tcp).map_err(|_| {
            format!("{v:?} is not a numeric address like 127.0.0.1:8080, [::1]:8080 or unix:/path")
        }),
    }
}

/// The most a response file may hold: a file that never ends (`/dev/zero`) is an error, not
/// a process that reads until memory runs out.
pub const MAX_FILE: u64 = 1 << 30;

fn read_file(path: &str) -> Result<Arc<[u8]>, String> {
    read_at_most(path, MAX_FILE)
}

/// At most `limit + 1` bytes of the file at `path` (one reader for every file canned reads).
/// A regular file longer than `limit` is refused by its size, before anything is read
/// (`FileTooLarge`); anything else (a pipe, a device such as `/dev/zero`) is read until it ends
/// or passes `limit`, whichever comes first.
fn read_bounded(path: &std::ffi::OsStr, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > limit {
        return Err(std::io::ErrorKind::FileTooLarge.into());
    }
    let mut buf = Vec::new();
    file.take(limit + 1).read_to_end(&mut buf)?;
    Ok(buf)
}

fn read_at_most(path: &str, limit: u64) -> Result<Arc<[u8]>, String> {
    let too_long = || format!("{path:?} holds more than {limit} bytes");
    let buf = match read_bounded(path.as_ref(), limit) {
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => return Err(too_long()),
        Err(e) => return Err(format!("cannot read {path:?}: {e}")),
        Ok(buf) => buf,
    };
    if buf.len() as u64 > limit {
        return Err(too_long());
    }
    Ok(Arc::from(buf))
}

/// token = 1*tchar (RFC 9110 §5.6.2): a field name or a method.
fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| TCHAR[b as usize])
}

/// A field value canned sends, checked with the parser's rule for received ones (RFC 9110
/// §5.5: no CR, LF, NUL or other control but HTAB), so that no value can end a header line
/// early and add lines of its own (response splitting). Surrounding whitespace is dropped.
#[inline(never)]
fn field_value(v: &str) -> Result<&str, String> {
    match v.bytes().find(|&b| !VALUE[b as usize]) {
        Some(b) => Err(format!(
            "{v:?} contains the control character {:?}; a header value cannot hold CR, LF, NUL or other controls",
            char::from(b)
        )),
        None => Ok(v.trim_matches([' ', '\t'])),
    }
}

/// `Name: value`, checked whole: a token name, a colon, a field value.
fn header(line: &str) -> Result<String, String> {
    let Some((name, value)) = line.split_once(':') else {
        return Err(format!("{line:?} is not a header line like 'Name: value'"));
    };
    if !is_token(name) {
        return Err(format!(
            "{name:?} is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"
        ));
    }
    let value = field_value(value)?;
    let set_by = match name.to_ascii_lowercase().as_str() {
        "content-length" | "transfer-encoding" | "connection" | "date" => "canned itself",
        "server" => "--server",
        "content-type" => "--content-type",
        _ => return Ok(format!("{name}: {value}")),
    };
    Err(format!("{name} is set by {set_by}"))
}

#[inline(never)]
fn check_path(p: &str) -> Result<(), String> {
    if !p.starts_with('/') || p.bytes().any(|b| !(0x21..0x7f).contains(&b) || b == b'?') {
        return Err(format!(
            "{p:?} is not a path like /health (no query, visible ASCII)"
        ));
    }
    Ok(())
}

/// Why `status` cannot carry a body, if it cannot: a 204 or 304 response ends after its head
/// (RFC 9110 §15.3.5, §15.4.5), so a body given for one would be dropped without a word.
fn no_body_status(status: u64) -> Result<(), String> {
    match status {
        204 | 304 => Err(format!("a {status} response has no body")),
        _ => Ok(()),
    }
}

/// `PATH=STATUS[:BODY]`, with the content type and headers of `default`.
fn route(v: &str, default: &Spec) -> Result<Route, String> {
    let Some((path, rest)) = v.split_once('=') else {
        return Err(format!("{v:?} is not PATH=STATUS[:BODY]"));
    };
    check_path(path)?;
    let (code, body) = rest.split_once(':').unwrap_or((rest, ""));
    let status = count(code, 200, 599).map_err(|what| format!("status {what}"))?;
    if !body.is_empty() {
        no_body_status(status)
            .map_err(|why| format!("{path}={code} cannot send the body {body:?}: {why}"))?;
    }
    let body = match body.strip_prefix('@') {
        Some(file) => read_file(file)?,
        None => Arc::from(body.as_bytes()),
    };
    Ok(Route {
        path: path.into(),
        spec: Spec {
            status: status as u16,
            body,
            content_type: default.content_type.clone(),
            headers: default.headers.clone(),
        },
        get_only: false,
        faults: RouteFaults::default(),
    })
}

/// `PATH=KIND[:ARGS]`: add a fault to the route answering PATH (`*`: the default response),
/// adding a route with the default response when PATH has none. Returns the path when it
/// made a route, for the check that no path is answered twice.
fn add_fault<'v>(c: &mut Config, v: &'v str) -> Result<Option<&'v str>, String> {
    let (path, fault) = crate::fault::parse_fault(v)?;
    let (i, new) = match c.routes.iter().position(|r| r.path == path) {
        _ if path == "*" => (0, false),
        Some(i) if i > 0 => (i, false),
        _ => {
            check_path(path)?;
            let mut r = c.routes[0].clone();
            r.path = path.into();
            r.faults = RouteFaults::default();
            c.routes.push(r);
            (c.routes.len() - 1, true)
        }
    };
    c.routes[i].faults.add(fault)?;
    Ok(new.then_some(path))
}

/// The `--health` route: GET and HEAD only, 200 `ok`.
fn health(path: String) -> Route {
    Route {
        path,
        spec: Spec {
            status: 200,
            body: Arc::from(&b"ok"[..]),
            content_type: DEFAULT_TYPE.into(),
            headers: Vec::new(),
        },
        get_only: true,
        faults: RouteFaults::default(),
    }
}

/// `GET,HEAD`: method tokens (RFC 9110 §9.1), case-sensitive. An empty list is an error: it
/// reads as "no method", while leaving the option out answers every method.
fn methods(v: &str) -> Result<Vec<String>, String> {
    if v.is_empty() {
        return Err("the list is empty (leave the option out to answer every method)".into());
    }
    let mut list = Vec::new();
    let mut rest = v;
    while !rest.is_empty() {
        let (m, next) = cut(rest, b',');
        let m = m.trim_matches(' ');
        if !is_token(m) {
            return Err(format!("{m:?} is not a method name (a token such as GET)"));
        }
        list.push(m.to_string());
        rest = next;
        if rest.is_empty() && v.ends_with(',') {
            return Err("\"\" is not a method name (a token such as GET)".into());
        }
    }
    Ok(list)
}
#[cfg(test)]
mod contrib;

#[cfg(test)]
mod tests {
    use super::*;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    fn run_env(args: &[&str], env: &[(&str, &str)]) -> Result<Config, String> {
        match Config::from_args(args.iter().copied(), &os(env)) {
            Ok(Command::Run(c)) => Ok(*c),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e.0),
        }
    }

    fn run(args: &[&str]) -> Result<Config, String> {
        run_env(args, &[])
    }

    /// Arguments, environment, and the start of the one-line error they give.
    type ErrorCase<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

    fn assert_errors(cases: &[ErrorCase]) {
        for (args, env, want) in cases {
            let e = run_env(args, env).unwrap_err();
            assert!(e.starts_with(want), "{args:?} {env:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// An empty scratch directory for this test process.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("canned-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Under socket activation the inherited sockets are the listeners: an address given too
    /// is an error naming both (it used to be ignored without a word).
    #[test]
    fn an_address_with_socket_activation_is_an_error() {
        let pid = std::process::id().to_string();
        let activated = [("LISTEN_FDS", "1"), ("LISTEN_PID", pid.as_str())];
        let why = "cannot be combined: under socket activation the inherited sockets are the \
                   only listeners";
        assert_eq!(
            run_env(&["--listen", "127.0.0.1:0"], &activated).unwrap_err(),
            format!("--listen and LISTEN_FDS {why}")
        );
        let env = [activated[0], activated[1], ("PORT", "8080")];
        assert_eq!(
            run_env(&[], &env).unwrap_err(),
            format!("PORT and LISTEN_FDS {why}")
        );
    }

    #[test]
    fn mutate_list_is_a_command() {
        for args in [&["--mutate-list"][..], &["--port", "1", "--mutate-list"]] {
            let got = Config::from_args(args.iter().copied(), &[]).unwrap();
            assert!(matches!(got, Command::MutateList), "{args:?}");
        }
    }

    /// `unix:` and a path of 108 bytes, one more than `sun_path` holds with its NUL.
    static UNIX_108: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| format!("unix:/{}", "a".repeat(107)));

    /// Unix socket paths up to the 107 bytes `sun_path` holds are listeners; a longer one is
    /// an error naming the flag, the path and the limit (it used to fail only at bind, exit 1,
    /// with "path must be shorter than SUN_LEN").
    #[test]
    fn unix_paths_fit_sun_path() {
        let longest = format!("unix:/{}", "a".repeat(106));
        let c = run(&["--listen", &longest]).unwrap();
        assert_eq!(c.listen, vec![Listen::Unix(longest[5..].into())]);
        let e = run(&["--listen", &UNIX_108]).unwrap_err();
        assert_eq!(
            e,
            format!(
                "--listen: {} is 108 bytes long; a unix socket path holds at most 107",
                *UNIX_108
            )
        );
        // Port 0 twice is two free ports, not a duplicate.
        let c = run(&["--listen", "127.0.0.1:0", "--listen", "127.0.0.1:0"]).unwrap();
        assert_eq!(c.listen.len(), 2);
    }

    fn tcp(a: &str) -> Listen {
        Listen::Tcp(a.parse().unwrap())
    }

    /// The default `--workers` counts the CPUs this thread may run on: pinned to one CPU, one;
    /// to two, two (unless a cgroup quota allows fewer).
    #[test]
    fn default_workers_follow_the_affinity_mask() {
        std::thread::spawn(|| {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            // SAFETY: zeroed sets are empty; the calls read and write at most `size` bytes, and
            // only this test's own thread is pinned.
            let allowed: Vec<usize> = unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
                (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect()
            };
            for n in 1..=allowed.len().min(2) {
                // SAFETY: as above.
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    for &c in &allowed[..n] {
                        libc::CPU_SET(c, &mut set);
                    }
                    assert_eq!(libc::sched_setaffinity(0, size, &set), 0);
                }
                let want = n.min(cgroup_cpus().unwrap_or(n));
                assert_eq!(Config::default().workers, want, "pinned to {n} CPUs");
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn cgroup_quota_in_cpus() {
        for (file, want) in [
            (&b"max 100000\n"[..], None),
            (b"150000 100000\n", Some(2)),
            (b"100000 100000\n", Some(1)),
            (b"1000 100000\n", Some(1)),
            (b"400000 100000", Some(4)),
            (b"", None),
            (b"100000 0\n", None),
        ] {
            assert_eq!(
                quota_cpus(file),
                want,
                "{:?}",
                String::from_utf8_lossy(file)
            );
        }
    }

    #[test]
    fn defaults() {
        let c = run(&[]).unwrap();
        assert_eq!(c.listen, vec![tcp("[::]:8080")]);
        assert_eq!(c.routes[0].spec.body.as_ref(), b"Hello World\n");
        assert_eq!(c.limits.max_head, 8192);
        assert_eq!(c.timeouts.header, 10_000);
        assert_eq!(c.backlog, 1024);
        assert!(!c.reuse_port);
        assert_eq!(c.max_body_bytes, 0);
        assert!(c.methods.is_empty());
        assert_eq!(c.metrics, None);
    }

    #[test]
    fn flags() {
        let c = run(&[
            "--listen",
            "127.0.0.1:0",
            "--listen=[::1]:9",
            "--body",
            "x",
            "--status",
            "201",
            "--header",
            "X-A:  b ",
            "--route",
            "/a=404:nope",
            "--health",
            "/healthz",
            "--header-timeout",
            "500ms",
            "--idle-timeout",
            "2m",
            "--write-timeout",
            "3",
            "--no-date",
            "--server",
            "",
            "--max-requests",
            "7",
            "--reuse-port",
            "--max-body-bytes",
            "1M",
            "--methods",
            "GET, HEAD,PURGE",
            "--metrics",
            "/metrics",
            "--stats",
            "/stats",
        ])
        .unwrap();
        assert_eq!(c.listen, vec![tcp("127.0.0.1:0"), tcp("[::1]:9")]);
        assert_eq!(c.routes[0].spec.status, 201);
        assert_eq!(c.routes[0].spec.headers, vec!["X-A: b".to_string()]);
        assert_eq!(c.routes[1].path, "/a");
        assert_eq!(c.routes[1].spec.status, 404);
        assert_eq!(c.routes[1].spec.body.as_ref(), b"nope");
        assert!(c.routes[2].get_only);
        assert_eq!(c.timeouts.header, 500);
        assert_eq!(c.timeouts.idle, 120_000);
        assert_eq!(c.timeouts.write, 3_000);
        assert!(!c.common.date);
        assert_eq!(c.common.server, "");
        assert_eq!(c.max_requests, 7);
        assert!(c.reuse_port);
        assert_eq!(c.max_body_bytes, 1 << 20);
        assert_eq!(c.methods, ["GET", "HEAD", "PURGE"]);
        assert_eq!(c.metrics.as_deref(), Some("/metrics"));
        assert_eq!(c.stats.as_deref(), Some("/stats"));
    }

    #[test]
    fn values_of_each_kind() {
        for (v, ms) in [
            ("1.5s", 1500),
            ("250ms", 250),
            ("2", 2000),
            ("0.25m", 15_000),
            ("1h", 3_600_000),
        ] {
            assert_eq!(duration(v), Ok(ms), "{v}");
        }
        for (v, bytes) in [
            ("0", 0),
            ("8192", 8192),
            ("64K", 65536),
            ("1m", 1 << 20),
            ("2G", 2 << 30),
            ("512B", 512),
            ("1KiB", 1024),
            ("3MiB", 3 << 20),
            ("1GiB", 1 << 30),
        ] {
            assert_eq!(size(v), Ok(Some(bytes)), "{v}");
        }
        assert_eq!(size("99999999999G"), Ok(None));
        for bad in ["", "K", "1KB", "1 K", "1kib", "1T", "-1"] {
            assert!(size(bad).is_err(), "{bad:?}");
        }
    }

    /// One size grammar: what a fault takes, an option takes (`1KiB` used to be refused by
    /// `--max-body-bytes` and accepted by `--fault`, `1k` the other way round).
    #[test]
    fn options_and_faults_read_sizes_alike() {
        for v in ["1KiB", "1K", "1k", "1024", "1024B"] {
            let c = run(&["--max-body-bytes", v]).unwrap();
            assert_eq!(c.max_body_bytes, 1024, "{v}");
            let c = run(&["--fault", &format!("/x=truncate:{v}")]).unwrap();
            let want = crate::fault::Delivery::Truncate(crate::fault::Cut::Bytes(1024));
            assert_eq!(c.routes[1].faults.delivery, want, "{v}");
        }
        for v in ["1KB", "1kib"] {
            let option = run(&["--max-body-bytes", v]).unwrap_err();
            let fault = run(&["--fault", &format!("/x=truncate:{v}")]).unwrap_err();
            assert_eq!(
                option.strip_prefix("--max-body-bytes: "),
                fault.strip_prefix("--fault: "),
                "{v}"
            );
        }
    }

    #[test]
    fn port_means_every_interface_ipv6_and_ipv4() {
        for (args, env, want) in [
            (&["--port", "9000"][..], &[][..], "[::]:9000"),
            (&[], &[("PORT", "9001")], "[::]:9001"),
            (&["--port", "0"], &[], "[::]:0"),
        ] {
            assert_eq!(
                run_env(args, env).unwrap().listen,
                vec![tcp(want)],
                "{args:?} {env:?}"
            );
        }
    }

    #[test]
    fn routes_take_the_content_type_and_headers_whatever_the_order() {
        let c = run(&[
            "--route",
            "/a=200",
            "--content-type",
            "x/y",
            "--header",
            "X-A: 1",
        ])
        .unwrap();
        assert_eq!(c.routes[1].spec.content_type, "x/y");
        assert_eq!(c.routes[1].spec.headers, ["X-A: 1"]);
    }

    #[test]
    fn environment_cases() {
        let c = run_env(&[], &[("PORT", "9000"), ("CANNED_BODY", "env")]).unwrap();
        assert_eq!(c.listen, vec![tcp("[::]:9000")]);
        assert_eq!(c.routes[0].spec.body.as_ref(), b"env");
        let c = run_env(
            &[],
            &[
                ("CANNED_LISTEN", "127.0.0.1:2,,127.0.0.1:3"),
                ("CANNED_HEADER", "X-A: 1\r\nX-B: 2\n"),
                ("CANNED_QUIET", "true"),
                ("CANNED_NO_DATE", "0"),
                ("CANNED_SERVER", ""),
            ],
        )
        .unwrap();
        assert_eq!(c.listen, vec![tcp("127.0.0.1:2"), tcp("127.0.0.1:3")]);
        assert_eq!(c.routes[0].spec.headers, ["X-A: 1", "X-B: 2"]);
        assert!(c.quiet && c.common.date);
        assert_eq!(c.common.server, "");
        // Kubernetes sets CANNED_PORT=tcp://IP:PORT (and more) for a Service named canned:
        // canned reads PORT, never CANNED_PORT.
        let c = run_env(
            &[],
            &[
                ("CANNED_PORT", "tcp://10.0.0.11:80"),
                ("CANNED_SERVICE_HOST", "10.0.0.11"),
                ("CANNED_PORT_80_TCP", "tcp://10.0.0.11:80"),
            ],
        )
        .unwrap();
        assert_eq!(c.listen, vec![tcp("[::]:8080")]);
    }

    #[test]
    fn bad_values_name_the_flag_and_what_is_wrong() {
        let none: &[(&str, &str)] = &[];
        let cases: &[ErrorCase] = &[
            (
                &["--port", "x"][..],
                none,
                "--port: \"x\" is not a whole number",
            ),
            (
                &["--port", "99999"],
                none,
                "--port: 99999 is out of range (at most 65535)",
            ),
            (
                &["--port", "99999999999999999999999"],
                none,
                "--port: 99999999999999999999999 is out of range (at most 65535)",
            ),
            (&["--port", "--workers", "2"], none, "--port: needs a value"),
            (&["--body", "--quiet"], none, "--body: needs a value"),
            (&["--body", "-h"], none, "--body: needs a value"),
            (
                &["--listen", "localhost:80"],
                none,
                "--listen: \"localhost:80\" is not a numeric address",
            ),
            (&["--listen", "unix:"], none, "--listen: unix: needs a path"),
            (
                &["--status", "99"],
                none,
                "--status: 99 is out of range (200 to 599)",
            ),
            (
                &["--workers", "0"],
                none,
                "--workers: 0 is out of range (1 to 1024)",
            ),
            (
                &["--workers", "1025"],
                none,
                "--workers: 1025 is out of range (1 to 1024)",
            ),
            (
                &["--header", "Bad Name: x"],
                none,
                "--header: \"Bad Name\" is not a header name",
            ),
            (
                &["--header", "X-A: b\r\n\r\nINJECTED"],
                none,
                "--header: \" b\\r\\n\\r\\nINJECTED\" contains the control character '\\r'; a header value cannot hold CR, LF, NUL or other controls",
            ),
            (
                &["--header", "X: a\u{1}"],
                none,
                "--header: \" a\\u{1}\" contains the control",
            ),
            (
                &["--header", "X: a\0"],
                none,
                "--header: \" a\\0\" contains the control",
            ),
            (
                &["--header", "X"],
                none,
                "--header: \"X\" is not a header line like 'Name: value'",
            ),
            (
                &[],
                &[("CANNED_HEADER", "X-A: 1\nX-B: \u{7f}")],
                "CANNED_HEADER: \" \\u{7f}\" contains",
            ),
            (
                &["--server", "a\nb"],
                none,
                "--server: \"a\\nb\" contains the control character '\\n'",
            ),
            (
                &["--content-type", "text/plain\r\nX: y"],
                none,
                "--content-type: \"text/plain\\r\\nX: y\" contains",
            ),
            (
                &["--header", "Content-Length: 5"],
                none,
                "--header: Content-Length is set by canned itself",
            ),
            (
                &["--header", "server: x"],
                none,
                "--header: server is set by --server",
            ),
            (
                &["--header", "Content-Type: x"],
                none,
                "--header: Content-Type is set by --content-type",
            ),
            (
                &["--route", "/a"],
                none,
                "--route: \"/a\" is not PATH=STATUS[:BODY]",
            ),
            (&["--route", "a=200"], none, "--route: \"a\" is not a path"),
            (
                &["--route", "/a=99"],
                none,
                "--route: status 99 is out of range (200 to 599)",
            ),
            (
                &["--route", "/a\r\n=200"],
                none,
                "--route: \"/a\\r\\n\" is not a path",
            ),
            (
                &["--methods", "GET,,HEAD"],
                none,
                "--methods: \"\" is not a method name",
            ),
            (
                &["--methods", "GE T"],
                none,
                "--methods: \"GE T\" is not a method name",
            ),
            (
                &["--max-body-bytes", "1T"],
                none,
                "--max-body-bytes: \"1T\" is not a size like 512, 64K or 1MiB",
            ),
            (
                &["--max-body-bytes", "99999999999G"],
                none,
                "--max-body-bytes: 99999999999G is out of range",
            ),
            (
                &["--max-head-bytes", "15"],
                none,
                "--max-head-bytes: 15 is out of range (16 to 4294967295)",
            ),
            (
                &["--idle-timeout", "5 days"],
                none,
                "--idle-timeout: \"5 days\" is not a positive duration",
            ),
            (
                &["--header-timeout", "0"],
                none,
                "--header-timeout: \"0\" is not a positive duration",
            ),
            (&["--body"], none, "--body: needs a value"),
            (
                &["--frobnicate"],
                none,
                "--frobnicate: unknown option (see --help)",
            ),
            (
                &["--a\nb"],
                none,
                "\"--a\\nb\": unknown option (see --help)",
            ),
            (&["stray"], none, "stray: unexpected argument (see --help)"),
            (&["--quiet=1"], none, "--quiet: takes no value"),
            (
                &["--body-file", "/nonexistent/x"],
                none,
                "--body-file: cannot read \"/nonexistent/x\"",
            ),
            (&["--raw-close"], none, "--raw-close: needs --raw-response"),
            (
                &[],
                &[("CANNED_RAW_CLOSE", "1")],
                "CANNED_RAW_CLOSE: needs --raw-response",
            ),
            (
                &["--backlog", "3000000000"],
                none,
                "--backlog: 3000000000 is out of range (1 to 2147483647)",
            ),
            (
                &["--max-requests", "-1"],
                none,
                "--max-requests: \"-1\" is not a whole number",
            ),
            (
                &[],
                &[("CANNED_WORKERS", "")],
                "CANNED_WORKERS: \"\" is not a whole number",
            ),
            (
                &[],
                &[("CANNED_QUIET", "yes")],
                "CANNED_QUIET: \"yes\" is not 1, true, 0, false or empty",
            ),
            (
                &["--access-log", "yes"],
                none,
                "--access-log: takes no value, and \"yes\" is not an option (see --help)",
            ),
            (
                &["--route", "/nm=304:ignored"],
                none,
                "--route: /nm=304 cannot send the body \"ignored\": a 304 response has no body",
            ),
            (
                &["--route", "/nc=204:@/dev/null"],
                none,
                "--route: /nc=204 cannot send the body \"@/dev/null\": a 204 response has no body",
            ),
            (
                &["--status", "204", "--body", "x"],
                none,
                "--status and --body cannot be combined: a 204 response has no body",
            ),
            (
                &["--body-file", "/dev/null"],
                &[("CANNED_STATUS", "304")],
                "CANNED_STATUS and --body-file cannot be combined: a 304 response has no body",
            ),
            (
                &["--methods", ""],
                none,
                "--methods: the list is empty (leave the option out to answer every method)",
            ),
            (
                &[],
                &[("CANNED_METHODS", "")],
                "CANNED_METHODS: the list is empty",
            ),
            (
                &["--raw-response", "/dev/null", "--methods", "GET"],
                none,
                "--raw-response and --methods cannot be combined",
            ),
            (
                &[
                    "--listen",
                    "127.0.0.1:9",
                    "--listen",
                    "[::1]:9",
                    "--listen",
                    "127.0.0.1:9",
                ],
                none,
                "--listen: 127.0.0.1:9 is given twice",
            ),
            (&["--listen", &UNIX_108], none, "--listen: unix:/aaaa"),
            (
                &[],
                &[("PORT", "http")],
                "PORT: \"http\" is not a whole number",
            ),
            (
                &[],
                &[
                    ("LISTEN_FDS", "0"),
                    ("LISTEN_PID", &std::process::id().to_string()),
                ],
                "LISTEN_FDS: 0 is out of range (1 to 64)",
            ),
        ];
        assert_errors(cases);
    }

    #[test]
    fn duplicates_and_conflicts_name_both() {
        let none: &[(&str, &str)] = &[];
        let cases: &[ErrorCase] = &[
            (
                &["--body", "a", "--body", "b"][..],
                none,
                "--body: is given twice (it takes one value)",
            ),
            (&["--quiet", "--quiet"], none, "--quiet: is given twice"),
            (
                &["--health", "/h", "--health", "/i"],
                none,
                "--health: is given twice",
            ),
            (
                &["--body", "a", "--body-file", "/dev/null"],
                none,
                "--body and --body-file cannot be combined",
            ),
            (
                &["--port", "1", "--listen", "127.0.0.1:1"],
                none,
                "--listen and --port cannot be combined",
            ),
            (
                &[],
                &[("PORT", "1"), ("CANNED_LISTEN", "127.0.0.1:1")],
                "CANNED_LISTEN and PORT cannot be combined",
            ),
            (
                &["--raw-response", "/dev/null", "--route", "/a=200"],
                none,
                "--route and --raw-response cannot be combined",
            ),
            (
                &["--raw-response", "/dev/null", "--health", "/h"],
                none,
                "--health and --raw-response cannot be combined",
            ),
            (
                &["--health", "/x", "--stats", "/x"],
                none,
                "--health and --stats both answer /x",
            ),
            (
                &["--stats", "/x", "--metrics", "/x"],
                none,
                "--stats and --metrics both answer /x",
            ),
            (
                &["--route", "/m=200", "--metrics", "/m"],
                none,
                "--route and --metrics both answer /m",
            ),
            (
                &[],
                &[("CANNED_HEALTH", "/x"), ("CANNED_STATS", "/x")],
                "CANNED_HEALTH and CANNED_STATS both answer /x",
            ),
            (
                &[
                    "--route", "/a=200", "--route", "/b=204", "--route", "/a=404",
                ],
                none,
                "--route: path /a is given twice",
            ),
        ];
        assert_errors(cases);
    }

    /// For every repeatable option: its most values are accepted, one more is an error, as
    /// flags and in its variable.
    #[test]
    fn repeatable_options_are_bounded() {
        for o in OPTIONS {
            let Repeat::Many { sep, most } = o.repeat else {
                continue;
            };
            let values: Vec<String> = (1..=u32::from(most) + 1)
                .map(|i| match o.kind {
                    Kind::Address => format!("127.0.0.1:{i}"),
                    Kind::Header => format!("X-{i}: v"),
                    Kind::Route => format!("/{i}=200"),
                    Kind::Fault => format!("/{i}=stall"),
                    _ => panic!("{}: no sample values", o.flag()),
                })
                .collect();
            let args: Vec<&str> = values.iter().flat_map(|v| [o.flag(), v]).collect();
            let want = format!("{}: {} values given, at most {most}", o.flag(), most + 1);
            assert_eq!(run(&args).unwrap_err(), want);
            let env = values.join(&char::from(sep).to_string());
            let want = format!("{}: {} values given, at most {most}", o.var(), most + 1);
            assert_eq!(run_env(&[], &[(o.var(), &env)]).unwrap_err(), want);
            assert!(run(&args[2..]).is_ok(), "{}", o.flag());
        }
    }

    #[test]
    fn non_utf8_values_are_an_error_naming_the_flag_others_are_ignored() {
        use std::os::unix::ffi::OsStringExt;
        let bad = || OsString::from_vec(b"a\xffb".to_vec());
        type Env = Vec<(OsString, OsString)>;
        let cases: [(Vec<OsString>, Env, &str); 6] = [
            (
                vec!["--body".into(), bad()],
                vec![],
                "--body: the value is not valid UTF-8",
            ),
            (
                vec![OsString::from_vec(b"--body=\xff".to_vec())],
                vec![],
                "--body: the value is not valid UTF-8",
            ),
            (
                vec![bad()],
                vec![],
                "a\u{fffd}b: unexpected argument (see --help)",
            ),
            (
                vec![],
                vec![("CANNED_BODY".into(), bad())],
                "CANNED_BODY: the value is not valid UTF-8",
            ),
            (
                vec![],
                vec![("PORT".into(), bad())],
                "PORT: the value is not valid UTF-8",
            ),
            (
                vec!["--port".into(), "1".into()],
                vec![
                    ("LISTEN_FDS".into(), bad()),
                    ("LISTEN_PID".into(), "1".into()),
                ],
                "LISTEN_FDS: the value is not valid UTF-8",
            ),
        ];
        for (args, env, want) in cases {
            let got = Config::from_args(args.clone(), &env).unwrap_err();
            assert_eq!(got.0, want, "{args:?} {env:?}");
        }
        // Variables canned does not read may hold anything, names included.
        let env = vec![
            (bad(), bad()),
            ("LANG".into(), bad()),
            ("CANNED_UNKNOWN".into(), bad()),
        ];
        assert!(Config::from_args(["--body", "x"], &env).is_ok());
    }

    /// Two different valid values (for the environment, for the flag) of `o`'s kind; list
    /// variables hold two items. Files are created under `dir`.
    fn samples(o: &Opt, dir: &std::path::Path) -> (String, String) {
        let file = |name: &str| {
            let p = dir.join(name);
            std::fs::write(&p, name).unwrap();
            p.to_str().unwrap().to_string()
        };
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        match o.kind {
            Kind::Switch(_) => pair("1", ""),
            // Neither is a default.
            Kind::Count { max, .. } | Kind::Size { max, .. } => {
                ((max - 1).to_string(), max.to_string())
            }
            Kind::Duration(_) => pair("1s", "2s"),
            Kind::Path(_) => pair("/env", "/flag"),
            Kind::File(_) => (file("env"), file("flag")),
            Kind::Address => pair("127.0.0.1:1,127.0.0.1:3", "127.0.0.1:2"),
            Kind::Header => pair("X-Env: 1\nX-Env-2: 1", "X-Flag: 2"),
            Kind::FieldValue(_) | Kind::Text(_) => pair("env", "flag"),
            Kind::Route => pair("/env=200\n/env2=200", "/flag=201"),
            Kind::Methods => pair("GET", "POST,PUT"),
            Kind::Fault => pair("/env=stall\n/env2=reset:0", "/flag=truncate:1"),
            Kind::MutateId => pair("cl-hex", "cl-negative"),
        }
    }

    fn flag_args<'a>(o: &Opt, value: &'a str) -> Vec<&'a str> {
        match o.kind {
            Kind::Switch(_) => vec![o.flag()],
            _ => vec![o.flag(), value],
        }
    }

    /// The README's rule, for every option in the table: a flag replaces the environment's
    /// value (a repeatable flag, the whole list).
    #[test]
    fn a_flag_replaces_its_variable_for_every_option() {
        let dir = scratch("precedence");
        for o in OPTIONS {
            let (env_value, flag_value) = samples(o, &dir);
            let mut args = Vec::new();
            if let Some(needed) = o
                .needs()
                .and_then(|n| OPTIONS.iter().find(|p| p.flag() == n))
            {
                let (_, v) = samples(needed, &dir);
                args.extend(flag_args(needed, &v).into_iter().map(String::from));
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let env = [(o.var(), env_value.as_str())];
            let flag = [&args[..], &flag_args(o, &flag_value)].concat();
            let by_flag = format!("{:?}", run(&flag).unwrap());
            let by_both = format!("{:?}", run_env(&flag, &env).unwrap());
            let by_env = format!("{:?}", run_env(&args, &env).unwrap());
            let by_neither = format!("{:?}", run(&args).unwrap());
            assert_eq!(by_both, by_flag, "{}", o.flag());
            assert_ne!(by_env, by_neither, "{} is not read", o.var());
            if !matches!(o.kind, Kind::Switch(_)) {
                assert_ne!(by_env, by_flag, "{}", o.flag());
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every conflicting pair, from the table: an error naming both when both come from flags
    /// or both from variables; otherwise the flag wins.
    #[test]
    fn conflicting_options_for_every_pair() {
        let dir = scratch("conflicts");
        let mut pairs = 0;
        for (i, a) in OPTIONS.iter().enumerate() {
            for b in OPTIONS.iter().skip(i + 1).filter(|b| a.conflicts_with(b)) {
                pairs += 1;
                let (a_env, a_flag) = samples(a, &dir);
                let (b_env, b_flag) = samples(b, &dir);
                let flags = [flag_args(a, &a_flag), flag_args(b, &b_flag)].concat();
                let env = [(a.var(), a_env.as_str()), (b.var(), b_env.as_str())];
                let want = format!("{} and {} cannot be combined", a.flag(), b.flag());
                assert_eq!(run(&flags).unwrap_err(), want);
                let want = format!("{} and {} cannot be combined", a.var(), b.var());
                assert_eq!(run_env(&[], &env).unwrap_err(), want);
                let a_only = format!("{:?}", run(&flag_args(a, &a_flag)).unwrap());
                let a_flag_b_env = run_env(&flag_args(a, &a_flag), &env[1..]).unwrap();
                assert_eq!(
                    format!("{a_flag_b_env:?}"),
                    a_only,
                    "{} over {}",
                    a.flag(),
                    b.var()
                );
            }
        }
        assert!(pairs > 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_conflict_and_requirement_names_a_flag_in_the_table() {
        for o in OPTIONS {
            for name in o.conflicts().chain(o.needs()) {
                assert!(find(name).is_some(), "{}: {name}", o.flag());
            }
        }
    }

    #[test]
    fn kubernetes_manifest_and_image_command_start() {
        // contrib/kubernetes.yaml's environment with the image's CMD (contrib/Dockerfile).
        let env = [
            ("PORT", "8080"),
            ("CANNED_HEALTH", "/healthz"),
            ("CANNED_WORKERS", "2"),
            ("CANNED_SHUTDOWN_TIMEOUT", "5s"),
        ];
        let c = run_env(&["--port", "8080", "--health", "/healthz"], &env).unwrap();
        assert_eq!(c.listen, vec![tcp("[::]:8080")]);
        assert_eq!(c.routes.len(), 2);
        assert_eq!(c.workers, 2);
    }

    #[test]
    fn help_and_readme_list_every_option_and_variable() {
        let help = help();
        let readme = include_str!("../README.md");
        let section = readme.split("\n## Options\n").nth(1).unwrap();
        let section = section.split("\n## ").next().unwrap();
        let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `-")).collect();
        for o in OPTIONS {
            assert!(help.contains(&format!("  {} ", o.flag())), "{}", o.flag());
            assert!(help.contains(&format!("[{}", o.var())), "{}", o.var());
            let row = rows
                .iter()
                .find(|r| {
                    r.starts_with(&format!("| `{} ", o.flag()))
                        || r.starts_with(&format!("| `{}`", o.flag()))
                })
                .unwrap_or_else(|| panic!("README has no row for {}", o.flag()));
            assert!(
                row.contains(&format!("[`{}", o.var())),
                "README row of {} lacks {}",
                o.flag(),
                o.var()
            );
        }
        for row in rows {
            let flag = row[3..].split([' ', '`']).next().unwrap();
            assert!(
                find(flag).is_some() || ["-h", "-V", "--mutate-list"].contains(&flag),
                "README row {flag} is not an option"
            );
        }
        assert!(help.lines().all(|l| l.len() <= 100), "{help}");
    }

    /// The options of each `--help` section, in order, from the table.
    fn help_sections() -> Vec<(&'static str, Vec<&'static str>)> {
        let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
        for o in OPTIONS {
            let title = o.texts().3;
            if !title.is_empty() {
                sections.push((title, Vec::new()));
            }
            sections
                .last_mut()
                .expect("the first option opens a section")
                .1
                .push(o.flag());
        }
        sections
    }

    /// `--help` groups the options as the README's Options section does: the same sections
    /// (`### Title`), in the same order, each with the same options (`--raw-response` used to
    /// sit under "Limits and timeouts" in the help and with the response options in the README).
    #[test]
    fn help_sections_are_the_readme_sections() {
        let readme = include_str!("../README.md");
        let section = readme.split("\n## Options\n").nth(1).unwrap();
        let section = section.split("\n## ").next().unwrap();
        let mut readme_sections: Vec<(&str, Vec<&str>)> = Vec::new();
        for line in section.lines() {
            if let Some(title) = line.strip_prefix("### ") {
                readme_sections.push((title, Vec::new()));
            } else if let Some(row) = line.strip_prefix("| `") {
                let flag = row.split([' ', '`']).next().unwrap();
                if find(flag).is_some() {
                    readme_sections.last_mut().unwrap().1.push(flag);
                }
            }
        }
        assert_eq!(readme_sections, help_sections());
        let help = help();
        for (title, _) in help_sections() {
            assert!(help.contains(&format!("\n{title}:\n")), "{title}");
        }
    }

    /// `--fault` on a route's path, on a new path (a route with the default response), on `*`
    /// (the default response); errors name the flag.
    #[test]
    fn faults_attach_to_routes() {
        use crate::fault::{Cut, Delivery, Latency, RouteFaults};
        let c = run(&[
            "--body",
            "b",
            "--route",
            "/r=404:x",
            "--fault",
            "/r=latency:5ms",
            "--fault",
            "/new=truncate:50%",
            "--fault",
            "/new=error:0.5:503",
            "--fault",
            "*=stall",
            "--seed",
            "42",
        ])
        .unwrap();
        assert_eq!(c.seed, 42);
        let paths: Vec<&str> = c.routes.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["", "/r", "/new"]);
        assert_eq!(c.routes[0].faults.delivery, Delivery::Stall);
        assert_eq!(c.routes[1].faults.latency, Some(Latency::Fixed(5)));
        assert_eq!(c.routes[1].spec.status, 404);
        let new = &c.routes[2];
        assert_eq!(new.spec.body.as_ref(), b"b");
        assert_eq!(new.faults.delivery, Delivery::Truncate(Cut::Percent(50)));
        assert_eq!(new.faults.error.as_ref().map(|e| e.status), Some(503));
        assert_eq!(run(&[]).unwrap().routes[0].faults, RouteFaults::default());
        assert_eq!(run(&[]).unwrap().seed, 0);
        let env = run_env(&[], &[("CANNED_FAULT", "/a=reset:0\n/b=garbage:8")]).unwrap();
        assert_eq!(env.routes.len(), 3);
        assert_errors(&[
            (
                &["--fault", "/x"],
                &[],
                "--fault: \"/x\" is not PATH=KIND[:ARGS]",
            ),
            (
                &["--fault", "/x=slow"],
                &[],
                "--fault: \"slow\" is not a fault kind",
            ),
            (&["--fault", "x=stall"], &[], "--fault: \"x\" is not a path"),
            (
                &["--fault", "/x=stall", "--fault", "/x=reset:0"],
                &[],
                "--fault: a second drip, stall",
            ),
            (
                &["--stats", "/s", "--fault", "/s=stall"],
                &[],
                "--stats and --fault both answer /s",
            ),
            (
                &["--seed", "-1"],
                &[],
                "--seed: \"-1\" is not a whole number",
            ),
            (
                &[],
                &[("CANNED_FAULT", "/x=drip")],
                "CANNED_FAULT: drip needs",
            ),
            (
                &["--mutate-id", "nope"],
                &[],
                "--mutate-id: \"nope\" is not a variant id",
            ),
        ]);
        assert_eq!(run(&["--mutate"]).unwrap().mutate, Some(Mutate::Cycle));
        let one = run(&["--mutate-id", "te-and-cl"]).unwrap().mutate;
        assert_eq!(
            one,
            Some(Mutate::One(crate::mutate::find("te-and-cl").unwrap() as u16))
        );
        assert_eq!(run(&[]).unwrap().mutate, None);
    }

    #[test]
    fn builder() {
        let c = Config::default()
            .listen("127.0.0.1:0")
            .unwrap()
            .body("pong\n");
        let c = c.route("/a=204").unwrap();
        assert_eq!(c.routes[1].spec.status, 204);
        let e: Box<dyn std::error::Error> = Box::new(Config::default().listen("x").unwrap_err());
        assert!(
            e.to_string()
                .starts_with("--listen: \"x\" is not a numeric address")
        );
    }

    /// A regular file over the limit is refused by its size, without a byte read (it used to
    /// be read up to the limit first: for `--body-file`, seconds and 1 GiB of memory).
    #[test]
    fn long_regular_file_is_refused_by_its_size_before_reading() {
        let dir = scratch("long-file");
        let path = dir.join("long");
        std::fs::write(&path, [b'x'; 4097]).unwrap();
        assert_eq!(
            read_bounded(path.as_os_str(), 4096).map_err(|e| e.kind()),
            Err(std::io::ErrorKind::FileTooLarge)
        );
        assert_eq!(read_bounded(path.as_os_str(), 4097).unwrap().len(), 4097);
        // The real limit, on a sparse file: refused at once.
        let sparse = dir.join("sparse");
        std::fs::File::create(&sparse)
            .unwrap()
            .set_len(MAX_FILE + 1)
            .unwrap();
        let shown = sparse.to_str().unwrap();
        assert_eq!(
            run(&["--body-file", shown]).unwrap_err(),
            format!("--body-file: {shown:?} holds more than {MAX_FILE} bytes")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file that never ends is an error at the limit, not a read until memory runs out.
    #[test]
    fn endless_file_is_refused_at_the_limit() {
        assert_eq!(
            read_at_most("/dev/zero", 4096).unwrap_err(),
            "\"/dev/zero\" holds more than 4096 bytes"
        );
        assert_eq!(read_at_most("/dev/null", 0).unwrap().len(), 0);
    }
}
