//! Names the build for `canned --version`: `CANNED_VERSION_LINE` is `canned VERSION (COMMIT)`,
//! COMMIT being `git describe --always --tags` of the checkout the crate is built from, when it
//! is one. From a tarball, a registry or another project's repository (canned as a
//! dependency) it is `canned VERSION` alone.
//!
//! The script reruns only when the checkout's HEAD or the branch it names moves (and when the
//! script itself changes), not on every edit of the source.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let line = match commit() {
        Some(commit) => format!("canned {version} ({commit})"),
        None => format!("canned {version}"),
    };
    println!("cargo:rustc-env=CANNED_VERSION_LINE={line}");
    no_unwind_tables();
}

/// The static x86_64 musl release (README, Footprint) is linked without unwind tables
/// (`contrib/no-eh-frame.ld`): the release profile aborts on a panic (Cargo.toml), so nothing
/// unwinds. Other profiles (they unwind), a release whose panic strategy is overridden, and
/// other targets keep them.
fn no_unwind_tables() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let panic = std::env::var("CARGO_PROFILE_RELEASE_PANIC").unwrap_or_else(|_| "abort".into());
    println!("cargo:rerun-if-env-changed=CARGO_PROFILE_RELEASE_PANIC");
    if var("TARGET") != "x86_64-unknown-linux-musl"
        || var("PROFILE") != "release"
        || panic != "abort"
    {
        return;
    }
    let script = Path::new(&var("CARGO_MANIFEST_DIR")).join("contrib/no-eh-frame.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-bins=--no-eh-frame-hdr");
    println!("cargo:rustc-link-arg-bins=-T{}", script.display());
}

/// `git describe` of canned's own checkout, watching what moves it.
fn commit() -> Option<String> {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        let text = text.trim();
        (out.status.success() && !text.is_empty()).then(|| text.to_string())
    };
    // Only canned's own checkout: a crate unpacked inside another repository is not it.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if !same_dir(Path::new(&top), &dir) {
        return None;
    }
    let git_path = |name: &str| git(&["rev-parse", "--path-format=absolute", "--git-path", name]);
    let mut watched = vec![git_path("HEAD")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git_path(&branch));
        watched.push(git_path("packed-refs"));
    }
    // A path that does not exist would make the script rerun on every build.
    for path in watched.into_iter().flatten() {
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    git(&["describe", "--always", "--tags", "--abbrev=12"])
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
