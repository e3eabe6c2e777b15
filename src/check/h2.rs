//! The HTTP/2 connection driven without sockets from a fuzz input, checked after every call:
//! what it writes is whole frames that a client can read, its memory stays within the bound
//! docs/http2.md gives, and it never sends more DATA than the client's windows allow.

use crate::conn::{Next, Pool, Settings};
use crate::frame::{DEFAULT_WINDOW, HEADER_LEN, Header, PREFACE, flag, kind};
use crate::h2::{
    Env, Http2Conn, MAX_BLOCK, MAX_CONCURRENT_STREAMS, MAX_FRAME_SIZE, NoWork, OUT_HIGH,
};
use crate::hpack::Decoder;
use crate::response::{Common, Responses, Spec};
use crate::stats::Stats;
use std::sync::Arc;

/// Read and write sizes, cycled; a 0 write is a peer that does not read for a turn.
const READS: [&[usize]; 4] = [&[usize::MAX], &[1], &[9, 1, 30], &[4096, 7]];
const WRITES: [&[usize]; 4] = [&[usize::MAX], &[0, 0, 0, 1000], &[1, 17], &[0, 16_384]];

/// The routes the fuzzed connection answers: a short body at `/`, one larger than the
/// initial window at `/big`, an empty one at `/empty`.
fn responses() -> Responses {
    let spec = |status, body: Vec<u8>| Spec {
        status,
        body: Arc::from(body),
        content_type: "text/plain".into(),
        headers: vec!["X-A: b".into()],
    };
    let common = Common {
        server: "canned".into(),
        date: true,
    };
    Responses::new(
        &[
            spec(200, b"hello".to_vec()),
            spec(200, vec![b'b'; 100_000]),
            spec(204, Vec::new()),
        ],
        &[(b"/big".to_vec(), false), (b"/empty".to_vec(), false)],
        &common,
    )
}

/// The largest a connection's buffers may hold, in bytes, for reads of at most `read`:
/// docs/http2.md (input: a partial frame or the rest of one read; output: [`OUT_HIGH`], one
/// frame and the control frames answering one read, at most three times its size; a header
/// block [`MAX_BLOCK`]; the HPACK scratch; the streams), each buffer's capacity at most twice
/// what it held.
pub fn memory_bound(read: usize) -> usize {
    let input = HEADER_LEN + MAX_FRAME_SIZE as usize + read;
    let out = OUT_HIGH + HEADER_LEN + MAX_FRAME_SIZE as usize + 3 * read;
    4096 + 2 * (input + out + MAX_BLOCK) + 16_384 * 4 + MAX_CONCURRENT_STREAMS as usize * 64
}

/// A fuzz entry: `data[0]` picks the read sizes, `data[1]` the write sizes and, in its top
/// bit, whether the client's preface and SETTINGS come first (so that most inputs reach the
/// frames); the rest is what the client sends.
pub fn fuzz_h2_connection(data: &[u8]) {
    let (&r, rest) = data.split_first().unwrap_or((&0, &[]));
    let (&w, rest) = rest.split_first().unwrap_or((&0, &[]));
    let mut input = Vec::new();
    if w & 0x80 == 0 {
        input.extend_from_slice(PREFACE);
        input.extend_from_slice(
            &Header {
                len: 0,
                kind: kind::SETTINGS,
                flags: 0,
                stream: 0,
            }
            .encode(),
        );
    }
    input.extend_from_slice(rest);
    let wire = run_h2(&input, READS[r as usize % 4], WRITES[w as usize % 4]);
    check_output(&input, &wire);
}

/// Drive a connection with `input`, cut into `reads`, written out `writes` at a time; return
/// the bytes written, checking the memory bound and the stream limit after every call.
pub fn run_h2(input: &[u8], reads: &[usize], writes: &[usize]) -> Vec<u8> {
    let settings = Settings::default();
    let responses = responses();
    let mut pool: Pool<NoWork> = Pool::default();
    let mut stats = Stats::default();
    let mut conn = Http2Conn::new(0);
    let mut wire = Vec::new();
    let (mut fed, mut r, mut w, mut eof) = (0, 0, 0, false);
    let max_read = reads
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .min(input.len().max(1));
    let bound = memory_bound(max_read);
    let mut idle_turns = 0;
    for turn in 0..1_000_000u64 {
        let mut env = Env {
            settings: &settings,
            responses: &responses,
            pool: &mut pool,
            stats: &mut stats,
            now_us: 1 + turn,
            draining: false,
            features: Default::default(),
        };
        let mut progressed = false;
        if conn.wants_read() {
            if fed < input.len() {
                let n = reads[r % reads.len()].max(1).min(input.len() - fed);
                r += 1;
                conn.on_data(&input[fed..fed + n], &mut env);
                fed += n;
                progressed = true;
            } else if !eof {
                conn.on_eof();
                eof = true;
                progressed = true;
            }
        }
        let out = conn.output();
        if !out.is_empty() {
            let n = writes[w % writes.len()].min(out.len());
            w += 1;
            wire.extend_from_slice(&out[..n]);
            conn.wrote(n, &mut env);
            progressed = true;
        }
        assert!(
            conn.buffered() <= bound,
            "buffers {} over their bound {bound}",
            conn.buffered()
        );
        assert!(conn.streams() <= MAX_CONCURRENT_STREAMS as usize);
        if conn.next() != Next::Continue {
            break;
        }
        idle_turns = if progressed { 0 } else { idle_turns + 1 };
        if idle_turns > 2 {
            // Nothing to read, nothing to write: an idle connection, or one waiting for a
            // window the client never opens.
            break;
        }
    }
    wire
}

/// What a client would check of canned's frames: each whole, within the sizes canned
/// advertises, header blocks that decode without any table state, DATA only on a stream
/// answered with HEADERS and never after its END_STREAM, and no more DATA on the connection
/// than the client's windows allow.
pub fn check_output(input: &[u8], wire: &[u8]) {
    let mut at = 0;
    let mut block = Vec::new();
    let mut block_stream = 0u32;
    let mut headed: Vec<u32> = Vec::new();
    let mut ended: Vec<u32> = Vec::new();
    let mut data = 0i64;
    while let Some(h) = Header::parse(&wire[at..]) {
        let end = at + HEADER_LEN + h.len as usize;
        if end > wire.len() {
            // Cut by a write that never came: the connection closed with output pending.
            break;
        }
        assert!(h.len <= 16_777_215);
        let payload = &wire[at + HEADER_LEN..end];
        at = end;
        if block_stream != 0 {
            assert_eq!(
                (h.kind, h.stream),
                (kind::CONTINUATION, block_stream),
                "only CONTINUATION inside a header block"
            );
        }
        match h.kind {
            kind::SETTINGS | kind::PING | kind::GOAWAY => assert_eq!(h.stream, 0),
            kind::HEADERS | kind::CONTINUATION => {
                assert!(h.stream % 2 == 1, "a response on a client stream");
                assert!(!ended.contains(&h.stream), "HEADERS after END_STREAM");
                if h.kind == kind::HEADERS {
                    assert!(!headed.contains(&h.stream), "one HEADERS per stream");
                    headed.push(h.stream);
                    block.clear();
                }
                block.extend_from_slice(payload);
                block_stream = h.stream;
                if h.flags & flag::END_HEADERS != 0 {
                    block_stream = 0;
                    let mut d = Decoder::new(4096);
                    let mut scratch = [0u8; 16_384];
                    let mut status = 0;
                    d.decode(&block, &mut scratch, |f| {
                        if f.name == b":status" {
                            status += 1;
                        }
                    })
                    .expect("a response block decodes with an empty table");
                    assert_eq!(status, 1, "one :status");
                }
                if h.flags & flag::END_STREAM != 0 {
                    ended.push(h.stream);
                }
            }
            kind::DATA => {
                assert!(headed.contains(&h.stream), "DATA after HEADERS");
                assert!(!ended.contains(&h.stream), "DATA after END_STREAM");
                assert!(h.len <= MAX_FRAME_SIZE || max_frame_raised(input));
                data += i64::from(h.len);
                if h.flags & flag::END_STREAM != 0 {
                    ended.push(h.stream);
                }
            }
            _ => {}
        }
    }
    let allowed = i64::from(DEFAULT_WINDOW) + connection_increments(input);
    assert!(data <= allowed, "{data} DATA bytes, {allowed} allowed");
}

/// The client's frames after the preface, as far as they are whole.
fn client_frames(input: &[u8]) -> impl Iterator<Item = (Header, &[u8])> {
    let mut rest = input.strip_prefix(&PREFACE[..]).unwrap_or(&[]);
    std::iter::from_fn(move || {
        let h = Header::parse(rest)?;
        let end = HEADER_LEN + h.len as usize;
        let payload = rest.get(HEADER_LEN..end)?;
        rest = &rest[end..];
        Some((h, payload))
    })
}

/// What the client's WINDOW_UPDATE frames on stream 0 add to the connection's window.
fn connection_increments(input: &[u8]) -> i64 {
    client_frames(input)
        .filter(|(h, p)| h.kind == kind::WINDOW_UPDATE && h.stream == 0 && p.len() == 4)
        .map(|(_, p)| i64::from(u32::from_be_bytes([p[0], p[1], p[2], p[3]]) & 0x7fff_ffff))
        .sum()
}

/// Whether a client SETTINGS frame carries SETTINGS_MAX_FRAME_SIZE (0x5).
fn max_frame_raised(input: &[u8]) -> bool {
    client_frames(input)
        .any(|(h, p)| h.kind == kind::SETTINGS && p.chunks_exact(6).any(|s| s[..2] == [0, 5]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let mut v = Header {
            len: payload.len() as u32,
            kind,
            flags,
            stream,
        }
        .encode()
        .to_vec();
        v.extend_from_slice(payload);
        v
    }

    fn hello() -> Vec<u8> {
        let mut v = PREFACE.to_vec();
        v.extend(frame(kind::SETTINGS, 0, 0, &[]));
        v
    }

    /// The driver gets a body through the windows a client opens, a byte at a time and with
    /// a peer that stops reading, and the checks pass on it.
    #[test]
    fn a_large_body_arrives_whole_through_slow_reads_and_writes() {
        let mut input = hello();
        input.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            1,
            &[0x82, 0x86, 0x04, 4, b'/', b'b', b'i', b'g'],
        ));
        input.extend(frame(kind::WINDOW_UPDATE, 0, 0, &100_000u32.to_be_bytes()));
        input.extend(frame(kind::WINDOW_UPDATE, 0, 1, &100_000u32.to_be_bytes()));
        for (reads, writes) in [
            (READS[0], WRITES[0]),
            (READS[2], WRITES[1]),
            (READS[1], WRITES[2]),
        ] {
            let wire = run_h2(&input, reads, writes);
            check_output(&input, &wire);
            let body = wire.windows(2).filter(|w| w == b"bb").count();
            assert!(body >= 99_000, "{body}");
        }
    }

    /// The output checks fail on what a client would reject.
    #[test]
    fn the_checks_catch_bad_output() {
        let input = hello();
        let bad = [
            frame(kind::DATA, 0, 1, b"x"),
            frame(kind::PING, 0, 1, &[0; 8]),
            [
                frame(kind::HEADERS, flag::END_HEADERS, 1, &[0x88]),
                frame(kind::DATA, 0, 1, &[0; 65_536]),
            ]
            .concat(),
            [
                frame(
                    kind::HEADERS,
                    flag::END_HEADERS | flag::END_STREAM,
                    1,
                    &[0x88],
                ),
                frame(kind::DATA, 0, 1, b"x"),
            ]
            .concat(),
            frame(
                kind::HEADERS,
                flag::END_HEADERS,
                1,
                &[0xff, 0xff, 0xff, 0x7f],
            ),
            frame(kind::HEADERS, flag::END_HEADERS, 1, &[0x88, 0x88]),
        ];
        for wire in bad {
            let r = std::panic::catch_unwind(|| check_output(&input, &wire));
            assert!(r.is_err(), "{wire:?} passed");
        }
        check_output(&input, &frame(kind::HEADERS, flag::END_HEADERS, 1, &[0x88]));
    }
}
