//! `trajectory.csv`: the pose of every rigid body (origin position, orientation quaternion)
//! at every output time.

use super::Recorder;
use crate::output::{CsvWriter, OutputDir};
use crate::simulation::{Sample, Simulation};
use anyhow::Result;
use std::path::PathBuf;

/// Columns `time, {name}_{channel}…` for every name and channel.
pub(super) fn columns(names: &[String], channels: &[&str]) -> Vec<String> {
    let mut columns = vec!["time".to_string()];
    for name in names {
        columns.extend(channels.iter().map(|c| format!("{name}_{c}")));
    }
    columns
}

/// Writes `trajectory.csv`.
pub struct TrajectoryCsv {
    out: CsvWriter,
    row: Vec<f64>,
}

impl TrajectoryCsv {
    /// Claims `trajectory.csv` with columns for the bodies called `bodies`.
    pub fn create(dir: &OutputDir, bodies: &[String]) -> Result<Self> {
        let mut out = dir.file("trajectory.csv")?;
        out.header(&columns(bodies, &["x", "y", "z", "qw", "qx", "qy", "qz"]))?;
        Ok(Self { out, row: Vec::new() })
    }
}

impl Recorder for TrajectoryCsv {
    fn record(&mut self, sim: &mut Simulation, _: &Sample) -> Result<()> {
        let Some((model, data)) = sim.rigid() else {
            return Ok(());
        };
        let positions = 7 * model.bodies().len();
        self.row.clear();
        self.row.push(data.time());
        self.row.extend_from_slice(&data.state()[..positions]);
        self.out.row(&self.row)
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        Ok(vec![self.out.finish()?])
    }
}
