//! Every bad value of a flag: the one-line error it gives, naming the flag or variable and
//! what is wrong. The table uses every feature's options.
#![cfg(all(
    feature = "http2",
    feature = "faults",
    feature = "control",
    feature = "echo",
    feature = "journal",
    feature = "admin",
    feature = "mutate",
    feature = "ranges",
    feature = "stats",
    feature = "access-log"
))]

use super::{ErrorCase, UNIX_108, assert_errors};

#[test]
fn bad_values_name_the_flag_and_what_is_wrong() {
    let none: &[(&str, &str)] = &[];
    let cases: &[ErrorCase] = &[
        (
            &["--port", "x"][..],
            none,
            "--port: \"x\" is not a whole number",
        ),
        (
            &["--port", "99999"],
            none,
            "--port: 99999 is out of range (at most 65535)",
        ),
        (
            &["--port", "99999999999999999999999"],
            none,
            "--port: 99999999999999999999999 is out of range (at most 65535)",
        ),
        (&["--port", "--workers", "2"], none, "--port: needs a value"),
        (&["--body", "--quiet"], none, "--body: needs a value"),
        (&["--body", "-h"], none, "--body: needs a value"),
        (
            &["--listen", "localhost:80"],
            none,
            "--listen: \"localhost:80\" is not a numeric address",
        ),
        (&["--listen", "unix:"], none, "--listen: unix: needs a path"),
        (
            &["--status", "99"],
            none,
            "--status: 99 is out of range (200 to 599)",
        ),
        (
            &["--workers", "0"],
            none,
            "--workers: 0 is out of range (1 to 1024)",
        ),
        (
            &["--workers", "1025"],
            none,
            "--workers: 1025 is out of range (1 to 1024)",
        ),
        (
            &["--header", "Bad Name: x"],
            none,
            "--header: \"Bad Name\" is not a header name",
        ),
        (
            &["--header", "X-A: b\r\n\r\nINJECTED"],
            none,
            "--header: \" b\\r\\n\\r\\nINJECTED\" contains the control character '\\r'; a header value cannot hold CR, LF, NUL or other controls",
        ),
        (
            &["--header", "X: a\u{1}"],
            none,
            "--header: \" a\\u{1}\" contains the control",
        ),
        (
            &["--header", "X: a\0"],
            none,
            "--header: \" a\\0\" contains the control",
        ),
        (
            &["--header", "X"],
            none,
            "--header: \"X\" is not a header line like 'Name: value'",
        ),
        (
            &[],
            &[("CANNED_HEADER", "X-A: 1\nX-B: \u{7f}")],
            "CANNED_HEADER: \" \\u{7f}\" contains",
        ),
        (
            &["--server", "a\nb"],
            none,
            "--server: \"a\\nb\" contains the control character '\\n'",
        ),
        (
            &["--content-type", "text/plain\r\nX: y"],
            none,
            "--content-type: \"text/plain\\r\\nX: y\" contains",
        ),
        (
            &["--header", "Content-Length: 5"],
            none,
            "--header: Content-Length is set by canned itself",
        ),
        (
            &["--header", "server: x"],
            none,
            "--header: server is set by --server",
        ),
        (
            &["--header", "Content-Type: x"],
            none,
            "--header: Content-Type is set by --content-type",
        ),
        (
            &["--route", "/a"],
            none,
            "--route: \"/a\" is not [METHOD ]PATH=STATUS[:BODY]",
        ),
        (&["--route", "a=200"], none, "--route: \"a\" is not a path"),
        (
            &["--route", "/a=99"],
            none,
            "--route: status 99 is out of range (200 to 599)",
        ),
        (
            &["--route", "/a\r\n=200"],
            none,
            "--route: \"/a\\r\\n\" is not a path",
        ),
        (
            &["--methods", "GET,,HEAD"],
            none,
            "--methods: \"\" is not a method name",
        ),
        (
            &["--methods", "GE T"],
            none,
            "--methods: \"GE T\" is not a method name",
        ),
        (
            &["--methods", "GET,head"],
            none,
            "--methods: \"head\": methods are case-sensitive (RFC 9110 §9.1): did you mean HEAD?",
        ),
        (
            &["--route", "get /x=201"],
            none,
            "--route: \"get\": methods are case-sensitive (RFC 9110 §9.1): did you mean GET?",
        ),
        (
            &["--fault", "Post /x=stall"],
            none,
            "--fault: \"Post\": methods are case-sensitive (RFC 9110 §9.1): did you mean POST?",
        ),
        (
            &["--max-body-bytes", "1T"],
            none,
            "--max-body-bytes: \"1T\" is not a size like 512, 64K or 1MiB",
        ),
        (
            &["--max-body-bytes", "99999999999G"],
            none,
            "--max-body-bytes: 99999999999G is out of range",
        ),
        (
            &["--max-head-bytes", "15"],
            none,
            "--max-head-bytes: 15 is out of range (16 to 4294967295)",
        ),
        (
            &["--idle-timeout", "5 days"],
            none,
            "--idle-timeout: \"5 days\" is not a positive duration",
        ),
        (
            &["--header-timeout", "0"],
            none,
            "--header-timeout: \"0\" is not a positive duration",
        ),
        // A number without its unit: milliseconds to some tools, seconds to others.
        (
            &["--delay", "500"],
            none,
            "--delay: \"500\" has no unit: write 500ms or 500s",
        ),
        (
            &["--shutdown-timeout", "2.5"],
            none,
            "--shutdown-timeout: \"2.5\" has no unit: write 2.5ms or 2.5s",
        ),
        (
            &[],
            &[("CANNED_IDLE_TIMEOUT", "30")],
            "CANNED_IDLE_TIMEOUT: \"30\" has no unit: write 30ms or 30s",
        ),
        (
            &["--fault", "/x=latency:100"],
            none,
            "--fault: latency: \"100\" has no unit: write 100ms or 100s",
        ),
        (
            &["--fault", "/x=drip:1KiB/100"],
            none,
            "--fault: drip's time: \"100\" has no unit: write 100ms or 100s",
        ),
        (
            &[],
            &[("CANNED_FAULT", "/x=hang:5:reset")],
            "CANNED_FAULT: hang: \"5\" has no unit: write 5ms or 5s",
        ),
        (
            &["--delay", "99999999999999s"],
            none,
            "--delay: \"99999999999999s\" is too long (at most 1h)",
        ),
        (
            &["--idle-timeout", "61m"],
            none,
            "--idle-timeout: \"61m\" is too long (at most 1h)",
        ),
        (
            &[],
            &[("CANNED_SHUTDOWN_TIMEOUT", "999999999999999999999h")],
            "CANNED_SHUTDOWN_TIMEOUT: \"999999999999999999999h\" is too long (at most 1h)",
        ),
        (&["--body"], none, "--body: needs a value"),
        (
            &["--frobnicate"],
            none,
            "--frobnicate: unknown option (see --help)",
        ),
        (
            &["--a\nb"],
            none,
            "\"--a\\nb\": unknown option (see --help)",
        ),
        (&["stray"], none, "stray: unexpected argument (see --help)"),
        (&["--quiet=1"], none, "--quiet: takes no value"),
        (
            &["--body-file", "/nonexistent/x"],
            none,
            "--body-file: cannot read \"/nonexistent/x\"",
        ),
        (&["--raw-close"], none, "--raw-close: needs --raw-response"),
        (
            &[],
            &[("CANNED_RAW_CLOSE", "1")],
            "CANNED_RAW_CLOSE: needs --raw-response",
        ),
        (
            &["--backlog", "3000000000"],
            none,
            "--backlog: 3000000000 is out of range (1 to 2147483647)",
        ),
        (
            &["--max-requests", "-1"],
            none,
            "--max-requests: \"-1\" is not a whole number",
        ),
        (
            &[],
            &[("CANNED_WORKERS", "")],
            "CANNED_WORKERS: \"\" is not a whole number",
        ),
        (
            &[],
            &[("CANNED_QUIET", "yes")],
            "CANNED_QUIET: \"yes\" is not 1, true, 0, false or empty",
        ),
        (
            &["--access-log", "yes"],
            none,
            "--access-log: \"yes\" is not a format: text or json",
        ),
        (
            &["--access-log=yes"],
            none,
            "--access-log: \"yes\" is not a format: text or json",
        ),
        (
            &["--quiet", "yes"],
            none,
            "--quiet: takes no value, and \"yes\" is not an option (see --help)",
        ),
        (
            &["--route", "/nm=304:ignored"],
            none,
            "--route: /nm=304 cannot send the body \"ignored\": a 304 response has no body",
        ),
        (
            &[
                "--route",
                concat!("/nc=204:@", env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
            ],
            none,
            concat!(
                "--route: /nc=204 cannot send the body \"@",
                env!("CARGO_MANIFEST_DIR"),
                "/Cargo.toml\": a 204 response has no body"
            ),
        ),
        (
            &["--route", "/p=200:@"],
            none,
            "--route: \"/p=200:@\": @ needs a file name (/p=200:@FILE reads the body from FILE)",
        ),
        (
            &["--body-file", "/dev/zero"],
            none,
            "--body-file: \"/dev/zero\" is a character device, not a regular file (canned \
             reads it whole at start-up)",
        ),
        (
            &["--route", "/z=200:@/dev/zero"],
            none,
            "--route: \"/dev/zero\" is a character device, not a regular file",
        ),
        (
            &["--raw-response", "/"],
            none,
            "--raw-response: \"/\" is a directory, not a regular file",
        ),
        (
            &["--status", "204", "--body", "x"],
            none,
            "--status and --body cannot be combined: a 204 response has no body",
        ),
        (
            &[
                "--body-file",
                concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
            ],
            &[("CANNED_STATUS", "304")],
            "CANNED_STATUS and --body-file cannot be combined: a 304 response has no body",
        ),
        (
            &["--methods", ""],
            none,
            "--methods: the list is empty (leave the option out to answer every method)",
        ),
        (
            &[],
            &[("CANNED_METHODS", "")],
            "CANNED_METHODS: the list is empty",
        ),
        (
            &["--raw-response", "/dev/null", "--methods", "GET"],
            none,
            "--raw-response and --methods cannot be combined: give one of them",
        ),
        (
            &["--raw-response", "/dev/null", "--etag", "\"v1\""],
            none,
            "--etag and --raw-response cannot be combined: give one of them",
        ),
        (
            &["--no-validators", "--raw-response", "/dev/null"],
            none,
            "--no-validators and --raw-response cannot be combined: give one of them",
        ),
        (
            &["--header", "ETag: \"mine\""],
            none,
            "--header: ETag: \"mine\": a route with a 200 body sends its own ETag; give it \
             with --etag (or leave validators out with --no-validators)",
        ),
        (
            &["--route", "/a=200:x", "--header", "etag:\"mine\""],
            none,
            "--header: etag: \"mine\": a route with a 200 body sends its own ETag; give it \
             with --etag (or leave validators out with --no-validators)",
        ),
        (
            &["--header", "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT"],
            none,
            "--header: Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT: a route with a 200 body \
             sends its own Last-Modified; it is the body file's time or the start's (leave \
             validators out with --no-validators)",
        ),
        (
            &["--header", "Accept-Ranges: none"],
            none,
            "--header: Accept-Ranges: none: a route with a 200 body sends its own \
             Accept-Ranges; such a route serves byte ranges, whatever the flags (RFC 9110 §14.3): \
             leave it out",
        ),
        (
            &["--no-validators", "--header", "accept-ranges: none"],
            none,
            "--header: accept-ranges: none: a route with a 200 body sends its own Accept-Ranges",
        ),
        (
            &["--header", "Content-Range: bytes 0-1/2"],
            none,
            "--header: Content-Range: bytes 0-1/2: a route with a 200 body sends its own \
             Content-Range; on its 206 and 416 answers (RFC 9110 §14.4): leave it out",
        ),
        (
            &[
                "--listen",
                "127.0.0.1:9",
                "--listen",
                "[::1]:9",
                "--listen",
                "127.0.0.1:9",
            ],
            none,
            "--listen: 127.0.0.1:9 is given twice",
        ),
        (&["--listen", &UNIX_108], none, "--listen: unix:/aaaa"),
        (
            &[],
            &[("PORT", "http")],
            "PORT: \"http\" is not a whole number",
        ),
        (
            &[],
            &[
                ("LISTEN_FDS", "0"),
                ("LISTEN_PID", &std::process::id().to_string()),
            ],
            "LISTEN_FDS: 0 is out of range (1 to 64)",
        ),
    ];
    assert_errors(cases);
}
