//! Every route's faults with the responses they send ([`FaultSet`]), built once for all
//! workers: at start-up, and again off the workers' path for each change through `--admin`.
//! The responses a fault sends instead of a route's own (an error rate's status, a status
//! mix's, a sequence's steps) are formatted here into a `Responses` the workers' copies take them from, each
//! once ([`FaultResponses`] remembers them, so that a change that asks for a response again
//! reuses it).

use super::sequence::{Act, Sequence};
use super::spec::{RouteFaults, Step};
use crate::fault_value::{Delivery, Drip};
use crate::response::{Responses, Spec, error_body};
use std::sync::Arc;

/// Every route's faults, by route index, and what they send: shared by the workers (an
/// `Arc`), so that a sequence's position is one for the process.
#[derive(Debug, Default)]
pub struct FaultSet {
    /// By route index (the same as [`Responses`]'); routes beyond have none.
    pub(super) routes: Vec<RouteFaults>,
    /// By route index: the index in `Responses` of the route's error-rate response (the
    /// route's own when it has none).
    pub(super) error_routes: Vec<u16>,
    /// By route index: the index in `Responses` of each status of the route's mix, in its
    /// order (the route's own for its own status; empty without a mix).
    pub(super) mix_routes: Vec<Box<[u16]>>,
    /// By route index: its sequence, if it has one.
    pub(super) sequences: Vec<Option<Arc<Sequence>>>,
    /// By route index: the index in `Responses` of the route's own answer formatted for its
    /// drip (the route's own when it has no drip).
    pub(super) drip_routes: Vec<u16>,
    /// By index in `Responses` (error-rate, mix and step responses included): the drip of the
    /// response, for a dripped response that takes up its work area again. An index keeps
    /// its drip for ever (a route's own index has none: its dripped answer is a copy), so
    /// that a drip parked between pieces resumes at its own pace after a change.
    pub(super) drips: Vec<Option<Drip>>,
}

impl FaultSet {
    /// Whether some route has a fault.
    pub fn any(&self) -> bool {
        self.routes.iter().any(|r| !r.is_none())
    }

    /// The faults of route `route` (none beyond the routes).
    pub fn route(&self, route: usize) -> Option<&RouteFaults> {
        self.routes.get(route)
    }

    /// Start every sequence again from its first step; returns how many there are.
    pub fn reset_sequences(&self) -> usize {
        let mut n = 0;
        for s in self.sequences.iter().flatten() {
            s.reset();
            n += 1;
        }
        n
    }

    /// The sequence of route `route`, if it has one.
    pub fn sequence(&self, route: usize) -> Option<&Sequence> {
        self.sequences.get(route).and_then(|s| s.as_deref())
    }
}

/// The responses formatted for faults so far, each with the drip it is sent with: a builder
/// that formats a response only once, however many sets ask for it.
#[derive(Clone, Debug, Default)]
pub struct FaultResponses {
    added: Vec<(Spec, Option<Drip>, u16)>,
    /// Copies of a route's own response (route, drip, index).
    copies: Vec<(u16, Option<Drip>, u16)>,
    /// Indices no set uses any more, with the change that stopped using them and their
    /// drip: a worker may still be sending one (its drip paced as before), until it says
    /// otherwise ([`FaultResponses::reclaim`]).
    retired: Vec<(u16, u64, Option<Drip>)>,
    /// Indices no worker uses: the next responses formatted take them.
    free: Vec<u16>,
}

impl FaultResponses {
    /// The set of `routes` (each route's spec and faults, by route index), formatting into
    /// `responses` what they send that it does not hold yet. With `before` (a set and the
    /// route that changed), a route other than that one whose faults are those it has in the
    /// set keeps its sequence there, and the position with it.
    pub fn build<'a>(
        &mut self,
        routes: impl IntoIterator<Item = (&'a Spec, &'a RouteFaults)>,
        responses: &mut Responses,
        before: Option<(&FaultSet, usize)>,
    ) -> FaultSet {
        let mut set = FaultSet::default();
        for (i, (spec, faults)) in routes.into_iter().enumerate() {
            let drip = match faults.delivery {
                Delivery::Drip(d) => Some(d),
                _ => None,
            };
            let error = match &faults.error {
                Some(e) => {
                    let body = e.body.clone().unwrap_or_else(|| error_body(e.status));
                    self.response(status_spec(spec, e.status, body), drip, responses)
                }
                None => i as u16,
            };
            // Each status of a mix: the route's own status is its own response; another, that
            // status with its reason phrase as body, sent as the route's are (its drip).
            let mix = faults.mix.as_ref().map_or(&[][..], |m| &m.entries);
            // The route's own answer as it is dripped: a copy formatted for the drip.
            let dripped = match drip {
                Some(_) => self.copy(i as u16, drip, responses),
                None => i as u16,
            };
            let mix = mix
                .iter()
                .map(|&(status, _)| {
                    if status == spec.status {
                        dripped
                    } else {
                        self.response(
                            status_spec(spec, status, error_body(status)),
                            drip,
                            responses,
                        )
                    }
                })
                .collect();
            let kept = before
                .filter(|(b, changed)| *changed != i && b.routes.get(i) == Some(faults))
                .map(|(b, _)| b)
                .and_then(|b| b.sequences.get(i).cloned().flatten());
            let sequence = match (&faults.sequence, kept) {
                (Some(_), Some(kept)) => Some(kept),
                (Some(s), None) => {
                    let acts = s
                        .steps
                        .iter()
                        .map(|step| self.act(i as u16, spec, *step, responses))
                        .collect();
                    Some(Arc::new(Sequence::new(acts, s.cycle)))
                }
                (None, _) => None,
            };
            set.routes.push(faults.clone());
            set.error_routes.push(error);
            set.mix_routes.push(mix);
            set.sequences.push(sequence);
            set.drip_routes.push(dripped);
        }
        set.drips
            .resize(responses.routes().max(set.drips.len()), None);
        for (_, drip, at) in &self.added {
            set.drips[usize::from(*at)] = *drip;
        }
        for (_, drip, at) in &self.copies {
            set.drips[usize::from(*at)] = *drip;
        }
        for (at, _, drip) in &self.retired {
            set.drips[usize::from(*at)] = *drip;
        }
        set
    }

    /// What step `step` of route `route` (answered by `spec`) sends.
    fn act(&mut self, route: u16, spec: &Spec, step: Step, responses: &mut Responses) -> Act {
        match step {
            Step::Own => Act {
                response: route,
                delivery: Delivery::Whole,
                status: false,
            },
            Step::Status(status) => Act {
                response: self.response(
                    status_spec(spec, status, error_body(status)),
                    None,
                    responses,
                ),
                delivery: Delivery::Whole,
                status: true,
            },
            // A drip goes with the response it paces: its own copy of the route's answer.
            Step::Delivery(Delivery::Drip(d)) => Act {
                response: self.copy(route, Some(d), responses),
                delivery: Delivery::Drip(d),
                status: false,
            },
            Step::Delivery(delivery) => Act {
                response: route,
                delivery,
                status: false,
            },
        }
    }

    /// Forget the responses `set` (the set now built) does not send, as of change `change`:
    /// their bytes are dropped from `responses` now, and their indices retired until every
    /// worker has let go of them ([`FaultResponses::reclaim`]). So a fixture changed all day
    /// holds the responses its faults send now, not every one they ever sent.
    pub fn retire_unused(&mut self, set: &FaultSet, responses: &mut Responses, change: u64) {
        let mut used = vec![false; responses.routes()];
        let mut mark = |i: u16| {
            if let Some(u) = used.get_mut(usize::from(i)) {
                *u = true;
            }
        };
        for &i in set.error_routes.iter().chain(&set.drip_routes) {
            mark(i);
        }
        for &i in set.mix_routes.iter().flat_map(|m| m.iter()) {
            mark(i);
        }
        for s in set.sequences.iter().flatten() {
            s.responses().for_each(&mut mark);
        }
        let retired = &mut self.retired;
        let mut retire = |at: u16, drip: Option<Drip>| {
            if used[usize::from(at)] {
                return true;
            }
            responses.retire(usize::from(at));
            retired.push((at, change, drip));
            false
        };
        self.added.retain(|(_, drip, at)| retire(*at, *drip));
        self.copies.retain(|(_, drip, at)| retire(*at, *drip));
    }

    /// Take back the retired indices that `unused(index, change)` says no worker uses any
    /// more (each worker has taken a change since `change` and holds none of them).
    pub fn reclaim(&mut self, unused: impl Fn(u16, u64) -> bool) {
        let free = &mut self.free;
        self.retired.retain(|&(at, change, _)| {
            let gone = unused(at, change);
            if gone {
                free.push(at);
            }
            !gone
        });
    }

    /// The bytes of the bodies of the responses formatted here that are not inlined in their
    /// heads (those are counted with the heads by `Responses::formatted_bytes`).
    pub fn body_bytes(&self) -> usize {
        self.added
            .iter()
            .map(|(s, _, _)| s.body.len())
            .filter(|&n| n > crate::response::INLINE_BODY)
            .sum()
    }

    /// The index of a copy of route `route`'s own response sent with `drip`: one made before,
    /// or a new one (the same bytes and validators: [`Responses::add_copy`]).
    fn copy(&mut self, route: u16, drip: Option<Drip>, responses: &mut Responses) -> u16 {
        if let Some((_, _, at)) = self
            .copies
            .iter()
            .find(|(r, d, _)| *r == route && *d == drip)
        {
            return *at;
        }
        let at = responses.add_copy_at(usize::from(route), self.free.pop().map(usize::from)) as u16;
        self.copies.push((route, drip, at));
        at
    }

    /// The index of a response of `spec` sent with `drip`: one formatted before, or a new one.
    fn response(&mut self, spec: Spec, drip: Option<Drip>, responses: &mut Responses) -> u16 {
        if let Some((_, _, at)) = self.added.iter().find(|(s, d, _)| *d == drip && *s == spec) {
            return *at;
        }
        let at = responses.add_unrouted_at(&spec, self.free.pop().map(usize::from)) as u16;
        self.added.push((spec, drip, at));
        at
    }
}

/// `spec` with status `status` and body `body`: an error rate's, a mix's or a step's response.
fn status_spec(spec: &Spec, status: u16, body: String) -> Spec {
    Spec {
        status,
        body: Arc::from(body.into_bytes()),
        ..spec.clone()
    }
}
