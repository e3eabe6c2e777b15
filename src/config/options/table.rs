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
        section: "Listening",
        docs: (r#"`[::]:8080`"#, r#"`127.0.0.1:8080`, `[::1]:8080`, `[::]:8080` (dual-stack: IPv4 clients too), port 0 for any free port, `unix:/path` (at most 107 bytes, what `sun_path` holds), or `tls:ADDR` for HTTPS on a TCP address (TLS 1.3 and 1.2, ALPN `h2` and `http/1.1`; docs/tls.md); repeatable, at most 64, each address once (port 0 excepted). Numeric addresses only: canned never resolves names. An address already taken is an error, exit 1, saying what holds it: `address in use` for another process listening (see `--reuse-port`) or a socket that does not listen (a connection in TIME-WAIT), and an earlier `--listen` of the same command that covers it by name (`--listen [::]:8080, given before it, covers it`: `[::]:8080` covers `127.0.0.1:8080`). Under socket activation (Deployment) the inherited sockets are the only listeners, and an address given too (`--listen`, `--port` or their variables) is an error. `unix:` replaces only a stale socket (a socket file nobody accepts on), refuses any other file and a live socket with exit 1, and on exit removes the socket file it created if it is still there. Conflicts with `--port`."#)
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
        "Listen on port N of every interface, IPv6 and IPv4 (--listen [::]:N)",
        docs: (r#"8080"#, r#"listen on port N of every interface, IPv6 and IPv4: `--listen [::]:N`, one dual-stack socket; on a host without IPv6 it listens on `0.0.0.0:N` and the listening line says IPv4 only. Conflicts with `--listen`."#)
    )
    .related(&[Relation::ConflictsWith("--listen")]),
    // The certificates of the `tls:` listeners (each needs a `tls:` listener, and
    // `--tls-case` a case or fault: `check_tls` in `args`).
    #[cfg(feature = "tls")]
    opt!(
        "--tls-cert FILE",
        "CANNED_TLS_CERT",
        ValueKind::Text(Text::TlsCert),
        "The tls: listeners' certificate chain, PEM, the leaf first (with\n\
         --tls-key; default: a CA and a certificate generated at start)",
        docs: (r#"a certificate generated at start"#, r#"the `tls:` listeners' certificate chain, PEM, the leaf first, then its intermediates; with `--tls-key`. Without both, canned generates at start a CA and a leaf certificate it signs (ECDSA P-256) for `localhost`, `127.0.0.1`, `::1` and each `--tls-name`; see docs/tls.md. Each error is one line naming the flag: a file that cannot be read, without a PEM certificate or key, or a key that does not match the certificate, exit 1 (found at start); a TLS option without a `tls:` listener, `--tls-cert` without `--tls-key` or the reverse, a `--tls-case` that names no case or has a bad share, or options that cannot be combined, exit 2, as any bad flag."#)
    )
    .related(&[Relation::Needs("--tls-key")]),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-key FILE",
        "CANNED_TLS_KEY",
        ValueKind::Text(Text::TlsKey),
        "The private key of --tls-cert, PEM (PKCS#8, PKCS#1 or SEC1)",
        docs: (r#"none"#, r#"the private key of `--tls-cert`, PEM: PKCS#8, PKCS#1 (RSA) or SEC1 (EC)."#)
    )
    .related(&[Relation::Needs("--tls-cert")]),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-name NAME",
        "CANNED_TLS_NAME",
        ValueKind::Text(Text::TlsName),
        "A name or address the generated certificate is for, besides\n\
         localhost, 127.0.0.1 and ::1; repeatable",
        docs: (r#"none"#, r#"one more DNS name or IP address in the generated certificate, besides `localhost`, `127.0.0.1` and `::1`; repeatable, at most 64. A DNS name is letters, digits and hyphens in dot-separated labels (no wildcard), at most 232 bytes, so that each case's name under it (`client-cert-required.NAME`) is a DNS name too. Cannot be combined with `--tls-cert`."#)
    )
    .repeatable(',', 64)
    .related(&[Relation::ConflictsWith("--tls-cert")]),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-ca-out FILE",
        "CANNED_TLS_CA_OUT",
        ValueKind::Text(Text::TlsCaOut),
        "Write the generated CA's certificate (PEM) to FILE, for clients to\n\
         trust (curl --cacert FILE); never over a file that is not one",
        docs: (r#"none"#, r#"write the generated CA's certificate (PEM) to FILE at start, for clients to trust (`curl --cacert FILE`). An existing file is replaced only if it holds a PEM certificate (an earlier run's); anything else is refused with a one-line error, exit 1. Cannot be combined with `--tls-cert`."#)
    )
    .related(&[Relation::ConflictsWith("--tls-cert")]),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-case NAME[@SHARE]",
        "CANNED_TLS_CASE",
        ValueKind::Text(Text::TlsCase),
        "Serve the certificate case or handshake fault NAME (expired, stall,\n\
         ...; --tls-list) to connections whose SNI names none, or sends none;\n\
         @SHARE (@10%): to that share of them, drawn from --seed",
        docs: (r#"none"#, r#"serve the certificate case or handshake fault NAME (`--tls-list` prints them: `expired`, `wrong-host`, `untrusted-root`, `tls12-only`, `stall`, `alert-N`, `reset`, `drip-SIZE-D`, ...) to every connection whose SNI names none, as to one that sends no SNI (a client that connects by address); the first label of the SNI name still chooses (`expired.localhost`). `NAME@SHARE` (`close@10%`, `expired@0.5%`: a percentage above 0, at most 100, at most 4 decimals) serves it to that share of those connections, drawn per connection from `--seed` (the same seed, the same connections, in accept order), and the listener's own certificate to the others. A certificate case cannot be combined with `--tls-cert` (its certificate comes from the generated CA); a handshake fault can"#)
    ),
    #[cfg(feature = "tls")]
    opt!(
        "--tls-client-ca FILE",
        "CANNED_TLS_CLIENT_CA",
        ValueKind::Text(Text::TlsClientCa),
        "Require a client certificate signed by a CA of FILE (PEM) on the\n\
         tls: listeners (mutual TLS); a client without one is refused",
        docs: (r#"none"#, r#"mutual TLS: every connection served the listener's own certificate (generated or `--tls-cert`) must show a client certificate signed by one of the CAs in FILE (PEM); one without, or signed by another CA, is refused in the handshake (`certificate_required` or `unknown_ca` alert). The certificate cases chosen by SNI or `--tls-case` are served as they are"#)
    ),
    opt!(
        "--reuse-port",
        "CANNED_REUSE_PORT",
        ValueKind::Switch(Toggle::ReusePort),
        "Let other processes listen on the same port (SO_REUSEPORT, for\n\
         restarts without downtime); without it a port in use is an error",
        docs: (r#"off"#, r#"bind with SO_REUSEPORT so that other processes may listen on the same port, for restarts without downtime; without it a port another process holds is an error (address in use, exit 1)"#)
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
         fewer under a cgroup v2 CPU quota)",
        docs: (r#"the CPUs canned may run on"#, r#"worker threads (1 to 1024): by default one per CPU of canned's affinity mask (as `taskset` or a cpuset sets it), fewer when a cgroup v2 CPU quota (`cpu.max` of its cgroup and those above, rounded up) allows less, as in a container with a CPU limit; each with its own poller, connections and SO_REUSEPORT listener per address. Each worker needs 3 file descriptors plus one per listener: a count that does not fit in the fd limit is refused at start with exit 1, naming `--workers`"#)
    ),
    opt!(
        "--backlog N",
        "CANNED_BACKLOG",
        ValueKind::Count {
            min: 1,
            max: i32::MAX as u64,
            set: Number::Backlog,
        },
        "Listen backlog (default 1024)",
        docs: (r#"1024"#, r#"listen backlog"#)
    ),
    opt!(
        "--max-conns N",
        "CANNED_MAX_CONNS",
        ValueKind::Count {
            min: 1,
            max: u32::MAX as u64,
            set: Number::MaxConns,
        },
        "Open connections per process (default 10000)",
        docs: (r#"10000"#, r#"open connections per process; at the limit canned closes a longest-idle keep-alive connection (the accepting worker's own, else another worker's) to admit a new one, and stops polling its listeners only while none is idle"#)
    ),
    opt!(
        "--body TEXT",
        "CANNED_BODY",
        ValueKind::Text(Text::Body),
        "Response body (default \"Hello World\\n\")",
        section: "Response",
        docs: (r#"`Hello World\n`"#, r#"response body; with `--status` 204 or 304, which have none, an error"#)
    ),
    opt!(
        "--body-file PATH",
        "CANNED_BODY_FILE",
        ValueKind::File(FileContents::Body),
        "Response body from a file",
        docs: (r#""#, r#"response body from a regular file, at most 1 GiB: a longer file is refused by its size before it is read, and anything else (a FIFO, which would wait for a writer, a device such as `/dev/zero`, a directory) is refused by its type before it is opened, as for `--raw-response` and a route's `@FILE`; conflicts with `--body`, and with `--status` 204 or 304"#)
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
        "Status code, 200-599 (default 200)",
        docs: (r#"200"#, r#"status (200-599) with its standard reason phrase"#)
    ),
    opt!(
        "--content-type TYPE",
        "CANNED_CONTENT_TYPE",
        ValueKind::FieldValue(Text::ContentType),
        "Content-Type (default text/plain; charset=utf-8; empty to omit)",
        docs: (r#"`text/plain; charset=utf-8`"#, r#"empty to omit; routes take it too; a 204 or 304 response never carries it (see Responses)"#)
    ),
    opt!(
        "--header 'NAME: VALUE'",
        "CANNED_HEADER",
        ValueKind::Header,
        "Extra header on every response; repeatable",
        docs: (r#""#, r#"extra header on every route's response (the default, `--route`, `--body`, redirects); the `--health` path's answer and canned's own (its error statuses, a 405 and OPTIONS' 204, `100 Continue`) carry none; the whole line is checked with the parser's field rules (a token name; no CR, LF, NUL or other control in the value), so no header can add lines of its own; repeatable, at most 100"#)
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
         it); repeatable, at most 1000",
        docs: (r#""#, r#"exact-path route (query ignored) with its own status and body, and the global `--content-type` and `--header`s (`--route-header` gives it its own); `BODY` `@FILE` reads a file, whose extension gives the route its Content-Type when it is one of the table in Responses (`.json`: `application/json`, `.bin`: `application/octet-stream`, …); a 204 or 304 route takes no `BODY` (`/nm=304:x` is an error naming the route); with `METHOD` (`'POST /orders=201'`), only that method, HEAD too for GET, and `--fault 'POST /orders=…'` faults it (see Responses for the rule); repeatable, at most 1000"#)
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--redirect [METHOD ]PATH=STATUS:LOCATION",
        "CANNED_REDIRECT",
        ValueKind::Redirect,
        "Answer the exact PATH with STATUS (301, 302, 303, 307 or 308) and\n\
         Location: LOCATION (absolute or relative), no body; METHOD as for\n\
         --route; repeatable, at most 1000",
        docs: (r#""#, r#"a route answering STATUS (301, 302, 303, 307 or 308) with `Location: LOCATION`, absolute (`http://host:8080/new`) or relative (`/new`, `../v2/`), written as sent (visible ASCII, percent-encoded beyond), no body and no Content-Type, and the global `--header`s; `METHOD` and the paths answered twice as for `--route`; `--route-header` and `--fault` apply to it as to a route (see Responses); repeatable, at most 1000"#)
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--route-header '[METHOD ]PATH=NAME: VALUE'",
        "CANNED_ROUTE_HEADER",
        ValueKind::RouteHeader,
        "A header of the --route or --redirect answering PATH (and METHOD):\n\
         Content-Type sets its type, another replaces the --header of that\n\
         name; repeatable, at most 1000",
        docs: (r#""#, r#"a header field of the route of `--route` or `--redirect` that answers PATH (and METHOD, as `--fault` names it), checked as `--header` is: `Content-Type` sets the route's type (empty: none), any other field is added to the route, replacing a `--header` of the same name; `Content-Length`, `Transfer-Encoding`, `Connection`, `Date` and `Server` are refused. The route's HTTP/1 and HTTP/2 answers carry it; repeatable, at most 1000"#)
    )
    .repeatable('\n', MAX_ROUTES),
    opt!(
        "--health PATH",
        "CANNED_HEALTH",
        ValueKind::Path(Text::Health),
        "Answer GET and HEAD on PATH with 200 \"ok\"",
        docs: (r#""#, r#"GET and HEAD on PATH answer 200 `ok`"#)
    ),
    opt!(
        "--server NAME",
        "CANNED_SERVER",
        ValueKind::FieldValue(Text::Server),
        "Server header (default canned; empty to omit)",
        docs: (r#"`canned`"#, r#"`Server` header; empty to omit"#)
    ),
    opt!(
        "--no-date",
        "CANNED_NO_DATE",
        ValueKind::Switch(Toggle::NoDate),
        "Leave out the Date header (byte-identical output)",
        docs: (r#""#, r#"leave out `Date` for byte-identical output"#)
    ),
    #[cfg(feature = "http2")]
    opt!(
        "--no-http2",
        "CANNED_NO_HTTP2",
        ValueKind::Switch(Toggle::NoHttp2),
        "Answer the HTTP/2 preface with 505 and ignore Upgrade: h2c instead\n\
         of speaking HTTP/2 (h2c, prior knowledge and Upgrade, is on by default)",
        docs: (r#""#, r#"answer the HTTP/2 preface with 505 and ignore `Upgrade: h2c` instead of speaking HTTP/2 ([HTTP/2](http2.md))"#)
    ),
    #[cfg(feature = "http2")]
    opt!(
        "--grpc-health",
        "CANNED_GRPC_HEALTH",
        ValueKind::Switch(Toggle::GrpcHealth),
        "Answer the gRPC health service over HTTP/2: Check SERVING for\n\
         every service name, Watch UNIMPLEMENTED (grpc-status 12)",
        docs: (r#"off"#, r#"answer the gRPC health service over HTTP/2: `Check` SERVING for every service name, `Watch` UNIMPLEMENTED ([gRPC health](http2.md#grpc-health)); conflicts with `--no-http2`"#)
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
         (If-Range never matches; ranges are still served)",
        docs: (r#""#, r#"leave out `ETag` and `Last-Modified`, and ignore `If-Match`, `If-None-Match`, `If-Modified-Since` and `If-Unmodified-Since`; ranges are still served, and `If-Range` never matches (the whole body, 200); conflicts with `--raw-response`; see Downloads"#)
    ),
    #[cfg(feature = "ranges")]
    opt!(
        "--etag TAG",
        "CANNED_ETAG",
        ValueKind::EntityTag,
        "ETag of every response that serves ranges, instead of a hash of\n\
         its body: \"v1\" (strong) or W/\"v1\" (weak)",
        docs: (r#"a hash of the body"#, r#"the `ETag` of every response that serves ranges: `"v1"` (strong) or `W/"v1"` (weak, which `If-Range` and `If-Match` never match); anything else is an error naming the flag; conflicts with `--no-validators` and `--raw-response`"#)
    )
    .related(&[Relation::ConflictsWith("--no-validators")]),
    opt!(
        "--raw-response PATH",
        "CANNED_RAW_RESPONSE",
        ValueKind::File(FileContents::RawResponse),
        "Send the file verbatim as the whole response to every request\n\
         (no status line or headers added)",
        docs: (r#""#, r#"send the file at PATH verbatim as the whole response to every request; conflicts with every option that shapes the response (`--body`, `--body-file`, `--status`, `--content-type`, `--header`, `--route`, `--health`, `--server`, `--stats`, `--metrics`, `--methods`; `--no-date` agrees with it)"#)
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
        "With --raw-response, close after each response",
        docs: (r#""#, r#"with `--raw-response` (needs it), close after each response"#)
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
        section: "Limits and timeouts",
        docs: (r#"0 (unlimited)"#, r#"close a connection after N responses (HTTP/2: N streams, then GOAWAY)"#)
    ),
    opt!(
        "--max-head-bytes N",
        "CANNED_MAX_HEAD_BYTES",
        ValueKind::Size {
            min: 16,
            max: u32::MAX as u64,
            set: Number::MaxHeadBytes,
        },
        "Largest request head (default 8K; 431, or 414 for the request line)",
        docs: (r#"8192"#, r#"largest request head (at least 16): 431 beyond, 414 when the target does not fit in it, 400 when the method does not (HTTP/2: the decoded header list, see Limits)"#)
    ),
    opt!(
        "--max-headers N",
        "CANNED_MAX_HEADERS",
        ValueKind::Count {
            min: 0,
            max: u32::MAX as u64,
            set: Number::MaxHeaders,
        },
        "Most header fields (default 100; 431 beyond)",
        docs: (r#"100"#, r#"most header fields: 431 beyond"#)
    ),
    opt!(
        "--max-body-bytes N",
        "CANNED_MAX_BODY_BYTES",
        ValueKind::Size {
            min: 0,
            max: u64::MAX,
            set: Number::MaxBodyBytes,
        },
        "Largest request body (0 = unlimited, default; 413 beyond)",
        docs: (r#"0 (unlimited)"#, r#"largest request body (Content-Length, or the chunks' total): 413 beyond"#)
    ),
    opt!(
        "--methods LIST",
        "CANNED_METHODS",
        ValueKind::Methods,
        "Answer only these methods, comma-separated (default every\n\
         method; 405 for others)",
        docs: (r#"every method"#, r#"comma-separated methods to answer (tokens in upper case, as they are matched case-sensitively: `GET,HEAD`); any other gets 405 and OPTIONS gets 204, both with `Allow` naming the list and OPTIONS; an empty list is an error (leave the option out to answer every method)"#)
    ),
    opt!(
        "--header-timeout D",
        "CANNED_HEADER_TIMEOUT",
        ValueKind::Duration(Number::HeaderTimeout),
        "The whole head must arrive within D (default 10s; 408), the\n\
         first one counted from the accept",
        docs: (r#"10s"#, r#"the whole head must arrive within D of its first byte (a connection's first head: of its accept), else 408 and close; a connection that sent nothing is closed without a response"#)
    ),
    opt!(
        "--idle-timeout D",
        "CANNED_IDLE_TIMEOUT",
        ValueKind::Duration(Number::IdleTimeout),
        "Close a connection idle for D between requests or inside a\n\
         body (default 60s)",
        docs: (r#"60s"#, r#"close a connection idle for D between requests or inside a body (one that never sent a byte is closed at `--header-timeout`)"#)
    ),
    opt!(
        "--write-timeout D",
        "CANNED_WRITE_TIMEOUT",
        ValueKind::Duration(Number::WriteTimeout),
        "Close a client that does not read for D (default 30s)",
        docs: (r#"30s"#, r#"close a client that leaves output unread for D"#)
    ),
    opt!(
        "--shutdown-timeout D",
        "CANNED_SHUTDOWN_TIMEOUT",
        ValueKind::Duration(Number::ShutdownTimeout),
        "On SIGTERM/SIGINT/SIGHUP/SIGQUIT, wait at most D for responses\n\
         in flight (default 5s); a second signal stops at once",
        docs: (r#"5s"#, r#"on SIGTERM, SIGINT, SIGHUP or SIGQUIT, wait at most D for responses in flight; a second such signal stops at once"#)
    ),
    opt!(
        "--delay D",
        "CANNED_DELAY",
        ValueKind::Duration(Number::Delay),
        "Hold each batch of responses for D (latency simulation; faulted\n\
         responses too, and a --fault latency adds to it)",
        section: "Test-endpoint features",
        docs: (r#""#, r#"hold each batch of responses for D: latency simulation with the loop's timers, never a sleeping worker; faulted responses too, and a latency fault adds to it (see Faults)"#)
    ),
    #[cfg(feature = "access-log")]
    opt!(
        "--access-log",
        "CANNED_ACCESS_LOG",
        ValueKind::Switch(Toggle::AccessLog),
        "One line per request on stdout (--access-log json: as JSON;\n\
         never for the --health path)",
        docs: (r#"off"#, r#"one line per request on stdout (`[DATE] CLIENT METHOD TARGET VERSION STATUS BYTES US`: the client's `ip:port` (`unix` on a unix socket), the bytes of the answer canned sends for the request (HTTP/1: its head and body as written, a chunked body's framing included; HTTP/2: the payloads of its HEADERS, an HPACK block, and DATA frames, gRPC's trailers too, not their frame headers): a truncated or reset answer counted to its cut (head included), a drip, the journal and an echo whole (all of it is sent unless the client goes away), garbage its N bytes, a stall or a hang 0, a `--mutate` variant its bytes as sent (HTTP/2's frame headers included: its frames are what is malformed), an upgrade's `101` not at all (a WebSocket handshake's line has 0 bytes; an h2c upgrade's line is its HTTP/2 answer's), the µs from the request's first byte read (HTTP/1: a connection's first request from its accept; HTTP/2: a stream from its HEADERS) to the answer decided and its first bytes queued for the socket (a hold's end for `--delay`; a drip's or a large body's later pieces are not waited for; an answer that the shutdown deadline cuts off keeps its line), then ` tls` over TLS and notes such as ` fault=latency`; `--access-log json`: the same as one JSON object a line, `time`, `client`, `method`, `target`, `protocol` (`HTTP/2` for HTTP/2), `tls`, `status`, `bytes`, `duration_us`, and `notes` when there are any; `-` for `[DATE]` with `--no-date`, as common log format marks a missing field (`"time":null` in JSON); a byte of METHOD or TARGET that is not printable ASCII, or is `\`, written `\xNN`; HTTP/2 keeps at most 32 bytes of the method and 224 of the `:path` for its line, a cut marked `[...]`, see HTTP/2), never for the `--health` path; written when the answer is decided, before it is sent, so a client that closes or resets right after its request still gets its line (an HTTP/2 stream reset before its request ended gets none); handed to a writer thread once per loop turn, so that a stdout nobody reads never stops the server: lines that find no room are dropped and counted (see Limits)"#)
    ),
    #[cfg(feature = "stats")]
    opt!(
        "--stats PATH",
        "CANNED_STATS",
        ValueKind::Path(Text::Stats),
        "Answer PATH with JSON counters summed over workers (every 100 ms)",
        docs: (r#""#, r#"answer PATH with JSON counters summed over workers: connections open and total, requests, responses by status (an answer counted when it is decided, as its access-log line is written: one that a client's leaving or the shutdown deadline cuts off is counted all the same), errors by kind, timeouts, bytes in and out, access-log lines dropped (refreshed every 100 ms)"#)
    ),
    #[cfg(feature = "stats")]
    opt!(
        "--metrics PATH",
        "CANNED_METRICS",
        ValueKind::Path(Text::Metrics),
        "Answer PATH with the same counters in Prometheus text format",
        docs: (r#""#, r#"answer PATH with the same counters in the Prometheus text exposition format (`_total` counters, refreshed every 100 ms)"#)
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
         (413 beyond); repeatable",
        docs: (r#""#, r#"answer PATH with the request as canned parsed it (see Echo and control), in FORMAT: `json` (the default; with the client's and the local address and port), `garden` (http-garden's base64 JSON), `text` (`Name: value` lines, Http11Probe's `/echo`), `body` (the body alone) or `cookie` (`name=value` lines, Http11Probe's `/cookie`); `*` for every path without a route, instead of the default response. Status 200, the format's content type, the `--header`s; bodies up to `--max-body-bytes`, or 1 MiB without it (413 beyond). Conflicts with `--raw-response`; `*` with `--mutate` and `--mutate-id`; an echo path takes no `--fault`. Repeatable"#)
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
         repeatable",
        docs: (r#""#, r#"answer an `Upgrade: websocket` on PATH with a WebSocket echo (RFC 6455, see [docs/websocket.md](websocket.md)): text and binary messages echoed whole, pings answered, a close echoed with its code, protocol errors closed with 1002, bad UTF-8 with 1007, messages over `--websocket-max-message` with 1009; a bad handshake is answered 400 (426 for a version other than 13); a request on PATH without `Upgrade` is routed as any other. HTTP/1.1 only. Conflicts with `--raw-response`. Repeatable"#)
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
         1009 beyond",
        docs: (r#"16MiB"#, r#"largest WebSocket message (its fragments' total), at most 1GiB: close 1009 beyond. Needs `--websocket`"#)
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
         client, method, target, headers, body length, status, faults",
        docs: (r#"1000 with `--journal-path`"#, r#"keep the last N requests (1 to 100000) for `--journal-path`, from every worker (see Echo and control, Request journal); needs `--journal-path`; conflicts with `--raw-response`"#)
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
         oldest first; DELETE on PATH clears it",
        docs: (r#""#, r#"answer PATH with the journal as JSON, oldest first (a HEAD gets its head alone); DELETE on PATH clears it; requests to PATH are not recorded. Conflicts with `--raw-response`"#)
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
         error:STATUS[:BODY], each with an optional @SHARE",
        docs: (r#"off"#, r#"let a request choose its answer, for test networks only (see Echo and control): query parameters `status=503`, `delay=250ms`, `bytes=1MiB`, `fault=latency:D`, `stall`, `truncate:N` or `N%`, `reset:N` or `N%`, `drip:SIZE/D` or `drip:Npieces/D`, `bandwidth:RATE`, `hang:D` or `hang:D:reset`, `slow-close:D`, `garbage:N`, `error:STATUS[:BODY]`, each with an optional `@SHARE`, or the same as `X-Canned-Control: status=503;delay=250ms`; durations at most 1 h, sizes at most 1 GiB; a bad value gets 400 with one line saying what is wrong. Also go-httpbin's paths where no route answers: `/status/CODE` (or `200:0.7,500:0.3`), `/delay/SECS`, `/bytes/N`, `/stream-bytes/N`, `/drip?numbytes=N&duration=D&delay=D&code=CODE`, `/anything`, `/get`, `/post` as `--echo` JSON, and `/ip`, `/headers`, `/user-agent`, `/uuid` as go-httpbin answers them. Conflicts with `--raw-response`"#)
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
         error/status; or a sequence for the last two) per path",
        docs: (r#""#, r#"make PATH misbehave (see Faults): `latency:100ms`, `latency:10ms..50ms`, `latency:median=50ms:p99=500ms`, `drip:1KiB/100ms`, `drip:10pieces/2s`, `bandwidth:64KiB/s`, `stall`, `hang:D` or `hang:D:reset`, `slow-close:D`, `truncate:N` or `N%`, `reset:N` or `N%`, `garbage:N`, `error:[RATE:]STATUS[:BODY]`, `status:200=70%,500=30%`; any of them ending in `@SHARE` (`10%` or `0.1`) applies to that share of responses; `seq:STEP,...` answers the path's requests in turn, over the whole process (each step `ok`, a status or a delivery fault; after the last, the last again, or the first with `seq-cycle:`). PATH is a `--route`'s or `--health`'s path, a new path (answered with the default response), or `*` for every path without a route. At most one of each group per path: a latency; one of drip, bandwidth, stall, hang, slow-close, truncate, reset, garbage; an error rate or a status mix; or, instead of the last two, a sequence. Conflicts with `--raw-response`. Repeatable"#)
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
         each worker draws its own stream)",
        docs: (r#"0"#, r#"seed of the generator behind fault delays, error shares and garbage bytes; each worker draws its own stream, so a run with `--workers 1` repeats exactly"#)
    ),
    #[cfg(feature = "admin")]
    opt!(
        "--admin ADDR",
        "CANNED_ADMIN",
        ValueKind::Admin,
        "Serve the admin API on ADDR (a bare port: 127.0.0.1:PORT): list,\n\
         set and remove faults and routes, reset sequences, read and\n\
         clear the journal at run time; unauthenticated, for test\n\
         networks only",
        docs: (r#"off"#, r#"serve the admin API (see Faults, Admin API) on ADDR, a numeric TCP address, or a bare port on `127.0.0.1` (`--admin 9090`): list, set and remove the faults of every route, reset the sequences, read and clear the journal while canned runs; a listener and a thread of its own, off the workers' path; **unauthenticated, for test networks only**; prints `canned admin API on ADDR (unauthenticated: for test networks only)` after the listening lines; a taken address is an error at start, exit 1, saying what holds it as for `--listen` (another process, a socket that does not listen, or canned's own `--listen` on that port); conflicts with `--raw-response`"#)
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "mutate")]
    opt!(
        "--mutate",
        "CANNED_MUTATE",
        ValueKind::Switch(Toggle::Mutate),
        "Answer each request on a path without a route with the next\n\
         malformed response of the catalogue (docs/mutate.md), then close;\n\
         HTTP/2 streams get its h2- variants (some let the connection go on)",
        docs: (r#"off"#, r#"answer each request on a path without a route with the next variant of the malformed-response catalogue (see Faults), in order, then close (HTTP/2's variants close the connection only where docs/mutate.md's table says); routes, `--health`, `--stats` and `--metrics` answer as usual; conflicts with `--raw-response`"#)
    )
    .related(&[Relation::ConflictsWith("--raw-response")]),
    #[cfg(feature = "mutate")]
    opt!(
        "--mutate-id ID",
        "CANNED_MUTATE_ID",
        ValueKind::MutateId,
        "Like --mutate, always with the catalogue's variant ID (an h2- ID\n\
         on HTTP/2 streams, any other on HTTP/1)",
        docs: (r#""#, r#"like `--mutate`, always with the catalogue's variant ID (to reproduce a client's failure; `--mutate-list` prints the ids); conflicts with `--mutate` and `--raw-response`"#)
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
        section: "Other",
        docs: (r#""#, r#"print only errors and warnings (no listening line, no summary)"#)
    ),
    opt!(
        "--config FILE",
        "CANNED_CONFIG",
        ValueKind::ConfigFile,
        "Read options from FILE, one a line as on the command line (--route\n\
         /v1/ping=204), # comments; a flag replaces the file's option, and\n\
         the file's replaces its variable; relative files from FILE's folder",
        docs: (r#""#, r#"read options from FILE: one a line, written as on the command line (`--route /v1/ping=204`, `--access-log`, `--header=X-A: 1`), the value the rest of the line (no shell quoting needed; a value wrapped whole in `'` or `"` loses them), `#` at the start of a line a comment, blank lines skipped; a relative `@FILE` of a route and a relative `--body-file` or `--raw-response` are read from FILE's folder. A flag on the command line replaces the file's option by the rule above (a `--route` flag replaces every `--route` line), and the file's options replace their variables; a bad line is one error naming `FILE:LINE` and the flag"#)
    ),
];
