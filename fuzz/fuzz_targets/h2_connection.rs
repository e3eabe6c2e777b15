#![no_main]
//! See `canned::check::fuzz_h2_connection` for the invariants.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| canned::check::fuzz_h2_connection(data));
