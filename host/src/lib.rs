//! Ferrodyn host tooling.
pub mod gmsh;
