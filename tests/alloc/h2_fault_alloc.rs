//! Faults on HTTP/2 streams allocate nothing per stream: a counting global allocator watches
//! the whole process while a warmed-up HTTP/2 connection sends batches of streams that each
//! get a latency, a drip over their body and, for half of them, an error status.

use crate::retry::ReadSome;
use canned::frame::{Header, PREFACE, flag, kind};
use std::io::Write;
use std::net::TcpStream;

use crate::counting;
use crate::frames::frame;

/// GET / (static indexes only): the same block for every stream.
const GET_ROOT: [u8; 3] = [0x82, 0x86, 0x84];
const BATCH: u32 = 10;

/// Send `BATCH` streams from `next`, and read until each has ended; no allocation.
fn round(s: &mut TcpStream, next: &mut u32, buf: &mut [u8], held: &mut usize) {
    let mut wire = [0u8; (9 + GET_ROOT.len()) * BATCH as usize];
    for i in 0..BATCH as usize {
        let h = Header {
            len: GET_ROOT.len() as u32,
            kind: kind::HEADERS,
            flags: flag::END_HEADERS | flag::END_STREAM,
            stream: *next + 2 * i as u32,
        };
        let at = i * (9 + GET_ROOT.len());
        wire[at..at + 9].copy_from_slice(&h.encode());
        wire[at + 9..at + 12].copy_from_slice(&GET_ROOT);
    }
    s.write_all(&wire).unwrap();
    *next += 2 * BATCH;
    let mut ended = 0;
    while ended < BATCH {
        let n = s.read_some(&mut buf[*held..]).unwrap();
        assert!(n > 0, "closed");
        *held += n;
        let mut at = 0;
        while let Some(h) = Header::parse(&buf[at..*held]) {
            let end = at + 9 + h.len as usize;
            if end > *held {
                break;
            }
            if h.stream != 0 && (h.flags & flag::END_STREAM != 0 || h.kind == kind::RST_STREAM) {
                ended += 1;
            }
            at = end;
        }
        buf.copy_within(at..*held, 0);
        *held -= at;
    }
}

pub fn faulted_streams_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--delay",
        "1ms",
        "--fault",
        "*=latency:1ms..2ms",
        "--fault",
        "*=drip:4/1ms",
        "--fault",
        "*=error:0.5:503",
    ];
    let (h, mut s) = counting::serve(&args);
    let mut hello = PREFACE.to_vec();
    hello.extend_from_slice(&frame(kind::SETTINGS, 0, 0, &[]));
    s.write_all(&hello).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let (mut next, mut held) = (1, 0);
    for _ in 0..20 {
        round(&mut s, &mut next, &mut buf, &mut held);
    }
    let before = counting::allocations();
    for _ in 0..100 {
        round(&mut s, &mut next, &mut buf, &mut held);
    }
    let n = counting::allocations() - before;
    assert_eq!(n, 0, "{n} allocations over {} streams", 100 * BATCH);
    drop(s);
    h.shutdown();
    let summary = h.join();
    use canned::fault::FaultKind;
    let f = summary.stats.faults;
    assert!(f[FaultKind::Latency.index()] >= 1200 && f[FaultKind::Drip.index()] >= 1200);
    assert!(f[FaultKind::Error.index()] >= 400, "{f:?}");
}
