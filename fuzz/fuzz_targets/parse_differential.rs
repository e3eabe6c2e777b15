#![no_main]
//! canned's parser against httparse. The check lives in `differential.rs`, shared with the
//! corpus replay in `tests/suite/corpus.rs`.
use libfuzzer_sys::fuzz_target;

#[path = "../differential.rs"]
mod differential;

fuzz_target!(|data: &[u8]| differential::check(data));
