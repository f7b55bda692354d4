//! One second of free motion of imported fixed-base models (URDF arms; MJCF planar walkers,
//! whose roots are slide x, slide z, hinge y in one body) in zero gravity at RK4 1 ms, written
//! for `.ci/import-mujoco-rk4.py` to compare with MuJoCo's RK4 on the same file (to 1e-6
//! rad, or m, in every joint). Ignored by default (needs the model sets):
//! `FERRODYN_FREE_MOTION_MODELS=list FERRODYN_FREE_MOTION_OUT=file cargo test -p ferrodyn-host
//! --test suite import_free_motion:: -- --ignored`.
//!
//! Joint dampers, limits and servo ports are removed (the free motion of the arm alone: MuJoCo
//! runs with its damping zeroed and contacts and limits off), and so are couplings: a URDF
//! `<mimic>` (the Panda's second finger) is a rigid coupling row here and a soft joint equality
//! in MuJoCo's URDF reader (solref: the fingers' gap breathes under load), which cannot agree
//! to 1e-6, so both sides run the fingers as free slides (MuJoCo with its equalities off). The
//! start is a seeded configuration and velocity, joints in link order.

use ferrodyn_host::compile::{choose, tree_parts, Choice};
use ferrodyn_host::import::{import, ImportOptions};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::Dynamics;
use std::fmt::Write;
use std::path::Path;

/// Step (s) and steps: 1 s at 1 ms.
const STEP: f64 = 1e-3;
const STEPS: usize = 1000;

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
#[ignore = "needs the model sets installed by .ci/import"]
fn one_second_of_free_motion_of_imported_arms() {
    let models = std::env::var("FERRODYN_FREE_MOTION_MODELS").expect("FERRODYN_FREE_MOTION_MODELS");
    let out = std::env::var("FERRODYN_FREE_MOTION_OUT").expect("FERRODYN_FREE_MOTION_OUT");
    let mut json = String::new();
    for path in std::fs::read_to_string(models).unwrap().lines() {
        let imported = import(Path::new(path), &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut scene = imported.scene;
        scene.forces.clear();
        scene.inputs.clear();
        scene.couplings.clear();
        scene.simulation.gravity = Vec3::ZERO;
        let Ok(Choice::Tree(links)) = choose(&scene) else {
            panic!("{path}: not a tree")
        };
        assert!(links.iter().all(|l| l.joint.is_some()), "{path}: a floating base");
        let parts = tree_parts(&scene, &links).expect("tree parts");
        let n = links.len();
        // A spread of angles and rates that keeps every joint moving through the second.
        let q0: Vec<f64> = (0..n).map(|k| 0.3 * (k as f64 + 1.0).sin()).collect();
        let v0: Vec<f64> = (0..n).map(|k| 1.5 * (2.0 * k as f64 + 1.0).cos()).collect();
        let mut data = parts.model.new_data();
        for k in 0..n {
            data.set_joint_position(&parts.model, k, &[q0[k]]).unwrap();
            data.set_joint_velocity(&parts.model, k, &[v0[k]]).unwrap();
        }
        for _ in 0..STEPS {
            parts.model.step(&mut data, &mut Rk4, STEP).unwrap();
        }
        let names: Vec<String> = links
            .iter()
            .map(|l| format!("\"{}\"", scene.joints[l.joint.unwrap()].name))
            .collect();
        writeln!(
            json,
            "{{\"model\": \"{path}\", \"joints\": [{}], \"step\": {STEP:e}, \"steps\": {STEPS}, \"q0\": {}, \"v0\": {}, \"q\": {}}}",
            names.join(", "),
            list(&q0),
            list(&v0),
            list(data.positions())
        )
        .unwrap();
    }
    std::fs::write(out, json).unwrap();
}
