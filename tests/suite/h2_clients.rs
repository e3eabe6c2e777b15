//! Real HTTP/2 clients against canned, with 1 and 2 workers: curl with `--http2` (the
//! `Upgrade: h2c` of `http://`) and `--http2-prior-knowledge`, node's `http2` client (GET, a
//! POST whose body needs WINDOW_UPDATE, 20 concurrent streams on one session), Python's `h2`
//! driven by hand (SETTINGS, several streams, flow control with a 1,000-byte window) and
//! `httpx` (`http1=False, http2=True`: prior knowledge; it does not send `Upgrade`).
//! nghttp and h2load are in `tests/suite/h2.rs`.
#![cfg(feature = "http2")]

use crate::common;

use common::*;
use std::process::Command;

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "curl {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stop(h: canned::server::Handle) {
    h.shutdown();
    h.join();
}

const ROUTES: [&str; 4] = ["--route", "/a=200:hello", "--route", "/gone=404:nope"];

fn start_with_routes(
    workers: &str,
    extra: &[&str],
) -> (canned::server::Handle, std::net::SocketAddr) {
    let mut args = vec!["--workers", workers];
    args.extend(ROUTES);
    args.extend(extra);
    start(&args)
}

/// `curl --http2` on `http://`: the upgrade for GET and HEAD, HTTP/1.1 for a request with a
/// body (its Upgrade ignored).
#[test]
fn curl_http2_upgrade() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start_with_routes(workers, &[]);
        let url = format!("http://{addr}/a");
        let fmt = "%{http_code} %{http_version} %{size_download}\n";
        assert_eq!(
            curl(&["--http2", "-o", "/dev/null", "-w", fmt, &url]),
            "200 2 5\n"
        );
        let head = curl(&["--http2", "-I", &url]);
        assert!(
            head.starts_with("HTTP/1.1 101 Switching Protocols\r\n"),
            "{head}"
        );
        assert!(head.contains("HTTP/2 200"), "{head}");
        assert!(head.contains("content-length: 5"), "{head}");
        assert_eq!(
            curl(&["--http2", "-d", "abc", "-o", "/dev/null", "-w", fmt, &url]),
            "200 1.1 5\n"
        );
        stop(h);
    }
}

/// `curl --http2-prior-knowledge`: GET, a 404 route, HEAD, a POST with a body.
#[test]
fn curl_http2_prior_knowledge() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start_with_routes(workers, &[]);
        let url = |p: &str| format!("http://{addr}{p}");
        let fmt = "%{http_code} %{http_version} %{size_download}\n";
        let pk = |args: &[&str]| {
            let mut a = vec!["--http2-prior-knowledge", "-o", "/dev/null", "-w", fmt];
            a.extend(args);
            curl(&a)
        };
        assert_eq!(pk(&[&url("/a")]), "200 2 5\n");
        assert_eq!(pk(&[&url("/gone")]), "404 2 4\n");
        assert_eq!(pk(&["-I", &url("/a")]), "200 2 0\n");
        assert_eq!(pk(&["-d", "abc", &url("/a")]), "200 2 5\n");
        stop(h);
    }
}

const NODE: &str = r#"
const http2 = require('http2');
const assert = require('assert');
setTimeout(() => { console.error('timed out'); process.exit(1); }, 20000).unref();
const session = http2.connect(process.argv[1]);
session.on('error', (e) => { console.error(e); process.exit(1); });
function req(headers, body) {
  return new Promise((resolve, reject) => {
    const r = session.request(headers);
    let status, data = '';
    r.on('response', (h) => { status = h[':status']; });
    r.setEncoding('utf8');
    r.on('data', (d) => { data += d; });
    r.on('end', () => resolve([status, data]));
    r.on('error', reject);
    r.end(body);
  });
}
(async () => {
  assert.deepStrictEqual(await req({ ':path': '/a' }), [200, 'hello']);
  // More than the 65,535-byte initial window: canned gives it back as it comes.
  const big = 'x'.repeat(200000);
  assert.deepStrictEqual(await req({ ':path': '/a', ':method': 'POST' }, big), [200, 'hello']);
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    req({ ':path': i % 2 ? '/a' : '/gone' })));
  many.forEach((r, i) => assert.deepStrictEqual(r, i % 2 ? [200, 'hello'] : [404, 'nope']));
  session.close(() => console.log('ok'));
})().catch((e) => { console.error(e); process.exit(1); });
"#;

/// node's `http2` client: GET, a POST of 200,000 bytes, 20 concurrent streams on one session.
#[test]
fn node_http2_client() {
    if !have("node") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start_with_routes(workers, &[]);
        let out = Command::new("node")
            .args(["-e", NODE, &format!("http://{addr}")])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "ok\n",
            "node, {workers} workers: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        stop(h);
    }
}

const PY_H2: &str = r#"
import socket, sys
import h2.config, h2.connection, h2.events, h2.settings
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.create_connection((host, port), timeout=10)
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
c.initiate_connection()
# A small window: canned must wait for WINDOW_UPDATE, stream by stream.
c.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1000})
s.sendall(c.data_to_send())
paths = ['/big', '/a', '/big', '/gone', '/big']
ids = {}
for p in paths:
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, [(':method', 'GET'), (':path', p), (':scheme', 'http'),
                         (':authority', host)], end_stream=True)
    ids[sid] = p
s.sendall(c.data_to_send())
bodies = {sid: b'' for sid in ids}
status, ended, largest, acked = {}, set(), 0, False
while len(ended) < len(ids) or not acked:
    d = s.recv(65536)
    assert d, 'closed early'
    for e in c.receive_data(d):
        if isinstance(e, h2.events.ResponseReceived):
            status[e.stream_id] = dict(e.headers)[b':status']
        elif isinstance(e, h2.events.DataReceived):
            bodies[e.stream_id] += e.data
            largest = max(largest, len(e.data))
            c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
        elif isinstance(e, h2.events.StreamEnded):
            ended.add(e.stream_id)
        elif isinstance(e, h2.events.SettingsAcknowledged):
            acked = True
        elif isinstance(e, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
            raise AssertionError(e)
    s.sendall(c.data_to_send())
for sid, p in ids.items():
    want = {'/big': (b'200', b'y' * size), '/a': (b'200', b'hello'), '/gone': (b'404', b'nope')}[p]
    assert (status[sid], bodies[sid]) == want, (p, status[sid], len(bodies[sid]))
assert largest <= 1000, largest
c.close_connection()
s.sendall(c.data_to_send())
s.close()
print('ok')
"#;

/// Python's `h2`, by hand: SETTINGS with a 1,000-byte INITIAL_WINDOW_SIZE, five streams at
/// once, 100,000-byte bodies sent within the windows it gives back.
#[test]
fn python_h2_by_hand_with_a_small_window() {
    if !have("python3") || !python_has("h2") {
        return;
    }
    let size = 100_000;
    let file = std::env::temp_dir().join(format!("canned-h2-clients-{}", std::process::id()));
    std::fs::write(&file, vec![b'y'; size]).unwrap();
    let route = format!("/big=200:@{}", file.display());
    for workers in ["1", "2"] {
        let (h, addr) = start_with_routes(workers, &["--route", &route]);
        let args = [
            addr.ip().to_string(),
            addr.port().to_string(),
            size.to_string(),
        ];
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        python_ok(PY_H2, &args, &format!("python h2, {workers} workers"));
        stop(h);
    }
    let _ = std::fs::remove_file(&file);
}

const PY_HTTPX: &str = r#"
import sys, httpx
with httpx.Client(http1=False, http2=True, timeout=10) as c:
    r = c.get(sys.argv[1] + '/a')
    assert (r.http_version, r.status_code, r.text) == ('HTTP/2', 200, 'hello'), r
    r = c.post(sys.argv[1] + '/a', content=b'z' * 100000)
    assert (r.http_version, r.status_code, r.text) == ('HTTP/2', 200, 'hello'), r
    r = c.get(sys.argv[1] + '/gone')
    assert (r.status_code, r.text) == (404, 'nope'), r
print('ok')
"#;

/// `httpx` with HTTP/2 only (prior knowledge over `http://`; with HTTP/1 allowed too it
/// speaks HTTP/1.1 there, and negotiates h2 only over TLS).
#[test]
fn python_httpx_http2() {
    if !have("python3") || !python_has("httpx") || !python_has("h2") {
        return;
    }
    for workers in ["1", "2"] {
        let (h, addr) = start_with_routes(workers, &[]);
        let base = format!("http://{addr}");
        python_ok(
            PY_HTTPX,
            &[base.as_ref()],
            &format!("httpx, {workers} workers"),
        );
        stop(h);
    }
}

/// Whether Python can import `module`; in CI it must.
fn python_has(module: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 {module} is not installed"
        );
        eprintln!("skipping: python3 {module} is not installed");
    }
    ok
}
