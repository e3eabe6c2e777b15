//! The streams canned reset itself (RFC 9113 §5.1, closed): a peer may have sent frames on
//! one before it read the RST_STREAM, and "an endpoint MUST ignore frames that it receives on
//! closed streams after it has sent a RST_STREAM frame". So DATA on such a stream is counted
//! against the connection's window (and the window given back) and otherwise ignored, and a
//! header block on it (trailers) is decoded for the HPACK table's sake (§4.3) and ignored:
//! neither is reset again nor charged to the flood budget as a reset. An honest uploader
//! answered 413 on every upload, its body in flight each time, is not cut off (nginx ignores
//! such frames too).
//!
//! The RFC lets the period be limited: the last [`KEPT`] streams reset are remembered, in a
//! few hundred bytes of the connection's box; a frame on an older one is a frame on a closed
//! stream (STREAM_CLOSED).

/// How many of canned's resets are remembered: as many streams as may be open at once
/// (SETTINGS_MAX_CONCURRENT_STREAMS, 100), so that every one of them reset together (100
/// uploads over `--max-body-bytes`) is covered.
const KEPT: usize = 100;

/// The streams canned reset most recently. See the module documentation.
#[derive(Clone, Copy, Debug)]
pub(super) struct ResetByUs {
    /// Stream identifiers, the newest at `next - 1`; 0 is no stream.
    ids: [u32; KEPT],
    next: usize,
}

impl Default for ResetByUs {
    fn default() -> ResetByUs {
        ResetByUs {
            ids: [0; KEPT],
            next: 0,
        }
    }
}

impl ResetByUs {
    /// canned sent RST_STREAM on `stream`.
    pub(super) fn add(&mut self, stream: u32) {
        self.ids[self.next % KEPT] = stream;
        self.next = self.next.wrapping_add(1);
    }

    /// Whether frames on `stream` are to be ignored: canned reset it recently.
    pub(super) fn contains(&self, stream: u32) -> bool {
        stream != 0 && self.ids.contains(&stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_resets_are_remembered() {
        let mut r = ResetByUs::default();
        assert!(!r.contains(0) && !r.contains(1));
        r.add(1);
        assert!(r.contains(1) && !r.contains(3));
        for i in 0..KEPT as u32 {
            r.add(3 + 2 * i);
        }
        assert!(!r.contains(1), "the oldest is forgotten");
        assert!(r.contains(3) && r.contains(1 + 2 * KEPT as u32));
    }
}
