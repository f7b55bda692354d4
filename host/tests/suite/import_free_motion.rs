//! One second of free motion of imported models in zero gravity at RK4 1 ms, written for
//! `.ci/import-mujoco-rk4.py` to compare with MuJoCo's RK4 on the same file (to 1e-6 rad, or m,
//! in every joint, and in a floating base's position and quaternion): fixed-base URDF arms, MJCF
//! planar walkers (roots: slide x, slide z, hinge y in one body), and floating-base URDF robots
//! (a model line `PATH --floating-base`: the root link free, as `ferrodyn import
//! --floating-base`). Ignored by default (needs the model sets):
//! `FERRODYN_FREE_MOTION_MODELS=list FERRODYN_FREE_MOTION_OUT=file cargo test --release -p ferrodyn-host
//! --test suite import_free_motion:: -- --ignored`.
//!
//! Joint dampers, friction, limits and servo ports are removed (the free motion of the robot
//! alone: MuJoCo runs with its damping and frictionloss zeroed and contacts and limits off), and so are couplings: a
//! URDF `<mimic>` (the Panda's second finger) is a rigid coupling row here and a soft joint
//! equality in MuJoCo's URDF reader (solref: the fingers' gap breathes under load), which
//! cannot agree to 1e-6, so both sides run the fingers as free slides (MuJoCo with its
//! equalities off). The start is a seeded configuration and velocity, joints in link order; a
//! floating base starts displaced, turned and with a twist.

use ferrodyn_host::compile::{choose, tree_parts, Choice};
use ferrodyn_host::import::{import, ImportOptions};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::Dynamics;
use std::fmt::Write;
use std::path::Path;

/// Step (s) and steps: 1 s at 1 ms.
const STEP: f64 = 1e-3;
const STEPS: usize = 1000;

/// A floating base's start: its origin's offset (m) and its orientation (unit quaternion w x y
/// z, link → world) …
const BASE_POSITION: [f64; 3] = [0.1, -0.2, 0.3];
const BASE_TURN: [f64; 4] = [0.9, 0.1, -0.3, 0.2];
/// … and its twist: the origin's velocity (world axes, m/s) and the angular velocity (link axes,
/// rad/s), MuJoCo's free-joint convention as the kernel's (docs/kernel.md, free joint).
const BASE_TWIST: [f64; 6] = [0.2, -0.1, 0.3, 0.5, -0.8, 1.2];

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
#[ignore = "needs the model sets installed by .ci/import"]
fn one_second_of_free_motion_of_imported_models() {
    let models = std::env::var("FERRODYN_FREE_MOTION_MODELS").expect("FERRODYN_FREE_MOTION_MODELS");
    let out = std::env::var("FERRODYN_FREE_MOTION_OUT").expect("FERRODYN_FREE_MOTION_OUT");
    let mut json = String::new();
    for line in std::fs::read_to_string(models).unwrap().lines() {
        let (path, floating_base) = match line.strip_suffix(" --floating-base") {
            Some(path) => (path, true),
            None => (line, false),
        };
        let options = ImportOptions {
            floating_base,
            ..ImportOptions::default()
        };
        let imported = import(Path::new(path), &options).unwrap_or_else(|e| panic!("{e}"));
        let mut scene = imported.scene;
        scene.forces.clear();
        // Joint friction off, as MuJoCo's frictionloss is (`without_joint_passive_forces`).
        scene.friction.fill(Default::default());
        scene.inputs.clear();
        scene.couplings.clear();
        scene.simulation.gravity = Vec3::ZERO;
        let Ok(Choice::Tree(links)) = choose(&scene) else {
            panic!("{path}: not a tree")
        };
        let parts = tree_parts(&scene, &links).expect("tree parts");
        // The free root (a floating base) is link 0; every other link has a 1-DOF joint.
        let free = links.iter().position(|l| l.joint.is_none());
        assert_eq!(free.is_some(), floating_base, "{path}: a floating base iff asked");
        assert!(free.is_none_or(|k| k == 0), "{path}: the free link is the root");
        let jointed: Vec<usize> = (0..links.len()).filter(|&k| links[k].joint.is_some()).collect();
        let n = jointed.len();
        // A spread of angles and rates that keeps every joint moving through the second.
        let q0: Vec<f64> = (0..n).map(|k| 0.3 * (k as f64 + 1.0).sin()).collect();
        let v0: Vec<f64> = (0..n).map(|k| 1.5 * (2.0 * k as f64 + 1.0).cos()).collect();
        let mut data = parts.model.new_data();
        for (k, &link) in jointed.iter().enumerate() {
            data.set_joint_position(&parts.model, link, &[q0[k]]).unwrap();
            data.set_joint_velocity(&parts.model, link, &[v0[k]]).unwrap();
        }
        let base = free.map(|link| {
            // The root body sits at its link's origin with the link's axes (a URDF root link
            // at the world origin), so the link's coordinates are the body's pose in MuJoCo.
            let body = &parts.tree.bodies[links[link].body];
            assert_eq!(
                (body.offset, body.orientation),
                (Vec3::ZERO, Quat::IDENTITY),
                "{path}: root pose"
            );
            assert_eq!(parts.tree.links[link].origin, Vec3::ZERO, "{path}: root origin");
            let turn = Quat::from_array(BASE_TURN).normalized().unwrap().to_array();
            let start = [&BASE_POSITION[..], &turn[..]].concat();
            data.set_joint_position(&parts.model, link, &start).unwrap();
            data.set_joint_velocity(&parts.model, link, &BASE_TWIST).unwrap();
            (link, scene.bodies[links[link].body].name.clone(), start)
        });
        for _ in 0..STEPS {
            parts.model.step(&mut data, &mut Rk4, STEP).unwrap();
        }
        let names: Vec<String> = jointed
            .iter()
            .map(|&k| format!("\"{}\"", scene.joints[links[k].joint.unwrap()].name))
            .collect();
        let q: Vec<f64> = jointed
            .iter()
            .map(|&k| data.joint_position(&parts.model, k)[0])
            .collect();
        let base = match base {
            Some((link, name, start)) => format!(
                ", \"base\": \"{name}\", \"base_q0\": {}, \"base_v0\": {}, \"base_q\": {}",
                list(&start),
                list(&BASE_TWIST),
                list(data.joint_position(&parts.model, link))
            ),
            None => String::new(),
        };
        writeln!(
            json,
            "{{\"model\": \"{path}\", \"joints\": [{}], \"step\": {STEP:e}, \"steps\": {STEPS}, \"q0\": {}, \"v0\": {}, \"q\": {}{base}}}",
            names.join(", "),
            list(&q0),
            list(&v0),
            list(&q)
        )
        .unwrap();
    }
    std::fs::write(out, json).unwrap();
}
