//! Invariant checks shared by the unit tests, the corpus replay and the fuzz targets, compiled
//! only with the `check` feature (never into the shipped binary).
//!
//! Each function panics with a description when an invariant does not hold, so a fuzzer
//! reports it as a crash and a test as a failure.
//!
//! - `parse`: the parser's and the chunked decoder's invariants, and their fuzz entries;
//! - [`expected`]: what a connection must send and log, from the grammar and RFC 9112's tables;
//! - [`connection`]: the socket-free connection driver, checked against `expected`;
//! - [`held`]: responses held back by time, and a client that hangs up meanwhile;
//! - [`h2`]: the HTTP/2 connection's frames, windows and memory bound.

#[cfg(feature = "server")]
pub mod connection;
#[cfg(feature = "server")]
pub mod expected;
#[cfg(feature = "http2")]
pub mod h2;
#[cfg(feature = "server")]
pub mod held;
mod parse;

#[cfg(feature = "server")]
pub use connection::{fuzz_connection, run_connection};
#[cfg(feature = "server")]
pub use expected::{ConnScript, expected_output};
#[cfg(feature = "http2")]
pub use h2::fuzz_h2_connection;
#[cfg(feature = "server")]
pub use held::fuzz_held;
pub use parse::{
    chunked_invariants, decode_in_pieces, fuzz_chunked, fuzz_limits, fuzz_parse_request,
    fuzz_parse_split, parse_in_pieces, parser_invariants, split_script,
};
