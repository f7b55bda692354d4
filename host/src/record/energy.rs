//! `energy.csv` and `energy.png`: kinetic, potential (gravity and springs), strain and total
//! energy at every output time, with the constraint violation of systems with joints.

use super::Recorder;
use crate::output::{CsvWriter, OutputDir};
use crate::plot::{line_plot, Series};
use crate::simulation::{Sample, Simulation};
use anyhow::{Context, Result};
use ferrodyn_kernel::rigid::Violation;
use std::path::PathBuf;

/// Writes `energy.csv` and, with plots, `energy.png`.
pub struct EnergyCsv {
    dir: OutputDir,
    out: CsvWriter,
    constrained: bool,
    /// (t, E) of each plotted series: kinetic, potential, strain (flexible), total.
    history: Vec<(&'static str, Vec<(f64, f64)>)>,
    plot: bool,
}

impl EnergyCsv {
    /// Claims `energy.csv` (columns time, kinetic, potential, strain, total, and the largest
    /// position and velocity violation when `constrained`); `strain`: plot the strain energy;
    /// `plot`: write `energy.png` at the end.
    pub fn create(dir: &OutputDir, constrained: bool, strain: bool, plot: bool) -> Result<Self> {
        let mut out = dir.file("energy.csv")?;
        let mut columns = vec!["time", "kinetic", "potential", "strain", "total"];
        if constrained {
            columns.extend(["violation_position", "violation_velocity"]);
        }
        out.header(&columns)?;
        let plotted: &[&'static str] = match strain {
            true => &["kinetic", "potential", "strain", "total"],
            false => &["kinetic", "potential", "total"],
        };
        Ok(Self {
            dir: dir.clone(),
            out,
            constrained,
            history: plotted.iter().map(|&label| (label, Vec::new())).collect(),
            plot,
        })
    }
}

impl Recorder for EnergyCsv {
    fn record(&mut self, sim: &mut Simulation, sample: &Sample) -> Result<()> {
        let t = sim.time();
        let e = sample.energy;
        let mut row = vec![t, e.kinetic, e.potential, e.strain, e.total()];
        if self.constrained {
            // The largest over the joints, as `rigid::violation`.
            let v = sample.joints.iter().fold(Violation::default(), |m, v| m.max(*v));
            row.extend([v.position, v.velocity]);
        }
        for (label, points) in self.history.iter_mut() {
            let value = match *label {
                "kinetic" => e.kinetic,
                "potential" => e.potential,
                "strain" => e.strain,
                _ => e.total(),
            };
            points.push((t, value));
        }
        self.out.row(&row)
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        let mut files = vec![self.out.finish()?];
        if self.plot {
            let path = self.dir.claim("energy.png")?;
            let series: Vec<Series> = self
                .history
                .iter()
                .map(|(label, points)| Series { label, points })
                .collect();
            line_plot(&path, "Energy", "time [s]", "energy [J]", &series).context("writing energy.png")?;
            files.push(path);
        }
        Ok(files)
    }
}
