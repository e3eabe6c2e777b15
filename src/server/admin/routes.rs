//! `/routes/PATH`: a route's answer read, replaced, added or removed while the server runs.
//! A new answer is formatted at an index of its own (one that no worker holds any more, or a
//! new one), the path points at it, and the index it replaces is retired: the workers take the
//! table whole at their next loop turn, and a response under way keeps its bytes until it is
//! sent, as with the faults' responses.

use crate::config::Config;
use crate::response::{Responses, Spec};
use crate::server::shared::PublishedFaults;

/// A route `/routes` answers for: one given at start (`--route`, `--redirect`) or added here.
#[derive(Clone)]
pub(super) struct Entry {
    pub(super) path: String,
    pub(super) method: Option<String>,
    pub(super) spec: Spec,
    /// Its first line as given (`STATUS[:BODY]`), when added or changed here.
    first: Option<String>,
    /// Its index among the configured routes, when given at start.
    pub(super) configured: Option<usize>,
}

/// The routes `/routes` answers for, and the indices their replaced answers leave.
#[derive(Clone)]
pub(super) struct RouteTable {
    /// The default response: what a route takes when its lines do not say.
    default: Spec,
    pub(super) entries: Vec<Entry>,
    /// Indices retired at a change, until no worker holds them.
    retired: Vec<(u16, u64)>,
    /// Indices free to format at again.
    free: Vec<u16>,
}

/// What a change is: a new answer for a route, or its removal.
pub(super) enum Change {
    Put(Spec, String),
    Delete,
}

impl RouteTable {
    pub(super) fn new(config: &Config) -> RouteTable {
        let entries = config
            .routes
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, r)| r.echo.is_none() && !r.get_only)
            .map(|(i, r)| Entry {
                path: r.path.clone(),
                method: r.method.clone(),
                spec: r.spec.clone(),
                first: None,
                configured: Some(i),
            })
            .collect();
        RouteTable {
            default: config.routes[0].spec.clone(),
            entries,
            retired: Vec::new(),
            free: Vec::new(),
        }
    }

    /// The default response, for the lines of a PUT.
    pub(super) fn default_spec(&self) -> &Spec {
        &self.default
    }

    /// The entry of `path` and `method`.
    pub(super) fn find(&self, path: &str, method: Option<&str>) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.path == path && e.method.as_deref() == method)
    }

    /// Whether `path` is answered by something else than routes (`--health`, `--echo`,
    /// `--stats`, `--metrics`), which `/routes` leaves alone.
    pub(super) fn served_by_canned(&self, responses: &Responses, path: &str) -> bool {
        responses.has_path(path.as_bytes()) && !self.entries.iter().any(|e| e.path == path)
    }

    /// Apply `change` to `path` (and `method`) in `responses`, a copy of the published one:
    /// `change` is the number of the change about to be published. Returns the entry's new
    /// index in the table, if it stays.
    pub(super) fn apply(
        &mut self,
        responses: &mut Responses,
        published: Option<&PublishedFaults>,
        path: &str,
        method: Option<&str>,
        what: Change,
    ) -> Option<usize> {
        let change = published.map_or(0, |p| p.epoch() + 1);
        if let Some(p) = published {
            let free = &mut self.free;
            self.retired.retain(|&(at, since)| {
                let gone = p.unused(at, since);
                if gone {
                    free.push(at);
                }
                !gone
            });
        }
        let (p, m) = (path.as_bytes(), method.map(str::as_bytes));
        let old = match what {
            Change::Put(spec, first) => {
                let at = responses.add_unrouted_at(&spec, self.free.pop().map(usize::from));
                let old = responses.set_path_route(p, m, at);
                let entry = Entry {
                    path: path.into(),
                    method: method.map(str::to_string),
                    spec,
                    first: Some(first),
                    configured: None,
                };
                match self.find(path, method) {
                    Some(i) => {
                        let configured = self.entries[i].configured;
                        self.entries[i] = Entry {
                            configured,
                            ..entry
                        };
                    }
                    None => self.entries.push(entry),
                }
                old
            }
            Change::Delete => {
                if let Some(i) = self.find(path, method) {
                    self.entries.remove(i);
                }
                responses.remove_path_route(p, m)
            }
        };
        if let Some(old) = old {
            self.retire(responses, old, change);
        }
        // The path's 405 lists the methods of its routes by method as they are now.
        let old_405 = responses.not_allowed_of(p);
        if let Some(spec) = responses.not_allowed_spec(p) {
            let at = responses.add_unrouted_at(&spec, self.free.pop().map(usize::from));
            responses.set_not_allowed(p, at);
        }
        if let Some(old) = old_405 {
            self.retire(responses, old, change);
        }
        self.find(path, method)
    }

    fn retire(&mut self, responses: &mut Responses, at: usize, change: u64) {
        responses.retire(at);
        self.retired.push((at as u16, change));
    }

    /// Entry `i` as a PUT gives it: its first line, then its type and its own fields (those
    /// the default response does not carry).
    pub(super) fn describe(&self, i: usize) -> String {
        let e = &self.entries[i];
        let mut out = match &e.method {
            Some(m) => format!("{m} {}=", e.path),
            None => format!("{}=", e.path),
        };
        match &e.first {
            Some(f) => out.push_str(f),
            None => {
                out.push_str(&e.spec.status.to_string());
                let body = &e.spec.body;
                match std::str::from_utf8(body) {
                    Ok(b) if !b.is_empty() && !b.contains(['\n', '\r']) && b.len() <= 200 => {
                        out.push(':');
                        out.push_str(b);
                    }
                    _ if body.is_empty() => {}
                    _ => out.push_str(&format!(" (a body of {} bytes)", body.len())),
                }
            }
        }
        out.push('\n');
        if !e.spec.content_type.is_empty() {
            out.push_str(&format!("Content-Type: {}\n", e.spec.content_type));
        }
        for h in &e.spec.headers {
            if !self.default.headers.contains(h) {
                out.push_str(h);
                out.push('\n');
            }
        }
        out
    }
}
