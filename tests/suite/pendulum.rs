//! Simple and compound pendulum against their exact periods, and the energy drift of every
//! integrator.

use crate::common::{elliptic_k, exact_period, mean_period, swing, upward_crossings};
use ferrodyn::kernel::integrators::{AdaptiveConfig, Method};
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::rigid::{Body, BodyRef, Frame, Joint, JointKind, Model};
use ferrodyn::kernel::samples::{simple_pendulum, PendulumCapacities, GRAVITY};
use ferrodyn::kernel::*;

const DT: f64 = 1e-3;

#[test]
fn simple_pendulum_period_matches_elliptic_integral() {
    let reference = exact_period(1.0, std::f64::consts::FRAC_PI_2);
    assert!(
        (reference - 2.3678419).abs() < 5e-8,
        "reference formula gives {reference}"
    );
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, std::f64::consts::FRAC_PI_2).unwrap();
    let (samples, _) = swing(&model, &mut integrators::Rk4, 10.0, DT, Vec3::ZERO);
    let period = mean_period(&upward_crossings(&samples));
    let rel = (period - reference).abs() / reference;
    println!("simple pendulum RK4 dt=1e-3: T = {period:.9} s, exact {reference:.9} s, rel. error {rel:.2e}");
    assert!(rel < 1e-6, "period {period} vs {reference}: rel {rel:.3e}");
}

#[test]
fn compound_pendulum_on_revolute_matches_exact_period() {
    // A uniform rod (m = 1 kg, ℓ = 1 m) hinged at one end about y, released horizontally.
    // Reference: T = 4 √(I_p/(m g d)) K(sin(θ0/2)), I_p = m ℓ²/3 (+ the rod's small radial
    // term m r²/4 about the transverse axis), d = ℓ/2.
    let (m, l, r) = (1.0, 1.0, 0.01);
    let mut b = Model::<f64, Fixed<1, 1, 0, 5, 15>>::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let rod = b
        .add_body(Body::rod(m, l, r).at(Vec3::new(l / 2.0, 0.0, 0.0), Quat::IDENTITY))
        .unwrap();
    b.add_joint(Joint::new(
        JointKind::Revolute,
        BodyRef::Ground,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Y),
        rod,
        Frame::with_z_axis(Vec3::new(-l / 2.0, 0.0, 0.0), Vec3::Y),
    ))
    .unwrap();
    let model = b.build().unwrap();
    let i_pivot = m * (3.0 * r * r + l * l) / 12.0 + m * (l / 2.0) * (l / 2.0);
    let reference =
        4.0 * (i_pivot / (m * GRAVITY * l / 2.0)).sqrt() * elliptic_k((std::f64::consts::FRAC_PI_4).sin());
    let (samples, _) = swing(
        &model,
        &mut integrators::Rk4,
        10.0,
        DT,
        Vec3::new(l / 2.0, 0.0, 0.0),
    );
    let period = mean_period(&upward_crossings(&samples));
    let rel = (period - reference).abs() / reference;
    println!("compound pendulum RK4: T = {period:.9} s, exact {reference:.9} s, rel. error {rel:.2e}");
    assert!(rel < 1e-6, "period {period} vs {reference}: rel {rel:.3e}");
}

#[test]
fn energy_drift_of_every_integrator_over_ten_seconds() {
    // Reference: a conservative system, E(t) = E(0). Each method's drift is checked against its
    // order: RK4 at ωh ≈ 3e-3 gives (ωh)⁴ ≈ 1e-10; the adaptive pairs stay near their
    // tolerance (rtol 1e-9); the split methods combined with projection onto the constraint are
    // no longer exactly symplectic, so their drift is secular and must shrink as h¹ (semi-implicit
    // Euler) and h² (velocity Verlet): checked from runs at h and h/2.
    // Scale: m g L = 9.81 J, the energy exchanged in a swing.
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, std::f64::consts::FRAC_PI_2).unwrap();
    let adaptive = AdaptiveConfig {
        rtol: 1e-9,
        atol: 1e-12,
        ..AdaptiveConfig::default()
    };
    let drift = |method: &mut Method<f64>, dt: f64| {
        let (_, energies) = swing(&model, method, 10.0, dt, Vec3::ZERO);
        let e0 = energies[0];
        energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max) / GRAVITY
    };
    println!(
        "{:<22} {:>16} {:>16} {:>8}",
        "integrator", "max|ΔE|/mgL h=1e-3", "h=5e-4", "order"
    );
    for mut method in [
        Method::Rk4,
        Method::rkf45(adaptive),
        Method::dopri45(adaptive),
        Method::SemiImplicitEuler,
        Method::VelocityVerlet,
    ] {
        let name = method.name();
        let (coarse, fine) = (drift(&mut method, DT), drift(&mut method, DT / 2.0));
        let order = (coarse / fine).log2();
        println!("{name:<22} {coarse:>16.3e} {fine:>16.3e} {order:>8.2}");
        match method {
            Method::Rk4 => assert!(coarse < 1e-10, "{name}: {coarse:.3e}"),
            Method::Rkf45(_) | Method::Dopri45(_) => assert!(coarse < 1e-8, "{name}: {coarse:.3e}"),
            Method::SemiImplicitEuler => assert!((order - 1.0).abs() < 0.2, "{name}: order {order:.2}"),
            Method::VelocityVerlet => assert!((order - 2.0).abs() < 0.2, "{name}: order {order:.2}"),
        }
    }
}
