//! RFC 9113 rules about what a request's frames and fields mean together, beyond one frame's
//! or one field's: the stream identifiers a client skipped (§5.1.1), a request's
//! `content-length` against the DATA that follows it (§8.1.1), and `host` against
//! `:authority` (§8.3.1). Each is held in a few bytes: no allocation once a buffer has grown.

/// How many runs of skipped stream identifiers are remembered.
const GAPS: usize = 4;

/// The client's stream identifiers that were never opened below the highest one it opened.
///
/// A client opens streams in increasing order (§5.1.1): usually 1, 3, 5 and so on. When it
/// skips some (opening 5 first, say), those it skipped are closed without having been opened;
/// a HEADERS on one of them is "an unexpected stream identifier", a connection error of type
/// PROTOCOL_ERROR, where a HEADERS on a stream that was opened and has ended is one of type
/// STREAM_CLOSED (§5.1). The last [`GAPS`] runs of skipped identifiers are kept; an identifier
/// in an older run is taken for one that was opened (STREAM_CLOSED: a connection error all
/// the same).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Skipped {
    /// Runs `(first, last)` of skipped odd identifiers, the newest at `next - 1`.
    gaps: [(u32, u32); GAPS],
    next: usize,
}

impl Skipped {
    /// The client opened `stream`, the highest so far; `last` was the highest before it (0 for
    /// none).
    pub(super) fn opened(&mut self, last: u32, stream: u32) {
        let first = if last == 0 { 1 } else { last + 2 };
        if stream > first {
            self.gaps[self.next % GAPS] = (first, stream - 2);
            self.next = self.next.wrapping_add(1);
        }
    }

    /// Whether `stream` (at most the highest opened) was skipped, as far as is remembered.
    pub(super) fn was_skipped(&self, stream: u32) -> bool {
        let kept = self.next.min(GAPS);
        self.gaps[..kept]
            .iter()
            .any(|&(first, last)| (first..=last).contains(&stream))
    }
}

/// A request's body length against its `content-length` (§8.1.1): a request whose DATA
/// payloads do not add up to the value it declared is malformed, a stream error of type
/// PROTOCOL_ERROR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BodyLength {
    /// Bytes still to come, or `None` when no `content-length` was sent.
    left: Option<u64>,
}

impl BodyLength {
    /// A request that declared `declared` bytes (or nothing).
    pub(super) fn new(declared: Option<u64>) -> BodyLength {
        BodyLength { left: declared }
    }

    /// A DATA payload of `len` bytes (padding left out); false when the body is now longer
    /// than declared.
    pub(super) fn data(&mut self, len: usize) -> bool {
        match &mut self.left {
            None => true,
            Some(left) => match left.checked_sub(len as u64) {
                Some(l) => {
                    *left = l;
                    true
                }
                None => false,
            },
        }
    }

    /// The request's END_STREAM came: whether the body had the declared length.
    pub(super) fn ended(&self) -> bool {
        matches!(self.left, None | Some(0))
    }
}

/// What the fields of one request say about its body and its host: its `content-length`
/// (equal values if repeated, RFC 9110 §8.6) and whether `host` names what `:authority`
/// names (§8.3.1).
#[derive(Debug, Default)]
pub(super) struct Semantics {
    /// `:authority`'s value (its capacity kept from request to request).
    authority: Vec<u8>,
    has_authority: bool,
    /// The declared body length.
    pub(super) content_length: Option<u64>,
}

impl Semantics {
    /// Start over for a new header block.
    pub(super) fn reset(&mut self) {
        self.authority.clear();
        self.has_authority = false;
        self.content_length = None;
    }

    /// One decoded field (pseudo-headers come first, §8.3); the rule it breaks, if any.
    pub(super) fn field(&mut self, name: &[u8], value: &[u8]) -> Option<&'static str> {
        match name {
            b":authority" => {
                self.authority.clear();
                self.authority.extend_from_slice(value);
                self.has_authority = true;
                None
            }
            // §8.3.1: a server SHOULD treat as malformed a Host that differs from :authority
            // (the host is case-insensitive, RFC 3986 §6.2.2.1).
            b"host" if self.has_authority && !value.eq_ignore_ascii_case(&self.authority) => {
                Some("host differs from :authority (§8.3.1)")
            }
            b"content-length" => match parse_length(value) {
                None => Some("a content-length that is not a number (§8.1.1)"),
                Some(n) if self.content_length.is_some_and(|c| c != n) => {
                    Some("two different content-length values (§8.1.1)")
                }
                Some(n) => {
                    self.content_length = Some(n);
                    None
                }
            },
            _ => None,
        }
    }
}

/// A `content-length` value: 1 to 19 digits (RFC 9110 §8.6).
fn parse_length(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_identifiers_are_remembered_in_runs() {
        let mut s = Skipped::default();
        s.opened(0, 1);
        s.opened(1, 3);
        assert!(!s.was_skipped(1) && !s.was_skipped(3));
        s.opened(3, 9);
        assert!(s.was_skipped(5) && s.was_skipped(7) && !s.was_skipped(9));
        let mut s = Skipped::default();
        s.opened(0, 5);
        assert!(s.was_skipped(1) && s.was_skipped(3) && !s.was_skipped(5));
        // Only the newest runs are kept.
        let mut last = 5;
        for _ in 0..GAPS {
            s.opened(last, last + 4);
            last += 4;
        }
        assert!(!s.was_skipped(1), "the oldest run is forgotten");
        assert!(s.was_skipped(last - 2));
    }

    #[test]
    fn body_length_against_content_length() {
        let mut b = BodyLength::new(Some(10));
        assert!(b.data(4) && !b.ended());
        assert!(b.data(6) && b.ended());
        assert!(!b.data(1));
        let mut b = BodyLength::new(None);
        assert!(b.data(1 << 20) && b.ended());
        assert!(BodyLength::new(Some(0)).ended());
    }

    #[test]
    fn host_authority_and_content_length_fields() {
        let mut s = Semantics::default();
        assert_eq!(s.field(b":authority", b"Example:80"), None);
        assert_eq!(s.field(b"host", b"example:80"), None);
        assert!(s.field(b"host", b"example.different:80").is_some());
        s.reset();
        assert_eq!(
            s.field(b"host", b"anything"),
            None,
            "no :authority to differ from"
        );
        assert_eq!(s.field(b"content-length", b"10"), None);
        assert_eq!(s.content_length, Some(10));
        assert_eq!(s.field(b"content-length", b"10"), None);
        assert!(s.field(b"content-length", b"11").is_some());
        for bad in [&b""[..], b"-1", b"1 0", b"+1", b"99999999999999999999"] {
            s.reset();
            assert!(s.field(b"content-length", bad).is_some(), "{bad:?}");
        }
    }
}
