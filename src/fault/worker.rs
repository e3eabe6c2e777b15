//! One worker's faults at run time, built once from plain inputs: what each route's response
//! becomes ([`WorkerFaults::decide`]), and what the faults send instead of it.

use super::clock::WallClock;
use super::mutator::Mutator;
use super::rng::Rng;
use super::spec::{Delivery, Drip, Plan, RouteFaults};
use crate::response::{Responses, Spec, error_body};
use std::sync::Arc;

/// One worker's faults at run time: each route's faults, what they send instead of a
/// response (formatted at start-up), the worker's generator and the `--mutate` cycle.
#[derive(Debug)]
pub struct WorkerFaults {
    /// By route index (the same as [`Responses`]'); routes beyond have none.
    routes: Vec<RouteFaults>,
    /// Where the error-rate and status-mix responses are in `Responses`.
    added: FaultResponses,
    /// By route index: the garbage bytes (empty without a garbage fault).
    garbage: Vec<Box<[u8]>>,
    rng: Rng,
    mutate: Option<Mutator>,
    /// By route index: whether [`WorkerFaults::decide`] may change its response.
    applies: Vec<bool>,
    /// By route index in `Responses` (error-rate responses included): the drip of the
    /// route whose response it is, for a dripped response that took up its work area again.
    drips: Vec<Option<Drip>>,
    /// For [`WorkerFaults::date_at`].
    clock: WallClock,
}

/// What a route does instead of its plain response, decided at respond time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send catalogue variant `i` and close.
    Mutate(usize),
    /// Apply this plan, answering with route `route` (the route's own, or its error response).
    Fault {
        /// Its plan.
        plan: Plan,
        /// The route whose bytes to send.
        route: u16,
    },
}

/// Where [`add_error_responses`] put the responses the faults swap in, for
/// [`WorkerFaults::new`].
#[derive(Clone, Debug, Default)]
pub struct FaultResponses {
    /// By route index: the index in `Responses` of the route's error-rate response (the
    /// route's own when it has none).
    error: Vec<u16>,
    /// By route index: the index in `Responses` of each status of the route's mix, in its
    /// order (empty without one).
    mix: Vec<Box<[u16]>>,
}

/// Add the error-rate and status-mix responses of `routes` (each route's spec and faults, by
/// route index) to `responses`, once for every worker: each is the route's spec with the
/// error's status and body (a mix's status: its reason phrase as body; the route's own
/// status: the route's own response). Returns where they are.
pub fn add_error_responses<'a>(
    routes: impl IntoIterator<Item = (&'a Spec, &'a RouteFaults)>,
    responses: &mut Responses,
) -> FaultResponses {
    let mut swap = |spec: &Spec, status: u16, body: Option<&String>| {
        let body = body.cloned().unwrap_or_else(|| error_body(status));
        let spec = Spec {
            status,
            body: Arc::from(body.into_bytes()),
            ..spec.clone()
        };
        responses.add_unrouted(&spec) as u16
    };
    let mut added = FaultResponses::default();
    for (i, (spec, faults)) in routes.into_iter().enumerate() {
        added.error.push(match &faults.error {
            Some(e) => swap(spec, e.status, e.body.as_ref()),
            None => i as u16,
        });
        let mix = faults.mix.as_ref().map_or(&[][..], |m| &m.entries);
        let mix = mix.iter().map(|&(status, _)| {
            if status == spec.status {
                i as u16
            } else {
                swap(spec, status, None)
            }
        });
        added.mix.push(mix.collect());
    }
    added
}

impl WorkerFaults {
    /// The faults of worker `worker` (its stream of `seed`), or `None` when no route has one
    /// and nothing is mutated (the plain path then pays nothing). `routes` are the faults by
    /// route index; `added` where [`add_error_responses`] put their error-rate and
    /// status-mix responses in `responses`.
    pub fn new(
        routes: Vec<RouteFaults>,
        added: FaultResponses,
        responses: &Responses,
        seed: u64,
        mutate: Option<Mutator>,
        worker: usize,
    ) -> Option<WorkerFaults> {
        let any = routes.iter().any(|r| !r.is_none());
        if !any && mutate.is_none() {
            return None;
        }
        let mut rng = Rng::new(seed, worker as u64);
        let garbage = routes
            .iter()
            .map(|r| match r.delivery {
                // Drawn from the worker's stream at start-up: the same bytes for every
                // response of the route, reproducible with the seed.
                Delivery::Garbage(n) => (0..n).map(|_| rng.next_u64() as u8).collect(),
                _ => Box::default(),
            })
            .collect();
        let mut drips = vec![None; responses.routes()];
        for (i, r) in routes.iter().enumerate() {
            if let Delivery::Drip(d) = r.delivery {
                drips[i] = Some(d);
                drips[usize::from(added.error[i])] = Some(d);
                for &m in added.mix.get(i).map_or(&[][..], |m| m) {
                    drips[usize::from(m)] = Some(d);
                }
            }
        }
        let applies = routes
            .iter()
            .enumerate()
            .map(|(i, r)| !r.is_none() || (i == 0 && mutate.is_some()))
            .collect();
        Some(WorkerFaults {
            applies,
            routes,
            added,
            garbage,
            rng,
            mutate,
            drips,
            clock: WallClock::default(),
        })
    }

    /// The drip of the response of route `route` (by its index in `Responses`), if it has one.
    pub fn drip(&self, route: usize) -> Option<Drip> {
        self.drips.get(route).copied().flatten()
    }

    /// The `Date` value (IMF-fixdate) of worker time `at_us`, `now_us` being the worker time
    /// now: the head of a dripped response carries the date of its first piece, and each
    /// piece that holds part of it computes the same value.
    pub fn date_at(&mut self, at_us: u64, now_us: u64) -> [u8; 29] {
        self.clock.date_at(at_us, now_us)
    }

    /// Whether route `route` has a fault (or is the default route under `--mutate`): the
    /// one test a response of a route without one pays.
    #[inline(always)]
    pub fn applies(&self, route: usize) -> bool {
        self.applies.get(route).copied().unwrap_or(false)
    }

    /// What route `route`'s response becomes, or `None` for the plain response.
    pub fn decide(&mut self, route: usize) -> Option<Decision> {
        if route == 0 {
            if let Some(m) = &mut self.mutate {
                return Some(Decision::Mutate(m.next_variant()));
            }
        }
        let f = self.routes.get(route).filter(|f| !f.is_none())?;
        let mut plan = f.plan(&mut self.rng);
        let own = route as u16;
        let route = if plan.error {
            self.added.error[route]
        } else if plan.mix > 0 {
            let r = self.added.mix[route][usize::from(plan.mix - 1)];
            if r == own {
                // The route's own status: its own response, not a fault.
                plan.mix = 0;
            }
            r
        } else {
            own
        };
        Some(Decision::Fault { plan, route })
    }

    /// The bytes of catalogue variant `i`.
    pub fn variant(&self, i: usize) -> &[u8] {
        self.mutate.as_ref().map_or(&[], |m| m.bytes(i))
    }

    /// Route `route`'s garbage bytes.
    pub fn garbage(&self, route: usize) -> &[u8] {
        self.garbage.get(route).map_or(&[], |g| g)
    }
}
