//! `--grpc-health`'s Check allocates nothing in steady state: over one HTTP/2 connection,
//! batches of calls (HEADERS and a DATA frame each, on new streams) after a warm-up, with a
//! counting allocator watching the whole process (the server's worker and this client).

use crate::retry::ReadSome;
use canned::frame::{PREFACE, flag, kind};
use std::io::Write;

use crate::counting;
use crate::frames::frame;

/// Calls per write.
const BATCH: usize = 10;
/// What the server sends per call: HEADERS (9 + 20), DATA (9 + 7), trailers (9 + 15), and the
/// connection's WINDOW_UPDATE for the request's 5 bytes of DATA (9 + 4).
const PER_CALL: usize = 29 + 16 + 24 + 13;

pub fn grpc_health_checks_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--grpc-health",
    ];
    let (h, mut s) = counting::serve(&args);
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();

    // POST, :scheme http, :path and content-type as literals without indexing (the decoder's
    // table stays empty), then an empty HealthCheckRequest.
    let path = b"/grpc.health.v1.Health/Check";
    let mut block = vec![0x83, 0x86, 0x04, path.len() as u8];
    block.extend_from_slice(path);
    block.extend_from_slice(b"\x0f\x10\x10application/grpc");
    let one: Vec<u8> = [
        frame(kind::HEADERS, flag::END_HEADERS, 0, &block),
        frame(kind::DATA, flag::END_STREAM, 0, &[0, 0, 0, 0, 0]),
    ]
    .concat();
    let data_at = 9 + block.len();
    let mut wire = one.repeat(BATCH);
    let mut buf = vec![0u8; 1 << 16];
    let mut next_stream = 1u32;
    let mut round = |s: &mut std::net::TcpStream, extra: usize| {
        for i in 0..BATCH {
            let at = i * one.len();
            let id = next_stream.to_be_bytes();
            wire[at + 5..at + 9].copy_from_slice(&id);
            wire[at + data_at + 5..at + data_at + 9].copy_from_slice(&id);
            next_stream += 2;
        }
        s.write_all(&wire).unwrap();
        let want = extra + BATCH * PER_CALL;
        let mut got = 0;
        while got < want {
            let n = s.read_some(&mut buf).unwrap();
            assert!(n > 0, "closed");
            got += n;
        }
        assert_eq!(got, want, "response bytes");
    };
    // The preface and SETTINGS; the server's SETTINGS (9 + 30) and its ACK (9) come with the
    // first batch.
    let mut hello = PREFACE.to_vec();
    hello.extend(frame(kind::SETTINGS, 0, 0, &[]));
    s.write_all(&hello).unwrap();
    round(&mut s, 39 + 9);
    for _ in 0..50 {
        round(&mut s, 0);
    }
    let before = counting::allocations();
    let rounds = 300;
    for _ in 0..rounds {
        round(&mut s, 0);
    }
    let allocations = counting::allocations() - before;
    eprintln!("{} Check calls: {allocations} allocations", rounds * BATCH);
    assert_eq!(allocations, 0, "over {} calls", rounds * BATCH);
    drop(s);
    h.shutdown();
    let summary = h.join();
    assert_eq!(summary.stats.requests, (51 + rounds as u64) * BATCH as u64);
    assert_eq!(summary.stats.by_status[200], summary.stats.requests);
}
