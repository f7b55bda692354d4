//! Contact on a tree in the kernel ([`ferrodyn_kernel::contact::GroundContacts`]) against the
//! host's run of the same scene: `ferrodyn run` evaluates a tree's sphere and box pairs with a
//! ground plane by the kernel's code, so the two agree to the bit; against parry3d's contact
//! of the same scene in Cartesian coordinates they agree to rounding.

use crate::common::{contact_side_by_side, on_a_plane, parse_inline as parse, tree_and_cartesian};
use ferrodyn_host::compile::{choose, compile, tree_parts, tree_world, Choice};
use ferrodyn_host::scene::Scene;
use ferrodyn_kernel::contact::GroundContacts;
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::Dynamics;
use std::path::Path;

fn load(name: &str) -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name);
    Scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn bits(s: &[f64]) -> Vec<u64> {
    s.iter().map(|x| x.to_bits()).collect()
}

/// Steps `scene` to `end` with `ferrodyn run`'s simulation and with the kernel alone (its tree
/// and ground contacts, as an exported module builds them), asserting equal bits after every
/// step; returns the number of steps with a contact.
pub(crate) fn kernel_against_run(scene: &Scene, end: f64) -> usize {
    let Choice::Tree(links) = choose(scene).unwrap() else {
        panic!("not a tree")
    };
    let parts = tree_parts(scene, &links).unwrap();
    let world = tree_world(
        scene,
        scene.contact.as_ref().unwrap(),
        &parts.tree.bodies,
        links.len(),
    )
    .unwrap();
    assert!(world.parry_pairs().is_empty(), "{:?}", world.parry_pairs());
    let mut contacts = GroundContacts::<f64, 16>::new();
    for pair in world.ground_pairs() {
        for &contact in &pair.contacts {
            contacts.push(&parts.model, contact).unwrap();
        }
    }
    let model = &parts.model;
    let mut data = parts.initial_data().unwrap();
    model.accept(&mut data, &mut contacts).unwrap();
    let mut run = compile(scene).unwrap();
    assert_eq!(bits(run.state()), bits(model.state(&data)));
    let mut touching = 0;
    while run.time() < end - 1e-9 {
        run.step().unwrap();
        model
            .step_with(&mut data, &mut Rk4, scene.simulation.step, &mut contacts)
            .unwrap();
        assert_eq!(bits(run.state()), bits(model.state(&data)), "at {} s", run.time());
        touching += usize::from(contacts.pairs().iter().any(|p| p.impact_speed.is_some()));
    }
    touching
}

#[test]
fn a_dropped_ball_steps_in_the_kernel_alone_as_ferrodyn_run_steps_it_to_the_bit() {
    // scenes/sphere_drop.toml: a ball on a free joint, two bounces in 0.8 s.
    let touching = kernel_against_run(&load("sphere_drop.toml"), 0.8);
    assert!(touching > 200, "{touching} steps in contact");
}

#[test]
fn a_box_on_its_corners_steps_in_the_kernel_alone_as_ferrodyn_run_steps_it_to_the_bit() {
    // A tilted box thrown onto the floor: corners touch one after another, with friction.
    let scene = parse(&on_a_plane(
        r#"
[[body]]
id = 1
name = "b"
mass = 0.5
inertia = { Ixx = 5e-4, Iyy = 6e-4, Izz = 7e-4 }
pos = [0.0, 0.0, 0.08]
orient = { roll = 0.25, pitch = 0.2 }
velocity = [1.0, 0.0, -0.5]
"#,
        "type = \"box\"\nhalf_extents = [0.05, 0.04, 0.03]",
    ));
    let touching = kernel_against_run(&scene, 0.5);
    assert!(touching > 100, "{touching} steps in contact");
}

#[test]
fn a_dropped_ball_moves_in_joint_coordinates_as_in_cartesian_coordinates() {
    // Both formulations meet the plane through the kernel's pair; the tree's link pose and the
    // Cartesian body's quaternion differ by rounding, grown by the impacts. Measured: 4.4e-16
    // before the contact, 1.1e-11 after, energies 7.2e-12 J apart.
    let scene = load("sphere_drop.toml");
    let (mut tree, mut cartesian) = tree_and_cartesian(&scene);
    let run = contact_side_by_side(&mut tree, &mut cartesian, 0.8);
    assert!(run.touched, "no contact");
    assert!(run.before < 1e-12, "before the contact: {:e}", run.before);
    assert!(run.after < 1e-10, "in contact: {:e}", run.after);
    assert!(run.apart < 1e-10, "energies {:e} J apart", run.apart);
    assert!(run.rise < 1e-9, "the energy rose by {:e} J", run.rise);
}

#[test]
fn the_kernel_sphere_on_a_plane_meets_it_where_parry3d_does() {
    // parry3d's ball–half-space contact (the host's general narrow phase) against the kernel's
    // pair: the same penetration and contact point (midway into it) to rounding, on a tilted
    // plane and a turned link.
    use ferrodyn_kernel::contact::{GroundContact, Law, Plane};
    use ferrodyn_kernel::math::{Quat, Vec3};
    use parry3d_f64::math::{Pose, Rotation, Vector};
    use parry3d_f64::shape::{Ball, HalfSpace};
    let law = Law {
        stiffness: 1e6,
        damping_factor: 0.3,
        friction: 0.4,
        friction_regularization: 1e-3,
        min_impact_speed: 1e-2,
    };
    let tilt = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalized().unwrap(), 0.4);
    let plane = Plane {
        origin: Vec3::new(0.1, -0.2, 0.05),
        normal: tilt.rotate(Vec3::Z),
    };
    let turn = Quat::from_axis_angle(Vec3::new(0.3, -1.0, 0.2).normalized().unwrap(), 1.1);
    let centre = Vec3::new(0.02, 0.01, -0.03);
    let pair = GroundContact::sphere(0, centre, 0.05, plane, law)
        .validated()
        .unwrap();
    let to = |v: Vec3<f64>| Vector::new(v.x, v.y, v.z);
    let rotation = |q: Quat<f64>| Rotation::from_xyzw(q.x, q.y, q.z, q.w);
    let (mut largest, mut touching) = (0.0_f64, 0);
    for k in 0..50 {
        // Heights from 4 cm above the surface to 1 cm into it.
        let along = plane.normal * (0.09 - 0.001 * k as f64);
        let x = plane.origin + along + Vec3::new(0.01, 0.02, -0.01) - turn.rotate(centre);
        let touch = pair.evaluate(x, &turn.to_matrix(), Vec3::ZERO, Vec3::ZERO);
        let ground = Pose::from_parts(to(plane.origin), rotation(tilt));
        let ball = Pose::from_parts(to(x), rotation(turn)) * Pose::from_translation(to(centre));
        let parry =
            parry3d_f64::query::contact(&ground, &HalfSpace::new(Vector::Z), &ball, &Ball::new(0.05), 0.0)
                .unwrap()
                .filter(|c| c.dist < 0.0);
        match (touch, parry) {
            (None, None) => {}
            (Some(t), Some(c)) => {
                touching += 1;
                let point = (c.point1 + c.point2) * 0.5;
                largest = largest
                    .max((t.penetration + c.dist).abs())
                    .max((to(t.point) - point).length());
            }
            (t, c) => panic!("step {k}: kernel {t:?}, parry3d {c:?}"),
        }
    }
    assert!(touching > 10, "{touching} of 50 touching");
    assert!(largest < 1e-15, "{largest:e}");
}
