//! The `tls:` listeners' configuration, built once at start from `--tls-cert`, `--tls-key`,
//! `--tls-name`, `--tls-ca-out`, `--tls-case` and `--tls-client-ca` (the certificates loaded or
//! generated, the CA written).
//! Every error is one line naming the flag.

use crate::config::{Config, Listen};
use std::io;

/// Which of `config.listen` speak TLS, in order (the workers' listener indices).
pub(crate) fn tls_listeners(config: &Config) -> Vec<bool> {
    config
        .listen
        .iter()
        .map(|l| matches!(l, Listen::Tls(_)))
        .collect()
}

/// The TLS option given, if any (for the errors).
fn first_option(config: &Config) -> Option<&'static str> {
    let t = &config.tls;
    [
        (t.cert.is_some(), "--tls-cert"),
        (t.key.is_some(), "--tls-key"),
        (!t.names.is_empty(), "--tls-name"),
        (t.ca_out.is_some(), "--tls-ca-out"),
        (t.case.is_some(), "--tls-case"),
        (t.client_ca.is_some(), "--tls-client-ca"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// The server's TLS configuration, when a `tls:` listener is configured.
#[cfg(feature = "tls")]
pub(crate) fn server_config(
    config: &Config,
) -> io::Result<Option<std::sync::Arc<crate::transport::tls::Configs>>> {
    use crate::transport::tls::{Identity, server_config};
    if !tls_listeners(config).contains(&true) {
        return match first_option(config) {
            Some(flag) => Err(invalid(format!(
                "{flag} needs a TLS listener: add --listen tls:ADDR (tls:127.0.0.1:8443)"
            ))),
            None => Ok(None),
        };
    }
    let t = &config.tls;
    let identity = match (&t.cert, &t.key) {
        (Some(cert), Some(key)) => {
            if let Some(flag) = [
                (!t.names.is_empty(), "--tls-name"),
                (t.ca_out.is_some(), "--tls-ca-out"),
            ]
            .into_iter()
            .find_map(|(given, flag)| given.then_some(flag))
            {
                return Err(invalid(format!(
                    "{flag} is for the generated certificate and cannot be combined with \
                     --tls-cert"
                )));
            }
            Identity::Files { cert, key }
        }
        (Some(_), None) => return Err(invalid("--tls-cert needs --tls-key".into())),
        (None, Some(_)) => return Err(invalid("--tls-key needs --tls-cert".into())),
        (None, None) => Identity::Generated {
            names: &t.names,
            ca_out: t.ca_out.as_deref(),
        },
    };
    let h2 = cfg!(feature = "http2") && !config.no_http2;
    server_config(
        identity,
        h2,
        t.case.as_deref(),
        t.client_ca.as_deref(),
        config.seed,
    )
    .map(Some)
    .map_err(invalid)
}

/// Without the `tls` feature: a `tls:` listener or a TLS option is an error.
#[cfg(not(feature = "tls"))]
pub(crate) fn server_config(config: &Config) -> io::Result<Option<()>> {
    let flag = match first_option(config) {
        Some(flag) => flag,
        None if tls_listeners(config).contains(&true) => "--listen tls:",
        None => return Ok(None),
    };
    Err(invalid(format!(
        "{flag}: this canned was built without TLS (the cargo feature tls)"
    )))
}
