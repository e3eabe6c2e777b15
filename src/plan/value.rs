//! The plan's values: what an answer is ([`Plan`]), where it comes from ([`Source`]), the fault
//! kinds it is recorded with ([`Kinds`]), and what it is decided from ([`Facts`],
//! [`Configured`]).

use crate::control::{Control, Refusal};
use crate::fault::WorkerFaults;
use crate::fault_value::{Delivery, FaultKind};

/// Where an answer's head and body come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Route `0`'s response: the asked route's own, its error response, a status of its mix,
    /// a sequence step's, or the copy a drip sends. Garbage ([`Delivery::Garbage`]) is cut
    /// from the asked route's block instead.
    Route(u16),
    /// The malformed-response catalogue's variant `0` (`--mutate`): sent whole, then the
    /// connection closes.
    Variant(u16),
    /// The answer a request's control chose (`--control`), made by the protocol from it.
    Control,
}

/// The fault kinds an answer is counted, logged and journaled with, in that order: at most a
/// latency, an error or a status swap, and a delivery's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kinds {
    kinds: [FaultKind; 3],
    len: u8,
}

impl Kinds {
    /// None.
    pub const NONE: Kinds = Kinds {
        kinds: [FaultKind::Latency; 3],
        len: 0,
    };

    /// The kinds, in order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[FaultKind] {
        &self.kinds[..usize::from(self.len)]
    }

    /// Whether there are none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The kinds of an answer held by a latency (`latency`), swapped for another status
    /// (`swapped`), and delivered as `delivery` says.
    pub(super) fn of(latency: bool, swapped: Option<FaultKind>, delivery: Delivery) -> Kinds {
        let mut k = Kinds::NONE;
        let latency = latency.then_some(FaultKind::Latency);
        for kind in [latency, swapped, delivery.kind()].into_iter().flatten() {
            k.kinds[usize::from(k.len)] = kind;
            k.len += 1;
        }
        k
    }
}

/// What one request's answer is (see the module documentation). Small and `Copy`: made on
/// the stack per request, never allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The route the request asked for (whose garbage block a garbage delivery sends).
    pub asked: u16,
    /// Where the head and body come from.
    pub source: Source,
    /// The request's `Range` and conditions shape the source's answer (a route with the same
    /// representation as the asked one); otherwise its response is sent whole.
    pub ranged: bool,
    /// The status sent and recorded (the access log, the journal, `--stats`); 0 when nothing
    /// with a status is sent (a stall, a hang, garbage, a malformed variant).
    pub status: u16,
    /// Hold the answer this long (µs): `--delay`, a control's delay, and a latency.
    pub hold_us: u64,
    /// How it is delivered: whole, paced (drip, bandwidth), cut then FIN or RST_STREAM
    /// (truncate), cut then RST (reset), stalled, hung D then FIN or RST, closed slowly, or
    /// garbage instead.
    pub delivery: Delivery,
    /// The connection closes after it, and an HTTP/1 head says so: the request asked to,
    /// `--max-requests` was reached, or the server is draining. A delivery that breaks the
    /// connection (a cut, a reset, a stall, a hang, garbage, a slow close) and a malformed
    /// variant end it their own way whatever this says; an HTTP/2 stream's answer ends its
    /// stream, not the connection.
    pub close: bool,
    /// The fault kinds counted, logged and journaled.
    pub kinds: Kinds,
}

impl Plan {
    /// Whether nothing with a status is sent: a stall, a hang, garbage.
    #[inline(always)]
    pub fn silent(&self) -> bool {
        silent(self.delivery)
    }

    /// Whether something with a status is sent: all but a stall, a hang, garbage and a
    /// malformed variant (whose [`Plan::status`] is 0).
    #[inline(always)]
    pub fn sends_status(&self) -> bool {
        !self.silent() && !matches!(self.source, Source::Variant(_))
    }

    /// The hold alone, answered with `status` (a gRPC call: a client reads no HTTP status,
    /// body or cut frame as anything but a failed call), counted with its latency only.
    pub fn hold_only(self, status: u16) -> Plan {
        let latency = self.kinds.as_slice().first() == Some(&FaultKind::Latency);
        Plan {
            source: Source::Route(self.asked),
            ranged: false,
            status,
            delivery: Delivery::Whole,
            kinds: Kinds::of(latency, None, Delivery::Whole),
            ..self
        }
    }
}

/// Whether `delivery` sends nothing with a status.
#[inline(always)]
pub(super) fn silent(delivery: Delivery) -> bool {
    matches!(
        delivery,
        Delivery::Stall | Delivery::Garbage(_) | Delivery::Hang { .. }
    )
}

/// What the protocols both know of a complete request.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// The route it asked for.
    pub route: u16,
    /// The status of the answer its `Range` and conditions ask for (206, 304, 412, 416); 0
    /// when they ask for the whole response.
    pub ranged_status: u16,
    /// The connection closes after its answer (HTTP/1: `Connection: close` or HTTP/1.0,
    /// `--max-requests`, draining).
    pub close: bool,
    /// The catalogue's HTTP/1 variants may answer it (`--mutate` on the default route):
    /// HTTP/1; HTTP/2 has its own variants.
    pub variants: bool,
}

/// The features that change an answer, as configured for this request.
#[derive(Debug, Default)]
pub struct Configured<'a> {
    /// The worker's faults (`--fault`, `--mutate`), when configured.
    pub faults: Option<&'a mut WorkerFaults>,
    /// `--delay` (µs).
    pub delay_us: u64,
    /// The control the request named (`--control`; `Err`: 400 with the line saying what is
    /// wrong with it).
    pub control: Option<&'a Result<Control, Refusal>>,
}
