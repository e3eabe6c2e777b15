//! An incremental decoder for the chunked transfer coding (RFC 9112 §7.1), `core` only.
//!
//! canned never keeps a request body: the decoder walks chunk sizes, extensions, data and
//! trailers and says how many bytes belong to the body, so that the next pipelined request is
//! found exactly where the RFC says it starts. Its state is kept byte by byte, so any split of
//! the input gives the same result.
//!
//! ```text
//! chunked-body   = *chunk last-chunk trailer-section CRLF
//! chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//! chunk-size     = 1*HEXDIG
//! last-chunk     = 1*("0") [ chunk-ext ] CRLF
//! chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//! chunk-ext-name = token
//! chunk-ext-val  = token / quoted-string
//! quoted-string  = DQUOTE *( qdtext / quoted-pair ) DQUOTE           (RFC 9110 §5.6.4)
//! qdtext         = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
//! quoted-pair    = "\" ( HTAB / SP / VCHAR / obs-text )
//! trailer-section = *( field-line CRLF )
//! ```
//!
//! Strictness: CRLF only (a bare LF or CR is an error); extensions follow the grammar above
//! exactly (a bare `;`, a name or token value with a non-tchar byte, an unterminated
//! quoted-string or a quoted-pair escaping a control byte is an error, and whitespace is
//! allowed only where BWS is); chunk sizes at most 2^60, a chunk-size line at most
//! [`MAX_SIZE_LINE`] bytes and a trailer section at most [`MAX_TRAILERS`] bytes.

use crate::parser::{Error, TCHAR, VALUE};

/// Longest chunk-size line (size and extensions) accepted.
pub const MAX_SIZE_LINE: u32 = 4096;
/// Largest trailer section accepted.
pub const MAX_TRAILERS: u32 = 8192;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    SizeStart,
    Size,
    /// BWS that must be followed by ";" (after the size or a complete extension).
    BwsBeforeSemi,
    /// After ";" and BWS, before the name.
    ExtNameStart,
    ExtName,
    /// BWS after a name: "=" or ";" must follow.
    ExtAfterName,
    /// After "=" and BWS, before the value.
    ExtValueStart,
    ExtToken,
    ExtQuoted,
    /// After the "\" of a quoted-pair.
    ExtEscape,
    /// After the closing DQUOTE.
    ExtQuoteEnd,
    SizeLf,
    Data,
    DataCr,
    DataLf,
    TrailerStart,
    TrailerName,
    TrailerValue,
    TrailerLf,
    FinalLf,
    Done,
}

/// What one call to [`ChunkedDecoder::decode`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of the input that belong to the body.
    pub consumed: usize,
    /// The body ended with this call (the last byte consumed is its final LF).
    pub done: bool,
}

/// The chunked body decoder. Feed it each new piece of input; it consumes what belongs to the
/// body and stops at its end.
///
/// ```
/// use canned::chunked::ChunkedDecoder;
/// let mut d = ChunkedDecoder::new();
/// let p = d.decode(b"3\r\nabc\r\n0\r\n\r\nGET").unwrap();
/// assert!(p.done);
/// assert_eq!(p.consumed, 13);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkedDecoder {
    state: State,
    /// Bytes of chunk data still to skip, or the chunk size being read.
    size: u64,
    /// Bytes in the current size line, or in the trailer section.
    count: u32,
    /// Bytes of chunk data announced by the size lines read so far.
    data: u64,
    /// Stop once `data` passes this; see [`ChunkedDecoder::with_data_limit`].
    data_limit: u64,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ChunkedDecoder {
    /// A decoder at the start of a body.
    pub const fn new() -> Self {
        Self::with_data_limit(u64::MAX)
    }

    /// A decoder at the start of a body that may carry at most `limit` bytes of chunk data.
    /// Once a size line takes the announced data past `limit`, [`ChunkedDecoder::decode`]
    /// stops right after that line, before the chunk's data, and consumes nothing more:
    /// [`ChunkedDecoder::over_limit`] is then true. Stopping there, not at the end of the
    /// input offered, makes the outcome independent of how the body is split into reads.
    ///
    /// ```
    /// use canned::chunked::ChunkedDecoder;
    ///
    /// let mut d = ChunkedDecoder::with_data_limit(10);
    /// let p = d.decode(b"5\r\n01234\r\n6\r\n567").unwrap();
    /// assert!(!p.done);
    /// assert_eq!(p.consumed, 13);
    /// assert!(d.over_limit());
    /// assert_eq!(d.data_len(), 11);
    /// ```
    pub const fn with_data_limit(limit: u64) -> Self {
        ChunkedDecoder {
            state: State::SizeStart,
            size: 0,
            count: 0,
            data: 0,
            data_limit: limit,
        }
    }

    /// Bytes of chunk data announced by the size lines read so far (a chunk counts in full
    /// once its size line is complete, before its data arrives).
    pub fn data_len(&self) -> u64 {
        self.data
    }

    /// Whether the announced data passed the limit of [`ChunkedDecoder::with_data_limit`].
    pub fn over_limit(&self) -> bool {
        self.data > self.data_limit
    }

    /// Whether the body has ended.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Consume the part of `input` that belongs to the body.
    ///
    /// Once the body has ended, every further call is an error
    /// ([`Error::InvalidChunkData`]): the bytes offered belong to whatever follows the body.
    pub fn decode(&mut self, input: &[u8]) -> Result<Progress, Error> {
        if self.state == State::Done {
            return Err(Error::InvalidChunkData);
        }
        if self.over_limit() {
            return Ok(Progress {
                consumed: 0,
                done: false,
            });
        }
        let mut i = 0;
        while i < input.len() {
            if self.state == State::Data {
                let take = (input.len() - i).min(self.size.min(usize::MAX as u64) as usize);
                i += take;
                self.size -= take as u64;
                if self.size == 0 {
                    self.state = State::DataCr;
                }
                continue;
            }
            let c = input[i];
            i += 1;
            self.step(c)?;
            if self.over_limit() {
                // Refused before its data: nothing after this size line is looked at.
                return Ok(Progress {
                    consumed: i,
                    done: false,
                });
            }
            if self.state == State::Done {
                return Ok(Progress {
                    consumed: i,
                    done: true,
                });
            }
        }
        Ok(Progress {
            consumed: i,
            done: self.state == State::Done,
        })
    }

    fn step(&mut self, c: u8) -> Result<(), Error> {
        use State::*;
        match self.state {
            SizeStart | Size => {
                if let Some(d) = hex(c) {
                    if self.size > (1 << 56) {
                        return Err(Error::ChunkSizeOverflow);
                    }
                    self.size = self.size * 16 + d as u64;
                    self.state = Size;
                } else if self.state == SizeStart {
                    return Err(bad_line_byte(c, Error::InvalidChunkSize));
                } else {
                    self.state = match c {
                        b'\r' => SizeLf,
                        b';' => ExtNameStart,
                        b' ' | b'\t' => BwsBeforeSemi,
                        _ => return Err(bad_line_byte(c, Error::InvalidChunkSize)),
                    };
                }
                self.line_byte()?;
            }
            // The extension states, RFC 9112 §7.1.1: each byte either fits the grammar at
            // this point or is an error, so the result never depends on the split.
            BwsBeforeSemi => {
                self.state = match c {
                    b' ' | b'\t' => BwsBeforeSemi,
                    b';' => ExtNameStart,
                    _ => return Err(bad_line_byte(c, Error::InvalidChunkExt)),
                };
                self.line_byte()?;
            }
            ExtNameStart => {
                self.state = match c {
                    b' ' | b'\t' => ExtNameStart,
                    _ if TCHAR[c as usize] => ExtName,
                    _ => return Err(bad_line_byte(c, Error::InvalidChunkExt)),
                };
                self.line_byte()?;
            }
            ExtName | ExtAfterName => {
                self.state = match c {
                    _ if self.state == ExtName && TCHAR[c as usize] => ExtName,
                    b'\r' if self.state == ExtName => SizeLf,
                    b' ' | b'\t' => ExtAfterName,
                    b'=' => ExtValueStart,
                    b';' => ExtNameStart,
                    _ => return Err(bad_line_byte(c, Error::InvalidChunkExt)),
                };
                self.line_byte()?;
            }
            ExtValueStart => {
                self.state = match c {
                    b' ' | b'\t' => ExtValueStart,
                    b'"' => ExtQuoted,
                    _ if TCHAR[c as usize] => ExtToken,
                    _ => return Err(bad_line_byte(c, Error::InvalidChunkExt)),
                };
                self.line_byte()?;
            }
            ExtToken | ExtQuoteEnd => {
                self.state = match c {
                    _ if self.state == ExtToken && TCHAR[c as usize] => ExtToken,
                    b'\r' => SizeLf,
                    b' ' | b'\t' => BwsBeforeSemi,
                    b';' => ExtNameStart,
                    _ => return Err(bad_line_byte(c, Error::InvalidChunkExt)),
                };
                self.line_byte()?;
            }
            ExtQuoted => {
                self.state = match c {
                    b'"' => ExtQuoteEnd,
                    b'\\' => ExtEscape,
                    // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                    _ if VALUE[c as usize] => ExtQuoted,
                    _ => return Err(bad_line_byte(c, Error::InvalidChunkExt)),
                };
                self.line_byte()?;
            }
            ExtEscape => {
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                if !VALUE[c as usize] {
                    return Err(bad_line_byte(c, Error::InvalidChunkExt));
                }
                self.state = ExtQuoted;
                self.line_byte()?;
            }
            SizeLf => {
                if c != b'\n' {
                    return Err(Error::BareCr);
                }
                self.count = 0;
                self.data = self.data.saturating_add(self.size);
                self.state = if self.size == 0 { TrailerStart } else { Data };
            }
            Data => unreachable!("data is skipped in bulk"),
            DataCr => {
                if c != b'\r' {
                    return Err(Error::InvalidChunkData);
                }
                self.state = DataLf;
            }
            DataLf => {
                if c != b'\n' {
                    return Err(Error::BareCr);
                }
                self.state = SizeStart;
            }
            TrailerStart => {
                self.trailer_byte()?;
                match c {
                    b'\r' => self.state = FinalLf,
                    b'\n' => return Err(Error::BareLf),
                    _ if TCHAR[c as usize] => self.state = TrailerName,
                    _ => return Err(Error::InvalidTrailer),
                }
            }
            TrailerName => {
                self.trailer_byte()?;
                match c {
                    b':' => self.state = TrailerValue,
                    _ if TCHAR[c as usize] => {}
                    b'\r' => return Err(Error::BareCr),
                    b'\n' => return Err(Error::BareLf),
                    _ => return Err(Error::InvalidTrailer),
                }
            }
            TrailerValue => {
                self.trailer_byte()?;
                match c {
                    b'\r' => self.state = TrailerLf,
                    b'\n' => return Err(Error::BareLf),
                    _ if VALUE[c as usize] => {}
                    _ => return Err(Error::InvalidTrailer),
                }
            }
            TrailerLf => {
                self.trailer_byte()?;
                if c != b'\n' {
                    return Err(Error::BareCr);
                }
                self.state = TrailerStart;
            }
            FinalLf => {
                if c != b'\n' {
                    return Err(Error::BareCr);
                }
                self.state = Done;
            }
            Done => return Err(Error::InvalidChunkData),
        }
        Ok(())
    }

    fn line_byte(&mut self) -> Result<(), Error> {
        self.count += 1;
        if self.count > MAX_SIZE_LINE {
            return Err(Error::InvalidChunkExt);
        }
        Ok(())
    }

    fn trailer_byte(&mut self) -> Result<(), Error> {
        self.count += 1;
        if self.count > MAX_TRAILERS {
            return Err(Error::InvalidTrailer);
        }
        Ok(())
    }
}

fn bad_line_byte(c: u8, otherwise: Error) -> Error {
    match c {
        b'\n' => Error::BareLf,
        _ => otherwise,
    }
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}
