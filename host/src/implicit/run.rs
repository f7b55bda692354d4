//! `ferrodyn run` for a flexible-body scene with an implicit integrator.
