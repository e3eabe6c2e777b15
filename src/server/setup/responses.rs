//! A server's responses, formatted once from `Config`: the routes (or the raw response), the
//! counter routes and the answers by method; and what the features keep by route: the echo
//! routes, the journal's, the validators of the routes that serve ranges, `--control`'s
//! blocks.

use crate::conditional::{Representation, Representations};
use crate::config::Config;
use crate::config::Route;
use crate::control::Blocks;
use crate::echo::EchoRoutes;
use crate::response::{CounterPaths, CounterRoutes, Responses, Spec, http_date};
use std::time::SystemTime;

/// The responses a server answers with: the configured routes (or the raw response), with
/// `--stats` and `--metrics` one more route each, whose indices are returned for the
/// counters' bodies, and with `--methods` the 405 and OPTIONS answers of
/// [`Responses::accept_only`].
pub fn responses(config: &Config) -> (Responses, CounterRoutes) {
    let (responses, counter_routes, _) = formatted(config);
    (responses, counter_routes)
}

/// [`responses`], with the validators of the routes that serve ranges, which their heads
/// carry.
#[cfg_attr(canned_small, optimize(size))]
pub fn formatted(config: &Config) -> (Responses, CounterRoutes, Representations) {
    if let Some(raw) = &config.raw {
        return (
            Responses::raw(raw.clone(), &config.common),
            CounterRoutes::default(),
            Representations::default(),
        );
    }
    let paths = config.routes[1..]
        .iter()
        .map(|r| (r.path.as_bytes().to_vec(), r.get_only))
        .collect();
    let counters = CounterPaths {
        stats: config.stats.as_deref().filter(|_| cfg!(feature = "stats")),
        metrics: config
            .metrics
            .as_deref()
            .filter(|_| cfg!(feature = "stats")),
    };
    let started = std::time::SystemTime::now();
    let ranged: Vec<Option<Representation>> = config
        .routes
        .iter()
        .map(|r| representation(r, config, started))
        .collect();
    let specs: Vec<Spec> = config
        .routes
        .iter()
        .zip(&ranged)
        .map(|(r, v)| with_validators(&r.spec, v.as_ref()))
        .collect();
    let (mut responses, counter_routes) =
        Responses::with_counters(specs.iter(), paths, counters, &config.common);
    responses.set_route_methods(config.routes.iter().map(|r| r.method.as_deref()));
    if !config.methods.is_empty() {
        let methods: Vec<&str> = config.methods.iter().map(String::as_str).collect();
        responses.accept_only(&methods);
    }
    let ranged = match cfg!(feature = "ranges") {
        true => Representations::new(ranged),
        false => Representations::default(),
    };
    (responses, counter_routes, ranged)
}

/// `--echo`: the routes that echo, by route index (none without the `echo` feature).
pub fn echo_routes(config: &Config) -> EchoRoutes {
    EchoRoutes::new(
        config
            .routes
            .iter()
            .map(|r| r.echo.filter(|_| cfg!(feature = "echo"))),
    )
}

/// `--journal-path`: the route that answers the journal.
pub fn journal_route(config: &Config) -> Option<usize> {
    let path = config.journal_path.as_ref()?;
    config.routes.iter().position(|r| &r.path == path)
}

/// `--control`'s blocks, made once and shared by every worker; none without it.
pub fn control_blocks(config: &Config) -> Option<Blocks> {
    (cfg!(feature = "control") && config.control).then(|| Blocks::new(config.seed))
}

/// The validators of a route that serves ranges and conditional requests: a 200 with a body
/// of its own (not an echo, nor a counter route, whose bodies change). The entity-tag is
/// `--etag`'s, or a strong one from a hash of the body; the modification time its file's, or
/// `started` (none with `--no-date`). Without validators (`--no-validators`), none, but the route still serves ranges.
fn representation(r: &Route, config: &Config, started: SystemTime) -> Option<Representation> {
    if !cfg!(feature = "ranges")
        || r.spec.status != 200
        || r.spec.body.is_empty()
        || r.echo.is_some()
    {
        return None;
    }
    if !config.validators {
        return Some(Representation::default());
    }
    let etag = match &config.etag {
        Some(tag) => tag.as_bytes().into(),
        None => format!("\"{:016x}\"", body_hash(&r.spec.body))
            .into_bytes()
            .into(),
    };
    // `--no-date` keeps the output byte-identical from run to run: no start time in it.
    let when = r.modified.or(config.common.date.then_some(started));
    let secs = when.map(|w| {
        w.duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    Some(Representation {
        etag,
        modified: secs,
    })
}

/// `spec` with the fields of a route that serves ranges: `Accept-Ranges: bytes` (RFC 9110
/// §14.3), and its validators, `ETag` and `Last-Modified` (§8.8), formatted once like any
/// other field.
fn with_validators(spec: &Spec, v: Option<&Representation>) -> Spec {
    let mut spec = spec.clone();
    let Some(v) = v else {
        return spec;
    };
    spec.headers.push("Accept-Ranges: bytes".into());
    if !v.etag.is_empty() {
        spec.headers
            .push(format!("ETag: {}", String::from_utf8_lossy(&v.etag)));
    }
    if let Some(secs) = v.modified {
        let when = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let date = http_date(when);
        spec.headers
            .push(format!("Last-Modified: {}", String::from_utf8_lossy(&date)));
    }
    spec
}

/// A 64-bit hash of a body, for its strong entity-tag: FNV-1a over the bytes 8 at a time
/// (folding each product's high half down), then the length, finished with splitmix64's mixer (a body that changes gets another tag, but for a
/// collision of one in 2^64).
fn body_hash(body: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in body.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0x0000_0100_0000_01b3);
        // The high bits down: a product carries differences up only.
        h ^= h >> 32;
    }
    h ^= body.len() as u64;
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}
