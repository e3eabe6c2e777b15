//! A server's responses, formatted once from `Config`: the routes (or the raw response), the
//! counter routes and the answers by method.

use crate::config::Config;
use crate::response::{CounterPaths, CounterRoutes, Responses};

/// The responses a server answers with: the configured routes (or the raw response), with
/// `--stats` and `--metrics` one more route each, whose indices are returned for the
/// counters' bodies, and with `--methods` the 405 and OPTIONS answers of
/// [`Responses::accept_only`].
pub fn responses(config: &Config) -> (Responses, CounterRoutes) {
    if let Some(raw) = &config.raw {
        return (
            Responses::raw(raw.clone(), &config.common),
            CounterRoutes::default(),
        );
    }
    let paths = config.routes[1..]
        .iter()
        .map(|r| (r.path.as_bytes().to_vec(), r.get_only))
        .collect();
    let counters = CounterPaths {
        stats: config.stats.as_deref(),
        metrics: config.metrics.as_deref(),
    };
    let specs = config.routes.iter().map(|r| &r.spec);
    let (mut responses, counter_routes) =
        Responses::with_counters(specs, paths, counters, &config.common);
    responses.set_echo(config.routes.iter().map(|r| r.echo));
    if let Some(path) = &config.journal_path {
        if let Some(i) = config.routes.iter().position(|r| &r.path == path) {
            responses.set_journal(i);
        }
    }
    if config.control {
        responses.set_filler(filler());
        responses.set_garbage(garbage(config.seed));
        responses.set_stars(std::iter::repeat_n(b'*', 64 * 1024).collect());
    }
    responses.set_route_methods(config.routes.iter().map(|r| r.method.as_deref()));
    if !config.methods.is_empty() {
        let methods: Vec<&str> = config.methods.iter().map(String::as_str).collect();
        responses.accept_only(&methods);
    }
    (responses, counter_routes)
}

/// `--control`'s filler block, 64 KiB of printable bytes that a `bytes=N` body is cut from,
/// repeated: made once, shared by every worker.
fn filler() -> std::sync::Arc<[u8]> {
    const LINE: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\r\n";
    LINE.iter().copied().cycle().take(64 * 1024).collect()
}

/// `--control`'s garbage block, 64 KiB drawn from the seeded generator (`--seed`, a stream of
/// its own) that a `fault=garbage:N` answer is cut from, repeated: made once, shared by every
/// worker.
fn garbage(seed: u64) -> std::sync::Arc<[u8]> {
    let mut rng = crate::fault::Rng::new(seed, u64::MAX);
    (0..64 * 1024).map(|_| rng.next_u64() as u8).collect()
}
