//! docs/options.md generated from the option table (each row's `docs`, its reference text,
//! and `COMMAND_DOCS` for the commands), and the tests that every generated file (docs/options.md, the man page, the
//! completions) matches the table: `CANNED_BLESS=1 cargo test --lib contrib_files` rewrites them.

use super::*;

/// docs/options.md: its text before the tables (after the title).
const OPTIONS_INTRO: &str = r#"Every option can also be set from the environment variable in brackets. A flag replaces that
variable whole, for every option: any `--header` replaces all `CANNED_HEADER` lines, any
`--route` all `CANNED_ROUTE` lines, `--health` replaces `CANNED_HEALTH`. A flag also replaces
the variables of the options it conflicts with (`--port` replaces `CANNED_LISTEN`, `--listen`
replaces `PORT`). Two conflicting options given the same way, as two flags (`--body` with
`--body-file`) or two variables (`PORT` with `CANNED_LISTEN`), are an error naming both, and so
is a flag given twice that takes one value. A variable's value reads like the flag's (an empty
`CANNED_SERVER` omits the header, an empty `CANNED_WORKERS` is an error); a switch's variable is
`1` or `true`, `0`, `false` or empty. `CANNED_PORT` is not read: Kubernetes sets it (to
`tcp://IP:PORT`) for a Service named `canned`.

Durations are written `10s`, `500ms`, `2m` or `1h`, and are at most 1h, in every option,
fault and control (`--delay 2h`: "is too long (at most 1h)"). A number without its unit is
refused, as it means milliseconds to some tools and seconds to others (`--delay 500`: "has no
unit: write 500ms or 500s"); `0` (the same in both) is taken where zero means something, as a
control's `delay=0`. go-httpbin's paths keep go-httpbin's meaning: `/delay/3` is 3 seconds. Sizes, in every option and
fault alike, are bytes (`512` or `512B`) or a number with `K` or `KiB`, `M` or `MiB`, `G` or
`GiB` (powers of 1024; a lone letter may be lower-case). Arguments and variables need not be
UTF-8, except the values canned reads. A bad flag or value prints one line naming the flag (or
variable) and what is wrong, exits 2, and starts nothing; so does an unknown flag or a stray
argument beside a command (`--help extra`). A switch takes no value (`--quiet yes` is an error
saying so; `--access-log` takes an optional `json` or `text`). The options are grouped as in
`--help`."#;

/// docs/options.md: its text after the tables.
const OPTIONS_OUTRO: &str = r#"`contrib/canned.1` is the man page and `contrib/completions/` holds the bash, zsh and fish
completions, all generated from the option table (a test fails when they drift from it:
`CANNED_BLESS=1 cargo test --lib contrib_files` rewrites them). The binary carries them, for a
`cargo install` without the source tree:

```sh
mkdir -p ~/.local/share/man/man1 ~/.local/share/bash-completion/completions ~/.config/fish/completions
canned --man > ~/.local/share/man/man1/canned.1                      # then: man canned
canned --completions bash > ~/.local/share/bash-completion/completions/canned
canned --completions fish > ~/.config/fish/completions/canned.fish
```

For zsh, write `canned --completions zsh` as `_canned` into a directory of `$fpath` (in zsh,
`"${fpath[1]}/_canned"`; in bash that expression is `/_canned`).

No two of `--route`, `--redirect`, `--health`, `--stats`, `--metrics`, `--echo` and `--journal-path` may answer the same path."#;

/// Each command's row in docs/options.md beyond what `--help` says (an option's is its table
/// row's `docs`): flag, default, meaning. Every command has one (a test fails otherwise).
const COMMAND_DOCS: [(&str, &str, &str); 6] = [
    (
        r#"--mutate-list"#,
        r#""#,
        r#"print the ids of the malformed-response catalogue, one a line, and exit"#,
    ),
    (
        r#"--tls-list"#,
        r#""#,
        r#"print the TLS certificate cases and handshake faults, one a line: the name (for `--tls-case`, or as the first label of the SNI name, `expired.localhost`) and what a correct client does, and exit"#,
    ),
    (
        r#"--man"#,
        r#""#,
        r#"print the man page (`contrib/canned.1`) and exit: `canned --man \| man -l -`"#,
    ),
    (
        r#"--completions"#,
        r#""#,
        r#"print the completions for `bash`, `zsh` or `fish` (`contrib/completions/`) and exit"#,
    ),
    (
        r#"--help"#,
        r#""#,
        r#"print the options, grouped as here, and exit"#,
    ),
    (
        r#"--version"#,
        r#""#,
        r#"print the version and, for a build from a git checkout, the commit (`canned 0.1.0 (490a480f6973)`: `git describe --always --tags --abbrev=12`, so 12 hex digits where plain `git describe` shows 7), and exit"#,
    ),
];

/// An option's docs (its row of the option table) or a command's (its row of
/// [`COMMAND_DOCS`]): its default and meaning.
fn option_doc(flag: &str) -> (String, &'static str) {
    let row = OPTIONS.iter().find(|o| o.flag() == flag).map(|o| o.docs);
    let row = row.or_else(|| {
        let row = COMMAND_DOCS.iter().find(|(f, _, _)| *f == flag);
        row.map(|&(_, default, meaning)| (default, meaning))
    });
    let (default, meaning) = row.unwrap_or_else(|| panic!("COMMAND_DOCS has no row for {flag}"));
    // The cell between two bars, empty as `| |`.
    let default = match default {
        "" => String::new(),
        d => format!(" {d}"),
    };
    (default, meaning)
}

/// docs/options.md: the prose around the tables, and one table per `--help` section, each row
/// the option's usage, its default and meaning (its `docs`) and its variable, as the table
/// has them; the commands close the last section.
pub(super) fn options_page() -> String {
    let mut p = String::from(
        "# Options\n\n<!-- Generated from the option table (src/config/options/table.rs) by \
         src/config/contrib/: CANNED_BLESS=1 cargo test --lib contrib_files -->\n\n",
    );
    p.push_str(OPTIONS_INTRO);
    p.push('\n');
    for o in OPTIONS {
        let (usage, var, _, title) = o.texts();
        if !title.is_empty() {
            p.push_str(&format!(
                "\n## {title}\n\n| option | default | meaning |\n|---|---|---|\n"
            ));
        }
        let (default, meaning) = option_doc(o.flag());
        let how = match (o.kind, o.repeat) {
            (ValueKind::Switch(_), _) => "=1`",
            (_, Repeat::Many { sep: b',', .. }) => "`, comma-separated",
            (_, Repeat::Many { .. }) => "`, one per line",
            (_, Repeat::Once) => "`",
        };
        p.push_str(&format!(
            "| `{usage}` |{default} | {meaning} [`{var}{how}] |\n"
        ));
    }
    for &(flag, short, (value, _), _) in COMMANDS {
        let (default, meaning) = option_doc(flag);
        let usage = match (short, value) {
            ("", "") => format!("`{flag}`"),
            ("", _) => format!("`{flag} {value}`"),
            _ => format!("`{short}`, `{flag}`"),
        };
        p.push_str(&format!("| {usage} |{default} | {meaning} |\n"));
    }
    p.push('\n');
    p.push_str(OPTIONS_OUTRO);
    p.push('\n');
    p
}

/// Every command has its row in `COMMAND_DOCS` (an option's is in its table row), and every row
/// is a command.
#[test]
fn option_docs_cover_the_table() {
    let flags: Vec<&str> = OPTIONS
        .iter()
        .map(Opt::flag)
        .chain(COMMANDS.iter().map(|c| c.0))
        .collect();
    for flag in &flags {
        option_doc(flag);
    }
    for (flag, _, _) in COMMAND_DOCS {
        assert!(
            COMMANDS.iter().any(|c| c.0 == flag),
            "COMMAND_DOCS: {flag} is not a command"
        );
    }
}

/// Every generated file: its path under the crate and its text.
#[cfg(feature = "mutate")]
fn files() -> [(&'static str, String); 5] {
    [
        ("docs/options.md", options_page()),
        ("contrib/canned.1", man_page()),
        ("contrib/completions/canned.bash", bash_completion()),
        ("contrib/completions/_canned", zsh_completion()),
        ("contrib/completions/canned.fish", fish_completion()),
    ]
}

/// The checked-in files are what the option table makes of them; with `CANNED_BLESS=1` they
/// are rewritten. Where the shells and groff are installed, each file then passes their
/// syntax check.
#[cfg(all(
    feature = "http2",
    feature = "faults",
    feature = "control",
    feature = "echo",
    feature = "journal",
    feature = "admin",
    feature = "mutate",
    feature = "ranges",
    feature = "stats",
    feature = "access-log"
))]
#[test]
fn contrib_files_match_the_option_table() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("CANNED_BLESS").is_some_and(|v| v == "1");
    for (path, text) in files() {
        let file = root.join(path);
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &text).unwrap();
        }
        let stored = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            stored == text,
            "{path} differs from the option table: run CANNED_BLESS=1 cargo test --lib contrib_files"
        );
        for flag in OPTIONS
            .iter()
            .map(Opt::flag)
            .chain(COMMANDS.iter().map(|c| c.0))
        {
            let name = if path.ends_with(".1") {
                roff(flag)
            } else {
                flag.to_string()
            };
            let name = if path.ends_with(".fish") {
                format!("-l {}", &flag[2..])
            } else {
                name
            };
            assert!(stored.contains(&name), "{path} lacks {flag}");
        }
    }
    check_with_their_tools();
}

/// Every example of the man page is a command line canned takes (up to a shell redirection).
#[test]
fn man_page_examples_parse() {
    let built = |args: &[&str]| !args.iter().any(|a| ABSENT.iter().any(|x| x.0 == *a));
    for (what, args) in EXAMPLES.into_iter().filter(|e| built(e.1)) {
        let args = args.iter().take_while(|a| **a != ">");
        let got = crate::config::Config::from_args(args, &[]);
        assert!(got.is_ok(), "{what}: {got:?}");
    }
}

/// Syntax checks by the tools themselves, where they are installed (skipped, with a line
/// saying so, where they are not).
#[cfg(all(
    feature = "http2",
    feature = "faults",
    feature = "control",
    feature = "echo",
    feature = "journal",
    feature = "admin",
    feature = "mutate",
    feature = "ranges",
    feature = "stats",
    feature = "access-log"
))]
fn check_with_their_tools() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let checks: [(&str, &[&str], &str); 4] = [
        ("bash", &["-n"], "contrib/completions/canned.bash"),
        ("zsh", &["-n"], "contrib/completions/_canned"),
        ("fish", &["--no-execute"], "contrib/completions/canned.fish"),
        ("groff", &["-man", "-ww", "-z"], "contrib/canned.1"),
    ];
    for (tool, args, path) in checks {
        let out = std::process::Command::new(tool)
            .args(args)
            .arg(root.join(path))
            .output();
        match out {
            Err(_) => eprintln!("{tool} not installed: {path} not checked"),
            Ok(o) => assert!(
                o.status.success() && o.stderr.is_empty(),
                "{tool} {path}: {}",
                String::from_utf8_lossy(&o.stderr)
            ),
        }
    }
}
