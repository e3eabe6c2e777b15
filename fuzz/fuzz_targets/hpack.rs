#![no_main]
//! The HPACK decoder on fuzzer-chosen blocks, settings and table-size changes: never a panic,
//! and the invariants of `fuzz/hpack_invariants.rs` (shared with `tests/suite/hpack.rs`) hold.
use libfuzzer_sys::fuzz_target;

#[path = "../hpack_invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| invariants::check(data));
