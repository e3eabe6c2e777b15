//! Unit tests of the HTTP/2 connection, driven without sockets: bytes in through the loop's
//! calls, frames out, decoded here with `crate::frame` and `crate::hpack`.

use super::*;

use crate::conn::{Next, Pool};
use crate::frame::{Header, PREFACE, flag};
use crate::response::{Common, Responses, Spec};
use crate::stats::Stats;
use std::sync::Arc;

/// A client's view of one connection: what it fed and the frames that came back.
struct Peer {
    conn: Http2Conn,
    settings: Settings,
    responses: Responses,
    pool: Pool<NoWork>,
    stats: Stats,
    draining: bool,
    /// Bytes written by the connection and not yet split into frames.
    wire: Vec<u8>,
}

impl Peer {
    fn new(body: &[u8]) -> Peer {
        let spec = Spec {
            status: 200,
            body: Arc::from(body),
            content_type: "text/plain".into(),
            headers: vec![],
        };
        let common = Common {
            server: String::new(),
            date: false,
        };
        Peer {
            conn: Http2Conn::new(0),
            settings: Settings::default(),
            responses: Responses::new(&[spec], &[], &common),
            pool: Pool::default(),
            stats: Stats::default(),
            draining: false,
            wire: Vec::new(),
        }
    }

    /// A peer past the handshake: preface and empty SETTINGS sent, everything read.
    fn open(body: &[u8]) -> Peer {
        let mut p = Peer::new(body);
        let mut hello = PREFACE.to_vec();
        hello.extend(frame(kind::SETTINGS, 0, 0, &[]));
        p.feed(&hello);
        p.frames();
        p
    }

    /// Feed `bytes` in one read, then write out everything the connection has, `window`
    /// bytes at a time at most.
    fn feed(&mut self, bytes: &[u8]) {
        let mut env = Env {
            settings: &self.settings,
            responses: &self.responses,
            pool: &mut self.pool,
            stats: &mut self.stats,
            now_us: 1,
            draining: self.draining,
            features: Default::default(),
        };
        if !bytes.is_empty() {
            assert!(self.conn.wants_read(), "the connection reads");
            self.conn.on_data(bytes, &mut env);
        }
        while !self.conn.output().is_empty() {
            let n = self.conn.output().len();
            self.wire.extend_from_slice(self.conn.output());
            self.conn.wrote(n, &mut env);
        }
    }

    /// The frames written so far, taken.
    fn frames(&mut self) -> Vec<(Header, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(h) = Header::parse(&self.wire[at..]) {
            let end = at + HEADER_LEN + h.len as usize;
            assert!(end <= self.wire.len(), "a whole frame");
            out.push((h, self.wire[at + HEADER_LEN..end].to_vec()));
            at = end;
        }
        assert_eq!(at, self.wire.len(), "nothing but frames");
        self.wire.clear();
        out
    }
}

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let h = Header {
        len: payload.len() as u32,
        kind,
        flags,
        stream,
    };
    let mut v = h.encode().to_vec();
    v.extend_from_slice(payload);
    v
}

/// `:method GET`, `:scheme http`, `:path /` from the static table (RFC 7541 Appendix A).
const GET: &[u8] = &[0x82, 0x86, 0x84];
/// `:method HEAD` as a literal without indexing of static name 2, then `:scheme`, `:path`.
const HEAD: &[u8] = &[0x02, 0x04, b'H', b'E', b'A', b'D', 0x86, 0x84];

fn request(stream: u32, block: &[u8]) -> Vec<u8> {
    frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        stream,
        block,
    )
}

/// A response header block decoded into (name, value) pairs.
fn fields(block: &[u8]) -> Vec<(String, String)> {
    let mut d = Decoder::new(4096);
    let mut scratch = vec![0; 16_384];
    let mut out = Vec::new();
    d.decode(block, &mut scratch, |f| {
        out.push((
            String::from_utf8_lossy(f.name).into_owned(),
            String::from_utf8_lossy(f.value).into_owned(),
        ));
    })
    .expect("a block canned sent decodes");
    out
}

fn goaway_code(frames: &[(Header, Vec<u8>)]) -> Option<u32> {
    frames
        .iter()
        .find(|(h, _)| h.kind == kind::GOAWAY)
        .map(|(_, p)| u32::from_be_bytes([p[4], p[5], p[6], p[7]]))
}

#[test]
fn the_handshake_sends_settings_then_acknowledges_the_peers() {
    let mut p = Peer::new(b"hi");
    let mut hello = PREFACE.to_vec();
    hello.extend(frame(kind::SETTINGS, 0, 0, &[0, 4, 0, 0, 0x10, 0]));
    p.feed(&hello);
    // SETTINGS_MAX_HEADER_LIST_SIZE, last, is `--max-head-bytes` (8,192 by default).
    let list = SETTINGS.len() - 4;
    assert!(
        p.wire.starts_with(&SETTINGS[..list]),
        "canned's SETTINGS first"
    );
    assert_eq!(p.wire[list..SETTINGS.len()], 8192u32.to_be_bytes());
    let f = p.frames();
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(
        (f[1].0.kind, f[1].0.flags, f[1].0.len),
        (kind::SETTINGS, flag::ACK, 0)
    );
}

#[test]
fn a_get_gets_headers_then_its_body_ending_the_stream() {
    let mut p = Peer::open(b"hello world");
    p.feed(&request(1, GET));
    let f = p.frames();
    assert_eq!(f.len(), 2, "{f:?}");
    let (h, block) = &f[0];
    assert_eq!((h.kind, h.stream), (kind::HEADERS, 1));
    assert_eq!(h.flags, flag::END_HEADERS, "the body follows");
    let got = fields(block);
    assert_eq!(got[0], (":status".into(), "200".into()));
    assert!(
        got.contains(&("content-length".into(), "11".into())),
        "{got:?}"
    );
    assert!(got.iter().all(|(n, _)| n != "connection"), "{got:?}");
    let (h, body) = &f[1];
    assert_eq!(
        (h.kind, h.flags, h.stream),
        (kind::DATA, flag::END_STREAM, 1)
    );
    assert_eq!(body, b"hello world");
    assert_eq!(p.conn.served(), 1);
    assert_eq!(p.conn.streams(), 0, "the stream is done");
}

#[test]
fn a_head_gets_headers_alone_with_the_length_of_a_get() {
    let mut p = Peer::open(b"hello world");
    p.feed(&request(1, HEAD));
    let f = p.frames();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0.flags, flag::END_HEADERS | flag::END_STREAM);
    assert!(fields(&f[0].1).contains(&("content-length".into(), "11".into())));
}

#[test]
fn a_ping_is_acknowledged_with_its_data() {
    let mut p = Peer::open(b"");
    p.feed(&frame(kind::PING, 0, 0, b"12345678"));
    let f = p.frames();
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].0.kind, f[0].0.flags), (kind::PING, flag::ACK));
    assert_eq!(f[0].1, b"12345678");
}

#[test]
fn a_bad_preface_is_a_protocol_error() {
    let mut p = Peer::new(b"");
    p.feed(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n");
    let f = p.frames();
    assert_eq!(goaway_code(&f), Some(ErrorCode::ProtocolError as u32));
    assert_eq!(p.conn.next(), Next::Close { linger: true });
}

#[test]
fn a_first_frame_other_than_settings_is_a_protocol_error() {
    let mut p = Peer::new(b"");
    let mut hello = PREFACE.to_vec();
    hello.extend(frame(kind::PING, 0, 0, b"12345678"));
    p.feed(&hello);
    assert_eq!(
        goaway_code(&p.frames()),
        Some(ErrorCode::ProtocolError as u32)
    );
}

/// A body larger than the initial windows stops at 65,535 bytes and resumes as the client
/// opens its connection and stream windows; every DATA frame fits MAX_FRAME_SIZE.
#[test]
fn a_large_body_waits_for_window_updates() {
    let body: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
    let mut p = Peer::open(&body);
    p.feed(&request(1, GET));
    let data = |f: &[(Header, Vec<u8>)]| -> Vec<u8> {
        f.iter()
            .filter(|(h, _)| h.kind == kind::DATA)
            .inspect(|(h, _)| assert!(h.len <= MAX_FRAME_SIZE))
            .flat_map(|(_, p)| p.clone())
            .collect()
    };
    let mut got = data(&p.frames());
    assert_eq!(got.len(), 65_535, "the initial window");
    // The stream's window alone is not enough: the connection's is closed too.
    p.feed(&frame(kind::WINDOW_UPDATE, 0, 1, &100_000u32.to_be_bytes()));
    assert!(data(&p.frames()).is_empty());
    p.feed(&frame(kind::WINDOW_UPDATE, 0, 0, &100_000u32.to_be_bytes()));
    let f = p.frames();
    got.extend(data(&f));
    assert_eq!(got, body);
    let last = f.iter().rfind(|(h, _)| h.kind == kind::DATA).unwrap();
    assert_eq!(last.0.flags, flag::END_STREAM);
}

#[test]
fn a_request_body_is_discarded_and_its_window_given_back() {
    let mut p = Peer::open(b"ok");
    p.feed(&frame(kind::HEADERS, flag::END_HEADERS, 1, GET));
    p.feed(&frame(kind::DATA, 0, 1, &[7; 1000]));
    let f = p.frames();
    let updates: Vec<_> = f
        .iter()
        .filter(|(h, _)| h.kind == kind::WINDOW_UPDATE)
        .map(|(h, p)| (h.stream, u32::from_be_bytes([p[0], p[1], p[2], p[3]])))
        .collect();
    assert_eq!(updates, [(0, 1000), (1, 1000)]);
    p.feed(&frame(kind::DATA, flag::END_STREAM, 1, b"end"));
    let f = p.frames();
    assert!(
        f.iter()
            .any(|(h, _)| h.kind == kind::HEADERS && h.stream == 1)
    );
}

#[test]
fn streams_beyond_the_limit_are_refused() {
    let mut p = Peer::open(b"");
    let mut many = Vec::new();
    for i in 0..=MAX_CONCURRENT_STREAMS {
        // Open, without END_STREAM: each stays open.
        many.extend(frame(kind::HEADERS, flag::END_HEADERS, 2 * i + 1, GET));
    }
    p.feed(&many);
    let f = p.frames();
    let resets: Vec<_> = f
        .iter()
        .filter(|(h, _)| h.kind == kind::RST_STREAM)
        .collect();
    assert_eq!(resets.len(), 1, "{f:?}");
    assert_eq!(resets[0].0.stream, 2 * MAX_CONCURRENT_STREAMS + 1);
    assert_eq!(resets[0].1, (ErrorCode::RefusedStream as u32).to_be_bytes());
    assert_eq!(p.conn.streams(), MAX_CONCURRENT_STREAMS as usize);
}

#[test]
fn a_frame_inside_a_header_block_is_a_protocol_error() {
    let mut p = Peer::open(b"");
    let mut b = frame(kind::HEADERS, flag::END_STREAM, 1, GET);
    b.extend(frame(kind::PING, 0, 0, b"12345678"));
    p.feed(&b);
    assert_eq!(
        goaway_code(&p.frames()),
        Some(ErrorCode::ProtocolError as u32)
    );
}

#[test]
fn a_block_split_into_continuation_frames_is_answered() {
    let mut p = Peer::open(b"x");
    let mut b = frame(kind::HEADERS, flag::END_STREAM, 1, &GET[..1]);
    b.extend(frame(kind::CONTINUATION, 0, 1, &GET[1..2]));
    b.extend(frame(kind::CONTINUATION, flag::END_HEADERS, 1, &GET[2..]));
    p.feed(&b);
    let f = p.frames();
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(fields(&f[0].1)[0].1, "200");
}

#[test]
fn an_uppercase_field_name_resets_its_stream_only() {
    let mut p = Peer::open(b"x");
    let mut block = GET.to_vec();
    // A literal without indexing, new name `X-A: b`.
    block.extend([0x00, 3, b'X', b'-', b'A', 1, b'b']);
    p.feed(&request(1, &block));
    p.feed(&request(3, GET));
    let f = p.frames();
    assert_eq!(f[0].0.kind, kind::RST_STREAM);
    assert_eq!(
        (f[0].0.stream, &f[0].1[..]),
        (1, &(ErrorCode::ProtocolError as u32).to_be_bytes()[..])
    );
    assert!(
        f.iter()
            .any(|(h, _)| h.kind == kind::HEADERS && h.stream == 3)
    );
    assert_eq!(goaway_code(&f), None);
}

#[test]
fn a_drain_sends_goaway_with_the_last_stream_then_finishes_it() {
    let body = vec![b'z'; 70_000];
    let mut p = Peer::open(&body);
    p.feed(&request(1, GET));
    p.frames();
    p.draining = true;
    p.feed(&frame(kind::WINDOW_UPDATE, 0, 0, &10_000u32.to_be_bytes()));
    let f = p.frames();
    let goaway = f
        .iter()
        .find(|(h, _)| h.kind == kind::GOAWAY)
        .expect("GOAWAY");
    assert_eq!(
        goaway.1,
        [0, 0, 0, 1, 0, 0, 0, 0],
        "last stream 1, NO_ERROR"
    );
    assert_eq!(
        p.conn.next(),
        Next::Continue,
        "stream 1 is still being answered"
    );
    // A new stream after the GOAWAY is not answered.
    p.feed(&request(3, GET));
    p.feed(&frame(kind::WINDOW_UPDATE, 0, 1, &10_000u32.to_be_bytes()));
    let f = p.frames();
    assert!(f.iter().all(|(h, _)| h.stream != 3), "{f:?}");
    let last = f.iter().rfind(|(h, _)| h.kind == kind::DATA).unwrap();
    assert_eq!((last.0.stream, last.0.flags), (1, flag::END_STREAM));
    assert_eq!(p.conn.next(), Next::Close { linger: true });
}

#[test]
fn an_oversized_frame_is_a_frame_size_error() {
    let mut p = Peer::open(b"");
    let mut h = Header {
        len: MAX_FRAME_SIZE + 1,
        kind: kind::DATA,
        flags: 0,
        stream: 1,
    }
    .encode()
    .to_vec();
    h.resize(h.len() + 16, 0);
    p.feed(&h);
    assert_eq!(
        goaway_code(&p.frames()),
        Some(ErrorCode::FrameSizeError as u32)
    );
}

#[test]
fn answered_streams_leave_in_order_and_the_open_ones_stay() {
    let mut p = Peer::open(b"ok");
    let mut batch = Vec::new();
    for stream in [1, 3, 5, 7, 9] {
        // 1 and 5 stay open (their bodies to come); 3, 7 and 9 end with their HEADERS.
        let flags = match stream {
            1 | 5 => flag::END_HEADERS,
            _ => flag::END_HEADERS | flag::END_STREAM,
        };
        batch.extend(frame(kind::HEADERS, flags, stream, GET));
    }
    p.feed(&batch);
    let answered = |f: &[(Header, Vec<u8>)]| -> Vec<u32> {
        f.iter()
            .filter(|(h, _)| h.kind == kind::HEADERS)
            .map(|(h, _)| h.stream)
            .collect()
    };
    assert_eq!(answered(&p.frames()), [3, 7, 9]);
    assert_eq!(p.conn.streams(), 2, "1 and 5 are still open");
    let mut ends = frame(kind::DATA, flag::END_STREAM, 5, b"");
    ends.extend(frame(kind::DATA, flag::END_STREAM, 1, b""));
    p.feed(&ends);
    let f = p.frames();
    assert_eq!(answered(&f), [1, 5], "in the order the streams came");
    assert_eq!(p.conn.streams(), 0);
}
