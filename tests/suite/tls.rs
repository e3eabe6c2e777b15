//! HTTPS listeners (`--listen tls:ADDR`) with real clients: curl trusting only the CA canned
//! wrote, over HTTP/1.1 and over HTTP/2 negotiated by ALPN, TLS 1.2-only and 1.3-only
//! clients, Python's ssl and httpx, openssl s_client; a ClientHello trickled past the header
//! timeout; and the one-line errors of bad certificate files and options; HTTP/2 over TLS with
//! nghttp, h2load, gRPC's Python client and Go's net/http.
#![cfg(feature = "tls")]

use crate::common;
use crate::common::ReadSome;

use common::{Reap, bin, have, python_ok, spawn_listening, time_bound};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A directory of this test's own files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("canned-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A server with one `tls:` listener on a free port and these flags; its address.
struct Tls {
    _child: Reap,
    addr: SocketAddr,
}

fn start(args: &[&str]) -> Tls {
    let mut cmd = Command::new(bin());
    cmd.args(["--listen", "tls:127.0.0.1:0"]).args(args);
    let (child, _stderr, line) = spawn_listening(cmd.stdin(Stdio::null()).stdout(Stdio::null()));
    let addr = line
        .strip_prefix("canned listening on tls:")
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap();
    Tls {
        _child: child,
        addr,
    }
}

/// curl with `args`, then the URL `https://localhost:PORT{path}`.
fn curl(t: &Tls, args: &[&str], path: &str) -> Output {
    let url = format!("https://localhost:{}{path}", t.addr.port());
    Command::new("curl")
        .args(["-sS", "--max-time", "20"])
        .args(args)
        .arg(url)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// canned run with `args` fails at start: its one line of stderr.
fn start_error(args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// A bad flag: one line, exit 2 (docs/options.md), and nothing started.
fn flag_error(args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// A TLS option's bad value, or a combination the options refuse, is a bad flag (exit 2),
/// as every other option's: only what is found when the server starts (a file) is exit 1.
#[test]
fn bad_tls_values_and_combinations_exit_2() {
    let tls = ["--listen", "tls:127.0.0.1:0"];
    // `client-cert-required.` and this would be 254 bytes, one over a DNS name's most.
    let long_name = [
        "a".repeat(63),
        "b".repeat(63),
        "c".repeat(63),
        "d".repeat(41),
    ]
    .join(".");
    for (args, want) in [
        (
            &["--tls-case", "bogus"][..],
            "--tls-case \"bogus\" is not a case",
        ),
        (
            &["--tls-case", "expired@0%"],
            "the share after @ is a percentage",
        ),
        (
            &["--tls-case", "close@101%"],
            "the share after @ is a percentage",
        ),
        (
            &["--tls-name", "bad name"],
            "--tls-name \"bad name\" is not an IP address",
        ),
        (
            &["--tls-name", "*.example.test"],
            "is not an IP address or a DNS name",
        ),
        (
            &["--tls-name", "a..test"],
            "is not an IP address or a DNS name",
        ),
        (&["--tls-name", &long_name], "at most 232 bytes"),
        (&["--tls-cert", "c.pem"], "--tls-cert: needs --tls-key"),
        (&["--tls-key", "k.pem"], "--tls-key: needs --tls-cert"),
        (
            &[
                "--tls-cert",
                "c.pem",
                "--tls-key",
                "k.pem",
                "--tls-name",
                "a.test",
            ],
            "--tls-cert and --tls-name cannot be combined",
        ),
        (
            &[
                "--tls-cert",
                "c.pem",
                "--tls-key",
                "k.pem",
                "--tls-ca-out",
                "ca.pem",
            ],
            "--tls-cert and --tls-ca-out cannot be combined",
        ),
        (
            &[
                "--tls-cert",
                "c.pem",
                "--tls-key",
                "k.pem",
                "--tls-case",
                "expired",
            ],
            "--tls-case needs the generated certificates",
        ),
    ] {
        let err = flag_error(&[&tls[..], args].concat());
        assert!(err.contains(want), "{args:?}: {err}");
    }
    for flag in [
        "--tls-cert",
        "--tls-key",
        "--tls-name",
        "--tls-ca-out",
        "--tls-case",
        "--tls-client-ca",
    ] {
        let value = if flag == "--tls-case" { "expired" } else { "x" };
        let mut args = vec!["--listen", "127.0.0.1:0", flag, value];
        match flag {
            "--tls-cert" => args.extend(["--tls-key", "x"]),
            "--tls-key" => args.extend(["--tls-cert", "x"]),
            _ => {}
        }
        let err = flag_error(&args);
        assert!(err.contains("needs a TLS listener"), "{flag}: {err}");
    }
}

#[test]
fn curl_trusts_the_written_ca_over_http1_and_h2_by_alpn() {
    if !have("curl") {
        return;
    }
    for workers in ["1", "2"] {
        let d = dir(&format!("curl{workers}"));
        let ca = d.join("ca.pem");
        let ca_s = ca.to_str().unwrap();
        let big = d.join("big");
        std::fs::write(&big, vec![b'x'; 4 << 20]).unwrap();
        let route = format!("/big=200:@{}", big.display());
        let t = start(&[
            "--tls-ca-out",
            ca_s,
            "--workers",
            workers,
            "--route",
            &route,
        ]);
        let pem = std::fs::read_to_string(&ca).unwrap();
        assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");
        for (flag, version) in [("--http1.1", "1.1"), ("--http2", "2")] {
            for _ in 0..4 {
                let out = curl(&t, &["--cacert", ca_s, flag, "-w", "|%{http_version}"], "/");
                assert_eq!(
                    text(&out.stdout),
                    format!("Hello World\n|{version}"),
                    "{out:?}"
                );
            }
            // A large body through the TLS writes, and the socket's backpressure.
            let out = curl(
                &t,
                &[
                    "--cacert",
                    ca_s,
                    flag,
                    "-o",
                    "/dev/null",
                    "-w",
                    "%{size_download}",
                ],
                "/big",
            );
            assert_eq!(text(&out.stdout), "4194304", "{out:?}");
        }
        // ALPN h2 as curl -v reports it: the server chose h2.
        let out = curl(
            &t,
            &["--cacert", ca_s, "--http2", "-v", "-o", "/dev/null"],
            "/",
        );
        let err = text(&out.stderr);
        assert!(
            err.contains("ALPN: server accepted h2")
                || err.contains("ALPN, server accepted to use h2"),
            "{err}"
        );
        // Not trusted without the CA.
        let out = curl(&t, &[], "/");
        assert_eq!(out.status.code(), Some(60), "{out:?}");
        // Over the address: the certificate names 127.0.0.1 too.
        let url = format!("https://{}/", t.addr);
        let out = Command::new("curl")
            .args(["-sS", "--cacert", ca_s, &url])
            .output()
            .unwrap();
        assert_eq!(text(&out.stdout), "Hello World\n", "{out:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn no_http2_leaves_h2_out_of_alpn() {
    if !have("curl") {
        return;
    }
    let d = dir("no-h2");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--no-http2"]);
    let out = curl(
        &t,
        &["--cacert", ca_s, "--http2", "-w", "|%{http_version}"],
        "/",
    );
    assert_eq!(text(&out.stdout), "Hello World\n|1.1", "{out:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn tls12_only_and_tls13_only_clients() {
    if !have("curl") {
        return;
    }
    let d = dir("versions");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s]);
    for (args, want) in [
        (&["--tlsv1.2", "--tls-max", "1.2"][..], "TLSv1.2"),
        (&["--tlsv1.3"][..], "TLSv1.3"),
    ] {
        for flag in ["--http1.1", "--http2"] {
            let mut all = vec!["--cacert", ca_s, "-v", flag];
            all.extend_from_slice(args);
            let out = curl(&t, &all, "/");
            let err = text(&out.stderr);
            assert_eq!(text(&out.stdout), "Hello World\n", "{err}");
            assert!(
                err.contains(&format!("SSL connection using {want}")),
                "{want}: {err}"
            );
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn python_ssl_and_httpx_over_h2() {
    let d = dir("python");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--workers", "2"]);
    let port = t.addr.port().to_string();
    let script = r#"
import socket, ssl, sys
import httpx
ca, port = sys.argv[1], int(sys.argv[2])
for alpn, ver in ((["http/1.1"], ssl.TLSVersion.TLSv1_2), (["http/1.1"], ssl.TLSVersion.TLSv1_3)):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.minimum_version = ver
    ctx.maximum_version = ver
    ctx.set_alpn_protocols(alpn)
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost") as s:
        assert s.selected_alpn_protocol() == "http/1.1", s.selected_alpn_protocol()
        assert s.version() == {ssl.TLSVersion.TLSv1_2: "TLSv1.2", ssl.TLSVersion.TLSv1_3: "TLSv1.3"}[ver], s.version()
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        assert data.startswith(b"HTTP/1.1 200 OK\r\n"), data
        assert data.endswith(b"\r\n\r\nHello World\n"), data
for h2 in (False, True):
    with httpx.Client(http2=h2, verify=ca) as c:
        for _ in range(3):
            r = c.get(f"https://localhost:{port}/")
            assert r.status_code == 200 and r.text == "Hello World\n", r
            assert r.http_version == ("HTTP/2" if h2 else "HTTP/1.1"), r.http_version
print("ok")
"#;
    python_ok(
        script,
        &[ca.as_os_str(), port.as_ref()],
        "python ssl and httpx",
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn openssl_s_client_negotiates_h2_and_verifies() {
    if !have("openssl") {
        return;
    }
    let d = dir("s_client");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s]);
    let connect = t.addr.to_string();
    let mut child = Command::new("openssl")
        .args(["s_client", "-connect", &connect, "-servername", "localhost"])
        .args([
            "-verify_hostname",
            "localhost",
            "-verify_return_error",
            "-alpn",
            "h2,http/1.1",
        ])
        .args(["-CAfile", ca_s])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("ALPN protocol: h2"), "{all}");
    assert!(all.contains("Verify return code: 0 (ok)"), "{all}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A ClientHello a byte every 100 ms never completes the handshake: the connection is closed
/// at the header timeout (1 s), counted from the accept.
#[test]
fn a_trickled_client_hello_is_closed_at_the_header_timeout() {
    let t = start(&["--header-timeout", "1s"]);
    let mut s = TcpStream::connect(t.addr).unwrap();
    // A handshake record's header announcing a ClientHello of 512 bytes, then its bytes.
    let hello: Vec<u8> = [
        0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
    ]
    .into_iter()
    .chain(std::iter::repeat_n(0x11, 500))
    .collect();
    let started = Instant::now();
    let mut closed = None;
    for b in hello {
        if s.write_all(&[b]).is_err() {
            closed = Some(started.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        s.set_nonblocking(true).unwrap();
        let mut buf = [0; 64];
        let r = s.read_some(&mut buf);
        s.set_nonblocking(false).unwrap();
        if matches!(r, Ok(0) | Err(_))
            && !matches!(&r, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
        {
            closed = Some(started.elapsed());
            break;
        }
        assert!(
            started.elapsed() < time_bound(Duration::from_secs(10)),
            "never closed"
        );
    }
    let closed = closed.expect("the whole ClientHello was taken");
    assert!(closed >= Duration::from_millis(900), "{closed:?}");
    assert!(closed < time_bound(Duration::from_secs(4)), "{closed:?}");
}

fn openssl_cert(d: &Path, name: &str) -> (String, String) {
    let cert = d.join(format!("{name}.crt"));
    let key = d.join(format!("{name}.key"));
    let out = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-days",
            "2",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        cert.to_str().unwrap().to_string(),
        key.to_str().unwrap().to_string(),
    )
}

#[test]
fn a_certificate_and_key_from_pem_files() {
    if !have("openssl") || !have("curl") {
        return;
    }
    let d = dir("files");
    let (cert, key) = openssl_cert(&d, "a");
    let t = start(&["--tls-cert", &cert, "--tls-key", &key]);
    let out = curl(
        &t,
        &["--cacert", &cert, "--http2", "-w", "|%{http_version}"],
        "/",
    );
    assert_eq!(text(&out.stdout), "Hello World\n|2", "{out:?}");
    // Another certificate's key.
    let (_, other_key) = openssl_cert(&d, "b");
    let listen = ["--listen", "tls:127.0.0.1:0"];
    let err = start_error(&[&listen[..], &["--tls-cert", &cert, "--tls-key", &other_key]].concat());
    assert!(err.contains("--tls-key"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_files_and_options_are_one_line_errors() {
    let d = dir("errors");
    let junk = d.join("junk");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let junk_s = junk.to_str().unwrap();
    let listen = ["--listen", "tls:127.0.0.1:0"];
    let with = |more: &[&str]| start_error(&[&listen[..], more].concat());
    let err = with(&["--tls-cert", junk_s, "--tls-key", junk_s]);
    assert!(
        err.contains("--tls-cert") && err.contains("no PEM certificate"),
        "{err}"
    );
    let missing = d.join("missing");
    let err = with(&["--tls-cert", missing.to_str().unwrap(), "--tls-key", junk_s]);
    assert!(err.contains("--tls-cert"), "{err}");
    let err = flag_error(&[&listen[..], &["--tls-cert", junk_s]].concat());
    assert!(err.contains("--tls-cert: needs --tls-key"), "{err}");
    // --tls-ca-out never replaces a file that is not a certificate.
    let err = with(&["--tls-ca-out", junk_s]);
    assert!(
        err.contains("--tls-ca-out") && err.contains("refusing"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&junk).unwrap(),
        "not a certificate\n"
    );
    // A TLS option without a TLS listener.
    let err = flag_error(&["--listen", "127.0.0.1:0", "--tls-name", "example.test"]);
    assert!(err.contains("--tls-name needs a TLS listener"), "{err}");
    // An earlier run's CA is replaced.
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let first = start(&["--tls-ca-out", ca_s]);
    let pem = std::fs::read_to_string(&ca).unwrap();
    drop(first);
    let _second = start(&["--tls-ca-out", ca_s]);
    assert_ne!(std::fs::read_to_string(&ca).unwrap(), pem);
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--tls-name` puts a name in the generated certificate (curl reaches it by `--resolve`).
#[test]
fn tls_name_is_in_the_generated_certificate() {
    if !have("curl") {
        return;
    }
    let d = dir("names");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--tls-name", "api.example.test"]);
    let resolve = format!("api.example.test:{}:127.0.0.1", t.addr.port());
    let url = format!("https://api.example.test:{}/", t.addr.port());
    let out = Command::new("curl")
        .args(["-sS", "--cacert", ca_s, "--resolve", &resolve, &url])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "Hello World\n", "{out:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// curl for `https://{name}:PORT/`, the name resolved to the listener (the SNI is `name`).
fn curl_name(t: &Tls, name: &str, args: &[&str]) -> Output {
    let port = t.addr.port();
    Command::new("curl")
        .args(["-sS", "--max-time", "20", "-o", "-"])
        .args(["--resolve", &format!("{name}:{port}:127.0.0.1")])
        .args(args)
        .arg(format!("https://{name}:{port}/"))
        .output()
        .unwrap()
}

#[test]
fn curl_refuses_each_certificate_case_by_sni_and_accepts_the_good_name() {
    if !have("curl") {
        return;
    }
    let d = dir("cases");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--tls-name", "canned.test"]);
    // The case, curl's flags, its exit code and a word of its error (OpenSSL's verify reason).
    let expect: &[(&str, &[&str], i32, &str)] = &[
        ("expired", &[], 60, "expired"),
        ("not-yet-valid", &[], 60, "not yet valid"),
        ("wrong-host", &[], 60, "subject name"),
        ("self-signed", &[], 60, "self-signed certificate"),
        ("untrusted-root", &[], 60, "in certificate chain"),
        ("incomplete-chain", &[], 60, "unable to get local issuer"),
        ("tls12-only", &["--tlsv1.3"], 35, "alert protocol version"),
        (
            "tls13-only",
            &["--tls-max", "1.2"],
            35,
            "alert protocol version",
        ),
        ("alpn-refused", &[], 35, "no application protocol"),
        (
            "alpn-refused",
            &["--http1.1"],
            35,
            "no application protocol",
        ),
        // TLS 1.3: the client learns it at its first read, after its side of the handshake.
        (
            "client-cert-required",
            &["--http1.1"],
            56,
            "alert certificate required",
        ),
    ];
    for &(case, flags, code, word) in expect {
        for parent in ["localhost", "canned.test"] {
            let name = format!("{case}.{parent}");
            let out = curl_name(&t, &name, &[&["--cacert", ca_s][..], flags].concat());
            assert_eq!(out.status.code(), Some(code), "{name} {flags:?}: {out:?}");
            let err = text(&out.stderr);
            assert!(err.contains(word), "{name} {flags:?}: {err}");
            assert!(out.stdout.is_empty(), "{name}: {out:?}");
        }
    }
    // What a correct client accepts: the good names, a version-limited case at its version,
    // the ALPN case without ALPN.
    let good: &[(&str, &[&str])] = &[
        ("localhost", &[]),
        ("canned.test", &["--http2"]),
        ("good.localhost", &[]),
        ("tls12-only.localhost", &["--tls-max", "1.2"]),
        ("tls12-only.localhost", &[]),
        ("tls13-only.localhost", &["--tlsv1.3"]),
        ("alpn-refused.localhost", &["--no-alpn"]),
        ("EXPIRED.localhost", &["-k"]),
    ];
    for (name, flags) in good {
        if *name == "good.localhost" {
            // Not a case: the default certificate, which is not for that name.
            let out = curl_name(&t, name, &["--cacert", ca_s]);
            assert_eq!(out.status.code(), Some(60), "{out:?}");
            continue;
        }
        let out = curl_name(&t, name, &[&["--cacert", ca_s][..], flags].concat());
        assert_eq!(
            text(&out.stdout),
            "Hello World\n",
            "{name} {flags:?}: {out:?}"
        );
    }
    // -k takes any certificate: the cases serve the same responses.
    for case in ["expired", "self-signed", "incomplete-chain"] {
        let out = curl_name(&t, &format!("{case}.localhost"), &["-k", "--http2"]);
        assert_eq!(text(&out.stdout), "Hello World\n", "{case}: {out:?}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn python_ssl_refuses_each_certificate_case_for_its_reason() {
    let d = dir("cases-python");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--workers", "2"]);
    let port = t.addr.port().to_string();
    // OpenSSL's verify codes (X509_V_ERR_*): what Python reports as the reason.
    let script = r#"
import socket, ssl, sys
ca, port = sys.argv[1], int(sys.argv[2])
def hello(name, alpn=None, maximum=None):
    ctx = ssl.create_default_context(cafile=ca)
    if alpn:
        ctx.set_alpn_protocols(alpn)
    if maximum:
        ctx.maximum_version = maximum
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname=name) as s:
        version = s.version()
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        assert data.endswith(b"\r\n\r\nHello World\n"), data
        return version
codes = {"expired": 10, "not-yet-valid": 9, "wrong-host": 62, "self-signed": 18,
         "untrusted-root": 19, "incomplete-chain": 20}
for case, code in codes.items():
    try:
        hello(case + ".localhost")
        raise SystemExit(case + ": accepted")
    except ssl.SSLCertVerificationError as e:
        assert e.verify_code == code, (case, e.verify_code, e.verify_message)
for name, kw, word in (("tls13-only", {"maximum": ssl.TLSVersion.TLSv1_2}, "protocol version"),
                       ("alpn-refused", {"alpn": ["h2", "http/1.1"]}, "no application protocol")):
    try:
        hello(name + ".localhost", **kw)
        raise SystemExit(name + ": accepted")
    except ssl.SSLCertVerificationError as e:
        raise SystemExit(name + ": a certificate error " + str(e))
    except ssl.SSLError as e:
        assert word in str(e), (name, e)
try:
    hello("client-cert-required.localhost")
    raise SystemExit("client-cert-required: accepted")
except ssl.SSLError as e:
    assert "CERTIFICATE_REQUIRED" in str(e), e
assert hello("localhost") == "TLSv1.3"
assert hello("tls12-only.localhost") == "TLSv1.2"
assert hello("tls13-only.localhost") == "TLSv1.3"
assert hello("alpn-refused.localhost") == "TLSv1.3"
print("ok")
"#;
    python_ok(
        script,
        &[ca.as_os_str(), port.as_ref()],
        "python ssl and the certificate cases",
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn tls_case_serves_connections_without_sni_and_tls_list_prints_the_cases() {
    let out = Command::new(bin()).arg("--tls-list").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let list = text(&out.stdout);
    let names: Vec<&str> = list.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(
        names,
        [
            "expired",
            "not-yet-valid",
            "wrong-host",
            "self-signed",
            "untrusted-root",
            "incomplete-chain",
            "client-cert-required",
            "tls12-only",
            "tls13-only",
            "alpn-refused",
            "stall",
            "alert",
            "garbage",
            "http-400",
            "close",
            "reset",
            "close-mid-record",
            "reset-mid-record",
            "record-overflow",
            "drip"
        ],
        "{list}"
    );
    assert!(
        list.lines().all(|l| (l.contains("refuse")
            || l.contains("time out")
            || l.starts_with("drip ") && l.contains("accept"))
            && l.contains("curl")
            && l.len() < 120),
        "{list}"
    );
    let d = dir("tls-case");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--tls-case", "expired"]);
    let port = t.addr.port().to_string();
    // By address: no SNI, the listener's case.
    let script = r#"
import socket, ssl, sys
ca, port = sys.argv[1], int(sys.argv[2])
ctx = ssl.create_default_context(cafile=ca)
ctx.check_hostname = False
try:
    ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)))
    raise SystemExit("accepted")
except ssl.SSLCertVerificationError as e:
    assert e.verify_code == 10, e
# A name that is no case: the listener's case too; a case's label still chooses.
for name, code in (("localhost", 10), ("self-signed.localhost", 18)):
    try:
        ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname=name)
        raise SystemExit(name + ": accepted")
    except ssl.SSLCertVerificationError as e:
        assert e.verify_code == code, (name, e)
print("ok")
"#;
    python_ok(
        script,
        &[ca.as_os_str(), port.as_ref()],
        "--tls-case without SNI",
    );
    if have("curl") {
        let url = format!("https://127.0.0.1:{port}/");
        let out = Command::new("curl")
            .args(["-sS", "--max-time", "20", "--cacert", ca_s, &url])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(60), "{out:?}");
        assert!(text(&out.stderr).contains("expired"), "{out:?}");
    }
    drop(t);
    // The errors: a name that is no case, the cases with a certificate of one's own, no TLS
    // listener.
    let err = flag_error(&["--listen", "tls:127.0.0.1:0", "--tls-case", "nope"]);
    assert!(
        err.contains("--tls-case \"nope\" is not a case (--tls-list"),
        "{err}"
    );
    let (cert, key) = openssl_cert(&d, "localhost");
    let err = flag_error(&[
        "--listen",
        "tls:127.0.0.1:0",
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--tls-case",
        "expired",
    ]);
    assert!(
        err.contains("--tls-case needs the generated certificates"),
        "{err}"
    );
    let err = flag_error(&["--listen", "127.0.0.1:0", "--tls-case", "expired"]);
    assert!(err.contains("--tls-case needs a TLS listener"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn handshake_faults_by_sni_as_curl_and_python_see_them() {
    let d = dir("faults");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    let t = start(&["--tls-ca-out", ca_s, "--workers", "2"]);
    let port = t.addr.port().to_string();
    if have("curl") {
        // The fault, and a word of curl's error (OpenSSL's reason, or the socket's).
        for (fault, word) in [
            ("alert", "alert handshake failure"),
            ("alert-70", "alert protocol version"),
            ("ALERT-112", "unrecognized name"),
            ("garbage", "wrong version number"),
            ("http-400", "wrong version number"),
            ("close", "SSL_ERROR_SYSCALL"),
            ("reset", "Connection reset by peer"),
            ("close-mid-record", "SSL_ERROR_SYSCALL"),
            ("reset-mid-record", "Connection reset by peer"),
            ("record-overflow", "data length too long"),
        ] {
            let name = format!("{fault}.localhost");
            let out = curl_name(&t, &name, &["--cacert", ca_s]);
            assert_eq!(out.status.code(), Some(35), "{name}: {out:?}");
            let err = text(&out.stderr);
            assert!(err.contains(word), "{name}: {err}");
        }
        // The stall: curl's own timeout ends it (the header timeout is 10 s).
        let began = Instant::now();
        let out = curl_name(&t, "stall.localhost", &["--cacert", ca_s, "-m", "1"]);
        assert_eq!(out.status.code(), Some(28), "{out:?}");
        assert!(began.elapsed() >= Duration::from_millis(900));
        // The good name on the same port, after all that.
        let out = curl_name(&t, "localhost", &["--cacert", ca_s]);
        assert_eq!(text(&out.stdout), "Hello World\n", "{out:?}");
    }
    let script = r#"
import socket, ssl, sys
ca, port = sys.argv[1], int(sys.argv[2])
ctx = ssl.create_default_context(cafile=ca)
def hello(name, timeout=None):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        ctx.wrap_socket(s, server_hostname=name + ".localhost")
        raise SystemExit(name + ": accepted")
    except ssl.SSLCertVerificationError as e:
        raise SystemExit(name + ": a certificate error " + str(e))
    except (ssl.SSLError, OSError) as e:
        return e
want = {"alert": "SSLV3_ALERT_HANDSHAKE_FAILURE", "alert-70": "TLSV1_ALERT_PROTOCOL_VERSION",
        "garbage": "WRONG_VERSION_NUMBER", "http-400": "WRONG_VERSION_NUMBER",
        "record-overflow": "DATA_LENGTH_TOO_LONG"}
for name, word in want.items():
    e = hello(name)
    assert type(e) is ssl.SSLError and word in str(e), (name, e)
assert isinstance(hello("close"), ssl.SSLEOFError)
assert isinstance(hello("reset"), ConnectionResetError)
assert isinstance(hello("close-mid-record"), ssl.SSLEOFError)
assert isinstance(hello("reset-mid-record"), ConnectionResetError)
assert isinstance(hello("stall", timeout=0.5), TimeoutError)
print("ok")
"#;
    python_ok(
        script,
        &[ca.as_os_str(), port.as_ref()],
        "python ssl and the handshake faults",
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_stalled_handshake_is_closed_at_the_header_timeout_and_tls_case_names_a_fault() {
    // --tls-case stall: by address, without SNI; with certificate files too (a fault needs
    // no certificate).
    let d = dir("stall");
    let (cert, key) = openssl_cert(&d, "localhost");
    let t = start(&[
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--tls-case",
        "stall",
        "--header-timeout",
        "1s",
    ]);
    let script = r#"
import socket, ssl, sys, time
port = int(sys.argv[1])
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
began = time.monotonic()
s = socket.create_connection(("127.0.0.1", port), timeout=30)
try:
    ctx.wrap_socket(s)
    raise SystemExit("accepted")
except ssl.SSLEOFError:
    pass
took = time.monotonic() - began
assert took >= 0.9, took
print(f"ok")
"#;
    let port = t.addr.port().to_string();
    python_ok(
        script,
        &[port.as_ref()],
        "a stall closed at the header timeout",
    );
    let began = Instant::now();
    let mut s = TcpStream::connect(t.addr).unwrap();
    // A ClientHello's start and then nothing: the same timeout, from the accept.
    s.write_all(&[22, 3, 1, 0, 200, 1]).unwrap();
    let mut buf = [0; 64];
    assert_eq!(s.read_some(&mut buf).unwrap(), 0);
    let took = began.elapsed();
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(took < time_bound(Duration::from_secs(5)), "{took:?}");
    let err = flag_error(&["--listen", "tls:127.0.0.1:0", "--tls-case", "alert-300"]);
    assert!(err.contains("is not a case"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// openssl with these arguments, in `d`; it must succeed.
fn openssl(d: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(d)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "openssl {args:?}: {out:?}");
}

/// `--tls-client-ca FILE` (mutual TLS): a client certificate signed by a CA of FILE is
/// served, over HTTP/1.1 and HTTP/2; none, or one another CA signed, is refused in the
/// handshake, and the client never sees a response.
#[test]
fn tls_client_ca_requires_a_client_certificate_it_signed() {
    if !have("openssl") || !have("curl") {
        return;
    }
    let d = dir("mtls");
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    // A client CA, a client certificate it signs, and one it does not.
    let ca = [
        &["req", "-x509"][..],
        &ec,
        &["-subj", "/CN=client CA", "-days", "2"],
    ];
    openssl(
        &d,
        &[&ca.concat()[..], &["-keyout", "ca.key", "-out", "ca.pem"]].concat(),
    );
    std::fs::write(d.join("ext"), "extendedKeyUsage=clientAuth\n").unwrap();
    openssl(
        &d,
        &[
            &["req", "-new"][..],
            &ec,
            &["-subj", "/CN=device 1", "-keyout", "c.key", "-out", "c.csr"],
        ]
        .concat(),
    );
    openssl(
        &d,
        &[
            "x509", "-req", "-in", "c.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-days", "2",
            "-extfile", "ext", "-out", "c.pem",
        ],
    );
    let other = [
        &["req", "-x509"][..],
        &ec,
        &["-subj", "/CN=stranger", "-days", "2"],
    ];
    openssl(
        &d,
        &[&other.concat()[..], &["-keyout", "o.key", "-out", "o.pem"]].concat(),
    );
    let path = |f: &str| d.join(f).to_str().unwrap().to_string();
    let (server_ca, client_ca) = (path("server-ca.pem"), path("ca.pem"));
    for workers in ["1", "2"] {
        let t = start(&[
            "--workers",
            workers,
            "--tls-client-ca",
            &client_ca,
            "--tls-ca-out",
            &server_ca,
        ]);
        let (cert, key) = (path("c.pem"), path("c.key"));
        for version in ["--http1.1", "--http2"] {
            let out = curl(
                &t,
                &[
                    "--cacert",
                    &server_ca,
                    "--cert",
                    &cert,
                    "--key",
                    &key,
                    version,
                    "-w",
                    "|%{http_version}",
                ],
                "/",
            );
            let want = if version == "--http2" { "2" } else { "1.1" };
            assert_eq!(
                text(&out.stdout),
                format!("Hello World\n|{want}"),
                "{version}: {out:?}"
            );
        }
        // No certificate: TLS 1.3 clients learn it at their first read (exit 56), TLS 1.2
        // ones in the handshake (exit 35, or 98 when curl names the certificate_required
        // alert).
        for version in ["--tlsv1.3", "--tls-max"] {
            let mut args = vec!["--cacert", &server_ca[..], "--http1.1", version];
            if version == "--tls-max" {
                args.push("1.2");
            }
            let out = curl(&t, &args, "/");
            assert!(
                matches!(out.status.code(), Some(35 | 56 | 98)) && out.stdout.is_empty(),
                "{version} without a certificate: {out:?}"
            );
        }
        let (o_cert, o_key) = (path("o.pem"), path("o.key"));
        let out = curl(
            &t,
            &[
                "--cacert",
                &server_ca,
                "--cert",
                &o_cert,
                "--key",
                &o_key,
                "--http1.1",
            ],
            "/",
        );
        assert!(
            matches!(out.status.code(), Some(35 | 56 | 98)) && out.stdout.is_empty(),
            "a certificate another CA signed: {out:?}"
        );
    }
    // A file of no certificate: one line naming the flag.
    let junk = path("c.csr");
    let err = start_error(&["--listen", "tls:127.0.0.1:0", "--tls-client-ca", &junk]);
    assert!(
        err.contains("--tls-client-ca") && err.contains("no PEM certificate"),
        "{err}"
    );
    let err = flag_error(&["--listen", "127.0.0.1:0", "--tls-client-ca", &client_ca]);
    assert!(
        err.contains("--tls-client-ca needs a TLS listener"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// docs/tls.md shows docs/data/tls-clients.tsv (which `.ci/tls-clients` checks against real
/// clients) cell for cell, and the table has a row for each name `--tls-list` prints.
#[test]
fn the_client_table_in_the_docs_is_the_data_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tsv = std::fs::read_to_string(root.join("docs/data/tls-clients.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    let docs = std::fs::read_to_string(root.join("docs/tls.md")).unwrap();
    let start = docs
        .find("<!-- tls-clients table: docs/data/tls-clients.tsv -->")
        .expect("the table's start marker");
    let end = docs
        .find("<!-- end of tls-clients table -->")
        .expect("its end marker");
    let shown: Vec<Vec<String>> = docs[start..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|---"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect()
        })
        .collect();
    assert_eq!(shown.len(), rows.len(), "rows");
    for (s, r) in shown.iter().zip(&rows) {
        assert_eq!(s, r, "docs/tls.md differs from docs/data/tls-clients.tsv");
    }
    let list = Command::new(bin()).arg("--tls-list").output().unwrap();
    let names: Vec<String> = text(&list.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let in_table: Vec<String> = rows[1..].iter().map(|r| r[0].to_string()).collect();
    assert_eq!(in_table, names, "a row for each name of --tls-list");
    // The correct reaction --tls-list names is what every client does with a bad certificate.
    for r in &rows[1..7] {
        assert!(
            r[1..].iter().all(|c| c.starts_with("refuse: ")),
            "a client accepts {}: {r:?}",
            r[0]
        );
    }
}

/// The protocol ALPN chose is the connection's (RFC 9113 §3.2-3.4): after `h2`, an HTTP/1
/// request is no preface and the connection closes without an HTTP/1 answer; after
/// `http/1.1`, the preface is an HTTP/1 request like any other (505, not HTTP/2); without
/// ALPN the preface is recognised as over TCP. The preface split byte by byte after `h2`
/// works.
#[test]
fn alpn_decides_the_protocol() {
    let d = dir("alpn");
    let ca = d.join("ca.pem");
    let t = start(&["--tls-ca-out", ca.to_str().unwrap()]);
    let port = t.addr.port().to_string();
    let script = r#"
import socket, ssl, sys, time
ca, port = sys.argv[1], int(sys.argv[2])
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
def conn(alpn):
    ctx = ssl.create_default_context(cafile=ca)
    if alpn:
        ctx.set_alpn_protocols(alpn)
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    s.settimeout(10)
    return s
def until_eof(s):
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                return data
            data += b
    except (ConnectionResetError, ssl.SSLError, ssl.SSLEOFError):
        return data
# h2 chosen, then an HTTP/1 request: closed, no answer.
s = conn(["h2"])
assert s.selected_alpn_protocol() == "h2"
s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
data = until_eof(s)
assert data == b"", data
# h2 chosen, the preface a byte at a time, then SETTINGS: canned's SETTINGS first.
s = conn(["h2"])
for b in PREFACE:
    s.sendall(bytes([b]))
    time.sleep(0.01)
s.sendall(b"\0\0\0\x04\0\0\0\0\0")
head = s.recv(9)
assert len(head) == 9 and head[3] == 4, head
s.close()
# http/1.1 chosen, then the preface: HTTP/1 answers 505 (version HTTP/2.0).
s = conn(["http/1.1"])
assert s.selected_alpn_protocol() == "http/1.1"
s.sendall(PREFACE)
data = until_eof(s)
assert data.startswith(b"HTTP/1.1 505 "), data
# No ALPN: the preface is HTTP/2, a request HTTP/1.
s = conn(None)
assert s.selected_alpn_protocol() is None
s.sendall(PREFACE + b"\0\0\0\x04\0\0\0\0\0")
head = s.recv(9)
assert len(head) == 9 and head[3] == 4, head
s.close()
s = conn(None)
s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
assert until_eof(s).endswith(b"Hello World\n")
print("ok")
"#;
    python_ok(
        script,
        &[ca.as_os_str(), port.as_ref()],
        "ALPN decides the protocol",
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--tls-case NAME@SHARE`: that share of the connections whose SNI names nothing gets the
/// case or fault, the others the listener's own certificate; the draws follow `--seed`, so
/// the same seed gives the same connections the fault; a share that is no percentage is one
/// line naming the flag.
#[test]
fn tls_case_with_a_share() {
    let d = dir("share");
    let ca = d.join("ca.pem");
    let script = r#"
import socket, ssl, sys
ca, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ctx = ssl.create_default_context(cafile=ca)
out = ""
for _ in range(n):
    try:
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="localhost") as s:
            out += "h"
    except (ssl.SSLError, ConnectionError, OSError):
        out += "x"
print(out)
"#;
    let pattern = |args: &[&str], n: &str| -> String {
        let t = start(
            &[
                &["--tls-ca-out", ca.to_str().unwrap(), "--workers", "1"][..],
                args,
            ]
            .concat(),
        );
        let port = t.addr.port().to_string();
        let o = Command::new("python3")
            .args(["-c", script, ca.to_str().unwrap(), &port, n])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        text(&o.stdout).trim().to_string()
    };
    let a = pattern(&["--tls-case", "close@50%", "--seed", "7"], "200");
    let faulted = a.matches('x').count();
    assert!(
        (60..=140).contains(&faulted),
        "{faulted} of 200 closed: {a}"
    );
    // The same seed, the same connections.
    assert_eq!(
        pattern(&["--tls-case", "close@50%", "--seed", "7"], "200"),
        a
    );
    assert_ne!(
        pattern(&["--tls-case", "close@50%", "--seed", "8"], "200"),
        a
    );
    // A certificate case by share: the others are served the good certificate.
    let e = pattern(&["--tls-case", "expired@25%"], "200");
    let refused = e.matches('x').count();
    assert!(
        (20..=80).contains(&refused),
        "{refused} of 200 refused: {e}"
    );
    assert_eq!(
        pattern(&["--tls-case", "expired@100%"], "20"),
        "x".repeat(20)
    );
    for bad in [
        "close@0%",
        "close@101%",
        "close@10",
        "close@x%",
        "close@1.23456%",
    ] {
        let err = flag_error(&["--listen", "tls:127.0.0.1:0", "--tls-case", bad]);
        assert!(
            err.contains("--tls-case") && err.contains("percentage"),
            "{bad}: {err}"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_closing_answer_ends_with_close_notify() {
    // OpenSSL 3 reports a close without `close_notify` as an error (`unexpected eof while
    // reading`: ab counts every such answer failed), and Python's ssl with
    // `suppress_ragged_eofs=False` raises SSLEOFError; RFC 8446 §6.1 asks for it.
    // And the close of an idle keep-alive connection at `--idle-timeout`.
    let t = start(&["--workers", "1", "--idle-timeout", "1s"]);
    let port = t.addr.port().to_string();
    let script = r#"
import socket, ssl, sys
port = int(sys.argv[1])
for ver in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
    for req in (b"GET / HTTP/1.0\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.minimum_version = ver
        ctx.maximum_version = ver
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                            server_hostname="localhost", suppress_ragged_eofs=False)
        s.settimeout(20)
        s.sendall(req)
        data = b""
        while True:
            b = s.recv(65536)  # SSLEOFError: a close without close_notify
            if not b:
                break
            data += b
        assert data.count(b"Hello World\n") == req.count(b"GET"), (ver, req, data)
        s.close()
print("ok")
"#;
    python_ok(script, &[port.as_ref()], "close_notify before the close");
}

/// The bound docs/tls.md states for an idle TLS connection's memory, KiB.
fn documented_idle_tls_bound_kib() -> u64 {
    let page = include_str!("../../docs/tls.md");
    let (_, rest) = page
        .split_once("an idle TLS connection holds at most ")
        .expect("docs/tls.md: the idle TLS connection bound");
    let (n, _) = rest
        .split_once(" KiB")
        .expect("docs/tls.md: the bound in KiB");
    n.parse().expect("docs/tls.md: a whole number of KiB")
}

#[test]
fn memory_per_idle_tls_connection() {
    // Connections after their handshake and one HTTP/1.1 request each, held open (the
    // client of benches/tls.sh): what the server holds for each is rustls's connection
    // state and the buffers it keeps, and the slot.
    let n = 500;
    let d = dir("idle");
    let ready = d.join("ready");
    let mut cmd = Command::new(bin());
    cmd.args(["--listen", "tls:127.0.0.1:0", "--workers", "1"]);
    let (child, _stderr, line) = spawn_listening(cmd.stdin(Stdio::null()).stdout(Stdio::null()));
    let port = line
        .strip_prefix("canned listening on tls:")
        .and_then(|r| r.split(' ').next())
        .and_then(|a| a.parse::<SocketAddr>().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .port();
    let rss = || common::proc_field(child.id(), "VmRSS:");
    // One connection first: whatever the first handshake allocates once is not counted.
    let warm = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/tls_idle.py"))
        .args([port.to_string(), "1".into()])
        .arg(&ready)
        .spawn()
        .unwrap();
    let mut warm = Reap(warm);
    let until_ready = |client: &mut Reap| {
        let deadline = Instant::now() + time_bound(Duration::from_secs(30));
        while !ready.exists() {
            assert!(client.try_wait().unwrap().is_none(), "the client failed");
            assert!(Instant::now() < deadline, "the connections did not open");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::remove_file(&ready).unwrap();
    };
    until_ready(&mut warm);
    drop(warm);
    std::thread::sleep(Duration::from_millis(200));
    let before = rss();
    let mut clients = Reap(
        Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/tls_idle.py"))
            .args([port.to_string(), n.to_string()])
            .arg(&ready)
            .spawn()
            .unwrap(),
    );
    until_ready(&mut clients);
    std::thread::sleep(Duration::from_millis(300));
    let after = rss();
    let each = after.saturating_sub(before) as f64 / n as f64;
    let bound = documented_idle_tls_bound_kib();
    eprintln!(
        "idle TLS connections: {n}; RSS {before} KiB before, {after} KiB with them: \
         {each:.1} KiB a connection (bound {bound} KiB)"
    );
    assert!(
        each <= bound as f64,
        "RSS grew by {each:.1} KiB a connection, over {bound}"
    );
    drop(clients);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_drain_closes_idle_tls_connections_with_close_notify() {
    // SIGTERM: an idle keep-alive connection (HTTP/1.1 and HTTP/2) is closed at once, after
    // HTTP/2's GOAWAY, with close_notify before the FIN.
    let mut cmd = Command::new(bin());
    cmd.args(["--listen", "tls:127.0.0.1:0", "--workers", "1"]);
    let (child, _stderr, line) = spawn_listening(cmd.stdin(Stdio::null()).stdout(Stdio::null()));
    let port = line
        .strip_prefix("canned listening on tls:")
        .and_then(|r| r.split(' ').next())
        .and_then(|a| a.parse::<SocketAddr>().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .port();
    let script = r#"
import socket, ssl, sys
port = int(sys.argv[1])
conns = []
for alpn, first in ((["http/1.1"], b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),
                    (["h2"], b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(alpn)
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                        server_hostname="localhost", suppress_ragged_eofs=False)
    s.settimeout(20)
    s.sendall(first)
    got = s.recv(65536)
    assert got, alpn
    if alpn == ["http/1.1"]:
        while not got.endswith(b"Hello World\n"):
            got += s.recv(65536)
    conns.append(s)
print("ready", flush=True)
for s in conns:
    while s.recv(65536):  # SSLEOFError: a close without close_notify
        pass
print("ok")
"#;
    let mut py = Reap(
        Command::new("python3")
            .args(["-c", script, &port.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = std::io::BufReader::new(py.stdout.take().unwrap());
    let mut ready = String::new();
    std::io::BufRead::read_line(&mut out, &mut ready).unwrap();
    assert_eq!(ready, "ready\n");
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(py.wait().unwrap().success(), "{rest}");
    assert_eq!(rest, "ok\n");
}

/// A server with one `tls:` listener, `workers` workers, gRPC health, the CA written to `d`.
fn start_h2(d: &Path, workers: &str) -> (Tls, PathBuf) {
    let ca = d.join("ca.pem");
    let t = start(&[
        "--tls-ca-out",
        ca.to_str().unwrap(),
        "--workers",
        workers,
        "--grpc-health",
    ]);
    (t, ca)
}

#[test]
fn nghttp_over_tls_negotiates_h2_and_verifies_with_the_ca() {
    // nghttp has no option for a CA file; OpenSSL's SSL_CERT_FILE names the roots it trusts.
    // Without it, nghttp warns that verification failed (and goes on): with it, no warning.
    if !have("nghttp") {
        return;
    }
    for workers in ["1", "2"] {
        let d = dir(&format!("nghttp{workers}"));
        let (t, ca) = start_h2(&d, workers);
        let url = format!("https://localhost:{}/", t.addr.port());
        let out = Command::new("nghttp")
            .args(["-v", "-t", "20", &url])
            .env("SSL_CERT_FILE", &ca)
            .output()
            .unwrap();
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{all}");
        assert!(all.contains("The negotiated protocol: h2"), "{all}");
        assert!(!all.contains("verification failed"), "{all}");
        assert!(all.contains(":status: 200"), "{all}");
        assert!(all.contains("Hello World"), "{all}");
        // Without the CA: the same answer, and nghttp's warning that proves it verifies.
        let out = Command::new("nghttp")
            .args(["-t", "20", &url])
            .env("SSL_CERT_FILE", "/dev/null")
            .output()
            .unwrap();
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(all.contains("Certificate verification failed"), "{all}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn h2load_over_tls_negotiates_h2_and_every_request_succeeds() {
    if !have("h2load") {
        return;
    }
    for workers in ["1", "2"] {
        let d = dir(&format!("h2load{workers}"));
        let (t, _ca) = start_h2(&d, workers);
        let url = format!("https://127.0.0.1:{}/", t.addr.port());
        let out = Command::new("h2load")
            .args(["-n", "1000", "-c", "10", "-m", "10", "-T", "20", &url])
            .output()
            .unwrap();
        let all = text(&out.stdout);
        assert!(out.status.success(), "{all}{}", text(&out.stderr));
        assert!(all.contains("Application protocol: h2"), "{all}");
        assert!(
            all.contains("requests: 1000 total, 1000 started, 1000 done, 1000 succeeded, 0 failed"),
            "{all}"
        );
        assert!(all.contains("status codes: 1000 2xx"), "{all}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

/// Whether Python has gRPC and its health service; in CI they must be there.
fn have_grpcio() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import grpc, grpc_health.v1.health_pb2_grpc"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 grpcio-health-checking is not installed"
        );
        eprintln!("skipping: python3 grpcio-health-checking is not installed");
    }
    ok
}

#[test]
fn grpcio_health_check_over_tls_trusting_the_written_ca() {
    // gRPC's own client over `grpc.secure_channel`: TLS with ALPN h2, the roots only the CA
    // canned wrote; Check SERVING on one channel, then a channel without the CA refused.
    if !have_grpcio() {
        return;
    }
    let script = r#"
import sys, grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
target, ca = sys.argv[1], open(sys.argv[2], "rb").read()
SERVING = health_pb2.HealthCheckResponse.SERVING
ch = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=ca))
stub = health_pb2_grpc.HealthStub(ch)
for svc in ["", "canned.Example"] * 10:
    r = stub.Check(health_pb2.HealthCheckRequest(service=svc), timeout=10)
    assert r.status == SERVING, r
ch.close()
other = open(sys.argv[3], "rb").read()
ch = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=other))
try:
    health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=10)
    raise AssertionError("a server another CA signed was trusted")
except grpc.RpcError as e:
    assert e.code() == grpc.StatusCode.UNAVAILABLE, e
print("ok")
"#;
    // Another CA: one a second server wrote.
    let d = dir("grpc-other");
    let other = d.join("other.pem");
    let o = start(&["--tls-ca-out", other.to_str().unwrap()]);
    drop(o);
    for workers in ["1", "2"] {
        let d = dir(&format!("grpc{workers}"));
        let (t, ca) = start_h2(&d, workers);
        for host in ["localhost", "127.0.0.1"] {
            let target = format!("{host}:{}", t.addr.port());
            python_ok(
                script,
                &[target.as_ref(), ca.as_os_str(), other.as_os_str()],
                &format!("grpcio over TLS to {host}, {workers} workers"),
            );
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Go's net/http over TLS: the CA file as the only root, HTTP/2 by ALPN (`ProtoMajor` 2),
/// 20 requests on one client; then the same without the CA, refused. Prints `ok`.
const GO_H2: &str = r#"
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func client(roots *x509.CertPool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots},
		ForceAttemptHTTP2: true,
	}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func main() {
	pem, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		panic("no certificate in the CA file")
	}
	c := client(roots)
	for i := 0; i < 20; i++ {
		r, err := c.Get(os.Args[1])
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.ProtoMajor != 2 || r.StatusCode != 200 || string(b) != "Hello World\n" {
			panic(fmt.Sprintf("%s %d %q", r.Proto, r.StatusCode, b))
		}
		if r.TLS == nil || r.TLS.NegotiatedProtocol != "h2" {
			panic("not h2 by ALPN")
		}
	}
	_, err = client(x509.NewCertPool()).Get(os.Args[1])
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		panic(fmt.Sprintf("untrusted server accepted: %v", err))
	}
	fmt.Println("ok")
}
"#;

#[test]
fn go_net_http_over_tls_speaks_h2_by_alpn() {
    if !have("go") {
        return;
    }
    let go = common::GoProgram::new("tls-h2", GO_H2);
    for workers in ["1", "2"] {
        let d = dir(&format!("go{workers}"));
        let (t, ca) = start_h2(&d, workers);
        let url = format!("https://localhost:{}/", t.addr.port());
        let out = go.run(&[url.as_ref(), ca.as_os_str()]);
        assert_eq!(text(&out.stdout), "ok\n", "{}", text(&out.stderr));
        std::fs::remove_dir_all(&d).unwrap();
    }
}

/// A bound docs/tls.md states, KiB: the number after `before` and before ` KiB` (the page's
/// line breaks read as spaces).
fn documented_kib(before: &str) -> u64 {
    let page = include_str!("../../docs/tls.md").replace('\n', " ");
    let (_, rest) = page
        .split_once(before)
        .unwrap_or_else(|| panic!("docs/tls.md: {before:?}"));
    let (n, _) = rest
        .split_once(" KiB")
        .expect("docs/tls.md: the bound in KiB");
    n.parse().expect("docs/tls.md: a whole number of KiB")
}

/// A whole ClientHello as Python's ssl writes it for `localhost` (TLS 1.2 and 1.3, ALPN h2).
fn a_client_hello() -> Vec<u8> {
    let script = r#"
import ssl, sys
ctx = ssl.create_default_context()
ctx.set_alpn_protocols(["h2", "http/1.1"])
tls = ctx.wrap_bio(ssl.MemoryBIO(), out := ssl.MemoryBIO(), server_hostname="localhost")
try:
    tls.do_handshake()
except ssl.SSLWantReadError:
    pass
sys.stdout.buffer.write(out.read())
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout[0], 0x16, "a handshake record");
    out.stdout
}

#[test]
fn a_handshake_flood_costs_bounded_memory_and_is_closed_at_the_header_timeout() {
    // Connections that never finish their handshake: half send part of a ClientHello (canned
    // holds the bytes until the rest), half a whole one and never read the server's flight
    // nor answer it (canned holds rustls's connection state). Their memory is bounded per
    // connection, a client that does finish is served meanwhile, and each is closed at the
    // header timeout.
    let n = 300;
    let hello = a_client_hello();
    let mut cmd = Command::new(bin());
    cmd.args([
        "--listen",
        "tls:127.0.0.1:0",
        "--workers",
        "1",
        "--header-timeout",
        "4s",
    ]);
    let (child, _stderr, line) = spawn_listening(cmd.stdin(Stdio::null()).stdout(Stdio::null()));
    let addr: SocketAddr = line
        .strip_prefix("canned listening on tls:")
        .and_then(|r| r.split(' ').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let pid = child.id();
    let rss = || common::proc_field(pid, "VmRSS:");
    let fds = || {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .count()
    };
    let served = || {
        let out = Command::new("curl")
            .args(["-sSk", "--max-time", "20", "--http2"])
            .arg(format!("https://localhost:{}/", addr.port()))
            .output()
            .unwrap();
        assert_eq!(text(&out.stdout), "Hello World\n", "{out:?}");
    };
    let curl_here = have("curl");
    // A first handshake's one-time allocations are not counted.
    if curl_here {
        served();
    }
    {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&hello).unwrap();
        let mut b = [0; 1];
        s.read_exact(&mut b).unwrap();
    }
    std::thread::sleep(Duration::from_millis(200));
    let base_fds = fds();
    let mut bounds = Vec::new();
    let mut held = Vec::new();
    for whole in [false, true] {
        let before = rss();
        let started = Instant::now();
        let conns: Vec<TcpStream> = (0..n)
            .map(|_| {
                let mut s = TcpStream::connect(addr).unwrap();
                match whole {
                    // The ClientHello less its last byte.
                    false => s.write_all(&hello[..hello.len() - 1]).unwrap(),
                    true => s.write_all(&hello).unwrap(),
                }
                s
            })
            .collect();
        let mut conns = conns;
        if whole {
            // The server's flight has begun on each: its handshake state is made.
            for s in &mut conns {
                let mut b = [0; 1];
                s.read_exact(&mut b).unwrap();
                assert_eq!(b[0], 0x16, "a handshake record");
            }
        }
        let deadline = Instant::now() + time_bound(Duration::from_secs(10));
        while fds() < base_fds + held.len() + n {
            assert!(Instant::now() < deadline, "not all accepted: {}", fds());
            std::thread::sleep(Duration::from_millis(20));
        }
        // A client that finishes its handshake is served beside them (and the loop has read
        // every one of them by then: one worker, level-triggered).
        if curl_here {
            served();
        }
        std::thread::sleep(Duration::from_millis(200));
        let after = rss();
        let each = after.saturating_sub(before) as f64 / n as f64;
        let what = if whole { "whole" } else { "partial" };
        eprintln!(
            "{n} connections held after a {what} ClientHello: RSS {before} KiB before, \
             {after} KiB with them: {each:.1} KiB a connection"
        );
        bounds.push(each);
        held.push((started, conns));
    }
    let partial = documented_kib("a connection before a whole ClientHello holds at most ");
    let whole = documented_kib("a connection held in its handshake holds at most ");
    for (each, bound) in bounds.iter().zip([partial, whole]) {
        assert!(
            *each <= bound as f64,
            "RSS grew by {each:.1} KiB a connection, over {bound}"
        );
    }
    // Nothing spins while they wait: over half a second, the server's CPU time is a small
    // part of it (a loop woken by each of them would take all of it).
    let cpu = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let f: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        // utime and stime: the 14th and 15th fields, from the state (the 3rd) on.
        f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
    };
    let t0 = cpu();
    std::thread::sleep(Duration::from_millis(500));
    let spent = cpu() - t0;
    assert!(
        spent <= 10,
        "{spent} ticks of CPU in 500 ms with the connections held"
    );
    // Each closed at the header timeout, counted from its accept: by then the server has
    // sent a partial one nothing, and a whole one its flight and no more.
    for (started, conns) in held {
        for mut s in conns {
            s.set_read_timeout(Some(time_bound(Duration::from_secs(20))))
                .unwrap();
            let mut sink = Vec::new();
            let r = s.read_to_end(&mut sink);
            assert!(
                r.is_ok()
                    || matches!(&r, Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset),
                "{r:?}"
            );
        }
        let at = started.elapsed();
        assert!(at >= Duration::from_millis(3900), "closed early: {at:?}");
        assert!(
            at < time_bound(Duration::from_secs(12)),
            "closed late: {at:?}"
        );
    }
    let deadline = Instant::now() + time_bound(Duration::from_secs(10));
    while fds() > base_fds {
        assert!(Instant::now() < deadline, "connections left: {}", fds());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Python's ssl over a socket it reads itself: the handshake with `localhost`, trusting the
/// CA file, each read of the server's flight timed; then a request. Checks that the flight
/// took at least a pause between pieces of SIZE bytes (argv 4, 5: SIZE and the pause in ms)
/// and prints `ok`.
const DRIPPED_HANDSHAKE: &str = r#"
import math, socket, ssl, sys, time
port, ca, tls12, size, pause = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5]) / 1000
ctx = ssl.create_default_context(cafile=ca)
if tls12:
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
inb, outb = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(inb, outb, server_hostname="localhost")
s = socket.create_connection(("127.0.0.1", port), timeout=30)
got, first, last = 0, None, None
while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        pass
    s.sendall(outb.read())
    b = s.recv(65536)
    assert b, "closed in the handshake after %d bytes" % got
    now = time.monotonic()
    first = first or now
    last = now
    got += len(b)
    inb.write(b)
assert got >= 500, got
# The first piece at once, then one every pause: the last no sooner than this after the
# first (the server waits the pause from its loop's clock, read once a turn: under emulation
# a turn's own work comes off a pause, 3% seen under qemu; a slow reader only makes it longer).
least = (math.ceil(got / size) - 1) * pause
assert last - first >= least * 0.9, (got, last - first, least)
tls.write(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
s.sendall(outb.read())
body = b""
while b"Hello World" not in body:
    b = s.recv(65536)
    assert b, body
    inb.write(b)
    try:
        body += tls.read(65536)
    except ssl.SSLWantReadError:
        pass
assert body.startswith(b"HTTP/1.1 200"), body
print("ok")
"#;

#[test]
fn drip_paces_the_servers_flight_and_the_handshake_completes() {
    let d = dir("drip");
    let ca = d.join("ca.pem");
    let ca_s = ca.to_str().unwrap();
    for workers in ["1", "2"] {
        // A listener's every connection (`--tls-case`), and a label (SNI `drip-...`).
        let t = start(&[
            "--tls-ca-out",
            ca_s,
            "--workers",
            workers,
            "--tls-case",
            "drip-64-30ms",
        ]);
        let port = t.addr.port().to_string();
        for tls12 in ["0", "1"] {
            python_ok(
                DRIPPED_HANDSHAKE,
                &[
                    port.as_ref(),
                    ca.as_os_str(),
                    tls12.as_ref(),
                    "64".as_ref(),
                    "30".as_ref(),
                ],
                &format!("a dripped flight, TLS 1.2 only {tls12}, {workers} workers"),
            );
        }
        if have("curl") {
            // curl trusting the CA: the whole answer, over HTTP/2 and HTTP/1.1, after a
            // handshake of at least 10 pauses (a flight of over 640 bytes).
            for flag in ["--http2", "--http1.1"] {
                let out = curl(
                    &t,
                    &["--cacert", ca_s, flag, "-w", "|%{time_appconnect}"],
                    "/",
                );
                let out = text(&out.stdout);
                let (body, took) = out.split_once('|').unwrap();
                assert_eq!(body, "Hello World\n");
                let took: f64 = took.parse().unwrap();
                assert!(took >= 0.3, "{took}");
            }
            // By SNI label, on a listener of its own, curl checking the certificate: it
            // names `drip.localhost`, and a `drip-SIZE-D` label once --tls-name adds it.
            let ca2 = d.join(format!("ca-label-{workers}.pem"));
            let ca2_s = ca2.to_str().unwrap();
            let t = start(&[
                "--workers",
                workers,
                "--tls-ca-out",
                ca2_s,
                "--tls-name",
                "drip-100-40ms.localhost",
            ]);
            for name in ["drip.localhost", "drip-100-40ms.localhost"] {
                let out = curl_name(&t, name, &["--cacert", ca2_s, "-w", "|%{time_appconnect}"]);
                let out = text(&out.stdout);
                let (body, took) = out.split_once('|').unwrap_or(("", "0"));
                assert_eq!(body, "Hello World\n", "{name}");
                assert!(took.parse::<f64>().unwrap() >= 0.2, "{name}: {took}");
            }
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_drip_longer_than_the_header_timeout_is_closed_then() {
    // 16 bytes every 200 ms: a flight of over 1 KiB would take over 12 s; the handshake
    // must be done within --header-timeout.
    let hello = a_client_hello();
    let t = start(&["--header-timeout", "1s", "--tls-case", "drip-16-200ms"]);
    let mut s = TcpStream::connect(t.addr).unwrap();
    s.set_read_timeout(Some(time_bound(Duration::from_secs(20))))
        .unwrap();
    let started = Instant::now();
    s.write_all(&hello).unwrap();
    let mut got = Vec::new();
    let r = s.read_to_end(&mut got);
    let at = started.elapsed();
    assert!(
        r.is_ok() || matches!(&r, Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset),
        "{r:?}"
    );
    assert!(at >= Duration::from_millis(900), "{at:?}");
    assert!(at < time_bound(Duration::from_secs(5)), "{at:?}");
    // Five or six pieces of 16 bytes (and no more than the pieces due by then).
    assert!((16..=7 * 16).contains(&got.len()), "{}", got.len());
}
