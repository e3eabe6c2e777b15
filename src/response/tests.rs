//! The canned bytes' tests: heads, bodies, dates and reason phrases.

use super::*;
use crate::parser::Error;
use std::time::{Duration, UNIX_EPOCH};

#[test]
fn imf_fixdate() {
    let at = |s| http_date(UNIX_EPOCH + Duration::from_secs(s));
    assert_eq!(&at(0), b"Thu, 01 Jan 1970 00:00:00 GMT");
    assert_eq!(&at(784_111_777), b"Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(&at(951_782_400), b"Tue, 29 Feb 2000 00:00:00 GMT");
    assert_eq!(&at(1_796_049_126), b"Mon, 30 Nov 2026 14:32:06 GMT");
}

#[test]
fn reason_phrases() {
    for (status, want) in [
        (100, "Continue"),
        (200, "OK"),
        (418, "I'm a teapot"),
        (505, "HTTP Version Not Supported"),
        (299, ""),
        (1200, ""),
        (0, ""),
    ] {
        assert_eq!(reason(status), want, "{status}");
    }
}

fn spec(status: u16, body: &str) -> Spec {
    Spec {
        status,
        body: Arc::from(body.as_bytes()),
        content_type: "text/plain".into(),
        headers: vec!["X-A: b".into()],
    }
}

#[test]
fn heads_differ_only_in_connection() {
    let common = Common {
        server: "canned".into(),
        date: false,
    };
    let r = Responses::new(&[spec(200, "Hello World\n")], &[], &common);
    let ka = r.head(0, KeepAliveForm::KeepAlive11);
    assert_eq!(
        ka,
        b"HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nX-A: b\r\n\r\n"
    );
    assert!(
        r.head(0, KeepAliveForm::KeepAlive10)
            .ends_with(b"X-A: b\r\nConnection: keep-alive\r\n\r\n")
    );
    assert!(
        r.head(0, KeepAliveForm::Close)
            .ends_with(b"Connection: close\r\n\r\n")
    );
    assert_eq!(r.body(0), b"Hello World\n");
}

#[test]
fn no_content_has_no_length_and_no_body() {
    let common = Common {
        server: String::new(),
        date: false,
    };
    let r = Responses::new(&[spec(204, "ignored")], &[], &common);
    assert_eq!(
        r.head(0, KeepAliveForm::KeepAlive11),
        b"HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n"
    );
    assert_eq!(r.body(0), b"");
}

/// RFC 9110 §8.6: no Content-Length on 204 (MUST NOT) nor on 304 (canned has no 200
/// response whose length it could repeat); neither has a body or a Content-Type.
#[test]
fn no_content_and_not_modified_have_no_length() {
    let common = Common {
        server: String::new(),
        date: false,
    };
    for (status, line) in [(204, "204 No Content"), (304, "304 Not Modified")] {
        let r = Responses::new(&[spec(status, "ignored")], &[], &common);
        for v in [
            KeepAliveForm::KeepAlive11,
            KeepAliveForm::KeepAlive10,
            KeepAliveForm::Close,
        ] {
            let head = String::from_utf8(r.head(0, v)).unwrap();
            assert!(
                head.starts_with(&format!("HTTP/1.1 {line}\r\nX-A: b\r\n")),
                "{head}"
            );
            assert!(!head.contains("Content-"), "{head}");
        }
        assert_eq!(r.body(0), b"");
    }
}

/// A worker's clone shares the rest of every head with the others; the `Date` it patches
/// is its own.
#[test]
fn clones_share_the_rest_and_patch_their_own_date() {
    let common = Common {
        server: "canned".into(),
        date: true,
    };
    let a = Responses::new(&[spec(200, "x")], &[], &common);
    let mut b = a.clone();
    for v in 0..3 {
        assert!(Arc::ptr_eq(&a.routes[0].rest[v], &b.routes[0].rest[v]));
    }
    b.set_date(http_date(UNIX_EPOCH + Duration::from_secs(784_111_777)));
    let mine = String::from_utf8(b.head(0, KeepAliveForm::KeepAlive11)).unwrap();
    let theirs = String::from_utf8(a.head(0, KeepAliveForm::KeepAlive11)).unwrap();
    assert!(
        mine.contains("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
        "{mine}"
    );
    assert!(!theirs.contains("1994"), "{theirs}");
    assert_eq!(mine.len(), theirs.len());
}

/// What [`Responses::append`] writes is the head and the body, in every keep-alive form, for a
/// body inlined in the head's rest, a body apart from it, and pieces smaller than each.
#[test]
fn append_writes_the_head_then_the_body() {
    let common = Common {
        server: "canned".into(),
        date: false,
    };
    let big = "b".repeat(INLINE_BODY + 1);
    let r = Responses::new(
        &[spec(200, "small"), spec(200, &big)],
        &[(b"/big".to_vec(), false)],
        &common,
    );
    for route in 0..2 {
        for v in [
            KeepAliveForm::KeepAlive11,
            KeepAliveForm::KeepAlive10,
            KeepAliveForm::Close,
        ] {
            let head = r.head(route, v);
            let body = r.body(route);
            for chunk in [1, 3, 64 * 1024] {
                let mut out = Vec::new();
                let rest = r.append(route, v, false, chunk, &mut out);
                let sent = body.len().min(chunk);
                assert_eq!(out, [&head[..], &body[..sent]].concat());
                assert_eq!(rest, (sent < body.len()).then_some(sent));
                let mut out = Vec::new();
                assert_eq!(r.append(route, v, true, chunk, &mut out), None);
                assert_eq!(out, head);
            }
        }
    }
}

#[test]
fn date_is_patched_in_place() {
    let common = Common {
        server: "canned".into(),
        date: true,
    };
    let mut r = Responses::new(&[spec(200, "x")], &[], &common);
    let d = http_date(UNIX_EPOCH + Duration::from_secs(784_111_777));
    r.set_date(d);
    for v in [
        KeepAliveForm::KeepAlive11,
        KeepAliveForm::KeepAlive10,
        KeepAliveForm::Close,
    ] {
        let h = String::from_utf8(r.head(0, v)).unwrap();
        assert!(
            h.contains("\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
            "{h}"
        );
    }
    for (error, what) in [
        (Error::TooManyHeaders, "more header fields than the limit"),
        (
            Error::HeadTooLarge,
            "the head is larger than the head limit",
        ),
    ] {
        let [start, rest, body] = r.error(Rule::Request(error));
        let h = String::from_utf8([start, rest].concat()).unwrap();
        assert!(h.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(h.contains("Date: Sun, 06 Nov 1994 08:49:37 GMT"));
        assert!(h.ends_with("Connection: close\r\n\r\n"));
        let want = format!("431 Request Header Fields Too Large: {what} (RFC 6585 §5)\n");
        assert_eq!(std::str::from_utf8(body).unwrap(), want);
        assert!(h.contains(&format!("\r\nContent-Length: {}\r\n", want.len())));
    }
}

/// Every rule has an error response of its own: its status, a body that names it, and a
/// head whose start (the status line, `Server`, `Date`) is shared by the rules of a status.
/// What a worker keeps of its own is the starts, not a response per rule.
#[test]
fn every_rule_has_its_own_error_response() {
    let common = Common {
        server: "canned".into(),
        date: true,
    };
    let r = Responses::new(&[spec(200, "x")], &[], &common);
    let mut bodies = std::collections::HashSet::new();
    for rule in Rule::ALL {
        let [start, rest, body] = r.error(rule);
        let status = rule.status();
        let line = format!("HTTP/1.1 {status} {}\r\n", reason(status));
        assert!(start.starts_with(line.as_bytes()), "{rule:?}");
        let (what, clause) = rule.reason();
        let want = format!("{status} {}: {what} ({clause})\n", reason(status));
        assert_eq!(std::str::from_utf8(body).unwrap(), want);
        assert_eq!(body, rule_body(rule));
        let length = format!("Content-Length: {}\r\n", body.len());
        assert!(rest.windows(length.len()).any(|w| w == length.as_bytes()));
        assert!(bodies.insert(body.to_vec()), "{rule:?}: a body twice");
    }
    let (own, shared) = r.error_bytes();
    eprintln!("error responses: {own} bytes per worker, {shared} shared");
    assert!(own < 1024, "{own} bytes per worker");
    assert!(shared < 16 * 1024, "{shared} bytes shared");
}

#[test]
fn the_paths_table_changes_at_run_time() {
    let spec = |body: &str| Spec {
        status: 200,
        body: Arc::from(body.as_bytes()),
        content_type: "text/plain".into(),
        headers: Vec::new(),
    };
    let mut r = Responses::new(
        &[spec("default"), spec("a")],
        &[(b"/a".to_vec(), false)],
        &Common {
            server: String::new(),
            date: false,
        },
    );
    assert_eq!(r.route(b"GET", b"/a"), 1);
    // A new route for every method, then one by method that goes before it.
    let any = r.add_unrouted(&spec("any"));
    assert_eq!(r.set_path_route(b"/b", None, any), None);
    let post = r.add_unrouted(&spec("post"));
    assert_eq!(r.set_path_route(b"/b", Some(b"POST"), post), None);
    assert_eq!(
        (r.route(b"GET", b"/b"), r.route(b"POST", b"/b")),
        (any, post)
    );
    assert_eq!(r.path_route(b"/b", Some(b"POST")), Some(post));
    // Replaced: the entry's old route comes back.
    let a2 = r.add_unrouted(&spec("a2"));
    assert_eq!(r.set_path_route(b"/a", None, a2), Some(1));
    assert_eq!(r.route(b"GET", b"/a"), a2);
    // Removed: the path's other routes answer, then the default.
    assert_eq!(r.remove_path_route(b"/b", None), Some(any));
    assert_eq!(r.route(b"GET", b"/b"), 0, "no 405 until set");
    let spec405 = r.not_allowed_spec(b"/b").unwrap();
    assert_eq!(spec405.headers, ["Allow: POST"]);
    let n = r.add_unrouted(&spec405);
    r.set_not_allowed(b"/b", n);
    assert_eq!(
        (r.route(b"GET", b"/b"), r.not_allowed_of(b"/b")),
        (n, Some(n))
    );
    assert_eq!(r.remove_path_route(b"/b", Some(b"POST")), Some(post));
    assert_eq!(
        (r.route(b"POST", b"/b"), r.not_allowed_spec(b"/b")),
        (0, None)
    );
    assert!(!r.has_path(b"/b") && r.has_path(b"/a"));
    // A worker takes the table whole.
    let mut worker = Responses::new(
        &[spec("default"), spec("a")],
        &[(b"/a".to_vec(), false)],
        &Common {
            server: String::new(),
            date: false,
        },
    );
    worker.adopt_routes(&r, |_| false, |_| {});
    assert_eq!(worker.route(b"GET", b"/a"), a2);
    assert_eq!(worker.body(a2), b"a2");
}

#[test]
fn a_copy_keeps_its_route_given_and_a_response_put_at_an_index_does_not() {
    let common = Common {
        server: String::new(),
        date: false,
    };
    let mut r = Responses::new(
        &[spec(200, "default"), spec(200, "a")],
        &[(b"/a".to_vec(), false)],
        &common,
    );
    assert_eq!((r.given(0), r.given(1)), (Some(0), Some(1)));
    let mut worker = r.clone();
    let copy = r.add_copy(1);
    let other = r.add_unrouted(&spec(503, "x"));
    assert_eq!((r.given(copy), r.given(other)), (Some(1), None));
    // Route 1 retired, and its index taken by another response: no longer route 1's.
    r.retire(1);
    assert_eq!(r.given(1), None);
    r.add_unrouted_at(&spec(200, "b"), Some(1));
    assert_eq!(r.given(1), None);
    assert_eq!(r.given(copy), Some(1));
    // A worker's clone follows the table it takes, and hears of the index replaced.
    let mut replaced = Vec::new();
    worker.adopt_routes(&r, |_| false, |i| replaced.push(i));
    assert_eq!(replaced, [1]);
    assert_eq!(
        (worker.given(1), worker.given(copy), worker.given(other)),
        (None, Some(1), None)
    );
}

#[test]
fn another_body_leaves_out_the_validators_of_a_route_that_serves_ranges_only() {
    let common = Common {
        server: String::new(),
        date: false,
    };
    let fields = ["ETag: \"v\"".to_string(), "Last-Modified: x".to_string()];
    let mut ranged = spec(200, "body");
    ranged.headers = [vec!["Accept-Ranges: bytes".to_string()], fields.to_vec()].concat();
    let mut own = spec(200, "body");
    own.headers = fields.to_vec();
    let r = Responses::new(&[ranged, own], &[(b"/own".to_vec(), false)], &common);
    let head = |route, same_body| {
        let mut out = Vec::new();
        let h = StatusHead {
            status: 200,
            length: Some(b"3"),
            extra: b"",
            same_body,
        };
        r.append_status_head(route, KeepAliveForm::KeepAlive11, h, &mut out);
        String::from_utf8(out).unwrap()
    };
    assert!(!head(0, false).contains("ETag") && !head(0, false).contains("Accept-Ranges"));
    assert!(head(0, true).contains("ETag: \"v\"\r\n") && head(0, true).contains("Accept-Ranges"));
    // Fields a route was given of its own, without serving ranges, stay.
    assert!(head(1, false).contains("ETag: \"v\"\r\nLast-Modified: x\r\n"));
}
