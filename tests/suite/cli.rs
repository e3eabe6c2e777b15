//! The `canned` binary: its command line, its start-up line, signals, and real clients
//! (curl, ab, Python's http.client) talking to it.

use crate::common;
use common::*;
use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(bin()).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[cfg(all(feature = "access-log", feature = "faults", feature = "stats"))]
#[test]
fn bad_flags_exit_2_with_one_line_naming_the_flag() {
    for (args, want) in [
        (
            &["--port", "http"][..],
            "--port: \"http\" is not a whole number",
        ),
        (
            &["--port", "99999"],
            "--port: 99999 is out of range (at most 65535)",
        ),
        (&["--port", "--workers", "2"], "--port: needs a value"),
        (&["--nope"], "--nope: unknown option (see --help)"),
        (
            &["--listen", "example.com:80"],
            "--listen: \"example.com:80\" is not a numeric address like 127.0.0.1:8080, [::1]:8080 or unix:/path",
        ),
        (
            &["--health", "/x", "--stats", "/x"],
            "--health and --stats both answer /x: give the path to one of them",
        ),
        (
            &["--body", "a", "--body-file", "/dev/null"],
            "--body and --body-file cannot be combined: give one of them",
        ),
        (
            &["--workers", "5000"],
            "--workers: 5000 is out of range (1 to 1024)",
        ),
        (
            &["--access-log", "xml"],
            "--access-log: \"xml\" is not a format: text or json",
        ),
        (
            &["--access-log=xml"],
            "--access-log: \"xml\" is not a format: text or json",
        ),
        (
            &["--quiet", "yes"],
            "--quiet: takes no value, and \"yes\" is not an option (see --help)",
        ),
        (
            &["--route", "/nm=304:ignored"],
            "--route: /nm=304 cannot send the body \"ignored\": a 304 response has no body",
        ),
        (
            &["--status", "204", "--body", "x"],
            "--status and --body cannot be combined: a 204 response has no body",
        ),
        (
            &["--methods", ""],
            "--methods: the list is empty (leave the option out to answer every method)",
        ),
        (
            &["--raw-response", "/dev/null", "--methods", "GET"],
            "--raw-response and --methods cannot be combined: give one of them",
        ),
        (
            &["--listen", "127.0.0.1:9", "--listen", "127.0.0.1:9"],
            "--listen: 127.0.0.1:9 is given twice",
        ),
        (
            &["--max-body-bytes", "1KB"],
            "--max-body-bytes: \"1KB\" is not a size like 512, 64K or 1MiB",
        ),
        (
            &["--delay", "500"],
            "--delay: \"500\" has no unit: write 500ms or 500s",
        ),
        (
            &["--fault", "/x=latency:100"],
            "--fault: latency: \"100\" has no unit: write 100ms or 100s",
        ),
        (
            &["--fault", "/x=truncate:1KB"],
            "--fault: truncate takes a size like 512, 64K or 1MiB, or a percentage from 0% to 100% like truncate:50%",
        ),
        (
            &["--header", "X-A: b\r\n\r\nINJECTED"],
            "--header: \" b\\r\\n\\r\\nINJECTED\" contains the control character '\\r'; a header value cannot hold CR, LF, NUL or other controls",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err, format!("canned: error: {want}\n"), "{args:?}");
    }
}

/// A value canned reads that is not UTF-8 is a one-line error naming it; any other variable
/// may hold anything (it used to abort the process).
#[test]
fn non_utf8_arguments_and_variables() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let bad = OsStr::from_bytes(b"caf\xe9");
    let fails = |cmd: &mut Command, want: &str| {
        let o = cmd.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("canned: error: {want}\n")
        );
    };
    fails(
        Command::new(bin()).arg("--body").arg(bad),
        "--body: the value is not valid UTF-8",
    );
    fails(
        Command::new(bin()).env("CANNED_HEADER", bad),
        "CANNED_HEADER: the value is not valid UTF-8",
    );
    fails(
        Command::new(bin()).env("PORT", bad),
        "PORT: the value is not valid UTF-8",
    );
    let p = Proc::start_with(&["--workers", "1", "--body", "served"], |c| {
        c.env(bad, bad)
            .env("NOT_CANNED", bad)
            .env("CANNED_PORT", bad);
    });
    let r = parse_responses(&exchange(p.addr, b"GET / HTTP/1.0\r\n\r\n"), &[]);
    assert_eq!(r[0].body, b"served");
}

/// `--health` with `CANNED_HEALTH` naming the same path (the Kubernetes manifest's env with
/// the image's command line) starts: the flag replaces the variable.
#[test]
fn a_flag_replaces_its_variable_in_the_binary() {
    let p = Proc::start_with(&["--workers", "1", "--health", "/healthz"], |c| {
        c.env("CANNED_HEALTH", "/healthz")
            .env("PORT", "1")
            .env("CANNED_WORKERS", "2");
    });
    let r = parse_responses(&exchange(p.addr, b"GET /healthz HTTP/1.0\r\n\r\n"), &[]);
    assert_eq!((r[0].status, r[0].body.as_slice()), (200, &b"ok"[..]));
}

/// Errors that only the binary shows: a unix path longer than `sun_path` (it used to be
/// "path must be shorter than SUN_LEN", exit 1), an environment switch's accepted values.
#[test]
fn unix_path_and_switch_variable_errors_exit_2() {
    // /tmp/ and 103 bytes: 108, one more than sun_path holds with its NUL.
    let long = format!("unix:/tmp/{}", "a".repeat(103));
    let (code, out, err) = run(&["--listen", &long]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "canned: error: --listen: {long} is 108 bytes long; a unix socket path holds at most 107\n"
        )
    );
    let o = Command::new(bin())
        .env("CANNED_NO_DATE", "yes")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "canned: error: CANNED_NO_DATE: \"yes\" is not 1, true, 0, false or empty\n"
    );
}

/// A regular body file over 1 GiB is refused by its size, at once (it used to be read whole
/// first: 4 s and 1 GiB of memory).
#[test]
fn a_body_file_over_1_gib_is_refused_before_it_is_read() {
    let path = std::env::temp_dir().join(format!("canned-cli-big-{}", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    f.set_len((1 << 30) + 1).unwrap();
    let shown = path.to_str().unwrap();
    let t = Instant::now();
    let (code, _, err) = run(&["--body-file", shown]);
    let took = t.elapsed();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("canned: error: --body-file: {shown:?} holds more than 1073741824 bytes\n")
    );
    // Reading 1 GiB took seconds; refusing by size takes a process start.
    assert!(took < time_bound(Duration::from_secs(2)), "{took:?}");
}

/// What cannot be a body is refused by its type before it is opened: a FIFO with no writer
/// (which held start-up without a word), `/dev/zero` (read to 1 GiB first), a directory; for
/// `--body-file`, `--raw-response` and a route's `@FILE` alike, in one line naming the flag.
#[test]
fn a_body_that_is_not_a_regular_file_is_refused_at_once() {
    let fifo = std::env::temp_dir().join(format!("canned-fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let fifo_s = fifo.to_str().unwrap().to_string();
    let route = format!("/f=200:@{fifo_s}");
    let cases: [(&[&str], String); 5] = [
        (
            &["--body-file", &fifo_s],
            format!("--body-file: {fifo_s:?} is a FIFO (a pipe), not a regular file"),
        ),
        (
            &["--route", &route],
            format!("--route: {fifo_s:?} is a FIFO (a pipe), not a regular file"),
        ),
        (
            &["--raw-response", &fifo_s],
            format!("--raw-response: {fifo_s:?} is a FIFO (a pipe), not a regular file"),
        ),
        (
            &["--body-file", "/dev/zero"],
            "--body-file: \"/dev/zero\" is a character device, not a regular file".into(),
        ),
        (
            &["--body-file", "/tmp"],
            "--body-file: \"/tmp\" is a directory, not a regular file".into(),
        ),
    ];
    for (args, want) in cases {
        let mut child = Reap(
            Command::new(bin())
                .args(args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + time_bound(Duration::from_secs(5));
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "{args:?}: still starting");
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        let want = format!("canned: error: {want} (canned reads it whole at start-up)\n");
        assert_eq!(err, want, "{args:?}");
    }
    std::fs::remove_file(&fifo).unwrap();
}

/// `--man` and `--completions SHELL` print the files under `contrib/`, byte for byte, so that
/// an installed binary carries them; a shell canned has none for is one line listing the three.
/// (The files are those of the default build, which has every feature's options.)
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
    feature = "access-log",
    feature = "manual"
))]
#[test]
fn man_and_completions_print_the_contrib_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (args, file) in [
        (&["--man"][..], "contrib/canned.1"),
        (
            &["--completions", "bash"],
            "contrib/completions/canned.bash",
        ),
        (&["--completions=zsh"], "contrib/completions/_canned"),
        (
            &["--completions", "fish"],
            "contrib/completions/canned.fish",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
        assert_eq!(
            out,
            std::fs::read_to_string(root.join(file)).unwrap(),
            "{args:?}"
        );
    }
    for (args, want) in [
        (
            &["--completions", "tcsh"][..],
            "\"tcsh\" is not bash, zsh or fish",
        ),
        (&["--completions"], "needs a shell: bash, zsh or fish"),
    ] {
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err, format!("canned: error: --completions: {want}\n"));
    }
}

/// Every command that prints exits 1 when standard output cannot take its text (a full disk:
/// /dev/full), as `--help` always did, rather than 0 with the text lost.
#[cfg(all(feature = "mutate", feature = "manual"))]
#[test]
fn every_command_that_prints_exits_1_on_a_full_stdout() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["--mutate-list"],
        &["--man"],
        &["--completions", "zsh"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = Command::new(bin())
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
    }
}

#[test]
fn help_and_version() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Usage: canned [OPTIONS]") && out.contains("--shutdown-timeout"));
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, 0);
    let version = format!("canned {}", env!("CARGO_PKG_VERSION"));
    // From a git checkout, the commit as build.rs read it; from a tarball, the version alone.
    let described = Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR")])
        .args(["describe", "--always", "--tags", "--abbrev=12"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match described {
        Some(commit) => assert_eq!(out, format!("{version} ({commit})\n")),
        None => assert_eq!(out, format!("{version}\n")),
    }
}

/// A command flag does not hide a bad argument beside it: an unknown flag or a stray word is
/// the same error, exit 2, as without the command; a valid option beside it is accepted.
#[test]
fn a_command_with_a_bad_argument_beside_it_exits_2() {
    let mut commands: Vec<&[&str]> = vec![&["--help"], &["-h"], &["--version"], &["-V"]];
    if cfg!(feature = "mutate") {
        commands.push(&["--mutate-list"]);
    }
    if cfg!(feature = "tls") {
        commands.push(&["--tls-list"]);
    }
    if cfg!(feature = "manual") {
        commands.push(&["--man"]);
        commands.push(&["--completions", "bash"]);
    }
    for command in commands {
        for (extra, want) in [
            ("extra", "extra: unexpected argument (see --help)"),
            ("--bogus", "--bogus: unknown option (see --help)"),
        ] {
            for args in [[command, &[extra]].concat(), [&[extra], command].concat()] {
                let (code, out, err) = run(&args);
                assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
                assert_eq!(err, format!("canned: error: {want}\n"), "{args:?}");
            }
        }
        let args = [command, &["--port", "1"]].concat();
        let (code, out, err) = run(&args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
        assert!(!out.is_empty(), "{args:?}");
    }
}

/// `--mutate-list` prints every id `--mutate-id` takes, one a line, in `--mutate` order.
#[cfg(feature = "mutate")]
#[test]
fn mutate_list_prints_the_catalogue_ids() {
    let (code, out, err) = run(&["--mutate-list"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let ids: Vec<&str> = out.lines().collect();
    assert_eq!(ids, canned::mutate::ids().collect::<Vec<_>>());
    assert!(ids.len() > 50 && ids.contains(&"cl-negative"), "{out}");
    for id in ids {
        let got = canned::config::Config::from_args(["--mutate-id", id], &[]);
        assert!(got.is_ok(), "{id}");
    }
}

#[test]
fn listening_line_shows_the_real_port_and_sigterm_exits_0_with_a_summary() {
    let p = Proc::start(&["--workers", "2"]);
    assert_ne!(p.addr.port(), 0);
    let r = parse_responses(&exchange(p.addr, b"GET / HTTP/1.0\r\n\r\n"), &[]);
    assert_eq!(r[0].status, 200);
    let bad = exchange(p.addr, b"GET / HTTP/1.1\r\n\r\n");
    assert!(bad.starts_with(b"HTTP/1.1 400 "));
    let t = Instant::now();
    let (code, rest) = p.stop();
    assert_eq!(code, 0);
    assert!(t.elapsed() < time_bound(Duration::from_secs(5)));
    assert_eq!(
        rest,
        "canned: 2 connections, 1 request, 1 error (missing_host 1); responses 200 1, 400 1\n"
    );
}

#[test]
fn unix_socket_listener_is_served_and_removed_on_exit() {
    let path = std::env::temp_dir().join(format!("canned-test-{}.sock", std::process::id()));
    let arg = format!("unix:{}", path.display());
    let (mut child, _stderr, line) =
        spawn_listening(Command::new(bin()).args(["--listen", &arg, "--workers", "1"]));
    assert_eq!(line, format!("canned listening on {arg} (1 worker)\n"));
    let mut s = std::os::unix::net::UnixStream::connect(&path).unwrap();
    std::io::Write::write_all(&mut s, b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    assert!(out.starts_with(b"HTTP/1.1 200 OK\r\n") && out.ends_with(b"Hello World\n"));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success());
    assert!(!path.exists(), "socket file left behind");
}

#[test]
fn curl_http11_and_http10() {
    if !have("curl") {
        return;
    }
    let p = Proc::start(&["--health", "/healthz"]);
    for extra in [&[][..], &["--http1.0"]] {
        let o = Command::new("curl")
            .args(["-s", "-i"])
            .args(extra)
            .arg(p.url("/"))
            .arg(p.url("/healthz"))
            .output()
            .unwrap();
        assert!(o.status.success());
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(
            text.contains("Hello World\n") && text.ends_with("ok"),
            "{text}"
        );
    }
}

#[test]
fn ab_keep_alive_100000_requests_none_failed() {
    if !have("ab") {
        return;
    }
    let p = Proc::start(&["--workers", "1"]);
    let o = Command::new("ab")
        .args(["-k", "-c", "100", "-n", "100000"])
        .arg(p.url("/"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    assert_eq!(field("Complete requests:"), "100000");
    assert_eq!(field("Failed requests:"), "0");
    assert_eq!(field("Keep-Alive requests:"), "100000");
}

#[test]
fn python_http_client() {
    if !have("python3") {
        return;
    }
    let p = Proc::start(&["--route", "/created=201:made"]);
    let script = format!(
        r#"
import http.client
c = http.client.HTTPConnection("127.0.0.1", {port})
for i in range(50):
    c.request("GET", "/")
    r = c.getresponse()
    assert r.status == 200 and r.read() == b"Hello World\n", i
c.request("POST", "/created", body=b"x" * 100000)
r = c.getresponse()
assert r.status == 201 and r.read() == b"made"
c.request("HEAD", "/")
r = c.getresponse()
assert r.status == 200 and r.getheader("Content-Length") == "12" and r.read() == b""
c.request("GET", "/", headers={{"Connection": "close"}})
r = c.getresponse()
assert r.getheader("Connection") == "close" and r.read() == b"Hello World\n"
print("ok")
"#,
        port = p.addr.port()
    );
    python_ok(&script, &[], "python3");
}

#[test]
fn environment_variables_configure_the_binary() {
    let o = Command::new(bin())
        .env("CANNED_BODY", "from env")
        .env("CANNED_NO_DATE", "1")
        .env("CANNED_WORKERS", "1")
        .env("CANNED_LISTEN", "127.0.0.1:0")
        .args(["--help"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let (_child, _stderr, line) = spawn_listening(
        Command::new(bin())
            .env("CANNED_BODY", "from env")
            .env("CANNED_WORKERS", "1")
            .env("CANNED_LISTEN", "127.0.0.1:0"),
    );
    let addr = listening_addr(&line);
    let r = parse_responses(&exchange(addr, b"GET / HTTP/1.0\r\n\r\n"), &[]);
    assert_eq!(r[0].body, b"from env");
}

#[test]
fn systemd_socket_activation_serves_the_inherited_socket() {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let fd = listener.as_raw_fd();
    let mut cmd = Command::new("sh");
    // `exec` keeps the shell's pid, which is what LISTEN_PID must name.
    cmd.args([
        "-c",
        "export LISTEN_PID=$$ LISTEN_FDS=1; exec \"$0\" --workers 2",
    ])
    .arg(bin());
    // SAFETY: dup2 is async-signal-safe; fd stays open in the parent until the child runs.
    unsafe {
        cmd.pre_exec(move || {
            // dup2 onto itself keeps close-on-exec set: clear it then.
            let rc = if fd == 3 {
                libc::fcntl(3, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, 3)
            };
            if rc < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (mut child, _stderr, line) = spawn_listening(&mut cmd);
    drop(listener);
    assert_eq!(line, format!("canned listening on {addr} (2 workers)\n"));
    for _ in 0..4 {
        let r = parse_responses(&exchange(addr, b"GET / HTTP/1.0\r\n\r\n"), &[]);
        assert_eq!(r[0].status, 200);
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success());
}

#[test]
fn listen_fds_for_another_process_are_ignored() {
    let env = vec![
        ("LISTEN_FDS".into(), "1".into()),
        ("LISTEN_PID".into(), "1".into()),
    ];
    match canned::config::Config::from_args(["--listen", "127.0.0.1:0"], &env).unwrap() {
        canned::config::Command::Run(c) => {
            assert_eq!(
                c.listen,
                vec![canned::config::Listen::Tcp("127.0.0.1:0".parse().unwrap())]
            )
        }
        other => panic!("{other:?}"),
    }
}

/// The Kubernetes manifest's environment with the image's command line, read from
/// contrib/kubernetes.yaml and contrib/Dockerfile, plus the service-link variables Kubernetes
/// adds for a Service named `canned`: a valid configuration (it crash-looped when `--health`
/// and `CANNED_HEALTH` were both counted).
#[test]
fn kubernetes_manifest_with_the_image_command_is_a_valid_configuration() {
    let root = env!("CARGO_MANIFEST_DIR");
    let manifest = std::fs::read_to_string(format!("{root}/contrib/kubernetes.yaml")).unwrap();
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- {name: "))
        .filter_map(|l| l.strip_suffix('}')?.split_once(", value: "))
        .map(|(k, v)| (k.into(), v.trim_matches('"').into()))
        .collect();
    assert!(env.iter().any(|(k, _)| k == "CANNED_WORKERS"), "{env:?}");
    // A variable repeating one of the image's flags (the manifest once set CANNED_HEALTH next
    // to the image's --health, and crash-looped) and the service-link variables Kubernetes
    // adds for a Service named canned: the flags win, and the links are ignored.
    for (k, v) in [
        ("CANNED_HEALTH", "/healthz"),
        ("CANNED_PORT", "tcp://10.0.0.11:80"),
        ("CANNED_SERVICE_HOST", "10.0.0.11"),
        ("CANNED_PORT_80_TCP", "tcp://10.0.0.11:80"),
    ] {
        env.push((k.into(), v.into()));
    }
    let dockerfile = std::fs::read_to_string(format!("{root}/contrib/Dockerfile")).unwrap();
    let cmd = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("CMD ["))
        .and_then(|l| l.strip_suffix(']'))
        .unwrap();
    let args: Vec<&str> = cmd.split(',').map(|a| a.trim().trim_matches('"')).collect();
    match canned::config::Config::from_args(args, &env) {
        Ok(canned::config::Command::Run(c)) => assert_eq!(c.routes.len(), 2),
        other => panic!("{other:?}"),
    }
}

/// Worker threads are named `canned-1`, `canned-2`, ... (worker 0 runs on the main thread), as
/// `ps -L` and `top -H` show them. The static musl build names them through its own
/// `pthread_setname_np` (src/main.rs).
#[test]
fn worker_threads_are_named() {
    let p = Proc::start(&["--workers", "3"]);
    let tasks = format!("/proc/{}/task", p.child.id());
    let want = ["canned-1", "canned-2"];
    let deadline = Instant::now() + time_bound(Duration::from_secs(5));
    let mut names: Vec<String> = Vec::new();
    while Instant::now() < deadline {
        names = std::fs::read_dir(&tasks)
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .map(|name| name.trim_end().to_string())
            .collect();
        if want.iter().all(|w| names.iter().any(|n| n == w)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        want.iter().all(|w| names.iter().any(|n| n == w)),
        "{names:?}"
    );
    assert_eq!(p.stop().0, 0);
}

/// A configuration of many routes with a long header (docs/limits.md): its responses are
/// formatted once and shared by the workers, so 4 workers take about the memory of 1 (each
/// worker formatted its own copy before: 4 times the memory).
#[test]
fn many_routes_with_a_long_header_are_in_memory_once_for_every_worker() {
    let header = format!("X-Big: {}", "a".repeat(16 * 1024));
    let routes: String = (0..1000).map(|i| format!("/r{i}=200:ok{i}\n")).collect();
    let mut rss = Vec::new();
    for workers in ["1", "4"] {
        let p = Proc::start_with(&["--workers", workers, "--no-date"], |c| {
            c.env("CANNED_HEADER", &header).env("CANNED_ROUTE", &routes);
        });
        for path in ["/r0", "/r999"] {
            let mut s = connect(p.addr);
            std::io::Write::write_all(&mut s, format!("GET {path} HTTP/1.0\r\n\r\n").as_bytes())
                .unwrap();
            let r = &parse_responses(&read_to_eof(&mut s), &[false])[0];
            assert_eq!(r.header("X-Big").map(str::len), Some(16 * 1024));
            assert_eq!(r.body, format!("ok{}", &path[2..]).as_bytes());
        }
        std::thread::sleep(Duration::from_millis(200));
        rss.push(p.rss_kib());
        let (code, _) = p.stop();
        assert_eq!(code, 0);
    }
    eprintln!(
        "1,000 routes with a 16 KiB header (48 MiB formatted): RSS {} KiB with 1 worker, {} KiB \
         with 4",
        rss[0], rss[1]
    );
    // The formatted bytes alone are 48 MiB: one copy of them for each worker would add 144 MiB.
    assert!(rss[0] > 48 * 1024, "RSS {} KiB: not formatted?", rss[0]);
    assert!(
        rss[1] < rss[0] + 8 * 1024,
        "RSS {} KiB with 4 workers, {} KiB with 1",
        rss[1],
        rss[0]
    );
}

/// A configuration whose responses would take more than 64 MiB formatted is refused at
/// start-up, exit 2, with one line naming the options (docs/limits.md).
#[test]
fn responses_over_64_mib_formatted_are_refused_with_one_line() {
    let header = format!("X-Big: {}", "a".repeat(64 * 1024));
    let routes: String = (0..400).map(|i| format!("/r{i}=200\n")).collect();
    let mut child = Command::new(bin())
        .args(["--listen", "127.0.0.1:0", "--workers", "1"])
        .env("CANNED_HEADER", &header)
        .env("CANNED_ROUTE", &routes)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A server that accepted the configuration would serve until stopped.
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > time_bound(Duration::from_secs(20)) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("still running: the configuration was accepted");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("canned: error: --header, --route: the responses would take "),
        "{err}"
    );
    assert!(err.contains("over the limit of 67108864 (64 MiB)"), "{err}");
}

/// A `tls:` listener in a build without TLS is a bad value (exit 2), as an option of a
/// feature not built is, not a failure to start.
#[cfg(not(feature = "tls"))]
#[test]
fn a_tls_listener_without_the_feature_is_a_bad_flag() {
    let (code, out, err) = run(&["--listen", "tls:127.0.0.1:0"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "canned: error: --listen: \"tls:127.0.0.1:0\" needs TLS: this canned was built \
         without the \"tls\" feature (cargo build --features tls)\n"
    );
}

/// An option or command of a feature this binary was built without is refused with one line
/// naming it and the feature, and `--help` leaves it out (the core build runs every case; the
/// default build has every feature and none).
#[test]
fn options_of_a_feature_not_built_are_refused_naming_the_feature() {
    let cases: [(&[&str], &str, bool); 11] = [
        (&["--no-http2"], "http2", cfg!(feature = "http2")),
        (&["--fault", "/x=stall"], "faults", cfg!(feature = "faults")),
        (&["--control"], "control", cfg!(feature = "control")),
        (&["--echo", "/e"], "echo", cfg!(feature = "echo")),
        (&["--journal", "10"], "journal", cfg!(feature = "journal")),
        (&["--admin", "9090"], "admin", cfg!(feature = "admin")),
        (&["--mutate"], "mutate", cfg!(feature = "mutate")),
        (&["--etag", "\"v\""], "ranges", cfg!(feature = "ranges")),
        (&["--stats", "/s"], "stats", cfg!(feature = "stats")),
        (
            &["--access-log"],
            "access-log",
            cfg!(feature = "access-log"),
        ),
        (&["--man"], "manual", cfg!(feature = "manual")),
    ];
    let (_, help, _) = run(&["--help"]);
    for (args, feature, built) in cases {
        let flag = args[0];
        assert_eq!(
            help.contains(&format!("  {flag}")),
            built,
            "{flag} in --help"
        );
        if built {
            continue;
        }
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(
            err,
            format!(
                "canned: error: {flag}: this canned was built without the \"{feature}\" \
                 feature (cargo build --features {feature})\n"
            )
        );
    }
}
