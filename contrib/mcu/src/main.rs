//! canned's request parser on a microcontroller: a Cortex-M4F with no operating system, no
//! allocator and no `std`, as on the MPS2 AN386 board that `qemu-system-arm` emulates.
//!
//! It feeds a fixed set of requests to `canned::parser` and `canned::chunked` the way bytes
//! arrive from a serial line or a small network stack (a few bytes per call), prints each
//! outcome through semihosting, then the peak stack use, and exits with success only if every
//! outcome is the expected one. A mismatch, a panic or a hard fault exits with failure, so
//! `qemu-system-arm ... -semihosting-config enable=on,target=native` returns non-zero.
#![no_std]
#![no_main]

use canned::chunked::ChunkedDecoder;
use canned::parser::{Error, Framing, Limits, Parser, Status};
use core::fmt::{self, Write};
use cortex_m_rt::{ExceptionFrame, entry, exception};
use cortex_m_semihosting::{debug, hio};

/// Bytes handed to the parser per call: small, as from a UART or a TCP segment of a tiny stack.
const PIECE: usize = 7;

/// What became of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// A complete head, and its body read to the end.
    Request {
        method: &'static [u8],
        path: &'static [u8],
        keep_alive: bool,
        body: Body,
    },
    /// Rejected: the error decides the status code (`Error::status`).
    Rejected(Error),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    None,
    /// Content-Length bytes.
    Length(u64),
    /// A chunked body: bytes it took on the wire, chunk lines and trailers included.
    Chunked {
        wire_bytes: usize,
    },
}

struct Case {
    name: &'static str,
    input: &'static [u8],
    expect: Outcome,
}

const CASES: &[Case] = &[
    Case {
        name: "minimal GET",
        input: b"GET / HTTP/1.1\r\nHost: mcu\r\n\r\n",
        expect: Outcome::Request {
            method: b"GET",
            path: b"/",
            keep_alive: true,
            body: Body::None,
        },
    },
    Case {
        name: "HEAD, HTTP/1.0 keep-alive, query",
        input: b"HEAD /status?verbose=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        expect: Outcome::Request {
            method: b"HEAD",
            path: b"/status",
            keep_alive: true,
            body: Body::None,
        },
    },
    Case {
        name: "POST with Content-Length",
        input: b"POST /config HTTP/1.1\r\nHost: mcu\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{\"led\":\"on\"}\n",
        expect: Outcome::Request {
            method: b"POST",
            path: b"/config",
            keep_alive: false,
            body: Body::Length(13),
        },
    },
    Case {
        name: "chunked upload with an extension and a trailer",
        input: b"PUT /firmware HTTP/1.1\r\nHost: mcu\r\nTransfer-Encoding: chunked\r\n\r\n\
                 5\r\nhello\r\n6;part=2\r\n world\r\n0\r\nChecksum: 1f\r\n\r\n",
        expect: Outcome::Request {
            method: b"PUT",
            path: b"/firmware",
            keep_alive: true,
            body: Body::Chunked { wire_bytes: 47 },
        },
    },
    Case {
        name: "bad request: space before the colon",
        input: b"GET / HTTP/1.1\r\nHost : mcu\r\n\r\n",
        expect: Outcome::Rejected(Error::InvalidHeaderName),
    },
    Case {
        name: "smuggling: Content-Length with Transfer-Encoding",
        input: b"POST / HTTP/1.1\r\nHost: mcu\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        expect: Outcome::Rejected(Error::ContentLengthWithTransferEncoding),
    },
    Case {
        name: "bad chunk size",
        input: b"POST / HTTP/1.1\r\nHost: mcu\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        expect: Outcome::Rejected(Error::InvalidChunkSize),
    },
    Case {
        name: "HTTP/2.0 on the request line",
        input: b"GET / HTTP/2.0\r\nHost: mcu\r\n\r\n",
        expect: Outcome::Rejected(Error::UnsupportedVersion),
    },
];

/// The parser's entry point, kept out of line so that the parser's code is this one symbol and
/// its size can be read from the ELF (`nm -S`): with LTO everything else inlines into `main`.
#[inline(never)]
fn parse_head<'b>(parser: &mut Parser, received: &'b [u8]) -> Result<Status<'b>, Error> {
    parser.parse(received)
}

/// The chunked decoder's entry point, out of line for the same reason.
#[inline(never)]
fn decode_body(decoder: &mut ChunkedDecoder, piece: &[u8]) -> Result<usize, Error> {
    Ok(decoder.decode(piece)?.consumed)
}

/// Parse one request, handing the parser `PIECE` more bytes per call, then walk its body.
fn run(input: &'static [u8]) -> Result<Outcome, Error> {
    let mut parser = Parser::new(Limits {
        max_head: 1024,
        max_headers: 16,
    });
    let mut received = 0;
    let request = loop {
        received = (received + PIECE).min(input.len());
        match parse_head(&mut parser, &input[..received])? {
            Status::Complete(request) => break request,
            Status::Partial if received < input.len() => continue,
            Status::Partial => panic!("input ends inside the head"),
        }
    };
    let body_bytes = &input[request.head_len..];
    let body = match request.framing {
        Framing::None => Body::None,
        Framing::Length(n) => {
            assert_eq!(
                n,
                body_bytes.len() as u64,
                "Content-Length against the input"
            );
            Body::Length(n)
        }
        Framing::Chunked => {
            let mut decoder = ChunkedDecoder::new();
            let mut wire_bytes = 0;
            for piece in body_bytes.chunks(PIECE) {
                wire_bytes += decode_body(&mut decoder, piece)?;
            }
            assert!(decoder.is_done(), "input ends inside the chunked body");
            Body::Chunked { wire_bytes }
        }
    };
    Ok(Outcome::Request {
        method: request.method,
        path: request.path,
        keep_alive: request.keep_alive,
        body,
    })
}

fn text(bytes: &[u8]) -> &str {
    core::str::from_utf8(bytes).unwrap_or("(not UTF-8)")
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Outcome::Request {
                method,
                path,
                keep_alive,
                body,
            } => {
                let connection = if keep_alive { "keep-alive" } else { "close" };
                write!(f, "{} {} ({connection}), ", text(method), text(path))?;
                match body {
                    Body::None => write!(f, "no body"),
                    Body::Length(n) => write!(f, "body of {n} bytes"),
                    Body::Chunked { wire_bytes } => {
                        write!(f, "chunked body of {wire_bytes} bytes on the wire")
                    }
                }
            }
            Outcome::Rejected(error) => write!(f, "rejected, {} {}", error.status(), error.name()),
        }
    }
}

/// One line on the host's standard output. Failures to print are ignored: the exit status,
/// not the text, says whether the run passed, and the panic handler prints through this too.
fn say(line: fmt::Arguments) {
    if let Ok(mut out) = hio::hstdout() {
        let _ = out.write_fmt(line);
        let _ = out.write_str("\n");
    }
}

macro_rules! say {
    ($($arg:tt)*) => {
        say(format_args!($($arg)*))
    };
}

#[entry]
fn main() -> ! {
    stack::paint();
    let mut matched = 0;
    for case in CASES {
        let outcome = run(case.input).unwrap_or_else(Outcome::Rejected);
        if outcome == case.expect {
            matched += 1;
            say!("ok       {}: {outcome}", case.name);
        } else {
            say!("MISMATCH {}: {outcome}", case.name);
            say!("         expected: {}", case.expect);
        }
    }
    say!("stack: {} bytes at most", stack::peak_bytes());
    say!("canned-mcu: {matched} of {} cases as expected", CASES.len());
    exit(if matched == CASES.len() {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    })
}

/// End the program with a status the host sees (semihosting SYS_EXIT: qemu exits 0 for success,
/// 1 otherwise). The call does not return under an emulator or a debugger.
fn exit(code: debug::ExitStatus) -> ! {
    debug::exit(code);
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    say!("canned-mcu: panic: {info}");
    exit(debug::EXIT_FAILURE)
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    say!("canned-mcu: hard fault at pc {:#010x}", frame.pc());
    exit(debug::EXIT_FAILURE)
}

/// Peak stack use, measured by painting the free stack with a pattern before the work and
/// finding the deepest word overwritten after it. The RAM figure that matters here: the parser
/// and decoder keep no statics, so a program's static RAM is its own.
mod stack {
    const PAINT: u32 = 0xC0FF_EE00;
    /// Left untouched below the painting function's own stack pointer.
    const MARGIN: usize = 256;
    /// How much stack is painted (and so the most that can be measured).
    const DEPTH: usize = 16 * 1024;

    unsafe extern "C" {
        /// Top of the stack (cortex-m-rt's link.x).
        static _stack_start: u32;
        /// End of .bss and .uninit: the stack must not grow below it (cortex-m-rt's link.x).
        static __sheap: u32;
    }

    fn bounds() -> (usize, usize) {
        let top = &raw const _stack_start as usize;
        let floor = (&raw const __sheap as usize).max(top - DEPTH);
        (floor, top)
    }

    #[inline(never)]
    pub fn paint() {
        let sp: usize;
        // SAFETY: reads the stack pointer register; no memory is touched.
        unsafe { core::arch::asm!("mov {}, sp", out(reg) sp) };
        let (floor, _) = bounds();
        let mut at = floor;
        while at + MARGIN < sp {
            // SAFETY: `at` lies between the end of the statics and MARGIN bytes below this
            // function's stack pointer: free stack that nothing holds a reference into, and
            // aligned (both ends are word-aligned by link.x, steps are one word).
            unsafe { core::ptr::write_volatile(at as *mut u32, PAINT) };
            at += 4;
        }
    }

    pub fn peak_bytes() -> usize {
        let (floor, top) = bounds();
        let mut at = floor;
        // SAFETY: the same words `paint` wrote, read back; nothing else owns them.
        while at < top && unsafe { core::ptr::read_volatile(at as *const u32) } == PAINT {
            at += 4;
        }
        top - at
    }
}
