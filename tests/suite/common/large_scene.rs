//! Scene files of n rigid bodies for the scene-build measurements (`benches/scene_build.rs`)
//! and the large-scene test (`tests/suite/large_scene.rs`): identical unit rods (1 m, 1 kg) on
//! revolute joints about y, released horizontally along +x.
#![allow(dead_code)]

use std::fmt::Write;

/// How the rods hang together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Each rod on the one before, the first on the ground: one chain of n links.
    Chain,
    /// Every rod on the ground at its own hinge: n one-link pendulums.
    Star,
}

/// Inertia of a unit rod of radius 10 mm about its CG (as `scenes/gen_chain20.py` writes it).
const INERTIA: &str = "{ Ixx = 5e-05, Iyy = 0.08335833333333333, Izz = 0.08335833333333333 }";

/// Where rod `k`'s CG is, and where its hinge is on its parent (the ground or rod k − 1).
fn placement(k: usize, shape: Shape) -> ([f64; 3], [f64; 3]) {
    match (shape, k) {
        (Shape::Chain, 0) => ([0.5, 0.0, 0.0], [0.0; 3]),
        (Shape::Chain, _) => ([k as f64 + 0.5, 0.0, 0.0], [0.5, 0.0, 0.0]),
        // A star's rods sit side by side along y, 2 m apart.
        (Shape::Star, _) => ([0.5, 2.0 * k as f64, 0.0], [0.0, 2.0 * k as f64, 0.0]),
    }
}

/// The TOML text of `n` rods in `shape`, integrated by RK4 at 1 ms for 1 ms.
pub fn rods(n: usize, shape: Shape) -> String {
    let mut text = String::with_capacity(n * 330);
    text.push_str("[simulation]\nend_time = 1e-3\nstep = 1e-3\nintegrator = \"rk4\"\n");
    for k in 0..n {
        let [x, y, z] = placement(k, shape).0;
        let _ = write!(
            text,
            "[[body]]\nid = {k}\nname = \"rod{k}\"\nmass = 1.0\ninertia = {INERTIA}\npos = [{x:?}, {y:?}, {z:?}]\n"
        );
    }
    for k in 0..n {
        let parent = match (shape, k) {
            (Shape::Chain, 1..) => format!("rod{}", k - 1),
            _ => "ground".to_string(),
        };
        let [x, y, z] = placement(k, shape).1;
        let _ = write!(
            text,
            "[[joint]]\nname = \"hinge{k}\"\ntype = \"revolute\"\nbody_i = \"{parent}\"\nbody_j = \"rod{k}\"\n\
             frame_i = {{ origin = [{x:?}, {y:?}, {z:?}], axis = [0.0, 1.0, 0.0] }}\n\
             frame_j = {{ origin = [-0.5, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\n"
        );
    }
    text
}
