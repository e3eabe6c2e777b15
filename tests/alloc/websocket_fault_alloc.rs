//! WebSocket faults per message allocate nothing in steady state: on a path with a latency
//! (each echo held by the worker's timer) and a ping storm after each echo, 64-byte text
//! messages echoed one at a time make no allocation in the process (server and client) once
//! warmed up.

use crate::retry::ReadSome;
use crate::counting;

use std::io::Write;
use std::net::TcpStream;

pub fn websocket_faults_allocate_nothing_per_message() {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--quiet",
        "--websocket",
        "/ws",
        "--fault",
        "/ws=latency:1ms",
        "--fault",
        "/ws=ping-storm:4",
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
    // A masked text of 64 bytes; back: its echo (66 bytes), then 4 pings of 4 bytes.
    let mask = [1u8, 2, 3, 4];
    let mut wire = vec![0x81, 0x80 | 64];
    wire.extend_from_slice(&mask);
    wire.extend((0..64).map(|i| b't' ^ mask[i % 4]));
    let back = 66 + 4 * 6;
    let mut round = |s: &mut TcpStream| {
        s.write_all(&wire).unwrap();
        let mut got = 0;
        while got < back {
            let n = s.read_some(&mut buf[got..]).unwrap();
            assert!(n > 0, "closed");
            got += n;
        }
        assert_eq!(got, back);
        assert_eq!(&buf[..2], [0x81, 64]);
        assert_eq!(buf[66], 0x89);
    };
    for _ in 0..100 {
        round(&mut s);
    }
    let before = counting::allocations();
    for _ in 0..1000 {
        round(&mut s);
    }
    let allocations = counting::allocations() - before;
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over 1000 messages"
    );
    drop(s);
    h.shutdown();
    h.join();
}
