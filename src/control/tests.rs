//! The control grammar as a table: the head, what it asks for (or the error text's start).

use super::*;
use crate::fault_value::{Cut, Delivery, Drip};

fn head(target: &str, field: Option<&str>) -> Vec<u8> {
    let mut h = format!("GET {target} HTTP/1.1\r\nHost: x\r\n");
    if let Some(f) = field {
        h.push_str(&format!("X-Canned-Control: {f}\r\n"));
    }
    h.push_str("\r\n");
    h.into_bytes()
}

/// A case: the target, the control field, what it asks for (or the error text's start).
type Case<'a> = (&'a str, Option<&'a str>, Result<Option<Control>, &'a str>);

#[test]
fn table() {
    let c = |status, delay_ms, bytes, delivery| {
        Ok(Some(Control {
            status,
            delay_ms,
            bytes,
            stars: false,
            delivery,
            latency: false,
            latency_ms: 0,
            error: None,
            location: None,
        }))
    };
    let cases: &[Case] = &[
        ("/", None, Ok(None)),
        ("/?x=1&y", None, Ok(None)),
        ("/?status=503", None, c(Some(503), 0, None, None)),
        ("/a?x=1&delay=250ms", None, c(None, 250, None, None)),
        (
            "/?bytes=1MiB&status=201",
            None,
            c(Some(201), 0, Some(1 << 20), None),
        ),
        ("/?bytes=0", None, c(None, 0, Some(0), None)),
        ("/?delay=0", None, c(None, 0, None, None)),
        (
            "/?fault=stall",
            None,
            c(None, 0, None, Some(Delivery::Stall)),
        ),
        (
            "/?fault=reset:100",
            None,
            c(None, 0, None, Some(Delivery::Reset(Cut::Bytes(100)))),
        ),
        (
            "/?fault=truncate:50%25",
            None,
            c(None, 0, None, Some(Delivery::Truncate(Cut::Percent(50)))),
        ),
        (
            "/?fault=reset%3A1K",
            None,
            c(None, 0, None, Some(Delivery::Reset(Cut::Bytes(1024)))),
        ),
        (
            "/",
            Some("status=503;delay=1s"),
            c(Some(503), 1000, None, None),
        ),
        (
            "/",
            Some(" status=404 ; bytes=10 "),
            c(Some(404), 0, Some(10), None),
        ),
        ("/", Some(""), c(None, 0, None, None)),
        (
            "/?status=500",
            Some("status=502"),
            c(Some(502), 0, None, None),
        ),
        ("/?status=99", None, Err("control: status")),
        ("/?status=0200", None, Err("control: status")),
        ("/?status=600", None, Err("control: status")),
        ("/?delay=2h", None, Err("control: delay")),
        ("/?delay=1hour", None, Err("control: delay")),
        ("/?delay=1h", None, c(None, 3_600_000, None, None)),
        // A number without its unit is refused, with both its readings; 0 reads the same.
        (
            "/?delay=500",
            None,
            Err("control: delay: \"500\" has no unit: write 500ms or 500s"),
        ),
        (
            "/",
            Some("delay=1.5"),
            Err("control: delay: \"1.5\" has no unit: write 1.5ms or 1.5s"),
        ),
        ("/?delay=500ms", None, c(None, 500, None, None)),
        ("/", Some("delay=2s"), c(None, 2_000, None, None)),
        (
            "/?fault=latency:100",
            None,
            Err("control: fault: latency: \"100\" has no unit: write 100ms or 100s"),
        ),
        (
            "/",
            Some("fault=hang:2:reset"),
            Err("control: fault: hang: \"2\" has no unit: write 2ms or 2s"),
        ),
        (
            "/?fault=slow-close:1",
            None,
            Err("control: fault: slow-close: \"1\" has no unit: write 1ms or 1s"),
        ),
        (
            "/?fault=drip:1KiB/100",
            None,
            Err("control: fault: drip's time: \"100\" has no unit: write 100ms or 100s"),
        ),
        ("/?bytes=2GiB", None, Err("control: bytes is over")),
        ("/?bytes=1GiB", None, c(None, 0, Some(1 << 30), None)),
        ("/?bytes=lots", None, Err("control: bytes must")),
        (
            "/?fault=drip:1KiB/100ms",
            None,
            c(
                None,
                0,
                None,
                Some(Delivery::Drip(Drip::Rate {
                    bytes: 1024,
                    every_ms: 100,
                })),
            ),
        ),
        (
            "/",
            Some("fault=drip:10pieces/2s"),
            c(
                None,
                0,
                None,
                Some(Delivery::Drip(Drip::Pieces {
                    pieces: 10,
                    over_ms: 2000,
                })),
            ),
        ),
        (
            "/?fault=drip:2piece/1ms",
            None,
            c(
                None,
                0,
                None,
                Some(Delivery::Drip(Drip::Pieces {
                    pieces: 2,
                    over_ms: 1,
                })),
            ),
        ),
        (
            "/?fault=garbage:256",
            None,
            c(None, 0, None, Some(Delivery::Garbage(256))),
        ),
        (
            "/?fault=garbage:1MiB",
            None,
            c(None, 0, None, Some(Delivery::Garbage(1 << 20))),
        ),
        ("/?fault=drip", None, Err("control: fault: drip takes")),
        ("/?fault=drip:1KiB", None, Err("control: fault: drip")),
        ("/?fault=drip:0/1s", None, Err("control: fault: drip")),
        ("/?fault=drip:2MiB/1s", None, Err("control: fault: drip")),
        ("/?fault=drip:1K/0", None, Err("control: fault: drip")),
        ("/?fault=drip:1K/2h", None, Err("control: fault: drip")),
        ("/?fault=drip:1pieces/1s", None, Err("control: fault: drip")),
        (
            "/?fault=drip:100001pieces/1h",
            None,
            Err("control: fault: drip"),
        ),
        (
            "/?fault=drip:11pieces/9ms",
            None,
            Err("control: fault: drip"),
        ),
        ("/?fault=garbage:0", None, Err("control: fault: garbage")),
        (
            "/?fault=garbage:1025K",
            None,
            Err("control: fault: garbage"),
        ),
        (
            "/?fault=garbage",
            None,
            Err("control: fault: garbage takes"),
        ),
        ("/?fault=error", None, Err("control: fault: error takes")),
        ("/?fault=error:99", None, Err("control: fault: error")),
        ("/?fault=error:0.1", None, Err("control: fault: error")),
        ("/?fault=error:2:503", None, Err("control: fault: error")),
        ("/?fault=stall@150%25", None, Err("control: fault: a share")),
        ("/?fault=stall@x", None, Err("control: fault: a share")),
        (
            "/?fault=explode",
            None,
            Err("control: fault: \"explode\" is not a fault kind"),
        ),
        (
            "/?fault=truncate:101%25",
            None,
            Err("control: fault: truncate takes"),
        ),
        ("/?delay=%zz", None, Err("control: a value")),
        ("/", Some("colour=red"), Err("control: unknown")),
    ];
    for (target, field, want) in cases {
        let got = from_head(&head(target, *field), false, 0).map_err(|r| r.to_string());
        match (want, got) {
            (Err(w), Err(g)) => assert!(g.starts_with(w), "{target} {field:?}: {g}"),
            (w, g) => assert_eq!(w.map_err(String::from), g, "{target} {field:?}"),
        }
    }
    // A delay and a latency add up in either order; each takes the last of its values.
    for target in [
        "/?delay=10ms&fault=latency:5ms",
        "/?fault=latency:5ms&delay=10ms",
        "/?fault=latency:1h&delay=1s&fault=latency:5ms&delay=10ms",
    ] {
        let c = from_head(&head(target, None), false, 0).unwrap().unwrap();
        assert_eq!(
            (c.delay_ms, c.latency_ms, c.latency),
            (10, 5, true),
            "{target}"
        );
    }
    let c = from_head(&head("/?fault=latency:1s&delay=0", None), false, 0)
        .unwrap()
        .unwrap();
    assert_eq!((c.delay_ms, c.latency_ms), (0, 1_000));
}

#[test]
fn error_answers() {
    let error = |target: &str, field: Option<&str>| {
        let c = from_head(&head(target, field), false, 0).unwrap().unwrap();
        c.error.map(|e| {
            (
                e.status,
                e.body().map(|b| String::from_utf8_lossy(b).into_owned()),
            )
        })
    };
    let some = |status, body: Option<&str>| Some((status, body.map(String::from)));
    assert_eq!(error("/?fault=error:503", None), some(503, None));
    assert_eq!(
        error("/?fault=error:503:try+again", None),
        some(503, Some("try again"))
    );
    assert_eq!(
        error("/?fault=error:500:a%3Ab@c", None),
        some(500, Some("a:b@c"))
    );
    assert_eq!(
        error("/", Some("fault=error:1:429:slow down")),
        some(429, Some("slow down"))
    );
    assert_eq!(error("/?fault=error:100%25:502", None), some(502, None));
    assert_eq!(error("/?fault=error:0:502", None), None);
    assert_eq!(error("/?fault=error:503@0", None), None);
    assert_eq!(
        error("/?fault=error:503:mail+admin@example.com", None),
        some(503, Some("mail admin@example.com"))
    );
    // The status and the error are kept apart: the answer takes the error's.
    let c = from_head(&head("/?status=201&fault=error:503", None), false, 0)
        .unwrap()
        .unwrap();
    assert_eq!(
        (c.status, c.error.map(|e| e.status)),
        (Some(201), Some(503))
    );
}

/// A share applies its fault to that share of the requests (each drawn from the request's
/// draw), the others named and left alone; a share of 1 (or none) draws nothing, so every
/// request gets it.
#[test]
fn shares_apply_to_their_share() {
    let count = |target: &str, picked: fn(&Control) -> bool| {
        (0..10_000u64)
            .filter(|&draw| {
                let c = from_head(&head(target, None), false, draw.wrapping_mul(0x1234_5677))
                    .unwrap()
                    .unwrap();
                picked(&c)
            })
            .count()
    };
    let error = |c: &Control| c.error.is_some();
    let delivery = |c: &Control| c.delivery.is_some();
    let latency = |c: &Control| c.latency && c.latency_ms == 1_000;
    // Within four standard deviations (50 for 2,500 of 10,000; 46 for 3,000 of 10,000).
    for (target, picked, want) in [
        (
            "/?fault=error:503@25%25",
            error as fn(&Control) -> bool,
            2_500,
        ),
        ("/?fault=error:0.5:503@0.5", error, 2_500),
        ("/?fault=reset:0@0.3", delivery, 3_000),
        ("/?fault=drip:1K/1s@30%25", delivery, 3_000),
        ("/?fault=latency:1s@0.25", latency, 2_500),
    ] {
        let n = count(target, picked);
        assert!(
            n.abs_diff(want) <= 200,
            "{target}: {n} of 10000, not about {want}"
        );
    }
    for (target, picked) in [
        ("/?fault=error:503@1", error as fn(&Control) -> bool),
        ("/?fault=garbage:1@100%25", delivery),
    ] {
        assert_eq!(count(target, picked), 10_000, "{target}");
    }
    assert_eq!(count("/?fault=stall@0", delivery), 0);
    // A fault of the same group given later replaces the earlier one, share and all.
    let c = from_head(&head("/?fault=stall&fault=reset:5@0", None), false, 0)
        .unwrap()
        .unwrap();
    assert_eq!(c.delivery, None);
}

#[test]
fn errors_are_one_line() {
    for target in [
        "/?status=1",
        "/?delay=x",
        "/?delay=500",
        "/?fault=latency:5",
        "/?bytes=x",
        "/?fault=x",
        "/?fault=drip",
        "/?fault=drip:x",
        "/?fault=garbage:x",
        "/?fault=error:x",
        "/?fault=reset:1@x",
    ] {
        let e = from_head(&head(target, None), false, 0)
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n') && e.starts_with("control: "), "{e}");
    }
}

#[test]
fn httpbin_paths() {
    let get = |target: &str, draw| from_head(&head(target, None), true, draw);
    let status = |target: &str, draw| get(target, draw).unwrap().unwrap().status;
    assert_eq!(status("/status/503", 0), Some(503));
    assert_eq!(get("/status/503", 0).unwrap().unwrap().bytes, Some(0));
    // 200:0.7,500:0.3 is 700,000 then 300,000 millionths.
    assert_eq!(status("/status/200:0.7,500:0.3", 0), Some(200));
    assert_eq!(status("/status/200:0.7,500:0.3", 699_999), Some(200));
    assert_eq!(status("/status/200:0.7,500:0.3", 700_000), Some(500));
    assert_eq!(status("/status/200:0.7,500:0.3", 999_999), Some(500));
    assert_eq!(status("/status/200,500", 1_500_000), Some(500));
    assert_eq!(status("/status/200%2C500", 0), Some(200));
    assert_eq!(status("/status/503?status=201", 0), Some(201));
    assert_eq!(get("/delay/1.5", 0).unwrap().unwrap().delay_ms, 1_500);
    assert_eq!(get("/delay/250ms", 0).unwrap().unwrap().delay_ms, 250);
    assert_eq!(get("/delay/10", 0).unwrap().unwrap().delay_ms, 10_000);
    // go-httpbin's own meaning: a bare number is seconds on its paths, not on canned's.
    assert_eq!(get("/delay/3", 0).unwrap().unwrap().delay_ms, 3_000);
    assert_eq!(get("/drip?delay=1", 0).unwrap().unwrap().delay_ms, 1_000);
    assert_eq!(get("/bytes/100", 0).unwrap().unwrap().bytes, Some(100));
    assert_eq!(get("/stream-bytes/0", 0).unwrap().unwrap().bytes, Some(0));
    assert_eq!(
        get("/bytes/1048576", 0).unwrap().unwrap().bytes,
        Some(1 << 20)
    );
    for bad in [
        "/status/abc",
        "/status/99",
        "/status/200:x",
        "/status/200:0",
        "/delay/11",
        "/delay/x",
        "/bytes/1048577",
        "/bytes/-1",
        "/bytes/1K",
    ] {
        let e = get(bad, 0).unwrap_err().to_string();
        assert!(
            e.starts_with("httpbin: ") && !e.contains('\n'),
            "{bad}: {e}"
        );
    }
    for other in ["/", "/status", "/anything/x", "/statusx/1"] {
        assert_eq!(get(other, 0), Ok(None), "{other}");
    }
    // Without `paths`, the same targets name no control.
    assert_eq!(from_head(&head("/status/503", None), false, 0), Ok(None));
}

/// go-httpbin's `/drip` (`Drip` in `httpbin/handlers.go`, its cases from `TestDrip`): the
/// status, the `*` body's length, the delay (ms, rounded up) and the pacing.
#[test]
fn httpbin_drip() {
    let get = |target: &str| from_head(&head(target, None), true, 0);
    let drip = |pieces, over_us| {
        Some(Delivery::Drip(Drip::Body {
            head: 0,
            pieces,
            over_us,
        }))
    };
    type DripCase<'a> = (&'a str, u16, u64, u64, Option<Delivery>);
    let cases: &[DripCase] = &[
        // Defaults: 10 bytes over 2 s, after 2 s.
        ("/drip", 200, 10, 2_000, drip(10, 2_000_000)),
        (
            "/drip?numbytes=&duration=&delay=&code=",
            200,
            10,
            2_000,
            drip(10, 2_000_000),
        ),
        ("/drip?duration=5ms", 200, 10, 2_000, drip(10, 5_000)),
        ("/drip?duration=0h&delay=0", 200, 10, 0, None),
        (
            "/drip?duration=0.1&delay=0.1",
            200,
            10,
            100,
            drip(10, 100_000),
        ),
        ("/drip?duration=0&delay=5ms", 200, 10, 5, None),
        ("/drip?duration=1m&delay=0&duration=0", 400, 0, 0, None),
        (
            "/drip?duration=1500us&delay=1.5ms",
            200,
            10,
            2,
            drip(10, 1_500),
        ),
        (
            "/drip?duration=1%C2%B5s&delay=0.0005",
            200,
            10,
            0,
            drip(10, 1),
        ),
        (
            "/drip?duration=2s500ms&delay=7.5",
            200,
            10,
            7_500,
            drip(10, 2_500_000),
        ),
        ("/drip?numbytes=1&duration=1s", 200, 1, 2_000, None),
        (
            "/drip?numbytes=1048576&duration=1s",
            200,
            1 << 20,
            2_000,
            drip(1 << 20, 1_000_000),
        ),
        // `+` is a space in a query, as go-httpbin reads it; `%2B` is the sign.
        ("/drip?numbytes=%2B5&duration=0&delay=0", 200, 5, 0, None),
        ("/drip?numbytes=+5", 400, 0, 0, None),
        ("/drip?code=404&duration=0&delay=0", 404, 10, 0, None),
        ("/drip?code=599&duration=0&delay=0", 599, 10, 0, None),
        // The first value counts, as go-httpbin's `Query().Get`; canned's own names are not read.
        (
            "/drip?numbytes=3&numbytes=7&duration=0&delay=0",
            200,
            3,
            0,
            None,
        ),
        (
            "/drip?status=503&bytes=1&duration=0&delay=0",
            200,
            10,
            0,
            None,
        ),
    ];
    for &(target, status, bytes, delay_ms, delivery) in cases {
        let got = get(target);
        if status == 400 {
            assert!(got.is_err(), "{target}: {got:?}");
            continue;
        }
        let c = got.unwrap().unwrap();
        assert_eq!(
            (c.status, c.bytes, c.stars, c.delay_ms, c.delivery),
            (Some(status), Some(bytes), true, delay_ms, delivery),
            "{target}"
        );
    }
    // go-httpbin's bad cases, each 400 with one line naming the parameter.
    for (bad, name) in [
        ("/drip?duration=1m", "duration"),
        ("/drip?duration=-1ms", "duration"),
        ("/drip?duration=1001", "duration"),
        ("/drip?duration=-1", "duration"),
        ("/drip?duration=foo", "duration"),
        ("/drip?delay=1m", "delay"),
        ("/drip?delay=-1ms", "delay"),
        ("/drip?delay=1001", "delay"),
        ("/drip?delay=-1", "delay"),
        ("/drip?delay=foo", "delay"),
        ("/drip?numbytes=foo", "numbytes"),
        ("/drip?numbytes=0", "numbytes"),
        ("/drip?numbytes=-1", "numbytes"),
        ("/drip?numbytes=0xff", "numbytes"),
        ("/drip?numbytes=1048577", "numbytes"),
        ("/drip?code=foo", "status code"),
        ("/drip?code=-1", "status code"),
        ("/drip?code=25", "status code"),
        ("/drip?code=100", "status code"),
        ("/drip?code=600", "status code"),
        ("/drip?duration=7s&delay=4s", "too much time"),
        ("/drip?duration=10s", "too much time"),
    ] {
        let e = get(bad).unwrap_err().to_string();
        assert!(
            e.starts_with("httpbin: ") && e.contains(name) && !e.contains('\n'),
            "{bad}: {e}"
        );
    }
    // Without `paths`, `/drip` is a plain path.
    assert_eq!(from_head(&head("/drip", None), false, 0), Ok(None));
    // The field still applies after the query: its names are canned's.
    let c = from_head(&head("/drip?duration=0", Some("status=503")), true, 0)
        .unwrap()
        .unwrap();
    assert_eq!((c.status, c.bytes, c.stars), (Some(503), Some(10), true));
}

#[test]
fn go_durations() {
    for (v, ns) in [
        ("0", Some(0)),
        ("-0", Some(0)),
        ("0h", Some(0)),
        ("1.5", Some(1_500_000_000)),
        ("0.0015", Some(1_000_000)),
        (".5", Some(500_000_000)),
        ("250ms", Some(250_000_000)),
        ("1h2m3s", Some(3_723_000_000_000)),
        ("1.5ms", Some(1_500_000)),
        ("3ns", Some(3)),
        ("2us", Some(2_000)),
        ("2\u{b5}s", Some(2_000)),
        ("-1ms", None),
        ("-1", None),
        ("1x", None),
        ("ms", None),
        ("", None),
        ("1e3", None),
    ] {
        assert_eq!(httpbin::go_duration_ns(v), ns, "{v}");
    }
}

/// go-httpbin's redirects: the chain by count (relative, absolute on the request's Host),
/// `/redirect-to` with its status, and each bound's one-line refusal.
#[test]
fn httpbin_redirects() {
    let get = |target: &str| from_head(&head(target, None), true, 0);
    let answer = |target: &str| {
        let c = get(target).unwrap().unwrap();
        let l = c.location.expect(target);
        (
            c.status.unwrap(),
            String::from_utf8(l.value().to_vec()).unwrap(),
            c.bytes,
        )
    };
    let cases = [
        ("/redirect/3", 302, "/relative-redirect/2"),
        ("/redirect/1", 302, "/get"),
        ("/relative-redirect/10", 302, "/relative-redirect/9"),
        ("/absolute-redirect/2", 302, "http://x/absolute-redirect/1"),
        ("/absolute-redirect/1", 302, "http://x/get"),
        (
            "/redirect/4?absolute=TRUE",
            302,
            "http://x/absolute-redirect/3",
        ),
        ("/redirect/4?absolute=false", 302, "/relative-redirect/3"),
        ("/redirect-to?url=/a", 302, "/a"),
        (
            "/redirect-to?status_code=308&url=http%3A%2F%2Fcdn%3A8080%2Ffw.bin%3Fv%3D2",
            308,
            "http://cdn:8080/fw.bin?v=2",
        ),
        ("/redirect-to?url=../up&status_code=300", 300, "../up"),
    ];
    for (target, status, location) in cases {
        assert_eq!(
            answer(target),
            (status, location.to_string(), Some(0)),
            "{target}"
        );
    }
    let long = format!("/redirect-to?url=/{}", "a".repeat(MAX_LOCATION - 1));
    assert_eq!(answer(&long).1.len(), MAX_LOCATION);
    let refused = [
        (
            "/redirect/0",
            "httpbin: the redirect count must be a whole number, 1 or more",
        ),
        ("/relative-redirect/x", "httpbin: the redirect count"),
        ("/absolute-redirect/-1", "httpbin: the redirect count"),
        ("/redirect-to", "httpbin: redirect-to needs url="),
        ("/redirect-to?url=", "httpbin: redirect-to needs url="),
        (
            "/redirect-to?url=/a&status_code=200",
            "httpbin: status_code must be from 300 to 399",
        ),
        (
            "/redirect-to?url=/a&status_code=400",
            "httpbin: status_code must be",
        ),
        (
            "/redirect-to?url=/a%0d%0aSet-Cookie:%20x=1",
            "httpbin: url must be a URI reference",
        ),
        (
            "/redirect-to?url=/a+b",
            "httpbin: url must be a URI reference",
        ),
        (
            &format!("{long}a"),
            "httpbin: url must be a URI reference of at most 256 bytes",
        ),
    ];
    for (target, why) in refused {
        let e = get(target).unwrap_err().to_string();
        assert!(e.starts_with(why), "{target}: {e}");
    }
    // Without a Host an absolute redirect has no authority to name.
    let no_host = b"GET /absolute-redirect/2 HTTP/1.0\r\n\r\n";
    assert_eq!(
        from_head(no_host, true, 0).unwrap_err().to_string(),
        "httpbin: an absolute redirect needs the request's Host"
    );
    // Only where no route answers (`paths` false): not a redirect.
    assert_eq!(from_head(&head("/redirect/3", None), false, 0), Ok(None));
}
