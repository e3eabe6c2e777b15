//! The faults' tests: the grammar (here), the sampling and the generator (`draws`), the
//! sequences and the formatted sets (`sequences`).

mod draws;
mod sequences;

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
    // One text per rule (`fault_value`'s grammar), which `--control` gives too.
    let latency = "latency takes a duration like latency:100ms, a range like";
    let drip = "drip takes a size or pieces over a time, like drip:1KiB/100ms";
    let cases: &[(&str, &str)] = &[
        ("slow", "\"slow\" is not a fault kind (latency, drip"),
        ("latency", latency),
        ("latency:fast", latency),
        ("latency:50ms..10ms", latency),
        // A number without its unit, wherever a fault takes a duration.
        (
            "latency:100",
            "latency: \"100\" has no unit: write 100ms or 100s",
        ),
        (
            "latency:10..50ms",
            "latency: \"10\" has no unit: write 10ms or 10s",
        ),
        (
            "latency:median=50:p99=500ms",
            "latency: \"50\" has no unit: write 50ms or 50s",
        ),
        (
            "drip:1KiB/100",
            "drip's time: \"100\" has no unit: write 100ms or 100s",
        ),
        (
            "drip:10pieces/2",
            "drip's time: \"2\" has no unit: write 2ms or 2s",
        ),
        ("hang:5:reset", "hang: \"5\" has no unit: write 5ms or 5s"),
        (
            "slow-close:1.5",
            "slow-close: \"1.5\" has no unit: write 1.5ms or 1.5s",
        ),
        (
            "seq:503,hang:2,ok",
            "step \"hang:2\": hang: \"2\" has no unit: write 2ms or 2s",
        ),
        ("latency:2h", latency),
        ("latency:median=50ms", latency),
        ("latency:median=50ms:p99=50ms", latency),
        ("drip:1KiB", drip),
        ("drip:0/100ms", drip),
        ("drip:1pieces/1s", drip),
        ("drip:100pieces/10ms", drip),
        ("drip:1KB/1s", drip),
        ("stall:5s", "stall takes no arguments"),
        ("truncate", "truncate takes a size"),
        ("truncate:101%", "truncate takes a size"),
        ("reset:-1", "reset takes a size"),
        ("garbage:0", "garbage takes a size from 1 to 1MiB"),
        (
            "hang",
            "hang takes a duration, like hang:2s or hang:2s:reset",
        ),
        ("hang:10s:fin", "hang takes a duration"),
        ("hang:soon", "hang takes a duration"),
        (
            "slow-close",
            "slow-close takes a duration, like slow-close:1s",
        ),
        ("slow-close:2h", "slow-close takes a duration"),
        (
            "bandwidth:64KiB",
            "bandwidth takes a rate, like bandwidth:64KiB/s",
        ),
        ("bandwidth:0/s", "bandwidth takes a rate"),
        ("bandwidth:2GiB/s", "bandwidth takes a rate"),
        (
            "status",
            "status takes statuses and their shares, like status:200=70%",
        ),
        ("status:500", "\"500\" is not STATUS=SHARE"),
        (
            "status:500=60%,503=50%",
            "the shares sum to 110%, more than 100%",
        ),
        ("status:500=10%,500=20%", "status 500 is given twice"),
        ("status:99=10%", "status \"99\" is out of range"),
        ("status:500=x", "\"x\" is not a rate"),
        ("garbage:2M", "garbage takes a size from 1 to 1MiB"),
        ("error:0.1", "error takes a status from 200 to 599"),
        (
            "error:1.5:503",
            "error takes a status from 200 to 599, or a rate from 0 to 1",
        ),
        (
            "error:110%:503",
            "error takes a status from 200 to 599, or a rate from 0 to 1",
        ),
        ("error:0.1:99", "error takes a status"),
        ("error:0.1:0503", "error takes a status"),
        ("error:x:503", "error takes a status"),
        ("error:0.0000001:503", "error takes a status"),
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
    let cases: &[(Cut, u64, u64)] = &[
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
