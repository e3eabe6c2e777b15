//! docs/options.md generated from the option table (with `OPTION_DOCS`, each option's
//! reference text), and the tests that every generated file (docs/options.md, the man page, the
//! completions) matches the table: `CANNED_BLESS=1 cargo test --lib contrib_files` rewrites them.

use super::*;

/// docs/options.md: its text before the tables (after the title).
const OPTIONS_INTRO: &str = r#"Every option can also be set from the environment variable in brackets. A flag replaces that
variable whole, for every option: any `--header` replaces all `CANNED_HEADER` lines, any
`--route` all `CANNED_ROUTE` lines, `--health` replaces `CANNED_HEALTH`. A flag also replaces
the variables of the options it conflicts with (`--port` replaces `CANNED_LISTEN`, `--listen`
replaces `PORT`). Two conflicting options given the same way, as two flags (`--body` with
`--body-file`) or two variables (`PORT` with `CANNED_LISTEN`), are an error naming both, and so
is a flag given twice that takes one value. A variable's value reads like the flag's (an empty
`CANNED_SERVER` omits the header, an empty `CANNED_WORKERS` is an error); a switch's variable is
`1` or `true`, `0`, `false` or empty. `CANNED_PORT` is not read: Kubernetes sets it (to
`tcp://IP:PORT`) for a Service named `canned`.

Durations are written `10s`, `500ms`, `2m` or `1h`, and are at most 1h, in every option,
fault and control (`--delay 2h`: "is too long (at most 1h)"). A number without its unit is
refused, as it means milliseconds to some tools and seconds to others (`--delay 500`: "has no
unit: write 500ms or 500s"); `0` (the same in both) is taken where zero means something, as a
control's `delay=0`. go-httpbin's paths keep go-httpbin's meaning: `/delay/3` is 3 seconds. Sizes, in every option and
fault alike, are bytes (`512` or `512B`) or a number with `K` or `KiB`, `M` or `MiB`, `G` or
`GiB` (powers of 1024; a lone letter may be lower-case). Arguments and variables need not be
UTF-8, except the values canned reads. A bad flag or value prints one line naming the flag (or
variable) and what is wrong, exits 2, and starts nothing. A switch takes no value
(`--access-log yes` is an error saying so). The options are grouped as in `--help`."#;

/// docs/options.md: its text after the tables.
const OPTIONS_OUTRO: &str = r#"`contrib/canned.1` is the man page and `contrib/completions/` holds the bash, zsh and fish
completions, all generated from the option table (a test fails when they drift from it:
`CANNED_BLESS=1 cargo test --lib contrib_files` rewrites them). The binary carries them, for a
`cargo install` without the source tree:

```sh
canned --man > ~/.local/share/man/man1/canned.1                      # then: man canned
canned --completions bash > ~/.local/share/bash-completion/completions/canned
canned --completions zsh > "${fpath[1]}/_canned"                       # a directory of $fpath
canned --completions fish > ~/.config/fish/completions/canned.fish
```

No two of `--route`, `--redirect`, `--health`, `--stats`, `--metrics`, `--echo` and `--journal-path` may answer the same path."#;

/// Each option's row in docs/options.md beyond what `--help` says: its default and what it
/// does in full (the environment variable is the table's). Every option of the table and every
/// command has one (a test fails otherwise): flag, default, meaning.
const OPTION_DOCS: [(&str, &str, &str); 61] = [
    (
        r#"--listen"#,
        r#"`[::]:8080`"#,
        r#"`127.0.0.1:8080`, `[::1]:8080`, `[::]:8080` (dual-stack: IPv4 clients too), port 0 for any free port, `unix:/path` (at most 107 bytes, what `sun_path` holds), or `tls:ADDR` for HTTPS on a TCP address (TLS 1.3 and 1.2, ALPN `h2` and `http/1.1`; docs/tls.md); repeatable, at most 64, each address once (port 0 excepted). Numeric addresses only: canned never resolves names. An address already taken is an error, `address in use`, exit 1, saying what holds it: another process listening (see `--reuse-port`), a socket that does not listen (a connection in TIME-WAIT), or an earlier `--listen` of the same command that covers it (`[::]:8080` covers `127.0.0.1:8080`). Under socket activation (Deployment) the inherited sockets are the only listeners, and an address given too (`--listen`, `--port` or their variables) is an error. `unix:` replaces only a stale socket (a socket file nobody accepts on), refuses any other file and a live socket with exit 1, and on exit removes the socket file it created if it is still there. Conflicts with `--port`."#,
    ),
    (
        r#"--port"#,
        r#"8080"#,
        r#"listen on port N of every interface, IPv6 and IPv4: `--listen [::]:N`, one dual-stack socket; on a host without IPv6 it listens on `0.0.0.0:N` and the listening line says IPv4 only. Conflicts with `--listen`."#,
    ),
    (
        r#"--tls-cert"#,
        r#"a certificate generated at start"#,
        r#"the `tls:` listeners' certificate chain, PEM, the leaf first, then its intermediates; with `--tls-key`. Without both, canned generates at start a CA and a leaf certificate it signs (ECDSA P-256) for `localhost`, `127.0.0.1`, `::1` and each `--tls-name`; see docs/tls.md. A file without a PEM certificate, a key that does not match, or a TLS option without a `tls:` listener is a one-line error naming the flag, exit 1."#,
    ),
    (
        r#"--tls-key"#,
        r#"none"#,
        r#"the private key of `--tls-cert`, PEM: PKCS#8, PKCS#1 (RSA) or SEC1 (EC)."#,
    ),
    (
        r#"--tls-name"#,
        r#"none"#,
        r#"one more DNS name or IP address in the generated certificate, besides `localhost`, `127.0.0.1` and `::1`; repeatable, at most 64. Cannot be combined with `--tls-cert`."#,
    ),
    (
        r#"--tls-case"#,
        r#"none"#,
        r#"serve the certificate case or handshake fault NAME (`--tls-list` prints them: `expired`, `wrong-host`, `untrusted-root`, `tls12-only`, `stall`, `alert-N`, `reset`, `drip-SIZE-D`, ...) to every connection whose SNI names none, as to one that sends no SNI (a client that connects by address); the first label of the SNI name still chooses (`expired.localhost`). `NAME@SHARE` (`close@10%`, `expired@0.5%`: a percentage above 0, at most 100, at most 4 decimals) serves it to that share of those connections, drawn per connection from `--seed` (the same seed, the same connections, in accept order), and the listener's own certificate to the others. A certificate case cannot be combined with `--tls-cert` (its certificate comes from the generated CA); a handshake fault can"#,
    ),
    (
        r#"--tls-client-ca"#,
        r#"none"#,
        r#"mutual TLS: every connection served the listener's own certificate (generated or `--tls-cert`) must show a client certificate signed by one of the CAs in FILE (PEM); one without, or signed by another CA, is refused in the handshake (`certificate_required` or `unknown_ca` alert). The certificate cases chosen by SNI or `--tls-case` are served as they are"#,
    ),
    (
        r#"--tls-ca-out"#,
        r#"none"#,
        r#"write the generated CA's certificate (PEM) to FILE at start, for clients to trust (`curl --cacert FILE`). An existing file is replaced only if it holds a PEM certificate (an earlier run's); anything else is refused with a one-line error, exit 1. Cannot be combined with `--tls-cert`."#,
    ),
    (
        r#"--reuse-port"#,
        r#"off"#,
        r#"bind with SO_REUSEPORT so that other processes may listen on the same port, for restarts without downtime; without it a port another process holds is an error (address in use, exit 1)"#,
    ),
    (
        r#"--workers"#,
        r#"the CPUs canned may run on"#,
        r#"worker threads (1 to 1024): by default one per CPU of canned's affinity mask (as `taskset` or a cpuset sets it), fewer when a cgroup v2 CPU quota (`cpu.max` of its cgroup and those above, rounded up) allows less, as in a container with a CPU limit; each with its own poller, connections and SO_REUSEPORT listener per address. Each worker needs 3 file descriptors plus one per listener: a count that does not fit in the fd limit is refused at start with exit 1, naming `--workers`"#,
    ),
    (r#"--backlog"#, r#"1024"#, r#"listen backlog"#),
    (
        r#"--max-conns"#,
        r#"10000"#,
        r#"open connections per process; at the limit canned closes a longest-idle keep-alive connection (the accepting worker's own, else another worker's) to admit a new one, and stops polling its listeners only while none is idle"#,
    ),
    (
        r#"--body"#,
        r#"`Hello World\n`"#,
        r#"response body; with `--status` 204 or 304, which have none, an error"#,
    ),
    (
        r#"--body-file"#,
        r#""#,
        r#"response body from a regular file, at most 1 GiB: a longer file is refused by its size before it is read, and anything else (a FIFO, which would wait for a writer, a device such as `/dev/zero`, a directory) is refused by its type before it is opened, as for `--raw-response` and a route's `@FILE`; conflicts with `--body`, and with `--status` 204 or 304"#,
    ),
    (
        r#"--status"#,
        r#"200"#,
        r#"status (200-599) with its standard reason phrase"#,
    ),
    (
        r#"--content-type"#,
        r#"`text/plain; charset=utf-8`"#,
        r#"empty to omit; routes take it too; a 204 or 304 response never carries it (see Responses)"#,
    ),
    (
        r#"--header"#,
        r#""#,
        r#"extra header on every response, routes included; the whole line is checked with the parser's field rules (a token name; no CR, LF, NUL or other control in the value), so no header can add lines of its own; repeatable, at most 100"#,
    ),
    (
        r#"--route"#,
        r#""#,
        r#"exact-path route (query ignored) with its own status and body, and the global `--content-type` and `--header`s (`--route-header` gives it its own); `BODY` `@FILE` reads a file, whose extension gives the route its Content-Type when it is one of the table in Responses (`.json`: `application/json`, `.bin`: `application/octet-stream`, …); a 204 or 304 route takes no `BODY` (`/nm=304:x` is an error naming the route); with `METHOD` (`'POST /orders=201'`), only that method, HEAD too for GET, and `--fault 'POST /orders=…'` faults it (see Responses for the rule); repeatable, at most 1000"#,
    ),
    (
        r#"--redirect"#,
        r#""#,
        r#"a route answering STATUS (301, 302, 303, 307 or 308) with `Location: LOCATION`, absolute (`http://host:8080/new`) or relative (`/new`, `../v2/`), written as sent (visible ASCII, percent-encoded beyond), no body and no Content-Type, and the global `--header`s; `METHOD` and the paths answered twice as for `--route`; `--route-header` and `--fault` apply to it as to a route (see Responses); repeatable, at most 1000"#,
    ),
    (
        r#"--route-header"#,
        r#""#,
        r#"a header field of the route of `--route` or `--redirect` that answers PATH (and METHOD, as `--fault` names it), checked as `--header` is: `Content-Type` sets the route's type (empty: none), any other field is added to the route, replacing a `--header` of the same name; `Content-Length`, `Transfer-Encoding`, `Connection`, `Date` and `Server` are refused. The route's HTTP/1 and HTTP/2 answers carry it; repeatable, at most 1000"#,
    ),
    (
        r#"--health"#,
        r#""#,
        r#"GET and HEAD on PATH answer 200 `ok`"#,
    ),
    (
        r#"--server"#,
        r#"`canned`"#,
        r#"`Server` header; empty to omit"#,
    ),
    (
        r#"--no-date"#,
        r#""#,
        r#"leave out `Date` for byte-identical output"#,
    ),
    (
        r#"--no-http2"#,
        r#""#,
        r#"answer the HTTP/2 preface with 505 and ignore `Upgrade: h2c` instead of speaking HTTP/2 ([HTTP/2](http2.md))"#,
    ),
    (
        r#"--grpc-health"#,
        r#"off"#,
        r#"answer the gRPC health service over HTTP/2: `Check` SERVING for every service name, `Watch` UNIMPLEMENTED ([gRPC health](http2.md#grpc-health)); conflicts with `--no-http2`"#,
    ),
    (
        r#"--no-validators"#,
        r#""#,
        r#"leave out `ETag` and `Last-Modified`, and ignore `If-Match`, `If-None-Match`, `If-Modified-Since` and `If-Unmodified-Since`; ranges are still served, and `If-Range` never matches (the whole body, 200); conflicts with `--raw-response`; see Downloads"#,
    ),
    (
        r#"--etag"#,
        r#"a hash of the body"#,
        r#"the `ETag` of every response that serves ranges: `"v1"` (strong) or `W/"v1"` (weak, which `If-Range` and `If-Match` never match); anything else is an error naming the flag; conflicts with `--no-validators` and `--raw-response`"#,
    ),
    (
        r#"--raw-response"#,
        r#""#,
        r#"send the file at PATH verbatim as the whole response to every request; conflicts with every option that shapes the response (`--body`, `--body-file`, `--status`, `--content-type`, `--header`, `--route`, `--health`, `--server`, `--stats`, `--metrics`, `--methods`; `--no-date` agrees with it)"#,
    ),
    (
        r#"--raw-close"#,
        r#""#,
        r#"with `--raw-response` (needs it), close after each response"#,
    ),
    (
        r#"--max-requests"#,
        r#"0 (unlimited)"#,
        r#"close a connection after N responses (HTTP/2: N streams, then GOAWAY)"#,
    ),
    (
        r#"--max-head-bytes"#,
        r#"8192"#,
        r#"largest request head (at least 16): 431 beyond, 414 when the target does not fit in it, 400 when the method does not (HTTP/2: the decoded header list, see Limits)"#,
    ),
    (
        r#"--max-headers"#,
        r#"100"#,
        r#"most header fields: 431 beyond"#,
    ),
    (
        r#"--max-body-bytes"#,
        r#"0 (unlimited)"#,
        r#"largest request body (Content-Length, or the chunks' total): 413 beyond"#,
    ),
    (
        r#"--methods"#,
        r#"every method"#,
        r#"comma-separated methods to answer (tokens in upper case, as they are matched case-sensitively: `GET,HEAD`); any other gets 405 and OPTIONS gets 204, both with `Allow` naming the list and OPTIONS; an empty list is an error (leave the option out to answer every method)"#,
    ),
    (
        r#"--header-timeout"#,
        r#"10s"#,
        r#"the whole head must arrive within D of its first byte (a connection's first head: of its accept), else 408 and close; a connection that sent nothing is closed without a response"#,
    ),
    (
        r#"--idle-timeout"#,
        r#"60s"#,
        r#"close a connection idle for D between requests or inside a body (one that never sent a byte is closed at `--header-timeout`)"#,
    ),
    (
        r#"--write-timeout"#,
        r#"30s"#,
        r#"close a client that leaves output unread for D"#,
    ),
    (
        r#"--shutdown-timeout"#,
        r#"5s"#,
        r#"on SIGTERM, SIGINT, SIGHUP or SIGQUIT, wait at most D for responses in flight; a second such signal stops at once"#,
    ),
    (
        r#"--delay"#,
        r#""#,
        r#"hold each batch of responses for D: latency simulation with the loop's timers, never a sleeping worker; faulted responses too, and a latency fault adds to it (see Faults)"#,
    ),
    (
        r#"--access-log"#,
        r#"off"#,
        r#"one line per request on stdout (`[DATE] CLIENT METHOD TARGET VERSION STATUS BYTES US`: the client's `ip:port` (`unix` on a unix socket), the bytes of the answer (HTTP/1: its head and body; HTTP/2: the same less the framing, the payloads of its HEADERS, an HPACK block, and DATA frames), the µs from the request's first byte read (a connection's first request: from its accept) to the answer queued for the socket (a hold's end for `--delay`), then ` tls` over TLS and notes such as ` fault=latency`; `--access-log json`: the same as one JSON object a line, `time`, `client`, `method`, `target`, `protocol` (`HTTP/2` for HTTP/2), `tls`, `status`, `bytes`, `duration_us`, `notes`; `-` for `[DATE]` with `--no-date`, as common log format marks a missing field; a byte of METHOD or TARGET that is not printable ASCII, or is `\`, written `\xNN`), never for the `--health` path; handed to a writer thread once per loop turn, so that a stdout nobody reads never stops the server: lines that find no room are dropped and counted (see Limits)"#,
    ),
    (
        r#"--stats"#,
        r#""#,
        r#"answer PATH with JSON counters summed over workers: connections open and total, requests, responses by status, errors by kind, timeouts, bytes in and out, access-log lines dropped (refreshed every 100 ms)"#,
    ),
    (
        r#"--metrics"#,
        r#""#,
        r#"answer PATH with the same counters in the Prometheus text exposition format (`_total` counters, refreshed every 100 ms)"#,
    ),
    (
        r#"--echo"#,
        r#""#,
        r#"answer PATH with the request as canned parsed it (see Echo and control), in FORMAT: `json` (the default; with the client's and the local address and port), `garden` (http-garden's base64 JSON), `text` (`Name: value` lines, Http11Probe's `/echo`), `body` (the body alone) or `cookie` (`name=value` lines, Http11Probe's `/cookie`); `*` for every path without a route, instead of the default response. Status 200, the format's content type, the `--header`s; bodies up to `--max-body-bytes`, or 1 MiB without it (413 beyond). Conflicts with `--raw-response`; `*` with `--mutate` and `--mutate-id`; an echo path takes no `--fault`. Repeatable"#,
    ),
    (
        r#"--websocket"#,
        r#""#,
        r#"answer an `Upgrade: websocket` on PATH with a WebSocket echo (RFC 6455, see [docs/websocket.md](websocket.md)): text and binary messages echoed whole, pings answered, a close echoed with its code, protocol errors closed with 1002, bad UTF-8 with 1007, messages over `--websocket-max-message` with 1009; a bad handshake is answered 400 (426 for a version other than 13); a request on PATH without `Upgrade` is routed as any other. HTTP/1.1 only. Conflicts with `--raw-response`. Repeatable"#,
    ),
    (
        r#"--websocket-max-message"#,
        r#"16MiB"#,
        r#"largest WebSocket message (its fragments' total), at most 1GiB: close 1009 beyond. Needs `--websocket`"#,
    ),
    (
        r#"--journal"#,
        r#"1000 with `--journal-path`"#,
        r#"keep the last N requests (1 to 100000) for `--journal-path`, from every worker (see Echo and control, Request journal); needs `--journal-path`; conflicts with `--raw-response`"#,
    ),
    (
        r#"--journal-path"#,
        r#""#,
        r#"answer PATH with the journal as JSON, oldest first (a HEAD gets its head alone); DELETE on PATH clears it; requests to PATH are not recorded. Conflicts with `--raw-response`"#,
    ),
    (
        r#"--control"#,
        r#"off"#,
        r#"let a request choose its answer, for test networks only (see Echo and control): query parameters `status=503`, `delay=250ms`, `bytes=1MiB`, `fault=latency:D`, `stall`, `truncate:N` or `N%`, `reset:N` or `N%`, `drip:SIZE/D` or `drip:Npieces/D`, `bandwidth:RATE`, `hang:D` or `hang:D:reset`, `slow-close:D`, `garbage:N`, `error:STATUS[:BODY]`, each with an optional `@SHARE`, or the same as `X-Canned-Control: status=503;delay=250ms`; durations at most 1 h, sizes at most 1 GiB; a bad value gets 400 with one line saying what is wrong. Also go-httpbin's paths where no route answers: `/status/CODE` (or `200:0.7,500:0.3`), `/delay/SECS`, `/bytes/N`, `/stream-bytes/N`, `/drip?numbytes=N&duration=D&delay=D&code=CODE`, `/anything`, `/get`, `/post` as `--echo` JSON, and `/ip`, `/headers`, `/user-agent`, `/uuid` as go-httpbin answers them. Conflicts with `--raw-response`"#,
    ),
    (
        r#"--fault"#,
        r#""#,
        r#"make PATH misbehave (see Faults): `latency:100ms`, `latency:10ms..50ms`, `latency:median=50ms:p99=500ms`, `drip:1KiB/100ms`, `drip:10pieces/2s`, `bandwidth:64KiB/s`, `stall`, `hang:D` or `hang:D:reset`, `slow-close:D`, `truncate:N` or `N%`, `reset:N` or `N%`, `garbage:N`, `error:[RATE:]STATUS[:BODY]`, `status:200=70%,500=30%`; any of them ending in `@SHARE` (`10%` or `0.1`) applies to that share of responses; `seq:STEP,...` answers the path's requests in turn, over the whole process (each step `ok`, a status or a delivery fault; after the last, the last again, or the first with `seq-cycle:`). PATH is a `--route`'s or `--health`'s path, a new path (answered with the default response), or `*` for every path without a route. At most one of each group per path: a latency; one of drip, bandwidth, stall, hang, slow-close, truncate, reset, garbage; an error rate or a status mix; or, instead of the last two, a sequence. Conflicts with `--raw-response`. Repeatable"#,
    ),
    (
        r#"--seed"#,
        r#"0"#,
        r#"seed of the generator behind fault delays, error shares and garbage bytes; each worker draws its own stream, so a run with `--workers 1` repeats exactly"#,
    ),
    (
        r#"--admin"#,
        r#"off"#,
        r#"serve the admin API (see Faults, Admin API) on ADDR, a numeric TCP address, or a bare port on `127.0.0.1` (`--admin 9090`): list, set and remove the faults of every route, reset the sequences, read and clear the journal while canned runs; a listener and a thread of its own, off the workers' path; **unauthenticated, for test networks only**; prints `canned admin API on ADDR (unauthenticated: for test networks only)` after the listening lines; a taken address is an error at start, exit 1, saying what holds it as for `--listen` (another process, a socket that does not listen, or canned's own `--listen` on that port); conflicts with `--raw-response`"#,
    ),
    (
        r#"--mutate"#,
        r#"off"#,
        r#"answer each request on a path without a route with the next variant of the malformed-response catalogue (see Faults), in order, then close; routes, `--health`, `--stats` and `--metrics` answer as usual; conflicts with `--raw-response`"#,
    ),
    (
        r#"--mutate-id"#,
        r#""#,
        r#"like `--mutate`, always with the catalogue's variant ID (to reproduce a client's failure; `--mutate-list` prints the ids); conflicts with `--mutate` and `--raw-response`"#,
    ),
    (
        r#"--quiet"#,
        r#""#,
        r#"print only errors and warnings (no listening line, no summary)"#,
    ),
    (
        r#"--config"#,
        r#""#,
        r#"read options from FILE: one a line, written as on the command line (`--route /v1/ping=204`, `--access-log`, `--header=X-A: 1`), the value the rest of the line (no shell quoting needed; a value wrapped whole in `'` or `"` loses them), `#` at the start of a line a comment, blank lines skipped; a relative `@FILE` of a route and a relative `--body-file` or `--raw-response` are read from FILE's folder. A flag on the command line replaces the file's option by the rule above (a `--route` flag replaces every `--route` line), and the file's options replace their variables; a bad line is one error naming `FILE:LINE` and the flag"#,
    ),
    (
        r#"--mutate-list"#,
        r#""#,
        r#"print the ids of the malformed-response catalogue, one a line, and exit"#,
    ),
    (
        r#"--tls-list"#,
        r#""#,
        r#"print the TLS certificate cases and handshake faults, one a line: the name (for `--tls-case`, or as the first label of the SNI name, `expired.localhost`) and what a correct client does, and exit"#,
    ),
    (
        r#"--man"#,
        r#""#,
        r#"print the man page (`contrib/canned.1`) and exit: `canned --man \| man -l -`"#,
    ),
    (
        r#"--completions"#,
        r#""#,
        r#"print the completions for `bash`, `zsh` or `fish` (`contrib/completions/`) and exit"#,
    ),
    (
        r#"--help"#,
        r#""#,
        r#"print the options, grouped as here, and exit"#,
    ),
    (
        r#"--version"#,
        r#""#,
        r#"print the version and, for a build from a git checkout, the commit (`canned 0.1.0 (490a480f6973)`: `git describe --always --tags`), and exit"#,
    ),
];

/// An option's or command's row of [`OPTION_DOCS`]: its default and meaning.
fn option_doc(flag: &str) -> (String, &'static str) {
    let row = OPTION_DOCS.iter().find(|(f, _, _)| *f == flag);
    let (_, default, meaning) = row.unwrap_or_else(|| panic!("OPTION_DOCS has no row for {flag}"));
    // The cell between two bars, empty as `| |`.
    let default = match *default {
        "" => String::new(),
        d => format!(" {d}"),
    };
    (default, meaning)
}

/// docs/options.md: the prose around the tables, and one table per `--help` section, each row
/// the option's usage, its default and meaning (`OPTION_DOCS`) and its variable, as the table
/// has them; the commands close the last section.
pub(super) fn options_page() -> String {
    let mut p = String::from(
        "# Options\n\n<!-- Generated from the option table (src/config/options/table.rs) by \
         src/config/contrib/: CANNED_BLESS=1 cargo test --lib contrib_files -->\n\n",
    );
    p.push_str(OPTIONS_INTRO);
    p.push('\n');
    for o in OPTIONS {
        let (usage, var, _, title) = o.texts();
        if !title.is_empty() {
            p.push_str(&format!(
                "\n## {title}\n\n| option | default | meaning |\n|---|---|---|\n"
            ));
        }
        let (default, meaning) = option_doc(o.flag());
        let how = match (o.kind, o.repeat) {
            (ValueKind::Switch(_), _) => "=1`",
            (_, Repeat::Many { sep: b',', .. }) => "`, comma-separated",
            (_, Repeat::Many { .. }) => "`, one per line",
            (_, Repeat::Once) => "`",
        };
        p.push_str(&format!(
            "| `{usage}` |{default} | {meaning} [`{var}{how}] |\n"
        ));
    }
    for &(flag, short, (value, _), _) in COMMANDS {
        let (default, meaning) = option_doc(flag);
        let usage = match (short, value) {
            ("", "") => format!("`{flag}`"),
            ("", _) => format!("`{flag} {value}`"),
            _ => format!("`{short}`, `{flag}`"),
        };
        p.push_str(&format!("| {usage} |{default} | {meaning} |\n"));
    }
    p.push('\n');
    p.push_str(OPTIONS_OUTRO);
    p.push('\n');
    p
}

/// Every option of the table and every command has its row in `OPTION_DOCS`, and every row is
/// one of them.
#[test]
fn option_docs_cover_the_table() {
    let flags: Vec<&str> = OPTIONS
        .iter()
        .map(Opt::flag)
        .chain(COMMANDS.iter().map(|c| c.0))
        .collect();
    for flag in &flags {
        option_doc(flag);
    }
    for (flag, _, _) in OPTION_DOCS {
        assert!(
            flags.contains(&flag),
            "OPTION_DOCS: {flag} is not an option"
        );
    }
}

/// Every generated file: its path under the crate and its text.
#[cfg(feature = "mutate")]
fn files() -> [(&'static str, String); 5] {
    [
        ("docs/options.md", options_page()),
        ("contrib/canned.1", man_page()),
        ("contrib/completions/canned.bash", bash_completion()),
        ("contrib/completions/_canned", zsh_completion()),
        ("contrib/completions/canned.fish", fish_completion()),
    ]
}

/// The checked-in files are what the option table makes of them; with `CANNED_BLESS=1` they
/// are rewritten. Where the shells and groff are installed, each file then passes their
/// syntax check.
#[cfg(all(
    feature = "http2",
    feature = "faults",
    feature = "control",
    feature = "echo",
    feature = "journal",
    feature = "admin",
    feature = "mutate",
    feature = "ranges",
    feature = "stats",
    feature = "access-log"
))]
#[test]
fn contrib_files_match_the_option_table() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("CANNED_BLESS").is_some_and(|v| v == "1");
    for (path, text) in files() {
        let file = root.join(path);
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &text).unwrap();
        }
        let stored = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            stored == text,
            "{path} differs from the option table: run CANNED_BLESS=1 cargo test --lib contrib_files"
        );
        for flag in OPTIONS
            .iter()
            .map(Opt::flag)
            .chain(COMMANDS.iter().map(|c| c.0))
        {
            let name = if path.ends_with(".1") {
                roff(flag)
            } else {
                flag.to_string()
            };
            let name = if path.ends_with(".fish") {
                format!("-l {}", &flag[2..])
            } else {
                name
            };
            assert!(stored.contains(&name), "{path} lacks {flag}");
        }
    }
    check_with_their_tools();
}

/// Every example of the man page is a command line canned takes (up to a shell redirection).
#[test]
fn man_page_examples_parse() {
    let built = |args: &[&str]| !args.iter().any(|a| ABSENT.iter().any(|x| x.0 == *a));
    for (what, args) in EXAMPLES.into_iter().filter(|e| built(e.1)) {
        let args = args.iter().take_while(|a| **a != ">");
        let got = crate::config::Config::from_args(args, &[]);
        assert!(got.is_ok(), "{what}: {got:?}");
    }
}

/// Syntax checks by the tools themselves, where they are installed (skipped, with a line
/// saying so, where they are not).
#[cfg(all(
    feature = "http2",
    feature = "faults",
    feature = "control",
    feature = "echo",
    feature = "journal",
    feature = "admin",
    feature = "mutate",
    feature = "ranges",
    feature = "stats",
    feature = "access-log"
))]
fn check_with_their_tools() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let checks: [(&str, &[&str], &str); 4] = [
        ("bash", &["-n"], "contrib/completions/canned.bash"),
        ("zsh", &["-n"], "contrib/completions/_canned"),
        ("fish", &["--no-execute"], "contrib/completions/canned.fish"),
        ("groff", &["-man", "-ww", "-z"], "contrib/canned.1"),
    ];
    for (tool, args, path) in checks {
        let out = std::process::Command::new(tool)
            .args(args)
            .arg(root.join(path))
            .output();
        match out {
            Err(_) => eprintln!("{tool} not installed: {path} not checked"),
            Ok(o) => assert!(
                o.status.success() && o.stderr.is_empty(),
                "{tool} {path}: {}",
                String::from_utf8_lossy(&o.stderr)
            ),
        }
    }
}
