//! Stepping a model: the public entry points that pair a [`Model`] with its [`Data`].

use crate::data::RigidData;
use crate::dynamics::RigidSystem;
use crate::external::{ExternalForces, NoExternalForces};
use crate::model::RigidModel;
use crate::storage::{DataStorage, ModelStorage};
use crate::{Integrator, KernelError, OdeSystem, Real, Stages, StepStats};

impl<R: Real, D: DataStorage> RigidData<R, D> {
    /// Splits the data into the state vector, the integrator stages and the dynamics system.
    fn parts<'a, St: ModelStorage<Data = D>>(
        &'a mut self,
        model: &'a RigidModel<R, St>,
    ) -> (&'a mut [R], Stages<'a, R>, RigidSystem<'a, R>) {
        let y = self.state.as_flattened_mut();
        let k = self.stages.each_mut().map(|s| s.as_flattened_mut());
        let system = RigidSystem::new(model.view(), self.work.view());
        (y, Stages { k }, system)
    }
}

/// Advances `data` by `dt` with `integrator`. Never allocates, never panics; on error the state
/// is left at the start of the step (time unchanged).
pub fn step<R: Real, I: Integrator<R>, St: ModelStorage>(
    model: &RigidModel<R, St>,
    data: &mut RigidData<R, St::Data>,
    integrator: &mut I,
    dt: R,
) -> Result<StepStats, KernelError> {
    step_with(model, data, integrator, dt, &mut NoExternalForces)
}

/// [`step`] with `external` forces evaluated at every integrator stage (e.g. contact).
pub fn step_with<R: Real, I: Integrator<R>, St: ModelStorage, E: ExternalForces<R>>(
    model: &RigidModel<R, St>,
    data: &mut RigidData<R, St::Data>,
    integrator: &mut I,
    dt: R,
    external: &mut E,
) -> Result<StepStats, KernelError> {
    let mut clock = data.clock;
    let (y, mut stages, mut system) = data.parts(model);
    system.external = Some(external);
    let stats = clock.step(integrator, &mut system, y, &mut stages, dt)?;
    data.clock = clock;
    Ok(stats)
}

/// Projects the current state onto Φ(q, t) = 0 and Φ̇ = 0 (assembly of the initial
/// configuration). Returns the Newton iterations used.
pub fn assemble<R: Real, St: ModelStorage>(
    model: &RigidModel<R, St>,
    data: &mut RigidData<R, St::Data>,
) -> Result<u32, KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.accept_step(t, y)
}

/// Evaluates accelerations and constraint multipliers at the current state without stepping
/// (results in [`Data::multipliers`], [`Data::constraint_rows`] and [`accelerations`]).
pub fn forward<R: Real, St: ModelStorage>(
    model: &RigidModel<R, St>,
    data: &mut RigidData<R, St::Data>,
) -> Result<(), KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.forward(t, y)
}

/// Evaluates every constraint row (Φ, Φ_q, Φ_t, γ) at the current state into
/// [`Data::constraint_rows`], without solving anything: works with redundant constraints too.
pub fn evaluate_constraints<R: Real, St: ModelStorage>(
    model: &RigidModel<R, St>,
    data: &mut RigidData<R, St::Data>,
) -> Result<(), KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.kinematics(t, y)?;
    system.constraints(t);
    Ok(())
}

/// Accelerations of the last dynamics evaluation: per body (origin acceleration global,
/// angular acceleration body axes).
pub fn accelerations<R: Real, D: DataStorage>(data: &RigidData<R, D>) -> &[[R; 6]] {
    &data.work.accel
}
