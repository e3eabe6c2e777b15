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

use super::routes::{Change, RouteTable};

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
    /// Its answer changed through `/routes`: its faults, which name its answer at start,
    /// are no longer changed.
    moved: bool,
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
    /// The routes `/routes` changes.
    table: RouteTable,
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
                moved: false,
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
            table: RouteTable::new(config),
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
        if query.is_some() && !path.starts_with("/faults/") && !path.starts_with("/routes/") {
            return Answer::text(400, format!("{path} takes no query"));
        }
        match path {
            "/routes" => match method {
                b"GET" => Answer::text(200, self.list_routes()),
                _ => allow("GET"),
            },
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
                _ if path.starts_with("/routes/") => {
                    self.routes_answer(method, &path["/routes".len()..], query, body)
                }
                _ => Answer::text(
                    404,
                    format!(
                        "{path}: the API is GET /faults, GET, PUT and DELETE /faults/PATH, GET /routes, GET, PUT and DELETE /routes/PATH, POST /reset, GET and DELETE /journal"
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
        let route_method = match method_query(query) {
            Ok(m) => m,
            Err(a) => return a,
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
            b"PUT" if self.routes[i].moved => Answer::text(
                409,
                format!(
                    "{}'s answer was changed through /routes: its faults are those of its answer \
                     at start; restart canned for faults on the new one",
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

    /// `GET`, `PUT` or `DELETE /routes/PATH[?method=METHOD]`.
    fn routes_answer(
        &mut self,
        method: &[u8],
        path: &str,
        query: Option<&[u8]>,
        body: &[u8],
    ) -> Answer {
        let route_method = match method_query(query) {
            Ok(m) => m,
            Err(a) => return a,
        };
        let key = match route_method {
            Some(m) => format!("{m} {path}"),
            None => path.to_string(),
        };
        let found = self.table.find(path, route_method);
        match method {
            b"GET" => match found {
                Some(i) => Answer::text(200, self.table.describe(i)),
                None => Answer::text(404, format!("no route answers {key}")),
            },
            b"PUT" | b"DELETE" => {
                if path == "/*" {
                    return Answer::text(
                        400,
                        "/routes changes the routes of paths; the default response is set at start",
                    );
                }
                if found.is_none() && self.table.served_by_canned(&self.responses, path) {
                    return Answer::text(
                        409,
                        format!(
                            "{path} is answered by --health, --echo, --stats or --metrics, \
                             which /routes leaves as they are"
                        ),
                    );
                }
                let configured = found.and_then(|i| self.table.entries[i].configured);
                if let Some(c) = configured.filter(|&c| !self.routes[c].faults.is_none()) {
                    return Answer::text(
                        409,
                        format!(
                            "{} has faults: DELETE /faults{path} first, then change its answer",
                            self.routes[c].key
                        ),
                    );
                }
                let what = if method == b"PUT" {
                    let Ok(text) = std::str::from_utf8(body) else {
                        return Answer::text(400, "the body is not UTF-8");
                    };
                    match crate::config::route_answer(
                        route_method,
                        path,
                        text,
                        self.table.default_spec(),
                    ) {
                        Ok(spec) => {
                            let first = text
                                .lines()
                                .find(|l| !l.trim().is_empty())
                                .unwrap_or_default()
                                .trim_end_matches('\r')
                                .to_string();
                            Change::Put(spec, first)
                        }
                        Err(e) => return Answer::text(400, e),
                    }
                } else if found.is_none() {
                    return Answer::text(404, format!("no route answers {key}"));
                } else {
                    Change::Delete
                };
                self.change_route(path, route_method, configured, what)
            }
            _ => Answer::text(405, format!("/routes{path} takes GET, PUT and DELETE")),
        }
    }

    /// Apply a change of `/routes` to a copy of the responses, check the bounds, and publish
    /// it; nothing changes when a bound is passed.
    fn change_route(
        &mut self,
        path: &str,
        method: Option<&str>,
        configured: Option<usize>,
        what: Change,
    ) -> Answer {
        let created = matches!(what, Change::Put(..)) && self.table.find(path, method).is_none();
        let mut responses = self.responses.clone();
        let mut table = self.table.clone();
        let applied = table.apply(
            &mut responses,
            self.shared.faults.as_ref(),
            path,
            method,
            what,
        );
        let bytes = responses.formatted_bytes() + self.builder.body_bytes();
        let refusal = if responses.routes() > usize::from(u16::MAX) {
            Some("the routes' responses would be more than 65535".to_string())
        } else if bytes > MAX_FORMATTED_BYTES {
            Some(crate::config::formatted_too_large(bytes))
        } else {
            None
        };
        if let Some(why) = refusal {
            return Answer::text(400, why);
        }
        if let Some(c) = configured {
            self.routes[c].moved = true;
        }
        self.responses = responses;
        self.table = table;
        self.publish();
        match applied {
            Some(i) => Answer::text(if created { 201 } else { 200 }, self.table.describe(i)),
            None => Answer::text(200, format!("removed {}", route_key(path, method))),
        }
    }

    /// Every route `/routes` answers for, a line each: its key and first line.
    fn list_routes(&self) -> String {
        let mut out = String::new();
        for i in 0..self.table.entries.len() {
            let d = self.table.describe(i);
            out.push_str(d.lines().next().unwrap_or_default());
            out.push('\n');
        }
        out
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

/// `method=METHOD`, the only query `/faults/PATH` and `/routes/PATH` take.
fn method_query(query: Option<&[u8]>) -> Result<Option<&str>, Answer> {
    match query.map(std::str::from_utf8) {
        None => Ok(None),
        Some(Ok(q)) => match q.strip_prefix("method=") {
            Some(m) if !m.is_empty() && !m.contains('&') => Ok(Some(m)),
            _ => Err(Answer::text(
                400,
                format!("the query {q:?} is not method=METHOD"),
            )),
        },
        Some(Err(_)) => Err(Answer::text(400, "the query is not UTF-8")),
    }
}

fn route_key(path: &str, method: Option<&str>) -> String {
    match method {
        Some(m) => format!("{m} {path}"),
        None => path.to_string(),
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
