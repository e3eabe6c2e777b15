//! The option table: each option's flag, variable, kind and help, in the order they take
//! effect; and the options of the features this build leaves out.

use super::*;

/// The options of the features this binary was built without (Cargo.toml): (flag, variable,
/// feature). Each is refused with one line that names its feature; `--help`, the man page and
/// the completions leave them out.
pub(in crate::config) static ABSENT: &[(&str, &str, &str)] = &[
    #[cfg(not(feature = "tls"))]
    ("--tls-cert", "CANNED_TLS_CERT", "tls"),
    #[cfg(not(feature = "tls"))]
    ("--tls-key", "CANNED_TLS_KEY", "tls"),
    #[cfg(not(feature = "tls"))]
    ("--tls-name", "CANNED_TLS_NAME", "tls"),
    #[cfg(not(feature = "tls"))]
    ("--tls-ca-out", "CANNED_TLS_CA_OUT", "tls"),
    #[cfg(not(feature = "tls"))]
    ("--tls-case", "CANNED_TLS_CASE", "tls"),
    #[cfg(not(feature = "tls"))]
    ("--tls-client-ca", "CANNED_TLS_CLIENT_CA", "tls"),
    #[cfg(not(feature = "websocket"))]
    ("--websocket", "CANNED_WEBSOCKET", "websocket"),
    #[cfg(not(feature = "websocket"))]
    (
        "--websocket-max-message",
        "CANNED_WEBSOCKET_MAX_MESSAGE",
        "websocket",
    ),
    #[cfg(not(feature = "http2"))]
    ("--no-http2", "CANNED_NO_HTTP2", "http2"),
    #[cfg(not(feature = "http2"))]
    ("--grpc-health", "CANNED_GRPC_HEALTH", "http2"),
    #[cfg(not(feature = "ranges"))]
    ("--no-validators", "CANNED_NO_VALIDATORS", "ranges"),
    #[cfg(not(feature = "ranges"))]
    ("--etag", "CANNED_ETAG", "ranges"),
    #[cfg(not(feature = "access-log"))]
    ("--access-log", "CANNED_ACCESS_LOG", "access-log"),
    #[cfg(not(feature = "stats"))]
    ("--stats", "CANNED_STATS", "stats"),
    #[cfg(not(feature = "stats"))]
    ("--metrics", "CANNED_METRICS", "stats"),
    #[cfg(not(feature = "echo"))]
    ("--echo", "CANNED_ECHO", "echo"),
    #[cfg(not(feature = "journal"))]
    ("--journal", "CANNED_JOURNAL", "journal"),
    #[cfg(not(feature = "journal"))]
    ("--journal-path", "CANNED_JOURNAL_PATH", "journal"),
    #[cfg(not(feature = "control"))]
    ("--control", "CANNED_CONTROL", "control"),
    #[cfg(not(feature = "faults"))]
    ("--fault", "CANNED_FAULT", "faults"),
    #[cfg(not(feature = "faults"))]
    ("--seed", "CANNED_SEED", "faults"),
    #[cfg(not(feature = "admin"))]
    ("--admin", "CANNED_ADMIN", "admin"),
    #[cfg(not(feature = "mutate"))]
    ("--mutate", "CANNED_MUTATE", "mutate"),
    #[cfg(not(feature = "mutate"))]
    ("--mutate-id", "CANNED_MUTATE_ID", "mutate"),
    #[cfg(not(feature = "mutate"))]
    ("--mutate-list", "", "mutate"),
    #[cfg(not(feature = "manual"))]
    ("--man", "", "manual"),
    #[cfg(not(feature = "manual"))]
    ("--completions", "", "manual"),
];

/// Every option. Options take effect in this order, whatever the order on the command line:
/// `--route` comes after `--content-type` and `--header`, whose values its routes take.
pub(in crate::config) static OPTIONS: &[Opt] = &[
    opt!(
        "--listen ADDR",
        "CANNED_LISTEN",
        ValueKind::Address,
        "Listen on ADDR: 127.0.0.1:8080, [::1]:8080, port 0 for any free\n\
         port, unix:/path, or tls:ADDR for HTTPS; numeric only; repeatable\n\
         (default [::]:8080)",
        section: "Listening"
    )
    .repeatable(',', 64),
    opt!(
        "--port N",
        "PORT",
        ValueKind::Count {
            min: 0,
            max: u16::MAX as u64,
            set: Number::Port,
        },
        "Listen on port N of every interface, IPv6 and IPv4 (--listen [::]:N)"
    )
    .related(&[Relation::ConflictsWith("--listen")]),
    // The certificates of the `tls:` listeners (checked when the server starts: each needs
    // a `tls:` listener, and --tls-cert and --tls-key go together).
    #[cfg(feature = "tls")]
    opt!(
        "--tls-cert FILE",
        "CANNED_TLS_CERT",
        ValueKind::Text(Text::TlsCert),
        "The tls: listeners' certificate chain, PEM, the leaf first (with\n\
         --tls-key; default: a CA and a certificate generated at start)"
    ),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-key FILE",
        "CANNED_TLS_KEY",
        ValueKind::Text(Text::TlsKey),
        "The private key of --tls-cert, PEM (PKCS#8, PKCS#1 or SEC1)"
    ),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-name NAME",
        "CANNED_TLS_NAME",
        ValueKind::Text(Text::TlsName),
        "A name or address the generated certificate is for, besides\n\
         localhost, 127.0.0.1 and ::1; repeatable"
    )
    .repeatable(',', 64),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-ca-out FILE",
        "CANNED_TLS_CA_OUT",
        ValueKind::Text(Text::TlsCaOut),
        "Write the generated CA's certificate (PEM) to FILE, for clients to\n\
         trust (curl --cacert FILE); never over a file that is not one"
    ),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-case NAME[@SHARE]",
        "CANNED_TLS_CASE",
        ValueKind::Text(Text::TlsCase),
        "Serve the certificate case or handshake fault NAME (expired, stall,\n\
         ...; --tls-list) to connections whose SNI names none, or sends none;\n\
         @SHARE (@10%): to that share of them, drawn from --seed"
    ),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-client-ca FILE",
        "CANNED_TLS_CLIENT_CA",
        ValueKind::Text(Text::TlsClientCa),
        "Require a client certificate signed by a CA of FILE (PEM) on the\n\
         tls: listeners (mutual TLS); a client without one is refused"
    ),
    opt!(
        "--reuse-port",
        "CANNED_REUSE_PORT",
        ValueKind::Switch(Toggle::ReusePort),
        "Let other processes listen on the same port (SO_REUSEPORT, for\n\
         restarts without downtime); without it a port in use is an error"
    ),
    opt!(
        "--workers N",
        "CANNED_WORKERS",
        ValueKind::Count {
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
        ValueKind::Count {
            min: 1,
            max: i32::MAX as u64,
            set: Number::Backlog,
        },
        "Listen backlog (default 1024)"
    ),
    opt!(
        "--max-conns N",
        "CANNED_MAX_CONNS",
        ValueKind::Count {
            min: 1,
            max: u32::MAX as u64,
            set: Number::MaxConns,
        },
        "Open connections per process (default 10000)"
    ),
    opt!(
        "--body TEXT",
        "CANNED_BODY",
        ValueKind::Text(Text::Body),
        "Response body (default \"Hello World\\n\")",
        section: "Response"
    ),
    opt!(
        "--body-file PATH",
        "CANNED_BODY_FILE",
        ValueKind::File(FileContents::Body),
        "Response body from a file"
    )
    .related(&[Relation::ConflictsWith("--body")]),
    opt!(
        "--status CODE",
        "CANNED_STATUS",
        ValueKind::Count {
            min: 200,
            max: 599,
            set: Number::Status,
        },
        "Status code, 200-599 (default 200)"
    ),
    opt!(
        "--content-type TYPE",
        "CANNED_CONTENT_TYPE",
        ValueKind::FieldValue(Text::ContentType),
        "Content-Type (default text/plain; charset=utf-8; empty to omit)"
    ),
    opt!(
        "--header 'NAME: VALUE'",
        "CANNED_HEADER",
        ValueKind::Header,
        "Extra header on every response; repeatable"
    )
    .repeatable('\n', 100),
    opt!(
        "--route [METHOD ]PATH=STATUS[:BODY]",
        "CANNED_ROUTE",
        ValueKind::Route,
        "Answer the exact PATH (query ignored) with STATUS and BODY (@FILE\n\
         reads a file; default empty), the content type and the headers;\n\
         with METHOD, only that method (HEAD too for GET; others: the path's\n\
         other routes, else 405 with Allow; --fault 'METHOD PATH=...' faults\n\
         it); repeatable, at most 1000"
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--redirect [METHOD ]PATH=STATUS:LOCATION",
        "CANNED_REDIRECT",
        ValueKind::Redirect,
        "Answer the exact PATH with STATUS (301, 302, 303, 307 or 308) and\n\
         Location: LOCATION (absolute or relative), no body; METHOD as for\n\
         --route; repeatable, at most 1000"
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--route-header '[METHOD ]PATH=NAME: VALUE'",
        "CANNED_ROUTE_HEADER",
        ValueKind::RouteHeader,
        "A header of the --route or --redirect answering PATH (and METHOD):\n\
         Content-Type sets its type, another replaces the --header of that\n\
         name; repeatable, at most 1000"
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--health PATH",
        "CANNED_HEALTH",
        ValueKind::Path(Text::Health),
        "Answer GET and HEAD on PATH with 200 \"ok\""
    ),
    opt!(
        "--server NAME",
        "CANNED_SERVER",
        ValueKind::FieldValue(Text::Server),
        "Server header (default canned; empty to omit)"
    ),
    opt!(
        "--no-date",
        "CANNED_NO_DATE",
        ValueKind::Switch(Toggle::NoDate),
        "Leave out the Date header (byte-identical output)"
    ),
    #[cfg(feature = "http2")]
    opt!(
        "--no-http2",
        "CANNED_NO_HTTP2",
        ValueKind::Switch(Toggle::NoHttp2),
        "Answer the HTTP/2 preface with 505 and ignore Upgrade: h2c instead\n\
         of speaking HTTP/2 (h2c, prior knowledge and Upgrade, is on by default)"
    ),
    #[cfg(feature = "http2")]
    opt!(
        "--grpc-health",
        "CANNED_GRPC_HEALTH",
        ValueKind::Switch(Toggle::GrpcHealth),
        "Answer the gRPC health service over HTTP/2: Check SERVING for\n\
         every service name, Watch UNIMPLEMENTED (grpc-status 12)"
    )
    .related(&[
        Relation::ConflictsWith("--no-http2"),
        Relation::ConflictsWith("--raw-response"),
    ]),
    #[cfg(feature = "ranges")]
    opt!(
        "--no-validators",
        "CANNED_NO_VALIDATORS",
        ValueKind::Switch(Toggle::NoValidators),
        "Leave out ETag and Last-Modified, and ignore If-Match,\n\
         If-None-Match, If-Modified-Since and If-Unmodified-Since\n\
         (If-Range never matches; ranges are still served)"
    ),
    #[cfg(feature = "ranges")]
    opt!(
        "--etag TAG",
        "CANNED_ETAG",
        ValueKind::EntityTag,
        "ETag of every response that serves ranges, instead of a hash of\n\
         its body: \"v1\" (strong) or W/\"v1\" (weak)"
    )
    .related(&[Relation::ConflictsWith("--no-validators")]),
    opt!(
        "--raw-response PATH",
        "CANNED_RAW_RESPONSE",
        ValueKind::File(FileContents::RawResponse),
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
        Relation::ConflictsWith("--etag"),
        Relation::ConflictsWith("--no-validators"),
    ]),
    opt!(
        "--raw-close",
        "CANNED_RAW_CLOSE",
        ValueKind::Switch(Toggle::RawClose),
        "With --raw-response, close after each response"
    )
    .related(&[Relation::Needs("--raw-response")]),
    opt!(
        "--max-requests N",
        "CANNED_MAX_REQUESTS",
        ValueKind::Count {
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
        ValueKind::Size {
            min: 16,
            max: u32::MAX as u64,
            set: Number::MaxHeadBytes,
        },
        "Largest request head (default 8K; 431, or 414 for the request line)"
    ),
    opt!(
        "--max-headers N",
        "CANNED_MAX_HEADERS",
        ValueKind::Count {
            min: 0,
            max: u32::MAX as u64,
            set: Number::MaxHeaders,
        },
        "Most header fields (default 100; 431 beyond)"
    ),
    opt!(
        "--max-body-bytes N",
        "CANNED_MAX_BODY_BYTES",
        ValueKind::Size {
            min: 0,
            max: u64::MAX,
            set: Number::MaxBodyBytes,
        },
        "Largest request body (0 = unlimited, default; 413 beyond)"
    ),
    opt!(
        "--methods LIST",
        "CANNED_METHODS",
        ValueKind::Methods,
        "Answer only these methods, comma-separated (default every\n\
         method; 405 for others)"
    ),
    opt!(
        "--header-timeout D",
        "CANNED_HEADER_TIMEOUT",
        ValueKind::Duration(Number::HeaderTimeout),
        "The whole head must arrive within D (default 10s; 408), the\n\
         first one counted from the accept"
    ),
    opt!(
        "--idle-timeout D",
        "CANNED_IDLE_TIMEOUT",
        ValueKind::Duration(Number::IdleTimeout),
        "Close a connection idle for D between requests or inside a\n\
         body (default 60s)"
    ),
    opt!(
        "--write-timeout D",
        "CANNED_WRITE_TIMEOUT",
        ValueKind::Duration(Number::WriteTimeout),
        "Close a client that does not read for D (default 30s)"
    ),
    opt!(
        "--shutdown-timeout D",
        "CANNED_SHUTDOWN_TIMEOUT",
        ValueKind::Duration(Number::ShutdownTimeout),
        "On SIGTERM/SIGINT/SIGHUP/SIGQUIT, wait at most D for responses\n\
         in flight (default 5s); a second signal stops at once"
    ),
    opt!(
        "--delay D",
        "CANNED_DELAY",
        ValueKind::Duration(Number::Delay),
        "Hold each batch of responses for D (latency simulation; faulted\n\
         responses too, and a --fault latency adds to it)",
        section: "Test-endpoint features"
    ),
    #[cfg(feature = "access-log")]
    opt!(
        "--access-log",
        "CANNED_ACCESS_LOG",
        ValueKind::Switch(Toggle::AccessLog),
        "One line per request on stdout (never for the --health path)"
    ),
    #[cfg(feature = "stats")]
    opt!(
        "--stats PATH",
        "CANNED_STATS",
        ValueKind::Path(Text::Stats),
        "Answer PATH with JSON counters summed over workers (every 100 ms)"
    ),
    #[cfg(feature = "stats")]
    opt!(
        "--metrics PATH",
        "CANNED_METRICS",
        ValueKind::Path(Text::Metrics),
        "Answer PATH with the same counters in Prometheus text format"
    ),
    #[cfg(feature = "echo")]
    opt!(
        "--echo PATH[=FORMAT]",
        "CANNED_ECHO",
        ValueKind::Echo,
        "Answer PATH with the request as parsed (* for every path without\n\
         a route), in FORMAT: json (default), garden (http-garden's base64\n\
         JSON), text (Name: value lines), body (the body alone) or cookie\n\
         (name=value lines); bodies up to --max-body-bytes, else 1 MiB\n\
         (413 beyond); repeatable"
    )
    .repeatable('\n', MAX_ROUTES)
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "websocket")]
    opt!(
        "--websocket PATH",
        "CANNED_WEBSOCKET",
        ValueKind::Path(Text::WebSocket),
        "Answer an Upgrade: websocket on PATH with a WebSocket echo (RFC\n\
         6455): messages echoed whole, pings answered, close echoed;\n\
         repeatable"
    )
    .repeatable('\n', MAX_ROUTES)
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "websocket")]
    opt!(
        "--websocket-max-message SIZE",
        "CANNED_WEBSOCKET_MAX_MESSAGE",
        ValueKind::Size {
            min: 1,
            max: 1 << 30,
            set: Number::WebSocketMaxMessage,
        },
        "Largest WebSocket message (default 16MiB, at most 1GiB): close\n\
         1009 beyond"
    )
    .related(&[Relation::Needs("--websocket")]),
    #[cfg(feature = "journal")]
    opt!(
        "--journal N",
        "CANNED_JOURNAL",
        ValueKind::Count {
            min: 1,
            max: crate::journal::MAX_ENTRIES,
            set: Number::Journal,
        },
        "Keep the last N requests (1 to 100000) for --journal-path: time,\n\
         client, method, target, headers, body length, status, faults"
    )
    .related(&[
        Relation::Needs("--journal-path"),
        Relation::ConflictsWith("--raw-response"),
    ]),
    #[cfg(feature = "journal")]
    opt!(
        "--journal-path PATH",
        "CANNED_JOURNAL_PATH",
        ValueKind::Path(Text::JournalPath),
        "Answer PATH with the --journal (default 1000 requests) as JSON,\n\
         oldest first; DELETE on PATH clears it"
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "control")]
    opt!(
        "--control",
        "CANNED_CONTROL",
        ValueKind::Switch(Toggle::Control),
        "Let a request choose its answer (for test networks): query\n\
         parameters or X-Canned-Control: status=503;delay=250ms;bytes=1MiB;\n\
         fault=latency:D, stall, truncate:N, reset:N, drip:SIZE/D,\n\
         bandwidth:RATE, hang:D[:reset], slow-close:D, garbage:N or\n\
         error:STATUS[:BODY], each with an optional @SHARE"
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "faults")]
    opt!(
        "--fault PATH=KIND[:ARGS]",
        "CANNED_FAULT",
        ValueKind::Fault,
        "Misbehave on PATH (a --route's, or a new route with the default\n\
         response; * for every path without a route): latency:100ms,\n\
         latency:10ms..50ms, latency:median=50ms:p99=500ms, drip:1KiB/100ms,\n\
         drip:10pieces/2s, bandwidth:64KiB/s, stall, hang:D[:reset],\n\
         slow-close:D, truncate:N or N%, reset:N or N%, garbage:N,\n\
         error:[RATE:]STATUS[:BODY], status:200=70%,500=30%; any ending\n\
         @SHARE (10% or 0.1) applies to that share of responses;\n\
         seq:STEP,... answers the path's requests in turn (each step ok, a\n\
         STATUS or a delivery fault; then the last step again, or the first\n\
         with seq-cycle:); repeatable, one of each group (latency;\n\
         drip/bandwidth/stall/hang/slow-close/truncate/reset/garbage;\n\
         error/status; or a sequence for the last two) per path"
    )
    .repeatable('\n', MAX_ROUTES)
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "faults")]
    opt!(
        "--seed N",
        "CANNED_SEED",
        ValueKind::Count {
            min: 0,
            max: u64::MAX,
            set: Number::Seed,
        },
        "Seed of the fault delays, error shares and garbage (default 0;\n\
         each worker draws its own stream)"
    ),
    #[cfg(feature = "admin")]
    opt!(
        "--admin ADDR",
        "CANNED_ADMIN",
        ValueKind::Admin,
        "Serve the admin API on ADDR (a bare port: 127.0.0.1:PORT): list,\n\
         set and remove faults and routes, reset sequences, read and\n\
         clear the journal at run time; unauthenticated, for test\n\
         networks only"
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "mutate")]
    opt!(
        "--mutate",
        "CANNED_MUTATE",
        ValueKind::Switch(Toggle::Mutate),
        "Answer each request on a path without a route with the next\n\
         malformed response of the catalogue (docs/mutate.md), then close;\n\
         HTTP/2 streams get its h2- variants"
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "mutate")]
    opt!(
        "--mutate-id ID",
        "CANNED_MUTATE_ID",
        ValueKind::MutateId,
        "Like --mutate, always with the catalogue's variant ID (an h2- ID\n\
         on HTTP/2 streams, any other on HTTP/1)"
    )
    .related(&[
        Relation::ConflictsWith("--mutate"),
        Relation::ConflictsWith("--raw-response"),
    ]),
    opt!(
        "--quiet",
        "CANNED_QUIET",
        ValueKind::Switch(Toggle::Quiet),
        "Print only errors and warnings",
        section: "Other"
    ),
    opt!(
        "--config FILE",
        "CANNED_CONFIG",
        ValueKind::ConfigFile,
        "Read options from FILE, one a line as on the command line (--route\n\
         /v1/ping=204), # comments; a flag replaces the file's option, and\n\
         the file's replaces its variable; relative files from FILE's folder"
    ),
];
