//! A route's faults written back in the `--fault` grammar, one fault a line's worth each
//! (`latency:10ms..50ms`, `error:0.1:503`, `status:200=0.7,500=0.3`, `seq:503,ok`): what the admin API lists, and what it
//! takes back unchanged. A latency and a delivery write themselves (`fault_value`'s grammar).

use super::spec::{ALWAYS, RouteFaults, Step};
use crate::fault_value::Delivery;
use std::fmt::Write;

impl RouteFaults {
    /// Each fault as `KIND[:ARGS][@SHARE]`, in group order: the latency, the delivery, the
    /// error rate or the status mix, the sequence. None for a route without faults.
    pub fn specs(&self) -> Vec<String> {
        [
            self.latency_spec(),
            self.delivery_spec(),
            self.error_spec(),
            self.sequence_spec(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    pub(super) fn latency_spec(&self) -> Option<String> {
        let l = self.latency?;
        Some(format!("{l}{}", share(self.latency_share)))
    }

    pub(super) fn delivery_spec(&self) -> Option<String> {
        (self.delivery != Delivery::Whole)
            .then(|| format!("{}{}", self.delivery, share(self.delivery_share)))
    }

    /// The error rate or the status mix (a route has one or the other).
    pub(super) fn error_spec(&self) -> Option<String> {
        if let Some(e) = &self.error {
            let mut s = format!("error:{}:{}", fraction(e.per_million), e.status);
            if let Some(body) = &e.body {
                s.push(':');
                s.push_str(body);
            }
            return Some(s);
        }
        let m = self.mix.as_ref()?;
        let mut s = String::from("status:");
        for (i, &(status, per_million)) in m.entries.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let _ = write!(s, "{sep}{status}={}", fraction(per_million));
        }
        Some(s)
    }

    pub(super) fn sequence_spec(&self) -> Option<String> {
        let seq = self.sequence.as_ref()?;
        let steps: Vec<String> = seq
            .steps
            .iter()
            .map(|s| match s {
                Step::Own => "ok".to_string(),
                Step::Status(status) => status.to_string(),
                Step::Delivery(d) => d.to_string(),
            })
            .collect();
        let kind = if seq.cycle { "seq-cycle" } else { "seq" };
        Some(format!("{kind}:{}", steps.join(",")))
    }
}

/// `@SHARE`, or nothing for every response.
fn share(per_million: u32) -> String {
    if per_million >= ALWAYS {
        String::new()
    } else {
        format!("@{}", fraction(per_million))
    }
}

/// Millionths as a decimal from 0 to 1 (`0.1`, `0.000001`, `1`), exactly.
fn fraction(per_million: u32) -> String {
    if per_million >= ALWAYS {
        return "1".into();
    }
    let digits = format!("{per_million:06}");
    let digits = digits.trim_end_matches('0');
    if digits.is_empty() {
        "0".into()
    } else {
        format!("0.{digits}")
    }
}
