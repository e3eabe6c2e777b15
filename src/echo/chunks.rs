//! A chunked body's data and trailers, taken from bytes that
//! [`ChunkedDecoder`](crate::chunked::ChunkedDecoder) already accepted: the decoder keeps
//! nothing, this keeps what it walked past, so it checks nothing and follows the grammar
//! (RFC 9112 §7.1) only as far as it takes to tell the data from the rest.

/// Where a walk stands in a chunked body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// The chunk size's hex digits.
    Size,
    /// After the size: extensions, then CRLF.
    SizeLineEnd,
    /// Chunk data, `left` bytes of it.
    Data,
    /// The CRLF after the data.
    DataEnd,
    /// The start of a trailer line, or of the final CRLF.
    TrailerStart,
    /// Inside a trailer line (kept, CRLF included).
    Trailer,
    /// The final LF.
    FinalLf,
    Done,
}

/// Walks a chunked body accepted piece by piece, in the pieces the decoder consumed, and
/// appends its data and then its trailer lines to a buffer (without the final CRLF).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkWalk {
    at: At,
    /// The size being read, or the data left in the chunk.
    left: u64,
    /// The buffer's length when the data ended and the trailers began.
    body_end: usize,
}

impl Default for ChunkWalk {
    fn default() -> Self {
        ChunkWalk {
            at: At::Size,
            left: 0,
            body_end: 0,
        }
    }
}

impl ChunkWalk {
    /// Append the data and trailer bytes of `accepted`, the next bytes of the body the
    /// decoder consumed, to `out`.
    pub fn walk(&mut self, accepted: &[u8], out: &mut Vec<u8>) {
        let mut i = 0;
        while i < accepted.len() {
            if self.at == At::Data {
                let take = (accepted.len() - i).min(self.left.min(usize::MAX as u64) as usize);
                out.extend_from_slice(&accepted[i..i + take]);
                i += take;
                self.left -= take as u64;
                if self.left == 0 {
                    self.at = At::DataEnd;
                }
                continue;
            }
            let c = accepted[i];
            i += 1;
            self.at = match self.at {
                At::Size => match hex(c) {
                    Some(d) => {
                        self.left = self.left * 16 + u64::from(d);
                        At::Size
                    }
                    None if c == b'\n' => self.size_line_ended(out),
                    None => At::SizeLineEnd,
                },
                At::SizeLineEnd if c == b'\n' => self.size_line_ended(out),
                At::SizeLineEnd => At::SizeLineEnd,
                At::DataEnd if c == b'\n' => At::Size,
                At::DataEnd => At::DataEnd,
                At::TrailerStart if c == b'\r' => At::FinalLf,
                At::TrailerStart | At::Trailer => {
                    out.push(c);
                    if c == b'\n' {
                        At::TrailerStart
                    } else {
                        At::Trailer
                    }
                }
                At::FinalLf | At::Done => At::Done,
                At::Data => unreachable!("data is taken in bulk"),
            };
        }
    }

    /// A size line's LF: data follows, or the trailers after the last chunk.
    fn size_line_ended(&mut self, out: &[u8]) -> At {
        if self.left > 0 {
            return At::Data;
        }
        self.body_end = out.len();
        At::TrailerStart
    }

    /// The body ended: its last byte was walked.
    pub fn is_done(&self) -> bool {
        self.at == At::Done
    }

    /// The buffer's length where the data ended and the trailers began (once the last chunk's
    /// size line was walked).
    pub fn body_end(&self) -> usize {
        self.body_end
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
