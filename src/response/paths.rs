//! The paths' table changed while the server runs (`--admin`'s `/routes`): a path (and method)
//! pointed at another route, added or removed, and the 405 of a path with routes by method
//! kept in step with them. Off the workers' path: the admin changes its own copy, and each
//! worker takes the table whole ([`Responses::adopt_routes`]).

use super::route::method_not_allowed;
use super::{Methods, Responses, Spec};

impl Responses {
    /// The route answering `path` for `method` alone (`None`: the path's route for every
    /// method), as the table names it.
    pub fn path_route(&self, path: &[u8], method: Option<&[u8]>) -> Option<usize> {
        self.paths
            .iter()
            .find(|(p, m, _)| p.as_slice() == path && entry_method(m) == Some(method))
            .map(|(_, _, r)| usize::from(*r))
    }

    /// Whether some entry of the table answers `path`, whatever its methods.
    pub fn has_path(&self, path: &[u8]) -> bool {
        self.paths.iter().any(|(p, _, _)| p.as_slice() == path)
    }

    /// Route `route` answers `path` for `method` (`None`: every method the path's routes by
    /// method do not take) from now on, in place of the entry it had (returned); a new entry
    /// by method goes before the path's entry for every method, so that its method wins.
    pub fn set_path_route(
        &mut self,
        path: &[u8],
        method: Option<&[u8]>,
        route: usize,
    ) -> Option<usize> {
        let route = route as u16;
        let same = |(p, m, _): &(Vec<u8>, Methods, u16)| {
            p.as_slice() == path && entry_method(m) == Some(method)
        };
        if let Some(e) = self.paths.iter_mut().find(|e| same(e)) {
            return Some(usize::from(std::mem::replace(&mut e.2, route)));
        }
        let methods = match method {
            None => Methods::Any,
            Some(m) => Methods::One {
                method: m.into(),
                // Set by `set_not_allowed` once the path's methods are known.
                not_allowed: 0,
            },
        };
        let at = match method {
            Some(_) => self
                .paths
                .iter()
                .position(|(p, m, _)| p.as_slice() == path && *m == Methods::Any)
                .unwrap_or(self.paths.len()),
            None => self.paths.len(),
        };
        self.paths.insert(at, (path.to_vec(), methods, route));
        None
    }

    /// Remove the entry answering `path` for `method`, returning its route.
    pub fn remove_path_route(&mut self, path: &[u8], method: Option<&[u8]>) -> Option<usize> {
        let at = self
            .paths
            .iter()
            .position(|(p, m, _)| p.as_slice() == path && entry_method(m) == Some(method))?;
        Some(usize::from(self.paths.remove(at).2))
    }

    /// The 405 of `path`'s routes by method (none when it has none).
    pub fn not_allowed_of(&self, path: &[u8]) -> Option<usize> {
        self.paths.iter().find_map(|(p, m, _)| match m {
            Methods::One { not_allowed, .. } if p.as_slice() == path => {
                Some(usize::from(*not_allowed)).filter(|&n| n != 0)
            }
            _ => None,
        })
    }

    /// The 405 answer of `path`'s routes by method, its `Allow` listing their methods (HEAD
    /// after GET), or `None` when it has none.
    pub fn not_allowed_spec(&self, path: &[u8]) -> Option<Spec> {
        let mut allow = String::new();
        for (p, m, _) in &self.paths {
            let Methods::One { method, .. } = m else {
                continue;
            };
            let m = String::from_utf8_lossy(method);
            if p.as_slice() != path || allow.split(", ").any(|a| a == m) {
                continue;
            }
            if !allow.is_empty() {
                allow.push_str(", ");
            }
            allow.push_str(&m);
            if m == "GET" {
                allow.push_str(", HEAD");
            }
        }
        (!allow.is_empty()).then(|| method_not_allowed(&allow))
    }

    /// Route `route` is the 405 of `path`'s routes by method.
    pub fn set_not_allowed(&mut self, path: &[u8], route: usize) {
        for (p, m, _) in &mut self.paths {
            if let Methods::One { not_allowed, .. } = m {
                if p.as_slice() == path {
                    *not_allowed = route as u16;
                }
            }
        }
    }

    /// Take `from`'s paths when they differ from this one's (a worker, after the admin
    /// changed them).
    pub(super) fn adopt_paths(&mut self, from: &Responses) {
        if self.paths != from.paths {
            self.paths = from.paths.clone();
        }
    }
}

/// The method an entry is named by: `Some(None)` for every method, `Some(Some(m))` for one,
/// `None` for the health route (changed only at start).
fn entry_method(m: &Methods) -> Option<Option<&[u8]>> {
    match m {
        Methods::Any => Some(None),
        Methods::One { method, .. } => Some(Some(method)),
        Methods::GetHead => None,
    }
}
