//! Every measured figure the docs quote comes from a result file a script wrote
//! (docs/results/, written through benches/results.sh): the size, memory, benchmark, parser and
//! instruction figures are not typed into prose. A page quotes a figure only where its result
//! file holds it, so a run that moves a figure fails here until the page says the new one.
//!
//! Checked: every figure of the pages that are all measurements (footprint, performance), and
//! the regions of other pages marked `<!-- figures: results/NAME.md -->` ... `<!-- /figures -->`.
//! A figure is a number with a thousands separator (`988,328`), a decimal (`5.67`), or a number
//! with a unit of size, memory or time (`616 bytes`, `936 KiB`, `13 ns`); fenced code is not
//! read.

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The pages every figure of which is checked, against the result files each links to.
const MEASURED_PAGES: &[&str] = &["docs/footprint.md", "docs/performance.md"];

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of a page outside its fenced code blocks.
fn prose(page: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The figures of a text, as written (`988,328`, `5.67`, `1.35x` gives `1.35`, `616 bytes`
/// gives `616`, a table cell `| 802 |` gives `802`).
fn figures(text: &str) -> Vec<String> {
    const UNITS: &[&str] = &[
        "bytes",
        "byte",
        "KiB",
        "MiB",
        "KB",
        "MB",
        "ns",
        "µs",
        "instructions",
    ];
    let b = text.as_bytes();
    let digit = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let word_before =
            i > 0 && (b[i - 1].is_ascii_alphanumeric() || b"_.,-/".contains(&b[i - 1]));
        if !digit(i) || word_before {
            i += 1;
            continue;
        }
        let (mut j, mut separated, mut dots) = (i, false, 0);
        loop {
            if digit(j) {
                j += 1;
            } else if b.get(j) == Some(&b',') && (1..4).all(|k| digit(j + k)) && !digit(j + 4) {
                separated = true;
                j += 1;
            } else if b.get(j) == Some(&b'.') && digit(j + 1) {
                dots += 1;
                j += 1;
            } else {
                break;
            }
        }
        let number = &text[i..j];
        let rest = &text[j..];
        // A ratio (`1.35x`) is a figure; another word joined to the number is a name.
        let ratio = rest.starts_with('x') && !rest[1..].starts_with(|c: char| c.is_alphanumeric());
        let joined = rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') && !ratio;
        let section = text[..i].ends_with('§') || text[..i].ends_with("§ ");
        let spaced = rest.strip_prefix(' ').unwrap_or("");
        let unit = UNITS.iter().any(|u| {
            spaced.starts_with(u) && !spaced[u.len()..].starts_with(|c: char| c.is_alphanumeric())
        });
        // A whole table cell of three digits or more (`| 802 |`) is a figure too.
        let cell = number.len() >= 3 && text[..i].ends_with("| ") && rest.starts_with(" |");
        if !joined && !section && dots < 2 && (separated || dots == 1 || unit || cell) {
            out.push(number.to_string());
        }
        i = j;
    }
    out
}

/// A result file: it names the command that wrote it, the machine and the date, and that
/// command writes it (the script calls `results_begin NAME`).
fn result_file(path: &str) -> String {
    let text = read(path);
    let name = Path::new(path).file_stem().unwrap().to_str().unwrap();
    let header = text
        .lines()
        .find(|l| l.starts_with("Written by `"))
        .unwrap_or_else(|| panic!("{path}: no line `Written by `COMMAND` on MACHINE, DATE`"));
    let command = header["Written by `".len()..].split('`').next().unwrap();
    let script = command
        .split_whitespace()
        .find(|w| w.starts_with(".ci/") || w.starts_with("benches/") || w.starts_with("contrib/"))
        .unwrap_or_else(|| panic!("{path}: the command `{command}` names no script"));
    let has_date = header
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .any(|w| w.len() == 10 && w.as_bytes()[4] == b'-' && w.as_bytes()[7] == b'-');
    assert!(has_date, "{path}: no date (YYYY-MM-DD) in: {header}");
    assert!(header.contains(" on "), "{path}: no machine in: {header}");
    // `benches/record NAME COMMAND...` writes what COMMAND printed; a script of its own writes
    // its figures with `results_begin NAME`.
    let recorded = command.starts_with(&format!("benches/record {name} "));
    assert!(
        recorded || read(script).contains(&format!("results_begin {name} ")),
        "{path}: {script} does not write it (no `results_begin {name}`)"
    );
    text
}

/// Each figure of `quoted` must be in `sources`; the figures missing, if any.
fn missing(quoted: &str, sources: &str) -> Vec<String> {
    let held: BTreeSet<String> = figures(sources).into_iter().collect();
    let mut out: Vec<String> = figures(quoted)
        .into_iter()
        .filter(|f| !held.contains(f))
        .collect();
    out.dedup();
    out
}

/// The result files a text links to (`results/NAME.md`).
fn linked_results(text: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("results/") {
        let rest = &text[i..];
        if let Some(end) = rest.find(".md") {
            let name = &rest[..end + 3];
            if name["results/".len()..name.len() - 3]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                out.insert(format!("docs/{name}"));
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn measured_pages_quote_only_their_result_files() {
    for page in MEASURED_PAGES {
        let text = prose(&read(page));
        let sources = linked_results(&text);
        assert!(!sources.is_empty(), "{page} links to no result file");
        let held: String = sources.iter().map(|s| result_file(s)).collect();
        let quoted = figures(&text);
        assert!(
            quoted.len() > 5,
            "{page}: too few figures found ({quoted:?})"
        );
        let gone = missing(&text, &held);
        assert!(
            gone.is_empty(),
            "{page} quotes figures that {} do not hold: {gone:?}",
            sources.join(", ")
        );
    }
}

#[test]
fn marked_figures_are_in_their_result_files() {
    let mut regions = 0;
    let mut pages: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| format!("docs/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    pages.push("README.md".into());
    for page in pages {
        let text = read(&page);
        let mut rest = text.as_str();
        while let Some(at) = rest.find("<!-- figures: ") {
            let after = &rest[at + "<!-- figures: ".len()..];
            let names = &after[..after.find(" -->").expect("-->")];
            let end = after
                .find("<!-- /figures -->")
                .unwrap_or_else(|| panic!("{page}: figures of {names} not closed"));
            let region = prose(&after[..end]);
            let held: String = names
                .split_whitespace()
                .map(|n| result_file(&format!("docs/{n}")))
                .collect();
            assert!(
                !figures(&region).is_empty(),
                "{page}: no figure in the region of {names}"
            );
            let gone = missing(&region, &held);
            assert!(
                gone.is_empty(),
                "{page} quotes figures that {names} do not hold: {gone:?} (of {:?})",
                figures(&region)
            );
            regions += 1;
            rest = &after[end..];
        }
    }
    assert!(regions >= 1, "no marked region of figures found");
}

/// The checks find what they should: a figure from prose, none from a version or a clause.
#[test]
fn figures_are_told_from_other_numbers() {
    let found = figures(
        "988,328 bytes and 5.67 µs, 616 bytes of stack, 936 KiB idle; RFC 9113 §5.1, HTTP/1.1, \
         version 1.22.0, v1.5, 2 cores, x86_64, 10% and 1.35x | canned | 802 | 1 |",
    );
    assert_eq!(found, ["988,328", "5.67", "616", "936", "1.35", "802"]);
    assert_eq!(
        missing("it is 988,329 bytes", "| size | 988,328 bytes |"),
        ["988,329"]
    );
}
