//! canned's request parser and chunked decoder behind a C ABI, declared in `include/canned.h`.
//!
//! The library is `no_std` and allocates nothing: a parser or a decoder lives in storage the
//! caller owns (on its stack, in a static, inside its connection struct), of a size the header
//! states. Every function checks the state it is handed before it touches it: a null pointer,
//! storage that is misaligned or was never initialised, input shorter than the call before, a
//! call after an error: each is a return code, never undefined behaviour. A `canned_request`
//! is trusted as `canned_parse` filled it in (the header says so). The state is marked
//! initialised by a magic word, so zeroed storage is always recognised as not initialised.
//!
//! The unsafe code is the dereferencing of the caller's pointers, after those checks, in this
//! file and in `chunked.rs`; the parsing itself is canned's safe Rust.
#![cfg_attr(not(test), no_std)]

mod chunked;
mod codes;

use canned::parser::{Form, Framing, Limits, Parser, Status, Version};
use codes::{COMPLETE, INPUT_SHRANK, INVALID_ARGUMENT, NULL_POINTER, OK, PARTIAL};
use core::ffi::c_int;
use core::mem::{align_of, size_of};

/// What [`canned_request_field`] and [`canned_request_find`] return when they wrote a field.
const FOUND: c_int = 1;
/// What they return when there is no (further) such field.
const NOT_FOUND: c_int = 0;

/// `canned_parser` in C: storage for one parser, 128 bytes, aligned as `uint64_t`.
#[repr(C)]
pub struct ParserStorage {
    words: [u64; PARSER_WORDS],
}

/// The size of `canned_parser` in 64-bit words (`CANNED_PARSER_WORDS` in the header): room
/// for the parser to grow without a change of the header.
const PARSER_WORDS: usize = 16;

/// What `canned_parser` holds.
#[repr(C)]
struct ParserState {
    /// [`PARSER_MAGIC`] once initialised; the first word, read before anything else.
    magic: u64,
    /// Bytes handed in by the last call that returned `CANNED_PARTIAL` (0 after a complete
    /// head): the next call must hand in at least as many.
    fed: usize,
    /// Nonzero once a call returned an error: only init and reset may follow.
    failed: u32,
    parser: Parser,
}

const PARSER_MAGIC: u64 = u64::from_be_bytes(*b"cannedP1");

const _: () = assert!(size_of::<ParserState>() <= size_of::<ParserStorage>());
const _: () = assert!(align_of::<ParserState>() <= align_of::<ParserStorage>());

/// `canned_request` in C: a complete head, as pointers into the caller's buffer.
#[repr(C)]
pub struct Request {
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

/// `canned_field` in C: one header field, as pointers into the caller's buffer.
#[repr(C)]
pub struct Field {
    name: *const u8,
    name_len: usize,
    value: *const u8,
    value_len: usize,
}

/// Whether `p` holds an initialised state: `Err` with the code saying why not (a null or
/// misaligned pointer, or a first word that is not `magic`).
///
/// # Safety
///
/// `p`, when not null and aligned, points to readable storage of `size_of::<T>()` bytes (the
/// header's type for it) whose first word is a `u64`.
unsafe fn check<T>(p: *const T, magic: u64) -> Result<(), c_int> {
    if p.is_null() {
        return Err(NULL_POINTER);
    }
    if !p.is_aligned() {
        return Err(codes::MISALIGNED);
    }
    // SAFETY: not null and aligned, and the storage starts with a u64 (the function's contract).
    if unsafe { p.cast::<u64>().read() } != magic {
        return Err(codes::BAD_STATE);
    }
    Ok(())
}

/// The initialised state at `p`, or the code saying why there is none (see [`check`]).
///
/// # Safety
///
/// As [`check`], and the storage is writable; once its first word is `magic` it holds a `T`
/// written by this library.
unsafe fn state<'a, T>(p: *mut T, magic: u64) -> Result<&'a mut T, c_int> {
    // SAFETY: this function's contract includes check's.
    unsafe { check(p, magic)? };
    // SAFETY: the magic word says that this library wrote a `T` here (the function's contract).
    Ok(unsafe { &mut *p })
}

/// The `len` bytes at `buf`, or the code saying why they cannot be a slice.
///
/// # Safety
///
/// `buf`, when not null, points to `len` readable bytes that stay unchanged while the slice
/// lives.
unsafe fn bytes<'a>(buf: *const u8, len: usize) -> Result<&'a [u8], c_int> {
    if buf.is_null() {
        return Err(NULL_POINTER);
    }
    if len > isize::MAX as usize {
        return Err(INVALID_ARGUMENT);
    }
    // SAFETY: not null, at most isize::MAX bytes, readable (the function's contract).
    Ok(unsafe { core::slice::from_raw_parts(buf, len) })
}

/// `size_t canned_parser_size(void)`: see include/canned.h.
#[unsafe(no_mangle)]
pub extern "C" fn canned_parser_size() -> usize {
    size_of::<ParserStorage>()
}

/// `int canned_parser_init(canned_parser *, size_t, size_t)`: see include/canned.h.
///
/// # Safety
///
/// `p` is null or points to a `canned_parser` the caller may write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_parser_init(
    p: *mut ParserStorage,
    max_head: usize,
    max_headers: usize,
) -> c_int {
    if p.is_null() {
        return NULL_POINTER;
    }
    if !p.is_aligned() {
        return codes::MISALIGNED;
    }
    if max_head == 0 {
        return INVALID_ARGUMENT;
    }
    let state = ParserState {
        magic: PARSER_MAGIC,
        fed: 0,
        failed: 0,
        parser: Parser::new(Limits {
            max_head,
            max_headers,
        }),
    };
    // SAFETY: not null, aligned, and `canned_parser` is large enough (asserted above).
    unsafe { p.cast::<ParserState>().write(state) };
    OK
}

/// `int canned_parser_reset(canned_parser *)`: see include/canned.h.
///
/// # Safety
///
/// `p` is null or points to a `canned_parser` the caller may write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_parser_reset(p: *mut ParserStorage) -> c_int {
    // SAFETY: `canned_parser` storage, the first word a u64 (this function's contract).
    match unsafe { state(p.cast::<ParserState>(), PARSER_MAGIC) } {
        Ok(s) => {
            s.parser.reset();
            s.fed = 0;
            s.failed = 0;
            OK
        }
        Err(code) => code,
    }
}

/// `int canned_parser_position(const canned_parser *, size_t *)`: see include/canned.h.
///
/// # Safety
///
/// `p` is null or points to a `canned_parser`; `position` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_parser_position(
    p: *const ParserStorage,
    position: *mut usize,
) -> c_int {
    let p = p.cast::<ParserState>();
    // SAFETY: `canned_parser` storage, the first word a u64 (this function's contract).
    if let Err(code) = unsafe { check(p, PARSER_MAGIC) } {
        return code;
    }
    if position.is_null() {
        return NULL_POINTER;
    }
    // SAFETY: initialised by this library (checked above); `position` is not null and
    // writable (this function's contract).
    unsafe { position.write((*p).parser.position()) };
    OK
}

/// `int canned_parse(canned_parser *, const unsigned char *, size_t, canned_request *)`: see
/// include/canned.h.
///
/// # Safety
///
/// `p` is null or points to a `canned_parser`; `buf` is null or points to `len` readable bytes;
/// `req` is null or points to a writable `canned_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_parse(
    p: *mut ParserStorage,
    buf: *const u8,
    len: usize,
    req: *mut Request,
) -> c_int {
    // SAFETY: `canned_parser` storage, the first word a u64 (this function's contract).
    let s = match unsafe { state(p.cast::<ParserState>(), PARSER_MAGIC) } {
        Ok(s) => s,
        Err(code) => return code,
    };
    if req.is_null() {
        return NULL_POINTER;
    }
    // SAFETY: `len` readable bytes at `buf` (this function's contract).
    let input = match unsafe { bytes(buf, len) } {
        Ok(input) => input,
        Err(code) => return code,
    };
    if s.failed != 0 {
        return codes::BAD_STATE;
    }
    if len < s.fed {
        return INPUT_SHRANK;
    }
    match s.parser.parse(input) {
        Ok(Status::Complete(r)) => {
            s.fed = 0;
            let (framing, content_length) = match r.framing {
                Framing::None => (0, 0),
                Framing::Length(n) => (1, n),
                Framing::Chunked => (2, 0),
            };
            let out = Request {
                head: input.as_ptr(),
                head_len: r.head_len,
                method: r.method.as_ptr(),
                method_len: r.method.len(),
                target: r.target.as_ptr(),
                target_len: r.target.len(),
                path: r.path.as_ptr(),
                path_len: r.path.len(),
                content_length,
                field_count: r.headers,
                minor_version: match r.version {
                    Version::Http10 => 0,
                    Version::Http11 => 1,
                },
                form: match r.form {
                    Form::Origin => 0,
                    Form::Absolute => 1,
                    Form::Authority => 2,
                    Form::Asterisk => 3,
                },
                framing,
                keep_alive: r.keep_alive,
                expect_continue: r.expect_continue,
                is_head: r.is_head,
            };
            // SAFETY: not null and writable (this function's contract).
            unsafe { req.write(out) };
            COMPLETE
        }
        Ok(Status::Partial) => {
            s.fed = len;
            PARTIAL
        }
        Err(e) => {
            s.failed = 1;
            codes::of_error(e)
        }
    }
}

/// The head a request points to.
///
/// # Safety
///
/// `r.head` is null or points to `r.head_len` readable bytes (as `canned_parse` left it).
unsafe fn head_of(r: &Request) -> Result<&[u8], c_int> {
    // SAFETY: this function's contract.
    unsafe { bytes(r.head, r.head_len) }
}

/// The field line starting at `at` in a head: its name, its value without OWS, and where the
/// next line starts. `None` at the final empty line, or where the bytes are not a field line.
///
/// The head was validated by the parser, so a line is `name ":" OWS value OWS CRLF`: the colon
/// is the line's first, and two memchr calls find it and the LF.
fn field_at(head: &[u8], at: usize) -> Option<(&[u8], &[u8], usize)> {
    let rest = head.get(at..)?;
    let colon = memchr::memchr2(b':', b'\n', rest)?;
    // A LF first: the final empty line (or bytes canned_parse did not validate).
    if colon == 0 || rest[colon] != b':' {
        return None;
    }
    let lf = colon + memchr::memchr(b'\n', &rest[colon..])?;
    let name = &rest[..colon];
    let value = rest[colon + 1..lf].strip_suffix(b"\r")?;
    // OWS = *( SP / HTAB )                                        (RFC 9110 §5.6.3)
    let ows = |c: &u8| *c == b' ' || *c == b'\t';
    let start = value.iter().position(|c| !ows(c)).unwrap_or(value.len());
    let end = value.iter().rposition(|c| !ows(c)).map_or(start, |e| e + 1);
    Some((name, &value[start..end], at + lf + 1))
}

/// Where the field lines of `r` start: after the request line, which starts at the method.
fn first_field(r: &Request, head: &[u8]) -> Option<usize> {
    let method_at = (r.method as usize).checked_sub(r.head as usize)?;
    let rest = head.get(method_at..)?;
    Some(method_at + memchr::memchr(b'\n', rest)? + 1)
}

/// `int canned_request_field(const canned_request *, size_t *, canned_field *)`: see
/// include/canned.h.
///
/// # Safety
///
/// `req` is null or points to a `canned_request` whose head is readable (as `canned_parse`
/// left it); `cursor` is null or points to a readable and writable `size_t`; `field` is null or
/// points to a writable `canned_field`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_request_field(
    req: *const Request,
    cursor: *mut usize,
    field: *mut Field,
) -> c_int {
    if req.is_null() || cursor.is_null() || field.is_null() {
        return NULL_POINTER;
    }
    // SAFETY: not null, a readable `canned_request` (this function's contract).
    let r = unsafe { &*req };
    // SAFETY: the head as `canned_parse` left it (this function's contract).
    let head = match unsafe { head_of(r) } {
        Ok(head) => head,
        Err(code) => return code,
    };
    // SAFETY: not null, readable (this function's contract).
    let at = match unsafe { cursor.read() } {
        0 => match first_field(r, head) {
            Some(at) => at,
            None => return INVALID_ARGUMENT,
        },
        // A cursor this function returned: the start of a line of the head.
        at if at >= 2 && head.get(at - 2..at) == Some(b"\r\n") => at,
        _ => return INVALID_ARGUMENT,
    };
    match field_at(head, at) {
        Some((name, value, next)) => {
            let out = Field {
                name: name.as_ptr(),
                name_len: name.len(),
                value: value.as_ptr(),
                value_len: value.len(),
            };
            // SAFETY: both not null and writable (this function's contract).
            unsafe {
                field.write(out);
                cursor.write(next);
            }
            FOUND
        }
        None => {
            // SAFETY: not null and writable (this function's contract).
            unsafe { cursor.write(at) };
            NOT_FOUND
        }
    }
}

/// `int canned_request_find(const canned_request *, const char *, size_t, canned_field *)`: see
/// include/canned.h.
///
/// # Safety
///
/// As [`canned_request_field`]; `name` is null or points to `name_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_request_find(
    req: *const Request,
    name: *const u8,
    name_len: usize,
    field: *mut Field,
) -> c_int {
    // SAFETY: `name_len` readable bytes at `name` (this function's contract).
    let wanted = match unsafe { bytes(name, name_len) } {
        Ok(wanted) => wanted,
        Err(code) => return code,
    };
    let mut cursor = 0;
    loop {
        // SAFETY: `req` and `field` as this function's contract says; `cursor` is local.
        let found = unsafe { canned_request_field(req, &mut cursor, field) };
        if found != FOUND {
            return found;
        }
        // SAFETY: just written by `canned_request_field`, which returned a field.
        let f = unsafe { &*field };
        // SAFETY: `f.name` points into the head, `f.name_len` bytes, as written just above.
        let got = unsafe { core::slice::from_raw_parts(f.name, f.name_len) };
        if got.eq_ignore_ascii_case(wanted) {
            return FOUND;
        }
    }
}

/// A panic, which the tests find unreachable from every function, must not unwind into C.
#[cfg(not(test))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe extern "C" {
        /// The C library's: in newlib and every hosted C library.
        fn abort() -> !;
    }
    // SAFETY: abort takes nothing and does not return.
    unsafe { abort() }
}

#[cfg(test)]
mod tests;
