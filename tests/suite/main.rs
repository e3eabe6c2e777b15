//! The integration tests, built as one crate: one build and one link for all of them (a file
//! under tests/ is a crate of its own, built and linked apart). Each module is a former test
//! file, named as before: `cargo test --test suite h2_hostile::` runs one of them. A module
//! whose tests need a feature says so with `#![cfg(feature = ...)]` at its top.
//!
//! Not here: the allocation counters (tests/alloc: the counter is the process's, and tests
//! beside them would be counted) and tests/poll_failure.rs (it installs a signal handler and
//! swaps a file descriptor in the whole process).

#[path = "../common/mod.rs"]
mod common;

mod abuse;
mod accept;
mod access_log;
mod admin;
mod admin_routes;
mod architecture;
mod chunked;
mod cli;
mod conn;
mod contrib_http11probe;
mod control;
mod corpus;
mod deploy;
mod downloads;
mod echo;
mod fault_kinds;
mod fault_shares;
mod faults;
mod features;
mod figures;
mod grpc;
mod h2;
mod h2_clients;
mod h2_faults;
mod h2_floods;
mod h2_hostile;
mod h2_mutate;
mod h2_requests;
mod h2_upgrade;
mod hostile;
mod hpack;
mod httpbin;
mod journal;
mod limit_counters;
mod listen;
mod method_routes;
mod mutate_encoding;
mod parser;
mod protocol_matrix;
mod ranges;
mod rejections;
mod routes;
mod sequence;
mod server;
mod signals;
mod silent;
mod smuggling;
mod tls;
mod transport;
mod websocket;
