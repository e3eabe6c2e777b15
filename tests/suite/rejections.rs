//! A rejected request says why: each rule a request can break ([`Rule`]: the parser's errors,
//! the body limit, the header timeout) gets an error body of its own, `CODE Reason: what was
//! wrong (RFC clause)`, the access log ends its line with ` rule=NAME`, and the journal's entry
//! has `"rule":"NAME"`. The bytes of the default and route responses do not change, and the
//! docs/strictness.md lists exactly the rules the code has.
// The tests over the wire need the access log, the journal, HTTP/2 and the validators; the
// core build runs the others, and their helpers go unused there.
#![cfg_attr(
    not(all(
        feature = "access-log",
        feature = "journal",
        feature = "http2",
        feature = "ranges"
    )),
    allow(unused_imports, dead_code)
)]

use crate::common;
use canned::parser::{Error, Limits, Rule, Status, parse_request};
use canned::response::rule_body;
use common::*;
use std::collections::BTreeSet;
use std::io::{BufRead, Write};

/// The limits the server of these tests runs with (`FLAGS`).
const LIMITS: Limits = Limits {
    max_head: 256,
    max_headers: 4,
};

const FLAGS: [&str; 16] = [
    "--workers",
    "1",
    "--access-log",
    "--journal",
    "100",
    "--journal-path",
    "/_journal",
    "--max-head-bytes",
    "256",
    "--max-headers",
    "4",
    "--max-body-bytes",
    "10",
    "--header-timeout",
    "300ms",
    "--no-date",
];

/// One malformed request for every rule the parser enforces, the rule it breaks first.
fn malformed() -> Vec<(Error, Vec<u8>)> {
    let h = |head: &str| format!("{head}\r\n\r\n").into_bytes();
    let post = "POST / HTTP/1.1\r\nHost: a\r\n";
    let chunked =
        |body: &str| format!("{post}Transfer-Encoding: chunked\r\n\r\n{body}").into_bytes();
    use Error::*;
    vec![
        (InvalidMethod, h("G(T / HTTP/1.1\r\nHost: a")),
        (InvalidTarget, h("GET /a#b HTTP/1.1\r\nHost: a")),
        (InvalidRequestLine, h("GET /\r\nHost: a")),
        (InvalidVersion, h("GET / HTTX/1.1\r\nHost: a")),
        (UnsupportedVersion, h("GET / HTTP/2.0\r\nHost: a")),
        (
            InvalidHeaderName,
            h("GET / HTTP/1.1\r\nHost: a\r\nBad Name: x"),
        ),
        (
            InvalidHeaderValue,
            h("GET / HTTP/1.1\r\nHost: a\r\nX: a\x01b"),
        ),
        (ObsFold, h("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b")),
        (BareLf, h("GET / HTTP/1.1\nHost: a")),
        (BareCr, h("GET / HTTP/1.1\rHost: a")),
        (MissingHost, h("GET / HTTP/1.1")),
        (DuplicateHost, h("GET / HTTP/1.1\r\nHost: a\r\nHost: b")),
        (
            InvalidContentLength,
            h(&format!("{post}Content-Length: +1")),
        ),
        (
            ConflictingContentLength,
            h(&format!("{post}Content-Length: 1\r\nContent-Length: 2")),
        ),
        (
            ContentLengthWithTransferEncoding,
            h(&format!(
                "{post}Content-Length: 1\r\nTransfer-Encoding: chunked"
            )),
        ),
        (
            TransferEncodingHttp10,
            h("POST / HTTP/1.0\r\nTransfer-Encoding: chunked"),
        ),
        (
            ChunkedNotFinal,
            h(&format!("{post}Transfer-Encoding: chunked, gzip")),
        ),
        (
            UnknownTransferCoding,
            h(&format!("{post}Transfer-Encoding: identity")),
        ),
        (
            ExpectationFailed,
            h("GET / HTTP/1.1\r\nHost: a\r\nExpect: teapot"),
        ),
        (
            UriTooLong,
            h(&format!("GET /{} HTTP/1.1\r\nHost: a", "a".repeat(300))),
        ),
        (
            HeadTooLarge,
            h(&format!(
                "GET / HTTP/1.1\r\nHost: a\r\nX: {}",
                "v".repeat(300)
            )),
        ),
        (
            TooManyHeaders,
            h("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4"),
        ),
        (InvalidChunkSize, chunked("zz\r\n")),
        (ChunkSizeOverflow, chunked("fffffffffffffffffff\r\n")),
        (InvalidChunkExt, chunked("1;\r\nx\r\n")),
        (InvalidChunkData, chunked("1\r\nxy")),
        (InvalidTrailer, chunked("0\r\nBad Name: x\r\n\r\n")),
        (InvalidHost, h("GET / HTTP/1.1\r\nHost: :80")),
    ]
}

/// The table covers every kind, and each input breaks the rule it is listed for (the head's
/// rules checked by the parser itself, without a server).
#[test]
fn the_table_has_one_input_per_parser_error() {
    let table = malformed();
    let kinds: BTreeSet<usize> = table.iter().map(|(e, _)| e.index()).collect();
    assert_eq!(kinds.len(), Error::ALL.len(), "one input per kind");
    for (e, input) in &table {
        match parse_request(input, LIMITS) {
            Err(got) => assert_eq!(got, *e, "{}", String::from_utf8_lossy(input)),
            // The chunked body's rules: the head is well formed.
            Ok(Status::Complete(_)) => {
                assert!(e.name().contains("chunk") || *e == Error::InvalidTrailer)
            }
            Ok(Status::Partial) => panic!("partial: {}", String::from_utf8_lossy(input)),
        }
    }
}

/// Over loopback, every rule gets its own body, the HEAD form of each the head alone with the
/// body's length; the access log ends each line with the rule's name, and the journal's
/// entries name it.
#[cfg(all(feature = "access-log", feature = "journal"))]
#[test]
fn every_rule_has_its_own_body_log_word_and_journal_entry() {
    let mut p = Proc::start(&FLAGS);
    let mut cases: Vec<(Rule, Vec<u8>)> = malformed()
        .into_iter()
        .map(|(e, input)| (Rule::Request(e), input))
        .collect();
    cases.push((
        Rule::BodyTooLarge,
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n".to_vec(),
    ));
    let mut bodies = BTreeSet::new();
    for (rule, input) in &cases {
        let out = exchange(p.addr, input);
        let r = &parse_responses(&out, &[])[0];
        let shown = String::from_utf8_lossy(input);
        assert_eq!(r.status, rule.status(), "{rule:?}: {shown}");
        assert_eq!(r.body, rule_body(*rule), "{rule:?}: {shown}");
        let text = String::from_utf8(r.body.clone()).unwrap();
        let (what, clause) = rule.reason();
        assert!(
            text.contains(what) && text.contains(&format!("({clause})\n")),
            "{text}"
        );
        assert!(bodies.insert(text), "{rule:?}: a body another rule has");
    }
    // The header timeout: a head that never ends.
    let mut s = connect(p.addr);
    s.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
    let r = &parse_responses(&read_to_eof(&mut s), &[])[0];
    assert_eq!(r.status, 408);
    assert_eq!(r.body, rule_body(Rule::HeaderTimeout));
    // HEAD: the head alone, with the length of the body it stands for.
    let out = exchange(p.addr, b"HEAD / HTTP/1.1\nHost: a\r\n\r\n");
    let text = String::from_utf8(out).unwrap();
    let length = rule_body(Rule::Request(Error::BareLf)).len();
    assert!(
        text.contains(&format!("\r\nContent-Length: {length}\r\n")),
        "{text}"
    );
    assert!(text.ends_with("Connection: close\r\n\r\n"), "{text}");

    // The access log: one line a response, each ending with its rule.
    let mut log = std::io::BufReader::new(p.child.stdout.take().unwrap());
    let mut want: Vec<Rule> = cases.iter().map(|(r, _)| *r).collect();
    want.extend([Rule::HeaderTimeout, Rule::Request(Error::BareLf)]);
    for rule in &want {
        let mut line = String::new();
        log.read_line(&mut line).unwrap();
        let tail = format!(" {} rule={}", rule.status(), rule.name());
        assert!(log_line(&line).words.ends_with(&tail), "{rule:?}: {line:?}");
    }
    // The journal: each entry with the rule it broke, in order.
    let out = exchange(
        p.addr,
        b"GET /_journal HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    // Streamed, and with `Connection: close` ended by the close: the body is what follows the
    // head.
    let at = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let journal = String::from_utf8(out[at..].to_vec()).unwrap();
    let named: Vec<&str> = journal
        .split("\"rule\":")
        .skip(1)
        .map(|s| s.split([',', '}']).next().unwrap().trim_matches('"'))
        .collect();
    // A body refused by its Content-Length before it is read is not journaled (docs/echo-and-control.md,
    // Request journal).
    let want_names: Vec<&str> = want
        .iter()
        .filter(|&&r| r != Rule::BodyTooLarge)
        .map(|r| r.name())
        .collect();
    assert_eq!(named, want_names, "{journal}");
    let (code, _) = p.stop();
    assert_eq!(code, 0);
}

/// The bytes of the default response, a route's and the 405 answer do not change: a rule's
/// body is only in canned's own errors. (The bytes of the build with `ranges`: its
/// Accept-Ranges and ETag.)
#[cfg(feature = "ranges")]
#[test]
fn default_and_route_responses_are_unchanged() {
    let (_h, addr) = start(&["--route", "/r=201:made", "--route", "POST /p=202"]);
    let get = |req: &[u8]| exchange(addr, req);
    assert_eq!(
        get(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
        b"HTTP/1.1 200 OK\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\n\
          Content-Length: 12\r\nAccept-Ranges: bytes\r\nETag: \"1c8de767ed206b5c\"\r\n\
          Connection: close\r\n\r\nHello World\n"
    );
    assert_eq!(
        get(b"GET /r HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
        b"HTTP/1.1 201 Created\r\nServer: canned\r\nContent-Type: text/plain; charset=utf-8\r\n\
          Content-Length: 4\r\nConnection: close\r\n\r\nmade"
    );
    let out = String::from_utf8(get(
        b"GET /p HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    ))
    .unwrap();
    assert!(
        out.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
        "{out}"
    );
    assert!(out.ends_with("\r\n\r\n405 Method Not Allowed\n"), "{out}");
}

/// docs/strictness.md has one table of the rules: name, status, what was wrong,
/// clause; it lists exactly the rules the code has, each as the code says it.
#[test]
fn the_docs_list_every_rule() {
    let section =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/strictness.md"))
            .unwrap();
    let header = "| rule | status | what was wrong | clause |";
    let table = section.split(header).nth(1).expect("the table of rules");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    let documented: Vec<String> = rows
        .iter()
        .map(|r| r[0].trim_matches('`').to_string())
        .collect();
    let code: Vec<String> = Rule::ALL.iter().map(|r| r.name().to_string()).collect();
    assert_eq!(
        documented, code,
        "the documented rules, in the code's order"
    );
    for (row, rule) in rows.iter().zip(Rule::ALL) {
        let (what, clause) = rule.reason();
        let cells = [
            rule.status().to_string(),
            what.replace('|', "\\|"),
            clause.to_string(),
        ];
        assert_eq!(&row[1..], &cells, "{}", rule.name());
    }
}

/// HTTP/2 over loopback (python h2): a request past `--max-headers` and one whose body goes
/// past `--max-body-bytes` get the same bodies as on HTTP/1, naming the limit.
#[cfg(feature = "http2")]
#[test]
fn h2_431_and_413_name_their_limit() {
    let mut p = Proc::start(&[
        "--max-headers",
        "4",
        "--max-body-bytes",
        "10",
        "--no-date",
        "--access-log",
    ]);
    let script = r#"
import socket, sys, h2.connection, h2.events, h2.config
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
c.initiate_connection()
base = [(":method", "POST"), (":path", "/"), (":scheme", "http"), (":authority", "a")]
c.send_headers(1, base + [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5")], end_stream=True)
c.send_headers(3, base)
c.send_data(3, b"x" * 11, end_stream=True)
s.sendall(c.data_to_send())
bodies, status, done = {1: b"", 3: b""}, {}, set()
while len(done) < 2:
    data = s.recv(65536)
    if not data:
        break
    for e in c.receive_data(data):
        if isinstance(e, h2.events.ResponseReceived):
            status[e.stream_id] = dict(e.headers)[b":status"].decode()
        elif isinstance(e, h2.events.DataReceived):
            bodies[e.stream_id] += e.data
            c.acknowledge_received_data(len(e.data), e.stream_id)
        elif isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)):
            done.add(e.stream_id)
    s.sendall(c.data_to_send())
for i in (1, 3):
    sys.stdout.write(status.get(i, "-") + " " + bodies[i].decode())
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, &p.addr.port().to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let want = [Rule::Request(Error::TooManyHeaders), Rule::BodyTooLarge]
        .map(|r| {
            format!(
                "{} {}",
                r.status(),
                String::from_utf8(rule_body(r)).unwrap()
            )
        })
        .concat();
    assert_eq!(text, want);
    // The access log names the limit, as HTTP/1's does.
    let mut log = std::io::BufReader::new(p.child.stdout.take().unwrap());
    let mut lines = [String::new(), String::new()];
    for l in &mut lines {
        log.read_line(l).unwrap();
    }
    lines.sort();
    let words: Vec<String> = lines.iter().map(|l| log_line(l).words).collect();
    assert_eq!(
        words,
        [
            "POST / HTTP/2.0 413 rule=body_too_large",
            "POST / HTTP/2.0 431 rule=too_many_headers"
        ],
        "{lines:?}"
    );
    p.stop();
}

/// The rules table of docs/strictness.md, as the code has it (`cargo test --test suite -- --ignored
/// --nocapture print_the_readme_table`).
#[test]
#[ignore]
fn print_the_readme_table() {
    println!("| rule | status | what was wrong | clause |\n|---|---|---|---|");
    for r in Rule::ALL {
        let (what, clause) = r.reason();
        println!(
            "| `{}` | {} | {} | {clause} |",
            r.name(),
            r.status(),
            what.replace('|', "\\|")
        );
    }
}
