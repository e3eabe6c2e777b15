//! The control grammar as a table: the head, what it asks for (or the error text's start).

use super::*;

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
            delivery,
            latency: false,
            latency_ms: 0,
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
        ("/?bytes=2GiB", None, Err("control: bytes is over")),
        ("/?bytes=1GiB", None, c(None, 0, Some(1 << 30), None)),
        ("/?bytes=lots", None, Err("control: bytes must")),
        ("/?fault=drip:1KiB/100ms", None, Err("control: fault drip")),
        ("/?fault=explode", None, Err("control: fault must")),
        ("/?fault=truncate:101%25", None, Err("control: a cut")),
        ("/?delay=%zz", None, Err("control: a value")),
        ("/", Some("colour=red"), Err("control: unknown")),
    ];
    for (target, field, want) in cases {
        let got = from_head(&head(target, *field), false, 0);
        match (want, got) {
            (Err(w), Err(g)) => assert!(g.starts_with(w), "{target} {field:?}: {g}"),
            (w, g) => assert_eq!(*w, g, "{target} {field:?}"),
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
fn errors_are_one_line() {
    for target in [
        "/?status=1",
        "/?delay=x",
        "/?bytes=x",
        "/?fault=x",
        "/?fault=drip",
    ] {
        let e = from_head(&head(target, None), false, 0).unwrap_err();
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
        let e = get(bad, 0).unwrap_err();
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
