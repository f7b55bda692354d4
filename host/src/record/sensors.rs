//! `sensors.csv` and one `sensor_NAME.png` per plotted sensor: the scene's sensors sampled at
//! every output time.

use super::Recorder;
use crate::output::{CsvWriter, OutputDir};
use crate::plot::{line_plot, Series};
use crate::sensor::{Sensor, SensorKind};
use crate::simulation::{Sample, Simulation};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Writes `sensors.csv` and the sensor plots.
pub struct SensorsCsv {
    dir: OutputDir,
    out: CsvWriter,
    sensors: Vec<Sensor>,
    columns: Vec<String>,
    /// (t, value) of every channel.
    history: Vec<Vec<(f64, f64)>>,
    plots: bool,
    row: Vec<f64>,
}

impl SensorsCsv {
    /// Claims `sensors.csv` for `sensors`; `plots`: draw those marked for plotting.
    pub fn create(dir: &OutputDir, sensors: Vec<Sensor>, plots: bool) -> Result<Self> {
        let columns: Vec<String> = sensors.iter().flat_map(|s| s.columns()).collect();
        let mut out = dir.file("sensors.csv")?;
        out.header(&[vec!["time".to_string()], columns.clone()].concat())?;
        Ok(Self {
            dir: dir.clone(),
            out,
            history: vec![Vec::new(); columns.len()],
            columns,
            sensors,
            plots,
            row: Vec::new(),
        })
    }
}

impl Recorder for SensorsCsv {
    fn record(&mut self, sim: &mut Simulation, _: &Sample) -> Result<()> {
        let t = sim.time();
        self.row.clear();
        self.row.push(t);
        for sensor in &self.sensors {
            sensor.sample(sim.rigid(), sim.flexible(), &mut self.row);
        }
        for (h, value) in self.history.iter_mut().zip(&self.row[1..]) {
            h.push((t, *value));
        }
        self.out.row(&self.row)
    }

    /// Also writes one `sensor_NAME.png` per sensor marked for plotting, its channels against
    /// time.
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        let mut files = vec![self.out.finish()?];
        if !self.plots {
            return Ok(files);
        }
        let mut first = 0;
        for sensor in &self.sensors {
            let channels = sensor.columns().len();
            let range = first..first + channels;
            first += channels;
            if !sensor.plot {
                continue;
            }
            let path = self.dir.claim(&format!("sensor_{}.png", sensor.name))?;
            let series: Vec<Series> = self.columns[range.clone()]
                .iter()
                .zip(&self.history[range])
                .map(|(label, points)| Series { label, points })
                .collect();
            let unit = match sensor.kind {
                SensorKind::Point { .. } => "position [m], velocity [m/s]",
                SensorKind::JointAngle { .. } => "angle [rad], rate [rad/s]",
                SensorKind::FlexibleNode { .. } => "displacement [m]",
            };
            line_plot(&path, &sensor.name, "time [s]", unit, &series)
                .with_context(|| format!("writing {}", path.display()))?;
            files.push(path);
        }
        Ok(files)
    }
}
