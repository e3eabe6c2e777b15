//! How a connection's bytes cross its socket: chosen at accept, held in the connection's slot,
//! called by the loop for every read, write and shutdown. The loop owns the socket and the
//! buffers; a transport only moves (and, for TLS, will transform) the bytes between them, as
//! rustls's unbuffered API does: no thread, no buffer of the loop's own kind, no knowledge of
//! the protocol above. HTTP/1 and HTTP/2 see plain bytes whatever the transport.
//!
//! [`Transport::Plain`] is TCP and unix sockets alike, and the only variant the server is
//! built with: the enum is then empty of data (a zero-sized value in the slot) and every call
//! is the socket call itself, inlined. A transport that must act on its own (a handshake, a
//! key update, a `close_notify`) says so through [`Transport::wants_read`] and
//! [`Transport::wants_write`], which the loop adds to what the connection wants; the plain
//! one never does.
//!
//! TLS (the `tls` feature, `tls`) is not a variant: its state is boxed beside the slot, and
//! the loop drives a TLS connection's event through the same code compiled for
//! [`tls::TlsConn`], both through [`Io`]; the plain path tests one flag per event.
//!
//! The tests (and the `check` feature) add a second transport, `Transport::Trickle`
//! (`trickle`): the connection gets its input one byte a read and its output leaves a few
//! bytes a write, and must answer byte for byte as over the plain one.

#[cfg(feature = "tls")]
pub mod client_hello;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(any(test, feature = "check"))]
mod trickle;

use socket2::Socket;
use std::io::{self, Read};
use std::net::Shutdown;

/// A connection's transport; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// TCP or a unix socket: the bytes as they are.
    Plain,
    /// For the tests: the bytes as they are, one a read, at most `write_max` a write.
    #[cfg(any(test, feature = "check"))]
    #[doc(hidden)]
    Trickle {
        /// The most bytes one write sends.
        write_max: std::num::NonZeroU8,
    },
}

impl Transport {
    /// Read what the connection is to receive into `buf`. `Ok(0)`: the peer's end of input.
    /// A transport that read only bytes of its own (a handshake's) returns `WouldBlock`:
    /// nothing for the connection yet, and not an end.
    #[inline(always)]
    pub fn read(&mut self, sock: &Socket, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Plain => (&*sock).read(buf),
            #[cfg(any(test, feature = "check"))]
            Transport::Trickle { .. } => trickle::read(sock, buf),
        }
    }

    /// Send a first part of `data`, the connection's output; returns how much of it was
    /// taken (the rest is offered again). `data` may be empty when only
    /// [`Transport::wants_write`].
    #[inline(always)]
    pub fn write(&mut self, sock: &Socket, data: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain => sock.send(data),
            #[cfg(any(test, feature = "check"))]
            Transport::Trickle { write_max } => trickle::write(sock, data, *write_max),
        }
    }

    /// The transport must read before it can carry the connection's bytes (a handshake under
    /// way): the socket is polled for reading whatever the connection wants.
    #[inline(always)]
    pub fn wants_read(&self) -> bool {
        false
    }

    /// The transport has bytes of its own to send (a handshake's, a `close_notify`): the
    /// loop calls [`Transport::write`] even with no output, and polls for writing until it
    /// has sent them.
    #[inline(always)]
    pub fn wants_write(&self) -> bool {
        false
    }

    /// The connection's last byte was written: end the write side (the peer reads a FIN
    /// after the answer; a TLS transport would send its `close_notify` first).
    #[inline(always)]
    pub fn shutdown(&mut self, sock: &Socket) -> io::Result<()> {
        sock.shutdown(Shutdown::Write)
    }
}

/// What the loop calls on a connection's transport, for each event: [`Transport`]'s
/// methods, or a TLS connection's (the `tls` feature).
pub trait Io {
    /// [`Transport::read`].
    fn read(&mut self, sock: &Socket, buf: &mut [u8]) -> io::Result<usize>;
    /// [`Transport::write`].
    fn write(&mut self, sock: &Socket, data: &[u8]) -> io::Result<usize>;
    /// [`Transport::wants_read`].
    fn wants_read(&self) -> bool;
    /// [`Transport::wants_write`].
    fn wants_write(&self) -> bool;
    /// [`Transport::shutdown`].
    fn shutdown(&mut self, sock: &Socket) -> io::Result<()>;
    /// The connection ends without lingering, its output written: a TLS transport sends its
    /// `close_notify` (RFC 8446 §6.1) so that the peer can tell the end from a truncation;
    /// bytes as they are need nothing before the close.
    #[inline(always)]
    fn close_notify(&mut self, _sock: &Socket) {}
    /// The protocol the transport negotiated for the connection (TLS's ALPN, RFC 7301), if
    /// it negotiated one.
    fn alpn(&self) -> Option<&[u8]> {
        None
    }
    /// When the transport wants the loop to wake the connection (a paced handshake's next
    /// piece), `now_us` being the loop's clock: the loop sleeps until the earlier of this and
    /// the connection's own deadline. Bytes as they are never ask.
    #[inline(always)]
    fn wake_at(&mut self, _now_us: u64) -> Option<u64> {
        None
    }
    /// The connection's deadline came (the transport's or its own), at `now_us`.
    #[inline(always)]
    fn on_wake(&mut self, _now_us: u64) {}
}

impl Io for Transport {
    #[inline(always)]
    fn read(&mut self, sock: &Socket, buf: &mut [u8]) -> io::Result<usize> {
        Transport::read(self, sock, buf)
    }
    #[inline(always)]
    fn write(&mut self, sock: &Socket, data: &[u8]) -> io::Result<usize> {
        Transport::write(self, sock, data)
    }
    #[inline(always)]
    fn wants_read(&self) -> bool {
        Transport::wants_read(self)
    }
    #[inline(always)]
    fn wants_write(&self) -> bool {
        Transport::wants_write(self)
    }
    #[inline(always)]
    fn shutdown(&mut self, sock: &Socket) -> io::Result<()> {
        Transport::shutdown(self, sock)
    }
}
