//! # ferrodyn-host
//!
//! `std` tooling around the Ferrodyn kernel: the Gmsh mesh reader, built-in scenes, the
//! simulation driver with progress reporting, and CSV outputs. The `ferrodyn` command-line
//! program lives here.

pub mod check;
pub mod contact;
pub mod dae;
pub mod flex_run;
pub mod gmsh;
pub mod implicit;
pub mod model;
pub mod output;
pub mod plot;
pub mod preflight;
pub mod run;
pub mod scene;
pub mod scenes;
pub mod sensor;
pub mod stepper;
pub mod view;
pub mod vtu;
pub mod watch;
