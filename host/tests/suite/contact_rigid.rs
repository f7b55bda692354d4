//! Rigid contact validation: Hertz impact (Johnson, *Contact Mechanics*, 1985, §11.4),
//! Flores restitution (Flores et al., Mech. Mach. Theory 46, 2011), Coulomb friction on an
//! incline and rolling without slip, stepped by the kernel's RK4 with contact forces evaluated
//! at every stage.

use ferrodyn_host::contact::force::{effective_modulus, nondimensional_restitution};
use ferrodyn_host::contact::ContactWorld;
use ferrodyn_host::spec::{ContactMaterial, Dissipation, Elastic, Geometry, Shape};
use ferrodyn_host::storage::{RigidData as HostData, RigidModel as HostModel};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::rigid::Body;
use ferrodyn_kernel::step_with;

const G: f64 = 9.81;

/// One body with one shape above a ground plane turned by `plane_rot`.
fn one_body_world(
    body: Body<f64>,
    gravity: Vec3<f64>,
    geometry: Geometry,
    elastic: Elastic,
    plane_rot: Quat<f64>,
    material: ContactMaterial,
) -> (HostModel, HostData, ContactWorld) {
    let mut b = HostModel::builder(gravity);
    b.add_body(body).unwrap();
    let model = b.build().unwrap();
    let data = HostData::new(&model);
    let shapes = vec![
        Shape::new("ground", None, Geometry::Plane)
            .at(Vec3::ZERO, plane_rot)
            .with_elastic(elastic),
        Shape::new("body", Some(0), geometry).with_elastic(elastic),
    ];
    let world = ContactWorld::new(shapes, 1, material).unwrap();
    (model, data, world)
}

/// Impact of a sphere (mass m, radius r) at speed v0 on the plane: (rebound speed / v0,
/// contact duration, peak normal force), measured at step boundaries.
fn sphere_impact(
    material: ContactMaterial,
    m: f64,
    r: f64,
    elastic: Elastic,
    v0: f64,
    dt: f64,
) -> (f64, f64, f64) {
    let gap = 2e-5;
    let body = Body::sphere(m, r)
        .at(Vec3::new(0.0, 0.0, r + gap), Quat::IDENTITY)
        .moving(Vec3::new(0.0, 0.0, -v0), Vec3::ZERO);
    let (model, mut data, mut world) = one_body_world(
        body,
        Vec3::new(0.0, 0.0, -G),
        Geometry::Sphere { radius: r },
        elastic,
        Quat::IDENTITY,
        material,
    );
    let (mut v_in, mut t_start, mut t_end, mut peak) = (None, 0.0, None, 0.0_f64);
    let mut prev_v = -v0;
    for _ in 0..200_000 {
        // The world sees every accepted state (`accept`): its active contacts.
        step_with(&model, &mut data, &mut Rk4, dt, &mut world).unwrap();
        let t = data.time();
        let vz = data.velocity(0).z;
        let touching = !world.active().is_empty();
        if touching && v_in.is_none() {
            // Contact began within this step: the approach speed is the one before it.
            v_in = Some(-prev_v);
            t_start = t - dt;
        }
        if let Some(c) = world.active().first() {
            peak = peak.max(c.normal_force);
        }
        if v_in.is_some() && !touching {
            t_end = Some((t, vz));
            break;
        }
        prev_v = vz;
    }
    let (t_out, v_out) = t_end.expect("the sphere leaves the plane");
    (v_out / v_in.unwrap(), t_out - t_start, peak)
}

#[test]
fn elastic_sphere_drop_matches_hertz_duration_and_peak_force() {
    // Johnson (1985) §11.4: t_c = 2.87 (m²/(R E*² v0))^{1/5}, δ_max = (15 m v0²/(16 E* √R))^{2/5},
    // F_max = 4/3 E* √R δ_max^{3/2}. Steel sphere R = 0.05 m, m = 4.11 kg on a steel plane.
    let (m, r, v0): (f64, f64, f64) = (4.11, 0.05, 1.0);
    let steel = Elastic::STEEL;
    let e_star = effective_modulus(&steel, &steel);
    let t_c = 2.87 * (m * m / (r * e_star * e_star * v0)).powf(0.2);
    let delta_max = (15.0 * m * v0 * v0 / (16.0 * e_star * r.sqrt())).powf(0.4);
    let f_max = 4.0 / 3.0 * e_star * r.sqrt() * delta_max.powf(1.5);
    // 2,000 steps across the contact.
    let dt = t_c / 2000.0;
    let (e, duration, peak) = sphere_impact(ContactMaterial::elastic(), m, r, steel, v0, dt);
    let (dur_err, peak_err) = ((duration - t_c) / t_c, (peak - f_max) / f_max);
    println!("Hertz: t_c = {t_c:.6e} s measured {duration:.6e} ({:+.3}%), F_max = {f_max:.2} N measured {peak:.2} ({:+.3}%), e = {e:.5}",
        100.0 * dur_err, 100.0 * peak_err);
    assert!(dur_err.abs() < 0.05, "duration error {dur_err}");
    assert!(peak_err.abs() < 0.05, "peak force error {peak_err}");
    assert!((e - 1.0).abs() < 0.01, "elastic restitution {e}");
}

/// Contact duration of an impact at 1 m/s of the 4.11 kg steel sphere: steps of 1/1000 of it.
fn impact_step() -> f64 {
    let e_star = effective_modulus(&Elastic::STEEL, &Elastic::STEEL);
    2.87 * (4.11_f64.powi(2) / (0.05 * e_star * e_star)).powf(0.2) / 1000.0
}

#[test]
fn calibrated_flores_restitution_within_0_02() {
    // Requested e against achieved v_out/v_in (definition of the coefficient of restitution).
    // The presets' default dissipation is the calibrated one.
    assert_eq!(
        ContactMaterial::elastic().dissipation,
        Dissipation::FloresCalibrated
    );
    assert_eq!(
        ContactMaterial::plastic().dissipation,
        Dissipation::FloresCalibrated
    );
    for e in [0.3, 0.5, 0.8] {
        let material = ContactMaterial::elastic().with_restitution(e);
        let (achieved, _, _) = sphere_impact(material, 4.11, 0.05, Elastic::STEEL, 1.0, impact_step());
        println!("calibrated Flores: requested e = {e}, achieved {achieved:.4}");
        assert!((achieved - e).abs() < 0.02, "e = {e}: achieved {achieved}");
    }
}

#[test]
fn flores_closed_form_restitution_matches_its_impact_equation() {
    // Flores' χ = 8(1−e)/(5e) as DESIGN.md states it. Reference: the achieved restitution of
    // the nondimensional impact x'' = −x^{3/2}(1 + χx') (0.256, 0.470, 0.789 for 0.3, 0.5, 0.8;
    // checked against an independent integration in force.rs). Not within 0.02 of e below 0.8.
    for e in [0.3, 0.5, 0.8] {
        let material = ContactMaterial::elastic()
            .with_restitution(e)
            .with_dissipation(Dissipation::Flores);
        let (achieved, _, _) = sphere_impact(material, 4.11, 0.05, Elastic::STEEL, 1.0, impact_step());
        let reference = nondimensional_restitution(8.0 * (1.0 - e) / (5.0 * e));
        println!(
            "Flores closed form: requested e = {e}, achieved {achieved:.4}, impact equation {reference:.4}"
        );
        assert!(
            (achieved - reference).abs() < 0.005,
            "e = {e}: {achieved} vs {reference}"
        );
    }
}

/// A 1 kg, 0.1 m rubber-like box released at rest on a plane inclined by `theta` with friction
/// μ = 0.3: (velocity along the slope at t1 and t2, largest |speed| after settling).
fn block_on_incline(theta: f64, t1: f64, t2: f64) -> (f64, f64, f64) {
    let h: f64 = 0.05;
    let elastic = Elastic {
        youngs_modulus: 1e7,
        poisson_ratio: 0.3,
    };
    let material = ContactMaterial::elastic()
        .with_restitution(0.5)
        .with_friction(0.3);
    let tilt = Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), theta);
    // Turning about +y by θ takes +x to (cosθ, 0, −sinθ): down the slope.
    let down = tilt.rotate(Vec3::new(1.0, 0.0, 0.0));
    let normal = tilt.rotate(Vec3::new(0.0, 0.0, 1.0));
    // Start at the static penetration of each of the 4 corners: F = mg cosθ / 4 = K δ^{3/2}.
    let e_star = effective_modulus(&elastic, &elastic);
    let k = 4.0 / 3.0 * e_star * h.sqrt();
    let delta = (G * theta.cos() / 4.0 / k).powf(2.0 / 3.0);
    // Cube of side a = 2h: I = m a²/6 about every axis.
    let inertia = Mat3::diagonal(Vec3::new(1.0, 1.0, 1.0) * (4.0 * h * h / 6.0));
    let body = Body::new(1.0, inertia).at(normal * (h - delta), tilt);
    let (model, mut data, mut world) = one_body_world(
        body,
        Vec3::new(0.0, 0.0, -G),
        Geometry::Box { half_extents: [h; 3] },
        elastic,
        tilt,
        material,
    );
    let dt = 1e-4;
    let (mut v1, mut max_speed) = (0.0, 0.0_f64);
    let steps = (t2 / dt).round() as usize;
    for i in 1..=steps {
        // The world sees every accepted state (`accept`): its active contacts.
        step_with(&model, &mut data, &mut Rk4, dt, &mut world).unwrap();
        let v = data.velocity(0);
        let t = i as f64 * dt;
        if (t - t1).abs() < 0.5 * dt {
            v1 = v.dot(down);
        }
        if t > 0.1 {
            max_speed = max_speed.max(v.norm());
        }
        assert_eq!(world.active().len(), 4, "four corners touch at t = {t}");
    }
    (v1, data.velocity(0).dot(down), max_speed)
}

#[test]
fn block_on_incline_sticks_below_friction_angle_and_slides_above() {
    // Coulomb: at rest for tanθ < μ (with regularized friction: creep below v_reg = 1e-3 m/s),
    // otherwise a = g(sinθ − μcosθ).
    let mu: f64 = 0.3;
    let theta = mu.atan() - 5f64.to_radians();
    let (_, _, creep) = block_on_incline(theta, 0.5, 1.0);
    println!(
        "incline {:.2}° (< atan μ = {:.2}°): largest speed {creep:.3e} m/s",
        theta.to_degrees(),
        mu.atan().to_degrees()
    );
    assert!(creep < 1e-3, "creep {creep} beyond v_reg");
    for deg in [25.0_f64, 35.0] {
        let theta = deg.to_radians();
        let (t1, t2) = (0.3, 0.8);
        let (v1, v2, _) = block_on_incline(theta, t1, t2);
        let a = (v2 - v1) / (t2 - t1);
        let expected = G * (theta.sin() - mu * theta.cos());
        println!(
            "incline {deg}°: a = {a:.5} m/s², g(sinθ − μcosθ) = {expected:.5} ({:+.3}%)",
            100.0 * (a - expected) / expected
        );
        assert!(
            ((a - expected) / expected).abs() < 0.01,
            "θ = {deg}°: a = {a}, expected {expected}"
        );
    }
}

#[test]
fn sphere_rolls_without_slip() {
    // A sphere set rolling (v = ωR) on a flat plane has no friction work to do: it keeps
    // rolling, with slip at the contact bounded by the regularization speed v_reg = 1e-3 m/s.
    let (m, r, v): (f64, f64, f64) = (1.0, 0.05, 1.0);
    let steel = Elastic::STEEL;
    let e_star = effective_modulus(&steel, &steel);
    let k = 4.0 / 3.0 * e_star * r.sqrt();
    let delta = (m * G / k).powf(2.0 / 3.0);
    let body = Body::sphere(m, r)
        .at(Vec3::new(0.0, 0.0, r - delta), Quat::IDENTITY)
        .moving(Vec3::new(v, 0.0, 0.0), Vec3::new(0.0, v / r, 0.0));
    let material = ContactMaterial::elastic()
        .with_restitution(0.5)
        .with_friction(0.5);
    let (model, mut data, mut world) = one_body_world(
        body,
        Vec3::new(0.0, 0.0, -G),
        Geometry::Sphere { radius: r },
        steel,
        Quat::IDENTITY,
        material,
    );
    let dt = 2e-5;
    let mut worst = 0.0_f64;
    for _ in 0..10_000 {
        // The world sees every accepted state (`accept`): its active contacts.
        step_with(&model, &mut data, &mut Rk4, dt, &mut world).unwrap();
        let c = world.active().first().expect("the sphere stays on the plane");
        let omega = data.orientation(0).rotate(data.angular_velocity(0));
        let slip = data.velocity(0).x - omega.y * r;
        worst = worst.max(slip.abs());
        assert!(c.penetration > 0.0);
    }
    let vx = data.velocity(0).x;
    println!("rolling: worst |v − ωR| = {worst:.3e} m/s over 0.2 s, v = {vx:.6} m/s");
    assert!(worst < 1e-3, "slip {worst}");
    assert!((vx - v).abs() < 1e-3, "speed {vx}");
}

#[test]
fn bad_shapes_and_materials_are_named_errors() {
    let err = ContactWorld::new(
        vec![Shape::new(
            "left wheel",
            Some(0),
            Geometry::Sphere { radius: -1.0 },
        )],
        1,
        ContactMaterial::elastic(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("left wheel") && err.contains("radius"), "{err}");
    let err = ContactWorld::new(
        vec![Shape::new(
            "crate",
            Some(0),
            Geometry::Box {
                half_extents: [1.0, 0.0, 1.0],
            },
        )],
        1,
        ContactMaterial::elastic(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("crate") && err.contains("half extent"), "{err}");
    let err = ContactWorld::new(
        vec![Shape::new("ghost", Some(3), Geometry::Sphere { radius: 1.0 })],
        1,
        ContactMaterial::elastic(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("ghost") && err.contains("body 3"), "{err}");
    let err = ContactWorld::new(vec![], 1, ContactMaterial::elastic().with_friction(f64::NAN))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("friction"), "{err}");
}
