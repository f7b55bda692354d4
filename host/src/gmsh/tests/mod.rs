//! Tests of the Gmsh reader: hand-written meshes, binary round trips, fuzzing, committed files.

mod ascii;
mod binary;
mod files;
mod fixtures;
mod fuzz;
mod writer;
