//! Each route's response HEADERS frame, formatted once at start-up ([`preformat`]) and kept in
//! this layer's table ([`Heads`], shared by every worker, which reaches it through its
//! connections' `Env`): a response is a copy of it with two patches, the stream id in the
//! frame header and the `Date` value, a literal of fixed length at a known offset, from the
//! worker's cached date (as HTTP/1 patches its heads).
//!
//! The block is the route's HTTP/1 head turned into HPACK by `fields::encode_head`: `:status`
//! and the fields as static-table indexes and literals without indexing, which change no
//! decoder's table, so the same bytes are right on every connection whatever it was sent
//! before. The validators (`ETag`, `Last-Modified`, `Accept-Ranges`) and `Content-Length`
//! come with the route's head. A route whose body changes while the server runs (`--stats`,
//! `--metrics`), one added after start-up (a fault's, through `--admin`) and a block longer
//! than the smallest SETTINGS_MAX_FRAME_SIZE (16,384 bytes of fields) are encoded per response
//! instead, and so is a route whose bytes a change through `--admin` replaced
//! ([`Heads::forget`]).

use super::Env;
use super::fields::encode_head;
use crate::frame::{HEADER_LEN, Header, MIN_MAX_FRAME_SIZE, flag, kind};
use crate::response::ExtendCold;
use crate::response::{KeepAliveForm, Responses};
use std::sync::Arc;

/// A route's response HEADERS frame, formatted once: the 9-byte frame header with stream 0,
/// then a header block of static-table indexes and literals without indexing, which is the
/// same bytes on every connection. A response copies it and patches the stream id, and the
/// `Date` value at [`H2Head::date_at`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct H2Head {
    /// The frame, header included.
    pub frame: Box<[u8]>,
    /// Where the 29 bytes of the `Date` value are in `frame` (none with `--no-date`).
    pub date_at: Option<usize>,
}

/// By route, its preformatted HEADERS frame ([`preformat`]; `None`: encoded per response),
/// shared by every worker; a worker's own once a change replaced some of its routes.
#[derive(Clone, Debug, Default)]
pub struct Heads(Arc<[Option<H2Head>]>);

impl Heads {
    /// Route `route`'s preformatted frame, if it has one.
    #[inline(always)]
    pub fn get(&self, route: usize) -> Option<&H2Head> {
        self.0.get(route)?.as_ref()
    }

    /// Drop the frames of `routes`, whose bytes changed (`Responses::adopt_routes`): they
    /// were formatted for the bytes these indices held before.
    pub fn forget(&mut self, routes: &[usize]) {
        if routes.iter().any(|&r| self.get(r).is_some()) {
            let mut heads = self.0.to_vec();
            for &r in routes {
                if let Some(h) = heads.get_mut(r) {
                    *h = None;
                }
            }
            self.0 = heads.into();
        }
    }

    /// The table of the connection `env` is lent to, when the worker has one.
    #[inline(always)]
    pub(super) fn of<'a, W>(env: &Env<'a, W>) -> Option<&'a Heads> {
        env.features.h2()?.downcast_ref()
    }
}

/// Format every route's HEADERS frame of `responses`, for every worker.
pub fn preformat(responses: &Responses) -> Heads {
    let mut head = Vec::new();
    Heads(
        (0..responses.routes())
            .map(|route| frame(responses, route, &mut head))
            .collect(),
    )
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
            field.extend_cold(responses.date());
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
            let r = responses(date);
            let heads = preformat(&r);
            let head = heads.get(0).expect("preformatted").clone();
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
        let mut heads = preformat(&r);
        let copy = r.add_copy(0);
        assert!(heads.get(0).is_some());
        assert!(heads.get(copy).is_none());
        heads.forget(&[0]);
        assert!(heads.get(0).is_none());
    }
}
