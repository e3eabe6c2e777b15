//! What a connection reads that is fixed for the run ([`Settings`]): built once per worker
//! from plain values, lent to every call.

use super::limits::{ConnLimits, TimeoutsUs};
use crate::parser::Limits;

/// Everything a connection reads that does not change while the server runs. The server
/// builds it once per worker from the command line; a test or the fuzzer builds it by hand
/// ([`Settings::default`] is plain canned with the default limits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Request head limits.
    pub limits: Limits,
    /// Output high-water mark, body refill size and request body limit.
    pub conn_limits: ConnLimits,
    /// The timeouts, in the unit of the connection's clock.
    pub timeouts: TimeoutsUs,
    /// Close after this many responses (0: unlimited).
    pub max_requests: u32,
    /// The test-endpoint switches, all off on the plain path.
    pub switches: Switches,
    /// `--websocket`: the paths an `Upgrade: websocket` is taken on, `None` without it. Built
    /// once per server and kept for the process's life (a reference here costs the loop
    /// nothing per event; a field of [`Features`](super::Features) cost the plain path 4%).
    #[cfg(feature = "websocket")]
    pub websocket: Option<&'static WebSocketPaths>,
}

/// `--websocket`: the paths answered with a WebSocket, and its message limit. Read by HTTP/1
/// ([`Settings::websocket`]), which checks the handshake.
#[cfg(feature = "websocket")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebSocketPaths {
    /// The paths (exact match on the request's path, query excluded).
    pub paths: Vec<Box<[u8]>>,
    /// The largest message taken (bytes).
    pub max_message: u64,
    /// `--fault` on these paths: each path's faults per message, by index (none past the
    /// end).
    pub faults: Vec<crate::fault::websocket::WsFaults>,
}

/// The test-endpoint switches that are fixed for the run. [`Switches::default`] is all off:
/// plain canned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    /// Send the same bytes for every request (`--raw-response`): the route head alone, and
    /// keep the connection open unless `raw_close`.
    pub raw: bool,
    /// With `raw`, close after each response (`--raw-close`).
    pub raw_close: bool,
    /// Hold each batch of responses this long (µs; 0: none; `--delay`).
    pub delay_us: u64,
    /// Some route echoes the request (`--echo`).
    pub echo: bool,
    /// A request may choose its answer (`--control`).
    pub control: bool,
    /// `echo` or `control`: a complete head goes the cold way, which looks at both, so that
    /// the plain path tests one switch.
    pub by_request: bool,
    /// `--no-http2`: a connection that opens with the HTTP/2 preface is HTTP/1 (and answered
    /// 505), not HTTP/2. Read by the loop only, for a connection's first bytes.
    pub no_http2: bool,
    /// `--grpc-health`: HTTP/2 answers the gRPC health service's `Check` SERVING.
    pub grpc_health: bool,
}

/// The switches of features that may not be built, as the connections read them: `false`,
/// known at compile time, for a feature left out of the build (Cargo.toml), so that the
/// branch into its code goes with it.
impl Switches {
    /// [`Switches::echo`], with the `echo` feature.
    #[inline(always)]
    pub fn echo(&self) -> bool {
        cfg!(feature = "echo") && self.echo
    }

    /// [`Switches::control`], with the `control` feature.
    #[inline(always)]
    pub fn control(&self) -> bool {
        cfg!(feature = "control") && self.control
    }

    /// [`Switches::by_request`], with either feature it stands for.
    #[inline(always)]
    pub fn by_request(&self) -> bool {
        cfg!(any(feature = "echo", feature = "control")) && self.by_request
    }

    /// [`Switches::grpc_health`], with the `http2` feature.
    #[inline(always)]
    pub fn grpc_health(&self) -> bool {
        cfg!(feature = "http2") && self.grpc_health
    }
}
