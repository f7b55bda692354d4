//! `ferrodyn export rust`: a scene as a no_std Rust module for the firmware; `ferrodyn export
//! fmu`: a scene as an FMI co-simulation unit.

use super::Overrides;
use crate::export::fmu::{find_library, write_fmu, FmiVersion};
use crate::export::{rust_module, Precision};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// The Rust module of the scene at `path` in `precision` ("f32" or "f64"), with the
/// `[simulation]` settings of `overrides`; and the settings changed, as `run` lists them.
pub fn rust_module_of(path: &Path, precision: &str, overrides: &Overrides) -> Result<(String, Vec<String>)> {
    let precision = match precision {
        "f32" => Precision::F32,
        "f64" => Precision::F64,
        other => bail!("unknown precision '{other}'; choose f32 or f64"),
    };
    let mut scene = crate::import::load_scene(path)?;
    let changes = overrides.apply(&mut scene.simulation)?;
    Ok((rust_module(&scene, precision)?, changes))
}

/// Writes the Rust module of the scene at `path` in `precision` ("f32" or "f64"), with the
/// `[simulation]` settings of `overrides`, to `out`, or to standard output.
pub fn export_rust(path: &Path, precision: &str, overrides: &Overrides, out: Option<&Path>) -> Result<()> {
    let (module, changes) = rust_module_of(path, precision, overrides)?;
    for change in changes {
        eprintln!("export with {change}");
    }
    match out {
        Some(file) => {
            std::fs::write(file, module).with_context(|| format!("writing {}", file.display()))?;
            eprintln!("wrote {}", file.display());
        }
        None => print!("{module}"),
    }
    Ok(())
}

/// Writes the FMU of the scene at `path` for FMI `version` ("3" or "2"), with the
/// `[simulation]` settings of `overrides`, to `out`, with the library built next to this
/// executable (or `library`).
pub fn export_fmu(
    path: &Path,
    version: &str,
    overrides: &Overrides,
    out: &Path,
    library: Option<&Path>,
) -> Result<()> {
    let version = FmiVersion::parse(version)?;
    if crate::import::model_format(path).is_some() {
        // An FMU carries its scene file, which the library reads back as TOML.
        bail!(
            "{}: an FMU carries a scene file; write one first with `ferrodyn import {} -o scene.toml`",
            path.display(),
            path.display()
        );
    }
    let library = match library {
        Some(l) => l.to_path_buf(),
        None => find_library()?,
    };
    let written = write_fmu(path, version, overrides, &library, out)?;
    for change in &written.changes {
        eprintln!("export with {change}");
    }
    let fmi = match version {
        FmiVersion::V2 => "2.0",
        FmiVersion::V3 => "3.0",
    };
    let state = if written.caps.state { "" } else { "out" };
    eprintln!(
        "wrote {} (FMI {fmi} co-simulation, {} variables, with{state} FMU state; library {})",
        out.display(),
        written.variables,
        library.display()
    );
    if written.outputs == 0 {
        eprintln!(
            "warning: {} has no [[sensor]]: the FMU has no outputs, an importer can read nothing from it",
            path.display()
        );
    }
    Ok(())
}
