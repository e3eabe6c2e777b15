//! Replays every file of the fuzz corpora (`fuzz/corpus/<target>/`) through the same
//! invariant checks the fuzz targets run, so that a toolchain without nightly still guards
//! against regressions.

#[path = "../../fuzz/differential.rs"]
mod differential;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let r = std::panic::catch_unwind(|| check(&data));
        assert!(r.is_ok(), "{} fails its invariants", f.display());
    }
    eprintln!("{target}: {} inputs replayed", files.len());
}

#[test]
fn parse_request() {
    replay("parse_request", canned::check::fuzz_parse_request);
}

#[test]
fn parse_split() {
    replay("parse_split", canned::check::fuzz_parse_split);
}

#[test]
fn chunked() {
    replay("chunked", canned::check::fuzz_chunked);
}

#[test]
fn parse_differential() {
    replay("parse_differential", differential::check);
}

#[test]
fn connection() {
    replay("connection", canned::check::fuzz_connection);
}

#[cfg(feature = "http2")]
#[test]
fn h2_connection() {
    replay("h2_connection", canned::check::fuzz_h2_connection);
}

#[cfg(feature = "faults")]
#[test]
fn held() {
    replay("held", canned::check::fuzz_held);
}

/// The fuzz target's invariants (`fuzz/fuzz_targets/client_hello.rs`): a decision is final
/// whatever bytes follow, a name is printable ASCII.
#[cfg(feature = "tls")]
fn client_hello_invariants(data: &[u8]) {
    use canned::transport::client_hello::{Hello, read};
    let whole = read(data);
    if whole != Hello::Incomplete {
        let mut more = data.to_vec();
        more.extend_from_slice(&[22, 3, 3, 0, 1, 1]);
        assert_eq!(read(&more), whole);
    }
    if let Hello::Sni(Some(name)) = &whole {
        assert!(
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()),
            "{name:?}"
        );
    }
}

#[cfg(feature = "tls")]
#[test]
fn client_hello() {
    replay("client_hello", client_hello_invariants);
    // The seeds are openssl s_client's ClientHellos: the SNI ones are read whole.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/client_hello");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            match canned::transport::client_hello::read(&std::fs::read(e.unwrap().path()).unwrap())
            {
                canned::transport::client_hello::Hello::Sni(Some(n)) => Some(n.to_string()),
                _ => None,
            }
        })
        .collect();
    assert!(names.iter().any(|n| n == "expired.localhost"), "{names:?}");
}

#[test]
fn documented_strictness_is_explained() {
    for (e, why) in differential::STRICTER {
        assert!(why.len() > 10, "{e}: no reason given");
    }
}

/// The driver sees what a client would: a body is skipped, the request after it answered
/// once, and a request hidden inside the body never.
#[test]
fn connection_driver_answers_each_request_once() {
    let mut input = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 26\r\n\r\n".to_vec();
    input.extend_from_slice(b"GET /r HTTP/1.1\r\nHost: a\r\n");
    input.extend_from_slice(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    let r = canned::check::connection::responses();
    for reads in [&[1usize][..], &[3], &[4096]] {
        let script = canned::check::ConnScript {
            input: &input,
            reads,
            writes: &[7, 0],
            max_requests: 0,
            limits: Default::default(),
            conn_limits: Default::default(),
            draining: false,
        };
        let out = canned::check::run_connection(&script, &r);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.matches("HTTP/1.1 200 OK").count(),
            2,
            "{reads:?}: {text}"
        );
        assert!(
            !text.contains("HTTP/1.1 201"),
            "the hidden request was answered"
        );
    }
}

/// An error found before the method is read answers with a body, however the bytes arrive:
/// a bare LF before `HEAD` is rejected at its first byte, so the request is not known to be
/// a HEAD request, whether `HEAD` came in the same read or not. Once `HEAD ` has been read,
/// the 400 has no body, in one read or many. Found by the connection fuzz target.
#[test]
fn error_before_the_method_does_not_depend_on_the_split() {
    let r = canned::check::connection::responses();
    let [_, _, body] = r.error(canned::parser::Rule::Request(canned::parser::Error::BareLf));
    let cases: [(&[u8], &[u8]); 2] = [
        (b"\nHEAD / HTTP/1.1\r\nHost: a\r\n\r\n", body),
        (
            b"HEAD / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n",
            b"\r\n\r\n",
        ),
    ];
    for (input, ends) in cases {
        for reads in [&[1usize][..], &[2], &[4096]] {
            let script = canned::check::ConnScript {
                input,
                reads,
                writes: &[4096],
                max_requests: 0,
                limits: Default::default(),
                conn_limits: Default::default(),
                draining: false,
            };
            let out = canned::check::run_connection(&script, &r);
            let show = String::from_utf8_lossy(&out);
            assert!(out.starts_with(b"HTTP/1.1 400 "), "{reads:?}: {show}");
            assert!(out.ends_with(ends), "{reads:?}: {show}");
        }
    }
}

/// A peer that pipelines and reads a little at a time keeps output pending and its written
/// part growing: the driver's bound on the output buffer (the high-water mark plus one
/// response, the written part included) holds, at the default mark and at a small one.
#[test]
fn connection_driver_bounds_the_output_buffer_of_a_slow_reader() {
    let r = canned::check::connection::responses();
    let input = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n".repeat(20_000);
    for (high_water, writes) in [(256 * 1024, 4096), (1000, 100)] {
        let script = canned::check::ConnScript {
            input: &input,
            reads: &[4096],
            writes: &[writes],
            max_requests: 0,
            limits: Default::default(),
            conn_limits: canned::conn::ConnLimits {
                high_water,
                ..Default::default()
            },
            draining: false,
        };
        let out = canned::check::run_connection(&script, &r);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 20_000);
    }
}

/// A campaign started as docs/fuzzing.md says, or by `.ci/fuzz-smoke`, writes its finds into a
/// scratch directory, never into the stored corpus: libFuzzer writes into the first corpus
/// directory it is given (or `fuzz/corpus/TARGET` when given none), so that one must not be
/// under `corpus/`.
#[test]
fn fuzzing_commands_write_new_inputs_outside_the_stored_corpus() {
    let section = include_str!("../../docs/fuzzing.md");
    let smoke = include_str!("../../.ci/fuzz-smoke");
    let mut runs = 0;
    for text in [section, smoke] {
        let joined = text.replace("\\\n", " ");
        for line in joined.lines().filter(|l| l.contains("fuzz run ")) {
            runs += 1;
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "run").unwrap();
            let first_corpus = words.get(at + 2).copied().unwrap_or("--");
            assert!(
                first_corpus != "--" && !first_corpus.starts_with("corpus/"),
                "new inputs would go into the stored corpus: {line}"
            );
        }
    }
    assert_eq!(
        runs, 2,
        "one command in docs/fuzzing.md, one in .ci/fuzz-smoke"
    );
}
