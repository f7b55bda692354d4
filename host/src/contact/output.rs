//! Per-step contact output: one CSV row per active contact point.

use super::world::ContactWorld;
use crate::output::{CsvWriter, OutputDir};
use anyhow::Result;

/// Columns of contacts.csv (shapes by index in the order given).
pub const CONTACT_COLUMNS: [&str; 18] = [
    "time",
    "shape_a",
    "shape_b",
    "point",
    "x",
    "y",
    "z",
    "nx",
    "ny",
    "nz",
    "penetration",
    "penetration_rate",
    "impact_speed",
    "normal_force",
    "friction_x",
    "friction_y",
    "friction_z",
    "active_pairs",
];

/// Writes the contacts of each committed step into `contacts.csv`.
pub struct ContactCsv {
    out: CsvWriter,
}

impl ContactCsv {
    /// Claims `contacts.csv` in `dir` and writes the header.
    pub fn create(dir: &OutputDir) -> Result<Self> {
        let mut out = dir.file("contacts.csv")?;
        out.header(&CONTACT_COLUMNS)?;
        Ok(Self { out })
    }
    /// One row per contact active at the last commit of `world`, at time `t`.
    pub fn write(&mut self, t: f64, world: &ContactWorld) -> Result<()> {
        let active = world.active();
        let mut pairs: Vec<(usize, usize)> = active.iter().map(|c| (c.shape_a, c.shape_b)).collect();
        pairs.dedup();
        for c in active {
            self.out.row(&[
                t,
                c.shape_a as f64,
                c.shape_b as f64,
                f64::from(c.point_index),
                c.point[0],
                c.point[1],
                c.point[2],
                c.normal[0],
                c.normal[1],
                c.normal[2],
                c.penetration,
                c.penetration_rate,
                c.impact_speed,
                c.normal_force,
                c.friction_force[0],
                c.friction_force[1],
                c.friction_force[2],
                pairs.len() as f64,
            ])?;
        }
        Ok(())
    }
    /// Flushes and closes the file.
    pub fn finish(self) -> Result<std::path::PathBuf> {
        self.out.finish()
    }
}
