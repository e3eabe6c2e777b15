//! The deployment files as a cluster runs them: the binary started with the Kubernetes
//! manifest's environment and the container image's arguments must start and answer its
//! probes. A combination that exits at start-up crash-loops every pod, and nothing else in the
//! test suite would notice. (`.ci/deploy-check` validates the same files' schemas and runs the
//! image itself.)

use crate::common;
use common::*;
use std::process::Command;
use std::time::{Duration, Instant};

const MANIFEST: &str = include_str!("../../contrib/kubernetes.yaml");
const DOCKERFILE: &str = include_str!("../../contrib/Dockerfile");

/// A Dockerfile instruction's JSON array (exec form), e.g. `CMD ["--port", "8080"]`.
fn exec_form(instruction: &str) -> Vec<String> {
    let lines: Vec<&str> = DOCKERFILE
        .lines()
        .filter_map(|l| l.strip_prefix(instruction)?.strip_prefix(' '))
        .collect();
    assert_eq!(lines.len(), 1, "one {instruction} in contrib/Dockerfile");
    let array = lines[0]
        .trim()
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']'))
        .unwrap_or_else(|| panic!("{instruction} is not in exec form: {}", lines[0]));
    assert!(!array.contains('\\'), "escapes are not parsed here");
    array
        .split(',')
        .map(|s| {
            let s = s.trim();
            s.strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or_else(|| panic!("{s} is not a JSON string"))
                .to_string()
        })
        .collect()
}

/// Every value of `key` in the manifest, in block (`key: v`) or flow (`{key: v, ...}`) style,
/// unquoted. The manifest keeps to those two forms; a form this misses fails the tests that
/// expect the value.
fn values(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in MANIFEST
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
    {
        let line = line.split(" #").next().unwrap();
        let mut rest = line;
        while let Some(at) = rest.find(&format!("{key}: ")) {
            let before = rest[..at].trim_end();
            let value_from = at + key.len() + 2;
            if before.is_empty() || before.ends_with(['{', ',', '-']) {
                let value = rest[value_from..]
                    .split([',', '}'])
                    .next()
                    .unwrap()
                    .trim()
                    .trim_matches('"');
                out.push(value.to_string());
            }
            rest = &rest[value_from..];
        }
    }
    out
}

/// The container's environment: the `env:` list of `{name: ..., value: ...}` entries.
fn manifest_env() -> Vec<(String, String)> {
    let lines: Vec<&str> = MANIFEST.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "env:")
        .expect("an env: list in contrib/kubernetes.yaml");
    let indent = lines[at].len() - lines[at].trim_start().len();
    let mut env = Vec::new();
    for line in &lines[at + 1..] {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() <= indent {
            break;
        }
        let entry = trimmed
            .strip_prefix("- {")
            .and_then(|e| e.strip_suffix('}'))
            .unwrap_or_else(|| panic!("env entry not in {{name: N, value: V}} form: {line}"));
        let field = |key: &str| {
            entry
                .split(", ")
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix(": "))
                .unwrap_or_else(|| panic!("no {key} in {line}"))
                .trim_matches('"')
                .to_string()
        };
        env.push((field("name"), field("value")));
    }
    env
}

/// The value following `flag` in the image's arguments.
fn flag_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let at = args.iter().position(|a| a == flag)?;
    Some(args.get(at + 1)?.as_str())
}

/// The image's arguments and the manifest's environment, exactly, except the port: the image
/// listens on 0.0.0.0:8080, the test on a free loopback port.
fn container_command(extra_env: &[(&str, &str)]) -> Command {
    assert_eq!(exec_form("ENTRYPOINT"), ["/canned"]);
    assert!(
        values("args").is_empty() && values("command").is_empty(),
        "the manifest overrides the image's arguments: run those here"
    );
    let mut args = exec_form("CMD");
    let port = args
        .iter()
        .position(|a| a == "--port")
        .expect("--port in CMD");
    args.splice(port..port + 2, ["--listen".into(), "127.0.0.1:0".into()]);
    let mut cmd = Command::new(bin());
    cmd.env_clear()
        .envs(manifest_env())
        .envs(extra_env.iter().copied())
        .args(args);
    cmd
}

/// Start the container's command and check what the probes and the Service rely on: `/`
/// answers, the health path answers 200 `ok`, and SIGTERM drains and exits 0.
fn starts_and_answers(mut cmd: Command) {
    let health = flag_value(&exec_form("CMD"), "--health")
        .expect("--health in CMD")
        .to_string();
    let (mut child, _stderr, line) = spawn_listening(&mut cmd);
    // A start-up error is this first line; listening_addr shows it.
    let addr = listening_addr(&line);
    for (path, status, body) in [
        ("/", 200, &b"Hello World\n"[..]),
        (health.as_str(), 200, b"ok"),
    ] {
        let request = format!("GET {path} HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n");
        let r = parse_responses(&exchange(addr, request.as_bytes()), &[]);
        assert_eq!((r[0].status, &r[0].body[..]), (status, body), "GET {path}");
    }
    let t = Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "exit status after SIGTERM");
    assert!(t.elapsed() < Duration::from_secs(10));
}

#[test]
fn manifest_env_and_image_args_start_and_answer_the_probes() {
    starts_and_answers(container_command(&[]));
}

/// What a pod gets when the manifest sets an option the image already passes as a flag (as
/// it once set CANNED_HEALTH beside the image's --health): the flag wins, and the pod starts.
#[test]
fn an_env_variable_repeating_an_image_flag_does_not_stop_the_start() {
    let args = exec_form("CMD");
    let health = flag_value(&args, "--health").expect("--health in CMD");
    starts_and_answers(container_command(&[("CANNED_HEALTH", health)]));
}

#[test]
fn probes_ports_and_environment_match_the_image() {
    let args = exec_form("CMD");
    let health = flag_value(&args, "--health").expect("--health in CMD");
    let probes = values("path");
    assert_eq!(probes.len(), 2, "a liveness and a readiness probe");
    for path in &probes {
        assert_eq!(path, health, "a probe on a path the image does not serve");
    }
    let port = flag_value(&args, "--port").expect("--port in CMD");
    assert_eq!(values("containerPort"), [port]);
    // The image's --port flag wins over these: in the manifest they would do nothing.
    let env = manifest_env();
    for (name, _) in &env {
        assert!(
            !["PORT", "CANNED_PORT", "CANNED_LISTEN", "CANNED_HEALTH"].contains(&name.as_str()),
            "{name} in the manifest: the image's arguments already set it"
        );
    }
    // Every variable is one canned reads (a misspelt one would be ignored).
    let help = Command::new(bin()).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for (name, _) in &env {
        assert!(help.contains(name.as_str()), "{name} is not in --help");
    }
}

/// Kubernetes sends SIGTERM after the preStop hook and SIGKILL at the end of the grace period:
/// the sleep and canned's drain must fit inside it.
#[test]
fn drain_fits_the_termination_grace_period() {
    let seconds = |v: &str| -> u64 {
        v.trim_end_matches('s')
            .parse()
            .unwrap_or_else(|_| panic!("{v} is not whole seconds"))
    };
    let grace = seconds(&values("terminationGracePeriodSeconds")[0]);
    let pre_stop = seconds(&values("seconds")[0]);
    let env = manifest_env();
    let drain = env
        .iter()
        .find(|(n, _)| n == "CANNED_SHUTDOWN_TIMEOUT")
        .map_or(5, |(_, v)| seconds(v));
    assert!(
        pre_stop + drain < grace,
        "preStop {pre_stop} s + drain {drain} s >= grace period {grace} s"
    );
}

#[test]
fn restricted_pod_security_fields_are_set() {
    for (key, want) in [
        ("runAsNonRoot", "true"),
        ("allowPrivilegeEscalation", "false"),
        ("readOnlyRootFilesystem", "true"),
        ("type", "RuntimeDefault"),
        ("drop", "[ALL]"),
        ("imagePullPolicy", "IfNotPresent"),
    ] {
        assert_eq!(values(key), [want], "{key}");
    }
    // The manifest's user is the image's.
    let user = DOCKERFILE
        .lines()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("USER in contrib/Dockerfile");
    assert_eq!(values("runAsUser"), [user.split(':').next().unwrap()]);
}
