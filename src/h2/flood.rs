//! Per-connection accounting against HTTP/2 floods: each known vector ends in GOAWAY
//! ENHANCE_YOUR_CALM before it costs more than a bounded amount of CPU or memory.
//!
//! [`Flood::frame`] is called with each frame before it is handled; the connection tells it
//! what it queued ([`Flood::queued`]), that the peer read something ([`Flood::wrote`]), that a
//! stream was answered in full ([`Flood::answered`]) and that it reset a stream
//! ([`Flood::reset`]). Four budgets, all counters in the connection's box (no allocation):
//!
//! - **control output the peer does not read**: PING and SETTINGS acknowledgements,
//!   RST_STREAM and WINDOW_UPDATE frames queued since the last write that made progress;
//!   more than [`CONTROL_UNREAD`] bytes of them (CVE-2019-9512 ping flood, 9515 settings flood,
//!   9514 reset flood, 9511 data dribble with tiny DATA). Go's `maxQueuedControlFrames` and
//!   nghttp2's outbound-queue limit count 10,000 frames; here bytes, below the output bound, so
//!   that it is reached before reading stops.
//! - **frames that make no progress**: PRIORITY, unknown types, PING, SETTINGS, DATA without
//!   data or END_STREAM, HEADERS or CONTINUATION without a fragment or END_HEADERS, and
//!   WINDOW_UPDATE of less than [`SMALL_WINDOW_UPDATE`] bytes, spend one token of a bucket of
//!   [`IDLE_BURST`] refilled at [`IDLE_PER_SECOND`] a second and by [`IDLE_PER_BLOCK`] for each
//!   whole header block (CVE-2019-9513 priority churn, 9518 empty frames, 9511 with 1-byte
//!   window updates, and PING or SETTINGS floods from a peer that reads).
//! - **resets**: streams reset by the peer, and stream errors canned answers with
//!   RST_STREAM, less the streams answered in full; more than [`RESET_DEBT`] (CVE-2023-44487
//!   rapid reset, 9514 reset flood, 9516 zero-length header names). hyper's h2 bounds the
//!   streams reset by the peer before they are accepted (20) and those it reset (1,024);
//!   here resets are counted against the requests answered.
//! - **CONTINUATION**: more than [`MAX_CONTINUATIONS`] in one header block, empty ones
//!   included (CVE-2024-27316 and its 2024 siblings; nghttp2 allows 8). The block's bytes are
//!   bounded by the connection (`MAX_BLOCK`).
//!
//! And a request whose body never comes: its stream is reset (CANCEL) once it has had no
//! frame for `--idle-timeout` ([`body_deadline`], [`body_due`]).

use crate::frame::Frame;

/// Control frames queued and not yet read by the peer, in bytes (about 960 PING
/// acknowledgements, 1,260 RST_STREAM frames).
pub const CONTROL_UNREAD: usize = 16 * 1024;
/// Frames that make no progress, at once.
pub const IDLE_BURST: u32 = 10_000;
/// ... refilled at this rate, a second (a PING every 10 ms goes on for ever).
pub const IDLE_PER_SECOND: u32 = 100;
/// ... and by this much for each whole header block.
pub const IDLE_PER_BLOCK: u32 = 8;
/// A WINDOW_UPDATE below this increment makes no progress.
pub const SMALL_WINDOW_UPDATE: u32 = 1_024;
/// Resets (the peer's and canned's own) beyond the streams answered in full.
pub const RESET_DEBT: u32 = 100;
/// CONTINUATION frames in one header block.
pub const MAX_CONTINUATIONS: u32 = 8;

/// The counters. See the module documentation.
#[derive(Debug)]
pub(super) struct Flood {
    control_unread: usize,
    tokens: u32,
    tokens_at_us: u64,
    resets: u32,
    continuations: u32,
}

/// Which budget a flood ran out of (for the tests and the log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Vector {
    ControlUnread,
    IdleFrames,
    Resets,
    Continuations,
}

impl Flood {
    pub(super) fn new(now_us: u64) -> Flood {
        Flood {
            control_unread: 0,
            tokens: IDLE_BURST,
            tokens_at_us: now_us,
            resets: 0,
            continuations: 0,
        }
    }

    /// A frame arrived: `Err` when it is one too many (GOAWAY ENHANCE_YOUR_CALM).
    pub(super) fn frame(&mut self, f: &Frame<'_>, now_us: u64) -> Result<(), Vector> {
        if self.control_unread > CONTROL_UNREAD {
            return Err(Vector::ControlUnread);
        }
        if self.resets > RESET_DEBT {
            return Err(Vector::Resets);
        }
        let idle = match *f {
            Frame::Data {
                data, end_stream, ..
            } => data.is_empty() && !end_stream,
            Frame::Headers {
                fragment,
                end_headers,
                ..
            } => {
                self.continuations = 0;
                self.block(end_headers);
                fragment.is_empty() && !end_headers
            }
            Frame::Continuation {
                fragment,
                end_headers,
                ..
            } => {
                self.continuations += 1;
                if self.continuations > MAX_CONTINUATIONS {
                    return Err(Vector::Continuations);
                }
                self.block(end_headers);
                fragment.is_empty() && !end_headers
            }
            Frame::RstStream { .. } => {
                self.resets += 1;
                false
            }
            Frame::WindowUpdate { increment, .. } => increment < SMALL_WINDOW_UPDATE,
            Frame::Priority { .. }
            | Frame::Unknown { .. }
            | Frame::Ping { .. }
            | Frame::Settings { .. } => true,
            Frame::GoAway { .. } => false,
        };
        if idle {
            self.refill(now_us);
            if self.tokens == 0 {
                return Err(Vector::IdleFrames);
            }
            self.tokens -= 1;
        }
        Ok(())
    }

    /// A header block ended: tokens back.
    fn block(&mut self, end_headers: bool) {
        if end_headers {
            self.tokens = (self.tokens + IDLE_PER_BLOCK).min(IDLE_BURST);
        }
    }

    fn refill(&mut self, now_us: u64) {
        let elapsed = now_us.saturating_sub(self.tokens_at_us);
        let add = elapsed.saturating_mul(u64::from(IDLE_PER_SECOND)) / 1_000_000;
        if add > 0 {
            let t = u64::from(self.tokens).saturating_add(add);
            self.tokens = t.min(u64::from(IDLE_BURST)) as u32;
            // Keep the remainder's time, so a steady rate is counted in full.
            self.tokens_at_us += add * 1_000_000 / u64::from(IDLE_PER_SECOND);
        }
    }

    /// A control frame of `len` bytes was queued.
    pub(super) fn queued(&mut self, len: usize) {
        self.control_unread += len;
    }

    /// A write made progress: everything queued before it may have been read.
    pub(super) fn wrote(&mut self) {
        self.control_unread = 0;
    }

    /// canned reset a stream (a stream error).
    pub(super) fn reset(&mut self) {
        self.resets += 1;
    }

    /// A stream was answered in full: one reset is forgiven.
    pub(super) fn answered(&mut self) {
        self.resets = self.resets.saturating_sub(1);
    }

    /// Control bytes queued since the peer last read (for the tests).
    #[cfg(test)]
    pub(super) fn control_unread(&self) -> usize {
        self.control_unread
    }
}

/// A request whose body never comes: a stream with no frame since its HEADERS or its last DATA
/// for `--idle-timeout` (the HTTP/1 meaning inside a body) is due, and reset with CANCEL; the
/// connection goes on. When the first of those waiting (each one's last frame, `last_us`) is
/// due (`u64::MAX`: none).
pub(super) fn body_deadline(last_us: impl Iterator<Item = u64>, idle_us: u64) -> u64 {
    last_us
        .map(|t| t.saturating_add(idle_us))
        .min()
        .unwrap_or(u64::MAX)
}

/// Whether a request waiting for its body since `last_us` is due.
pub(super) fn body_due(last_us: u64, now_us: u64, idle_us: u64) -> bool {
    now_us > last_us.saturating_add(idle_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_tokens_run_out_and_refill_at_their_rate() {
        let mut f = Flood::new(0);
        let p = Frame::Priority { stream: 1 };
        for _ in 0..IDLE_BURST {
            assert_eq!(f.frame(&p, 0), Ok(()));
        }
        assert_eq!(f.frame(&p, 0), Err(Vector::IdleFrames));
        // 10 ms later, one token.
        assert_eq!(f.frame(&p, 10_000), Ok(()));
        assert_eq!(f.frame(&p, 10_000), Err(Vector::IdleFrames));
    }

    #[test]
    fn resets_are_forgiven_by_answers() {
        let mut f = Flood::new(0);
        let r = Frame::RstStream { stream: 1, code: 8 };
        for _ in 0..RESET_DEBT {
            assert_eq!(f.frame(&r, 0), Ok(()));
        }
        f.answered();
        assert_eq!(f.frame(&r, 0), Ok(()));
        // The 101st reset is counted; the next frame is refused, whatever it is.
        assert_eq!(f.frame(&r, 0), Ok(()));
        let p = Frame::Priority { stream: 1 };
        assert_eq!(f.frame(&p, 0), Err(Vector::Resets));
        let mut f = Flood::new(0);
        for _ in 0..=RESET_DEBT {
            f.reset();
        }
        assert_eq!(f.frame(&p, 0), Err(Vector::Resets));
    }

    #[test]
    fn continuations_per_block_and_unread_control() {
        let mut f = Flood::new(0);
        let h = Frame::Headers {
            stream: 1,
            end_stream: true,
            end_headers: false,
            fragment: b"\x82",
            depends_on_itself: false,
        };
        let c = Frame::Continuation {
            stream: 1,
            end_headers: false,
            fragment: b"",
        };
        assert_eq!(f.frame(&h, 0), Ok(()));
        for _ in 0..MAX_CONTINUATIONS {
            assert_eq!(f.frame(&c, 0), Ok(()));
        }
        assert_eq!(f.frame(&c, 0), Err(Vector::Continuations));
        let mut f = Flood::new(0);
        f.queued(CONTROL_UNREAD + 1);
        assert_eq!(f.control_unread(), CONTROL_UNREAD + 1);
        assert_eq!(f.frame(&h, 0), Err(Vector::ControlUnread));
        f.wrote();
        assert_eq!(f.frame(&h, 0), Ok(()));
    }
}
