//! TLS (the `tls` feature): a `rustls::ServerConnection` between the loop's socket calls and
//! the connection. A read is one `read(2)` into rustls's record buffer, the records it
//! completes decrypted, and their plaintext copied into the loop's buffer; a write encrypts a
//! first part of the connection's output into rustls's outgoing buffer and sends what is
//! there with one `writev(2)`. The handshake runs inside those calls: a read that brought
//! only handshake bytes returns `WouldBlock` (nothing for the connection yet), and
//! `TlsConn`'s `wants_write` makes the loop send the server's flight. The connection above is
//! HTTP/1 or HTTP/2 as over TCP: a client that negotiated `h2` by ALPN (RFC 9113 §3.2) starts
//! with the HTTP/2 preface, which the loop recognises as it does for prior knowledge.
//!
//! The certificates: a chain and key from PEM files, or, when none is given, a CA and a leaf
//! generated at start ([`certs::generate`]), the CA's PEM written for the clients to trust.

mod certs;
mod config;
mod fault;

pub use certs::{CASES, Generated, check_name, generate};
pub use config::{Configs, Identity, case_lines, check_case, server_config};
pub use fault::{Drip, FAULTS, Fault};

use config::Choice;

use rustls::server::Acceptor;
use rustls::{ServerConfig, ServerConnection};
use socket2::Socket;
use std::io::{self, Read, Write};
use std::sync::Arc;

/// One TLS connection's state: boxed, outside the slot (a few KiB once buffers are grown).
pub struct TlsConn {
    state: State,
    /// The `drip` fault's pacing of the server's flight, until the handshake is done.
    drip: Option<Pacing>,
}

/// A dripped flight: a piece of `drip.size` bytes, then a pause.
struct Pacing {
    drip: Drip,
    at: Pace,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pace {
    /// The next piece may leave.
    Ready,
    /// A piece left: the pause starts at the loop's next look at the clock.
    Sent,
    /// The next piece leaves at this instant of the loop's clock, µs.
    Until(u64),
}

enum State {
    /// The first bytes, until they hold a whole ClientHello: its SNI chooses a handshake
    /// fault, or the configuration (a case's or the default one).
    Hello(Vec<u8>, Arc<Configs>),
    /// A handshake fault's stall: what the client sends is read and dropped, until the
    /// header timeout closes the connection.
    Stalled,
    /// The ClientHello handed to rustls, before rustls has it whole, and the configuration
    /// chosen for it.
    Accepting(Acceptor, Arc<ServerConfig>),
    /// The handshake under way or done.
    Conn(ServerConnection),
}

/// The socket as rustls's `Read` and `Write`: one system call each.
struct Wire<'a>(&'a Socket);

impl Read for Wire<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self.0).read(buf)
    }
}

impl Write for Wire<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.send(buf)
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.send_vectored(bufs)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TlsConn {
    /// A connection just accepted, before its ClientHello.
    pub fn new(configs: &Arc<Configs>) -> io::Result<Box<TlsConn>> {
        Ok(Box::new(TlsConn {
            state: State::Hello(Vec::new(), Arc::clone(configs)),
            drip: None,
        }))
    }

    /// Before the handshake: read the ClientHello, then act on it. `WouldBlock`: nothing for
    /// the connection yet.
    #[cold]
    fn before(&mut self, sock: &Socket) -> io::Result<usize> {
        match &mut self.state {
            State::Hello(..) => self.hello(sock),
            State::Stalled => {
                let mut drop = [0; 1024];
                match (&*sock).read(&mut drop)? {
                    0 => Ok(0),
                    _ => Err(io::ErrorKind::WouldBlock.into()),
                }
            }
            State::Accepting(acceptor, _) => {
                if acceptor.read_tls(&mut Wire(sock))? == 0 {
                    return Ok(0);
                }
                self.accept(sock)
            }
            State::Conn(_) => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    /// The first bytes, read until they hold a whole ClientHello; then its SNI chooses a
    /// fault, or rustls is handed the bytes.
    fn hello(&mut self, sock: &Socket) -> io::Result<usize> {
        use super::client_hello::{Hello, MAX_HELLO, read};
        let State::Hello(raw, configs) = &mut self.state else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let mut chunk = [0; 4096];
        let n = (&*sock).read(&mut chunk)?;
        if n == 0 {
            return Ok(0);
        }
        raw.extend_from_slice(&chunk[..n]);
        let sni = match read(raw) {
            // Bounded per connection: past 64 KiB (a ClientHello is a few hundred bytes to a
            // few KiB) rustls is handed what came and refuses it.
            Hello::Incomplete if raw.len() <= MAX_HELLO => {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            Hello::Incomplete | Hello::Invalid => None,
            Hello::Sni(sni) => sni,
        };
        let config = match configs.choose(sni.as_deref()) {
            Choice::Fault(fault) => return self.fault(sock, fault),
            Choice::Handshake(config) => config,
            Choice::Dripped(drip, config) => {
                self.drip = Some(Pacing {
                    drip,
                    at: Pace::Ready,
                });
                config
            }
        };
        let raw = std::mem::take(raw);
        let mut acceptor = Acceptor::default();
        let mut rest = &raw[..];
        // rustls's buffer takes a ClientHello whole; what it does not take is past its
        // limits, and its refusal follows.
        while !rest.is_empty() && matches!(acceptor.read_tls(&mut rest), Ok(n) if n > 0) {}
        self.state = State::Accepting(acceptor, config);
        self.accept(sock)
    }

    /// A handshake fault after the ClientHello: its bytes, then the close (the loop's, on
    /// the error returned); or the stall.
    fn fault(&mut self, sock: &Socket, fault: Fault) -> io::Result<usize> {
        const HTTP_400: &[u8] = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\
            Content-Length: 33\r\nConnection: close\r\n\r\nThis port speaks HTTP, not TLS.\n\n";
        let garbage: [u8; 64] = std::array::from_fn(|i| (i as u8).wrapping_mul(151) ^ 0x5a);
        let alert;
        let overflow;
        let bytes: &[u8] = match fault {
            Fault::Stall => {
                self.state = State::Stalled;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            // A TLS 1.2 record header (the version a TLS 1.3 peer writes too), level fatal.
            Fault::Alert(code) => {
                alert = [21, 3, 3, 0, 2, 2, code];
                &alert
            }
            Fault::Garbage => &garbage,
            Fault::Http400 => HTTP_400,
            Fault::Close => &[],
            Fault::Reset => {
                // SO_LINGER 0: the close sends an RST.
                sock.set_linger(Some(std::time::Duration::ZERO))?;
                &[]
            }
            // A handshake record announcing 122 bytes, and the first 9 of a ServerHello.
            Fault::MidRecord(reset) => {
                if reset {
                    sock.set_linger(Some(std::time::Duration::ZERO))?;
                }
                &[22, 3, 3, 0, 122, 2, 0, 0, 118, 3, 3, 0x2a, 0x2a]
            }
            // 0x4101 = 2^14 + 257, and all it announces: a client that checks the length
            // only once the record is whole (OpenSSL) sees it too.
            Fault::RecordOverflow => {
                overflow = [&[22, 3, 3, 0x41, 0x01][..], &[0; 0x4101]].concat();
                &overflow
            }
            // A handshake ([`Choice::Dripped`]), not a fault of these bytes.
            Fault::Drip(_) => &[],
        };
        // Into an empty socket buffer: sent whole (a loopback buffer takes 16 KiB at once;
        // a part cut short is the fault's way too).
        let mut sent = 0;
        while sent < bytes.len() {
            match sock.send(&bytes[sent..]) {
                Ok(n) if n > 0 => sent += n,
                _ => break,
            }
        }
        Err(io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "a handshake fault",
        ))
    }

    /// rustls's Acceptor has bytes: once they are a whole ClientHello, start the handshake
    /// with the configuration its SNI chooses.
    fn accept(&mut self, sock: &Socket) -> io::Result<usize> {
        let State::Accepting(acceptor, config) = &mut self.state else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let refused = match acceptor.accept() {
            Ok(None) => return Err(io::ErrorKind::WouldBlock.into()),
            Ok(Some(accepted)) => {
                match accepted.into_connection(Arc::clone(config)) {
                    Ok(conn) => {
                        // The server's flight is queued: `wants_write` sends it.
                        self.state = State::Conn(conn);
                        return Err(io::ErrorKind::WouldBlock.into());
                    }
                    Err(refused) => refused,
                }
            }
            Err(refused) => refused,
        };
        // The alert that says why (RFC 8446 §6.2), then the close.
        let (e, mut alert) = refused;
        let _ = alert.write(&mut Wire(sock));
        Err(io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

impl super::Io for TlsConn {
    fn alpn(&self) -> Option<&[u8]> {
        match &self.state {
            State::Conn(conn) => conn.alpn_protocol(),
            _ => None,
        }
    }

    fn read(&mut self, sock: &Socket, buf: &mut [u8]) -> io::Result<usize> {
        let State::Conn(conn) = &mut self.state else {
            return self.before(sock);
        };
        let got = conn.read_tls(&mut Wire(sock))?;
        if got == 0 {
            return Ok(0);
        }
        if let Err(e) = conn.process_new_packets() {
            // rustls queued the alert that says why (RFC 8446 §6.2): send it, then close.
            let _ = conn.write_tls(&mut Wire(sock));
            return Err(io::Error::new(io::ErrorKind::InvalidData, e));
        }
        // Ok(0): the peer's close_notify, its end of input. One read of at most 4 KiB of
        // records leaves less plaintext than the loop's buffer holds: nothing stays behind.
        conn.reader().read(buf)
    }

    fn write(&mut self, sock: &Socket, data: &[u8]) -> io::Result<usize> {
        let State::Conn(conn) = &mut self.state else {
            // Nothing to send before the ClientHello: the connection has had no request.
            return match data.is_empty() {
                true => Ok(0),
                false => Err(io::ErrorKind::WouldBlock.into()),
            };
        };
        if let Some(p) = &mut self.drip {
            if conn.is_handshaking() {
                return drip_piece(conn, sock, p);
            }
            // The flight is sent, and the handshake done: no pacing after it.
            self.drip = None;
        }
        if conn.wants_write() {
            conn.write_tls(&mut Wire(sock))?;
            if conn.wants_write() {
                // The socket took part of the records already made: no more until it has room.
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
        if data.is_empty() {
            return Ok(0);
        }
        // Encrypted into rustls's outgoing buffer (up to its limit), then sent: the part not
        // sent now is the transport's own (`wants_write`), and the loop polls for room.
        let n = conn.writer().write(data)?;
        match conn.write_tls(&mut Wire(sock)) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        Ok(n)
    }

    fn wants_read(&self) -> bool {
        match &self.state {
            State::Hello(..) | State::Stalled | State::Accepting(..) => true,
            State::Conn(conn) => conn.is_handshaking(),
        }
    }

    fn wants_write(&self) -> bool {
        match &self.state {
            State::Hello(..) | State::Stalled | State::Accepting(..) => false,
            State::Conn(conn) => {
                conn.wants_write() && self.drip.as_ref().is_none_or(|p| p.at == Pace::Ready)
            }
        }
    }

    fn wake_at(&mut self, now_us: u64) -> Option<u64> {
        let p = self.drip.as_mut()?;
        match p.at {
            Pace::Ready => None,
            Pace::Sent => {
                let at = now_us + u64::from(p.drip.every_ms) * 1000;
                p.at = Pace::Until(at);
                Some(at)
            }
            Pace::Until(at) => Some(at),
        }
    }

    fn on_wake(&mut self, now_us: u64) {
        if let Some(p) = &mut self.drip {
            if matches!(p.at, Pace::Until(at) if now_us >= at) {
                p.at = Pace::Ready;
            }
        }
    }

    fn close_notify(&mut self, sock: &Socket) {
        if let State::Conn(conn) = &mut self.state {
            if self.drip.is_some() && conn.is_handshaking() {
                // A dripped flight cut by the header timeout: the rest of it, and the
                // alert after it, stay unsent (the client sees the drip stop, then the FIN).
                return;
            }
            // A `Connection: close` answer, HTTP/1.0's, an HTTP/2 GOAWAY: OpenSSL 3 reports
            // a close without it as an error (`unexpected eof while reading`), and a client
            // that reads to the end cannot tell a whole answer from a cut one.
            conn.send_close_notify();
            let _ = conn.write_tls(&mut Wire(sock));
        }
    }

    fn shutdown(&mut self, sock: &Socket) -> io::Result<()> {
        if let State::Conn(conn) = &mut self.state {
            // close_notify before the FIN (RFC 8446 §6.1): the peer can tell the end from a
            // cut.
            conn.send_close_notify();
            let _ = conn.write_tls(&mut Wire(sock));
        }
        sock.shutdown(std::net::Shutdown::Write)
    }
}

/// One piece of a dripped flight: at most `p.drip.size` bytes of what rustls has made, sent
/// when the pause is over; then the pause. `WouldBlock` always: nothing of the connection's
/// own goes out during the handshake.
#[cold]
fn drip_piece(conn: &mut ServerConnection, sock: &Socket, p: &mut Pacing) -> io::Result<usize> {
    if p.at == Pace::Ready && conn.wants_write() {
        let mut left = usize::from(p.drip.size);
        while left > 0 && conn.wants_write() {
            match conn.write_tls(&mut Capped(sock, left)) {
                Ok(0) => break,
                Ok(n) => left -= n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if left < usize::from(p.drip.size) {
            p.at = Pace::Sent;
        }
    }
    Err(io::ErrorKind::WouldBlock.into())
}

/// The socket as rustls's `Write`, taking at most this many bytes.
struct Capped<'a>(&'a Socket, usize);

impl Write for Capped<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.send(&buf[..buf.len().min(self.1)])
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        // rustls's records, one slice each: the first that is not empty, cut to the cap.
        match bufs.iter().find(|b| !b.is_empty()) {
            Some(b) => self.write(b),
            None => Ok(0),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
