//! `--access-log` and `--access-log json` with real clients: each line carries the client's
//! address, the status, the bytes, the time and the protocol, on HTTP/1 and HTTP/2, with
//! 1 and 2 workers.
#![cfg(feature = "access-log")]

use crate::common;

use common::{Proc, have};
use std::io::{BufRead, Write};
use std::process::Command;

/// curl's view of one exchange: its local port, the status, head and body bytes.
fn curl(url: &str, extra: &[&str]) -> (u16, u16, u64, u64) {
    let out = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{local_port} %{http_code} %{size_header} %{size_download}",
        ])
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    let t = String::from_utf8(out.stdout).unwrap();
    let v: Vec<u64> = t.split(' ').map(|x| x.parse().unwrap()).collect();
    (v[0] as u16, v[1] as u16, v[2], v[3])
}

#[test]
fn each_line_carries_client_status_bytes_time_and_protocol_text_and_json() {
    if !have("curl") || !have("python3") {
        return;
    }
    for workers in ["1", "2"] {
        for json in [false, true] {
            let mut flags = vec!["--workers", workers, "--access-log"];
            if json {
                flags.push("json");
            }
            let mut p = Proc::start(&flags);
            let url = format!("http://{}/a%01b", p.addr);
            let h1 = curl(&url, &[]);
            let h2 = curl(&url, &["--http2-prior-knowledge"]);
            let mut out = std::io::BufReader::new(p.child.stdout.take().unwrap());
            let mut lines = Vec::new();
            for _ in 0..2 {
                let mut l = String::new();
                out.read_line(&mut l).unwrap();
                lines.push(l);
            }
            lines.sort_by_key(|l| !l.contains("HTTP/1.1"));
            for (line, (port, status, head, body), proto, bytes) in [
                (&lines[0], h1, "HTTP/1.1", h1.2 + h1.3),
                (&lines[1], h2, "HTTP/2", h2.3),
            ] {
                assert_eq!(status, 200);
                let _ = (head, body);
                let client = format!("127.0.0.1:{port}");
                let (c, s, b, us, pr, target) = if json {
                    let script = "import json,sys; o=json.loads(sys.argv[1]); \
                                  print(o['client'], o['status'], o['bytes'], o['duration_us'], o['protocol'], o['target'], o['tls'])";
                    let o = Command::new("python3")
                        .args(["-c", script, line])
                        .output()
                        .unwrap();
                    assert!(o.status.success(), "{line}");
                    let t = String::from_utf8(o.stdout).unwrap();
                    let f: Vec<String> = t.split_whitespace().map(String::from).collect();
                    assert_eq!(f[6], "False", "{line}");
                    (
                        f[0].clone(),
                        f[1].clone(),
                        f[2].clone(),
                        f[3].clone(),
                        f[4].clone(),
                        f[5].clone(),
                    )
                } else {
                    let f: Vec<&str> = line.trim_end().split(' ').collect();
                    // [Day, DD Mon YYYY HH:MM:SS GMT] CLIENT METHOD TARGET VERSION STATUS BYTES US
                    let f = &f[6..];
                    let pr = if f[3] == "HTTP/2.0" { "HTTP/2" } else { f[3] };
                    (
                        f[0].into(),
                        f[4].into(),
                        f[5].into(),
                        f[6].into(),
                        pr.into(),
                        f[2].into(),
                    )
                };
                assert_eq!(c, client, "{line}");
                assert_eq!(s, "200", "{line}");
                if proto == "HTTP/2" {
                    // Its HEADERS' HPACK block and the body: curl shows no block's size
                    // (http2_bytes_are_the_headers_and_data_payloads_a_client_reads).
                    assert!(b.parse::<u64>().unwrap() > bytes, "{line}");
                } else {
                    assert_eq!(b, bytes.to_string(), "{line}");
                }
                assert_eq!(pr, proto, "{line}");
                assert_eq!(target, "/a%01b", "{line}");
                let us: u64 = us.parse().unwrap();
                assert!(us > 0 && us < 10_000_000, "{line}");
            }
            drop(out);
            p.stop();
        }
    }
}

#[test]
fn a_bad_format_is_one_error_naming_the_flag() {
    let out = Command::new(common::bin())
        .args(["--access-log=xml"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--access-log") && err.contains("json"),
        "{err}"
    );
}

/// Stop the server and read every line of its access log.
fn stop_and_read(mut p: Proc) -> Vec<String> {
    let mut out = p.child.stdout.take().unwrap();
    let (code, _) = p.stop();
    assert_eq!(code, 0);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut out, &mut text).unwrap();
    text.lines().map(String::from).collect()
}

/// A JSON line's fields as `client method target protocol status bytes duration_us tls`,
/// read by Python's json module (so that the line is valid JSON).
fn json_fields(line: &str) -> Vec<String> {
    let script = "import json,sys; o=json.loads(sys.argv[1]); \
                  print(o['client'], o['method'], o['target'], o['protocol'], o['status'], \
                  o['bytes'], o['duration_us'], o['tls'])";
    let o = Command::new("python3")
        .args(["-c", script, line])
        .output()
        .unwrap();
    assert!(o.status.success(), "{line}");
    String::from_utf8(o.stdout)
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// The same fields from a text line.
fn text_fields(line: &str) -> Vec<String> {
    let l = common::log_line(line);
    let w: Vec<&str> = l.words.split(' ').collect();
    let proto = if w[2] == "HTTP/2.0" { "HTTP/2" } else { w[2] };
    [
        &l.client,
        w[0],
        w[1],
        proto,
        w[3],
        &l.bytes.to_string(),
        &l.us.to_string(),
        "False",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// HTTP/2's bytes mean what HTTP/1's do, less the framing: the payloads of the answer's
/// HEADERS (its HPACK block) and DATA frames, counted by a client reading the raw frames
/// (Python's hyperframe and hpack), for a GET, a HEAD and a refused request (413).
#[test]
fn http2_bytes_are_the_headers_and_data_payloads_a_client_reads() {
    if !have("python3") {
        return;
    }
    let script = r#"
import socket, sys
from hyperframe.frame import Frame, SettingsFrame, HeadersFrame, DataFrame
import hpack
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize())
enc = hpack.Encoder()
def req(sid, method, end, extra=()):
    f = HeadersFrame(sid)
    f.data = enc.encode([(":method", method), (":scheme", "http"), (":authority", "t"), (":path", "/a")] + list(extra))
    f.flags.add("END_HEADERS")
    if end:
        f.flags.add("END_STREAM")
    s.sendall(f.serialize())
req(1, "GET", True)
req(3, "HEAD", True)
req(5, "POST", False)
d = DataFrame(5, b"x" * 20)
d.flags.add("END_STREAM")
s.sendall(d.serialize())
got, ended, buf = {}, set(), b""
while len(ended) < 3:
    d = s.recv(65536)
    if not d:
        break
    buf += d
    while len(buf) >= 9:
        f, n = Frame.parse_frame_header(buf[:9])
        if len(buf) < 9 + n:
            break
        body, buf = buf[9:9 + n], buf[9 + n:]
        if f.type in (0x0, 0x1, 0x9) and f.stream_id:
            got[f.stream_id] = got.get(f.stream_id, 0) + n
        f.parse_body(memoryview(body))
        if f.stream_id and ("END_STREAM" in f.flags or f.type == 0x3):
            ended.add(f.stream_id)
print(got.get(1, 0), got.get(3, 0), got.get(5, 0))
"#;
    for workers in ["1", "2"] {
        for json in [false, true] {
            let mut flags = vec![
                "--workers",
                workers,
                "--max-body-bytes",
                "10",
                "--access-log",
            ];
            if json {
                flags.push("json");
            }
            let p = Proc::start(&flags);
            let o = Command::new("python3")
                .args(["-c", script, &p.addr.port().to_string()])
                .output()
                .unwrap();
            let seen = String::from_utf8(o.stdout).unwrap();
            let seen: Vec<&str> = seen.split_whitespace().collect();
            assert_eq!(seen.len(), 3, "{}", String::from_utf8_lossy(&o.stderr));
            let mut lines = stop_and_read(p);
            assert_eq!(lines.len(), 3, "{lines:?}");
            lines.sort_by_key(|l| {
                ["\"GET", " GET", "HEAD", "POST"]
                    .iter()
                    .position(|m| l.contains(m))
            });
            for (line, (method, status, bytes)) in lines.iter().zip([
                ("GET", "200", seen[0]),
                ("HEAD", "200", seen[1]),
                ("POST", "413", seen[2]),
            ]) {
                let f = if json {
                    json_fields(line)
                } else {
                    text_fields(line)
                };
                assert_eq!(f[1..6], [method, "/a", "HTTP/2", status, bytes], "{line}");
            }
        }
    }
}

/// Python's requests and Go's net/http as the clients, over HTTP/1.1 keep-alive, with 1
/// and 2 workers, text and JSON: one line a request, each with the client's address (not
/// the server's), the bytes curl counts for the same answer, a time.
#[test]
fn python_requests_and_go_clients_are_logged_with_their_address_and_bytes() {
    if !have("curl") || !have("python3") {
        return;
    }
    let go_source = r#"package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	for i := 0; i < 2; i++ {
		r, err := http.Get(os.Args[1])
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	fmt.Println("ok")
}
"#;
    let go = have("go").then(|| common::GoProgram::new("access-log", go_source));
    for workers in ["1", "2"] {
        for json in [false, true] {
            let mut flags = vec!["--workers", workers, "--access-log"];
            if json {
                flags.push("json");
            }
            let p = Proc::start(&flags);
            let url = p.url("/py");
            // curl's count of the same answer, over keep-alive as the clients ask it.
            let (_, _, head, body) = curl(&url, &[]);
            common::python_ok(
                "import requests,sys\n\
                 s = requests.Session()\n\
                 for m in ('GET', 'HEAD'):\n    s.request(m, sys.argv[1]).raise_for_status()\n\
                 print('ok')",
                &[url.as_ref()],
                "python requests",
            );
            let mut want = vec![("GET", "/py", head + body), ("HEAD", "/py", head)];
            let go_url = p.url("/go");
            if let Some(go) = &go {
                let o = go.run(&[&go_url]);
                assert_eq!(
                    String::from_utf8_lossy(&o.stdout),
                    "ok\n",
                    "{}",
                    String::from_utf8_lossy(&o.stderr)
                );
                want.extend([("GET", "/go", head + body), ("GET", "/go", head + body)]);
            }
            let server = p.addr.to_string();
            // curl's line first.
            let lines = stop_and_read(p).split_off(1);
            assert_eq!(lines.len(), want.len(), "{lines:?}");
            for (line, (method, target, bytes)) in lines.iter().zip(&want) {
                let f = if json {
                    json_fields(line)
                } else {
                    text_fields(line)
                };
                assert!(f[0].starts_with("127.0.0.1:") && f[0] != server, "{line}");
                assert_eq!(
                    f[1..6],
                    [*method, *target, "HTTP/1.1", "200", &bytes.to_string()],
                    "{line}"
                );
                let us: u64 = f[6].parse().unwrap();
                assert!(us < 10_000_000, "{line}");
            }
            // The two Go requests on one kept-alive connection: one client address.
            if go.is_some() {
                let n = lines.len();
                let client =
                    |l: &String| if json { json_fields(l) } else { text_fields(l) }[0].clone();
                assert_eq!(client(&lines[n - 1]), client(&lines[n - 2]), "{lines:?}");
            }
        }
    }
}

/// HTTP/2 streams held by `--delay` or shaped by a fault are logged as HTTP/1's requests are:
/// their time runs to the end of the hold, and the line names the fault.
#[cfg(feature = "faults")]
#[test]
fn http2_streams_held_or_faulted_are_logged() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--no-date",
            "--access-log",
            "--delay",
            "50ms",
            "--fault",
            "/e=error:1:503",
        ]);
        let h2 = ["--http2-prior-knowledge"];
        assert_eq!(curl(&p.url("/held"), &h2).1, 200);
        assert_eq!(curl(&p.url("/e"), &h2).1, 503);
        let lines = stop_and_read(p);
        let lines: Vec<common::LogLine> = lines.iter().map(|l| common::log_line(l)).collect();
        let words: Vec<&str> = lines.iter().map(|l| &l.words[..]).collect();
        assert_eq!(
            words,
            ["GET /held HTTP/2.0 200", "GET /e HTTP/2.0 503 fault=error"],
            "{workers} workers"
        );
        assert!(
            lines.iter().all(|l| l.us >= 50_000 && l.bytes > 0),
            "{lines:?}"
        );
    }
}

/// BYTES means one thing on both protocols: the answer canned sends, HTTP/1's head and body
/// as they go on the wire, HTTP/2's HEADERS block and DATA payloads. A cut answer counted to
/// its cut, a drip whole (its pieces not yet sent when the line is written too), the journal
/// whole (over 64 KiB, streamed a piece at a time). curl, over HTTP/1.1 and with HTTP/2 prior
/// knowledge, 1 and 2 workers: HTTP/1's BYTES is what curl read, head and body (the
/// journal's chunks framing included); HTTP/2's less the body curl read is the HEADERS
/// block, shorter than HTTP/1's head, and the same for answers with the same fields.
#[cfg(all(
    feature = "faults",
    feature = "control",
    feature = "journal",
    feature = "http2"
))]
#[test]
fn bytes_mean_the_same_answer_on_http1_and_http2() {
    if !have("curl") {
        return;
    }
    // (target, the case whose answer has the same fields); a reset's client may lose what it
    // read: its BYTES are the truncate's.
    let cases = [
        ("/", "/"),
        ("/tr", "/"),
        ("/rs", "/"),
        ("/dr", "/"),
        ("/?bytes=10K", "/?bytes=10K"),
        ("/?fault=truncate:1000&bytes=10K", "/?bytes=10K"),
        ("/drip?numbytes=2&duration=0.1", ""),
        ("/_j", ""),
    ];
    let h1 = ["--http1.1"];
    let h2 = ["--http2-prior-knowledge"];
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--no-date",
            "--access-log",
            "--body-file",
            "Cargo.toml",
            "--fault",
            "/tr=truncate:1000",
            "--fault",
            "/rs=reset:1000",
            "--fault",
            "/dr=drip:2pieces/300ms",
            "--control",
            "--journal-path",
            "/_j",
        ]);
        // A journal of over 64 KiB, sent in pieces (HTTP/1: several chunks).
        let pad = format!(
            "GET /pad HTTP/1.1\r\nHost: t\r\nX-Pad: {}\r\n\r\n",
            "x".repeat(2000)
        );
        let mut s = common::connect(p.addr);
        let last = "GET /pad HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
        s.write_all((pad.repeat(40) + last).as_bytes()).unwrap();
        common::read_to_eof(&mut s);
        // HTTP/1's journal as it comes on the wire, its chunks' framing included.
        let raw = |url: &str| {
            let o = (Command::new("curl"))
                .args(["-s", "--http1.1", "--raw", "-D", "-", url])
                .output()
                .unwrap();
            (0, 200, o.stdout.len() as u64, 0)
        };
        let seen: Vec<_> = (cases.iter())
            .map(|(t, _)| match *t {
                "/_j" => (raw(&p.url(t)), curl(&p.url(t), &h2)),
                _ => (curl(&p.url(t), &h1), curl(&p.url(t), &h2)),
            })
            .collect();
        let lines: Vec<common::LogLine> = stop_and_read(p)
            .iter()
            .map(|l| common::log_line(l))
            .collect();
        let bytes = |target: &str, version: &str| {
            let words = format!("GET {target} {version} ");
            let l: Vec<_> = (lines.iter())
                .filter(|l| l.words.starts_with(&words))
                .collect();
            assert_eq!(l.len(), 1, "{words}: {lines:?}");
            l[0].bytes as i64
        };
        let mut headers = std::collections::HashMap::new();
        for ((target, like), (c1, c2)) in cases.iter().zip(&seen) {
            let (b1, b2) = (bytes(target, "HTTP/1.1"), bytes(target, "HTTP/2.0"));
            let why = format!("{workers} workers, {target}: {b1} {b2} {c1:?} {c2:?}");
            // curl reports nothing of a stream reset after its first 1000 bytes of body.
            let cut = target.contains("tr");
            let block = b2 - if cut { 1000 } else { c2.3 as i64 };
            if target.starts_with("/rs") {
                assert_eq!(
                    (b1, b2),
                    (bytes("/tr", "HTTP/1.1"), bytes("/tr", "HTTP/2.0"))
                );
                continue;
            }
            assert_eq!(b1, (c1.2 + c1.3) as i64, "HTTP/1: {why}");
            assert!(0 < block && block < c1.2 as i64, "HTTP/2: {why}");
            if !like.is_empty() {
                assert_eq!(*headers.entry(like).or_insert(block), block, "{why}");
            }
            if cut {
                assert_eq!(b1, 1000, "{why}");
            }
        }
    }
}

/// The line is written, and the answer counted, when the answer is decided, before it is
/// sent: an HTTP/1 request whose client closes right after it, and an HTTP/2
/// stream reset right after its request ended (HEADERS with END_STREAM and RST_STREAM in one
/// write), each have a line and a 200 in the exit summary; a stream reset before its request
/// ended has neither. 1 and 2 workers.
#[cfg(feature = "http2")]
#[test]
fn an_answer_is_logged_and_counted_when_decided_a_stream_reset_before_its_end_is_not() {
    if !have("python3") {
        return;
    }
    let script = r#"
import socket, sys
from hyperframe.frame import SettingsFrame, HeadersFrame, RstStreamFrame, PingFrame
import hpack
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET /h1-fin HTTP/1.1\r\nHost: t\r\n\r\n")
s.close()
enc = hpack.Encoder()
def req(sid, path, end):
    f = HeadersFrame(sid)
    f.data = enc.encode([(":method", "GET"), (":scheme", "http"), (":authority", "t"), (":path", path)])
    f.flags.add("END_HEADERS")
    if end:
        f.flags.add("END_STREAM")
    return f.serialize() + RstStreamFrame(sid, error_code=8).serialize()
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize()
          + req(1, "/h2-ended", True) + req(3, "/h2-open", False) + PingFrame(0, b"8 bytes!").serialize())
# The PING's ACK: every frame before it was read.
buf = b""
while True:
    d = s.recv(65536)
    assert d, "closed before the PING's ACK"
    buf += d
    while len(buf) >= 9 and len(buf) >= 9 + int.from_bytes(buf[:3], "big"):
        n = int.from_bytes(buf[:3], "big")
        if buf[3] == 6 and buf[4] & 1:
            sys.exit(0)
        buf = buf[9 + n:]
"#;
    for workers in ["1", "2"] {
        let mut p = Proc::start(&["--workers", workers, "--no-date", "--access-log"]);
        let o = Command::new("python3")
            .args(["-c", script, &p.addr.port().to_string()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut out = p.child.stdout.take().unwrap();
        let (code, summary) = p.stop();
        assert_eq!(code, 0);
        let mut text = String::new();
        std::io::Read::read_to_string(&mut out, &mut text).unwrap();
        let mut words = common::log_words(&text);
        words.sort();
        assert_eq!(
            words,
            ["GET /h1-fin HTTP/1.1 200", "GET /h2-ended HTTP/2.0 200"],
            "{workers} workers"
        );
        assert!(summary.contains("responses 200 2"), "{summary}");
    }
}

/// A refused request is timed from its own connection, not from a request line an earlier
/// connection left unanswered: a request waiting for its body (after `100 Continue`) whose
/// client goes away 1.5 s later, then on a new connection a request refused with 417, logged
/// in far less than the 1.5 s (it was logged with the first connection's time).
#[test]
fn a_refusal_is_timed_from_its_own_request() {
    use std::io::Read;
    use std::net::TcpStream;
    use std::time::Duration;
    let mut p = Proc::start(&["--workers", "1", "--access-log", "--no-date"]);
    let out = p.child.stdout.take().unwrap();
    let mut a = TcpStream::connect(p.addr).unwrap();
    a.write_all(
        b"POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
    )
    .unwrap();
    let mut buf = [0u8; 64];
    let n = common::ReadSome::read_some(&mut a, &mut buf).unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 100"), "{:?}", &buf[..n]);
    std::thread::sleep(Duration::from_millis(1500));
    // The server has taken the close once it closes its side.
    a.shutdown(std::net::Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    let _ = a.read_to_end(&mut rest);
    let got = common::exchange(p.addr, b"GET /f HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n");
    assert!(got.starts_with(b"HTTP/1.1 417"), "{got:?}");
    p.stop();
    let lines: Vec<String> = std::io::BufReader::new(out)
        .lines()
        .map(|l| l.unwrap())
        .collect();
    let refused = lines
        .iter()
        .find(|l| l.contains(" 417 "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let us = common::log_line(refused).us;
    assert!(us < 1_000_000, "{us} µs: {refused}");
}

/// Under `--delay`, the time in a line means the same on both protocols: an echo's and the
/// journal's answer are held and logged to the hold's end (HTTP/2 logged them at once), a
/// stall and a hang send nothing and are logged at once (HTTP/2 logged the hold); with one
/// and two workers, every request at the same time.
#[cfg(all(feature = "http2", feature = "journal", feature = "faults"))]
#[test]
fn a_lines_time_under_delay_means_the_same_on_both_protocols() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let mut p = Proc::start(&[
            "--workers",
            workers,
            "--access-log",
            "--no-date",
            "--delay",
            "1s",
            "--echo",
            "/e",
            "--journal-path",
            "/j",
            "--fault",
            "/st=stall",
            "--fault",
            "/h=hang:100ms",
        ]);
        let out = p.child.stdout.take().unwrap();
        let mut curls = Vec::new();
        for path in ["/e", "/j", "/st", "/h"] {
            for proto in ["--http1.1", "--http2-prior-knowledge"] {
                curls.push(
                    Command::new("curl")
                        .args(["-s", "-m", "3", "-o", "/dev/null", proto])
                        .arg(p.url(path))
                        .spawn()
                        .unwrap(),
                );
            }
        }
        for mut c in curls {
            c.wait().unwrap();
        }
        p.stop();
        let lines: Vec<String> = std::io::BufReader::new(out)
            .lines()
            .map(|l| l.unwrap())
            .collect();
        for path in ["/e", "/j", "/st", "/h"] {
            for version in ["HTTP/1.1", "HTTP/2.0"] {
                let line = lines
                    .iter()
                    .find(|l| l.contains(&format!(" GET {path} {version} ")))
                    .unwrap_or_else(|| panic!("{path} {version}: {lines:?}"));
                let us = common::log_line(line).us;
                let held = matches!(path, "/e" | "/j");
                assert_eq!(us >= 1_000_000, held, "{workers} workers: {line}");
            }
        }
    }
}
