//! canned: a tiny, fast HTTP/1.1 and HTTP/2 (h2c) test endpoint and responder.
//!
//! Every accepted request is answered with a response preformatted at start-up. The modules
//! are a stack of layers, each importing only from the layers below it (`tests/suite/architecture.rs`
//! holds the table and checks every import against it). At the bottom, [`parser`] and
//! [`chunked`] turn bytes into decisions (`core` only, no allocation); above them the canned
//! bytes, the faults and the counters are built from plain values; the answer plan decides
//! what each request's answer is; a connection's state machine executes plans, turning them
//! into slices of those bytes, without sockets; the command line comes next,
//! and at the top the server, the only reader of a `Config`, builds each worker's parts from it
//! once and moves bytes between sockets and connections.
//!
//! # Example
//!
//! Serve one body on a free loopback port, ask it once, stop:
//!
#![cfg_attr(feature = "server", doc = "```")]
#![cfg_attr(not(feature = "server"), doc = "```ignore")]
//! use canned::config::Config;
//! use canned::server::Server;
//! use std::io::{Read, Write};
//!
//! let config = Config::default().listen("127.0.0.1:0")?.body("pong\n");
//! let server = Server::bind(config)?.spawn()?;
//! let mut client = std::net::TcpStream::connect(server.tcp_addr().unwrap())?;
//! client.write_all(b"GET / HTTP/1.0\r\n\r\n")?;
//! let mut reply = String::new();
//! client.read_to_string(&mut reply)?;
//! assert!(reply.ends_with("\r\n\r\npong\n"));
//! server.shutdown();
//! assert_eq!(server.join().stats.requests, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The parser alone, without `std`:
//!
//! ```
//! use canned::parser::{Limits, Status, parse_request};
//!
//! let head = b"GET /ping?x=1 HTTP/1.1\r\nHost: example\r\n\r\n";
//! let Ok(Status::Complete(request)) = parse_request(head, Limits::default()) else {
//!     panic!("a complete, valid head")
//! };
//! assert_eq!(request.path, b"/ping");
//! assert!(request.keep_alive);
//! ```
//!
//! # Modules
//!
//! Bottom to top:
//!
//! | layer | module | holds | feature |
//! |---|---|---|---|
//! | 0 | [`parser`] | the request-head grammar: incremental, zero-copy, strict (RFC 9112) | always (`no_std`) |
//! | 0 | [`chunked`] | the chunked body decoder | always (`no_std`) |
//! | 0 | [`range`] | the `Range` field's grammar and its resolution against a body's length (RFC 9110 §14) | always (`no_std`) |
//! | 0 | [`conditional`] | conditional requests and ranges together, in RFC 9110 §13.2.2's order | always (`no_std`) |
//! | 0 | [`hpack`] | the HPACK decoder of HTTP/2 header blocks (RFC 7541) | always (`no_std`) |
//! | 0 | [`frame`] | HTTP/2 frames: the frame header, each type's payload, SETTINGS bounds, error codes (RFC 9113) | always (`no_std`) |
//! | 1 | `values` | value grammars shared by the command line and the faults: sizes, durations, counts | `server` |
//! | 1 | `mutate` | the malformed-response catalogue | `server` |
//! | 1 | [`echo`] | a request as parsed, written back: JSON, http-garden's base64 JSON, `Name: value` lines | `server` |
//! | 2 | `response` | the response bytes, formatted once: specs, routes, the Date header | `server` |
//! | 2 | `fault_value` | what a fault does to an answer, the one grammar of a fault value (`--fault`, the admin API, `--control`), the seeded generator | `server` |
//! | 3 | `fault` | faults a route can be given: `PATH=`, status mixes, sequences, sampling | `server` |
//! | 4 | `stats` | the counters, and their JSON and Prometheus text forms | `server` |
//! | 5 | `conn` | what every protocol's connection shares with the loop: settings, buffers, the log sink | `server` |
//! | 6 | `plan` | what a request's answer is, for every protocol: its source, status, hold, delivery, end, and the fault kinds recorded | `server` |
//! | 7 | `h1` | one HTTP/1 connection's life as a state machine, without sockets | `server` |
//! | 7 | `h2` | one HTTP/2 connection's life as a state machine, without sockets | `http2` |
//! | 7 | `transport` | how a connection's bytes cross its socket (TCP and unix: plain), chosen at accept | `server` |
//! | 8 | `config` | the command line and the environment | `server` |
//! | 9 | `server` | the poll loop: listeners, workers, timers, signals, shutdown; a worker's parts from `Config` | `server` |
//! | 10 | `check` | invariant checks shared by the tests and the fuzz targets | `check` |
//!
//! # Features
//!
//! - `server` (default): the server, the connection state machine, the command line and the
//!   binary. Needs `std`; adds the `polling`, `socket2` and `libc` dependencies.
//! - `http2` (default, implies `server`): HTTP/2 over cleartext on the server's listeners (the
//!   `h2` module). Without it a connection that opens with the HTTP/2 preface is HTTP/1 (505)
//!   and `--no-http2` changes nothing; `frame` and `hpack` stay in the library.
//! - `std` (implied by `server`): std-only conveniences in the parser's dependencies.
//! - `check`: the invariant checks of the tests and the fuzz targets (the connection's, with
//!   `server`); not for the binary.
//! - Without default features (`default-features = false`) the crate is `no_std` and
//!   allocation-free: the parser, the chunked decoder and the HPACK decoder only, depending on
//!   `memchr` alone.
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
#![cfg_attr(canned_small, feature(optimize_attribute))]

// Test and fuzz support, not part of the API: hidden from the documentation.
#[cfg(feature = "check")]
#[doc(hidden)]
pub mod check;
pub mod chunked;
#[cfg(feature = "server")]
pub mod conditional;
#[cfg(feature = "server")]
pub mod config;
#[cfg(feature = "server")]
pub mod conn;
#[cfg(feature = "server")]
pub mod control;
#[cfg(feature = "server")]
pub mod echo;
#[cfg(feature = "server")]
pub mod fault;
#[cfg(feature = "server")]
pub mod fault_value;
pub mod frame;
#[cfg(feature = "server")]
pub mod h1;
#[cfg(feature = "http2")]
pub mod h2;
pub mod hpack;
#[cfg(feature = "server")]
pub mod journal;
#[cfg(feature = "server")]
pub mod mutate;
pub mod parser;
#[cfg(feature = "server")]
pub mod plan;
pub mod range;
#[cfg(feature = "server")]
pub mod response;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod stats;
#[cfg(feature = "server")]
pub mod transport;
#[cfg(feature = "server")]
pub mod values;
#[cfg(feature = "websocket")]
pub mod ws;

/// The Rust snippets of docs/library.md, compiled and run as doctests.
#[cfg(all(doctest, feature = "server"))]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDocDoctests;

#[cfg(test)]
mod tests {
    /// The patched polling is this workspace's alone (`[patch.crates-io]` does not reach a
    /// dependent), and docs/library.md tells a dependent so, with the cost that
    /// the changelog recorded (The syscall gap).
    #[test]
    fn library_docs_say_dependents_get_published_polling() {
        let manifest = include_str!("../Cargo.toml");
        let patch = manifest
            .split("\n[patch.crates-io]\n")
            .nth(1)
            .unwrap_or_default();
        assert!(patch.starts_with("polling = { path = \"vendor/polling\" }"));
        let library = include_str!("../docs/library.md").replace('\n', " ");
        for claim in [
            "builds it against polling as published, not against the patched copy",
            "`[patch.crates-io]` only in the workspace",
            "2.40-2.55 syscalls and 0.16-0.22 `epoll_ctl` per request",
        ] {
            assert!(library.contains(claim), "docs/library.md: {claim}");
        }
        let changelog = include_str!("../CHANGELOG.md");
        assert!(
            changelog
                .replace('\n', " ")
                .contains("2.40-2.55 syscalls and 0.16-0.22 `epoll_ctl` per request")
        );
    }
}
