//! Run-time watch: turns suspicious states into diagnostics with the time and the item
//! (energy growth without external work, constraint drift per joint). A NaN stops the run as a
//! kernel error naming the body and time, which the driver reports the same way.

use ferrodyn_kernel::{JointKind, ModelStorage, RigidModel};

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
        /// The joint's index.
        joint: usize,
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
                write!(f, "t = {time} s: joint {joint} drifted to |Φ| = {violation:.3e}")
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
    drift_reported: Vec<bool>,
    /// Everything seen so far.
    pub diagnostics: Vec<Diagnostic>,
}

impl Watch {
    /// A watch for `model` starting at energy `initial_energy`. Energy growth is watched only
    /// when nothing does work on the system (no applied forces, no driving constraints);
    /// `energy_tolerance` is relative to max(|E0|, largest kinetic energy seen), and
    /// `drift_tolerance` is absolute.
    pub fn new<St: ModelStorage>(
        model: &RigidModel<f64, St>,
        initial_energy: f64,
        energy_tolerance: f64,
        drift_tolerance: f64,
    ) -> Self {
        let driven = model
            .joints()
            .iter()
            .any(|j| matches!(j.kind, JointKind::Driving { .. }));
        let applied = model.forces().iter().any(|f| {
            matches!(
                f,
                ferrodyn_kernel::Force::Point { .. } | ferrodyn_kernel::Force::Torque { .. }
            )
        });
        Self {
            conservative: !driven && !applied,
            initial_energy,
            energy_scale: initial_energy.abs(),
            energy_tolerance,
            drift_tolerance,
            energy_reported: false,
            drift_reported: vec![false; model.joints().len()],
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
        for (joint, (&v, reported)) in violations.iter().zip(self.drift_reported.iter_mut()).enumerate() {
            if !*reported && v > self.drift_tolerance {
                *reported = true;
                self.diagnostics.push(Diagnostic::ConstraintDrift {
                    time,
                    joint,
                    violation: v,
                });
            }
        }
    }
}
