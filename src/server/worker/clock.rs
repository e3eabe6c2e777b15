//! A worker's two clocks: the monotonic microseconds every deadline counts in
//! ([`us_rounded_up`]), and the wall-clock second the `Date` field shows ([`DateClock`]).

use crate::response::{Responses, http_date};
use std::time::{Duration, SystemTime};

/// Whole microseconds in `d`, rounded up: the worker's clock. Deadlines count from it, so that
/// `now_us + d` is at least `d` after the moment the clock was read, and one has passed only
/// once the clock is beyond it (`now_us > t`: the real time is then over `now_us - 1 >= t`).
/// Rounded down, a pause could end up to 1 µs before its time; rounded up, it ends at most 1 µs
/// after it, besides the loop's wake-up (a clock of whole milliseconds, by the same rule, made
/// a pause up to 1 ms late).
#[inline]
pub(super) fn us_rounded_up(d: Duration) -> u64 {
    d.as_secs() * 1_000_000 + u64::from(d.subsec_nanos().div_ceil(1_000))
}

/// The `Date` field of a worker's responses: rendered again when the wall-clock second has
/// changed since, looked at once per loop turn.
pub(super) struct DateClock {
    /// The field is on (no `--no-date`).
    patch: bool,
    /// The wall-clock second the field was last rendered for.
    second: u64,
}

impl DateClock {
    pub(super) fn new(patch: bool) -> DateClock {
        DateClock { patch, second: 0 }
    }

    /// Render the `Date` field into `responses` if the second changed.
    #[inline(always)]
    pub(super) fn refresh(&mut self, responses: &mut Responses) {
        if self.patch {
            let wall = SystemTime::now();
            let secs = wall
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            if secs != self.second {
                self.second = secs;
                responses.set_date(http_date(wall));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker's clock: whole microseconds, rounded up.
    #[test]
    fn the_clock_rounds_up() {
        let ns = Duration::from_nanos;
        assert_eq!(us_rounded_up(ns(0)), 0);
        assert_eq!(us_rounded_up(ns(1)), 1);
        assert_eq!(us_rounded_up(ns(5_000)), 5);
        assert_eq!(us_rounded_up(ns(5_001)), 6);
        assert_eq!(us_rounded_up(ns(5_000_000)), 5_000);
        assert_eq!(us_rounded_up(Duration::new(2, 999_999_999)), 3_000_000);
        assert_eq!(us_rounded_up(Duration::new(7, 0)), 7_000_000);
    }
}
