//! A route's own fields and a redirect are preformatted like any route: over keep-alive and
//! pipelined requests, in turn a route with its own Content-Type and fields, a redirect by
//! path, a redirect by method and the default response, the process (server and client)
//! makes no allocation at all.

use crate::counting;

pub fn routes_with_their_own_fields_and_redirects_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--header",
        "Cache-Control: no-cache",
        "--route",
        "/api=200:{\"ok\":true}",
        "--route-header",
        "/api=Content-Type: application/json",
        "--route-header",
        "/api=Cache-Control: max-age=60",
        "--redirect",
        "/old=302:/api",
        "--redirect",
        "POST /form=303:/done",
    ];
    let requests: [(&[u8], &[u8]); 4] = [
        (b"GET /api HTTP/1.1\r\nHost: t\r\n\r\n", b"{\"ok\":true}"),
        (b"GET /old HTTP/1.1\r\nHost: t\r\n\r\n", b""),
        (
            b"POST /form HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\na=1",
            b"",
        ),
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
    ];
    let r = counting::count_allocations_per_round(&args, &requests, 300, 10_000);
    assert_eq!(
        r.allocations, 0,
        "{} of {} rounds allocated",
        r.rounds_allocating, r.rounds
    );
    let by_status = &r.summary.stats.by_status;
    assert!(by_status[302] >= 10_000 / 4, "{}", by_status[302]);
    assert!(by_status[303] >= 10_000 / 4, "{}", by_status[303]);
    assert!(by_status[200] >= 2 * 10_000 / 4, "{}", by_status[200]);
}
