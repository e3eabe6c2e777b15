//! The Content-Encoding variants of the catalogue decoded by an independent implementation,
//! Python's `zlib` and `gzip` (the C zlib underneath): each valid stream decodes to `hello\n`,
//! each spoiled one fails with the error its description names, and nothing else differs.

use crate::common;

use canned::mutate::{Catalogue, find, ids};
use std::io::Write;
use std::process::{Command, Stdio};

/// For each line `ID HEX`, decode the body as its Content-Encoding says and print `ID` and
/// either `ok` and the data in hex or `error` and the exception's class and message (`raw`
/// is DEFLATE without a wrapper).
const ORACLE: &str = r#"
import gzip, sys, zlib
for line in sys.stdin:
    id, coding, hexbody = line.split()
    body = bytes.fromhex(hexbody)
    try:
        if coding == "gzip":
            data = gzip.decompress(body)
        elif coding == "deflate":
            data = zlib.decompress(body)
        elif coding == "raw":
            data = zlib.decompress(body, wbits=-15)
        print(id, coding, "ok", data.hex())
    except Exception as e:
        print(id, coding, "error", type(e).__name__ + ":", e)
"#;

/// The body after the head, and the one Content-Encoding value.
fn split(b: &[u8]) -> (String, &[u8]) {
    let end = b.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = std::str::from_utf8(&b[..end]).unwrap();
    let coding = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Encoding: "))
        .unwrap();
    (coding.to_string(), &b[end + 4..])
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|c| format!("{c:02x}")).collect()
}

#[test]
fn python_decodes_each_variant_as_described() {
    if !common::have("python3") {
        return;
    }
    let c = Catalogue::new();
    let mut input = String::new();
    let ce: Vec<&str> = ids().filter(|i| i.starts_with("ce-")).collect();
    assert_eq!(ce.len(), 12);
    for id in &ce {
        let (coding, body) = split(c.bytes(find(id).unwrap()));
        input += &format!("{id} {coding} {}\n", hex(body));
        if *id == "ce-deflate-raw" {
            input += &format!("{id} raw {}\n", hex(body));
        }
    }
    let mut py = Command::new("python3")
        .args(["-c", ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    py.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success());
    let got = String::from_utf8(out.stdout).unwrap();
    let hello = hex(b"hello\n");
    // Decoded once, the twice-encoded variants are the once-encoded bytes of the valid ones.
    let gzip_once = hex(split(c.bytes(find("ce-gzip-valid").unwrap())).1);
    let zlib_once = hex(split(c.bytes(find("ce-deflate-valid").unwrap())).1);
    let want = [
        format!("ce-gzip-valid gzip ok {hello}"),
        format!("ce-deflate-valid deflate ok {hello}"),
        "ce-gzip-not-gzip gzip error BadGzipFile: Not a gzipped file (b'he')".into(),
        "ce-deflate-not-deflate deflate error error: Error -3 while decompressing data: incorrect header check".into(),
        "ce-deflate-raw deflate error error: Error -3 while decompressing data: incorrect header check".into(),
        format!("ce-deflate-raw raw ok {hello}"),
        "ce-gzip-truncated gzip error EOFError: Compressed file ended before the end-of-stream marker was reached".into(),
        "ce-deflate-truncated deflate error error: Error -5 while decompressing data: incomplete or truncated stream".into(),
        "ce-gzip-bad-crc gzip error BadGzipFile: CRC check failed".into(),
        "ce-gzip-bad-isize gzip error BadGzipFile: Incorrect length of data produced".into(),
        "ce-deflate-bad-adler deflate error error: Error -3 while decompressing data: incorrect data check".into(),
        format!("ce-gzip-twice gzip ok {gzip_once}"),
        format!("ce-deflate-twice deflate ok {zlib_once}"),
    ];
    // Python's own messages differ between its code paths and may between versions (gzip's
    // file reader adds the two CRCs to its message): each line starts as given.
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(&want) {
        assert!(g.starts_with(w.as_str()), "{g:?} is not {w:?}");
    }
}
