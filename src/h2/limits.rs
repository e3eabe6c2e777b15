//! `--max-body-bytes` per stream, with HTTP/1's meaning: a request whose DATA go past the
//! limit is answered 413 at once (the error's head alone for HEAD), without waiting for its
//! END_STREAM; once the 413 is sent, RST_STREAM NO_ERROR asks the client to stop sending
//! (RFC 9113 §8.1). The rest of its DATA, until then and after (`closed`), is counted
//! against the connection's window and discarded, and its trailers are ignored. The
//! `content-length` field is not read: the limit counts the DATA that came.

use super::{Env, State};
use crate::frame::{ErrorCode, kind};

impl State {
    /// Stream `i`'s body went past `--max-body-bytes`: answer 413.
    #[cold]
    #[inline(never)]
    pub(super) fn body_too_large(&mut self, i: usize, env: &mut Env<'_>) {
        self.streams[i].error = 413;
        self.answer(i, env);
    }

    /// DATA on a stream answered 413 before its body ended: discarded, no error.
    pub(super) fn refused_body(&self, stream: u32) -> bool {
        self.streams.iter().any(|s| s.id == stream && s.error != 0)
    }

    /// A 413's stream is answered: the client need send no more of its body.
    #[cold]
    pub(super) fn end_refused(&mut self, stream: u32) {
        self.reset_by_us.add(stream);
        self.control(
            kind::RST_STREAM,
            0,
            stream,
            &(ErrorCode::NoError as u32).to_be_bytes(),
        );
    }
}
