//! One worker's counters ([`Stats`]) and the kinds of timeout they count ([`Timeout`]).

use crate::fault::FaultKind;
use crate::parser::Error;

/// Why a connection timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// The head did not arrive in time (answered with 408).
    Header,
    /// Nothing arrived in time.
    Idle,
    /// The client did not read its output in time.
    Write,
}

impl Timeout {
    /// Every kind, in the order of [`Stats::timeouts`].
    pub const ALL: [Timeout; 3] = [Timeout::Header, Timeout::Idle, Timeout::Write];

    /// The name used in `--stats` and the exit summary.
    pub fn name(self) -> &'static str {
        match self {
            Timeout::Header => "header",
            Timeout::Idle => "idle",
            Timeout::Write => "write",
        }
    }
}

/// Counters of one worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Complete request heads.
    pub requests: u64,
    /// Responses started, by status code (index = status).
    pub by_status: Vec<u64>,
    /// Rejected requests, by [`Error::index`].
    pub errors: [u64; Error::ALL.len()],
    /// Timeouts, by [`Timeout::ALL`].
    pub timeouts: [u64; Timeout::ALL.len()],
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// Responses given a fault, by [`FaultKind::index`].
    pub faults: [u64; FaultKind::ALL.len()],
    /// Malformed responses sent, by index in the catalogue (`crate::mutate::id`).
    pub mutated: Vec<u64>,
    /// Access-log lines dropped: the loop turn's lines had reached their bound already, or
    /// stdout did not take them in time (a full queue, a write error, the shutdown deadline).
    pub log_lines_dropped: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            requests: 0,
            by_status: vec![0; 600],
            errors: [0; Error::ALL.len()],
            timeouts: [0; Timeout::ALL.len()],
            bytes_in: 0,
            bytes_out: 0,
            faults: [0; FaultKind::ALL.len()],
            mutated: Vec::new(),
            log_lines_dropped: 0,
        }
    }
}

impl Stats {
    /// Add another worker's counters.
    pub fn add(&mut self, o: &Stats) {
        self.requests += o.requests;
        for (a, b) in self.by_status.iter_mut().zip(&o.by_status) {
            *a += b;
        }
        for (a, b) in self.errors.iter_mut().zip(&o.errors) {
            *a += b;
        }
        for (a, b) in self.timeouts.iter_mut().zip(&o.timeouts) {
            *a += b;
        }
        self.bytes_in += o.bytes_in;
        self.bytes_out += o.bytes_out;
        for (a, b) in self.faults.iter_mut().zip(&o.faults) {
            *a += b;
        }
        if self.mutated.len() < o.mutated.len() {
            self.mutated.resize(o.mutated.len(), 0);
        }
        for (a, b) in self.mutated.iter_mut().zip(&o.mutated) {
            *a += b;
        }
        self.log_lines_dropped += o.log_lines_dropped;
    }

    /// Rejected requests by kind, in [`Error::ALL`] order.
    pub(super) fn errors_by_kind(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        Error::ALL.iter().map(|e| e.name()).zip(self.errors)
    }

    /// Timeouts by kind, in [`Timeout::ALL`] order.
    pub(super) fn timeouts_by_kind(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        Timeout::ALL.iter().map(|t| t.name()).zip(self.timeouts)
    }
}
