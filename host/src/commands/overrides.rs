//! Command-line settings that override a scene's `[simulation]`: each is applied and reported
//! (the run's header line lists them), or refused with the reason; none is ignored.

use crate::scene::Simulation;
use crate::spec::formulation::{Formulation, FORMULATION_NAMES};
use crate::spec::integrator::integrator_names;
use crate::spec::IntegratorSpec;
use anyhow::{anyhow, bail, Result};
use ferrodyn_kernel::integrators::AdaptiveConfig;

/// Settings given on the command line; `None`: keep the scene's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// End time (s).
    pub end: Option<f64>,
    /// Step (s).
    pub dt: Option<f64>,
    /// Output interval (s).
    pub output_interval: Option<f64>,
    /// Integrator name.
    pub integrator: Option<String>,
    /// Relative tolerance of the adaptive integrators.
    pub rtol: Option<f64>,
    /// Formulation of the rigid part (auto, tree, cartesian).
    pub formulation: Option<String>,
}

impl Overrides {
    /// Applies the given settings to `sim`, checked as a scene file's are; returns what changed,
    /// as `--flag value (was: old)` for the header line.
    pub fn apply(&self, sim: &mut Simulation) -> Result<Vec<String>> {
        let mut changed = Vec::new();
        if let Some(end) = self.end {
            changed.push(format!("--end {end} (was {})", sim.end_time));
            sim.end_time = positive("--end", end)?;
        }
        if let Some(dt) = self.dt {
            changed.push(format!("--dt {dt} (was {})", sim.step));
            // An output interval of one step (the scene's default) stays one step.
            let every_step = sim.output_interval == sim.step;
            sim.step = positive("--dt", dt)?;
            if every_step && self.output_interval.is_none() {
                changed.push(format!("output interval {dt} (one step, as before)"));
                sim.output_interval = dt;
            }
        }
        crate::limits::check_steps(sim.end_time, sim.step).map_err(anyhow::Error::msg)?;
        if sim.step > sim.end_time {
            bail!(
                "the step {} s is longer than the end time {} s",
                sim.step,
                sim.end_time
            );
        }
        match self.output_interval {
            Some(interval) => {
                changed.push(format!(
                    "--output-interval {interval} (was {})",
                    sim.output_interval
                ));
                sim.output_interval = positive("--output-interval", interval)?;
            }
            // A step made longer than the scene's output interval carries the interval along.
            None => sim.output_interval = sim.output_interval.max(sim.step),
        }
        if sim.output_interval < sim.step {
            bail!(
                "--output-interval {} s is shorter than the step {} s",
                sim.output_interval,
                sim.step
            );
        }
        if self.integrator.is_some() || self.rtol.is_some() {
            let before = sim.integrator.name();
            sim.integrator = self.integrator(&sim.integrator)?;
            let mut what = format!("--integrator {}", sim.integrator.name());
            if let Some(rtol) = self.rtol {
                what.push_str(&format!(" --rtol {rtol} (atol {:e})", rtol * ATOL_PER_RTOL));
            }
            changed.push(format!("{what} (was {before})"));
        }
        if let Some(name) = &self.formulation {
            let before = sim.formulation.name();
            sim.formulation = Formulation::from_name(name).ok_or_else(|| {
                anyhow!(
                    "unknown formulation '{name}'; choose one of {}",
                    FORMULATION_NAMES.join(", ")
                )
            })?;
            changed.push(format!("--formulation {name} (was {before})"));
        }
        Ok(changed)
    }

    /// The integrator named on the command line (with `--rtol` for the adaptive ones), or the
    /// scene's with a new `--rtol`.
    fn integrator(&self, scene: &IntegratorSpec) -> Result<IntegratorSpec> {
        let name = self.integrator.as_deref().unwrap_or(scene.name());
        if name == scene.name() && self.rtol.is_none() {
            return Ok(*scene); // the scene's own settings
        }
        let adaptive = IntegratorSpec::is_adaptive(name);
        let config = match self.rtol {
            Some(_) if !adaptive => {
                bail!("--rtol applies to the adaptive integrators (rkf45, dopri45), not {name}")
            }
            Some(rtol) => {
                let rtol = positive("--rtol", rtol)?;
                AdaptiveConfig::new(rtol, rtol * ATOL_PER_RTOL)
            }
            None => AdaptiveConfig::default(),
        };
        IntegratorSpec::from_name(name, config).ok_or_else(|| {
            anyhow!(
                "unknown integrator '{name}'; choose one of {}",
                integrator_names()
            )
        })
    }
}

/// The absolute tolerance `--rtol` sets with it, per unit of rtol (`ferrodyn run --help`).
pub const ATOL_PER_RTOL: f64 = 1e-3;

/// `v` when it is finite and > 0; otherwise the error naming `flag`.
fn positive(flag: &str, v: f64) -> Result<f64> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        bail!("{flag} must be finite and > 0 (got {v})")
    }
}
