//! Scenes for other targets. [`rust`]: a scene as a `#![no_std]`, allocation-free Rust module
//! for the firmware (`ferrodyn export rust`, or from a `build.rs`), written by `tree` for
//! rigid scenes in joint coordinates and by `flexible` for flexible bodies; [`target`]: what
//! it needs on a microcontroller; [`fmu`]: a scene as an FMI 3.0 or 2.0 co-simulation unit
//! (`ferrodyn export fmu`); [`firmware`]: a scene as a standalone firmware crate for a part,
//! built and run under QEMU by cargo (`ferrodyn export firmware`).

pub mod firmware;
mod flexible;
pub mod fmu;
mod fmu_description;
pub mod rust;
pub mod target;
mod time_function;
mod tree;
mod tree_contact;
mod tree_forces;
pub mod tree_loops;
mod tree_rows;

pub use rust::{rust_module, Precision};
pub use tree::refuse_tendons;
pub use tree_contact::contact_pair_count;
