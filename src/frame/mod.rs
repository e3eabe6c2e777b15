//! HTTP/2 frames (RFC 9113 §4, §6): the 9-byte frame header, each frame type's payload read
//! and checked, the SETTINGS parameters with their §6.5.2 bounds, and the error codes (§7).
//! `core` only, no allocation: a frame is read from a slice that holds it whole and written
//! into a caller's 9-byte array.
//!
//! [`Frame::parse`] turns a header and its payload into a [`Frame`] whose slices borrow the
//! payload (padding removed), or a [`FrameError`]: the RFC's error code, and whether it ends
//! the connection or only the stream (§5.4). What a frame means for a connection's streams
//! (states, windows, the order of frames) is the connection's, not this module's.
//!
//! | input | outcome | RFC 9113 |
//! |---|---|---|
//! | a payload longer than the advertised SETTINGS_MAX_FRAME_SIZE | connection FRAME_SIZE_ERROR | §4.2 |
//! | DATA, HEADERS, PRIORITY, RST_STREAM, CONTINUATION on stream 0 | connection PROTOCOL_ERROR | §6.1, §6.2, §6.3, §6.4, §6.10 |
//! | SETTINGS, PING, GOAWAY on a stream | connection PROTOCOL_ERROR | §6.5, §6.7, §6.8 |
//! | padding as long as the payload or longer | connection PROTOCOL_ERROR | §6.1, §6.2 |
//! | PRIORITY not 5 bytes | stream FRAME_SIZE_ERROR | §6.3 |
//! | PRIORITY for a stream that depends on itself | stream PROTOCOL_ERROR | §5.3.1 |
//! | HEADERS for a stream that depends on itself | [`Frame::Headers`] saying so: a stream PROTOCOL_ERROR once its block is decoded | §5.3.1, §4.3 |
//! | RST_STREAM or WINDOW_UPDATE not 4 bytes, PING not 8, GOAWAY under 8 | connection FRAME_SIZE_ERROR | §6.4, §6.9, §6.7, §6.8 |
//! | SETTINGS with ACK and a payload, or not a multiple of 6 | connection FRAME_SIZE_ERROR | §6.5 |
//! | PUSH_PROMISE (a client cannot push) | connection PROTOCOL_ERROR | §8.4 |
//! | WINDOW_UPDATE of 0 | PROTOCOL_ERROR, of the stream or (stream 0) the connection | §6.9 |
//! | an unknown frame type | [`Frame::Unknown`], to be ignored | §4.1, §5.5 |
//! | SETTINGS_ENABLE_PUSH not 0 or 1 | connection PROTOCOL_ERROR | §6.5.2 |
//! | SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1 | connection FLOW_CONTROL_ERROR | §6.5.2 |
//! | SETTINGS_MAX_FRAME_SIZE outside 16,384..=16,777,215 | connection PROTOCOL_ERROR | §6.5.2 |
//! | an unknown SETTINGS parameter | ignored | §6.5.2 |

/// The client connection preface (RFC 9113 §3.4).
pub const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The length of a frame header.
pub const HEADER_LEN: usize = 9;

/// The smallest SETTINGS_MAX_FRAME_SIZE, and its initial value (§6.5.2).
pub const MIN_MAX_FRAME_SIZE: u32 = 16_384;
/// The largest SETTINGS_MAX_FRAME_SIZE (§6.5.2).
pub const MAX_MAX_FRAME_SIZE: u32 = (1 << 24) - 1;
/// The largest flow-control window (§6.9.1).
pub const MAX_WINDOW: u32 = (1 << 31) - 1;
/// The initial flow-control window of a connection and of each stream (§6.9.2).
pub const DEFAULT_WINDOW: u32 = 65_535;

/// What a fresh connection's first bytes say of its protocol ([`sniff`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniffed {
    /// The whole preface came: HTTP/2 with prior knowledge.
    Http2,
    /// Not the preface: HTTP/1 (a method such as `POST`, `PUT`, `PATCH` or `PRI` with another
    /// target or version shares the preface's first bytes).
    Http1,
    /// Every byte so far is the preface's (this many of them): either may follow.
    Undecided(usize),
}

/// The protocol of a connection whose first bytes were `matched` bytes of the preface (all
/// that came before), then `data`. RFC 9113 §3.4: the preface is designed so that an HTTP/1
/// server answers it as a request; a server that speaks both decides only once the bytes
/// received can no longer be the other protocol, so that an HTTP/1 request whose first read
/// is `P` or `PRI * HT` (a byte-at-a-time client, a tiny TCP segment) stays HTTP/1.
#[inline]
pub fn sniff(matched: usize, data: &[u8]) -> Sniffed {
    let want = &PREFACE[matched.min(PREFACE.len())..];
    let n = data.len().min(want.len());
    if data[..n] != want[..n] {
        Sniffed::Http1
    } else if n == want.len() {
        Sniffed::Http2
    } else {
        Sniffed::Undecided(matched + n)
    }
}

/// Frame types (§6; §11.2).
pub mod kind {
    /// DATA (§6.1).
    pub const DATA: u8 = 0x0;
    /// HEADERS (§6.2).
    pub const HEADERS: u8 = 0x1;
    /// PRIORITY (§6.3).
    pub const PRIORITY: u8 = 0x2;
    /// RST_STREAM (§6.4).
    pub const RST_STREAM: u8 = 0x3;
    /// SETTINGS (§6.5).
    pub const SETTINGS: u8 = 0x4;
    /// PUSH_PROMISE (§6.6).
    pub const PUSH_PROMISE: u8 = 0x5;
    /// PING (§6.7).
    pub const PING: u8 = 0x6;
    /// GOAWAY (§6.8).
    pub const GOAWAY: u8 = 0x7;
    /// WINDOW_UPDATE (§6.9).
    pub const WINDOW_UPDATE: u8 = 0x8;
    /// CONTINUATION (§6.10).
    pub const CONTINUATION: u8 = 0x9;
}

/// Frame flags (§6).
pub mod flag {
    /// DATA, HEADERS: the last frame of the stream from its sender.
    pub const END_STREAM: u8 = 0x1;
    /// SETTINGS, PING: an acknowledgement.
    pub const ACK: u8 = 0x1;
    /// HEADERS, CONTINUATION: the field block ends in this frame.
    pub const END_HEADERS: u8 = 0x4;
    /// DATA, HEADERS: a pad length byte and padding.
    pub const PADDED: u8 = 0x8;
    /// HEADERS: a stream dependency and weight.
    pub const PRIORITY: u8 = 0x20;
}

/// SETTINGS parameter identifiers (§6.5.2).
pub mod setting {
    /// SETTINGS_HEADER_TABLE_SIZE.
    pub const HEADER_TABLE_SIZE: u16 = 0x1;
    /// SETTINGS_ENABLE_PUSH.
    pub const ENABLE_PUSH: u16 = 0x2;
    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    pub const MAX_CONCURRENT_STREAMS: u16 = 0x3;
    /// SETTINGS_INITIAL_WINDOW_SIZE.
    pub const INITIAL_WINDOW_SIZE: u16 = 0x4;
    /// SETTINGS_MAX_FRAME_SIZE.
    pub const MAX_FRAME_SIZE: u16 = 0x5;
    /// SETTINGS_MAX_HEADER_LIST_SIZE.
    pub const MAX_HEADER_LIST_SIZE: u16 = 0x6;
}

/// Error codes (§7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ErrorCode {
    /// Graceful shutdown.
    NoError = 0x0,
    /// A protocol error.
    ProtocolError = 0x1,
    /// An internal error.
    InternalError = 0x2,
    /// Flow-control limits broken.
    FlowControlError = 0x3,
    /// SETTINGS not acknowledged in time.
    SettingsTimeout = 0x4,
    /// A frame on a half-closed stream.
    StreamClosed = 0x5,
    /// A frame of the wrong size.
    FrameSizeError = 0x6,
    /// A stream refused before any processing.
    RefusedStream = 0x7,
    /// A stream no longer needed.
    Cancel = 0x8,
    /// The field-compression context cannot be kept.
    CompressionError = 0x9,
    /// A CONNECT tunnel failed.
    ConnectError = 0xa,
    /// The peer may be generating excessive load.
    EnhanceYourCalm = 0xb,
    /// TLS requirements not met.
    InadequateSecurity = 0xc,
    /// HTTP/1.1 required.
    Http11Required = 0xd,
}

/// A frame that breaks the rules of its type: the error code, and the stream it ends when
/// only that stream is in error (`None`: a connection error, §5.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameError {
    /// The RFC's code for it.
    pub code: ErrorCode,
    /// A stream error of this stream (§5.4.2), or `None` for a connection error.
    pub stream: Option<u32>,
}

impl FrameError {
    const fn conn(code: ErrorCode) -> FrameError {
        FrameError { code, stream: None }
    }
}

/// A frame header (§4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Payload length (24 bits).
    pub len: u32,
    /// Frame type ([`kind`]).
    pub kind: u8,
    /// Flags ([`flag`]).
    pub flags: u8,
    /// Stream identifier (31 bits; the reserved bit is ignored on receipt).
    pub stream: u32,
}

impl Header {
    /// The header at the start of `b`, if 9 bytes are there.
    #[inline]
    pub fn parse(b: &[u8]) -> Option<Header> {
        let h: &[u8; HEADER_LEN] = b.get(..HEADER_LEN)?.try_into().ok()?;
        Some(Header {
            len: u32::from_be_bytes([0, h[0], h[1], h[2]]),
            kind: h[3],
            flags: h[4],
            stream: u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & MAX_WINDOW,
        })
    }

    /// The header's 9 bytes (the reserved bit 0, the length cut to 24 bits).
    #[inline]
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let l = self.len.to_be_bytes();
        let s = (self.stream & MAX_WINDOW).to_be_bytes();
        [
            l[1], l[2], l[3], self.kind, self.flags, s[0], s[1], s[2], s[3],
        ]
    }

    /// Whether flag `f` is set.
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// A stream dependency (§5.3.1, deprecated by RFC 9113 and ignored, but still checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priority {
    /// The stream depended on.
    pub depends_on: u32,
    /// The exclusive flag.
    pub exclusive: bool,
    /// Weight minus one.
    pub weight: u8,
}

/// A frame whose payload was checked against its type's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// DATA: `data` without padding; `flow_len` the whole payload, which flow control counts.
    Data {
        /// The stream.
        stream: u32,
        /// END_STREAM.
        end_stream: bool,
        /// The data.
        data: &'a [u8],
        /// The payload length, padding included (§6.9.1).
        flow_len: u32,
    },
    /// HEADERS: a field block fragment without padding or priority.
    Headers {
        /// The stream.
        stream: u32,
        /// END_STREAM.
        end_stream: bool,
        /// END_HEADERS.
        end_headers: bool,
        /// The fragment.
        fragment: &'a [u8],
        /// Its priority names its own stream: a stream error of type PROTOCOL_ERROR (§5.3.1),
        /// but only once the block is decoded, which the HPACK table needs whatever happens to
        /// the stream (§4.3).
        depends_on_itself: bool,
    },
    /// PRIORITY (ignored, RFC 9113 §5.3.2).
    Priority {
        /// The stream.
        stream: u32,
    },
    /// RST_STREAM.
    RstStream {
        /// The stream.
        stream: u32,
        /// Its error code (raw: an unknown code is no error, §7).
        code: u32,
    },
    /// SETTINGS: the parameters ([`Settings`] reads them), or an acknowledgement.
    Settings {
        /// ACK.
        ack: bool,
        /// The parameters, 6 bytes each.
        params: Settings<'a>,
    },
    /// PING.
    Ping {
        /// ACK.
        ack: bool,
        /// The opaque data.
        data: [u8; 8],
    },
    /// GOAWAY.
    GoAway {
        /// The last stream the peer processed.
        last_stream: u32,
        /// Its error code (raw).
        code: u32,
    },
    /// WINDOW_UPDATE (increment at least 1).
    WindowUpdate {
        /// The stream (0: the connection).
        stream: u32,
        /// The increment.
        increment: u32,
    },
    /// CONTINUATION.
    Continuation {
        /// The stream.
        stream: u32,
        /// END_HEADERS.
        end_headers: bool,
        /// The fragment.
        fragment: &'a [u8],
    },
    /// A frame type this implementation does not know: ignored (§5.5).
    Unknown {
        /// Its type.
        kind: u8,
    },
}

impl<'a> Frame<'a> {
    /// Read a frame from its header and its whole payload (`payload.len() == h.len`), a server
    /// that advertised `max_frame_size` receiving it.
    pub fn parse(
        h: &Header,
        payload: &'a [u8],
        max_frame_size: u32,
    ) -> Result<Frame<'a>, FrameError> {
        use ErrorCode::*;
        debug_assert_eq!(payload.len(), h.len as usize);
        if h.len > max_frame_size {
            return Err(FrameError::conn(FrameSizeError));
        }
        let s = h.stream;
        let on_stream = |f: Frame<'a>| {
            if s == 0 {
                Err(FrameError::conn(ProtocolError))
            } else {
                Ok(f)
            }
        };
        let on_zero = |f: Frame<'a>| {
            if s != 0 {
                Err(FrameError::conn(ProtocolError))
            } else {
                Ok(f)
            }
        };
        match h.kind {
            kind::DATA => {
                let data = unpad(h, payload)?;
                on_stream(Frame::Data {
                    stream: s,
                    end_stream: h.has(flag::END_STREAM),
                    data,
                    flow_len: h.len,
                })
            }
            kind::HEADERS => {
                if s == 0 {
                    return Err(FrameError::conn(ProtocolError));
                }
                let mut fragment = unpad(h, payload)?;
                let mut depends_on_itself = false;
                if h.has(flag::PRIORITY) {
                    let Some((p, rest)) = priority(fragment) else {
                        return Err(FrameError::conn(FrameSizeError));
                    };
                    depends_on_itself = p.depends_on == s;
                    fragment = rest;
                }
                Ok(Frame::Headers {
                    stream: s,
                    end_stream: h.has(flag::END_STREAM),
                    end_headers: h.has(flag::END_HEADERS),
                    fragment,
                    depends_on_itself,
                })
            }
            kind::PRIORITY => {
                if s == 0 {
                    return Err(FrameError::conn(ProtocolError));
                }
                match priority(payload) {
                    Some((p, [])) if p.depends_on == s => Err(FrameError {
                        code: ProtocolError,
                        stream: Some(s),
                    }),
                    Some((_, [])) => Ok(Frame::Priority { stream: s }),
                    _ => Err(FrameError {
                        code: FrameSizeError,
                        stream: Some(s),
                    }),
                }
            }
            kind::RST_STREAM => {
                let code = word(payload).ok_or(FrameError::conn(FrameSizeError));
                if s == 0 {
                    return Err(FrameError::conn(ProtocolError));
                }
                Ok(Frame::RstStream {
                    stream: s,
                    code: code?,
                })
            }
            kind::SETTINGS => {
                if s != 0 {
                    return Err(FrameError::conn(ProtocolError));
                }
                let ack = h.has(flag::ACK);
                if (ack && !payload.is_empty()) || payload.len() % 6 != 0 {
                    return Err(FrameError::conn(FrameSizeError));
                }
                Ok(Frame::Settings {
                    ack,
                    params: Settings(payload),
                })
            }
            kind::PUSH_PROMISE => Err(FrameError::conn(ProtocolError)),
            kind::PING => {
                if s != 0 {
                    return Err(FrameError::conn(ProtocolError));
                }
                let data: [u8; 8] = payload
                    .try_into()
                    .map_err(|_| FrameError::conn(FrameSizeError))?;
                Ok(Frame::Ping {
                    ack: h.has(flag::ACK),
                    data,
                })
            }
            kind::GOAWAY => {
                if payload.len() < 8 {
                    return Err(FrameError::conn(FrameSizeError));
                }
                on_zero(Frame::GoAway {
                    last_stream: word(&payload[..4]).unwrap_or(0) & MAX_WINDOW,
                    code: word(&payload[4..8]).unwrap_or(0),
                })
            }
            kind::WINDOW_UPDATE => {
                let Some(w) = word(payload) else {
                    return Err(FrameError::conn(FrameSizeError));
                };
                let increment = w & MAX_WINDOW;
                if increment == 0 {
                    return Err(FrameError {
                        code: ProtocolError,
                        stream: (s != 0).then_some(s),
                    });
                }
                Ok(Frame::WindowUpdate {
                    stream: s,
                    increment,
                })
            }
            kind::CONTINUATION => on_stream(Frame::Continuation {
                stream: s,
                end_headers: h.has(flag::END_HEADERS),
                fragment: payload,
            }),
            other => Ok(Frame::Unknown { kind: other }),
        }
    }
}

/// A padded frame's content (§6.1, §6.2): without its pad length byte and padding.
fn unpad<'a>(h: &Header, payload: &'a [u8]) -> Result<&'a [u8], FrameError> {
    if !h.has(flag::PADDED) {
        return Ok(payload);
    }
    match payload.split_first() {
        Some((&pad, rest)) if (pad as usize) <= rest.len() => {
            Ok(&rest[..rest.len() - pad as usize])
        }
        // Padding that fills the payload, or more (§6.1: "MUST treat this as a connection
        // error of type PROTOCOL_ERROR"); a padded frame without even its length byte is one too.
        _ => Err(FrameError::conn(ErrorCode::ProtocolError)),
    }
}

/// A 5-byte stream dependency and what follows it.
fn priority(b: &[u8]) -> Option<(Priority, &[u8])> {
    if b.len() < 5 {
        return None;
    }
    let w = word(&b[..4])?;
    Some((
        Priority {
            depends_on: w & MAX_WINDOW,
            exclusive: w >> 31 == 1,
            weight: b[4],
        },
        &b[5..],
    ))
}

/// A big-endian 32-bit word that is the whole of `b`.
fn word(b: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(b.try_into().ok()?))
}

/// A SETTINGS frame's parameters (§6.5.1), read by [`Settings::each`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings<'a>(&'a [u8]);

impl Settings<'_> {
    /// Call `f` with each known parameter and its value, in order, after checking it against
    /// §6.5.2 (unknown parameters are skipped). Stops at the first bad value, with its
    /// connection error.
    pub fn each(&self, mut f: impl FnMut(u16, u32)) -> Result<(), FrameError> {
        for p in self.0.chunks_exact(6) {
            let id = u16::from_be_bytes([p[0], p[1]]);
            let v = u32::from_be_bytes([p[2], p[3], p[4], p[5]]);
            let bad = match id {
                setting::ENABLE_PUSH if v > 1 => Some(ErrorCode::ProtocolError),
                setting::INITIAL_WINDOW_SIZE if v > MAX_WINDOW => Some(ErrorCode::FlowControlError),
                setting::MAX_FRAME_SIZE
                    if !(MIN_MAX_FRAME_SIZE..=MAX_MAX_FRAME_SIZE).contains(&v) =>
                {
                    Some(ErrorCode::ProtocolError)
                }
                _ => None,
            };
            if let Some(code) = bad {
                return Err(FrameError::conn(code));
            }
            if (setting::HEADER_TABLE_SIZE..=setting::MAX_HEADER_LIST_SIZE).contains(&id) {
                f(id, v);
            }
        }
        Ok(())
    }

    /// The parameters' bytes.
    pub fn bytes(&self) -> &[u8] {
        self.0
    }
}

#[cfg(test)]
mod tests;
