//! HTTP/2 echoes allocate nothing in the steady state: h2_alloc's client, its requests answered
//! by `--echo`.

use crate::counting;
use crate::h2_alloc::{Client, STREAMS, Seen, push_frame};
use canned::frame::{PREFACE, kind};
use std::io::Write;

/// The same with `--echo` on `/`: each GET of `/` and the HEAD are echoes, kept in their
/// connection's slots and rendered into buffers that keep their capacity, so that a steady
/// stream of HTTP/2 echoes allocates nothing either (the echo's JSON grows with the request's
/// index: its length is not compared).
pub fn steady_state_http2_echoes_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--echo",
        "/",
        "--route",
        "/missing=404:no such thing",
    ];
    let (h, s) = counting::serve(&args);
    let mut hello = PREFACE.to_vec();
    push_frame(&mut hello, kind::SETTINGS, 0, 0, &[]);
    let mut client = Client {
        s,
        next_stream: 1,
        input: vec![0; 1 << 20],
        have: 0,
        out: Vec::with_capacity(64 * 1024),
    };
    client.s.write_all(&hello).unwrap();
    let check = |got: Seen| {
        assert_eq!(
            (got.ended, got.statuses_200, got.statuses_404),
            (STREAMS, STREAMS - 1, 1),
            "{got:?}"
        );
        assert!(got.body_bytes > (STREAMS - 2) * 100, "{got:?}");
    };
    for _ in 0..100 {
        check(client.round());
    }
    let requests = 4_000;
    let before = counting::allocations();
    for _ in 0..requests / STREAMS {
        check(client.round());
    }
    let after = counting::allocations();
    assert_eq!(
        after - before,
        0,
        "{} allocations over {requests} echoes",
        after - before
    );
    drop(client);
    h.shutdown();
    h.join();
}
