//! `--stats`, `--metrics`: a worker's share of the counter routes. It publishes its counters
//! for the other workers and renders the routes' bodies from everyone's, every [`PUBLISH_US`]
//! while it has connections, and once more when it has none or goes idle.

use crate::response::{CounterRoutes, Responses};
use crate::server::shared::Shared;
use crate::stats::{Summary, stats_json};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// How often a worker with connections publishes its counters (µs).
pub(super) const PUBLISH_US: u64 = 100_000;

pub(super) struct Publisher {
    /// The worker's index in [`Shared::published`].
    id: usize,
    routes: CounterRoutes,
    /// The metrics text is rendered into it (reused).
    metrics_text: Vec<u8>,
    /// The next time to publish (worker µs), while there are connections.
    pub(super) next_at: u64,
}

impl Publisher {
    pub(super) fn new(id: usize, routes: CounterRoutes) -> Publisher {
        Publisher {
            id,
            routes,
            metrics_text: Vec::new(),
            next_at: 0,
        }
    }

    /// Whether the server has counter routes at all (else nothing is ever published).
    #[inline]
    pub(super) fn any(&self) -> bool {
        cfg!(feature = "stats") && self.routes.any()
    }

    /// Publish `mine`, this worker's counters, and refresh the counter routes' bodies in
    /// `responses` from everyone's.
    #[cold]
    pub(super) fn publish(&mut self, mine: Summary, shared: &Shared, responses: &mut Responses) {
        let mut total = {
            let mut all = shared.published.lock().unwrap_or_else(|e| e.into_inner());
            all[self.id] = mine;
            Summary::total(all.iter())
        };
        if let Some(log) = shared.log() {
            total.stats.log_lines_dropped += log.dropped();
        }
        let open = shared.open.load(Ordering::Relaxed);
        if let Some(route) = self.routes.stats {
            let json = stats_json(&total, open);
            responses.set_body(route, Arc::from(json.into_bytes()));
        }
        if let Some(route) = self.routes.metrics {
            crate::stats::prometheus::render(&total, open, &mut self.metrics_text);
            responses.set_body(route, Arc::from(&self.metrics_text[..]));
        }
    }
}
