//! What a server did, summed over its workers ([`Summary`]), and the exit summary line that
//! its `Display` writes.

use super::counters::Stats;

/// What a server did, summed over its workers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Connections accepted.
    pub connections: u64,
    /// Idle keep-alive connections closed at `--max-conns` to admit a new one.
    pub idle_closed_at_limit: u64,
    /// accept(2) failures that paused accepting (out of fds or memory, or refused).
    pub accept_errors: u64,
    /// Counters.
    pub stats: Stats,
}

impl Summary {
    /// Add another worker's summary.
    pub fn add(&mut self, other: &Summary) {
        self.connections += other.connections;
        self.idle_closed_at_limit += other.idle_closed_at_limit;
        self.accept_errors += other.accept_errors;
        self.stats.add(&other.stats);
    }

    /// The sum of several workers' summaries.
    pub fn total<'a>(all: impl IntoIterator<Item = &'a Summary>) -> Summary {
        let mut total = Summary::default();
        for s in all {
            total.add(s);
        }
        total
    }
}

/// `""` for one, `"s"` otherwise.
fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `canned: 12 connections, 3400 requests, 1 error (missing_host 1); responses 200 3399, 400 1`:
/// the categories of `--stats`, each after the totals and only when non-zero: rejected requests
/// by kind, timeouts by kind, responses by status (every one canned sent, 408 and 413
/// included), faults and malformed responses sent, and the limits' counts.
impl std::fmt::Display for Summary {
    #[cfg_attr(canned_small, optimize(size))]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.stats;
        let errors_total: u64 = s.errors.iter().sum();
        write!(
            f,
            "canned: {} connection{}, {} request{}, {errors_total} error{}",
            self.connections,
            plural(self.connections),
            s.requests,
            plural(s.requests),
            plural(errors_total)
        )?;
        list(f, " (", ")", &mut s.errors_by_kind())?;
        let timeouts_total: u64 = s.timeouts.iter().sum();
        if timeouts_total > 0 {
            write!(f, ", {timeouts_total} timeout{}", plural(timeouts_total))?;
            list(f, " (", ")", &mut s.timeouts_by_kind())?;
        }
        let mut by_status = s.by_status.iter().enumerate().map(|(code, &n)| (code, n));
        list(f, "; responses ", "", &mut by_status)?;
        // Counted only where the feature is built: the core links neither list's names.
        if cfg!(feature = "faults") {
            let mut faults = crate::fault::FaultKind::ALL
                .iter()
                .map(|k| k.name())
                .zip(s.faults);
            list(f, "; faults ", "", &mut faults)?;
        }
        if cfg!(feature = "mutate") {
            let mut mutated = crate::mutate::ids().zip(s.mutated.iter().copied());
            list(f, "; malformed ", "", &mut mutated)?;
        }
        let limits = [
            ("idle_closed_at_limit", self.idle_closed_at_limit),
            ("accept_errors", self.accept_errors),
            ("log_lines_dropped", s.log_lines_dropped),
        ];
        list(f, "; ", "", &mut limits.into_iter())
    }
}

/// `open name n, name n close`: the non-zero counts, nothing when there is none. Out of line,
/// so that each category is one call, not a formatting call per unrolled count.
#[inline(never)]
fn list<N: std::fmt::Display>(
    f: &mut std::fmt::Formatter<'_>,
    open: &str,
    close: &str,
    counts: &mut dyn Iterator<Item = (N, u64)>,
) -> std::fmt::Result {
    let mut sep = open;
    for (name, n) in counts.filter(|&(_, n)| n > 0) {
        write!(f, "{sep}{name} {n}")?;
        sep = ", ";
    }
    if sep == ", " {
        f.write_str(close)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::parser::Error;

    /// The exit summary line, singular for one and plural otherwise.
    #[test]
    fn summary_line_grammar() {
        let with = |connections, requests, errors: &[(Error, u64)], timeouts: [u64; 3], idle| {
            let mut s = Summary {
                connections,
                idle_closed_at_limit: idle,
                ..Summary::default()
            };
            s.stats.requests = requests;
            for &(e, n) in errors {
                s.stats.errors[e.index()] = n;
            }
            s.stats.timeouts = timeouts;
            s.to_string()
        };
        let missing_host = Error::ALL
            .iter()
            .copied()
            .find(|e| e.to_string() == "missing_host")
            .unwrap();
        let accept_errors = {
            let mut s = Summary {
                connections: 4,
                accept_errors: 3,
                ..Summary::default()
            };
            s.stats.requests = 4;
            s.to_string()
        };
        let dropped = {
            let mut s = Summary::default();
            s.stats.log_lines_dropped = 1_234;
            s.stats.timeouts = [0, 1, 0];
            s.to_string()
        };
        let cases: [(String, &str); 8] = [
            (
                accept_errors,
                "canned: 4 connections, 4 requests, 0 errors; accept_errors 3",
            ),
            (
                with(0, 0, &[], [0; 3], 0),
                "canned: 0 connections, 0 requests, 0 errors",
            ),
            (
                with(1, 1, &[(missing_host, 1)], [0; 3], 0),
                "canned: 1 connection, 1 request, 1 error (missing_host 1)",
            ),
            (
                with(12, 3400, &[(missing_host, 2)], [0; 3], 0),
                "canned: 12 connections, 3400 requests, 2 errors (missing_host 2)",
            ),
            (
                with(2, 0, &[], [1, 0, 3], 0),
                "canned: 2 connections, 0 requests, 0 errors, 4 timeouts (header 1, write 3)",
            ),
            (
                with(3, 3, &[], [0; 3], 2),
                "canned: 3 connections, 3 requests, 0 errors; idle_closed_at_limit 2",
            ),
            (
                with(1, 2, &[], [0, 1, 0], 0),
                "canned: 1 connection, 2 requests, 0 errors, 1 timeout (idle 1)",
            ),
            (
                dropped,
                "canned: 0 connections, 0 requests, 0 errors, 1 timeout (idle 1); log_lines_dropped 1234",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
        // Every category of `--stats`, in its order: responses by status (413 and 408, which
        // are no parser error, included), faults, malformed responses, the limits.
        let mut s = Summary {
            connections: 5,
            idle_closed_at_limit: 1,
            ..Summary::default()
        };
        s.stats.requests = 6;
        s.stats.errors[missing_host.index()] = 1;
        s.stats.timeouts = [1, 0, 0];
        for (status, n) in [(200, 3), (400, 1), (408, 1), (413, 2)] {
            s.stats.by_status[status] = n;
        }
        s.stats.faults[crate::fault::FaultKind::Reset.index()] = 2;
        s.stats.mutated = vec![0, 0, 0, 0, 0, 0, 0, 1];
        let faults = if cfg!(feature = "faults") {
            "faults reset 2; "
        } else {
            ""
        };
        let malformed = if cfg!(feature = "mutate") {
            "malformed cl-plus-sign 1; "
        } else {
            ""
        };
        assert_eq!(
            s.to_string(),
            format!(
                "canned: 5 connections, 6 requests, 1 error (missing_host 1), 1 timeout (header 1); \
                 responses 200 3, 400 1, 408 1, 413 2; {faults}{malformed}idle_closed_at_limit 1"
            )
        );
    }
}
