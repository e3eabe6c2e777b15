//! Every bad flag, value, duplicate and conflict: the one-line error it gives, naming the flag
//! or variable and what is wrong.

// The tests of this file but the last use every feature's options.
#[cfg(all(
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
use {
    super::{ErrorCase, assert_errors},
    crate::config::model::Config,
    std::ffi::OsString,
};

// Uses every feature's options.
#[cfg(all(
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
#[test]
fn duplicates_and_conflicts_name_both() {
    let none: &[(&str, &str)] = &[];
    let cases: &[ErrorCase] = &[
        (
            &["--body", "a", "--body", "b"][..],
            none,
            "--body: is given twice (it takes one value)",
        ),
        (
            &["--access-log", "--access-log"],
            none,
            "--access-log: is given twice (a switch: give it once)",
        ),
        (
            &["--health", "/h", "--health", "/i"],
            none,
            "--health: is given twice",
        ),
        (
            &["--body", "a", "--body-file", "/dev/null"],
            none,
            "--body and --body-file cannot be combined: give one of them",
        ),
        (
            &["--port", "1", "--listen", "127.0.0.1:1"],
            none,
            "--listen and --port cannot be combined: give one of them",
        ),
        (
            &[],
            &[("PORT", "1"), ("CANNED_LISTEN", "127.0.0.1:1")],
            "CANNED_LISTEN and PORT cannot be combined: give one of them",
        ),
        (
            &["--raw-response", "/dev/null", "--route", "/a=200"],
            none,
            "--route and --raw-response cannot be combined: give one of them",
        ),
        (
            &["--raw-response", "/dev/null", "--health", "/h"],
            none,
            "--health and --raw-response cannot be combined: give one of them",
        ),
        (
            &["--health", "/x", "--stats", "/x"],
            none,
            "--health and --stats both answer /x: give the path to one of them",
        ),
        (
            &["--stats", "/x", "--metrics", "/x"],
            none,
            "--stats and --metrics both answer /x: give the path to one of them",
        ),
        (
            &["--route", "/m=200", "--metrics", "/m"],
            none,
            "--route and --metrics both answer /m: give the path to one of them",
        ),
        (
            &[],
            &[("CANNED_HEALTH", "/x"), ("CANNED_STATS", "/x")],
            "CANNED_HEALTH and CANNED_STATS both answer /x: give the path to one of them",
        ),
        (
            &[
                "--route", "/a=200", "--route", "/b=204", "--route", "/a=404",
            ],
            none,
            "--route: path /a is given twice",
        ),
    ];
    assert_errors(cases);
}

// Uses every feature's options.
#[cfg(all(
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
#[test]
fn non_utf8_values_are_an_error_naming_the_flag_others_are_ignored() {
    use std::os::unix::ffi::OsStringExt;
    let bad = || OsString::from_vec(b"a\xffb".to_vec());
    type Env = Vec<(OsString, OsString)>;
    let cases: [(Vec<OsString>, Env, &str); 6] = [
        (
            vec!["--body".into(), bad()],
            vec![],
            "--body: the value is not valid UTF-8",
        ),
        (
            vec![OsString::from_vec(b"--body=\xff".to_vec())],
            vec![],
            "--body: the value is not valid UTF-8",
        ),
        (
            vec![bad()],
            vec![],
            "a\u{fffd}b: unexpected argument (see --help)",
        ),
        (
            vec![],
            vec![("CANNED_BODY".into(), bad())],
            "CANNED_BODY: the value is not valid UTF-8",
        ),
        (
            vec![],
            vec![("PORT".into(), bad())],
            "PORT: the value is not valid UTF-8",
        ),
        (
            vec!["--port".into(), "1".into()],
            vec![
                ("LISTEN_FDS".into(), bad()),
                ("LISTEN_PID".into(), "1".into()),
            ],
            "LISTEN_FDS: the value is not valid UTF-8",
        ),
    ];
    for (args, env, want) in cases {
        let got = Config::from_args(args.clone(), &env).unwrap_err();
        assert_eq!(got.0, want, "{args:?} {env:?}");
    }
    // Variables canned does not read may hold anything, names included.
    let env = vec![
        (bad(), bad()),
        ("LANG".into(), bad()),
        ("CANNED_UNKNOWN".into(), bad()),
    ];
    assert!(Config::from_args(["--body", "x"], &env).is_ok());
}

/// `--echo`'s values and the combinations it refuses.
// Uses every feature's options.
#[cfg(all(
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
#[test]
fn echo_errors_name_the_path_and_what_is_wrong() {
    let none: &[(&str, &str)] = &[];
    let cases: &[ErrorCase] = &[
        (
            &["--echo", "/e=yaml"][..],
            none,
            "--echo: \"yaml\" is not an echo format (json, garden, text, body or cookie)",
        ),
        (
            &["--echo", "e"],
            none,
            "--echo: \"e\" is not a path like /health",
        ),
        (
            &["--echo", "*", "--echo", "*=text"],
            none,
            "--echo: path * is given twice",
        ),
        (
            &["--echo", "/e", "--echo", "/e=text"],
            none,
            "--echo: path /e is given twice",
        ),
        (
            &["--echo", "/e", "--route", "/e=200"],
            none,
            "--route and --echo both answer /e: give the path to one of them",
        ),
        (
            &["--echo", "/e", "--fault", "/e=stall"],
            none,
            "--fault: /e is an --echo path: faults change canned's own responses, not an echo",
        ),
        (
            &["--echo", "*=garden", "--fault", "*=latency:1ms"],
            none,
            "--fault: * is an --echo path",
        ),
        (
            &["--echo", "*", "--mutate"],
            none,
            "--echo * and --mutate cannot be combined: both answer every path without a route",
        ),
        (
            &[],
            &[("CANNED_ECHO", "*=text"), ("CANNED_MUTATE_ID", "cl-hex")],
            "CANNED_ECHO * and CANNED_MUTATE_ID cannot be combined: both answer every path without a route",
        ),
        (
            &["--echo", "/e", "--raw-response", "/dev/null"],
            none,
            "--raw-response and --echo cannot be combined: give one of them",
        ),
    ];
    assert_errors(cases);
}

/// Without validators a route sends no ETag or Last-Modified of its own, and a route that does
/// not serve ranges none of the fields that go with them: one from `--header` is the user's.
// Uses every feature's options.
#[cfg(all(
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
#[test]
fn a_field_canned_does_not_write_on_the_route_is_accepted() {
    let date = "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT";
    for args in [
        &["--no-validators", "--header", "ETag: \"mine\""][..],
        &["--no-validators", "--header", date],
        &["--no-date", "--header", date],
        &["--header", "ETag: \"mine\"", "--status", "404"],
        &["--header", "Accept-Ranges: none", "--status", "404"],
        &["--header", "Accept-Ranges: none", "--body", ""],
    ] {
        assert!(super::run_env(args, &[]).is_ok(), "{args:?}");
    }
}

/// An empty body is no body: refused with a 204 or 304 nowhere, whether given by `--body`,
/// `--body-file` or a route (RFC 9110 §15.3.5: a 204 has no content).
#[test]
fn an_empty_body_with_204_is_accepted_everywhere() {
    let dir = super::scratch("empty-body");
    let empty = dir.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    let at_empty = format!("/e=204:@{empty}");
    for args in [
        &["--status", "204", "--body", ""][..],
        &["--status", "304", "--body-file", empty],
        &["--route", "/p=204:"],
        &["--route", &at_empty],
    ] {
        assert!(super::run_env(args, &[]).is_ok(), "{args:?}");
    }
}
