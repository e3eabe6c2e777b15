//! The calls the loop drives a connection through ([`Connection`]), whatever its protocol,
//! and what it answers them with ([`Next`]).

use super::env::Env;
use super::pool::{Pool, Pooled};
use super::settings::Settings;

/// What the loop should do with a connection after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Keep it; poll for reading if [`Connection::wants_read`], for writing if output is
    /// pending.
    Continue,
    /// Close it now that its output is written. With `linger`, shut down the write side and
    /// discard input for a short while first, so that the client reads the response instead
    /// of a reset.
    Close {
        /// Shut down writing and drain input before closing.
        linger: bool,
    },
    /// Close it now with a reset (RST: SO_LINGER 0, then close), its output written (a
    /// `reset` fault).
    Reset,
    /// Its output is written and the rest of it is another protocol's: the loop takes its
    /// [`Handoff`] ([`Connection::take_handoff`]) and builds that protocol's connection from
    /// it (`Upgrade: h2c`).
    Upgrade,
}

/// A connection handed from one protocol to another once the first has written its answer
/// ([`Next::Upgrade`]): what it continues as, and the input read after the request that asked
/// for it. The loop builds the new protocol's connection from it, whatever the target.
#[derive(Debug)]
pub struct Handoff {
    /// The protocol the connection continues in, with what it needs of the request.
    pub target: Upgrade,
    /// Bytes read after the request's head (for h2c, the client's preface, usually not yet).
    pub input: Vec<u8>,
}

/// The protocols a connection can be handed over to: one variant per target.
#[derive(Debug)]
pub enum Upgrade {
    /// HTTP/2 after HTTP/1.1's `Upgrade: h2c` (RFC 7540 §3.2): the request becomes stream 1.
    H2c(H2cRequest),
    /// A WebSocket after HTTP/1.1's `Upgrade: websocket` (RFC 6455 §4.2): its opening
    /// handshake checked, the `101` not yet written (the WebSocket connection writes it).
    #[cfg(feature = "websocket")]
    WebSocket(WebSocketRequest),
}

/// An opening handshake that HTTP/1 found valid (RFC 6455 §4.2.1): what the WebSocket
/// connection needs of it.
#[cfg(feature = "websocket")]
#[derive(Clone, Copy, Debug)]
pub struct WebSocketRequest {
    /// `Sec-WebSocket-Key`: 16 bytes in base64, checked (§4.2.1 item 5).
    pub key: [u8; 24],
    /// The largest message taken (bytes): a larger one is answered with close 1009.
    pub max_message: u64,
    /// The path's faults per message (`--fault` on a `--websocket` path), if it has any.
    pub faults: Option<&'static crate::fault::websocket::WsFaults>,
}

/// An HTTP/1.1 request that asked to continue in HTTP/2 (`Upgrade: h2c`): its route, whether
/// it is HEAD, its access-log words, and the decoded `HTTP2-Settings` payload.
#[derive(Debug, Default)]
pub struct H2cRequest {
    /// The request's route.
    pub route: usize,
    /// The request is HEAD.
    pub head_only: bool,
    /// `METHOD TARGET ` for its access-log line (empty without `--access-log`).
    pub log_words: Vec<u8>,
    /// The SETTINGS payload the `HTTP2-Settings` field carried.
    pub settings: Vec<u8>,
    /// Its head as received, for the echo and the journal (empty without them).
    pub head: Vec<u8>,
    /// `--control`: the control it named, as HTTP/1 read it. Boxed: the handoff stays small,
    /// and an upgrade is rare.
    #[cfg(feature = "control")]
    pub control: Option<Box<Result<crate::control::Control, crate::control::Refusal>>>,
}

/// One connection as the loop sees it: bytes in, bytes out, a time to be woken at, and what
/// to do next. The loop knows no protocol; a connection knows no socket. See the module
/// documentation for why this is a trait the loop uses through one concrete type.
///
/// `W` is what the worker's [`Pool`] lends ([`Env::pool`]): a protocol that borrows work
/// areas from it implements the trait for its own; one that borrows nothing (HTTP/2, whose
/// buffers are its own) implements it for every `W`, and takes the loop's [`Env`] as it is.
pub trait Connection<W: Pooled> {
    /// A connection accepted at time `now_us`.
    fn new(now_us: u64) -> Self;

    /// Bytes read from the peer.
    fn on_data(&mut self, data: &[u8], env: &mut Env<'_, W>);

    /// The peer will send nothing more. Requests already received are still answered.
    fn on_eof(&mut self);

    /// Output waiting to be written (none while a response is held back by time).
    fn output(&self) -> &[u8];

    /// `n` bytes of [`Connection::output`] were written.
    fn wrote(&mut self, n: usize, env: &mut Env<'_, W>);

    /// Whether the loop should read from this connection now.
    fn wants_read(&self) -> bool;

    /// What to do next; see [`Next`].
    fn next(&self) -> Next;

    /// When the loop should call [`Connection::on_wake`] (µs, the unit of
    /// [`Env::now_us`]): once the clock is past the earliest of the connection's deadlines.
    /// `None`: nothing timed.
    fn wake_at(&self, settings: &Settings) -> Option<u64>;

    /// The time asked for by [`Connection::wake_at`] passed, or another one: the loop may call
    /// early or late, the connection checks the clock itself. Returns [`Next::Close`] to close
    /// now without writing, else `Continue` (write any output, then ask
    /// [`Connection::next`]).
    fn on_wake(&mut self, env: &mut Env<'_, W>) -> Next;

    /// The loop shut down the write side after [`Next::Close`] with `linger`: discard input
    /// for a while ([`LINGER_US`](super::LINGER_US) from `now_us`, at most
    /// [`LINGER_BYTES`](super::LINGER_BYTES)) before closing.
    fn start_lingering(&mut self, now_us: u64, pool: &mut Pool<W>);

    /// Give the work area back to the pool (before dropping the connection).
    fn release(&mut self, pool: &mut Pool<W>);

    /// After [`Next::Upgrade`]: what the connection continues as, its work area given back
    /// to the pool. `None` from a protocol that never hands over.
    fn take_handoff(&mut self, pool: &mut Pool<W>) -> Option<Handoff> {
        let _ = pool;
        None
    }

    /// Its last response is written and its write side shut: it only drains the client's
    /// input so that the client reads that response, not a reset.
    fn is_lingering(&self) -> bool;

    /// No request is in progress and no output is pending: the connection may be closed
    /// without losing anything (idle keep-alive).
    fn is_idle(&self) -> bool;

    /// A drain began: the bytes to send first, if its protocol says goodbye (HTTP/2's GOAWAY,
    /// RFC 9113 §6.8), with any output pending before them; HTTP/1 closes in silence. An
    /// idle connection is closed once they are sent; a busy one writes them as it goes on.
    fn farewell(&mut self) -> &[u8] {
        &[]
    }

    /// A response is held back by time: `--delay`, a latency, a drip between its pieces. The
    /// loop then watches for the peer's hang-up, which no read would see.
    fn is_held(&self) -> bool;

    /// Nothing received yet: accepted, no byte of a first request read.
    fn is_silent(&self) -> bool;

    /// When the last input or output progress was (µs): among idle connections, the smallest
    /// is the longest idle (meaningless for a connection that is not idle).
    fn last_active_us(&self) -> u64;

    /// Requests answered so far.
    fn served(&self) -> u32;

    /// Call `held` with each response (route index) that a response under way still sends
    /// bytes of: a change of the faults (`--admin`) frees a response no fault sends any more
    /// only once no connection holds it.
    fn responses_held(&self, held: &mut dyn FnMut(usize));
}
