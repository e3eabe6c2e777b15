//! The frame reader's cases, one per row of the module's table and more.

use super::ErrorCode::*;
use super::*;

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Result<Frame<'_>, FrameError> {
    let h = Header {
        len: payload.len() as u32,
        kind,
        flags,
        stream,
    };
    let bytes = h.encode();
    assert_eq!(Header::parse(&bytes), Some(h));
    Frame::parse(&h, payload, MIN_MAX_FRAME_SIZE)
}

const CONN: Option<u32> = None;

/// What, type, flags, stream, payload, the code, the stream in error.
type Case<'a> = (&'a str, u8, u8, u32, &'a [u8], ErrorCode, Option<u32>);

/// Every rule of the module's table, and its code.
#[test]
fn errors_table() {
    let big = [0u8; MIN_MAX_FRAME_SIZE as usize + 1];
    let cases: &[Case<'_>] = &[
        (
            "DATA too long",
            kind::DATA,
            0,
            1,
            &big,
            FrameSizeError,
            CONN,
        ),
        (
            "HEADERS too long",
            kind::HEADERS,
            0,
            1,
            &big,
            FrameSizeError,
            CONN,
        ),
        ("DATA on 0", kind::DATA, 0, 0, b"x", ProtocolError, CONN),
        (
            "HEADERS on 0",
            kind::HEADERS,
            4,
            0,
            b"\x82",
            ProtocolError,
            CONN,
        ),
        (
            "PRIORITY on 0",
            kind::PRIORITY,
            0,
            0,
            &[0, 0, 0, 1, 0],
            ProtocolError,
            CONN,
        ),
        (
            "RST_STREAM on 0",
            kind::RST_STREAM,
            0,
            0,
            &[0; 4],
            ProtocolError,
            CONN,
        ),
        (
            "CONTINUATION on 0",
            kind::CONTINUATION,
            4,
            0,
            b"",
            ProtocolError,
            CONN,
        ),
        (
            "SETTINGS on 1",
            kind::SETTINGS,
            0,
            1,
            b"",
            ProtocolError,
            CONN,
        ),
        ("PING on 1", kind::PING, 0, 1, &[0; 8], ProtocolError, CONN),
        (
            "GOAWAY on 1",
            kind::GOAWAY,
            0,
            1,
            &[0; 8],
            ProtocolError,
            CONN,
        ),
        (
            "DATA pad = len",
            kind::DATA,
            flag::PADDED,
            1,
            &[4, 0, 0, 0],
            ProtocolError,
            CONN,
        ),
        (
            "DATA pad no byte",
            kind::DATA,
            flag::PADDED,
            1,
            b"",
            ProtocolError,
            CONN,
        ),
        (
            "HEADERS pad > len",
            kind::HEADERS,
            flag::PADDED,
            1,
            &[9, 0x82],
            ProtocolError,
            CONN,
        ),
        (
            "PRIORITY 4 bytes",
            kind::PRIORITY,
            0,
            1,
            &[0; 4],
            FrameSizeError,
            Some(1),
        ),
        (
            "PRIORITY 6 bytes",
            kind::PRIORITY,
            0,
            1,
            &[0; 6],
            FrameSizeError,
            Some(1),
        ),
        (
            "PRIORITY on itself",
            kind::PRIORITY,
            0,
            3,
            &[0, 0, 0, 3, 0],
            ProtocolError,
            Some(3),
        ),
        (
            "HEADERS priority short",
            kind::HEADERS,
            flag::PRIORITY,
            5,
            &[0, 0, 0],
            FrameSizeError,
            CONN,
        ),
        (
            "RST_STREAM 3 bytes",
            kind::RST_STREAM,
            0,
            1,
            &[0; 3],
            FrameSizeError,
            CONN,
        ),
        (
            "WINDOW_UPDATE 5 bytes",
            kind::WINDOW_UPDATE,
            0,
            0,
            &[0; 5],
            FrameSizeError,
            CONN,
        ),
        (
            "PING 7 bytes",
            kind::PING,
            0,
            0,
            &[0; 7],
            FrameSizeError,
            CONN,
        ),
        (
            "GOAWAY 7 bytes",
            kind::GOAWAY,
            0,
            0,
            &[0; 7],
            FrameSizeError,
            CONN,
        ),
        (
            "SETTINGS ACK payload",
            kind::SETTINGS,
            flag::ACK,
            0,
            &[0; 6],
            FrameSizeError,
            CONN,
        ),
        (
            "SETTINGS 5 bytes",
            kind::SETTINGS,
            0,
            0,
            &[0; 5],
            FrameSizeError,
            CONN,
        ),
        (
            "PUSH_PROMISE",
            kind::PUSH_PROMISE,
            4,
            1,
            &[0, 0, 0, 2],
            ProtocolError,
            CONN,
        ),
        (
            "WINDOW_UPDATE 0 conn",
            kind::WINDOW_UPDATE,
            0,
            0,
            &[0; 4],
            ProtocolError,
            CONN,
        ),
        (
            "WINDOW_UPDATE 0 stream",
            kind::WINDOW_UPDATE,
            0,
            7,
            &[0x80, 0, 0, 0],
            ProtocolError,
            Some(7),
        ),
    ];
    for &(what, k, flags, stream, payload, code, on) in cases {
        assert_eq!(
            frame(k, flags, stream, payload),
            Err(FrameError { code, stream: on }),
            "{what}"
        );
    }
}

#[test]
fn frames_read() {
    assert_eq!(
        frame(
            kind::DATA,
            flag::PADDED | flag::END_STREAM,
            1,
            &[2, b'h', b'i', 0, 0]
        ),
        Ok(Frame::Data {
            stream: 1,
            end_stream: true,
            data: b"hi",
            flow_len: 5
        })
    );
    assert_eq!(
        frame(
            kind::HEADERS,
            flag::PADDED | flag::PRIORITY | flag::END_HEADERS,
            3,
            &[1, 0x80, 0, 0, 1, 15, 0x82, 0x84, 0]
        ),
        Ok(Frame::Headers {
            stream: 3,
            end_stream: false,
            end_headers: true,
            fragment: &[0x82, 0x84],
            depends_on_itself: false,
        })
    );
    // Depending on itself: the fragment is kept, for the block to be decoded (§4.3).
    assert_eq!(
        frame(
            kind::HEADERS,
            flag::PRIORITY | flag::END_HEADERS,
            5,
            &[0, 0, 0, 5, 0, 0x82]
        ),
        Ok(Frame::Headers {
            stream: 5,
            end_stream: false,
            end_headers: true,
            fragment: &[0x82],
            depends_on_itself: true,
        })
    );
    assert_eq!(
        frame(kind::PRIORITY, 0, 3, &[0, 0, 0, 1, 0]),
        Ok(Frame::Priority { stream: 3 })
    );
    assert_eq!(
        frame(kind::RST_STREAM, 0, 3, &[0, 0, 0, 8]),
        Ok(Frame::RstStream { stream: 3, code: 8 })
    );
    assert_eq!(
        frame(kind::PING, flag::ACK, 0, b"12345678"),
        Ok(Frame::Ping {
            ack: true,
            data: *b"12345678"
        })
    );
    assert_eq!(
        frame(kind::GOAWAY, 0, 0, &[0x80, 0, 0, 5, 0, 0, 0, 2, b'd']),
        Ok(Frame::GoAway {
            last_stream: 5,
            code: 2
        })
    );
    assert_eq!(
        frame(kind::WINDOW_UPDATE, 0, 0, &[0x80, 0, 1, 0]),
        Ok(Frame::WindowUpdate {
            stream: 0,
            increment: 256
        })
    );
    assert_eq!(
        frame(kind::CONTINUATION, flag::END_HEADERS, 1, b"\x82"),
        Ok(Frame::Continuation {
            stream: 1,
            end_headers: true,
            fragment: b"\x82"
        })
    );
    assert_eq!(
        frame(0xfa, 0xff, 9, b"any"),
        Ok(Frame::Unknown { kind: 0xfa })
    );
    // The reserved bit of a stream identifier is ignored on receipt (§4.1).
    let h = Header::parse(&[0, 0, 0, kind::PING, 0, 0x80, 0, 0, 0]).unwrap();
    assert_eq!(h.stream, 0);
    assert_eq!(Header::parse(&[0; 8]), None);
}

#[test]
fn settings_bounds() {
    fn each(p: &[u8]) -> Result<[u32; 7], FrameError> {
        let mut seen = [u32::MAX; 7];
        Settings(p).each(|id, v| seen[id as usize] = v)?;
        Ok(seen)
    }
    let p = |id: u16, v: u32| {
        let mut b = [0u8; 6];
        b[..2].copy_from_slice(&id.to_be_bytes());
        b[2..].copy_from_slice(&v.to_be_bytes());
        b
    };
    let conn = |code| Err(FrameError { code, stream: None });
    assert_eq!(each(&p(setting::ENABLE_PUSH, 2)), conn(ProtocolError));
    assert_eq!(
        each(&p(setting::INITIAL_WINDOW_SIZE, MAX_WINDOW + 1)),
        conn(FlowControlError)
    );
    assert_eq!(
        each(&p(setting::MAX_FRAME_SIZE, MIN_MAX_FRAME_SIZE - 1)),
        conn(ProtocolError)
    );
    assert_eq!(
        each(&p(setting::MAX_FRAME_SIZE, MAX_MAX_FRAME_SIZE + 1)),
        conn(ProtocolError)
    );
    assert_eq!(
        each(&p(setting::MAX_FRAME_SIZE, MAX_MAX_FRAME_SIZE)).unwrap()[5],
        MAX_MAX_FRAME_SIZE
    );
    assert_eq!(
        each(&p(setting::INITIAL_WINDOW_SIZE, MAX_WINDOW)).unwrap()[4],
        MAX_WINDOW
    );
    assert_eq!(each(&p(setting::ENABLE_PUSH, 1)).unwrap()[2], 1);
    // Unknown parameters are ignored; the last value of a repeated one wins.
    let mut two = [0u8; 18];
    two[..6].copy_from_slice(&p(0x99, 7));
    two[6..12].copy_from_slice(&p(setting::HEADER_TABLE_SIZE, 1));
    two[12..].copy_from_slice(&p(setting::HEADER_TABLE_SIZE, 0));
    assert_eq!(each(&two).unwrap()[1], 0);
}

#[test]
fn preface() {
    assert_eq!(sniff(0, PREFACE), Sniffed::Http2);
    assert_eq!(sniff(0, b"PRI * HT"), Sniffed::Undecided(8));
    assert_eq!(sniff(8, b"TP/2.0\r\n"), Sniffed::Undecided(16));
    assert_eq!(sniff(16, b"\r\nSM\r\n\r\n"), Sniffed::Http2);
    assert_eq!(
        sniff(0, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04"),
        Sniffed::Http2
    );
    assert_eq!(sniff(0, b""), Sniffed::Undecided(0));
    assert_eq!(sniff(0, b"P"), Sniffed::Undecided(1));
    assert_eq!(sniff(1, b"OST / HTTP/1.1\r\n"), Sniffed::Http1);
    assert_eq!(sniff(1, b"U"), Sniffed::Http1);
    assert_eq!(sniff(0, b"PRI * HTTP/2.0\r\n\r\n\r\n"), Sniffed::Http1);
    assert_eq!(sniff(0, b"POST / HTTP/1.1\r\n"), Sniffed::Http1);
    assert_eq!(sniff(9, b"1.1\r\n"), Sniffed::Http1);
    // Every split of the preface in two reads.
    for at in 0..PREFACE.len() {
        assert_eq!(sniff(0, &PREFACE[..at]), Sniffed::Undecided(at));
        assert_eq!(sniff(at, &PREFACE[at..]), Sniffed::Http2, "{at}");
    }
}
