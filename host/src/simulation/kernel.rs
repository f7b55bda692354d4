//! A kernel model of any family on the host: the model, its data, the integrator and the
//! contacts, stepped through the kernel's one [`Dynamics`] interface.

use super::system::{ContactModel, Contacts, FlexibleState, System};
use crate::dae::HostMethod;
use crate::storage::{CoupledModel, FlexModel, RigidData, RigidModel, TreeModel};
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::{Dynamics, Energy, KernelError};
use std::any::Any;

/// What a kernel family shows the host beyond [`Dynamics`]: its rigid bodies and its flexible
/// nodes, where it has them.
pub trait Views: Dynamics<f64, Data: Send + Sync> + Send + Sync + Sized + 'static {
    /// How many of the state's values are positions (nq): half of them unless the family's
    /// positions and velocities differ in number.
    fn position_count(&self, data: &Self::Data) -> usize {
        self.state(data).len() / 2
    }
    /// The rigid model and data.
    fn rigid<'a>(&'a self, _data: &'a Self::Data) -> Option<(&'a RigidModel, &'a RigidData)> {
        None
    }
    /// The rigid model and data to evaluate in place (a rigid model only).
    fn rigid_mut<'a>(&'a self, _data: &'a mut Self::Data) -> Option<(&'a RigidModel, &'a mut RigidData)> {
        None
    }
    /// The flexible nodes.
    fn flexible<'a>(&'a self, _data: &'a Self::Data) -> Option<FlexibleState<'a>> {
        None
    }
    /// The clock's time and carry (see [`System::clock_reading`]), where the family has them.
    fn clock_reading(&self, _data: &Self::Data) -> Option<[f64; 2]> {
        None
    }
    /// Moves the clock to a reading; false where the family cannot.
    fn resume_clock(&self, _data: &mut Self::Data, _reading: [f64; 2]) -> bool {
        false
    }
    /// What the integrator advances (see [`System::carried_state`]): the state unless the
    /// family integrates something else.
    fn carried_state<'a>(&'a self, data: &'a Self::Data) -> &'a [f64] {
        self.state(data)
    }
    /// Sets what [`Views::carried_state`] gives.
    fn set_carried_state(&self, data: &mut Self::Data, values: &[f64]) -> Result<(), KernelError> {
        self.set_state(data, values)
    }
}

/// [`Views::clock_reading`] and [`Views::resume_clock`] for a family whose data has them.
macro_rules! clock_views {
    () => {
        fn clock_reading(&self, data: &Self::Data) -> Option<[f64; 2]> {
            Some(data.clock_reading())
        }
        fn resume_clock(&self, data: &mut Self::Data, reading: [f64; 2]) -> bool {
            data.resume_clock(reading);
            true
        }
    };
}

impl Views for RigidModel {
    fn position_count(&self, _data: &RigidData) -> usize {
        7 * self.bodies().len()
    }
    fn rigid<'a>(&'a self, data: &'a RigidData) -> Option<(&'a RigidModel, &'a RigidData)> {
        Some((self, data))
    }
    fn rigid_mut<'a>(&'a self, data: &'a mut RigidData) -> Option<(&'a RigidModel, &'a mut RigidData)> {
        Some((self, data))
    }
    clock_views!();
}

impl Views for TreeModel {
    fn position_count(&self, _data: &Self::Data) -> usize {
        TreeModel::position_count(self)
    }
    clock_views!();
}

/// The flexible nodes of `model` in the state `[e | ė]`.
fn nodes<'a>(model: &'a FlexModel, state: &'a [f64]) -> FlexibleState<'a> {
    let (coordinates, rates) = state.split_at((NODE_COORDS * model.node_count()).min(state.len()));
    FlexibleState {
        materials: model.materials(),
        reference: model.references(),
        connectivity: model.connectivity(),
        coordinates,
        rates,
    }
}

impl Views for FlexModel {
    fn flexible<'a>(&'a self, data: &'a Self::Data) -> Option<FlexibleState<'a>> {
        Some(nodes(self, data.state()))
    }
    clock_views!();
    // The displacements from the reference, which the state rounds.
    fn carried_state<'a>(&'a self, data: &'a Self::Data) -> &'a [f64] {
        data.displacements()
    }
    fn set_carried_state(&self, data: &mut Self::Data, values: &[f64]) -> Result<(), KernelError> {
        data.set_displacements(self, values)
    }
}

impl Views for CoupledModel {
    fn position_count(&self, _data: &Self::Data) -> usize {
        7 * self.rigid().bodies().len() + NODE_COORDS * self.flex().node_count()
    }
    fn rigid<'a>(&'a self, data: &'a Self::Data) -> Option<(&'a RigidModel, &'a RigidData)> {
        Some((self.rigid(), data.rigid()))
    }
    fn flexible<'a>(&'a self, data: &'a Self::Data) -> Option<FlexibleState<'a>> {
        Some(nodes(self.flex(), data.flex().state()))
    }
    clock_views!();
}

/// A kernel model with its data, integrator and contacts.
pub struct KernelSystem<M: Dynamics<f64>> {
    /// The model.
    pub model: M,
    /// Its data.
    pub data: M::Data,
    /// The integrator (explicit, or BDF / generalized-α).
    pub method: HostMethod,
    /// Contacts, evaluated at every integrator stage.
    pub contact: Option<ContactModel>,
}

impl<M: Views> KernelSystem<M> {
    /// `model` at its initial state; the contacts see that state before the first step.
    pub fn new(model: M, method: HostMethod, contact: Option<ContactModel>) -> Result<Self, KernelError> {
        let data = model.new_data();
        Self::with_data(model, data, method, contact)
    }

    /// `model` at the state of `data`; the contacts see that state before the first step.
    pub fn with_data(
        model: M,
        mut data: M::Data,
        method: HostMethod,
        mut contact: Option<ContactModel>,
    ) -> Result<Self, KernelError> {
        if let Some(contact) = contact.as_mut() {
            model.accept(&mut data, contact)?;
        }
        Ok(Self {
            model,
            data,
            method,
            contact,
        })
    }
}

impl<M: Views> System for KernelSystem<M> {
    fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        let (model, data, method) = (&self.model, &mut self.data, &mut self.method);
        match self.contact.as_mut() {
            Some(contact) => model.step_with(data, method, dt, contact)?,
            None => model.step(data, method, dt)?,
        };
        Ok(())
    }
    fn time(&self) -> f64 {
        self.model.time(&self.data)
    }
    fn energy(&self) -> Result<Energy<f64>, KernelError> {
        self.model.energy(&self.data)
    }
    fn state(&self) -> &[f64] {
        self.model.state(&self.data)
    }
    fn position_count(&self) -> usize {
        self.model.position_count(&self.data)
    }
    fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError> {
        self.model.set_state(&mut self.data, state)
    }
    fn rigid(&self) -> Option<(&RigidModel, &RigidData)> {
        self.model.rigid(&self.data)
    }
    fn rigid_mut(&mut self) -> Option<(&RigidModel, &mut RigidData)> {
        self.model.rigid_mut(&mut self.data)
    }
    fn flexible(&self) -> Option<FlexibleState<'_>> {
        self.model.flexible(&self.data)
    }
    fn contacts(&self) -> Option<Contacts<'_>> {
        self.contact.as_ref().map(ContactModel::view)
    }
    fn solver_report(&self) -> Option<String> {
        self.method.solver_report()
    }
    fn clock_reading(&self) -> Option<[f64; 2]> {
        // Contacts remember the last accepted state, and adaptive or multistep integrators
        // their history: neither is in the state, so such a system cannot be resumed exactly.
        let one_step = matches!(
            self.method,
            HostMethod::Explicit(Method::Rk4 | Method::SemiImplicitEuler | Method::VelocityVerlet)
        );
        if !one_step || self.contact.is_some() {
            return None;
        }
        self.model.clock_reading(&self.data)
    }
    fn resume_clock(&mut self, reading: [f64; 2]) -> bool {
        self.clock_reading().is_some() && self.model.resume_clock(&mut self.data, reading)
    }
    fn carried_state(&self) -> &[f64] {
        self.model.carried_state(&self.data)
    }
    fn set_carried_state(&mut self, values: &[f64]) -> Result<(), KernelError> {
        self.model.set_carried_state(&mut self.data, values)
    }
    fn take_over(&mut self, old: &mut dyn System) -> bool {
        match old.as_any_mut().downcast_mut::<Self>() {
            Some(old) => {
                std::mem::swap(&mut self.data, &mut old.data);
                std::mem::swap(&mut self.contact, &mut old.contact);
                // The data may cache work of the old model (the rigid model keeps the factor
                // of its constraint matrix for the next step): setting the state drops it.
                let state = self.model.state(&self.data).to_vec();
                self.model.set_state(&mut self.data, &state).is_ok()
            }
            None => false,
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
