//! The grammars of the command line's own values: listen addresses, header lines and values,
//! request paths, routes (`PATH=STATUS[:BODY]`), faults' and echoes' paths, and method lists.
//! The shared ones (sizes, durations, counts) are in [`crate::values`].

use super::file::{modified, read_file};
use super::media_types::type_by_extension;
#[cfg(feature = "echo")]
use super::model::echo_route;
use super::model::{Config, Listen, Route};
#[cfg(feature = "echo")]
use crate::echo::EchoFormat;
use crate::fault::RouteFaults;
#[cfg(feature = "faults")]
use crate::fault::parse_fault;
use crate::parser::{TCHAR, VALUE};
use crate::response::Spec;
use crate::values::{count, split_at_byte};
use std::sync::Arc;

/// The longest unix socket path: `sun_path` (108 bytes on Linux) less its terminating NUL.
const MAX_UNIX_PATH: usize = 107;

/// A numeric socket address (`127.0.0.1:8080`, `[::1]:8080`), `unix:PATH` or `tls:ADDR`.
#[inline(never)]
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn parse_listen(v: &str) -> Result<Listen, String> {
    match v.strip_prefix("unix:") {
        Some("") => Err("unix: needs a path".into()),
        // sun_path holds 108 bytes on Linux, the terminating NUL included.
        Some(path) if path.len() > MAX_UNIX_PATH => Err(format!(
            "unix:{path} is {} bytes long; a unix socket path holds at most {MAX_UNIX_PATH}",
            path.len()
        )),
        Some(path) => Ok(Listen::Unix(path.into())),
        // A bad value of this build, as an option of a feature not built is (exit 2).
        None if v.starts_with("tls:") && cfg!(not(feature = "tls")) => Err(format!(
            "{v:?} needs TLS: this canned was built without the \"tls\" feature \
             (cargo build --features tls)"
        )),
        None if v.starts_with("tls:") => v[4..].parse().map(Listen::Tls).map_err(|_| {
            format!("{v:?} is not tls: and a numeric address like tls:127.0.0.1:8443")
        }),
        None => v.parse().map(Listen::Tcp).map_err(|_| {
            format!("{v:?} is not a numeric address like 127.0.0.1:8080, [::1]:8080 or unix:/path")
        }),
    }
}

#[cfg(feature = "admin")]
/// `--admin`: a numeric TCP address, or a bare port on the loopback address (`9090`:
/// `127.0.0.1:9090`), so that the unauthenticated API is not on every interface unless asked.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn parse_admin(v: &str) -> Result<std::net::SocketAddr, String> {
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        let port = count(v, 0, u64::from(u16::MAX))?;
        return Ok(std::net::SocketAddr::from((
            std::net::Ipv4Addr::LOCALHOST,
            port as u16,
        )));
    }
    v.parse().map_err(|_| {
        format!("{v:?} is not a port or a numeric TCP address like 127.0.0.1:9090 or [::1]:9090")
    })
}

/// token = 1*tchar (RFC 9110 §5.6.2): a field name or a method.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| TCHAR[b as usize])
}

/// A field value canned sends, checked with the parser's rule for received ones (RFC 9110
/// §5.5: no CR, LF, NUL or other control but HTAB), so that no value can end a header line
/// early and add lines of its own (response splitting). Surrounding whitespace is dropped.
#[inline(never)]
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn field_value(v: &str) -> Result<&str, String> {
    match v.bytes().find(|&b| !VALUE[b as usize]) {
        Some(b) => Err(format!(
            "{v:?} contains the control character {:?}; a header value cannot hold CR, LF, NUL or other controls",
            char::from(b)
        )),
        None => Ok(v.trim_matches([' ', '\t'])),
    }
}

/// `Name: value`, checked whole: a token name, a colon, a field value.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn parse_header(line: &str) -> Result<String, String> {
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

/// The fields a route that serves ranges (a 200 with a body of its own) writes itself, whether
/// `--no-validators` leaves it out, and what controls it: one from `--header` too would make
/// two fields, the second contradicting the first (RFC 9110 §8.8, §14.3, §14.4).
const RANGED_FIELDS: [(&str, bool, &str); 4] = [
    (
        "ETag",
        true,
        "give it with --etag (or leave validators out with --no-validators)",
    ),
    (
        "Last-Modified",
        true,
        "it is the body file's time or the start's (leave validators out with --no-validators)",
    ),
    (
        "Accept-Ranges",
        false,
        "such a route serves byte ranges, whatever the flags (RFC 9110 §14.3): leave it out",
    ),
    (
        "Content-Range",
        false,
        "on its 206 and 416 answers (RFC 9110 §14.4): leave it out",
    ),
];

/// A `--header` that names a field a route serving ranges writes itself ([`RANGED_FIELDS`]),
/// on such a route, as a one-line error naming the field and what controls it.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn ranged_field_clash(c: &Config) -> Option<String> {
    if !cfg!(feature = "ranges") {
        // Without ranges and validators no route writes these fields itself.
        return None;
    }
    let ranged = |r: &&Route| r.spec.status == 200 && !r.spec.body.is_empty() && r.echo.is_none();
    for r in c.routes.iter().filter(ranged) {
        for h in &r.spec.headers {
            let name = split_at_byte(h, b':').0.trim();
            // Last-Modified is left out too with `--no-date` for a body not from a file.
            let dated = r.modified.is_some() || c.common.date;
            let writes = |own: &str, validator: bool| {
                !validator || (c.validators && (own != "Last-Modified" || dated))
            };
            let own = RANGED_FIELDS.iter().find(|(own, validator, _)| {
                eq_ignore_case(own.as_bytes(), name.as_bytes()) && writes(own, *validator)
            });
            if let Some((own, _, control)) = own {
                let flag = if c.routes[0].spec.headers.contains(h) {
                    "--header"
                } else {
                    "--route-header"
                };
                return Some(format!(
                    "{flag}: {h}: a route with a 200 body sends its own {own}; {control}"
                ));
            }
        }
    }
    None
}

/// A request path the server answers: `/` first, visible ASCII, no query.
#[inline(never)]
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn check_path(p: &str) -> Result<(), String> {
    if !p.starts_with('/') || p.bytes().any(|b| !(0x21..0x7f).contains(&b) || b == b'?') {
        return Err(format!(
            "{p:?} is not a path like /health (no query, visible ASCII)"
        ));
    }
    Ok(())
}

/// Why `status` cannot carry a body, if it cannot: a 204 or 304 response ends after its head
/// (RFC 9110 §15.3.5, §15.4.5), so a body given for one would be dropped without a word.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn no_body_status(status: u64) -> Result<(), String> {
    match status {
        204 | 304 => Err(format!("a {status} response has no body")),
        _ => Ok(()),
    }
}

/// A method the command line takes: a token (RFC 9110 §9.1) without lower-case letters.
/// Methods are case-sensitive and every registered one is upper-case, so `get` would be a
/// method no client sends, and its path would answer GET with 405 without a word.
#[cfg_attr(canned_small, optimize(size))]
fn check_method(m: &str, example: &str) -> Result<(), String> {
    if !is_token(m) {
        return Err(format!(
            "{m:?} is not a method name (a token such as {example})"
        ));
    }
    if m.bytes().any(|b| b.is_ascii_lowercase()) {
        return Err(format!(
            "{m:?}: methods are case-sensitive (RFC 9110 §9.1): did you mean {}?",
            m.to_ascii_uppercase()
        ));
    }
    Ok(())
}

/// `[METHOD ]PATH`: a route's or a fault's path, with the method it is for, if any. A method
/// is a token in upper case; HEAD is answered by the GET route, and CONNECT by no route.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn split_method(v: &str) -> Result<(Option<&str>, &str), String> {
    let Some((method, path)) = v.split_once(' ') else {
        return Ok((None, v));
    };
    check_method(method, "POST")?;
    match method {
        "HEAD" => Err(format!(
            "HEAD {path}: a HEAD request is answered by the GET route; give GET {path}"
        )),
        "CONNECT" => Err(format!(
            "CONNECT {path}: CONNECT is always 405 (canned is not a proxy)"
        )),
        _ => Ok((Some(method), path)),
    }
}

/// Add route `r` to `c`: a route by method before every route without one (so that a path's
/// own method is found first), any other at the end.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn add_route(c: &mut Config, r: Route) {
    if r.method.is_some() {
        let at = 1 + c.routes[1..]
            .iter()
            .take_while(|r| r.method.is_some())
            .count();
        c.routes.insert(at, r);
    } else {
        c.routes.push(r);
    }
}

/// A path with routes by method that another option answers too (`--health`, `--echo`,
/// `--stats`, `--metrics`), as a one-line error: such a path takes only `--route` and
/// `--fault`, so that which answer a method gets is the routes' rule alone.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn method_route_clash(c: &Config) -> Option<String> {
    for r in c.routes.iter().filter(|r| r.method.is_some()) {
        let p = r.path.as_str();
        let other = if c.routes.iter().any(|o| o.path == p && o.get_only) {
            "--health"
        } else if c.routes.iter().any(|o| o.path == p && o.echo.is_some()) {
            "--echo"
        } else if c.stats.as_deref() == Some(p) {
            "--stats"
        } else if c.metrics.as_deref() == Some(p) {
            "--metrics"
        } else {
            continue;
        };
        let m = r.method.as_deref().unwrap_or_default();
        return Some(format!(
            "--route {m} {p} and {other} both answer {p} (a path with routes by method takes \
             only --route and --fault)"
        ));
    }
    None
}

/// `[METHOD ]PATH=STATUS[:BODY]`, with the content type and headers of `default`.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn parse_route(v: &str, default: &Spec) -> Result<Route, String> {
    let Some((path, rest)) = v.split_once('=') else {
        return Err(format!("{v:?} is not [METHOD ]PATH=STATUS[:BODY]"));
    };
    let (method, path) = split_method(path)?;
    check_path(path)?;
    let (code, given) = rest.split_once(':').unwrap_or((rest, ""));
    let status = count(code, 200, 599).map_err(|what| format!("status {what}"))?;
    let (body, modified) = match given.strip_prefix('@') {
        Some("") => {
            return Err(format!(
                "{v:?}: @ needs a file name ({path}={code}:@FILE reads the body from FILE)"
            ));
        }
        Some(file) => (read_file(file)?, modified(file)),
        None => (Arc::from(given.as_bytes()), None),
    };
    // A file's extension names its type better than the default does; `--route-header`
    // names it better still.
    let content_type = match given.strip_prefix('@').and_then(type_by_extension) {
        Some(t) => t.into(),
        None => default.content_type.clone(),
    };
    // An empty body is no body: `/p=204:` and `/p=204:@empty` are `/p=204`, as `--status 204
    // --body ''` is.
    if !body.is_empty() {
        no_body_status(status)
            .map_err(|why| format!("{path}={code} cannot send the body {given:?}: {why}"))?;
    }
    Ok(Route {
        path: path.into(),
        spec: Spec {
            status: status as u16,
            body,
            content_type,
            headers: default.headers.clone(),
        },
        get_only: false,
        method: method.map(str::to_string),
        faults: RouteFaults::default(),
        echo: None,
        modified,
    })
}

#[cfg(feature = "faults")]
/// `PATH=KIND[:ARGS]`: add a fault to the route answering PATH (`*`: the default response),
/// adding a route with the default response when PATH has none. Returns the path when it
/// made a route, for the check that no path is answered twice.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn add_fault<'v>(c: &mut Config, v: &'v str) -> Result<Option<&'v str>, String> {
    #[cfg(feature = "websocket")]
    {
        use crate::fault::websocket::{WsFaults, is_ws_kind};
        let (key, spec) = v.split_once('=').unwrap_or((v, ""));
        // `--websocket` is applied before `--fault`: its paths are known here.
        if let Some(i) = c.websocket.iter().position(|p| p == key) {
            c.websocket_faults
                .resize_with(c.websocket.len(), WsFaults::default);
            c.websocket_faults[i]
                .add(spec)
                .map_err(|e| format!("{v}: {e}"))?;
            return Ok(None);
        }
        if is_ws_kind(spec) {
            return Err(format!(
                "{v}: a fault of a WebSocket's messages, and {key} is not a --websocket path"
            ));
        }
    }
    let (key, fault, share) = parse_fault(v)?;
    let (method, path) = split_method(key)?;
    let found = c.routes[1..]
        .iter()
        .position(|r| r.path == path && r.method.as_deref() == method);
    let (i, new) = match found {
        _ if key == "*" => (0, false),
        Some(i) => (i + 1, false),
        None => {
            check_path(path)?;
            if method.is_none() && c.routes.iter().any(|r| r.path == path) {
                return Err(format!(
                    "{path} has routes by method only: name the method, as in 'POST {path}=…'"
                ));
            }
            let mut r = c.routes[0].clone();
            r.path = path.into();
            r.method = method.map(str::to_string);
            r.faults = RouteFaults::default();
            add_route(c, r);
            let at = c.routes[1..]
                .iter()
                .position(|r| r.path == path && r.method.as_deref() == method);
            (at.map_or(0, |i| i + 1), true)
        }
    };
    if c.routes[i].echo.is_some() {
        return Err(format!(
            "{path} is an --echo path: faults change canned's own responses, not an echo"
        ));
    }
    // `/x=reset:0 clashes with stall: ...`: the path and both faults.
    c.routes[i]
        .faults
        .add_share(fault, share)
        .map_err(|e| format!("{v} {e}"))?;
    Ok(new.then_some(key))
}

#[cfg(feature = "echo")]
/// `PATH[=FORMAT]`: answer PATH (`*`: every path without a route, instead of the default
/// response) with the request, in FORMAT (`json` when not given), with status 200, the
/// format's content type and the `--header`s. Returns the path when it made a route, for the
/// check that no path is answered twice.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn add_echo<'v>(c: &mut Config, v: &'v str) -> Result<Option<&'v str>, String> {
    let (path, format) = match v.split_once('=') {
        Some((path, name)) => match EchoFormat::parse(name) {
            Some(f) => (path, f),
            None => {
                return Err(format!(
                    "{name:?} is not an echo format (json, garden, text, body or cookie)"
                ));
            }
        },
        None => (v, EchoFormat::Json),
    };
    add_echo_as(c, path, format)
}

/// Add an echo route at `path` (`*`: every path without a route) written in `format`.
#[cfg(feature = "echo")]
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn add_echo_as<'v>(
    c: &mut Config,
    path: &'v str,
    format: EchoFormat,
) -> Result<Option<&'v str>, String> {
    match path {
        "*" if c.routes[0].echo.is_some() => Err("path * is given twice".into()),
        "*" => {
            echo_route(c, None, format);
            Ok(None)
        }
        _ => {
            check_path(path)?;
            echo_route(c, Some(path), format);
            Ok(Some(path))
        }
    }
}

/// `GET,HEAD`: method tokens (RFC 9110 §9.1), in upper case. An empty list is an error: it
/// reads as "no method", while leaving the option out answers every method.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn parse_methods(v: &str) -> Result<Vec<String>, String> {
    if v.is_empty() {
        return Err("the list is empty (leave the option out to answer every method)".into());
    }
    let mut list = Vec::new();
    let mut rest = v;
    while !rest.is_empty() {
        let (m, next) = split_at_byte(rest, b',');
        let m = m.trim_matches(' ');
        check_method(m, "GET")?;
        list.push(m.to_string());
        rest = next;
        if rest.is_empty() && v.ends_with(',') {
            return Err("\"\" is not a method name (a token such as GET)".into());
        }
    }
    Ok(list)
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each), and this path is cold. The linker folds the
/// copies of this function that come out identical.
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}
