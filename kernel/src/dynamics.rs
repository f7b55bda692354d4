//! The one interface of every model family: rigid bodies in Cartesian coordinates
//! ([`rigid::Model`](crate::rigid::Model)), trees in joint coordinates
//! ([`tree::Model`](crate::tree::Model)), flexible bodies ([`flex::Model`](crate::flex::Model))
//! and rigid–flexible systems ([`coupled::Model`](crate::coupled::Model)).
//!
//! Each family keeps its immutable description in a `Model` and all mutable state in a `Data`
//! (MuJoCo's mjModel/mjData, Pinocchio's Model/Data); [`Dynamics`] steps a `Data` under any
//! [`Integrator`], reads its energy, and reads or writes its state as one flat slice (for
//! snapshots, co-simulation and parameter studies), so code written once against [`Dynamics`]
//! drives every family.

use crate::{Digest, ExternalForces, Integrator, KernelError, NoExternalForces, Real, StepStats};

/// Mechanical energy of a state (J).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Energy<R> {
    /// Kinetic energy ½ vᵀ M v.
    pub kinetic: R,
    /// Potential energy of gravity (zero at the global origin) and of springs.
    pub potential: R,
    /// Strain energy of flexible bodies ∫ W dV.
    pub strain: R,
}

impl<R: Real> Energy<R> {
    /// Kinetic + strain + potential.
    pub fn total(&self) -> R {
        self.kinetic + self.strain + self.potential
    }
}

/// A model family: how its `Data` is created, stepped and read.
///
/// Every method is allocation-free and panic-free for the kernel's own storage; a failed step
/// leaves the state at the start of the step and says why in a [`KernelError`].
pub trait Dynamics<R: Real> {
    /// All mutable state of a simulation of this model.
    type Data;

    /// Fresh data holding the model's initial state at t = 0.
    fn new_data(&self) -> Self::Data;

    /// Advances `data` by `dt` with `integrator`, with `external` forces evaluated at every
    /// integrator stage (contact, for instance); then shows `external` the accepted state
    /// ([`Dynamics::accept`]).
    fn step_with<I: Integrator<R>, E: ExternalForces<R>>(
        &self,
        data: &mut Self::Data,
        integrator: &mut I,
        dt: R,
        external: &mut E,
    ) -> Result<StepStats, KernelError>;

    /// Advances `data` by `dt` with `integrator`.
    fn step<I: Integrator<R>>(
        &self,
        data: &mut Self::Data,
        integrator: &mut I,
        dt: R,
    ) -> Result<StepStats, KernelError> {
        self.step_with(data, integrator, dt, &mut NoExternalForces)
    }

    /// Shows `external` the current state of `data` through [`ExternalForces::accept`], as after
    /// every step of [`Dynamics::step_with`]: call it once before the first step so that forces
    /// with memory (contact) start from the initial state.
    fn accept<E: ExternalForces<R>>(
        &self,
        data: &mut Self::Data,
        external: &mut E,
    ) -> Result<(), KernelError>;

    /// Simulation time of `data` (s).
    fn time(&self, data: &Self::Data) -> R;

    /// Mechanical energy at the state of `data`. Fails only where a flexible element cannot be
    /// evaluated (inverted).
    fn energy(&self, data: &Self::Data) -> Result<Energy<R>, KernelError>;

    /// The state as one flat slice `[positions | velocities]` (the family documents its layout).
    fn state<'d>(&self, data: &'d Self::Data) -> &'d [R];

    /// Overwrites the state of `data` with `state` (same layout and length as
    /// [`Dynamics::state`]); time is kept. Fails, leaving `data` unchanged, on a length mismatch
    /// or a non-finite value.
    fn set_state(&self, data: &mut Self::Data, state: &[R]) -> Result<(), KernelError>;

    /// The digest of the state's bits.
    fn digest(&self, data: &Self::Data) -> Digest {
        Digest::of(self.state(data))
    }
}

/// Advances `data` of any model family by `dt` with `integrator` (see [`Dynamics::step`]).
pub fn step<R: Real, M: Dynamics<R>, I: Integrator<R>>(
    model: &M,
    data: &mut M::Data,
    integrator: &mut I,
    dt: R,
) -> Result<StepStats, KernelError> {
    model.step(data, integrator, dt)
}

/// [`step`] with `external` forces evaluated at every integrator stage (see
/// [`Dynamics::step_with`]).
pub fn step_with<R: Real, M: Dynamics<R>, I: Integrator<R>, E: ExternalForces<R>>(
    model: &M,
    data: &mut M::Data,
    integrator: &mut I,
    dt: R,
    external: &mut E,
) -> Result<StepStats, KernelError> {
    model.step_with(data, integrator, dt, external)
}

/// Checks that `state` can replace a state of `len` values: the length matches and every value
/// is finite (the error names the position with `item_of`).
pub(crate) fn check_state<R: Real>(
    state: &[R],
    len: usize,
    time: R,
    item_of: impl Fn(usize) -> crate::Item,
) -> Result<(), KernelError> {
    if state.len() != len {
        return Err(KernelError::StateSizeMismatch);
    }
    match state.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(KernelError::NonFinite {
            item: item_of(i),
            time: time.to_f64(),
        }),
        None => Ok(()),
    }
}
