//! TLS (the `tls` feature): a `rustls::ServerConnection` between the loop's socket calls and
//! the connection. A read is one `read(2)` into rustls's record buffer, the records it
//! completes decrypted, and their plaintext copied into the loop's buffer; a write encrypts a
//! first part of the connection's output into rustls's outgoing buffer and sends what is
//! there with one `writev(2)`. The handshake runs inside those calls: a read that brought
//! only handshake bytes returns `WouldBlock` (nothing for the connection yet), and
//! [`TlsConn::wants_write`] makes the loop send the server's flight. The connection above is
//! HTTP/1 or HTTP/2 as over TCP: a client that negotiated `h2` by ALPN (RFC 9113 §3.2) starts
//! with the HTTP/2 preface, which the loop recognises as it does for prior knowledge.
//!
//! The certificates: a chain and key from PEM files, or, when none is given, a CA and a leaf
//! generated at start ([`generate`]), the CA's PEM written for the clients to trust.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection};
use socket2::Socket;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;

/// One TLS connection's state: boxed, outside the slot (a few KiB once buffers are grown).
pub struct TlsConn {
    conn: ServerConnection,
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
    pub fn new(config: &Arc<ServerConfig>) -> io::Result<Box<TlsConn>> {
        let conn = ServerConnection::new(Arc::clone(config)).map_err(io::Error::other)?;
        Ok(Box::new(TlsConn { conn }))
    }

    /// The ALPN protocol agreed in the handshake (`h2`, `http/1.1`), if any.
    pub fn alpn(&self) -> Option<&[u8]> {
        self.conn.alpn_protocol()
    }
}

impl super::Io for TlsConn {
    fn read(&mut self, sock: &Socket, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.conn.read_tls(&mut Wire(sock))?;
        if got == 0 {
            return Ok(0);
        }
        if let Err(e) = self.conn.process_new_packets() {
            // rustls queued the alert that says why (RFC 8446 §6.2): send it, then close.
            let _ = self.conn.write_tls(&mut Wire(sock));
            return Err(io::Error::new(io::ErrorKind::InvalidData, e));
        }
        // Ok(0): the peer's close_notify, its end of input. One read of at most 4 KiB of
        // records leaves less plaintext than the loop's buffer holds: nothing stays behind.
        self.conn.reader().read(buf)
    }

    fn write(&mut self, sock: &Socket, data: &[u8]) -> io::Result<usize> {
        if self.conn.wants_write() {
            self.conn.write_tls(&mut Wire(sock))?;
            if self.conn.wants_write() {
                // The socket took part of the records already made: no more until it has room.
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
        if data.is_empty() {
            return Ok(0);
        }
        // Encrypted into rustls's outgoing buffer (up to its limit), then sent: the part not
        // sent now is the transport's own (`wants_write`), and the loop polls for room.
        let n = self.conn.writer().write(data)?;
        match self.conn.write_tls(&mut Wire(sock)) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        Ok(n)
    }

    fn wants_read(&self) -> bool {
        self.conn.is_handshaking()
    }

    fn wants_write(&self) -> bool {
        self.conn.wants_write()
    }

    fn shutdown(&mut self, sock: &Socket) -> io::Result<()> {
        // close_notify before the FIN (RFC 8446 §6.1): the peer can tell the end from a cut.
        self.conn.send_close_notify();
        let _ = self.conn.write_tls(&mut Wire(sock));
        sock.shutdown(std::net::Shutdown::Write)
    }
}

/// Where a listener's certificate comes from.
pub enum Identity<'a> {
    /// `--tls-cert` and `--tls-key`: PEM files, the chain in the first.
    Files {
        /// The chain, leaf first.
        cert: &'a Path,
        /// Its key.
        key: &'a Path,
    },
    /// Generated at start: a CA, and a leaf it signs for these names (DNS names or IP
    /// addresses); the CA's PEM written to `ca_out` if given.
    Generated {
        /// Names beside `localhost`, `127.0.0.1` and `::1`.
        names: &'a [String],
        /// Where the CA's PEM goes.
        ca_out: Option<&'a Path>,
    },
}

/// The server's TLS configuration: TLS 1.3 and 1.2 with ring's suites, ALPN `h2` (if `h2`)
/// and `http/1.1`. Errors are one line, naming the flag.
pub fn server_config(identity: Identity<'_>, h2: bool) -> Result<Arc<ServerConfig>, String> {
    let (chain, key) = match identity {
        Identity::Files { cert, key } => load(cert, key)?,
        Identity::Generated { names, ca_out } => {
            let g = generate(names)?;
            if let Some(path) = ca_out {
                write_ca(path, &g.ca_pem)?;
            }
            (g.chain, g.key)
        }
    };
    // ring's provider: X25519, P-256 and P-384, no post-quantum key exchange (which rustls
    // 0.23.48 marks by deprecating the function; aws-lc-rs would add a C toolchain's build).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("--tls-key does not go with --tls-cert: {e}"))?;
    if h2 {
        config.alpn_protocols.push(b"h2".to_vec());
    }
    config.alpn_protocols.push(b"http/1.1".to_vec());
    Ok(Arc::new(config))
}

type Chain = Vec<CertificateDer<'static>>;

fn load(cert: &Path, key: &Path) -> Result<(Chain, PrivateKeyDer<'static>), String> {
    let c = cert.display();
    let bytes = std::fs::read(cert).map_err(|e| format!("--tls-cert {c}: {e}"))?;
    let chain = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--tls-cert {c}: not PEM certificates ({e})"))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {c}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)"
        ));
    }
    let k = key.display();
    let bytes = std::fs::read(key).map_err(|e| format!("--tls-key {k}: {e}"))?;
    let key = PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| {
        format!("--tls-key {k}: no PEM private key in it (PKCS#8, PKCS#1 or SEC1; {e})")
    })?;
    Ok((chain, key))
}

/// A CA and a leaf it signed, generated at start.
pub struct Generated {
    /// The leaf, then the CA.
    pub chain: Chain,
    /// The leaf's key.
    pub key: PrivateKeyDer<'static>,
    /// The CA's certificate, PEM: what clients trust.
    pub ca_pem: String,
}

/// A CA (ECDSA P-256) and a leaf for `localhost`, `127.0.0.1`, `::1` and `names`.
pub fn generate(names: &[String]) -> Result<Generated, String> {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let err = |e: rcgen::Error| format!("cannot generate the TLS certificates: {e}");
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "canned test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().map_err(err)?).map_err(err)?;
    let mut sans = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    sans.extend(
        names
            .iter()
            .filter(|n| !sans.contains(n))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let mut leaf = CertificateParams::new(sans).map_err(err)?;
    leaf.distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_key = KeyPair::generate().map_err(err)?;
    let leaf = leaf.signed_by(&leaf_key, &ca).map_err(err)?;
    Ok(Generated {
        chain: vec![leaf.der().clone(), ca.der().clone()],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        ca_pem: ca.pem(),
    })
}

/// `--tls-ca-out`: write the CA's PEM, replacing only a file that holds PEM certificates
/// (an earlier run's), never anything else.
fn write_ca(path: &Path, pem: &str) -> Result<(), String> {
    let p = path.display();
    match std::fs::read(path) {
        Ok(old) => {
            let certs = CertificateDer::pem_slice_iter(&old).collect::<Result<Vec<_>, _>>();
            if !matches!(certs, Ok(c) if !c.is_empty()) {
                return Err(format!(
                    "--tls-ca-out {p}: the file exists and is not a PEM certificate; \
                     refusing to overwrite it (remove it or choose another path)"
                ));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("--tls-ca-out {p}: {e}")),
    }
    std::fs::write(path, pem).map_err(|e| format!("--tls-ca-out {p}: {e}"))
}
