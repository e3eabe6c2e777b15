//! canned: a tiny, very fast HTTP/1.x responder.
//!
//! Every accepted request is answered with a response preformatted at start-up. The crate is
//! three layers with data flowing one way: [`parser`] and [`chunked`] turn bytes into
//! decisions (`core` only, no allocation), the connection state machine turns decisions into
//! slices of preformatted bytes (no sockets), and the server moves bytes between sockets and
//! connections (no HTTP grammar).
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

// Test and fuzz support, not part of the API: hidden from the documentation.
#[doc(hidden)]
pub mod check;
pub mod chunked;
#[cfg(feature = "server")]
pub mod config;
#[cfg(feature = "server")]
pub mod conn;
pub mod parser;
#[cfg(feature = "server")]
pub mod response;
#[cfg(feature = "server")]
pub mod server;
