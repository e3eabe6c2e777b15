//! Builds what the peer benchmark links: canned's C library (capi/'s release staticlib, built by
//! a nested cargo into capi's own target directory), llhttp from the C sources of PyPI's `llhttp`
//! source distribution (downloaded once into target/capi-peers/, never into the repository) and
//! the benchmark's C side, peers.c. picohttpparser comes built by its crate.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The llhttp release the comparison is made with (PyPI's `llhttp` ships its C sources).
const LLHTTP: &str = "9.3.0.0";

fn main() {
    let here = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let repo = here.join("../..").canonicalize().unwrap();
    let target = env::var("TARGET").unwrap();
    let cargo = env::var("CARGO").unwrap();

    // canned's C library, exactly as a C program links it.
    let mut build = Command::new(&cargo);
    build
        .current_dir(repo.join("capi"))
        .args(["build", "--release", "--target", &target]);
    // The outer build's settings (its rustflags, jobserver, target dir) are not the library's.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        let keep = matches!(key.as_str(), "CARGO_HOME" | "CARGO_BUILD_JOBS");
        if (key.starts_with("CARGO_") && !keep)
            || matches!(
                key.as_str(),
                "MAKEFLAGS" | "MFLAGS" | "RUSTFLAGS" | "RUSTC_WRAPPER"
            )
        {
            build.env_remove(key);
        }
    }
    let status = build.status().expect("cargo build of capi/");
    assert!(status.success(), "cargo build --release of capi/ failed");
    let lib_dir = repo.join("target/capi").join(&target).join("release");
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=static=canned_capi");
    for path in [
        "src",
        "Cargo.toml",
        "capi/src",
        "capi/Cargo.toml",
        "include/canned.h",
    ] {
        println!("cargo:rerun-if-changed={}", repo.join(path).display());
    }

    // llhttp's C sources, from its PyPI source distribution.
    let peers = repo.join("target/capi-peers");
    let llhttp = peers.join(format!("llhttp-{LLHTTP}"));
    if !llhttp.join("lib/llhttp.c").exists() {
        fetch_llhttp(&peers);
    }
    let lib = llhttp.join("lib");
    cc::Build::new()
        .files(["llhttp.c", "api.c", "http.c"].map(|f| lib.join(f)))
        .file(here.join("peers.c"))
        .include(&lib)
        .include(repo.join("include"))
        .include(repo.join("capi/tests"))
        .warnings(false)
        .compile("peers");
    println!("cargo:rerun-if-changed={}", here.join("peers.c").display());
    println!(
        "cargo:rerun-if-changed={}",
        repo.join("capi/tests/strictness.h").display()
    );

    // Where the flash measurement finds the sources, at run time.
    println!("cargo:rustc-env=CANNED_REPO={}", repo.display());
    println!("cargo:rustc-env=LLHTTP_SRC={}", lib.display());
    println!("cargo:rustc-env=PICO_SRC={}", pico_source().display());
}

/// `pip download` the source distribution and unpack it under `dir`.
fn fetch_llhttp(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-binary",
            ":all:",
            "--no-deps",
            "-d",
        ])
        .arg(dir)
        .arg(format!("llhttp=={LLHTTP}"))
        .status()
        .expect("python3 -m pip");
    assert!(status.success(), "pip download llhttp=={LLHTTP} failed");
    let status = Command::new("tar")
        .arg("xzf")
        .arg(dir.join(format!("llhttp-{LLHTTP}.tar.gz")))
        .arg("-C")
        .arg(dir)
        .status()
        .expect("tar");
    assert!(status.success(), "unpacking llhttp-{LLHTTP}.tar.gz failed");
}

/// picohttpparser's C source inside the picohttpparser-sys crate that cargo unpacked.
fn pico_source() -> PathBuf {
    let home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env::var_os("HOME").unwrap()).join(".cargo"));
    let registries = home.join("registry/src");
    for registry in fs::read_dir(&registries).unwrap().flatten() {
        let dir = registry
            .path()
            .join("picohttpparser-sys-1.0.0/deps/picohttpparser");
        if dir.join("picohttpparser.c").exists() {
            return dir;
        }
    }
    panic!(
        "picohttpparser-sys-1.0.0 not found under {}",
        registries.display()
    );
}
