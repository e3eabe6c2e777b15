//! Under attack and under faults, against the `canned` binary in its own process (so that its
//! memory, fds and CPU time can be read from /proc). Sizes are short for CI; `CANNED_LONG=1`
//! (see `tests/abuse-long.sh`) runs the full versions. Figures are printed with `--nocapture`.

use crate::common;
use common::*;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

/// These tests measure time, CPU and memory: run them one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn long() -> bool {
    std::env::var_os("CANNED_LONG").is_some()
}

/// One keep-alive request; returns its latency.
fn ping(s: &mut TcpStream) -> Duration {
    let t = Instant::now();
    s.write_all(GET).unwrap();
    let r = read_responses(s, 1);
    assert_eq!(r[0].status, 200);
    t.elapsed()
}

#[test]
fn slowloris_is_closed_at_the_header_timeout_while_others_are_served() {
    let _serial = serial();
    let (n, timeout, every) = if long() {
        (500, 10.0, Duration::from_secs(1))
    } else {
        (100, 2.0, Duration::from_millis(300))
    };
    let p = Proc::start(&["--workers", "1", "--header-timeout", &format!("{timeout}s")]);
    canned::server::raise_fd_limit();
    let head =
        b"GET / HTTP/1.1\r\nHost: slowloris.example\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    let mut slow: Vec<(TcpStream, Option<Instant>, Option<Duration>)> = (0..n)
        .map(|_| {
            let s = connect(p.addr);
            s.set_nonblocking(true).unwrap();
            (s, None, None)
        })
        .collect();
    let mut fast = connect(p.addr);
    let mut worst = Duration::ZERO;
    let mut served = 0;
    let start = Instant::now();
    let mut sent = 0;
    let mut next = Instant::now();
    let mut buf = [0u8; 4096];
    while slow.iter().any(|c| c.2.is_none()) {
        assert!(
            start.elapsed() < time_bound(Duration::from_secs_f64(timeout * 3.0 + 5.0)),
            "slow connections not closed"
        );
        if Instant::now() >= next && sent < head.len() {
            for (s, first, closed) in slow.iter_mut() {
                if closed.is_none() && s.write_all(&head[sent..sent + 1]).is_ok() {
                    first.get_or_insert_with(Instant::now);
                }
            }
            sent += 1;
            next += every;
        }
        for (s, first, closed) in slow.iter_mut() {
            if closed.is_some() {
                continue;
            }
            match s.read_some(&mut buf) {
                Ok(0) => *closed = Some(first.unwrap().elapsed()),
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(_) => *closed = Some(first.unwrap().elapsed()),
            }
        }
        worst = worst.max(ping(&mut fast));
        served += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    let times: Vec<f64> = slow.iter().map(|c| c.2.unwrap().as_secs_f64()).collect();
    let (lo, hi) = times
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    eprintln!(
        "slowloris: {n} connections, header timeout {timeout}s, closed after {lo:.2}..{hi:.2}s; \
         {served} other requests served, slowest {worst:?}"
    );
    assert!(
        lo >= timeout - 1.0 && hi <= timeout + time_bound(Duration::from_secs(1)).as_secs_f64(),
        "close times {lo:.2}..{hi:.2}"
    );
    // Well under the header timeout (what a worker stuck on the slow clients would cost),
    // with room for a loaded machine's scheduling.
    assert!(
        worst < time_bound(Duration::from_millis(1000)),
        "other clients slowed: {worst:?}"
    );
}

#[test]
fn idle_herd_of_keep_alive_connections() {
    let _serial = serial();
    let n = 10_000;
    canned::server::raise_fd_limit();
    let p = Proc::start(&["--workers", "1", "--max-conns", "12000"]);
    let idle = p.rss_kib();
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        let mut s = connect(p.addr);
        s.write_all(GET).unwrap();
        conns.push(s);
    }
    for s in &mut conns {
        assert_eq!(read_responses(s, 1)[0].status, 200);
    }
    std::thread::sleep(Duration::from_millis(300));
    let herd = p.rss_kib();
    let mut fresh = connect(p.addr);
    let latency = ping(&mut fresh);
    eprintln!(
        "idle herd: {n} connections served; RSS idle {idle} KiB, with the herd {herd} KiB \
         (+{} bytes per connection); a new client served in {latency:?}",
        (herd.saturating_sub(idle)) * 1024 / n as u64
    );
    assert!(latency < time_bound(Duration::from_millis(100)));
    // An idle connection holds no buffers: a generous bound that buffers would blow, the one
    // the docs/limits.md's table states.
    let each = herd.saturating_sub(idle) * 1024 / n as u64;
    let bound = documented_idle_herd_bound();
    assert!(
        each <= bound,
        "RSS grew by {each} bytes a connection, over {bound}"
    );
}

/// The bound the docs/limits.md's table gives for the idle herd: "at most N bytes a
/// connection" in its row, so that docs/limits.md states what this test holds, not a figure from
/// one run.
fn documented_idle_herd_bound() -> u64 {
    let page = include_str!("../../docs/limits.md");
    let row = page
        .lines()
        .find(|l| l.starts_with("| idle herd: 10,000 keep-alive connections"))
        .expect("docs/limits.md: the idle herd row");
    let (_, rest) = row
        .split_once("at most ")
        .expect("docs/limits.md: the idle herd row states its bound");
    let (n, _) = rest
        .split_once(" bytes a connection")
        .expect("docs/limits.md: the bound in bytes a connection");
    n.parse().expect("docs/limits.md: a whole number of bytes")
}

#[test]
fn the_docs_state_the_idle_herd_bound() {
    assert_eq!(documented_idle_herd_bound(), 400);
}

/// One client of a burst: its requests, how far they are written, and how many response bytes
/// it has read.
struct Burster {
    s: TcpStream,
    sent: usize,
    got: usize,
}

/// Memory after a burst (docs/limits.md): clients that pipeline thousands of requests before
/// reading any fill every connection's output to the high-water mark, several MiB in all; once
/// they have read everything and closed, the worker's pool keeps at most 256 KiB of buffers
/// and RSS is back within 1 MiB of idle.
#[test]
fn memory_returns_to_idle_after_a_burst_of_unread_pipelines() {
    let _serial = serial();
    let p = Proc::start(&["--workers", "1", "--no-date"]);
    burst_returns_to_idle(&p, "burst");
}

/// The same burst with `--access-log` to /dev/null: one loop turn's lines are bounded (1 MiB)
/// and every log buffer gives its capacity back once written, so RSS returns to within 1 MiB
/// of idle as without the log (a turn's lines had no bound, and the buffer kept its peak).
#[cfg(feature = "access-log")]
#[test]
fn memory_returns_to_idle_after_a_burst_with_the_access_log() {
    let _serial = serial();
    let mut cmd = std::process::Command::new(bin());
    cmd.args(["--listen", "127.0.0.1:0", "--workers", "1", "--no-date"])
        .arg("--access-log")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    let (child, stderr, line) = spawn_listening(&mut cmd);
    let p = Proc {
        child,
        addr: listening_addr(&line),
        stderr,
    };
    burst_returns_to_idle(&p, "burst with the access log");
    let (code, summary) = p.stop();
    assert_eq!(code, 0);
    eprintln!("burst with the access log: {}", summary.trim());
}

/// Clients that pipeline thousands of requests before reading any, then read everything and
/// close: RSS rises by several MiB and comes back to within 1 MiB of idle.
fn burst_returns_to_idle(p: &Proc, label: &str) {
    let (clients, requests) = if long() { (64, 20_000) } else { (32, 5_000) };
    // One request: the worker's poller and read buffer exist, and the response length is known.
    let resp_len = {
        let mut s = connect(p.addr);
        s.write_all(GET).unwrap();
        let mut buf = [0u8; 4096];
        let mut n = 0;
        while !buf[..n].ends_with(b"Hello World\n") {
            let k = s.read_some(&mut buf[n..]).unwrap();
            assert!(k > 0, "closed");
            n += k;
        }
        n
    };
    std::thread::sleep(Duration::from_millis(300));
    let idle = p.rss_kib();
    let wire = GET.repeat(requests);
    let want = requests * resp_len;
    let mut burst: Vec<Burster> = (0..clients)
        .map(|_| {
            let s = connect(p.addr);
            s.set_nonblocking(true).unwrap();
            Burster { s, sent: 0, got: 0 }
        })
        .collect();
    let mut buf = vec![0u8; 1 << 16];
    // Write without reading until the server has stopped reading every connection (its
    // output at the high-water mark) or has every request, and RSS stays put.
    let quiet = time_bound(Duration::from_millis(500));
    let start = Instant::now();
    let mut peak = idle;
    let mut last_change = Instant::now();
    while last_change.elapsed() < quiet {
        assert!(
            start.elapsed() < time_bound(Duration::from_secs(20)),
            "the burst did not settle"
        );
        for c in &mut burst {
            match c.s.write_some(&wire[c.sent..]) {
                Ok(n) if n > 0 => {
                    c.sent += n;
                    last_change = Instant::now();
                }
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => panic!("write: {e}"),
            }
        }
        let rss = p.rss_kib();
        if rss > peak {
            peak = rss;
            last_change = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let unread = burst.iter().map(|c| c.sent).sum::<usize>() / GET.len();
    // Now read every response (and write what is left), then close.
    while burst.iter().any(|c| c.got < want) {
        assert!(
            start.elapsed() < time_bound(Duration::from_secs(60)),
            "responses missing"
        );
        let mut progress = false;
        for c in &mut burst {
            if c.sent < wire.len() {
                match c.s.write_some(&wire[c.sent..]) {
                    Ok(n) => c.sent += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("write: {e}"),
                }
            }
            loop {
                match c.s.read_some(&mut buf) {
                    Ok(0) => panic!("closed after {} of {want} bytes", c.got),
                    Ok(n) => {
                        c.got += n;
                        progress = true;
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("read: {e}"),
                }
            }
            assert!(c.got <= want, "more than {requests} responses");
        }
        peak = peak.max(p.rss_kib());
        if !progress {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let served = start.elapsed();
    drop(burst);
    // The buffers go back as each connection's output drains; allow the worker a moment.
    let t = Instant::now();
    let mut after = p.rss_kib();
    while after > idle + 1024 && t.elapsed() < time_bound(Duration::from_secs(2)) {
        std::thread::sleep(Duration::from_millis(50));
        after = p.rss_kib();
    }
    eprintln!(
        "{label}: {clients} clients pipelining {requests} requests each ({unread} written before \
         any was read), all answered in {served:.1?}; RSS idle {idle} KiB, peak {peak} KiB, \
         after {after} KiB (+{} KiB)",
        after as i64 - idle as i64
    );
    // Every connection's output at the high-water mark (256 KiB) at once: several MiB.
    assert!(
        peak >= idle + 4 * 1024,
        "the burst raised RSS only from {idle} to {peak} KiB"
    );
    assert!(
        after <= idle + 1024,
        "RSS {after} KiB after the burst, {idle} KiB idle"
    );
}

/// Memory per connection (docs/limits.md): clients that pipeline without end while reading
/// slowly through a 4 KiB receive buffer keep every connection's output at the high-water
/// mark, its written part growing with each partial write. Each connection holds at most the
/// documented worst case: an output buffer of the 256 KiB mark plus one response (the
/// written part included), and input of a head (8 KiB) plus one 64 KiB read. Measured as the
/// server's RSS at the peak over idle, per connection, with 1 and 2 workers.
#[test]
fn slow_readers_that_pipeline_hold_at_most_the_documented_bytes_each() {
    let _serial = serial();
    let (clients, secs) = if long() { (200, 8) } else { (100, 4) };
    // One response to `GET` (the default body, `--no-date`); the bound allows one more.
    let response =
        b"HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\n\
        Content-Length: 12\r\n\r\nHello World\n"
            .len();
    let (high_water, max_head, read) = (256 * 1024, 8 * 1024, 64 * 1024);
    // Each connection's buffers at their fullest, a page of rounding each (docs/limits.md).
    let bound_kib = ((high_water + response + max_head + read + 2 * 4096) / 1024) as u64;
    // And what the allocator keeps besides: the smaller buffers each one outgrew (growth by
    // doubling), freed but resident until reused. A quarter more; twice the output buffer,
    // as before the bound, is 70% more. docs/limits.md's row states it.
    let rss_bound_kib = bound_kib * 5 / 4;
    assert_eq!(
        documented_slow_readers_bound_kib(),
        rss_bound_kib,
        "docs/limits.md: the slow pipelining readers row states another bound"
    );
    let wire = GET.repeat(4096);
    let mut buf = vec![0u8; 4096];
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--no-date"]);
        {
            let mut s = connect(p.addr);
            assert!(ping(&mut s) < time_bound(Duration::from_secs(5)));
        }
        std::thread::sleep(Duration::from_millis(200));
        let idle = p.rss_kib();
        let mut conns: Vec<(TcpStream, usize, usize)> = (0..clients)
            .map(|_| {
                let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
                    .unwrap();
                s.set_recv_buffer_size(4096).unwrap();
                s.connect(&p.addr.into()).unwrap();
                let s: TcpStream = s.into();
                s.set_nonblocking(true).unwrap();
                (s, 0, 0)
            })
            .collect();
        // Pipeline without end (the same requests over and over), reading nothing until the
        // server has stopped reading every connection (its socket's send buffer full, and its
        // output at the high-water mark); then read at most 4 KiB a turn, so that each of the
        // server's writes is partial.
        let start = Instant::now();
        let mut peak = idle;
        let mut last_write = Instant::now();
        let mut reading: Option<Instant> = None;
        while reading.is_none_or(|t| t.elapsed() < Duration::from_secs(secs)) {
            assert!(
                start.elapsed() < time_bound(Duration::from_secs(30)),
                "the clients never filled the server's buffers"
            );
            for (s, at, got) in &mut conns {
                // While reading, a few requests a turn: the server reads them as soon as its
                // output is below the mark, and answers them behind what the client has not
                // read yet.
                let end = if reading.is_some() {
                    (*at + 1024).min(wire.len())
                } else {
                    wire.len()
                };
                match s.write_some(&wire[*at..end]) {
                    Ok(n) => {
                        *at = (*at + n) % wire.len();
                        last_write = Instant::now();
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("write: {e}"),
                }
                if reading.is_none() {
                    continue;
                }
                match s.read_some(&mut buf) {
                    Ok(0) => panic!("closed"),
                    Ok(n) => *got += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("read: {e}"),
                }
            }
            peak = peak.max(p.rss_kib());
            if reading.is_none() && last_write.elapsed() > Duration::from_millis(300) {
                reading = Some(Instant::now());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let read_kib = conns.iter().map(|c| c.2).sum::<usize>() / 1024;
        drop(conns);
        let per_conn = peak.saturating_sub(idle) / clients as u64;
        eprintln!(
            "slow pipelining readers: {clients} clients (4 KiB receive buffers), {workers} \
             worker(s), {secs} s, {read_kib} KiB of responses read; RSS idle {idle} KiB, peak \
             {peak} KiB: {per_conn} KiB per connection (buffers at most {bound_kib} KiB)"
        );
        // Every connection reached the high-water mark: well over half of it each.
        assert!(
            per_conn >= 128,
            "only {per_conn} KiB per connection: the pattern did not fill the output"
        );
        assert!(
            per_conn <= rss_bound_kib,
            "{per_conn} KiB per connection, over {rss_bound_kib} KiB ({bound_kib} KiB of buffers)"
        );
    }
}

/// The bound the docs/limits.md's table gives for slow pipelining readers: "at most N KiB per
/// connection" in its row, so that docs/limits.md states what the test holds.
fn documented_slow_readers_bound_kib() -> u64 {
    let page = include_str!("../../docs/limits.md");
    let row = page
        .lines()
        .find(|l| l.starts_with("| slow pipelining readers: "))
        .expect("docs/limits.md: the slow pipelining readers row");
    let (_, rest) = row
        .split_once("at most ")
        .expect("docs/limits.md: the slow pipelining readers row states its bound");
    let (n, _) = rest
        .split_once(" KiB per connection")
        .expect("docs/limits.md: the bound in KiB per connection");
    n.parse().expect("docs/limits.md: a whole number of KiB")
}

#[test]
fn flood_without_reading_stays_bounded_and_loses_nothing() {
    let _serial = serial();
    let n = 200_000;
    let wait = if long() { 5 } else { 2 };
    let p = Proc::start(&[
        "--workers",
        "1",
        "--no-date",
        "--route",
        "/a=200:A",
        "--route",
        "/b=200:BB",
    ]);
    let resp = |path: &str| {
        let mut s = connect(p.addr);
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes())
            .unwrap();
        let r = read_responses(&mut s, 1);
        let mut head = "HTTP/1.1 200 OK\r\n".to_string();
        for (k, v) in &r[0].headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        [head.as_bytes(), &r[0].body].concat()
    };
    let (ra, rb) = (resp("/a"), resp("/b"));
    let base = p.rss_kib();
    let mut flood = connect(p.addr);
    let mut writer = flood.try_clone().unwrap();
    let w = std::thread::spawn(move || {
        let req_a = b"GET /a HTTP/1.1\r\nHost: t\r\n\r\n";
        let req_b = b"GET /b HTTP/1.1\r\nHost: t\r\n\r\n";
        let mut batch = Vec::new();
        for i in 0..1000 {
            batch.extend_from_slice(if i % 2 == 0 { req_a } else { req_b });
        }
        for _ in 0..n / 1000 {
            writer.write_all(&batch).unwrap();
        }
    });
    let mut other = connect(p.addr);
    let mut peak = base;
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(wait) {
        peak = peak.max(p.rss_kib());
        ping(&mut other);
        std::thread::sleep(Duration::from_millis(50));
    }
    // Now read: exactly n responses, alternating, byte-exact.
    let mut buf = vec![0u8; 1 << 16];
    let mut pending: Vec<u8> = Vec::new();
    let mut got = 0;
    while got < n {
        let k = flood.read_some(&mut buf).unwrap();
        assert!(k > 0, "closed after {got} responses");
        pending.extend_from_slice(&buf[..k]);
        let mut at = 0;
        loop {
            let want = if got % 2 == 0 { &ra } else { &rb };
            if pending.len() - at < want.len() {
                break;
            }
            assert_eq!(&pending[at..at + want.len()], &want[..], "response {got}");
            at += want.len();
            got += 1;
        }
        pending.drain(..at);
        if got % 20_000 == 0 {
            peak = peak.max(p.rss_kib());
        }
    }
    w.join().unwrap();
    flood
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    assert!(
        flood.read_some(&mut buf).is_err(),
        "more than {n} responses"
    );
    eprintln!(
        "flood: {n} pipelined requests unread for {wait}s; RSS {base} KiB before, peak {peak} KiB"
    );
    assert!(peak - base < 8 * 1024, "RSS grew by {} KiB", peak - base);
}

fn reset(s: TcpStream) {
    socket2::SockRef::from(&s)
        .set_linger(Some(Duration::ZERO))
        .unwrap();
    drop(s);
}

#[test]
fn resets_and_half_closes_leak_nothing() {
    let _serial = serial();
    let dir = std::env::temp_dir().join(format!("canned-big-{}", std::process::id()));
    std::fs::write(&dir, vec![b'x'; 8 << 20]).unwrap();
    let route = format!("/big=200:@{}", dir.display());
    let p = Proc::start(&["--workers", "2", "--route", &route]);
    std::fs::remove_file(&dir).unwrap();
    // The baseline once the workers are up (their pollers exist after the first request).
    for _ in 0..4 {
        ping(&mut connect(p.addr));
    }
    std::thread::sleep(Duration::from_millis(200));
    let fds = p.fds();
    for _ in 0..20 {
        // Reset mid-request.
        let mut s = connect(p.addr);
        s.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
        reset(s);
        // Reset mid-response: an 8 MiB body, read 64 KiB of it.
        let mut s = connect(p.addr);
        s.write_all(b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        let mut buf = vec![0u8; 65536];
        s.read_exact(&mut buf).unwrap();
        reset(s);
        // Reset after a complete pipelined batch, unread.
        let mut s = connect(p.addr);
        s.write_all(&GET.repeat(50)).unwrap();
        reset(s);
        // Half-close after a request: the response still arrives.
        let mut s = connect(p.addr);
        s.write_all(GET).unwrap();
        s.shutdown(Shutdown::Write).unwrap();
        let r = parse_responses(&read_to_eof(&mut s), &[]);
        assert_eq!(r.len(), 1);
    }
    let t = Instant::now();
    while p.fds() != fds && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(p.fds(), fds, "fds leaked");
    // Still serving.
    let mut s = connect(p.addr);
    ping(&mut s);
    drop(s);
    let (code, summary) = p.stop();
    assert_eq!(code, 0);
    eprintln!("resets: {}", summary.trim());
}

#[test]
fn fd_exhaustion_does_not_spin_logs_once_and_recovers() {
    let _serial = serial();
    let p = Proc::start_with(&["--workers", "1"], |cmd| limit_fds(cmd, 64, 40));
    let mut conns: Vec<TcpStream> = (0..60).map(|_| connect(p.addr)).collect();
    for s in &mut conns {
        s.write_all(GET).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(10))).unwrap();
    }
    std::thread::sleep(Duration::from_millis(500));
    let ticks = p.cpu_ticks();
    std::thread::sleep(Duration::from_secs(2));
    let spent = p.cpu_ticks() - ticks;
    // Who was served while saturated?
    let mut served = vec![false; conns.len()];
    let mut buf = [0u8; 4096];
    for (i, s) in conns.iter_mut().enumerate() {
        served[i] = s.read_some(&mut buf).is_ok_and(|n| n > 0);
    }
    let first = served.iter().filter(|&&x| x).count();
    assert!(
        first > 0 && first < conns.len(),
        "served {first} of {}",
        conns.len()
    );
    // Free fds: close the served ones; the rest get served as fds come back.
    let mut rest: Vec<TcpStream> = conns
        .into_iter()
        .zip(&served)
        .filter(|(_, s)| !**s)
        .map(|(c, _)| c)
        .collect();
    let total = rest.len();
    let t = Instant::now();
    let mut done = 0;
    while !rest.is_empty() {
        assert!(
            t.elapsed() < time_bound(Duration::from_secs(20)),
            "{} never served",
            rest.len()
        );
        rest.retain_mut(|s| {
            let ok = s.read_some(&mut buf).is_ok_and(|n| n > 0);
            done += usize::from(ok);
            !ok
        });
    }
    let (code, stderr) = p.stop();
    assert_eq!(code, 0);
    let logged = stderr.matches("out of file descriptors").count();
    eprintln!(
        "fd exhaustion: {first} served at once, {total} more after fds were freed; \
         {spent} CPU ticks in 2 s while saturated; logged {logged} time(s)"
    );
    assert!(spent <= 10, "spinning: {spent} ticks of CPU in 2 s");
    assert_eq!(logged, 1, "{stderr}");
    assert_eq!(done, total);
}

#[test]
fn graceful_shutdown_under_load_truncates_nothing() {
    let _serial = serial();
    let p = Proc::start(&["--workers", "2", "--shutdown-timeout", "3s"]);
    let addr = p.addr;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..100)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut s = connect(addr);
                let mut r = s.try_clone().unwrap();
                let reader = std::thread::spawn(move || {
                    let mut all = Vec::new();
                    let mut buf = [0u8; 65536];
                    loop {
                        match r.read_some(&mut buf) {
                            Ok(0) | Err(_) => return all,
                            Ok(n) => all.extend_from_slice(&buf[..n]),
                        }
                    }
                });
                let batch = GET.repeat(10);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if s.write_all(&batch).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                let all = reader.join().unwrap();
                // Panics on a truncated response.
                parse_responses(&all, &[]).len()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(700));
    let t = Instant::now();
    let (code, summary) = p.stop();
    let took = t.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let answered: usize = clients.into_iter().map(|c| c.join().unwrap()).sum();
    eprintln!(
        "shutdown under load: exit {code} after {took:?}; {answered} complete responses; {}",
        summary.trim()
    );
    assert_eq!(code, 0);
    // Clients that keep sending after their last response do not hold the exit for the
    // closing connections' 2 s of lingering: once every response is delivered, it exits.
    assert!(took < time_bound(Duration::from_millis(1500)), "{took:?}");
    assert!(answered > 100);
}

#[test]
fn soak_mixed_load_keeps_rss_flat() {
    let _serial = serial();
    let secs = if long() { 600 } else { 20 };
    let p = Proc::start(&["--workers", "2", "--header-timeout", "1s"]);
    let addr = p.addr;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut workers = Vec::new();
    for kind in 0..5 {
        let stop = stop.clone();
        workers.push(std::thread::spawn(move || {
            let mut n = 0u64;
            let mut ka = connect(addr);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                match kind {
                    0 => {
                        ping(&mut ka);
                    }
                    1 => {
                        ka.write_all(&GET.repeat(32)).unwrap();
                        read_responses(&mut ka, 32);
                    }
                    2 => {
                        let r = exchange(addr, b"GET / HTTP/1.0\r\n\r\n");
                        assert!(r.starts_with(b"HTTP/1.1 200"));
                    }
                    3 => {
                        let r = exchange(addr, b"GET / HTTP/1.1\r\n\r\n");
                        assert!(r.starts_with(b"HTTP/1.1 400"));
                    }
                    _ => {
                        // A slow client that gives up halfway.
                        let mut s = connect(addr);
                        s.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
                        std::thread::sleep(Duration::from_millis(50));
                        drop(s);
                    }
                }
                n += 1;
            }
            n
        }));
    }
    let mut samples = Vec::new();
    for _ in 0..secs {
        std::thread::sleep(Duration::from_secs(1));
        samples.push(p.rss_kib());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let ops: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    let warm = &samples[samples.len() / 4..];
    let (first, last) = (warm[0], *warm.last().unwrap());
    let max = *warm.iter().max().unwrap();
    eprintln!(
        "soak: {secs}s, {ops} client operations; RSS after warm-up first {first} KiB, last {last} KiB, max {max} KiB"
    );
    assert!(max - first <= 1024, "RSS grew from {first} to {max} KiB");
}
