//! Smuggling and desync vectors built from the RFC 9112 framing rules. For each, canned
//! either rejects with a 4xx (or 501) and closes, or frames exactly as the RFC says. The check
//! that matters: the request hidden in a body (`GET /hidden`, a 418 route) is never answered.

use crate::common;
use common::*;

/// 33 bytes: the request smuggled inside bodies.
const H: &str = "GET /hidden HTTP/1.1\r\nHost: a\r\n\r\n";
/// Appended after every framed vector: answered, then the connection closes.
const END: &str = "GET /end HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";

enum Want {
    /// Rejected with this status, then closed.
    Reject(u16),
    /// Framed: these statuses in order (END's 200 included where it is reached).
    Frame(&'static [u16]),
}
use Want::*;

fn chunk(s: &str) -> String {
    format!("{:x}\r\n{s}\r\n0\r\n\r\n", s.len())
}

fn vectors() -> Vec<(&'static str, String, Want)> {
    let post = "POST / HTTP/1.1\r\nHost: a\r\n";
    let c = chunk(H);
    vec![
        // Content-Length with Transfer-Encoding (RFC 9112 §6.3 (3))
        ("CL then TE", format!("{post}Content-Length: 33\r\nTransfer-Encoding: chunked\r\n\r\n{c}"), Reject(400)),
        ("TE then CL", format!("{post}Transfer-Encoding: chunked\r\nContent-Length: 33\r\n\r\n{c}"), Reject(400)),
        ("TE then CL 0", format!("{post}Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n{c}"), Reject(400)),
        // Content-Length values (§6.3 (5), RFC 9110 §8.6)
        ("two CL differ", format!("{post}Content-Length: 33\r\nContent-Length: 0\r\n\r\n{H}"), Reject(400)),
        ("CL list differ", format!("{post}Content-Length: 0, 33\r\n\r\n{H}"), Reject(400)),
        ("CL +33", format!("{post}Content-Length: +33\r\n\r\n{H}"), Reject(400)),
        ("CL -1", format!("{post}Content-Length: -1\r\n\r\n{H}"), Reject(400)),
        ("CL hex", format!("{post}Content-Length: 0x21\r\n\r\n{H}"), Reject(400)),
        ("CL inner space", format!("{post}Content-Length: 3 3\r\n\r\n{H}"), Reject(400)),
        ("CL overflow", format!("{post}Content-Length: 18446744073709551649\r\n\r\n{H}"), Reject(400)),
        ("CL empty", format!("{post}Content-Length:\r\n\r\n{H}"), Reject(400)),
        ("CL empty member", format!("{post}Content-Length: 33,\r\n\r\n{H}"), Reject(400)),
        ("CL space before colon", format!("{post}Content-Length : 33\r\n\r\n{H}"), Reject(400)),
        ("CL same twice", format!("{post}Content-Length: 33\r\nContent-Length: 33\r\n\r\n{H}{END}"), Frame(&[200, 200])),
        ("CL same list", format!("{post}Content-Length: 33, 33\r\n\r\n{H}{END}"), Frame(&[200, 200])),
        ("CL leading zeros", format!("{post}Content-Length: 0033\r\n\r\n{H}{END}"), Frame(&[200, 200])),
        ("CL tab OWS", format!("{post}Content-Length:\t33\t\r\n\r\n{H}{END}"), Frame(&[200, 200])),
        ("CL on GET", format!("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 33\r\n\r\n{H}{END}"), Frame(&[200, 200])),
        ("CL in HTTP/1.0 keep-alive", format!("POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 33\r\n\r\n{H}{END}"), Frame(&[200, 200])),
        // Transfer-Encoding codings (§6.1, §6.3 (4))
        ("TE chunked, gzip", format!("{post}Transfer-Encoding: chunked, gzip\r\n\r\n{c}"), Reject(400)),
        ("TE chunked twice", format!("{post}Transfer-Encoding: chunked, chunked\r\n\r\n{c}"), Reject(400)),
        ("TE chunked in two fields twice", format!("{post}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n{c}"), Reject(400)),
        ("TE gzip only", format!("{post}Transfer-Encoding: gzip\r\n\r\n{c}"), Reject(400)),
        ("TE identity", format!("{post}Transfer-Encoding: identity\r\n\r\n{c}"), Reject(501)),
        ("TE xchunked", format!("{post}Transfer-Encoding: xchunked\r\n\r\n{c}"), Reject(501)),
        ("TE quoted", format!("{post}Transfer-Encoding: \"chunked\"\r\n\r\n{c}"), Reject(501)),
        ("TE chunked;param", format!("{post}Transfer-Encoding: chunked;x=1\r\n\r\n{c}"), Reject(400)),
        ("TE vertical tab", format!("{post}Transfer-Encoding:\x0bchunked\r\n\r\n{c}"), Reject(400)),
        ("TE space before colon", format!("{post}Transfer-Encoding : chunked\r\n\r\n{c}"), Reject(400)),
        ("TE obs-fold", format!("{post}Transfer-Encoding:\r\n chunked\r\n\r\n{c}"), Reject(400)),
        ("TE in HTTP/1.0", format!("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n{c}"), Reject(400)),
        ("TE empty", format!("{post}Transfer-Encoding:\r\n\r\n{c}"), Reject(400)),
        ("TE upper case", format!("{post}Transfer-Encoding: CHUNKED\r\n\r\n{c}{END}"), Frame(&[200, 200])),
        ("TE trailing OWS", format!("{post}Transfer-Encoding: chunked \t\r\n\r\n{c}{END}"), Frame(&[200, 200])),
        ("TE gzip, chunked", format!("{post}Transfer-Encoding: gzip, chunked\r\n\r\n{c}{END}"), Frame(&[200, 200])),
        // Coding order before an unknown coding: chunked present but not final is a 400
        // (§6.3 (4)) whatever else the list holds; 501 only once the framing is sound.
        ("TE chunked, identity", format!("{post}Transfer-Encoding: chunked, identity\r\n\r\n{c}"), Reject(400)),
        ("TE chunked then identity field", format!("{post}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n{c}"), Reject(400)),
        ("TE identity, chunked, gzip", format!("{post}Transfer-Encoding: identity, chunked, gzip\r\n\r\n{c}"), Reject(400)),
        ("TE chunked then br, chunked field", format!("{post}Transfer-Encoding: chunked\r\nTransfer-Encoding: br, chunked\r\n\r\n{c}"), Reject(400)),
        ("TE br, chunked", format!("{post}Transfer-Encoding: br, chunked\r\n\r\n{c}"), Reject(501)),
        ("TE br then chunked field", format!("{post}Transfer-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n{c}"), Reject(501)),
        ("TE identity with CL", format!("{post}Transfer-Encoding: identity\r\nContent-Length: 33\r\n\r\n{H}"), Reject(400)),
        ("TE identity in HTTP/1.0", format!("POST / HTTP/1.0\r\nTransfer-Encoding: identity\r\nContent-Length: 33\r\n\r\n{H}"), Reject(400)),
        // A name that is not Transfer-Encoding frames no body: the chunk line is the next
        // "request" and is rejected before the hidden request is reached.
        ("Transfer_Encoding", format!("{post}Transfer_Encoding: chunked\r\n\r\n{c}"), Frame(&[200, 400])),
        // Chunk lines (§7.1)
        ("chunk size overflow", format!("{post}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff21\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk size 0x", format!("{post}Transfer-Encoding: chunked\r\n\r\n0x21\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk size negative", format!("{post}Transfer-Encoding: chunked\r\n\r\n-21\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk size then space", format!("{post}Transfer-Encoding: chunked\r\n\r\n21 \r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk size leading space", format!("{post}Transfer-Encoding: chunked\r\n\r\n 21\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk size bare LF", format!("{post}Transfer-Encoding: chunked\r\n\r\n21\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk size bare CR", format!("{post}Transfer-Encoding: chunked\r\n\r\n21\r{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk data too long", format!("{post}Transfer-Encoding: chunked\r\n\r\n20\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("chunk data bare LF", format!("{post}Transfer-Encoding: chunked\r\n\r\n21\r\n{H}\n0\r\n\r\n"), Reject(400)),
        ("last chunk bare LF", format!("{post}Transfer-Encoding: chunked\r\n\r\n0\n\n{H}"), Reject(400)),
        ("final CRLF bare LF", format!("{post}Transfer-Encoding: chunked\r\n\r\n0\r\n\n{H}"), Reject(400)),
        ("ext bare LF", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext CTL", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a\x01\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("trailer obs-fold", format!("{post}Transfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n {H}\r\n\r\n"), Reject(400)),
        ("trailer bare LF", format!("{post}Transfer-Encoding: chunked\r\n\r\n0\r\nX: 1\n\r\n{H}"), Reject(400)),
        // Chunk extensions (§7.1.1): a parser that skips to the next LF, or lets a
        // quoted-string run past CRLF, would frame these differently.
        ("ext bare ;", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext ;;", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;;a\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext name with /", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a/b\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext value with (", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=(\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext unterminated quoted-string", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=\"b\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext quoted-string over CRLF", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=\"\r\n\"\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext escaped CR", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=\"\\\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext text after quote", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=\"b\"c\r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext trailing BWS", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a \r\n{H}\r\n0\r\n\r\n"), Reject(400)),
        ("ext bare ; on last chunk", format!("{post}Transfer-Encoding: chunked\r\n\r\n0;\r\n\r\n{H}"), Reject(400)),
        ("ext quoted ; = and escaped quote", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=\"x;y=\\\"0\\\"\\r\" ; b = c\r\n{H}\r\n0\r\n\r\n{END}"), Frame(&[200, 200])),
        ("extensions", format!("{post}Transfer-Encoding: chunked\r\n\r\n21;a=b;c=\"d e\"\r\n{H}\r\n0;z\r\n\r\n{END}"), Frame(&[200, 200])),
        ("BWS before ;", format!("{post}Transfer-Encoding: chunked\r\n\r\n21 ;a\r\n{H}\r\n0\r\n\r\n{END}"), Frame(&[200, 200])),
        ("trailers", format!("{post}Transfer-Encoding: chunked\r\n\r\n21\r\n{H}\r\n0\r\nX-Trailer: {H}\r\n\r\n{END}").replace("X-Trailer: GET /hidden HTTP/1.1\r\nHost: a\r\n\r\n\r\n", "X-Trailer: a\r\n\r\n"), Frame(&[200, 200])),
        ("upper hex size", format!("{post}Transfer-Encoding: chunked\r\n\r\n0021\r\n{H}\r\n0\r\n\r\n{END}"), Frame(&[200, 200])),
        ("split chunks", format!("{post}Transfer-Encoding: chunked\r\n\r\n3\r\nGET\r\n1e\r\n{}\r\n0\r\n\r\n{END}", &H[3..]), Frame(&[200, 200])),
        // Request line and fields around framing
        ("bare LF head", format!("POST / HTTP/1.1\nHost: a\nContent-Length: 0\n\n{H}"), Reject(400)),
        ("bare CR hides a field", format!("{post}X: a\rContent-Length: 33\r\n\r\n{H}"), Reject(400)),
        ("two Host", format!("{post}Host: b\r\nContent-Length: 33\r\n\r\n{H}"), Reject(400)),
        ("Expect with body", format!("{post}Content-Length: 33\r\nExpect: 100-continue\r\n\r\n{H}{END}"), Frame(&[100, 200, 200])),
        ("close then hidden", format!("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n{H}"), Frame(&[200])),
        ("HTTP/1.0 then hidden", format!("GET / HTTP/1.0\r\n\r\n{H}"), Frame(&[200])),
        ("leading CRLF", format!("\r\n{post}Content-Length: 33\r\n\r\n{H}{END}"), Frame(&[200, 200])),
    ]
}

#[test]
fn smuggling_vectors_are_rejected_or_framed_exactly() {
    let (_h, addr) = start(&["--route", "/hidden=418:HIDDEN"]);
    let vectors = vectors();
    assert!(vectors.len() >= 40, "{} vectors", vectors.len());
    let (mut rejected, mut framed) = (0, 0);
    for (name, bytes, want) in &vectors {
        // Whole, and byte-split into small writes.
        for pieces in [bytes.len(), 5] {
            let mut s = connect(addr);
            for p in bytes.as_bytes().chunks(pieces) {
                std::io::Write::write_all(&mut s, p).unwrap();
            }
            let out = read_to_eof(&mut s);
            let r = parse_responses(&out, &[]);
            let statuses: Vec<u16> = r.iter().map(|r| r.status).collect();
            assert!(
                !statuses.contains(&418),
                "{name}: the hidden request was answered"
            );
            match want {
                Reject(status) => {
                    assert_eq!(statuses, [*status], "{name}");
                    assert_eq!(r[0].header("connection"), Some("close"), "{name}");
                }
                Frame(want) => assert_eq!(&statuses, want, "{name} ({pieces}-byte pieces)"),
            }
        }
        match want {
            Reject(_) => rejected += 1,
            Frame(_) => framed += 1,
        }
    }
    // docs/limits.md states these counts.
    let readme = include_str!("../../docs/limits.md");
    let claim = format!(
        "{} byte-exact vectors (`tests/suite/smuggling.rs`) | {rejected} rejected",
        vectors.len()
    );
    assert!(
        readme.contains(&claim),
        "docs/limits.md should say: {claim}"
    );
    assert!(readme.contains(&format!("{framed} framed exactly")));
}
