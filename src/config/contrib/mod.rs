//! The man page and the shell completions, generated from the option table of this build
//! (`--man`, `--completions`: they list the options of the features built), docs/options.md,
//! and the test that fails when the files under `contrib/` and docs/options.md, those of the
//! default build, drift from it. `CANNED_BLESS=1 cargo test --lib contrib_files` rewrites them.

use super::help::{HELP_INTRO, Shell};
use super::options::{ABSENT, OPTIONS, Opt, Repeat, ValueKind};
use crate::values::split_at_byte;

/// The commands outside the table (`HELP_END`): flag, short flag, value (placeholder and the
/// words it takes, or ""), what it does.
const COMMANDS: &[(&str, &str, (&str, &str), &str)] = &[
    #[cfg(feature = "mutate")]
    (
        "--mutate-list",
        "",
        ("", ""),
        "Print the ids of the malformed-response catalogue (for --mutate-id), one a line",
    ),
    #[cfg(feature = "tls")]
    (
        "--tls-list",
        "",
        ("", ""),
        "Print the TLS certificate cases and handshake faults (for --tls-case), one a line, with what a correct client does",
    ),
    (
        "--man",
        "",
        ("", ""),
        "Print the man page (canned --man | man -l -)",
    ),
    (
        "--completions",
        "",
        ("SHELL", "bash zsh fish"),
        "Print the completions for SHELL: bash, zsh or fish",
    ),
    ("--help", "-h", ("", ""), "Print the options and exit"),
    (
        "--version",
        "-V",
        ("", ""),
        "Print the version and the commit it was built from, and exit",
    ),
];

/// The man page's EXAMPLES: what each does, and its arguments. Each parses (a test runs them
/// through the command line's reader).
const EXAMPLES: [(&str, &[&str]); 9] = [
    (
        "A load-test target on port 8080 of every interface, one worker per CPU:",
        &[],
    ),
    (
        "A health check beside the default response:",
        &["--health", "/healthz"],
    ),
    (
        "Routes with a status and a body of their own:",
        &[
            "--route",
            "/v1/ping=204",
            "--route",
            "/v1/missing=404:no such thing",
        ],
    ),
    (
        "A slow endpoint, and one path that fails 10% of its requests:",
        &[
            "--fault",
            "/slow=latency:500ms",
            "--fault",
            "/flaky=error:10%:503",
        ],
    ),
    (
        "Fail the first two requests to /retry, then succeed:",
        &["--fault", "/retry=seq:503,503,ok"],
    ),
    (
        "Answer /echo with the request it received, as JSON:",
        &["--echo", "/echo"],
    ),
    (
        "A malformed response of the catalogue for every request, to test a client:",
        &["--mutate-id", "cl-negative"],
    ),
    (
        "Faults changed while canned runs, from the admin API on 127.0.0.1:9090:",
        &["--admin", "9090"],
    ),
    (
        "Install the completions for bash:",
        &[
            "--completions",
            "bash",
            ">",
            "~/.local/share/bash-completion/completions/canned",
        ],
    ),
];

/// `--completions SHELL`: the completions, generated as the man page is (the default build's
/// are under `contrib/completions/`).
pub fn completions(shell: Shell) -> String {
    match shell {
        Shell::Bash => bash_completion(),
        Shell::Zsh => zsh_completion(),
        Shell::Fish => fish_completion(),
    }
}

/// An option's help as one line.
fn one_line(o: &Opt) -> String {
    o.texts().2.replace('\n', " ")
}

/// The start of an option's help, up to its first clause: a completion's description.
fn summary(o: &Opt) -> String {
    let text = one_line(o);
    let end = [";", " (", ": "]
        .iter()
        .filter_map(|sep| text.find(sep))
        .min()
        .unwrap_or(text.len());
    text[..end].to_string()
}

/// The placeholder of an option's value (`ADDR`, `'NAME: VALUE'`), or "" for a switch.
fn value_name(o: &Opt) -> &'static str {
    split_at_byte(o.texts().0, b' ').1
}

fn takes_file(o: &Opt) -> bool {
    matches!(o.kind, ValueKind::File(_))
}

/// The catalogue's ids, space-separated: `--mutate-id`'s values.
#[cfg(feature = "mutate")]
fn mutate_ids() -> String {
    crate::mutate::ids().collect::<Vec<_>>().join(" ")
}

/// Text for roff: backslashes and hyphens escaped, a line never starting with a control
/// character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    match escaped.chars().next() {
        Some('.' | '\'') => format!("\\&{escaped}"),
        _ => escaped,
    }
}

/// `--man`: the man page, generated from the option table of this build (the default build's
/// is `contrib/canned.1`, and a test fails when that file drifts from it).
pub fn man_page() -> String {
    let mut m = String::new();
    m.push_str(
        ".\\\" Generated from the option table of src/config/options/table.rs; see docs/options.md.\n",
    );
    m.push_str(".TH CANNED 1 \"\" \"canned\" \"User Commands\"\n");
    m.push_str(
        ".SH NAME\ncanned \\- a tiny, fast HTTP/1.1 and HTTP/2 (h2c) test endpoint and responder\n",
    );
    m.push_str(".SH SYNOPSIS\n.B canned\n[\\fIOPTIONS\\fR]\n");
    m.push_str(".SH DESCRIPTION\n");
    let intro = HELP_INTRO.split("\n\n").nth(2).unwrap_or_default();
    m.push_str(&roff(&intro.replace('\n', " ")));
    m.push_str("\n.PP\nA bad flag or value prints one line naming it and exits 2.\n");
    m.push_str(".SH OPTIONS\n");
    for o in OPTIONS {
        let (usage, var, _, title) = o.texts();
        if !title.is_empty() {
            m.push_str(&format!(".SS {}\n", roff(title)));
        }
        let value = value_name(o);
        m.push_str(".TP\n");
        if value.is_empty() {
            m.push_str(&format!(".B {}\n", roff(usage)));
        } else {
            m.push_str(&format!(
                ".BI \"{} \" \"{}\"\n",
                roff(o.flag()),
                roff(value).replace('"', "\\(dq")
            ));
        }
        let repeat = match o.repeat {
            Repeat::Many { sep: b',', .. } => ", comma-separated",
            Repeat::Many { .. } => ", one per line",
            Repeat::Once => "",
        };
        let set = if matches!(o.kind, ValueKind::Switch(_)) {
            "=1"
        } else {
            ""
        };
        m.push_str(&format!(
            "{}\n[\\fB{}\\fR{set}{repeat}]\n",
            roff(&one_line(o)),
            roff(var)
        ));
    }
    m.push_str(".SS Commands\n");
    for &(flag, short, (value, _), what) in COMMANDS {
        m.push_str(".TP\n");
        match (short, value) {
            ("", "") => m.push_str(&format!(".B {}\n", roff(flag))),
            ("", _) => m.push_str(&format!(".BI \"{} \" \"{}\"\n", roff(flag), roff(value))),
            _ => m.push_str(&format!(".BR {} \", \" {}\n", roff(short), roff(flag))),
        }
        m.push_str(&format!("{}\n", roff(what)));
    }
    m.push_str(".SH EXIT STATUS\n");
    for (status, when) in [
        (
            "0",
            "After SIGTERM, SIGINT, SIGHUP or SIGQUIT, each of which drains: canned stops \
             accepting, writes the responses in flight, and exits once they are written, when \
             --shutdown-timeout ends the wait, or at a second such signal. Also after \
             --help, --version, --mutate-list, --tls-list, --man and --completions.",
        ),
        (
            "1",
            "A listener or the --admin address cannot be opened (the message says what holds \
             it), a file of --tls-cert, --tls-key or --tls-client-ca cannot be read or holds \
             no certificate or key that fits, --tls-ca-out would replace a file that is not a \
             certificate, the workers do not fit in the descriptor limit, the signal handlers cannot \
             be installed, a worker's poll fails; or a command's text cannot be written to \
             standard output.",
        ),
        (
            "2",
            "A bad flag or value, or flags that cannot go together (--tls-cert without \
             --tls-key), named in one line on standard error; nothing is started. This holds \
             beside a command such as --help too: an unknown flag or a stray argument \
             is an error there as well.",
        ),
    ] {
        m.push_str(&format!(".TP\n.B {status}\n{}\n", roff(when)));
    }
    m.push_str(
        ".PP\nSIGUSR1 and SIGUSR2 are ignored; SIGPIPE too (a client gone is an error of its \
         connection).\n",
    );
    m.push_str(".SH EXAMPLES\n");
    // Those whose options this build has.
    let built = |args: &[&str]| !args.iter().any(|a| ABSENT.iter().any(|x| x.0 == *a));
    for (what, args) in EXAMPLES.into_iter().filter(|e| built(e.1)) {
        let line = std::iter::once("canned")
            .chain(args.iter().copied())
            .map(shell_word)
            .collect::<Vec<_>>()
            .join(" ");
        m.push_str(&format!(
            ".PP\n{}\n.PP\n.RS\n.EX\n{}\n.EE\n.RE\n",
            roff(what),
            roff(&line)
        ));
    }
    m.push_str(
        ".SH SEE ALSO\n\
         The docs/ folder of the source tree: every option (docs/options.md), the faults, the malformed-response \
         catalogue, the limits.\n",
    );
    m
}

/// An argument as typed in a shell: quoted when it holds a space, `>` and `~` left as they are.
fn shell_word(arg: &str) -> String {
    if arg.contains([' ', '*', '?', '\'', '"', '$']) {
        format!("'{arg}'")
    } else {
        arg.to_string()
    }
}

pub(super) fn bash_completion() -> String {
    let flags: Vec<&str> = OPTIONS
        .iter()
        .map(Opt::flag)
        .chain(COMMANDS.iter().flat_map(|c| [c.0, c.1]))
        .filter(|f| !f.is_empty())
        .collect();
    let files: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| takes_file(o))
        .map(Opt::flag)
        .collect();
    let values: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| !takes_file(o) && !value_name(o).is_empty() && o.flag() != "--mutate-id")
        .map(Opt::flag)
        .collect();
    format!(
        "# bash completion for canned, generated from its option table (docs/options.md).\n\
         _canned() {{\n\
         \x20   local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         \x20   case \"$prev\" in\n\
         \x20       {files})\n\
         \x20           COMPREPLY=($(compgen -f -- \"$cur\"))\n\
         \x20           return ;;\n\
         {ids}\
         \x20       --completions)\n\
         \x20           COMPREPLY=($(compgen -W \"{shells}\" -- \"$cur\"))\n\
         \x20           return ;;\n\
         \x20       {values})\n\
         \x20           return ;;\n\
         \x20   esac\n\
         \x20   COMPREPLY=($(compgen -W \"{flags}\" -- \"$cur\"))\n\
         }}\n\
         complete -F _canned canned\n",
        files = files.join("|"),
        values = values.join("|"),
        ids = mutate_id_case(),
        shells = SHELLS,
        flags = flags.join(" "),
    )
}

/// The words `--completions` takes.
const SHELLS: &str = "bash zsh fish";

/// Bash's case for `--mutate-id`'s values, with the `mutate` feature.
fn mutate_id_case() -> String {
    #[cfg(feature = "mutate")]
    return format!(
        "\x20       --mutate-id)\n\
         \x20           COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n\
         \x20           return ;;\n",
        mutate_ids()
    );
    #[cfg(not(feature = "mutate"))]
    String::new()
}

/// A description inside a zsh `_arguments` spec: brackets and quotes escaped.
fn zsh_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
        .replace(':', "\\:")
        .replace('\'', "'\\''")
}

pub(super) fn zsh_completion() -> String {
    let mut z = String::from(
        "#compdef canned\n\
         # zsh completion for canned, generated from its option table (docs/options.md).\n\
         _arguments \\\n",
    );
    for o in OPTIONS {
        let many = if matches!(o.repeat, Repeat::Many { .. }) {
            "*"
        } else {
            ""
        };
        let value = value_name(o);
        let action = match o.kind {
            ValueKind::Switch(_) => String::new(),
            ValueKind::File(_) => format!(":{}:_files", zsh_text(value)),
            #[cfg(feature = "mutate")]
            ValueKind::MutateId => format!(":{}:({})", zsh_text(value), mutate_ids()),
            _ => format!(":{}: ", zsh_text(value)),
        };
        z.push_str(&format!(
            "  '{many}{}[{}]{action}' \\\n",
            o.flag(),
            zsh_text(&summary(o))
        ));
    }
    for &(flag, short, (value, words), what) in COMMANDS {
        let names = match short {
            "" => flag.to_string(),
            _ => format!("{{{short},{flag}}}"),
        };
        let what = zsh_text(what);
        let action = match value {
            "" => String::new(),
            _ => format!(":{value}:({words})"),
        };
        match short {
            "" => z.push_str(&format!("  '{names}[{what}]{action}' \\\n")),
            _ => z.push_str(&format!("  '({short} {flag})'{names}'[{what}]' \\\n")),
        }
    }
    z.truncate(z.len() - 3);
    z.push('\n');
    z
}

pub(super) fn fish_completion() -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"));
    let mut f = String::from(
        "# fish completion for canned, generated from its option table (docs/options.md).\n",
    );
    for o in OPTIONS {
        let long = &o.flag()[2..];
        let how = match o.kind {
            ValueKind::Switch(_) => String::new(),
            ValueKind::File(_) => " -r -F".to_string(),
            #[cfg(feature = "mutate")]
            ValueKind::MutateId => format!(" -x -a {}", quote(&mutate_ids())),
            _ => " -x".to_string(),
        };
        f.push_str(&format!(
            "complete -c canned -l {long}{how} -d {}\n",
            quote(&summary(o))
        ));
    }
    for &(flag, short, (_, words), what) in COMMANDS {
        let short = match short {
            "" => String::new(),
            s => format!(" -s {}", &s[1..]),
        };
        let how = match words {
            "" => String::new(),
            _ => format!(" -x -a {}", quote(words)),
        };
        f.push_str(&format!(
            "complete -c canned{short} -l {}{how} -d {}\n",
            &flag[2..],
            quote(what)
        ));
    }
    f
}

/// docs/options.md, its table of options, and the checks of every generated file.
#[cfg(test)]
mod docs;
