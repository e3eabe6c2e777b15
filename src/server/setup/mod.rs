//! A worker's parts, built once from `Config`.

mod faults;
mod responses;

pub use faults::{error_routes, faults, faults_with_error_routes};
pub use responses::responses;
