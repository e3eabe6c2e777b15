//! Routes as a test setup uses them, through real clients (curl, wget, Python requests, Go),
//! with 1 and 2 workers: a route's own Content-Type and fields on HTTP/1 and HTTP/2,
//! redirects followed (into a resumable download too), and a config file.
#![cfg(all(feature = "http2", feature = "control", feature = "ranges"))]

use crate::common;

use common::{GoProgram, Proc, python_ok, start};
use std::process::Command;

/// An empty scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("canned-routes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run a client and return its stdout, failing the test with its stderr when it fails.
fn run(program: &str, args: &[&str]) -> String {
    let o = Command::new(program).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The head lines of a `curl -si` answer, lower-cased names, without the status line.
fn fields(answer: &str) -> Vec<String> {
    answer
        .split("\r\n\r\n")
        .next()
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            format!("{}:{}", n.to_ascii_lowercase(), v.trim_end())
        })
        .collect()
}

#[test]
fn a_route_carries_its_own_type_and_fields_on_http1_and_http2() {
    let dir = scratch("types");
    std::fs::write(dir.join("fw.bin"), [0u8, 1, 2, 3]).unwrap();
    std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
    let fw = format!("/fw=200:@{}", dir.join("fw.bin").display());
    let page = format!("/page=200:@{}", dir.join("index.html").display());
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--header",
            "Cache-Control: no-cache",
            "--route",
            "/api=200:{\"ok\":true}",
            "--route",
            &fw,
            "--route",
            &page,
            "--route",
            "/plain=200:text",
            "--route-header",
            "/api=Content-Type: application/json",
            "--route-header",
            "/api=Cache-Control: max-age=60",
            "--route-header",
            "/api=X-Api-Version: 2",
        ]);
        let url = |p: &str| format!("http://{addr}{p}");
        for proto in ["--http1.1", "--http2-prior-knowledge"] {
            let api = run("curl", &["-si", proto, &url("/api")]);
            let f = fields(&api);
            assert!(
                f.contains(&"content-type: application/json".into()),
                "{api}"
            );
            assert!(f.contains(&"cache-control: max-age=60".into()), "{api}");
            assert!(!f.contains(&"cache-control: no-cache".into()), "{api}");
            assert!(f.contains(&"x-api-version: 2".into()), "{api}");
            assert!(api.ends_with("{\"ok\":true}"), "{api}");
            let fw = run("curl", &["-si", proto, &url("/fw")]);
            let f = fields(&fw);
            assert!(
                f.contains(&"content-type: application/octet-stream".into()),
                "{fw}"
            );
            assert!(f.contains(&"cache-control: no-cache".into()), "{fw}");
            let page = run("curl", &["-si", proto, &url("/page")]);
            assert!(
                fields(&page).contains(&"content-type: text/html; charset=utf-8".into()),
                "{page}"
            );
            let plain = run("curl", &["-si", proto, &url("/plain")]);
            let f = fields(&plain);
            assert!(
                f.contains(&"content-type: text/plain; charset=utf-8".into()),
                "{plain}"
            );
            assert!(!f.iter().any(|l| l.starts_with("x-api-version")), "{plain}");
        }
        python_ok(
            r#"
import sys, requests
base = sys.argv[1]
r = requests.get(base + "/api")
assert r.json() == {"ok": True}, r.text
assert r.headers["Content-Type"] == "application/json", r.headers
assert r.headers["Cache-Control"] == "max-age=60", r.headers
r = requests.get(base + "/fw")
assert r.content == bytes([0, 1, 2, 3]) and r.headers["Content-Type"] == "application/octet-stream"
assert requests.head(base + "/api").headers["Content-Type"] == "application/json"
print("ok")
"#,
            &[format!("http://{addr}").as_ref()],
            workers,
        );
        h.shutdown();
        h.join();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A chain of redirects, relative and absolute (to another server), each status, and
/// go-httpbin's under `--control`, as clients follow them.
#[test]
fn redirects_are_followed_by_curl_wget_python_and_go() {
    for workers in ["1", "2"] {
        let (target, target_addr) = start(&["--workers", workers, "--route", "/there=200:arrived"]);
        let far = format!("/far=301:http://{target_addr}/there");
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--control",
            "--redirect",
            "/a=301:/b",
            "--redirect",
            "/b=302:c",
            "--redirect",
            "/c=308:/dir/d",
            "--redirect",
            "/dir/d=307:../final?x=1",
            "--route",
            "/final=200:done",
            "--redirect",
            &far,
            "--redirect",
            "POST /form=303:/thanks",
            "--route",
            "GET /thanks=200:thanks",
            "--redirect",
            "POST /keep=307:/made",
            "--route",
            "POST /made=201:made",
            "--redirect",
            "/loop=302:/loop",
        ]);
        let url = |p: &str| format!("http://{addr}{p}");
        // One hop, as sent.
        let one = run("curl", &["-si", &url("/a")]);
        assert!(
            one.starts_with("HTTP/1.1 301 Moved Permanently\r\n"),
            "{one}"
        );
        assert!(fields(&one).contains(&"location: /b".into()), "{one}");
        assert!(fields(&one).contains(&"content-length: 0".into()), "{one}");
        let h2 = run("curl", &["-si", "--http2-prior-knowledge", &url("/c")]);
        assert!(h2.starts_with("HTTP/2 308"), "{h2}");
        assert!(fields(&h2).contains(&"location: /dir/d".into()), "{h2}");
        // Followed. (curl 7.88 with --http2-prior-knowledge sends nothing on a reused
        // connection, curl/curl#10634, so HTTP/2 is followed by httpx below.)
        let out = run(
            "curl",
            &["-sL", "-w", " %{http_code} %{num_redirects}", &url("/a")],
        );
        assert_eq!(out, "done 200 4");
        assert_eq!(run("curl", &["-sL", &url("/far")]), "arrived");
        // go-httpbin's redirects under --control.
        let out = run(
            "curl",
            &[
                "-sL",
                "-w",
                "\n%{num_redirects} %{url_effective}",
                &url("/redirect/5"),
            ],
        );
        assert!(out.contains("\"path\":\"/get\""), "{out}");
        assert!(out.ends_with(&format!("\n5 {}", url("/get"))), "{out}");
        let to = url("/redirect-to?url=%2Ffinal&status_code=307");
        assert_eq!(run("curl", &["-sL", &to]), "done");
        // The same over HTTP/2 (one hop each: curl 7.88 fails a second request on a reused
        // prior-knowledge connection, nginx's too).
        for (from, to) in [
            ("/redirect/2", "/relative-redirect/1"),
            ("/relative-redirect/1", "/get"),
        ] {
            let h2 = run(
                "curl",
                &[
                    "-s",
                    "--http2-prior-knowledge",
                    "-w",
                    "%{http_version} %{http_code} %{redirect_url}",
                    &url(from),
                ],
            );
            assert_eq!(h2, format!("2 302 {}", url(to)), "{from}");
        }
        let bad = run("curl", &["-s", "-w", " %{http_code}", &url("/redirect/0")]);
        assert!(bad.ends_with("1 or more\n 400"), "{bad}");
        let wget = run("wget", &["-q", "-O", "-", &url("/absolute-redirect/3")]);
        assert!(wget.contains("\"path\":\"/get\""), "{wget}");
        assert_eq!(run("wget", &["-q", "-O", "-", &url("/a")]), "done");
        assert_eq!(run("wget", &["-q", "-O", "-", &url("/far")]), "arrived");
        python_ok(
            r#"
import sys, requests
base, target = sys.argv[1], sys.argv[2]
r = requests.get(base + "/a")
assert (r.status_code, r.text) == (200, "done"), r
assert [x.status_code for x in r.history] == [301, 302, 308, 307], r.history
assert r.url == base + "/final?x=1", r.url
r = requests.get(base + "/far")
assert (r.text, r.url) == ("arrived", target + "/there"), r.url
r = requests.post(base + "/form", data="a=1")
assert (r.status_code, r.text, r.request.method) == (200, "thanks", "GET"), r
r = requests.post(base + "/keep", data="a=1")
assert (r.status_code, r.text, r.request.method) == (201, "made", "POST"), r
try:
    requests.get(base + "/loop")
    raise SystemExit("a loop was followed for ever")
except requests.TooManyRedirects:
    pass
r = requests.get(base + "/redirect/3")
assert r.url == base + "/get" and r.json()["path"] == "/get", r.url
assert [x.headers["Location"] for x in r.history] == ["/relative-redirect/2", "/relative-redirect/1", "/get"]
r = requests.get(base + "/absolute-redirect/2")
assert [x.headers["Location"] for x in r.history] == [base + "/absolute-redirect/1", base + "/get"]
r = requests.get(base + "/redirect-to", params={"url": target + "/there", "status_code": 308})
assert (r.text, r.history[0].status_code) == ("arrived", 308), r
assert requests.get(base + "/redirect-to", params={"url": "/x", "status_code": 200}).status_code == 400
import httpx
with httpx.Client(http1=False, http2=True, follow_redirects=True) as c:
    r = c.get(base + "/a")
    assert (r.http_version, r.text, str(r.url)) == ("HTTP/2", "done", base + "/final?x=1"), r
    assert [x.status_code for x in r.history] == [301, 302, 308, 307], r.history
    r = c.post(base + "/keep", content=b"a=1")
    assert (r.status_code, r.text) == (201, "made"), r
print("ok")
"#,
            &[url("").as_ref(), format!("http://{target_addr}").as_ref()],
            workers,
        );
        if common::have("go") {
            let go = GoProgram::new(&format!("redirects-{workers}"), GO_REDIRECTS);
            let o = go.run(&[url("")]);
            assert_eq!(
                String::from_utf8_lossy(&o.stdout),
                "ok\n",
                "{workers} workers: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        h.shutdown();
        h.join();
        target.shutdown();
        target.join();
    }
}

/// Go's client follows the chain (its final URL and body), turns the 303 after a POST into a
/// GET, and keeps a POST with its body across a 307.
const GO_REDIRECTS: &str = r#"
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	base := os.Args[1]
	r, err := http.Get(base + "/a")
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(r.Body)
	if string(b) != "done" || r.Request.URL.String() != base+"/final?x=1" {
		panic(fmt.Sprintf("%q %s", b, r.Request.URL))
	}
	r, err = http.Get(base + "/redirect/3")
	if err != nil {
		panic(err)
	}
	if r.Request.URL.Path != "/get" {
		panic(r.Request.URL.String())
	}
	r, err = http.Post(base+"/form", "text/plain", strings.NewReader("a=1"))
	if err != nil {
		panic(err)
	}
	b, _ = io.ReadAll(r.Body)
	if string(b) != "thanks" || r.Request.Method != "GET" {
		panic(fmt.Sprintf("%q %s", b, r.Request.Method))
	}
	r, err = http.Post(base+"/keep", "text/plain", strings.NewReader("a=1"))
	if err != nil {
		panic(err)
	}
	b, _ = io.ReadAll(r.Body)
	if r.StatusCode != 201 || string(b) != "made" {
		panic(fmt.Sprintf("%d %q", r.StatusCode, b))
	}
	fmt.Println("ok")
}
"#;

/// `curl -L -C -` resumes a download it reaches through a redirect: the redirect answers the
/// ranged request with itself, and the file's route the range.
#[test]
fn a_redirect_into_a_download_resumes_with_curl() {
    let dir = scratch("resume");
    let firmware: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(dir.join("fw.bin"), &firmware).unwrap();
    let fw = format!("/files/fw-1.2.bin=200:@{}", dir.join("fw.bin").display());
    for workers in ["1", "2"] {
        let (h, addr) = start(&[
            "--workers",
            workers,
            "--route",
            &fw,
            "--redirect",
            "/latest=302:/files/fw-1.2.bin",
        ]);
        let out = dir.join(format!("out-{workers}"));
        std::fs::write(&out, &firmware[..120_000]).unwrap();
        let url = format!("http://{addr}/latest");
        let codes = run(
            "curl",
            &[
                "-sSL",
                "-C",
                "-",
                "-o",
                out.to_str().unwrap(),
                "-w",
                "%{http_code} %{num_redirects}",
                &url,
            ],
        );
        assert_eq!(codes, "206 1");
        assert!(
            std::fs::read(&out).unwrap() == firmware,
            "resumed bytes differ"
        );
        // The redirect itself ignores the range.
        let hop = run("curl", &["-si", "-r", "100-", &url]);
        assert!(hop.starts_with("HTTP/1.1 302 Found\r\n"), "{hop}");
        h.shutdown();
        h.join();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The binary reads `--config`: routes with bodies relative to the file's folder, a flag
/// replacing the file's option; a bad line stops it with exit 2 and `FILE:LINE`.
#[test]
fn a_config_file_configures_the_server() {
    let dir = scratch("config");
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    std::fs::write(dir.join("bodies/version.json"), "{\"version\":\"1.2\"}").unwrap();
    let conf = dir.join("canned.conf");
    std::fs::write(
        &conf,
        "# the test bench's routes\n\
         --route /v1/ping=204\n\
         --route /v1/version=200:@bodies/version.json\n\
         --redirect /latest=302:/v1/version\n\
         --route-header /v1/version=Cache-Control: max-age=5\n\
         --server bench\n\
         --workers 1\n",
    )
    .unwrap();
    let conf = conf.to_str().unwrap();
    // Started from another folder: the body is found from the file's.
    let p = Proc::start_with(&["--config", conf, "--workers", "2"], |c| {
        c.current_dir("/");
    });
    let ping = run("curl", &["-si", &p.url("/v1/ping")]);
    assert!(ping.starts_with("HTTP/1.1 204 No Content\r\n"), "{ping}");
    assert!(fields(&ping).contains(&"server: bench".into()), "{ping}");
    let v = run("curl", &["-siL", &p.url("/latest")]);
    let last = v.rsplit("HTTP/1.1 ").next().unwrap();
    assert!(last.starts_with("200 OK"), "{v}");
    let f = fields(&format!("HTTP/1.1 {last}"));
    assert!(f.contains(&"content-type: application/json".into()), "{v}");
    assert!(f.contains(&"cache-control: max-age=5".into()), "{v}");
    assert!(v.ends_with("{\"version\":\"1.2\"}"), "{v}");
    let (code, rest) = p.stop();
    assert_eq!(code, 0, "{rest}");

    std::fs::write(
        dir.join("bad.conf"),
        "--route /ok=200\n\n--route /bad=700\n",
    )
    .unwrap();
    let bad = dir.join("bad.conf");
    let o = Command::new(common::bin())
        .args(["--config", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let want = format!("{}:3: --route: status 700 is out of range", bad.display());
    assert!(err.contains(&want), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
