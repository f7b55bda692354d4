//! Recorders: sinks the drive loop feeds at every output time, each writing one kind of result
//! file — trajectory, energy, reactions and sensor CSVs with their PNG plots, VTU/PVD of the
//! flexible bodies, contact CSVs. [`recorders`] picks the ones a simulation and its scene's
//! `[output]` ask for.

mod contacts;
mod energy;
mod reactions;
mod sensors;
mod trajectory;
mod vtu_series;

pub use contacts::{
    flex_pair_summaries, flex_shape_summaries, ContactCsv, FlexContactCsv, PairSummary, CONTACT_COLUMNS,
    FLEX_CONTACT_COLUMNS, FLEX_SHAPE_CONTACT_COLUMNS,
};
pub use energy::EnergyCsv;
pub use reactions::ReactionsCsv;
pub use sensors::SensorsCsv;
pub use trajectory::TrajectoryCsv;
pub use vtu_series::VtuSeries;

use crate::compile::body_of_nodes;
use crate::output::OutputDir;
use crate::scene::OutputSpec;
use crate::simulation::{Sample, Simulation};
use anyhow::Result;
use ferrodyn_kernel::rigid::JointKind;
use std::path::PathBuf;

/// A result file (or files) written at every output time.
pub trait Recorder {
    /// Records the simulation's current state, of which the drive loop has evaluated `sample`.
    fn record(&mut self, sim: &mut Simulation, sample: &Sample) -> Result<()>;
    /// Finishes the files (plots, collections); returns every path written.
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>>;
}

/// The recorders for `sim` writing into `dir`: what `outputs` selects of what the simulation
/// has (rigid bodies: trajectory, reactions; sensors; flexible bodies: a VTU series named
/// `series`; contacts; energy for all, with PNG plots when `outputs.plots`).
pub fn recorders(
    sim: &mut Simulation,
    dir: &OutputDir,
    outputs: &OutputSpec,
    series: &str,
) -> Result<Vec<Box<dyn Recorder>>> {
    let mut out: Vec<Box<dyn Recorder>> = Vec::new();
    let names = sim.labels.names.clone();
    if sim.rigid().is_some() && outputs.states {
        out.push(Box::new(TrajectoryCsv::create(dir, &names.bodies)?));
    }
    // Sensors of flexible nodes need no rigid body.
    if !sim.labels.sensors.is_empty() {
        out.push(Box::new(SensorsCsv::create(
            dir,
            sim.labels.sensors.clone(),
            outputs.plots,
        )?));
    }
    if outputs.energy {
        let constrained = sim.rigid().is_some_and(|(m, _)| m.constraint_rows() > 0);
        let strain = sim.flexible().is_some();
        out.push(Box::new(EnergyCsv::create(
            dir,
            constrained,
            strain,
            outputs.plots,
        )?));
    }
    if outputs.reactions && sim.rigid_mut().is_some() {
        let drives: Vec<String> = sim.rigid().map_or_else(Vec::new, |(model, _)| {
            let driving = model.joints().iter().zip(&names.joints);
            driving
                .filter(|(j, _)| matches!(j.kind, JointKind::Driving { .. }))
                .map(|(_, name)| name.clone())
                .collect()
        });
        out.push(Box::new(ReactionsCsv::create(dir, &names.joints, &drives)?));
    }
    if let Some(flex) = sim.flexible() {
        out.push(Box::new(VtuSeries::new(dir, series, &flex)));
    }
    let contacts = sim.contacts();
    if contacts.and_then(|c| c.rigid()).is_some() {
        out.push(Box::new(ContactCsv::create(dir)?));
    }
    if let Some(flexible) = contacts.and_then(|c| c.flexible()) {
        let with_shapes = flexible.shapes.is_some();
        let nodes = sim.flexible().map_or(0, |f| f.node_count());
        let body_of = body_of_nodes(sim.labels.flexibles.iter().map(|(_, range)| range), nodes);
        if with_shapes {
            out.push(Box::new(FlexContactCsv::create_for_shapes(dir, body_of.clone())?));
        }
        out.push(Box::new(FlexContactCsv::create(dir, body_of)?));
    }
    Ok(out)
}
