//! `--help`, written from the option table.

use super::options::{OPTIONS, Repeat, ValueKind};
use crate::values::split_at_byte;

/// The start of `--help`; the man page takes its description from it.
pub(super) const HELP_INTRO: &str = "\
canned: a tiny, fast HTTP/1.1 and HTTP/2 (h2c) test endpoint and responder

Usage: canned [OPTIONS]

Every accepted request is answered with the same preformatted response (or a route's).
Each option can also be set from the environment variable shown. A flag replaces the
variable of its option and of the options it conflicts with; two conflicting options
from the same place are an error. Durations: 10s, 500ms, 2m or 1h, with their unit
always, at most 1h.
Sizes, for options and faults alike: 512 or 512B, 64K or 64KiB, 1M or 1MiB, 2G or 2GiB
(powers of 1024).
";
/// Where the help lines of an option start.
const HELP_INDENT: &str = "        ";

/// The `--help` text, from the option table.
pub fn help() -> String {
    let mut h = String::from(HELP_INTRO);
    for o in OPTIONS {
        let (usage, var, mut text, title) = o.texts();
        if !title.is_empty() {
            append(&mut h, &["\n", title, ":\n"]);
        }
        let close = match (o.kind, o.repeat) {
            (ValueKind::Switch(_), _) => "=1]",
            (_, Repeat::Many { sep: b',', .. }) => ", comma-separated]",
            (_, Repeat::Many { .. }) => ", one per line]",
            _ => "]",
        };
        append(&mut h, &["  ", usage, "  [", var, close]);
        while !text.is_empty() {
            let (line, rest) = split_at_byte(text, b'\n');
            append(&mut h, &["\n", HELP_INDENT, line]);
            text = rest;
        }
        h.push('\n');
    }
    h.push_str(MUTATE_LIST);
    h.push_str(TLS_LIST);
    h.push_str(MANUAL);
    h.push_str(HELP_END);
    h
}

/// The end of `--help`: the commands outside the table.
const HELP_END: &str = "  -h, --help
        Print this help
  -V, --version
        Print the version and the commit it was built from
";

/// `--mutate-list` in `--help`, with the `mutate` feature.
#[cfg(feature = "mutate")]
const MUTATE_LIST: &str = "  --mutate-list
        Print the ids of the malformed-response catalogue (for --mutate-id)
";
#[cfg(not(feature = "mutate"))]
const MUTATE_LIST: &str = "";

/// `--tls-list` in `--help`, with the `tls` feature.
#[cfg(feature = "tls")]
const TLS_LIST: &str = "  --tls-list
        Print the TLS cases and handshake faults (for --tls-case), and what a client does
";
#[cfg(not(feature = "tls"))]
const TLS_LIST: &str = "";

/// `--man` and `--completions` in `--help`, with the `manual` feature.
#[cfg(feature = "manual")]
const MANUAL: &str = "  --man
        Print the man page (canned --man | man -l -)
  --completions SHELL
        Print the completions for bash, zsh or fish
";
#[cfg(not(feature = "manual"))]
const MANUAL: &str = "";

/// `pieces`, one after the other: one out-of-line loop rather than a capacity check and a
/// copy inlined for each piece.
#[inline(never)]
fn append(s: &mut String, pieces: &[&str]) {
    for piece in pieces {
        s.push_str(piece);
    }
}

/// The shells `--completions` prints completions for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    /// `contrib/completions/canned.bash`.
    Bash,
    /// `contrib/completions/_canned`.
    Zsh,
    /// `contrib/completions/canned.fish`.
    Fish,
}
