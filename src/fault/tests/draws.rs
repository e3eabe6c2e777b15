//! The sampling: latency distributions, the hand-written math, shares and status mixes.

use super::super::*;
use crate::fault_value::math::{cos_turns, exp, ln};

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
        (
            "/a=reset:0@",
            "a share must be a rate from 0 to 1, like @0.1 or @10%",
        ),
        (
            "/a=reset:0@150%",
            "a share must be a rate from 0 to 1, like @0.1 or @10%",
        ),
        (
            "/a=stall@x",
            "a share must be a rate from 0 to 1, like @0.1 or @10%",
        ),
        (
            "/a=error:503@x",
            "a share must be a rate from 0 to 1, like @0.1 or @10%",
        ),
        (
            "/a=error:0.1:503@x",
            "a share must be a rate from 0 to 1, like @0.1 or @10%",
        ),
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
