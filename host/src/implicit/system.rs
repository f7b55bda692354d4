//! The HHT-α / Newmark integrator as a [`System`] the drive loop steps: its state `[q | v]`,
//! energy, nodes and contacts, and the Newton work it did for the summary line.

use super::HhtFlex;
use crate::simulation::{Contacts, FlexibleState, System};
use anyhow::Context;
use ferrodyn_kernel::{Energy, KernelError};
use std::any::Any;

/// An [`HhtFlex`] with the counters of its steps.
pub struct ImplicitSystem {
    /// The integrator with its body and state.
    pub hht: HhtFlex,
    newton_iterations: u64,
    factorizations: u64,
    deepest_halving: u32,
}

impl ImplicitSystem {
    /// `hht` at its current state.
    pub fn new(hht: HhtFlex) -> Self {
        Self {
            hht,
            newton_iterations: 0,
            factorizations: 0,
            deepest_halving: 0,
        }
    }
}

impl System for ImplicitSystem {
    fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        let t = self.hht.time();
        let report = self
            .hht
            .step(dt)
            .with_context(|| format!("HHT step from t = {t} s"))?;
        self.newton_iterations += u64::from(report.newton_iterations);
        self.factorizations += u64::from(report.factorizations);
        self.deepest_halving = self.deepest_halving.max(report.halvings);
        Ok(())
    }
    fn time(&self) -> f64 {
        self.hht.time()
    }
    fn energy(&self) -> Result<Energy<f64>, KernelError> {
        self.hht.energies().map_err(|e| e.kernel_error(self.hht.time()))
    }
    fn state(&self) -> &[f64] {
        self.hht.state()
    }
    fn position_count(&self) -> usize {
        self.hht.body().coordinate_count()
    }
    fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError> {
        let n = self.hht.body().coordinate_count();
        if state.len() != 2 * n {
            return Err(KernelError::StateSizeMismatch);
        }
        let (q, v) = state.split_at(n);
        self.hht
            .set_state(self.hht.time(), Some(q), Some(v))
            .map_err(|e| e.kernel_error(self.hht.time()))
    }
    fn flexible(&self) -> Option<FlexibleState<'_>> {
        let body = self.hht.body();
        Some(FlexibleState {
            materials: body.materials(),
            reference: body.references(),
            connectivity: body.connectivity(),
            coordinates: self.hht.coordinates(),
            rates: self.hht.rates(),
        })
    }
    fn contacts(&self) -> Option<Contacts<'_>> {
        let contacts = self.hht.contacts();
        (!contacts.is_empty()).then_some(Contacts::Flexible(contacts))
    }
    fn solver_report(&self) -> Option<String> {
        let (nnz, factor) = self.hht.sparsity();
        Some(format!(
            "{} Newton iterations, {} factorizations, deepest step halving {}; {nnz} matrix and {factor} factor entries",
            self.newton_iterations, self.factorizations, self.deepest_halving
        ))
    }
    fn take_over(&mut self, old: &mut dyn System) -> bool {
        match old.as_any_mut().downcast_mut::<Self>() {
            Some(old) => {
                let (q, v) = (old.hht.coordinates().to_vec(), old.hht.rates().to_vec());
                self.hht.set_state(old.hht.time(), Some(&q), Some(&v)).is_ok()
            }
            None => false,
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
