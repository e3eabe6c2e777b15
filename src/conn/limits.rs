//! The bounds a connection keeps whatever its protocol: memory ([`ConnLimits`]), time
//! ([`Timeouts`], [`TimeoutsUs`]) and lingering ([`LINGER_US`], [`LINGER_BYTES`]).

use crate::values::US_PER_MS;

/// Stop reading from a connection while its output buffer holds this much (backpressure): the
/// server's [`ConnLimits::high_water`].
pub const HIGH_WATER: usize = 256 * 1024;
/// Bodies up to this size are copied into the output; larger ones are streamed in pieces of
/// this size so that a large body never sits in memory more than once: the server's
/// [`ConnLimits::body_chunk`].
pub const BODY_CHUNK: usize = 64 * 1024;

/// The memory and size limits a connection enforces. The server passes the defaults (and the
/// configured body limit); the fuzz target picks small values so that backpressure, body
/// refills and the input bound happen with inputs of a few hundred bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    /// Stop parsing requests, and reading, while the output buffer holds this much, its
    /// written part not yet dropped included (backpressure): the buffer never holds more than
    /// this plus one response.
    pub high_water: usize,
    /// Bodies up to this size are copied into the output whole; larger ones in pieces of this
    /// size, each copied once the previous one is written (at least 1).
    pub body_chunk: usize,
    /// Largest request body accepted, in bytes: a larger Content-Length is answered 413 (RFC
    /// 9110 §15.5.14) and the connection closes. `u64::MAX`: unlimited.
    pub max_body: u64,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            high_water: HIGH_WATER,
            body_chunk: BODY_CHUNK,
            max_body: u64::MAX,
        }
    }
}

/// Timeouts as configured, in milliseconds; a connection checks them as [`TimeoutsUs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// From the first byte of a request head to its last.
    pub header: u64,
    /// Without any input, between requests or inside a body.
    pub idle: u64,
    /// Output pending without progress.
    pub write: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            header: 10_000,
            idle: 60_000,
            write: 30_000,
        }
    }
}

impl Timeouts {
    /// The same timeouts in microseconds, the unit of the connection's clock.
    pub fn in_us(self) -> TimeoutsUs {
        TimeoutsUs {
            header_us: self.header.saturating_mul(US_PER_MS),
            idle_us: self.idle.saturating_mul(US_PER_MS),
            write_us: self.write.saturating_mul(US_PER_MS),
        }
    }
}

/// [`Timeouts`] in microseconds, the unit of [`Env::now_us`](super::Env::now_us): what a
/// connection's deadlines count with ([`Settings::timeouts`](super::Settings::timeouts); the
/// worker converts the configured ones once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutsUs {
    /// From the first byte of a request head to its last.
    pub header_us: u64,
    /// Without any input, between requests or inside a body.
    pub idle_us: u64,
    /// Output pending without progress.
    pub write_us: u64,
}

impl Default for TimeoutsUs {
    fn default() -> Self {
        Timeouts::default().in_us()
    }
}

/// How long a connection closed while the client may still be sending drains its input
/// after shutting down its write side (µs), so the client reads the response, not a reset.
pub const LINGER_US: u64 = 2_000_000;

/// The most input a lingering connection discards before it closes (bytes): without a bound,
/// a client that keeps sending after its error response keeps its worker reading for all of
/// [`LINGER_US`] (gigabytes over loopback).
pub const LINGER_BYTES: usize = 1 << 20;
