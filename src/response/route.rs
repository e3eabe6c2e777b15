//! Routes beyond the configured ones: the counter routes (`--stats`, `--metrics`) and the
//! answers by method (405 with `Allow`, OPTIONS), each a route of its own.

use super::spec::{DEFAULT_CONTENT_TYPE, Spec};
use super::status::error_body;
use std::sync::Arc;

/// The `Content-Type` of the Prometheus text exposition format, version 0.0.4 (`--metrics`).
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The paths the counter routes answer, when served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterPaths<'a> {
    /// `--stats`: JSON counters.
    pub stats: Option<&'a str>,
    /// `--metrics`: the same counters in the Prometheus text format.
    pub metrics: Option<&'a str>,
}

/// Where the counter routes are among a server's routes, each refreshed by its worker with
/// [`Responses::set_body`](super::Responses::set_body).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterRoutes {
    /// `--stats`: JSON counters.
    pub stats: Option<usize>,
    /// `--metrics`: the same counters in the Prometheus text format.
    pub metrics: Option<usize>,
}

impl CounterRoutes {
    /// Whether any counter route is served (the worker then publishes its counters).
    pub fn any(&self) -> bool {
        self.stats.is_some() || self.metrics.is_some()
    }
}

/// A counter route's answer until its worker first publishes: `body`, never cached.
pub(super) fn counter_spec(body: &[u8], content_type: &str) -> Spec {
    Spec {
        status: 200,
        body: Arc::from(body),
        content_type: content_type.into(),
        headers: vec!["Cache-Control: no-store".into()],
    }
}

/// How requests are answered by method before the routes are looked at (RFC 9110 §9.1). The
/// answers are routes of their own (after the configured ones), so they keep the connection
/// open and have HEAD and keep-alive forms like any route.
#[derive(Clone, Debug)]
pub(super) struct MethodRules {
    /// The methods the routes answer; empty: every method but CONNECT.
    pub(super) accepted: Vec<Vec<u8>>,
    /// The route answering 405 with `Allow`.
    pub(super) not_allowed: usize,
    /// With `accepted` set, the route answering OPTIONS: 204 with `Allow`.
    pub(super) options: usize,
}

impl MethodRules {
    /// The route answering `method` by its method alone, if any.
    pub(super) fn answer(&self, method: &[u8]) -> Option<usize> {
        // CONNECT asks for a tunnel; canned is not a proxy, and a 2xx would tell the client
        // that the tunnel is open (RFC 9110 §9.3.6).
        if method == b"CONNECT" {
            return Some(self.not_allowed);
        }
        if self.accepted.is_empty() {
            return None;
        }
        if method == b"OPTIONS" {
            return Some(self.options);
        }
        if self.accepted.iter().any(|m| m.as_slice() == method) {
            None
        } else {
            Some(self.not_allowed)
        }
    }
}

/// The `Allow` value of a 405 when no method list is configured: the methods of RFC 9110 §9
/// and PATCH (RFC 5789), all answered by the routes; CONNECT alone is not.
pub const DEFAULT_ALLOW: &str = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE";
/// The 405 answer, with `Allow: allow`.
pub(super) fn method_not_allowed(allow: &str) -> Spec {
    Spec {
        status: 405,
        body: Arc::from(error_body(405).into_bytes()),
        content_type: DEFAULT_CONTENT_TYPE.into(),
        headers: vec![format!("Allow: {allow}")],
    }
}
