//! The shared library of `ferrodyn export fmu` (docs/fmu.md): the FMI 3.0 and 2.0
//! co-simulation C APIs over one Ferrodyn [`Simulation`](ferrodyn_host::simulation::Simulation).
//!
//! At instantiation the library reads the scene from the FMU's `resources/` folder, checks it
//! against the instantiation token (3.0) or GUID (2.0), and compiles it with the host library
//! as `ferrodyn run` does; each communication step is a whole number of the scene's steps, so
//! the outputs are the bits `ferrodyn run` writes. Inputs are the scene's `[[input]]` ports,
//! outputs its sensor channels (`ferrodyn_host::export::fmu::variables`).
//!
//! Safety at the boundary: every exported function runs its body inside `catch_unwind`
//! (`boundary::guard`); errors and panics become fmiError with a logged message. Instance and
//! FMU state pointers are checked against the ones this library handed out, so a null, freed
//! or foreign pointer is an error status. `unsafe` is only in this crate's C entry points and
//! the boundary helpers, each with its SAFETY reason.

#![deny(unsafe_op_in_unsafe_fn)]

mod boundary;
mod fmi2;
mod fmi3;
mod instance;
mod state_calls;
