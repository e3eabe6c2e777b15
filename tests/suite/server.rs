//! The server over real loopback sockets: keep-alive, pipelining, bodies, errors, timeouts,
//! limits and shutdown.

use crate::common;
use common::*;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

#[test]
fn keep_alive_11_many_requests_on_one_connection() {
    let (_h, addr) = start(&[]);
    let mut s = connect(addr);
    for i in 0..1000 {
        s.write_all(GET).unwrap();
        let r = read_responses(&mut s, 1);
        assert_eq!(r[0].status, 200, "request {i}");
        assert_eq!(r[0].body, b"Hello World\n");
        assert_eq!(r[0].header("connection"), None);
        assert_eq!(
            r[0].header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(r[0].header("server"), Some("canned"));
    }
}

#[test]
fn http10_closes_and_http10_keep_alive_stays_open() {
    let (_h, addr) = start(&[]);
    let out = exchange(addr, b"GET / HTTP/1.0\r\n\r\n");
    let r = parse_responses(&out, &[]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].header("connection"), Some("close"));

    let mut s = connect(addr);
    for _ in 0..3 {
        s.write_all(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            .unwrap();
        let r = read_responses(&mut s, 1);
        // `ab -k` counts a keep-alive response only with exactly this header.
        assert_eq!(r[0].header("connection"), Some("keep-alive"));
    }
}

#[test]
fn connection_close_on_11_is_honoured_and_later_requests_are_not_answered() {
    let (_h, addr) = start(&[]);
    let mut req = GET.to_vec();
    req.extend_from_slice(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    req.extend_from_slice(GET);
    let r = parse_responses(&exchange(addr, &req), &[]);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].header("connection"), None);
    assert_eq!(r[1].header("connection"), Some("close"));
}

#[test]
fn hundred_pipelined_requests_in_one_write_answered_in_order() {
    let (_h, addr) = start(&["--route", "/a=200:A", "--route", "/b=201:BB"]);
    let mut req = Vec::new();
    for i in 0..100 {
        let path = if i % 2 == 0 { "/a" } else { "/b?x" };
        req.extend_from_slice(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
    }
    let mut s = connect(addr);
    s.write_all(&req).unwrap();
    let r = read_responses(&mut s, 100);
    for (i, r) in r.iter().enumerate() {
        if i % 2 == 0 {
            assert_eq!((r.status, r.body.as_slice()), (200, &b"A"[..]), "{i}");
        } else {
            assert_eq!((r.status, r.body.as_slice()), (201, &b"BB"[..]), "{i}");
        }
    }
}

#[test]
fn request_sent_byte_by_byte() {
    let (_h, addr) = start(&[]);
    let mut s = connect(addr);
    for &b in b"GET /slow HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n\r\n" {
        s.write_all(&[b]).unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(read_responses(&mut s, 1)[0].status, 200);
}

#[test]
fn bodies_are_skipped_and_a_request_hidden_in_a_body_is_not_answered() {
    let (_h, addr) = start(&[
        "--route",
        "/smuggled=500:SMUGGLED",
        "--route",
        "/after=202:after",
    ]);
    let hidden = b"GET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n";
    let mut req = format!(
        "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        hidden.len()
    )
    .into_bytes();
    req.extend_from_slice(hidden);
    req.extend_from_slice(b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
    req.extend_from_slice(format!("{:x}\r\n", hidden.len()).as_bytes());
    req.extend_from_slice(hidden);
    req.extend_from_slice(b"\r\n0\r\nTrailer: x\r\n\r\n");
    req.extend_from_slice(b"GET /after HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    // Also in small pieces, so that bodies straddle reads.
    for chunk in [req.len(), 7] {
        let mut s = connect(addr);
        for piece in req.chunks(chunk) {
            s.write_all(piece).unwrap();
            if chunk < req.len() {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let r = parse_responses(&read_to_eof(&mut s), &[]);
        let statuses: Vec<u16> = r.iter().map(|r| r.status).collect();
        assert_eq!(statuses, [200, 200, 202], "chunk {chunk}");
    }
}

#[test]
fn head_gets_headers_and_no_body() {
    let (_h, addr) = start(&[]);
    let mut s = connect(addr);
    s.write_all(
        b"HEAD / HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let r = parse_responses(&read_to_eof(&mut s), &[true, false]);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].header("content-length"), Some("12"));
    assert!(r[0].body.is_empty());
    assert_eq!(r[1].body, b"Hello World\n");
}

#[test]
fn each_error_status_is_sent_then_the_connection_closes() {
    let (_h, addr) = start(&["--max-head-bytes", "256", "--max-headers", "3"]);
    let long = format!("GET /{} HTTP/1.1\r\nHost: t\r\n\r\n", "a".repeat(300));
    let big = format!(
        "GET / HTTP/1.1\r\nHost: t\r\nX: {}\r\n\r\n",
        "a".repeat(300)
    );
    let cases: [(&[u8], u16); 8] = [
        (b"GET / HTTP/1.1\r\n\r\n", 400),
        (b"GET /\x01 HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        (long.as_bytes(), 414),
        (b"PUT / HTTP/1.1\r\nHost: t\r\nExpect: teapot\r\n\r\n", 417),
        (big.as_bytes(), 431),
        (
            b"GET / HTTP/1.1\r\nHost: t\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
            431,
        ),
        (
            b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: br, chunked\r\n\r\n",
            501,
        ),
        (b"GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505),
    ];
    for (req, status) in cases {
        let mut full = req.to_vec();
        full.extend_from_slice(GET); // never answered: the connection closes after the error
        let r = parse_responses(&exchange(addr, &full), &[]);
        assert_eq!(r.len(), 1, "{status}");
        assert_eq!(r[0].status, status);
        assert_eq!(r[0].header("connection"), Some("close"));
        assert!(String::from_utf8_lossy(&r[0].body).starts_with(&status.to_string()));
    }
}

#[test]
fn expect_100_continue() {
    let (_h, addr) = start(&[]);
    let mut s = connect(addr);
    s.write_all(b"PUT / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 25];
    s.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(b"hello").unwrap();
    let r = read_responses(&mut s, 1);
    assert_eq!(r[0].status, 200);
}

#[test]
fn header_timeout_answers_408_and_closes() {
    let (_h, addr) = start(&["--header-timeout", "300ms"]);
    // The first head's timeout counts from the accept, which is after this.
    let t = Instant::now();
    let mut s = connect(addr);
    s.write_all(b"GET / HTTP/1.1\r\nHost").unwrap();
    let r = parse_responses(&read_to_eof(&mut s), &[]);
    let took = t.elapsed();
    assert_eq!(r[0].status, 408);
    assert!(
        took >= Duration::from_millis(300) && took < time_bound(Duration::from_millis(1500)),
        "{took:?}"
    );
}

#[test]
fn idle_timeout_closes_silently() {
    let (_h, addr) = start(&["--idle-timeout", "300ms"]);
    let mut s = connect(addr);
    s.write_all(GET).unwrap();
    read_responses(&mut s, 1);
    let t = Instant::now();
    assert!(read_to_eof(&mut s).is_empty());
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < time_bound(Duration::from_millis(1500)),
        "{took:?}"
    );
}

#[test]
fn max_requests_closes_after_n_responses() {
    let (_h, addr) = start(&["--max-requests", "3"]);
    let mut req = Vec::new();
    for _ in 0..5 {
        req.extend_from_slice(GET);
    }
    let r = parse_responses(&exchange(addr, &req), &[]);
    assert_eq!(r.len(), 3);
    assert_eq!(r[2].header("connection"), Some("close"));
}

/// Wait (at most 10 s) until the server counts `n` open connections.
fn wait_open(h: &canned::server::Handle, n: usize) {
    let t = Instant::now();
    while h.open_connections() != n && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(h.open_connections(), n);
}

#[test]
fn max_conns_stops_accepting_only_while_no_connection_is_idle() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--max-conns", "2", "--workers", workers]);
        // Two connections, each in the middle of a request: neither is idle. Each sends a
        // whole request and the start of the next in one write and reads the first answer,
        // so the server has read the half request (one segment, one read): a connection that
        // has sent nothing the server could see yet is silent, and may be closed to make room.
        let mut a = connect(addr);
        let mut b = connect(addr);
        for s in [&mut a, &mut b] {
            s.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHo")
                .unwrap();
            assert_eq!(read_responses(s, 1)[0].status, 200);
        }
        wait_open(&h, 2);
        // The third connection completes in the kernel's backlog but is not served...
        let mut c = connect(addr);
        c.write_all(GET).unwrap();
        c.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut buf = [0u8; 1];
        match c.read_some(&mut buf) {
            Err(_) => {}
            Ok(0) => panic!("{workers} workers: the connection beyond --max-conns was closed"),
            Ok(_) => panic!("{workers} workers: served beyond --max-conns"),
        }
        // ...until another closes.
        drop(a);
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        assert_eq!(
            read_responses(&mut c, 1)[0].status,
            200,
            "{workers} workers"
        );
        b.write_all(b"st: t\r\n\r\n").unwrap();
        assert_eq!(read_responses(&mut b, 1)[0].status, 200);
    }
}

#[test]
fn half_closed_client_still_gets_its_responses() {
    let (_h, addr) = start(&[]);
    let mut s = connect(addr);
    s.write_all(GET).unwrap();
    s.write_all(GET).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let r = parse_responses(&read_to_eof(&mut s), &[]);
    assert_eq!(r.len(), 2);
}

#[test]
fn graceful_shutdown_finishes_the_request_in_flight() {
    let (h, addr) = start(&["--workers", "1"]);
    let mut idle = connect(addr);
    idle.write_all(GET).unwrap();
    read_responses(&mut idle, 1);
    let mut busy = connect(addr);
    busy.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
    // Its first bytes read: a request in flight, not an idle connection.
    wait_unread_by_server(&busy, 0);
    h.shutdown();
    // The idle keep-alive connection is closed at once.
    assert!(read_to_eof(&mut idle).is_empty());
    // The one mid-request is answered, with Connection: close.
    busy.write_all(b"st: t\r\n\r\n").unwrap();
    let r = parse_responses(&read_to_eof(&mut busy), &[]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].header("connection"), Some("close"));
    // canned drains input until the client closes too (or 2 s pass).
    drop(busy);
    let t = Instant::now();
    let summary = h.join();
    assert!(t.elapsed() < time_bound(Duration::from_secs(2)));
    assert_eq!(summary.stats.requests, 2);
    assert_eq!(summary.connections, 2);
    assert!(
        TcpStream::connect(addr).is_err(),
        "still accepting after shutdown"
    );
}

#[test]
fn a_thousand_concurrent_keep_alive_connections() {
    canned::server::raise_fd_limit();
    let (h, addr) = start(&[]);
    let mut conns: Vec<TcpStream> = (0..1000).map(|_| connect(addr)).collect();
    for s in &mut conns {
        s.write_all(GET).unwrap();
    }
    for s in &mut conns {
        assert_eq!(read_responses(s, 1)[0].status, 200);
    }
    // A second round on the same connections.
    for s in &mut conns {
        s.write_all(GET).unwrap();
    }
    for s in &mut conns {
        assert_eq!(read_responses(s, 1)[0].status, 200);
    }
    assert_eq!(h.open_connections(), 1000);
    drop(conns);
    let t = Instant::now();
    while h.open_connections() > 0 && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(h.open_connections(), 0);
}

#[test]
fn routes_and_health() {
    let (_h, addr) = start(&[
        "--route",
        "/missing=404:not here\n",
        "--health",
        "/healthz",
        "--status",
        "202",
        "--body",
        "default",
    ]);
    let ask = |req: &[u8]| parse_responses(&exchange(addr, req), &[]).remove(0);
    let r = ask(b"GET /missing?q=1 HTTP/1.0\r\n\r\n");
    assert_eq!((r.status, r.body.as_slice()), (404, &b"not here\n"[..]));
    let r = ask(b"GET /healthz HTTP/1.0\r\n\r\n");
    assert_eq!((r.status, r.body.as_slice()), (200, &b"ok"[..]));
    let r = ask(b"POST /healthz HTTP/1.0\r\n\r\n");
    assert_eq!((r.status, r.body.as_slice()), (202, &b"default"[..]));
    let r = ask(b"GET /other HTTP/1.0\r\n\r\n");
    assert_eq!((r.status, r.body.as_slice()), (202, &b"default"[..]));
    let r = ask(b"GET http://h/missing HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    assert_eq!(r.status, 404);
}

#[test]
fn large_body_is_streamed_whole() {
    let dir = std::env::temp_dir().join(format!("canned-body-{}", std::process::id()));
    let body: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&dir, &body).unwrap();
    let (_h, addr) = start(&["--body-file", dir.to_str().unwrap()]);
    let mut req = GET.to_vec();
    req.extend_from_slice(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    let r = parse_responses(&exchange(addr, &req), &[]);
    std::fs::remove_file(&dir).unwrap();
    assert_eq!(r.len(), 2);
    assert!(r[0].body == body && r[1].body == body);
}

#[test]
fn date_header_is_an_imf_fixdate() {
    let (h, _) = start(&[]);
    drop(h);
    let c = canned::config::Config::default()
        .listen("127.0.0.1:0")
        .unwrap();
    let h = canned::server::Server::bind(c).unwrap().spawn().unwrap();
    let r = parse_responses(
        &exchange(h.tcp_addr().unwrap(), b"GET / HTTP/1.0\r\n\r\n"),
        &[],
    );
    let date = r[0].header("date").expect("Date header");
    assert_eq!(date.len(), 29);
    assert!(
        date.ends_with(" GMT") && date.as_bytes()[3] == b',',
        "{date}"
    );
}

const GET_CLOSE: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

#[cfg(feature = "stats")]
#[test]
fn at_max_conns_the_longest_idle_connection_makes_room() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--max-conns",
            "20",
            "--workers",
            workers,
            "--stats",
            "/stats",
        ]);
        let mut old: Vec<TcpStream> = (0..20)
            .map(|_| {
                let mut s = connect(addr);
                s.write_all(GET).unwrap();
                read_responses(&mut s, 1);
                std::thread::sleep(Duration::from_millis(3));
                s
            })
            .collect();
        wait_open(&h, 20);
        // Forty more keep-alive clients, each held open after its answer.
        let mut fresh = Vec::new();
        for i in 0..40 {
            let mut s = connect(addr);
            s.write_all(GET).unwrap();
            let r = read_responses(&mut s, 1);
            assert_eq!(r[0].status, 200, "client {i}, {workers} workers");
            fresh.push(s);
            // Idle times are kept in microseconds: keep the order unambiguous.
            std::thread::sleep(Duration::from_millis(3));
        }
        wait_open(&h, 20);
        if workers == "1" {
            // Longest idle first: the twenty first connections were closed, the newest
            // twenty are open.
            for s in &mut old {
                assert!(read_to_eof(s).is_empty());
            }
            for s in &mut fresh[20..] {
                s.write_all(GET).unwrap();
                assert_eq!(read_responses(s, 1)[0].status, 200);
            }
        }
        // Counted in --stats (published every 100 ms: ask until it shows, within 10 s; each
        // request makes room too) and in the summary.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut asked = 0;
        loop {
            let stats = parse_responses(&exchange(addr, b"GET /stats HTTP/1.0\r\n\r\n"), &[]);
            asked += 1;
            let body = String::from_utf8(stats[0].body.clone()).unwrap();
            let n: u64 = body
                .split("\"idle_closed_at_limit\":")
                .nth(1)
                .and_then(|r| r.split(',').next())
                .unwrap()
                .parse()
                .unwrap();
            if n >= 40 {
                break;
            }
            assert!(Instant::now() < deadline, "{body}");
            std::thread::sleep(Duration::from_millis(100));
        }
        drop((old, fresh));
        h.shutdown();
        // The first stats request made room too; the later ones find the room it left when
        // it closed (HTTP/1.0).
        assert!(asked >= 1);
        assert_eq!(h.join().idle_closed_at_limit, 41, "{workers} workers");
    }
}

/// The connection limit is per process: a worker with no idle connection of its own has
/// another worker close one. Repeated with fresh servers, so that a round where both idle
/// connections sit on the worker that does not get the new client comes up (about one round
/// in four: 20 rounds miss it with a chance of 0.3 %).
#[test]
fn at_max_conns_an_idle_connection_on_another_worker_makes_room() {
    for round in 0..20 {
        let (h, addr) = start(&["--max-conns", "2", "--workers", "2"]);
        let idle: Vec<TcpStream> = (0..2)
            .map(|_| {
                let mut s = connect(addr);
                s.write_all(GET).unwrap();
                read_responses(&mut s, 1);
                s
            })
            .collect();
        wait_open(&h, 2);
        let started = Instant::now();
        let mut fresh = connect(addr);
        fresh
            .set_read_timeout(Some(time_bound(Duration::from_secs(5))))
            .unwrap();
        fresh.write_all(GET_CLOSE).unwrap();
        let mut reply = Vec::new();
        let answered = fresh.read_to_end(&mut reply).is_ok() && !reply.is_empty();
        assert!(
            answered,
            "round {round}: not answered within {:?} while a connection was idle",
            started.elapsed()
        );
        assert_eq!(parse_responses(&reply, &[])[0].status, 200, "round {round}");
        drop(idle);
        h.shutdown();
        assert!(h.join().idle_closed_at_limit >= 1, "round {round}");
    }
}

#[test]
fn every_worker_resumes_accepting_when_the_open_count_falls() {
    // A limit of one, held by a connection in the middle of a request (not idle): the
    // other worker has no connection of its own, and stops accepting as soon as a client
    // reaches it; only the shared count can tell it to resume.
    let (h, addr) = start(&["--max-conns", "1", "--workers", "2"]);
    let mut busy = connect(addr);
    busy.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
    wait_open(&h, 1);
    let mut waiting: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = connect(addr);
            s.write_all(GET_CLOSE).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(h.open_connections(), 1);
    drop(busy);
    for (i, s) in waiting.iter_mut().enumerate() {
        let r = parse_responses(&read_to_eof(s), &[]);
        assert_eq!(r.len(), 1, "waiting client {i} not answered");
    }
    for i in 0..40 {
        let r = parse_responses(&exchange(addr, GET_CLOSE), &[]);
        assert_eq!(r.len(), 1, "client {i} not answered");
    }
}

#[test]
fn a_response_held_by_delay_at_shutdown_says_connection_close() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--delay", "500ms", "--workers", workers]);
        let mut s = connect(addr);
        s.write_all(GET).unwrap();
        // Within the hold: read by then, and 400 ms short of its end. A window, not a wait for
        // progress: reading /proc/net/tcp for the request's arrival can itself take longer than
        // the hold on a host with many sockets.
        std::thread::sleep(Duration::from_millis(100));
        h.shutdown();
        let r = parse_responses(&read_to_eof(&mut s), &[]);
        assert_eq!(r.len(), 1);
        assert_eq!(
            r[0].header("connection"),
            Some("close"),
            "{workers} workers"
        );
        assert_eq!(r[0].body, b"Hello World\n");
        drop(s);
        h.join();
    }
}

/// Leave responses unread and trickle a partial head, one byte every 100 ms; return how long
/// the server took to close. A unix socket, whose kernel buffer (about 208 KiB by default)
/// does not grow as loopback TCP's does, leaves part of five 50 KB responses pending in the
/// server: below the backpressure mark, so input is still read.
fn trickle_with_output_pending(flags: &[&str]) -> Duration {
    use std::os::unix::net::UnixStream;
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "canned-trickle-{}-{}.sock",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let listen = format!("unix:{}", path.display());
    let body = format!("/big=200:{}", "b".repeat(50_000));
    let mut args = vec!["--workers", "1", "--route", &body, "--listen", &listen];
    args.extend_from_slice(flags);
    let (h, _) = start(&args);
    let mut s = UnixStream::connect(&path).unwrap();
    s.write_all(&b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n".repeat(5))
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let head = format!("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: {}", "a".repeat(200));
    for &b in head.as_bytes() {
        if h.open_connections() == 0 || s.write_all(&[b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    wait_open_within(&h, 0, Duration::from_secs(5));
    t.elapsed()
}

/// Wait until the server counts `n` open connections, at most `limit`.
fn wait_open_within(h: &canned::server::Handle, n: usize, limit: Duration) {
    let t = Instant::now();
    while h.open_connections() != n && t.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn header_timeout_applies_while_output_is_pending() {
    // Without it the connection would live as long as the trickle (about 10 s).
    let took = trickle_with_output_pending(&["--header-timeout", "1s", "--write-timeout", "60s"]);
    assert!(took < Duration::from_secs(6), "{took:?}");
}

#[test]
fn write_timeout_is_refreshed_by_write_progress_only() {
    let took = trickle_with_output_pending(&["--header-timeout", "60s", "--write-timeout", "1s"]);
    assert!(took < Duration::from_secs(6), "{took:?}");
}

#[test]
fn lingering_after_an_error_survives_a_read_with_nothing_to_read() {
    for workers in ["1", "2"] {
        let (h, addr) = start(&["--workers", workers]);
        let mut s = connect(addr);
        s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap(); // no Host: 400, then linger
        let r = parse_responses(&read_to_eof(&mut s), &[]);
        assert_eq!(r[0].status, 400);
        // Urgent data wakes the reader (EPOLLPRI) but a plain read finds nothing (EAGAIN).
        // SAFETY: send(2) on a connected socket we own, with a valid one-byte buffer.
        let sent = unsafe {
            libc::send(
                std::os::fd::AsRawFd::as_raw_fd(&s),
                b"!".as_ptr().cast(),
                1,
                libc::MSG_OOB,
            )
        };
        assert_eq!(sent, 1);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            h.open_connections(),
            1,
            "lingering ended early ({workers} workers)"
        );
        // It ends at end of input.
        drop(s);
        wait_open(&h, 0);
    }
}

/// SIGTERM to a `canned` process.
fn sigterm(p: &Proc) {
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(p.child.id() as i32, libc::SIGTERM);
    }
}

/// Whether a signal to the process waits for a thread to take it (`ShdPnd`, a hex mask).
#[cfg(feature = "access-log")]
fn signal_pending(p: &Proc) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{}/status", p.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("ShdPnd:"))
        .is_some_and(|mask| mask.trim().chars().any(|c| c != '0'))
}

/// Wait at most `limit` for the process to exit; returns how long it took, or `None`.
fn exit_within(p: &mut Proc, limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if p.child.try_wait().unwrap().is_some() {
            return Some(t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

#[test]
fn shutdown_exits_once_the_response_in_flight_is_written() {
    let path = std::env::temp_dir().join(format!("canned-8mib-{}", std::process::id()));
    let body: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &body).unwrap();
    for workers in ["1", "2"] {
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--body-file",
            path.to_str().unwrap(),
            "--shutdown-timeout",
            "30s",
        ]);
        let mut s = connect(p.addr);
        s.write_all(GET).unwrap();
        let mut first = [0u8; 65536];
        s.read_exact(&mut first).unwrap();
        sigterm(&p);
        std::thread::sleep(Duration::from_millis(100));
        let mut rest = first.to_vec();
        rest.extend_from_slice(&read_to_eof(&mut s));
        let r = parse_responses(&rest, &[]);
        assert_eq!(r.len(), 1);
        assert!(r[0].body == body, "{workers} workers: body cut short");
        // Idle once its response is written: closed at once, not at --shutdown-timeout.
        let took = exit_within(&mut p, Duration::from_secs(10));
        assert!(
            took.is_some(),
            "{workers} workers: still running 10 s after its last response"
        );
    }
    std::fs::remove_file(&path).unwrap();
}

/// Threads of a process stopped through ptrace; they resume when this is dropped (also when
/// the test fails, or the process could never be reaped: a traced thread's exit waits for
/// its tracer).
#[cfg(feature = "access-log")]
struct Frozen(Vec<i32>);

#[cfg(feature = "access-log")]
impl Drop for Frozen {
    fn drop(&mut self) {
        for &tid in &self.0 {
            // SAFETY: ptrace on a thread this thread attached to; no memory is passed.
            unsafe {
                libc::ptrace(libc::PTRACE_DETACH, tid, 0, 0);
            }
        }
    }
}

/// Stop every thread of process `pid` but the one named `except`, through ptrace
/// (PTRACE_SEIZE, PTRACE_INTERRUPT): that one runs on, and a signal to the process goes to it.
/// Waits for `except` to have its name first (a new thread names itself once it runs), and
/// for the others to wait in epoll_wait.
#[cfg(feature = "access-log")]
fn freeze_threads(pid: u32, except: &str) -> Frozen {
    let name = |t: &std::fs::DirEntry| {
        std::fs::read_to_string(t.path().join("comm")).map(|c| c.trim().to_string())
    };
    let tasks = || -> Vec<std::fs::DirEntry> {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .flatten()
            .collect()
    };
    let t = Instant::now();
    while !tasks().iter().any(|t| name(t).is_ok_and(|n| n == except)) {
        assert!(
            t.elapsed() < time_bound(Duration::from_secs(10)),
            "no thread {except}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // Each of the others asleep in epoll_wait, its turn over: a turn stopped midway would
    // leave its connections first in the ready list when it resumes.
    let t = Instant::now();
    while !tasks().iter().all(|t| {
        name(t).is_ok_and(|n| n == except)
            || std::fs::read_to_string(t.path().join("wchan"))
                .is_ok_and(|w| w.contains("epoll_wait"))
    }) {
        assert!(
            t.elapsed() < time_bound(Duration::from_secs(10)),
            "the workers never waited in epoll_wait"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut frozen = Frozen(Vec::new());
    for t in tasks() {
        if name(&t).is_ok_and(|n| n == except) {
            continue;
        }
        let tid: i32 = t.file_name().to_str().unwrap().parse().unwrap();
        // SAFETY: ptrace and waitpid on a thread of our own child; no memory is passed.
        unsafe {
            assert_eq!(
                libc::ptrace(libc::PTRACE_SEIZE, tid, 0, 0),
                0,
                "PTRACE_SEIZE {tid}: {}",
                std::io::Error::last_os_error()
            );
            frozen.0.push(tid);
            assert_eq!(libc::ptrace(libc::PTRACE_INTERRUPT, tid, 0, 0), 0);
            let mut status = 0;
            assert_eq!(libc::waitpid(tid, &mut status, libc::__WALL), tid);
            assert!(libc::WIFSTOPPED(status), "{status:#x}");
        }
    }
    frozen
}

#[cfg(feature = "access-log")]
#[test]
// It stops the worker threads through ptrace, which qemu-user does not emulate for the
// threads it runs: ignored there with this reason (docs/platforms.md).
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "stops the server's worker threads through ptrace, which qemu-user does not emulate"
)]
fn shutdown_answers_a_request_already_waiting_with_connection_close() {
    for workers in [1, 2] {
        // The access log's writer thread stays running to take the signal.
        let mut p = Proc::start(&["--workers", &workers.to_string(), "--access-log"]);
        let mut log = p.child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = log.read_to_end(&mut sink);
        });
        let mut idle: Vec<TcpStream> = (0..8)
            .map(|_| {
                let mut s = connect(p.addr);
                s.write_all(GET).unwrap();
                read_responses(&mut s, 1);
                s
            })
            .collect();
        // The workers stopped: what arrives meanwhile waits in the kernel until they resume.
        let frozen = freeze_threads(p.child.id(), "canned-log");
        assert_eq!(frozen.0.len(), workers, "the workers' threads");
        // The shutdown signal first, then a request on each idle connection: when the
        // workers resume, draining starts with those requests unread in the socket buffers.
        sigterm(&p);
        // Taken by the access log's thread (no longer pending for the process), whose handler
        // wakes the workers when they resume.
        let t = Instant::now();
        while signal_pending(&p) {
            assert!(
                t.elapsed() < time_bound(Duration::from_secs(10)),
                "SIGTERM pending"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        for s in &mut idle {
            s.write_all(GET).unwrap();
        }
        // Each request waits in its socket's buffer, unread.
        for s in &idle {
            wait_unread_by_server(s, GET.len() as u64);
        }
        drop(frozen);
        for (i, s) in idle.iter_mut().enumerate() {
            let r = parse_responses(&read_to_eof(s), &[]);
            assert_eq!(r.len(), 1, "{workers} workers, connection {i}: no answer");
            assert_eq!(
                r[0].header("connection"),
                Some("close"),
                "{workers} workers, {i}"
            );
        }
        drop(idle);
        assert!(exit_within(&mut p, Duration::from_secs(10)).is_some());
        reader.join().unwrap();
    }
}

/// An 8 MiB response left unread, then a second head trickled one byte every 250 ms: the
/// earlier of the header and write timeouts closes the connection, neither waits for the
/// other. Returns how long after the first byte of the second head the close came.
fn trickle_behind_a_large_unread_body(name: &str, flags: &[&str]) -> Duration {
    let path = std::env::temp_dir().join(format!("canned-{name}-{}", std::process::id()));
    std::fs::write(&path, vec![b'b'; 8 << 20]).unwrap();
    let mut args = vec!["--workers", "1", "--body-file", path.to_str().unwrap()];
    args.extend_from_slice(flags);
    let (h, addr) = start(&args);
    let mut s = connect(addr);
    s.write_all(GET).unwrap();
    // The response has begun: the connection is accepted and its output pending.
    s.read_exact(&mut [0; 1]).unwrap();
    let t = Instant::now();
    for &b in GET {
        if h.open_connections() == 0 || s.write_all(&[b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    wait_open_within(&h, 0, Duration::from_secs(40));
    let took = t.elapsed();
    let _ = std::fs::remove_file(&path);
    h.shutdown();
    h.join();
    took
}

#[test]
fn header_timeout_closes_before_a_later_write_timeout() {
    let took = trickle_behind_a_large_unread_body(
        "unread-h",
        &["--header-timeout", "2s", "--write-timeout", "30s"],
    );
    // Closed by the 2 s header timeout, far before the 30 s write timeout (or their sum).
    assert!(took >= Duration::from_millis(1_900), "{took:?}");
    assert!(took < time_bound(Duration::from_secs(15)), "{took:?}");
}

#[test]
fn write_timeout_closes_before_a_later_header_timeout() {
    let took = trickle_behind_a_large_unread_body(
        "unread-w",
        &["--header-timeout", "30s", "--write-timeout", "2s"],
    );
    // Closed by the 2 s write timeout, far before the 30 s header timeout (or their sum).
    assert!(took >= Duration::from_millis(1_900), "{took:?}");
    assert!(took < time_bound(Duration::from_secs(15)), "{took:?}");
}
