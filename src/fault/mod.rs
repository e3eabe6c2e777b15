//! Faults: how a route misbehaves on purpose, so that a client's timeouts, retries and
//! framing checks can be tested against a server that is slow, silent, cut short or rude.
//!
//! A fault is given per path as `PATH=KIND[:ARGS]` (`--fault`) and named for what the client
//! sees, with its numbers in its name: `latency:10ms..50ms`, `drip:1KiB/100ms`,
//! `truncate:50%`, `reset:0`, `error:0.1:503`. Each route holds at most one fault of each
//! group: a latency before the response, one way of delivering it (drip, stall, truncate,
//! reset, garbage, hang, slow-close, bandwidth), and an error rate or a status mix that swaps
//! the response for another status; or, instead of the last two, a sequence of answers
//! (`seq:503,503,ok`) counted over the process. Everything
//! random is drawn from a seeded generator ([`Rng`], `--seed`), one stream per worker, so
//! that a run with one worker is reproduced exactly.
//!
//! This module parses, samples and keeps each worker's state ([`WorkerFaults`], built from
//! plain inputs); the answer plan (`crate::plan`) takes a [`Draw`] at respond time, and the loop's deadline
//! heap supplies the timing (no thread, no sleep). Specs are in milliseconds, as given; what
//! a response is held for and when a piece is due are in microseconds, the unit of the
//! worker's clock.
//!
//! | file | holds |
//! |---|---|
//! | `spec` | a route's faults as parsed, and what one response gets of them |
//! | `parse` | `--fault`'s `PATH=`, and the status mixes and sequences it keeps (each value is read by `fault_value`'s grammar) |
//! | `render` | a route's faults written back in that grammar |
//! | `sequence` | `seq:` steps, and the position every worker takes the next one from |
//! | `table` | every route's faults with the responses they send, shared by the workers |
//! | `worker` | one worker's faults at run time |
//! | `mutator` | the `--mutate` choice and cycle |
//! | `clock` | wall-clock dates for worker times |
//! | `websocket` | a `--websocket` path's faults per message, and its malformed frames |

mod clock;
mod mutator;
mod parse;
mod render;
mod sequence;
mod spec;
mod table;
#[cfg(test)]
mod tests;
#[cfg(feature = "websocket")]
pub mod websocket;
mod worker;

pub use crate::fault_value::{
    BANDWIDTH_PIECE_MAX, Cut, DEFAULT_SEED, Delivery, Drip, FaultKind, Latency, MAX_DELAY_MS, Rng,
};
pub use mutator::{Mutate, Mutator};
pub use parse::{parse_fault, parse_fault_spec, split_share};
pub use sequence::{Act, Sequence};
pub use spec::{
    ALWAYS, Draw, ErrorRate, Fault, MAX_STEPS, MIX_MAX, RouteFaults, SequenceSpec, StatusMix, Step,
};
pub use table::{FaultResponses, FaultSet};
pub use worker::{Decision, WorkerFaults};
