//! The integration tests of this package in one test binary: one link of the host instead of
//! one per file (build time and target/ size, issue 38). Each file is a module; run one with
//! `cargo test --release --test suite FILE::`. The workspace's `every_suite_file_is_a_module`
//! (tests/suite/main.rs) keeps this list whole.

mod bennett;
mod capsule_contact;
mod check;
mod cli;
mod cli_flags;
mod cli_truth;
mod common;
mod contact_flex_scene;
mod contact_flexible;
mod contact_implicit;
mod contact_rigid;
mod contact_scene;
mod contact_shapes;
mod encoder_zero;
mod export;
mod export_firmware;
mod export_fmu;
mod external_forces;
mod formulation;
mod four_bar;
mod hostile_inputs;
mod implicit_multibody;
mod import_cli;
mod import_corpus;
mod import_dynamics;
mod import_free_motion;
mod import_loops;
mod import_mass;
mod import_steps;
mod import_tendons;
mod interrupt;
mod joint_friction;
mod joint_limits;
mod outputs_plot;
mod outputs_vtu;
mod resume;
mod rigid_flex_contact;
mod scene_errors;
mod scene_files;
mod sensor_flexible;
mod servo;
mod several_flexible;
mod sweep;
mod tree_contact;
mod tree_drives;
mod tree_elements;
mod tree_implicit;
mod tree_loops;
mod tree_tangent;
mod viewer;
mod watch;
