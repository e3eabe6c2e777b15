//! The command line and environment: everything canned can be told, checked before anything
//! starts.

use crate::conn::Timeouts;
use crate::parser::{Limits, Status, parse_request};
use crate::response::{Common, Spec};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// Where to listen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address (port 0 picks a free port).
    Tcp(SocketAddr),
    /// A Unix domain socket path (removed on exit).
    Unix(std::path::PathBuf),
    /// A listening socket inherited through systemd socket activation (`LISTEN_FDS`).
    Fd(i32),
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Tcp(a) => write!(f, "{a}"),
            Listen::Unix(p) => write!(f, "unix:{}", p.display()),
            Listen::Fd(fd) => write!(f, "fd:{fd}"),
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: Vec::new(),
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            backlog: 1024,
            max_conns: 10_000,
            max_requests: 0,
            limits: Limits::default(),
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
        }
    }
}

const DEFAULT_TYPE: &str = "text/plain; charset=utf-8";

/// The help text.
pub const HELP: &str = "\
canned: a tiny, very fast HTTP/1.x responder

Usage: canned [OPTIONS]

Every accepted request is answered with the same preformatted response (or a route's).
Each option can also be set from the environment variable shown; flags win.

Listening:
  --listen ADDR          Listen on ADDR (repeatable): 127.0.0.1:8080, [::1]:8080, port 0 for
                         any free port, or unix:/path. Numeric addresses only.
                         [CANNED_LISTEN, comma-separated] (default 0.0.0.0:8080)
  --port N               Shortcut for --listen 0.0.0.0:N            [PORT, CANNED_PORT]
  --workers N            Worker threads (default: online CPUs)      [CANNED_WORKERS]
  --backlog N            Listen backlog (default 1024)              [CANNED_BACKLOG]
  --max-conns N          Open connections per process (default 10000)
                                                                    [CANNED_MAX_CONNS]

Response:
  --body TEXT            Response body (default \"Hello World\\n\")     [CANNED_BODY]
  --body-file PATH       Response body from a file                  [CANNED_BODY_FILE]
  --status CODE          Status code, 200-599 (default 200)         [CANNED_STATUS]
  --content-type TYPE    Content-Type (default text/plain; charset=utf-8; empty to omit)
                                                                    [CANNED_CONTENT_TYPE]
  --header 'NAME: VALUE' Extra header on every response (repeatable)
                                                  [CANNED_HEADER, one per line]
  --route PATH=STATUS[:BODY]
                         Answer the exact PATH (query ignored) with STATUS and BODY
                         (BODY @FILE reads a file; default: empty). Repeatable.
                                                  [CANNED_ROUTE, one per line]
  --health PATH          Answer GET and HEAD on PATH with 200 \"ok\"  [CANNED_HEALTH]
  --server NAME          Server header (default canned; empty to omit) [CANNED_SERVER]
  --no-date              Leave out the Date header (byte-identical output) [CANNED_NO_DATE=1]
  --raw-response FILE    Send FILE verbatim as the whole response to every request
                         (no status line or headers added)        [CANNED_RAW_RESPONSE]
  --raw-close            With --raw-response, close after each response [CANNED_RAW_CLOSE=1]

Limits and timeouts (durations: 10s, 500ms, 2m, or plain seconds):
  --max-requests N       Close a connection after N responses (0 = unlimited, default)
                                                                    [CANNED_MAX_REQUESTS]
  --max-head-bytes N     Largest request head (default 8192; 431/414 beyond)
                                                                    [CANNED_MAX_HEAD_BYTES]
  --max-headers N        Most header fields (default 100; 431 beyond) [CANNED_MAX_HEADERS]
  --header-timeout D     Whole head must arrive within D (default 10s; 408)
                                                                    [CANNED_HEADER_TIMEOUT]
  --idle-timeout D       Close a silent connection after D (default 60s) [CANNED_IDLE_TIMEOUT]
  --write-timeout D      Close a client that does not read for D (default 30s)
                                                                    [CANNED_WRITE_TIMEOUT]
  --shutdown-timeout D   On SIGTERM/SIGINT, wait at most D for responses in flight
                         (default 5s)                             [CANNED_SHUTDOWN_TIMEOUT]

Test-endpoint features:
  --delay D              Hold each batch of responses for D (latency simulation; the loop's
                         timers, never a sleeping worker)            [CANNED_DELAY]
  --access-log           One line per request on stdout, written once per loop turn (never
                         for the --health path)                     [CANNED_ACCESS_LOG=1]
  --stats PATH           Answer PATH with JSON counters summed over workers (refreshed every
                         100 ms)                                    [CANNED_STATS]

Other:
  --quiet                Print only errors and warnings             [CANNED_QUIET=1]
  -h, --help             Print this help
  -V, --version          Print the version
";

/// What the command line asked for.
#[derive(Debug)]
pub enum Command {
    /// Run a server.
    Run(Box<Config>),
    /// Print the help.
    Help,
    /// Print the version.
    Version,
}

/// A bad flag or value: the message names the flag and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

fn err<T>(flag: &str, what: impl std::fmt::Display) -> Result<T, ArgError> {
    Err(ArgError(format!("{flag}: {what}")))
}

/// Flags that take a value, with their environment variable.
const VALUED: &[(&str, &str)] = &[
    ("--listen", "CANNED_LISTEN"),
    ("--port", "CANNED_PORT"),
    ("--workers", "CANNED_WORKERS"),
    ("--backlog", "CANNED_BACKLOG"),
    ("--max-conns", "CANNED_MAX_CONNS"),
    ("--body", "CANNED_BODY"),
    ("--body-file", "CANNED_BODY_FILE"),
    ("--status", "CANNED_STATUS"),
    ("--content-type", "CANNED_CONTENT_TYPE"),
    ("--header", "CANNED_HEADER"),
    ("--route", "CANNED_ROUTE"),
    ("--health", "CANNED_HEALTH"),
    ("--server", "CANNED_SERVER"),
    ("--raw-response", "CANNED_RAW_RESPONSE"),
    ("--max-requests", "CANNED_MAX_REQUESTS"),
    ("--max-head-bytes", "CANNED_MAX_HEAD_BYTES"),
    ("--max-headers", "CANNED_MAX_HEADERS"),
    ("--header-timeout", "CANNED_HEADER_TIMEOUT"),
    ("--idle-timeout", "CANNED_IDLE_TIMEOUT"),
    ("--write-timeout", "CANNED_WRITE_TIMEOUT"),
    ("--shutdown-timeout", "CANNED_SHUTDOWN_TIMEOUT"),
    ("--delay", "CANNED_DELAY"),
    ("--stats", "CANNED_STATS"),
];
/// Switches, with their environment variable.
const SWITCHES: &[(&str, &str)] = &[
    ("--no-date", "CANNED_NO_DATE"),
    ("--raw-close", "CANNED_RAW_CLOSE"),
    ("--quiet", "CANNED_QUIET"),
    ("--access-log", "CANNED_ACCESS_LOG"),
];

/// What `--listen` and `--port` said so far.
#[derive(Default)]
struct ListenFlags {
    /// A `--listen` was given: later ones add to it, `--port` is ignored.
    explicit: bool,
    /// The last `--port`.
    port: Option<Listen>,
}

impl Config {
    /// Parse a command line (without the program name) and an environment. Environment
    /// values apply first; flags override them (repeatable flags replace the environment's
    /// list).
    pub fn from_args<I, S>(args: I, env: &[(String, String)]) -> Result<Command, ArgError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        Config::from_strings(&args, env)
    }

    fn from_strings(args: &[String], env: &[(String, String)]) -> Result<Command, ArgError> {
        let var = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        // Every option as (flag, value), borrowed from the environment and the arguments;
        // switches have an empty value.
        let mut opts: Vec<(&'static str, &str)> = Vec::new();
        if let Some(p) = var("PORT") {
            opts.push(("--port", p));
        }
        for &(flag, name) in VALUED {
            let Some(v) = var(name) else { continue };
            // Lists: CANNED_LISTEN is comma-separated, CANNED_HEADER and CANNED_ROUTE one
            // per line. Empty items are skipped, except an empty server name (no header).
            let keep = |v: &&str| !v.is_empty() || flag == "--server";
            match flag {
                "--listen" => opts.extend(v.split(',').filter(keep).map(|v| (flag, v))),
                "--header" | "--route" => opts.extend(v.lines().filter(keep).map(|v| (flag, v))),
                _ => opts.extend(Some(v).filter(keep).map(|v| (flag, v))),
            }
        }
        for &(flag, name) in SWITCHES {
            match var(name) {
                None | Some("" | "0" | "false") => {}
                Some("1" | "true") => opts.push((flag, "")),
                Some(v) => return err(name, format!("expected 1 or 0, got {v:?}")),
            }
        }
        let env_count = opts.len();
        let mut args = args.iter();
        while let Some(a) = args.next() {
            match a.as_str() {
                "-h" | "--help" => return Ok(Command::Help),
                "-V" | "--version" => return Ok(Command::Version),
                _ => {}
            }
            let (name, inline) = match a.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v)),
                _ => (a.as_str(), None),
            };
            if let Some(&(flag, _)) = VALUED.iter().find(|(f, _)| *f == name) {
                match inline.or_else(|| args.next().map(String::as_str)) {
                    Some(v) => opts.push((flag, v)),
                    None => return err(name, "needs a value"),
                }
            } else if let Some(&(flag, _)) = SWITCHES.iter().find(|(f, _)| *f == name) {
                if inline.is_some() {
                    return err(name, "takes no value");
                }
                opts.push((flag, ""));
            } else if a.starts_with('-') {
                return err(a, "unknown option (see --help)");
            } else {
                return err(a, "unexpected argument (see --help)");
            }
        }
        // Repeatable flags given on the command line replace the environment's.
        let (from_env, given) = opts.split_at(env_count);
        let replaced = |f: &str| {
            ["--listen", "--header", "--route"].contains(&f) && given.iter().any(|g| g.0 == f)
        };
        let mut c = Config::default();
        let mut listen = ListenFlags::default();
        for &(flag, v) in from_env.iter().filter(|o| !replaced(o.0)).chain(given) {
            c.apply(flag, v, &mut listen)?;
        }
        if let Some(p) = listen.port {
            if !listen.explicit {
                c.listen = vec![p];
            }
        }
        // systemd socket activation (sd_listen_fds(3)): inherited sockets start at fd 3 and
        // replace any address given.
        if let (Some(fds), Some(pid)) = (var("LISTEN_FDS"), var("LISTEN_PID")) {
            if pid.trim() == std::process::id().to_string() {
                let n: u64 = number("LISTEN_FDS", fds)?;
                if !(1..=64).contains(&n) {
                    return err(
                        "LISTEN_FDS",
                        format!("{n} is not a count of sockets from 1 to 64"),
                    );
                }
                c.listen = (3..3 + n as i32).map(Listen::Fd).collect();
            }
        }
        if c.listen.is_empty() {
            c.listen
                .push(Listen::Tcp(SocketAddr::from(([0, 0, 0, 0], 8080))));
        }
        if c.raw_close && c.raw.is_none() {
            return err("--raw-close", "needs --raw-response");
        }
        let routes = &c.routes[1..];
        let paths = routes
            .iter()
            .map(|r| r.path.as_str())
            .chain(c.stats.as_deref());
        for (i, p) in paths.clone().enumerate() {
            if paths.clone().skip(i + 1).any(|q| q == p) {
                return err("--route", format!("path {p} is given twice"));
            }
        }
        Ok(Command::Run(Box::new(c)))
    }

    /// Apply one option. Kept out of line: every error here returns before anything owned
    /// is built, so the caller has a single error path (which keeps the binary small).
    #[inline(never)]
    fn apply(&mut self, f: &str, v: &str, listen: &mut ListenFlags) -> Result<(), ArgError> {
        let default = &mut self.routes[0].spec;
        match f {
            "--listen" => {
                let l = parse_listen(f, v)?;
                if !listen.explicit {
                    self.listen.clear();
                    listen.explicit = true;
                }
                self.listen.push(l);
            }
            "--port" => {
                let p = number(f, v)?;
                let p =
                    u16::try_from(p).or_else(|_| err(f, format!("{v:?} is not a valid number")))?;
                listen.port = Some(Listen::Tcp(SocketAddr::from(([0, 0, 0, 0], p))));
            }
            "--workers" => self.workers = size(f, positive(f, v)?)?,
            "--backlog" => self.backlog = int(f, positive(f, v)?, i32::MAX as u64)? as i32,
            "--max-conns" => self.max_conns = size(f, positive(f, v)?)?,
            "--body" => default.body = Arc::from(v.as_bytes()),
            "--body-file" => default.body = read_file(f, v)?,
            "--status" => default.status = status(f, v)?,
            "--content-type" => {
                check_value(f, v)?;
                default.content_type = v.into();
            }
            "--header" => {
                let h = header(f, v)?;
                default.headers.push(h);
            }
            "--route" => {
                let r = route(f, v, default)?;
                self.routes.push(r);
            }
            "--health" => {
                check_path(f, v)?;
                self.routes.push(Route {
                    path: v.into(),
                    spec: Spec {
                        status: 200,
                        body: Arc::from(&b"ok"[..]),
                        content_type: DEFAULT_TYPE.into(),
                        headers: Vec::new(),
                    },
                    get_only: true,
                });
            }
            "--server" => {
                check_value(f, v)?;
                self.common.server = v.into();
            }
            "--no-date" => self.common.date = false,
            "--raw-response" => self.raw = Some(read_file(f, v)?),
            "--raw-close" => self.raw_close = true,
            "--delay" => self.delay = millis(f, v)?,
            "--access-log" => self.access_log = true,
            "--stats" => {
                check_path(f, v)?;
                self.stats = Some(v.into());
            }
            "--quiet" => self.quiet = true,
            "--max-requests" => self.max_requests = int(f, number(f, v)?, u32::MAX.into())? as u32,
            "--max-head-bytes" => {
                let n = positive(f, v)?;
                if n < 16 {
                    return err(f, "must be at least 16");
                }
                self.limits.max_head = size(f, n)?;
            }
            "--max-headers" => {
                self.limits.max_headers = size(f, number(f, v)?)?;
            }
            "--header-timeout" => self.timeouts.header = millis(f, v)?,
            "--idle-timeout" => self.timeouts.idle = millis(f, v)?,
            "--write-timeout" => self.timeouts.write = millis(f, v)?,
            "--shutdown-timeout" => self.shutdown_timeout = Duration::from_millis(millis(f, v)?),
            _ => unreachable!("flag {f} is listed but not handled"),
        }
        Ok(())
    }

    /// Add a listener (`127.0.0.1:0`, `[::1]:8080`, `unix:/path`).
    pub fn listen(mut self, addr: &str) -> Result<Self, ArgError> {
        self.listen.push(parse_listen("--listen", addr)?);
        Ok(self)
    }

    /// Set the default body.
    pub fn body(mut self, body: impl AsRef<[u8]>) -> Self {
        self.routes[0].spec.body = Arc::from(body.as_ref());
        self
    }

    /// Add a route (`PATH=STATUS[:BODY]`).
    pub fn route(mut self, r: &str) -> Result<Self, ArgError> {
        let r = route("--route", r, &self.routes[0].spec)?;
        self.routes.push(r);
        Ok(self)
    }
}

fn parse_listen(flag: &str, v: &str) -> Result<Listen, ArgError> {
    if let Some(path) = v.strip_prefix("unix:") {
        if path.is_empty() {
            return err(flag, "unix: needs a path");
        }
        return Ok(Listen::Unix(path.into()));
    }
    match v.parse::<SocketAddr>() {
        Ok(a) => Ok(Listen::Tcp(a)),
        Err(_) => err(
            flag,
            format!("{v:?} is not a numeric address like 127.0.0.1:8080, [::1]:8080 or unix:/path"),
        ),
    }
}

fn number(flag: &str, v: &str) -> Result<u64, ArgError> {
    match v.trim().parse() {
        Ok(n) => Ok(n),
        Err(_) => err(flag, format!("{v:?} is not a valid number")),
    }
}

fn positive(flag: &str, v: &str) -> Result<u64, ArgError> {
    match number(flag, v)? {
        0 => err(flag, "must be greater than 0"),
        n => Ok(n),
    }
}

/// `n` if it is at most `max`.
fn int(flag: &str, n: u64, max: u64) -> Result<u64, ArgError> {
    if n > max {
        return err(flag, format!("{n} is too large (at most {max})"));
    }
    Ok(n)
}

/// `n` as a `usize`: a no-op check on 64-bit targets, a range error on 32-bit ones.
fn size(flag: &str, n: u64) -> Result<usize, ArgError> {
    Ok(int(flag, n, usize::MAX as u64)? as usize)
}

/// `10s`, `500ms`, `1.5s`, `2m`, `1h`, or plain seconds, in milliseconds. Parsed without
/// floating point (which would add its tables to the binary).
pub fn millis(flag: &str, v: &str) -> Result<u64, ArgError> {
    let bad = || {
        err(
            flag,
            format!("{v:?} is not a positive duration like 10s, 500ms or 2m"),
        )
    };
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let mult: u64 = match unit {
        "ms" => 1,
        "s" | "" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return bad(),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() || frac.contains('.') || frac.len() > 6 {
        return bad();
    }
    let parse = |s: &str| {
        if s.is_empty() {
            Some(0)
        } else {
            s.parse::<u64>().ok()
        }
    };
    let (Some(i), Some(f)) = (parse(int), parse(frac)) else {
        return bad();
    };
    let scale = 10u64.pow(frac.len() as u32);
    let ms = i
        .checked_mul(mult)
        .and_then(|a| a.checked_add(f * mult / scale))
        .filter(|&ms| ms > 0 && ms < 1 << 48);
    match ms {
        Some(ms) => Ok(ms),
        None => bad(),
    }
}

fn status(flag: &str, v: &str) -> Result<u16, ArgError> {
    match v.parse::<u16>() {
        Ok(s) if (200..=599).contains(&s) => Ok(s),
        _ => err(flag, format!("{v:?} is not a status code from 200 to 599")),
    }
}

fn read_file(flag: &str, path: &str) -> Result<Arc<[u8]>, ArgError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Arc::from(b)),
        Err(e) => err(flag, format!("cannot read {path}: {e}")),
    }
}

/// A field value canned sends must itself pass canned's parser (RFC 9110 §5.5).
fn check_value(flag: &str, v: &str) -> Result<(), ArgError> {
    header(flag, &format!("X: {v}")).map(|_| ())
}

fn header(flag: &str, line: &str) -> Result<String, ArgError> {
    let probe = format!("GET / HTTP/1.0\r\n{line}\r\n\r\n");
    let limits = Limits {
        max_head: probe.len() + 1,
        max_headers: 1,
    };
    match parse_request(probe.as_bytes(), limits) {
        Ok(Status::Complete(_)) if line.contains(':') => {
            let (name, value) = line.split_once(':').unwrap_or_default();
            let lower = name.to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "content-length" | "transfer-encoding" | "connection" | "date"
            ) {
                return err(flag, format!("{name} is set by canned and cannot be given"));
            }
            Ok(format!("{name}: {}", value.trim_matches([' ', '\t'])))
        }
        Ok(_) => err(
            flag,
            format!("{line:?} is not a header line like 'Name: value'"),
        ),
        Err(e) => err(flag, format!("{line:?} is not a valid header line ({e})")),
    }
}

fn check_path(flag: &str, p: &str) -> Result<(), ArgError> {
    if !p.starts_with('/') || p.bytes().any(|b| !(0x21..0x7f).contains(&b) || b == b'?') {
        return err(
            flag,
            format!("{p:?} is not a path like /health (no query, visible ASCII)"),
        );
    }
    Ok(())
}

fn route(flag: &str, v: &str, default: &Spec) -> Result<Route, ArgError> {
    let Some((path, rest)) = v.split_once('=') else {
        return err(flag, format!("{v:?} is not PATH=STATUS[:BODY]"));
    };
    check_path(flag, path)?;
    let (code, body) = rest.split_once(':').unwrap_or((rest, ""));
    let status = status(flag, code)?;
    let body = match body.strip_prefix('@') {
        Some(file) => read_file(flag, file)?,
        None => Arc::from(body.as_bytes()),
    };
    Ok(Route {
        path: path.into(),
        spec: Spec {
            status,
            body,
            content_type: default.content_type.clone(),
            headers: default.headers.clone(),
        },
        get_only: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Config, String> {
        run_env(args, &[])
    }

    fn run_env(args: &[&str], env: &[(&str, &str)]) -> Result<Config, String> {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        match Config::from_args(args.iter().copied(), &env) {
            Ok(Command::Run(c)) => Ok(*c),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e.0),
        }
    }

    #[test]
    fn defaults() {
        let c = run(&[]).unwrap();
        assert_eq!(c.listen, vec![Listen::Tcp("0.0.0.0:8080".parse().unwrap())]);
        assert_eq!(c.routes[0].spec.body.as_ref(), b"Hello World\n");
        assert_eq!(c.limits.max_head, 8192);
        assert_eq!(c.timeouts.header, 10_000);
        assert_eq!(c.backlog, 1024);
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
        ])
        .unwrap();
        assert_eq!(c.listen.len(), 2);
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
        for (v, ms) in [
            ("1.5s", 1500),
            ("250ms", 250),
            ("2", 2000),
            ("0.25m", 15_000),
            ("1h", 3_600_000),
        ] {
            assert_eq!(millis("--x", v), Ok(ms), "{v}");
        }
    }

    #[test]
    fn environment_then_flags() {
        let c = run_env(&[], &[("PORT", "9000"), ("CANNED_BODY", "env")]).unwrap();
        assert_eq!(c.listen, vec![Listen::Tcp("0.0.0.0:9000".parse().unwrap())]);
        assert_eq!(c.routes[0].spec.body.as_ref(), b"env");
        let c = run_env(&["--body", "flag"], &[("CANNED_BODY", "env")]).unwrap();
        assert_eq!(c.routes[0].spec.body.as_ref(), b"flag");
        let c = run_env(
            &["--listen", "127.0.0.1:1"],
            &[
                ("CANNED_LISTEN", "127.0.0.1:2,127.0.0.1:3"),
                ("CANNED_QUIET", "1"),
            ],
        )
        .unwrap();
        assert_eq!(c.listen, vec![Listen::Tcp("127.0.0.1:1".parse().unwrap())]);
        assert!(c.quiet);
    }

    #[test]
    fn bad_values_name_the_flag() {
        for (args, want) in [
            (&["--port", "x"][..], "--port: \"x\" is not a valid number"),
            (
                &["--listen", "localhost:80"],
                "--listen: \"localhost:80\" is not a numeric address",
            ),
            (&["--status", "99"], "--status: \"99\" is not a status code"),
            (&["--workers", "0"], "--workers: must be greater than 0"),
            (
                &["--header", "Bad Name: x"],
                "--header: \"Bad Name: x\" is not a valid header",
            ),
            (&["--header", "X: a\u{1}"], "--header:"),
            (
                &["--header", "Content-Length: 5"],
                "--header: Content-Length is set by canned",
            ),
            (
                &["--route", "/a"],
                "--route: \"/a\" is not PATH=STATUS[:BODY]",
            ),
            (&["--route", "a=200"], "--route: \"a\" is not a path"),
            (
                &["--idle-timeout", "5 days"],
                "--idle-timeout: \"5 days\" is not a positive duration",
            ),
            (
                &["--header-timeout", "0"],
                "--header-timeout: \"0\" is not a positive duration",
            ),
            (&["--body"], "--body: needs a value"),
            (&["--frobnicate"], "--frobnicate: unknown option"),
            (&["--quiet=1"], "--quiet: takes no value"),
            (
                &["--body-file", "/nonexistent/x"],
                "--body-file: cannot read /nonexistent/x",
            ),
            (&["--raw-close"], "--raw-close: needs --raw-response"),
            (
                &["--port", "70000"],
                "--port: \"70000\" is not a valid number",
            ),
            (
                &["--backlog", "3000000000"],
                "--backlog: 3000000000 is too large (at most 2147483647)",
            ),
            (
                &["--max-requests", "-1"],
                "--max-requests: \"-1\" is not a valid",
            ),
            (
                &[
                    "--route", "/a=200", "--route", "/b=204", "--route", "/a=404",
                ],
                "--route: path /a is given twice",
            ),
            (
                &["--route", "/s=200", "--stats", "/s"],
                "--route: path /s is given twice",
            ),
        ] {
            let e = run(args).unwrap_err();
            assert!(e.starts_with(want), "{args:?}: {e}");
        }
    }

    #[test]
    fn help_lists_every_flag_and_variable() {
        for (flag, var) in VALUED.iter().chain(SWITCHES) {
            assert!(HELP.contains(flag), "{flag}");
            assert!(HELP.contains(var), "{var}");
        }
    }
}
