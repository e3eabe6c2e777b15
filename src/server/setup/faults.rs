//! A worker's faults, built from `Config`: its routes' faults, the `--seed` stream of the
//! worker, and the `--mutate` choice with the catalogue the workers share.

use crate::config::Config;
use crate::fault::{FaultResponses, Mutator, WorkerFaults, add_error_responses};
use crate::mutate::Catalogue;
use crate::response::Responses;
use std::sync::Arc;

/// Add the error-rate and status-mix responses of `config`'s routes to `responses` (once, for
/// every worker); returns where they are, for [`faults_with_error_routes`].
pub fn error_routes(config: &Config, responses: &mut Responses) -> FaultResponses {
    add_error_responses(
        config.routes.iter().map(|r| (&r.spec, &r.faults)),
        responses,
    )
}

/// The faults of worker `worker`, with the error-rate responses already in `responses` where
/// [`error_routes`] put them; `None` when the configuration has none. `catalogue`: the
/// `--mutate` catalogue the workers share (built here when `None` and needed).
pub fn faults_with_error_routes(
    config: &Config,
    responses: &Responses,
    error_routes: FaultResponses,
    catalogue: Option<Arc<Catalogue>>,
    worker: usize,
) -> Option<WorkerFaults> {
    let mutator = config
        .mutate
        .map(|m| Mutator::new(m, catalogue.unwrap_or_default()));
    WorkerFaults::new(
        config.routes.iter().map(|r| r.faults.clone()).collect(),
        error_routes,
        responses,
        config.seed,
        mutator,
        worker,
    )
}

/// The faults of worker `worker`, its error-rate responses added to `responses` (a worker
/// whose responses are its own: tests and fuzzing).
pub fn faults(
    config: &Config,
    responses: &mut Responses,
    catalogue: Option<Arc<Catalogue>>,
    worker: usize,
) -> Option<WorkerFaults> {
    let error_routes = error_routes(config, responses);
    faults_with_error_routes(config, responses, error_routes, catalogue, worker)
}
