//! A route's own Content-Type and fields (`--route-header`, a file's extension), redirects
//! (`--redirect`) and config files (`--config`): what each gives, and each bad value's one-line
//! error.

#[cfg(all(feature = "access-log", feature = "ranges", feature = "control"))]
use super::{ErrorCase, assert_errors};
use super::{run, run_env, scratch};
use crate::config::model::{Config, Route};

fn route<'c>(c: &'c Config, path: &str) -> &'c Route {
    c.routes[1..].iter().find(|r| r.path == path).unwrap()
}

#[test]
fn a_file_body_takes_its_type_from_its_extension() {
    let dir = scratch("types");
    for (name, want) in [
        ("a.json", "application/json"),
        ("fw.BIN", "application/octet-stream"),
        ("page.html", "text/html; charset=utf-8"),
        ("img.png", "image/png"),
        ("x.cbor", "application/cbor"),
        ("archive.tar.gz", "application/gzip"),
        // Unknown, none, or a hidden file's name: the default.
        ("notes.md", "text/plain; charset=utf-8"),
        ("README", "text/plain; charset=utf-8"),
        (".json", "text/plain; charset=utf-8"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, "x").unwrap();
        let r = format!("/f=200:@{}", p.display());
        let c = run(&["--route", &r]).unwrap();
        assert_eq!(route(&c, "/f").spec.content_type, want, "{name}");
    }
    // The extension names the type better than the global default; a route's own, better still.
    let p = dir.join("a.json");
    let r = format!("/f=200:@{}", p.display());
    let c = run(&[
        "--content-type",
        "text/x",
        "--route",
        &r,
        "--route",
        "/t=200:x",
    ])
    .unwrap();
    assert_eq!(route(&c, "/f").spec.content_type, "application/json");
    assert_eq!(route(&c, "/t").spec.content_type, "text/x");
    let c = run(&[
        "--route",
        &r,
        "--route-header",
        "/f=Content-Type: text/json",
    ])
    .unwrap();
    assert_eq!(route(&c, "/f").spec.content_type, "text/json");
    // A body written inline that looks like a file name is not one.
    let c = run(&["--route", "/t=200:a.json"]).unwrap();
    assert_eq!(
        route(&c, "/t").spec.content_type,
        "text/plain; charset=utf-8"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn route_headers_add_to_the_defaults_and_replace_those_of_their_name() {
    let c = run(&[
        "--header",
        "Cache-Control: no-cache",
        "--header",
        "X-Everywhere: 1",
        "--route",
        "/api=200:{\"ok\":true}",
        "--route",
        "POST /api=201",
        "--route",
        "/other=200:x",
        // Given before the routes: options take effect in table order.
        "--route-header",
        "/api=Content-Type: application/json",
        "--route-header",
        "/api=cache-control: max-age=60",
        "--route-header",
        "/api=Set-Cookie: a=1",
        "--route-header",
        "/api=Set-Cookie: b=2",
        "--route-header",
        "POST /api=Location: /api/7",
        "--route-header",
        "POST /api=Content-Type:",
    ])
    .unwrap();
    let get = c.routes[1..]
        .iter()
        .find(|r| r.path == "/api" && r.method.is_none())
        .unwrap();
    assert_eq!(get.spec.content_type, "application/json");
    assert_eq!(
        get.spec.headers,
        [
            "X-Everywhere: 1",
            "cache-control: max-age=60",
            "Set-Cookie: a=1",
            "Set-Cookie: b=2"
        ]
    );
    let post = c.routes[1..]
        .iter()
        .find(|r| r.method.as_deref() == Some("POST"))
        .unwrap();
    assert_eq!(post.spec.content_type, "");
    assert_eq!(
        post.spec.headers,
        [
            "Cache-Control: no-cache",
            "X-Everywhere: 1",
            "Location: /api/7"
        ]
    );
    let other = route(&c, "/other");
    assert_eq!(other.spec.content_type, "text/plain; charset=utf-8");
    assert_eq!(
        other.spec.headers,
        ["Cache-Control: no-cache", "X-Everywhere: 1"]
    );
    // The default response keeps its own.
    assert_eq!(c.routes[0].spec.headers.len(), 2);
}

#[test]
fn redirects_answer_their_status_and_location() {
    let c = run(&[
        "--header",
        "X-A: 1",
        "--header",
        "Location: /global",
        "--redirect",
        "/old=302:/new",
        "--redirect",
        "PUT /up=307:http://127.0.0.1:9/x?y=1",
        "--route-header",
        "/old=Cache-Control: no-store",
    ])
    .unwrap();
    let old = route(&c, "/old");
    assert_eq!(old.spec.status, 302);
    assert!(old.spec.body.is_empty());
    assert_eq!(old.spec.content_type, "");
    assert_eq!(
        old.spec.headers,
        ["X-A: 1", "Location: /new", "Cache-Control: no-store"]
    );
    let up = route(&c, "/up");
    assert_eq!((up.spec.status, up.method.as_deref()), (307, Some("PUT")));
    assert_eq!(
        up.spec.headers,
        ["X-A: 1", "Location: http://127.0.0.1:9/x?y=1"]
    );
    for status in ["301", "303", "308"] {
        let r = format!("/r={status}:../up");
        let c = run(&["--redirect", &r]).unwrap();
        assert_eq!(route(&c, "/r").spec.status.to_string(), status);
    }
}

#[test]
#[cfg(all(feature = "access-log", feature = "ranges", feature = "control"))]
fn bad_route_fields_and_redirects_name_the_flag_and_what_to_do() {
    let none: &[(&str, &str)] = &[];
    let cases: &[ErrorCase] = &[
        (
            &["--route-header", "/api=X: 1"][..],
            none,
            "--route-header: no --route or --redirect answers /api: give one (--route '/api=200:…')",
        ),
        (
            &["--route", "POST /api=201", "--route-header", "/api=X: 1"],
            none,
            "--route-header: /api has routes by method only: name the method, as in 'POST /api=…'",
        ),
        (
            &["--route", "/api=200", "--route-header", "/api"],
            none,
            "--route-header: \"/api\" is not [METHOD ]PATH=Name: value",
        ),
        (
            &["--route", "/api=200", "--route-header", "/api=X 1"],
            none,
            "--route-header: \"X 1\" is not a header line like 'Name: value'",
        ),
        (
            &[
                "--route",
                "/api=200",
                "--route-header",
                "/api=X: a\r\nEvil: 1",
            ],
            none,
            "--route-header: \" a\\r\\nEvil: 1\" contains the control character '\\r'",
        ),
        (
            &[
                "--route",
                "/api=200",
                "--route-header",
                "/api=Content-Type: a\0",
            ],
            none,
            "--route-header: \" a\\0\" contains the control character",
        ),
        (
            &[
                "--route",
                "/api=200",
                "--route-header",
                "/api=Content-Length: 5",
            ],
            none,
            "--route-header: Content-Length is set by canned itself",
        ),
        (
            &["--route", "/api=200", "--route-header", "/api=Server: x"],
            none,
            "--route-header: Server is set by --server",
        ),
        (
            &["--route", "/a=200:x", "--route-header", "/a=ETag: \"x\""],
            none,
            "--route-header: ETag: \"x\": a route with a 200 body sends its own ETag",
        ),
        (
            &["--health", "/h", "--route-header", "/h=X: 1"],
            none,
            "--route-header: no --route or --redirect answers /h",
        ),
        (
            &["--redirect", "/old"],
            none,
            "--redirect: \"/old\" is not [METHOD ]PATH=STATUS:LOCATION (as in '/old=302:/new')",
        ),
        (
            &["--redirect", "/old=302"],
            none,
            "--redirect: \"/old=302\" has no location: give /old=302:/new",
        ),
        (
            &["--redirect", "/old=200:/new"],
            none,
            "--redirect: \"200\" is not a redirect status: give 301, 302, 303, 307 or 308",
        ),
        (
            &["--redirect", "/old=304:/new"],
            none,
            "--redirect: \"304\" is not a redirect status",
        ),
        (
            &["--redirect", "/old=302:"],
            none,
            "--redirect: \"\" is not a location",
        ),
        (
            &["--redirect", "/old=302:/a b"],
            none,
            "--redirect: \"/a b\" is not a location: a URI reference",
        ),
        (
            &["--redirect", "/old=302:/a\r\nX: 1"],
            none,
            "--redirect: \"/a\\r\\nX: 1\" is not a location",
        ),
        (
            &["--redirect", "old=302:/new"],
            none,
            "--redirect: \"old\" is not a path",
        ),
        (
            &["--redirect", "/x=302:/new", "--route", "/x=200"],
            none,
            "--route and --redirect both answer /x: give the path to one of them",
        ),
        (
            &["--redirect", "/x=302:/new", "--redirect", "/x=301:/y"],
            none,
            "--redirect: path /x is given twice",
        ),
        (
            &[
                "--redirect",
                "/r=302:/a",
                "--route-header",
                "/r=location: /b",
            ],
            none,
            "--route-header: /r has a Location already (from --redirect or an earlier --route-header); a response carries one",
        ),
        (
            &[
                "--route",
                "/made=201",
                "--route-header",
                "/made=Location: /a",
                "--route-header",
                "/made=Location: /b",
            ],
            none,
            "--route-header: /made has a Location already",
        ),
        (
            &[],
            &[("CANNED_ROUTE_HEADER", "/nope=X: 1")],
            "CANNED_ROUTE_HEADER: no --route or --redirect answers /nope",
        ),
    ];
    assert_errors(cases);
}

/// A config file's lines, read as flags: comments, blanks, both forms, quotes, switches,
/// relative files from the file's folder.
#[test]
#[cfg(all(feature = "access-log", feature = "ranges", feature = "control"))]
fn a_config_file_reads_as_the_command_line() {
    let dir = scratch("config-file");
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    std::fs::write(dir.join("bodies/v.json"), "{\"v\":1}").unwrap();
    std::fs::write(dir.join("default.txt"), "from the file's folder").unwrap();
    let conf = dir.join("canned.conf");
    std::fs::write(
        &conf,
        "\u{feff}# routes for the test bench, after a byte order mark\n\
         \n\
         --route /v1/ping=204\n\
         \t--route POST /v1/items=201:made  \r\n\
         --route=/v=200:@bodies/v.json\n\
         --route-header /v1/ping=X-Ping: pong\n\
         --redirect /old=308:/v\n\
         --header 'X-Quoted: a  b'\n\
         --body-file default.txt\n\
         --server \"\"\n\
         --access-log\n\
         --workers=3\n",
    )
    .unwrap();
    let conf = conf.to_str().unwrap();
    let c = run(&["--config", conf]).unwrap();
    assert_eq!(route(&c, "/v1/ping").spec.status, 204);
    assert_eq!(
        route(&c, "/v1/ping").spec.headers,
        ["X-Quoted: a  b", "X-Ping: pong"]
    );
    let post = route(&c, "/v1/items");
    assert_eq!(post.method.as_deref(), Some("POST"));
    assert_eq!(&*post.spec.body, b"made");
    assert_eq!(&*route(&c, "/v").spec.body, b"{\"v\":1}");
    assert_eq!(route(&c, "/v").spec.content_type, "application/json");
    assert_eq!(route(&c, "/old").spec.status, 308);
    assert_eq!(&*c.routes[0].spec.body, b"from the file's folder");
    assert_eq!(c.common.server, "");
    assert!(c.access_log);
    assert_eq!(c.workers, 3);
    // The same from the variable.
    let by_env = run_env(&[], &[("CANNED_CONFIG", conf)]).unwrap();
    assert_eq!(format!("{by_env:?}"), format!("{c:?}"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Flags replace the file's options (a repeatable one, its whole list; a conflicting one,
/// too), and the file's options replace their variables.
#[test]
fn flags_replace_the_config_file_and_it_replaces_variables() {
    let dir = scratch("config-precedence");
    let conf = dir.join("c.conf");
    std::fs::write(
        &conf,
        "--route /a=200:file\n--route /b=200:file\n--body file\n--workers 3\n",
    )
    .unwrap();
    let conf = conf.to_str().unwrap();
    let c = run_env(
        &[
            "--config",
            conf,
            "--route",
            "/c=200:flag",
            "--body-file",
            conf,
        ],
        &[("CANNED_WORKERS", "5"), ("CANNED_SERVER", "env")],
    )
    .unwrap();
    let paths: Vec<&str> = c.routes[1..].iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/c"]);
    assert!(c.routes[0].spec.body.starts_with(b"--route /a"));
    assert_eq!(c.workers, 3, "the file's replaces the variable");
    assert_eq!(c.common.server, "env", "a variable the file leaves is read");
    let c = run_env(&["--config", conf], &[("CANNED_ROUTE", "/env=200")]).unwrap();
    let paths: Vec<&str> = c.routes[1..].iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/a", "/b"]);
    // A file's option conflicting with a variable replaces it, as a flag does.
    let c = run_env(&["--config", conf], &[("CANNED_BODY_FILE", "/nonexistent")]).unwrap();
    assert_eq!(&*c.routes[0].spec.body, b"file");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(all(feature = "access-log", feature = "ranges", feature = "control"))]
fn a_bad_config_line_is_one_error_naming_the_file_and_line() {
    let dir = scratch("config-errors");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let cases = [
        (
            "a.conf",
            "# ok\n--route /a=200\n--rout /b=200\n",
            "a.conf:3: --rout: unknown option (see --help)",
        ),
        (
            "b.conf",
            "\n\nroute /b=200\n",
            "b.conf:3: \"route /b=200\" is not an option line like --route /v1/ping=204",
        ),
        (
            "c.conf",
            "--route /b=999\n",
            "c.conf:1: --route: status 999 is out of range (200 to 599)",
        ),
        (
            "d.conf",
            "--workers\n",
            "d.conf:1: --workers: needs a value",
        ),
        (
            "e.conf",
            "--access-log yes\n",
            "e.conf:1: --access-log: \"yes\" is not a format: text or json",
        ),
        (
            "f.conf",
            "--body a\n\n--body b\n",
            "f.conf:3: --body: is given twice (first on line 1; it takes one value)",
        ),
        (
            "g.conf",
            "--config other.conf\n",
            "g.conf:1: --config: a config file cannot name another",
        ),
        (
            "h.conf",
            "--help\n",
            "h.conf:1: --help: a command, not an option a config file can give",
        ),
        (
            "i.conf",
            "--body a\n--body-file i.conf\n",
            "i.conf:1: --body and ",
        ),
        (
            "j.conf",
            "--route /x=200:@missing.json\n",
            "j.conf:1: --route: cannot read ",
        ),
        (
            "k.conf",
            "--route /x=200\n--route /x=201\n",
            "k.conf:1: --route and ",
        ),
        (
            "l.conf",
            "--raw-close\n",
            "l.conf:1: --raw-close: needs --raw-response",
        ),
    ];
    for (name, text, want) in cases {
        let path = write(name, text);
        let e = run(&["--config", &path]).unwrap_err();
        let want = format!("{}/{want}", dir.display());
        assert!(e.starts_with(&want), "{name}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let bad = dir.join("utf8.conf");
    std::fs::write(&bad, b"--body a\n--body \xff\n").unwrap();
    let e = run(&["--config", bad.to_str().unwrap()]).unwrap_err();
    assert_eq!(
        e,
        format!("{}:2: the line is not valid UTF-8", bad.display())
    );
    let e = run(&["--config", "/nonexistent/c.conf"]).unwrap_err();
    assert!(
        e.starts_with("--config: cannot read \"/nonexistent/c.conf\""),
        "{e}"
    );
    let e = run_env(&[], &[("CANNED_CONFIG", "/nonexistent/c.conf")]).unwrap_err();
    assert!(e.starts_with("CANNED_CONFIG: cannot read"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_admin_route_answer_is_a_route_and_its_fields() {
    let c = run(&[
        "--header",
        "X-Everywhere: 1",
        "--header",
        "Cache-Control: no-cache",
    ])
    .unwrap();
    let default = &c.routes[0].spec;
    let spec = crate::config::route_answer(
        Some("POST"),
        "/new",
        "201:made at runtime\r\n\r\nContent-Type: application/json\nCache-Control: max-age=5\n",
        default,
    )
    .unwrap();
    assert_eq!(
        (spec.status, spec.body.as_ref()),
        (201, &b"made at runtime"[..])
    );
    assert_eq!(spec.content_type, "application/json");
    assert_eq!(
        spec.headers,
        ["X-Everywhere: 1", "Cache-Control: max-age=5"]
    );
    let redirect =
        crate::config::route_answer(None, "/old", "302\nLocation: /new", default).unwrap();
    assert!(redirect.headers.contains(&"Location: /new".to_string()));
    for (method, text, want) in [
        (None, "", "no answer given"),
        (None, "\n \n", "no answer given"),
        (None, "abc", "line 1: status"),
        (None, "\n\n600", "line 3: status"),
        (None, "200\nX-A b", "line 2: \"X-A b\" is not a header line"),
        (None, "200\nServer: x", "line 2: Server is set by --server"),
        (None, "200\nX-A: a\u{7f}", "line 2:"),
        (
            None,
            "301\nLocation: /a\nLocation: /b",
            "line 3: a second Location",
        ),
        (Some("HEAD"), "200", "line 1: HEAD /new"),
        (Some("get"), "200", "line 1:"),
    ] {
        let e = crate::config::route_answer(method, "/new", text, default).unwrap_err();
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
}
