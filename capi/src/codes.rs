//! The return codes of every function, their names and the HTTP status each one is answered with.
//!
//! A request error is the parser's [`Error`], numbered by its place in [`Error::ALL`]
//! (`-1 - index`), so that its status comes from [`Error::status`], the one place that decides
//! it. Codes from -100 down are the C interface's own: a body over its limit (a request error
//! too, 413) and the misuses that no Rust caller can commit (a null pointer, storage that was
//! never initialised).

use canned::parser::Error;
use core::ffi::{CStr, c_char, c_int};

/// The head is complete / the body has ended.
pub const COMPLETE: c_int = 0;
/// Success of init, reset and the queries (`CANNED_OK`, the same value).
pub const OK: c_int = COMPLETE;
/// More bytes are needed.
pub const PARTIAL: c_int = 1;
/// A chunked body announced more data than its decoder's limit (413, RFC 9110 §15.5.14).
pub const BODY_TOO_LARGE: c_int = -100;
/// A pointer argument is null.
pub const NULL_POINTER: c_int = -101;
/// A state pointer is not aligned for its type.
pub const MISALIGNED: c_int = -102;
/// The state was never initialised, or an error or the end of a body ended its use.
pub const BAD_STATE: c_int = -103;
/// `canned_parse` was handed fewer bytes than the call before it (after `CANNED_PARTIAL`).
pub const INPUT_SHRANK: c_int = -104;
/// An argument out of its range: a zero head limit, a length over `PTRDIFF_MAX`, a field
/// cursor that no call returned, a request whose pointers do not fit together.
pub const INVALID_ARGUMENT: c_int = -105;

/// The names of the parser's errors, in the order of [`Error::ALL`], NUL-terminated for C:
/// [`Error::name`] is not a `const fn` and has no terminator, so the unit tests check this
/// copy against it.
pub(crate) const ERROR_NAMES: [&CStr; Error::ALL.len()] = [
    c"invalid_method",
    c"invalid_target",
    c"invalid_request_line",
    c"invalid_version",
    c"unsupported_version",
    c"invalid_header_name",
    c"invalid_header_value",
    c"obs_fold",
    c"bare_lf",
    c"bare_cr",
    c"missing_host",
    c"duplicate_host",
    c"invalid_content_length",
    c"conflicting_content_length",
    c"content_length_with_transfer_encoding",
    c"transfer_encoding_http10",
    c"chunked_not_final",
    c"unknown_transfer_coding",
    c"expectation_failed",
    c"uri_too_long",
    c"head_too_large",
    c"too_many_headers",
    c"invalid_chunk_size",
    c"chunk_size_overflow",
    c"invalid_chunk_ext",
    c"invalid_chunk_data",
    c"invalid_trailer",
    c"invalid_host",
];

/// The codes of the C interface's own, with their names.
pub(crate) const OWN_CODES: [(c_int, &CStr); 8] = [
    (COMPLETE, c"complete"),
    (PARTIAL, c"partial"),
    (BODY_TOO_LARGE, c"body_too_large"),
    (NULL_POINTER, c"null_pointer"),
    (MISALIGNED, c"misaligned"),
    (BAD_STATE, c"bad_state"),
    (INPUT_SHRANK, c"input_shrank"),
    (INVALID_ARGUMENT, c"invalid_argument"),
];

/// The code of a parser or decoder error.
pub(crate) fn of_error(e: Error) -> c_int {
    // At most 28 kinds: the cast cannot truncate.
    -1 - e.index() as c_int
}

/// The parser error a code stands for, if it stands for one.
pub(crate) fn error_of(code: c_int) -> Option<Error> {
    let index: usize = (-1 - i64::from(code)).try_into().ok()?;
    Error::ALL.get(index).copied()
}

/// `const char *canned_code_name(int code)`: see include/canned.h.
#[unsafe(no_mangle)]
pub extern "C" fn canned_code_name(code: c_int) -> *const c_char {
    let name = match error_of(code) {
        Some(e) => ERROR_NAMES[e.index()],
        None => OWN_CODES
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(c"unknown_code", |(_, name)| name),
    };
    name.as_ptr()
}

/// `int canned_code_status(int code)`: see include/canned.h.
#[unsafe(no_mangle)]
pub extern "C" fn canned_code_status(code: c_int) -> c_int {
    match error_of(code) {
        Some(e) => c_int::from(e.status()),
        None => match code {
            BODY_TOO_LARGE => 413,
            // A misuse is the program's own fault, not the client's.
            NULL_POINTER | MISALIGNED | BAD_STATE | INPUT_SHRANK | INVALID_ARGUMENT => 500,
            _ => 0,
        },
    }
}
