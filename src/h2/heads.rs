//! Each route's response HEADERS frame, formatted once at start-up ([`preformat`]) and kept in
//! the `response` layer's table ([`H2Head`]): a response is a copy of it with two patches, the
//! stream id in the frame header and the `Date` value, a literal of fixed length at a known
//! offset, from the worker's cached date (as HTTP/1 patches its heads).
//!
//! The block is the route's HTTP/1 head turned into HPACK by `fields::encode_head`: `:status`
//! and the fields as static-table indexes and literals without indexing, which change no
//! decoder's table, so the same bytes are right on every connection whatever it was sent
//! before. The validators (`ETag`, `Last-Modified`, `Accept-Ranges`) and `Content-Length`
//! come with the route's head. A route whose body changes while the server runs (`--stats`,
//! `--metrics`), one added after start-up (a fault's, through `--admin`) and a block longer
//! than the smallest SETTINGS_MAX_FRAME_SIZE (16,384 bytes of fields) are encoded per response
//! instead.

use super::fields::encode_head;
use crate::frame::{HEADER_LEN, Header, MIN_MAX_FRAME_SIZE, flag, kind};
use crate::response::{H2Head, KeepAliveForm, Responses};

/// Format every route's HEADERS frame into `responses` (whose clones, the workers', share it).
pub fn preformat(responses: &mut Responses) {
    let mut head = Vec::new();
    let heads = (0..responses.routes())
        .map(|route| frame(responses, route, &mut head))
        .collect();
    responses.set_h2_heads(heads);
}

/// Route `route`'s HEADERS frame (stream 0, END_HEADERS), if it can be preformatted.
fn frame(responses: &Responses, route: usize, head: &mut Vec<u8>) -> Option<H2Head> {
    if responses.body_changes(route) {
        return None;
    }
    head.clear();
    responses.append(route, KeepAliveForm::KeepAlive11, true, usize::MAX, head);
    let mut frame = vec![0; HEADER_LEN];
    encode_head(head, &mut frame);
    let len = frame.len() - HEADER_LEN;
    if len > MIN_MAX_FRAME_SIZE as usize {
        return None;
    }
    let h = Header {
        len: len as u32,
        kind: kind::HEADERS,
        flags: flag::END_HEADERS,
        stream: 0,
    };
    frame[..HEADER_LEN].copy_from_slice(&h.encode());
    let date_at = match responses.date_offset(route) {
        None => None,
        Some(_) => {
            // `date` (static index 33) as a literal without indexing: 0x0f 0x12, then the
            // length 29 unencoded, then the value the head was formatted with.
            let mut field = vec![0x0f, 0x12, 29];
            field.extend_from_slice(responses.date());
            let at = frame.windows(field.len()).position(|w| w == field)?;
            Some(at + 3)
        }
    };
    Some(H2Head {
        frame: frame.into(),
        date_at,
    })
}

/// Append `head` for stream `stream` (with END_STREAM when `end_stream`) and `date`.
#[inline(always)]
pub(super) fn write(
    out: &mut Vec<u8>,
    head: &H2Head,
    stream: u32,
    end_stream: bool,
    date: &[u8; 29],
) {
    let at = out.len();
    out.extend_from_slice(&head.frame);
    let f = &mut out[at..];
    if end_stream {
        f[4] |= flag::END_STREAM;
    }
    f[5..HEADER_LEN].copy_from_slice(&stream.to_be_bytes());
    if let Some(d) = head.date_at {
        f[d..d + 29].copy_from_slice(date);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpack::Decoder;
    use crate::response::{Common, Spec};
    use std::sync::Arc;

    fn decode(block: &[u8]) -> Vec<(String, String)> {
        let mut d = Decoder::new(4096);
        let mut scratch = [0; 1024];
        let mut fields = Vec::new();
        d.decode(block, &mut scratch, |f| {
            fields.push((
                String::from_utf8_lossy(f.name).into_owned(),
                String::from_utf8_lossy(f.value).into_owned(),
            ))
        })
        .unwrap();
        assert_eq!(d.table_size(), 0, "no representation adds to the table");
        fields
    }

    fn responses(date: bool) -> Responses {
        let spec = Spec {
            status: 200,
            body: Arc::from(&b"hello"[..]),
            content_type: "text/plain".into(),
            headers: vec!["X-A: b".into()],
        };
        let common = Common {
            server: "canned".into(),
            date,
        };
        Responses::new(&[spec], &[], &common)
    }

    #[test]
    fn a_preformatted_frame_is_the_per_response_block_with_its_stream_and_date_patched() {
        for date in [true, false] {
            let mut r = responses(date);
            preformat(&mut r);
            let head = r.h2_head(0).expect("preformatted").clone();
            assert_eq!(head.date_at.is_some(), date);
            let mut out = Vec::new();
            let new_date = *b"Thu, 03 Dec 2026 01:02:03 GMT";
            write(&mut out, &head, 7, true, &new_date);
            let h = Header::parse(&out).unwrap();
            assert_eq!((h.kind, h.stream), (kind::HEADERS, 7));
            assert_eq!(h.flags, flag::END_HEADERS | flag::END_STREAM);
            assert_eq!(h.len as usize, out.len() - HEADER_LEN);
            let fields = decode(&out[HEADER_LEN..]);
            assert_eq!(fields[0], (":status".into(), "200".into()));
            assert!(fields.contains(&("content-length".into(), "5".into())));
            assert!(fields.contains(&("x-a".into(), "b".into())));
            let dates: Vec<_> = fields.iter().filter(|(n, _)| n == "date").collect();
            if date {
                assert_eq!(
                    dates,
                    [&("date".into(), String::from_utf8_lossy(&new_date).into())]
                );
            } else {
                assert!(dates.is_empty());
            }
            // The same fields as the block encoded per response, but for the date.
            let mut http1 = Vec::new();
            r.append(0, KeepAliveForm::KeepAlive11, true, usize::MAX, &mut http1);
            let mut block = Vec::new();
            encode_head(&http1, &mut block);
            let mut per_response = decode(&block);
            for f in &mut per_response {
                if f.0 == "date" {
                    f.1 = String::from_utf8_lossy(&new_date).into();
                }
            }
            assert_eq!(fields, per_response);
        }
    }

    #[test]
    fn routes_whose_body_changes_or_that_came_later_are_not_preformatted() {
        let mut r = responses(true);
        preformat(&mut r);
        let copy = r.add_copy(0);
        assert!(r.h2_head(0).is_some());
        assert!(r.h2_head(copy).is_none());
    }
}
