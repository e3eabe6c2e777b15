//! What a server is configured with: `Config`, its listeners, routes and `--mutate` choice,
//! its defaults, and the bound on how large its formatted responses may grow.

use super::cpus::default_workers;
use crate::conn::Timeouts;
use crate::echo::EchoFormat;
use crate::fault::{DEFAULT_SEED, Mutate, RouteFaults};
use crate::parser::Limits;
use crate::response::{Common, DEFAULT_CONTENT_TYPE, MAX_FORMATTED_BYTES, Spec, formatted_bytes};
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
    /// A listening socket handed over by the caller. The fd is owned: the server listens on
    /// duplicates of it, and it is closed once, when the last `Listen` holding it is dropped.
    Fd(Arc<std::os::fd::OwnedFd>),
    /// A listening socket systemd passed to this process (socket activation: `LISTEN_FDS`,
    /// `LISTEN_PID`), by its number. The command line only records it: the server takes
    /// ownership when it binds, once per process, after checking again that this process's
    /// own environment passes it.
    Inherited(std::os::fd::RawFd),
    /// `tls:ADDR`: a TCP address whose connections speak TLS (the `tls` feature).
    Tls(SocketAddr),
}

impl PartialEq for Listen {
    fn eq(&self, other: &Self) -> bool {
        use std::os::fd::AsRawFd;
        match (self, other) {
            (Listen::Tcp(a), Listen::Tcp(b)) => a == b,
            (Listen::Unix(a), Listen::Unix(b)) => a == b,
            // Two live owned fds share a number only if they are the same fd.
            (Listen::Fd(a), Listen::Fd(b)) => a.as_raw_fd() == b.as_raw_fd(),
            (Listen::Inherited(a), Listen::Inherited(b)) => a == b,
            (Listen::Tls(a), Listen::Tls(b)) => a == b,
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
            Listen::Inherited(fd) => write!(f, "fd:{fd}"),
            Listen::Tls(a) => write!(f, "tls:{a}"),
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
    /// `--route 'METHOD PATH=…'`: only this method matches (and HEAD, for `GET`). The routes
    /// by method come before the others in [`Config::routes`], so that a path's own method
    /// wins over its route for every method.
    pub method: Option<String>,
    /// `--fault`: how this route misbehaves (none by default).
    pub faults: RouteFaults,
    /// `--echo`: answer with the request, in this format, instead of `spec`'s body (`spec`
    /// gives the status, content type and fields).
    pub echo: Option<EchoFormat>,
    /// The modification time of the file its body was read from (`--body-file`, `@FILE`).
    pub modified: Option<std::time::SystemTime>,
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
    /// `--access-log json`: the lines as JSON objects.
    pub access_log_json: bool,
    /// `--stats PATH`: a JSON counters route.
    pub stats: Option<String>,
    /// `--metrics PATH`: the same counters as `stats`, in the Prometheus text exposition
    /// format (`text/plain; version=0.0.4`).
    pub metrics: Option<String>,
    /// `--mutate` or `--mutate-id`: answer paths without a route of their own with the
    /// malformed-response catalogue.
    pub mutate: Option<Mutate>,
    /// `--journal N`: keep the last N requests (0: no journal).
    pub journal: u64,
    /// `--journal-path PATH`: answer the journal as JSON on PATH (an echo route), clear it
    /// on DELETE.
    pub journal_path: Option<String>,
    /// `--control`: a request may choose its answer.
    pub control: bool,
    /// `--no-http2`: the HTTP/2 preface is answered as HTTP/1 (505).
    pub no_http2: bool,
    /// `--grpc-health`: HTTP/2 answers `/grpc.health.v1.Health/Check` SERVING.
    pub grpc_health: bool,
    /// `ETag` and `Last-Modified` on the routes that serve ranges, and the conditional
    /// fields honoured (off: `--no-validators`).
    pub validators: bool,
    /// `--etag`: the entity-tag of every such route instead of a hash of its body.
    pub etag: Option<String>,
    /// `--seed`: the seed of the generator that draws fault delays, error shares and garbage.
    pub seed: u64,
    /// `--admin ADDR`: the address of the admin API's listener (none by default).
    pub admin: Option<SocketAddr>,
    /// `--websocket PATH`: the paths answered with a WebSocket echo (RFC 6455).
    pub websocket: Vec<String>,
    /// `--websocket-max-message`: the largest WebSocket message taken, in bytes (close 1009
    /// beyond).
    pub websocket_max_message: u64,
    /// `--fault` on a `--websocket` path: its faults per message, by the index of the path
    /// in `websocket` (none for a path without).
    #[cfg(feature = "websocket")]
    pub websocket_faults: Vec<crate::fault::websocket::WsFaults>,
    /// `--tls-cert`, `--tls-key`, `--tls-name`, `--tls-ca-out`, `--tls-case`,
    /// `--tls-client-ca`: the certificates of the `tls:` listeners.
    pub tls: TlsOptions,
}

/// Where the `tls:` listeners' certificate comes from: PEM files, or generated at start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// `--tls-cert FILE`: the certificate chain, PEM, the leaf first.
    pub cert: Option<std::path::PathBuf>,
    /// `--tls-key FILE`: its private key, PEM.
    pub key: Option<std::path::PathBuf>,
    /// `--tls-name NAME`: more names (or addresses) for the generated certificate.
    pub names: Vec<String>,
    /// `--tls-ca-out FILE`: where the generated CA's certificate is written.
    pub ca_out: Option<std::path::PathBuf>,
    /// `--tls-case NAME`: the certificate case of a connection whose SNI names none.
    pub case: Option<String>,
    /// `--tls-client-ca FILE`: the CAs (PEM) a client certificate must be signed by.
    pub client_ca: Option<std::path::PathBuf>,
}

impl Default for Config {
    #[inline(never)]
    #[cfg_attr(canned_small, optimize(size))]
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
                    content_type: DEFAULT_CONTENT_TYPE.into(),
                    headers: Vec::new(),
                },
                get_only: false,
                method: None,
                faults: RouteFaults::default(),
                echo: None,
                modified: None,
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
            access_log_json: false,
            journal: 0,
            journal_path: None,
            stats: None,
            metrics: None,
            seed: DEFAULT_SEED,
            admin: None,
            tls: TlsOptions::default(),
            mutate: None,
            control: false,
            no_http2: false,
            grpc_health: false,
            validators: true,
            etag: None,
            websocket: Vec::new(),
            websocket_max_message: DEFAULT_WEBSOCKET_MAX_MESSAGE,
            #[cfg(feature = "websocket")]
            websocket_faults: Vec::new(),
        }
    }
}

/// `--websocket-max-message`'s default: 16 MiB.
pub const DEFAULT_WEBSOCKET_MAX_MESSAGE: u64 = 16 << 20;

impl Config {
    /// Refuse a configuration whose responses would take more than
    /// [`crate::response::MAX_FORMATTED_BYTES`] once formatted: each route's three heads carry
    /// every `--header`, so routes multiply headers. Measured one route at a time, so that a
    /// refused configuration never takes the memory.
    pub fn check_formatted_bytes(&self) -> Result<(), String> {
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
}

/// The one-line refusal of responses that take `total` bytes formatted, over
/// [`crate::response::MAX_FORMATTED_BYTES`].
#[cold]
#[inline(never)]
pub fn formatted_too_large(total: usize) -> String {
    format!(
        "--header, --route: the responses would take {total} bytes once formatted (each \
         route's three heads carry every header), over the limit of {MAX_FORMATTED_BYTES} \
         (64 MiB); give fewer routes or shorter headers"
    )
}

/// Port `port` of every interface: the IPv6 wildcard, which the server binds dual-stack.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn every_interface(port: u16) -> Listen {
    Listen::Tcp(SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)))
}

/// The `--health` route: GET and HEAD only, 200 `ok`.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn health_route(path: String) -> Route {
    Route {
        path,
        spec: Spec {
            status: 200,
            body: Arc::from(&b"ok"[..]),
            content_type: DEFAULT_CONTENT_TYPE.into(),
            headers: Vec::new(),
        },
        get_only: true,
        method: None,
        faults: RouteFaults::default(),
        echo: None,
        modified: None,
    }
}

/// Make route `path` (a checked path; `None`: the default route) answer with the request,
/// written in `format`: the default response's fields, with the echo's status and content
/// type, and no body.
#[cfg(feature = "echo")]
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn echo_route(c: &mut Config, path: Option<&str>, format: EchoFormat) {
    let i = match path {
        None => 0,
        Some(path) => {
            let mut r = c.routes[0].clone();
            r.path = path.into();
            r.faults = RouteFaults::default();
            c.routes.push(r);
            c.routes.len() - 1
        }
    };
    let r = &mut c.routes[i];
    r.spec.status = 200;
    r.spec.body = Arc::from(&[][..]);
    r.spec.content_type = format.content_type().into();
    r.echo = Some(format);
}

// The setting each option changes, beside the fields it changes: the option table
// (`options/table.rs`) names one of these per option, and a new option is its row there and
// its field and setting here.

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
    /// Whether this is one of the TLS options, which need a `tls:` listener.
    #[cfg(feature = "tls")]
    pub(super) fn is_tls(self) -> bool {
        matches!(
            self,
            Text::TlsCert
                | Text::TlsKey
                | Text::TlsName
                | Text::TlsCaOut
                | Text::TlsCase
                | Text::TlsClientCa
        )
    }

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
                echo_route(c, Some(v), EchoFormat::Json);
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
