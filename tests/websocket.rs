//! `--websocket`: the opening handshake and its refusals, the echo of RFC 6455 through a
//! hand-written client (raw frames, masked), each rule that fails a connection with the close
//! code it names, a peer that never reads, timeouts and the drain, with 1 and 2 workers; then
//! real clients (Python `websockets`, node `ws`, curl where it speaks ws).
#![cfg(feature = "websocket")]

mod common;

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
        let n = s.read(&mut b).unwrap();
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
        match s.write(&message[sent % message.len()..]) {
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
            for _ in 0..=whole {
                let (_, op, payload) = read_frame(&mut r);
                assert_eq!((op, payload.len()), (BINARY, 64 * 1024));
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
