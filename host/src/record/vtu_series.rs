//! A VTU file of the flexible bodies per output time (positions, displacement and velocity
//! fields) and the PVD collection that makes them a time series in ParaView.

use super::Recorder;
use crate::output::OutputDir;
use crate::simulation::{FlexibleState, Sample, Simulation};
use crate::vtu::{write_pvd, write_vtu, Field, VtuMesh};
use anyhow::Result;
use std::path::PathBuf;

/// Writes `NAME_NNNNN.vtu` per output time and `NAME.pvd`.
pub struct VtuSeries {
    dir: OutputDir,
    name: String,
    reference: Vec<[f64; 3]>,
    tets: Vec<[usize; 4]>,
    frames: Vec<(f64, String)>,
}

impl VtuSeries {
    /// A series called `name` of the mesh of `flex`.
    pub fn new(dir: &OutputDir, name: &str, flex: &FlexibleState) -> Self {
        Self {
            dir: dir.clone(),
            name: name.to_string(),
            reference: flex.reference.iter().map(|p| p.to_array()).collect(),
            tets: flex.connectivity.to_vec(),
            frames: Vec::new(),
        }
    }
}

impl Recorder for VtuSeries {
    fn record(&mut self, sim: &mut Simulation, _: &Sample) -> Result<()> {
        let Some(flex) = sim.flexible() else {
            return Ok(());
        };
        let n = self.reference.len();
        let points: Vec<[f64; 3]> = (0..n).map(|i| flex.position(i).to_array()).collect();
        let displacement: Vec<[f64; 3]> = points
            .iter()
            .zip(&self.reference)
            .map(|(p, r)| [p[0] - r[0], p[1] - r[1], p[2] - r[2]])
            .collect();
        let velocity: Vec<[f64; 3]> = (0..n).map(|i| flex.velocity(i).to_array()).collect();
        let file = format!("{}_{:05}.vtu", self.name, self.frames.len());
        let path = self.dir.claim(&file)?;
        let fields = [
            Field::vector("displacement", &displacement),
            Field::vector("velocity", &velocity),
        ];
        let mesh = VtuMesh {
            points: &points,
            tets: &self.tets,
        };
        write_vtu(&path, &mesh, &fields, &[])?;
        self.frames.push((sim.time(), file));
        Ok(())
    }
    /// Writes the PVD collection; returns it (the VTU files are listed in it).
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        let pvd = self.dir.claim(&format!("{}.pvd", self.name))?;
        write_pvd(&pvd, &self.frames)?;
        Ok(vec![pvd])
    }
}
