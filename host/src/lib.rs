//! # ferrodyn-host
//!
//! `std` tooling around the Ferrodyn kernel: built-in scenes, the simulation driver with
//! progress reporting, and CSV outputs. The `ferrodyn` command-line program lives here.

pub mod output;
pub mod run;
pub mod scenes;
