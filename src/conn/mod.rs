//! What every protocol's connection shares with the loop: the calls the loop drives it
//! through ([`Connection`], [`Next`]), what it is lent on each call ([`Env`], [`Features`],
//! [`LogSink`]), what is fixed for the run ([`Settings`], built once per worker), its
//! buffers ([`Pool`], [`Pooled`]) and its bounds ([`ConnLimits`], [`Timeouts`],
//! [`TimeoutsUs`], lingering). Nothing here knows a protocol's grammar or a socket: a protocol's
//! state machine (`crate::h1`) sits above, the loop (`crate::server`) above that.
//!
//! # Why a trait, used through one type alias
//!
//! The loop calls a connection several times per event, and those calls are the hot path (the
//! plain path inlines `wake_at` and `is_held` into the loop). So the loop names one concrete
//! type (`ProtocolConn` in the worker's `slot.rs`, an enum over the protocols) and calls it through
//! [`Connection`]: static dispatch, each call a direct call that inlines as if the loop called
//! the state machine itself, and the loop compiles against the trait alone (each protocol's
//! connection has those calls in its `Connection` impl and nowhere else). The trait is generic
//! over the work area it is lent (`Connection<W: Pooled>`), so each protocol gets its own
//! pool's buffers without a default pool in the other: `ProtocolConn` matches on the protocol
//! once per call and lends HTTP/1 its pool, HTTP/2 its own. The alternatives cost more: a
//! `dyn Connection` an indirect call per event and no inlining; an enum over protocols here
//! (this module is below every protocol); a worker generic over its connection type a type
//! parameter on every item of the loop.

mod connection;
mod env;
mod limits;
pub mod log_line;
mod pool;
mod settings;

// All of it: the calls of the loop, and each protocol's hand-off request (one more for a new
// upgrade target, and no line here).
pub use connection::*;
pub use env::{ACCESS_LOG_TURN_BYTES, Env, Features, LogSink, Part, Tables, push_log_word};
pub use limits::{
    BODY_CHUNK, ConnLimits, HIGH_WATER, LINGER_BYTES, LINGER_US, Timeouts, TimeoutsUs,
};
pub use log_line::{Client, LogLines};
pub(crate) use pool::return_free_memory;
pub use pool::{Pool, Pooled};
#[cfg(feature = "websocket")]
pub use settings::WebSocketPaths;
pub use settings::{Settings, Switches};
