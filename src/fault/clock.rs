//! Wall-clock dates for worker times: a dripped head carries the `Date` of its first piece,
//! computed again, the same, by each piece that holds part of it.

use crate::response::http_date;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The tie between a worker's clock (µs since its start) and the wall clock.
#[derive(Debug, Default)]
pub(super) struct WallClock {
    /// The wall-clock time (Unix µs) at worker time 0; set at its first use.
    wall_us_at_zero: Option<u64>,
}

impl WallClock {
    /// The `Date` value (IMF-fixdate) of worker time `at_us`, `now_us` being the worker time
    /// now. The worker clock is tied to the wall clock at the first call, and again only when
    /// the wall clock moved by more than two seconds against it (a clock step).
    pub(super) fn date_at(&mut self, at_us: u64, now_us: u64) -> [u8; 29] {
        let unix = |t: SystemTime| {
            t.duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as u64)
        };
        let wall_us = unix(SystemTime::now());
        let zero = match self.wall_us_at_zero {
            Some(z) if z.saturating_add(now_us).abs_diff(wall_us) <= 2_000_000 => z,
            _ => {
                let z = wall_us.saturating_sub(now_us);
                self.wall_us_at_zero = Some(z);
                z
            }
        };
        http_date(UNIX_EPOCH + Duration::from_micros(zero.saturating_add(at_us)))
    }
}
