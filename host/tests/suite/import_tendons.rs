//! Fixed tendons of imported MJCF models against MuJoCo, written for
//! `.ci/import-mujoco-tendons.py` to compare with MuJoCo on the same files: the tendons'
//! generalized forces at random states (M (a − a₀), a and a₀ the accelerations with and without
//! the tendons, against MuJoCo's `qfrc_passive` with only the tendons' springs and dampers), and
//! 1 s of motion at RK4 1 ms in zero gravity (against MuJoCo's RK4). Ignored by default (needs
//! MuJoCo): `FERRODYN_TENDON_MODELS=list FERRODYN_TENDON_OUT=file cargo test --release -p ferrodyn-host
//! --test suite import_tendons:: -- --ignored`; `.ci/import` runs it on
//! `models/tendon_chain.xml` (three hinges and a slide, refs and springrefs, a rest band).
//!
//! Joint dampers, joint friction, joint limits, tendon limits (MuJoCo's are constraints, not end stops) and
//! ports are removed; joints in link order.

use crate::common::Rng;
use ferrodyn_host::compile::{choose, tree_parts, Choice};
use ferrodyn_host::export::{refuse_tendons, rust_module, Precision};
use ferrodyn_host::import::{import, ImportOptions};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::tree::accelerations;
use ferrodyn_kernel::Dynamics;
use std::fmt::Write;
use std::path::Path;

const STEP: f64 = 1e-3;
const STEPS: usize = 1000;
const STATES: usize = 10;

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
#[ignore = "needs MuJoCo to compare with (.ci/import)"]
fn tendon_forces_and_motion_of_imported_models() {
    let models = std::env::var("FERRODYN_TENDON_MODELS").expect("FERRODYN_TENDON_MODELS");
    let out = std::env::var("FERRODYN_TENDON_OUT").expect("FERRODYN_TENDON_OUT");
    let mut json = String::new();
    let mut random = Rng(0x9e37_79b9_7f4a_7c15);
    for path in std::fs::read_to_string(models).unwrap().lines() {
        let imported = import(Path::new(path), &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut scene = imported.scene;
        scene.forces.clear();
        // Joint friction off, as MuJoCo's frictionloss is (`without_joint_passive_forces`).
        scene.friction.fill(Default::default());
        scene.inputs.clear();
        scene.simulation.gravity = Vec3::ZERO;
        for tendon in &mut scene.tendons {
            tendon.value.limit = None;
        }
        assert!(!scene.tendons.is_empty(), "{path}: no tendon");
        let Ok(Choice::Tree(links)) = choose(&scene) else {
            panic!("{path}: not a tree")
        };
        assert!(links.iter().all(|l| l.joint.is_some()), "{path}: a floating base");
        let with = tree_parts(&scene, &links).expect("tree parts");
        scene.tendons.clear();
        let without = tree_parts(&scene, &links).expect("tree parts");
        let n = links.len();
        let names: Vec<String> = links
            .iter()
            .map(|l| format!("\"{}\"", scene.joints[l.joint.unwrap()].name))
            .collect();
        let mut states = Vec::new();
        for _ in 0..STATES {
            let q: Vec<f64> = (0..n).map(|_| random.next()).collect();
            let v: Vec<f64> = (0..n).map(|_| 2.0 * random.next()).collect();
            let mut a = [vec![0.0; n], vec![0.0; n]];
            for (parts, a) in [&with, &without].into_iter().zip(a.iter_mut()) {
                let mut data = parts.model.new_data();
                for k in 0..n {
                    data.set_joint_position(&parts.model, k, &[q[k]]).unwrap();
                    data.set_joint_velocity(&parts.model, k, &[v[k]]).unwrap();
                }
                accelerations(&parts.model, &mut data, a).unwrap();
            }
            let da: Vec<f64> = a[0].iter().zip(&a[1]).map(|(x, y)| x - y).collect();
            states.push(format!(
                "{{\"q\": {}, \"v\": {}, \"da\": {}}}",
                list(&q),
                list(&v),
                list(&da)
            ));
        }
        let q0: Vec<f64> = (0..n).map(|k| 0.4 * (k as f64 + 1.0).sin()).collect();
        let v0: Vec<f64> = (0..n).map(|k| 1.5 * (2.0 * k as f64 + 1.0).cos()).collect();
        let mut data = with.model.new_data();
        for k in 0..n {
            data.set_joint_position(&with.model, k, &[q0[k]]).unwrap();
            data.set_joint_velocity(&with.model, k, &[v0[k]]).unwrap();
        }
        for _ in 0..STEPS {
            with.model.step(&mut data, &mut Rk4, STEP).unwrap();
        }
        writeln!(
            json,
            "{{\"model\": \"{path}\", \"joints\": [{}], \"states\": [{}], \"step\": {STEP:e}, \"steps\": {STEPS}, \"q0\": {}, \"v0\": {}, \"q\": {}}}",
            names.join(", "),
            states.join(", "),
            list(&q0),
            list(&v0),
            list(data.positions())
        )
        .unwrap();
    }
    std::fs::write(out, json).unwrap();
}

/// Tendons run on the host only: `export rust` refuses the first one by its name and line in
/// the model file (`check --target` prints the same refusal through `refuse_tendons`).
#[test]
fn export_refuses_a_tree_with_tendons_naming_the_first() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite/models/tendon_chain.xml");
    let imported = import(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let error = rust_module(&imported.scene, Precision::F64).expect_err("a tree with tendons exported");
    let text = error.to_string();
    assert!(
        text.contains("coupled") && text.contains("do not export"),
        "{text}"
    );
    assert!(text.contains("tendon_chain.xml:30"), "{text}");
    assert_eq!(refuse_tendons(&imported.scene).unwrap_err().to_string(), text);
}
