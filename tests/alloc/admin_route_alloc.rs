//! Routes given through the admin API at run time are preformatted like those given at start:
//! over keep-alive and pipelined requests the process (server and client) makes no allocation
//! at all.

use crate::counting;

/// Routes given through the admin API at run time, one replacing a route given at start and
/// one added with its own type and field, one by method, answer over keep-alive and pipelined
/// requests without any allocation in the process, as routes given at start do.
pub fn routes_given_at_run_time_allocate_nothing() {
    use std::io::{Read, Write};
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--admin",
        "127.0.0.1:0",
        "--route",
        "/api=200:at start",
    ];
    let put = |h: &canned::server::Handle, path: &str, body: &str| {
        let mut s = std::net::TcpStream::connect(h.admin_addr().unwrap()).unwrap();
        write!(
            s,
            "PUT {path} HTTP/1.1\r\nHost: a\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 20"), "{answer}");
    };
    let requests: [(&[u8], &[u8]); 4] = [
        (b"GET /api HTTP/1.1\r\nHost: t\r\n\r\n", b"{\"ok\":true}"),
        (b"GET /new HTTP/1.1\r\nHost: t\r\n\r\n", b"made at runtime"),
        (
            b"POST /form HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\na=1",
            b"",
        ),
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
    ];
    let r = counting::count_allocations_around(
        &args,
        |h| {
            put(
                h,
                "/routes/api",
                "200:{\"ok\":true}\nContent-Type: application/json",
            );
            put(h, "/routes/new", "201:made at runtime\nX-Made: yes");
            put(h, "/routes/form?method=POST", "303\nLocation: /done");
        },
        &requests,
        300,
        10_000,
        |_| {},
    );
    assert_eq!(
        r.allocations, 0,
        "{} of {} rounds allocated",
        r.rounds_allocating, r.rounds
    );
    let by_status = &r.summary.stats.by_status;
    assert!(by_status[201] >= 10_000 / 4, "{}", by_status[201]);
    assert!(by_status[303] >= 10_000 / 4, "{}", by_status[303]);
}
