//! UTF-8 checked as a text message arrives (RFC 6455 §8.1: "fail the WebSocket connection" as
//! soon as the bytes cannot be UTF-8), whatever its frames and reads cut it into: the state
//! between two pieces is the rest of one unfinished character.

/// Where a text message's UTF-8 is: between characters, or inside one, with the bytes it
/// still needs and the range its next byte must be in (RFC 3629 §4: the second byte's range
/// excludes overlong forms, surrogates and code points past U+10FFFF).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Utf8 {
    need: u8,
    lo: u8,
    hi: u8,
}

impl Default for Utf8 {
    fn default() -> Self {
        Utf8 {
            need: 0,
            lo: 0x80,
            hi: 0xBF,
        }
    }
}

impl Utf8 {
    /// Check the next piece of the message: false when it cannot be UTF-8, however it goes on.
    pub(super) fn feed(&mut self, mut bytes: &[u8]) -> bool {
        while self.need > 0 {
            let Some((&c, rest)) = bytes.split_first() else {
                return true;
            };
            if !self.step(c) {
                return false;
            }
            bytes = rest;
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => true,
            // An unfinished character at the end: a valid beginning of one.
            Err(e) if e.error_len().is_none() => {
                bytes[e.valid_up_to()..].iter().all(|&c| self.step(c))
            }
            Err(_) => false,
        }
    }

    /// The message ended: whole characters only.
    pub(super) fn is_complete(&self) -> bool {
        self.need == 0
    }

    fn step(&mut self, c: u8) -> bool {
        if self.need > 0 {
            if c < self.lo || c > self.hi {
                return false;
            }
            self.need -= 1;
            self.lo = 0x80;
            self.hi = 0xBF;
            return true;
        }
        let (need, lo, hi) = match c {
            0x00..=0x7F => return true,
            0xC2..=0xDF => (1, 0x80, 0xBF),
            0xE0 => (2, 0xA0, 0xBF),
            0xED => (2, 0x80, 0x9F),
            0xE1..=0xEF => (2, 0x80, 0xBF),
            0xF0 => (3, 0x90, 0xBF),
            0xF1..=0xF3 => (3, 0x80, 0xBF),
            0xF4 => (3, 0x80, 0x8F),
            _ => return false,
        };
        *self = Utf8 { need, lo, hi };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Utf8;

    /// Every split of valid and invalid texts agrees with `str::from_utf8`, and an invalid
    /// byte fails in the piece that brings it.
    #[test]
    fn utf8_checked_at_every_split() {
        let texts: &[&[u8]] = &[
            "κόσμε".as_bytes(),
            "a\u{10FFFF}b\u{800}\u{FFFF}".as_bytes(),
            b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited",
            b"\xf4\x90\x80\x80",
            b"\xe0\x80\xaf",
            b"\xc0\xaf",
            b"\xf0\x8f\xbf\xbf",
            b"\xed\x9f\xbf",
            b"\xef\xbf\xbf",
            b"ab\xff",
            b"\xc2",
            b"\xf0\x90\x80",
        ];
        for text in texts {
            let valid = std::str::from_utf8(text).is_ok();
            for cut in 0..=text.len() {
                for cut2 in cut..=text.len() {
                    let mut u = Utf8::default();
                    let ok = u.feed(&text[..cut])
                        && u.feed(&text[cut..cut2])
                        && u.feed(&text[cut2..])
                        && u.is_complete();
                    assert_eq!(ok, valid, "{text:?} cut at {cut}, {cut2}");
                }
            }
            // Byte at a time: fails at the first byte no valid text can follow.
            if let Err(e) = std::str::from_utf8(text) {
                let mut u = Utf8::default();
                let failed_at = text.iter().position(|&c| !u.feed(&[c]));
                match e.error_len() {
                    Some(_) => assert!(failed_at.is_some(), "{text:?}"),
                    None => assert!(failed_at.is_none() && !u.is_complete(), "{text:?}"),
                }
            }
        }
    }
}
