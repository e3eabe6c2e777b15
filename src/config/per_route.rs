//! What a route carries beyond its status and body: its own header fields (`--route-header`),
//! and redirects (`--redirect`).

use super::grammar::{add_route, check_path, field_value, is_token, parse_route, split_method};
use super::model::{Config, Route};
use crate::fault::RouteFaults;
use crate::response::Spec;
use std::sync::Arc;

/// A route's own header line, checked as `--header`'s are: a token name, a field value without
/// CR, LF or other controls. `Content-Type` is the route's type (empty: none); the fields
/// canned writes itself are refused with the option that sets them.
enum RouteField<'a> {
    ContentType(&'a str),
    Line(String),
}

#[cfg_attr(canned_small, optimize(size))]
fn parse_route_field(line: &str) -> Result<RouteField<'_>, String> {
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
        "content-type" => return Ok(RouteField::ContentType(value)),
        "content-length" | "transfer-encoding" | "connection" | "date" => "canned itself",
        "server" => "--server",
        _ => return Ok(RouteField::Line(format!("{name}: {value}"))),
    };
    Err(format!("{name} is set by {set_by}"))
}

/// Add field `line` to `spec`: it replaces the default response's field of the same name
/// (from `--header`, which routes take as their defaults), and adds to the route's own.
#[cfg_attr(canned_small, optimize(size))]
fn set_field(spec: &mut Spec, defaults: &[String], line: String) {
    let name = line.split(':').next().unwrap_or_default();
    let same_name = |h: &String| {
        h.split(':')
            .next()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    };
    spec.headers
        .retain(|h| !(same_name(h) && defaults.contains(h)));
    spec.headers.push(line);
}

/// `--route-header '[METHOD ]PATH=Name: value'`: a field of the route of `--route` or
/// `--redirect` answering PATH (and METHOD). `Content-Type` sets its type; any other field is
/// added, replacing a `--header` of the same name.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn add_route_header(c: &mut Config, v: &str) -> Result<(), String> {
    let Some((key, line)) = v.split_once('=') else {
        return Err(format!(
            "{v:?} is not [METHOD ]PATH=Name: value (as in '/api=Content-Type: application/json')"
        ));
    };
    let (method, path) = split_method(key)?;
    check_path(path)?;
    let field = parse_route_field(line)?;
    let (defaults, routes) = c.routes.split_at_mut(1);
    let own = |r: &&mut Route| r.echo.is_none() && !r.get_only && r.path == path;
    let Some(r) = routes
        .iter_mut()
        .filter(own)
        .find(|r| r.method.as_deref() == method)
    else {
        if method.is_none() && routes.iter().any(|r| r.path == path && r.method.is_some()) {
            return Err(format!(
                "{path} has routes by method only: name the method, as in 'POST {path}=…'"
            ));
        }
        return Err(format!(
            "no --route or --redirect answers {key}: give one (--route '{key}=200:…') for its \
             fields"
        ));
    };
    let defaults = &defaults[0].spec.headers;
    match field {
        RouteField::ContentType(t) => r.spec.content_type = t.into(),
        RouteField::Line(line) => {
            // A response carries one Location (RFC 9110 §10.2.2): a second would leave the
            // client to pick.
            let location = |h: &String| {
                h.split(':')
                    .next()
                    .is_some_and(|n| n.eq_ignore_ascii_case("location"))
            };
            if location(&line)
                && r.spec
                    .headers
                    .iter()
                    .any(|h| location(h) && !defaults.contains(h))
            {
                return Err(format!(
                    "{key} has a Location already (from --redirect or an earlier \
                     --route-header); a response carries one"
                ));
            }
            set_field(&mut r.spec, defaults, line);
        }
    }
    Ok(())
}

/// What `PATH` answers, given as the admin API's `PUT /routes/PATH` takes it: a first line
/// as after `=` in `--route` (`STATUS[:BODY]`, `STATUS:@FILE`), then a header line a line as
/// `--route-header` takes them (`Content-Type` sets the type), with `default` (the default
/// response) giving the rest; `method` is checked as `--route` checks it. Every line is checked; the first bad one is the error, with its
/// number.
#[cfg_attr(canned_small, optimize(size))]
pub fn route_answer(
    method: Option<&str>,
    path: &str,
    text: &str,
    default: &Spec,
) -> Result<Spec, String> {
    let mut lines = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((n, first)) = lines.next() else {
        return Err(
            "no answer given: the first line is STATUS[:BODY], as after = in --route \
                    (DELETE removes a route)"
                .into(),
        );
    };
    let at = |n: usize, e: String| format!("line {}: {e}", n + 1);
    let key = match method {
        Some(m) => format!("{m} {path}"),
        None => path.to_string(),
    };
    let mut spec = parse_route(&format!("{key}={first}"), default)
        .map_err(|e| at(n, e))?
        .spec;
    let location = |h: &String| {
        h.split(':')
            .next()
            .is_some_and(|n| n.eq_ignore_ascii_case("location"))
    };
    for (n, line) in lines {
        match parse_route_field(line).map_err(|e| at(n, e))? {
            RouteField::ContentType(t) => spec.content_type = t.into(),
            RouteField::Line(line) => {
                if location(&line)
                    && spec
                        .headers
                        .iter()
                        .any(|h| location(h) && !default.headers.contains(h))
                {
                    return Err(at(n, "a second Location: a response carries one".into()));
                }
                set_field(&mut spec, &default.headers, line);
            }
        }
    }
    Ok(spec)
}

/// The statuses a redirect answers with (RFC 9110 §15.4): 301 and 308 permanent, 302 and 307
/// temporary, 303 to another resource by GET; 307 and 308 keep the method and body.
const REDIRECTS: [u16; 5] = [301, 302, 303, 307, 308];

/// `--redirect '[METHOD ]PATH=STATUS:LOCATION'`: a route answering STATUS with `Location:
/// LOCATION` (absolute or relative, RFC 9110 §10.2.2), no body, and the default response's
/// fields. Returns the key answered, for the check that no path is answered twice.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn add_redirect<'v>(c: &mut Config, v: &'v str) -> Result<&'v str, String> {
    let Some((key, rest)) = v.split_once('=') else {
        return Err(format!(
            "{v:?} is not [METHOD ]PATH=STATUS:LOCATION (as in '/old=302:/new')"
        ));
    };
    let (method, path) = split_method(key)?;
    check_path(path)?;
    let Some((code, location)) = rest.split_once(':') else {
        return Err(format!(
            "{v:?} has no location: give {key}=302:/new (301, 302, 303, 307 or 308)"
        ));
    };
    let status = code
        .parse::<u16>()
        .ok()
        .filter(|s| REDIRECTS.contains(s))
        .ok_or_else(|| {
            format!("{code:?} is not a redirect status: give 301, 302, 303, 307 or 308")
        })?;
    // A URI reference (RFC 3986 §4.1) is visible ASCII; anything else is percent-encoded.
    if location.is_empty() || location.bytes().any(|b| !(0x21..0x7f).contains(&b)) {
        return Err(format!(
            "{location:?} is not a location: a URI reference such as /new or \
             http://host:8080/new, visible ASCII without spaces (percent-encode the rest)"
        ));
    }
    let default = &c.routes[0].spec;
    let mut spec = Spec {
        status,
        body: Arc::from(&[][..]),
        // No content: nothing for a type to describe.
        content_type: String::new(),
        headers: default.headers.clone(),
    };
    set_field(&mut spec, &default.headers, format!("Location: {location}"));
    add_route(
        c,
        Route {
            path: path.into(),
            spec,
            get_only: false,
            method: method.map(str::to_string),
            faults: RouteFaults::default(),
            echo: None,
            modified: None,
        },
    );
    Ok(key)
}
