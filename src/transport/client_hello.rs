//! The server name of a TLS ClientHello (RFC 8446 §4.1.2, RFC 6066 §3), read from the first
//! bytes of a connection before any TLS library sees them: the handshake faults are chosen by
//! it, and need no handshake. The reader takes whatever the peer sent (any bytes, cut
//! anywhere, split into records anyhow) and never panics: every length is checked against
//! what is there, and every read is a `get`.

/// What the first bytes of a connection are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hello {
    /// A start of a ClientHello: more bytes are needed.
    Incomplete,
    /// A whole ClientHello, and its server name (`None`: no SNI, or one that is not a
    /// `host_name` of printable ASCII).
    Sni(Option<String>),
    /// Not a ClientHello: TLS would refuse it (or it is not TLS at all).
    Invalid,
}

/// A record's most plaintext (RFC 8446 §5.1).
const MAX_RECORD: usize = 1 << 14;
/// The largest ClientHello taken: beyond, it is [`Hello::Invalid`] (rustls's own limit on a
/// handshake message is 64 KiB as well).
pub const MAX_HELLO: usize = 1 << 16;

/// Read `buf`, the connection's first bytes: handshake records (type 22) whose payloads,
/// joined, start with a ClientHello.
pub fn read(buf: &[u8]) -> Hello {
    let mut at = 0;
    // The handshake bytes of the records so far. Nearly every ClientHello is one record: the
    // first is borrowed, and only a message split across records is copied.
    let mut joined: Vec<u8> = Vec::new();
    let mut first: &[u8] = &[];
    loop {
        let Some(header) = buf.get(at..at + 5) else {
            return Hello::Incomplete;
        };
        let len = usize::from(u16::from_be_bytes([header[3], header[4]]));
        // A handshake record of TLS's major version 3, neither empty nor over the limit.
        if header[0] != 22 || header[1] != 3 || len == 0 || len > MAX_RECORD {
            return Hello::Invalid;
        }
        let Some(payload) = buf.get(at + 5..at + 5 + len) else {
            return Hello::Incomplete;
        };
        at += 5 + len;
        let hs: &[u8] = if at == 5 + len {
            first = payload;
            first
        } else {
            if joined.is_empty() {
                joined.extend_from_slice(first);
            }
            joined.extend_from_slice(payload);
            &joined
        };
        // The handshake header: type 1, ClientHello, and its 24-bit length.
        if hs.first().is_some_and(|&t| t != 1) {
            return Hello::Invalid;
        }
        let Some(&[_, a, b, c]) = hs.get(..4) else {
            continue;
        };
        let body_len = usize::from(a) << 16 | usize::from(b) << 8 | usize::from(c);
        if body_len > MAX_HELLO {
            return Hello::Invalid;
        }
        if let Some(body) = hs.get(4..4 + body_len) {
            return match server_name(body) {
                Some(sni) => Hello::Sni(sni),
                None => Hello::Invalid,
            };
        }
    }
}

/// A cursor over a message: every read checked, `None` when the bytes run out.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<usize> {
        self.take(1).map(|b| usize::from(b[0]))
    }
    fn u16(&mut self) -> Option<usize> {
        self.take(2)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
    }
    /// A vector with a `u8` or `u16` length in front.
    fn vec8(&mut self) -> Option<&'a [u8]> {
        let n = self.u8()?;
        self.take(n)
    }
    fn vec16(&mut self) -> Option<&'a [u8]> {
        let n = self.u16()?;
        self.take(n)
    }
}

/// The server name of a ClientHello's body; `None`: the body is malformed.
fn server_name(body: &[u8]) -> Option<Option<String>> {
    let mut c = Cursor(body);
    c.take(2 + 32)?; // legacy_version, random
    c.vec8()?; // legacy_session_id
    c.vec16()?; // cipher_suites
    c.vec8()?; // legacy_compression_methods
    if c.0.is_empty() {
        // No extensions (a TLS 1.2 ClientHello may have none): no SNI.
        return Some(None);
    }
    let mut exts = Cursor(c.vec16()?);
    while !exts.0.is_empty() {
        let kind = exts.u16()?;
        let data = exts.vec16()?;
        if kind != 0 {
            continue;
        }
        // server_name: a list of (name_type, name); host_name is type 0 (RFC 6066 §3).
        let mut list = Cursor(Cursor(data).vec16()?);
        while !list.0.is_empty() {
            let name_type = list.u8()?;
            let name = list.vec16()?;
            if name_type == 0 {
                let printable = name.iter().all(|b| b.is_ascii_graphic());
                return Some(
                    (printable && !name.is_empty())
                        .then(|| String::from_utf8_lossy(name).into_owned()),
                );
            }
        }
        return Some(None);
    }
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ClientHello for `name` (TLS 1.3's shape: session id, suites, extensions with SNI
    /// between two others), as one handshake message.
    fn message(name: &str) -> Vec<u8> {
        let mut body = vec![3, 3];
        body.extend([7; 32]);
        body.push(32);
        body.extend([9; 32]);
        body.extend([0, 4, 0x13, 0x01, 0x13, 0x02]);
        body.extend([1, 0]);
        let mut exts = vec![0, 10, 0, 4, 0, 2, 0, 29]; // supported_groups: x25519
        let mut sni = vec![0];
        sni.extend((name.len() as u16).to_be_bytes());
        sni.extend(name.as_bytes());
        let mut list = (sni.len() as u16).to_be_bytes().to_vec();
        list.extend(sni);
        exts.extend([0, 0]);
        exts.extend((list.len() as u16).to_be_bytes());
        exts.extend(list);
        exts.extend([0, 43, 0, 3, 2, 3, 4]); // supported_versions: TLS 1.3
        body.extend((exts.len() as u16).to_be_bytes());
        body.extend(exts);
        let mut msg = vec![1, 0];
        msg.extend((body.len() as u16).to_be_bytes());
        msg.extend(body);
        msg
    }

    /// `msg` in records of at most `size` bytes.
    fn records(msg: &[u8], size: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for part in msg.chunks(size) {
            out.extend([22, 3, 1]);
            out.extend((part.len() as u16).to_be_bytes());
            out.extend(part);
        }
        out
    }

    #[test]
    fn every_truncation_is_incomplete_and_the_whole_names_the_server() {
        let msg = message("expired.localhost");
        for size in [msg.len(), 100, 7, 1] {
            let wire = records(&msg, size);
            for cut in 0..wire.len() {
                assert_eq!(read(&wire[..cut]), Hello::Incomplete, "{size} {cut}");
            }
            let want = Hello::Sni(Some("expired.localhost".into()));
            assert_eq!(read(&wire), want, "{size}");
            // Bytes after the ClientHello (a client's next flight) change nothing.
            let mut more = wire.clone();
            more.extend([20, 3, 3, 0, 1, 1]);
            assert_eq!(read(&more), want, "{size}");
        }
    }

    #[test]
    fn rustls_client_hello_at_every_cut() {
        #[allow(deprecated)]
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth();
        let name = "tls12-only.localhost".try_into().unwrap();
        let mut conn = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
        let mut wire = Vec::new();
        conn.write_tls(&mut wire).unwrap();
        for cut in 0..wire.len() {
            assert_eq!(read(&wire[..cut]), Hello::Incomplete, "{cut}");
        }
        assert_eq!(read(&wire), Hello::Sni(Some("tls12-only.localhost".into())));
    }

    #[test]
    fn no_sni_and_other_names() {
        // Cut the extensions off: a ClientHello without any.
        let mut msg = message("a");
        let ext_at = 4 + 2 + 32 + 33 + 6 + 2;
        msg.truncate(ext_at);
        let body = msg.len() - 4;
        msg[2..4].copy_from_slice(&(body as u16).to_be_bytes());
        assert_eq!(read(&records(&msg, 1000)), Hello::Sni(None));
        assert_eq!(read(&records(&message(""), 1000)), Hello::Sni(None));
        assert_eq!(read(&records(&message("a\nb"), 1000)), Hello::Sni(None));
    }

    #[test]
    fn not_a_client_hello() {
        for bad in [
            &b"GET / HTTP/1.1\r\n\r\n"[..],
            &[22, 3, 1, 0, 0],
            &[22, 3, 1, 0x40, 0x01, 1],
            &[23, 3, 3, 0, 1, 0],
            &[22, 2, 0, 0, 1, 1],
            &[22, 3, 1, 0, 4, 2, 0, 0, 0],
            &[22, 3, 1, 0, 4, 1, 0xff, 0, 0],
        ] {
            assert_eq!(read(bad), Hello::Invalid, "{bad:?}");
        }
        // A body whose inner lengths overrun it.
        let mut msg = message("x.localhost");
        msg[4 + 2 + 32] = 200; // session id length
        assert_eq!(read(&records(&msg, 1000)), Hello::Invalid);
    }

    #[test]
    fn every_byte_changed_never_panics() {
        let wire = records(&message("expired.localhost"), 60);
        for i in 0..wire.len() {
            for v in [0, 1, 0x7f, 0x80, 0xff, wire[i] ^ 0x55] {
                let mut w = wire.clone();
                w[i] = v;
                for cut in [w.len(), w.len() / 2, i + 1] {
                    let _ = read(&w[..cut.min(w.len())]);
                }
            }
        }
    }
}
