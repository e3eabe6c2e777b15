//! canned's C library against picohttpparser and llhttp, in one run: the time per request on
//! this machine for the four inputs of benches/parse.rs, the flash each takes on a Cortex-M4F
//! (thumbv7em), and which messages of the README's Strictness table each accepts.
//!
//! `cd capi/benches && cargo bench` prints the three Markdown tables of the README's C library
//! section. canned is called through its C ABI (libcanned_capi.a, as a C program links it),
//! picohttpparser through picohttpparser-sys, llhttp through peers.c; all three from this one
//! process, interleaved, each round in a different order.

use picohttpparser_sys::{phr_chunked_decoder, phr_decode_chunked, phr_header, phr_parse_request};
use std::ffi::{CStr, c_char, c_int, c_long};
use std::hint::black_box;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

// ---- canned's C ABI, as include/canned.h declares it --------------------------------------------

#[repr(C)]
struct Parser([u64; 16]);
#[repr(C)]
struct Chunked([u64; 8]);
#[repr(C)]
struct Request {
    head: *const u8,
    head_len: usize,
    method: *const u8,
    method_len: usize,
    target: *const u8,
    target_len: usize,
    path: *const u8,
    path_len: usize,
    content_length: u64,
    field_count: usize,
    minor_version: c_int,
    form: c_int,
    framing: c_int,
    keep_alive: bool,
    expect_continue: bool,
    is_head: bool,
}
#[repr(C)]
struct Field {
    name: *const u8,
    name_len: usize,
    value: *const u8,
    value_len: usize,
}
const FRAMING_LENGTH: c_int = 1;
const FRAMING_CHUNKED: c_int = 2;

unsafe extern "C" {
    fn canned_parser_init(p: *mut Parser, max_head: usize, max_headers: usize) -> c_int;
    fn canned_parse(p: *mut Parser, buf: *const u8, len: usize, r: *mut Request) -> c_int;
    fn canned_request_field(r: *const Request, cursor: *mut usize, f: *mut Field) -> c_int;
    fn canned_chunked_init(d: *mut Chunked, max_data: u64) -> c_int;
    fn canned_chunked_decode(d: *mut Chunked, b: *const u8, len: usize, took: *mut usize) -> c_int;
    fn canned_code_name(code: c_int) -> *const c_char;
    fn canned_code_status(code: c_int) -> c_int;
}

// ---- peers.c ------------------------------------------------------------------------------------

#[repr(C)]
struct StrictCase {
    row: *const c_char,
    example: *const c_char,
    input: *const u8,
    len: usize,
    want: c_int,
    chunked: bool,
}

unsafe extern "C" {
    fn llhttp_request(input: *const u8, len: usize) -> c_long;
    fn llhttp_message(input: *const u8, len: usize) -> c_int;
    fn strict_count() -> usize;
    fn strict_at(i: usize) -> *const StrictCase;
}

// ---- one request, each parser -----------------------------------------------------------------------

/// canned: the head parsed and every decision made (keep-alive, framing, Host); its length.
fn canned(buf: &[u8]) -> usize {
    let mut p = MaybeUninit::<Parser>::uninit();
    let mut r = MaybeUninit::<Request>::uninit();
    // SAFETY: storage of the header's sizes; `buf` is live for the call; `r` is written on 0.
    unsafe {
        canned_parser_init(p.as_mut_ptr(), 8192, 100);
        if canned_parse(p.as_mut_ptr(), buf.as_ptr(), buf.len(), r.as_mut_ptr()) != 0 {
            return 0;
        }
        r.assume_init().head_len
    }
}

/// canned's parser called from Rust, without the C ABI: the same decisions.
fn canned_rust(buf: &[u8]) -> usize {
    match canned::parser::parse_request(buf, canned::parser::Limits::default()) {
        Ok(canned::parser::Status::Complete(r)) => r.head_len,
        _ => 0,
    }
}

/// canned, then every field walked (name and value spans, as picohttpparser returns them).
fn canned_fields(buf: &[u8]) -> usize {
    let mut p = MaybeUninit::<Parser>::uninit();
    let mut r = MaybeUninit::<Request>::uninit();
    let mut f = MaybeUninit::<Field>::uninit();
    let (mut cursor, mut bytes) = (0, 0);
    // SAFETY: as in `canned`; the walk reads the request canned_parse wrote.
    unsafe {
        canned_parser_init(p.as_mut_ptr(), 8192, 100);
        if canned_parse(p.as_mut_ptr(), buf.as_ptr(), buf.len(), r.as_mut_ptr()) != 0 {
            return 0;
        }
        while canned_request_field(r.as_ptr(), &mut cursor, f.as_mut_ptr()) == 1 {
            bytes += f.assume_init_ref().value_len;
        }
    }
    bytes
}

/// picohttpparser: the request line and every field's spans. The head's length, -2 when it
/// is incomplete, -1 when rejected.
fn pico_rc(buf: &[u8]) -> c_int {
    let mut headers = [phr_header::default(); 100];
    let (mut method, mut path) = (std::ptr::null(), std::ptr::null());
    let (mut method_len, mut path_len, mut minor, mut fields) = (0, 0, 0, headers.len());
    // SAFETY: every out-pointer is to a live local; `buf` is live for the call.
    unsafe {
        phr_parse_request(
            buf.as_ptr().cast(),
            buf.len(),
            &mut method,
            &mut method_len,
            &mut path,
            &mut path_len,
            &mut minor,
            headers.as_mut_ptr(),
            &mut fields,
            0,
        )
    }
}

fn pico(buf: &[u8]) -> usize {
    pico_rc(buf).max(0) as usize
}

/// llhttp: a fresh parser, the target's and every field's spans recorded by callbacks.
fn llhttp(buf: &[u8]) -> usize {
    // SAFETY: `buf` is live for the call.
    unsafe { llhttp_request(buf.as_ptr(), buf.len()) }.max(0) as usize
}

// ---- the inputs of benches/parse.rs ---------------------------------------------------------------

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let minimal = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".to_vec();
    let browser = b"GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: keep-alive\r\nCache-Control: max-age=0\r\nsec-ch-ua: \"Chromium\";v=\"119\", \"Not?A_Brand\";v=\"24\"\r\nsec-ch-ua-mobile: ?0\r\nsec-ch-ua-platform: \"Linux\"\r\nUpgrade-Insecure-Requests: 1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\nSec-Fetch-Site: none\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\n\r\n".to_vec();
    let mut thirty = b"GET /api/v1/items?page=2 HTTP/1.1\r\nHost: api.example.com\r\n".to_vec();
    for i in 0..29 {
        thirty
            .extend_from_slice(format!("X-Custom-Header-{i}: value-{i}-abcdefghij\r\n").as_bytes());
    }
    thirty.extend_from_slice(b"\r\n");
    let mut cookie = b"GET / HTTP/1.1\r\nHost: example.com\r\nCookie: ".to_vec();
    while cookie.len() < 4096 + 40 {
        cookie.extend_from_slice(b"session_id=0123456789abcdef; ");
    }
    cookie.extend_from_slice(b"end=1\r\nAccept: */*\r\n\r\n");
    vec![
        ("a: wrk/ab minimal GET", minimal),
        ("b: browser GET, 12 headers", browser),
        ("c: 30 headers", thirty),
        ("d: 4 KiB cookie", cookie),
    ]
}

// ---- time per request ---------------------------------------------------------------------------------

type Parse = fn(&[u8]) -> usize;
const PARSERS: [(&str, Parse); 5] = [
    ("canned", canned),
    ("canned, Rust API", canned_rust),
    ("canned + fields", canned_fields),
    ("picohttpparser", pico),
    ("llhttp", llhttp),
];
// Many short batches, interleaved, and the fastest kept: on a machine shared with other work
// it is the batches that ran undisturbed, and it stays put from run to run where a median of
// long batches did not.
const ROUNDS: usize = 101;
const BATCH: Duration = Duration::from_millis(2);

/// Calls of `f` that take about [`BATCH`].
fn calibrate(f: Parse, buf: &[u8]) -> u64 {
    let mut n = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..n {
            black_box(f(black_box(buf)));
        }
        let took = start.elapsed();
        if took > BATCH / 8 {
            return (n as f64 * BATCH.as_secs_f64() / took.as_secs_f64()).max(1.0) as u64;
        }
        n *= 2;
    }
}

fn ns_per_call(f: Parse, buf: &[u8], n: u64) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        black_box(f(black_box(buf)));
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The 1-minute load average, as /proc/loadavg has it: the machine's other work, beside the figures.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

fn speed() {
    let load_before = load();
    let cases = inputs();
    // Each parser sees the whole head, and canned and picohttpparser the same fields.
    for (name, buf) in &cases {
        assert_eq!(canned(buf), buf.len(), "{name}: canned");
        assert_eq!(canned_rust(buf), buf.len(), "{name}: canned, Rust API");
        assert_eq!(pico(buf), buf.len(), "{name}: picohttpparser");
        assert!(llhttp(buf) > 0, "{name}: llhttp");
        assert!(canned_fields(buf) > 0, "{name}: canned's fields");
    }
    let counts: Vec<Vec<u64>> = cases
        .iter()
        .map(|(_, buf)| PARSERS.iter().map(|(_, f)| calibrate(*f, buf)).collect())
        .collect();
    let mut ns = vec![vec![Vec::new(); PARSERS.len()]; cases.len()];
    for round in 0..ROUNDS {
        for (c, (_, buf)) in cases.iter().enumerate() {
            for k in 0..PARSERS.len() {
                let p = (k + round) % PARSERS.len();
                ns[c][p].push(ns_per_call(PARSERS[p].1, buf, counts[c][p]));
            }
        }
    }
    println!(
        "\nParse time per request, ns (the fastest of {ROUNDS} interleaved batches of {BATCH:?}; {} CPUs, load average {load_before} before and {} after):\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load()
    );
    println!(
        "| input | bytes | canned | canned, Rust API | canned + every field | picohttpparser | llhttp | picohttpparser / canned | llhttp / canned |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (c, (name, buf)) in cases.iter().enumerate() {
        let m: Vec<f64> = ns[c].iter().map(|v| fastest(v)).collect();
        println!(
            "| {name} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2}x | {:.2}x |",
            thousands(buf.len() as u64),
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[3] / m[0],
            m[4] / m[0]
        );
    }
}

// ---- flash on a Cortex-M4F ------------------------------------------------------------------------------

/// As a release build of firmware: assertions off (picohttpparser's would bring in stdio).
const ARM_FLAGS: [&str; 11] = [
    "-DNDEBUG",
    "-mcpu=cortex-m4",
    "-mthumb",
    "-mfloat-abi=hard",
    "-mfpu=fpv4-sp-d16",
    "-ffunction-sections",
    "-fdata-sections",
    "-nostartfiles",
    "--specs=nano.specs",
    "-Wl,--gc-sections",
    "-Wl,-e,entry",
];

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A byte count as the README writes it: 10,001.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// text + data of an ELF: what it puts in flash.
fn flash_bytes(elf: &Path) -> u64 {
    let out = run(Command::new("arm-none-eabi-size").arg(elf));
    let line = out.lines().nth(1).expect("size's second line");
    let mut words = line
        .split_whitespace()
        .map(|w| w.parse::<u64>().unwrap_or(0));
    words.next().unwrap() + words.next().unwrap()
}

fn flash() {
    if Command::new("arm-none-eabi-gcc")
        .arg("--version")
        .output()
        .is_err()
    {
        println!(
            "\nFlash: skipped, arm-none-eabi-gcc is missing (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)"
        );
        return;
    }
    let repo = PathBuf::from(env!("CANNED_REPO"));
    let (llhttp_src, pico_src) = (
        PathBuf::from(env!("LLHTTP_SRC")),
        PathBuf::from(env!("PICO_SRC")),
    );
    let out = repo.join("target/capi-bench/flash");
    std::fs::create_dir_all(&out).unwrap();
    let builds = [
        ("-Os, opt-level \"s\"", "-Os", "small"),
        ("-O3, opt-level 3", "-O3", "release"),
    ];
    for (_, _, profile) in builds {
        run(Command::new(env!("CARGO"))
            .current_dir(repo.join("capi"))
            .env_remove("CARGO_TARGET_DIR")
            .args([
                "build",
                "-q",
                "--target",
                "thumbv7em-none-eabihf",
                "--profile",
                profile,
            ]));
    }
    // (row, -D, sources): the empty program first, to subtract.
    let canned_lib = |profile: &str| {
        repo.join("target/capi/thumbv7em-none-eabihf")
            .join(profile)
            .join("libcanned_capi.a")
    };
    let parsers = ["empty", "canned", "picohttpparser", "llhttp"];
    let mut sizes = vec![[[0u64; 2]; 2]; parsers.len()];
    for (b, (_, opt, profile)) in builds.iter().enumerate() {
        for (k, parser) in parsers.iter().enumerate() {
            for chunked in [false, true] {
                let elf = out.join(format!("{parser}-{profile}-{chunked}.elf"));
                let mut cc = Command::new("arm-none-eabi-gcc");
                cc.args(ARM_FLAGS)
                    .arg(opt)
                    .arg(format!("-I{}", repo.join("include").display()));
                if chunked {
                    cc.arg("-DWITH_CHUNKED");
                }
                cc.arg(repo.join("capi/benches/flash.c"));
                match *parser {
                    "canned" => {
                        cc.arg("-DPARSER_CANNED").arg(canned_lib(profile));
                    }
                    "picohttpparser" => {
                        cc.arg("-DPARSER_PICO")
                            .arg(format!("-I{}", pico_src.display()))
                            .arg(pico_src.join("picohttpparser.c"));
                    }
                    "llhttp" => {
                        cc.arg("-DPARSER_LLHTTP")
                            .arg(format!("-I{}", llhttp_src.display()))
                            .args(["llhttp.c", "api.c", "http.c"].map(|f| llhttp_src.join(f)));
                    }
                    _ => {}
                }
                run(cc.arg("-o").arg(&elf));
                sizes[k][b][chunked as usize] = flash_bytes(&elf);
            }
        }
    }
    println!(
        "\nFlash on a Cortex-M4F (thumbv7em, arm-none-eabi-gcc {} and newlib-nano; bytes of text + data above an empty program):\n",
        run(Command::new("arm-none-eabi-gcc").arg("-dumpversion")).trim()
    );
    println!(
        "| parser | head, -Os / \"s\" | head + chunked, -Os / \"s\" | head, -O3 / 3 | head + chunked, -O3 / 3 |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (k, parser) in parsers.iter().enumerate().skip(1) {
        let above = |b: usize, c: usize| thousands(sizes[k][b][c] - sizes[0][b][c]);
        println!(
            "| {parser} | {} | {} | {} | {} |",
            above(0, 0),
            above(0, 1),
            above(1, 0),
            above(1, 1)
        );
    }
}

// ---- the Strictness messages ---------------------------------------------------------------------------

/// canned on a whole message: its code (0 accepted).
fn canned_message(input: &[u8]) -> c_int {
    let mut p = MaybeUninit::<Parser>::uninit();
    let mut r = MaybeUninit::<Request>::uninit();
    // SAFETY: storage of the header's sizes; `input` is live; `r` is read only after 0.
    unsafe {
        canned_parser_init(p.as_mut_ptr(), 8192, 100);
        let rc = canned_parse(p.as_mut_ptr(), input.as_ptr(), input.len(), r.as_mut_ptr());
        if rc != 0 {
            return rc;
        }
        let r = r.assume_init();
        let body = &input[r.head_len..];
        match r.framing {
            FRAMING_LENGTH if (body.len() as u64) < r.content_length => 1,
            FRAMING_CHUNKED => {
                let mut d = MaybeUninit::<Chunked>::uninit();
                let mut took = 0;
                canned_chunked_init(d.as_mut_ptr(), u64::MAX);
                canned_chunked_decode(d.as_mut_ptr(), body.as_ptr(), body.len(), &mut took)
            }
            _ => 0,
        }
    }
}

/// picohttpparser on a whole message: the head, then a chunked body through phr_decode_chunked
/// (which rewrites its buffer: a copy). 1 accepted, 0 rejected, 2 incomplete.
fn pico_message(input: &[u8], chunked: bool) -> c_int {
    let n = match pico_rc(input) {
        -1 => return 0,
        -2 => return 2,
        n => n as usize,
    };
    if !chunked {
        return 1;
    }
    let mut body = input[n..].to_vec();
    let mut size = body.len();
    // SAFETY: zero-filled, as picohttpparser.h asks.
    let mut d: phr_chunked_decoder = unsafe { std::mem::zeroed() };
    d.consume_trailer = 1;
    // SAFETY: `body` is a live, writable copy of `size` bytes.
    match unsafe { phr_decode_chunked(&mut d, body.as_mut_ptr().cast(), &mut size) } {
        -1 => 0,
        -2 => 2,
        _ => 1,
    }
}

fn outcome(code: c_int) -> &'static str {
    match code {
        1 => "accepted",
        0 => "rejected",
        _ => "incomplete",
    }
}

fn strictness() {
    println!(
        "\nStrictness: the messages of capi/tests/strictness.h, one or more per row of the README's table:\n"
    );
    println!("| README row | message | canned | picohttpparser | llhttp |");
    println!("|---|---|---|---|---|");
    let (mut rejected, mut pico_accepts, mut llhttp_accepts) = (0, 0, 0);
    // SAFETY: takes nothing, returns the length of a static table.
    let count = unsafe { strict_count() };
    for i in 0..count {
        // SAFETY: `i` is below the count: a pointer into peers.c's static table.
        let c = unsafe { &*strict_at(i) };
        // SAFETY: the table's strings are static and NUL-terminated.
        let text = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap();
        // SAFETY: the table's inputs are static arrays of `len` bytes.
        let input = unsafe { std::slice::from_raw_parts(c.input, c.len) };
        let got = canned_message(input);
        assert_eq!(
            got,
            c.want,
            "canned on {} ({})",
            text(c.row),
            text(c.example)
        );
        let canned_says = if got == 0 {
            "accepted".to_string()
        } else {
            // SAFETY: canned_code_name returns a static NUL-terminated name for any code.
            let name = unsafe { CStr::from_ptr(canned_code_name(got)) }
                .to_str()
                .unwrap();
            // SAFETY: takes an int, reads nothing else.
            let status = unsafe { canned_code_status(got) };
            format!("rejected, {status} {name}")
        };
        let p = pico_message(input, c.chunked);
        // SAFETY: `input` is live for the call.
        let l = unsafe { llhttp_message(input.as_ptr(), input.len()) };
        if got != 0 {
            rejected += 1;
            pico_accepts += (p == 1) as usize;
            llhttp_accepts += (l == 1) as usize;
        }
        println!(
            "| {} | {} | {canned_says} | {} | {} |",
            text(c.row).replace('|', "\\|"),
            text(c.example),
            outcome(p),
            outcome(l)
        );
    }
    println!(
        "\nOf the {rejected} messages canned rejects, picohttpparser accepts {pico_accepts} and llhttp {llhttp_accepts}."
    );
}

fn main() {
    // `cargo bench` passes --bench; a filter argument, if any, is ignored.
    strictness();
    flash();
    speed();
}
