//! Imported models step: each model of `FERRODYN_STEP_MODELS` (one path a line; `.ci/import`
//! lists dm_control's `manipulator` and `stacker`, whose finger dampers decay at 1.4e5 /s
//! against RK4's stability limit of 2.8e3 /s at the written 1 ms step) is imported with the
//! default options and run for 1 s with the scene's own integrator and step, under gravity,
//! with its dampers and limits, from a seeded velocity on every joint (couplings removed, so
//! that any velocity is consistent). Every step must succeed (a non-finite state is a named
//! error) and, the model being passive (no inputs, damping only), it must lose energy. Ignored
//! by default (needs the model sets installed by `.ci/import`).

use ferrodyn_host::compile::compile;
use ferrodyn_host::import::{import, ImportOptions};
use std::path::Path;

#[test]
#[ignore = "needs the model sets installed by .ci/import"]
fn imported_models_step_one_second_and_lose_energy() {
    let list = std::env::var("FERRODYN_STEP_MODELS").expect("FERRODYN_STEP_MODELS");
    for path in std::fs::read_to_string(list).unwrap().lines() {
        let imported = import(Path::new(path), &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut scene = imported.scene;
        scene.couplings.clear();
        let (integrator, step) = (scene.simulation.integrator, scene.simulation.step);
        let mut sim = compile(&scene).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut state = sim.state().to_vec();
        let nq = sim.position_count();
        for (k, v) in state[nq..].iter_mut().enumerate() {
            *v = 2.0 * (2.0 * k as f64 + 1.0).cos();
        }
        sim.set_state(&state).unwrap();
        let start = sim.energy().expect("energy").total();
        sim.advance_to(1.0).unwrap_or_else(|e| panic!("{path}: {e:#}"));
        assert!((sim.time() - 1.0).abs() < 1e-9, "{path}: t = {}", sim.time());
        assert!(
            sim.state().iter().all(|x| x.is_finite()),
            "{path}: a non-finite state"
        );
        let end = sim.energy().expect("energy").total();
        println!(
            "{path}: {integrator:?} at {step} s, 1 s in {} steps; energy {start:.6e} → {end:.6e} J",
            sim.steps()
        );
        assert!(end < start, "{path}: the energy did not fall: {start} → {end}");
    }
}
