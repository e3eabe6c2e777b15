//! The `tls:` listeners' configurations: the listener's own certificate, the certificate
//! cases chosen by SNI label or `--tls-case` (with its share), mutual TLS, ALPN.

use super::certs::{CASES, Chain, generate, load, write_ca};
use super::fault::{Drip, FAULTS, Fault};
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;

/// The `tls:` listeners' configurations: the default one, and one per certificate case of
/// [`CASES`], chosen by the first label of the SNI name (`expired.localhost`).
pub struct Configs {
    /// The listener's own certificate (generated, or `--tls-cert`).
    good: Arc<ServerConfig>,
    /// The cases, by name (none with `--tls-cert`: their certificates come from the CA
    /// generated at start).
    cases: Vec<(&'static str, Arc<ServerConfig>)>,
    /// `--tls-case NAME[@SHARE]`: what a connection whose SNI names no case or fault gets,
    /// for this share of them (millionths); the others get `good`.
    default: Option<(Default, u32)>,
    /// `--seed`, and the draws made: connection n's draw is a hash of both.
    seed: u64,
    draws: std::sync::atomic::AtomicU64,
}

/// What `--tls-case` serves.
#[derive(Clone)]
enum Default {
    Case(Arc<ServerConfig>),
    Fault(Fault),
}

/// A share of one million: always.
const ALWAYS: u32 = 1_000_000;

/// What a ClientHello gets.
pub(super) enum Choice {
    Handshake(Arc<ServerConfig>),
    Fault(Fault),
    /// The listener's own handshake, its flight dripped.
    Dripped(Drip, Arc<ServerConfig>),
}

impl Configs {
    /// A handshake fault, or a handshake and its configuration, for a ClientHello that named
    /// `sni`: a case's label is that case, a fault's label that fault, and any other name
    /// `--tls-case`'s for its share of the connections, the listener's own certificate for
    /// the others.
    pub(super) fn choose(&self, sni: Option<&str>) -> Choice {
        let label = sni.and_then(|s| s.split('.').next()).unwrap_or("");
        if let Some((_, c)) = self
            .cases
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(label))
        {
            return Choice::Handshake(Arc::clone(c));
        }
        if let Some(f) = Fault::by_name(label) {
            return self.fault(f);
        }
        match &self.default {
            Some((d, share)) if self.drawn(*share) => match d {
                Default::Case(c) => Choice::Handshake(Arc::clone(c)),
                Default::Fault(f) => self.fault(*f),
            },
            _ => Choice::Handshake(Arc::clone(&self.good)),
        }
    }

    /// A fault's choice: a drip is a handshake with the listener's own certificate.
    fn fault(&self, f: Fault) -> Choice {
        match f {
            Fault::Drip(d) => Choice::Dripped(d, Arc::clone(&self.good)),
            f => Choice::Fault(f),
        }
    }

    /// Whether this connection is in a share of `share` millionths: a draw only when the
    /// share is not all (splitmix64 of the seed and the draw's number).
    fn drawn(&self, share: u32) -> bool {
        if share >= ALWAYS {
            return true;
        }
        let n = self
            .draws
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut z = self.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % u64::from(ALWAYS)) < u64::from(share)
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

/// `--tls-list`: the cases and the handshake faults, one a line, name then what a correct
/// client does.
pub fn case_lines() -> String {
    CASES
        .iter()
        .chain(FAULTS)
        .map(|(name, does)| format!("{name:<20} {does}\n"))
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
    seed: u64,
) -> Result<Arc<Configs>, String> {
    let (case, share) = match case {
        Some(c) => {
            check_case(c, matches!(identity, Identity::Files { .. }))?;
            let (name, share) = split_share(c)?;
            (Some(name), share)
        }
        None => (None, ALWAYS),
    };
    let mut alpn = Vec::new();
    if h2 {
        alpn.push(b"h2".to_vec());
    }
    alpn.push(b"http/1.1".to_vec());
    let both: &[&'static rustls::SupportedProtocolVersion] =
        &[&rustls::version::TLS13, &rustls::version::TLS12];
    let (chain, key, generated) = match identity {
        Identity::Files { cert, key } => {
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
    let default_config = match client_ca {
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
    let default = match case {
        None => None,
        Some(name) => Some(match Fault::by_name(name) {
            Some(fault) => Default::Fault(fault),
            None => match cases.iter().find(|(n, _)| *n == name) {
                Some((_, c)) => Default::Case(Arc::clone(c)),
                None => {
                    return Err(format!(
                        "--tls-case {name:?} is not a case (--tls-list prints them)"
                    ));
                }
            },
        }),
    };
    Ok(Arc::new(Configs {
        good: default_config,
        cases,
        default: default.map(|d| (d, share)),
        seed,
        draws: std::sync::atomic::AtomicU64::new(0),
    }))
}

/// Whether `--tls-case NAME[@SHARE]` names a case or a handshake fault, with a share
/// `split_share` reads, and one that can go with `with_files` (`--tls-cert`): a handshake
/// fault, as a certificate case's certificate comes from the generated CA. Errors are one
/// line, naming the flag.
pub fn check_case(case: &str, with_files: bool) -> Result<(), String> {
    let (name, _) = split_share(case)?;
    if Fault::by_name(name).is_some() {
        return Ok(());
    }
    if !CASES.iter().any(|(n, _)| *n == name) {
        return Err(format!(
            "--tls-case {name:?} is not a case (--tls-list prints them)"
        ));
    }
    if with_files {
        return Err(
            "--tls-case needs the generated certificates: it cannot be combined with \
                    --tls-cert"
                .into(),
        );
    }
    Ok(())
}

/// `--tls-case NAME@SHARE`: the name, and the share of the connections in millionths
/// (`@10%`, `@0.5%`; all without one).
fn split_share(case: &str) -> Result<(&str, u32), String> {
    let Some((name, share)) = case.split_once('@') else {
        return Ok((case, ALWAYS));
    };
    let bad = || {
        format!(
            "--tls-case {case:?}: the share after @ is a percentage above 0 and at most 100, \
             with at most 4 decimals (@10%, @0.5%)"
        )
    };
    let pct = share.strip_suffix('%').ok_or_else(bad)?;
    let (whole, frac) = pct.split_once('.').unwrap_or((pct, ""));
    if whole.is_empty() || frac.len() > 4 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: u32 = whole.parse().map_err(|_| bad())?;
    let frac: u32 = format!("{frac:0<4}").parse().map_err(|_| bad())?;
    let millionths = whole
        .checked_mul(10_000)
        .and_then(|w| w.checked_add(frac))
        .ok_or_else(bad)?;
    if millionths == 0 || millionths > ALWAYS {
        return Err(bad());
    }
    Ok((name, millionths))
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
