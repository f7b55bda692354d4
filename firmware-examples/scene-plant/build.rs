//! Generates a Rust module per scene and precision from the scene files listed in scenes.txt
//! with the host's exporter (what `ferrodyn export rust` writes), into OUT_DIR.

use ferrodyn_host::commands::Overrides;
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use std::path::{Path, PathBuf};

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenes = here.join("../../scenes");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let list = here.join("scenes.txt");
    println!("cargo::rerun-if-changed={}", list.display());
    let list = std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("reading scenes.txt: {e}"));
    for line in list
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let path = scenes.join(format!("{name}.toml"));
        println!("cargo::rerun-if-changed={}", path.display());
        let mut scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        overrides(line, words.collect())
            .apply(&mut scene.simulation)
            .unwrap_or_else(|e| panic!("scenes.txt: {line}: {e}"));
        for precision in [Precision::F32, Precision::F64] {
            let module = rust_module(&scene, precision).unwrap_or_else(|e| panic!("{e}"));
            let file = out.join(format!("{name}_{}.rs", precision.name()));
            std::fs::write(&file, module).unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
        }
    }
}

/// The `--flag value` pairs of a scenes.txt line, as the CLI reads them.
fn overrides(line: &str, flags: Vec<&str>) -> Overrides {
    let mut o = Overrides::default();
    for pair in flags.chunks(2) {
        let number = |v: &str| {
            v.parse::<f64>()
                .unwrap_or_else(|e| panic!("scenes.txt: {line}: {v}: {e}"))
        };
        match pair {
            ["--integrator", name] => o.integrator = Some((*name).into()),
            ["--dt", v] => o.dt = Some(number(v)),
            ["--end", v] => o.end = Some(number(v)),
            other => panic!("scenes.txt: {line}: unknown flags {other:?} (--integrator, --dt, --end)"),
        }
    }
    o
}
