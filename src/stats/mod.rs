//! Counters: what a worker counts ([`Stats`], [`Timeout`]), their sum over workers
//! ([`Summary`], whose `Display` is the exit summary line) and the two bodies that publish
//! it: the `--stats` JSON and the `--metrics` Prometheus text ([`prometheus`]).
//!
//! Below the connection and the server: counters know the parser's error kinds, the fault
//! kinds and the malformed-response catalogue, never who updates them.

mod counters;
mod json;
pub mod prometheus;
mod summary;

pub use counters::{Stats, Timeout};
pub(crate) use json::stats_json;
pub use summary::Summary;
