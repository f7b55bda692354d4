//! Puts the memory map of the part chosen by a cargo feature (`memory/<part>.x`) where the
//! linker (cortex-m-rt's link.x) looks for `memory.x`.
use std::path::PathBuf;

/// Parts with a memory map in `memory/`; each is a feature of this crate.
const PARTS: [&str; 3] = ["mps2-an386", "stm32f405", "mps2-an500"];

fn main() {
    let chosen: Vec<&str> = PARTS
        .into_iter()
        .filter(|p| {
            let var = format!("CARGO_FEATURE_{}", p.to_uppercase().replace('-', "_"));
            std::env::var_os(var).is_some()
        })
        .collect();
    let [part] = chosen[..] else {
        panic!("board: enable exactly one part feature of {PARTS:?}, got {chosen:?}");
    };
    let source = format!("../memory/{part}.x");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::copy(&source, out.join("memory.x")).expect("copy the memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={source}");
}
