//! A connection's capture of the request it echoes ([`Capture`]): HTTP/1's work area holds one
//! with the `echo` feature, and none without.

use super::{ChunkWalk, Echoed};

/// The request being echoed, kept until its answer is written: its head, then its body's
/// data, then its trailer lines ([`Echoed::new`] reads the three parts). Set up whole when the
/// head is complete ([`Capture::start`]), so that nothing of an earlier request is read; the
/// buffer keeps its capacity for the next one.
#[derive(Debug, Default)]
pub struct Capture {
    request: Vec<u8>,
    phase: Capturing,
}

/// Whether a request is being echoed.
#[derive(Clone, Copy, Debug, Default)]
enum Capturing {
    #[default]
    Idle,
    /// The request in [`Capture::request`]: its head's length, and a chunked body's walk, its
    /// data then its trailers (`None`: a body by length, or none).
    Request {
        head_len: usize,
        chunks: Option<ChunkWalk>,
    },
}

impl Capture {
    /// Keep `head`, a request's whole head, whose body is `chunked` (else by length, or none).
    pub fn start(&mut self, head: &[u8], chunked: bool) {
        self.request.clear();
        self.request.extend_from_slice(head);
        self.phase = Capturing::Request {
            head_len: head.len(),
            chunks: chunked.then(ChunkWalk::default),
        };
    }

    /// Room for `n` more bytes of the body, taken at once.
    pub fn reserve(&mut self, n: usize) {
        self.request.reserve(n);
    }

    /// Bytes of a body by length, as read.
    pub fn keep_body(&mut self, bytes: &[u8]) {
        self.request.extend_from_slice(bytes);
    }

    /// Bytes of a chunked body the decoder accepted: their data and trailers kept.
    pub fn keep_chunks(&mut self, accepted: &[u8]) {
        if let Capturing::Request {
            chunks: Some(walk), ..
        } = &mut self.phase
        {
            walk.walk(accepted, &mut self.request);
        }
    }

    /// The request kept, read back as the `index`th of its connection.
    pub fn echoed(&self, index: u32) -> Echoed<'_> {
        let (head_len, chunks) = match self.phase {
            Capturing::Request { head_len, chunks } => (head_len, chunks),
            Capturing::Idle => (0, None),
        };
        let body_end = chunks.map_or(self.request.len(), |w| w.body_end());
        Echoed::new(&self.request, head_len, body_end, index)
    }

    /// Drop the request kept (the buffer keeps its capacity).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.request.clear();
        self.phase = Capturing::Idle;
    }

    /// Keep `head` alone, for another protocol to read: the head of a request upgraded to
    /// HTTP/2, which HTTP/2 echoes, records or controls ([`Capture::take_head`]).
    pub fn hold_head(&mut self, head: &[u8]) {
        self.clear();
        self.request.extend_from_slice(head);
    }

    /// The head [`Capture::hold_head`] kept, with its buffer.
    pub fn take_head(&mut self) -> Vec<u8> {
        self.phase = Capturing::Idle;
        std::mem::take(&mut self.request)
    }

    /// The buffer's capacity (what a pool counts).
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.request.capacity()
    }

    /// Give back the buffer.
    pub fn shed(&mut self) {
        self.request = Vec::new();
    }
}
