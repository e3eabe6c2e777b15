//! One worker's faults at run time, built from the set the workers share: what each route's
//! response becomes ([`WorkerFaults::decide`]), and the garbage its faults send instead of it.

use super::clock::WallClock;
use super::mutator::Mutator;
use super::spec::{Draw, RouteFaults, Step};
use super::table::FaultSet;
use crate::fault_value::{Delivery, Drip, Rng};
use std::sync::Arc;

/// One worker's faults at run time: the set of every route's faults the workers share, what
/// they send instead of a response (formatted at start-up), the worker's generator and the
/// `--mutate` cycle.
#[derive(Debug)]
pub struct WorkerFaults {
    set: Arc<FaultSet>,
    /// By route index: the garbage bytes, as many as the route's largest garbage fault (empty
    /// without one).
    garbage: Vec<Box<[u8]>>,
    rng: Rng,
    mutate: Option<Mutator>,
    /// By route index: whether [`WorkerFaults::decide`] may change its response.
    applies: Vec<bool>,
    /// For [`WorkerFaults::date_at`].
    clock: WallClock,
}

/// What a route does instead of its plain response, decided at respond time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send catalogue variant `i` and close.
    Mutate(usize),
    /// Apply this plan, answering with route `route` (the route's own, its error response, a
    /// status of its mix or a step's response).
    Fault {
        /// What its route's faults drew.
        draw: Draw,
        /// The route whose bytes to send.
        route: u16,
    },
}

impl WorkerFaults {
    /// The faults of worker `worker` (its stream of `seed`): `set`, whose responses are in
    /// the worker's `Responses`, and `mutate`.
    pub fn new(
        set: Arc<FaultSet>,
        seed: u64,
        mutate: Option<Mutator>,
        worker: usize,
    ) -> WorkerFaults {
        let mut f = WorkerFaults {
            set: Arc::default(),
            garbage: Vec::new(),
            rng: Rng::new(seed, worker as u64),
            mutate,
            applies: Vec::new(),
            clock: WallClock::default(),
        };
        f.replace(set);
        f
    }

    /// Serve `set` from now on (a change through `--admin`; its responses are already in
    /// the worker's `Responses`). A route whose largest garbage is the same size keeps its
    /// bytes; new ones are drawn from the worker's stream.
    pub fn replace(&mut self, set: Arc<FaultSet>) {
        let mut garbage = std::mem::take(&mut self.garbage);
        garbage.resize_with(set.routes.len(), Box::default);
        for (g, r) in garbage.iter_mut().zip(&set.routes) {
            let n = garbage_len(r);
            if g.len() != n {
                // Drawn from the worker's stream: the same bytes for every response of the
                // route, reproducible with the seed.
                *g = self.rng.bytes(n).into_boxed_slice();
            }
        }
        self.applies = set
            .routes
            .iter()
            .enumerate()
            .map(|(i, r)| !r.is_none() || (i == 0 && self.mutate.is_some()))
            .collect();
        self.garbage = garbage;
        self.set = set;
    }

    /// The set it serves.
    pub fn set(&self) -> &Arc<FaultSet> {
        &self.set
    }

    /// The drip of the response of route `route` (by its index in `Responses`), if it has one.
    pub fn drip(&self, route: usize) -> Option<Drip> {
        self.set.drips.get(route).copied().flatten()
    }

    /// The `Date` value (IMF-fixdate) of worker time `at_us`, `now_us` being the worker time
    /// now: the head of a dripped response carries the date of its first piece, and each
    /// piece that holds part of it computes the same value.
    pub fn date_at(&mut self, at_us: u64, now_us: u64) -> [u8; 29] {
        self.clock.date_at(at_us, now_us)
    }

    /// `--mutate` or `--mutate-id` is on: the default route's answers are its variants.
    pub fn mutates(&self) -> bool {
        self.mutate.is_some()
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
            if let Some(i) = self.mutate.as_mut().and_then(|m| m.next_variant()) {
                return Some(Decision::Mutate(i));
            }
        }
        let f = self.set.routes.get(route).filter(|f| !f.is_none())?;
        let mut plan = f.plan(&mut self.rng);
        let own = route as u16;
        let answer = match self.set.sequence(route) {
            Some(s) => {
                let act = s.next();
                plan.error = act.status;
                plan.delivery = act.delivery;
                act.response
            }
            None if plan.error => self.set.error_routes[route],
            None => {
                let r = match plan.mix {
                    0 => own,
                    m => self.set.mix_routes[route][usize::from(m - 1)],
                };
                let dripped = self.set.drip_routes[route];
                if r == own || r == dripped {
                    // The route's own status: its own response, not a fault; dripped from
                    // its copy for the drip, whose index keeps that drip for ever.
                    plan.mix = 0;
                    match plan.delivery {
                        Delivery::Drip(_) => dripped,
                        _ => own,
                    }
                } else {
                    r
                }
            }
        };
        Some(Decision::Fault {
            draw: plan,
            route: answer,
        })
    }

    /// The HTTP/2 variant a stream on the default route gets under `--mutate` (its index
    /// among the HTTP/2 ids, and the variant), or `None`.
    pub fn next_h2(&mut self) -> Option<(usize, &crate::mutate::H2Variant)> {
        let m = self.mutate.as_mut()?;
        let i = m.next_h2()?;
        Some((i, m.h2().variant(i)))
    }

    /// HTTP/2 variant `i` (an index [`WorkerFaults::next_h2`] gave).
    pub fn h2_variant(&self, i: usize) -> Option<&crate::mutate::H2Variant> {
        Some(self.mutate.as_ref()?.h2().variant(i))
    }

    /// The bytes of catalogue variant `i`.
    pub fn variant(&self, i: usize) -> &[u8] {
        self.mutate.as_ref().map_or(&[], |m| m.bytes(i))
    }

    /// Route `route`'s garbage bytes, `n` of them (at most as many as it has).
    pub fn garbage(&self, route: usize, n: u32) -> &[u8] {
        let g = self.garbage.get(route).map_or(&[][..], |g| g);
        &g[..g.len().min(n as usize)]
    }
}

/// The garbage bytes route faults `r` send at most: its delivery's, or its largest step's.
fn garbage_len(r: &RouteFaults) -> usize {
    let steps = r.sequence.iter().flat_map(|s| &s.steps);
    let deliveries = steps
        .filter_map(|s| match s {
            Step::Delivery(d) => Some(*d),
            _ => None,
        })
        .chain([r.delivery]);
    deliveries
        .map(|d| match d {
            Delivery::Garbage(n) => n as usize,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}
