//! Sequences (`seq:`, `seq-cycle:`) and the fault sets formatted once.

use super::super::*;

/// `seq:` and `seq-cycle:`: each step `ok` (or `200`), a status, or a delivery fault.
#[test]
fn sequences_parse_step_by_step() {
    let Fault::Sequence(s) = parse_fault_spec("seq:503,503,reset:0,ok").unwrap() else {
        panic!("not a sequence");
    };
    assert_eq!(
        s.steps,
        [
            Step::Status(503),
            Step::Status(503),
            Step::Delivery(Delivery::Reset(Cut::Bytes(0))),
            Step::Own
        ]
    );
    assert!(!s.cycle);
    let Fault::Sequence(s) = parse_fault_spec("seq-cycle:200,drip:1KiB/10ms,stall").unwrap() else {
        panic!("not a sequence");
    };
    assert!(s.cycle);
    assert_eq!(s.steps[0], Step::Own);
    assert_eq!(s.steps[2], Step::Delivery(Delivery::Stall));
    let Fault::Sequence(s) =
        parse_fault_spec("seq:hang:1s,hang:2s:reset,slow-close:3s,bandwidth:1KiB/s,ok").unwrap()
    else {
        panic!("not a sequence");
    };
    assert_eq!(
        s.steps[..4],
        [
            Step::Delivery(Delivery::Hang {
                ms: 1000,
                reset: false
            }),
            Step::Delivery(Delivery::Hang {
                ms: 2000,
                reset: true
            }),
            Step::Delivery(Delivery::SlowClose(3000)),
            Step::Delivery(Delivery::Drip(Drip::Bandwidth { per_s: 1024 })),
        ]
    );
    for (spec, want) in [
        ("seq", "seq takes steps, like seq:503,503,ok"),
        ("seq:503,,ok", "a sequence has an empty step"),
        ("seq:503,", "a sequence has an empty step"),
        ("seq:099", "step \"099\": a status is 200 to 599"),
        (
            "seq:latency:1s",
            "step \"latency:1s\": a step is ok, a status, or one of",
        ),
        (
            "seq:truncate:101%",
            "step \"truncate:101%\": truncate takes a size",
        ),
        ("seq:fine", "step \"fine\": \"fine\" is not a fault kind"),
        (
            "seq:status:500=10%",
            "step \"status:500=10%\": a step is ok, a status, or one of",
        ),
        (
            "seq:hang:1s:fin",
            "step \"hang:1s:fin\": hang takes a duration",
        ),
    ] {
        let e = parse_fault_spec(spec).unwrap_err();
        assert!(e.starts_with(want), "{spec}: {e}");
    }
    let many = format!("seq:{}", vec!["ok"; MAX_STEPS + 1].join(","));
    assert!(
        parse_fault_spec(&many)
            .unwrap_err()
            .contains("at most 1000 steps")
    );
}

/// A sequence goes with a latency, not with a delivery fault, an error rate or a status mix
/// (its steps stand for them), takes no share, and comes once per path.
#[test]
fn a_sequence_stands_for_delivery_and_error() {
    let seq = || parse_fault_spec("seq:503,ok").unwrap();
    let mut r = RouteFaults::default();
    r.add(parse_fault_spec("latency:1s").unwrap()).unwrap();
    r.add(seq()).unwrap();
    assert_eq!(
        r.add(seq()).unwrap_err(),
        "clashes with seq:503,ok: a path takes one sequence"
    );
    for spec in [
        "stall",
        "error:503",
        "status:500=10%",
        "hang:1s",
        "slow-close:1s",
        "bandwidth:1KiB/s",
    ] {
        let e = r.add(parse_fault_spec(spec).unwrap()).unwrap_err();
        assert!(
            e.starts_with("clashes with seq:503,ok: a path with a sequence takes its drips"),
            "{spec}: {e}"
        );
    }
    for (before, shown) in [
        ("reset:0", "reset:0"),
        ("status:500=10%,503=5%", "status:500=0.1,503=0.05"),
        ("hang:1s:reset", "hang:1000ms:reset"),
    ] {
        let mut r = RouteFaults::default();
        r.add(parse_fault_spec(before).unwrap()).unwrap();
        let e = r.add(seq()).unwrap_err();
        let want = format!("clashes with {shown}: a path with a sequence");
        assert!(e.starts_with(&want), "{before}: {e}");
    }
    let e = RouteFaults::default()
        .add_share(seq(), ALWAYS / 2)
        .unwrap_err();
    assert!(e.starts_with("takes no share: a sequence's steps"), "{e}");
    let (_, f, share) = parse_fault("/x=seq:503,ok@50%").unwrap();
    assert!(RouteFaults::default().add_share(f, share).is_err());
}

/// The position is one for every caller: `seq:` stays on its last step, `seq-cycle:` starts
/// again, and a reset goes back to the first.
#[test]
fn a_sequence_steps_once_per_request_then_repeats_or_cycles() {
    let act = |response| Act {
        response,
        delivery: Delivery::Whole,
        status: false,
    };
    let s = Sequence::new(vec![act(1), act(2), act(3)], false);
    let got: Vec<u16> = (0..5).map(|_| s.next().response).collect();
    assert_eq!(got, [1, 2, 3, 3, 3]);
    assert_eq!(s.taken(), 5);
    s.reset();
    assert_eq!(s.next().response, 1);
    let c = Sequence::new(vec![act(1), act(2)], true);
    let got: Vec<u16> = (0..5).map(|_| c.next().response).collect();
    assert_eq!(got, [1, 2, 1, 2, 1]);
}

/// A set formats what its faults send once: an error status, a sequence's status steps, a copy
/// of the route's answer for a drip step; a later set that asks for the same reuses them, and a
/// route whose faults did not change keeps its sequence's position.
#[test]
fn a_set_formats_each_fault_response_once() {
    use crate::response::{Common, Responses, Spec};
    let spec = Spec {
        status: 200,
        body: std::sync::Arc::from(&b"own"[..]),
        content_type: "text/plain".into(),
        headers: Vec::new(),
    };
    let faults = |specs: &[&str]| {
        let mut r = RouteFaults::default();
        for s in specs {
            r.add(parse_fault_spec(s).unwrap()).unwrap();
        }
        r
    };
    let mut responses = Responses::new(
        &[spec.clone(), spec.clone()],
        &[(b"/a".to_vec(), false)],
        &Common {
            server: String::new(),
            date: false,
        },
    );
    let base = responses.routes();
    let mut b = FaultResponses::default();
    let routes = [
        faults(&["seq:503,503,drip:1/1ms,502,ok"]),
        faults(&["error:0.5:503"]),
    ];
    let set = b.build(routes.iter().map(|f| (&spec, f)), &mut responses, None);
    // 503 (shared by the sequence's two steps and the error rate), the drip's copy, 502.
    assert_eq!(responses.routes(), base + 3);
    let seq = set.sequence(0).unwrap();
    let steps: Vec<Act> = (0..5).map(|_| seq.next()).collect();
    assert_eq!(steps[0], steps[1]);
    assert!(steps[0].status && !steps[2].status && steps[4].response == 0);
    assert_eq!(responses.status(usize::from(steps[0].response)), 503);
    assert_eq!(responses.body(usize::from(steps[2].response)), b"own");
    assert_eq!(set.route(1).unwrap().error.as_ref().unwrap().status, 503);
    // Route 1 changes; route 0's sequence keeps its place, and nothing new is formatted.
    let again = [routes[0].clone(), faults(&["error:1:502"])];
    let next = b.build(
        again.iter().map(|f| (&spec, f)),
        &mut responses,
        Some((&set, 1)),
    );
    assert_eq!(responses.routes(), base + 3);
    assert_eq!(next.sequence(0).unwrap().taken(), 5);
    assert_eq!(next.reset_sequences(), 1);
    assert_eq!(seq.taken(), 0, "the same sequence");
}

/// A status mix's statuses are formatted once, like an error rate's: the route's own status is
/// its own response, a status another route's error rate sends is shared with it (when both
/// are sent alike), and a mix on a dripped route sends its statuses with the drip.
#[test]
fn a_set_formats_each_mix_status_once() {
    use crate::response::{Common, Responses, Spec};
    let spec = Spec {
        status: 200,
        body: std::sync::Arc::from(&b"own"[..]),
        content_type: "text/plain".into(),
        headers: Vec::new(),
    };
    let faults = |specs: &[&str]| {
        let mut r = RouteFaults::default();
        for s in specs {
            r.add(parse_fault_spec(s).unwrap()).unwrap();
        }
        r
    };
    let mut responses = Responses::new(
        &[spec.clone(), spec.clone(), spec.clone()],
        &[(b"/a".to_vec(), false), (b"/b".to_vec(), false)],
        &Common {
            server: String::new(),
            date: false,
        },
    );
    let base = responses.routes();
    let routes = [
        faults(&["error:0.5:503"]),
        faults(&["status:200=50%,503=30%,500=10%"]),
        faults(&["status:503=50%", "bandwidth:1KiB/s"]),
    ];
    let set =
        FaultResponses::default().build(routes.iter().map(|f| (&spec, f)), &mut responses, None);
    // 503 (the error rate's and route 1's), 500, 503 again with route 2's drip, and route
    // 2's own answer formatted for its drip.
    assert_eq!(responses.routes(), base + 4);
    let mix = &set.mix_routes[1];
    assert_eq!(mix[0], 1, "the route's own status is its own response");
    assert_eq!(mix[1], set.error_routes[0]);
    assert_eq!(responses.status(usize::from(mix[2])), 500);
    assert_eq!(
        responses.body(usize::from(mix[2])),
        b"500 Internal Server Error\n"
    );
    let paced = usize::from(set.mix_routes[2][0]);
    assert_ne!(paced, usize::from(mix[1]));
    assert_eq!(responses.status(paced), 503);
    assert_eq!(set.drips[paced], Some(Drip::Bandwidth { per_s: 1024 }));
    assert_eq!(set.drips[usize::from(mix[1])], None);
    // A route's own index has no drip (a change would replace it under a parked drip): its
    // dripped answer is a copy of its own, with the drip for ever.
    let dripped = usize::from(set.drip_routes[2]);
    assert_ne!(dripped, 2);
    assert_eq!(responses.body(dripped), b"own");
    assert_eq!(set.drips[dripped], Some(Drip::Bandwidth { per_s: 1024 }));
    assert_eq!(set.drips[2], None);
    assert_eq!(set.drip_routes[1], 1);
}
