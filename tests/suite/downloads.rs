//! Resumable downloads as devices and their tools run them: an 8 MiB image behind
//! `--fault '/fw=reset:50%'`, fetched by a client that reconnects and continues with
//! `Range: bytes=N-` until it has the image byte for byte; the same with `If-Range` across a
//! restart with another image (the client gets 200 and starts over); and real clients:
//! `curl -C -`, `wget -c`, BusyBox `wget -c`, Python `requests` with `Range`, and a client
//! fetching fixed 4 KiB ranges the way ESP-IDF's `partial_http_download` does. 1 and 2
//! workers. A missing tool skips its case with a message, unless `CI` is set.
#![cfg(all(feature = "faults", feature = "ranges"))]

use crate::common;

use common::{Proc, have, python_ok};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("canned-downloads-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An image of `n` bytes that no shifted slice of itself matches.
fn image(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn write_image(dir: &Path, name: &str, n: usize, seed: u64) -> (PathBuf, Vec<u8>) {
    let p = dir.join(name);
    let bytes = image(n, seed);
    std::fs::write(&p, &bytes).unwrap();
    (p, bytes)
}

/// The device's loop, in Python's sockets: GET, then on every cut `Range: bytes=N-` (with
/// `If-Range` when a tag is known) until `Content-Length` bytes are in; a 200 starts over.
/// Prints `ok` when the file at argv[2] is what it got; the attempts count goes to stderr.
const RESUME: &str = r#"
import socket, sys
host, port = sys.argv[1].rsplit(':', 1)
want = open(sys.argv[2], 'rb').read()
use_if_range = sys.argv[3] == '1'
etag = sys.argv[4] if len(sys.argv) > 4 else ''
# A partial download kept from an earlier run: the first N bytes of another file.
got = open(sys.argv[5], 'rb').read()[:int(sys.argv[6])] if len(sys.argv) > 6 else b''
total = None
attempts = 0
restarts = 0
idle = 0
while total is None or len(got) < total:
    if idle == 3:
        # A cut of every response (reset:50% without a share) leaves nothing of the body
        # once what remains is shorter than the head: the bytes so far must be the image's.
        assert got == want[:len(got)]
        assert total - len(got) < 1024, total - len(got)
        sys.stderr.write('stalled remaining=%d attempts=%d restarts=%d etag=%s\n' % (total - len(got), attempts, restarts, etag))
        print('ok')
        sys.exit(0)
    attempts += 1
    assert attempts < 200, attempts
    fields = ''
    if got:
        fields += 'Range: bytes=%d-\r\n' % len(got)
        if use_if_range and etag:
            fields += 'If-Range: %s\r\n' % etag
    s = socket.create_connection((host, int(port)), timeout=20)
    s.sendall(('GET /fw HTTP/1.1\r\nHost: dev\r\n%sConnection: close\r\n\r\n' % fields).encode())
    data = b''
    try:
        while True:
            c = s.recv(1 << 16)
            if not c:
                break
            data += c
    except ConnectionResetError:
        pass
    s.close()
    end = data.find(b'\r\n\r\n')
    if end < 0:
        continue
    head = data[:end].decode('latin-1').split('\r\n')
    status = int(head[0].split()[1])
    h = {k.lower(): v for k, v in (l.split(': ', 1) for l in head[1:])}
    body = data[end + 4:]
    if status == 200:
        if got:
            restarts += 1
        got = b''
        total = int(h['content-length'])
        etag = h.get('etag', '')
    else:
        assert status == 206, status
        first = int(h['content-range'].split()[1].split('-')[0])
        assert first == len(got), (first, len(got))
        total = int(h['content-range'].split('/')[1])
    idle = idle + 1 if not body and status == 206 else 0
    got += body
assert got == want, (len(got), len(want))
sys.stderr.write('attempts=%d restarts=%d etag=%s\n' % (attempts, restarts, etag))
print('ok')
"#;

fn resume(
    addr: &str,
    file: &Path,
    if_range: bool,
    etag: Option<&str>,
    kept: Option<(&Path, usize)>,
) -> String {
    let mut args = vec![addr.to_string(), file.display().to_string()];
    args.push(if if_range { "1" } else { "0" }.into());
    args.extend(etag.map(str::to_string));
    if let Some((path, n)) = kept {
        args.extend([path.display().to_string(), n.to_string()]);
    }
    let o = Command::new("python3")
        .args(["-c", RESUME])
        .args(&args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "ok\n", "{err}");
    err
}

#[test]
fn a_device_resumes_through_resets_and_starts_over_on_a_new_image() {
    if !have("python3") {
        return;
    }
    let dir = scratch("resume");
    let (a, _) = write_image(&dir, "a.bin", 8 << 20, 1);
    let (b, _) = write_image(&dir, "b.bin", 8 << 20, 2);
    let a_s = a.to_str().unwrap();
    let b_s = b.to_str().unwrap();
    for workers in ["1", "2"] {
        for fault in ["/fw=reset:50%", "/fw=reset:50%@50%"] {
            let p = Proc::start(&["--workers", workers, "--body-file", a_s, "--fault", fault]);
            let addr = p.addr.to_string();
            let log = resume(&addr, &a, false, None, None);
            let etag = log.split("etag=").nth(1).unwrap().trim().to_string();
            assert!(etag.starts_with('"'), "{log}");
            if !fault.contains('@') {
                // Every response cut: a byte-exact prefix, within a head's length of the end.
                assert!(log.starts_with("stalled remaining="), "{log}");
                p.stop();
                continue;
            }
            assert!(!log.contains("stalled"), "{log}");
            // With If-Range and a prefix of the same image kept: it resumes, never restarts.
            let log = resume(&addr, &a, true, Some(&etag), Some((&a, 3 << 20)));
            assert!(log.contains("restarts=0"), "{log}");
            p.stop();
            // Another image behind the same URL, the client holding 3 MiB of the old one and
            // its tag: the tag no longer matches, the resumed request gets 200, the client
            // starts over and ends with the new image.
            let p = Proc::start(&["--workers", workers, "--body-file", b_s, "--fault", fault]);
            let log = resume(
                &p.addr.to_string(),
                &b,
                true,
                Some(&etag),
                Some((&a, 3 << 20)),
            );
            assert!(log.contains("restarts=1"), "{log}");
            assert!(!log.contains(&etag), "{log}");
            let (code, summary) = p.stop();
            assert_eq!(code, 0);
            assert!(summary.contains("reset"), "no cut: {summary}");
        }
    }
}

/// The same loop through `If-Range` when the image changes under a running download: the
/// first run's partial state is kept by the client (the tag and a prefix), then canned restarts
/// with another file; the next request gets 200 and the client starts over.
#[test]
fn if_range_with_a_stale_tag_gets_the_whole_new_image() {
    if !have("python3") {
        return;
    }
    let dir = scratch("stale");
    let (a, a_bytes) = write_image(&dir, "a.bin", 1 << 20, 3);
    let (b, b_bytes) = write_image(&dir, "b.bin", 1 << 20, 4);
    let p = Proc::start(&["--body-file", a.to_str().unwrap()]);
    let r = common::exchange(
        p.addr,
        b"HEAD /fw HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    let r = common::parse_responses(&r, &[true]);
    let etag = r[0].header("etag").unwrap().to_string();
    p.stop();
    let p = Proc::start(&["--body-file", b.to_str().unwrap()]);
    let req = format!(
        "GET /fw HTTP/1.1\r\nHost: t\r\nRange: bytes=1000-\r\nIf-Range: {etag}\r\nConnection: close\r\n\r\n"
    );
    let r = common::parse_responses(&common::exchange(p.addr, req.as_bytes()), &[]);
    assert_eq!(r[0].status, 200);
    assert_eq!(r[0].body, b_bytes);
    assert_ne!(r[0].header("etag"), Some(etag.as_str()));
    assert_ne!(a_bytes, b_bytes);
    p.stop();
}

/// Run a client command; it must succeed.
fn run(cmd: &mut Command, what: &str) {
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn real_clients_resume_and_fetch_ranges_byte_for_byte() {
    let dir = scratch("clients");
    let (img, bytes) = write_image(&dir, "fw.bin", 3 << 20, 5);
    let third = bytes.len() / 3;
    for workers in ["1", "2"] {
        let p = Proc::start(&["--workers", workers, "--body-file", img.to_str().unwrap()]);
        let url = p.url("/fw.bin");
        // Each client resumes from a partial file holding the first third.
        let partial = |name: &str| {
            let out = dir.join(format!("{name}-{workers}.bin"));
            std::fs::write(&out, &bytes[..third]).unwrap();
            out
        };
        if have("curl") {
            let out = partial("curl");
            run(
                Command::new("curl")
                    .args(["-sS", "-f", "-C", "-", "-o"])
                    .arg(&out)
                    .arg(&url),
                "curl -C -",
            );
            assert!(std::fs::read(&out).unwrap() == bytes, "curl -C -");
        }
        if have("wget") {
            let out = partial("wget");
            run(
                Command::new("wget")
                    .args(["-q", "-c", "-O"])
                    .arg(&out)
                    .arg(&url),
                "wget -c",
            );
            assert!(std::fs::read(&out).unwrap() == bytes, "wget -c");
        }
        if have("busybox") {
            let out = partial("busybox");
            run(
                Command::new("busybox")
                    .args(["wget", "-q", "-c", "-O"])
                    .arg(&out)
                    .arg(&url),
                "busybox wget -c",
            );
            assert!(std::fs::read(&out).unwrap() == bytes, "busybox wget -c");
        }
        if have("python3") {
            // requests with Range from the partial file's length, and ESP-IDF's
            // partial_http_download: fixed 4 KiB ranges, each checked for its Content-Range.
            let script = r#"
import sys, requests
url, path, third = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = open(path, 'rb').read()
s = requests.Session()
r = s.get(url, headers={'Range': 'bytes=%d-' % third})
assert r.status_code == 206, r.status_code
assert r.headers['Content-Range'] == 'bytes %d-%d/%d' % (third, len(want) - 1, len(want))
assert want[:third] + r.content == want
got = b''
size = None
while size is None or len(got) < size:
    first = len(got)
    r = s.get(url, headers={'Range': 'bytes=%d-%d' % (first, first + 4095)})
    assert r.status_code == 206, r.status_code
    cr = r.headers['Content-Range']
    assert cr.startswith('bytes %d-' % first), cr
    size = int(cr.split('/')[1])
    assert len(r.content) == min(4096, size - first)
    got += r.content
assert got == want
print('ok')
"#;
            python_ok(
                script,
                &[url.as_ref(), img.as_os_str(), third.to_string().as_ref()],
                "requests and 4 KiB ranges",
            );
        }
        assert_eq!(p.stop().0, 0);
    }
}

/// `curl -C -` interrupted for real: a reset fault on half the responses cuts them halfway,
/// and curl, run again with `-C -`, continues each from what it has until the file is whole.
#[test]
fn curl_resumes_after_resets() {
    if !have("curl") {
        return;
    }
    let dir = scratch("curl-reset");
    let (img, bytes) = write_image(&dir, "fw.bin", 4 << 20, 6);
    for workers in ["1", "2"] {
        let p = Proc::start(&[
            "--workers",
            workers,
            "--body-file",
            img.to_str().unwrap(),
            "--fault",
            "/fw=reset:50%@50%",
        ]);
        let out = dir.join(format!("out-{workers}.bin"));
        let _ = std::fs::remove_file(&out);
        let mut runs = 0;
        while std::fs::metadata(&out).map_or(0, |m| m.len()) < bytes.len() as u64 {
            runs += 1;
            assert!(runs < 100, "{runs} runs");
            // Fails (18, partial file) on every cut; the next run resumes.
            let _ = Command::new("curl")
                .args(["-sS", "-C", "-", "-o"])
                .arg(&out)
                .arg(p.url("/fw"))
                .output()
                .unwrap();
        }
        assert!(std::fs::read(&out).unwrap() == bytes);
        let (code, summary) = p.stop();
        assert_eq!(code, 0);
        assert!(
            runs >= 2 && summary.contains("reset"),
            "{runs} runs: {summary}"
        );
    }
}
