//! The `--stats` counters in the Prometheus text exposition format (version 0.0.4).
//!
//! Names follow Prometheus' conventions: a `canned_` prefix, `_total` on counters, base units
//! (bytes), one metric family per quantity with a label for the breakdown (`status`, `kind`).
//! Every error and timeout kind is written even at zero, so that a series exists from the
//! first scrape and `rate()` sees its first increment.
//!
//! ```
//! use canned::server::Summary;
//!
//! let mut summary = Summary::default();
//! summary.connections = 2;
//! summary.stats.requests = 3;
//! summary.stats.by_status[200] = 3;
//! let mut body = Vec::new();
//! canned::stats::prometheus::render(&summary, 1, &mut body);
//! let text = String::from_utf8(body).unwrap();
//! assert!(text.contains("\ncanned_responses_total{status=\"200\"} 3\n"));
//! assert!(text.contains("\ncanned_connections_open 1\n"));
//! ```

use super::counters::Timeout;
use super::summary::Summary;
use crate::parser::Error;
use std::io::Write;

/// The `Content-Type` of a metrics response: the text format, version 0.0.4. Defined with the
/// responses, which give the `--metrics` route its head.
pub use crate::response::METRICS_CONTENT_TYPE as CONTENT_TYPE;

/// Replace `out`'s contents with `summary` (counters summed over workers) and `open`
/// (connections open now) in the Prometheus text format.
///
/// Writing reuses `out`'s capacity: once it has held one rendering, the next allocates only if
/// the text grew (a new status code seen, or a counter gaining digits).
pub fn render(summary: &Summary, open: usize, out: &mut Vec<u8>) {
    out.clear();
    let s = &summary.stats;
    let requests = "canned_requests_total";
    family(out, requests, COUNTER, "Complete request heads received.");
    sample(out, requests, "", "", s.requests);

    let responses = "canned_responses_total";
    family(
        out,
        responses,
        COUNTER,
        "Responses started, by status code.",
    );
    for (status, &n) in s.by_status.iter().enumerate().filter(|(_, n)| **n > 0) {
        let _ = writeln!(out, "{responses}{{status=\"{status}\"}} {n}");
    }

    let errors = "canned_errors_total";
    let help = "Requests rejected, by parser error kind.";
    family(out, errors, COUNTER, help);
    for (e, n) in Error::ALL.iter().zip(s.errors) {
        sample(out, errors, "kind", e.name(), n);
    }

    let timeouts = "canned_timeouts_total";
    let help = "Connections closed by a timeout, by kind (header, idle, write).";
    family(out, timeouts, COUNTER, help);
    for (t, n) in Timeout::ALL.iter().zip(s.timeouts) {
        sample(out, timeouts, "kind", t.name(), n);
    }

    let faults = "canned_faults_total";
    let help = "Responses given a fault (--fault), by kind.";
    family(out, faults, COUNTER, help);
    for (kind, n) in crate::fault::FaultKind::ALL.iter().zip(s.faults) {
        sample(out, faults, "kind", kind.name(), n);
    }

    let mutated = "canned_mutated_total";
    let help = "Malformed responses sent (--mutate), by catalogue id.";
    family(out, mutated, COUNTER, help);
    for (id, &n) in crate::mutate::ids().zip(&s.mutated) {
        if n > 0 {
            sample(out, mutated, "id", id, n);
        }
    }

    for (name, kind, help, n) in [
        (
            "canned_connections_open",
            "gauge",
            "Connections open now.",
            open as u64,
        ),
        (
            "canned_connections_total",
            COUNTER,
            "Connections accepted.",
            summary.connections,
        ),
        (
            "canned_idle_closed_at_limit_total",
            COUNTER,
            "Idle keep-alive connections closed to admit a new one at --max-conns.",
            summary.idle_closed_at_limit,
        ),
        (
            "canned_accept_errors_total",
            COUNTER,
            "accept(2) failures that paused accepting (out of fds or memory, or refused).",
            summary.accept_errors,
        ),
        (
            "canned_bytes_received_total",
            COUNTER,
            "Bytes read from clients.",
            s.bytes_in,
        ),
        (
            "canned_bytes_sent_total",
            COUNTER,
            "Bytes written to clients.",
            s.bytes_out,
        ),
        (
            "canned_log_lines_dropped_total",
            COUNTER,
            "Access-log lines dropped: stdout did not take them in time.",
            s.log_lines_dropped,
        ),
    ] {
        family(out, name, kind, help);
        sample(out, name, "", "", n);
    }
}

const COUNTER: &str = "counter";

/// The `# HELP` and `# TYPE` lines that open a metric family. Out of line, like [`sample`]:
/// one formatting call for all families instead of one per family.
#[inline(never)]
fn family(out: &mut Vec<u8>, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// One sample line: `name n`, or `name{label="value"} n` when `label` is not empty.
#[inline(never)]
fn sample(out: &mut Vec<u8>, name: &str, label: &str, value: &str, n: u64) {
    if label.is_empty() {
        let _ = writeln!(out, "{name} {n}");
    } else {
        let _ = writeln!(out, "{name}{{{label}=\"{value}\"}} {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(summary: &Summary, open: usize) -> String {
        let mut out = Vec::new();
        render(summary, open, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn busy() -> Summary {
        let mut t = Summary {
            connections: 12,
            idle_closed_at_limit: 2,
            accept_errors: 3,
            ..Summary::default()
        };
        t.stats.requests = 3400;
        t.stats.by_status[200] = 3399;
        t.stats.by_status[400] = 1;
        t.stats.errors[Error::MissingHost.index()] = 1;
        t.stats.timeouts = [4, 5, 6];
        t.stats.bytes_in = 123_456;
        t.stats.bytes_out = 7_890_123;
        t.stats.faults[crate::fault::FaultKind::Stall.index()] = 2;
        t.stats.mutated = vec![0, 1];
        t.stats.log_lines_dropped = 89;
        t
    }

    #[test]
    fn every_counter_has_its_sample_line() {
        let text = rendered(&busy(), 7);
        for line in [
            "canned_requests_total 3400",
            "canned_responses_total{status=\"200\"} 3399",
            "canned_responses_total{status=\"400\"} 1",
            "canned_errors_total{kind=\"missing_host\"} 1",
            "canned_errors_total{kind=\"bare_lf\"} 0",
            "canned_timeouts_total{kind=\"header\"} 4",
            "canned_timeouts_total{kind=\"idle\"} 5",
            "canned_timeouts_total{kind=\"write\"} 6",
            "canned_connections_open 7",
            "canned_connections_total 12",
            "canned_idle_closed_at_limit_total 2",
            "canned_accept_errors_total 3",
            "canned_bytes_received_total 123456",
            "canned_bytes_sent_total 7890123",
            "canned_log_lines_dropped_total 89",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "{line:?} missing in\n{text}"
            );
        }
    }

    #[test]
    fn statuses_never_seen_are_left_out() {
        let text = rendered(&busy(), 0);
        let statuses: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("canned_responses_total{"))
            .collect();
        assert_eq!(
            statuses,
            [
                "canned_responses_total{status=\"200\"} 3399",
                "canned_responses_total{status=\"400\"} 1"
            ]
        );
    }

    #[test]
    fn every_error_kind_appears_once_even_at_zero() {
        let text = rendered(&Summary::default(), 0);
        for e in Error::ALL {
            let line = format!("canned_errors_total{{kind=\"{}\"}} 0", e.name());
            assert_eq!(text.lines().filter(|l| *l == line).count(), 1, "{line}");
        }
    }

    /// The text format's rules that a scraper rejects a body for: each family's HELP and TYPE
    /// come once, before its samples; names and label values use the allowed characters
    /// (label values need no escaping); the body ends with a newline.
    #[test]
    fn text_format_is_well_formed() {
        let text = rendered(&busy(), 3);
        assert!(text.ends_with('\n'));
        let mut families: Vec<(&str, &str)> = Vec::new(); // (name, type)
        let mut current = "";
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                let name = rest.split(' ').next().unwrap();
                assert!(families.iter().all(|(n, _)| *n != name), "{name} twice");
                current = name;
            } else if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                assert_eq!(name, current, "TYPE without its HELP");
                assert!(kind == "counter" || kind == "gauge", "{kind}");
                assert_eq!(kind == "counter", name.ends_with("_total"), "{name}");
                families.push((name, kind));
            } else {
                let (series, value) = line.rsplit_once(' ').unwrap();
                let name = series.split('{').next().unwrap();
                assert_eq!(name, current, "sample outside its family: {line}");
                assert!(value.parse::<u64>().is_ok(), "{line}");
                if let Some(labels) = series.strip_prefix(name) {
                    let labels = labels.trim_start_matches('{').trim_end_matches('}');
                    for c in labels.chars() {
                        assert!(
                            c.is_ascii_alphanumeric() || "_=\"-".contains(c),
                            "{c:?} in {line}"
                        );
                    }
                }
            }
        }
        assert_eq!(families.len(), 13);
    }

    #[test]
    fn rendering_again_reuses_the_buffer() {
        let summary = busy();
        let mut out = Vec::new();
        render(&summary, 1, &mut out);
        let first = out.clone();
        let (ptr, capacity) = (out.as_ptr(), out.capacity());
        render(&summary, 1, &mut out);
        assert_eq!(out, first, "rendering replaces, never appends");
        assert_eq!((out.as_ptr(), out.capacity()), (ptr, capacity));
    }
}
