//! The command line's tests: each option read from flags and variables, defaults, files, the
//! builder; the error messages (`errors`) and the properties of the option table checked
//! option by option (`table`) are in files of their own.

mod bad_values;
mod errors;
mod routes;
mod table;

use super::args::Command;
use super::cpus::{cgroup_cpus, quota_cpus};
use super::file::{MAX_FILE, read_at_most, read_bounded};
use super::model::{Config, Listen};
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
use crate::fault::Mutate;
use std::ffi::OsString;

fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    pairs.iter().map(|(k, v)| (k.into(), v.into())).collect()
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Result<Config, String> {
    match Config::from_args(args.iter().copied(), &os(env)) {
        Ok(Command::Run(c)) => Ok(*c),
        Ok(other) => Err(format!("{other:?}")),
        Err(e) => Err(e.0),
    }
}

fn run(args: &[&str]) -> Result<Config, String> {
    run_env(args, &[])
}

/// Arguments, environment, and the start of the one-line error they give.
// Used by the error tables, each behind the features its options need.
#[allow(dead_code)]
type ErrorCase<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[allow(dead_code)]
fn assert_errors(cases: &[ErrorCase]) {
    for (args, env, want) in cases {
        let e = run_env(args, env).unwrap_err();
        assert!(e.starts_with(want), "{args:?} {env:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// An empty scratch directory for this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("canned-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Under socket activation the inherited sockets are the listeners: an address given too
/// is an error naming both (it used to be ignored without a word).
#[test]
fn an_address_with_socket_activation_is_an_error() {
    let pid = std::process::id().to_string();
    let activated = [("LISTEN_FDS", "1"), ("LISTEN_PID", pid.as_str())];
    let why = "cannot be combined: under socket activation the inherited sockets are the \
               only listeners";
    assert_eq!(
        run_env(&["--listen", "127.0.0.1:0"], &activated).unwrap_err(),
        format!("--listen and LISTEN_FDS {why}")
    );
    let env = [activated[0], activated[1], ("PORT", "8080")];
    assert_eq!(
        run_env(&[], &env).unwrap_err(),
        format!("PORT and LISTEN_FDS {why}")
    );
}

#[cfg(feature = "mutate")]
#[test]
fn mutate_list_is_a_command() {
    for args in [&["--mutate-list"][..], &["--port", "1", "--mutate-list"]] {
        let got = Config::from_args(args.iter().copied(), &[]).unwrap();
        assert!(matches!(got, Command::MutateList), "{args:?}");
    }
}

/// `unix:` and a path of 108 bytes, one more than `sun_path` holds with its NUL.
static UNIX_108: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("unix:/{}", "a".repeat(107)));

/// Unix socket paths up to the 107 bytes `sun_path` holds are listeners; a longer one is
/// an error naming the flag, the path and the limit (it used to fail only at bind, exit 1,
/// with "path must be shorter than SUN_LEN").
#[test]
fn unix_paths_fit_sun_path() {
    let longest = format!("unix:/{}", "a".repeat(106));
    let c = run(&["--listen", &longest]).unwrap();
    assert_eq!(c.listen, vec![Listen::Unix(longest[5..].into())]);
    let e = run(&["--listen", &UNIX_108]).unwrap_err();
    assert_eq!(
        e,
        format!(
            "--listen: {} is 108 bytes long; a unix socket path holds at most 107",
            *UNIX_108
        )
    );
    // Port 0 twice is two free ports, not a duplicate.
    let c = run(&["--listen", "127.0.0.1:0", "--listen", "127.0.0.1:0"]).unwrap();
    assert_eq!(c.listen.len(), 2);
}

fn tcp(a: &str) -> Listen {
    Listen::Tcp(a.parse().unwrap())
}

/// The default `--workers` counts the CPUs this thread may run on: pinned to one CPU, one;
/// to two, two (unless a cgroup quota allows fewer).
#[test]
fn default_workers_follow_the_affinity_mask() {
    std::thread::spawn(|| {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: zeroed sets are empty; the calls read and write at most `size` bytes, and
        // only this test's own thread is pinned.
        let allowed: Vec<usize> = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect()
        };
        for n in 1..=allowed.len().min(2) {
            // SAFETY: as above.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                for &c in &allowed[..n] {
                    libc::CPU_SET(c, &mut set);
                }
                assert_eq!(libc::sched_setaffinity(0, size, &set), 0);
            }
            let want = n.min(cgroup_cpus().unwrap_or(n));
            assert_eq!(Config::default().workers, want, "pinned to {n} CPUs");
        }
    })
    .join()
    .unwrap();
}

#[test]
fn cgroup_quota_in_cpus() {
    for (file, want) in [
        (&b"max 100000\n"[..], None),
        (b"150000 100000\n", Some(2)),
        (b"100000 100000\n", Some(1)),
        (b"1000 100000\n", Some(1)),
        (b"400000 100000", Some(4)),
        (b"", None),
        (b"100000 0\n", None),
    ] {
        assert_eq!(
            quota_cpus(file),
            want,
            "{:?}",
            String::from_utf8_lossy(file)
        );
    }
}

#[test]
fn defaults() {
    let c = run(&[]).unwrap();
    assert_eq!(c.listen, vec![tcp("[::]:8080")]);
    assert_eq!(c.routes[0].spec.body.as_ref(), b"Hello World\n");
    assert_eq!(c.limits.max_head, 8192);
    assert_eq!(c.timeouts.header, 10_000);
    assert_eq!(c.backlog, 1024);
    assert!(!c.reuse_port);
    assert_eq!(c.max_body_bytes, 0);
    assert!(c.methods.is_empty());
    assert_eq!(c.metrics, None);
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
fn flags() {
    let c = run(&[
        "--listen",
        "127.0.0.1:0",
        "--listen=[::1]:9",
        "--body",
        "x",
        "--status",
        "201",
        "--header",
        "X-A:  b ",
        "--route",
        "/a=404:nope",
        "--health",
        "/healthz",
        "--header-timeout",
        "500ms",
        "--idle-timeout",
        "2m",
        "--write-timeout",
        "3s",
        "--no-date",
        "--server",
        "",
        "--max-requests",
        "7",
        "--reuse-port",
        "--max-body-bytes",
        "1M",
        "--methods",
        "GET, HEAD,PURGE",
        "--metrics",
        "/metrics",
        "--stats",
        "/stats",
    ])
    .unwrap();
    assert_eq!(c.listen, vec![tcp("127.0.0.1:0"), tcp("[::1]:9")]);
    assert_eq!(c.routes[0].spec.status, 201);
    assert_eq!(c.routes[0].spec.headers, vec!["X-A: b".to_string()]);
    assert_eq!(c.routes[1].path, "/a");
    assert_eq!(c.routes[1].spec.status, 404);
    assert_eq!(c.routes[1].spec.body.as_ref(), b"nope");
    assert!(c.routes[2].get_only);
    assert_eq!(c.timeouts.header, 500);
    assert_eq!(c.timeouts.idle, 120_000);
    assert_eq!(c.timeouts.write, 3_000);
    assert!(!c.common.date);
    assert_eq!(c.common.server, "");
    assert_eq!(c.max_requests, 7);
    assert!(c.reuse_port);
    assert_eq!(c.max_body_bytes, 1 << 20);
    assert_eq!(c.methods, ["GET", "HEAD", "PURGE"]);
    assert_eq!(c.metrics.as_deref(), Some("/metrics"));
    assert_eq!(c.stats.as_deref(), Some("/stats"));
}

/// One size grammar: what a fault takes, an option takes (`1KiB` used to be refused by
/// `--max-body-bytes` and accepted by `--fault`, `1k` the other way round).
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
fn options_and_faults_read_sizes_alike() {
    for v in ["1KiB", "1K", "1k", "1024", "1024B"] {
        let c = run(&["--max-body-bytes", v]).unwrap();
        assert_eq!(c.max_body_bytes, 1024, "{v}");
        let c = run(&["--fault", &format!("/x=truncate:{v}")]).unwrap();
        let want = crate::fault::Delivery::Truncate(crate::fault::Cut::Bytes(1024));
        assert_eq!(c.routes[1].faults.delivery, want, "{v}");
    }
    for v in ["1KB", "1kib"] {
        let option = run(&["--max-body-bytes", v]).unwrap_err();
        let fault = run(&["--fault", &format!("/x=truncate:{v}")]).unwrap_err();
        // The option's text and the fault's rule name the same forms.
        let forms = "a size like 512, 64K or 1MiB";
        assert!(
            option.contains(forms) && fault.contains(forms),
            "{v}: {fault}"
        );
    }
}

#[test]
fn port_means_every_interface_ipv6_and_ipv4() {
    for (args, env, want) in [
        (&["--port", "9000"][..], &[][..], "[::]:9000"),
        (&[], &[("PORT", "9001")], "[::]:9001"),
        (&["--port", "0"], &[], "[::]:0"),
    ] {
        assert_eq!(
            run_env(args, env).unwrap().listen,
            vec![tcp(want)],
            "{args:?} {env:?}"
        );
    }
}

#[test]
fn routes_take_the_content_type_and_headers_whatever_the_order() {
    let c = run(&[
        "--route",
        "/a=200",
        "--content-type",
        "x/y",
        "--header",
        "X-A: 1",
    ])
    .unwrap();
    assert_eq!(c.routes[1].spec.content_type, "x/y");
    assert_eq!(c.routes[1].spec.headers, ["X-A: 1"]);
}

/// `--echo PATH[=FORMAT]`: a route of its own (or the default one for `*`), status 200, the
/// format's content type and the `--header`s, whatever the order.
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
fn echo_paths_are_routes_with_their_format() {
    use crate::echo::EchoFormat;
    let c = run(&[
        "--echo", "/e", "--echo", "*=garden", "--header", "X-A: 1", "--body", "ignored", "--echo",
        "/t=text",
    ])
    .unwrap();
    let echo = |i: usize| (c.routes[i].path.as_str(), c.routes[i].echo);
    assert_eq!(echo(0), ("", Some(EchoFormat::Garden)));
    assert_eq!(echo(1), ("/e", Some(EchoFormat::Json)));
    assert_eq!(echo(2), ("/t", Some(EchoFormat::Text)));
    assert_eq!(c.routes[2].spec.content_type, "text/plain");
    assert_eq!(c.routes[0].spec.content_type, "application/json");
    assert_eq!(c.routes[0].spec.status, 200);
    assert_eq!(c.routes[1].spec.headers, ["X-A: 1"]);
    let c = run_env(&[], &[("CANNED_ECHO", "/a\n/b=text")]).unwrap();
    assert_eq!(c.routes.len(), 3);
    assert_eq!(c.routes[0].echo, None);
}

#[test]
fn environment_cases() {
    let c = run_env(&[], &[("PORT", "9000"), ("CANNED_BODY", "env")]).unwrap();
    assert_eq!(c.listen, vec![tcp("[::]:9000")]);
    assert_eq!(c.routes[0].spec.body.as_ref(), b"env");
    let c = run_env(
        &[],
        &[
            ("CANNED_LISTEN", "127.0.0.1:2,,127.0.0.1:3"),
            ("CANNED_HEADER", "X-A: 1\r\nX-B: 2\n"),
            ("CANNED_QUIET", "true"),
            ("CANNED_NO_DATE", "0"),
            ("CANNED_SERVER", ""),
        ],
    )
    .unwrap();
    assert_eq!(c.listen, vec![tcp("127.0.0.1:2"), tcp("127.0.0.1:3")]);
    assert_eq!(c.routes[0].spec.headers, ["X-A: 1", "X-B: 2"]);
    assert!(c.quiet && c.common.date);
    assert_eq!(c.common.server, "");
    // Kubernetes sets CANNED_PORT=tcp://IP:PORT (and more) for a Service named canned:
    // canned reads PORT, never CANNED_PORT.
    let c = run_env(
        &[],
        &[
            ("CANNED_PORT", "tcp://10.0.0.11:80"),
            ("CANNED_SERVICE_HOST", "10.0.0.11"),
            ("CANNED_PORT_80_TCP", "tcp://10.0.0.11:80"),
        ],
    )
    .unwrap();
    assert_eq!(c.listen, vec![tcp("[::]:8080")]);
}

#[test]
fn kubernetes_manifest_and_image_command_start() {
    // contrib/kubernetes.yaml's environment with the image's CMD (contrib/Dockerfile).
    let env = [
        ("PORT", "8080"),
        ("CANNED_HEALTH", "/healthz"),
        ("CANNED_WORKERS", "2"),
        ("CANNED_SHUTDOWN_TIMEOUT", "5s"),
    ];
    let c = run_env(&["--port", "8080", "--health", "/healthz"], &env).unwrap();
    assert_eq!(c.listen, vec![tcp("[::]:8080")]);
    assert_eq!(c.routes.len(), 2);
    assert_eq!(c.workers, 2);
}

/// A duration says its unit, on a flag and in a variable alike (a bare number is refused:
/// `errors.rs`); `0` means the same in either, and stays a non-positive duration.
#[test]
fn durations_with_their_unit() {
    let c = run_env(
        &["--delay", "500ms", "--idle-timeout", "2s"],
        &[
            ("CANNED_WRITE_TIMEOUT", "250ms"),
            ("CANNED_SHUTDOWN_TIMEOUT", "2s"),
        ],
    )
    .unwrap();
    assert_eq!(
        (c.delay, c.timeouts.idle, c.timeouts.write),
        (500, 2_000, 250)
    );
    assert_eq!(c.shutdown_timeout, std::time::Duration::from_secs(2));
    if cfg!(feature = "faults") {
        let c = run(&["--fault", "/x=latency:500ms", "--fault", "/y=hang:2s"]).unwrap();
        assert_eq!(c.routes.len(), 3);
    }
}

/// `--fault` on a route's path, on a new path (a route with the default response), on `*`
/// (the default response); errors name the flag.
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
fn faults_attach_to_routes() {
    use crate::fault::{Cut, Delivery, Latency, RouteFaults};
    let c = run(&[
        "--body",
        "b",
        "--route",
        "/r=404:x",
        "--fault",
        "/r=latency:5ms",
        "--fault",
        "/new=truncate:50%",
        "--fault",
        "/new=error:0.5:503",
        "--fault",
        "*=stall",
        "--seed",
        "42",
    ])
    .unwrap();
    assert_eq!(c.seed, 42);
    let paths: Vec<&str> = c.routes.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["", "/r", "/new"]);
    assert_eq!(c.routes[0].faults.delivery, Delivery::Stall);
    assert_eq!(c.routes[1].faults.latency, Some(Latency::Fixed(5)));
    assert_eq!(c.routes[1].spec.status, 404);
    let new = &c.routes[2];
    assert_eq!(new.spec.body.as_ref(), b"b");
    assert_eq!(new.faults.delivery, Delivery::Truncate(Cut::Percent(50)));
    assert_eq!(new.faults.error.as_ref().map(|e| e.status), Some(503));
    assert_eq!(run(&[]).unwrap().routes[0].faults, RouteFaults::default());
    assert_eq!(run(&[]).unwrap().seed, 0);
    let env = run_env(&[], &[("CANNED_FAULT", "/a=reset:0\n/b=garbage:8")]).unwrap();
    assert_eq!(env.routes.len(), 3);
    assert_errors(&[
        (
            &["--fault", "/x"],
            &[],
            "--fault: \"/x\" is not PATH=KIND[:ARGS]",
        ),
        (
            &["--fault", "/x=slow"],
            &[],
            "--fault: \"slow\" is not a fault kind",
        ),
        (&["--fault", "x=stall"], &[], "--fault: \"x\" is not a path"),
        (
            &["--fault", "/x=stall", "--fault", "/x=reset:0"],
            &[],
            "--fault: /x=reset:0 clashes with stall: a path takes one drip, stall, truncate, \
             reset, garbage, hang, slow-close or bandwidth",
        ),
        (
            &["--stats", "/s", "--fault", "/s=stall"],
            &[],
            "--stats and --fault both answer /s: give the path to one of them",
        ),
        (
            &["--seed", "-1"],
            &[],
            "--seed: \"-1\" is not a whole number",
        ),
        (
            &[],
            &[("CANNED_FAULT", "/x=drip")],
            "CANNED_FAULT: drip takes",
        ),
        (
            &["--mutate-id", "nope"],
            &[],
            "--mutate-id: \"nope\" is not a variant id",
        ),
    ]);
    assert_eq!(run(&["--mutate"]).unwrap().mutate, Some(Mutate::Cycle));
    let one = run(&["--mutate-id", "te-and-cl"]).unwrap().mutate;
    assert_eq!(
        one,
        Some(Mutate::One(crate::mutate::find("te-and-cl").unwrap() as u16))
    );
    assert_eq!(run(&[]).unwrap().mutate, None);
}

#[test]
fn builder() {
    let c = Config::default()
        .listen("127.0.0.1:0")
        .unwrap()
        .body("pong\n");
    let c = c.route("/a=204").unwrap();
    assert_eq!(c.routes[1].spec.status, 204);
    let e: Box<dyn std::error::Error> = Box::new(Config::default().listen("x").unwrap_err());
    assert!(
        e.to_string()
            .starts_with("--listen: \"x\" is not a numeric address")
    );
}

/// A regular file over the limit is refused by its size, without a byte read (it used to
/// be read up to the limit first: for `--body-file`, seconds and 1 GiB of memory).
#[test]
fn long_regular_file_is_refused_by_its_size_before_reading() {
    let dir = scratch("long-file");
    let path = dir.join("long");
    std::fs::write(&path, [b'x'; 4097]).unwrap();
    assert_eq!(
        read_bounded(path.as_os_str(), 4096).map_err(|e| e.kind()),
        Err(std::io::ErrorKind::FileTooLarge)
    );
    assert_eq!(read_bounded(path.as_os_str(), 4097).unwrap().len(), 4097);
    // The real limit, on a sparse file: refused at once.
    let sparse = dir.join("sparse");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(MAX_FILE + 1)
        .unwrap();
    let shown = sparse.to_str().unwrap();
    assert_eq!(
        run(&["--body-file", shown]).unwrap_err(),
        format!("--body-file: {shown:?} holds more than {MAX_FILE} bytes")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that never ends is an error at the limit, not a read until memory runs out.
#[test]
fn endless_file_is_refused_at_the_limit() {
    assert_eq!(
        read_at_most("/dev/zero", 4096).unwrap_err(),
        "\"/dev/zero\" holds more than 4096 bytes"
    );
    assert_eq!(read_at_most("/dev/null", 0).unwrap().len(), 0);
}
