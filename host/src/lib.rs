//! # ferrodyn-host
//!
//! `std` tooling around the Ferrodyn kernel, one pipeline from a scene file to results:
//!
//! ```text
//! scene.toml ──load──▶ Scene (data) ──compile──▶ Simulation ──drive──▶ recorders
//!                     [`scene`]      [`compile`]   [`simulation`]        [`record`]
//! ```
//!
//! A [`scene::Scene`] is plain data (parsed and checked, names resolved); [`compile`] turns it
//! into a [`simulation::Simulation`] of the right kernel family on growable storage
//! ([`storage`]) — rigid, flexible (explicit or HHT-α, [`implicit`]), or coupled — with its
//! integrator (explicit, or BDF / generalized-α, [`dae`]) and contacts ([`contact`]);
//! [`simulation::drive`] steps it and feeds the recorders (CSV, VTU/PVD, PNG). The `ferrodyn`
//! commands ([`commands`], [`view`]) are built on it; [`check`] holds the model checks;
//! [`sweep`] runs parameter studies of a scene, locally or as a Slurm job array.

pub mod check;
pub mod commands;
pub mod compile;
pub mod contact;
pub mod dae;
pub mod export;
pub mod gmsh;
pub mod implicit;
pub mod import;
pub mod interrupt;
pub mod large_blocks;
pub mod limits;
pub mod obj;
pub mod output;
pub mod plot;
pub mod record;
pub mod release;
pub mod samples;
pub mod scene;
pub mod sensor;
pub mod simulation;
pub mod spec;
pub mod stl;
pub mod storage;
pub mod sweep;
pub mod view;
pub mod vtu;
pub mod watch;
