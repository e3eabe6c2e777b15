//! What a worker is built from, read once from `Config`: the canned bytes every worker clones
//! ([`Canned`]), and one worker's parts and settings for the run ([`WorkerSetup`]). The worker
//! holds these and never the `Config`.

use crate::config::Config;
use crate::conn::{ConnLimits, Settings, Switches, Tables};
use crate::fault::{FaultResponses, FaultSet, WorkerFaults};
use crate::journal::Journal;
use crate::mutate::Catalogue;
use crate::response::{CounterRoutes, MAX_FORMATTED_BYTES, Responses};
use crate::transport::Transport;
use crate::values::US_PER_MS;
use std::io;
use std::sync::Arc;
use std::time::Duration;

/// The responses of a server, formatted once: each worker serves a clone of `responses`,
/// which shares the formatted bytes (only the heads' starts, with the `Date` each worker
/// patches, and the counter routes' bodies are a worker's own).
pub(crate) struct Canned {
    responses: Responses,
    counter_routes: CounterRoutes,
    /// What the features keep by route, and `--control`'s blocks: one for all workers.
    tables: Tables,
    /// Every route's faults, with the responses they send in `responses`: one for all
    /// workers, so that a sequence's position is the process's.
    pub(crate) fault_set: Arc<FaultSet>,
    /// The responses formatted for `fault_set`, for a change through `--admin`.
    pub(crate) fault_responses: FaultResponses,
    /// `--journal`: the ring every worker records into.
    pub(crate) journal: Option<Arc<Journal>>,
    /// The `tls:` listeners' configuration (`tls` feature), and which listeners are TLS.
    #[cfg(feature = "tls")]
    tls: Option<Arc<crate::transport::tls::Configs>>,
    #[cfg(feature = "tls")]
    tls_listeners: Vec<bool>,
    /// `--websocket`: its paths and message limit, one for every worker.
    #[cfg(feature = "websocket")]
    websocket: Option<&'static crate::conn::WebSocketPaths>,
}

impl Canned {
    /// Format `config`'s responses, with the ones its faults send.
    #[cfg_attr(canned_small, optimize(size))]
    pub(crate) fn new(config: &Config) -> io::Result<Canned> {
        let (mut responses, counter_routes, ranges) = super::formatted(config);
        let mut fault_responses = FaultResponses::default();
        let fault_set = super::fault_set(config, &mut responses, &mut fault_responses);
        if responses.routes() > usize::from(u16::MAX) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the faults' responses are more than 65535",
            ));
        }
        let bytes = responses.formatted_bytes();
        if bytes > MAX_FORMATTED_BYTES {
            // The command line measured its routes before (exit 2); this covers a
            // configuration built in code.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                crate::config::formatted_too_large(bytes),
            ));
        }
        let tables = Tables {
            #[cfg(feature = "echo")]
            echo: super::echo_routes(config),
            #[cfg(feature = "control")]
            control: super::control_blocks(config),
            #[cfg(feature = "ranges")]
            ranges,
            // Every route's HTTP/2 HEADERS, formatted once for every worker.
            #[cfg(feature = "http2")]
            h2: Some(Arc::new(crate::h2::preformat(&responses))),
        };
        #[cfg(not(feature = "ranges"))]
        let _ = ranges;
        // Taken whole now, so that recording allocates nothing.
        let journal = (cfg!(feature = "journal") && config.journal > 0).then(|| {
            Arc::new(
                Journal::new(config.journal as usize, config.limits.max_head)
                    .answered_by(super::journal_route(config)),
            )
        });
        Ok(Canned {
            responses,
            counter_routes,
            tables,
            fault_set,
            fault_responses,
            journal,
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "tls")]
            tls_listeners: super::tls::tls_listeners(config),
            #[cfg(feature = "websocket")]
            websocket: websocket(config),
        })
    }

    /// The `tls:` listeners' configuration ([`super::tls_config`]), made before the
    /// listeners are bound.
    #[cfg(feature = "tls")]
    pub(crate) fn set_tls(&mut self, tls: Option<Arc<crate::transport::tls::Configs>>) {
        self.tls = tls;
    }

    /// The responses every worker starts from (a clone shares their bytes).
    pub(crate) fn responses(&self) -> &Responses {
        &self.responses
    }

    /// Worker `id`'s parts: a clone of the responses, its faults (`catalogue`: the `--mutate`
    /// catalogue the workers share) and what it reads of `config` for the run.
    #[cfg_attr(canned_small, optimize(size))]
    pub(crate) fn worker(
        &self,
        config: &Config,
        catalogue: Option<Arc<Catalogue>>,
        id: usize,
    ) -> WorkerSetup {
        let responses = self.responses.clone();
        let faults = super::worker_faults(
            config,
            self.fault_set.clone(),
            catalogue,
            id,
            config.admin.is_some(),
        );
        WorkerSetup {
            id,
            settings: settings(
                config,
                #[cfg(feature = "websocket")]
                self.websocket,
            ),
            responses,
            counter_routes: self.counter_routes,
            tables: self.tables.clone(),
            faults,
            max_conns: config.max_conns,
            patch_date: config.common.date,
            access_log: cfg!(feature = "access-log") && config.access_log,
            access_log_json: config.access_log_json,
            journal: if cfg!(feature = "journal") {
                self.journal.clone()
            } else {
                None
            },
            quiet: config.quiet,
            shutdown_timeout: config.shutdown_timeout,
            transport: Transport::Plain,
            #[cfg(feature = "tls")]
            tls: self.tls.clone(),
            #[cfg(feature = "tls")]
            tls_listeners: self.tls_listeners.clone(),
        }
    }
}

/// Everything one worker takes from the command line, built once before it starts: plain
/// values, so that no loop turn, accept or shutdown reads the `Config`.
pub(crate) struct WorkerSetup {
    /// The worker's index: its poller in the shared state, its faults' random stream, its
    /// published counters.
    pub(crate) id: usize,
    /// What its connections read that is fixed for the run.
    pub(crate) settings: Settings,
    /// Its clone of the canned responses.
    pub(crate) responses: Responses,
    /// `--stats`, `--metrics`: where the counters' bodies go in `responses`.
    pub(crate) counter_routes: CounterRoutes,
    /// What the features keep by route (a clone shares it).
    pub(crate) tables: Tables,
    /// `--fault` and `--mutate`, when configured.
    pub(crate) faults: Option<WorkerFaults>,
    /// `--max-conns`, over all workers.
    pub(crate) max_conns: usize,
    /// The `Date` field is on (no `--no-date`): patched into the heads once a second.
    pub(crate) patch_date: bool,
    /// `--access-log`.
    pub(crate) access_log: bool,
    /// `--access-log json`.
    pub(crate) access_log_json: bool,
    /// `--journal`: the ring the workers share.
    pub(crate) journal: Option<Arc<Journal>>,
    /// `--quiet`: no diagnostics on stderr.
    pub(crate) quiet: bool,
    /// `--shutdown-timeout`.
    pub(crate) shutdown_timeout: Duration,
    /// The transport its connections are accepted with: the plain one, but in the tests.
    pub(crate) transport: Transport,
    /// The `tls:` listeners' configuration, and which of its listeners (by index) are TLS.
    #[cfg(feature = "tls")]
    pub(crate) tls: Option<Arc<crate::transport::tls::Configs>>,
    #[cfg(feature = "tls")]
    pub(crate) tls_listeners: Vec<bool>,
}

/// `--websocket`'s paths and `--websocket-max-message`, kept for the process's life: a
/// server runs once per process (a test that starts many leaves a few bytes each).
#[cfg(feature = "websocket")]
#[cfg_attr(canned_small, optimize(size))]
fn websocket(config: &Config) -> Option<&'static crate::conn::WebSocketPaths> {
    (!config.websocket.is_empty()).then(|| {
        &*Box::leak(Box::new(crate::conn::WebSocketPaths {
            paths: config
                .websocket
                .iter()
                .map(|p| Box::from(p.as_bytes()))
                .collect(),
            max_message: config.websocket_max_message,
            faults: config
                .websocket_faults
                .iter()
                .map(|f| crate::fault::websocket::WsFaults {
                    seed: config.seed,
                    ..f.clone()
                })
                .collect(),
        }))
    })
}

/// What a worker's connections read that is fixed for the run, from the command line.
#[cfg_attr(canned_small, optimize(size))]
fn settings(
    config: &Config,
    #[cfg(feature = "websocket")] websocket: Option<&'static crate::conn::WebSocketPaths>,
) -> Settings {
    Settings {
        limits: config.limits,
        conn_limits: ConnLimits {
            // `--max-body-bytes 0`: unlimited.
            max_body: match config.max_body_bytes {
                0 => u64::MAX,
                n => n,
            },
            ..ConnLimits::default()
        },
        timeouts: config.timeouts.in_us(),
        max_requests: config.max_requests,
        switches: Switches {
            raw: config.raw.is_some(),
            raw_close: config.raw_close,
            delay_us: config.delay.saturating_mul(US_PER_MS),
            echo: cfg!(feature = "echo") && config.routes.iter().any(|r| r.echo.is_some()),
            control: cfg!(feature = "control") && config.control,
            by_request: cfg!(any(feature = "echo", feature = "control"))
                && (config.control || config.routes.iter().any(|r| r.echo.is_some())),
            // A build without HTTP/2 never answers a preface or an Upgrade with it.
            no_http2: config.no_http2 || !cfg!(feature = "http2"),
            grpc_health: cfg!(feature = "http2") && config.grpc_health,
        },
        #[cfg(feature = "websocket")]
        websocket,
    }
}
