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
        .find(|(e, _)| e.eq_ignore_ascii_case(ext))
        .map(|(_, t)| *t)
}
