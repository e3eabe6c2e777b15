//! Helpers shared by the integration tests: start a server in-process, talk raw bytes to it,
//! and split what comes back into responses.
#![allow(dead_code)]

use canned::config::{Command as Cli, Config};
use canned::server::{Handle, Server};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod frames;
mod retry;
pub use frames::*;
pub use retry::{ReadSome, WriteSome};

/// Start a server on 127.0.0.1:0 with these extra flags, two workers unless given.
pub fn start(flags: &[&str]) -> (Handle, SocketAddr) {
    let mut args = vec!["--listen", "127.0.0.1:0", "--quiet", "--no-date"];
    if !flags.contains(&"--workers") {
        args.extend(["--workers", "2"]);
    }
    args.extend_from_slice(flags);
    let Cli::Run(c) = Config::from_args(args.iter().copied(), &[]).unwrap() else {
        panic!("not a run command")
    };
    let h = Server::bind(*c).unwrap().spawn().unwrap();
    let addr = h.tcp_addr().unwrap();
    (h, addr)
}

pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// Read until the peer closes (or the 10 s read timeout, which fails the test).
pub fn read_to_eof(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read_some(&mut buf) {
            Ok(0) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return out,
            // A signal caught while blocked with a receive timeout is EINTR, not a restart.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("read failed after {} bytes: {e}", out.len()),
        }
    }
}

/// Send `req` on a new connection and read everything until the server closes.
pub fn exchange(addr: SocketAddr, req: &[u8]) -> Vec<u8> {
    let mut s = connect(addr);
    s.write_all(req).unwrap();
    read_to_eof(&mut s)
}

/// One parsed response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Split a byte stream into responses; `heads` says which requests were HEAD (no body).
/// Panics on anything that is not a well-formed response.
pub fn parse_responses(mut data: &[u8], head_requests: &[bool]) -> Vec<Resp> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let end = data
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("truncated head: {:?}", String::from_utf8_lossy(data)));
        let head = std::str::from_utf8(&data[..end]).unwrap();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
        let status: u16 = status_line[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|l| {
                let (k, v) = l.split_once(": ").unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        data = &data[end + 4..];
        let mut r = Resp {
            status,
            headers,
            body: Vec::new(),
        };
        if status == 100 {
            out.push(r);
            continue;
        }
        let is_head = head_requests.get(out.len()).copied().unwrap_or(false);
        let len: usize = r.header("content-length").map_or(0, |v| v.parse().unwrap());
        if !is_head {
            assert!(data.len() >= len, "truncated body");
            r.body = data[..len].to_vec();
            data = &data[len..];
        }
        out.push(r);
    }
    out
}

/// Read exactly `n` responses (no HEAD) from a keep-alive connection.
pub fn read_responses(s: &mut TcpStream, n: usize) -> Vec<Resp> {
    let mut data = Vec::new();
    let mut buf = [0u8; 65536];
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(r) = try_parse(&data, n) {
            return r;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {n} responses"
        );
        let k = match s.read_some(&mut buf) {
            Ok(k) => k,
            // A signal caught while blocked with a receive timeout is EINTR, not a restart
            // (another test of the same binary signals its own server).
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("read failed after {} bytes: {e}", data.len()),
        };
        assert!(
            k > 0,
            "closed after {} bytes, wanted {n} responses",
            data.len()
        );
        data.extend_from_slice(&buf[..k]);
    }
}

fn try_parse(data: &[u8], n: usize) -> Option<Vec<Resp>> {
    // Count complete responses without panicking on a partial one.
    let mut at = 0;
    let mut count = 0;
    while count < n {
        let rest = &data[at..];
        let end = rest.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = std::str::from_utf8(&rest[..end]).ok()?;
        let len: usize = head
            .split("\r\n")
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .map_or(0, |v| v.parse().unwrap());
        if rest.len() < end + 4 + len {
            return None;
        }
        at += end + 4 + len;
        count += 1;
    }
    assert_eq!(at, data.len(), "more bytes than {n} responses");
    Some(parse_responses(&data[..at], &[]))
}

/// Upper bounds on elapsed time are multiplied by this: `CANNED_TEST_TIME_SCALE`, 1 unless set.
/// Under qemu user emulation everything runs several times slower, so `.ci/cross` sets 10 for
/// the suite it runs there (docs/platforms.md). Lower bounds (a timer must not fire early)
/// are never scaled, and nothing is skipped.
pub fn time_scale() -> u32 {
    std::env::var("CANNED_TEST_TIME_SCALE").map_or(1, |v| {
        v.parse()
            .ok()
            .filter(|&n| n >= 1)
            .unwrap_or_else(|| panic!("CANNED_TEST_TIME_SCALE={v:?}: want a whole number >= 1"))
    })
}

/// `limit` as an upper bound for this run: multiplied by [`time_scale`].
pub fn time_bound(limit: Duration) -> Duration {
    limit * time_scale()
}

/// Whether an external tool is installed; in CI a missing tool fails the test.
pub fn have(tool: &str) -> bool {
    let ok = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "{tool} is not installed");
        eprintln!("skipping: {tool} is not installed");
    }
    ok
}

/// The binary the process tests run: this package's, or another build of it named by
/// `CANNED_BIN` (`.ci/static-check` runs the process suites against the small static build).
pub fn bin() -> std::ffi::OsString {
    std::env::var_os("CANNED_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_canned").into())
}

/// A child process that is killed and reaped when dropped, so a test that fails part-way leaves
/// no server running.
pub struct Reap(pub Child);

impl std::ops::Deref for Reap {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Reap {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A running `canned` process and the address it printed.
pub struct Proc {
    pub child: Reap,
    pub addr: SocketAddr,
    pub stderr: BufReader<std::process::ChildStderr>,
}

impl Proc {
    pub fn start(args: &[&str]) -> Proc {
        Proc::start_with(args, |_| {})
    }

    /// Start with a hook to adjust the command (environment, limits).
    pub fn start_with(args: &[&str], adjust: impl FnOnce(&mut Command)) -> Proc {
        let mut cmd = Command::new(bin());
        cmd.args(["--listen", "127.0.0.1:0"]).args(args);
        adjust(&mut cmd);
        let (child, stderr, line) =
            spawn_listening(cmd.stdin(Stdio::null()).stdout(Stdio::piped()));
        let addr = listening_addr(&line);
        Proc {
            child,
            addr,
            stderr,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// SIGTERM, then wait: (exit code, the rest of stderr).
    pub fn stop(mut self) -> (i32, String) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let status = self.child.wait().unwrap();
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        (status.code().unwrap_or(-1), rest)
    }
}

/// The TCP address in a `canned listening on ADDR (N workers)` line.
pub fn listening_addr(line: &str) -> SocketAddr {
    line.strip_prefix("canned listening on ")
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap()
}

/// Spawn a server with stderr piped and return its first line after any warnings: the
/// `canned listening on ADDR (N workers)` line.
pub fn spawn_listening(cmd: &mut Command) -> (Reap, BufReader<std::process::ChildStderr>, String) {
    let mut child = Reap(cmd.stderr(Stdio::piped()).spawn().unwrap());
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    while line.starts_with("canned: warning:") {
        line.clear();
        stderr.read_line(&mut line).unwrap();
    }
    (child, stderr, line)
}

impl Proc {
    /// Resident memory of the server process, KiB.
    pub fn rss_kib(&self) -> u64 {
        proc_field(self.child.id(), "VmRSS:")
    }

    /// Open file descriptors of the server process.
    pub fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .unwrap()
            .count()
    }

    /// User + system CPU time of the server process, in clock ticks.
    pub fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = after.split(' ').collect();
        f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
    }
}

/// Bytes sent on `client` that the server has not read yet: the receive queue of the server's
/// end of the connection, from /proc/net/tcp (tcp6). `None` while that end is not listed.
pub fn unread_by_server(client: &TcpStream) -> Option<u64> {
    // Each address as the kernel prints it: the address's 32-bit words in host order, then
    // the port.
    let hex = |a: SocketAddr| {
        let words = match a.ip() {
            std::net::IpAddr::V4(ip) => ip.octets().to_vec(),
            std::net::IpAddr::V6(ip) => ip.octets().to_vec(),
        };
        let ip: String = words
            .chunks(4)
            .map(|w| format!("{:08X}", u32::from_ne_bytes(w.try_into().unwrap())))
            .collect();
        format!("{ip}:{:04X}", a.port())
    };
    let (server, me) = (client.peer_addr().ok()?, client.local_addr().ok()?);
    let table = if server.is_ipv4() {
        "/proc/net/tcp"
    } else {
        "/proc/net/tcp6"
    };
    let (server, me) = (hex(server), hex(me));
    std::fs::read_to_string(table).ok()?.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 4 && f[1] == server && f[2] == me)
            .then(|| u64::from_str_radix(f[4].split(':').nth(1)?, 16).ok())?
    })
}

/// Wait until the server's end of `client` holds exactly `unread` bytes not read yet: 0 once the
/// server has read everything sent so far, the bytes just sent once they have arrived.
pub fn wait_unread_by_server(client: &TcpStream, unread: u64) {
    let t = Instant::now();
    while unread_by_server(client) != Some(unread) {
        assert!(
            t.elapsed() < time_bound(Duration::from_secs(10)),
            "the server's end holds {:?} unread bytes, not {unread}",
            unread_by_server(client)
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

pub fn proc_field(pid: u32, name: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Start `cmd` under an fd limit of `limit` (soft and hard), with `taken` descriptors already
/// open on /dev/null, as another part of a busy process would hold them. The spawn fails if
/// the limit cannot be set.
pub fn limit_fds(cmd: &mut Command, limit: libc::rlim_t, taken: usize) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls (setrlimit, open) between fork and exec; the closure
    // touches no memory of the parent but its two copied numbers.
    unsafe {
        cmd.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            for _ in 0..taken {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            }
            Ok(())
        });
    }
}

/// The flags a contrib adapter's Dockerfile runs canned with: the exec-form array of its
/// `ENTRYPOINT` or `CMD` line, after the program, without `--listen ADDR` and `--quiet` (the
/// tests choose those).
pub fn adapter_flags(dockerfile: &str) -> Vec<String> {
    let path = format!("{}/{dockerfile}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("ENTRYPOINT [") || l.starts_with("CMD ["))
        .unwrap_or_else(|| panic!("{path}: no exec-form ENTRYPOINT or CMD"));
    let array = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
    let words: Vec<String> = array
        .split(", ")
        .map(|w| {
            let w = w.trim();
            assert!(
                w.len() >= 2 && w.starts_with('"') && w.ends_with('"'),
                "{path}: {w}"
            );
            assert!(!w[1..w.len() - 1].contains(['"', '\\']), "{path}: {w}");
            w[1..w.len() - 1].to_string()
        })
        .collect();
    assert!(words[0].ends_with("canned"), "{path}: runs {}", words[0]);
    let mut flags = Vec::new();
    let mut rest = words[1..].iter();
    while let Some(w) = rest.next() {
        match w.as_str() {
            "--listen" => {
                rest.next();
            }
            "--quiet" => {}
            _ => flags.push(w.clone()),
        }
    }
    flags
}

/// Run `python3 -c script ARGS...` and require that it print `ok` (its checks are Python
/// asserts); `what` names the case in the failure, with Python's stderr.
pub fn python_ok(script: &str, args: &[&std::ffi::OsStr], what: &str) {
    let o = Command::new("python3")
        .args([std::ffi::OsStr::new("-c"), script.as_ref()])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "ok\n",
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A Go program of one file, run with `go run` and the standard library alone (no module
/// proxy here: `GO111MODULE=off`, `GOPROXY=off`), in a scratch directory removed on drop.
pub struct GoProgram {
    dir: std::path::PathBuf,
}

impl GoProgram {
    /// Write `source` as `main.go` in a directory named for `name` and this process.
    pub fn new(name: &str, source: &str) -> GoProgram {
        let dir = std::env::temp_dir().join(format!("canned-{name}-go-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("main.go"), source).unwrap();
        GoProgram { dir }
    }

    /// `go run main.go ARGS...`.
    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> std::process::Output {
        Command::new("go")
            .arg("run")
            .arg(self.dir.join("main.go"))
            .args(args)
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .env("GOCACHE", self.dir.join("cache"))
            .env("GO111MODULE", "off")
            .output()
            .unwrap()
    }
}

impl Drop for GoProgram {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One access-log text line, `[DATE] CLIENT METHOD TARGET VERSION STATUS BYTES US`, then
/// ` tls` and notes (`- ` for the date with `--no-date`), split into its fields: panics
/// on a line of another shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub client: String,
    /// `METHOD TARGET VERSION STATUS`, then ` tls` and the notes, as written.
    pub words: String,
    pub bytes: u64,
    pub us: u64,
}

pub fn log_line(line: &str) -> LogLine {
    let line = line.trim_end_matches('\n');
    let rest = match line.strip_prefix('[') {
        Some(r) => {
            r.split_once("] ")
                .unwrap_or_else(|| panic!("no date: {line:?}"))
                .1
        }
        None => line
            .strip_prefix("- ")
            .unwrap_or_else(|| panic!("no date: {line:?}")),
    };
    let f: Vec<&str> = rest.split(' ').collect();
    assert!(f.len() >= 7, "too few fields: {line:?}");
    let client = f[0];
    assert!(
        client == "-" || client == "unix" || client.rsplit_once(':').is_some(),
        "client: {line:?}"
    );
    let number = |s: &str| {
        s.parse::<u64>()
            .unwrap_or_else(|_| panic!("not a number {s:?}: {line:?}"))
    };
    let mut words = f[1..5].to_vec();
    words.extend_from_slice(&f[7..]);
    LogLine {
        client: client.to_string(),
        words: words.join(" "),
        bytes: number(f[5]),
        us: number(f[6]),
    }
}

/// [`log_line`]'s words (`METHOD TARGET VERSION STATUS` and notes) of each line.
pub fn log_words(text: &str) -> Vec<String> {
    text.lines().map(|l| log_line(l).words).collect()
}
