//! Reads and writes that are not cut short by a signal.
//!
//! A blocking read or write with a socket timeout (`SO_RCVTIMEO`, `SO_SNDTIMEO`) is never
//! restarted by the kernel: when a signal handler runs, or the process is stopped and
//! continued (a debugger, a job-control stop, a frozen CI container), it fails with EINTR,
//! which is neither the peer's end nor a timeout. The tests' reads and writes go through
//! [`ReadSome::read_some`] and [`WriteSome::write_some`], which try again then.

use std::io::{ErrorKind, Read, Result, Write};

/// `read`, again after EINTR.
pub trait ReadSome: Read {
    fn read_some(&mut self, buf: &mut [u8]) -> Result<usize> {
        loop {
            match self.read(buf) {
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                r => return r,
            }
        }
    }
}

impl<R: Read + ?Sized> ReadSome for R {}

/// `write`, again after EINTR.
pub trait WriteSome: Write {
    fn write_some(&mut self, buf: &[u8]) -> Result<usize> {
        loop {
            match self.write(buf) {
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                r => return r,
            }
        }
    }
}

impl<W: Write + ?Sized> WriteSome for W {}
