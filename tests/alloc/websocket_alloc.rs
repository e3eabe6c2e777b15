//! WebSocket echoes allocate nothing in steady state: each connection reuses its input,
//! output and message buffers. Over one connection, text and binary messages (one frame,
//! and three fragments with a ping between) and pings: the process (server and client) makes
//! no allocation at all once warmed up.

use crate::retry::ReadSome;
use crate::counting;

use std::io::Write;
use std::net::TcpStream;

fn frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![(u8::from(fin) << 7) | opcode];
    match payload.len() {
        n if n < 126 => f.push(0x80 | n as u8),
        n => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    let mask = [1, 2, 3, 4];
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

pub fn websocket_messages_allocate_nothing() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--websocket",
        "/ws",
    ];
    let (h, mut s) = counting::serve(&args);
    s.write_all(
        b"GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    )
    .unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut got = 0;
    while !buf[..got].ends_with(b"\r\n\r\n") {
        let n = s.read_some(&mut buf[got..]).unwrap();
        assert!(n > 0, "closed");
        got += n;
    }
    assert!(buf.starts_with(b"HTTP/1.1 101 "));
    // One round: a text of 64 bytes, a binary of 4000, a text in three fragments with a
    // ping between, a ping. What comes back: their echoes and two pongs.
    let text = [b't'; 64];
    let binary: Vec<u8> = (0..4000u32).map(|i| i as u8).collect();
    let mut wire = frame(true, 1, &text);
    wire.extend(frame(true, 2, &binary));
    wire.extend(frame(false, 1, b"frag"));
    wire.extend(frame(true, 9, b"p"));
    wire.extend(frame(false, 0, b"men"));
    wire.extend(frame(true, 0, b"ted"));
    wire.extend(frame(true, 9, b""));
    let back = (2 + 64) + (4 + 4000) + (2 + 1) + (2 + 10) + 2;
    let mut round = |s: &mut TcpStream| {
        s.write_all(&wire).unwrap();
        let mut got = 0;
        while got < back {
            let n = s.read_some(&mut buf[got..]).unwrap();
            assert!(n > 0, "closed");
            got += n;
        }
        assert_eq!(got, back);
    };
    for _ in 0..500 {
        round(&mut s);
    }
    let before = counting::allocations();
    for _ in 0..5000 {
        round(&mut s);
    }
    let allocations = counting::allocations() - before;
    assert_eq!(allocations, 0, "{allocations} allocations over 5000 rounds");
    drop(s);
    h.shutdown();
    h.join();
}
