//! The scalar outputs of one case: a recorder the drive loop feeds with the other recorders,
//! keeping the smallest, largest and last value of every sensor channel, the energy at the
//! start and end, and the contact peaks; with the drive's [`Summary`] it makes the named
//! values of a case's result.

use crate::record::Recorder;
use crate::simulation::{Contacts, Sample, Simulation, Summary};
use anyhow::Result;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

/// One named scalar of a case's result.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scalar {
    /// Column name in results.csv.
    pub name: String,
    /// Value.
    pub value: f64,
}

/// What the recorder saw.
#[derive(Clone, Debug, Default)]
pub struct Extremes {
    /// Channel names.
    columns: Vec<String>,
    /// (min, max, last) of every channel.
    channels: Vec<(f64, f64, f64)>,
    energy_initial: Option<f64>,
    energy_final: f64,
    time_final: f64,
    contact_force_peak: f64,
    penetration_peak: f64,
}

/// Keeps the extremes of a simulation's sensors, energy and contacts at output times.
pub struct ScalarRecorder {
    seen: Rc<RefCell<Extremes>>,
}

impl ScalarRecorder {
    /// A recorder for `sim` and the handle through which its extremes are read after the run
    /// (the drive loop consumes its recorders).
    pub fn new(sim: &Simulation) -> (Self, Rc<RefCell<Extremes>>) {
        let columns: Vec<String> = sim.labels.sensors.iter().flat_map(|s| s.columns()).collect();
        let seen = Rc::new(RefCell::new(Extremes {
            channels: vec![(f64::INFINITY, f64::NEG_INFINITY, f64::NAN); columns.len()],
            columns,
            ..Extremes::default()
        }));
        (Self { seen: seen.clone() }, seen)
    }
}

impl Recorder for ScalarRecorder {
    fn record(&mut self, sim: &mut Simulation, sample: &Sample) -> Result<()> {
        let mut seen = self.seen.borrow_mut();
        let e = sample.energy.total();
        seen.energy_initial.get_or_insert(e);
        seen.energy_final = e;
        seen.time_final = sim.time();
        let mut row = Vec::with_capacity(seen.channels.len());
        for sensor in &sim.labels.sensors {
            sensor.sample(sim.rigid(), sim.flexible(), &mut row);
        }
        for ((lo, hi, last), v) in seen.channels.iter_mut().zip(row) {
            (*lo, *hi, *last) = (lo.min(v), hi.max(v), v);
        }
        let (force, depth) = contact_peaks(sim.contacts());
        seen.contact_force_peak = seen.contact_force_peak.max(force);
        seen.penetration_peak = seen.penetration_peak.max(depth);
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        Ok(Vec::new())
    }
}

/// The largest normal force and penetration of any single contact active now.
fn contact_peaks(contacts: Option<Contacts<'_>>) -> (f64, f64) {
    let peak = |pairs: &mut dyn Iterator<Item = (f64, f64)>| {
        pairs.fold((0.0f64, 0.0f64), |(f, d), (nf, pen)| (f.max(nf), d.max(pen)))
    };
    let Some(contacts) = contacts else {
        return (0.0, 0.0);
    };
    let rigid = contacts
        .rigid()
        .into_iter()
        .flat_map(|w| w.active())
        .map(|c| (c.normal_force, c.penetration));
    let flexible = contacts.flexible();
    let ground = flexible
        .into_iter()
        .flat_map(|c| &c.ground)
        .flat_map(|g| g.active())
        .map(|n| (n.normal_force, n.penetration));
    let pair = flexible
        .into_iter()
        .flat_map(|c| &c.pair)
        .flat_map(|p| p.active())
        .map(|n| (n.normal_force, n.penetration));
    let shapes = flexible
        .into_iter()
        .flat_map(|c| &c.shapes)
        .flat_map(|s| s.active())
        .map(|n| (n.normal_force, n.penetration));
    peak(&mut rigid.chain(ground).chain(pair).chain(shapes))
}

/// The scalars that count something: whole numbers, written as integers in results.csv.
pub const COUNTS: [&str; 3] = ["steps", "contacts_peak", "diagnostics"];

/// The named scalars of a finished run: steps, final time, energy change (largest and at the
/// end), the largest |Φ| (with joints), the contact peaks (with contact), the number of
/// diagnostics, and min, max and final of every sensor channel.
pub fn scalars(summary: &Summary, seen: &Extremes) -> Vec<Scalar> {
    let mut out = vec![
        ("steps".to_string(), summary.steps as f64),
        ("time_final".to_string(), seen.time_final),
        ("energy_change_max".to_string(), summary.max_energy_change),
        (
            "energy_change_final".to_string(),
            seen.energy_final - seen.energy_initial.unwrap_or(seen.energy_final),
        ),
    ];
    if let Some(v) = summary.max_violation() {
        out.push(("violation_max".into(), v));
    }
    if let Some(n) = summary.peak_contacts {
        out.push(("contacts_peak".into(), n as f64));
        out.push(("contact_force_peak".into(), seen.contact_force_peak));
        out.push(("penetration_peak".into(), seen.penetration_peak));
    }
    out.push(("diagnostics".into(), summary.diagnostics.len() as f64));
    for (column, (lo, hi, last)) in seen.columns.iter().zip(&seen.channels) {
        out.push((format!("{column}_min"), *lo));
        out.push((format!("{column}_max"), *hi));
        out.push((format!("{column}_final"), *last));
    }
    out.into_iter()
        .map(|(name, value)| Scalar { name, value })
        .collect()
}
