//! `ferrodyn import`: a robot model (URDF, MJCF) written as a scene file.

use crate::import::{import, ImportOptions};
use anyhow::{Context, Result};
use std::path::Path;

/// Imports the model at `model` and writes its scene to `out` (or standard output); the notes
/// (what was left out) go to standard error.
pub fn import_model(model: &Path, options: &ImportOptions, out: Option<&Path>) -> Result<()> {
    let imported = import(model, options)?;
    let s = &imported.scene;
    eprintln!(
        "{}: {} bodies, {} joints, {} forces, {} shapes",
        model.display(),
        s.bodies.len(),
        s.joints.len(),
        s.forces.len(),
        s.contact.as_ref().map_or(0, |c| c.shapes.len())
    );
    for line in imported.report.lines() {
        eprintln!("  {line}");
    }
    match out {
        Some(file) => {
            std::fs::write(file, imported.toml(file))
                .with_context(|| format!("writing {}", file.display()))?;
            eprintln!("wrote {}", file.display());
        }
        None => print!("{}", imported.toml(Path::new("./scene.toml"))),
    }
    Ok(())
}
