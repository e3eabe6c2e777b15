//! Recording into the journal allocates nothing: its ring is taken whole at start, and each
//! request's head is kept in its connection's work area, whose capacity the pool keeps. Over
//! keep-alive and pipelined requests, by length and chunked, with the ring wrapping
//! many times, the process (server and client) makes no allocation at all; then the journal,
//! read back, holds the last 100 of them, in order, as they were sent.

use crate::counting;

pub fn journaled_requests_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--journal",
        "100",
        "--journal-path",
        "/_journal",
    ];
    let requests: [(&[u8], &[u8]); 4] = [
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", b"Hello World\n"),
        (
            b"POST /p?q=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world",
            b"Hello World\n",
        ),
        (
            b"POST /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            b"Hello World\n",
        ),
        (b"GET /f HTTP/1.1\r\nHost: t\r\nX: y\r\n\r\n", b"Hello World\n"),
    ];
    let mut journal = String::new();
    let r = counting::count_allocations_then(&args, &requests, 700, 30_000, |addr| {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /_journal HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).unwrap();
        journal = String::from_utf8(got).unwrap();
    });
    eprintln!(
        "{} requests in {} rounds over {:?}: {} allocations in {} rounds",
        r.requests, r.rounds, r.elapsed, r.allocations, r.rounds_allocating
    );
    assert_eq!(
        r.allocations, 0,
        "{} of {} rounds allocated",
        r.rounds_allocating, r.rounds
    );
    let stats = r.summary.stats;
    assert!(stats.requests as usize >= r.requests + 700 * 16);
    check_journal(&journal, stats.requests - 1);
}

/// The journal after `recorded` requests (the read-back one not among them): 100 entries, the
/// last ones recorded, each the request sent in turn with its headers, body length and status.
fn check_journal(response: &str, recorded: u64) {
    let (head, body) = response.split_once("\r\n\r\n").expect("a response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let start = format!("{{\"capacity\":100,\"recorded\":{recorded},\"entries\":[");
    assert!(
        body.starts_with(&start),
        "{start} in {}",
        &body[..200.min(body.len())]
    );
    let entries: Vec<&str> = body[start.len()..].split("{\"seq\":").skip(1).collect();
    assert_eq!(entries.len(), 100);
    // The four requests in turn, by their targets: each entry's body length, headers, status.
    let kinds: [(&str, &str, u64); 4] = [
        (
            "\"method\":\"GET\",\"target\":\"/\"",
            "[[\"Host\",\"t\"]]",
            0,
        ),
        (
            "\"method\":\"POST\",\"target\":\"/p?q=1\"",
            "[[\"Host\",\"t\"],[\"Content-Length\",\"11\"]]",
            11,
        ),
        (
            "\"method\":\"POST\",\"target\":\"/c\"",
            "[[\"Host\",\"t\"],[\"Transfer-Encoding\",\"chunked\"]]",
            3,
        ),
        (
            "\"method\":\"GET\",\"target\":\"/f\"",
            "[[\"Host\",\"t\"],[\"X\",\"y\"]]",
            0,
        ),
    ];
    let mut seqs = Vec::new();
    let mut kind = None;
    for e in &entries {
        let seq: u64 = e[..e.find(',').unwrap()].parse().unwrap();
        seqs.push(seq);
        let k = kinds
            .iter()
            .position(|(req, _, _)| e.contains(req))
            .unwrap_or_else(|| panic!("an entry of no request sent: {e}"));
        if let Some(prev) = kind {
            assert_eq!(k, (prev + 1) % 4, "in the order sent: {e}");
        }
        kind = Some(k);
        let (_, headers, body_length) = kinds[k];
        let want = format!(
            "\"headers\":{headers},\"body_length\":{body_length},\"status\":200,\"faults\":[]"
        );
        assert!(e.contains(&want), "{want} in {e}");
    }
    let want: Vec<u64> = (recorded - 99..=recorded).collect();
    assert_eq!(seqs, want, "the last 100, oldest first");
}
