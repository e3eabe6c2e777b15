//! HTTP/2 frames for the tests that speak the protocol with raw bytes: one frame built, and a
//! stream of bytes split back into frames.

use canned::frame::Header;

/// Frames as [`split`] returns them: each header, and its payload.
pub type Frames = Vec<(Header, Vec<u8>)>;

/// One frame: its 9-byte header, then `payload`.
pub fn frame(k: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let h = Header {
        len: payload.len() as u32,
        kind: k,
        flags,
        stream,
    };
    let mut f = h.encode().to_vec();
    f.extend_from_slice(payload);
    f
}

/// The whole frames at the start of `b`; a frame cut short at its end is left out.
pub fn split(mut b: &[u8]) -> Frames {
    let mut out = Vec::new();
    while let Some(h) = Header::parse(b) {
        let end = 9 + h.len as usize;
        if b.len() < end {
            break;
        }
        out.push((h, b[9..end].to_vec()));
        b = &b[end..];
    }
    out
}
