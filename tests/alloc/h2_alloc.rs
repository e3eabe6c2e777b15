//! Zero allocations per HTTP/2 request in steady state: a counting global allocator watches
//! the whole process (the server's worker and this client) while a warmed-up connection with
//! prior knowledge runs thousands of requests, several streams at once, each body larger than
//! a frame and than the stream window the client advertises, so that every response is
//! several DATA frames resumed by WINDOW_UPDATE. The client parses frames in place, in
//! buffers taken before counting.

use crate::retry::ReadSome;
use canned::frame::{HEADER_LEN, Header, PREFACE, flag, kind, setting};
use std::io::Write;
use std::net::TcpStream;

use crate::counting;

/// The body: three DATA frames of at most 16,384 bytes, more than the stream window below.
const BODY_LEN: usize = 40_000;
/// The client's SETTINGS_INITIAL_WINDOW_SIZE: each response needs WINDOW_UPDATE to finish.
const STREAM_WINDOW: u32 = 16_384;
/// Streams opened at once per round: a GET of `/`, a GET of a 404 route, a HEAD of `/`, and
/// five more GETs of `/` (eight times the body is more than the connection window, 65,535).
pub(crate) const STREAMS: usize = 8;

pub(crate) fn push_frame(out: &mut Vec<u8>, k: u8, flags: u8, stream: u32, payload: &[u8]) {
    let h = Header {
        len: payload.len() as u32,
        kind: k,
        flags,
        stream,
    };
    out.extend_from_slice(&h.encode());
    out.extend_from_slice(payload);
}

/// HPACK blocks: the static table's :method GET (2), :scheme http (6), :path / (4); a path
/// and HEAD as literals without indexing (no decoder state).
const GET_ROOT: &[u8] = &[0x82, 0x86, 0x84];
const GET_MISSING: &[u8] = &[
    0x82, 0x86, 0x04, 8, b'/', b'm', b'i', b's', b's', b'i', b'n', b'g',
];
const HEAD_ROOT: &[u8] = &[0x02, 4, b'H', b'E', b'A', b'D', 0x86, 0x84];

pub(crate) struct Client {
    pub(crate) s: TcpStream,
    pub(crate) next_stream: u32,
    /// Bytes read and not yet parsed (a partial frame carried over).
    pub(crate) input: Vec<u8>,
    pub(crate) have: usize,
    pub(crate) out: Vec<u8>,
}

/// What one round saw.
/// A round saw what it should: the same streams, statuses and bytes; the DATA frames at least
/// one per 16 KiB of a body, more when the windows cut one short (how they fall depends on
/// when the client's WINDOW_UPDATE frames arrive).
fn same(got: Seen, want: &Seen) {
    assert!(got.data_frames >= want.data_frames, "{got:?} {want:?}");
    assert_eq!(
        Seen {
            data_frames: want.data_frames,
            ..got
        },
        *want
    );
}

#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen {
    pub(crate) ended: usize,
    pub(crate) data_frames: usize,
    pub(crate) body_bytes: usize,
    pub(crate) statuses_200: usize,
    pub(crate) statuses_404: usize,
}

impl Client {
    /// Send `STREAMS` requests in one write, then read until every stream ended, giving the
    /// windows back after each read.
    pub(crate) fn round(&mut self) -> Seen {
        self.out.clear();
        for i in 0..STREAMS {
            let block = match i {
                1 => GET_MISSING,
                2 => HEAD_ROOT,
                _ => GET_ROOT,
            };
            let id = self.next_stream;
            self.next_stream += 2;
            push_frame(
                &mut self.out,
                kind::HEADERS,
                flag::END_HEADERS | flag::END_STREAM,
                id,
                block,
            );
        }
        self.s.write_all(&self.out).unwrap();
        let mut seen = Seen::default();
        while seen.ended < STREAMS {
            let n = self.s.read_some(&mut self.input[self.have..]).unwrap();
            assert!(n > 0, "closed");
            self.have += n;
            self.out.clear();
            let mut at = 0;
            while let Some(h) = Header::parse(&self.input[at..self.have]) {
                let end = at + HEADER_LEN + h.len as usize;
                if end > self.have {
                    break;
                }
                let payload = &self.input[at + HEADER_LEN..end];
                match h.kind {
                    kind::DATA => {
                        seen.data_frames += 1;
                        seen.body_bytes += payload.len();
                        if !payload.is_empty() {
                            let inc = (payload.len() as u32).to_be_bytes();
                            push_frame(&mut self.out, kind::WINDOW_UPDATE, 0, 0, &inc);
                            if !h.has(flag::END_STREAM) {
                                push_frame(&mut self.out, kind::WINDOW_UPDATE, 0, h.stream, &inc);
                            }
                        }
                    }
                    kind::HEADERS => {
                        // The indexed :status is the block's first byte (static 8: 200, 13: 404).
                        match payload.first() {
                            Some(0x88) => seen.statuses_200 += 1,
                            Some(0x8d) => seen.statuses_404 += 1,
                            other => panic!("status {other:?}"),
                        }
                    }
                    kind::SETTINGS if !h.has(flag::ACK) => {
                        push_frame(&mut self.out, kind::SETTINGS, flag::ACK, 0, &[]);
                    }
                    kind::SETTINGS | kind::WINDOW_UPDATE | kind::PING => {}
                    k => panic!("frame type {k} on stream {}", h.stream),
                }
                if h.stream != 0
                    && matches!(h.kind, kind::DATA | kind::HEADERS)
                    && h.has(flag::END_STREAM)
                {
                    seen.ended += 1;
                }
                at = end;
            }
            self.input.copy_within(at..self.have, 0);
            self.have -= at;
            if !self.out.is_empty() {
                self.s.write_all(&self.out).unwrap();
            }
        }
        assert_eq!(self.have, 0, "bytes after the last stream ended");
        seen
    }
}

pub fn steady_state_http2_requests_allocate_nothing() {
    let body = "x".repeat(BODY_LEN);
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--body",
        &body,
        "--route",
        "/missing=404:no such thing",
    ];
    let (h, s) = counting::serve(&args);
    let mut hello = PREFACE.to_vec();
    let mut window = setting::INITIAL_WINDOW_SIZE.to_be_bytes().to_vec();
    window.extend_from_slice(&STREAM_WINDOW.to_be_bytes());
    push_frame(&mut hello, kind::SETTINGS, 0, 0, &window);
    let mut client = Client {
        s,
        next_stream: 1,
        input: vec![0; 1 << 20],
        have: 0,
        out: Vec::with_capacity(64 * 1024),
    };
    client.s.write_all(&hello).unwrap();
    let per_round = Seen {
        ended: STREAMS,
        data_frames: (STREAMS - 2) * BODY_LEN.div_ceil(16_384) + 1,
        body_bytes: (STREAMS - 2) * BODY_LEN + "no such thing".len(),
        statuses_200: STREAMS - 1,
        statuses_404: 1,
    };
    for _ in 0..100 {
        same(client.round(), &per_round);
    }
    let requests = 4_000;
    let before = counting::allocations();
    assert!(
        before > 0,
        "the allocator counts (the server's start-up allocated)"
    );
    for _ in 0..requests / STREAMS {
        same(client.round(), &per_round);
    }
    let after = counting::allocations();
    assert_eq!(
        after - before,
        0,
        "{} allocations over {requests} requests",
        after - before
    );
    drop(client);
    h.shutdown();
    let summary = h.join();
    assert!(summary.stats.requests >= (100 * STREAMS + requests) as u64);
}
