//! The echo's unit tests: the captured request read back, the chunk walk under every split,
//! base64 against RFC 4648's vectors, and each format's bytes and measured length.

use super::render::{base64_into, uuid_v4};
use super::{ChunkWalk, EchoFormat, Echoed, path_and_query, render, rendered_len};
use crate::chunked::ChunkedDecoder;

fn rendered(format: EchoFormat, e: &Echoed<'_>) -> String {
    let mut out = Vec::new();
    render(format, e, &mut out);
    assert_eq!(out.len(), rendered_len(format, e), "measured length");
    String::from_utf8(out).unwrap()
}

#[test]
fn base64_matches_rfc_4648_vectors() {
    // RFC 4648 §10.
    for (plain, encoded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        let mut out = Vec::new();
        base64_into(&mut out, plain.as_bytes());
        assert_eq!(out, encoded.as_bytes(), "{plain:?}");
    }
    // Past the encoder's stack buffer, and every byte value.
    let all: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    let mut out = Vec::new();
    base64_into(&mut out, &all);
    assert_eq!(out.len(), 5000usize.div_ceil(3) * 4);
    assert!(out.starts_with(b"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKiss"));
    // 5000 = 3 * 1666 + 2: one pad.
    assert!(out.ends_with(b"=") && !out.ends_with(b"=="));
}

#[test]
fn the_head_reads_back_as_parsed() {
    let head = b"\r\nGET /a?b=c HTTP/1.1\r\nHost: h\r\nX-Pad:  \t v a l \t \r\nEmpty:\r\n\r\n";
    let e = Echoed::new(head, head.len(), head.len(), 3);
    assert_eq!(
        e.request_line(),
        (&b"GET"[..], &b"/a?b=c"[..], &b"HTTP/1.1"[..])
    );
    let fields: Vec<_> = e.headers().collect();
    assert_eq!(
        fields,
        [
            (&b"Host"[..], &b"h"[..]),
            (b"X-Pad", b"v a l"),
            (b"Empty", b""),
        ]
    );
    assert_eq!(e.body(), b"");
    assert_eq!(e.trailers().count(), 0);
    assert_eq!(e.index(), 3);
}

/// A target, its path and its query.
type TargetCase = (&'static [u8], &'static [u8], Option<&'static [u8]>);

#[test]
fn path_and_query_of_each_target_form() {
    let table: [TargetCase; 8] = [
        (b"/", b"/", None),
        (b"/a/b", b"/a/b", None),
        (b"/a?", b"/a", Some(b"")),
        (b"/a?x=1&y", b"/a", Some(b"x=1&y")),
        (b"http://h", b"/", None),
        (b"http://h:80/p?q", b"/p", Some(b"q")),
        (b"http://h?q", b"/", Some(b"q")),
        (b"*", b"", None),
    ];
    for (target, path, query) in table {
        assert_eq!(path_and_query(target), (path, query), "{target:?}");
    }
}

/// A chunked body, its data and its trailer lines, walked in every split of two pieces (as
/// the decoder consumed them) and byte by byte.
#[test]
fn the_chunk_walk_keeps_data_and_trailers_whatever_the_split() {
    let body: &[u8] =
        b"3;ext=\"a;b\"\r\nabc\r\nA \t;x\r\n0123456789\r\n1\r\n\xff\r\n00;end\r\nT: 1\r\nU:x \r\n\r\n";
    let data: &[u8] = b"abc0123456789\xff";
    let trailers: &[u8] = b"T: 1\r\nU:x \r\n";
    let walk_in = |pieces: &[&[u8]]| {
        let mut d = ChunkedDecoder::new();
        let mut w = ChunkWalk::default();
        let mut out = b"HEAD".to_vec();
        // The decoder takes no call after the body's end, not even an empty one.
        for piece in pieces.iter().filter(|p| !p.is_empty()) {
            let p = d.decode(piece).unwrap();
            assert_eq!(p.consumed, piece.len());
            w.walk(&piece[..p.consumed], &mut out);
        }
        assert!(d.is_done() && w.is_done());
        let end = w.body_end();
        assert_eq!(&out[4..end], data);
        assert_eq!(&out[end..], trailers);
    };
    for split in 0..=body.len() {
        let (a, b) = body.split_at(split);
        walk_in(&[a, b]);
    }
    let bytes: Vec<&[u8]> = body.chunks(1).collect();
    walk_in(&bytes);
}

fn sample() -> Vec<u8> {
    let mut capture =
        b"POST /p?q=\"1\" HTTP/1.1\r\nHost: h\r\nX-Bin: caf\xc3\xa9 \x80\r\n\r\n".to_vec();
    capture.extend_from_slice(b"line\n\"tab\"\t\\ \x01");
    capture.extend_from_slice(b"Checksum: ab\r\n");
    capture
}

#[test]
fn json_escapes_text_and_gives_other_bytes_as_base64() {
    let capture = sample();
    let head_len = capture.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let e = Echoed::new(&capture, head_len, head_len + 14, 2);
    assert_eq!(
        rendered(EchoFormat::Json, &e),
        concat!(
            r#"{"method":"POST","target":"/p?q=\"1\"","path":"/p","query":"q=\"1\"","#,
            r#""version":"HTTP/1.1","headers":[{"name":"Host","value":"h"},"#,
            r#"{"name":"X-Bin","value_b64":"Y2Fmw6kggA=="}],"#,
            r#""body":"line\n\"tab\"\t\\ \u0001","#,
            r#""trailers":[{"name":"Checksum","value":"ab"}],"request_index":2,"#,
            r#""client":null,"local":null}"#,
            "\n"
        )
    );
}

#[test]
fn garden_gives_every_string_as_base64() {
    let capture = sample();
    let head_len = capture.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let e = Echoed::new(&capture, head_len, head_len + 14, 2);
    assert_eq!(
        rendered(EchoFormat::Garden, &e),
        concat!(
            r#"{"method":"UE9TVA==","version":"MS4x","uri":"L3A/cT0iMSI=","#,
            r#""headers":[["SG9zdA==","aA=="],["WC1CaW4=","Y2Fmw6kggA=="]],"#,
            r#""body":"bGluZQoidGFiIglcIAE="}"#
        )
    );
}

#[test]
fn text_is_the_header_lines_alone() {
    let capture = sample();
    let head_len = capture.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let e = Echoed::new(&capture, head_len, head_len + 14, 2);
    let mut out = Vec::new();
    render(EchoFormat::Text, &e, &mut out);
    assert_eq!(out, b"Host: h\nX-Bin: caf\xc3\xa9 \x80\n");
    assert_eq!(out.len(), rendered_len(EchoFormat::Text, &e));
}

#[test]
fn body_is_the_decoded_body_alone() {
    let head = b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\n";
    let mut capture = head.to_vec();
    capture.extend_from_slice(b"a\x00\xffb\r\n");
    let e = Echoed::new(&capture, head.len(), capture.len(), 1);
    let mut out = Vec::new();
    render(EchoFormat::Body, &e, &mut out);
    assert_eq!(out, b"a\x00\xffb\r\n");
    assert_eq!(rendered_len(EchoFormat::Body, &e), 6);
}

#[test]
fn cookie_is_each_pair_of_every_cookie_field() {
    let head = b"GET /c HTTP/1.1\r\nHost: h\r\nCookie: a=1; b=2;c=\r\nX: y=1\r\n\
        cookie: ===;;; d=x=y\r\nCookie: \r\n\r\n";
    let e = Echoed::new(head, head.len(), head.len(), 1);
    assert_eq!(rendered(EchoFormat::Cookie, &e), "a=1\nb=2\nc=\nd=x=y\n");
    assert_eq!(rendered_len(EchoFormat::Cookie, &e), 17);
}

#[test]
fn formats_by_name() {
    for (name, f) in [
        ("json", EchoFormat::Json),
        ("garden", EchoFormat::Garden),
        ("text", EchoFormat::Text),
        ("body", EchoFormat::Body),
        ("cookie", EchoFormat::Cookie),
    ] {
        assert_eq!(EchoFormat::parse(name), Some(f));
    }
    assert_eq!(EchoFormat::parse("JSON"), None);
    assert_eq!(EchoFormat::Text.content_type(), "text/plain");
}

/// The eight-at-a-time pass over plain text misses no byte that needs escaping: every byte
/// value, at every position of a run longer than two words, in a JSON echo's body.
#[test]
fn json_escapes_every_byte_wherever_it_is() {
    let head = b"GET / HTTP/1.1\r\nHost: h\r\n\r\n";
    for c in (0u8..0x80).chain([0xc3]) {
        for at in 0..19 {
            let mut capture = head.to_vec();
            let mut body = vec![b'a'; 19];
            body[at] = c;
            if c == 0xc3 {
                body.insert(at + 1, 0xa9);
            }
            capture.extend_from_slice(&body);
            let e = Echoed::new(&capture, head.len(), capture.len(), 1);
            let json = rendered(EchoFormat::Json, &e);
            let text = String::from_utf8(body).unwrap();
            let want: String = text
                .chars()
                .map(|ch| match ch {
                    '"' => "\\\"".to_string(),
                    '\\' => "\\\\".to_string(),
                    '\n' => "\\n".to_string(),
                    '\r' => "\\r".to_string(),
                    '\t' => "\\t".to_string(),
                    c if (c as u32) < 0x20 => format!("\\u{:04x}", c as u32),
                    c => c.to_string(),
                })
                .collect();
            assert!(
                json.contains(&format!(",\"body\":\"{want}\",")),
                "{c:#x} at {at}: {json}"
            );
        }
    }
}

#[test]
fn httpbin_shapes_name_who_asked() {
    let head = b"GET /ip HTTP/1.1\r\nhost: h\r\nx-MULTI-word: 1\r\nUser-Agent: a \"b\"\r\nX-Multi-Word: 2\r\nX-Old: caf\xe9\r\n\r\n";
    let client = "[::ffff:10.0.0.7]:54321".parse().ok();
    let local = "[2001:db8::1]:8080".parse().ok();
    let e = Echoed::new(head, head.len(), head.len(), 1).with_addresses(client, local);
    assert_eq!(
        rendered(EchoFormat::Ip, &e),
        "{\"origin\":\"10.0.0.7\",\"client\":\"10.0.0.7:54321\",\"local\":\"[2001:db8::1]:8080\"}\n"
    );
    assert!(
        rendered(EchoFormat::Json, &e)
            .ends_with(",\"client\":\"10.0.0.7:54321\",\"local\":\"[2001:db8::1]:8080\"}\n")
    );
    assert_eq!(
        rendered(EchoFormat::Headers, &e),
        concat!(
            r#"{"headers":{"Host":["h"],"X-Multi-Word":["1","2"],"#,
            r#""User-Agent":["a \"b\""],"X-Old":["caf\u00e9"]}}"#,
            "\n"
        )
    );
    assert_eq!(
        rendered(EchoFormat::UserAgent, &e),
        "{\"user-agent\":\"a \\\"b\\\"\"}\n"
    );
    let e = Echoed::new(b"GET / HTTP/1.1\r\n\r\n", 18, 18, 1);
    assert_eq!(
        rendered(EchoFormat::UserAgent, &e),
        "{\"user-agent\":\"\"}\n"
    );
    assert_eq!(
        rendered(EchoFormat::Ip, &e),
        "{\"origin\":\"unix\",\"client\":null,\"local\":null}\n"
    );
    let uuid = rendered(EchoFormat::Uuid, &e);
    assert_eq!(uuid.len(), "{\"uuid\":\"\"}\n".len() + 36);
    assert_ne!(uuid, rendered(EchoFormat::Uuid, &e));
}

#[test]
fn uuids_have_the_version_4_layout() {
    // RFC 9562 §5.4: version 0b0100 in octet 6's high nibble, variant 0b10 in octet 8's top bits.
    assert_eq!(
        &uuid_v4([0xff; 16]),
        b"ffffffff-ffff-4fff-bfff-ffffffffffff"
    );
    assert_eq!(&uuid_v4([0; 16]), b"00000000-0000-4000-8000-000000000000");
    let counted: [u8; 16] = std::array::from_fn(|i| i as u8 * 17);
    assert_eq!(&uuid_v4(counted), b"00112233-4455-4677-8899-aabbccddeeff");
}

/// An HTTP/2 request kept as a head: its pseudo-headers are fields under their own names, and
/// go-httpbin's `/headers` shows `:authority` as `Host` and no other pseudo-header.
#[test]
fn an_http2_head_shows_its_pseudo_headers() {
    let head = b"GET /p HTTP/2\r\n:scheme: http\r\n:authority: x\r\nuser-agent: a\r\n\r\n";
    let e = Echoed::new(head, head.len(), head.len(), 1);
    let fields: Vec<_> = e.headers().collect();
    assert_eq!(
        fields,
        [
            (&b":scheme"[..], &b"http"[..]),
            (b":authority", b"x"),
            (b"user-agent", b"a")
        ]
    );
    assert_eq!(
        rendered(EchoFormat::Headers, &e),
        "{\"headers\":{\"Host\":[\"x\"],\"User-Agent\":[\"a\"]}}\n"
    );
}
