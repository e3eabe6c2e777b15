//! Files canned reads whole at start-up (response bodies, raw responses, the cgroup's files),
//! each bounded so that a file that never ends is an error, not memory running out; a
//! response file is a regular file.

use std::sync::Arc;

/// The most a response file may hold: a file that never ends (`/dev/zero`) is an error, not
/// a process that reads until memory runs out.
pub const MAX_FILE: u64 = 1 << 30;

/// A response file (`--body-file`, `--raw-response`, a route's `@FILE`), whole: a regular
/// file, and nothing else. A FIFO without a writer would hold start-up without a word, and a
/// device such as `/dev/zero` would be read until the bound; either is refused, by its type,
/// before it is opened.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn read_file(path: &str) -> Result<Arc<[u8]>, String> {
    use std::os::unix::fs::FileTypeExt;
    let what = match std::fs::metadata(path) {
        Err(e) => return Err(format!("cannot read {path:?}: {e}")),
        Ok(m) if m.is_file() => return read_at_most(path, MAX_FILE),
        Ok(m) => m.file_type(),
    };
    let what = if what.is_dir() {
        "a directory"
    } else if what.is_fifo() {
        "a FIFO (a pipe)"
    } else if what.is_char_device() {
        "a character device"
    } else if what.is_block_device() {
        "a block device"
    } else {
        "a socket"
    };
    Err(format!(
        "{path:?} is {what}, not a regular file (canned reads it whole at start-up)"
    ))
}

/// The modification time of the file at `path`, when the system has one.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn modified(path: &str) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// At most `limit + 1` bytes of the file at `path` (one reader for every file canned reads).
/// A regular file longer than `limit` is refused by its size, before anything is read
/// (`FileTooLarge`); anything else (a pipe, a device such as `/dev/zero`) is read until it ends
/// or passes `limit`, whichever comes first.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn read_bounded(path: &std::ffi::OsStr, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > limit {
        return Err(std::io::ErrorKind::FileTooLarge.into());
    }
    let mut buf = Vec::new();
    file.take(limit + 1).read_to_end(&mut buf)?;
    Ok(buf)
}

/// The file at `path` if it holds at most `limit` bytes; the error names the path.
#[cfg_attr(canned_small, optimize(size))]
pub(super) fn read_at_most(path: &str, limit: u64) -> Result<Arc<[u8]>, String> {
    let too_long = || format!("{path:?} holds more than {limit} bytes");
    let buf = match read_bounded(path.as_ref(), limit) {
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => return Err(too_long()),
        Err(e) => return Err(format!("cannot read {path:?}: {e}")),
        Ok(buf) => buf,
    };
    if buf.len() as u64 > limit {
        return Err(too_long());
    }
    Ok(Arc::from(buf))
}
