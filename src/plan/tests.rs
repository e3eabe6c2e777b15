use super::value::{Kinds, Plan, Source};
use crate::fault_value::Cut;
use crate::fault_value::{Delivery, FaultKind};

#[test]
fn kinds_are_latency_then_swap_then_delivery() {
    let k = Kinds::of(true, Some(FaultKind::Error), Delivery::Stall);
    assert_eq!(
        k.as_slice(),
        [FaultKind::Latency, FaultKind::Error, FaultKind::Stall]
    );
    let k = Kinds::of(false, None, Delivery::Truncate(Cut::Bytes(3)));
    assert_eq!(k.as_slice(), [FaultKind::Truncate]);
    assert!(Kinds::of(false, None, Delivery::Whole).is_empty());
}

#[test]
fn a_held_grpc_call_keeps_its_latency_alone() {
    let p = Plan {
        asked: 2,
        source: Source::Route(5),
        ranged: true,
        status: 0,
        hold_us: 7_000,
        delivery: Delivery::Stall,
        close: true,
        kinds: Kinds::of(true, Some(FaultKind::Status), Delivery::Stall),
    };
    let h = p.hold_only(200);
    assert_eq!(h.kinds.as_slice(), [FaultKind::Latency]);
    assert_eq!(
        (h.status, h.hold_us, h.source),
        (200, 7_000, Source::Route(2))
    );
    assert!(!h.silent());
    assert!(p.silent());
}
