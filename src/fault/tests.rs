//! The faults' tests: the grammar, the sampling and the generator.

use super::math::{cos_turns, exp, ln};
use super::*;

fn d(kind: Delivery) -> Fault {
    Fault::Delivery(kind)
}

#[test]
fn specs_parse_to_faults() {
    let cases: &[(&str, Fault)] = &[
        ("latency:100ms", Fault::Latency(Latency::Fixed(100))),
        ("latency:2s", Fault::Latency(Latency::Fixed(2000))),
        (
            "latency:10ms..50ms",
            Fault::Latency(Latency::Uniform { min: 10, max: 50 }),
        ),
        (
            "latency:median=50ms:p99=500ms",
            Fault::Latency(Latency::lognormal(50, 500)),
        ),
        (
            "drip:1KiB/100ms",
            d(Delivery::Drip(Drip::Rate {
                bytes: 1024,
                every_ms: 100,
            })),
        ),
        (
            "drip:10/1s",
            d(Delivery::Drip(Drip::Rate {
                bytes: 10,
                every_ms: 1000,
            })),
        ),
        (
            "drip:10pieces/2s",
            d(Delivery::Drip(Drip::Pieces {
                pieces: 10,
                over_ms: 2000,
            })),
        ),
        ("stall", d(Delivery::Stall)),
        ("truncate:100", d(Delivery::Truncate(Cut::Bytes(100)))),
        ("truncate:0", d(Delivery::Truncate(Cut::Bytes(0)))),
        ("truncate:50%", d(Delivery::Truncate(Cut::Percent(50)))),
        ("reset:0", d(Delivery::Reset(Cut::Bytes(0)))),
        ("reset:1K", d(Delivery::Reset(Cut::Bytes(1024)))),
        ("garbage:64", d(Delivery::Garbage(64))),
        (
            "error:0.1:503",
            Fault::Error(ErrorRate {
                per_million: 100_000,
                status: 503,
                body: None,
            }),
        ),
        (
            "error:25%:500:try again",
            Fault::Error(ErrorRate {
                per_million: 250_000,
                status: 500,
                body: Some("try again".into()),
            }),
        ),
        (
            "error:1:429",
            Fault::Error(ErrorRate {
                per_million: 1_000_000,
                status: 429,
                body: None,
            }),
        ),
        (
            "error:.000001:503",
            Fault::Error(ErrorRate {
                per_million: 1,
                status: 503,
                body: None,
            }),
        ),
    ];
    for (spec, want) in cases {
        assert_eq!(parse_fault_spec(spec).as_ref(), Ok(want), "{spec}");
    }
    let more: &[(&str, Fault)] = &[
        (
            "hang:10s",
            d(Delivery::Hang {
                ms: 10_000,
                reset: false,
            }),
        ),
        (
            "hang:250ms:reset",
            d(Delivery::Hang {
                ms: 250,
                reset: true,
            }),
        ),
        ("slow-close:2s", d(Delivery::SlowClose(2000))),
        (
            "bandwidth:64KiB/s",
            d(Delivery::Drip(Drip::Bandwidth { per_s: 65536 })),
        ),
        (
            "bandwidth:1000/s",
            d(Delivery::Drip(Drip::Bandwidth { per_s: 1000 })),
        ),
        (
            "status:200=70%,500=20%,503=0.1",
            Fault::Status(StatusMix {
                entries: vec![(200, 700_000), (500, 200_000), (503, 100_000)],
            }),
        ),
        (
            "status:503=5%",
            Fault::Status(StatusMix {
                entries: vec![(503, 50_000)],
            }),
        ),
    ];
    for (spec, want) in more {
        assert_eq!(parse_fault_spec(spec).as_ref(), Ok(want), "{spec}");
    }
}

#[test]
fn bad_specs_say_what_is_wrong() {
    let cases: &[(&str, &str)] = &[
        ("slow", "\"slow\" is not a fault kind (latency, drip"),
        ("latency", "latency needs a delay, like latency:100ms"),
        ("latency:fast", "\"fast\" is not a positive duration"),
        ("latency:50ms..10ms", "50ms..10ms: the range is empty"),
        // A number without its unit, wherever a fault takes a duration.
        ("latency:100", "\"100\" has no unit: write 100ms or 100s"),
        ("latency:10..50ms", "\"10\" has no unit: write 10ms or 10s"),
        (
            "latency:median=50:p99=500ms",
            "\"50\" has no unit: write 50ms or 50s",
        ),
        ("drip:1KiB/100", "\"100\" has no unit: write 100ms or 100s"),
        ("drip:10pieces/2", "\"2\" has no unit: write 2ms or 2s"),
        ("hang:5:reset", "\"5\" has no unit: write 5ms or 5s"),
        ("slow-close:1.5", "\"1.5\" has no unit: write 1.5ms or 1.5s"),
        (
            "seq:503,hang:2,ok",
            "step \"hang:2\": \"2\" has no unit: write 2ms or 2s",
        ),
        ("latency:2h", "\"2h\" is too long (at most 1h)"),
        (
            "latency:median=50ms",
            "\"median=50ms\" is not a lognormal latency",
        ),
        (
            "latency:median=50ms:p99=50ms",
            "p99 50ms must be longer than median 50ms",
        ),
        ("drip:1KiB", "\"1KiB\" is not a drip like 1KiB/100ms"),
        ("drip:0/100ms", "0 per piece is out of range"),
        ("drip:1pieces/1s", "1 pieces is out of range (2 to 100000)"),
        (
            "drip:100pieces/10ms",
            "100 pieces over 10ms is less than 1ms",
        ),
        ("drip:1KB/1s", "\"1KB\" is not a size like 512, 64K or 1MiB"),
        ("stall:5s", "stall takes no arguments"),
        ("truncate", "truncate needs a length, like truncate:50%"),
        ("truncate:101%", "101% is not a percentage from 0% to 100%"),
        ("reset:-1", "\"-1\" is not a size"),
        ("garbage:0", "garbage 0 is out of range (1 to 1MiB)"),
        ("hang", "hang needs a time, like hang:10s"),
        ("hang:10s:fin", "\"fin\" is not what follows a hang"),
        ("hang:soon", "\"soon\" is not a positive duration"),
        ("slow-close", "slow-close needs a time, like slow-close:10s"),
        ("slow-close:2h", "\"2h\" is too long (at most 1h)"),
        ("bandwidth:64KiB", "\"64KiB\" is not a rate like 64KiB/s"),
        ("bandwidth:0/s", "0/s is out of range (1/s to 1GiB/s)"),
        ("bandwidth:2GiB/s", "2GiB/s is out of range"),
        (
            "status",
            "status needs statuses and shares, like status:200=70%",
        ),
        ("status:500", "\"500\" is not STATUS=SHARE"),
        (
            "status:500=60%,503=50%",
            "the shares sum to 110%, more than 100%",
        ),
        ("status:500=10%,500=20%", "status 500 is given twice"),
        ("status:99=10%", "status \"99\" is out of range"),
        ("status:500=x", "\"x\" is not a rate"),
        ("garbage:2M", "garbage 2M is out of range (1 to 1MiB)"),
        ("error:0.1", "\"0.1\" is not [RATE:]STATUS[:BODY]"),
        ("error:1.5:503", "\"1.5\" is not a rate from 0 to 1"),
        ("error:0.1:99", "status \"99\" is out of range (200 to 599)"),
        ("error:0.1:0503", "status \"0503\" is out of range"),
        ("error:x:503", "\"x\" is not a rate"),
        ("error:0.0000001:503", "\"0.0000001\" is not a rate"),
    ];
    for (spec, want) in cases {
        let e = parse_fault_spec(spec).unwrap_err();
        assert!(e.starts_with(want), "{spec}: {e}");
    }
    assert!(parse_fault("/x").unwrap_err().contains("not PATH=KIND"));
}

#[test]
fn one_fault_per_group_per_route() {
    let mut r = RouteFaults::default();
    assert!(r.is_none());
    r.add(parse_fault_spec("latency:1s").unwrap()).unwrap();
    r.add(parse_fault_spec("truncate:10").unwrap()).unwrap();
    r.add(parse_fault_spec("error:0.5:503").unwrap()).unwrap();
    assert!(!r.is_none());
    for (spec, want) in [
        (
            "latency:2s",
            "clashes with latency:1000ms: a path takes one latency",
        ),
        (
            "stall",
            "clashes with truncate:10: a path takes one drip, stall, truncate, reset, garbage, \
             hang, slow-close or bandwidth",
        ),
        (
            "error:1:500",
            "clashes with error:0.5:503: a path takes one error rate or status mix",
        ),
        ("status:500=1%", "clashes with error:0.5:503"),
        ("hang:1s", "clashes with truncate:10"),
        ("bandwidth:1KiB/s", "clashes with truncate:10"),
    ] {
        let e = r.add(parse_fault_spec(spec).unwrap()).unwrap_err();
        assert!(e.starts_with(want), "{spec}: {e}");
    }
}

#[test]
fn cuts_and_drip_steps() {
    let cases: &[(Cut, usize, usize)] = &[
        (Cut::Bytes(10), 100, 10),
        (Cut::Bytes(1000), 100, 100),
        (Cut::Bytes(0), 100, 0),
        (Cut::Percent(50), 101, 50),
        (Cut::Percent(100), 101, 101),
        (Cut::Percent(0), 101, 0),
    ];
    for &(c, total, want) in cases {
        assert_eq!(c.keep(total), want, "{c:?} of {total}");
    }
    // (drip, response length, [(piece end, due µs)] for pieces 0, 1, 2 and the last; the
    // time to the microsecond, rounded up).
    type Steps = (Drip, usize, [(usize, u64); 4], u32);
    let steps: &[Steps] = &[
        (
            Drip::Rate {
                bytes: 1024,
                every_ms: 100,
            },
            2500,
            [(1024, 0), (2048, 100_000), (2500, 200_000), (2500, 200_000)],
            2,
        ),
        (
            Drip::Pieces {
                pieces: 4,
                over_ms: 600,
            },
            100,
            [(25, 0), (50, 200_000), (75, 400_000), (100, 600_000)],
            3,
        ),
        (
            Drip::Pieces {
                pieces: 7,
                over_ms: 1000,
            },
            10,
            [(1, 0), (2, 166_667), (4, 333_334), (10, 1_000_000)],
            6,
        ),
        (
            Drip::Pieces {
                pieces: 4,
                over_ms: 300,
            },
            2,
            [(0, 0), (1, 100_000), (1, 200_000), (2, 300_000)],
            3,
        ),
        // go-httpbin's `/drip`: a 60-byte head with the first of 4 bytes, then a byte every
        // 100 ms (the last 300 ms after the first).
        (
            Drip::Body {
                head: 60,
                pieces: 4,
                over_us: 300_000,
            },
            64,
            [(61, 0), (62, 100_000), (63, 200_000), (64, 300_000)],
            3,
        ),
        // 10 bytes over 1 ms: the pause rounded up to the microsecond, never early.
        (
            Drip::Body {
                head: 5,
                pieces: 10,
                over_us: 1_000,
            },
            15,
            [(6, 0), (7, 112), (8, 223), (15, 1_000)],
            9,
        ),
        // 1 MiB/s: pieces of 64 KiB (a tenth of a second's would be more), each due when the
        // rate has paid for its end; the last, short, at the length over the rate.
        (
            Drip::Bandwidth { per_s: 1 << 20 },
            (4 << 20) + 100,
            [
                (65536, 62_500),
                (131_072, 125_000),
                (196_608, 187_500),
                ((4 << 20) + 100, 4_000_096),
            ],
            64,
        ),
        // 1 KiB/s: 102-byte pieces, a tenth of a second's.
        (
            Drip::Bandwidth { per_s: 1024 },
            250,
            [
                (102, 99_610),
                (204, 199_219),
                (250, 244_141),
                (250, 244_141),
            ],
            2,
        ),
        // 5 B/s: 1-byte pieces.
        (
            Drip::Bandwidth { per_s: 5 },
            3,
            [(1, 200_000), (2, 400_000), (3, 600_000), (3, 600_000)],
            2,
        ),
    ];
    for &(drip, total, want, last) in steps {
        let got: Vec<(usize, u64)> = [0, 1, 2, last]
            .iter()
            .map(|&i| (drip.piece_end(i, total), drip.piece_at_us(i, total)))
            .collect();
        assert_eq!(got, want, "{drip:?} of {total}");
    }
}

/// The q-quantile of `n` samples.
fn quantiles(l: Latency, seed: u64, n: usize) -> Vec<u64> {
    let mut rng = Rng::new(seed, 0);
    let mut v: Vec<u64> = (0..n).map(|_| l.sample_ms(&mut rng)).collect();
    v.sort_unstable();
    v
}

/// Median and p99 of 10,000 draws with a fixed seed, within tolerances set by the
/// sampling error (about 2.5% at the median and 8% at p99 for sigma near 1; the bounds
/// allow twice that). Deterministic: the seed fixes every draw.
#[test]
fn lognormal_median_and_p99() {
    let cases: &[(u64, u64)] = &[(50, 500), (100, 150), (10, 1000), (200, 201)];
    for &(median, p99) in cases {
        for seed in [0, 1, 42] {
            let v = quantiles(Latency::lognormal(median, p99), seed, 10_000);
            let (m, p) = (v[5_000] as f64, v[9_900] as f64);
            let near = |got: f64, want: u64, tol: f64| {
                (got - want as f64).abs() <= tol * want as f64 + 1.0
            };
            assert!(
                near(m, median, 0.05),
                "median {m} for {median}/{p99} seed {seed}"
            );
            assert!(near(p, p99, 0.16), "p99 {p} for {median}/{p99} seed {seed}");
        }
    }
}

/// The hand-written ln, exp and cos against std's, over the ranges sampling uses.
#[test]
fn math_matches_std() {
    let close = |got: f64, want: f64, what: &str| {
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{what}: got {got}, want {want}"
        );
    };
    for x in [
        2f64.powi(-54),
        1e-9,
        0.3,
        0.5,
        0.707,
        0.708,
        1.0,
        1.5,
        2.0,
        10.0,
        3.6e6,
        1e300,
    ] {
        close(ln(x), x.ln(), &format!("ln {x}"));
    }
    for x in [
        -745.0, -700.0, -20.0, -1.0, -0.35, 0.0, 0.34, 0.35, 1.0, 5.0, 15.1, 700.0,
    ] {
        close(exp(x), x.clamp(-700.0, 700.0).exp(), &format!("exp {x}"));
    }
    for i in 0..=64 {
        let u = f64::from(i) / 64.0;
        close(
            cos_turns(u),
            (std::f64::consts::TAU * u).cos(),
            &format!("cos {u}"),
        );
    }
}

#[test]
fn uniform_covers_its_range_and_no_more() {
    let v = quantiles(Latency::Uniform { min: 10, max: 50 }, 7, 10_000);
    assert_eq!((v[0], v[9_999]), (10, 50));
    let mut counts = [0u32; 41];
    for x in &v {
        counts[(*x - 10) as usize] += 1;
    }
    // Each of 41 values expects 244; a fair generator stays well within half of it.
    assert!(
        counts.iter().all(|&c| (122..=366).contains(&c)),
        "{counts:?}"
    );
    assert_eq!(quantiles(Latency::Fixed(7), 0, 10), vec![7; 10]);
}

#[test]
fn error_share_follows_the_rate_and_the_seed() {
    let r = RouteFaults {
        error: Some(ErrorRate {
            per_million: 100_000,
            status: 503,
            body: None,
        }),
        ..RouteFaults::default()
    };
    let draw = |seed| {
        let mut rng = Rng::new(seed, 0);
        (0..10_000).filter(|_| r.plan(&mut rng).error).count()
    };
    let n = draw(3);
    // Binomial(10000, 0.1): sd 30; the bound is 5 sd.
    assert!((850..=1150).contains(&n), "{n}");
    assert_eq!(draw(3), n, "the same seed draws the same errors");
    assert_ne!(draw(4), n);
}

#[test]
fn streams_differ_and_repeat() {
    let take = |seed, stream| {
        let mut r = Rng::new(seed, stream);
        [r.next_u64(), r.next_u64(), r.next_u64()]
    };
    assert_eq!(take(0, 0), take(0, 0));
    assert_ne!(take(0, 0), take(0, 1));
    assert_ne!(take(0, 0), take(1, 0));
    let mut r = Rng::new(9, 0);
    assert!((0..1000).all(|_| r.below(7) < 7));
}

#[test]
fn a_share_parses_on_every_kind() {
    for (v, want_spec, want_share) in [
        ("/a=reset:0@10%", "reset:0", 100_000),
        ("/a=latency:1s@0.25", "latency:1s", 250_000),
        ("/a=stall@1%", "stall", 10_000),
        ("/a=error:503@50%", "error:503", 500_000),
        ("/a=error:1:500:a@b@0.5", "error:1:500:a@b", 500_000),
        ("/a=truncate:12", "truncate:12", ALWAYS),
        // An `@` with no share after it is an error body's own.
        (
            "/a=error:503:mail admin@example.com",
            "error:503:mail admin@example.com",
            ALWAYS,
        ),
        ("/a=error:0.1:503:a@b", "error:0.1:503:a@b", ALWAYS),
    ] {
        let (path, f, share) = parse_fault(v).unwrap();
        assert_eq!(path, "/a");
        assert_eq!(f, parse_fault_spec(want_spec).unwrap(), "{v}");
        assert_eq!(share, want_share, "{v}");
    }
    for (v, want) in [
        ("/a=reset:0@", "share \"\" is not a rate"),
        ("/a=reset:0@150%", "share \"150%\" is not a rate"),
        ("/a=stall@x", "share \"x\" is not a rate"),
        ("/a=error:503@x", "share \"x\" is not a rate"),
        ("/a=error:0.1:503@x", "share \"x\" is not a rate"),
    ] {
        let e = parse_fault(v).unwrap_err();
        assert!(e.starts_with(want), "{v}: {e}");
    }
    // Without a rate, an error answers every response; a share multiplies a rate.
    let mut r = RouteFaults::default();
    r.add_share(parse_fault_spec("error:0.5:503").unwrap(), 500_000)
        .unwrap();
    assert_eq!(r.error.as_ref().map(|e| e.per_million), Some(250_000));
    assert_eq!(
        parse_fault_spec("error:429:slow down"),
        Ok(Fault::Error(ErrorRate {
            per_million: ALWAYS,
            status: 429,
            body: Some("slow down".into()),
        }))
    );
}

#[test]
fn a_share_draws_only_when_it_is_less_than_every_response() {
    let mut shared = RouteFaults::default();
    shared
        .add_share(parse_fault_spec("reset:0").unwrap(), 200_000)
        .unwrap();
    shared
        .add_share(parse_fault_spec("latency:5ms").unwrap(), 500_000)
        .unwrap();
    let draw = |seed| {
        let mut rng = Rng::new(seed, 0);
        (0..10_000)
            .map(|_| shared.plan(&mut rng))
            .map(|p| (p.delivery != Delivery::Whole, p.delay_us > 0))
            .collect::<Vec<_>>()
    };
    let got = draw(3);
    let resets = got.iter().filter(|p| p.0).count();
    let delayed = got.iter().filter(|p| p.1).count();
    // Binomial(10000, 0.2): sd 40; (10000, 0.5): sd 50; the bounds are 5 sd.
    assert!((1800..=2200).contains(&resets), "{resets}");
    assert!((4750..=5250).contains(&delayed), "{delayed}");
    assert_eq!(draw(3), got, "the same seed draws the same plans");
    // A fault on every response draws nothing: the generator is left as it was.
    let mut always = RouteFaults::default();
    always.add(parse_fault_spec("reset:0").unwrap()).unwrap();
    let mut rng = Rng::new(3, 0);
    let _ = always.plan(&mut rng);
    assert_eq!(rng.next_u64(), Rng::new(3, 0).next_u64());
}

/// A status mix draws once per response, in the error rate's place: its shares are walked in
/// order, the rest is the route's own response, and a share after `@` scales every entry.
#[test]
fn a_status_mix_draws_its_shares() {
    let mut r = RouteFaults::default();
    let (_, f, share) = parse_fault("/m=status:500=20%,503=10%@50%").unwrap();
    r.add_share(f, share).unwrap();
    assert_eq!(
        r.mix.as_ref().unwrap().entries,
        [(500, 100_000), (503, 50_000)]
    );
    let mut rng = Rng::new(1, 0);
    let mut counts = [0u32; 3];
    let n = 100_000;
    for _ in 0..n {
        counts[usize::from(r.plan(&mut rng).mix)] += 1;
    }
    // Binomial(100000, p): within 4 sd (about 400 and 290).
    let near = |got: u32, p: f64| {
        let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
        (got as f64 - mean).abs() <= 4.0 * sd
    };
    assert!(near(counts[1], 0.10), "{counts:?}");
    assert!(near(counts[2], 0.05), "{counts:?}");
    assert!(near(counts[0], 0.85), "{counts:?}");
    // The same seed, the same draws; one draw each, as an error rate's.
    let (mut a, mut b) = (Rng::new(9, 0), Rng::new(9, 0));
    let mut e = RouteFaults::default();
    e.add(parse_fault_spec("error:0.15:500").unwrap()).unwrap();
    for _ in 0..100 {
        r.plan(&mut a);
        e.plan(&mut b);
    }
    assert_eq!(a.next_u64(), b.next_u64());
    // At most 16 statuses.
    let many = |n: u16| {
        let v: Vec<String> = (0..n).map(|i| format!("{}=1%", 500 + i)).collect();
        parse_fault_spec(&format!("status:{}", v.join(",")))
    };
    assert!(many(16).is_ok());
    assert_eq!(many(17).unwrap_err(), "17 statuses, more than 16");
}

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
        ("seq", "seq needs steps, like seq:503,503,ok"),
        ("seq:503,,ok", "a sequence has an empty step"),
        ("seq:503,", "a sequence has an empty step"),
        ("seq:099", "step \"099\": a status is 200 to 599"),
        (
            "seq:latency:1s",
            "step \"latency:1s\": a step is ok, a status, or one of",
        ),
        (
            "seq:truncate:101%",
            "step \"truncate:101%\": 101% is not a percentage",
        ),
        ("seq:fine", "step \"fine\": \"fine\" is not a fault kind"),
        (
            "seq:status:500=10%",
            "step \"status:500=10%\": a step is ok, a status, or one of",
        ),
        (
            "seq:hang:1s:fin",
            "step \"hang:1s:fin\": \"fin\" is not what follows",
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

/// What the admin API lists is what `--fault` takes back: every kind, rendered and parsed.
#[test]
fn faults_render_back_to_their_grammar() {
    for specs in [
        &[
            "latency:100ms",
            "truncate:50%@0.25",
            "error:0.1:503:try again",
        ][..],
        &["latency:10ms..50ms@0.5", "drip:1024/100ms"],
        &[
            "latency:median=50ms:p99=500ms",
            "drip:10pieces/2000ms",
            "error:0.000001:500",
        ],
        &["stall@0.01"],
        &["reset:0"],
        &["garbage:64", "error:1:502"],
        &["seq:503,503,reset:0,truncate:10%,garbage:8,drip:3/1ms,stall,ok"],
        &["latency:5ms", "seq-cycle:502,ok"],
        &["hang:200ms"],
        &["latency:1ms", "hang:1500ms:reset@0.5"],
        &["slow-close:2000ms", "error:0.2:503"],
        &["bandwidth:65536/s@0.75", "status:200=0.7,500=0.2,503=0.1"],
        &["status:500=0.025"],
        &["seq-cycle:hang:10ms,hang:20ms:reset,slow-close:30ms,bandwidth:1024/s,503,ok"],
    ] {
        let mut r = RouteFaults::default();
        for s in specs {
            let (spec, share) = split_share(s).unwrap();
            r.add_share(parse_fault_spec(spec).unwrap(), share).unwrap();
        }
        assert_eq!(r.specs(), *specs);
    }
    assert!(RouteFaults::default().specs().is_empty());
}
