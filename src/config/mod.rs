//! The command line and environment: everything canned can be told, checked before anything
//! starts.
//!
//! Every option is one entry of the `OPTIONS` table: its flag, its environment variable, the
//! kind of value it takes with the setting it changes, its help text, and the options it
//! conflicts with or needs. Each setting's effect is one arm of an exhaustive `match`, so a
//! setting without an effect does not compile. Parsing, the environment fallback, duplicate and
//! conflict checks and `--help` all read that table; unit tests check the README's option
//! table and the precedence rule against it, option by option.
//!
//! | file | holds |
//! |---|---|
//! | `tests/` | the tests: options read, error messages, the table against README and `--help` |
//! | `contrib` | `--man` and `--completions`, from the table; the test that the files under `contrib/` are the default build's |
//! | `args` | argv and the environment read through the table, relations, `Command`, `ArgError` |
//! | `help` | `--help`, from the table |
//! | `options` | the option table and the setting each kind of value changes |
//! | `grammar` | listen addresses, header lines, paths, routes, method lists |
//! | `model` | `Config`, `Listen`, `Route`: what a server is configured with |
//! | `cpus` | the default `--workers` (affinity mask, cgroup v2 quota) |
//! | `file` | bounded file reading |
//! | `activation` | systemd socket activation: which sockets the environment passes |
//!
//! Each file imports only from files below it in this table (and from lower modules); this
//! one, above them all, adds the builder API and names what the rest of the crate uses.

mod activation;
mod args;
mod cpus;
mod file;
mod grammar;
mod help;
mod model;
mod options;

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
pub use self::model::{Config, Listen, Route, formatted_too_large};

use self::args::fail;
use self::grammar::{add_route, parse_listen, parse_route};
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
}
