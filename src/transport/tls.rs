//! TLS (the `tls` feature): a `rustls::ServerConnection` between the loop's socket calls and
//! the connection. A read is one `read(2)` into rustls's record buffer, the records it
//! completes decrypted, and their plaintext copied into the loop's buffer; a write encrypts a
//! first part of the connection's output into rustls's outgoing buffer and sends what is
//! there with one `writev(2)`. The handshake runs inside those calls: a read that brought
//! only handshake bytes returns `WouldBlock` (nothing for the connection yet), and
//! `TlsConn`'s `wants_write` makes the loop send the server's flight. The connection above is
//! HTTP/1 or HTTP/2 as over TCP: a client that negotiated `h2` by ALPN (RFC 9113 §3.2) starts
//! with the HTTP/2 preface, which the loop recognises as it does for prior knowledge.
//!
//! The certificates: a chain and key from PEM files, or, when none is given, a CA and a leaf
//! generated at start ([`generate`]), the CA's PEM written for the clients to trust.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::Acceptor;
use rustls::{ServerConfig, ServerConnection};
use socket2::Socket;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;

/// One TLS connection's state: boxed, outside the slot (a few KiB once buffers are grown).
pub struct TlsConn {
    state: State,
}

enum State {
    /// The first bytes, until they hold a whole ClientHello: its SNI chooses a handshake
    /// fault, or the configuration (a case's or the default one).
    Hello(Vec<u8>, Arc<Configs>),
    /// A handshake fault's stall: what the client sends is read and dropped, until the
    /// header timeout closes the connection.
    Stalled,
    /// The ClientHello handed to rustls, before rustls has it whole.
    Accepting(Acceptor, Arc<Configs>),
    /// The handshake under way or done.
    Conn(ServerConnection),
}

/// The `tls:` listeners' configurations: the default one, and one per certificate case of
/// [`CASES`], chosen by the first label of the SNI name (`expired.localhost`).
pub struct Configs {
    /// A connection whose SNI names no case (or that sends none).
    default: Arc<ServerConfig>,
    /// The cases, by name (none with `--tls-cert`: their certificates come from the CA
    /// generated at start).
    cases: Vec<(&'static str, Arc<ServerConfig>)>,
    /// `--tls-case` naming a handshake fault: the fault of a connection whose SNI names no
    /// case or fault.
    default_fault: Option<Fault>,
}

/// A handshake fault: what canned does after a whole ClientHello instead of a handshake
/// (no TLS library involved), chosen as a certificate case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No answer; the header timeout closes the connection.
    Stall,
    /// A fatal alert record with this code (RFC 8446 §6).
    Alert(u8),
    /// Bytes that are no TLS record.
    Garbage,
    /// An HTTP/1.1 400 in plain text: a plain HTTP server on a TLS port.
    Http400,
    /// A FIN.
    Close,
    /// An RST.
    Reset,
    /// A start of a ServerHello record, then a FIN (`true`: an RST).
    MidRecord(bool),
    /// A record header announcing more than 2^14 + 256 bytes (RFC 8446 §5.2).
    RecordOverflow,
}

/// The handshake faults (and `alert-N` for alert code N), chosen as a case is, and what a
/// correct client does (`--tls-list`).
pub const FAULTS: &[(&str, &str)] = &[
    (
        "stall",
        "time out: no ServerHello comes; canned closes at --header-timeout (curl -m 2 exit 28)",
    ),
    (
        "alert",
        "refuse: a fatal handshake_failure alert (alert-N: code N) for a ServerHello (curl exit 35)",
    ),
    (
        "garbage",
        "refuse: 64 bytes that are no TLS record instead of a ServerHello (curl exit 35)",
    ),
    (
        "http-400",
        "refuse: a plain HTTP/1.1 400 answer instead of a ServerHello (curl exit 35)",
    ),
    (
        "close",
        "refuse: the connection closed (FIN) after the ClientHello (curl exit 35)",
    ),
    (
        "reset",
        "refuse: the connection reset (RST) after the ClientHello (curl exit 35)",
    ),
    (
        "close-mid-record",
        "refuse: a ServerHello record cut short by a FIN (curl exit 35)",
    ),
    (
        "reset-mid-record",
        "refuse: a ServerHello record cut short by an RST (curl exit 35)",
    ),
    (
        "record-overflow",
        "refuse: a record header announcing 16641 bytes, over TLS's limit (curl exit 35)",
    ),
];

impl Fault {
    /// The fault a label names (`alert-70`: an alert of code 70).
    pub fn by_name(label: &str) -> Option<Fault> {
        let label = label.to_ascii_lowercase();
        Some(match label.as_str() {
            "stall" => Fault::Stall,
            // handshake_failure (RFC 8446 §6.2).
            "alert" => Fault::Alert(40),
            "garbage" => Fault::Garbage,
            "http-400" => Fault::Http400,
            "close" => Fault::Close,
            "reset" => Fault::Reset,
            "close-mid-record" => Fault::MidRecord(false),
            "reset-mid-record" => Fault::MidRecord(true),
            "record-overflow" => Fault::RecordOverflow,
            _ => Fault::Alert(label.strip_prefix("alert-")?.parse().ok()?),
        })
    }
}

/// What a ClientHello gets.
enum Choice {
    Handshake,
    Fault(Fault),
}

impl Configs {
    /// A handshake fault, or a handshake, for a ClientHello that named `sni`: a case's label
    /// is a handshake, a fault's label that fault, and any other name `--tls-case`'s.
    fn choose(&self, sni: Option<&str>) -> Choice {
        let label = sni.and_then(|s| s.split('.').next()).unwrap_or("");
        if self
            .cases
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(label))
        {
            return Choice::Handshake;
        }
        match Fault::by_name(label).or(self.default_fault) {
            Some(f) => Choice::Fault(f),
            None => Choice::Handshake,
        }
    }

    /// The configuration of a connection whose ClientHello named `sni`.
    pub fn pick(&self, sni: Option<&str>) -> &Arc<ServerConfig> {
        let label = sni.and_then(|s| s.split('.').next()).unwrap_or("");
        self.cases
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(label))
            .map_or(&self.default, |(_, c)| c)
    }
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
    pub fn new(configs: &Arc<Configs>) -> io::Result<Box<TlsConn>> {
        Ok(Box::new(TlsConn {
            state: State::Hello(Vec::new(), Arc::clone(configs)),
        }))
    }

    /// Before the handshake: read the ClientHello, then act on it. `WouldBlock`: nothing for
    /// the connection yet.
    #[cold]
    fn before(&mut self, sock: &Socket) -> io::Result<usize> {
        match &mut self.state {
            State::Hello(..) => self.hello(sock),
            State::Stalled => {
                let mut drop = [0; 1024];
                match (&*sock).read(&mut drop)? {
                    0 => Ok(0),
                    _ => Err(io::ErrorKind::WouldBlock.into()),
                }
            }
            State::Accepting(acceptor, _) => {
                if acceptor.read_tls(&mut Wire(sock))? == 0 {
                    return Ok(0);
                }
                self.accept(sock)
            }
            State::Conn(_) => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    /// The first bytes, read until they hold a whole ClientHello; then its SNI chooses a
    /// fault, or rustls is handed the bytes.
    fn hello(&mut self, sock: &Socket) -> io::Result<usize> {
        use super::client_hello::{Hello, MAX_HELLO, read};
        let State::Hello(raw, configs) = &mut self.state else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let mut chunk = [0; 4096];
        let n = (&*sock).read(&mut chunk)?;
        if n == 0 {
            return Ok(0);
        }
        raw.extend_from_slice(&chunk[..n]);
        let sni = match read(raw) {
            // Bounded per connection: past 64 KiB (a ClientHello is a few hundred bytes to a
            // few KiB) rustls is handed what came and refuses it.
            Hello::Incomplete if raw.len() <= MAX_HELLO => {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            Hello::Incomplete | Hello::Invalid => None,
            Hello::Sni(sni) => sni,
        };
        if let Choice::Fault(fault) = configs.choose(sni.as_deref()) {
            return self.fault(sock, fault);
        }
        let raw = std::mem::take(raw);
        let configs = Arc::clone(configs);
        let mut acceptor = Acceptor::default();
        let mut rest = &raw[..];
        // rustls's buffer takes a ClientHello whole; what it does not take is past its
        // limits, and its refusal follows.
        while !rest.is_empty() && matches!(acceptor.read_tls(&mut rest), Ok(n) if n > 0) {}
        self.state = State::Accepting(acceptor, configs);
        self.accept(sock)
    }

    /// A handshake fault after the ClientHello: its bytes, then the close (the loop's, on
    /// the error returned); or the stall.
    fn fault(&mut self, sock: &Socket, fault: Fault) -> io::Result<usize> {
        const HTTP_400: &[u8] = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\
            Content-Length: 33\r\nConnection: close\r\n\r\nThis port speaks HTTP, not TLS.\n\n";
        let garbage: [u8; 64] = std::array::from_fn(|i| (i as u8).wrapping_mul(151) ^ 0x5a);
        let alert;
        let overflow;
        let bytes: &[u8] = match fault {
            Fault::Stall => {
                self.state = State::Stalled;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            // A TLS 1.2 record header (the version a TLS 1.3 peer writes too), level fatal.
            Fault::Alert(code) => {
                alert = [21, 3, 3, 0, 2, 2, code];
                &alert
            }
            Fault::Garbage => &garbage,
            Fault::Http400 => HTTP_400,
            Fault::Close => &[],
            Fault::Reset => {
                // SO_LINGER 0: the close sends an RST.
                sock.set_linger(Some(std::time::Duration::ZERO))?;
                &[]
            }
            // A handshake record announcing 122 bytes, and the first 9 of a ServerHello.
            Fault::MidRecord(reset) => {
                if reset {
                    sock.set_linger(Some(std::time::Duration::ZERO))?;
                }
                &[22, 3, 3, 0, 122, 2, 0, 0, 118, 3, 3, 0x2a, 0x2a]
            }
            // 0x4101 = 2^14 + 257, and all it announces: a client that checks the length
            // only once the record is whole (OpenSSL) sees it too.
            Fault::RecordOverflow => {
                overflow = [&[22, 3, 3, 0x41, 0x01][..], &[0; 0x4101]].concat();
                &overflow
            }
        };
        // Into an empty socket buffer: sent whole (a loopback buffer takes 16 KiB at once;
        // a part cut short is the fault's way too).
        let mut sent = 0;
        while sent < bytes.len() {
            match sock.send(&bytes[sent..]) {
                Ok(n) if n > 0 => sent += n,
                _ => break,
            }
        }
        Err(io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "a handshake fault",
        ))
    }

    /// rustls's Acceptor has bytes: once they are a whole ClientHello, start the handshake
    /// with the configuration its SNI chooses.
    fn accept(&mut self, sock: &Socket) -> io::Result<usize> {
        let State::Accepting(acceptor, configs) = &mut self.state else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        let refused = match acceptor.accept() {
            Ok(None) => return Err(io::ErrorKind::WouldBlock.into()),
            Ok(Some(accepted)) => {
                let config = Arc::clone(configs.pick(accepted.client_hello().server_name()));
                match accepted.into_connection(config) {
                    Ok(conn) => {
                        // The server's flight is queued: `wants_write` sends it.
                        self.state = State::Conn(conn);
                        return Err(io::ErrorKind::WouldBlock.into());
                    }
                    Err(refused) => refused,
                }
            }
            Err(refused) => refused,
        };
        // The alert that says why (RFC 8446 §6.2), then the close.
        let (e, mut alert) = refused;
        let _ = alert.write(&mut Wire(sock));
        Err(io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

impl super::Io for TlsConn {
    fn alpn(&self) -> Option<&[u8]> {
        match &self.state {
            State::Conn(conn) => conn.alpn_protocol(),
            _ => None,
        }
    }

    fn read(&mut self, sock: &Socket, buf: &mut [u8]) -> io::Result<usize> {
        let State::Conn(conn) = &mut self.state else {
            return self.before(sock);
        };
        let got = conn.read_tls(&mut Wire(sock))?;
        if got == 0 {
            return Ok(0);
        }
        if let Err(e) = conn.process_new_packets() {
            // rustls queued the alert that says why (RFC 8446 §6.2): send it, then close.
            let _ = conn.write_tls(&mut Wire(sock));
            return Err(io::Error::new(io::ErrorKind::InvalidData, e));
        }
        // Ok(0): the peer's close_notify, its end of input. One read of at most 4 KiB of
        // records leaves less plaintext than the loop's buffer holds: nothing stays behind.
        conn.reader().read(buf)
    }

    fn write(&mut self, sock: &Socket, data: &[u8]) -> io::Result<usize> {
        let State::Conn(conn) = &mut self.state else {
            // Nothing to send before the ClientHello: the connection has had no request.
            return match data.is_empty() {
                true => Ok(0),
                false => Err(io::ErrorKind::WouldBlock.into()),
            };
        };
        if conn.wants_write() {
            conn.write_tls(&mut Wire(sock))?;
            if conn.wants_write() {
                // The socket took part of the records already made: no more until it has room.
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
        if data.is_empty() {
            return Ok(0);
        }
        // Encrypted into rustls's outgoing buffer (up to its limit), then sent: the part not
        // sent now is the transport's own (`wants_write`), and the loop polls for room.
        let n = conn.writer().write(data)?;
        match conn.write_tls(&mut Wire(sock)) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        Ok(n)
    }

    fn wants_read(&self) -> bool {
        match &self.state {
            State::Hello(..) | State::Stalled | State::Accepting(..) => true,
            State::Conn(conn) => conn.is_handshaking(),
        }
    }

    fn wants_write(&self) -> bool {
        match &self.state {
            State::Hello(..) | State::Stalled | State::Accepting(..) => false,
            State::Conn(conn) => conn.wants_write(),
        }
    }

    fn close_notify(&mut self, sock: &Socket) {
        if let State::Conn(conn) = &mut self.state {
            // A `Connection: close` answer, HTTP/1.0's, an HTTP/2 GOAWAY: OpenSSL 3 reports
            // a close without it as an error (`unexpected eof while reading`), and a client
            // that reads to the end cannot tell a whole answer from a cut one.
            conn.send_close_notify();
            let _ = conn.write_tls(&mut Wire(sock));
        }
    }

    fn shutdown(&mut self, sock: &Socket) -> io::Result<()> {
        if let State::Conn(conn) = &mut self.state {
            // close_notify before the FIN (RFC 8446 §6.1): the peer can tell the end from a
            // cut.
            conn.send_close_notify();
            let _ = conn.write_tls(&mut Wire(sock));
        }
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

/// The certificate cases, chosen by the first label of the SNI name (`expired.localhost`) or
/// for every connection with `--tls-case`, and what a correct client does with each
/// (`--tls-list`). Their certificates are made at start from the generated CA, for the same
/// names as the good one and each `CASE.NAME`.
pub const CASES: &[(&str, &str)] = &[
    (
        "expired",
        "refuse: the certificate expired on 2020-12-31 (curl exit 60)",
    ),
    (
        "not-yet-valid",
        "refuse: the certificate is valid from 2099-01-01 only (curl exit 60)",
    ),
    (
        "wrong-host",
        "refuse: the certificate is for wrong.host.invalid, not the name asked for (curl exit 60)",
    ),
    (
        "self-signed",
        "refuse: the certificate signs itself, no trusted CA vouches for it (curl exit 60)",
    ),
    (
        "untrusted-root",
        "refuse: the chain ends at a CA the client was not given (curl exit 60)",
    ),
    (
        "incomplete-chain",
        "refuse: the intermediate CA that signed the certificate is not sent (curl exit 60)",
    ),
    (
        "client-cert-required",
        "refuse: a client certificate is required (certificate_required alert; curl --http1.1 exit 56)",
    ),
    (
        "tls12-only",
        "accept TLS 1.2; refuse if TLS 1.3 is required (protocol_version alert, curl --tlsv1.3 exit 35)",
    ),
    (
        "tls13-only",
        "accept TLS 1.3; refuse if limited to TLS 1.2 (protocol_version alert, curl --tls-max 1.2 exit 35)",
    ),
    (
        "alpn-refused",
        "refuse an ALPN offer: no protocol in common (no_application_protocol alert, curl exit 35)",
    ),
];

/// `--tls-list`: the cases and the handshake faults, one a line, name then what a correct
/// client does.
pub fn case_lines() -> String {
    CASES
        .iter()
        .chain(FAULTS)
        .map(|(name, does)| format!("{name:<17} {does}\n"))
        .collect()
}

/// The server's TLS configurations: TLS 1.3 and 1.2 with ring's suites, ALPN `h2` (if `h2`)
/// and `http/1.1`, and with a generated certificate one per case of [`CASES`]; `case` (one
/// of them) serves a connection whose SNI names none; `client_ca` (`--tls-client-ca`): the
/// connections the default configuration serves must show a client certificate one of its
/// CAs signed (mutual TLS). Errors are one line, naming the flag.
pub fn server_config(
    identity: Identity<'_>,
    h2: bool,
    case: Option<&str>,
    client_ca: Option<&Path>,
) -> Result<Arc<Configs>, String> {
    let mut alpn = Vec::new();
    if h2 {
        alpn.push(b"h2".to_vec());
    }
    alpn.push(b"http/1.1".to_vec());
    let both: &[&'static rustls::SupportedProtocolVersion] =
        &[&rustls::version::TLS13, &rustls::version::TLS12];
    let (chain, key, generated) = match identity {
        Identity::Files { cert, key } => {
            if case.is_some_and(|c| Fault::by_name(c).is_none()) {
                return Err("--tls-case needs the generated certificates: it cannot be \
                            combined with --tls-cert"
                    .into());
            }
            let (chain, key) = load(cert, key)?;
            (chain, key, None)
        }
        Identity::Generated { names, ca_out } => {
            let g = generate(names)?;
            if let Some(path) = ca_out {
                write_ca(path, &g.ca_pem)?;
            }
            (g.chain, g.key, Some(g.cases))
        }
    };
    let default = match client_ca {
        Some(path) => {
            let roots = client_roots(path)?;
            client_auth(both, roots, &chain, key.clone_key(), &alpn)
                .map_err(|e| format!("--tls-client-ca {}: {e}", path.display()))?
        }
        None => build(both, chain.clone(), key.clone_key(), &alpn)
            .map_err(|e| format!("--tls-key does not go with --tls-cert: {e}"))?,
    };
    let mut cases = Vec::new();
    if let Some(generated) = generated {
        let bad = |e| format!("TLS: {e}");
        for (name, chain, key) in generated {
            cases.push((name, build(both, chain, key, &alpn).map_err(bad)?));
        }
        let mut generated_ca = rustls::RootCertStore::empty();
        if let Some(ca) = chain.last() {
            generated_ca.add(ca.clone()).map_err(bad)?;
        }
        cases.push((
            "client-cert-required",
            client_auth(both, generated_ca, &chain, key.clone_key(), &alpn).map_err(bad)?,
        ));
        let only = |v| build(&[v], chain.clone(), key.clone_key(), &alpn).map_err(bad);
        cases.push(("tls12-only", only(&rustls::version::TLS12)?));
        cases.push(("tls13-only", only(&rustls::version::TLS13)?));
        // A protocol no client offers: rustls refuses every ALPN offer (RFC 7301 §3.2),
        // and serves a client that makes none.
        let none = [b"canned-refuses-alpn".to_vec()];
        cases.push((
            "alpn-refused",
            build(both, chain.clone(), key.clone_key(), &none).map_err(bad)?,
        ));
    }
    let mut configs = Configs {
        default,
        cases,
        default_fault: None,
    };
    if let Some(fault) = case.and_then(Fault::by_name) {
        configs.default_fault = Some(fault);
    } else if let Some(case) = case {
        configs.default = match configs.cases.iter().find(|(n, _)| *n == case) {
            Some((_, c)) => Arc::clone(c),
            None => {
                return Err(format!(
                    "--tls-case {case:?} is not a case (--tls-list prints them)"
                ));
            }
        };
    }
    Ok(Arc::new(configs))
}

/// `--tls-client-ca FILE`: the CAs a client certificate must be signed by.
fn client_roots(path: &Path) -> Result<rustls::RootCertStore, String> {
    let p = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("--tls-client-ca {p}: {e}"))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--tls-client-ca {p}: not PEM certificates ({e})"))?;
    if certs.is_empty() {
        return Err(format!(
            "--tls-client-ca {p}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)"
        ));
    }
    let mut roots = rustls::RootCertStore::empty();
    for cert in certs {
        roots
            .add(cert)
            .map_err(|e| format!("--tls-client-ca {p}: not a CA certificate rustls takes ({e})"))?;
    }
    Ok(roots)
}

/// A client certificate asked for and required, signed by one of `roots` (RFC 8446 §4.3.2):
/// the `client-cert-required` case (the generated CA) and `--tls-client-ca`.
fn client_auth(
    versions: &[&'static rustls::SupportedProtocolVersion],
    roots: rustls::RootCertStore,
    chain: &Chain,
    key: PrivateKeyDer<'static>,
    alpn: &[Vec<u8>],
) -> Result<Arc<ServerConfig>, rustls::Error> {
    let verifier =
        rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
            .build()
            .map_err(|e| rustls::Error::General(e.to_string()))?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(versions)?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain.clone(), key)?;
    config.alpn_protocols = alpn.to_vec();
    Ok(Arc::new(config))
}

/// ring's provider: X25519, P-256 and P-384, no post-quantum key exchange (which rustls
/// 0.23.48 marks by deprecating the function; aws-lc-rs would add a C toolchain's build).
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    #[allow(deprecated)]
    Arc::new(rustls::crypto::ring::default_provider())
}

/// One configuration: these versions, this chain and key, these ALPN protocols.
fn build(
    versions: &[&'static rustls::SupportedProtocolVersion],
    chain: Chain,
    key: PrivateKeyDer<'static>,
    alpn: &[Vec<u8>],
) -> Result<Arc<ServerConfig>, rustls::Error> {
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(versions)?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = alpn.to_vec();
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

/// A CA and a leaf it signed, generated at start, and the certificate cases.
pub struct Generated {
    /// The leaf, then the CA.
    pub chain: Chain,
    /// The leaf's key.
    pub key: PrivateKeyDer<'static>,
    /// The CA's certificate, PEM: what clients trust.
    pub ca_pem: String,
    /// The cases of [`CASES`] with a certificate of their own: name, chain, key.
    pub cases: Vec<(&'static str, Chain, PrivateKeyDer<'static>)>,
}

/// A CA (ECDSA P-256) and a leaf for `localhost`, `127.0.0.1`, `::1` and `names`, each DNS
/// name also under every case's label (`expired.localhost`); and the cases' certificates.
pub fn generate(names: &[String]) -> Result<Generated, String> {
    use rcgen::{CertificateParams, CertifiedIssuer, KeyPair, date_time_ymd};
    let err = |e: rcgen::Error| format!("cannot generate the TLS certificates: {e}");
    let key_der = |k: &KeyPair| PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(k.serialize_der()));
    let ca = new_ca("canned test CA")?;
    let mut base = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    for n in names {
        if !base.contains(n) {
            base.push(n.clone());
        }
    }
    let mut sans = base.clone();
    for n in base
        .iter()
        .filter(|n| n.parse::<std::net::IpAddr>().is_err())
    {
        sans.extend(CASES.iter().map(|(c, _)| format!("{c}.{n}")));
    }
    let leaf = |sans: &[String],
                issuer: &rcgen::Issuer<'_, KeyPair>,
                edit: &dyn Fn(&mut CertificateParams)|
     -> Result<(CertificateDer<'static>, PrivateKeyDer<'static>), String> {
        let mut p = leaf_params(sans)?;
        edit(&mut p);
        let key = KeyPair::generate().map_err(err)?;
        let cert = p.signed_by(&key, issuer).map_err(err)?;
        Ok((cert.der().clone(), key_der(&key)))
    };
    let same = |_: &mut CertificateParams| {};
    let (good, key) = leaf(&sans, &ca, &same)?;
    let with_ca = |c: CertificateDer<'static>| vec![c, ca.der().clone()];
    let mut cases = Vec::new();
    let (c, k) = leaf(&sans, &ca, &|p| {
        p.not_before = date_time_ymd(2020, 1, 1);
        p.not_after = date_time_ymd(2020, 12, 31);
    })?;
    cases.push(("expired", with_ca(c), k));
    let (c, k) = leaf(&sans, &ca, &|p| {
        p.not_before = date_time_ymd(2099, 1, 1);
        p.not_after = date_time_ymd(2100, 1, 1);
    })?;
    cases.push(("not-yet-valid", with_ca(c), k));
    let (c, k) = leaf(&["wrong.host.invalid".into()], &ca, &same)?;
    cases.push(("wrong-host", with_ca(c), k));
    let self_key = KeyPair::generate().map_err(err)?;
    let c = leaf_params(&sans)?.self_signed(&self_key).map_err(err)?;
    cases.push(("self-signed", vec![c.der().clone()], key_der(&self_key)));
    let other = new_ca("canned untrusted CA")?;
    let (c, k) = leaf(&sans, &other, &same)?;
    cases.push(("untrusted-root", vec![c, other.der().clone()], k));
    // An intermediate CA the main one signs, and a leaf it signs, sent alone: a client that
    // trusts the main CA cannot build the path (RFC 5280 §6).
    let mut ip = ca_params("canned test intermediate CA")?;
    ip.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Constrained(0));
    let intermediate =
        CertifiedIssuer::signed_by(ip, KeyPair::generate().map_err(err)?, &ca).map_err(err)?;
    let (c, k) = leaf(&sans, &intermediate, &same)?;
    cases.push(("incomplete-chain", vec![c], k));
    Ok(Generated {
        chain: with_ca(good),
        key,
        ca_pem: ca.pem(),
        cases,
    })
}

fn ca_params(cn: &str) -> Result<rcgen::CertificateParams, String> {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyUsagePurpose};
    let mut ca = CertificateParams::new(Vec::<String>::new())
        .map_err(|e| format!("cannot generate the TLS certificates: {e}"))?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, cn);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    Ok(ca)
}

/// A self-signed CA (ECDSA P-256) named `cn`.
fn new_ca(cn: &str) -> Result<rcgen::CertifiedIssuer<'static, rcgen::KeyPair>, String> {
    let err = |e: rcgen::Error| format!("cannot generate the TLS certificates: {e}");
    let key = rcgen::KeyPair::generate().map_err(err)?;
    rcgen::CertifiedIssuer::self_signed(ca_params(cn)?, key).map_err(err)
}

/// A server certificate's parameters for these names (DNS names or IP addresses).
fn leaf_params(sans: &[String]) -> Result<rcgen::CertificateParams, String> {
    use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, KeyUsagePurpose};
    let mut leaf = CertificateParams::new(sans.to_vec())
        .map_err(|e| format!("cannot generate the TLS certificates: {e}"))?;
    leaf.distinguished_name
        .push(DnType::CommonName, sans.first().map_or("localhost", |s| s));
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    Ok(leaf)
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
