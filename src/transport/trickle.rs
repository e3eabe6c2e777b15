//! The test transport: plain bytes, handed to the connection one at a time and sent a few at a
//! time, so that every boundary a real network may cut at is crossed on every conversation.
//! The socket is polled level-triggered: the bytes left in it wake the loop again.

use socket2::Socket;
use std::io::{self, Read};
use std::num::NonZeroU8;

/// One byte of the socket's input.
pub(super) fn read(sock: &Socket, buf: &mut [u8]) -> io::Result<usize> {
    let one = buf.len().min(1);
    (&*sock).read(&mut buf[..one])
}

/// At most `write_max` bytes of `data`.
pub(super) fn write(sock: &Socket, data: &[u8], write_max: NonZeroU8) -> io::Result<usize> {
    sock.send(&data[..data.len().min(usize::from(write_max.get()))])
}
