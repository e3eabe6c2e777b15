//! What a connection is lent on each call ([`Env`]): the settings, the canned bytes, the
//! worker's buffers and counters, the clock, and the access log's way out ([`LogSink`]).

use super::pool::Pool;
use super::settings::Settings;
use crate::conditional::Representation;
use crate::control::Blocks;
use crate::echo::{EchoFormat, EchoRoutes};
use crate::fault::WorkerFaults;
use crate::journal::Recorder;
use crate::response::ExtendCold;
use crate::response::Responses;
use crate::stats::Stats;
use std::any::Any;

/// Everything a connection needs from its worker, passed on each call: what is fixed for the
/// run by reference ([`Env::settings`]), and what changes between calls. `W` is the work area
/// its protocol borrows from the [`Pool`].
pub struct Env<'a, W> {
    /// What does not change while the server runs.
    pub settings: &'a Settings,
    /// The preformatted responses.
    pub responses: &'a Responses,
    /// Buffers to borrow.
    pub pool: &'a mut Pool<W>,
    /// Counters to update.
    pub stats: &'a mut Stats,
    /// Monotonic time in whole microseconds (any origin), rounded up: the unit of every
    /// deadline. Deadlines count from it, so that `now_us + d` is never before `d` has passed;
    /// a deadline `t` has passed once `now_us > t` (at `now_us == t` it may still be under
    /// way).
    pub now_us: u64,
    /// The server is shutting down: the next response closes.
    pub draining: bool,
    /// The test-endpoint features' working parts, all absent on the plain path.
    pub features: Features<'a>,
}

/// What the test-endpoint features write to, and the tables they read. [`Features::default`]
/// is none: plain canned.
/// Their switches, fixed for the run, are in [`Settings::switches`].
#[derive(Default)]
pub struct Features<'a> {
    /// Where to append access-log lines, when enabled (`--access-log`), with the format and
    /// the client of the connection being handled.
    pub access_log: Part<'a, super::LogLines, { cfg!(feature = "access-log") }>,
    /// Where a full `access_log` goes before the next line: the server's queue to stdout.
    /// Without one, a line that does not fit is dropped.
    pub log_sink: Option<&'a dyn LogSink>,
    /// `--fault` and `--mutate`: the worker's faults, `None` when none is configured.
    pub faults: Part<'a, WorkerFaults, { cfg!(feature = "faults") }>,
    /// `--journal`: the worker's way into the ring the workers share, `None` without it.
    pub journal: Part<'a, Recorder, { cfg!(feature = "journal") }>,
    /// What the features keep by route, made at start-up ([`Tables`]); `None`: nothing (a
    /// connection driven without a worker). One reference, so that lending them costs the
    /// plain path one store a call.
    pub tables: Option<&'a Tables>,
    /// The connection being handled, when a feature reads it (the access log, the journal,
    /// the echo and `--control`); `None` on the plain path.
    pub client: Option<super::Client>,
}

/// A feature's working part in [`Features`]: `Option<&mut T>` when the feature is built
/// (`BUILT`, its cargo feature), and always `None` when it is not, known at compile time: a
/// connection's `if let Some(f) = env.features.faults.as_deref()` then leaves no branch, and
/// the feature's code is not in the binary.
pub struct Part<'a, T, const BUILT: bool>(Option<&'a mut T>);

impl<'a, T, const BUILT: bool> Part<'a, T, BUILT> {
    /// `part`, or none when the feature is not built.
    #[inline(always)]
    pub fn new(part: Option<&'a mut T>) -> Self {
        Part(if BUILT { part } else { None })
    }

    /// The part, reborrowed for a shorter life (an environment made from this one).
    #[inline(always)]
    pub fn reborrow(&mut self) -> Part<'_, T, BUILT> {
        Part(self.as_deref_mut())
    }

    /// Whether the feature is built and its part present.
    #[inline(always)]
    pub fn is_some(&self) -> bool {
        BUILT && self.0.is_some()
    }

    /// Whether the part is absent (always, when the feature is not built).
    #[inline(always)]
    pub fn is_none(&self) -> bool {
        !self.is_some()
    }

    /// The part, if present.
    #[inline(always)]
    pub fn as_deref(&self) -> Option<&T> {
        if BUILT { self.0.as_deref() } else { None }
    }

    /// The part, if present, to change.
    #[inline(always)]
    pub fn as_deref_mut(&mut self) -> Option<&mut T> {
        if BUILT { self.0.as_deref_mut() } else { None }
    }
}

/// What the features keep by route, made once at start-up and read by every connection of a
/// worker (each a clone, which shares the bytes): each only in a build with its feature.
#[derive(Clone, Default)]
pub struct Tables {
    /// `--echo`: the routes that echo the request, with their formats.
    #[cfg(feature = "echo")]
    pub echo: EchoRoutes,
    /// `--control`: the blocks its bodies are cut from, `None` without it.
    #[cfg(feature = "control")]
    pub control: Option<Blocks>,
    /// The routes that serve ranges and conditional requests, with their validators, by route
    /// given.
    #[cfg(feature = "ranges")]
    pub ranges: crate::conditional::Representations,
    /// HTTP/2's own table of the routes (its preformatted HEADERS frames, `h2::Heads`),
    /// which this layer, below HTTP/2's, carries without naming it.
    #[cfg(feature = "http2")]
    pub h2: Option<std::sync::Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Tables");
        #[cfg(feature = "echo")]
        d.field("echo", &self.echo);
        #[cfg(feature = "control")]
        d.field("control", &self.control.is_some());
        #[cfg(feature = "ranges")]
        d.field("ranges", &self.ranges);
        #[cfg(feature = "http2")]
        d.field("h2", &self.h2.is_some());
        d.finish()
    }
}

impl<'a> Features<'a> {
    /// The routes that echo (`--echo`), in a build with echoes.
    fn echo(&self) -> Option<&'a EchoRoutes> {
        #[cfg(feature = "echo")]
        return self.tables.map(|t| &t.echo);
        #[cfg(not(feature = "echo"))]
        None
    }

    /// `--control`'s blocks, when it is on.
    fn blocks(&self) -> Option<&'a Blocks> {
        #[cfg(feature = "control")]
        return self.tables?.control.as_ref();
        #[cfg(not(feature = "control"))]
        None
    }

    /// Whether route `route` echoes the request (`--echo`).
    pub fn echoes(&self, route: usize) -> bool {
        self.echo().is_some_and(|e| e.echoes(route))
    }

    /// The format route `route` echoes in, if it echoes.
    pub fn echo_format(&self, route: usize) -> Option<EchoFormat> {
        self.echo()?.format(route)
    }

    /// Whether route `route` answers the journal (`--journal-path`).
    pub fn is_journal(&self, route: usize) -> bool {
        self.journal
            .as_deref()
            .is_some_and(|r| r.journal.answers(route))
    }

    /// The block of `--control`'s `bytes=N` bodies (empty without it).
    pub fn filler(&self) -> &'a [u8] {
        self.blocks().map_or(&[], |b| &b.filler)
    }

    /// The block of `--control`'s `fault=garbage:N` answers (empty without it).
    pub fn garbage(&self) -> &'a [u8] {
        self.blocks().map_or(&[], |b| &b.garbage)
    }

    /// The block of `--control`'s `/drip` bodies (empty without it).
    pub fn stars(&self) -> &'a [u8] {
        self.blocks().map_or(&[], |b| &b.stars)
    }

    /// HTTP/2's table of the routes, in a build with HTTP/2 (`h2::Heads`, which it names).
    #[inline(always)]
    pub fn h2(&self) -> Option<&'a (dyn Any + Send + Sync)> {
        #[cfg(feature = "http2")]
        return self.tables?.h2.as_deref();
        #[cfg(not(feature = "http2"))]
        None
    }
}

impl<'a, W> Env<'a, W> {
    /// The validators of route `route`, when it serves ranges and conditional requests: those
    /// of the route given whose response it sends (itself, or the route a fault's copy
    /// copies, [`Responses::given`]).
    pub fn representation(&self, route: usize) -> Option<&'a Representation> {
        #[cfg(feature = "ranges")]
        return self
            .features
            .tables?
            .ranges
            .get(self.responses.given(route)?);
        #[cfg(not(feature = "ranges"))]
        {
            let _ = route;
            None
        }
    }
}

impl<T, const BUILT: bool> Default for Part<'_, T, BUILT> {
    fn default() -> Self {
        Part(None)
    }
}

impl<T: std::fmt::Debug, const BUILT: bool> std::fmt::Debug for Part<'_, T, BUILT> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_deref().fmt(f)
    }
}

/// By hand: a derived `Debug` would make every [`LogSink`] one, and put the log queue's
/// formatting (its mutex, its times) into the binary through the trait object's vtable.
impl std::fmt::Debug for Features<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Features")
            .field("access_log", &self.access_log)
            .field("log_sink", &self.log_sink.is_some())
            .field("faults", &self.faults)
            .field("journal", &self.journal.is_some())
            .field("tables", &self.tables)
            .field("client", &self.client)
            .finish()
    }
}

/// The access-log lines one loop turn may leave for stdout: without a bound, clients that
/// pipeline thousands of requests each fill a turn with tens of MiB of lines, kept as
/// capacity for good.
pub const ACCESS_LOG_TURN_BYTES: usize = 1024 * 1024;

/// Takes a loop turn's access-log lines that reached [`ACCESS_LOG_TURN_BYTES`] before the
/// turn ends, so that a fast stdout loses none.
pub trait LogSink {
    /// Take the lines (leaving `lines` empty) without waiting for stdout; returns how many
    /// were dropped for want of room.
    fn hand_off(&self, lines: &mut Vec<u8>) -> u64;
}

/// The bytes an access-log word keeps as they are: printable ASCII but `\`.
const LOG_PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 0x7f {
        t[c] = c != b'\\' as usize;
        c += 1;
    }
    t
};

/// Append `word` (a request's method or target) to an access-log line, within `room` bytes:
/// every byte but printable ASCII (a control byte, a terminal's escape, DEL, a space, non-ASCII)
/// and `\` itself written `\xNN`, so that no client writes raw bytes into the log nor forges a
/// line. Returns false when `word` did not fit whole (what fitted is written, no escape cut).
pub fn push_log_word(line: &mut Vec<u8>, word: &[u8], room: usize) -> bool {
    if word.len() <= room && word.iter().all(|&c| LOG_PLAIN[usize::from(c)]) {
        line.extend_cold(word);
        return true;
    }
    let mut left = room;
    for &c in word {
        if LOG_PLAIN[usize::from(c)] {
            if left < 1 {
                return false;
            }
            line.push(c);
            left -= 1;
        } else {
            if left < 4 {
                return false;
            }
            const HEX: &[u8; 16] = b"0123456789abcdef";
            line.extend_cold(&[
                b'\\',
                b'x',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 15)],
            ]);
            left -= 4;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::push_log_word;

    #[test]
    fn log_words_are_escaped_and_bounded() {
        let cases: &[(&[u8], usize, &[u8], bool)] = &[
            (b"GET", usize::MAX, b"GET", true),
            (b"/a?b=c", 6, b"/a?b=c", true),
            (b"/a?b=c", 5, b"/a?b=", false),
            (b"G\x1b[2J", usize::MAX, b"G\\x1b[2J", true),
            (
                b"a b\r\n\x00\x7f\xff\\",
                usize::MAX,
                b"a\\x20b\\x0d\\x0a\\x00\\x7f\\xff\\x5c",
                true,
            ),
            (b"ab\x1b", 5, b"ab", false),
            (b"ab\x1b", 6, b"ab\\x1b", true),
        ];
        for (word, room, want, whole) in cases {
            let mut line = b"> ".to_vec();
            assert_eq!(push_log_word(&mut line, word, *room), *whole, "{word:?}");
            assert_eq!(&line[2..], *want, "{word:?}");
        }
    }
}
