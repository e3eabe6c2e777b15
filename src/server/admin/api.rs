//! The admin API's answers: the routes and their faults, changed in the `--fault` grammar,
//! the sequences reset, the journal read and cleared. Every change is checked whole, formatted
//! here (off the workers' path) and published to the workers at once; a bad one changes
//! nothing.

use crate::config::Config;
use crate::fault::{FaultResponses, FaultSet, RouteFaults, parse_fault_spec, split_share};
use crate::journal::Journal;
use crate::response::{MAX_FORMATTED_BYTES, Responses, Spec};
use crate::server::shared::{FaultTables, Shared};
use std::sync::Arc;

/// One route as the API names it.
struct Route {
    /// `*` for the default response, else `[METHOD ]PATH`.
    key: String,
    path: String,
    method: Option<String>,
    spec: Spec,
    faults: RouteFaults,
    /// An `--echo` (or journal) path: it takes no faults.
    echo: bool,
}

/// An answer: status, content type, body.
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) json: bool,
    pub(super) body: Vec<u8>,
    /// The journal, sent instead of `body` a piece at a time as it is written (never made
    /// whole: it may be tens of megabytes).
    pub(super) journal: Option<Arc<Journal>>,
}

impl Answer {
    fn text(status: u16, body: impl Into<String>) -> Answer {
        let mut body: String = body.into();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        Answer {
            status,
            json: false,
            body: body.into_bytes(),
            journal: None,
        }
    }
}

/// What the API reads and changes: the routes with their faults, the responses the workers
/// serve (those formatted for faults after theirs), the set they serve, the journal.
pub(super) struct Api {
    routes: Vec<Route>,
    builder: FaultResponses,
    responses: Responses,
    set: Arc<FaultSet>,
    journal: Option<Arc<Journal>>,
    shared: Arc<Shared>,
    /// `POST /reset`s so far, published with the tables.
    counter_resets: u64,
}

impl Api {
    /// The API of a server configured with `config`, whose workers serve `responses` (with
    /// what `builder` formatted for `set`'s faults).
    pub(super) fn new(
        config: &Config,
        responses: Responses,
        builder: FaultResponses,
        set: Arc<FaultSet>,
        journal: Option<Arc<Journal>>,
        shared: Arc<Shared>,
    ) -> Api {
        let routes = config
            .routes
            .iter()
            .enumerate()
            .map(|(i, r)| Route {
                key: match (i, &r.method) {
                    (0, _) => "*".into(),
                    (_, Some(m)) => format!("{m} {}", r.path),
                    (_, None) => r.path.clone(),
                },
                path: if i == 0 { "*".into() } else { r.path.clone() },
                method: r.method.clone(),
                spec: r.spec.clone(),
                faults: r.faults.clone(),
                echo: r.echo.is_some(),
            })
            .collect();
        Api {
            routes,
            builder,
            responses,
            set,
            journal,
            shared,
            counter_resets: 0,
        }
    }

    /// The answer to `method` on `path` (`query`: after `?`, if any) with `body`.
    pub(super) fn answer(
        &mut self,
        method: &[u8],
        path: &[u8],
        query: Option<&[u8]>,
        body: &[u8],
    ) -> Answer {
        let Ok(path) = std::str::from_utf8(path) else {
            return Answer::text(400, "the path is not UTF-8");
        };
        let allow = |methods: &str| Answer::text(405, format!("{path} takes {methods}"));
        if query.is_some() && !path.starts_with("/faults/") {
            return Answer::text(400, format!("{path} takes no query"));
        }
        match path {
            "/faults" => match method {
                b"GET" => Answer::text(200, self.list(None)),
                _ => allow("GET"),
            },
            "/reset" => match method {
                b"POST" => {
                    let n = self.set.reset_sequences();
                    // The counters: every worker zeroes its own at its next loop turn.
                    self.counter_resets += 1;
                    self.publish();
                    Answer::text(200, format!("reset {n} sequences"))
                }
                _ => allow("POST"),
            },
            "/journal" => match (&self.journal, method) {
                (None, _) => Answer::text(404, "no journal: start canned with --journal-path"),
                (Some(j), b"GET" | b"DELETE") => {
                    if method == b"DELETE" {
                        j.clear();
                    }
                    Answer {
                        status: 200,
                        json: true,
                        body: Vec::new(),
                        journal: Some(j.clone()),
                    }
                }
                (Some(_), _) => allow("GET and DELETE"),
            },
            _ => match path.strip_prefix("/faults") {
                Some(route) if route.starts_with('/') => {
                    let route = if route == "/*" { "*" } else { route };
                    self.route_answer(method, route, query, body)
                }
                _ => Answer::text(
                    404,
                    format!(
                        "{path}: the API is GET /faults, GET, PUT and DELETE /faults/PATH, POST /reset, GET and DELETE /journal"
                    ),
                ),
            },
        }
    }

    /// `GET`, `PUT` or `DELETE /faults/PATH[?method=METHOD]`.
    fn route_answer(
        &mut self,
        method: &[u8],
        path: &str,
        query: Option<&[u8]>,
        body: &[u8],
    ) -> Answer {
        let route_method = match query.map(std::str::from_utf8) {
            None => None,
            Some(Ok(q)) => match q.strip_prefix("method=") {
                Some(m) if !m.is_empty() && !m.contains('&') => Some(m),
                _ => {
                    return Answer::text(400, format!("the query {q:?} is not method=METHOD"));
                }
            },
            Some(Err(_)) => return Answer::text(400, "the query is not UTF-8"),
        };
        let Some(i) = self
            .routes
            .iter()
            .position(|r| r.path == path && r.method.as_deref() == route_method)
        else {
            let key = match route_method {
                Some(m) => format!("{m} {path}"),
                None => path.to_string(),
            };
            return Answer::text(
                404,
                format!(
                    "no route answers {key} (a route is given at start: --route, --health, \
                     --fault; * is the default response)"
                ),
            );
        };
        match method {
            b"GET" => Answer::text(200, self.list(Some(i))),
            b"PUT" | b"DELETE" if self.routes[i].echo => Answer::text(
                400,
                format!(
                    "{} is an --echo path: faults change canned's own responses, not an echo",
                    self.routes[i].key
                ),
            ),
            b"PUT" => match parse_list(body) {
                Ok(faults) => self.change(i, faults),
                Err(e) => Answer::text(400, e),
            },
            b"DELETE" => self.change(i, RouteFaults::default()),
            _ => Answer::text(405, format!("/faults{path} takes GET, PUT and DELETE")),
        }
    }

    /// Give route `i` the faults `faults`, formatting what they send, and publish the set to
    /// the workers; nothing changes when it cannot be formatted.
    fn change(&mut self, i: usize, faults: RouteFaults) -> Answer {
        let mut builder = self.builder.clone();
        let mut responses = self.responses.clone();
        // The change about to be published; the responses it no longer sends are retired as
        // of it, and those retired before that no worker holds any more are taken back.
        let published = self.shared.faults.as_ref();
        let change = published.map_or(0, |p| p.epoch() + 1);
        if let Some(p) = published {
            builder.reclaim(|at, since| p.unused(at, since));
        }
        let routes = self.routes.iter().enumerate().map(|(j, r)| {
            let f = if j == i { &faults } else { &r.faults };
            (&r.spec, f)
        });
        let set = builder.build(routes, &mut responses, Some((&self.set, i)));
        builder.retire_unused(&set, &mut responses, change);
        if responses.routes() > usize::from(u16::MAX) {
            return Answer::text(400, "the faults' responses would be more than 65535");
        }
        // Every body counts, a large one sent apart from its head included.
        let bytes = responses.formatted_bytes() + builder.body_bytes();
        if bytes > MAX_FORMATTED_BYTES {
            return Answer::text(400, crate::config::formatted_too_large(bytes));
        }
        self.routes[i].faults = faults;
        self.builder = builder;
        self.responses = responses;
        self.set = Arc::new(set);
        self.publish();
        Answer::text(200, self.list(Some(i)))
    }

    /// Publish the tables (and the count of counter resets) to the workers.
    fn publish(&self) {
        if let Some(published) = &self.shared.faults {
            let tables = FaultTables {
                set: self.set.clone(),
                responses: self.responses.clone(),
                counter_resets: self.counter_resets,
            };
            published.publish(tables, &self.shared.pollers);
        }
    }

    /// The routes' faults (or route `only`'s), a line per fault as `--fault` takes it
    /// (`KEY=FAULT`), and a route without any as its key alone.
    fn list(&self, only: Option<usize>) -> String {
        let mut out = String::new();
        for (i, r) in self.routes.iter().enumerate() {
            if only.is_some_and(|o| o != i) || (only.is_none() && r.echo) {
                continue;
            }
            let specs = r.faults.specs();
            if specs.is_empty() {
                out.push_str(&r.key);
                out.push('\n');
            }
            for s in specs {
                out.push_str(&r.key);
                out.push('=');
                out.push_str(&s);
                out.push('\n');
            }
        }
        out
    }
}

/// A PUT's body: one fault a line, `KIND[:ARGS][@SHARE]` as after `PATH=` in `--fault`,
/// blank lines aside; every line must parse, and the faults go together as on the command
/// line.
fn parse_list(body: &[u8]) -> Result<RouteFaults, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8".to_string())?;
    let mut faults = RouteFaults::default();
    let mut any = false;
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let parsed = split_share(line)
            .and_then(|(spec, share)| Ok((parse_fault_spec(spec)?, share)))
            .and_then(|(fault, share)| {
                faults
                    .add_share(fault, share)
                    .map_err(|e| format!("{line} {e}"))
            });
        if let Err(e) = parsed {
            return Err(format!("line {}: {e}", n + 1));
        }
        any = true;
    }
    if !any {
        return Err("no fault given (DELETE removes a path's faults)".into());
    }
    Ok(faults)
}
