//! A worker's parts, built once from `Config`: the responses, the faults, and the settings a
//! worker holds for the run (`WorkerSetup`).

mod faults;
mod responses;
mod tls;
mod worker;

pub use faults::{fault_set, faults, worker_faults};
pub use responses::{control_blocks, echo_routes, formatted, journal_route, responses};
pub(crate) use tls::server_config as tls_config;
pub(crate) use worker::{Canned, WorkerSetup};
