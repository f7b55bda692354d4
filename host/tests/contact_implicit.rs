//! Rigid contact under the implicit integrators (BDF1, BDF2, generalized-α): the contact force is
//! part of the right-hand side their Newton iteration differentiates, so the contact stiffness
//! is in the iteration matrix and a resting contact far stiffer than the step is stable.
//! Reference: Hertz's static contact, K δ^{3/2} = m g with K = 4/3 E* √R (Johnson, *Contact
//! Mechanics*, 1985, §4.2).

use ferrodyn_host::contact::force::{effective_modulus, hertz_stiffness};
use ferrodyn_host::contact::{ContactMaterial, ContactWorld, Elastic, Geometry, Shape};
use ferrodyn_host::dae::{Bdf, GeneralizedAlpha, HostMethod, NewtonSettings};
use ferrodyn_host::model::{HostData, HostModel};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::{step_with, Body, Integrator};

const G: f64 = 9.81;
const MASS: f64 = 4.11;
const RADIUS: f64 = 0.05;

/// A steel sphere released at rest pressed `depth` into a steel plane, stepped `steps` times by
/// `integrator` with step `dt`: the final (penetration, |vz|), or None if a step failed.
fn settle(integrator: &mut impl Integrator<f64>, depth: f64, dt: f64, steps: usize) -> Option<(f64, f64)> {
    let mut b = HostModel::builder(Vec3::new(0.0, 0.0, -G));
    b.add_body(Body::sphere(MASS, RADIUS).at(Vec3::new(0.0, 0.0, RADIUS - depth), Quat::IDENTITY))
        .unwrap();
    let model = b.build().unwrap();
    let mut data = HostData::new(&model);
    let shapes = vec![
        Shape::new("ground", None, Geometry::Plane).with_elastic(Elastic::STEEL),
        Shape::new("ball", Some(0), Geometry::Sphere { radius: RADIUS }).with_elastic(Elastic::STEEL),
    ];
    let material = ContactMaterial::elastic().with_restitution(0.5);
    let mut world = ContactWorld::new(shapes, 1, material).unwrap();
    world.commit(&data);
    for _ in 0..steps {
        if let Err(e) = step_with(&model, &mut data, integrator, dt, &mut world) {
            println!("t = {}: {e}", data.time());
            return None;
        }
        world.commit(&data);
    }
    let depth = world.active().first().map_or(0.0, |c| c.penetration);
    Some((depth, data.velocity(0).z.abs()))
}

/// Hertz stiffness K of the steel pair and the static depth (mg/K)^{2/3}.
fn hertz_static() -> (f64, f64) {
    let k = hertz_stiffness(effective_modulus(&Elastic::STEEL, &Elastic::STEEL), RADIUS);
    (k, (MASS * G / k).powf(2.0 / 3.0))
}

/// Runs `method` from `start` depth for 400 steps of `dt` and asserts rest at the Hertz depth.
fn assert_settles(name: &str, method: &mut impl Integrator<f64>, start: f64, dt: f64) {
    let (_, static_depth) = hertz_static();
    let (depth, speed) = settle(method, start, dt, 400).expect("implicit steps succeed");
    let error = depth / static_depth - 1.0;
    println!("{name}: depth {depth:.9e} m ({error:+.2e} relative), |vz| {speed:.1e} m/s");
    assert!(error.abs() < 1e-6, "{name}: {depth} vs {static_depth}");
    assert!(speed < 1e-9, "{name}: still moving at {speed}");
}

#[test]
fn implicit_steps_far_above_the_contact_period_settle_at_the_hertz_depth() {
    let (k, static_depth) = hertz_static();
    // Linearized contact frequency at rest ω = √(3/2 K δ^{1/2} / m): RK4 is stable for
    // ω h < 2.83, so h = 5 ms is 6× beyond its limit (and the Flores damper, c/m = g χ / v_min,
    // further still).
    let omega = (1.5 * k * static_depth.sqrt() / MASS).sqrt();
    let dt = 5e-3;
    println!(
        "Hertz static depth {static_depth:.6e} m, ω = {omega:.0} rad/s, ω h = {:.1}",
        omega * dt
    );
    let newton = NewtonSettings::default();
    for mut method in [
        HostMethod::Bdf(Bdf::new(1, newton)),
        HostMethod::Bdf(Bdf::new(2, newton)),
        HostMethod::GeneralizedAlpha(GeneralizedAlpha::new(0.8, newton)),
    ] {
        let name = method.name();
        assert_settles(name, &mut method, 1.05 * static_depth, dt);
    }
    // The explicit method at the same step does not settle there: it fails or drifts away.
    let rk4 = settle(&mut Rk4, 1.05 * static_depth, dt, 400);
    println!("RK4 at the same step: {rk4:?}");
    assert!(
        rk4.is_none_or(|(depth, _)| (depth / static_depth - 1.0).abs() >= 1e-3 || depth.is_nan()),
        "RK4 was expected to be unstable at ω h = {}",
        omega * dt
    );
}

#[test]
fn backward_differences_land_a_dropped_sphere_at_the_hertz_depth_with_5ms_steps() {
    // Released 0.1 mm above the plane: impact at 0.044 m/s, then the plastic-ish contact
    // (e = 0.5) damps the bounces; 400 steps of 5 ms (ω h = 18 at rest). Backtracking keeps
    // Newton from cycling in and out of contact.
    for order in [1, 2] {
        let mut method = Bdf::new(order, NewtonSettings::default());
        assert_settles(&format!("BDF{order}"), &mut method, -1e-4, 5e-3);
    }
}
