//! Capsule contact shapes (`type = "capsule"`): against a ground plane a capsule is its two end
//! spheres in the kernel's Hertz–Flores–Coulomb law (the point law F = K δ^{3/2},
//! K = 4/3 E* √R*, R* the capsule's radius: docs/contact.md), so a capsule lying down rests on
//! two points at the Hertz depth of half its weight, one standing on its end behaves as the
//! sphere of its radius, and a dropped one meets the plane at √(2gh) and never gains energy.
//! MJCF capsule geoms import as capsules; bad capsules are named errors.

use crate::common::{on_a_plane, parse_inline as parse, scratch_dir};
use crate::tree_contact::kernel_against_run;
use ferrodyn_host::compile::compile;
use ferrodyn_host::contact::force::{effective_modulus, hertz_energy, hertz_stiffness};
use ferrodyn_host::contact::ContactRecord;
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::import::{import, ImportOptions};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use ferrodyn_host::spec::{Elastic, Formulation, Geometry};
use ferrodyn_kernel::math::{Quat, Vec3};
use std::path::Path;

const G: f64 = 9.81;
const MASS: f64 = 1.0;
const RADIUS: f64 = 0.05;
const HALF_HEIGHT: f64 = 0.1;

/// Both shapes of [`on_a_plane`]: E = 10 MPa, ν = 0.3.
const RUBBER: Elastic = Elastic {
    youngs_modulus: 1e7,
    poisson_ratio: 0.3,
};

/// The Hertz stiffness of a sphere of radius `RADIUS` on the plane, K = 4/3 E* √R.
fn stiffness() -> f64 {
    hertz_stiffness(effective_modulus(&RUBBER, &RUBBER), RADIUS)
}

/// A 1 kg body "b" at height `z`, turned by `orient`, carrying `shape`, over the ground plane.
fn scene(z: f64, orient: &str, shape: &str) -> Scene {
    parse(&on_a_plane(
        &format!(
            "\n[[body]]\nid = 1\nname = \"b\"\nmass = {MASS}\ninertia = {{ Ixx = 4e-3, Iyy = 4e-3, Izz = 1.3e-3 }}\npos = [0.0, 0.0, {z}]\norient = {orient}\n"
        ),
        shape,
    ))
}

fn capsule(z: f64, orient: &str) -> Scene {
    scene(
        z,
        orient,
        &format!("type = \"capsule\"\nradius = {RADIUS}\nhalf_height = {HALF_HEIGHT}"),
    )
}

/// Lying: the capsule's axis (its z) turned onto x.
const LYING: &str = "{ pitch = 1.5707963267948966 }";
const UPRIGHT: &str = "{ roll = 0.0 }";

fn active(sim: &Simulation) -> Vec<ContactRecord> {
    sim.contacts()
        .and_then(|c| c.rigid())
        .map_or_else(Vec::new, |w| w.active().to_vec())
}

/// `scene` run to `end` from rest; its contacts at the end.
fn settled(scene: &Scene, end: f64) -> Vec<ContactRecord> {
    let mut sim = compile(scene).unwrap();
    while sim.time() < end - 1e-9 {
        sim.step().unwrap();
    }
    active(&sim)
}

#[test]
fn a_capsule_lying_on_a_plane_rests_on_its_two_ends_at_the_hertz_depth_of_half_its_weight() {
    // Released touching the plane; the damped contact settles in a few hundredths of a second.
    let contacts = settled(&capsule(RADIUS, LYING), 0.4);
    assert_eq!(contacts.len(), 2, "{contacts:?}");
    let weight = MASS * G;
    let total: f64 = contacts.iter().map(|c| c.normal_force).sum();
    assert!(
        (total - weight).abs() < 1e-9 * weight,
        "{total} N against {weight} N"
    );
    // Each end sphere carries W/2: δ = (W / 2K)^{2/3}.
    let depth = (weight / (2.0 * stiffness())).powf(2.0 / 3.0);
    for c in &contacts {
        assert!(
            (c.penetration - depth).abs() < 1e-9 * depth,
            "δ = {} m, Hertz {depth} m",
            c.penetration
        );
        assert_eq!(c.normal, [0.0, 0.0, 1.0]);
    }
    // At the ends, x = ±h.
    let mut x: Vec<f64> = contacts.iter().map(|c| c.point[0]).collect();
    x.sort_by(f64::total_cmp);
    assert!(
        (x[0] + HALF_HEIGHT).abs() < 1e-9 && (x[1] - HALF_HEIGHT).abs() < 1e-9,
        "{x:?}"
    );
}

#[test]
fn a_capsule_standing_on_its_end_rests_as_the_sphere_of_its_radius() {
    let capsule = settled(&capsule(HALF_HEIGHT + RADIUS, UPRIGHT), 0.4);
    let sphere = settled(
        &scene(RADIUS, UPRIGHT, &format!("type = \"sphere\"\nradius = {RADIUS}")),
        0.4,
    );
    assert_eq!((capsule.len(), sphere.len()), (1, 1));
    let (c, s) = (&capsule[0], &sphere[0]);
    let weight = MASS * G;
    let depth = (weight / stiffness()).powf(2.0 / 3.0);
    assert!(
        (c.normal_force - weight).abs() < 1e-9 * weight,
        "{} N",
        c.normal_force
    );
    assert!(
        (c.penetration - depth).abs() < 1e-9 * depth,
        "{} m",
        c.penetration
    );
    assert!((c.normal_force - s.normal_force).abs() < 1e-12 * weight);
    assert!((c.penetration - s.penetration).abs() < 1e-12 * depth);
}

/// What [`drop`] saw.
struct Drop {
    /// Time and contacts of the first step with a contact.
    first: (f64, Vec<ContactRecord>),
    /// Largest rise of kinetic + gravity + Hertz spring energy above the start (J).
    rise: f64,
    /// Start energy (J).
    start: f64,
    /// Vertical velocity when the first contact opens (m/s).
    rebound: f64,
}

/// `scene` (its body released at rest) run frictionless in Cartesian coordinates, to read the
/// body's velocity, through its first bounce. Frictionless: a normal impact has no slip, and
/// the regularized friction's viscous slope μ F_n / v_reg (2e5 N·s/m at the impact's 500 N)
/// is far beyond RK4's stability at 0.1 ms; it grew the 1e-12 N rounding difference of the
/// two ends' friction into 100 N within ten steps.
fn drop(scene: &Scene) -> Drop {
    let mut scene = scene.clone();
    scene.simulation.formulation = Formulation::Cartesian;
    for pair in &mut scene.contact.as_mut().unwrap().pairs {
        pair.2.friction = 0.0;
    }
    let mut sim = compile(&scene).unwrap();
    let k = stiffness();
    let energy = |sim: &Simulation| {
        let springs: f64 = active(sim).iter().map(|c| hertz_energy(k, c.penetration)).sum();
        sim.energy().unwrap().total() + springs
    };
    let start = energy(&sim);
    let (mut first, mut rise, mut rebound) = (None, 0.0_f64, None);
    while rebound.is_none() && sim.time() < 1.0 {
        sim.step().unwrap();
        rise = rise.max(energy(&sim) - start);
        let touching = active(&sim);
        if first.is_none() && !touching.is_empty() {
            first = Some((sim.time(), touching));
        } else if first.is_some() && touching.is_empty() {
            rebound = Some(sim.rigid().unwrap().1.velocity(0).z);
        }
    }
    Drop {
        first: first.expect("no contact"),
        rise,
        start,
        rebound: rebound.expect("no rebound"),
    }
}

#[test]
fn a_dropped_capsule_meets_the_plane_at_the_free_fall_speed_and_never_gains_energy() {
    // Lying flat, 0.2 m above the plane; restitution 0.7 (calibrated), RK4 at 0.1 ms.
    let (height, step) = (0.2, 1e-4);
    let run = drop(&capsule(RADIUS + height, LYING));
    let (t, touching) = &run.first;
    // Free fall: touch-down at √(2h/g), seen at the end of that step.
    let fall = (2.0 * height / G).sqrt();
    assert!(
        *t >= fall && *t < fall + step + 1e-12,
        "first contact at {t} s, free fall {fall} s"
    );
    // Both ends at once, at v₀ = √(2gh) up to that step: at most g·dt more, less the Hertz
    // force of both ends over at most v₀·dt of penetration during dt.
    let v0 = (2.0 * G * height).sqrt();
    let k = stiffness();
    let late = G * step + 2.0 * k * (v0 * step).powf(1.5) * step / MASS;
    assert_eq!(touching.len(), 2);
    for c in touching {
        assert!(
            (c.impact_speed - v0).abs() < late,
            "v₀ = {} m/s, √(2gh) = {v0} m/s",
            c.impact_speed
        );
    }
    // The Flores law only dissipates: kinetic + gravity + Hertz springs never above the start
    // (measured: 4.9e-15 J of 2.45 J, rounding).
    assert!(run.rise <= 1e-12 * run.start, "energy rose by {:e} J", run.rise);
    // Each end carries half the capsule: it bounces as a sphere of its radius and half its mass
    // dropped from the same height, the other form of the same contact (measured: both
    // rebound at 1.37095 m/s = 0.692 v₀, the calibrated e = 0.7 less gravity's impulse over
    // the 7 ms contact).
    let sphere = scene(
        RADIUS + height,
        UPRIGHT,
        &format!("type = \"sphere\"\nradius = {RADIUS}"),
    );
    let mut half = sphere.clone();
    half.bodies[0].value.body.mass = MASS / 2.0;
    let reference = drop(&half);
    assert!(
        (run.rebound - reference.rebound).abs() < 1e-9 * v0,
        "capsule {} m/s, sphere of half its mass {} m/s",
        run.rebound,
        reference.rebound
    );
    assert!((run.first.0 - reference.first.0).abs() < 1e-12);
    assert!(
        run.rebound > 0.68 * v0 && run.rebound < 0.7 * v0,
        "{} m/s",
        run.rebound
    );
}

#[test]
fn a_capsule_on_a_tree_steps_in_the_kernel_alone_as_ferrodyn_run_steps_it_to_the_bit() {
    // Its two end spheres are the kernel's sphere pairs, the firmware's contact: thrown tilted
    // onto the plane, so the ends touch one after the other, with friction.
    let mut scene = capsule(0.12, "{ roll = 0.3, pitch = 1.2 }");
    scene.bodies[0].value.body.velocity = Vec3::new(0.8, 0.0, -0.5);
    let touching = kernel_against_run(&scene, 0.5);
    assert!(touching > 100, "{touching} steps in contact");
    // Exported: two sphere pairs of the capsule's radius at its ends, 2h apart about the link's
    // origin (the link frame may be turned from the body's).
    let code = rust_module(&scene, Precision::F64).unwrap();
    assert!(code.contains("pub const CONTACT_PAIRS: usize = 2;"), "{code}");
    let ends: Vec<Vec3<f64>> = code
        .lines()
        .filter_map(|l| l.trim().strip_prefix("c.add_sphere(model, 0, v("))
        .map(|rest| {
            let (centre, radius) = rest.split_once("), s(").unwrap();
            assert!(radius.starts_with("0.05)"), "{rest}");
            let c: Vec<f64> = centre.split(", ").map(|x| x.parse().unwrap()).collect();
            Vec3::new(c[0], c[1], c[2])
        })
        .collect();
    assert_eq!(ends.len(), 2, "{code}");
    assert!(
        ((ends[1] - ends[0]).norm() - 2.0 * HALF_HEIGHT).abs() < 1e-12,
        "{ends:?}"
    );
    assert!((ends[0] + ends[1]).norm() < 1e-12, "{ends:?}");
}

#[test]
fn the_capsule_end_spheres_meet_a_tilted_capsule_where_parry3d_does() {
    // A capsule tilted about y by 0.3 rad from upright, its lower end 1 mm into the plane: the
    // kernel pairs (one end touching) against parry3d's capsule–half-space contact.
    use parry3d_f64::math::{Pose, Rotation, Vector};
    use parry3d_f64::shape::{Capsule, HalfSpace};
    let tilt = 0.3_f64;
    let z = RADIUS + HALF_HEIGHT * tilt.cos() - 1e-3;
    let scene = capsule(z, &format!("{{ pitch = {tilt} }}"));
    let sim = compile(&scene).unwrap();
    let contacts = active(&sim);
    assert_eq!(contacts.len(), 1);
    let body = Pose::from_parts(Vector::new(0.0, 0.0, z), Rotation::from_rotation_y(tilt));
    let parry = parry3d_f64::query::contact(
        &Pose::IDENTITY,
        &HalfSpace::new(Vector::Z),
        &body,
        &Capsule::new_z(HALF_HEIGHT, RADIUS),
        0.0,
    )
    .unwrap()
    .unwrap();
    assert!((contacts[0].penetration - 1e-3).abs() < 1e-12);
    assert!((contacts[0].penetration + parry.dist).abs() < 1e-12, "{parry:?}");
    let point = (parry.point1 + parry.point2) * 0.5;
    let ours = Vector::from_array(contacts[0].point);
    assert!((ours - point).length() < 1e-12, "{ours:?} against {point:?}");
}

#[test]
fn an_mjcf_capsule_geom_imports_as_a_capsule_shape() {
    let dir = scratch_dir("capsule", "mjcf");
    let model = dir.join("capsules.xml");
    std::fs::write(
        &model,
        r#"<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="arm" pos="0 0 1">
      <freejoint/>
      <geom name="rod" type="capsule" fromto="0 0 0 0.3 0 0.4" size="0.02"/>
      <geom name="pin" type="capsule" size="0.01 0.05" pos="0 0.1 0"/>
      <body name="hand" pos="0.3 0 0.4">
        <joint name="wrist" type="hinge" axis="0 1 0"/>
        <geom name="palm" type="capsule" size="0.02 0.05" contype="1" conaffinity="0"/>
      </body>
      <body name="tail" pos="-0.2 0 0">
        <joint name="swing" type="hinge" axis="0 1 0"/>
        <geom name="tip" type="sphere" size="0.02" contype="1" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"#,
    )
    .unwrap();
    let collision = ImportOptions {
        collision: true,
        ..ImportOptions::default()
    };
    let imported = import(&model, &collision).unwrap_or_else(|e| panic!("{e}"));
    let contact = imported.scene.contact.unwrap();
    // Kept apart as MuJoCo keeps them: a parent and its child (arm–hand, arm–tail), and two
    // bodies whose geoms' contype and conaffinity share no bit (hand–tail: 1/0 and 1/0); the
    // ground's floor (1/1) meets them all.
    let body = |b: Option<usize>| b.map_or("ground", |i| imported.scene.bodies[i].name.as_str());
    let mut apart: Vec<[&str; 2]> = (contact.pairs.iter())
        .filter(|p| !p.2.collide)
        .map(|p| {
            let mut pair = [body(p.0), body(p.1)];
            pair.sort();
            pair
        })
        .collect();
    apart.sort();
    assert_eq!(apart, [["arm", "hand"], ["arm", "tail"], ["hand", "tail"]]);
    let shapes = contact.shapes;
    let find = |name: &str| shapes.iter().find(|s| s.name == name).unwrap();
    let rod = find("rod");
    // fromto: radius size[0], half length |b − a|/2 = 0.25, centred at (a + b)/2, z along b − a.
    assert_eq!(
        rod.geometry,
        Geometry::Capsule {
            radius: 0.02,
            half_height: 0.25
        }
    );
    assert!(
        (rod.position - Vec3::new(0.15, 0.0, 0.2)).norm() < 1e-12,
        "{:?}",
        rod.position
    );
    let axis = rod.orientation.rotate(Vec3::Z);
    assert!((axis - Vec3::new(0.6, 0.0, 0.8)).norm() < 1e-12, "{axis:?}");
    let pin = find("pin");
    assert_eq!(
        pin.geometry,
        Geometry::Capsule {
            radius: 0.01,
            half_height: 0.05
        }
    );
    assert!((pin.position - Vec3::new(0.0, 0.1, 0.0)).norm() < 1e-12);
    assert!(pin.orientation.rotate(Vec3::Z).z > 1.0 - 1e-12);
    assert_eq!((rod.body, pin.body), (Some(0), Some(0)));
    assert_eq!(find("floor").geometry, Geometry::Plane);
    // An ellipsoid is still no contact shape: refused by name and line with collision on.
    let egg = dir.join("egg.xml");
    std::fs::write(
        &egg,
        "<mujoco>\n<worldbody>\n<body name=\"b\">\n<freejoint/>\n<geom name=\"egg\" type=\"ellipsoid\" size=\"0.1 0.2 0.3\"/>\n</body>\n</worldbody>\n</mujoco>\n",
    )
    .unwrap();
    let e = import(&egg, &collision).err().unwrap().to_string();
    assert!(
        e.contains("egg.xml:5") && e.contains("ellipsoid") && e.contains("contact shape"),
        "{e}"
    );
    assert!(import(&egg, &ImportOptions::default()).is_ok());
    // A model that disables contact has no contact shapes.
    let quiet = dir.join("quiet.xml");
    let text = std::fs::read_to_string(&model).unwrap();
    let text = text.replace(
        "<worldbody>",
        "<option><flag contact=\"disable\"/></option>\n  <worldbody>",
    );
    std::fs::write(&quiet, text).unwrap();
    assert!(import(&quiet, &collision).unwrap().scene.contact.is_none());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_capsules_are_named_errors_at_their_line() {
    let error = |shape: &str| {
        let text = on_a_plane(
            "\n[[body]]\nid = 1\nname = \"b\"\nmass = 1.0\ninertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\n",
            shape,
        );
        Scene::parse(Path::new("bad.toml"), &text)
            .unwrap_err()
            .to_string()
    };
    let e = error("type = \"capsule\"\nradius = 0.05\nhalf_height = -0.1");
    assert!(
        e.contains("bad.toml:") && e.contains("solid") && e.contains("half_height"),
        "{e}"
    );
    let e = error("type = \"capsule\"\nradius = 0.0\nhalf_height = 0.1");
    assert!(e.contains("solid") && e.contains("radius"), "{e}");
    let e = error("type = \"capsule\"\nradius = 0.05");
    assert!(e.contains("solid") && e.contains("half_height"), "{e}");
    let e = error("type = \"capsule\"\nradius = 0.05\nhalf_height = 0.1\nhalf_extents = [0.1, 0.1, 0.1]");
    assert!(
        e.contains("half_extents") && e.contains("not a key of a capsule"),
        "{e}"
    );
    let e = error("type = \"pill\"\nradius = 0.05");
    assert!(e.contains("capsule"), "the list of types names capsule: {e}");
    // Shapes built in code are checked as well, naming the shape.
    let pill = ferrodyn_host::spec::Shape::new(
        "pill",
        Some(0),
        Geometry::Capsule {
            radius: 0.05,
            half_height: f64::NAN,
        },
    );
    let e = pill.validate(1).unwrap_err().to_string();
    assert!(e.contains("pill") && e.contains("half height"), "{e}");
    // A capsule against another body's box is host-only contact: the export refuses it by name.
    let mut scene = capsule(0.5, LYING);
    let boxed = Geometry::Box {
        half_extents: [0.1; 3],
    };
    let lid =
        ferrodyn_host::spec::Shape::new("lid", None, boxed).at(Vec3::new(0.0, 0.0, 2.0), Quat::IDENTITY);
    scene.contact.as_mut().unwrap().shapes.push(lid);
    let e = rust_module(&scene, Precision::F64).err().unwrap().to_string();
    assert!(
        e.contains("capsule 'solid' (on a link) and box 'lid' (on the ground)"),
        "{e}"
    );
}

#[test]
fn a_pair_kept_apart_never_touches() {
    // Two capsules end to end on two bodies, overlapping: they touch unless their pair material
    // keeps them apart (`collide = false`, what the MJCF import writes for a parent and child).
    let text = |extra: &str| {
        format!(
            "[simulation]\nend_time = 0.01\nstep = 1e-4\n\n[[body]]\nid = 1\nname = \"upper\"\nmass = 1.0\ninertia = {{ Ixx = 1e-3, Iyy = 1e-3, Izz = 1e-3 }}\n\n\
             [[body]]\nid = 2\nname = \"lower\"\nmass = 1.0\ninertia = {{ Ixx = 1e-3, Iyy = 1e-3, Izz = 1e-3 }}\npos = [0.0, 0.0, -0.25]\n\n\
             [[shape]]\nname = \"a\"\nbody = \"upper\"\ntype = \"capsule\"\nradius = 0.05\nhalf_height = 0.1\n\n\
             [[shape]]\nname = \"b\"\nbody = \"lower\"\ntype = \"capsule\"\nradius = 0.05\nhalf_height = 0.1\n{extra}"
        )
    };
    let touching = |extra: &str| active(&compile(&parse(&text(extra))).unwrap()).len();
    // End spheres 0.05 apart along z, radii 0.05 each: 0.05 deep.
    assert_eq!(touching(""), 1);
    let apart = "\n[[contact_material]]\nbodies = [\"upper\", \"lower\"]\ncollide = false\n";
    assert_eq!(touching(apart), 0);
    // Every pair at once, or a flexible body's, is not a pair to keep apart: a named error.
    let e = Scene::parse(
        Path::new("bad.toml"),
        &text("\n[[contact_material]]\ncollide = false\n"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("bad.toml:") && e.contains("collide") && e.contains("pair of rigid bodies"),
        "{e}"
    );
}
