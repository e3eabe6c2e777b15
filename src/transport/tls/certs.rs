//! The certificates: a chain and key from PEM files (`--tls-cert`, `--tls-key`), or a CA, a
//! leaf and the certificate cases generated at start with rcgen, the CA's PEM written for the
//! clients (`--tls-ca-out`).

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::io;
use std::path::Path;

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

/// A certificate chain, the leaf first.
pub type Chain = Vec<CertificateDer<'static>>;

pub(super) fn load(cert: &Path, key: &Path) -> Result<(Chain, PrivateKeyDer<'static>), String> {
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

/// Whether `--tls-name NAME` can be a name of the generated certificate: an IP address, or a
/// DNS name of letters, digits and hyphens in dot-separated labels of 1 to 63 bytes (RFC 1123
/// §2.1), short enough that every case's name under it (`client-cert-required.NAME`) is at
/// most 253 bytes. Errors are one line, naming the flag.
pub fn check_name(name: &str) -> Result<(), String> {
    let longest_case = CASES.iter().map(|(c, _)| c.len() + 1).max().unwrap_or(0);
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.parse::<std::net::IpAddr>().is_ok()
        || (name.len() + longest_case <= 253 && name.split('.').all(label))
    {
        return Ok(());
    }
    Err(format!(
        "--tls-name {name:?} is not an IP address or a DNS name (letters, digits and hyphens \
         in dot-separated labels, at most {} bytes)",
        253 - longest_case
    ))
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
        // `drip` is a handshake with this certificate: a client that checks it reaches
        // `drip.localhost` (a `drip-SIZE-D` label is named with `--tls-name`).
        sans.push(format!("drip.{n}"));
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
pub(super) fn write_ca(path: &Path, pem: &str) -> Result<(), String> {
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
