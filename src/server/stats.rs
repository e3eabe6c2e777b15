//! What a server did: the counters summed over workers, the `--stats` JSON body and the exit
//! summary line.

use crate::conn::{Stats, Timeout};
use crate::parser::Error;

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

/// Rejected requests by kind, in [`Error::ALL`] order.
fn errors(s: &Stats) -> impl Iterator<Item = (&'static str, u64)> + '_ {
    Error::ALL.iter().map(|e| e.name()).zip(s.errors)
}

/// Timeouts by kind, in [`Timeout::ALL`] order.
fn timeouts(s: &Stats) -> impl Iterator<Item = (&'static str, u64)> + '_ {
    Timeout::ALL.iter().map(|t| t.name()).zip(s.timeouts)
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
        list(f, " (", ")", &mut errors(s))?;
        let timeouts_total: u64 = s.timeouts.iter().sum();
        if timeouts_total > 0 {
            write!(f, ", {timeouts_total} timeout{}", plural(timeouts_total))?;
            list(f, " (", ")", &mut timeouts(s))?;
        }
        let mut by_status = s.by_status.iter().enumerate().map(|(code, &n)| (code, n));
        list(f, "; responses ", "", &mut by_status)?;
        let mut faults = crate::fault::FaultKind::ALL
            .iter()
            .map(|k| k.name())
            .zip(s.faults);
        list(f, "; faults ", "", &mut faults)?;
        let mut mutated = crate::mutate::ids().zip(s.mutated.iter().copied());
        list(f, "; malformed ", "", &mut mutated)?;
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

/// The `--stats` body.
pub(super) fn stats_json(t: &Summary, open: usize) -> String {
    use std::fmt::Write;
    let s = &t.stats;
    let mut j = format!(
        "{{\"connections_open\":{open},\"connections_total\":{},\"idle_closed_at_limit\":{},\"accept_errors\":{},\"requests\":{},\"responses\":{{",
        t.connections, t.idle_closed_at_limit, t.accept_errors, s.requests
    );
    for (status, &n) in s.by_status.iter().enumerate().filter(|(_, n)| **n > 0) {
        member(&mut j, &status, n);
    }
    j.push_str("},\"errors\":{");
    for (e, n) in errors(s) {
        member(&mut j, &e, n);
    }
    j.push_str("},\"timeouts\":{");
    for (name, n) in timeouts(s) {
        member(&mut j, &name, n);
    }
    j.push_str("},\"faults\":{");
    for (kind, n) in crate::fault::FaultKind::ALL.iter().zip(s.faults) {
        member(&mut j, &kind.name(), n);
    }
    j.push_str("},\"mutate\":{");
    for (id, &n) in crate::mutate::ids().zip(&s.mutated) {
        if n > 0 {
            member(&mut j, &id, n);
        }
    }
    let _ = writeln!(
        j,
        "}},\"bytes_in\":{},\"bytes_out\":{},\"log_lines_dropped\":{}}}",
        s.bytes_in, s.bytes_out, s.log_lines_dropped
    );
    j
}

/// `"name":n` in an object, after a comma unless it is the first member. Out of line: one
/// formatting call for every member instead of one per loop (and per unrolled iteration).
/// Names need no escaping (status codes, ids and snake_case names).
#[inline(never)]
fn member(j: &mut String, name: &dyn std::fmt::Display, n: u64) {
    use std::fmt::Write;
    let comma = if j.ends_with('{') { "" } else { "," };
    let _ = write!(j, "{comma}\"{name}\":{n}");
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            s.to_string(),
            "canned: 5 connections, 6 requests, 1 error (missing_host 1), 1 timeout (header 1); \
             responses 200 3, 400 1, 408 1, 413 2; faults reset 2; malformed cl-plus-sign 1; \
             idle_closed_at_limit 1"
        );
    }

    /// The `--stats` body names every error and timeout kind, and the limit closes.
    #[test]
    fn stats_body_names_every_counter() {
        let mut t = Summary {
            connections: 5,
            idle_closed_at_limit: 4,
            accept_errors: 6,
            ..Summary::default()
        };
        t.stats.timeouts = [1, 2, 3];
        t.stats.by_status[200] = 7;
        t.stats.faults[crate::fault::FaultKind::Reset.index()] = 2;
        t.stats.mutated = vec![0, 0, 0, 0, 0, 0, 0, 5];
        t.stats.log_lines_dropped = 6;
        let j = stats_json(&t, 1);
        for want in [
            "\"connections_open\":1",
            "\"connections_total\":5",
            "\"idle_closed_at_limit\":4",
            "\"accept_errors\":6",
            "\"responses\":{\"200\":7}",
            "\"timeouts\":{\"header\":1,\"idle\":2,\"write\":3}",
            "\"missing_host\":0",
            "\"faults\":{\"latency\":0,\"drip\":0,\"stall\":0,\"truncate\":0,\"reset\":2,\"garbage\":0,\"error\":0}",
            "\"mutate\":{\"cl-plus-sign\":5}",
            "\"log_lines_dropped\":6}",
        ] {
            assert!(j.contains(want), "{want} not in {j}");
        }
        assert!(j.ends_with("}\n"));
    }
}
