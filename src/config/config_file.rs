//! `--config FILE`: options one a line, as on the command line, read through the same table.

use super::file::read_at_most;
use super::options::{OPTIONS, Opt, Repeat, ValueKind};

/// The most a config file may hold: 1,000 routes of long lines fit many times over.
const MAX_CONFIG_FILE: u64 = 16 << 20;

/// One option of a config file: its index in the table, where it was given (`FILE:LINE:
/// --flag`, for messages) and its value, with a relative file it names made relative to the
/// file's folder.
pub(super) struct FileOption {
    pub(super) opt: usize,
    line: u32,
    pub(super) from: String,
    pub(super) value: String,
}

/// The options of the config file at `path`, in order: `--flag value` or `--flag=value` a
/// line, the value the rest of the line without surrounding blanks and, when it is wrapped
/// whole in `'` or `"`, without them; `#` at the start of a line is a comment, a blank line
/// is skipped. `Err` is one line naming the file (and the line, for a bad one); `given` names
/// where the path came from (`--config`, `CANNED_CONFIG`).
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn read_config_file(given: &str, path: &str) -> Result<Vec<FileOption>, String> {
    let bytes = read_at_most(path, MAX_CONFIG_FILE).map_err(|e| format!("{given}: {e}"))?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            return Err(format!("{path}:{line}: the line is not valid UTF-8"));
        }
    };
    // A byte order mark, as some editors write one, is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let folder = std::path::Path::new(path)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let mut options: Vec<FileOption> = Vec::new();
    for (n, line) in (1..).zip(text.lines()) {
        let line = line.trim_matches([' ', '\t', '\r']);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: &dyn std::fmt::Display| format!("{path}:{n}: {what}");
        if !line.starts_with("--") {
            return Err(at(&format_args!(
                "{line:?} is not an option line like --route /v1/ping=204"
            )));
        }
        let end = line.find([' ', '\t', '=']).unwrap_or(line.len());
        let (flag, rest) = line.split_at(end);
        let inline = rest.starts_with('=');
        let raw = rest
            .get(usize::from(inline)..)
            .unwrap_or_default()
            .trim_start_matches([' ', '\t']);
        let value = unquote(raw);
        let from = format!("{path}:{n}: {flag}");
        let Some(i) = OPTIONS.iter().position(|o| o.flag() == flag) else {
            return Err(match flag {
                "--help" | "--version" | "--mutate-list" | "--tls-list" | "--man"
                | "--completions" => {
                    format!("{from}: a command, not an option a config file can give")
                }
                _ => format!("{from}: unknown option (see --help)"),
            });
        };
        let o = &OPTIONS[i];
        match o.kind {
            ValueKind::ConfigFile => {
                return Err(format!("{from}: a config file cannot name another"));
            }
            #[cfg(feature = "access-log")]
            ValueKind::Switch(super::options::Toggle::AccessLog)
                if matches!(raw, "json" | "text") => {}
            #[cfg(feature = "access-log")]
            ValueKind::Switch(super::options::Toggle::AccessLog) if !raw.is_empty() => {
                return Err(format!("{from}: {raw:?} is not a format: text or json"));
            }
            ValueKind::Switch(_) if inline || !raw.is_empty() => {
                return Err(format!("{from}: takes no value"));
            }
            ValueKind::Switch(_) => {}
            _ if !inline && raw.is_empty() => return Err(format!("{from}: needs a value")),
            _ => {}
        }
        if o.repeat == Repeat::Once {
            if let Some(first) = options.iter().find(|g| g.opt == i) {
                return Err(format!(
                    "{from}: is given twice (first on line {}; it takes one value)",
                    first.line
                ));
            }
        }
        options.push(FileOption {
            opt: i,
            line: n,
            value: from_folder(o, value, folder),
            from,
        });
    }
    Ok(options)
}

/// `value` without the quotes that wrap it whole, as a shell would drop them (no escapes).
#[cfg_attr(canned_small, optimize(size))]
fn unquote(value: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            if !inner.contains(q) {
                return inner;
            }
        }
    }
    value
}

/// `value` with a relative file it names (a route's `@FILE`, `--body-file`, `--raw-response`)
/// joined to `folder`, the config file's.
#[cfg_attr(canned_small, optimize(size))]
fn from_folder(o: &Opt, value: &str, folder: &std::path::Path) -> String {
    let join = |file: &str| -> String {
        if file.starts_with('/') || folder.as_os_str().is_empty() {
            file.to_string()
        } else {
            folder.join(file).to_string_lossy().into_owned()
        }
    };
    match o.kind {
        ValueKind::File(_) => join(value),
        ValueKind::Route => {
            // `[METHOD ]PATH=STATUS:@FILE`, as the route's grammar splits it.
            let file = value.split_once('=').and_then(|(key, rest)| {
                let (code, body) = rest.split_once(':')?;
                let file = body.strip_prefix('@').filter(|f| !f.is_empty())?;
                Some(format!("{key}={code}:@{}", join(file)))
            });
            file.unwrap_or_else(|| value.to_string())
        }
        _ => value.to_string(),
    }
}
