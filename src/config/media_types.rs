//! The Content-Type of a route's `@FILE` body, from the file's name.

/// The Content-Type of a body read from a file, by the file's extension (compared without
/// regard to case): the types a test setup serves most, and no more. A file with another
/// extension, or none, takes `--content-type`.
const TYPES_BY_EXTENSION: [(&str, &str); 21] = [
    ("json", "application/json"),
    ("html", "text/html; charset=utf-8"),
    ("htm", "text/html; charset=utf-8"),
    ("txt", "text/plain; charset=utf-8"),
    ("bin", "application/octet-stream"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("svg", "image/svg+xml"),
    ("css", "text/css; charset=utf-8"),
    ("js", "text/javascript; charset=utf-8"),
    ("wasm", "application/wasm"),
    ("pdf", "application/pdf"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("xml", "application/xml"),
    ("csv", "text/csv; charset=utf-8"),
    ("mp4", "video/mp4"),
    ("cbor", "application/cbor"),
    ("ico", "image/vnd.microsoft.icon"),
];

/// The Content-Type of a body read from `file`, if its extension is in the table.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn type_by_extension(file: &str) -> Option<&'static str> {
    let name = file.rsplit('/').next().unwrap_or(file);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        // `.json` is a hidden file without an extension.
        return None;
    }
    TYPES_BY_EXTENSION
        .iter()
        .find(|(e, _)| eq_ignore_case(e.as_bytes(), ext.as_bytes()))
        .map(|(_, t)| *t)
}

/// `a.eq_ignore_ascii_case(b)` as a call: inlined, each comparison with a constant is unrolled
/// and vectorized (a few hundred bytes each); this path is cold, and the linker folds the
/// crate's copies of this function into one.
#[inline(never)]
fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}
