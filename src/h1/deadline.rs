//! When a connection times out, and why: the header timeout while a head is in progress,
//! the write timeout while output waits, the idle timeout otherwise.

use super::Http1Conn;
use super::state::{Phase, Refill};
use crate::conn::TimeoutsUs;
use crate::stats::Timeout;

impl Http1Conn {
    /// When this connection times out, and why. The header timeout runs whenever a head is
    /// in progress, even with output pending; the write timeout counts from the last write
    /// progress (or from when the work area was taken, or held output released), so input
    /// does not refresh it.
    #[inline(always)]
    pub(super) fn deadline(&self, t: &TimeoutsUs) -> (u64, Timeout) {
        let Some(b) = self.work.as_deref() else {
            if self.served == 0 && matches!(self.phase, Phase::Open) && t.header_us < t.idle_us {
                // Accepted and silent: the first head's header timeout runs from the accept.
                return (self.active_us_or_parked + t.header_us, Timeout::Header);
            }
            return (self.active_us_or_parked + t.idle_us, Timeout::Idle);
        };
        let writing = b.pending_out() > 0 || !matches!(b.refill, Refill::None);
        let mut due = if b.hold_until_us != 0 {
            // Held output is not pending yet: the write timeout starts at its release.
            (u64::MAX, Timeout::Write)
        } else if writing {
            (b.out_since_us + t.write_us, Timeout::Write)
        } else if b.head_since_us.is_none() {
            (self.active_us_or_parked + t.idle_us, Timeout::Idle)
        } else {
            (u64::MAX, Timeout::Header)
        };
        if let Some(since) = b.head_since_us {
            if since + t.header_us < due.0 {
                due = (since + t.header_us, Timeout::Header);
            }
        }
        due
    }
}
