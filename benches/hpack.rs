//! HPACK decoding: the request and response blocks of RFC 7541 Appendix C, each connection's
//! three blocks in order on a fresh decoder (made outside the timed part), with literal strings
//! (C.3, C.5) and Huffman-coded ones (C.4, C.6), so the ratio is Huffman decoding's cost.
//!
//! `cargo bench --bench hpack` prints criterion's figures, then a Markdown table of ns per
//! connection and per field, input throughput, and each Huffman form against its literal form.

use canned::hpack::Decoder;
use criterion::{BatchSize, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// (name, table size, the three blocks of one connection, fields in all)
fn connections() -> Vec<(&'static str, usize, Vec<Vec<u8>>, usize)> {
    let blocks = |dumps: &[&str]| dumps.iter().map(|d| hex(d)).collect::<Vec<_>>();
    vec![
        (
            "c3_requests",
            4096,
            blocks(&[
                "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                "8286 84be 5808 6e6f 2d63 6163 6865",
                "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
            ]),
            14,
        ),
        (
            "c4_requests_huffman",
            4096,
            blocks(&[
                "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
                "8286 84be 5886 a8eb 1064 9cbf",
                "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
            ]),
            14,
        ),
        (
            "c5_responses",
            256,
            blocks(&[
                "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
                 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70
                 6c65 2e63 6f6d",
                "4803 3330 37c1 c0bf",
                "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
                 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
                 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e
                 3d31",
            ]),
            14,
        ),
        (
            "c6_responses_huffman",
            256,
            blocks(&[
                "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
                 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
                "4883 640e ffc1 c0bf",
                "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
                 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
                 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
            ]),
            14,
        ),
    ]
}

/// Decodes a connection's blocks, returning the bytes of names and values seen (so that
/// nothing is optimised away).
fn decode_all(decoder: &mut Decoder, blocks: &[Vec<u8>], scratch: &mut [u8]) -> usize {
    let mut seen = 0;
    for block in blocks {
        decoder
            .decode(black_box(block), scratch, |f| {
                seen += f.name.len() + f.value.len()
            })
            .unwrap();
    }
    seen
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let cases = connections();
    for (name, table, blocks, _) in &cases {
        let bytes: usize = blocks.iter().map(Vec::len).sum();
        let mut g = c.benchmark_group(*name);
        g.throughput(Throughput::Bytes(bytes as u64));
        let mut scratch = [0u8; 256];
        g.bench_function("canned", |b| {
            b.iter_batched_ref(
                || Decoder::new(*table),
                |d| decode_all(d, blocks, &mut scratch),
                BatchSize::SmallInput,
            )
        });
        g.finish();
    }
    c.final_summary();
    println!("\n| connection | bytes | fields | ns | ns/field | MB/s | against literal strings |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut literal_ns = 0.0;
    for (name, _, blocks, fields) in &cases {
        let Some(ns) = estimate(name, "canned") else {
            continue;
        };
        let bytes: usize = blocks.iter().map(Vec::len).sum();
        let ratio = if name.ends_with("huffman") {
            format!("{:.2}x", ns / literal_ns)
        } else {
            literal_ns = ns;
            "1.00x".into()
        };
        println!(
            "| {name} | {bytes} | {fields} | {ns:.1} | {:.1} | {:.0} | {ratio} |",
            ns / *fields as f64,
            bytes as f64 / ns * 1e3
        );
    }
}

/// Mean ns from `target/criterion/GROUP/FUNCTION/new/estimates.json`.
fn estimate(group: &str, function: &str) -> Option<f64> {
    let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let path = format!("{dir}/criterion/{group}/{function}/new/estimates.json");
    let json = std::fs::read_to_string(path).ok()?;
    let mean = &json[json.find("\"mean\"")?..];
    let at = mean.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let num: String = mean[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    num.parse().ok()
}
