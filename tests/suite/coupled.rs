//! Rigid–flexible coupling: an ANCF beam clamped to a rigid hub.

use ferrodyn::host::storage::{CoupledData, FlexData, Growable, RigidData};
use ferrodyn::kernel::flex::max_frequency;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::rigid::{Body, BodyRef};
use ferrodyn::kernel::samples::spinning_beam;
use ferrodyn::kernel::*;

const OMEGA0_EB: f64 = 32.09; // 1.8751² √(EI/(ρAL⁴)) for the 1 m beam of the model, rad/s

#[path = "common/spinning.rs"]
mod spinning;
use spinning::flap_frequency;

#[test]
fn free_hub_and_beam_conserve_momenta_and_energy() {
    // Reference: no external force: the linear and angular momentum of hub + beam and the
    // total energy are invariants. The hub spins at 3 rad/s and the beam starts in the matching
    // rigid rotation; the beam then stretches and vibrates, exchanging momentum with the hub.
    let sample = spinning_beam::<f64, Growable>(0.0, 0.0).unwrap();
    let beam = sample.flex().clone();
    // The same hub without its joints: free to move.
    let mut b = rigid::Model::<f64, Growable>::builder(Vec3::ZERO);
    let inertia = Mat3::diagonal(Vec3::new(0.05, 0.05, 0.1));
    b.add_body(Body::new(20.0, inertia).moving(Vec3::ZERO, Vec3::new(0.0, 0.0, 3.0)))
        .unwrap();
    let hub = b.build().unwrap();
    let mut flex = FlexData::new(&beam);
    flex.set_rigid_motion(
        &beam,
        Mat3::IDENTITY,
        Vec3::ZERO,
        Vec3::ZERO,
        Vec3::new(0.0, 0.0, 3.0),
    );
    let rigid_data = RigidData::new(&hub);
    // The sample's attachments (the root-face nodes on the hub), on the free hub.
    let mut coupled = coupled::Model::builder(hub, beam);
    for a in sample.attachments() {
        coupled.attach(a.node, a.body).unwrap();
    }
    let model = coupled.build().unwrap();
    let (hub, beam) = (model.rigid(), model.flex());
    let mut data = CoupledData::from_states(&model, rigid_data, flex);
    let totals = |d: &CoupledData| {
        let (pr, lr) = rigid::momentum(hub, d.rigid());
        let (pf, lf) = flex::momentum(beam, d.flex());
        let e = rigid::energy(hub, d.rigid()).total() + flex::energy(beam, d.flex()).unwrap().total();
        (pr + pf, lr + lf, e)
    };
    let (p0, l0, e0) = totals(&data);
    let dt = 0.2 * max_frequency(beam, &mut data.flex().clone(), 500).unwrap().rk4();
    for _ in 0..2000 {
        step(&model, &mut data, &mut Rk4, dt).unwrap();
    }
    let (p1, l1, e1) = totals(&data);
    println!(
        "hub + beam, {:.3} s: |Δp| = {:.2e}, ΔL = {:?}, ΔE/E = {:.2e}, hub ω_z {:.5} → {:.5}",
        data.time(),
        (p1 - p0).norm(),
        l1 - l0,
        (e1 - e0) / e0,
        3.0,
        data.rigid().angular_velocity(0).z
    );
    assert!((p1 - p0).norm() < 1e-9 * (1.0 + l0.norm()));
    assert!((l1 - l0).norm() < 1e-9 * l0.norm(), "L {l0:?} → {l1:?}");
    assert!(((e1 - e0) / e0).abs() < 1e-8);
    // The attached nodes stayed on the hub: root node 0 at radius 0.1 in the hub frame.
    let root = data.flex().position(0);
    let expected = data
        .rigid()
        .point_position(BodyRef::Body(0), model.attachments()[0].local_position());
    assert!((root - expected).norm() < 1e-12);
}

/// Southwell coefficient of the first flapwise mode by the Rayleigh quotient with the
/// Euler–Bernoulli cantilever mode φ: K = ∫ [(1 − ξ²)/2 + r(1 − ξ)] φ'² dξ / ∫ φ² dξ for a root
/// offset r = R/L (centrifugal tension ρAΩ²L²[(1 − ξ²)/2 + r(1 − ξ)]); r = 0 gives 1.193.
fn southwell_coefficient(r: f64) -> f64 {
    let (b, sigma) = (1.875104068711961, 0.7340955137);
    let phi = |x: f64| (b * x).cosh() - (b * x).cos() - sigma * ((b * x).sinh() - (b * x).sin());
    let dphi = |x: f64| b * ((b * x).sinh() + (b * x).sin() - sigma * ((b * x).cosh() - (b * x).cos()));
    let n = 2000;
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..=n {
        let x = i as f64 / n as f64;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        num += w * ((1.0 - x * x) / 2.0 + r * (1.0 - x)) * dphi(x).powi(2);
        den += w * phi(x).powi(2);
    }
    num / den
}

#[test]
fn spinning_beam_is_stiffened_by_centrifugal_force() {
    // Reference: Southwell's relation ω² = ω₀² + K Ω² for the first flapwise mode, with K from
    // the Rayleigh quotient above (1.193 for a root on the axis; here the root sits on the hub
    // rim, R/L = 0.1). The hub is driven at Ω = 20 rad/s by a revolute + driving constraint.
    let (spin, duration) = (20.0, 0.45);
    let (w0, w) = (flap_frequency(0.0, duration), flap_frequency(spin, duration));
    let k = (w * w - w0 * w0) / (spin * spin);
    let (k_axis, k_ref) = (southwell_coefficient(0.0), southwell_coefficient(0.1));
    println!(
        "flap frequency: at rest {w0:.3} rad/s (Euler–Bernoulli {OMEGA0_EB}), at Ω = {spin} rad/s {w:.3} rad/s; \
         K = {k:.3}, Southwell {k_ref:.3} (R/L = 0.1; {k_axis:.3} on the axis)"
    );
    assert!(
        (k_axis - 1.193).abs() < 2e-3,
        "Southwell coefficient on the axis {k_axis}"
    );
    assert!((w0 - OMEGA0_EB).abs() / OMEGA0_EB < 0.05);
    assert!(w > 1.15 * w0, "centrifugal stiffening: {w0} → {w}");
    assert!((k - k_ref).abs() / k_ref < 0.1, "K = {k}, Southwell {k_ref}");
}

#[test]
fn a_free_flexible_body_beside_a_rigid_body_falls_freely() {
    // Reference: free fall. A flexible body attached to nothing, in a coupled model beside a
    // rigid body, moves under gravity alone: every node reaches ṙ = g t (the mass matrix
    // reproduces constant fields, the rigid body does not touch it). Its accelerations were
    // left at zero before (no attachment skipped the flexible solve).
    let sample = spinning_beam::<f64, Growable>(0.0, 0.0).unwrap();
    let g = Vec3::new(0.0, 0.0, -9.81);
    let mut b = flex::Model::<f64, Growable>::builder(sample.flex().materials()[0], g);
    for p in sample.flex().references() {
        b.add_node(*p).unwrap();
    }
    for t in sample.flex().connectivity() {
        b.add_element(*t).unwrap();
    }
    let beam = b.build().unwrap();
    let mut r = rigid::Model::<f64, Growable>::builder(g);
    r.add_body(Body::new(1.0, Mat3::IDENTITY)).unwrap();
    let model = coupled::Model::builder(r.build().unwrap(), beam).build().unwrap();
    let mut data = CoupledData::new(&model);
    let dt = 1e-5;
    for _ in 0..100 {
        step(&model, &mut data, &mut Rk4, dt).unwrap();
    }
    let t = data.time();
    for node in 0..model.flex().node_count() {
        let v = data.flex().rates(node);
        assert!(
            (v[2] - g.z * t).abs() < 1e-12 && v[0].abs() < 1e-12,
            "node {node}: {v:?}"
        );
    }
    assert!((data.rigid().velocity(0).z - g.z * t).abs() < 1e-12);
}
