//! Generates a Rust module per scene and precision from `scenes/*.toml` with the host's
//! exporter (what `ferrodyn export rust` writes), into OUT_DIR.

use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use std::path::{Path, PathBuf};

/// The scenes built into the firmware (file stems in `scenes/`).
const SCENES: [&str; 3] = ["chain5", "skew_tree", "hil_arm"];

fn main() {
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for name in SCENES {
        let path = scenes.join(format!("{name}.toml"));
        println!("cargo::rerun-if-changed={}", path.display());
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        for precision in [Precision::F32, Precision::F64] {
            let module = rust_module(&scene, precision).unwrap_or_else(|e| panic!("{e}"));
            let file = out.join(format!("{name}_{}.rs", precision.name()));
            std::fs::write(&file, module).unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
        }
    }
}
