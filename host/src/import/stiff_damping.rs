//! The integrator of an imported scene. Scenes are written for RK4 at [`STEP`]; models whose
//! joint damping is fast against their inertia (dm_control's `manipulator` and `stacker`: 0.01
//! to 0.5 N·m·s/rad on finger links of 1e-7 to 1e-5 kg·m², a decay rate of 2.4e5 /s) are
//! unstable there, and at any step above 1e-5 s: RK4 is stable on a decaying mode e^(−λt) only
//! while λh ≤ 2.785. MuJoCo's own RK4 diverges on them at 1e-3 and 1e-4 s too; its default
//! Euler integrator takes joint damping implicitly. Such a scene gets the implicit BDF2 at the
//! same step instead (stable for any damping rate), and the report says why.
//!
//! A joint limit's end stops are sized by the joint's inertia as MuJoCo's soft limits are
//! (`end_stops`): the scene default (1e4 N·m/rad, 10 N·m·s/rad, for a 1 kg·m² link) on the
//! rodent's finger (4e-9 kg·m² about its hinge) decays at 3.4e9 /s, and no integrator at a
//! usable step survives its first touch of the stop.
//!
//! The rate is the spectral radius of ∂v̇/∂v at the initial state (−M⁻¹D for joint dampers,
//! with joint friction's slope F_c / v_s at rest, tendon dampers, servo gains and coupling
//! rows as the tree applies them), by central
//! differences (exact for forces linear in v; the velocity-squared terms cancel at v = 0) and
//! power iteration.

use crate::compile::{choose, tree_parts, Choice, TreeLink, TreeParts};
use crate::scene::Scene;
use ferrodyn_kernel::tree::accelerations;
use ferrodyn_kernel::Dynamics;

/// The step an imported scene is written with (s).
pub const STEP: f64 = 1e-3;

/// The largest λh of a real decaying mode RK4 keeps stable (the stability region's end on the
/// negative real axis), with a 10 % margin.
const RK4_LIMIT: f64 = 0.9 * 2.785;

/// The implicit integrator taken when RK4 is unstable at [`STEP`].
pub const IMPLICIT: &str = "bdf2";

/// The scene's tree and its kernel parts; `None` for a scene that is not a tree or does not
/// build (compile reports that itself).
fn tree_of(scene: &Scene) -> Option<(Vec<TreeLink>, TreeParts)> {
    let Ok(Choice::Tree(links)) = choose(scene) else {
        return None;
    };
    let parts = tree_parts(scene, &links).ok()?;
    Some((links, parts))
}

/// The fastest decay rate of the scene's velocities at its initial state (1/s) and the joint
/// that moves most in that mode; `None` for a scene that is not a tree or cannot be evaluated
/// (compile reports that itself).
pub fn fastest_decay(scene: &Scene) -> Option<(f64, String)> {
    let (links, parts) = tree_of(scene)?;
    let model = &parts.model;
    let nv = model.velocity_count();
    if nv == 0 {
        return None;
    }
    let mut data = model.new_data();
    let v0 = data.velocities().to_vec();
    let mut accel = |v: &[f64]| -> Option<Vec<f64>> {
        for (k, x) in v.iter().enumerate() {
            data.set_velocity(k, *x).ok()?;
        }
        let mut a = vec![0.0; nv];
        accelerations(model, &mut data, &mut a).ok()?;
        Some(a)
    };
    // J[:, k] = ∂v̇/∂v_k.
    let delta = 1e-3;
    let mut jacobian = vec![vec![0.0; nv]; nv];
    for k in 0..nv {
        let mut v = v0.clone();
        v[k] = v0[k] + delta;
        let up = accel(&v)?;
        v[k] = v0[k] - delta;
        let down = accel(&v)?;
        for (row, (u, d)) in jacobian.iter_mut().zip(up.iter().zip(&down)) {
            row[k] = (u - d) / (2.0 * delta);
        }
    }
    let (rate, mode) = spectral_radius(&jacobian)?;
    let coordinate = (0..nv).max_by(|&a, &b| mode[a].abs().total_cmp(&mode[b].abs()))?;
    let link = (0..links.len()).find(|&l| {
        model
            .coordinates(l)
            .is_some_and(|c| (c.velocity..c.velocity + c.velocities).contains(&coordinate))
    })?;
    let joint = links[link].joint.map_or_else(
        || "the floating base".to_string(),
        |j| scene.joints[j].name.clone(),
    );
    Some((rate, joint))
}

/// The effective inertia 1/(M⁻¹)ᵢᵢ at the initial state of each one-coordinate joint named in
/// `joints` (what MuJoCo scales a limit's constraint by: J M⁻¹ Jᵀ for the joint's own row).
fn joint_inertias(scene: &Scene, joints: &[&str]) -> Option<Vec<(String, f64)>> {
    let (links, parts) = tree_of(scene)?;
    let model = &parts.model;
    let nv = model.velocity_count();
    let mut data = model.new_data();
    let mut free = vec![0.0; nv];
    accelerations(model, &mut data, &mut free).ok()?;
    let mut out = Vec::new();
    for (l, link) in links.iter().enumerate() {
        let Some(j) = link.joint else { continue };
        let name = &scene.joints[j].name;
        let c = model.coordinates(l)?;
        if c.velocities != 1 || !joints.contains(&name.as_str()) {
            continue;
        }
        data.set_input(c.velocity, 1.0).ok()?;
        let mut a = vec![0.0; nv];
        accelerations(model, &mut data, &mut a).ok()?;
        data.set_input(c.velocity, 0.0).ok()?;
        let inverse = a[c.velocity] - free[c.velocity];
        if inverse > 0.0 && inverse.is_finite() {
            out.push((name.clone(), 1.0 / inverse));
        }
    }
    Some(out)
}

/// End-stop stiffness and damping of each MJCF limit, as MuJoCo's soft constraint acts at full
/// impedance d = dmax: the violation r obeys r̈ + (2/τ) ṙ + r/(dmax τ² ζ²) = 0 per unit of the
/// joint's effective inertia I, so k = I/(dmax τ² ζ²), c = 2I/τ, with τ the `solreflimit` time
/// constant raised to 2 steps (MuJoCo's refsafe) and ζ its damping ratio. I is taken at the
/// initial state (MuJoCo recomputes it every step).
pub fn end_stops(scene: &Scene, solref: &[(String, [f64; 3])]) -> Vec<(String, [f64; 2])> {
    let names: Vec<&str> = solref.iter().map(|(n, _)| n.as_str()).collect();
    let inertias = joint_inertias(scene, &names).unwrap_or_default();
    inertias
        .into_iter()
        .filter_map(|(name, inertia)| {
            let [tau, zeta, dmax] = solref.iter().find(|(n, _)| *n == name)?.1;
            let tau = tau.max(2.0 * STEP);
            Some((
                name,
                [inertia / (dmax * tau * tau * zeta * zeta), 2.0 * inertia / tau],
            ))
        })
        .collect()
}

/// The largest |eigenvalue| of `a` and its eigenvector, by power iteration (the damping
/// Jacobian −M⁻¹D is similar to a symmetric matrix: real eigenvalues).
fn spectral_radius(a: &[Vec<f64>]) -> Option<(f64, Vec<f64>)> {
    let n = a.len();
    // A start with a part along every mode.
    let mut x: Vec<f64> = (0..n).map(|k| 1.0 + 0.1 * (k as f64).sin()).collect();
    let mut rate = 0.0;
    for _ in 0..500 {
        let y: Vec<f64> = a
            .iter()
            .map(|row| row.iter().zip(&x).map(|(r, v)| r * v).sum())
            .collect();
        let norm = y.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !norm.is_finite() {
            return None;
        }
        if norm == 0.0 {
            return Some((0.0, x));
        }
        let previous = rate;
        rate = norm / x.iter().map(|v| v * v).sum::<f64>().sqrt();
        x = y.iter().map(|v| v / norm).collect();
        if (rate - previous).abs() <= 1e-6 * rate {
            break;
        }
    }
    Some((rate, x))
}

/// The integrator `scene` needs at [`STEP`] and, when it is not RK4, the report's reason.
pub fn integrator_for(scene: &Scene) -> Option<String> {
    let (rate, joint) = fastest_decay(scene)?;
    (rate * STEP > RK4_LIMIT).then(|| {
        format!(
            "integrator {IMPLICIT}: the joint damping (with joint friction's slope F_c / v_s through rest) decays a mode (mostly joint \"{joint}\") at {rate:.3e} /s, which RK4 at {STEP} s cannot follow (stable below {:.1e} s; MuJoCo's Euler integrator takes joint damping implicitly)",
            2.785 / rate
        )
    })
}
