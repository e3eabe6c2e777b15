//! Request-head parsing: canned's parser against httparse plus the lookups a server needs to
//! reach the same decisions (keep-alive from Connection, framing from Content-Length and
//! Transfer-Encoding, Host present). Both run in the same process, interleaved by criterion.
//!
//! `cargo bench --bench parse` prints criterion's figures, then a Markdown table of ns per
//! request, throughput and the ratio.

use canned::parser::{Framing, Limits, Parser, Status};
use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let minimal = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".to_vec();
    let browser = b"GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\nCache-Control: max-age=0\r\nsec-ch-ua: \"Chromium\";v=\"119\", \"Not?A_Brand\";v=\"24\"\r\nsec-ch-ua-mobile: ?0\r\nsec-ch-ua-platform: \"Linux\"\r\nUpgrade-Insecure-Requests: 1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\nSec-Fetch-Site: none\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\n\r\n".to_vec();
    let mut thirty = b"GET /api/v1/items?page=2 HTTP/1.1\r\nHost: api.example.com\r\n".to_vec();
    for i in 0..29 {
        thirty
            .extend_from_slice(format!("X-Custom-Header-{i}: value-{i}-abcdefghij\r\n").as_bytes());
    }
    thirty.extend_from_slice(b"\r\n");
    let mut cookie = b"GET / HTTP/1.1\r\nHost: example.com\r\nCookie: ".to_vec();
    while cookie.len() < 4096 + 40 {
        cookie.extend_from_slice(b"session_id=0123456789abcdef; ");
    }
    cookie.extend_from_slice(b"end=1\r\nAccept: */*\r\n\r\n");
    vec![
        ("a_minimal", minimal),
        ("b_browser", browser),
        ("c_30_headers", thirty),
        ("d_4k_cookie", cookie),
    ]
}

/// What both sides must decide.
#[derive(Debug, PartialEq, Eq)]
struct Decision {
    keep_alive: bool,
    length: Option<u64>,
    chunked: bool,
    host: bool,
    len: usize,
}

fn canned(limits: Limits, buf: &[u8]) -> Decision {
    match Parser::new(limits).parse(buf) {
        Ok(Status::Complete(r)) => Decision {
            keep_alive: r.keep_alive,
            length: match r.framing {
                Framing::Length(n) => Some(n),
                _ => None,
            },
            chunked: r.framing == Framing::Chunked,
            host: true,
            len: r.head_len,
        },
        other => panic!("{other:?}"),
    }
}

fn httparse_decide(buf: &[u8]) -> Decision {
    let mut headers = [httparse::EMPTY_HEADER; 100];
    let mut req = httparse::Request::new(&mut headers);
    let len = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        other => panic!("{other:?}"),
    };
    let http11 = req.version == Some(1);
    let (mut close, mut ka, mut host, mut length, mut chunked) = (false, false, false, None, false);
    for h in req.headers.iter() {
        let n = h.name.as_bytes();
        if n.eq_ignore_ascii_case(b"connection") {
            for t in h.value.split(|&c| c == b',') {
                let t = t.trim_ascii();
                close |= t.eq_ignore_ascii_case(b"close");
                ka |= t.eq_ignore_ascii_case(b"keep-alive");
            }
        } else if n.eq_ignore_ascii_case(b"host") {
            host = true;
        } else if n.eq_ignore_ascii_case(b"content-length") {
            length = std::str::from_utf8(h.value)
                .ok()
                .and_then(|v| v.trim().parse().ok());
        } else if n.eq_ignore_ascii_case(b"transfer-encoding") {
            chunked = h
                .value
                .split(|&c| c == b',')
                .next_back()
                .is_some_and(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        }
    }
    Decision {
        keep_alive: !close && (http11 || ka),
        length: length.filter(|&n| n > 0),
        chunked,
        host,
        len,
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let limits = Limits::default();
    let cases = inputs();
    for (name, buf) in &cases {
        assert_eq!(
            canned(limits, buf),
            httparse_decide(buf),
            "{name}: decisions differ"
        );
        let mut g = c.benchmark_group(*name);
        g.throughput(Throughput::Bytes(buf.len() as u64));
        g.bench_function("canned", |b| b.iter(|| canned(limits, black_box(buf))));
        g.bench_function("httparse", |b| b.iter(|| httparse_decide(black_box(buf))));
        g.finish();
    }
    c.final_summary();
    // The table, from criterion's estimates of this run.
    println!(
        "\n| input | bytes | canned ns/req | httparse+lookups ns/req | canned MB/s | httparse MB/s | speed-up |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, buf) in &cases {
        let (Some(a), Some(b)) = (estimate(name, "canned"), estimate(name, "httparse")) else {
            continue;
        };
        let mbs = |ns: f64| buf.len() as f64 / ns * 1e3;
        println!(
            "| {name} | {} | {a:.1} | {b:.1} | {:.0} | {:.0} | {:.2}x |",
            buf.len(),
            mbs(a),
            mbs(b),
            b / a
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
