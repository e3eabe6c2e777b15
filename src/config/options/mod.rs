//! The option table: every option's flag, environment variable, kind of value, help and
//! relations, and the setting each kind of value changes.

use super::grammar::{every_interface, health_route};
use super::model::Config;
#[cfg(feature = "mutate")]
use crate::fault::Mutate;
use crate::values::split_at_byte;
use std::sync::Arc;
use std::time::Duration;

/// More threads than this are a typo, not a configuration (and each costs descriptors).
const MAX_WORKERS: u64 = 1024;
/// Routes are matched by a linear scan per request.
const MAX_ROUTES: u16 = 1000;

/// How an option's value is read, and the setting a valid value changes. Each setting's
/// effect is an arm of an exhaustive `match` ([`Toggle::set`], [`Number::set`],
/// [`Text::set`], [`FileContents::set`]), so a setting without an effect does not compile. (A
/// closure per option would cost a function, an unwind entry and a relocation each.)
#[derive(Clone, Copy)]
pub(super) enum ValueKind {
    /// No value: given or not (`VAR=1` or `0` in the environment).
    Switch(Toggle),
    /// A whole number from `min` to `max`.
    Count { min: u16, max: u64, set: Number },
    /// A number of bytes from `min` to `max`, in the grammar of [`crate::values::size`].
    Size { min: u16, max: u64, set: Number },
    /// `10s`, `500ms`, `2m` or `1h` (a bare number is refused), in milliseconds.
    Duration(Number),
    /// A request path the server answers: `/healthz`.
    Path(Text),
    /// A header field value (`--server`, `--content-type`).
    FieldValue(Text),
    /// Any text.
    Text(Text),
    /// A file, read whole at start-up.
    File(FileContents),
    /// A numeric socket address or `unix:PATH`: a listener.
    Address,
    /// A header line `Name: value` on every response.
    Header,
    /// `PATH=STATUS[:BODY]`: a route.
    Route,
    /// `PATH=STATUS:LOCATION`: a route that redirects.
    Redirect,
    /// `PATH=Name: value`: a header field of one route.
    RouteHeader,
    /// A file of options, one a line, read before the environment.
    ConfigFile,
    /// Comma-separated method tokens: the methods answered.
    Methods,
    /// `PATH=KIND[:ARGS]`: a fault on a route.
    #[cfg(feature = "faults")]
    Fault,
    /// `PATH[=FORMAT]`: a path answered with the request.
    #[cfg(feature = "echo")]
    Echo,
    /// An id of the malformed-response catalogue.
    #[cfg(feature = "mutate")]
    MutateId,
    /// A TCP address, or a bare port on 127.0.0.1: the admin API's listener.
    #[cfg(feature = "admin")]
    Admin,
    /// An entity-tag, `"x"` or `W/"x"` (RFC 9110 §8.8.3).
    #[cfg(feature = "ranges")]
    EntityTag,
}

/// Settings turned on by a switch.
#[derive(Clone, Copy)]
pub(super) enum Toggle {
    ReusePort,
    NoDate,
    RawClose,
    #[cfg(feature = "access-log")]
    AccessLog,
    Quiet,
    #[cfg(feature = "mutate")]
    Mutate,
    #[cfg(feature = "control")]
    Control,
    #[cfg(feature = "http2")]
    NoHttp2,
    #[cfg(feature = "http2")]
    GrpcHealth,
    #[cfg(feature = "ranges")]
    NoValidators,
}

impl Toggle {
    pub(super) fn set(self, c: &mut Config) {
        match self {
            Toggle::ReusePort => c.reuse_port = true,
            Toggle::NoDate => c.common.date = false,
            Toggle::RawClose => c.raw_close = true,
            #[cfg(feature = "access-log")]
            Toggle::AccessLog => c.access_log = true,
            Toggle::Quiet => c.quiet = true,
            #[cfg(feature = "mutate")]
            Toggle::Mutate => c.mutate = Some(Mutate::Cycle),
            #[cfg(feature = "control")]
            Toggle::Control => c.control = true,
            #[cfg(feature = "http2")]
            Toggle::NoHttp2 => c.no_http2 = true,
            #[cfg(feature = "http2")]
            Toggle::GrpcHealth => c.grpc_health = true,
            #[cfg(feature = "ranges")]
            Toggle::NoValidators => c.validators = false,
        }
    }
}

/// Numeric settings (counts, sizes, durations in milliseconds). Each kind's range keeps the
/// casts below lossless.
#[derive(Clone, Copy)]
pub(super) enum Number {
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
    #[cfg(feature = "faults")]
    Seed,
    #[cfg(feature = "journal")]
    Journal,
    #[cfg(feature = "websocket")]
    WebSocketMaxMessage,
}

impl Number {
    pub(super) fn set(self, c: &mut Config, n: u64) {
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
            #[cfg(feature = "faults")]
            Number::Seed => c.seed = n,
            #[cfg(feature = "journal")]
            Number::Journal => c.journal = n,
            #[cfg(feature = "websocket")]
            Number::WebSocketMaxMessage => c.websocket_max_message = n,
        }
    }
}

/// Settings that take text (already checked by their kind).
#[derive(Clone, Copy)]
pub(super) enum Text {
    Body,
    ContentType,
    Server,
    Health,
    #[cfg(feature = "stats")]
    Stats,
    #[cfg(feature = "stats")]
    Metrics,
    #[cfg(feature = "journal")]
    JournalPath,
    #[cfg(feature = "tls")]
    TlsCert,
    #[cfg(feature = "tls")]
    TlsKey,
    #[cfg(feature = "tls")]
    TlsName,
    #[cfg(feature = "tls")]
    TlsCaOut,
    #[cfg(feature = "tls")]
    TlsClientCa,
    #[cfg(feature = "tls")]
    TlsCase,
    #[cfg(feature = "websocket")]
    WebSocket,
}

impl Text {
    pub(super) fn set(self, c: &mut Config, v: &str) {
        match self {
            Text::Body => c.routes[0].spec.body = Arc::from(v.as_bytes()),
            Text::ContentType => c.routes[0].spec.content_type = v.into(),
            Text::Server => c.common.server = v.into(),
            Text::Health => c.routes.push(health_route(v.into())),
            #[cfg(feature = "stats")]
            Text::Stats => c.stats = Some(v.into()),
            #[cfg(feature = "stats")]
            Text::Metrics => c.metrics = Some(v.into()),
            #[cfg(feature = "journal")]
            Text::JournalPath => {
                // An echo route, in JSON, that answers the journal instead of the request.
                let _ = super::grammar::add_echo(c, v);
                c.journal_path = Some(v.into());
                if c.journal == 0 {
                    c.journal = crate::journal::DEFAULT_ENTRIES;
                }
            }
            #[cfg(feature = "tls")]
            Text::TlsCert => c.tls.cert = Some(v.into()),
            #[cfg(feature = "tls")]
            Text::TlsKey => c.tls.key = Some(v.into()),
            #[cfg(feature = "tls")]
            Text::TlsName => c.tls.names.push(v.into()),
            #[cfg(feature = "tls")]
            Text::TlsCaOut => c.tls.ca_out = Some(v.into()),
            #[cfg(feature = "tls")]
            Text::TlsClientCa => c.tls.client_ca = Some(v.into()),
            #[cfg(feature = "tls")]
            Text::TlsCase => c.tls.case = Some(v.into()),
            #[cfg(feature = "websocket")]
            Text::WebSocket => c.websocket.push(v.into()),
        }
    }
}

/// Settings that take a file's contents.
#[derive(Clone, Copy)]
pub(super) enum FileContents {
    Body,
    RawResponse,
}

impl FileContents {
    pub(super) fn set(self, c: &mut Config, b: Arc<[u8]>) {
        match self {
            FileContents::Body => c.routes[0].spec.body = b,
            FileContents::RawResponse => c.raw = Some(b),
        }
    }
}

/// Whether an option takes one value or many.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
    Once,
    /// Up to `most` values; the environment variable holds them separated by `sep`.
    Many {
        sep: u8,
        most: u16,
    },
}

/// One option: its names, its value, its help and its relations to other options.
#[derive(Clone, Copy)]
pub(super) struct Opt {
    /// `--flag VALUE`, the variable and the help text, one line each (the help may take
    /// more), then, after a NUL, the title of the `--help` section the option opens. Written by
    /// `opt!` as one string: one pointer to relocate in a position-independent binary
    /// instead of four.
    text: &'static str,
    pub(super) kind: ValueKind,
    pub(super) repeat: Repeat,
    /// Options this one cannot be combined with (symmetric), or needs.
    relations: &'static [Relation],
}

#[derive(Clone, Copy)]
pub(super) enum Relation {
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
    pub(super) fn texts(&self) -> (&'static str, &'static str, &'static str, &'static str) {
        let (usage, rest) = split_at_byte(self.text, b'\n');
        let (var, rest) = split_at_byte(rest, b'\n');
        let (help, title) = split_at_byte(rest, 0);
        (usage, var, help, title)
    }
    #[inline(never)]
    pub(super) fn flag(&self) -> &'static str {
        split_at_byte(split_at_byte(self.text, b'\n').0, b' ').0
    }
    pub(super) fn var(&self) -> &'static str {
        self.texts().1
    }
    pub(super) fn conflicts(&self) -> impl Iterator<Item = &'static str> {
        self.relations.iter().filter_map(|r| match r {
            Relation::ConflictsWith(flag) => Some(*flag),
            Relation::Needs(_) => None,
        })
    }
    pub(super) fn needs(&self) -> Option<&'static str> {
        self.relations.iter().find_map(|r| match r {
            Relation::Needs(flag) => Some(*flag),
            Relation::ConflictsWith(_) => None,
        })
    }
    #[inline(never)]
    pub(super) fn conflicts_with(&self, other: &Opt) -> bool {
        self.conflicts().any(|f| f == other.flag()) || other.conflicts().any(|f| f == self.flag())
    }
}

/// The tables: every option, and those of the features not built.
mod table;
pub(super) use table::{ABSENT, OPTIONS};
