//! The option table's types: an option's flag, environment variable, kind of value, help,
//! relations and docs; the settings each kind of value changes are `model`'s.

pub(super) use super::model::{FileContents, Number, Text, Toggle};
use crate::values::split_at_byte;

/// More threads than this are a typo, not a configuration (and each costs descriptors).
const MAX_WORKERS: u64 = 1024;
/// Routes are matched by a linear scan per request.
const MAX_ROUTES: u16 = 1000;

/// How an option's value is read, and the setting a valid value changes. Each setting's
/// effect is an arm of an exhaustive `match` ([`Toggle::set`], [`Number::set`],
/// [`Text::set`], [`FileContents::set`]), so a setting without an effect does not compile. (A
/// closure per option would cost a function, an unwind entry and a relocation each.)
#[derive(Clone, Copy)]
pub(super) enum ValueKind {
    /// No value: given or not (`VAR=1` or `0` in the environment).
    Switch(Toggle),
    /// A whole number from `min` to `max`.
    Count { min: u16, max: u64, set: Number },
    /// A number of bytes from `min` to `max`, in the grammar of [`crate::values::size`].
    Size { min: u16, max: u64, set: Number },
    /// `10s`, `500ms`, `2m` or `1h` (a bare number is refused), in milliseconds.
    Duration(Number),
    /// A request path the server answers: `/healthz`.
    Path(Text),
    /// A header field value (`--server`, `--content-type`).
    FieldValue(Text),
    /// Any text.
    Text(Text),
    /// A file, read whole at start-up.
    File(FileContents),
    /// A numeric socket address or `unix:PATH`: a listener.
    Address,
    /// A header line `Name: value` on every response.
    Header,
    /// `PATH=STATUS[:BODY]`: a route.
    Route,
    /// `PATH=STATUS:LOCATION`: a route that redirects.
    Redirect,
    /// `PATH=Name: value`: a header field of one route.
    RouteHeader,
    /// A file of options, one a line, read before the environment.
    ConfigFile,
    /// Comma-separated method tokens: the methods answered.
    Methods,
    /// `PATH=KIND[:ARGS]`: a fault on a route.
    #[cfg(feature = "faults")]
    Fault,
    /// `PATH[=FORMAT]`: a path answered with the request.
    #[cfg(feature = "echo")]
    Echo,
    /// An id of the malformed-response catalogue.
    #[cfg(feature = "mutate")]
    MutateId,
    /// A TCP address, or a bare port on 127.0.0.1: the admin API's listener.
    #[cfg(feature = "admin")]
    Admin,
    /// An entity-tag, `"x"` or `W/"x"` (RFC 9110 §8.8.3).
    #[cfg(feature = "ranges")]
    EntityTag,
}

/// Whether an option takes one value or many.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
    Once,
    /// Up to `most` values; the environment variable holds them separated by `sep`.
    Many {
        sep: u8,
        most: u16,
    },
}

/// One option: its names, its value, its help and its relations to other options.
#[derive(Clone, Copy)]
pub(super) struct Opt {
    /// `--flag VALUE`, the variable and the help text, one line each (the help may take
    /// more), then, after a NUL, the title of the `--help` section the option opens. Written by
    /// `opt!` as one string: one pointer to relocate in a position-independent binary
    /// instead of four.
    text: &'static str,
    pub(super) kind: ValueKind,
    pub(super) repeat: Repeat,
    /// Options this one cannot be combined with (symmetric), or needs.
    relations: &'static [Relation],
    /// Its row in docs/options.md beyond what `--help` says: its default and what it does in
    /// full (`contrib::docs`). Only the tests that write and check that page read it: the
    /// binary carries none of it.
    #[cfg(all(test, feature = "manual"))]
    pub(super) docs: (&'static str, &'static str),
}

#[derive(Clone, Copy)]
pub(super) enum Relation {
    ConflictsWith(&'static str),
    Needs(&'static str),
}

/// `opt!("--flag VALUE", "VARIABLE", kind, "help", docs: ("default", "meaning"))`, with
/// `section: "Title"` before `docs` when the option opens a `--help` section: a table entry. The variable is read when neither the flag nor a conflicting one is given;
/// in the help, each `\n` starts an indented line.
macro_rules! opt {
    (
        $flag:literal, $var:literal, $kind:expr, $help:literal $(, section: $title:literal)?,
        docs: ($default:literal, $meaning:literal)
    ) => {
        Opt {
            text: concat!($flag, "\n", $var, "\n", $help $(, "\0", $title)?),
            kind: $kind,
            repeat: Repeat::Once,
            relations: &[],
            #[cfg(all(test, feature = "manual"))]
            docs: ($default, $meaning),
        }
    };
}

impl Opt {
    const fn repeatable(self, sep: char, most: u16) -> Opt {
        let repeat = Repeat::Many {
            sep: sep as u8,
            most,
        };
        Opt { repeat, ..self }
    }
    const fn related(self, relations: &'static [Relation]) -> Opt {
        Opt { relations, ..self }
    }
    /// (`--flag VALUE`, the variable, the help, the section title or "").
    pub(super) fn texts(&self) -> (&'static str, &'static str, &'static str, &'static str) {
        let (usage, rest) = split_at_byte(self.text, b'\n');
        let (var, rest) = split_at_byte(rest, b'\n');
        let (help, title) = split_at_byte(rest, 0);
        (usage, var, help, title)
    }
    #[inline(never)]
    pub(super) fn flag(&self) -> &'static str {
        split_at_byte(split_at_byte(self.text, b'\n').0, b' ').0
    }
    pub(super) fn var(&self) -> &'static str {
        self.texts().1
    }
    pub(super) fn conflicts(&self) -> impl Iterator<Item = &'static str> {
        self.relations.iter().filter_map(|r| match r {
            Relation::ConflictsWith(flag) => Some(*flag),
            Relation::Needs(_) => None,
        })
    }
    pub(super) fn needs(&self) -> Option<&'static str> {
        self.relations.iter().find_map(|r| match r {
            Relation::Needs(flag) => Some(*flag),
            Relation::ConflictsWith(_) => None,
        })
    }
    #[inline(never)]
    pub(super) fn conflicts_with(&self, other: &Opt) -> bool {
        self.conflicts().any(|f| f == other.flag()) || other.conflicts().any(|f| f == self.flag())
    }
}

/// The tables: every option, and those of the features not built.
mod table;
pub(super) use table::{ABSENT, OPTIONS};
