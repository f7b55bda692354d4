//! Run-time watch: turns suspicious states into diagnostics with the time and the item
//! (energy growth without external work, constraint drift per joint). A NaN stops the run as a
//! kernel error naming the body and time, which the driver reports the same way.

use crate::simulation::Labels;
use ferrodyn_kernel::rigid::{Force, Joint, JointKind};

/// What the watch saw.
#[derive(Clone, Debug, PartialEq)]
pub enum Diagnostic {
    /// Total energy rose above its initial value in a model that receives no external work.
    EnergyGrowth {
        /// Simulation time (s).
        time: f64,
        /// E(t) − E(0) relative to the energy scale.
        relative: f64,
    },
    /// A joint's constraint equations drifted above the tolerance.
    ConstraintDrift {
        /// Simulation time (s).
        time: f64,
        /// The joint's name.
        joint: String,
        /// Its largest |Φ|.
        violation: f64,
    },
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::EnergyGrowth { time, relative } => {
                write!(
                    f,
                    "t = {time} s: energy grew by {relative:.3e} (relative) without external work"
                )
            }
            Self::ConstraintDrift {
                time,
                joint,
                violation,
            } => {
                write!(
                    f,
                    "t = {time} s: joint \"{joint}\" drifted to |Φ| = {violation:.3e}"
                )
            }
        }
    }
}

/// Watches a run; reports each kind of problem once per item (the first time it appears).
#[derive(Clone, Debug)]
pub struct Watch {
    conservative: bool,
    initial_energy: f64,
    energy_scale: f64,
    energy_tolerance: f64,
    drift_tolerance: f64,
    energy_reported: bool,
    joints: Vec<String>,
    drift_reported: Vec<bool>,
    /// Everything seen so far.
    pub diagnostics: Vec<Diagnostic>,
}

impl Watch {
    /// A watch of the simulation labelled `labels` starting at energy `initial_energy`. Energy
    /// growth is watched only when nothing does work on the system (`labels.conservative`);
    /// `energy_tolerance` is relative to max(|E0|, largest kinetic energy seen), and
    /// `drift_tolerance` is absolute.
    pub fn new(labels: &Labels, initial_energy: f64, energy_tolerance: f64, drift_tolerance: f64) -> Self {
        Self {
            conservative: labels.conservative,
            initial_energy,
            energy_scale: initial_energy.abs(),
            energy_tolerance,
            drift_tolerance,
            energy_reported: false,
            joints: labels.names.joints.clone(),
            drift_reported: vec![false; labels.names.joints.len()],
            diagnostics: Vec::new(),
        }
    }

    /// Looks at one output time: total and kinetic energy, and the per-joint violations.
    pub fn observe(&mut self, time: f64, total: f64, kinetic: f64, violations: &[f64]) {
        self.energy_scale = self.energy_scale.max(kinetic);
        let relative = (total - self.initial_energy) / self.energy_scale.max(f64::MIN_POSITIVE);
        if self.conservative && !self.energy_reported && relative > self.energy_tolerance {
            self.energy_reported = true;
            self.diagnostics.push(Diagnostic::EnergyGrowth { time, relative });
        }
        let joints = self.joints.iter().zip(self.drift_reported.iter_mut());
        for ((joint, reported), &v) in joints.zip(violations) {
            if !*reported && v > self.drift_tolerance {
                *reported = true;
                self.diagnostics.push(Diagnostic::ConstraintDrift {
                    time,
                    joint: joint.clone(),
                    violation: v,
                });
            }
        }
    }
}

/// Whether nothing among these rigid items does work on the system: no driving joint, no
/// applied point force or torque (springs and dampers store or dissipate energy).
pub fn conservative<'a>(
    joints: impl IntoIterator<Item = &'a Joint<f64>>,
    forces: impl IntoIterator<Item = &'a Force<f64>>,
) -> bool {
    let driven = joints
        .into_iter()
        .any(|j| matches!(j.kind, JointKind::Driving { .. }));
    let applied = forces
        .into_iter()
        .any(|f| matches!(f, Force::Point { .. } | Force::Torque { .. }));
    !(driven || applied)
}
