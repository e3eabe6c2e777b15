//! What a server did: the counters summed over workers, the `--stats` JSON body and the exit
//! summary line.

use crate::conn::Stats;

/// What a server did, summed over its workers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Connections accepted.
    pub connections: u64,
    /// Counters.
    pub stats: Stats,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.stats;
        let errors: u64 = s.errors.iter().sum();
        write!(
            f,
            "canned: {} connections, {} requests, {} errors",
            self.connections, s.requests, errors
        )?;
        let mut sep = " (";
        for (e, n) in crate::parser::Error::ALL.iter().zip(s.errors) {
            if n > 0 {
                write!(f, "{sep}{e} {n}")?;
                sep = ", ";
            }
        }
        for (name, n) in ["header_timeout", "idle_timeout", "write_timeout"]
            .iter()
            .zip(s.timeouts)
        {
            if n > 0 {
                write!(f, "{sep}{name} {n}")?;
                sep = ", ";
            }
        }
        if sep == ", " {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// The `--stats` body.
pub(super) fn stats_json(t: &Summary, open: usize) -> String {
    use std::fmt::Write;
    let s = &t.stats;
    let mut j = format!(
        "{{\"connections_open\":{open},\"connections_total\":{},\"requests\":{},\"responses\":{{",
        t.connections, s.requests
    );
    let mut sep = "";
    for (status, n) in s.by_status.iter().enumerate().filter(|(_, n)| **n > 0) {
        let _ = write!(j, "{sep}\"{status}\":{n}");
        sep = ",";
    }
    j.push_str("},\"errors\":{");
    sep = "";
    for (e, n) in crate::parser::Error::ALL.iter().zip(s.errors) {
        let _ = write!(j, "{sep}\"{e}\":{n}");
        sep = ",";
    }
    let _ = writeln!(
        j,
        "}},\"timeouts\":{{\"header\":{},\"idle\":{},\"write\":{}}},\"bytes_in\":{},\"bytes_out\":{}}}",
        s.timeouts[0], s.timeouts[1], s.timeouts[2], s.bytes_in, s.bytes_out
    );
    j
}
