//! Ranges (RFC 9110 §14) and conditional requests (§13) as clients see them: which responses
//! serve ranges, the 206 and 416 heads, HEAD, the validators (`ETag`, `Last-Modified`), 304
//! and 412, `If-Range`, the precedence of §13.2.2, `--etag`, `--no-validators`, and faults
//! applied to a range (a drip paces it). 1 and 2 workers.
#![cfg(all(
    feature = "echo",
    feature = "faults",
    feature = "ranges",
    feature = "stats"
))]

use crate::common;

use common::{Proc, Resp, bin, exchange, parse_responses, start};
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime};

/// A scratch directory for this test and process.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("canned-ranges-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `n` bytes, each its offset's low byte mixed, so that any misplaced slice shows.
fn image(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u8)
                .wrapping_mul(31)
                .wrapping_add((i >> 8) as u8 ^ seed)
        })
        .collect()
}

/// One request (`fields` are whole lines) on its own connection, closed after it.
fn ask(addr: SocketAddr, method: &str, path: &str, fields: &str) -> Resp {
    let req = format!("{method} {path} HTTP/1.1\r\nHost: t\r\n{fields}Connection: close\r\n\r\n");
    let got = exchange(addr, req.as_bytes());
    let mut r = parse_responses(&got, &[method == "HEAD"]);
    assert_eq!(r.len(), 1, "{method} {path} {fields:?}");
    r.remove(0)
}

#[test]
fn responses_with_a_body_of_their_own_serve_ranges_and_others_do_not() {
    let dir = scratch("which");
    let file = dir.join("page.txt");
    std::fs::write(&file, b"from a file\n").unwrap();
    let route = format!("/file=200:@{}", file.display());
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            "/text=200:some text",
            "--route",
            &route,
            "--route",
            "/missing=404:not here",
            "--route",
            "/empty=200",
            "--health",
            "/healthz",
            "--stats",
            "/stats",
            "--echo",
            "/echo",
            "--fault",
            "/err=error:503",
        ]);
        for path in ["/", "/text", "/file", "/healthz"] {
            let r = ask(addr, "GET", path, "");
            assert_eq!(r.header("accept-ranges"), Some("bytes"), "{path}");
            assert!(
                r.header("etag").is_some_and(|t| t.starts_with('"')),
                "{path}"
            );
            let r = ask(addr, "GET", path, "Range: bytes=0-1\r\n");
            assert_eq!((r.status, r.body.len()), (206, 2), "{path}");
        }
        // Not a 200 with a body of its own, or an error, or a fault's error response: no
        // ranges, no validators, and a Range is ignored.
        for path in ["/missing", "/empty", "/stats", "/echo", "/err", "/bad%zz"] {
            let r = ask(addr, "GET", path, "Range: bytes=0-1\r\n");
            assert_ne!(r.status, 206, "{path}");
            for field in ["accept-ranges", "etag", "last-modified", "content-range"] {
                assert_eq!(r.header(field), None, "{path} {field}");
            }
        }
        h.shutdown();
        h.join();
    }
}

#[test]
fn a_single_range_gets_206_and_its_bytes_and_head_the_same_heads() {
    let dir = scratch("single");
    let file = dir.join("body.bin");
    // Larger than a body chunk (64 KiB), so that a range streams in pieces.
    let body = image(200_000, 7);
    std::fs::write(&file, &body).unwrap();
    let file = file.to_str().unwrap().to_string();
    let len = body.len() as u64;
    // (Range, status, Content-Range, first..end of the body)
    let cases: Vec<(&str, u16, String, std::ops::Range<usize>)> = vec![
        ("bytes=0-0", 206, format!("bytes 0-0/{len}"), 0..1),
        ("bytes=10-19", 206, format!("bytes 10-19/{len}"), 10..20),
        (
            "bytes=1000-",
            206,
            format!("bytes 1000-199999/{len}"),
            1000..200_000,
        ),
        (
            "bytes=-500",
            206,
            format!("bytes 199500-199999/{len}"),
            199_500..200_000,
        ),
        (
            "bytes=65000-140000",
            206,
            format!("bytes 65000-140000/{len}"),
            65_000..140_001,
        ),
        (
            "bytes=5-999999",
            206,
            format!("bytes 5-199999/{len}"),
            5..200_000,
        ),
        ("BYTES=1-2", 206, format!("bytes 1-2/{len}"), 1..3),
        ("bytes=200000-", 416, format!("bytes */{len}"), 0..0),
        ("bytes=-0", 416, format!("bytes */{len}"), 0..0),
        // Malformed, another unit, several ranges: the whole body (§14.2).
        ("bytes=5-1", 200, String::new(), 0..200_000),
        ("bytes=a-b", 200, String::new(), 0..200_000),
        ("items=0-1", 200, String::new(), 0..200_000),
        ("bytes=0-1,5-6", 200, String::new(), 0..200_000),
    ];
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--body-file", &file]);
        for (range, status, content_range, want) in &cases {
            let field = format!("Range: {range}\r\n");
            let r = ask(addr, "GET", "/", &field);
            let what = format!("{range}, {workers} workers");
            assert_eq!(r.status, *status, "{what}");
            assert_eq!(
                r.header("content-range").unwrap_or_default(),
                content_range,
                "{what}"
            );
            assert_eq!(r.body, body[want.clone()], "{what}");
            assert_eq!(r.header("accept-ranges"), Some("bytes"), "{what}");
            // HEAD: the same heads, no body.
            let head = ask(addr, "HEAD", "/", &field);
            assert_eq!(head.status, r.status, "HEAD {what}");
            assert_eq!(head.headers, r.headers, "HEAD {what}");
            assert!(head.body.is_empty());
        }
        // Only GET and HEAD honour Range (§14.2).
        let r = ask(addr, "POST", "/", "Range: bytes=0-1\r\n");
        assert_eq!((r.status, r.body.len()), (200, body.len()));
        // Pipelined: each answer in order, the ranges and the whole body interleaved.
        let mut s = common::connect(addr);
        use std::io::Write;
        s.write_all(
            b"GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=3-5\r\n\r\n\
              GET / HTTP/1.1\r\nHost: t\r\n\r\n\
              GET / HTTP/1.1\r\nHost: t\r\nRange: bytes=-2\r\nConnection: close\r\n\r\n",
        )
        .unwrap();
        let r = parse_responses(&common::read_to_eof(&mut s), &[]);
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].status, &r[0].body[..]), (206, &body[3..6]));
        assert_eq!((r[1].status, &r[1].body[..]), (200, &body[..]));
        assert_eq!((r[2].status, &r[2].body[..]), (206, &body[199_998..]));
        h.shutdown();
        h.join();
    }
}

#[test]
fn validators_and_conditional_requests() {
    let dir = scratch("validators");
    let file = dir.join("fw.bin");
    std::fs::write(&file, image(5000, 1)).unwrap();
    // A fixed modification time: Tue, 01 Dec 2026 00:00:00 GMT.
    let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(when)
        .unwrap();
    let file = file.to_str().unwrap().to_string();
    const AT: &str = "Tue, 01 Dec 2026 00:00:00 GMT";
    const BEFORE: &str = "Mon, 30 Nov 2026 23:59:59 GMT";
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--body-file", &file]);
        let plain = ask(addr, "GET", "/", "");
        let etag = plain.header("etag").unwrap().to_string();
        assert_eq!(plain.header("last-modified"), Some(AT));
        assert!(
            etag.len() == 18 && etag.starts_with('"') && etag.ends_with('"'),
            "{etag}"
        );
        // (fields, method, status, body length)
        let cases: Vec<(String, &str, u16, usize)> = vec![
            (format!("If-None-Match: {etag}\r\n"), "GET", 304, 0),
            (format!("If-None-Match: W/{etag}\r\n"), "GET", 304, 0),
            ("If-None-Match: *\r\n".into(), "GET", 304, 0),
            (format!("If-None-Match: {etag}\r\n"), "POST", 412, 0),
            ("If-None-Match: \"other\"\r\n".into(), "GET", 200, 5000),
            (format!("If-Modified-Since: {AT}\r\n"), "GET", 304, 0),
            (format!("If-Modified-Since: {BEFORE}\r\n"), "GET", 200, 5000),
            ("If-Modified-Since: not a date\r\n".into(), "GET", 200, 5000),
            (format!("If-Match: {etag}\r\n"), "GET", 200, 5000),
            ("If-Match: \"other\"\r\n".into(), "GET", 412, 0),
            (format!("If-Unmodified-Since: {BEFORE}\r\n"), "GET", 412, 0),
            (format!("If-Unmodified-Since: {AT}\r\n"), "GET", 200, 5000),
            // §13.2.2: If-Match before If-None-Match, If-None-Match over If-Modified-Since.
            (
                format!("If-Match: \"other\"\r\nIf-None-Match: {etag}\r\n"),
                "GET",
                412,
                0,
            ),
            (
                format!("If-None-Match: \"other\"\r\nIf-Modified-Since: {AT}\r\n"),
                "GET",
                200,
                5000,
            ),
            // If-Range: a matching tag or the exact date honours the range, else the whole.
            (
                format!("If-Range: {etag}\r\nRange: bytes=0-9\r\n"),
                "GET",
                206,
                10,
            ),
            (
                format!("If-Range: {AT}\r\nRange: bytes=0-9\r\n"),
                "GET",
                206,
                10,
            ),
            (
                format!("If-Range: {BEFORE}\r\nRange: bytes=0-9\r\n"),
                "GET",
                200,
                5000,
            ),
            (
                "If-Range: \"other\"\r\nRange: bytes=0-9\r\n".into(),
                "GET",
                200,
                5000,
            ),
            (
                format!("If-Range: W/{etag}\r\nRange: bytes=0-9\r\n"),
                "GET",
                200,
                5000,
            ),
            (
                format!("If-None-Match: {etag}\r\nRange: bytes=0-9\r\n"),
                "GET",
                304,
                0,
            ),
        ];
        for (fields, method, status, len) in &cases {
            let r = ask(addr, method, "/", fields);
            let what = format!("{method} {fields:?}, {workers} workers");
            assert_eq!((r.status, r.body.len()), (*status, *len), "{what}");
            match r.status {
                // §15.4.5: the fields a 200 would carry, without Content-Length and
                // Content-Type, and no body.
                304 => {
                    assert_eq!(r.header("etag"), Some(etag.as_str()), "{what}");
                    assert_eq!(r.header("last-modified"), Some(AT), "{what}");
                    assert_eq!(r.header("server"), Some("canned"), "{what}");
                    assert_eq!(r.header("content-length"), None, "{what}");
                    assert_eq!(r.header("content-type"), None, "{what}");
                }
                412 => assert_eq!(r.header("content-length"), Some("0"), "{what}"),
                _ => assert_eq!(r.header("etag"), Some(etag.as_str()), "{what}"),
            }
        }
        // A keep-alive connection goes on after a 304 and a 412.
        let mut s = common::connect(addr);
        use std::io::Write;
        let req = format!(
            "GET / HTTP/1.1\r\nHost: t\r\nIf-None-Match: {etag}\r\n\r\n\
             GET / HTTP/1.1\r\nHost: t\r\nIf-Match: \"x\"\r\n\r\n\
             GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes()).unwrap();
        let r = parse_responses(&common::read_to_eof(&mut s), &[]);
        let statuses: Vec<u16> = r.iter().map(|r| r.status).collect();
        assert_eq!(statuses, [304, 412, 200]);
        h.shutdown();
        h.join();
    }
}

/// The entity-tag is a hash of the body: the same bytes get the same tag in any run, other
/// bytes another. Without `--no-date`, a body that is no file is last modified at start-up.
#[test]
fn the_entity_tag_follows_the_body_and_the_start_is_the_last_modification() {
    let tag = |body: &str| {
        let (h, addr) = start(&["--body", body]);
        let r = ask(addr, "GET", "/", "");
        h.shutdown();
        h.join();
        assert_eq!(r.header("last-modified"), None, "--no-date: no start time");
        r.header("etag").unwrap().to_string()
    };
    assert_eq!(tag("one"), tag("one"));
    assert_ne!(tag("one"), tag("two"));
    let before = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let p = Proc::start(&[]);
    let got = exchange(
        p.addr,
        b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    let r = parse_responses(&got, &[]);
    let modified = r[0].header("last-modified").unwrap();
    let date = r[0].header("date").unwrap();
    let secs = |d: &str| canned::conditional::parse_date(d.as_bytes()).unwrap();
    assert!(
        secs(modified) >= before && secs(modified) <= secs(date),
        "{modified} {date}"
    );
    // The start time is a strong validator of the body: If-Range with it honours a range.
    let req = format!(
        "GET / HTTP/1.1\r\nHost: t\r\nIf-Range: {modified}\r\nRange: bytes=0-4\r\nConnection: close\r\n\r\n"
    );
    let r = parse_responses(&exchange(p.addr, req.as_bytes()), &[]);
    assert_eq!((r[0].status, &r[0].body[..]), (206, &b"Hello"[..]));
    assert_eq!(p.stop().0, 0);
}

#[test]
fn etag_and_no_validators_options() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers, "--etag", "W/\"v1\""]);
        let r = ask(addr, "GET", "/", "");
        assert_eq!(r.header("etag"), Some("W/\"v1\""));
        // A weak tag: If-None-Match compares weakly, If-Match and If-Range strongly.
        assert_eq!(
            ask(addr, "GET", "/", "If-None-Match: \"v1\"\r\n").status,
            304
        );
        assert_eq!(ask(addr, "GET", "/", "If-Match: W/\"v1\"\r\n").status, 412);
        let r = ask(
            addr,
            "GET",
            "/",
            "If-Range: W/\"v1\"\r\nRange: bytes=0-1\r\n",
        );
        assert_eq!(r.status, 200);
        h.shutdown();
        h.join();
        let (h, addr) = start(&["--workers", workers, "--etag", "\"fixed\""]);
        let r = ask(
            addr,
            "GET",
            "/",
            "If-Range: \"fixed\"\r\nRange: bytes=0-1\r\n",
        );
        assert_eq!((r.status, &r.body[..]), (206, &b"He"[..]));
        h.shutdown();
        h.join();
        let (h, addr) = start(&["--workers", workers, "--no-validators"]);
        let r = ask(addr, "GET", "/", "");
        assert_eq!(r.header("accept-ranges"), Some("bytes"));
        assert_eq!((r.header("etag"), r.header("last-modified")), (None, None));
        // Conditions ignored; a range still served, but If-Range never matches.
        for fields in ["If-None-Match: *\r\n", "If-Match: \"x\"\r\n"] {
            assert_eq!(ask(addr, "GET", "/", fields).status, 200, "{fields}");
        }
        assert_eq!(ask(addr, "GET", "/", "Range: bytes=0-1\r\n").status, 206);
        let r = ask(addr, "GET", "/", "If-Range: \"x\"\r\nRange: bytes=0-1\r\n");
        assert_eq!(r.status, 200);
        h.shutdown();
        h.join();
    }
}

#[test]
fn a_bad_etag_is_one_line_naming_the_flag_and_exit_2() {
    for (args, env) in [
        (vec!["--etag", "v1"], None),
        (vec!["--etag", "\"a b\""], None),
        (vec!["--etag", "w/\"x\""], None),
        (vec![], Some("v1")),
        (vec!["--etag", "\"x\"", "--no-validators"], None),
    ] {
        let mut cmd = std::process::Command::new(bin());
        cmd.args(["--listen", "127.0.0.1:0"]).args(&args);
        if let Some(v) = env {
            cmd.env("CANNED_ETAG", v);
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let named = if env.is_some() {
            "CANNED_ETAG"
        } else {
            "--etag"
        };
        assert!(err.contains(named), "{args:?}: {err}");
    }
}

/// Faults apply to a range as to any response: a drip paces it (never early), a truncate
/// cuts it, and an error share answers with the whole error response, no range.
#[test]
fn faults_apply_to_ranges() {
    let body = image(4000, 3);
    let dir = scratch("faults");
    let file = dir.join("b.bin");
    std::fs::write(&file, &body).unwrap();
    let file = file.to_str().unwrap().to_string();
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--body-file",
            &file,
            "--fault",
            "/d=drip:4pieces/600ms",
            "--fault",
            "/t=truncate:50%",
            "--fault",
            "/e=error:503:busy",
        ]);
        let t = Instant::now();
        let r = ask(addr, "GET", "/d", "Range: bytes=100-1099\r\n");
        let took = t.elapsed();
        assert_eq!((r.status, &r.body[..]), (206, &body[100..1100]));
        assert_eq!(r.header("content-range"), Some("bytes 100-1099/4000"));
        assert!(took >= Duration::from_millis(600), "{took:?}");
        assert!(
            took < common::time_bound(Duration::from_secs(10)),
            "{took:?}"
        );
        // A dripped 304 too.
        let etag = r.header("etag").unwrap().to_string();
        let t = Instant::now();
        let r = ask(addr, "GET", "/d", &format!("If-None-Match: {etag}\r\n"));
        assert_eq!((r.status, r.body.len()), (304, 0));
        assert!(t.elapsed() >= Duration::from_millis(600));
        // Half of the 206 response's bytes, head included, then the close.
        let req = "GET /t HTTP/1.1\r\nHost: t\r\nRange: bytes=0-999\r\n\r\n";
        let got = exchange(addr, req.as_bytes());
        let whole = ask(addr, "GET", "/", "Range: bytes=0-999\r\n");
        let head_len = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        assert!(got.starts_with(b"HTTP/1.1 206 Partial Content\r\n"));
        assert_eq!(got.len(), (head_len + 1000) / 2);
        assert_eq!(got[head_len..], whole.body[..got.len() - head_len]);
        let r = ask(addr, "GET", "/e", "Range: bytes=0-1\r\n");
        assert_eq!((r.status, &r.body[..]), (503, &b"busy"[..]));
        assert_eq!(r.header("content-range"), None);
        h.shutdown();
        h.join();
    }
}
