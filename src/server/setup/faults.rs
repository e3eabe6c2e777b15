//! A worker's faults, built from `Config`: the set of its routes' faults the workers share,
//! the `--seed` stream of the worker, and the `--mutate` choice with the catalogue the workers
//! share.

use crate::config::Config;
use crate::fault::{FaultResponses, FaultSet, Mutator, WorkerFaults};
use crate::mutate::Catalogue;
use crate::response::Responses;
use std::sync::Arc;

/// The set of `config`'s routes' faults, with the responses they send added to `responses`
/// (once, for every worker); `builder` remembers those responses, for a later change.
pub fn fault_set(
    config: &Config,
    responses: &mut Responses,
    builder: &mut FaultResponses,
) -> Arc<FaultSet> {
    if !cfg!(feature = "faults") {
        // Built without faults: the command line gave none.
        return Arc::default();
    }
    let routes = config.routes.iter().map(|r| (&r.spec, &r.faults));
    Arc::new(builder.build(routes, responses, None))
}

/// The faults of worker `worker`, serving `set` (whose responses are in the worker's
/// `responses`); `None` when there are none, nothing is mutated and `always` is false (the
/// plain path then pays nothing). `catalogue`: the `--mutate` catalogue the workers share
/// (built here when `None` and needed).
pub fn worker_faults(
    config: &Config,
    set: Arc<FaultSet>,
    catalogue: Option<Arc<Catalogue>>,
    worker: usize,
    always: bool,
) -> Option<WorkerFaults> {
    if !cfg!(feature = "faults") || (!set.any() && config.mutate.is_none() && !always) {
        return None;
    }
    let mutator = config
        .mutate
        .filter(|_| cfg!(feature = "mutate"))
        .map(|m| Mutator::new(m, catalogue.unwrap_or_default()));
    Some(WorkerFaults::new(set, config.seed, mutator, worker))
}

/// The faults of worker `worker`, the responses they send added to `responses` (a worker
/// whose responses are its own: tests and fuzzing).
pub fn faults(
    config: &Config,
    responses: &mut Responses,
    catalogue: Option<Arc<Catalogue>>,
    worker: usize,
) -> Option<WorkerFaults> {
    let set = fault_set(config, responses, &mut FaultResponses::default());
    worker_faults(config, set, catalogue, worker, false)
}
