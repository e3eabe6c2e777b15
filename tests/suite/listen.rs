//! Listeners: what canned does with an address or path that is already taken, dual-stack
//! `[::]`, inherited (owned) sockets, and a worker count the fd limit cannot hold.

use crate::common;

use canned::config::{Command as Cli, Config, Listen};
use canned::server::{Handle, Server};
use common::{Proc, bin, exchange, limit_fds, parse_responses};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn config(listen: &str, workers: usize, body: &str) -> Config {
    let args = [
        "--listen",
        listen,
        "--quiet",
        "--workers",
        &workers.to_string(),
        "--body",
        body,
    ];
    let Cli::Run(c) = Config::from_args(args, &[]).unwrap() else {
        panic!("not a run command")
    };
    *c
}

fn body_at(addr: SocketAddr) -> Vec<u8> {
    let r = parse_responses(&exchange(addr, b"GET / HTTP/1.0\r\n\r\n"), &[]);
    r[0].body.clone()
}

fn unix_body(path: &Path) -> Vec<u8> {
    let mut s = UnixStream::connect(path).unwrap();
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    parse_responses(&out, &[])[0].body.clone()
}

/// Run a canned that is expected to exit at once: its exit code and stderr. One still running
/// after 20 s is killed and fails the test (a second server that starts serves forever).
fn run_expecting_exit(cmd: &mut Command) -> (Option<i32>, String) {
    let mut child = common::Reap(
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running: {cmd:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err)
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canned-listen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A process that another test spawns holds a copy of every fd between its fork and exec, so
/// a dropped listener can accept for that long: wait until it refuses.
fn wait_until_refused(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while UnixStream::connect(path).is_ok() {
        assert!(
            Instant::now() < deadline,
            "{} still accepts",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn serve(c: Config) -> Handle {
    Server::bind(c).unwrap().spawn().unwrap()
}

#[test]
fn unix_path_is_taken_over_only_from_a_stale_socket() {
    let dir = scratch("unix");
    // (what is at the path, expected error text or None to start)
    type Setup = fn(&Path) -> Option<UnixListener>;
    let cases: [(&str, Setup, Option<&str>); 5] = [
        ("nothing", |_| None, None),
        (
            "a stale socket",
            |p| {
                drop(UnixListener::bind(p).unwrap());
                wait_until_refused(p);
                None
            },
            None,
        ),
        (
            "a regular file",
            |p| {
                std::fs::write(p, "keep me").unwrap();
                None
            },
            Some("exists and is not a socket"),
        ),
        (
            "a directory",
            |p| {
                std::fs::create_dir(p).unwrap();
                None
            },
            Some("exists and is not a socket"),
        ),
        (
            "a live socket",
            |p| Some(UnixListener::bind(p).unwrap()),
            Some("is in use by another server"),
        ),
    ];
    for (i, (what, setup, want_err)) in cases.into_iter().enumerate() {
        let path = dir.join(format!("s{i}"));
        let live = setup(&path);
        let before = std::fs::symlink_metadata(&path).ok();
        let listen = format!("unix:{}", path.display());
        match (Server::bind(config(&listen, 2, "new")), want_err) {
            (Ok(server), None) => {
                let h = server.spawn().unwrap();
                assert_eq!(unix_body(&path), b"new", "{what}");
                h.shutdown();
                h.join();
                assert!(!path.exists(), "{what}: socket file left behind");
            }
            (Err(e), Some(text)) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(text) && msg.contains(&path.display().to_string()),
                    "{what}: {msg}"
                );
                // Left exactly as it was.
                let after = std::fs::symlink_metadata(&path).unwrap();
                let before = before.unwrap();
                assert_eq!(
                    (after.file_type(), after.len()),
                    (before.file_type(), before.len()),
                    "{what}"
                );
                if after.is_file() {
                    assert_eq!(std::fs::read(&path).unwrap(), b"keep me");
                }
                if let Some(l) = live {
                    // The other server still has its socket.
                    let _c = UnixStream::connect(&path).unwrap();
                    let (_s, _) = l.accept().unwrap();
                }
            }
            (Ok(_), Some(_)) => panic!("{what}: started"),
            (Err(e), None) => panic!("{what}: {e}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn second_process_on_a_live_unix_socket_exits_1_and_the_first_keeps_serving() {
    let dir = scratch("unix-proc");
    let path = dir.join("s");
    let listen = format!("unix:{}", path.display());
    let (mut first, _stderr, line) = common::spawn_listening(Command::new(bin()).args([
        "--listen",
        &listen,
        "--workers",
        "1",
        "--body",
        "first",
    ]));
    assert!(line.contains(&listen), "{line}");
    let (code, err) =
        run_expecting_exit(Command::new(bin()).args(["--listen", &listen, "--workers", "1"]));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "canned: error: cannot listen on {listen}: {} is in use by another server\n",
            path.display()
        )
    );
    assert_eq!(unix_body(&path), b"first");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    assert!(first.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unix_socket_in_a_missing_directory_names_the_path() {
    let path = scratch("missing").join("no-such-dir").join("s");
    let listen = format!("unix:{}", path.display());
    let (code, err) = run_expecting_exit(Command::new(bin()).args(["--listen", &listen]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(&format!("canned: error: cannot listen on {listen}: ")),
        "{err}"
    );
}

#[test]
fn exit_removes_only_the_socket_file_this_server_created() {
    let dir = scratch("replaced");
    // (what replaces the server's socket file while it runs)
    type Replace = fn(&Path);
    let cases: [(&str, Replace); 2] = [
        ("a regular file", |p| {
            std::fs::write(p, "not yours").unwrap()
        }),
        ("another socket", |p| {
            drop(UnixListener::bind(p).unwrap());
        }),
    ];
    for (what, replace) in cases {
        let path = dir.join("s");
        let h = serve(config(&format!("unix:{}", path.display()), 2, "x"));
        std::fs::remove_file(&path).unwrap();
        replace(&path);
        let kept = std::fs::symlink_metadata(&path).unwrap();
        h.shutdown();
        h.join();
        let after = std::fs::symlink_metadata(&path).expect(what);
        assert_eq!(
            (
                after.file_type(),
                std::os::unix::fs::MetadataExt::ino(&after)
            ),
            (kept.file_type(), std::os::unix::fs::MetadataExt::ino(&kept)),
            "{what}"
        );
        std::fs::remove_file(&path).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tcp_address_in_use_is_an_error_whatever_the_worker_counts() {
    // (first's workers, second's workers): every pair collides.
    for (first, second) in [(1, 1), (1, 2), (2, 1), (2, 2), (3, 4)] {
        let h = serve(config("127.0.0.1:0", first, "first"));
        let addr = h.tcp_addr().unwrap();
        let e = Server::bind(config(&addr.to_string(), second, "second"))
            .err()
            .unwrap_or_else(|| panic!("{first} then {second} workers: second started"));
        assert_eq!(e.kind(), ErrorKind::AddrInUse, "{first}/{second}: {e}");
        assert!(
            e.to_string()
                .starts_with(&format!("cannot listen on {addr}: address in use")),
            "{e}"
        );
        for _ in 0..8 {
            assert_eq!(body_at(addr), b"first");
        }
        h.shutdown();
        h.join();
    }
}

/// A port held only by a connection in TIME-WAIT (one whose socket had no SO_REUSEADDR, as a
/// client's has) is refused by bind even with SO_REUSEADDR, but nothing listens there: the
/// error says so instead of blaming another process's listener, as it used to.
#[test]
fn a_port_held_by_a_connection_in_time_wait_is_told_apart_from_a_listener() {
    use socket2::{Domain, Socket, Type};
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let client = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    client
        .bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    let held = client.local_addr().unwrap().as_socket().unwrap();
    client
        .connect(&server.local_addr().unwrap().into())
        .unwrap();
    let (accepted, _) = server.accept().unwrap();
    // The side that closes first keeps TIME-WAIT: the client, on port `held`.
    drop(client);
    let mut rest = Vec::new();
    (&accepted).read_to_end(&mut rest).unwrap();
    drop(accepted);
    for workers in ["1", "2"] {
        let (code, err) = run_expecting_exit(Command::new(bin()).args([
            "--listen",
            &held.to_string(),
            "--workers",
            workers,
        ]));
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.starts_with(&format!(
                "canned: error: cannot listen on {held}: address in use, but nothing listens \
                 there: a socket that does not listen holds the port (a connection in TIME-WAIT"
            )),
            "{err}"
        );
    }
    // A real listener is still named as one.
    let listening = server.local_addr().unwrap().to_string();
    let (code, err) = run_expecting_exit(Command::new(bin()).args(["--listen", &listening]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(&format!(
            "canned: error: cannot listen on {listening}: address in use (another process listens there"
        )),
        "{err}"
    );
}

/// Two `--listen`s of one command that overlap (`[::]:P` covers `127.0.0.1:P`) clash with each
/// other, not with another process: the error names the earlier one.
#[test]
fn an_address_covered_by_an_earlier_listen_names_it() {
    // A port free a moment ago; a clash with some other process would fail the message check.
    let port = std::net::TcpListener::bind("[::]:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let wild = format!("[::]:{port}");
    let v4 = format!("127.0.0.1:{port}");
    let (code, err) = run_expecting_exit(Command::new(bin()).args([
        "--listen",
        &wild,
        "--listen",
        &v4,
        "--workers",
        "1",
    ]));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "canned: error: cannot listen on {v4}: --listen {wild}, given before it, covers it\n"
        )
    );
}

/// `--admin` on a taken address says what holds it, as `--listen` does: here canned's own
/// listener on the same port (a wildcard covers the loopback address); another process
/// listening there: tests/suite/admin.rs.
#[cfg(feature = "admin")]
#[test]
fn an_admin_address_in_use_says_what_holds_it() {
    let port = std::net::TcpListener::bind("[::]:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let wild = format!("[::]:{port}");
    let admin = format!("127.0.0.1:{port}");
    let (code, err) = run_expecting_exit(Command::new(bin()).args([
        "--listen",
        &wild,
        "--admin",
        &port.to_string(),
    ]));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "canned: error: --admin: cannot listen on {admin}: canned's own --listen {wild} \
             covers it; give --admin another port\n"
        )
    );
}

#[test]
fn second_process_on_a_tcp_address_in_use_exits_1() {
    let first = Proc::start(&["--workers", "2", "--body", "first"]);
    let addr = first.addr.to_string();
    let (code, err) =
        run_expecting_exit(Command::new(bin()).args(["--listen", &addr, "--workers", "2"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(&format!(
            "canned: error: cannot listen on {addr}: address in use"
        )),
        "{err}"
    );
    for _ in 0..8 {
        assert_eq!(body_at(first.addr), b"first");
    }
    assert_eq!(first.stop().0, 0);
}

#[test]
fn dual_stack_any_address_collides_with_ipv4_any() {
    let h = serve(config("[::]:0", 2, "v6"));
    let port = h.tcp_addr().unwrap().port();
    let e = Server::bind(config(&format!("0.0.0.0:{port}"), 2, "v4"))
        .err()
        .expect("0.0.0.0 started beside a dual-stack [::]");
    assert_eq!(e.kind(), ErrorKind::AddrInUse, "{e}");
    h.shutdown();
    h.join();
}

#[test]
fn with_reuse_port_a_second_process_shares_the_address() {
    let first = Proc::start(&["--workers", "2", "--body", "first"]);
    let second = serve(Config {
        reuse_port: true,
        ..config(&first.addr.to_string(), 2, "second")
    });
    assert_eq!(second.tcp_addr(), Some(first.addr));
    // The kernel spreads connections over all four sockets by their address hash: 40 fresh
    // connections miss one process only with probability 2^-39.
    let bodies: Vec<Vec<u8>> = (0..40).map(|_| body_at(first.addr)).collect();
    for want in [&b"first"[..], b"second"] {
        assert!(
            bodies.iter().any(|b| b == want),
            "{:?} never answered",
            want
        );
    }
    second.shutdown();
    second.join();
    assert_eq!(first.stop().0, 0);
}

#[test]
fn servers_that_both_ask_for_reuse_port_share_whatever_their_worker_counts() {
    // One worker alone needs no SO_REUSEPORT, so without the opt-in it takes none.
    for (first, second) in [(1, 1), (1, 2), (2, 1)] {
        let a = serve(Config {
            reuse_port: true,
            ..config("127.0.0.1:0", first, "a")
        });
        let addr = a.tcp_addr().unwrap();
        let b = serve(Config {
            reuse_port: true,
            ..config(&addr.to_string(), second, "b")
        });
        // 40 connections miss one server with probability below 2 * (2/3)^40.
        let bodies: Vec<Vec<u8>> = (0..40).map(|_| body_at(addr)).collect();
        for want in [&b"a"[..], b"b"] {
            assert!(
                bodies.iter().any(|b| b == want),
                "{first}/{second}: {want:?}"
            );
        }
        for h in [a, b] {
            h.shutdown();
            h.join();
        }
    }
}

#[test]
fn any_ipv6_address_serves_ipv4_and_ipv6_clients() {
    let (_child, _stderr, line) =
        common::spawn_listening(Command::new(bin()).args(["--listen", "[::]:0", "--workers", "2"]));
    let any = common::listening_addr(&line);
    assert!(any.ip().is_unspecified() && any.is_ipv6(), "{line}");
    for client in ["127.0.0.1", "[::1]"] {
        let addr: SocketAddr = format!("{client}:{}", any.port()).parse().unwrap();
        assert_eq!(body_at(addr), b"Hello World\n", "{client}");
    }
}

/// Make socket(AF_INET6, ...) fail with EAFNOSUPPORT in the child, as on a kernel built
/// without IPv6: a seccomp filter installed between fork and exec.
fn without_ipv6(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // The low 32 bits of the syscall's first argument in `struct seccomp_data`.
    const ARG0_LOW: u32 = if cfg!(target_endian = "little") {
        16
    } else {
        20
    };
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jump_if = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    let filter = [
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0),
        jump_if(libc::SYS_socket as u32, 0, 3),
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, ARG0_LOW),
        jump_if(libc::AF_INET6 as u32, 0, 1),
        stmt(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | libc::EAFNOSUPPORT as u32,
        ),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW),
    ];
    // SAFETY: prctl(2) only, which is async-signal-safe; the filter outlives both calls (it
    // is moved into the closure, and the kernel copies it).
    unsafe {
        cmd.pre_exec(move || {
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr().cast_mut(),
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[test]
// The filter that fakes a kernel without IPv6 is installed with prctl(PR_SET_SECCOMP), which
// qemu's user-mode emulation refuses (EINVAL): under the emulated aarch64 run this one test is
// reported as ignored, with this reason (docs/platforms.md).
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "seccomp filters cannot be installed under qemu-user"
)]
fn any_ipv6_address_falls_back_to_ipv4_on_a_host_without_ipv6() {
    let mut cmd = Command::new(bin());
    cmd.args(["--listen", "[::]:0", "--workers", "2"]);
    without_ipv6(&mut cmd);
    let (_child, _stderr, line) = common::spawn_listening(&mut cmd);
    let addr = common::listening_addr(&line);
    assert_eq!(
        line,
        format!(
            "canned listening on 0.0.0.0:{} (IPv4 only: this host has no IPv6) (2 workers)\n",
            addr.port()
        )
    );
    let v4: SocketAddr = format!("127.0.0.1:{}", addr.port()).parse().unwrap();
    assert_eq!(body_at(v4), b"Hello World\n");
}

#[test]
fn inherited_fd_is_owned_by_the_listen_and_closed_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let fd = Listen::Fd(std::sync::Arc::new(std::os::fd::OwnedFd::from(listener)));
    // Two servers in turn on the same inherited socket: the first must not close it.
    for body in ["one", "two"] {
        let c = Config {
            listen: vec![fd.clone()],
            workers: 2,
            ..Config::default().body(body)
        };
        let h = serve(c);
        assert_eq!(h.tcp_addr(), Some(addr));
        assert_eq!(body_at(addr), body.as_bytes());
        h.shutdown();
        h.join();
    }
    // The servers let go of their clones; the last owner closes it.
    let Listen::Fd(owned) = &fd else {
        unreachable!()
    };
    assert_eq!(std::sync::Arc::strong_count(owned), 1);
    drop(fd);
    // Nothing listens there any more (after any fork-to-exec copy is gone, as for
    // `wait_until_refused`).
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).is_ok() {
        assert!(Instant::now() < deadline, "{addr} still listening");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn listen_fds_are_adopted_only_when_the_process_environment_passes_them() {
    // The process environment has no LISTEN_PID: a caller's slice naming this process must
    // not make canned take fd 3, which belongs to someone else here.
    let pid = std::process::id().to_string();
    let env: Vec<(std::ffi::OsString, std::ffi::OsString)> = vec![
        ("LISTEN_FDS".into(), "1".into()),
        ("LISTEN_PID".into(), pid.into()),
    ];
    let e = Config::from_args(["--quiet"], &env).unwrap_err();
    assert!(e.to_string().starts_with("LISTEN_FDS: "), "{e}");
}

#[test]
fn workers_beyond_the_fd_limit_are_refused_naming_the_flag() {
    let limited = |cmd: &mut Command| limit_fds(cmd, 256, 0);
    let mut cmd = Command::new(bin());
    cmd.args(["--listen", "127.0.0.1:0", "--workers", "100"]);
    limited(&mut cmd);
    let (code, err) = run_expecting_exit(&mut cmd);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("canned: error: --workers 100 needs ")
            && err.contains("of the limit of 256")
            && err.trim_end().lines().count() == 1,
        "{err}"
    );
    // A count that fits still starts under the same limit.
    let p = Proc::start_with(&["--workers", "4"], limited);
    assert_eq!(body_at(p.addr), b"Hello World\n");
    assert_eq!(p.stop().0, 0);
}

/// An inherited or handed-over fd that is not a listening stream socket is refused at bind,
/// naming the fd: polled, it would report an error on every turn and spin its worker.
#[test]
fn inherited_fd_that_cannot_accept_is_refused() {
    use socket2::{Domain, Socket, Type};
    use std::os::fd::{AsRawFd, OwnedFd};
    let bound_only = || {
        let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        s.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
            .unwrap();
        OwnedFd::from(s)
    };
    let datagram = || OwnedFd::from(std::net::UdpSocket::bind("127.0.0.1:0").unwrap());
    let file = || OwnedFd::from(std::fs::File::open("/dev/null").unwrap());
    let listening = || OwnedFd::from(std::net::TcpListener::bind("127.0.0.1:0").unwrap());
    // (what the fd is, accepted)
    let cases: [(&str, &dyn Fn() -> OwnedFd, bool); 4] = [
        ("bound, not listening", &bound_only, false),
        ("UDP", &datagram, false),
        ("a file", &file, false),
        ("listening TCP", &listening, true),
    ];
    for (what, make, accepted) in cases {
        let fd = make();
        let raw = fd.as_raw_fd();
        let c = Config {
            listen: vec![Listen::Fd(std::sync::Arc::new(fd))],
            workers: 1,
            ..Config::default()
        };
        match Server::bind(c) {
            Ok(_) => assert!(accepted, "{what}: accepted"),
            Err(e) => {
                assert!(!accepted, "{what}: {e}");
                let want = format!("fd {raw} is not a listening stream socket");
                // A file is not a socket at all: the type check fails first.
                assert!(e.to_string() == want || what == "a file", "{what}: {e}");
            }
        }
    }
}
