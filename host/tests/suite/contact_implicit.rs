//! Rigid contact under the implicit integrators (BDF1, BDF2, generalized-α): the contact force is
//! part of the right-hand side their Newton iteration differentiates, so the contact stiffness
//! is in the iteration matrix and a resting contact far stiffer than the step is stable.
//! Reference: Hertz's static contact, K δ^{3/2} = m g with K = 4/3 E* √R (Johnson, *Contact
//! Mechanics*, 1985, §4.2).

use ferrodyn_host::contact::force::{effective_modulus, hertz_stiffness};
use ferrodyn_host::contact::ContactWorld;
use ferrodyn_host::dae::{Bdf, GeneralizedAlpha, HostMethod};
use ferrodyn_host::spec::{ContactMaterial, Elastic, Geometry, NewtonSettings, Shape};
use ferrodyn_host::storage::{FlexModel, RigidModel as HostModel};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::Body;
use ferrodyn_kernel::{step_with, Dynamics, Integrator};

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
    let mut data = model.new_data();
    let shapes = vec![
        Shape::new("ground", None, Geometry::Plane).with_elastic(Elastic::STEEL),
        Shape::new("ball", Some(0), Geometry::Sphere { radius: RADIUS }).with_elastic(Elastic::STEEL),
    ];
    let material = ContactMaterial::elastic().with_restitution(0.5);
    let mut world = ContactWorld::new(shapes, 1, material).unwrap();
    // The world sees the initial state, then every accepted state (`step_with`).
    model.accept(&mut data, &mut world).unwrap();
    for _ in 0..steps {
        if let Err(e) = step_with(&model, &mut data, integrator, dt, &mut world) {
            println!("t = {}: {e}", data.time());
            return None;
        }
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

/// A 2 kg rubber block (0.2 × 0.1 × 0.1 m, Neo-Hookean E = 10 MPa) set on a steel ground at rest,
/// stepped by HHT-α (α = −0.1) at `dt` for 1 s with node-to-plane contact in the residual and
/// the tangent: (Σ F_n at the end, largest node speed, Newton iterations, largest penetration).
fn hht_block_on_ground(dt: f64) -> (f64, f64, u64, f64) {
    use ferrodyn_host::contact::flexible::surface_triangles;
    use ferrodyn_host::implicit::HhtFlex;
    use ferrodyn_host::spec::HhtOptions;
    use ferrodyn_kernel::ancf::Material;
    use ferrodyn_kernel::samples::add_box_mesh;
    let (youngs, nu) = (1e7, 0.3);
    let material = Material::neo_hookean(youngs, nu, 1000.0).unwrap();
    let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -G));
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1]).unwrap();
    let body = b.build().unwrap();
    let mut hht = HhtFlex::new(body, HhtOptions::hht(-0.1).unwrap()).unwrap();
    let reference = hht.body().references().to_vec();
    let surface = surface_triangles(hht.body().connectivity(), |n| reference[n].to_array());
    let rubber = Elastic {
        youngs_modulus: youngs,
        poisson_ratio: nu,
    };
    let (contact, _) = rubber_on_steel_ground(&surface, rubber);
    hht.set_ground_contact(contact).unwrap();
    let (mut iterations, mut deepest) = (0, 0.0f64);
    for _ in 0..(1.0 / dt).round() as usize {
        iterations += u64::from(hht.step(dt).unwrap().newton_iterations);
        let active = hht.ground_contact().unwrap().active();
        deepest = active.iter().fold(deepest, |d, c| d.max(c.penetration));
    }
    let support: f64 = hht
        .ground_contact()
        .unwrap()
        .active()
        .iter()
        .map(|c| c.normal_force)
        .sum();
    let speed = hht.rates().chunks(12).fold(0.0f64, |m, v| {
        m.max(v[..3].iter().map(|x| x * x).sum::<f64>().sqrt())
    });
    (support, speed, iterations, deepest)
}

/// Node-to-plane contact of the `surface` nodes (Hertz radius 5 cm) of a `rubber` body with a
/// steel ground z = 0, and its material: plastic, friction regularized at 5 cm/s (at 1 mm/s
/// Newton cycles between stick and slip at 5 ms steps).
fn rubber_on_steel_ground(
    surface: &[[usize; 3]],
    rubber: Elastic,
) -> (
    ferrodyn_host::contact::flexible::FlexGroundContact,
    ContactMaterial,
) {
    let material = ContactMaterial {
        friction_regularization: 0.05,
        ..ContactMaterial::plastic()
    };
    let ground = ferrodyn_host::contact::flexible::FlexGroundContact::new(
        surface,
        [0.0; 3],
        [0.0, 0.0, 1.0],
        0.05,
        rubber,
        Elastic::STEEL,
        material,
    )
    .unwrap();
    (ground, material)
}

/// RK4 stability limit of the same block without contact (kernel power iteration on M⁻¹K; the
/// kernel flexible model on the host's growable storage).
fn block_rk4_limit() -> f64 {
    use ferrodyn_kernel::ancf::Material;
    use ferrodyn_kernel::flex::max_frequency;
    use ferrodyn_kernel::samples::add_box_mesh;
    let material = Material::neo_hookean(1e7, 0.3, 1000.0).unwrap();
    let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -G));
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1]).unwrap();
    let model = b.build().unwrap();
    let mut data = model.new_data();
    max_frequency(&model, &mut data, 300).unwrap().rk4()
}

#[test]
fn hht_flexible_block_rests_on_the_ground_with_contact_in_the_tangent() {
    // Reference: static equilibrium, the ground carries the weight (Σ F_n = m g; the elastic
    // forces of a free body sum to zero).
    let weight = 2.0 * G;
    let dt = 5e-3;
    let limit = block_rk4_limit();
    println!(
        "HHT step {dt} s = {:.0}× the block's RK4 limit {limit:.2e} s (without contact)",
        dt / limit
    );
    assert!(dt > 10.0 * limit);
    let (support, speed, iterations, deepest) = hht_block_on_ground(dt);
    println!(
        "HHT block on ground: Σ F_n = {support:.6} N vs m g = {weight:.6} N ({:+.2e}), max node speed {speed:.1e} m/s, {iterations} Newton iterations in {} steps, deepest {deepest:.3e} m",
        support / weight - 1.0,
        (1.0 / dt).round()
    );
    assert!((support / weight - 1.0).abs() < 1e-6, "{support} vs {weight}");
    assert!(speed < 1e-6, "still moving: {speed}");
}

#[test]
fn hht_cube_rests_on_a_block_with_node_to_surface_and_surface_to_surface_contact() {
    use ferrodyn_host::spec::Proximity;
    for proximity in [Proximity::NodeToSurface, Proximity::SurfaceToSurface] {
        hht_cube_on_block(proximity);
    }
}

fn hht_cube_on_block(proximity: ferrodyn_host::spec::Proximity) {
    // Reference: static equilibrium of each body. A 0.512 kg rubber cube (0.08 m, Neo-Hookean
    // E = 10 MPa) set on the middle of a 2 kg block that rests on the steel ground, both one HHT
    // body (two parts of one mesh): at rest the node-to-surface forces on the cube carry its
    // weight m_c g, and the ground carries both, (m_c + m_b) g (elastic forces of a free body
    // sum to zero). 5 ms steps, 1 s; friction regularized at 5 cm/s as in the block test.
    use ferrodyn_host::contact::flex_pair::{mesh_parts, FlexPairContact};
    use ferrodyn_host::contact::flexible::surface_triangles;
    use ferrodyn_host::implicit::HhtFlex;
    use ferrodyn_host::spec::HhtOptions;
    use ferrodyn_kernel::ancf::Material;
    use ferrodyn_kernel::samples::add_box_mesh;
    let (youngs, nu, dt) = (1e7, 0.3, 5e-3_f64);
    let material = Material::neo_hookean(youngs, nu, 1000.0).unwrap();
    let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -G));
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1]).unwrap();
    add_box_mesh(
        &mut b,
        Vec3::new(0.06, 0.01, 0.1),
        Vec3::new(0.08, 0.08, 0.08),
        [1, 1, 1],
    )
    .unwrap();
    let body = b.build().unwrap();
    let mut hht = HhtFlex::new(body, HhtOptions::hht(-0.1).unwrap()).unwrap();
    let reference: Vec<[f64; 3]> = hht.body().references().iter().map(|p| p.to_array()).collect();
    let connectivity = hht.body().connectivity().to_vec();
    let rubber = Elastic {
        youngs_modulus: youngs,
        poisson_ratio: nu,
    };
    let surface = surface_triangles(&connectivity, |n| reference[n]);
    let (ground, material) = rubber_on_steel_ground(&surface, rubber);
    let pair = FlexPairContact::new(&reference, &connectivity, 0.05, 0.03, rubber, material)
        .unwrap()
        .with_proximity(|_| proximity)
        .unwrap();
    hht.set_ground_contact(ground).unwrap();
    hht.set_pair_contact(pair).unwrap();
    let cube = mesh_parts(reference.len(), &connectivity);
    let cube_part = cube[reference.len() - 1];
    let (mut iterations, mut deepest) = (0u64, 0.0f64);
    let steps = (1.0 / dt).round() as usize;
    for _ in 0..steps {
        iterations += u64::from(hht.step(dt).unwrap().newton_iterations);
        let pair = hht.contacts().pair.as_ref().unwrap();
        deepest = pair.active().iter().fold(deepest, |d, c| d.max(c.penetration));
    }
    let contacts = hht.contacts();
    let pair = contacts.pair.as_ref().unwrap();
    // Vertical force on the cube: + from its nodes pressed into the block, − from the block's
    // nodes pressed into its faces.
    let on_cube: f64 = pair
        .active()
        .iter()
        .map(|c| {
            if cube[c.node] == cube_part {
                c.force[2]
            } else {
                -c.force[2]
            }
        })
        .sum();
    let ground: f64 = contacts.ground[0].active().iter().map(|c| c.normal_force).sum();
    let cube_weight = 1000.0 * 0.08f64.powi(3) * G;
    let speed = hht.rates().chunks(12).fold(0.0f64, |m, v| {
        m.max(v[..3].iter().map(|x| x * x).sum::<f64>().sqrt())
    });
    println!(
        "HHT cube on block, {proximity:?}: cube carried {on_cube:.6} N vs {:.6} N ({:+.1e}), ground {ground:.6} N vs {:.6} N ({:+.1e}), {} contacts, deepest {deepest:.3e} m, {:.2} Newton iterations a step, max node speed {speed:.1e} m/s",
        cube_weight,
        on_cube / cube_weight - 1.0,
        cube_weight + 2.0 * G,
        ground / (cube_weight + 2.0 * G) - 1.0,
        pair.active().len(),
        iterations as f64 / steps as f64
    );
    assert!((on_cube / cube_weight - 1.0).abs() < 1e-6, "cube: {on_cube}");
    assert!(
        (ground / (cube_weight + 2.0 * G) - 1.0).abs() < 1e-6,
        "ground: {ground}"
    );
    // At rest: far below the speed g h a node would gain in one step unsupported.
    assert!(speed < 1e-3 * G * dt, "still moving: {speed}");
}
