//! Time integrators behind the one [`crate::Integrator`] trait.
