//! The chunked body decoder (`canned_chunked_*`) behind the C ABI.

use crate::codes::{self, BAD_STATE, BODY_TOO_LARGE, COMPLETE, NULL_POINTER, OK, PARTIAL};
use crate::{bytes, check, state};
use canned::chunked::ChunkedDecoder;
use core::ffi::c_int;
use core::mem::{align_of, size_of};

/// `canned_chunked` in C: storage for one decoder, 64 bytes, aligned as `uint64_t`.
#[repr(C)]
pub struct ChunkedStorage {
    words: [u64; CHUNKED_WORDS],
}

/// The size of `canned_chunked` in 64-bit words (`CANNED_CHUNKED_WORDS` in the header).
const CHUNKED_WORDS: usize = 8;

/// What `canned_chunked` holds.
#[repr(C)]
struct ChunkedState {
    /// [`CHUNKED_MAGIC`] once initialised; the first word, read before anything else.
    magic: u64,
    /// [`RUNNING`], [`ENDED`] or [`FAILED`].
    phase: u32,
    decoder: ChunkedDecoder,
}

const CHUNKED_MAGIC: u64 = u64::from_be_bytes(*b"cannedC1");
/// More of the body may follow.
const RUNNING: u32 = 0;
/// The body has ended: the decoder has nothing more to take.
const ENDED: u32 = 1;
/// A call returned an error: only init may follow.
const FAILED: u32 = 2;

const _: () = assert!(size_of::<ChunkedState>() <= size_of::<ChunkedStorage>());
const _: () = assert!(align_of::<ChunkedState>() <= align_of::<ChunkedStorage>());

/// `size_t canned_chunked_size(void)`: see include/canned.h.
#[unsafe(no_mangle)]
pub extern "C" fn canned_chunked_size() -> usize {
    size_of::<ChunkedStorage>()
}

/// `int canned_chunked_init(canned_chunked *, uint64_t)`: see include/canned.h.
///
/// # Safety
///
/// `d` is null or points to a `canned_chunked` the caller may write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_chunked_init(d: *mut ChunkedStorage, max_data: u64) -> c_int {
    if d.is_null() {
        return NULL_POINTER;
    }
    if !d.is_aligned() {
        return codes::MISALIGNED;
    }
    let state = ChunkedState {
        magic: CHUNKED_MAGIC,
        phase: RUNNING,
        decoder: ChunkedDecoder::with_data_limit(max_data),
    };
    // SAFETY: not null, aligned, and `canned_chunked` is large enough (asserted above).
    unsafe { d.cast::<ChunkedState>().write(state) };
    OK
}

/// `int canned_chunked_decode(canned_chunked *, const unsigned char *, size_t, size_t *)`: see
/// include/canned.h.
///
/// # Safety
///
/// `d` is null or points to a `canned_chunked`; `input` is null or points to `len` readable
/// bytes; `consumed` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_chunked_decode(
    d: *mut ChunkedStorage,
    input: *const u8,
    len: usize,
    consumed: *mut usize,
) -> c_int {
    // SAFETY: `canned_chunked` storage, the first word a u64 (this function's contract).
    let s = match unsafe { state(d.cast::<ChunkedState>(), CHUNKED_MAGIC) } {
        Ok(s) => s,
        Err(code) => return code,
    };
    if consumed.is_null() {
        return NULL_POINTER;
    }
    // SAFETY: `len` readable bytes at `input` (this function's contract).
    let input = match unsafe { bytes(input, len) } {
        Ok(input) => input,
        Err(code) => return code,
    };
    if s.phase != RUNNING {
        return BAD_STATE;
    }
    let (code, taken) = match s.decoder.decode(input) {
        Ok(p) if s.decoder.over_limit() => {
            s.phase = FAILED;
            (BODY_TOO_LARGE, p.consumed)
        }
        Ok(p) if p.done => {
            s.phase = ENDED;
            (COMPLETE, p.consumed)
        }
        Ok(p) => (PARTIAL, p.consumed),
        Err(e) => {
            s.phase = FAILED;
            (codes::of_error(e), 0)
        }
    };
    // SAFETY: not null and writable (this function's contract).
    unsafe { consumed.write(taken) };
    code
}

/// `int canned_chunked_data_len(const canned_chunked *, uint64_t *)`: see include/canned.h.
///
/// # Safety
///
/// `d` is null or points to a `canned_chunked`; `len` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn canned_chunked_data_len(d: *const ChunkedStorage, len: *mut u64) -> c_int {
    let d = d.cast::<ChunkedState>();
    // SAFETY: `canned_chunked` storage, the first word a u64 (this function's contract).
    if let Err(code) = unsafe { check(d, CHUNKED_MAGIC) } {
        return code;
    }
    if len.is_null() {
        return NULL_POINTER;
    }
    // SAFETY: initialised by this library (checked above); `len` is not null and writable.
    unsafe { len.write((*d).decoder.data_len()) };
    OK
}
