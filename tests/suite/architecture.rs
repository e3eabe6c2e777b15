//! The shape of `src/`: every `crate::` import points down one table of layers, and no files
//! import each other in a circle. Read from the sources alone (no compiler), in milliseconds.
//!
//! An arrow is a path that names another file's module: a `use` of `crate::`, `super::`,
//! `self::` or a child module, or the same paths written inline. `mod x;` declarations are not
//! arrows. Comments and string literals are not code; test modules inside `src/` are (they may
//! import down only, like the code beside them). A path that reaches an item through a `use`
//! re-export is followed to the file that defines it, and a `pub use` counts as an arrow of
//! its own file only when that file uses the name itself: a directory module that re-exports
//! its children is no circle with children that import each other through it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom to top. A module may import only from strictly lower layers, and from its
/// own files.
const LAYERS: &[(&str, u8)] = &[
    // The request-head grammar: incremental, zero-copy, `no_std`.
    ("parser", 0),
    // The chunked body decoder, beside the parser (`no_std`).
    ("chunked", 0),
    // The HPACK decoder for HTTP/2 header blocks, beside the parser (`no_std`, no allocation).
    ("hpack", 0),
    // The `Range` grammar and its resolution against a length (`no_std`).
    ("range", 0),
    // HTTP/2 frames: header, payloads, SETTINGS bounds, error codes (`no_std`).
    ("frame", 0),
    // Conditional requests with ranges, in RFC 9110's order (`no_std`); it resolves the range.
    ("conditional", 0),
    // Value grammars shared by the command line and the fault specs: sizes, durations, counts.
    ("values", 1),
    // The malformed-response catalogue.
    ("mutate", 1),
    // The echo: a request as parsed, written back in one of its formats; bytes in, bytes out.
    ("echo", 1),
    // The canned bytes: specs, formatting, routes, Date, `Responses`, built from plain inputs.
    ("response", 2),
    // A fault value: what a fault does to an answer, and the one grammar of its text, shared
    // by `--fault`, the admin API and `--control`; the seeded generator.
    ("fault_value", 2),
    // `--control`: what a request asks for, read from its head without allocating.
    ("control", 3),
    // Faults: the seeded generator, sampling, spec types, the `--fault` grammar, worker state.
    ("fault", 3),
    // Counters, `Timeout`, `Summary`, and their JSON and Prometheus renderings.
    ("stats", 4),
    // `--journal`: the ring of the last requests every worker records into, and its JSON.
    ("journal", 4),
    // What every protocol's connection shares with the loop: `Env`, `Settings`, buffers, logs.
    ("conn", 5),
    // What a request's answer is, for every protocol: the route whose response is sent (or a
    // malformed variant, or garbage), the status sent and recorded, the hold, the delivery,
    // how the connection ends, and the fault kinds counted, logged and journaled.
    ("plan", 6),
    // The HTTP/1 connection state machine: it executes plans.
    ("h1", 7),
    // The HTTP/2 connection state machine, beside `h1`: the two never import each other.
    ("h2", 7),
    // The WebSocket connection state machine, beside `h1` and `h2`: none imports another.
    ("ws", 7),
    // How a connection's bytes cross its socket (plain TCP and unix; TLS to come), beside the
    // protocols: the loop reads and writes through it, and neither protocol knows it.
    ("transport", 7),
    // The command line: model, builder, option table, environment, help.
    ("config", 8),
    // Signals, timers, shared state, listeners, setup from `Config`, log, the worker loop.
    ("server", 9),
    // Test and fuzz support, behind the `check` feature.
    ("check", 10),
];

/// Imports between two modules of one layer that the layer allows: (from, to).
const SIDEWAYS: &[(&str, &str)] = &[
    // The decoder reports the parser's `Error` and checks its byte classes.
    ("chunked", "parser"),
    // The conditions decide whether the range is resolved, and resolve it.
    ("conditional", "range"),
];

/// The modules of each cargo feature (Cargo.toml's `[features]`): a module path (`h1::echo`
/// is `src/h1/echo.rs`, and covers what is below it) and its feature. A module of one feature
/// may import a module of another only when Cargo.toml declares that feature among the first
/// one's dependencies, directly or through others. Modules not listed are the core's.
const FEATURES: &[(&str, &str)] = &[
    ("h2", "http2"),
    ("fault", "faults"),
    ("fault_value", "faults"),
    ("h1::faults", "faults"),
    ("h1::drip", "faults"),
    ("plan::fault", "faults"),
    ("plan::control", "control"),
    ("control", "control"),
    ("h1::control", "control"),
    ("echo", "echo"),
    ("h1::echo", "echo"),
    ("journal", "journal"),
    ("h1::journal", "journal"),
    ("server::admin", "admin"),
    ("mutate", "mutate"),
    ("h1::ranges", "ranges"),
    ("stats::json", "stats"),
    ("stats::prometheus", "stats"),
];

/// Imports between features that Cargo.toml does not declare, each compiled in every server
/// build today (its module is, its entry points are not): (from, to). To be cut, not added to.
const UNDECLARED: &[(&str, &str)] = &[
    // The journal names the fault and the malformed response a request got.
    ("journal", "faults"),
    ("journal", "mutate"),
    // `--mutate` is sent as a fault: the fault's mutator holds the catalogue.
    ("faults", "mutate"),
    // A request echoed is recorded in the journal with its echo.
    ("echo", "journal"),
    // A range's head formats its numbers with the echo's `decimal`.
    ("ranges", "echo"),
    // HTTP/2 applies the faults, the h2 catalogue, `--control` and the echo to its streams.
    ("http2", "faults"),
    ("http2", "mutate"),
    ("http2", "control"),
    ("http2", "echo"),
    // HTTP/2 records its streams in the journal and reads the journal to a stream.
    ("http2", "journal"),
    // The counters' JSON and Prometheus forms name every fault kind and catalogue id.
    ("stats", "faults"),
    ("stats", "mutate"),
];

/// Files outside the library's module tree.
const SKIP: &[&str] = &[
    // The binary: its own crate, using the library through `canned::`.
    "main.rs",
];

/// A feature's modules import another feature's only when Cargo.toml declares it.
#[test]
fn a_feature_imports_only_the_features_it_declares() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let declared = features_of(&manifest);
    assert!(
        declared.contains_key("faults"),
        "Cargo.toml: no [features] read"
    );
    for (_, f) in FEATURES {
        assert!(
            declared.contains_key(*f),
            "{f}: not a feature of Cargo.toml"
        );
    }
    let mut files = Vec::new();
    read_tree(&root.join("src"), &root.join("src"), &mut files);
    let problems = feature_problems(&files, &declared);
    assert!(
        problems.is_empty(),
        "src/ imports features Cargo.toml does not declare (tests/suite/architecture.rs, FEATURES):\n{}",
        problems.join("\n")
    );
}

/// Each feature of a Cargo.toml's `[features]` table, with every feature it turns on,
/// directly or through others (`dep:` and `crate/feature` entries left out).
fn features_of(manifest: &str) -> BTreeMap<String, BTreeSet<String>> {
    let table = manifest
        .split("\n[features]\n")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default();
    let mut direct: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in table.lines() {
        let line = line.split('#').next().unwrap_or_default();
        let rest = match line.split_once('=') {
            Some((name, rest)) if !name.trim().is_empty() && !name.contains('"') => {
                current = Some(name.trim().to_string());
                rest
            }
            _ => line,
        };
        let Some(name) = &current else { continue };
        let entry = direct.entry(name.clone()).or_default();
        for item in rest.split('"').skip(1).step_by(2) {
            if !item.contains(':') && !item.contains('/') {
                entry.push(item.to_string());
            }
        }
    }
    let mut all = BTreeMap::new();
    for name in direct.keys() {
        let mut seen = BTreeSet::new();
        let mut todo = vec![name.clone()];
        while let Some(f) = todo.pop() {
            for d in direct.get(&f).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    todo.push(d.clone());
                }
            }
        }
        all.insert(name.clone(), seen);
    }
    all
}

/// The feature of a module path (the longest entry of [`FEATURES`] it is in), if any.
fn feature_of(module: &[String]) -> Option<&'static str> {
    let path = module.join("::");
    FEATURES
        .iter()
        .filter(|(m, _)| path == *m || path.starts_with(&format!("{m}::")))
        .max_by_key(|(m, _)| m.len())
        .map(|&(_, f)| f)
}

/// `file:line: module (feature a) -> module (feature b)` for each import of a feature that
/// the importing feature does not declare (nor [`UNDECLARED`] lists).
fn feature_problems(
    files: &[(String, String)],
    declared: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let mut tree = Tree::default();
    for (path, text) in files {
        let rel = path.strip_prefix("src/").unwrap_or(path);
        if SKIP.contains(&rel) || rel.starts_with("bin/") || rel.starts_with("check/") {
            continue;
        }
        tree.add(path, module_of(rel), text);
    }
    let mut problems = BTreeSet::new();
    for file in &tree.files {
        for r in &file.refs {
            let Some(path) = tree.absolute(file, &r.context, &r.segs) else {
                continue;
            };
            let (Some(from), Some(to)) = (feature_of(&r.context), feature_of(&path)) else {
                continue;
            };
            let allowed = from == to
                || declared.get(from).is_some_and(|d| d.contains(to))
                || UNDECLARED.contains(&(from, to));
            if !allowed {
                problems.insert(format!(
                    "{}:{}: {} ({from}) -> {} ({to}), not declared in Cargo.toml",
                    file.path,
                    r.line,
                    r.context.join("::"),
                    path.join("::")
                ));
            }
        }
    }
    problems.into_iter().collect()
}

#[test]
fn an_import_of_an_undeclared_feature_is_reported() {
    let manifest = "[package]\n\n[features]\ndefault = [\"server\"]\nserver = [\"dep:x\"]\n\
                    echo = [\"server\"]\njournal = [\"echo\"]\ncontrol = [\"server\"]\n\n[dependencies]\n";
    let declared = features_of(manifest);
    assert!(declared["journal"].contains("server"));
    let problems = feature_problems(
        &tree(&[
            (
                "src/lib.rs",
                "pub mod echo;\npub mod journal;\npub mod control;\n",
            ),
            ("src/echo.rs", "pub struct Echoed;\n"),
            ("src/journal.rs", "use crate::echo::Echoed;\n"),
            ("src/control.rs", "use crate::echo::Echoed;\n"),
        ]),
        &declared,
    );
    assert_eq!(
        problems,
        ["src/control.rs:1: control (control) -> echo::Echoed (echo), not declared in Cargo.toml"]
    );
}

#[test]
fn imports_point_down_the_layers_and_form_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&src, &src, &mut files);
    assert!(files.len() > 10, "read only {} files of src/", files.len());
    let problems = check(&files);
    assert!(
        problems.is_empty(),
        "src/ breaks its layers (tests/suite/architecture.rs):\n{}",
        problems.join("\n")
    );
}

/// The most code lines a file of `src/` holds: a file that grows past it has two concerns.
const MAX_CODE_LINES: usize = 650;

/// Files allowed past [`MAX_CODE_LINES`]: (path, why).
const LONG_FILES: &[(&str, &str)] = &[
    // One grammar, read top to bottom beside its byte tables: split, it reads worse.
    ("src/parser.rs", "the request-head grammar"),
];

/// Lines of code: neither blank nor only a comment (`//`, `///`, `//!`).
fn code_lines(text: &str) -> usize {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn no_file_but_the_parser_is_over_650_code_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&src, &src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|(path, _)| !LONG_FILES.iter().any(|(p, _)| p == path))
        .map(|(path, text)| (path, code_lines(text)))
        .filter(|&(_, n)| n > MAX_CODE_LINES)
        .map(|(path, n)| format!("{path}: {n} code lines"))
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_CODE_LINES} code lines: split by concern (tests/suite/architecture.rs, LONG_FILES):\n{}",
        long.join("\n")
    );
    assert_eq!(code_lines("// a\n\n  /// b\nfn f() {}\n    //! c\n}\n"), 2);
}

/// docs/architecture.md's Layout section shows the same layers as [`LAYERS`], in the same order.
#[test]
fn the_docs_show_the_layers_of_this_table() {
    let page = include_str!("../../docs/architecture.md");
    let layout = page
        .split("\n## Layout\n")
        .nth(1)
        .expect("a Layout section");
    let shown: Vec<(String, u8)> = layout
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let layer = cells.get(1)?.parse().ok()?;
            let module = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((module.to_string(), layer))
        })
        .collect();
    let table: Vec<(String, u8)> = LAYERS.iter().map(|&(m, l)| (m.to_string(), l)).collect();
    assert_eq!(
        shown, table,
        "docs/architecture.md, Layout: the table of layers"
    );
}

/// Every `.rs` file under `dir`, as (path relative to the crate, text).
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy();
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((format!("src/{rel}"), text));
        }
    }
}

/// The problems of a source tree given as (path under `src/`, text): each import against the
/// table, `file:line: module (layer a) -> module (layer b)`, then each circle of files.
fn check(files: &[(String, String)]) -> Vec<String> {
    let mut tree = Tree::default();
    for (path, text) in files {
        let rel = path.strip_prefix("src/").unwrap_or(path);
        if SKIP.contains(&rel) || rel.starts_with("bin/") {
            continue;
        }
        tree.add(path, module_of(rel), text);
    }
    let mut problems = Vec::new();
    for file in &tree.files {
        let Some(top) = file.module.first() else {
            continue; // the crate root
        };
        if layer(top).is_none() {
            problems.push(format!(
                "{}: module {top} is not in the layer table",
                file.path
            ));
        }
    }
    let mut up = BTreeSet::new();
    let mut arrows: BTreeMap<usize, BTreeMap<usize, usize>> = BTreeMap::new();
    for (i, file) in tree.files.iter().enumerate() {
        for r in &file.refs {
            let Some(path) = tree.absolute(file, &r.context, &r.segs) else {
                continue;
            };
            if let (Some(from), Some(to)) = (file.module.first(), path.first()) {
                if from != to && tree.is_module(to) {
                    let wrong = match (layer(from), layer(to)) {
                        (Some(a), Some(b)) if b > a || (a == b && !sideways(from, to)) => {
                            Some(format!("{from} (layer {a}) -> {to} (layer {b})"))
                        }
                        // Unknown to the table, so not known to be lower.
                        (Some(a), None) => Some(format!("{from} (layer {a}) -> {to} (no layer)")),
                        _ => None,
                    };
                    if let Some(what) = wrong {
                        up.insert((file.path.clone(), r.line, what));
                    }
                }
            }
            if !r.arrow {
                continue;
            }
            let target = tree.resolve(&path, 0);
            if target != i {
                arrows.entry(i).or_default().entry(target).or_insert(r.line);
            }
        }
    }
    for (file, line, what) in up {
        problems.push(format!("{file}:{line}: {what}"));
    }
    for circle in circles(tree.files.len(), &arrows) {
        let names: Vec<_> = circle
            .iter()
            .map(|&f| tree.files[f].path.as_str())
            .collect();
        problems.push(format!("circle: {}", names.join(", ")));
        for &f in &circle {
            for (&t, &line) in arrows.get(&f).into_iter().flatten() {
                if circle.contains(&t) {
                    let (from, to) = (&tree.files[f].path, &tree.files[t].path);
                    problems.push(format!("  {from}:{line} -> {to}"));
                }
            }
        }
    }
    problems
}

fn sideways(from: &str, to: &str) -> bool {
    SIDEWAYS.contains(&(from, to))
}

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|row| row.0 == module).map(|row| row.1)
}

/// `server/mod.rs` -> `server`, `server/worker.rs` -> `server::worker`, `lib.rs` -> the root.
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] {
        parts.pop();
    }
    parts
}

/// One path written in a file.
struct Ref {
    /// Its segments as written (`super`, `crate`, a child module, ...).
    segs: Vec<String>,
    /// The module it is written in: the file's, or an inline module's inside it.
    context: Vec<String>,
    line: usize,
    /// Whether it is an arrow of this file (not a `pub use` that only passes a name on).
    arrow: bool,
}

/// A `use` at a file's top level, for following re-exports.
struct Binding {
    name: String,
    segs: Vec<String>,
}

struct File {
    path: String,
    module: Vec<String>,
    /// Child modules declared with `mod x;`.
    children: BTreeSet<String>,
    refs: Vec<Ref>,
    bindings: Vec<Binding>,
}

#[derive(Default)]
struct Tree {
    files: Vec<File>,
}

impl Tree {
    fn add(&mut self, path: &str, module: Vec<String>, text: &str) {
        let tokens = tokens(text);
        let mut file = File {
            path: path.to_string(),
            module: module.clone(),
            children: BTreeSet::new(),
            refs: Vec::new(),
            bindings: Vec::new(),
        };
        let ident = |i: usize| match tokens.get(i) {
            Some(Tok {
                kind: Kind::Ident(s),
                ..
            }) => Some(s.as_str()),
            _ => None,
        };
        let punct = |i: usize, c: char| matches!(tokens.get(i), Some(Tok { kind: Kind::Punct(p), .. }) if *p == c);
        let sep = |i: usize| {
            matches!(
                tokens.get(i),
                Some(Tok {
                    kind: Kind::Sep,
                    ..
                })
            )
        };
        // Inline modules open now: (name, brace depth inside it).
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0;
        let mut pub_uses = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let context = || {
                let mut c = module.clone();
                c.extend(inline.iter().map(|m| m.0.clone()));
                c
            };
            if punct(i, '{') {
                depth += 1;
            } else if punct(i, '}') {
                if inline.last().is_some_and(|m| m.1 == depth) {
                    inline.pop();
                }
                depth -= 1;
            } else if ident(i) == Some("mod") && ident(i + 1).is_some() {
                let name = ident(i + 1).unwrap().to_string();
                if punct(i + 2, '{') {
                    inline.push((name, depth + 1));
                } else if punct(i + 2, ';') && inline.is_empty() {
                    file.children.insert(name);
                }
            } else if ident(i) == Some("in")
                && punct(i.wrapping_sub(1), '(')
                && ident(i.wrapping_sub(2)) == Some("pub")
            {
                // `pub(in crate::server)` names where an item is visible, not what it uses.
                i = (i..tokens.len())
                    .find(|&k| punct(k, ')'))
                    .unwrap_or(tokens.len());
                continue;
            } else if ident(i) == Some("use") {
                let public =
                    ident(i.wrapping_sub(1)) == Some("pub") || punct(i.wrapping_sub(1), ')');
                let end = (i..tokens.len())
                    .find(|&k| punct(k, ';'))
                    .unwrap_or(tokens.len());
                let mut leaves = Vec::new();
                use_tree(&tokens[i + 1..end], Vec::new(), &mut leaves);
                let line = tokens[i].line;
                for (segs, name) in leaves {
                    if depth == 0 {
                        if let Some(name) = &name {
                            file.bindings.push(Binding {
                                name: name.clone(),
                                segs: segs.clone(),
                            });
                        }
                    }
                    if public {
                        pub_uses.push((file.refs.len(), name.clone(), i, end));
                    }
                    file.refs.push(Ref {
                        segs,
                        context: context(),
                        line,
                        arrow: true,
                    });
                }
                i = end;
                continue;
            } else if let Some(first) = ident(i) {
                let rooted =
                    matches!(first, "crate" | "super" | "self") || file.children.contains(first);
                if rooted && sep(i + 1) && !sep(i.wrapping_sub(1)) {
                    let mut segs = vec![first.to_string()];
                    let mut k = i + 1;
                    while sep(k) && ident(k + 1).is_some() {
                        segs.push(ident(k + 1).unwrap().to_string());
                        k += 2;
                    }
                    file.refs.push(Ref {
                        segs,
                        context: context(),
                        line: tokens[i].line,
                        arrow: true,
                    });
                    i = k;
                    continue;
                }
            }
            i += 1;
        }
        // A `pub use` whose name the file never uses itself only passes the name on.
        for (r, name, start, end) in pub_uses {
            let used = name.is_some_and(|name| {
                (0..tokens.len()).any(|k| (k < start || k > end) && ident(k) == Some(name.as_str()))
            });
            file.refs[r].arrow = used || file.refs[r].segs.last().is_some_and(|s| s == "*");
        }
        self.files.push(file);
    }

    fn is_module(&self, top: &str) -> bool {
        self.files
            .iter()
            .any(|f| f.module.first().is_some_and(|m| m == top))
    }

    /// The absolute module path of `segs` written in `context` of `file`, or `None` for a path
    /// outside the crate (`std::`, a dependency, a local item).
    fn absolute(&self, file: &File, context: &[String], segs: &[String]) -> Option<Vec<String>> {
        let (first, rest) = segs.split_first()?;
        match first.as_str() {
            "crate" => Some(rest.to_vec()),
            "super" => {
                let mut base = context.to_vec();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            "self" => Some(context.iter().chain(rest).cloned().collect()),
            child if file.children.contains(child) => {
                Some(file.module.iter().chain(segs).cloned().collect())
            }
            _ => None,
        }
    }

    /// The file that defines what an absolute path names: the longest prefix that is a file,
    /// then through that file's `use` of the next segment, if it has one.
    fn resolve(&self, path: &[String], hops: usize) -> usize {
        let (file, used) = (0..=path.len())
            .rev()
            .find_map(|k| {
                self.files
                    .iter()
                    .position(|f| f.module == path[..k])
                    .map(|f| (f, k))
            })
            .expect("the crate root is a file");
        let Some(next) = path.get(used) else {
            return file;
        };
        let f = &self.files[file];
        let Some(binding) = f.bindings.iter().find(|b| &b.name == next) else {
            return file;
        };
        match self.absolute(f, &f.module, &binding.segs) {
            Some(mut target) if hops < 16 => {
                target.extend(path[used + 1..].iter().cloned());
                self.resolve(&target, hops + 1)
            }
            _ => file,
        }
    }
}

/// The leaves of a use tree: (path, the name it binds; `None` for a glob, which ends in `*`).
fn use_tree(toks: &[Tok], prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let mut path = prefix;
    let mut i = 0;
    if matches!(
        toks.first(),
        Some(Tok {
            kind: Kind::Sep,
            ..
        })
    ) {
        path.push("::".into()); // `::name`: an extern crate
        i = 1;
    }
    while i < toks.len() {
        match &toks[i].kind {
            Kind::Ident(s) if s == "as" => {
                let name = match toks.get(i + 1).map(|t| &t.kind) {
                    Some(Kind::Ident(n)) => n.clone(),
                    _ => String::new(),
                };
                out.push((path, Some(name)));
                return;
            }
            Kind::Ident(s) => path.push(s.clone()),
            Kind::Sep => {}
            Kind::Punct('*') => {
                path.push("*".into());
                out.push((path, None));
                return;
            }
            Kind::Punct('{') => {
                let mut depth = 0;
                let mut start = i + 1;
                for k in i..toks.len() {
                    match toks[k].kind {
                        Kind::Punct('{') => depth += 1,
                        Kind::Punct('}') => depth -= 1,
                        Kind::Punct(',') if depth == 1 => {
                            use_tree(&toks[start..k], path.clone(), out);
                            start = k + 1;
                        }
                        _ => {}
                    }
                    if depth == 0 {
                        use_tree(&toks[start..k], path.clone(), out);
                        return;
                    }
                }
                return;
            }
            _ => {}
        }
        i += 1;
    }
    if path.last().is_some_and(|s| s == "self") {
        path.pop();
    }
    if let Some(name) = path.last().cloned() {
        out.push((path, Some(name)));
    }
}

/// The strongly connected groups of two files or more (Tarjan), each sorted.
fn circles(n: usize, arrows: &BTreeMap<usize, BTreeMap<usize, usize>>) -> Vec<Vec<usize>> {
    struct State<'a> {
        arrows: &'a BTreeMap<usize, BTreeMap<usize, usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s
            .arrows
            .get(&v)
            .into_iter()
            .flat_map(|t| t.keys().copied())
            .collect();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort_unstable();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        arrows,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    line: usize,
}

/// The code's tokens, without comments and literals, each with its line.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Skip a quoted literal from its opening quote; returns the index after it.
    let skip_quoted = |mut i: usize, quote: char, line: &mut usize| {
        i += 1;
        while i < c.len() && c[i] != quote {
            if c[i] == '\\' {
                i += 1;
            }
            if c.get(i) == Some(&'\n') {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_quoted(i, '"', &mut line);
        } else if ch == '\'' {
            // A char literal ('x', '\n') or a lifetime ('a): only the first has a closing quote
            // one character on.
            if next == Some('\\') || c.get(i + 2) == Some(&'\'') {
                i = skip_quoted(i, '\'', &mut line);
            } else {
                i += 1;
            }
        } else if ch.is_ascii_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && matches!(c.get(i), Some('#' | '"')) {
                let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
                if c.get(i + hashes) == Some(&'"') {
                    // A raw string: ends at a quote followed by as many hashes.
                    i += hashes + 1;
                    while i < c.len()
                        && !(c[i] == '"'
                            && c[i + 1..]
                                .iter()
                                .take(hashes)
                                .filter(|&&h| h == '#')
                                .count()
                                == hashes)
                    {
                        line += usize::from(c[i] == '\n');
                        i += 1;
                    }
                    i += 1 + hashes;
                    continue;
                }
                if word == "r" && hashes == 1 {
                    i += 1; // `r#ident`: the identifier follows
                    continue;
                }
            }
            if matches!(word.as_str(), "b" | "c") && matches!(c.get(i), Some('"' | '\'')) {
                i = skip_quoted(i, c[i], &mut line);
                continue;
            }
            out.push(Tok {
                kind: Kind::Ident(word),
                line,
            });
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok {
                kind: Kind::Punct('0'),
                line,
            });
        } else if ch == ':' && next == Some(':') {
            out.push(Tok {
                kind: Kind::Sep,
                line,
            });
            i += 2;
        } else {
            out.push(Tok {
                kind: Kind::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}

/// A tree from (path, text) pairs.
#[cfg(test)]
fn tree(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

#[test]
fn an_import_up_the_layers_is_reported_with_its_line() {
    let problems = check(&tree(&[
        ("src/lib.rs", "pub mod parser;\npub mod config;\n"),
        (
            "src/parser.rs",
            "//! The grammar.\n\nuse crate::config::Config;\n",
        ),
        (
            "src/config.rs",
            "//! The command line.\npub struct Config;\n",
        ),
    ]));
    assert_eq!(
        problems,
        ["src/parser.rs:3: parser (layer 0) -> config (layer 8)"]
    );
}

#[test]
fn an_inline_path_a_test_module_and_a_sibling_of_one_layer_are_arrows_too() {
    let problems = check(&tree(&[
        ("src/lib.rs", ""),
        ("src/h1.rs", "fn f() { let _ = super::h2::X; }\n"),
        ("src/h2.rs", "pub const X: u8 = 0;\n"),
        (
            "src/response.rs",
            "#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::server::Server;\n}\n",
        ),
        ("src/server/mod.rs", "pub struct Server;\n"),
    ]));
    assert_eq!(
        problems,
        [
            "src/h1.rs:1: h1 (layer 7) -> h2 (layer 7)",
            "src/response.rs:4: response (layer 2) -> server (layer 9)",
        ]
    );
}

#[test]
fn files_that_import_each_other_are_a_circle() {
    let problems = check(&tree(&[
        ("src/lib.rs", "pub mod server;\n"),
        (
            "src/server/mod.rs",
            "mod worker;\nuse worker::Worker;\npub(crate) struct Shared;\n",
        ),
        (
            "src/server/worker.rs",
            "use super::Shared;\npub(crate) struct Worker;\n",
        ),
    ]));
    assert_eq!(
        problems,
        [
            "circle: src/server/mod.rs, src/server/worker.rs",
            "  src/server/mod.rs:2 -> src/server/worker.rs",
            "  src/server/worker.rs:1 -> src/server/mod.rs",
        ]
    );
}

#[test]
fn comments_strings_own_files_and_re_exports_are_not_arrows_up_or_around() {
    let problems = check(&tree(&[
        (
            "src/lib.rs",
            "//! See [`crate::server::Server`].\npub mod conn;\npub mod server;\n",
        ),
        (
            "src/conn/mod.rs",
            "//! Uses nothing of [`crate::server`].\nmod env;\nmod pool;\npub use env::Env;\npub use pool::Pool;\n\
             const DOC: &str = \"crate::server::Server\";\nconst R: &str = r#\"use crate::server;\"#;\n\
             fn f<'a>(x: &'a u8) -> char { let _ = x; '\"' }\n",
        ),
        ("src/conn/env.rs", "pub struct Env;\n"),
        (
            "src/conn/pool.rs",
            "use super::Env;\npub struct Pool;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::conn::Env;\n}\n",
        ),
        (
            "src/server/mod.rs",
            "mod shared;\nmod worker;\nuse shared::Shared;\nuse worker::Worker;\nuse crate::conn::{Pool, self};\npub struct Server;\n",
        ),
        ("src/server/shared.rs", "pub(crate) struct Shared;\n"),
        (
            "src/server/worker.rs",
            "use super::shared::{self, Shared};\nuse crate::conn::Env;\npub(crate) struct Worker;\n",
        ),
    ]));
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn a_visibility_path_is_no_arrow() {
    let files = tree(&[
        ("src/server/mod.rs", "mod worker;\nuse worker::Worker;\n"),
        (
            "src/server/worker.rs",
            "pub(in crate::server) struct Worker;\npub(in super) fn f() {}\n",
        ),
    ]);
    assert_eq!(check(&files), Vec::<String>::new());
}

#[test]
fn a_module_missing_from_the_table_is_reported() {
    let problems = check(&tree(&[("src/lib.rs", ""), ("src/gadgets.rs", "")]));
    assert_eq!(
        problems,
        ["src/gadgets.rs: module gadgets is not in the layer table"]
    );
}
