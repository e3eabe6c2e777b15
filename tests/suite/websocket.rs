//! `--websocket`: the opening handshake and its refusals, the echo of RFC 6455 through a
//! hand-written client (raw frames, masked), each rule that fails a connection with the close
//! code it names, a peer that never reads, timeouts and the drain, with 1 and 2 workers; then
//! real clients (Python `websockets`, node `ws`, a Go client on the standard library alone, curl
//! where it speaks ws).
#![cfg(feature = "websocket")]

use crate::common;
use crate::common::{ReadSome, WriteSome};

use common::{Proc, connect, have, read_to_eof, start, time_bound};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// RFC 6455 §1.3's key and its accept.
const KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";
const ACCEPT: &str = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

const TEXT: u8 = 1;
const BINARY: u8 = 2;
const CLOSE: u8 = 8;
const PING: u8 = 9;
const PONG: u8 = 10;

fn handshake_request(path: &str, fields: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n{fields}\r\n")
}

fn good_fields() -> String {
    format!(
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {KEY}\r\n"
    )
}

/// Read an HTTP head (to its blank line) byte by byte, so that no frame after it is taken.
fn read_head(s: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = s.read_some(&mut b).unwrap();
        assert!(n == 1, "closed after {:?}", String::from_utf8_lossy(&head));
        head.push(b[0]);
    }
    String::from_utf8(head).unwrap()
}

/// A WebSocket to `path`, its `101` checked.
fn open(addr: SocketAddr, path: &str) -> TcpStream {
    let mut s = connect(addr);
    s.write_all(handshake_request(path, &good_fields()).as_bytes())
        .unwrap();
    let head = read_head(&mut s);
    assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
    assert!(
        head.contains(&format!("\r\nSec-WebSocket-Accept: {ACCEPT}\r\n")),
        "{head}"
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("\r\nupgrade: websocket\r\n")
    );
    s
}

/// A client frame: masked (unless `masked` is false), with `rsv` in the first byte.
fn frame_with(fin: bool, rsv: u8, opcode: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    let mut f = vec![(u8::from(fin) << 7) | rsv << 4 | opcode];
    let m = if masked { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => f.push(m | n as u8),
        n if n <= 0xFFFF => {
            f.push(m | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(m | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    if masked {
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    } else {
        f.extend_from_slice(payload);
    }
    f
}

fn frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
    frame_with(fin, 0, opcode, payload, true)
}

fn close_frame(code: u16, reason: &[u8]) -> Vec<u8> {
    frame(true, CLOSE, &[&code.to_be_bytes()[..], reason].concat())
}

/// One server frame: (fin, opcode, payload); the server never masks (§5.1).
fn read_frame(s: &mut TcpStream) -> (bool, u8, Vec<u8>) {
    let mut h = [0u8; 2];
    s.read_exact(&mut h).unwrap();
    assert_eq!(h[0] & 0x70, 0, "RSV bits");
    assert_eq!(h[1] & 0x80, 0, "a server frame is masked");
    let len = match h[1] & 0x7F {
        126 => {
            let mut b = [0u8; 2];
            s.read_exact(&mut b).unwrap();
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            s.read_exact(&mut b).unwrap();
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    let mut payload = vec![0u8; len as usize];
    s.read_exact(&mut payload).unwrap();
    (h[0] & 0x80 != 0, h[0] & 0x0F, payload)
}

/// The server's close frame carries `code`, then the server closes TCP.
fn expect_close(s: &mut TcpStream, code: u16, what: &str) {
    let (fin, op, payload) = read_frame(s);
    assert!(fin && op == CLOSE, "{what}: got opcode {op} {payload:?}");
    assert_eq!(
        payload.get(..2),
        Some(&code.to_be_bytes()[..]),
        "{what}: close payload {payload:?}"
    );
    assert!(read_to_eof(s).is_empty(), "{what}: bytes after the close");
}

fn echo(s: &mut TcpStream, opcode: u8, payload: &[u8]) {
    s.write_all(&frame(true, opcode, payload)).unwrap();
    let (fin, op, got) = read_frame(s);
    assert!(fin);
    assert_eq!(op, opcode);
    assert!(got == payload, "echo of {} bytes differs", payload.len());
}

#[test]
fn handshake_errors_are_answered_400_or_426() {
    let (_h, addr) = start(&["--websocket", "/ws", "--workers", "1"]);
    let cases: &[(&str, &str, &str)] = &[
        (
            "no Upgrade",
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nUpgrade: h2\r\n",
            "400",
        ),
        (
            "no Connection",
            "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
            "400",
        ),
        (
            "no key",
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n",
            "400",
        ),
        (
            "a key of 15 bytes",
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=\r\n",
            "400",
        ),
        (
            "version 8",
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
            "426",
        ),
        (
            "no version",
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
            "426",
        ),
    ];
    for (what, fields, status) in cases {
        let got = common::exchange(addr, handshake_request("/ws", fields).as_bytes());
        let got = String::from_utf8_lossy(&got);
        assert!(
            got.starts_with(&format!("HTTP/1.1 {status} ")),
            "{what}: {got}"
        );
        assert!(got.contains("Connection: close\r\n"), "{what}: {got}");
        if *status == "426" {
            assert!(
                got.contains("\r\nSec-WebSocket-Version: 13\r\n"),
                "{what}: {got}"
            );
        }
    }
    // Not a GET, or HTTP/1.0.
    let post = format!(
        "POST /ws HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n{}\r\n",
        good_fields()
    );
    let old = format!("GET /ws HTTP/1.0\r\nHost: t\r\n{}\r\n", good_fields());
    for req in [post, old] {
        let got = common::exchange(addr, req.as_bytes());
        assert!(got.starts_with(b"HTTP/1.1 400 "), "{req}");
    }
    // Other paths, and the path without Upgrade, are answered as before.
    let other = common::exchange(
        addr,
        format!(
            "GET /other HTTP/1.1\r\nHost: t\r\n{}Connection: close\r\n\r\n",
            good_fields().replace("Connection: Upgrade\r\n", "")
        )
        .as_bytes(),
    );
    assert!(other.starts_with(b"HTTP/1.1 200 "));
    assert!(other.ends_with(b"Hello World\n"));
    let plain = common::exchange(
        addr,
        b"GET /ws HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    assert!(plain.starts_with(b"HTTP/1.1 200 "));
    // A handshake and its first frames in one write.
    let mut s = connect(addr);
    let mut wire = handshake_request("/ws", &good_fields()).into_bytes();
    wire.extend(frame(true, TEXT, b"right after"));
    s.write_all(&wire).unwrap();
    assert!(read_head(&mut s).starts_with("HTTP/1.1 101 "));
    assert_eq!(read_frame(&mut s), (true, TEXT, b"right after".to_vec()));
}

#[test]
fn messages_are_echoed_whole_with_1_and_2_workers() {
    for workers in ["1", "2"] {
        let (_h, addr) = start(&[
            "--websocket",
            "/ws",
            "--websocket",
            "/b",
            "--workers",
            workers,
        ]);
        for path in ["/ws", "/b"] {
            let mut s = open(addr, path);
            for len in [0, 1, 125, 126, 127, 65535, 65536, 1 << 20] {
                let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                echo(&mut s, TEXT, &text);
                let binary: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
                echo(&mut s, BINARY, &binary);
            }
            s.write_all(&close_frame(1000, b"bye")).unwrap();
            expect_close(&mut s, 1000, "normal close");
        }
    }
}

#[test]
fn fragments_are_reassembled_with_control_frames_between() {
    let (_h, addr) = start(&["--websocket", "/ws"]);
    let mut s = open(addr, "/ws");
    let mut wire = frame(false, TEXT, b"frag");
    wire.extend(frame(true, PING, b"in between"));
    wire.extend(frame(false, 0, b"men"));
    wire.extend(frame(false, 0, b""));
    wire.extend(frame(true, PONG, b"unsolicited"));
    wire.extend(frame(true, 0, b"ted"));
    // Sent a byte at a time: every frame boundary and header cut.
    for b in &wire {
        s.write_all(&[*b]).unwrap();
    }
    assert_eq!(read_frame(&mut s), (true, PONG, b"in between".to_vec()));
    assert_eq!(read_frame(&mut s), (true, TEXT, b"fragmented".to_vec()));
    // Binary in 100 fragments of 1000 bytes.
    let whole: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let mut wire = Vec::new();
    for (i, piece) in whole.chunks(1000).enumerate() {
        let op = if i == 0 { BINARY } else { 0 };
        wire.extend(frame(i == 99, op, piece));
    }
    s.write_all(&wire).unwrap();
    assert_eq!(read_frame(&mut s), (true, BINARY, whole));
    // Ping with the largest payload; an empty one.
    let big = [b'p'; 125];
    s.write_all(&frame(true, PING, &big)).unwrap();
    assert_eq!(read_frame(&mut s), (true, PONG, big.to_vec()));
    s.write_all(&frame(true, PING, b"")).unwrap();
    assert_eq!(read_frame(&mut s), (true, PONG, Vec::new()));
}

#[test]
fn utf8_split_across_fragments_at_every_byte() {
    let (_h, addr) = start(&["--websocket", "/ws", "--workers", "1"]);
    let valid = "κόσμε \u{10FFFF} \u{800}".as_bytes();
    let mut s = open(addr, "/ws");
    for cut in 0..=valid.len() {
        let mut wire = frame(false, TEXT, &valid[..cut]);
        wire.extend(frame(true, 0, &valid[cut..]));
        s.write_all(&wire).unwrap();
        assert_eq!(
            read_frame(&mut s),
            (true, TEXT, valid.to_vec()),
            "cut at {cut}"
        );
    }
    // A surrogate (U+D800, ED A0 80) inside valid text, cut at every byte: close 1007.
    let invalid = b"ab\xce\xba\xed\xa0\x80cd";
    for cut in 0..=invalid.len() {
        let mut s = open(addr, "/ws");
        let mut wire = frame(false, TEXT, &invalid[..cut]);
        wire.extend(frame(true, 0, &invalid[cut..]));
        s.write_all(&wire).unwrap();
        expect_close(&mut s, 1007, &format!("cut at {cut}"));
    }
    // Fail fast: the bad byte's fragment alone, the message unfinished, is enough.
    let mut s = open(addr, "/ws");
    s.write_all(&frame(false, TEXT, b"ok so far \xf4\x90"))
        .unwrap();
    expect_close(&mut s, 1007, "fail fast");
    // A message that ends inside a character.
    let mut s = open(addr, "/ws");
    s.write_all(&frame(true, TEXT, b"ab\xe2\x82")).unwrap();
    expect_close(&mut s, 1007, "cut character");
    // Binary is not checked.
    let mut s = open(addr, "/ws");
    echo(&mut s, BINARY, invalid);
}

#[test]
fn protocol_errors_close_with_1002() {
    let (_h, addr) = start(&["--websocket", "/ws", "--workers", "1"]);
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("ping of 126 bytes", frame(true, PING, &[0; 126]), 1002),
        ("fragmented ping", frame(false, PING, b"x"), 1002),
        ("fragmented close", frame(false, CLOSE, &[3, 232]), 1002),
        ("RSV1", frame_with(true, 4, TEXT, b"x", true), 1002),
        ("RSV3", frame_with(true, 1, BINARY, b"x", true), 1002),
        ("opcode 3", frame(true, 3, b""), 1002),
        ("opcode 0xB", frame(true, 0xB, b""), 1002),
        ("unmasked", frame_with(true, 0, TEXT, b"x", false), 1002),
        ("continuation with no message", frame(true, 0, b"x"), 1002),
        (
            "a message inside a message",
            [frame(false, TEXT, b"a"), frame(true, BINARY, b"b")].concat(),
            1002,
        ),
        ("close of one byte", frame(true, CLOSE, &[3]), 1002),
        ("close code 999", close_frame(999, b""), 1002),
        ("close code 1004", close_frame(1004, b""), 1002),
        ("close code 1005", close_frame(1005, b""), 1002),
        ("close code 1006", close_frame(1006, b""), 1002),
        ("close code 1015", close_frame(1015, b""), 1002),
        ("close code 1016", close_frame(1016, b""), 1002),
        ("close code 2999", close_frame(2999, b""), 1002),
        ("close code 5000", close_frame(5000, b""), 1002),
        ("close reason not UTF-8", close_frame(1000, b"\xff"), 1007),
    ];
    for (what, wire, code) in cases {
        let mut s = open(addr, "/ws");
        s.write_all(&wire).unwrap();
        expect_close(&mut s, code, what);
    }
}

#[test]
fn close_is_echoed_with_its_code_then_tcp_closes() {
    let (_h, addr) = start(&["--websocket", "/ws"]);
    for code in [1000, 1001, 1003, 1007, 1011, 1014, 3000, 3999, 4000, 4999] {
        let mut s = open(addr, "/ws");
        s.write_all(&close_frame(code, b"reason")).unwrap();
        expect_close(&mut s, code, &format!("close {code}"));
    }
    // An empty close is answered with an empty close.
    let mut s = open(addr, "/ws");
    s.write_all(&frame(true, CLOSE, b"")).unwrap();
    assert_eq!(read_frame(&mut s), (true, CLOSE, Vec::new()));
    assert!(read_to_eof(&mut s).is_empty());
    // Frames after the close are not answered.
    let mut s = open(addr, "/ws");
    let mut wire = close_frame(1000, b"");
    wire.extend(frame(true, TEXT, b"late"));
    s.write_all(&wire).unwrap();
    expect_close(&mut s, 1000, "frames after close");
}

#[test]
fn messages_over_the_limit_close_with_1009() {
    let (_h, addr) = start(&["--websocket", "/ws", "--websocket-max-message", "1000"]);
    let mut s = open(addr, "/ws");
    echo(&mut s, BINARY, &[7; 1000]);
    echo(&mut s, TEXT, &[b'x'; 1000]);
    s.write_all(&frame(true, BINARY, &[7; 1001])).unwrap();
    expect_close(&mut s, 1009, "one frame of 1001");
    // Fragments that reach it together; the second's header is enough.
    let mut s = open(addr, "/ws");
    s.write_all(
        &[
            frame(false, TEXT, &[b'a'; 600]),
            frame(true, 0, &[b'a'; 400]),
        ]
        .concat(),
    )
    .unwrap();
    assert_eq!(read_frame(&mut s).2.len(), 1000);
    let mut wire = frame(false, TEXT, &[b'a'; 600]);
    wire.extend(&frame(true, 0, &[b'a'; 401])[..8]);
    s.write_all(&wire).unwrap();
    expect_close(&mut s, 1009, "fragments of 1001");
}

/// A client that sends and never reads: canned stops reading once its output holds its
/// high-water mark, so what it takes is bounded by that, one message and the sockets'
/// buffers; its memory stays bounded; once the client reads, every echo arrives.
#[test]
fn a_peer_that_never_reads_holds_bounded_memory() {
    let p = Proc::start(&["--websocket", "/ws", "--workers", "1"]);
    let mut s = open(p.addr, "/ws");
    let rss_before = p.rss_kib();
    let message = frame(true, BINARY, &[0x5a; 64 * 1024]);
    s.set_nonblocking(true).unwrap();
    let mut sent = 0usize;
    let mut stuck_since = Instant::now();
    // Write until canned has taken nothing for a second (no reading: the socket stays full).
    while stuck_since.elapsed() < Duration::from_secs(1) {
        match s.write_some(&message[sent % message.len()..]) {
            Ok(n) => {
                sent += n;
                stuck_since = Instant::now();
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("{e}"),
        }
        assert!(
            sent < 256 << 20,
            "canned took {sent} bytes from a peer that never reads"
        );
    }
    let rss_grew = p.rss_kib().saturating_sub(rss_before);
    eprintln!("a peer that never reads: {sent} bytes taken, RSS grew {rss_grew} KiB");
    assert!(rss_grew < 8 * 1024, "RSS grew {rss_grew} KiB");
    // Now read: every whole message sent is echoed.
    s.set_nonblocking(false).unwrap();
    let whole = sent / message.len();
    let mut rest = message[sent % message.len()..].to_vec();
    let reader = {
        let mut r = s.try_clone().unwrap();
        std::thread::spawn(move || {
            for i in 0..=whole {
                let (_, op, payload) = read_frame(&mut r);
                // A close names its code: say which, and after how many echoes.
                let code = (op == 8 && payload.len() >= 2)
                    .then(|| u16::from_be_bytes([payload[0], payload[1]]));
                assert_eq!(
                    (op, payload.len()),
                    (BINARY, 64 * 1024),
                    "echo {i} of {}: close code {code:?}",
                    whole + 1
                );
            }
        })
    };
    if sent % message.len() == 0 {
        rest = message.clone();
    }
    s.write_all(&rest).unwrap();
    reader.join().unwrap();
}

#[test]
fn the_idle_timeout_closes_with_1001() {
    let (_h, addr) = start(&["--websocket", "/ws", "--idle-timeout", "1s"]);
    let mut s = open(addr, "/ws");
    echo(&mut s, TEXT, b"alive");
    let t = Instant::now();
    expect_close(&mut s, 1001, "idle timeout");
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(took < time_bound(Duration::from_secs(5)), "{took:?}");
}

#[test]
fn a_drain_sends_close_1001() {
    let p = Proc::start(&["--websocket", "/ws", "--workers", "2"]);
    let mut s = open(p.addr, "/ws");
    echo(&mut s, TEXT, b"before the drain");
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(p.child.id() as i32, libc::SIGTERM);
    }
    expect_close(&mut s, 1001, "drain");
    let (code, _) = p.stop();
    assert_eq!(code, 0);
}

const PYTHON_CLIENT: &str = r#"
import asyncio, sys
import websockets
async def main():
    async with websockets.connect(sys.argv[1], max_size=None) as w:
        for m in ["hello", "κόσμε", "x" * 70000]:
            await w.send(m)
            assert await w.recv() == m
        for m in [b"", b"\x00\xff" * 40000]:
            await w.send(m)
            assert await w.recv() == m
        await w.send(["frag", "ment", "ed"])
        assert await w.recv() == "fragmented"
        pong = await w.ping(b"p")
        await asyncio.wait_for(pong, 5)
        await w.close(code=4000, reason="done")
        assert w.close_code == 4000, w.close_code
    print("ok")
asyncio.run(main())
"#;

#[test]
fn python_websockets_client_echoes_with_1_and_2_workers() {
    if std::process::Command::new("python3")
        .args(["-c", "import websockets"])
        .status()
        .map_or(true, |s| !s.success())
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 websockets is not installed"
        );
        eprintln!("skipping: python3 websockets is not installed");
        return;
    }
    for workers in ["1", "2"] {
        let (_h, addr) = start(&["--websocket", "/ws", "--workers", workers]);
        let url = format!("ws://{addr}/ws");
        common::python_ok(PYTHON_CLIENT, &[url.as_ref()], "python websockets");
    }
}

const NODE_CLIENT: &str = r#"
const WebSocket = require('ws');
const assert = require('assert');
const ws = new WebSocket(process.argv[1]);
const sent = ['hello', 'κόσμε', 'y'.repeat(70000), Buffer.from([0, 255, 1])];
let i = 0;
ws.on('open', () => ws.send(sent[0]));
ws.on('message', (data, isBinary) => {
  const want = sent[i];
  if (typeof want === 'string') assert.strictEqual(data.toString(), want);
  else assert.ok(isBinary && Buffer.compare(data, want) === 0);
  i += 1;
  if (i < sent.length) ws.send(sent[i]);
  else ws.ping('p');
});
ws.on('pong', (data) => { assert.strictEqual(data.toString(), 'p'); ws.close(1000, 'done'); });
ws.on('close', (code) => { assert.strictEqual(code, 1000); console.log('ok'); });
ws.on('error', (e) => { console.error(e); process.exit(1); });
"#;

/// node's `ws`: found by `require`, else installed with npm under target/ (once).
fn node_ws_path() -> Option<std::path::PathBuf> {
    if !have("node") {
        return None;
    }
    let found = |path: &std::path::Path| {
        std::process::Command::new("node")
            .args(["-e", "require('ws')"])
            .env("NODE_PATH", path)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/node-ws");
    let modules = dir.join("node_modules");
    if found(&modules) {
        return Some(modules);
    }
    if have("npm") {
        let _ = std::process::Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg("ws")
            .status();
        if found(&modules) {
            return Some(modules);
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "node's ws is not installed"
    );
    eprintln!("skipping: node's ws is not installed (npm install ws failed)");
    None
}

#[test]
fn node_ws_client_echoes_with_1_and_2_workers() {
    let Some(modules) = node_ws_path() else {
        return;
    };
    for workers in ["1", "2"] {
        let (_h, addr) = start(&["--websocket", "/ws", "--workers", workers]);
        let o = std::process::Command::new("node")
            .args(["-e", NODE_CLIENT, &format!("ws://{addr}/ws")])
            .env("NODE_PATH", &modules)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "ok\n",
            "node ws: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A Go client written with the standard library alone (Go has no WebSocket client of its
/// own, and no module proxy is reached here): the handshake with its accept checked, masked
/// frames of 7-, 16- and 64-bit lengths, a fragmented message with a ping inside, a ping, and a
/// close 1000 echoed then TCP closed.
const GO_CLIENT: &str = r#"// A WebSocket client of RFC 6455 written with Go's standard library alone: the opening
// handshake (§4.1) with Sec-WebSocket-Accept checked, masked frames (§5.3) of 7-, 16- and
// 64-bit lengths (§5.2), a fragmented message (§5.4), a ping (§5.5.2) and a close (§5.5.1).
// Usage: main ws://HOST:PORT/PATH; prints "ok" or fails.
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

const (
	opCont   = 0x0
	opText   = 0x1
	opBinary = 0x2
	opClose  = 0x8
	opPing   = 0x9
	opPong   = 0xA
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// writeFrame sends one client frame, masked with a fresh key (§5.3).
func writeFrame(c net.Conn, fin bool, op byte, payload []byte) {
	var b0 byte = op
	if fin {
		b0 |= 0x80
	}
	head := []byte{b0}
	n := len(payload)
	switch {
	case n < 126:
		head = append(head, 0x80|byte(n))
	case n <= 0xFFFF:
		head = append(head, 0x80|126, 0, 0)
		binary.BigEndian.PutUint16(head[2:], uint16(n))
	default:
		head = append(head, 0x80|127, 0, 0, 0, 0, 0, 0, 0, 0)
		binary.BigEndian.PutUint64(head[2:], uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		fail("mask: %v", err)
	}
	head = append(head, mask[:]...)
	body := make([]byte, n)
	for i := range payload {
		body[i] = payload[i] ^ mask[i%4]
	}
	if _, err := c.Write(append(head, body...)); err != nil {
		fail("write: %v", err)
	}
}

// readFrame reads one server frame: never masked, no RSV bits (§5.1, §5.2).
func readFrame(r *bufio.Reader) (bool, byte, []byte) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		fail("read frame header: %v", err)
	}
	if h[0]&0x70 != 0 {
		fail("RSV bits set: %#x", h[0])
	}
	if h[1]&0x80 != 0 {
		fail("a server frame is masked")
	}
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			fail("read length: %v", err)
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			fail("read length: %v", err)
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > 1<<24 {
		fail("frame of %d bytes", n)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		fail("read payload: %v", err)
	}
	return h[0]&0x80 != 0, h[0] & 0x0F, payload
}

// readMessage reads a data message, its fragments joined; no control frame is expected.
func readMessage(r *bufio.Reader) (byte, []byte) {
	fin, op, msg := readFrame(r)
	if op != opText && op != opBinary {
		fail("expected a data frame, got opcode %#x", op)
	}
	for !fin {
		var more []byte
		var cont byte
		fin, cont, more = readFrame(r)
		if cont != opCont {
			fail("expected a continuation, got opcode %#x", cont)
		}
		msg = append(msg, more...)
	}
	return op, msg
}

func echo(c net.Conn, r *bufio.Reader, op byte, msg []byte, what string) {
	writeFrame(c, true, op, msg)
	got, back := readMessage(r)
	if got != op || !bytes.Equal(back, msg) {
		fail("%s: sent opcode %#x and %d bytes, got opcode %#x and %d bytes", what, op, len(msg), got, len(back))
	}
}

func main() {
	u, err := url.Parse(os.Args[1])
	if err != nil || u.Scheme != "ws" {
		fail("usage: main ws://HOST:PORT/PATH")
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		fail("dial: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))

	// §4.1: a key of 16 random bytes; §4.2.2: the accept is base64(SHA-1(key + GUID)).
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		fail("key: %v", err)
	}
	key := base64.StdEncoding.EncodeToString(nonce[:])
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	accept := base64.StdEncoding.EncodeToString(sum[:])
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, key)
	r := bufio.NewReader(c)
	status, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 101 ") {
		fail("status line %q: %v", status, err)
	}
	fields := map[string]string{}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			fail("head: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if i := strings.IndexByte(line, ':'); i > 0 {
			fields[strings.ToLower(line[:i])] = strings.TrimSpace(line[i+1:])
		}
	}
	if got := fields["sec-websocket-accept"]; got != accept {
		fail("Sec-WebSocket-Accept %q, want %q", got, accept)
	}
	if !strings.EqualFold(fields["upgrade"], "websocket") {
		fail("Upgrade %q", fields["upgrade"])
	}

	// Data messages of each length encoding: 7 bits, 16 bits, 64 bits (70,000 bytes).
	echo(c, r, opText, []byte("hello"), "text")
	echo(c, r, opText, []byte("κόσμε"), "UTF-8 text")
	echo(c, r, opText, []byte{}, "empty text")
	echo(c, r, opBinary, []byte{0, 255, 1}, "binary")
	medium := make([]byte, 300)
	rand.Read(medium)
	echo(c, r, opBinary, medium, "binary of 300 bytes")
	big := make([]byte, 70000)
	rand.Read(big)
	echo(c, r, opBinary, big, "binary of 70,000 bytes")
	echo(c, r, opText, bytes.Repeat([]byte("y"), 70000), "text of 70,000 bytes")

	// A fragmented text message, a character split between fragments, a ping between them
	// (§5.4: control frames may be injected in the middle of a fragmented message).
	whole := []byte("frag κόσμε ment")
	writeFrame(c, false, opText, whole[:6])
	writeFrame(c, false, opCont, whole[6:9])
	writeFrame(c, true, opPing, []byte("mid"))
	fin, op, pong := readFrame(r)
	if !fin || op != opPong || string(pong) != "mid" {
		fail("ping inside a message: opcode %#x payload %q", op, pong)
	}
	writeFrame(c, true, opCont, whole[9:])
	if op, got := readMessage(r); op != opText || !bytes.Equal(got, whole) {
		fail("fragmented message: opcode %#x %q", op, got)
	}

	// §5.5.2-3: a pong carries the ping's payload.
	writeFrame(c, true, opPing, []byte("p"))
	if fin, op, got := readFrame(r); !fin || op != opPong || string(got) != "p" {
		fail("ping: opcode %#x payload %q", op, got)
	}

	// §5.5.1, §7.1.1: the close is echoed with its code, then the server closes TCP.
	closing := []byte{0x03, 0xE8}
	closing = append(closing, "done"...)
	writeFrame(c, true, opClose, closing)
	fin, op, got := readFrame(r)
	if !fin || op != opClose || len(got) < 2 || binary.BigEndian.Uint16(got) != 1000 {
		fail("close: opcode %#x payload %v", op, got)
	}
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		fail("after the close: %d bytes, %v", len(rest), err)
	}
	fmt.Println("ok")
}
"#;

#[test]
fn go_hand_written_client_echoes_with_1_and_2_workers() {
    if !have("go") {
        return;
    }
    let go = common::GoProgram::new("websocket", GO_CLIENT);
    for workers in ["1", "2"] {
        let (_h, addr) = start(&["--websocket", "/ws", "--workers", workers]);
        let o = go.run(&[format!("ws://{addr}/ws")]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "ok\n",
            "go, {workers} workers: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// curl 7.86+ built with WebSockets: `--include --no-buffer ws://` shows the `101` (curl
/// then waits for frames; its time limit ends it).
#[test]
fn curl_upgrades_where_it_speaks_ws() {
    let speaks_ws = std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.starts_with("Protocols:") && l.split(' ').any(|p| p == "ws"))
        });
    if !speaks_ws {
        eprintln!("skipping: this curl does not speak ws");
        return;
    }
    let (_h, addr) = start(&["--websocket", "/ws"]);
    let o = std::process::Command::new("curl")
        .args(["--include", "--no-buffer", "--max-time", "2"])
        .arg(format!("ws://{addr}/ws"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("HTTP/1.1 101 "), "{out}");
}

/// `--access-log` has a line for each handshake, with its status.
#[test]
fn handshakes_are_in_the_access_log() {
    use std::io::BufRead;
    let mut p = Proc::start(&["--websocket", "/ws", "--workers", "1", "--access-log"]);
    let mut s = open(p.addr, "/ws?a=1");
    echo(&mut s, TEXT, b"logged once");
    common::exchange(
        p.addr,
        handshake_request("/ws", "Upgrade: websocket\r\nConnection: Upgrade\r\n").as_bytes(),
    );
    let mut out = std::io::BufReader::new(p.child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        lines.push(l);
    }
    assert_eq!(
        common::log_line(&lines[0]).words,
        "GET /ws?a=1 HTTP/1.1 101",
        "{lines:?}"
    );
    assert_eq!(
        common::log_line(&lines[1]).words,
        "GET /ws HTTP/1.1 426",
        "{lines:?}"
    );
}

/// Memory per idle WebSocket (after a small echo each), printed: its state, its buffers' kept
/// capacity and its slot, all bounded (docs/websocket.md, Bounds).
#[test]
fn idle_websockets_hold_little_memory() {
    let p = Proc::start(&["--websocket", "/ws", "--workers", "1"]);
    let mut warm = open(p.addr, "/ws");
    echo(&mut warm, TEXT, b"warm");
    let before = p.rss_kib();
    let n = 1000;
    let mut conns = Vec::new();
    for _ in 0..n {
        let mut s = open(p.addr, "/ws");
        echo(&mut s, TEXT, b"sixteen bytes...");
        conns.push(s);
    }
    let per = (p.rss_kib().saturating_sub(before)) * 1024 / n;
    eprintln!("{n} idle WebSocket connections: {per} bytes each");
    assert!(per < 2048, "{per} bytes per idle WebSocket");
}

// Faults per message: `--fault PATH=KIND` on a `--websocket` path.

/// Every malformed frame of the catalogue, with the bytes it must be on the wire: the
/// catalogue is read by the test from its ids, and each frame checked byte for byte.
const MALFORMED: &[(&str, &[u8])] = &[
    ("opcode-reserved-data", b"\x83\x05hello"),
    ("opcode-reserved-control", b"\x8B\x00"),
    ("rsv1", b"\xC1\x05hello"),
    ("rsv2", b"\xA1\x05hello"),
    ("rsv3", b"\x91\x05hello"),
    ("masked", b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58"),
    ("control-fragmented", b"\x09\x05hello"),
    ("continuation-unexpected", b"\x80\x05hello"),
    ("text-inside-fragmented", b"\x01\x03hel\x81\x02lo"),
    ("text-bad-utf8", b"\x81\x02\xC3\x28"),
    ("text-bad-utf8-fragmented", b"\x01\x05hello\x80\x01\xFF"),
    ("length-not-minimal", b"\x81\x7E\x00\x05hello"),
    (
        "length-top-bit",
        b"\x82\x7F\x80\x00\x00\x00\x00\x00\x00\x05",
    ),
    ("close-code-invalid", b"\x88\x02\x03\xED"),
    ("close-code-out-of-range", b"\x88\x02\x03\xE7"),
    ("close-one-byte", b"\x88\x01\x03"),
    ("close-reason-bad-utf8", b"\x88\x03\x03\xE8\xFF"),
];

fn read_exactly(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    s.read_exact(&mut b).unwrap();
    b
}

/// Each id of the catalogue is sent instead of the echo, byte for byte, and the connection
/// stays open: the client's close is echoed after it.
#[test]
fn malformed_frames_are_sent_instead_of_the_echo() {
    use canned::fault::websocket::IDS;
    let mut ping_126 = vec![0x89, 126, 0, 126];
    ping_126.extend([b'x'; 126]);
    let mut cases: Vec<(&str, Vec<u8>)> = MALFORMED.iter().map(|(i, b)| (*i, b.to_vec())).collect();
    cases.push(("control-too-long", ping_126));
    assert_eq!(
        cases.len(),
        IDS.len(),
        "a catalogue id without its bytes here"
    );
    let mut args = vec!["--workers".to_string(), "1".to_string()];
    for (i, (id, _)) in cases.iter().enumerate() {
        args.extend(["--websocket".into(), format!("/{i}")]);
        args.extend(["--fault".into(), format!("/{i}=malformed:{id}")]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_h, addr) = start(&args);
    for (i, (id, want)) in cases.iter().enumerate() {
        let mut s = open(addr, &format!("/{i}"));
        s.write_all(&frame(true, TEXT, b"message")).unwrap();
        assert_eq!(&read_exactly(&mut s, want.len()), want, "{id}");
        s.write_all(&close_frame(1002, b"")).unwrap();
        expect_close(&mut s, 1002, id);
    }
}

/// `latency:D` holds each echo D after its message, never less; a ping sent meanwhile is
/// answered after it (nothing is read while an echo is held).
#[test]
fn latency_holds_each_echo() {
    for workers in ["1", "2"] {
        let (_h, addr) = start(&[
            "--websocket",
            "/ws",
            "--fault",
            "/ws=latency:200ms",
            "--workers",
            workers,
        ]);
        let mut s = open(addr, "/ws");
        for i in 0..2u8 {
            let t = Instant::now();
            s.write_all(&frame(true, TEXT, &[b'a' + i])).unwrap();
            s.write_all(&frame(true, PING, b"p")).unwrap();
            assert_eq!(read_frame(&mut s), (true, TEXT, vec![b'a' + i]));
            let took = t.elapsed();
            assert!(took >= Duration::from_millis(200), "{took:?}");
            assert!(took < time_bound(Duration::from_secs(3)), "{took:?}");
            assert_eq!(read_frame(&mut s), (true, PONG, b"p".to_vec()));
        }
        s.write_all(&close_frame(1000, b"")).unwrap();
        expect_close(&mut s, 1000, "close after held echoes");
    }
}

/// `drip:4/100ms`: the echo's frame, 12 bytes, in pieces of 4 bytes 100 ms apart.
#[test]
fn drip_sends_each_echo_in_pieces() {
    let (_h, addr) = start(&["--websocket", "/ws", "--fault", "/ws=drip:4/100ms"]);
    let mut s = open(addr, "/ws");
    let t = Instant::now();
    s.write_all(&frame(true, BINARY, b"0123456789")).unwrap();
    let mut got = Vec::new();
    let mut at = Vec::new();
    while got.len() < 12 {
        let mut b = [0u8; 16];
        let n = s.read_some(&mut b).unwrap();
        assert!(n > 0);
        got.extend_from_slice(&b[..n]);
        at.push((got.len(), t.elapsed()));
    }
    assert_eq!(got, b"\x82\x0a0123456789");
    // The bytes past 4 no earlier than 100 ms, past 8 no earlier than 200 ms.
    for &(len, when) in &at {
        let floor = Duration::from_millis(100 * ((len as u64 - 1) / 4));
        assert!(when >= floor, "{len} bytes at {when:?}");
    }
    assert!(at.len() >= 3, "in pieces: {at:?}");
    // The next message is read once the whole echo is out.
    echo_dripped(&mut s);
}

fn echo_dripped(s: &mut TcpStream) {
    s.write_all(&frame(true, TEXT, b"ab")).unwrap();
    assert_eq!(read_frame(s), (true, TEXT, b"ab".to_vec()));
}

/// `close-after:N:CODE`: N echoes, then a close with CODE and TCP closed; with N 0, right
/// after the `101`.
#[test]
fn close_after_n_messages_with_its_code() {
    let (_h, addr) = start(&[
        "--websocket",
        "/two",
        "--fault",
        "/two=close-after:2:4000",
        "--websocket",
        "/zero",
        "--fault",
        "/zero=close-after:0:1011",
    ]);
    let mut s = open(addr, "/two");
    echo(&mut s, TEXT, b"one");
    s.write_all(&frame(true, TEXT, b"two")).unwrap();
    assert_eq!(read_exactly(&mut s, 5), b"\x81\x03two");
    assert_eq!(read_exactly(&mut s, 4), b"\x88\x02\x0f\xa0");
    assert!(read_to_eof(&mut s).is_empty());
    let mut s = open(addr, "/zero");
    assert_eq!(read_exactly(&mut s, 4), b"\x88\x02\x03\xf3");
    assert!(read_to_eof(&mut s).is_empty());
}

/// `drop-after:N`: N echoes, then FIN with no close frame; `drop-after:N:reset`: RST.
#[test]
fn drop_after_n_messages_with_fin_or_rst() {
    let (_h, addr) = start(&[
        "--websocket",
        "/fin",
        "--fault",
        "/fin=drop-after:1",
        "--websocket",
        "/rst",
        "--fault",
        "/rst=drop-after:1:reset",
    ]);
    let mut s = open(addr, "/fin");
    echo(&mut s, TEXT, b"one");
    let mut b = [0u8; 16];
    assert_eq!(s.read_some(&mut b).unwrap(), 0, "FIN right after the echo");
    let mut s = open(addr, "/rst");
    echo(&mut s, TEXT, b"one");
    let got = loop {
        match s.read_some(&mut b) {
            Ok(0) => break Ok(0),
            Ok(n) => panic!("{n} bytes after the echo: {:?}", &b[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e.kind()),
        }
    };
    assert_eq!(got, Err(std::io::ErrorKind::ConnectionReset));
}

/// `ping-storm:N`: after each echo, N pings numbered from 0 (4 bytes, big-endian), then the
/// next message is read.
#[test]
fn a_ping_storm_follows_each_echo() {
    let (_h, addr) = start(&["--websocket", "/ws", "--fault", "/ws=ping-storm:3000"]);
    let mut s = open(addr, "/ws");
    for round in 0..2u32 {
        s.write_all(&frame(true, TEXT, b"storm")).unwrap();
        assert_eq!(read_frame(&mut s), (true, TEXT, b"storm".to_vec()));
        for i in 0..3000u32 {
            let n = round * 3000 + i;
            assert_eq!(
                read_exactly(&mut s, 6),
                [&[0x89, 4][..], &n.to_be_bytes()].concat()
            );
        }
    }
    s.write_all(&close_frame(1000, b"")).unwrap();
    expect_close(&mut s, 1000, "close after a storm");
}

/// A storm to a client that never reads: canned queues at most `STORM_QUEUE` of it, its
/// memory stays flat, and the connection still closes on `--write-timeout`.
#[test]
fn a_ping_storm_to_a_peer_that_never_reads_is_bounded() {
    let p = Proc::start(&[
        "--websocket",
        "/ws",
        "--fault",
        "/ws=ping-storm:1000000",
        "--workers",
        "1",
        "--write-timeout",
        "2s",
    ]);
    let mut s = open(p.addr, "/ws");
    let rss_before = p.rss_kib();
    s.write_all(&frame(true, TEXT, b"go")).unwrap();
    // 6 MB of pings if queued whole; give canned time to queue what it would.
    std::thread::sleep(Duration::from_millis(500));
    let rss_grew = p.rss_kib().saturating_sub(rss_before);
    eprintln!("a storm of 1,000,000 pings to a peer that never reads: RSS grew {rss_grew} KiB");
    // Under emulation (CANNED_TEST_TIME_SCALE > 1) the process is qemu-user's, whose RSS
    // grows with the code it translates as new paths run: the bound is canned's, natively.
    if common::time_scale() == 1 {
        assert!(rss_grew < 1024, "RSS grew {rss_grew} KiB");
    }
    // Past the write timeout (no progress for 2 s), the connection is closed: what was sent
    // is whole frames, the echo then pings in order, far from all of them.
    std::thread::sleep(time_bound(Duration::from_secs(3)));
    let all = read_to_eof(&mut s);
    assert_eq!(&all[..4], b"\x81\x02go");
    let pings = &all[4..];
    eprintln!("{} pings sent before the write timeout", pings.len() / 6);
    assert!(pings.len() < 6_000_000, "{} bytes of pings", pings.len());
    for (i, p) in pings.chunks(6).enumerate() {
        let want = [&[0x89, 4][..], &(i as u32).to_be_bytes()].concat();
        assert_eq!(p, &want[..p.len()], "ping {i}");
    }
}

/// A fault spec that is wrong for a WebSocket path, or a WebSocket's kind on another path: one
/// line naming `--fault`.
#[test]
fn bad_websocket_faults_are_one_line_errors_naming_the_flag() {
    for (args, says) in [
        (
            &["--websocket", "/ws", "--fault", "/ws=malformed:nope"][..],
            "not a malformed frame's id",
        ),
        (
            &["--websocket", "/ws", "--fault", "/ws=stall"],
            "not a fault of a --websocket path",
        ),
        (
            &["--websocket", "/ws", "--fault", "/ws=close-after:1:5000"],
            "out of range",
        ),
        (
            &["--fault", "/x=drop-after:1"],
            "/x is not a --websocket path",
        ),
        (
            &[
                "--websocket",
                "/ws",
                "--fault",
                "/ws=latency:1s",
                "--fault",
                "/ws=latency:2s",
            ],
            "one latency",
        ),
    ] {
        let e = canned::config::Config::from_args(args.iter().copied(), &[])
            .err()
            .unwrap_or_else(|| panic!("{args:?} accepted"))
            .to_string();
        assert!(e.contains("--fault") && e.contains(says), "{args:?}: {e}");
        assert!(!e.trim_end().contains('\n'), "{e}");
    }
}
