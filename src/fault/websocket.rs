//! Faults on a `--websocket` path, drawn per message: `--fault PATH=KIND[:ARGS][@SHARE]` with
//! the grammar of every other path where a kind means the same (`latency`, `drip`), and kinds
//! of a WebSocket's own: `ping-storm:N`, `malformed:ID`, `close-after:N:CODE`,
//! `drop-after:N[:reset]`. The malformed frames are a catalogue in the style of `--mutate`:
//! each id with the RFC 6455 clause it breaks and its bytes, sent instead of an echo.

use super::parse::split_share;
use super::spec::ALWAYS;
use crate::fault_value::{Drip, Latency, Rng, drip as parse_drip, latency as parse_latency};
use crate::values::US_PER_MS;

/// What a frame of the catalogue breaks, in [`ABOUT`]: kept apart from the bytes because the
/// server never prints it (docs/websocket.md's table does).
pub struct About {
    /// What is wrong, in one line.
    pub description: &'static str,
    /// The clause it breaks.
    pub rfc: &'static str,
}

/// `id, rfc, description, bytes;` for each malformed frame, in catalogue order. Each is a
/// whole frame (its length tells where it ends, but `length-top-bit`'s), so that a client
/// that lets it pass still reads the frames after it where they start.
macro_rules! catalogue {
    ($($id:literal, $rfc:literal, $desc:literal, $bytes:expr;)*) => {
        /// Every malformed frame's id, in catalogue order.
        pub const IDS: [&str; COUNT] = [$($id),*];
        /// Each frame's bytes, in catalogue order.
        pub static FRAMES: [&[u8]; COUNT] = [$($bytes),*];
        /// The number of malformed frames.
        pub const COUNT: usize = [$($id),*].len();
        /// What each breaks, in catalogue order.
        pub static ABOUT: [About; COUNT] = [$(About { description: $desc, rfc: $rfc }),*];
    };
}

/// A ping of 126 bytes, one more than a control frame may carry: its length in 16 bits.
const PING_126: [u8; 130] = {
    let mut f = [b'x'; 130];
    f[0] = 0x89;
    f[1] = 126;
    f[2] = 0;
    f[3] = 126;
    f
};

// Ids never change meaning; new ones are added at the end.
catalogue! {
    "opcode-reserved-data", "RFC 6455 §5.2",
        "a data frame with the reserved opcode 0x3 (FIN set, payload hello)",
        b"\x83\x05hello";
    "opcode-reserved-control", "RFC 6455 §5.2",
        "a control frame with the reserved opcode 0xB, empty",
        b"\x8B\x00";
    "rsv1", "RFC 6455 §5.2",
        "text hello with RSV1 set, no extension negotiated",
        b"\xC1\x05hello";
    "rsv2", "RFC 6455 §5.2",
        "text hello with RSV2 set",
        b"\xA1\x05hello";
    "rsv3", "RFC 6455 §5.2",
        "text hello with RSV3 set",
        b"\x91\x05hello";
    "masked", "RFC 6455 §5.1",
        "text hello masked (key 37 fa 21 3d, §5.7's example): a server must not mask",
        b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58";
    "control-too-long", "RFC 6455 §5.5",
        "a ping of 126 bytes (at most 125 in a control frame)",
        &PING_126;
    "control-fragmented", "RFC 6455 §5.5, §5.4",
        "a ping hello without FIN: control frames are never fragmented",
        b"\x09\x05hello";
    "continuation-unexpected", "RFC 6455 §5.4",
        "a continuation frame hello with no message under way",
        b"\x80\x05hello";
    "text-inside-fragmented", "RFC 6455 §5.4",
        "text hel without FIN, then a new text frame lo inside that message",
        b"\x01\x03hel\x81\x02lo";
    "text-bad-utf8", "RFC 6455 §8.1, §5.6",
        "text of the bytes c3 28: not UTF-8",
        b"\x81\x02\xC3\x28";
    "text-bad-utf8-fragmented", "RFC 6455 §8.1, §5.6",
        "text hello, then a final continuation of the byte ff: the message is not UTF-8",
        b"\x01\x05hello\x80\x01\xFF";
    "length-not-minimal", "RFC 6455 §5.2",
        "text hello with its length 5 in 16 bits (the minimal length is required)",
        b"\x81\x7E\x00\x05hello";
    "length-top-bit", "RFC 6455 §5.2",
        "binary with a 64-bit length whose top bit is set (no payload follows)",
        b"\x82\x7F\x80\x00\x00\x00\x00\x00\x00\x05";
    "close-code-invalid", "RFC 6455 §7.4.1",
        "a close with code 1005, which is never sent",
        b"\x88\x02\x03\xED";
    "close-code-out-of-range", "RFC 6455 §7.4.2",
        "a close with code 999 (below 1000: not used)",
        b"\x88\x02\x03\xE7";
    "close-one-byte", "RFC 6455 §5.5.1",
        "a close whose payload is one byte (a code is two)",
        b"\x88\x01\x03";
    "close-reason-bad-utf8", "RFC 6455 §5.5.1, §8.1",
        "a close 1000 whose reason is the byte ff: not UTF-8",
        b"\x88\x03\x03\xE8\xFF";
}

/// How a connection ends on purpose after some messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WsEnd {
    /// `close-after:N:CODE`: a close with CODE once N messages are echoed.
    Close {
        /// Messages echoed first.
        after: u32,
        /// The close's code.
        code: u16,
    },
    /// `drop-after:N`, `drop-after:N:reset`: TCP closed once N messages are echoed, with no
    /// close frame: FIN, or RST.
    Drop {
        /// Messages echoed first.
        after: u32,
        /// RST instead of FIN.
        reset: bool,
    },
}

impl WsEnd {
    /// Messages echoed before the end.
    pub fn after(self) -> u32 {
        match self {
            WsEnd::Close { after, .. } | WsEnd::Drop { after, .. } => after,
        }
    }
}

/// One `--fault` value's fault on a WebSocket path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WsFault {
    /// `latency:...`: each echo held this long after its message's last byte is read.
    Latency(Latency),
    /// `drip:...`: each echo's frame in pieces.
    Drip(Drip),
    /// `ping-storm:N`: N pings after each echo.
    PingStorm(u32),
    /// `malformed:ID`: the catalogue's frame ID instead of an echo.
    Malformed(u8),
    /// `close-after`, `drop-after`.
    End(WsEnd),
}

/// The most pings a storm sends after one echo.
pub const MAX_STORM: u32 = 1_000_000;

/// Every fault of one `--websocket` path, with the share of messages each applies to
/// (millionths). [`WsFaults::default`] is none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WsFaults {
    /// A delay before each echo, and its share.
    pub latency: Option<(Latency, u32)>,
    /// Each echo in pieces, and its share.
    pub drip: Option<(Drip, u32)>,
    /// Pings after each echo, and its share.
    pub storm: Option<(u32, u32)>,
    /// A malformed frame instead of the echo (its index in [`IDS`]), and its share.
    pub malformed: Option<(u8, u32)>,
    /// The connection's end after some messages.
    pub end: Option<WsEnd>,
    /// `--seed`: with the client's `Sec-WebSocket-Key`, a connection's stream of draws.
    pub seed: u64,
}

/// What one message gets, drawn when its last fragment is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessagePlan {
    /// Hold the echo this long (µs; 0: not).
    pub delay_us: u64,
    /// Send it in these pieces.
    pub drip: Option<Drip>,
    /// Then this many pings.
    pub storm: u32,
    /// Send the catalogue's frame `i` instead of the echo.
    pub malformed: Option<u8>,
}

/// Whether a fault with share `share` applies: a draw only when it is not every message.
fn applies(share: u32, rng: &mut Rng) -> bool {
    share >= ALWAYS || rng.below(u64::from(ALWAYS)) < u64::from(share)
}

impl WsFaults {
    /// Whether the path has any fault.
    pub fn is_none(&self) -> bool {
        self.latency.is_none()
            && self.drip.is_none()
            && self.storm.is_none()
            && self.malformed.is_none()
            && self.end.is_none()
    }

    /// A connection's generator: from `--seed` and its `Sec-WebSocket-Key`, so that a client
    /// that sends the same key draws the same.
    pub fn rng(&self, key: &[u8]) -> Rng {
        let stream = key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Rng::new(self.seed, stream)
    }

    /// Draw one message's plan, in a fixed order: the malformed frame's share, the latency's
    /// share, the latency, the drip's share, the storm's share (a share of every message
    /// draws nothing).
    pub fn plan(&self, rng: &mut Rng) -> MessagePlan {
        let malformed = self
            .malformed
            .and_then(|(i, share)| applies(share, rng).then_some(i));
        let delay_us = match self.latency {
            Some((l, share)) if applies(share, rng) => l.sample_ms(rng).saturating_mul(US_PER_MS),
            _ => 0,
        };
        let drip = self
            .drip
            .and_then(|(d, share)| applies(share, rng).then_some(d));
        let storm = match self.storm {
            Some((n, share)) if applies(share, rng) => n,
            _ => 0,
        };
        MessagePlan {
            delay_us,
            drip,
            storm,
            malformed,
        }
    }

    /// Add one `--fault` value's `KIND[:ARGS][@SHARE]`; a second of the same kind, or a share
    /// on an end, is an error.
    pub fn add(&mut self, spec: &str) -> Result<(), String> {
        let (kind, share) = split_share(spec)?;
        let fault = parse_ws_fault(kind)?;
        let twice = |what: &str| Err(format!("a WebSocket path takes one {what}"));
        match fault {
            WsFault::Latency(_) if self.latency.is_some() => return twice("latency"),
            WsFault::Drip(_) if self.drip.is_some() => return twice("drip"),
            WsFault::PingStorm(_) if self.storm.is_some() => return twice("ping-storm"),
            WsFault::Malformed(_) if self.malformed.is_some() => return twice("malformed"),
            WsFault::End(_) if self.end.is_some() => return twice("close-after or drop-after"),
            WsFault::End(_) if share != ALWAYS => {
                return Err("takes no share: its N says which message it comes after".into());
            }
            WsFault::Latency(l) => self.latency = Some((l, share)),
            WsFault::Drip(d) => self.drip = Some((d, share)),
            WsFault::PingStorm(n) => self.storm = Some((n, share)),
            WsFault::Malformed(i) => self.malformed = Some((i, share)),
            WsFault::End(e) => self.end = Some(e),
        }
        Ok(())
    }
}

/// The kinds a WebSocket path takes, for an error that found none of them.
pub const WS_KIND_NAMES: &str = "latency, drip, ping-storm, malformed, close-after or drop-after";

/// Whether `kind` (the part before the first `:`) is a WebSocket path's own.
pub fn is_ws_kind(spec: &str) -> bool {
    let kind = spec.split(':').next().unwrap_or_default();
    let kind = kind.split('@').next().unwrap_or_default();
    matches!(
        kind,
        "ping-storm" | "malformed" | "close-after" | "drop-after"
    )
}

/// `KIND[:ARGS]` on a WebSocket path (without its share).
pub fn parse_ws_fault(spec: &str) -> Result<WsFault, String> {
    let (kind, args) = match spec.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (spec, None),
    };
    let need = |example: &str| {
        args.ok_or_else(|| format!("{kind} needs arguments, like {kind}:{example}"))
    };
    let count = |v: &str, what: &str, max: u32| -> Result<u32, String> {
        match v.parse::<u32>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(format!("{what} {v:?} is not a number from 0 to {max}")),
        }
    };
    match kind {
        "latency" => Ok(WsFault::Latency(parse_latency(need("100ms")?)?)),
        "drip" => match parse_drip(need("16/100ms")?)? {
            d @ (Drip::Rate { .. } | Drip::Pieces { .. }) => Ok(WsFault::Drip(d)),
            _ => Err("a drip is SIZE/D or Npieces/D".into()),
        },
        "ping-storm" => match count(need("1000")?, "ping-storm", MAX_STORM)? {
            0 => Err("ping-storm:0 sends nothing (1 to 1000000 pings)".into()),
            n => Ok(WsFault::PingStorm(n)),
        },
        "malformed" => {
            let id = need("rsv1")?;
            match IDS.iter().position(|&i| i == id) {
                Some(i) => Ok(WsFault::Malformed(i as u8)),
                None => Err(format!(
                    "{id:?} is not a malformed frame's id ({})",
                    IDS.join(", ")
                )),
            }
        }
        "close-after" => {
            let a = need("3:1011")?;
            let Some((n, code)) = a.split_once(':') else {
                return Err(format!("{a:?} is not N:CODE like close-after:3:1011"));
            };
            let after = count(n, "close-after", u32::MAX)?;
            match code.parse::<u16>() {
                Ok(code) if (1000..=4999).contains(&code) => {
                    Ok(WsFault::End(WsEnd::Close { after, code }))
                }
                _ => Err(format!(
                    "close code {code:?} is out of range (1000 to 4999; malformed:close-code-invalid sends a bad one)"
                )),
            }
        }
        "drop-after" => {
            let a = need("3")?;
            let (n, reset) = match a.split_once(':') {
                Some((n, "reset")) => (n, true),
                Some((_, then)) => {
                    return Err(format!(
                        "{then:?} is not what follows a drop (drop-after:N, or drop-after:N:reset)"
                    ));
                }
                None => (a, false),
            };
            let after = count(n, "drop-after", u32::MAX)?;
            Ok(WsFault::End(WsEnd::Drop { after, reset }))
        }
        _ => Err(format!(
            "{kind:?} is not a fault of a --websocket path ({WS_KIND_NAMES})"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn websocket_faults_parse_with_their_shares() {
        let mut f = WsFaults::default();
        for spec in [
            "latency:10ms..20ms@50%",
            "drip:4/10ms",
            "ping-storm:100",
            "malformed:rsv1@0.1",
            "close-after:3:4000",
        ] {
            f.add(spec).unwrap();
        }
        assert_eq!(f.latency.map(|l| l.1), Some(500_000));
        assert_eq!(f.storm, Some((100, ALWAYS)));
        assert_eq!(f.malformed, Some((2, 100_000)));
        assert_eq!(
            f.end,
            Some(WsEnd::Close {
                after: 3,
                code: 4000
            })
        );
        assert!(f.add("latency:1ms").unwrap_err().contains("one latency"));
        assert!(
            f.add("drop-after:1")
                .unwrap_err()
                .contains("one close-after")
        );
        let mut g = WsFaults::default();
        assert_eq!(
            g.add("drop-after:0:reset"),
            Ok(()),
            "an end after no message"
        );
        for (bad, says) in [
            ("malformed:nope", "not a malformed frame's id"),
            ("close-after:3:999", "out of range"),
            ("close-after:3", "not N:CODE"),
            ("drop-after:x", "not a number"),
            ("drop-after:1:rst", "not what follows"),
            ("ping-storm:0", "sends nothing"),
            ("ping-storm:1000001", "not a number"),
            ("stall", "not a fault of a --websocket path"),
            ("drip:1KiB/1ms@x", "share"),
        ] {
            let e = WsFaults::default().add(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert!(
            WsFaults::default()
                .add("close-after:1:1000@50%")
                .unwrap_err()
                .contains("no share")
        );
    }

    #[test]
    fn every_malformed_frame_is_whole_and_named_once() {
        for (i, id) in IDS.iter().enumerate() {
            assert!(!IDS[..i].contains(id), "{id} twice");
            assert!(ABOUT[i].rfc.starts_with("RFC 6455 §"), "{id}");
            assert!(FRAMES[i].len() >= 2, "{id}");
        }
        assert_eq!(
            FRAMES[IDS.iter().position(|&i| i == "control-too-long").unwrap()].len(),
            130
        );
    }

    #[test]
    fn a_plan_draws_the_same_from_the_same_key() {
        let mut f = WsFaults::default();
        f.add("latency:1ms..100ms").unwrap();
        f.add("malformed:rsv1@50%").unwrap();
        let draws = |key: &[u8]| {
            let mut rng = f.rng(key);
            (0..20).map(|_| f.plan(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draws(b"a"), draws(b"a"));
        assert_ne!(draws(b"a"), draws(b"b"));
    }
}
