//! HTTP/2 against hostile and careless peers, with raw frames (and Python's `hpack` where a real
//! encoder's state matters) against a `canned` process: a conversation split byte by byte, a
//! client that raises every SETTINGS to its maximum and never reads, a peer that resets the
//! streams it sent DATA on, DATA still in flight after canned's own RST_STREAM, header
//! blocks on streams that are reset, and streams whose `--control` asks for a stall or a
//! slow drip. Each case that holds connections open measures the
//! server's RSS per connection against the bound of docs/http2.md (HTTP/2: about 320 KiB).
#![cfg(feature = "http2")]

use crate::common;

use canned::frame::{ErrorCode, Header, MAX_WINDOW, PREFACE, flag, kind, setting};
use canned::hpack::Decoder;
use common::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The bound on memory per HTTP/2 connection, KiB.
const DOCUMENTED_KIB_PER_CONN: u64 = 320;

/// The largest DATA frame canned sends, whatever the peer's SETTINGS_MAX_FRAME_SIZE.
const DATA_FRAME_CAP: usize = 16_384;

/// GET / (the static table's :method GET, :scheme http, :path /).
const GET_ROOT: &[u8] = &[0x82, 0x86, 0x84];
/// POST / (:method POST, :scheme http, :path /).
const POST_ROOT: &[u8] = &[0x83, 0x86, 0x84];

/// The preface and a SETTINGS frame with these parameters.
fn hello_with(params: &[(u16, u32)]) -> Vec<u8> {
    let mut p = Vec::new();
    for (id, v) in params {
        p.extend_from_slice(&id.to_be_bytes());
        p.extend_from_slice(&v.to_be_bytes());
    }
    let mut b = PREFACE.to_vec();
    b.extend(frame(kind::SETTINGS, 0, 0, &p));
    b
}

/// Every SETTINGS parameter at the largest value RFC 9113 §6.5.2 allows.
const MAX_SETTINGS: [(u16, u32); 6] = [
    (setting::HEADER_TABLE_SIZE, u32::MAX),
    (setting::ENABLE_PUSH, 1),
    (setting::MAX_CONCURRENT_STREAMS, u32::MAX),
    (setting::INITIAL_WINDOW_SIZE, MAX_WINDOW),
    (setting::MAX_FRAME_SIZE, (1 << 24) - 1),
    (setting::MAX_HEADER_LIST_SIZE, u32::MAX),
];

/// The preface, every SETTINGS at its maximum, and the connection's window raised to its
/// maximum too.
fn greedy_hello() -> Vec<u8> {
    let mut b = hello_with(&MAX_SETTINGS);
    let raise = MAX_WINDOW - 65_535;
    b.extend(frame(kind::WINDOW_UPDATE, 0, 0, &raise.to_be_bytes()));
    b
}

fn goaway(fs: &[(Header, Vec<u8>)]) -> Option<(u32, u32)> {
    fs.iter()
        .find(|(h, _)| h.kind == kind::GOAWAY)
        .map(|(_, p)| {
            (
                u32::from_be_bytes(p[..4].try_into().unwrap()),
                u32::from_be_bytes(p[4..8].try_into().unwrap()),
            )
        })
}

/// A connection whose receive buffer is small, so that a peer that does not read is seen as
/// one soon.
fn small_connect(addr: SocketAddr) -> TcpStream {
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    s.set_recv_buffer_size(4096).unwrap();
    s.connect(&addr.into()).unwrap();
    let s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// The frames read from one connection, kept across reads.
struct Wire {
    s: TcpStream,
    got: Vec<u8>,
}

impl Wire {
    fn new(s: TcpStream) -> Wire {
        Wire { s, got: Vec::new() }
    }

    fn frames(&self) -> Frames {
        split(&self.got)
    }

    /// Read until the frames so far satisfy `done`; panics at the close or the read timeout.
    fn until(&mut self, done: impl Fn(&[(Header, Vec<u8>)]) -> bool) -> Frames {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let fs = self.frames();
            if done(&fs) {
                return fs;
            }
            match self.s.read_some(&mut buf) {
                Ok(0) => panic!("closed: last frames {:?}", last_kinds(&fs)),
                Ok(n) => self.got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("{e}: last frames {:?}", last_kinds(&fs)),
            }
        }
    }
}

/// The last frames' (type, flags, stream, length), for a failure's message.
fn last_kinds(fs: &[(Header, Vec<u8>)]) -> Vec<(u8, u8, u32, usize)> {
    let from = fs.len().saturating_sub(6);
    fs[from..]
        .iter()
        .map(|(h, p)| (h.kind, h.flags, h.stream, p.len()))
        .collect()
}

/// The `:status` of a response header block.
fn status(block: &[u8]) -> String {
    let mut d = Decoder::new(4096);
    let mut scratch = vec![0; 16_384];
    let mut status = String::new();
    d.decode(block, &mut scratch, |f| {
        if f.name == b":status" {
            status = String::from_utf8_lossy(f.value).into_owned();
        }
    })
    .expect("a block canned sent decodes (it uses no dynamic table)");
    status
}

/// The server's RSS once it has stopped changing (the connections' states reached), KiB.
fn settled_rss(p: &Proc) -> u64 {
    let deadline = Instant::now() + time_bound(Duration::from_secs(5));
    let mut last = p.rss_kib();
    let mut same = 0;
    while same < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        let now = p.rss_kib();
        same = if now == last { same + 1 } else { 0 };
        last = now;
    }
    last
}

/// RSS that emulation adds on its own as it translates code a test runs for the first time
/// (as in `tests/suite/h2_floods.rs`), KiB; none natively.
fn emulation_slack_kib() -> u64 {
    if time_scale() > 1 { 8 * 1024 } else { 0 }
}

/// RSS growth over `n` connections, per connection, against the bound of docs/http2.md.
fn assert_per_connection(what: &str, grown_kib: u64, n: u64) {
    let held = grown_kib.saturating_sub(emulation_slack_kib());
    eprintln!(
        "{what}: RSS grew {grown_kib} KiB over {n} connections, {} KiB each",
        grown_kib / n
    );
    assert!(
        held / n < DOCUMENTED_KIB_PER_CONN,
        "{what}: {} KiB per connection, over docs/http2.md's {DOCUMENTED_KIB_PER_CONN}",
        held / n
    );
}

/// A body file of `len` bytes, removed on drop.
struct BodyFile(std::path::PathBuf);

impl BodyFile {
    fn new(name: &str, len: usize) -> BodyFile {
        let path = std::env::temp_dir().join(format!("canned-h2h-{name}-{}", std::process::id()));
        std::fs::write(&path, vec![b'x'; len]).unwrap();
        BodyFile(path)
    }

    fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for BodyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A normal request on a new connection is answered 200.
fn still_answers(addr: SocketAddr) {
    let mut w = Wire::new(small_connect(addr));
    let mut b = hello_with(&[]);
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        GET_ROOT,
    ));
    w.s.write_all(&b).unwrap();
    let fs = w.until(|fs| fs.iter().any(|(h, _)| h.kind == kind::HEADERS));
    let (_, block) = fs.iter().find(|(h, _)| h.kind == kind::HEADERS).unwrap();
    assert_eq!(status(block), "200");
}

/// A client that raises every SETTINGS to its maximum (frames of 16 MiB, windows of 2 GiB,
/// unlimited streams and table) and its connection window too, asks for a 20 MiB body on
/// three streams and never reads. canned's DATA frames stay at 16 KiB (RFC 9113 §4.2 lets a
/// sender always send smaller ones) and its output at 64 KiB and one frame: RSS per
/// connection within the bound of docs/http2.md, where one 16 MiB frame each was built before. A
/// client with the same SETTINGS that reads gets the whole body in frames of 16 KiB at most.
#[test]
fn every_setting_at_its_maximum_and_a_peer_that_never_reads() {
    let body = BodyFile::new("greedy", 20 << 20);
    let p = Proc::start(&["--workers", "2", "--no-date", "--body-file", body.arg()]);
    still_answers(p.addr);
    let before = settled_rss(&p);
    let mut b = greedy_hello();
    for id in [1, 3, 5] {
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            id,
            GET_ROOT,
        ));
    }
    const N: u64 = 12;
    let conns: Vec<TcpStream> = (0..N)
        .map(|_| {
            let mut s = small_connect(p.addr);
            s.write_all(&b).unwrap();
            s
        })
        .collect();
    let grown = settled_rss(&p).saturating_sub(before);
    assert_per_connection("every SETTINGS at its maximum, not reading", grown, N);

    let mut w = Wire::new(small_connect(p.addr));
    let mut b = greedy_hello();
    b.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        GET_ROOT,
    ));
    w.s.write_all(&b).unwrap();
    whole_body_in_small_frames(&mut w, 20 << 20, "prior knowledge");

    // The same SETTINGS in HTTP2-Settings, by Upgrade: h2c.
    let mut params = Vec::new();
    for (id, v) in MAX_SETTINGS {
        params.extend_from_slice(&id.to_be_bytes());
        params.extend_from_slice(&v.to_be_bytes());
    }
    let mut b = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
         Upgrade: h2c\r\nHTTP2-Settings: {}\r\n\r\n",
        base64url(&params)
    )
    .into_bytes();
    // An empty SETTINGS frame after the preface: the frame size is HTTP2-Settings' alone.
    b.extend(hello_with(&[]));
    let raise = MAX_WINDOW - 65_535;
    b.extend(frame(kind::WINDOW_UPDATE, 0, 0, &raise.to_be_bytes()));
    let mut w = Wire::new(small_connect(p.addr));
    w.s.write_all(&b).unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        w.s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101 "), "{head:?}");
    whole_body_in_small_frames(&mut w, 20 << 20, "Upgrade: h2c");
    drop(conns);
    still_answers(p.addr);
}

/// Read stream 1's answer whole: `len` bytes of DATA, none over [`DATA_FRAME_CAP`].
fn whole_body_in_small_frames(w: &mut Wire, len: usize, what: &str) {
    let fs = w.until(|fs| {
        fs.iter()
            .any(|(h, _)| h.kind == kind::DATA && h.has(flag::END_STREAM))
    });
    let data: Vec<usize> = fs
        .iter()
        .filter(|(h, _)| h.kind == kind::DATA)
        .map(|(_, p)| p.len())
        .collect();
    assert_eq!(data.iter().sum::<usize>(), len, "{what}: the whole body");
    let largest = data.iter().max().copied().unwrap_or(0);
    assert!(
        largest <= DATA_FRAME_CAP,
        "{what}: a DATA frame of {largest} bytes"
    );
}

/// base64url without padding (HTTP2-Settings, RFC 7540 §3.2.1).
fn base64url(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A small conversation (the preface, SETTINGS, a header block in HEADERS and CONTINUATION,
/// PING, PRIORITY, an unknown frame type, a POST with a padded body, WINDOW_UPDATE), each
/// frame split byte by byte across many connections at once: each gets what the same bytes
/// in one write get, and RSS per connection midway stays within the bound of docs/http2.md.
#[test]
fn every_frame_split_byte_by_byte() {
    let p = Proc::start(&["--workers", "2", "--no-date"]);
    let mut talk = hello_with(&[(setting::INITIAL_WINDOW_SIZE, 100_000)]);
    talk.extend(frame(kind::HEADERS, flag::END_STREAM, 1, &GET_ROOT[..2]));
    talk.extend(frame(
        kind::CONTINUATION,
        flag::END_HEADERS,
        1,
        &GET_ROOT[2..],
    ));
    talk.extend(frame(kind::PING, 0, 0, b"canned!!"));
    talk.extend(frame(kind::PRIORITY, 0, 9, &[0, 0, 0, 1, 16]));
    talk.extend(frame(0xfa, 0x3, 1, b"unknown"));
    talk.extend(frame(kind::HEADERS, flag::END_HEADERS, 3, POST_ROOT));
    talk.extend(frame(
        kind::DATA,
        flag::PADDED | flag::END_STREAM,
        3,
        b"\x03hello\0\0\0",
    ));
    talk.extend(frame(kind::WINDOW_UPDATE, 0, 0, &4096u32.to_be_bytes()));
    let answered = |fs: &[(Header, Vec<u8>)]| {
        let ended = |id| {
            fs.iter()
                .any(|(h, _)| h.stream == id && h.has(flag::END_STREAM) && h.kind != kind::SETTINGS)
        };
        ended(1) && ended(3) && fs.iter().any(|(h, _)| h.kind == kind::PING)
    };
    // What the conversation gets in one write: the reference.
    let mut whole = Wire::new(small_connect(p.addr));
    whole.s.write_all(&talk).unwrap();
    let want = whole.until(answered);
    assert_eq!(goaway(&want), None, "{:?}", last_kinds(&want));

    let before = settled_rss(&p);
    const N: usize = 24;
    let mut conns: Vec<Wire> = (0..N).map(|_| Wire::new(small_connect(p.addr))).collect();
    let mut grown = 0;
    for (i, byte) in talk.iter().enumerate() {
        for w in &mut conns {
            w.s.write_all(&[*byte]).unwrap();
        }
        if i == talk.len() / 2 {
            grown = settled_rss(&p).saturating_sub(before);
        } else {
            // Time for each byte to be read on its own.
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert_per_connection("split byte by byte, midway", grown, N as u64);
    let shape = |fs: &[(Header, Vec<u8>)]| -> Vec<(u8, u8, u32, Vec<u8>)> {
        let mut v: Vec<_> = fs
            .iter()
            .map(|(h, p)| (h.kind, h.flags, h.stream, p.clone()))
            .collect();
        // The order of frames of different streams may differ with the reads' boundaries.
        v.sort();
        v
    };
    for w in &mut conns {
        let got = w.until(answered);
        assert_eq!(shape(&got), shape(&want));
    }
}

/// A peer that opens uploads, sends DATA on each and resets it (CANCEL) before its end, then
/// asks for `/`, 200 times on each of many connections: every GET answered, no GOAWAY (each
/// answer forgives a reset), RSS per connection within the bound of docs/http2.md.
#[test]
fn a_peer_that_resets_the_streams_it_sent_data_on() {
    let p = Proc::start(&["--workers", "2", "--no-date"]);
    still_answers(p.addr);
    let before = settled_rss(&p);
    const ROUNDS: u32 = 200;
    let mut b = hello_with(&[]);
    for r in 0..ROUNDS {
        let up = 1 + 4 * r;
        b.extend(frame(kind::HEADERS, flag::END_HEADERS, up, POST_ROOT));
        b.extend(frame(kind::DATA, 0, up, &[b'u'; 4000]));
        b.extend(frame(
            kind::RST_STREAM,
            0,
            up,
            &(ErrorCode::Cancel as u32).to_be_bytes(),
        ));
        b.extend(frame(
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
            up + 2,
            GET_ROOT,
        ));
    }
    const N: u64 = 16;
    let mut conns: Vec<Wire> = (0..N)
        .map(|_| {
            // Default buffers: the answers (about 36 KB) are read only once all is sent.
            let mut w = Wire::new(connect(p.addr));
            w.s.write_all(&b).unwrap();
            w
        })
        .collect();
    let grown = settled_rss(&p).saturating_sub(before);
    assert_per_connection("resets of streams with DATA", grown, N);
    let answered = |fs: &[(Header, Vec<u8>)]| {
        fs.iter()
            .filter(|(h, _)| h.kind == kind::DATA && h.has(flag::END_STREAM))
            .count()
            == ROUNDS as usize
            || goaway(fs).is_some()
    };
    for w in &mut conns {
        let fs = w.until(answered);
        assert_eq!(goaway(&fs), None, "{:?}", last_kinds(&fs));
        assert!(
            fs.iter().all(|(h, _)| h.kind != kind::RST_STREAM),
            "no reset of canned's own: {:?}",
            last_kinds(&fs)
        );
    }
    still_answers(p.addr);
}

/// An honest uploader over `--max-body-bytes`, 120 times on one connection: each upload is
/// answered 413 and RST_STREAM NO_ERROR, and the DATA it had already sent (here sent after
/// the reset is read, four frames) is ignored (RFC 9113 §5.1, closed: frames received after
/// a RST_STREAM are ignored), not reset again and not charged to the flood budget: no
/// GOAWAY, and the connection's window is given back for every byte.
#[test]
fn data_in_flight_after_a_413_is_ignored() {
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--max-body-bytes", "1000"]);
        let mut w = Wire::new(small_connect(p.addr));
        w.s.write_all(&hello_with(&[])).unwrap();
        const UPLOADS: u32 = 120;
        let mut sent: u64 = 0;
        for u in 0..UPLOADS {
            let id = 1 + 2 * u;
            let mut b = frame(kind::HEADERS, flag::END_HEADERS, id, POST_ROOT);
            b.extend(frame(kind::DATA, 0, id, &[b'u'; 2000]));
            w.s.write_all(&b).unwrap();
            sent += 2000;
            let fs = w.until(|fs| {
                goaway(fs).is_some()
                    || fs
                        .iter()
                        .any(|(h, _)| h.kind == kind::RST_STREAM && h.stream == id)
            });
            assert_eq!(goaway(&fs), None, "upload {u}: {:?}", last_kinds(&fs));
            let (_, block) = fs
                .iter()
                .find(|(h, _)| h.kind == kind::HEADERS && h.stream == id)
                .expect("the 413's HEADERS before the reset");
            assert_eq!(status(block), "413", "upload {u}");
            let mut rest = Vec::new();
            for k in 0..4 {
                let end = if k == 3 { flag::END_STREAM } else { 0 };
                rest.extend(frame(kind::DATA, end, id, &[b'v'; 1000]));
                sent += 1000;
            }
            w.s.write_all(&rest).unwrap();
        }
        w.s.write_all(&frame(kind::PING, 0, 0, b"the end!"))
            .unwrap();
        let fs = w.until(|fs| {
            goaway(fs).is_some()
                || fs
                    .iter()
                    .any(|(h, p)| h.kind == kind::PING && p == b"the end!")
        });
        assert_eq!(goaway(&fs), None, "{:?}", last_kinds(&fs));
        let resets: Vec<_> = fs
            .iter()
            .filter(|(h, _)| h.kind == kind::RST_STREAM)
            .map(|(h, p)| (h.stream, u32::from_be_bytes(p[..4].try_into().unwrap())))
            .collect();
        assert_eq!(resets.len(), UPLOADS as usize, "one reset per upload");
        assert!(resets.iter().all(|&(_, code)| code == 0), "{resets:?}");
        let returned: u64 = fs
            .iter()
            .filter(|(h, _)| h.kind == kind::WINDOW_UPDATE && h.stream == 0)
            .map(|(_, p)| u64::from(u32::from_be_bytes(p[..4].try_into().unwrap())))
            .sum();
        assert_eq!(returned, sent, "the connection's window given back whole");
        still_answers(p.addr);
    }
}

/// The start of the Python clients below: raw frames, Python's `hpack` encoder (which indexes
/// a request's fields in its dynamic table), and helpers to read frames until a condition.
const PY_CLIENT: &str = r#"
import socket, struct, sys
from hpack import Encoder, Decoder

def frame(kind, flags, stream, payload):
    return struct.pack('>I', len(payload))[1:] + bytes([kind, flags]) + struct.pack('>I', stream) + payload

HEADERS, DATA, RST, PING, GOAWAY = 1, 0, 3, 6, 7
END_STREAM, END_HEADERS, PRIORITY = 1, 4, 0x20

s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.settimeout(10)
got = b''
def frames():
    out, b = [], got
    while len(b) >= 9:
        n = int.from_bytes(b[:3], 'big')
        if len(b) < 9 + n:
            break
        out.append((b[3], b[4], int.from_bytes(b[5:9], 'big') & 0x7fffffff, b[9:9 + n]))
        b = b[9 + n:]
    return out
def until(done):
    global got
    while not done(frames()):
        chunk = s.recv(65536)
        assert chunk, ('closed', frames())
        got += chunk
    return frames()

enc, dec = Encoder(), Decoder()
def request(method, custom):
    return enc.encode([(':method', method), (':scheme', 'http'), (':path', '/'),
                       (':authority', 'example.test'), ('x-custom', custom)])
def answered(stream):
    def done(fs):
        assert not any(f[0] == GOAWAY for f in fs), ('GOAWAY', fs)
        return any(f[0] == HEADERS and f[2] == stream for f in fs)
    return done
def status(fs, stream):
    block = next(f[3] for f in fs if f[0] == HEADERS and f[2] == stream)
    return dict(dec.decode(block))[':status']

s.sendall(b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + frame(4, 0, 0, b''))
"#;

/// Run `PY_CLIENT` and then `case` against a server started with `flags`.
fn python_case(flags: &[&str], case: &str, what: &str) {
    if !have("python3") {
        return;
    }
    let p = Proc::start(flags);
    let port = p.addr.port().to_string();
    python_ok(
        &format!("{PY_CLIENT}{case}"),
        &["127.0.0.1".as_ref(), port.as_ref()],
        what,
    );
}

/// A HEADERS whose priority names its own stream is a stream error (RFC 9113 §5.3.1), but its
/// block is decoded all the same (§4.3), so the HPACK table stays in step: Python's `hpack`
/// encoder indexes the request's fields, and the next request, encoded by the same encoder,
/// refers to those entries. It is answered 200, and no GOAWAY comes.
#[test]
fn a_self_dependent_headers_keeps_hpack_in_step() {
    python_case(
        &["--workers", "1"],
        r#"
# Stream 1 depends on itself: reset, but its block's entries go in the table.
block = request('GET', 'first')
assert len(enc.header_table.dynamic_entries) >= 2
s.sendall(frame(HEADERS, END_STREAM | END_HEADERS | PRIORITY, 1, struct.pack('>IB', 1, 15) + block))
# Stream 3 refers to them.
block = request('GET', 'first')
assert len(block) < 8, block
s.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 3, block))
fs = until(answered(3))
rst = [f for f in fs if f[0] == RST]
assert [(f[2], f[3]) for f in rst] == [(1, struct.pack('>I', 1))], ('PROTOCOL_ERROR on 1', fs)
assert status(fs, 3) == '200', fs
print('ok')
"#,
        "a self-dependent HEADERS",
    );
}

/// Trailers that come after canned answered an upload 413 and reset it (`--max-body-bytes`)
/// are decoded (RFC 9113 §4.3: their fields go in the table) and ignored (§5.1: frames on a
/// stream canned reset), where they were a connection error (STREAM_CLOSED); the next request
/// refers to their entries and is answered 200; no GOAWAY.
#[test]
fn trailers_after_a_413_keep_hpack_in_step() {
    python_case(
        &["--workers", "1", "--max-body-bytes", "10"],
        r#"
s.sendall(frame(HEADERS, END_HEADERS, 1, request('POST', 'upload')))
s.sendall(frame(DATA, 0, 1, b'x' * 100))
fs = until(lambda fs: any(f[0] == RST and f[2] == 1 for f in fs))
assert status(fs, 1) == '413', fs
# The trailers come after the reset, with a field the table learns.
s.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, enc.encode([('x-trailer', 'late')])))
block = enc.encode([(':method', 'GET'), (':scheme', 'http'), (':path', '/'),
                    (':authority', 'example.test'), ('x-trailer', 'late')])
s.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 3, block))
fs = until(answered(3))
assert status(fs, 3) == '200', fs
assert [f[2] for f in fs if f[0] == RST] == [1], fs
print('ok')
"#,
        "trailers after a 413",
    );
}

/// POST /e (:method POST, :scheme http, :path "/e" as a literal without indexing).
const POST_ECHO: &[u8] = &[0x83, 0x86, 0x04, 0x02, b'/', b'e'];

/// Connections that open 64 streams each to an echo path and send 160 KiB of body on each
/// (10 MiB a connection), never ending them and never reading: canned keeps at most 4 MiB of
/// echoes per connection (docs/http2.md, Echo and the journal) and refuses the stream that
/// would go past it with RST_STREAM REFUSED_STREAM, so RSS per connection stays within that,
/// the allocator's slack (a quarter more) and the bound of docs/http2.md, and the server
/// still answers.
#[test]
fn streams_that_send_large_bodies_to_an_echo_and_never_read() {
    const STREAMS: u32 = 64;
    const BODY: usize = 160 * 1024;
    const N: u64 = 4;
    let p = Proc::start(&["--workers", "1", "--no-date", "--echo", "/e"]);
    still_answers(p.addr);
    let before = settled_rss(&p);
    let mut conns = Vec::new();
    for _ in 0..N {
        let mut w = Wire::new(small_connect(p.addr));
        let mut b = hello_with(&[]);
        for i in 0..STREAMS {
            b.extend(frame(
                kind::HEADERS,
                flag::END_HEADERS,
                1 + 2 * i,
                POST_ECHO,
            ));
        }
        w.s.write_all(&b).unwrap();
        let piece = vec![b'x'; 16 * 1024];
        for _ in 0..BODY / piece.len() {
            for i in 0..STREAMS {
                w.s.write_all(&frame(kind::DATA, 0, 1 + 2 * i, &piece))
                    .unwrap();
            }
        }
        conns.push(w);
    }
    let grown = settled_rss(&p).saturating_sub(before);
    let refused = ErrorCode::RefusedStream as u32;
    for w in &mut conns {
        w.until(|fs| {
            fs.iter()
                .any(|(h, p)| h.kind == kind::RST_STREAM && p[..] == refused.to_be_bytes())
        });
    }
    let held = grown.saturating_sub(emulation_slack_kib());
    eprintln!(
        "echoes never ended: RSS grew {grown} KiB over {N} connections, {} KiB each",
        grown / N
    );
    let bound = 5 * 1024 + DOCUMENTED_KIB_PER_CONN;
    assert!(
        held / N < bound,
        "{} KiB per connection, over 4 MiB of echoes, a quarter more, and docs/http2.md's {DOCUMENTED_KIB_PER_CONN}",
        held / N
    );
    drop(conns);
    still_answers(p.addr);
}

/// GET `path` (:method GET, :scheme http, :path as a literal without indexing).
fn get_block(path: &str) -> Vec<u8> {
    let mut b = vec![0x82, 0x86, 0x04, path.len() as u8];
    b.extend_from_slice(path.as_bytes());
    b
}

/// Connections that open 99 streams each whose control asks for a stall or a slow drip of
/// 10 MB, and never read: each stream holds its slot and no more than its drip let go (a
/// stalled one nothing), so RSS per connection stays within the bound of docs/http2.md; and
/// a plain request on a new stream of one of them is answered.
#[test]
#[cfg(feature = "control")]
fn streams_that_ask_for_a_stall_or_a_slow_drip_and_never_read() {
    const STREAMS: u32 = 99;
    const N: u64 = 8;
    let p = Proc::start(&["--workers", "1", "--no-date", "--control"]);
    still_answers(p.addr);
    let before = settled_rss(&p);
    let mut conns = Vec::new();
    for _ in 0..N {
        let mut w = Wire::new(small_connect(p.addr));
        let mut b = hello_with(&[]);
        for i in 0..STREAMS {
            let path = match i % 2 {
                0 => "/?fault=stall",
                _ => "/?bytes=10000000&fault=drip:1/1s",
            };
            b.extend(frame(
                kind::HEADERS,
                flag::END_HEADERS | flag::END_STREAM,
                1 + 2 * i,
                &get_block(path),
            ));
        }
        w.s.write_all(&b).unwrap();
        conns.push(w);
    }
    let grown = settled_rss(&p).saturating_sub(before);
    assert_per_connection("streams stalled or dripping, not reading", grown, N);
    // A plain request on a new stream: its answer comes whole, beside the held streams.
    let w = &mut conns[0];
    let id = 1 + 2 * STREAMS;
    w.s.write_all(&frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        id,
        GET_ROOT,
    ))
    .unwrap();
    let fs = w.until(|fs| {
        fs.iter()
            .any(|(h, _)| h.stream == id && h.flags & flag::END_STREAM != 0)
    });
    let (_, block) = fs
        .iter()
        .find(|(h, _)| h.kind == kind::HEADERS && h.stream == id)
        .unwrap();
    assert_eq!(status(block), "200");
    let body: Vec<u8> = fs
        .iter()
        .filter(|(h, _)| h.kind == kind::DATA && h.stream == id)
        .flat_map(|(_, p)| p.clone())
        .collect();
    assert!(!body.is_empty());
    // No stalled stream was answered; the drips sent a byte each at most so far.
    let stalled = |s: u32| (s - 1) / 2 % 2 == 0;
    assert!(
        fs.iter()
            .all(|(h, _)| h.stream == 0 || !stalled(h.stream) || h.stream == id),
        "a stalled stream was answered: {:?}",
        last_kinds(&fs)
    );
    drop(conns);
    still_answers(p.addr);
}
