//! The joint-space mass matrix M(q) and bias forces b(q, v) = C(q, v) v + g(q) of imported
//! fixed-base robots with revolute and prismatic joints, written for `.ci/import-pinocchio.py`
//! (URDF files) to compare with Pinocchio's `crba` and `rnea`, and for `.ci/import-mujoco.py`
//! (MJCF files) to compare with MuJoCo's `mj_fullM` and `qfrc_bias` (to 1e-9 relative).
//! Ignored by default (needs the model sets):
//! `FERRODYN_IMPORT_CORPUS=list FERRODYN_DYNAMICS_OUT=file cargo test --release -p ferrodyn-host --test
//! import_dynamics -- --ignored`.
//!
//! Both come from the kernel's forward dynamics (`tree::accelerations`), the only dynamics the
//! tree has: with gravity off and v = 0 the accelerations under a unit generalized force e_k
//! are column k of M⁻¹ (inverted here), and with gravity on b = −M a(q, v, τ = 0). Joint
//! dampers, joint friction, limits and servo ports are removed first: Pinocchio's rnea has neither, and MuJoCo's bias forces
//! leave the passive forces out.

use crate::common::Rng;
use ferrodyn_host::compile::{choose, tree_parts, Choice};
use ferrodyn_host::import::{import, ImportOptions, DROPPED_INERTIA};
use ferrodyn_host::scene::Scene;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::JointKind;
use ferrodyn_kernel::tree::accelerations;
use ferrodyn_kernel::Dynamics;
use std::fmt::Write;
use std::path::Path;

/// Configurations per model.
const SAMPLES: usize = 10;

/// The accelerations of `scene`'s tree at (q, v) under generalized forces `tau`, joints in link
/// order (one coordinate each).
fn accel(scene: &Scene, q: &[f64], v: &[f64], tau: &[f64]) -> Vec<f64> {
    let Ok(Choice::Tree(links)) = choose(scene) else {
        panic!("a tree")
    };
    let parts = tree_parts(scene, &links).expect("tree parts");
    let mut data = parts.model.new_data();
    for k in 0..links.len() {
        data.set_joint_position(&parts.model, k, &[q[k]]).unwrap();
        data.set_joint_velocity(&parts.model, k, &[v[k]]).unwrap();
        data.set_joint_input(&parts.model, k, &[tau[k]]).unwrap();
    }
    let mut a = vec![0.0; links.len()];
    accelerations(&parts.model, &mut data, &mut a).unwrap();
    a
}

/// The inverse of a square matrix by Gauss–Jordan elimination with partial pivoting.
fn inverse(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .copied()
                .chain((0..n).map(|j| f64::from(u8::from(i == j))))
                .collect()
        })
        .collect();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))
            .unwrap();
        m.swap(c, p);
        let pivot = m[c][c];
        for x in &mut m[c] {
            *x /= pivot;
        }
        for r in 0..n {
            if r != c {
                let f = m[r][c];
                let row_c = m[c].clone();
                for (x, y) in m[r].iter_mut().zip(row_c) {
                    *x -= f * y;
                }
            }
        }
    }
    m.into_iter().map(|row| row[n..].to_vec()).collect()
}

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
#[ignore = "needs the model sets installed by .ci/import"]
fn mass_matrix_and_bias_of_imported_robots() {
    let corpus = std::env::var("FERRODYN_IMPORT_CORPUS").expect("FERRODYN_IMPORT_CORPUS");
    let out = std::env::var("FERRODYN_DYNAMICS_OUT").expect("FERRODYN_DYNAMICS_OUT");
    let mut json = String::new();
    for path in std::fs::read_to_string(corpus)
        .unwrap()
        .lines()
        .filter(|l| l.ends_with(".urdf") || l.ends_with(".xml"))
    {
        let Ok(imported) = import(Path::new(path), &ImportOptions::default()) else {
            continue;
        };
        if imported.report.has_not_modelled(DROPPED_INERTIA) {
            println!("{path}: skipped (inertia of a massless link dropped on import)");
            continue;
        }
        let mut scene = imported.scene;
        scene.forces.clear();
        // Joint friction is a passive force too (MuJoCo's frictionloss a constraint force):
        // neither rnea nor qfrc_bias has it.
        scene.friction.fill(Default::default());
        // Couplings (mimic joints) are rows on the tree: crba and mj_fullM are the unconstrained
        // M, so every joint is compared free.
        scene.couplings.clear();
        // Tendon springs and dampers are passive forces, which MuJoCo's bias forces leave out
        // (import_tendons compares them).
        scene.tendons.clear();
        // Servo ports (position, velocity actuators) would turn the unit inputs into set-points.
        scene.inputs.clear();
        let Ok(Choice::Tree(links)) = choose(&scene) else {
            continue;
        };
        if links.is_empty() || links.iter().any(|l| l.joint.is_none()) {
            continue; // a floating base: not a fixed-base model
        }
        let one_coordinate = |l: &ferrodyn_host::compile::TreeLink| {
            let kind = scene.joints[l.joint.unwrap()].value.kind;
            matches!(kind, JointKind::Revolute | JointKind::Prismatic)
        };
        if !links.iter().all(one_coordinate) {
            println!("{path}: skipped (ball or other multi-coordinate joints)");
            continue;
        }
        let names: Vec<String> = links
            .iter()
            .map(|l| format!("\"{}\"", scene.joints[l.joint.unwrap()].name))
            .collect();
        // Seeded per model (by its last three path components): a model's samples do not
        // depend on which models before it import (a near-zero b, v ≈ 0 by chance, measures
        // only the round-off of b = −M a against itself).
        let short: Vec<_> = Path::new(path).components().rev().take(3).collect();
        let seed = short
            .iter()
            .flat_map(|c| c.as_os_str().as_encoded_bytes().to_vec());
        let mut rng = Rng(seed.fold(0x9E37_79B9_7F4A_7C15, |h: u64, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
        }));
        let n = links.len();
        let mut weightless = scene.clone();
        weightless.simulation.gravity = Vec3::ZERO;
        let mut samples = Vec::new();
        for _ in 0..SAMPLES {
            let q: Vec<f64> = (0..n).map(|_| 3.0 * rng.next()).collect();
            let v: Vec<f64> = (0..n).map(|_| 2.0 * rng.next()).collect();
            let zero = vec![0.0; n];
            let columns: Vec<Vec<f64>> = (0..n)
                .map(|k| {
                    let mut e = zero.clone();
                    e[k] = 1.0;
                    accel(&weightless, &q, &zero, &e)
                })
                .collect();
            let m_inv: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| columns[j][i]).collect()).collect();
            let m = inverse(&m_inv);
            let a0 = accel(&scene, &q, &v, &zero);
            let b: Vec<f64> = (0..n)
                .map(|i| -(0..n).map(|j| m[i][j] * a0[j]).sum::<f64>())
                .collect();
            let rows: Vec<String> = m.iter().map(|r| list(r)).collect();
            samples.push(format!(
                "{{\"q\": {}, \"v\": {}, \"M\": [{}], \"b\": {}}}",
                list(&q),
                list(&v),
                rows.join(", "),
                list(&b)
            ));
        }
        writeln!(
            json,
            "{{\"model\": \"{path}\", \"joints\": [{}], \"samples\": [{}]}}",
            names.join(", "),
            samples.join(", ")
        )
        .unwrap();
    }
    assert!(!json.is_empty(), "no fixed-base tree among the models");
    std::fs::write(out, json).unwrap();
}
