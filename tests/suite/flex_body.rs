//! Flexible-body system checks: conservation for a free-flying body, the stability limit,
//! inversion and build errors.

use ferrodyn::host::storage::{FlexData, FlexModel};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::*;
use ferrodyn::kernel::integrators::{Method, Rk4};
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::samples::add_box_mesh;
use ferrodyn::kernel::{step, BuildError, Capacity, Fixed, Item, KernelError};

/// The 2×1×1-hexahedron block on the host's growable storage (18 nodes, 12 tets).
type Block = FlexModel;

/// Fixed capacities of at most `N` nodes, `E` elements and `P` profile entries.
type Tets<const N: usize, const E: usize, const P: usize> = Fixed<0, 0, 0, 0, 0, N, E, P>;

fn block(gravity: f64, clamp: bool) -> Block {
    let material = Material::neo_hookean(1e6, 0.3, 1000.0).unwrap();
    let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -gravity));
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1]).unwrap();
    if clamp {
        b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
            .unwrap();
    }
    b.build().unwrap()
}

#[test]
fn free_flying_spinning_body_conserves_energy_and_momenta() {
    // Reference: no external force, so linear momentum, angular momentum about the origin and
    // total energy are invariants. The body starts as a rigid motion (no strain) spinning at
    // 5 rad/s about a tilted axis; centrifugal strain then develops and oscillates.
    let model = block(0.0, false);
    let mut data = FlexData::new(&model);
    let rotation = Quat::from_roll_pitch_yaw(0.3, -0.2, 0.5).to_matrix();
    let omega = Vec3::new(1.0, 2.0, 4.0);
    data.set_rigid_motion(
        &model,
        rotation,
        Vec3::new(1.0, 0.0, 0.5),
        Vec3::new(0.3, -0.1, 0.2),
        omega,
    );
    let e0 = energy(&model, &data).unwrap();
    assert!(
        e0.strain.abs() < 1e-12 * e0.kinetic,
        "a rigid motion has no strain: {}",
        e0.strain
    );
    let (p0, l0) = momentum(&model, &data);
    // Well inside the stability limit: RK4 damps modes near it (|R(iωh)| < 1).
    let dt = 0.2 * max_frequency(&model, &mut data, 500).unwrap().rk4();
    let mut max_strain = 0.0f64;
    for _ in 0..(0.2 / dt) as usize {
        step(&model, &mut data, &mut Rk4, dt).unwrap();
        max_strain = max_strain.max(energy(&model, &data).unwrap().strain);
    }
    let e1 = energy(&model, &data).unwrap();
    let (p1, l1) = momentum(&model, &data);
    println!(
        "free body, {} steps: ΔE/E = {:.2e}, |Δp| = {:.2e}, |ΔL| = {:.2e}, max strain energy {max_strain:.3e} J",
        data.steps(),
        (e1.total() - e0.total()) / e0.total(),
        (p1 - p0).norm(),
        (l1 - l0).norm()
    );
    assert!(max_strain > 0.0, "spinning must strain the body");
    assert!(((e1.total() - e0.total()) / e0.total()).abs() < 1e-8);
    assert!((p1 - p0).norm() < 1e-12 * (1.0 + p0.norm()));
    assert!((l1 - l0).norm() < 1e-10 * (1.0 + l0.norm()));
}

#[test]
fn stability_limit_estimate_separates_stable_from_unstable_steps() {
    // Reference: RK4 on a linear oscillator ω is stable for ωh ≤ 2√2, with |R(iωh)| < 1 inside
    // (high modes near the limit are damped). Below the estimated limit the energy of a free
    // vibration does not grow; at 1.5× it grows without bound.
    let model = block(0.0, true);
    let run = |factor: f64| {
        let mut data = FlexData::new(&model);
        // Kick the free end.
        for node in 0..model.node_count() {
            if model.reference(node).unwrap().x > 0.15 {
                data.rates_mut(node)[2] = 0.5;
            }
        }
        let e0 = energy(&model, &data).unwrap().total();
        let h = factor * max_frequency(&model, &mut data, 2000).unwrap().rk4();
        let mut result = Ok(());
        for _ in 0..3000 {
            if let Err(e) = step(&model, &mut data, &mut Rk4, h) {
                result = Err(e);
                break;
            }
        }
        match result {
            Ok(()) => energy(&model, &data)
                .map(|e| e.total() / e0)
                .unwrap_or(f64::INFINITY),
            Err(_) => f64::INFINITY,
        }
    };
    let (below, above) = (run(0.9), run(1.5));
    println!("energy ratio after 3000 steps: 0.9× limit {below:.6}, 1.5× limit {above:e}");
    assert!(below > 0.5 && below <= 1.0 + 1e-9, "{below}");
    assert!(above > 10.0, "{above}");
}

#[test]
fn inverted_element_is_an_error_naming_it() {
    let model = block(0.0, true);
    let mut data = FlexData::new(&model);
    // Push a free corner node through the body: its elements turn inside out.
    let tip = (0..model.node_count())
        .find(|&i| model.reference(i).unwrap() == Vec3::new(0.2, 0.1, 0.1))
        .unwrap();
    data.coordinates_mut(tip)[0] = -0.3;
    let err = step(&model, &mut data, &mut Method::Rk4, 1e-6).unwrap_err();
    assert!(matches!(err, KernelError::ElementInverted { .. }), "{err:?}");
    assert!(err.to_string().contains("inverted"), "{err}");
    assert_eq!(
        data.coordinates(tip)[0],
        -0.3,
        "state kept at the start of the failed step"
    );
}

#[test]
fn unclamped_static_solve_reports_the_singular_stiffness() {
    let model = block(9.81, false);
    let mut data = FlexData::new(&model);
    let err = solve_static(&model, &mut data, 1, 1e-12, 10).unwrap_err();
    assert!(matches!(err, KernelError::SingularStiffness { .. }), "{err:?}");
}

#[test]
fn build_errors_name_the_item() {
    let material = Material::st_venant_kirchhoff(1e6, 0.3, 1000.0).unwrap();
    let mut b = Model::<f64, Tets<4, 1, 1000>>::builder(material, Vec3::ZERO);
    for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] {
        b.add_node(p).unwrap();
    }
    assert_eq!(
        b.add_node(Vec3::new(1.0, 1.0, 1.0)),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::Nodes,
            needed: 5,
            available: 4
        })
    );
    assert_eq!(
        b.add_element([0, 1, 2, 9]),
        Err(BuildError::UnknownNode {
            item: Item::Element(0),
            node: 9
        })
    );
    // Four coplanar nodes: zero volume.
    let mut flat = Model::<f64, Tets<4, 1, 1000>>::builder(material, Vec3::ZERO);
    for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)] {
        flat.add_node(p).unwrap();
    }
    assert!(matches!(
        flat.add_element([0, 1, 2, 3]),
        Err(BuildError::InvalidParameter {
            item: Item::Element(0),
            ..
        })
    ));
    b.add_element([0, 1, 2, 3]).unwrap();
    assert_eq!(
        b.add_element([0, 1, 2, 3]),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::Elements,
            needed: 2,
            available: 1
        })
    );
    // A 48-DOF free tet needs 1176 profile entries.
    let mut small = Model::<f64, Tets<4, 1, 100>>::builder(material, Vec3::ZERO);
    for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] {
        small.add_node(p).unwrap();
    }
    small.add_element([0, 1, 2, 3]).unwrap();
    assert_eq!(
        small.build().err(),
        Some(BuildError::CapacityExceeded {
            capacity: Capacity::Profile,
            needed: 1176,
            available: 100
        })
    );
    assert!(
        Material::st_venant_kirchhoff(1e6, 0.5, 1000.0).is_err(),
        "ν = 0.5 is incompressible"
    );
}

#[test]
fn energy_drift_per_integrator_for_a_clamped_vibrating_body() {
    // Reference: no damping, no external work: E(t) = E(0). The block is released from the
    // static shape under a body load (smooth, mostly the first bending mode). Explicit RK
    // methods drift by their truncation error; the split methods are symplectic here (no
    // constraint projection), so their energy error oscillates at O(h) and O(h²).
    let model = block(0.0, true);
    let mut start = FlexData::new(&model);
    solve_static(&block(100.0, true), &mut start, 1, 1e-12, 20).unwrap();
    let limit = max_frequency(&model, &mut start, 2000).unwrap();
    let e0 = energy(&model, &start).unwrap().total();
    let adaptive = ferrodyn::kernel::integrators::AdaptiveConfig {
        rtol: 1e-9,
        atol: 1e-12,
        ..Default::default()
    };
    let drift = |method: &mut Method<f64>, h: f64| {
        let mut data = start.clone();
        let mut max_de = 0.0f64;
        for _ in 0..(0.05 / h).round() as usize {
            step(&model, &mut data, method, h).unwrap();
            max_de = max_de.max((energy(&model, &data).unwrap().total() - e0).abs() / e0);
        }
        max_de
    };
    // (method, step, expected order of the energy error in h).
    let cases = [
        (Method::Rk4, 0.2 * limit.rk4(), 4.0),
        (Method::SemiImplicitEuler, 0.2 * limit.symplectic(), 1.0),
        (Method::VelocityVerlet, 0.2 * limit.symplectic(), 2.0),
    ];
    println!(
        "{:<22} {:>10} {:>14} {:>14} {:>7}",
        "integrator", "h (s)", "max|ΔE|/E0 h", "h/2", "order"
    );
    for (mut method, h, order) in cases {
        let (coarse, fine) = (drift(&mut method, h), drift(&mut method, h / 2.0));
        let observed = (coarse / fine).log2();
        println!(
            "{:<22} {h:>10.3e} {coarse:>14.3e} {fine:>14.3e} {observed:>7.2}",
            method.name()
        );
        assert!(
            observed > order - 0.3,
            "{}: observed order {observed:.2}",
            method.name()
        );
    }
    let mut dopri = Method::dopri45(adaptive);
    let adaptive_drift = drift(&mut dopri, 0.2 * limit.rk4());
    println!(
        "{:<22} {:>10} {adaptive_drift:>14.3e}",
        "dopri45 rtol 1e-9", "adaptive"
    );
    assert!(adaptive_drift < 1e-7, "dopri45: {adaptive_drift}");
}

#[test]
fn stiffness_proportional_damping_force_is_beta_k_edot_at_the_reference() {
    // Reference: at the undeformed state (S = 0) the tangent is purely material, so the
    // Kelvin–Voigt damping force must equal −β K ė exactly (up to round-off).
    use ferrodyn::kernel::ancf::{reference_coordinates, TetElement};
    let beta = 2e-3;
    let material = Material::neo_hookean(1e6, 0.3, 1000.0)
        .unwrap()
        .with_rayleigh(0.0, beta)
        .unwrap();
    let vertices = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.3, 0.05, 0.0),
        Vec3::new(0.05, 0.2, 0.02),
        Vec3::new(0.02, 0.04, 0.25),
    ];
    let element = TetElement::new(vertices, &material).unwrap();
    let e = reference_coordinates(&vertices);
    let ed: [f64; 48] = core::array::from_fn(|i| ((i * 37 % 11) as f64 - 5.0) * 0.01);
    let mut damping = [0.0; 48];
    element.damping_force(&material, &e, &ed, &mut damping).unwrap();
    let mut k = Box::new([[0.0; 48]; 48]);
    element.tangent_stiffness(&material, &e, &mut k).unwrap();
    let scale = damping.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (row, d) in k.iter().zip(damping.iter()) {
        let expected = -beta * row.iter().zip(ed.iter()).map(|(a, b)| a * b).sum::<f64>();
        assert!((d - expected).abs() <= 1e-12 * scale, "{d} vs {expected}");
    }
}

#[test]
fn box_mesh_tets_are_positively_oriented_and_fill_the_box() {
    // Reference: the signed volume det[p1 − p0, p2 − p0, p3 − p0]/6 of every tet is positive
    // (Gmsh/VTK orientation) and the volumes add up to the box volume 0.2 × 0.1 × 0.1.
    let model = block(0.0, false);
    let mut total = 0.0;
    for tet in model.connectivity() {
        let p = tet.map(|n| model.reference(n).unwrap());
        let v = (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0])) / 6.0;
        assert!(v > 0.0, "tet {tet:?} has volume {v}");
        total += v;
    }
    assert!((total - 0.002).abs() < 1e-15);
}
