//! The `--stats` body: a [`Summary`] and the open connections as one JSON object.

use super::summary::Summary;

/// The `--stats` body.
pub(crate) fn stats_json(t: &Summary, open: usize) -> String {
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
    for (e, n) in s.errors_by_kind() {
        member(&mut j, &e, n);
    }
    j.push_str("},\"timeouts\":{");
    for (name, n) in s.timeouts_by_kind() {
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
            "\"faults\":{\"latency\":0,\"drip\":0,\"stall\":0,\"truncate\":0,\"reset\":2,\"garbage\":0,\"error\":0,\"hang\":0,\"slow-close\":0,\"bandwidth\":0,\"status\":0}",
            "\"mutate\":{\"cl-plus-sign\":5}",
            "\"log_lines_dropped\":6}",
        ] {
            assert!(j.contains(want), "{want} not in {j}");
        }
        assert!(j.ends_with("}\n"));
    }
}
