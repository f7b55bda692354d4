//! Stepping a rigid model: its [`Dynamics`] implementation and the entry points that pair a
//! [`Model`] with its [`Data`] without stepping (assembly, forward dynamics, constraints).

use super::data::{Data, Factor, BODY_STATE};
use super::model::Model;
use super::system::RigidSystem;
use crate::dynamics::check_state;
use crate::storage::Storage;
use crate::{
    Dynamics, Energy, ExternalForces, ExternalLoads, Integrator, Item, KernelError, Real, Stages, StepStats,
};

impl<R: Real, St: Storage> Data<R, St> {
    /// Splits the data into the state vector, the integrator stages and the dynamics system.
    pub(crate) fn parts<'a>(
        &'a mut self,
        model: &'a Model<R, St>,
    ) -> (&'a mut [R], Stages<'a, R>, RigidSystem<'a, R>) {
        let y = self.state.as_flattened_mut();
        let k = self.stages.each_mut().map(|s| s.as_flattened_mut());
        let system = RigidSystem::new(model.view(), self.work.view());
        (y, Stages { k }, system)
    }
}

/// State `[q of all bodies (position, quaternion w x y z: 7 each) | v of all bodies (origin
/// velocity global, angular velocity body axes: 6 each)]`. A step never allocates, never panics;
/// on error the state is left at the start of the step (time unchanged).
impl<R: Real, St: Storage> Dynamics<R> for Model<R, St> {
    type Data = Data<R, St>;

    fn new_data(&self) -> Data<R, St> {
        Data::new(self)
    }

    fn step_with<I: Integrator<R>, E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
        external: &mut E,
    ) -> Result<StepStats, KernelError> {
        let stats = advance(self, data, integrator, dt, Some(external))?;
        self.accept(data, external)?;
        Ok(stats)
    }

    fn accept<E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        external: &mut E,
    ) -> Result<(), KernelError> {
        let t = data.time();
        let (y, _, mut system) = data.parts(self);
        system.kinematics(t, y)?;
        let work = &mut system.work;
        external.accept(t, &ExternalLoads::bodies(&*work.sides, &mut *work.wrench));
        Ok(())
    }

    fn step<I: Integrator<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
    ) -> Result<StepStats, KernelError> {
        advance(self, data, integrator, dt, None)
    }

    fn time(&self, data: &Data<R, St>) -> R {
        data.time()
    }

    fn energy(&self, data: &Data<R, St>) -> Result<Energy<R>, KernelError> {
        Ok(super::energy(self, data))
    }

    fn state<'d>(&self, data: &'d Data<R, St>) -> &'d [R] {
        data.state()
    }

    fn set_state(&self, data: &mut Data<R, St>, state: &[R]) -> Result<(), KernelError> {
        let (n, time) = (data.body_count, data.time());
        // Position k of the state belongs to body k / 7 (positions) or (k − 7n) / 6 (velocities).
        let body = |k: usize| Item::Body(if k < 7 * n { k / 7 } else { (k - 7 * n) / 6 });
        check_state(state, BODY_STATE * n, time, body)?;
        data.state.as_flattened_mut().copy_from_slice(state);
        data.work.factor = Factor::None;
        Ok(())
    }
}

/// Advances `data` by `dt`, with the forces of `external` (when given) at every stage.
fn advance<R: Real, St: Storage, I: Integrator<R>>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    integrator: &mut I,
    dt: R,
    external: Option<&mut dyn ExternalForces<R>>,
) -> Result<StepStats, KernelError> {
    let mut clock = data.clock;
    let (y, mut stages, mut system) = data.parts(model);
    // A reborrow for the length of this step only.
    system.external = external.map(|e| e as &mut dyn ExternalForces<R>);
    let stats = clock.step(integrator, &mut system, y, &mut stages, dt)?;
    data.clock = clock;
    Ok(stats)
}

/// Projects the current state onto Φ(q, t) = 0 and Φ̇ = 0 (assembly of the initial
/// configuration). Returns the Newton iterations used. A state the projection would leave bit
/// for bit as it is (an open model already on both, at rest or moving along its joints) is
/// left without factorizing the constraint matrix.
pub fn assemble<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
) -> Result<u32, KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.assemble(t, y)
}

/// Evaluates accelerations and constraint multipliers at the current state without stepping
/// (results in [`Data::multipliers`], [`Data::constraint_rows`] and [`accelerations`]).
pub fn forward<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
) -> Result<(), KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.forward(t, y)
}

/// Evaluates every constraint row (Φ, Φ_q, Φ_t, γ) at the current state into
/// [`Data::constraint_rows`], without solving anything: works with redundant constraints too.
pub fn evaluate_constraints<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
) -> Result<(), KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.kinematics(t, y)?;
    system.constraints(t);
    Ok(())
}

/// The applied generalized forces Q of M a + Φ_qᵀ λ = Q at the current state and time into
/// `out`, per body [force (global, at the origin); torque about the origin (body axes)]:
/// gravity, the velocity terms of the Newton–Euler equations and the force elements. For
/// integrators outside the kernel that assemble their own equations of motion.
pub fn applied_forces<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    out: &mut [[R; 6]],
) -> Result<(), KernelError> {
    applied_forces_with(
        model,
        data,
        &mut crate::NoExternalForces,
        (&[], &[], &mut []),
        out,
    )
}

/// [`applied_forces`] with the forces of `external` added: on the bodies into `out`, and on
/// flexible nodes through `nodes` = (coordinates, rates, generalized forces added to; 12 per
/// node). For host integrators of rigid + flexible models with contact.
pub fn applied_forces_with<R: Real, St: Storage, E: ExternalForces<R> + ?Sized>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    external: &mut E,
    nodes: (&[R], &[R], &mut [R]),
    out: &mut [[R; 6]],
) -> Result<(), KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.kinematics(t, y)?;
    system.applied_wrenches(t, y);
    let work = &mut system.work;
    let (e, ed, force) = nodes;
    external.apply(
        t,
        &mut ExternalLoads::bodies(&*work.sides, &mut *work.wrench).with_nodes(e, ed, force),
    );
    for (o, w) in out.iter_mut().zip(work.wrench.iter()) {
        *o = [
            w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z,
        ];
    }
    Ok(())
}

/// Hands `external` the accepted state (bodies at the data's state, flexible nodes at
/// coordinates `e`, rates `ed`): the [`ExternalForces::accept`] of host integrators.
pub fn accept_external<R: Real, St: Storage, E: ExternalForces<R> + ?Sized>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    external: &mut E,
    e: &[R],
    ed: &[R],
) -> Result<(), KernelError> {
    let t = data.clock.time;
    let (y, _, mut system) = data.parts(model);
    system.kinematics(t, y)?;
    let work = &mut system.work;
    external.accept(
        t,
        &ExternalLoads::bodies(&*work.sides, &mut *work.wrench).with_nodes(e, ed, &mut []),
    );
    Ok(())
}

/// Accelerations of the last dynamics evaluation: per body (origin acceleration global,
/// angular acceleration body axes).
pub fn accelerations<R: Real, St: Storage>(data: &Data<R, St>) -> &[[R; 6]] {
    &data.work.accel
}

/// Whether constraint row `row` was found redundant (dependent on the rows before it, so it
/// carries a zero multiplier) by the last factorization of the constraint matrix: a step,
/// [`forward`] or [`assemble`]. The rank of Φ_q is the row count less the redundant rows.
pub fn is_redundant_row<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>, row: usize) -> bool {
    row < model.row_count && crate::math::skyline::is_dependent(&model.view().layout, &data.work.matrix, row)
}
