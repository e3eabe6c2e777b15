//! `--control`'s delivery faults on HTTP/2 streams allocate nothing per stream: a counting
//! global allocator watches the whole process while a warmed-up HTTP/2 connection sends
//! batches of streams whose controls ask for a drip of filler bytes, a cut, an error paced by
//! a bandwidth and go-httpbin's `/drip`.

use crate::retry::ReadSome;
use canned::frame::{Header, PREFACE, flag, kind};
use std::io::Write;
use std::net::TcpStream;

use crate::counting;
use crate::frames::frame;

/// The paths asked, in turn.
const PATHS: [&str; 4] = [
    "/?bytes=3000&fault=drip:2pieces/1ms",
    "/?fault=truncate:50%25",
    "/?fault=error:503:down&fault=bandwidth:1MiB/s",
    "/drip?numbytes=300&duration=2ms&delay=0",
];
const BATCH: u32 = 8;

/// Send `BATCH` streams from `next` into `wire` (its capacity kept), read until each has
/// ended (END_STREAM or RST_STREAM), and give the connection's window back.
fn round(s: &mut TcpStream, next: &mut u32, wire: &mut Vec<u8>, buf: &mut [u8], held: &mut usize) {
    wire.clear();
    for i in 0..BATCH {
        let path = PATHS[i as usize % PATHS.len()].as_bytes();
        let h = Header {
            len: 4 + path.len() as u32,
            kind: kind::HEADERS,
            flags: flag::END_HEADERS | flag::END_STREAM,
            stream: *next + 2 * i,
        };
        wire.extend_from_slice(&h.encode());
        // :method GET, :scheme http, :path as a literal without indexing.
        wire.extend_from_slice(&[0x82, 0x86, 0x04, path.len() as u8]);
        wire.extend_from_slice(path);
    }
    s.write_all(wire).unwrap();
    *next += 2 * BATCH;
    let (mut ended, mut data) = (0, 0u32);
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
            if h.kind == kind::DATA {
                data += h.len;
            }
            at = end;
        }
        buf.copy_within(at..*held, 0);
        *held -= at;
    }
    // The connection's window given back (each stream has its own, new).
    let mut update = [0u8; 13];
    let h = Header {
        len: 4,
        kind: kind::WINDOW_UPDATE,
        flags: 0,
        stream: 0,
    };
    update[..9].copy_from_slice(&h.encode());
    update[9..].copy_from_slice(&data.to_be_bytes());
    if data > 0 {
        s.write_all(&update).unwrap();
    }
}

pub fn controlled_deliveries_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--no-date",
        "--control",
    ];
    let (h, mut s) = counting::serve(&args);
    let mut hello = PREFACE.to_vec();
    hello.extend_from_slice(&frame(kind::SETTINGS, 0, 0, &[]));
    s.write_all(&hello).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut wire = Vec::with_capacity(4096);
    let (mut next, mut held) = (1, 0);
    // Warmed up until every buffer has grown to what the mix asks of it (the output's, each
    // slot's): streams end at times the clock decides, so it takes a while.
    for _ in 0..300 {
        round(&mut s, &mut next, &mut wire, &mut buf, &mut held);
    }
    let before = counting::allocations();
    for _ in 0..100 {
        round(&mut s, &mut next, &mut wire, &mut buf, &mut held);
    }
    let n = counting::allocations() - before;
    assert_eq!(n, 0, "{n} allocations over {} streams", 100 * BATCH);
    drop(s);
    h.shutdown();
    let summary = h.join();
    use canned::fault::FaultKind;
    let f = summary.stats.faults;
    assert!(f[FaultKind::Drip.index()] >= 400 * BATCH as u64 / 2, "{f:?}");
    assert!(f[FaultKind::Truncate.index()] >= 400 * BATCH as u64 / 4, "{f:?}");
    assert!(f[FaultKind::Bandwidth.index()] >= 400 * BATCH as u64 / 4, "{f:?}");
}
