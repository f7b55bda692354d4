//! The implicit multibody integrator as a [`System`] the drive loop steps: the kernel's coupled
//! state layout, energy, the rigid bodies and flexible nodes for the recorders, and the Newton
//! work for the summary line.

use super::MultibodyHht;
use crate::simulation::{ContactModel, Contacts, FlexibleState, System};
use crate::storage::{RigidData, RigidModel};
use anyhow::Context;
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::{Energy, KernelError};
use std::any::Any;

impl System for MultibodyHht {
    fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        let t = self.time();
        MultibodyHht::step(self, dt)
            .with_context(|| format!("{} step from t = {t} s", self.scheme().name()))?;
        Ok(())
    }
    fn time(&self) -> f64 {
        MultibodyHht::time(self)
    }
    fn energy(&self) -> Result<Energy<f64>, KernelError> {
        MultibodyHht::energy(self)
    }
    fn state(&self) -> &[f64] {
        MultibodyHht::state(self)
    }
    fn position_count(&self) -> usize {
        let nodes = self.flex().map_or(0, |(model, _)| model.node_count());
        7 * MultibodyHht::rigid(self).0.bodies().len() + NODE_COORDS * nodes
    }
    fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError> {
        if state.len() != self.state().len() {
            return Err(KernelError::StateSizeMismatch);
        }
        let t = self.time();
        MultibodyHht::set_state(self, state).map_err(|e| e.kernel_error(t))
    }
    fn rigid(&self) -> Option<(&RigidModel, &RigidData)> {
        let (model, data) = MultibodyHht::rigid(self);
        (!model.bodies().is_empty()).then_some((model, data))
    }
    fn rigid_mut(&mut self) -> Option<(&RigidModel, &mut RigidData)> {
        // Without a flexible body the rigid data is the whole state (mirrored at every
        // evaluation), so reactions and settling may evaluate it in place.
        let rigid_only = self.flex().is_none();
        let (model, data) = MultibodyHht::rigid_mut(self);
        (rigid_only && !model.bodies().is_empty()).then_some((model, data))
    }
    fn flexible(&self) -> Option<FlexibleState<'_>> {
        let (model, data) = self.flex()?;
        let state = data.state();
        let (coordinates, rates) = state.split_at(state.len() / 2);
        Some(FlexibleState {
            materials: model.materials(),
            reference: model.references(),
            connectivity: model.connectivity(),
            coordinates,
            rates,
        })
    }
    fn contacts(&self) -> Option<Contacts<'_>> {
        MultibodyHht::contacts(self).map(ContactModel::view)
    }
    fn solver_report(&self) -> Option<String> {
        let (nnz, factor) = self.sparsity();
        Some(format!(
            "{} Newton iterations ({:.2} a step), {} factorizations; {nnz} matrix and {factor} factor entries",
            self.iterations,
            self.iterations as f64 / self.steps.max(1) as f64,
            self.factorizations()
        ))
    }
    fn take_over(&mut self, old: &mut dyn System) -> bool {
        match old.as_any_mut().downcast_mut::<Self>() {
            Some(old) if old.state().len() == self.state().len() => {
                let state = old.state().to_vec();
                self.swap_contact(old);
                self.set_time_and_state(old.time(), &state).is_ok()
            }
            _ => false,
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
