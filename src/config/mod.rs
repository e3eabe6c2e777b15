//! The command line and environment: everything canned can be told, checked before anything
//! starts.
//!
//! Every option is one entry of the `OPTIONS` table: its flag, its environment variable, the
//! kind of value it takes with the setting it changes, its help text, and the options it
//! conflicts with or needs. Each setting's effect is one arm of an exhaustive `match`, so a
//! setting without an effect does not compile. Parsing, the environment fallback, duplicate and
//! conflict checks and `--help` all read that table; unit tests check docs/options.md's option
//! table and the precedence rule against it, option by option.
//!
//! | file | holds |
//! |---|---|
//! | `tests/` | the tests: options read, error messages, the table against docs/options.md and `--help` |
//! | `contrib` | `--man` and `--completions`, from the table; the test that the files under `contrib/` and docs/options.md are the default build's |
//! | `args` | argv and the environment read through the table, relations, `Command`, `ArgError` |
//! | `help` | `--help`, from the table |
//! | `config_file` | `--config FILE`: options one a line, read through the table |
//! | `options` | the option table and the setting each kind of value changes |
//! | `per_route` | a route's own header fields (`--route-header`), redirects (`--redirect`) |
//! | `grammar` | listen addresses, header lines, paths, routes, method lists |
//! | `model` | `Config`, `Listen`, `Route`: what a server is configured with |
//! | `cpus` | the default `--workers` (affinity mask, cgroup v2 quota) |
//! | `file` | bounded file reading |
//! | `media_types` | the Content-Type of a route's `@FILE` body, by the file's extension |
//! | `activation` | systemd socket activation: which sockets the environment passes |
//!
//! Each file imports only from files below it in this table (and from lower modules); this
//! one, above them all, adds the builder API and names what the rest of the crate uses.

mod activation;
mod args;
mod config_file;
mod cpus;
mod file;
mod grammar;
mod help;
mod media_types;
mod model;
mod options;
mod per_route;

#[cfg(feature = "manual")]
mod contrib;
#[cfg(test)]
mod tests;

pub(crate) use self::activation::check_passed_to_this_process;
pub use self::args::{ArgError, Command, environment};
#[cfg(feature = "manual")]
pub use self::contrib::{completions, man_page};
pub use self::file::MAX_FILE;
pub use self::help::{Shell, help};
pub use self::model::{Config, Listen, Route, TlsOptions, formatted_too_large};
pub use self::per_route::route_answer;

use self::args::fail;
use self::grammar::{add_route, parse_listen, parse_route};
use self::per_route::{add_redirect, add_route_header};
use std::sync::Arc;

/// The builder API: a configuration in code, with the command line's checks and messages.
impl Config {
    /// Add a listener (`127.0.0.1:0`, `[::1]:8080`, `unix:/path`).
    pub fn listen(mut self, addr: &str) -> Result<Self, ArgError> {
        let l = parse_listen(addr).or_else(|what| fail("--listen", what))?;
        self.listen.push(l);
        Ok(self)
    }

    /// Set the default body.
    pub fn body(mut self, body: impl AsRef<[u8]>) -> Self {
        self.routes[0].spec.body = Arc::from(body.as_ref());
        self
    }

    /// Add a route (`[METHOD ]PATH=STATUS[:BODY]`) with the default response's content type
    /// and headers.
    #[inline(never)]
    pub fn route(mut self, r: &str) -> Result<Self, ArgError> {
        let r = parse_route(r, &self.routes[0].spec).or_else(|what| fail("--route", what))?;
        add_route(&mut self, r);
        Ok(self)
    }

    /// Add a redirect (`[METHOD ]PATH=STATUS:LOCATION`, STATUS 301, 302, 303, 307 or 308),
    /// with the default response's headers.
    ///
    /// ```
    /// let c = canned::config::Config::default().redirect("/old=308:/new").unwrap();
    /// assert_eq!(c.routes[1].spec.status, 308);
    /// ```
    pub fn redirect(mut self, r: &str) -> Result<Self, ArgError> {
        add_redirect(&mut self, r).or_else(|what| fail("--redirect", what))?;
        Ok(self)
    }

    /// Give the route answering `[METHOD ]PATH` (added with [`Config::route`] or
    /// [`Config::redirect`]) a header field of its own (`PATH=Name: value`); `Content-Type`
    /// sets its type.
    ///
    /// ```
    /// let c = canned::config::Config::default()
    ///     .route("/api=200:{}")
    ///     .and_then(|c| c.route_header("/api=Content-Type: application/json"))
    ///     .unwrap();
    /// assert_eq!(c.routes[1].spec.content_type, "application/json");
    /// ```
    pub fn route_header(mut self, h: &str) -> Result<Self, ArgError> {
        add_route_header(&mut self, h).or_else(|what| fail("--route-header", what))?;
        Ok(self)
    }
}
