//! Reading a command line and an environment into a [`Config`]: flags and variables, which
//! of them replaces which, counts, conflicts and requirements, each value applied through the
//! option table, and the checks across options (paths answered twice, a body for a 204,
//! addresses beside socket activation).

use super::activation::{FIRST_INHERITED_FD, check_passed_to_this_process, names_this_process};
use super::config_file::{FileOption, read_config_file};
use super::file::read_file;
#[cfg(feature = "echo")]
use super::grammar::add_echo;
#[cfg(feature = "faults")]
use super::grammar::add_fault;
#[cfg(feature = "admin")]
use super::grammar::parse_admin;
use super::grammar::{
    add_route, check_path, field_value, method_route_clash, no_body_status, parse_header,
    parse_listen, parse_methods, parse_route, ranged_field_clash,
};
#[cfg(feature = "manual")]
use super::help::Shell;
use super::model::every_interface;
use super::model::{Config, Listen};
#[cfg(feature = "access-log")]
use super::options::Toggle;
use super::options::{ABSENT, FileContents, Number, OPTIONS, Opt, Repeat, Text, ValueKind};
use super::per_route::{add_redirect, add_route_header};
#[cfg(feature = "mutate")]
use crate::fault::Mutate;
use crate::values::{count, duration, size, split_at_byte, within};
use std::ffi::OsString;
use std::os::fd::RawFd;

/// The port when no address is given.
const DEFAULT_PORT: u16 = 8080;

/// The variables of the process environment that [`Config::from_args`] reads (one per option,
/// and systemd's `LISTEN_FDS` and `LISTEN_PID`), with their values: what `main` passes it.
/// Looked up by name rather than by collecting the whole environment, which takes more code.
pub fn environment() -> Vec<(OsString, OsString)> {
    let mut env = Vec::new();
    for name in OPTIONS
        .iter()
        .map(Opt::var)
        .chain(ABSENT.iter().map(|a| a.1).filter(|v| !v.is_empty()))
        .chain(["LISTEN_FDS", "LISTEN_PID"])
    {
        if let Some(value) = std::env::var_os(name) {
            env.push((OsString::from(name), value));
        }
    }
    env
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
    #[cfg(feature = "mutate")]
    MutateList,
    /// Print the TLS certificate cases, one a line, with what a correct client does.
    #[cfg(feature = "tls")]
    TlsList,
    /// Print the man page (`contrib/canned.1`).
    #[cfg(feature = "manual")]
    Man,
    /// Print the completions for a shell (`contrib/completions/`).
    #[cfg(feature = "manual")]
    Completions(Shell),
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

/// `what` is wrong with the value of `name` (a flag or a variable).
pub(super) fn fail<T>(name: &str, what: impl std::fmt::Display) -> Result<T, ArgError> {
    Err(arg_error(name, &what))
}

/// `NAME: WHAT`: one out-of-line formatter for every error of every option.
#[cold]
#[inline(never)]
fn arg_error(name: &str, what: &dyn std::fmt::Display) -> ArgError {
    ArgError(format!("{name}: {what}"))
}

/// `name` (a flag or a variable) belongs to a feature this binary was built without: one
/// line that says which, and how to build it.
#[cold]
fn not_built(name: &[u8]) -> Result<(), ArgError> {
    let name = std::str::from_utf8(name).unwrap_or_default();
    match ABSENT.iter().find(|a| a.0 == name || a.1 == name) {
        Some(&(_, _, feature)) => fail(
            name,
            format!(
                "this canned was built without the \"{feature}\" feature \
                 (cargo build --features {feature})"
            ),
        ),
        None => Ok(()),
    }
}

/// One value of one option, and the flag or variable it came from (for messages).
struct Given<'a> {
    opt: usize,
    from: &'a str,
    value: &'a str,
}

/// The index in the table of the option named `flag`.
pub(super) fn find(flag: &str) -> Option<usize> {
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
    matches!(name, b"-h" | b"--help" | b"-V" | b"--version")
        || (cfg!(feature = "mutate") && name == b"--mutate-list")
        || (cfg!(feature = "tls") && name == b"--tls-list")
        || (cfg!(feature = "manual") && matches!(name, b"--man" | b"--completions"))
        || OPTIONS.iter().any(|o| o.flag().as_bytes() == name)
}

fn utf8<'a>(name: &str, value: &'a [u8]) -> Result<&'a str, ArgError> {
    std::str::from_utf8(value).or_else(|_| fail(name, "the value is not valid UTF-8"))
}

/// The value of variable `name`, if set. Only the variables canned reads are looked at, so
/// others may hold anything.
fn env_var<'a>(env: &'a [(OsString, OsString)], name: &str) -> Result<Option<&'a str>, ArgError> {
    match env.iter().find(|(k, _)| k == name) {
        Some((_, v)) => utf8(name, v.as_encoded_bytes()).map(Some),
        None => Ok(None),
    }
}

/// The flags in `args`, in order, or the help or version command.
#[inline(never)]
#[cfg_attr(canned_small, optimize(size))]
fn read_flags<'a>(
    args: &'a [OsString],
    given: &mut Vec<Given<'a>>,
) -> Result<Option<Command>, ArgError> {
    let mut rest = args.iter().peekable();
    // The switch just read, if the argument before this one was one: `--access-log yes`.
    let mut after_switch: Option<&Opt> = None;
    // The first command given. The arguments after it are still read, so that an unknown
    // flag or a stray word beside it is the same error as without it.
    let mut command = None;
    while let Some(arg) = rest.next() {
        let (name, inline) = split_arg(arg);
        let this = match (name, inline) {
            (b"-h" | b"--help", None) => Some(Command::Help),
            (b"-V" | b"--version", None) => Some(Command::Version),
            #[cfg(feature = "mutate")]
            (b"--mutate-list", None) => Some(Command::MutateList),
            #[cfg(feature = "tls")]
            (b"--tls-list", None) => Some(Command::TlsList),
            #[cfg(feature = "manual")]
            (b"--man", None) => Some(Command::Man),
            #[cfg(feature = "manual")]
            (b"--completions", inline) => {
                let shell = match inline.or_else(|| rest.next().map(|v| v.as_encoded_bytes())) {
                    Some(b"bash") => Shell::Bash,
                    Some(b"zsh") => Shell::Zsh,
                    Some(b"fish") => Shell::Fish,
                    Some(v) => {
                        let v = String::from_utf8_lossy(v);
                        return fail("--completions", format!("{v:?} is not bash, zsh or fish"));
                    }
                    None => return fail("--completions", "needs a shell: bash, zsh or fish"),
                };
                Some(Command::Completions(shell))
            }
            _ => None,
        };
        if let Some(this) = this {
            command = command.or(Some(this));
            after_switch = None;
            continue;
        }
        let Some(i) = std::str::from_utf8(name).ok().and_then(find) else {
            if !ABSENT.is_empty() {
                not_built(name)?;
            }
            // Quoted with escapes when it holds a control character, so the error stays one line.
            let mut shown = arg.to_string_lossy().into_owned();
            if shown.contains(char::is_control) {
                shown = format!("{shown:?}");
            }
            return match (name.first(), after_switch) {
                (Some(b'-'), _) => fail(&shown, "unknown option (see --help)"),
                // `--access-log xml`: a format it does not know, as `--access-log=xml` says.
                #[cfg(feature = "access-log")]
                (_, Some(o)) if matches!(o.kind, ValueKind::Switch(Toggle::AccessLog)) => {
                    fail(o.flag(), format!("{shown:?} is not a format: text or json"))
                }
                (_, Some(switch)) => fail(
                    switch.flag(),
                    format!("takes no value, and {shown:?} is not an option (see --help)"),
                ),
                _ => fail(&shown, "unexpected argument (see --help)"),
            };
        };
        let o = &OPTIONS[i];
        after_switch = matches!(o.kind, ValueKind::Switch(_)).then_some(o);
        let value = match (o.kind, inline) {
            #[cfg(feature = "access-log")]
            (ValueKind::Switch(Toggle::AccessLog), inline) => {
                // A switch with an optional format: `--access-log json`, `--access-log=text`.
                let next = rest.next_if(|v| matches!(v.as_encoded_bytes(), b"json" | b"text"));
                match inline.or(next.map(|v| v.as_encoded_bytes())) {
                    None => "",
                    Some(b"json") => "json",
                    Some(b"text") => "text",
                    Some(v) => {
                        let v = String::from_utf8_lossy(v);
                        return fail(o.flag(), format!("{v:?} is not a format: text or json"));
                    }
                }
            }
            (ValueKind::Switch(_), None) => "",
            (ValueKind::Switch(_), Some(_)) => return fail(o.flag(), "takes no value"),
            (_, Some(v)) => utf8(o.flag(), v)?,
            (_, None) => match rest.next_if(|next| !is_flag(next)) {
                Some(v) => utf8(o.flag(), v.as_encoded_bytes())?,
                None => return fail(o.flag(), "needs a value"),
            },
        };
        if o.repeat == Repeat::Once && given.iter().any(|g| g.opt == i) {
            return match o.kind {
                ValueKind::Switch(_) => fail(o.flag(), "is given twice (a switch: give it once)"),
                _ => fail(o.flag(), "is given twice (it takes one value)"),
            };
        }
        given.push(Given {
            opt: i,
            from: o.flag(),
            value,
        });
    }
    Ok(command)
}

/// The environment's values for every option that no flag replaces: neither its own flag nor
/// that of an option it conflicts with was given.
#[cfg_attr(canned_small, optimize(size))]
fn read_env<'a>(
    env: &'a [(OsString, OsString)],
    given: &mut Vec<Given<'a>>,
) -> Result<(), ArgError> {
    for (name, _) in env {
        if !ABSENT.is_empty() {
            not_built(name.as_encoded_bytes())?;
        }
    }
    let flagged: Vec<&Opt> = given.iter().map(|g| &OPTIONS[g.opt]).collect();
    for (i, o) in OPTIONS.iter().enumerate() {
        if flagged
            .iter()
            .any(|f| f.flag() == o.flag() || f.conflicts_with(o))
        {
            continue;
        }
        let Some(v) = env_var(env, o.var())? else {
            continue;
        };
        let from = o.var();
        match (o.kind, o.repeat) {
            (ValueKind::Switch(_), _) => match v {
                #[cfg(feature = "access-log")]
                "json" | "text" if matches!(o.kind, ValueKind::Switch(Toggle::AccessLog)) => given
                    .push(Given {
                        opt: i,
                        from,
                        value: v,
                    }),
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
                    let (item, next) = split_at_byte(rest, sep);
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
#[cfg_attr(canned_small, optimize(size))]
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
                let both = format!(
                    "{} and {} cannot be combined: give one of them",
                    mine.from, theirs.from
                );
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

/// The TLS options' values and what they need beyond the table's relations, checked here
/// so that a bad one is a bad flag (exit 2) rather than a failure to start: a `tls:`
/// listener, names a certificate can hold, and a `--tls-case` that names a case or fault
/// and goes with the certificate.
/// (A file that cannot be read is found when the server starts.)
#[cfg(feature = "tls")]
fn check_tls(c: &Config, given: &[Given]) -> Result<(), ArgError> {
    let tls_option = given
        .iter()
        .find(|g| matches!(OPTIONS[g.opt].kind, ValueKind::Text(t) if t.is_tls()));
    if let Some(g) = tls_option {
        if !c.listen.iter().any(|l| matches!(l, Listen::Tls(_))) {
            return Err(ArgError(format!(
                "{} needs a TLS listener: add --listen tls:ADDR (tls:127.0.0.1:8443)",
                g.from
            )));
        }
    }
    for name in &c.tls.names {
        crate::transport::tls::check_name(name).map_err(ArgError)?;
    }
    if let Some(case) = &c.tls.case {
        crate::transport::tls::check_case(case, c.tls.cert.is_some()).map_err(ArgError)?;
    }
    Ok(())
}

/// Read one value and apply its effect. Returns the request path the value makes the server
/// answer, if any, for the check that no path is answered twice.
#[inline(never)]
#[cfg_attr(canned_small, optimize(size))]
fn apply<'v>(c: &mut Config, kind: ValueKind, v: &'v str) -> Result<Option<&'v str>, String> {
    match kind {
        #[cfg(feature = "access-log")]
        ValueKind::Switch(super::options::Toggle::AccessLog) => {
            c.access_log = true;
            c.access_log_json = v == "json";
        }
        ValueKind::Switch(set) => set.set(c),
        ValueKind::Count { min, max, set } => set.set(c, count(v, min.into(), max)?),
        ValueKind::Size { min, max, set } => set.set(c, within(size(v)?, v, min.into(), max)?),
        ValueKind::Duration(set) => set.set(c, duration(v)?),
        ValueKind::Path(set) => {
            check_path(v)?;
            #[cfg(feature = "journal")]
            if matches!(set, Text::JournalPath) && v.contains('=') {
                // Its route is an echo's, whose grammar reads `PATH=FORMAT`.
                return Err(format!("{v:?}: a journal path cannot hold '='"));
            }
            set.set(c, v);
            return Ok(Some(v));
        }
        ValueKind::FieldValue(set) => set.set(c, field_value(v)?),
        ValueKind::Text(set) => set.set(c, v),
        ValueKind::File(set) => {
            set.set(c, read_file(v)?);
            if matches!(set, FileContents::Body) {
                c.routes[0].modified = super::file::modified(v);
            }
        }
        #[cfg(feature = "ranges")]
        ValueKind::EntityTag => {
            if !crate::conditional::is_entity_tag(v.as_bytes()) {
                return Err(format!(
                    "{v:?} is not an entity-tag (\"x\" for a strong one, W/\"x\" for a weak \
                     one; RFC 9110 §8.8.3)"
                ));
            }
            c.etag = Some(v.into());
        }
        ValueKind::Address => {
            let l = parse_listen(v)?;
            // Port 0 twice is two free ports; any other address twice would clash with itself.
            // (Paths compared as bytes: `Path`'s own comparison walks components, at a cost.)
            let twice = c.listen.iter().any(|x| match (x, &l) {
                (Listen::Tcp(a), Listen::Tcp(b)) => a == b && a.port() != 0,
                (Listen::Unix(a), Listen::Unix(b)) => a.as_os_str() == b.as_os_str(),
                (Listen::Tls(a) | Listen::Tcp(a), Listen::Tls(b) | Listen::Tcp(b)) => {
                    a == b && a.port() != 0
                }
                _ => false,
            });
            if twice {
                return Err(format!("{v} is given twice"));
            }
            c.listen.push(l);
        }
        ValueKind::Header => {
            let line = parse_header(v)?;
            c.routes[0].spec.headers.push(line);
        }
        ValueKind::Route => {
            let r = parse_route(v, &c.routes[0].spec)?;
            add_route(c, r);
            return Ok(v.split_once('=').map(|(path, _)| path));
        }
        ValueKind::Redirect => return add_redirect(c, v).map(Some),
        ValueKind::RouteHeader => add_route_header(c, v)?,
        // Read before the environment ([`read_config_file`]).
        ValueKind::ConfigFile => {}
        ValueKind::Methods => c.methods = parse_methods(v)?,
        #[cfg(feature = "faults")]
        ValueKind::Fault => return add_fault(c, v),
        #[cfg(feature = "echo")]
        ValueKind::Echo => return add_echo(c, v),
        #[cfg(feature = "admin")]
        ValueKind::Admin => c.admin = Some(parse_admin(v)?),
        #[cfg(feature = "mutate")]
        ValueKind::MutateId => {
            let Some(i) = crate::mutate::find(v) else {
                return Err(format!(
                    "{v:?} is not a variant id of the catalogue (like cl-negative; --mutate-list prints them)"
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
    #[cfg_attr(canned_small, optimize(size))]
    pub fn from_args<I, S>(args: I, env: &[(OsString, OsString)]) -> Result<Command, ArgError>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let file_options: Vec<FileOption>;
        let mut given = Vec::new();
        if let Some(command) = read_flags(&args, &mut given)? {
            return Ok(command);
        }
        // `--config`: its options replace their variables, and flags replace them, by the
        // same rule.
        let config = given
            .iter()
            .find(|g| matches!(OPTIONS[g.opt].kind, ValueKind::ConfigFile))
            .map(|g| (g.from, g.value));
        let config = match config {
            Some(c) => Some(c),
            None => env_var(env, "CANNED_CONFIG")?.map(|v| ("CANNED_CONFIG", v)),
        };
        if let Some((from, path)) = config {
            file_options = read_config_file(from, path).map_err(ArgError)?;
            let flagged: Vec<usize> = given.iter().map(|g| g.opt).collect();
            for f in &file_options {
                let o = &OPTIONS[f.opt];
                if flagged
                    .iter()
                    .any(|&i| i == f.opt || OPTIONS[i].conflicts_with(o))
                {
                    continue;
                }
                given.push(Given {
                    opt: f.opt,
                    from: &f.from,
                    value: &f.value,
                });
            }
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
                    let both = format!(
                        "{other} and {} both answer {path}: give the path to one of them",
                        g.from
                    );
                    return Err(ArgError(both));
                }
                None => paths.push((g.from, path)),
            }
        }
        if let Some(clash) = method_route_clash(&c) {
            return Err(ArgError(clash));
        }
        if let Some(clash) = ranged_field_clash(&c) {
            return Err(ArgError(clash));
        }
        let kind_given = |is: fn(ValueKind) -> bool| given.iter().find(|g| is(OPTIONS[g.opt].kind));
        // A 204 or 304 has no body to send the one given (a route's is checked with its own);
        // an empty one is no body, for `--body ''` as for `--route /p=204:`.
        let body_given = kind_given(|k| {
            matches!(
                k,
                ValueKind::Text(Text::Body) | ValueKind::File(FileContents::Body)
            )
        });
        if let Some(body) = body_given.filter(|_| !c.routes[0].spec.body.is_empty()) {
            if let Err(why) = no_body_status(c.routes[0].spec.status.into()) {
                let status = kind_given(|k| {
                    matches!(
                        k,
                        ValueKind::Count {
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
        // The journal's heads are taken whole at start: refuse a ring the address space (or
        // a 32-bit usize) cannot hold, before anything is allocated.
        const MAX_JOURNAL_BYTES: u64 = 16 << 30;
        let ring = c.journal.saturating_mul(c.limits.max_head as u64);
        if cfg!(feature = "journal") && (ring > MAX_JOURNAL_BYTES || usize::try_from(ring).is_err())
        {
            return Err(ArgError(format!(
                "--journal {} with --max-head-bytes {} keeps {ring} bytes of heads, over 16GiB \
                 (or what this machine can address)",
                c.journal, c.limits.max_head
            )));
        }
        // `--control` answers go-httpbin's echo paths with the JSON echo, where no route does.
        #[cfg(feature = "control")]
        if c.control {
            for (path, format) in crate::control::HTTPBIN_ECHO_PATHS {
                let counters = [c.stats.as_deref(), c.metrics.as_deref()];
                if !c.routes[1..].iter().any(|r| r.path == path) && !counters.contains(&Some(path))
                {
                    super::grammar::add_echo_as(&mut c, path, format).map_err(ArgError)?;
                }
            }
        }
        // `--mutate` answers the paths without a route, as `--echo *` does.
        #[cfg(all(feature = "echo", feature = "mutate"))]
        if let (Some(echo), Some(mutate)) = (
            given.iter().find(|g| {
                matches!(OPTIONS[g.opt].kind, ValueKind::Echo) && g.value.starts_with('*')
            }),
            kind_given(|k| {
                matches!(
                    k,
                    ValueKind::Switch(super::options::Toggle::Mutate) | ValueKind::MutateId
                )
            }),
        ) {
            let both = format!(
                "{} * and {} cannot be combined: both answer every path without a route",
                echo.from, mutate.from
            );
            return Err(ArgError(both));
        }
        // systemd socket activation (sd_listen_fds(3)): inherited sockets start at fd 3 and
        // are the only listeners, so an address given too is an error rather than ignored.
        if let (Some(fds), Some(pid)) = (env_var(env, "LISTEN_FDS")?, env_var(env, "LISTEN_PID")?) {
            if names_this_process(pid) {
                let address = |k| {
                    matches!(
                        k,
                        ValueKind::Address
                            | ValueKind::Count {
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
                // Recorded, not taken: the server takes the sockets when it binds, after the
                // same check. Made here too, so that an environment slice naming sockets the
                // process's own environment does not pass is an error of the command line.
                let fds: Vec<RawFd> = (0..n as RawFd).map(|i| FIRST_INHERITED_FD + i).collect();
                check_passed_to_this_process(&fds).or_else(|e| fail("LISTEN_FDS", e))?;
                c.listen = fds.into_iter().map(Listen::Inherited).collect();
            }
        }
        #[cfg(feature = "tls")]
        check_tls(&c, &given)?;
        if c.listen.is_empty() {
            c.listen.push(every_interface(DEFAULT_PORT));
        }
        c.check_formatted_bytes().map_err(ArgError)?;
        Ok(Command::Run(Box::new(c)))
    }
}
