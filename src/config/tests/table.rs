//! The option table checked option by option: the precedence of flags over variables, every
//! conflicting pair, the bounds of repeatable options, and the option table of docs/options.md and
//! `--help` against the table.

use super::{run, run_env, scratch};
use crate::config::args::find;
use crate::config::help::help;
#[cfg(feature = "tls")]
use crate::config::options::Text;
use crate::config::options::{OPTIONS, Opt, Repeat, ValueKind};

/// For every repeatable option: its most values are accepted, one more is an error, as
/// flags and in its variable.
#[test]
fn repeatable_options_are_bounded() {
    for o in OPTIONS {
        let Repeat::Many { sep, most } = o.repeat else {
            continue;
        };
        let values: Vec<String> = (1..=u32::from(most) + 1)
            .map(|i| match o.kind {
                ValueKind::Address => format!("127.0.0.1:{i}"),
                ValueKind::Header => format!("X-{i}: v"),
                ValueKind::Route => format!("/{i}=200"),
                #[cfg(feature = "faults")]
                ValueKind::Fault => format!("/{i}=stall"),
                #[cfg(feature = "echo")]
                ValueKind::Echo => format!("/{i}=text"),
                ValueKind::Text(_) => format!("n{i}.test"),
                ValueKind::Path(_) => format!("/{i}"),
                ValueKind::Redirect => format!("/{i}=302:/"),
                ValueKind::RouteHeader => format!("/r=X-{i}: v"),
                _ => panic!("{}: no sample values", o.flag()),
            })
            .collect();
        let route = needed_args(o);
        let route: Vec<&str> = route.iter().map(String::as_str).collect();
        let route = &route[..];
        let args: Vec<&str> = route
            .iter()
            .copied()
            .chain(values.iter().flat_map(|v| [o.flag(), v]))
            .collect();
        let want = format!("{}: {} values given, at most {most}", o.flag(), most + 1);
        assert_eq!(run(&args).unwrap_err(), want);
        let env = values.join(&char::from(sep).to_string());
        let want = format!("{}: {} values given, at most {most}", o.var(), most + 1);
        assert_eq!(run_env(route, &[(o.var(), &env)]).unwrap_err(), want);
        let fewer: Vec<&str> = route
            .iter()
            .chain(&args[route.len() + 2..])
            .copied()
            .collect();
        assert!(run(&fewer).is_ok(), "{}", o.flag());
    }
}

/// Two different valid values (for the environment, for the flag) of `o`'s kind; list
/// variables hold two items. Files are created under `dir`.
fn samples(o: &Opt, dir: &std::path::Path) -> (String, String) {
    let file = |name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, name).unwrap();
        p.to_str().unwrap().to_string()
    };
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    match o.kind {
        ValueKind::Switch(_) => pair("1", ""),
        // Neither is a default.
        ValueKind::Count { max, .. } | ValueKind::Size { max, .. } => {
            ((max - 1).to_string(), max.to_string())
        }
        ValueKind::Duration(_) => pair("1s", "2s"),
        ValueKind::Path(_) => pair("/env", "/flag"),
        ValueKind::File(_) => (file("env"), file("flag")),
        ValueKind::Address => pair("127.0.0.1:1,127.0.0.1:3", "127.0.0.1:2"),
        ValueKind::Header => pair("X-Env: 1\nX-Env-2: 1", "X-Flag: 2"),
        #[cfg(feature = "tls")]
        ValueKind::Text(Text::TlsCase) => pair("expired", "stall@10%"),
        ValueKind::FieldValue(_) | ValueKind::Text(_) => pair("env", "flag"),
        ValueKind::Route => pair("/env=200\n/env2=200", "/flag=201"),
        ValueKind::Methods => pair("GET", "POST,PUT"),
        #[cfg(feature = "faults")]
        ValueKind::Fault => pair("/env=stall\n/env2=reset:0", "/flag=truncate:1"),
        #[cfg(feature = "mutate")]
        ValueKind::MutateId => pair("cl-hex", "cl-negative"),
        #[cfg(feature = "echo")]
        ValueKind::Echo => pair("/env\n/env2=garden", "*=text"),
        #[cfg(feature = "admin")]
        ValueKind::Admin => pair("127.0.0.1:9091", "9092"),
        #[cfg(feature = "ranges")]
        ValueKind::EntityTag => pair("\"env\"", "W/\"flag\""),
        ValueKind::Redirect => pair("/env=302:/a\n/env2=301:/b", "/flag=307:/c"),
        // With `--route /r=200` (see [`needed_args`]).
        ValueKind::RouteHeader => pair("/r=X-Env: 1\n/r=X-Env-2: 1", "/r=X-Flag: 2"),
        ValueKind::ConfigFile => {
            let config = |name: &str| {
                let p = dir.join(name);
                std::fs::write(&p, format!("# a comment\n--body {name}\n")).unwrap();
                p.to_str().unwrap().to_string()
            };
            (config("env.conf"), config("flag.conf"))
        }
    }
}

/// The flags an option's samples need beside the table's relations: a route for
/// `--route-header`, a `tls:` listener for the TLS options.
fn needed_args(o: &Opt) -> Vec<String> {
    match o.kind {
        ValueKind::RouteHeader => vec!["--route".into(), "/r=200".into()],
        #[cfg(feature = "tls")]
        ValueKind::Text(t) if t.is_tls() => vec!["--listen".into(), "tls:127.0.0.1:0".into()],
        _ => Vec::new(),
    }
}

/// [`needed_args`], and the option the table says `o` needs with a sample value.
fn context(o: &Opt, dir: &std::path::Path) -> Vec<String> {
    let mut args = needed_args(o);
    if let Some(needed) = o
        .needs()
        .and_then(|n| OPTIONS.iter().find(|p| p.flag() == n))
    {
        let (_, v) = samples(needed, dir);
        args.extend(flag_args(needed, &v).into_iter().map(String::from));
    }
    args
}

fn flag_args<'a>(o: &Opt, value: &'a str) -> Vec<&'a str> {
    match o.kind {
        ValueKind::Switch(_) => vec![o.flag()],
        _ => vec![o.flag(), value],
    }
}

/// The documented rule (docs/options.md), for every option in the table: a flag replaces the environment's
/// value (a repeatable flag, the whole list).
#[test]
fn a_flag_replaces_its_variable_for_every_option() {
    let dir = scratch("precedence");
    for o in OPTIONS {
        let (env_value, flag_value) = samples(o, &dir);
        let args = context(o, &dir);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env = [(o.var(), env_value.as_str())];
        let flag = [&args[..], &flag_args(o, &flag_value)].concat();
        let by_flag = format!("{:?}", run(&flag).unwrap());
        let by_both = format!("{:?}", run_env(&flag, &env).unwrap());
        let by_env = format!("{:?}", Ok::<_, ()>(run_env(&args, &env).unwrap()));
        // An error where the options need each other (`--tls-cert`, `--tls-key`).
        let by_neither = format!("{:?}", run(&args).map_err(|_| ()));
        assert_eq!(by_both, by_flag, "{}", o.flag());
        assert_ne!(by_env, by_neither, "{} is not read", o.var());
        if !matches!(o.kind, ValueKind::Switch(_)) {
            assert_ne!(by_env, by_flag, "{}", o.flag());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every conflicting pair, from the table: an error naming both when both come from flags
/// or both from variables; otherwise the flag wins.
#[test]
fn conflicting_options_for_every_pair() {
    let dir = scratch("conflicts");
    let mut pairs = 0;
    for (i, a) in OPTIONS.iter().enumerate() {
        for b in OPTIONS.iter().skip(i + 1).filter(|b| a.conflicts_with(b)) {
            pairs += 1;
            let (a_env, a_flag) = samples(a, &dir);
            let (b_env, b_flag) = samples(b, &dir);
            let flags = [flag_args(a, &a_flag), flag_args(b, &b_flag)].concat();
            let env = [(a.var(), a_env.as_str()), (b.var(), b_env.as_str())];
            let want = format!(
                "{} and {} cannot be combined: give one of them",
                a.flag(),
                b.flag()
            );
            assert_eq!(run(&flags).unwrap_err(), want);
            let want = format!(
                "{} and {} cannot be combined: give one of them",
                a.var(),
                b.var()
            );
            assert_eq!(run_env(&[], &env).unwrap_err(), want);
            let a_context = context(a, &dir);
            let a_args: Vec<&str> = a_context
                .iter()
                .map(String::as_str)
                .chain(flag_args(a, &a_flag))
                .collect();
            let a_only = format!("{:?}", run(&a_args).unwrap());
            let a_flag_b_env = run_env(&a_args, &env[1..]).unwrap();
            assert_eq!(
                format!("{a_flag_b_env:?}"),
                a_only,
                "{} over {}",
                a.flag(),
                b.var()
            );
        }
    }
    assert!(pairs > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

// Uses every feature's options.
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
fn every_conflict_and_requirement_names_a_flag_in_the_table() {
    for o in OPTIONS {
        for name in o.conflicts().chain(o.needs()) {
            assert!(find(name).is_some(), "{}: {name}", o.flag());
        }
    }
}

// Uses every feature's options.
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
fn help_and_docs_list_every_option_and_variable() {
    let help = help();
    let section = include_str!("../../../docs/options.md");
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `-")).collect();
    for o in OPTIONS {
        assert!(help.contains(&format!("  {} ", o.flag())), "{}", o.flag());
        assert!(help.contains(&format!("[{}", o.var())), "{}", o.var());
        let row = rows
            .iter()
            .find(|r| {
                r.starts_with(&format!("| `{} ", o.flag()))
                    || r.starts_with(&format!("| `{}`", o.flag()))
            })
            .unwrap_or_else(|| panic!("docs/options.md has no row for {}", o.flag()));
        assert!(
            row.contains(&format!("[`{}", o.var())),
            "docs/options.md: the row of {} lacks {}",
            o.flag(),
            o.var()
        );
    }
    for row in rows {
        let flag = row[3..].split([' ', '`']).next().unwrap();
        assert!(
            find(flag).is_some()
                || [
                    "-h",
                    "-V",
                    "--mutate-list",
                    "--tls-list",
                    "--man",
                    "--completions"
                ]
                .contains(&flag),
            "docs/options.md: row {flag} is not an option"
        );
    }
    assert!(help.lines().all(|l| l.len() <= 100), "{help}");
}

/// The options of each `--help` section, in order, from the table.
fn help_sections() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for o in OPTIONS {
        let title = o.texts().3;
        if !title.is_empty() {
            sections.push((title, Vec::new()));
        }
        sections
            .last_mut()
            .expect("the first option opens a section")
            .1
            .push(o.flag());
    }
    sections
}

/// `--help` groups the options as docs/options.md does: the same sections
/// (`## Title`), in the same order, each with the same options (`--raw-response` used to
/// sit under "Limits and timeouts" in the help and with the response options in the docs).
#[test]
fn help_sections_are_the_docs_sections() {
    let section = include_str!("../../../docs/options.md");
    let mut docs_sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in section.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            docs_sections.push((title, Vec::new()));
        } else if let Some(row) = line.strip_prefix("| `") {
            let flag = row.split([' ', '`']).next().unwrap();
            if find(flag).is_some() {
                docs_sections.last_mut().unwrap().1.push(flag);
            }
        }
    }
    assert_eq!(docs_sections, help_sections());
    let help = help();
    for (title, _) in help_sections() {
        assert!(help.contains(&format!("\n{title}:\n")), "{title}");
    }
}

/// The help's default content type is the one responses take (the help text is a literal of
/// the table, so it cannot name the constant).
#[test]
fn help_names_the_default_content_type() {
    let default = crate::response::DEFAULT_CONTENT_TYPE;
    assert!(help().contains(&format!("(default {default}; empty to omit)")));
}
