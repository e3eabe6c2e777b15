//! `--grpc-health`: the gRPC health-checking protocol's `Check` (grpc/grpc
//! doc/health-checking.md), answered SERVING from frames formatted at compile time, with only
//! the stream id written per response.
//!
//! `POST /grpc.health.v1.Health/Check` gets HEADERS (`:status 200`, `content-type:
//! application/grpc`), one DATA frame (the 5-byte gRPC prefix: not compressed, length 2; then
//! the protobuf `HealthCheckResponse { status: SERVING }`, field 1 varint 1: `08 01`), and the
//! trailers HEADERS (`grpc-status: 0`) with END_STREAM. The request's body (the
//! `HealthCheckRequest` and its `service`) is discarded as any body is, so every service name,
//! the empty one included, is SERVING. `POST /grpc.health.v1.Health/Watch` gets a trailers-only
//! response with `grpc-status: 12` (UNIMPLEMENTED). Both header blocks use a static-table index
//! and literals without indexing, so they leave the peer's HPACK decoder as it was.

use crate::frame::{HEADER_LEN, flag, kind};

/// The health service's paths (gRPC over HTTP/2: `/{service}/{method}`).
pub const CHECK_PATH: &[u8] = b"/grpc.health.v1.Health/Check";
/// See [`CHECK_PATH`].
pub const WATCH_PATH: &[u8] = b"/grpc.health.v1.Health/Watch";

/// What a stream of the health service gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Call {
    /// Not a gRPC health call: the route's answer.
    None,
    /// `Check`: SERVING.
    Check,
    /// `Watch`: UNIMPLEMENTED.
    Watch,
}

impl Call {
    /// The call a request makes, when `--grpc-health` is on: POST on one of the two paths.
    pub(super) fn of(on: bool, method: &[u8], path: &[u8]) -> Call {
        if !on || method != b"POST" {
            return Call::None;
        }
        match path {
            CHECK_PATH => Call::Check,
            WATCH_PATH => Call::Watch,
            _ => Call::None,
        }
    }
}

/// `:status: 200` (static index 8), then `content-type` (static name 31) as a literal without
/// indexing: `0f 10`, length 16, `application/grpc`.
const HEAD_FIELDS: [u8; 20] = {
    let mut b = [0u8; 20];
    b[0] = 0x88;
    b[1] = 0x0f;
    b[2] = 0x10;
    b[3] = 16;
    let v = b"application/grpc";
    let mut i = 0;
    while i < v.len() {
        b[4 + i] = v[i];
        i += 1;
    }
    b
};

/// `grpc-status: CODE` as a literal without indexing, new name: `00`, length 11,
/// `grpc-status`, the value's length and digits.
const fn status_field<const N: usize>(code: &[u8]) -> [u8; N] {
    let mut b = [0u8; N];
    let name = b"grpc-status";
    b[1] = name.len() as u8;
    let mut i = 0;
    while i < name.len() {
        b[2 + i] = name[i];
        i += 1;
    }
    b[2 + name.len()] = code.len() as u8;
    let mut j = 0;
    while j < code.len() {
        b[3 + name.len() + j] = code[j];
        j += 1;
    }
    b
}

/// A frame header (stream 0, patched per response) followed by `payload`, into `out` at `at`;
/// returns the end.
const fn put_frame<const N: usize>(
    mut out: [u8; N],
    at: usize,
    kind: u8,
    flags: u8,
    payload: &[u8],
) -> ([u8; N], usize) {
    let len = payload.len();
    out[at] = (len >> 16) as u8;
    out[at + 1] = (len >> 8) as u8;
    out[at + 2] = len as u8;
    out[at + 3] = kind;
    out[at + 4] = flags;
    let mut i = 0;
    while i < len {
        out[at + HEADER_LEN + i] = payload[i];
        i += 1;
    }
    (out, at + HEADER_LEN + len)
}

/// The gRPC message: not compressed, length 2, `HealthCheckResponse { status: SERVING }`.
pub const SERVING_MESSAGE: [u8; 7] = [0, 0, 0, 0, 2, 0x08, 0x01];

const OK_TRAILER: [u8; 15] = status_field::<15>(b"0");
const UNIMPLEMENTED_TRAILER: [u8; 16] = status_field::<16>(b"12");

/// The HEADERS of a `Check`'s answer.
const CHECK_HEAD_LEN: usize = HEADER_LEN + HEAD_FIELDS.len();
/// Its DATA and trailers, sent together once the windows allow the 7 bytes of DATA.
const CHECK_REST_LEN: usize = 2 * HEADER_LEN + SERVING_MESSAGE.len() + OK_TRAILER.len();

/// A `Check`'s frames, whole: HEADERS, DATA, trailers.
pub const CHECK: [u8; CHECK_HEAD_LEN + CHECK_REST_LEN] = {
    let out = [0u8; CHECK_HEAD_LEN + CHECK_REST_LEN];
    let (out, at) = put_frame(out, 0, kind::HEADERS, flag::END_HEADERS, &HEAD_FIELDS);
    let (out, at) = put_frame(out, at, kind::DATA, 0, &SERVING_MESSAGE);
    let (out, _) = put_frame(
        out,
        at,
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        &OK_TRAILER,
    );
    out
};

/// A `Watch`'s answer: one HEADERS (trailers-only) with `grpc-status: 12`.
pub const WATCH: [u8; HEADER_LEN + HEAD_FIELDS.len() + UNIMPLEMENTED_TRAILER.len()] = {
    let mut fields = [0u8; HEAD_FIELDS.len() + UNIMPLEMENTED_TRAILER.len()];
    let mut i = 0;
    while i < HEAD_FIELDS.len() {
        fields[i] = HEAD_FIELDS[i];
        i += 1;
    }
    let mut j = 0;
    while j < UNIMPLEMENTED_TRAILER.len() {
        fields[HEAD_FIELDS.len() + j] = UNIMPLEMENTED_TRAILER[j];
        j += 1;
    }
    let out = [0u8; HEADER_LEN + HEAD_FIELDS.len() + UNIMPLEMENTED_TRAILER.len()];
    put_frame(
        out,
        0,
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        &fields,
    )
    .0
};

/// Append preformatted frames, each header's stream id set to `stream`.
fn put(out: &mut Vec<u8>, frames: &[u8], stream: u32) {
    let start = out.len();
    out.extend_from_slice(frames);
    let mut at = start;
    while at < out.len() {
        let len = (usize::from(out[at]) << 16)
            | (usize::from(out[at + 1]) << 8)
            | usize::from(out[at + 2]);
        out[at + 5..at + HEADER_LEN].copy_from_slice(&stream.to_be_bytes());
        at += HEADER_LEN + len;
    }
}

/// Write stream `id`'s answer to `call` into `out`: its HEADERS unless `head_sent`, then its
/// DATA and trailers when `room` (the smaller of the peer's windows) holds the DATA. Returns
/// the DATA's length once all is written (the stream is done), None while the windows hold it
/// back.
pub(super) fn answer(
    call: Call,
    id: u32,
    head_sent: bool,
    room: i64,
    out: &mut Vec<u8>,
) -> Option<usize> {
    if call == Call::Watch {
        put(out, &WATCH, id);
        return Some(0);
    }
    if !head_sent {
        put(out, &CHECK[..CHECK_HEAD_LEN], id);
    }
    if room < SERVING_MESSAGE.len() as i64 {
        return None;
    }
    put(out, &CHECK[CHECK_HEAD_LEN..], id);
    Some(SERVING_MESSAGE.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frames_are_the_protocols_bytes() {
        let mut out = Vec::new();
        put(&mut out, &CHECK, 3);
        let mut want = vec![
            0,
            0,
            20,
            kind::HEADERS,
            flag::END_HEADERS,
            0,
            0,
            0,
            3,
            0x88,
            0x0f,
            0x10,
            16,
        ];
        want.extend_from_slice(b"application/grpc");
        want.extend_from_slice(&[0, 0, 7, kind::DATA, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 8, 1]);
        want.extend_from_slice(&[
            0,
            0,
            15,
            kind::HEADERS,
            flag::END_HEADERS | flag::END_STREAM,
        ]);
        want.extend_from_slice(&[0, 0, 0, 3, 0, 11]);
        want.extend_from_slice(b"grpc-status");
        want.extend_from_slice(b"\x010");
        assert_eq!(out, want);

        let mut out = Vec::new();
        put(&mut out, &WATCH, 0x7fff_ffff);
        assert_eq!(
            &out[..9],
            &[0, 0, 36, kind::HEADERS, 5, 0x7f, 0xff, 0xff, 0xff]
        );
        assert_eq!(&out[9..29], &HEAD_FIELDS);
        assert_eq!(&out[29..], b"\x00\x0bgrpc-status\x0212");
    }

    #[test]
    fn only_post_on_the_two_paths_is_a_call() {
        assert_eq!(Call::of(true, b"POST", CHECK_PATH), Call::Check);
        assert_eq!(Call::of(true, b"POST", WATCH_PATH), Call::Watch);
        assert_eq!(Call::of(false, b"POST", CHECK_PATH), Call::None);
        assert_eq!(Call::of(true, b"GET", CHECK_PATH), Call::None);
        assert_eq!(
            Call::of(true, b"POST", b"/grpc.health.v1.Health/List"),
            Call::None
        );
    }
}
