//! The state of an HTTP/1 connection, as types: its phase ([`Phase`]), the request being
//! answered ([`Pending`]), the body being skipped ([`Body`]), what refills the output
//! ([`Refill`]), a fault's pacing ([`Pacing`], [`DripCursor`]), and the [`WorkArea`] that holds
//! them while the connection has work.

use crate::chunked::ChunkedDecoder;
use crate::conditional::Answer;
use crate::conn::{Pooled, Settings};
use crate::fault::Drip;
use crate::parser::Parser;
use crate::response::KeepAliveForm;

/// The environment of an HTTP/1 connection's calls: its pool lends [`WorkArea`]s.
pub(super) type Env<'a> = crate::conn::Env<'a, WorkArea>;

/// Where a connection is in its life. Every change of phase is made in `h1/mod.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Open,
    /// Answer nothing more; close once the output is written.
    Closing {
        linger: bool,
    },
    /// The write side is shut down; input is discarded until end of input,
    /// [`LINGER_US`](crate::conn::LINGER_US) after lingering began or
    /// [`LINGER_BYTES`](crate::conn::LINGER_BYTES) of it.
    Lingering,
    /// A `stall` fault: input is read and discarded, nothing more is answered, until the
    /// client closes or the idle timeout ends it.
    Stalled,
    /// A `reset` fault: answer nothing more; reset once the output is written.
    Resetting,
    /// A `drip` fault's response waits for its next piece, and the connection has nothing
    /// else to do: it holds no work area, and the drip is parked in the connection's own
    /// fields (`ParkedDrip`). The next piece (or input) takes a work area again, with the
    /// phase the response leads to (open, or closing).
    Dripping,
    /// A `hang` fault, or a `slow-close` fault's response: nothing more is answered, input is
    /// read and discarded. While output (or the slow-close's response) is unwritten, the
    /// work area holds it, with the close to come ([`HeldClose`]); once it is written, the
    /// connection holds no work area, and its activity field holds when to close: FIN.
    Hanging,
    /// [`Phase::Hanging`], then RST (`hang:D:reset`). A variant of its own, not a field: a
    /// second variant with a field would take the phase a byte of its own, and the
    /// connection 8 more.
    HangingReset,
    /// `Upgrade: h2c`: its `101` is being written; then the connection is handed over
    /// ([`Next::Upgrade`](crate::conn::Next::Upgrade)). Nothing more is read or answered.
    Upgrading,
}

impl Phase {
    /// In a hang (or a slow close's wait): whether it ends with RST.
    pub(super) fn hang_reset(self) -> Option<bool> {
        if !cfg!(feature = "faults") {
            // Only a fault hangs: the core's code has no hang to wait on.
            return None;
        }
        match self {
            Phase::Hanging => Some(false),
            Phase::HangingReset => Some(true),
            _ => None,
        }
    }

    /// Parked between a drip's pieces (only a fault drips).
    #[inline(always)]
    pub(super) fn is_dripping(self) -> bool {
        cfg!(feature = "faults") && matches!(self, Phase::Dripping)
    }
}

/// The request body being skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Body {
    None,
    Length(u64),
    Chunked(ChunkedDecoder),
}

/// A request whose head is complete, waiting for its body to be skipped before it is
/// answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pending {
    pub(super) route: u16,
    /// A HEAD request: its response is the head alone.
    pub(super) head_request: bool,
    pub(super) keep_alive: bool,
    pub(super) http10: bool,
    /// The access-log line's `METHOD TARGET VERSION ` is in [`WorkArea::log_line`].
    pub(super) logged: bool,
}

/// The kind of an [`Answer`], without a 206's offsets: what the pending request's `Range` and
/// conditional fields ask, kept in [`Ranged::asked`] (not in [`Pending`], whose every
/// byte the plain path copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
// Without the `ranges` feature every answer is whole: the other kinds are never made.
#[cfg_attr(not(feature = "ranges"), allow(dead_code))]
pub(super) enum Asked {
    /// The route's own response.
    Whole,
    /// 206: the range in [`Ranged::range`].
    Partial,
    /// 416.
    Unsatisfiable,
    /// 304.
    NotModified,
    /// 412.
    PreconditionFailed,
}

impl Asked {
    /// Whether this is the route's own response: always, where ranges are not built (only
    /// a `Range` or a condition asks for another answer).
    #[inline(always)]
    pub(super) fn is_whole(self) -> bool {
        !cfg!(feature = "ranges") || self == Asked::Whole
    }

    /// `answer`'s kind.
    #[cfg(feature = "ranges")]
    pub(super) fn of(answer: Answer) -> Asked {
        match answer {
            Answer::Whole => Asked::Whole,
            Answer::Partial { .. } => Asked::Partial,
            Answer::Unsatisfiable => Asked::Unsatisfiable,
            Answer::NotModified => Asked::NotModified,
            Answer::PreconditionFailed => Asked::PreconditionFailed,
        }
    }

    /// The status of an answer of this kind to a request on route `route`.
    #[inline(always)]
    pub(super) fn status(self, responses: &crate::response::Responses, route: u16) -> u16 {
        match self {
            Asked::Whole => responses.status(route as usize),
            other => other.other_status(),
        }
    }

    /// The status of an answer of this kind other than the whole response.
    #[cold]
    fn other_status(self) -> u16 {
        match self {
            Asked::Whole => 200,
            Asked::Partial => 206,
            Asked::Unsatisfiable => 416,
            Asked::NotModified => 304,
            Asked::PreconditionFailed => 412,
        }
    }
}

/// The `ranges` feature's part of a work area: what the pending request's `Range` and
/// conditional fields ask, and a dripped answer's head.
#[cfg(feature = "ranges")]
#[derive(Debug)]
pub(super) struct Ranged {
    /// Set with each [`WorkArea::pending`] (`Whole` but for a route that serves them).
    pub(super) asked: Asked,
    /// The range (first and last byte offsets) of the pending request's 206, set only when
    /// `asked` is [`Asked::Partial`].
    pub(super) range: (u64, u64),
    /// A dripped range or condition's answer: its head, formatted when the drip starts.
    pub(super) answer_head: Vec<u8>,
}

impl Pending {
    /// The head its response takes: the closing one when `close`, else the keep-alive one of
    /// the request's version.
    #[inline(always)]
    pub(super) fn variant(&self, close: bool) -> KeepAliveForm {
        match (close, self.http10) {
            (true, _) => KeepAliveForm::Close,
            (false, true) => KeepAliveForm::KeepAlive10,
            (false, false) => KeepAliveForm::KeepAlive11,
        }
    }
}

/// What goes into the output once what it holds is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refill {
    /// Nothing: the response is out once the output is written.
    None,
    /// The rest of a large body, from byte `at` of route `route`'s body.
    Body { route: u16, at: usize },
    /// A latency or drip fault's response is not all out: its [`Pacing`] decides what comes
    /// next. Every test the plain path makes of a refill (stop parsing, stop reading, keep the
    /// work area, not flushed yet) then holds later requests back, and the plain path tests
    /// nothing more.
    Paced,
    /// `--control`'s `bytes=N` or `fault=garbage:N`: `left` more bytes of a block made at
    /// start-up, repeated.
    Repeat { left: u64, block: Block },
    /// The journal's next piece ([`WorkArea::journal`]).
    #[cfg(feature = "journal")]
    Journal,
}

/// The blocks made at start-up that `--control`'s answers are cut from, repeated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Without the `control` feature no answer is cut from them.
#[cfg_attr(not(feature = "control"), allow(dead_code))]
pub(super) enum Block {
    /// Printable bytes, for `bytes=N`.
    Filler,
    /// Bytes of the seeded generator, for `fault=garbage:N`.
    Garbage,
    /// `*`s, for go-httpbin's `/drip`.
    Stars,
}

/// What a connection holds only while it has work: the parser's place in a partial head, the
/// body being skipped, unprocessed input and unwritten output.
#[derive(Debug)]
pub struct WorkArea {
    pub(super) parser: Parser,
    pub(super) body: Body,
    pub(super) pending: Option<Pending>,
    /// Unprocessed input (a partial request, or requests held back by backpressure).
    pub(super) input: Vec<u8>,
    /// Pending output and how much of it is written.
    pub(super) out: Vec<u8>,
    pub(super) out_pos: usize,
    /// What follows `out` once it is written.
    pub(super) refill: Refill,
    /// When the current head started (µs).
    pub(super) head_since_us: Option<u64>,
    /// When output last made progress, or became pending (µs): the write timeout counts from
    /// here, so input cannot refresh it.
    pub(super) out_since_us: u64,
    /// `--delay`, a latency or a drip's pause: output is held until this time has passed (µs),
    /// 0 when not held.
    pub(super) hold_until_us: u64,
    /// `--delay` or a latency fault: where the last held response starts in `out`, and what it
    /// answers, so that a drain that begins while it is held can turn it into the closing
    /// response.
    pub(super) last_held: Option<(usize, Pending, Asked)>,
    /// [`ConnLimits::high_water`](crate::conn::ConnLimits::high_water), kept here for
    /// `wants_read`.
    pub(super) high_water: usize,
    /// With the access log: `METHOD TARGET VERSION ` of the request being answered, written
    /// out with its status when the response is decided.
    #[cfg(feature = "access-log")]
    pub(super) log_line: Vec<u8>,
    /// With the access log: when the first byte of the request in `log_line` was read (µs;
    /// 0: in this loop turn).
    #[cfg(feature = "access-log")]
    pub(super) log_since_us: u64,
    /// A fault's pacing of the response being sent; all off on the plain path.
    pub(super) pacing: Pacing,
    /// `--echo`: the request being echoed.
    #[cfg(feature = "echo")]
    pub(super) echo: crate::echo::Capture,
    /// `--journal`: the request being answered, recorded with its status; the journal being
    /// sent.
    #[cfg(feature = "journal")]
    pub(super) journal: crate::journal::Recording,
    /// `Range` and the validators: what the pending request asks, a dripped answer's head.
    #[cfg(feature = "ranges")]
    pub(super) ranges: Ranged,
    /// `--control`: the pending request's control, until it is answered, and a dripped
    /// controlled answer's head ([`DripSource::Control`]).
    #[cfg(feature = "control")]
    pub(super) control: crate::control::Chosen,
    /// `Upgrade: h2c`: the decoded `HTTP2-Settings` payload, until the handoff.
    #[cfg(feature = "http2")]
    pub(super) h2c_settings: Vec<u8>,
    /// An upgrade target's checked request (`Upgrade: websocket`'s handshake), until the
    /// handoff: any target but h2c, whose request is built at the handoff from the rest.
    pub(super) upgrade: Option<crate::conn::Upgrade>,
}

/// How a fault paces the response it changed (see [`Refill::Paced`]).
#[derive(Debug, Default)]
pub(super) struct Pacing {
    /// A drip in progress.
    pub(super) drip: Option<DripCursor>,
    /// A truncate or reset fault that cuts a streamed body: the body offset to stop at.
    pub(super) body_stop: Option<usize>,
    /// A hang or slow-close fault: the close that follows once the output is written.
    pub(super) close: Option<HeldClose>,
}

impl Pacing {
    fn clear(&mut self) {
        self.drip = None;
        self.body_stop = None;
        self.close = None;
    }
}

/// The close a `hang` or `slow-close` fault holds back: once the output is written, the
/// connection waits (`Phase::Hanging`) until the later of `at_us` and `after_us` past the
/// last write, then closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct HeldClose {
    /// Not before this worker time (µs): a hang's end, counted from the request.
    pub(super) at_us: u64,
    /// Not before this long after the last byte is written (µs): a slow close.
    pub(super) after_us: u64,
}

/// Where a dripped response stands. Its bytes are the route's preformatted head for
/// `variant` and, unless `head_only`, its body, or those of [`DripSource::Control`]: nothing
/// is copied but the piece being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DripCursor {
    pub(super) drip: Drip,
    pub(super) source: DripSource,
    pub(super) route: u16,
    pub(super) variant: KeepAliveForm,
    pub(super) head_only: bool,
    /// When piece 0 is due (µs): each piece's time counts from it, however late the loop
    /// wakes, so that the whole response takes the time asked for.
    pub(super) from_us: u64,
    /// The next piece to release.
    pub(super) next: u32,
    /// The end of the pieces released so far (due, and so sent as fast as the client reads).
    pub(super) released: usize,
    /// The end of what was copied into the output (at most a body chunk ahead of the written).
    pub(super) copied: usize,
    /// A range or a condition's answer (`Whole`: the route's own response): its head is
    /// `Ranged::answer_head`, `answer_head` bytes, and a 206's body is its range.
    pub(super) answer: Answer,
    pub(super) answer_head: u32,
}

/// Where a dripped response's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DripSource {
    /// A route's preformatted bytes (a `--fault` drip).
    Route,
    /// An answer a request chose (`--control`'s `fault=drip`; never made without the
    /// `control` feature): the bytes of its head
    /// ([`Chosen::drip_head`](crate::control::Chosen::drip_head)), then `tail`. Such a drip
    /// keeps its work area between pieces.
    #[cfg_attr(not(feature = "control"), allow(dead_code))]
    Control {
        /// The length of the head (and short body) in `drip_head`.
        head_len: usize,
        /// Where its `Date` value is in the head, patched to the time of the first piece.
        date_at: Option<usize>,
        tail: DripTail,
    },
}

/// What follows a controlled drip's head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "control"), allow(dead_code))]
pub(super) enum DripTail {
    None,
    /// Route `route`'s body.
    Body {
        route: u16,
    },
    /// `len` bytes of the filler block, repeated as a `bytes=N` body is.
    Filler {
        len: u64,
    },
    /// `len` `*`s (go-httpbin's `/drip`).
    Stars {
        len: u64,
    },
}

impl Pooled for WorkArea {
    fn new(settings: &Settings) -> WorkArea {
        WorkArea {
            parser: Parser::new(settings.limits),
            body: Body::None,
            pending: None,
            input: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            refill: Refill::None,
            head_since_us: None,
            out_since_us: 0,
            hold_until_us: 0,
            last_held: None,
            high_water: settings.conn_limits.high_water,
            #[cfg(feature = "access-log")]
            log_line: Vec::new(),
            #[cfg(feature = "access-log")]
            log_since_us: 0,
            pacing: Pacing::default(),
            #[cfg(feature = "echo")]
            echo: crate::echo::Capture::default(),
            #[cfg(feature = "journal")]
            journal: crate::journal::Recording::default(),
            #[cfg(feature = "ranges")]
            ranges: Ranged {
                asked: Asked::Whole,
                range: (0, 0),
                answer_head: Vec::new(),
            },
            #[cfg(feature = "control")]
            control: crate::control::Chosen::default(),
            #[cfg(feature = "http2")]
            h2c_settings: Vec::new(),
            upgrade: None,
        }
    }

    #[inline(always)]
    fn renew(&mut self, settings: &Settings) {
        self.parser = Parser::new(settings.limits);
        self.high_water = settings.conn_limits.high_water;
    }

    fn reset(&mut self) {
        self.parser.reset();
        self.body = Body::None;
        self.pending = None;
        self.input.clear();
        self.out.clear();
        self.out_pos = 0;
        self.refill = Refill::None;
        self.head_since_us = None;
        self.hold_until_us = 0;
        self.last_held = None;
        self.pacing.clear();
        #[cfg(feature = "access-log")]
        {
            // A request line kept for a line that was never opened (its connection ended
            // first) must not date the next connection's refusal.
            self.log_line.clear();
            self.log_since_us = 0;
        }
        #[cfg(feature = "echo")]
        self.echo.clear();
        #[cfg(feature = "control")]
        self.control.forget();
        #[cfg(feature = "journal")]
        self.journal.forget();
    }

    fn shed(&mut self) {
        self.input = Vec::new();
        self.out = Vec::new();
        #[cfg(feature = "access-log")]
        {
            self.log_line = Vec::new();
        }
        #[cfg(feature = "echo")]
        self.echo.shed();
        #[cfg(feature = "journal")]
        self.journal.shed();
        #[cfg(feature = "control")]
        self.control.shed();
        #[cfg(feature = "ranges")]
        {
            self.ranges.answer_head = Vec::new();
        }
    }

    fn capacity(&self) -> usize {
        // Not the journal's head buffer: at most `journal::HEAD_KEEP` is kept after a record
        // (reading it here is paid by every request).
        let held = self.input.capacity() + self.out.capacity();
        #[cfg(feature = "access-log")]
        let held = held + self.log_line.capacity();
        #[cfg(feature = "echo")]
        let held = held + self.echo.capacity();
        held
    }
}

impl WorkArea {
    /// What the pending request's `Range` and conditional fields ask: the whole response,
    /// always, where ranges are not built.
    #[inline(always)]
    pub(super) fn asked(&self) -> Asked {
        #[cfg(feature = "ranges")]
        return self.ranges.asked;
        #[cfg(not(feature = "ranges"))]
        Asked::Whole
    }

    /// A new pending request: its route's own response until its `Range` or conditional
    /// fields are read ([`WorkArea::ask`]).
    #[inline(always)]
    pub(super) fn ask_whole(&mut self) {
        #[cfg(feature = "ranges")]
        {
            self.ranges.asked = Asked::Whole;
        }
    }

    /// Keep what the pending request's `Range` and conditional fields ask: `answer` (only a
    /// route that serves them asks; never where ranges are not built).
    pub(super) fn ask(&mut self, answer: Answer) {
        #[cfg(feature = "ranges")]
        {
            if let Answer::Partial { first, last } = answer {
                self.ranges.range = (first, last);
            }
            self.ranges.asked = Asked::of(answer);
        }
        #[cfg(not(feature = "ranges"))]
        let _ = answer;
    }

    /// The answer of kind `asked`, a 206's range from [`Ranged::range`].
    pub(super) fn answer_of(&self, asked: Asked) -> Answer {
        #[cfg(feature = "ranges")]
        let (first, last) = self.ranges.range;
        #[cfg(not(feature = "ranges"))]
        let (first, last) = (0, 0);
        match asked {
            Asked::Whole => Answer::Whole,
            Asked::Partial => Answer::Partial { first, last },
            Asked::Unsatisfiable => Answer::Unsatisfiable,
            Asked::NotModified => Answer::NotModified,
            Asked::PreconditionFailed => Answer::PreconditionFailed,
        }
    }

    /// `--control`: the pending request's control, kept until its body was skipped (none
    /// where control is not built). Only the echo's code asks: `control` implies `echo`.
    #[cfg(feature = "echo")]
    #[inline(always)]
    pub(super) fn take_control(
        &mut self,
    ) -> Option<Result<crate::control::Control, crate::control::Refusal>> {
        #[cfg(feature = "control")]
        return self.control.asked.take();
        #[cfg(not(feature = "control"))]
        None
    }

    /// Nothing in progress: the work area can go back to the pool.
    pub(super) fn is_done(&self) -> bool {
        self.input.is_empty()
            && self.out_pos == self.out.len()
            && matches!(self.refill, Refill::None)
            && self.body == Body::None
            && self.pending.is_none()
            && !self.parser.in_progress()
    }

    pub(super) fn pending_out(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// The output buffer, its written part included, is at the high-water mark: parse no more
    /// requests and read no more until it drains. Counting the written part bounds the buffer
    /// itself, not only what is pending, to the mark plus one response.
    #[inline(always)]
    pub(super) fn full(&self) -> bool {
        self.out.len() >= self.high_water
    }
}
