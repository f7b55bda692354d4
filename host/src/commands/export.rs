//! `ferrodyn export rust`: a scene as a no_std Rust module for the firmware.

use super::Overrides;
use crate::export::{rust_module, Precision};
use crate::scene::Scene;
use anyhow::{bail, Context, Result};
use std::path::Path;

/// Writes the Rust module of the scene at `path` in `precision` ("f32" or "f64"), with the
/// `[simulation]` settings of `overrides`, to `out`, or to standard output.
pub fn export_rust(path: &Path, precision: &str, overrides: &Overrides, out: Option<&Path>) -> Result<()> {
    let precision = match precision {
        "f32" => Precision::F32,
        "f64" => Precision::F64,
        other => bail!("unknown precision '{other}'; choose f32 or f64"),
    };
    let mut scene = Scene::load(path)?;
    for change in overrides.apply(&mut scene.simulation)? {
        eprintln!("export with {change}");
    }
    let module = rust_module(&scene, precision)?;
    match out {
        Some(file) => {
            std::fs::write(file, module).with_context(|| format!("writing {}", file.display()))?;
            eprintln!("wrote {}", file.display());
        }
        None => print!("{module}"),
    }
    Ok(())
}
