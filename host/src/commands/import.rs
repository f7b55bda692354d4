//! `ferrodyn import`: a robot model (URDF, MJCF) written as a scene file.

use super::count;
use crate::import::{import, ImportOptions};
use anyhow::{Context, Result};
use std::path::Path;

/// Imports the model at `model` and writes its scene to `out` (or standard output), with a
/// position servo input of gains `servos` (kp, kd) on each joint when given
/// (`commands::import_servos`); the notes (what was left out) go to standard error.
pub fn import_model(
    model: &Path,
    options: &ImportOptions,
    servos: Option<(f64, f64)>,
    out: Option<&Path>,
) -> Result<()> {
    let imported = import(model, options)?;
    let inputs = servos.map_or(String::new(), |gains| {
        super::import_servos::servo_inputs(&imported.scene, gains)
    });
    let s = &imported.scene;
    eprintln!(
        "{}: {}, {}, {}, {}",
        model.display(),
        count(s.bodies.len(), "body", "bodies"),
        count(s.joints.len(), "joint", "joints"),
        count(s.forces.len(), "force", "forces"),
        count(
            s.contact.as_ref().map_or(0, |c| c.shapes.len()),
            "shape",
            "shapes"
        )
    );
    for line in imported.report.lines() {
        eprintln!("  {line}");
    }
    if !inputs.is_empty() {
        let servos = inputs.matches("[[input]]").count();
        eprintln!(
            "  {} (kind = \"position\")",
            count(servos, "position servo input", "position servo inputs")
        );
    }
    match out {
        Some(file) => {
            std::fs::write(file, imported.toml(file) + &inputs)
                .with_context(|| format!("writing {}", file.display()))?;
            eprintln!("wrote {}", file.display());
        }
        None => print!("{}{inputs}", imported.toml(Path::new("./scene.toml"))),
    }
    Ok(())
}
