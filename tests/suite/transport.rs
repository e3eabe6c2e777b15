//! The transport seam: the loop reads and writes a connection's bytes through the transport it
//! was accepted with, and the protocols above answer the same whatever it is. The same
//! conversations over the plain transport and over the tests' trickle transport (one byte a
//! read, at most a few bytes a write: every boundary a network may cut at) are answered byte
//! for byte alike: HTTP/1.1 keep-alive, pipelining, a chunked request body, HTTP/2 with prior
//! knowledge, `Upgrade: h2c`.

use crate::common;

use canned::config::{Command as Cli, Config};
use canned::frame::{PREFACE, flag, kind};
use canned::server::{Handle, Server};
use canned::transport::Transport;
use common::*;
use std::io::Write;
use std::net::{Shutdown, SocketAddr};
use std::num::NonZeroU8;

/// A server with the routes of these conversations, its connections accepted with `transport`.
fn serve(transport: Transport, big: &std::path::Path) -> (Handle, SocketAddr) {
    let big_route = format!("/big=200:@{}", big.display());
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--quiet",
        "--no-date",
        "--route",
        "/a=200:pong\n",
        "--route",
        big_route.as_str(),
    ];
    let Cli::Run(c) = Config::from_args(args.iter().copied(), &[]).unwrap() else {
        panic!("not a run command")
    };
    let h = Server::bind(*c)
        .unwrap()
        .transport(transport)
        .spawn()
        .unwrap();
    let addr = h.tcp_addr().unwrap();
    (h, addr)
}

/// A client's part of a conversation: bytes to send, each waiting first until what came back
/// holds `after` this many times (0: at once). The client half-closes after the last and
/// reads until the server closes.
type Step = (&'static [u8], usize, Vec<u8>);

fn converse(addr: SocketAddr, steps: &[Step]) -> Vec<u8> {
    let mut s = connect(addr);
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    for (marker, after, bytes) in steps {
        while count(&got, marker) < *after {
            let n = s.read_some(&mut buf).expect("an answer before the timeout");
            assert!(n > 0, "closed early: {:?}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        s.write_all(bytes).unwrap();
    }
    s.shutdown(Shutdown::Write).unwrap();
    got.extend(read_to_eof(&mut s));
    got
}

fn count(hay: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() {
        return usize::MAX;
    }
    hay.windows(needle.len()).filter(|w| w == &needle).count()
}

/// The conversations, by name.
fn conversations() -> Vec<(&'static str, Vec<Step>)> {
    let get = |path: &str, close: bool| {
        format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\n{}\r\n",
            if close { "Connection: close\r\n" } else { "" }
        )
        .into_bytes()
    };
    let mut pipelined = get("/a", false);
    pipelined.extend(get("/big", false));
    pipelined.extend(b"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n");
    pipelined.extend(get("/nothing-here", false));
    pipelined.extend(get("/a", true));
    let mut chunked = b"POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
        5;name=value\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer: t\r\n\r\n"
        .to_vec();
    chunked.extend(get("/a", true));
    // HTTP/2: GET /a (stream 1), GET /big (stream 3), after the client's SETTINGS.
    let get_a: &[u8] = &[0x82, 0x86, 0x44, 0x02, b'/', b'a'];
    let get_big: &[u8] = &[0x82, 0x86, 0x44, 0x04, b'/', b'b', b'i', b'g'];
    let mut h2 = PREFACE.to_vec();
    h2.extend(frame(kind::SETTINGS, 0, 0, &[]));
    h2.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        get_a,
    ));
    h2.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        3,
        get_big,
    ));
    let mut upgrade = b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
        Upgrade: h2c\r\nHTTP2-Settings: \r\n\r\n"
        .to_vec();
    upgrade.extend_from_slice(PREFACE);
    upgrade.extend(frame(kind::SETTINGS, 0, 0, &[]));
    upgrade.extend(frame(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        3,
        get_big,
    ));
    vec![
        (
            "keep-alive",
            vec![
                (b"", 0, get("/a", false)),
                (b"pong\n", 1, get("/big", false)),
                (b"pong\n", 1, get("/a", true)),
            ],
        ),
        ("pipelining", vec![(b"", 0, pipelined)]),
        ("chunked body", vec![(b"", 0, chunked)]),
        #[cfg(feature = "http2")]
        ("HTTP/2 prior knowledge", vec![(b"", 0, h2)]),
        #[cfg(feature = "http2")]
        ("Upgrade: h2c", vec![(b"", 0, upgrade)]),
    ]
}

#[test]
fn conversations_are_answered_alike_over_the_trickle_transport() {
    let dir = std::env::temp_dir().join(format!("canned-transport-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big");
    // More than one HTTP/2 DATA frame, and more than one socket write over any transport.
    let mut x = 0x2545_f491u32;
    let body: Vec<u8> = (0..40_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            b'a' + (x % 26) as u8
        })
        .collect();
    std::fs::write(&big, &body).unwrap();
    let (plain, plain_addr) = serve(Transport::Plain, &big);
    for write_max in [1, 7] {
        let trickle = Transport::Trickle {
            write_max: NonZeroU8::new(write_max).unwrap(),
        };
        let (h, addr) = serve(trickle, &big);
        for (name, steps) in conversations() {
            let want = converse(plain_addr, &steps);
            // A real answer, the body of the last request whole.
            assert!(
                count(&want, &body[..1_000]) == 1 || name == "chunked body",
                "{name}: over the plain transport: {:?}",
                String::from_utf8_lossy(&want[..want.len().min(300)])
            );
            assert!(count(&want, b"pong\n") >= 1, "{name}");
            let got = converse(addr, &steps);
            assert!(
                got == want,
                "{name}, writes of at most {write_max} bytes: {} bytes, {} over the plain \
                 transport\n{:?}\n{:?}",
                got.len(),
                want.len(),
                String::from_utf8_lossy(&got[..got.len().min(600)]),
                String::from_utf8_lossy(&want[..want.len().min(600)])
            );
        }
        h.shutdown();
        h.join();
    }
    plain.shutdown();
    plain.join();
    std::fs::remove_dir_all(&dir).unwrap();
}
