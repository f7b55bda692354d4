//! `ferrodyn run`: a scene file (or the built-in chain) compiled, driven to its end time with
//! progress, its results written, and one summary line at the end.

use super::Overrides;
use crate::check::{redundant_note, redundant_rows};
use crate::compile::compile;
use crate::limits::{check_memory, BYTES_PER_BODY};
use crate::output::OutputDir;
use crate::record::recorders;
use crate::samples::{chain_scene, chain_simulation, CHAIN_LINKS};
use crate::scene::check_name;
use crate::simulation::{drive, Summary};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// What `ferrodyn run` was asked.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The scene file; `None`: the built-in chain.
    pub scene: Option<PathBuf>,
    /// Directory for the result files.
    pub out: PathBuf,
    /// Overwrite result files that exist.
    pub force: bool,
    /// Links of the built-in chain (only without a scene).
    pub links: Option<usize>,
    /// Settings overriding the scene's.
    pub overrides: Overrides,
    /// Show a progress bar.
    pub progress: bool,
}

/// Runs the scene (or the built-in chain), printing the header line, the files written, any
/// diagnostics, and last the summary line; returns the summary.
pub fn run(options: &RunOptions) -> Result<Summary> {
    let mut scene = match &options.scene {
        Some(path) => {
            if options.links.is_some() {
                bail!(
                    "--links sets the size of the built-in chain; {} has its own bodies",
                    path.display()
                );
            }
            crate::import::load_scene(path)?
        }
        None => {
            let links = options.links.unwrap_or(CHAIN_LINKS);
            if links == 0 {
                bail!("--links must be at least 1");
            }
            let what = format!("the built-in chain of {links} links");
            check_memory(&what, links as f64 * BYTES_PER_BODY).map_err(anyhow::Error::msg)?;
            chain_scene(links, chain_simulation()).context("building the built-in chain")?
        }
    };
    let changed = options.overrides.apply(&mut scene.simulation)?;
    let mut sim = compile(&scene)?;
    let dir = OutputDir::create(&options.out, options.force)?;
    let s = &scene.simulation;
    println!(
        "ferrodyn: {} — {}, dt = {} s, t = 0 … {} s",
        scene.path().display(),
        sim.labels.description,
        s.step,
        s.end_time
    );
    if !changed.is_empty() {
        // The built-in chain has no scene to override: its settings are the flags'.
        let what = if options.scene.is_some() {
            "overriding the scene"
        } else {
            "settings"
        };
        println!("  {what}: {}", changed.join(", "));
    }
    for note in sim.timing.rounding_notes().into_iter().chain(sim.size_warnings()) {
        println!("  {note}");
    }
    for flexible in &scene.flexibles {
        for w in flexible.mesh.report().warnings() {
            println!("  mesh warning (flexible \"{}\"): {w}", flexible.name);
        }
    }
    if let Some((model, data)) = sim.rigid().filter(|_| scene.output.reactions) {
        if let Some(note) = redundant_note(&sim.labels.names.joints, &redundant_rows(model, data)) {
            println!("  {note}");
        }
    }
    let series = match sim.labels.flexibles.as_slice() {
        [(name, _)] => name.clone(),
        // The scene file's stem, where it follows the name rule.
        _ => scene
            .path()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| check_name(s).is_ok())
            .unwrap_or_else(|| "flexible".into()),
    };
    let recorders = recorders(&mut sim, &dir, &scene.output, &series)?;
    let summary = drive(&mut sim, recorders, options.progress)?;
    for f in &summary.files {
        println!("wrote {}", f.display());
    }
    for d in &summary.diagnostics {
        println!("diagnostic: {d}");
    }
    println!(
        "state digest: steps={} trajectory={:016x} final={:016x}",
        summary.steps, summary.trajectory.0, summary.final_state.0
    );
    println!("{summary}");
    Ok(summary)
}
