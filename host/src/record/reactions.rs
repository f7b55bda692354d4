//! `reactions.csv`: the force each joint exerts on its body j (global) at every output time,
//! then each drive's generalized force on its coordinate (`<drive>.effort`: N·m for a rotation,
//! N for a translation; in joint coordinates from the tree's own drive rows).

use super::trajectory::columns;
use super::Recorder;
use crate::check::joint_reactions;
use crate::output::{CsvWriter, OutputDir};
use crate::simulation::{Sample, Simulation};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Writes `reactions.csv`.
pub struct ReactionsCsv {
    out: CsvWriter,
    row: Vec<f64>,
}

impl ReactionsCsv {
    /// Claims `reactions.csv` with columns for the joints called `joints` and the efforts of
    /// the drives called `drives`.
    pub fn create(dir: &OutputDir, joints: &[String], drives: &[String]) -> Result<Self> {
        let mut out = dir.file("reactions.csv")?;
        let mut header = columns(joints, &["fx", "fy", "fz"]);
        header.extend(drives.iter().map(|d| format!("{d}.effort")));
        out.header(&header)?;
        Ok(Self { out, row: Vec::new() })
    }
}

impl Recorder for ReactionsCsv {
    fn record(&mut self, sim: &mut Simulation, sample: &Sample) -> Result<()> {
        let t = sim.time();
        let Some((model, data)) = sim.rigid_mut() else {
            return Ok(());
        };
        self.row.clear();
        self.row.push(t);
        let reactions =
            joint_reactions(model, data).with_context(|| format!("joint reactions at t = {t} s"))?;
        for r in reactions {
            self.row.extend(r.force.to_array());
        }
        self.row.extend(sample.drives.iter().map(|d| d.effort));
        self.out.row(&self.row)
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        Ok(vec![self.out.finish()?])
    }
}
