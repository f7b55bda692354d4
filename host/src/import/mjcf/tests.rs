//! The MJCF mapping: defaults, includes, the compiler's angle unit and Euler sequence, inertia
//! from geoms against the closed forms, ports and sensors, and the named refusals.

use super::super::{import, ImportErrorKind, ImportOptions};
use crate::compile::compile;
use ferrodyn_kernel::math::{Quat, Vec3};
use std::path::PathBuf;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrodyn-mjcf-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An acrobot in the manner of dm_control's: defaults (a class with damping, capsule geoms of
/// mass 1), an included file of defaults, degrees, a body turned by an Euler angle.
pub(in crate::import) const ACROBOT: &str = r#"<mujoco model="acrobot">
  <include file="common.xml"/>
  <compiler angle="degree"/>
  <option gravity="0 0 -9.81"/>
  <default>
    <joint damping=".05"/>
    <geom type="capsule" mass="1"/>
    <default class="stiff"><joint damping="0.5"/></default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .2"/>
    <body name="upper_arm" pos="0 0 2" euler="0 90 0">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-90 90"/>
      <geom name="upper_arm" fromto="0 0 0 0 0 1" size="0.05"/>
      <body name="lower_arm" pos="0 0 1">
        <joint name="elbow" class="stiff" axis="0 1 0"/>
        <geom name="lower_arm" fromto="0 0 0 0 0 1" size="0.049" mass="0.5"/>
        <site name="tip" pos="0 0 1"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="elbow" joint="elbow" gear="2"/>
  </actuator>
  <sensor>
    <jointpos name="elbow_angle" joint="elbow"/>
    <framepos name="tip_pos" objtype="site" objname="tip"/>
    <touch name="touch" site="tip"/>
  </sensor>
</mujoco>
"#;

pub(in crate::import) const COMMON: &str = r#"<mujoco><visual><global offwidth="800"/></visual><asset><texture name="t" builtin="checker"/></asset></mujoco>"#;

fn acrobot(text: &str, name: &str) -> PathBuf {
    let dir = folder(name);
    std::fs::write(dir.join("common.xml"), COMMON).unwrap();
    let path = dir.join("acrobot.xml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn bodies_joints_inertia_ports_and_sensors_follow_mujoco() {
    let imported = import(&acrobot(ACROBOT, "ok"), &ImportOptions::default()).unwrap();
    let s = &imported.scene;
    assert_eq!(s.bodies.len(), 2);
    // euler="0 90 0" in degrees: a quarter turn about y, so the arm points along +x.
    let upper = &s.bodies[0].value.body;
    let q = Quat::from_axis_angle(Vec3::Y, std::f64::consts::FRAC_PI_2);
    assert!((upper.orientation.rotate(Vec3::Z) - q.rotate(Vec3::Z)).norm() < 1e-15);
    let lower = &s.bodies[1].value.body;
    assert!(
        (lower.position - Vec3::new(1.0, 0.0, 2.0)).norm() < 1e-15,
        "{:?}",
        lower.position
    );
    // Capsule of mass 1 from fromto: CG at its middle, MuJoCo's capsule inertia.
    let (r, h, m) = (0.05_f64, 0.5_f64, 1.0);
    let rho = m / (std::f64::consts::PI * r * r * 2.0 * h + 4.0 / 3.0 * std::f64::consts::PI * r.powi(3));
    let (mc, ms) = (
        rho * std::f64::consts::PI * r * r * 2.0 * h,
        rho * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3),
    );
    let across = mc * (3.0 * r * r + 4.0 * h * h) / 12.0 + ms * (0.4 * r * r + h * h + 0.75 * r * h);
    assert!((upper.mass - 1.0).abs() < 1e-15);
    assert_eq!(upper.cg, Vec3::new(0.0, 0.0, 0.5));
    assert!(
        (upper.inertia.m[0][0] - across).abs() < 1e-15,
        "{} vs {across}",
        upper.inertia.m[0][0]
    );
    assert!((upper.inertia.m[2][2] - (mc * r * r / 2.0 + ms * 0.4 * r * r)).abs() < 1e-15);
    // Damping from the main class and from class "stiff".
    let (mut damping, mut limits) = (Vec::new(), Vec::new());
    for f in &s.forces {
        match f.value {
            ferrodyn_kernel::rigid::Force::RotationalSpringDamper { damping: c, .. } => damping.push(c),
            ferrodyn_kernel::rigid::Force::JointLimit { joint, limit } => limits.push((joint, limit)),
            _ => panic!("{f:?}"),
        }
    }
    assert_eq!(damping, [0.05, 0.5]);
    // range="-90 90" in degrees on the shoulder (joint 0); end stops as MuJoCo's default soft
    // limit (solreflimit 0.02 1, solimplimit dmax 0.95) on the joint's effective inertia I:
    // k = I/(0.95·0.02²), c = 2I/0.02, so k/c = 1/(2·0.95·0.02) whatever I is.
    let quarter = std::f64::consts::FRAC_PI_2;
    let [(0, limit)] = limits[..] else {
        panic!("{limits:?}")
    };
    assert_eq!((limit.lower, limit.upper), (-quarter, quarter));
    let ratio = limit.stiffness / limit.damping;
    assert!(
        (ratio - 1.0 / (2.0 * 0.95 * 0.02)).abs() < 1e-12 * ratio,
        "{ratio}"
    );
    assert!(limit.damping > 0.0, "{limit:?}");
    assert_eq!(s.inputs.len(), 1);
    assert_eq!(s.inputs[0].value.scale, 2.0);
    assert_eq!(s.sensors.len(), 2);
    let notes = imported.report.lines().join("\n");
    assert!(notes.contains("<sensor/touch> ×1"), "{notes}");
    assert!(compile(s)
        .unwrap()
        .labels
        .description
        .contains("joint coordinates"));
}

#[test]
fn tendons_equality_and_multi_joint_bodies_are_refused_with_their_line() {
    let tendon = ACROBOT.replace(
        "  <actuator>",
        "  <tendon>\n    <spatial name=\"t\"><site site=\"tip\"/></spatial>\n  </tendon>\n  <actuator>",
    );
    let e = import(&acrobot(&tendon, "tendon"), &ImportOptions::default())
        .err()
        .unwrap();
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(23)));
    assert!(
        e.to_string().contains("<spatial name=\"t\">: a <spatial> tendon"),
        "{e}"
    );

    let flex = ACROBOT.replace(
        "  <actuator>",
        "  <equality><flex flex=\"skin\"/></equality>\n  <actuator>",
    );
    let e = import(&acrobot(&flex, "flex"), &ImportOptions::default())
        .err()
        .unwrap();
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(22)));

    let free = ACROBOT.replace(
        "<joint name=\"shoulder\" type=\"hinge\" axis=\"0 1 0\" range=\"-90 90\"/>",
        "<joint name=\"shoulder\" type=\"hinge\" axis=\"0 1 0\" range=\"-90 90\"/>\n      <freejoint name=\"loose\"/>",
    );
    let e = import(&acrobot(&free, "free"), &ImportOptions::default())
        .err()
        .unwrap();
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(14)));
    assert!(
        e.reason
            .contains("body \"upper_arm\" has a free joint among 2 joints"),
        "{e}"
    );
}

#[test]
fn several_joints_in_one_body_are_a_chain_through_massless_bodies() {
    // dm_control's planar roots: slide x, slide z, hinge y in one body (the hinge off the body
    // origin, the mass off both). MuJoCo composes them in order: massless bodies torso.rootx and
    // torso.rootz at the body's pose, the hinge on the torso. Free fall from rest (closed form):
    // the body falls at g unturned, so after one RK4 step of h, x = 0, z = −g h²/2, θ = 0.
    let text = r#"<mujoco><worldbody><body name="torso" pos="0 0 1">
        <joint name="rootx" type="slide" axis="1 0 0"/><joint name="rootz" type="slide" axis="0 0 1"/>
        <joint name="rooty" type="hinge" axis="0 1 0" pos="0 0 0.2"/>
        <geom type="sphere" size="0.1" mass="2" pos="0.3 0 0"/>
        </body></worldbody></mujoco>"#;
    let path = folder("planar").join("planar.xml");
    std::fs::write(&path, text).unwrap();
    let mut scene = import(&path, &ImportOptions::default()).unwrap().scene;
    let bodies: Vec<_> = scene
        .bodies
        .iter()
        .map(|b| (b.name.as_str(), b.value.body.mass))
        .collect();
    assert_eq!(
        bodies,
        [("torso.rootx", 0.0), ("torso.rootz", 0.0), ("torso", 2.0)]
    );
    let body_name = |r: ferrodyn_kernel::rigid::BodyRef| match r {
        ferrodyn_kernel::rigid::BodyRef::Body(b) => scene.bodies[b].name.as_str(),
        ferrodyn_kernel::rigid::BodyRef::Ground => "ground",
    };
    let joints: Vec<_> = scene
        .joints
        .iter()
        .map(|j| {
            (
                j.name.as_str(),
                body_name(j.value.body_i),
                body_name(j.value.body_j),
            )
        })
        .collect();
    assert_eq!(
        joints,
        [
            ("rootx", "ground", "torso.rootx"),
            ("rootz", "torso.rootx", "torso.rootz"),
            ("rooty", "torso.rootz", "torso")
        ]
    );
    // `ferrodyn check` reports its kinematics (DOF, assembly) on the mirror, massless bodies
    // and all.
    crate::commands::check(&path, false, false, None).unwrap();
    let h = 1e-3;
    scene.simulation.step = h;
    let mut sim = compile(&scene).unwrap();
    assert!(
        sim.labels.description.contains("(3 DOF)"),
        "{}",
        sim.labels.description
    );
    sim.step().unwrap();
    let fall = -9.81 * h * h / 2.0;
    let q = &sim.state()[..3];
    assert!(
        q[0].abs() < 1e-15 && (q[1] / fall - 1.0).abs() < 1e-12 && q[2].abs() < 1e-15,
        "{q:?}"
    );
    // The Cartesian model has no massless bodies: asked for, it is refused naming the body.
    scene.simulation.formulation = crate::spec::Formulation::Cartesian;
    let e = compile(&scene).err().unwrap().to_string();
    assert!(
        e.contains("torso.rootx") && e.contains("massless body runs in joint coordinates only"),
        "{e}"
    );
}

#[test]
fn pendulum_starts_with_the_closed_form_acceleration() {
    // A sphere of mass m on a massless rod... as MuJoCo writes it: a body at the pivot with a
    // hinge and a sphere geom at distance L, turned 30° about y by axisangle (degrees).
    // θ̈(0) = −m g L sin 30° / (2/5 m r² + m L²).
    let (m, l, r) = (1.5_f64, 0.8_f64, 0.1_f64);
    let text = format!(
        r#"<mujoco><worldbody><body name="p" pos="0 0 1" axisangle="0 1 0 30">
        <joint name="pin" axis="0 1 0"/><geom type="sphere" size="{r}" pos="0 0 -{l}" mass="{m}"/>
        </body></worldbody></mujoco>"#
    );
    let path = folder("pendulum").join("pendulum.xml");
    std::fs::write(&path, text).unwrap();
    let mut scene = import(&path, &ImportOptions::default()).unwrap().scene;
    let h = 1e-4;
    scene.simulation.step = h;
    let mut sim = compile(&scene).unwrap();
    sim.step().unwrap();
    let alpha = -m * 9.81 * l * 0.5 / (0.4 * m * r * r + m * l * l);
    assert!(
        (sim.state()[0] / (alpha * h * h / 2.0) - 1.0).abs() < 1e-6,
        "{}",
        sim.state()[0]
    );
}

#[test]
fn actuators_keep_their_ports_when_a_body_is_welded_on() {
    // A body without joints, with mass, under the lower arm: a scene `fixed` joint, which the
    // compiler welds into the lower arm's link, so the scene still runs in joint coordinates
    // and the elbow's motor stays a port.
    let welded = ACROBOT.replace(
        "        <site name=\"tip\" pos=\"0 0 1\"/>",
        "        <site name=\"tip\" pos=\"0 0 1\"/>\n        <body name=\"hand\" pos=\"0 0 1\"><geom type=\"sphere\" size=\"0.1\" mass=\"0.2\"/></body>",
    );
    let imported = import(&acrobot(&welded, "welded"), &ImportOptions::default()).unwrap();
    let s = &imported.scene;
    assert!(s.joints.iter().any(|j| j.name == "hand_weld"));
    assert_eq!(s.inputs.len(), 1, "{}", imported.report.lines().join("\n"));
    let sim = compile(s).unwrap();
    assert!(
        sim.labels.description.contains("joint coordinates"),
        "{}",
        sim.labels.description
    );
}

#[test]
fn a_gravity_flag_disabled_switches_gravity_off() {
    // dm_control's finger: `<option><flag gravity="disable"/></option>` (MuJoCo's qfrc_bias then
    // has no gravity term).
    let text = r#"<mujoco><option gravity="0 0 -5"><flag gravity="disable"/></option><worldbody>
        <body name="p"><joint name="pin" axis="0 1 0"/><geom size="0.1" pos="0 0 -1"/></body>
        </worldbody></mujoco>"#;
    let path = folder("no_gravity").join("p.xml");
    std::fs::write(&path, text).unwrap();
    let scene = import(&path, &ImportOptions::default()).unwrap().scene;
    assert_eq!(scene.simulation.gravity, Vec3::ZERO);
}

#[test]
fn a_contact_flag_disabled_leaves_out_every_contact_shape() {
    // dm_control's models that disable contact: `<flag contact="disable"/>` (MuJoCo's
    // mjDSBL_CONTACT) is read as a fact, not reported as ignored; without it the same model's
    // floor and ball are contact shapes.
    let model = |flag: &str| {
        format!(
            r#"<mujoco><option>{flag}</option><worldbody><geom type="plane" size="1 1 0.1"/>
            <body name="ball" pos="0 0 1"><freejoint/><geom size="0.1"/></body>
            </worldbody></mujoco>"#
        )
    };
    let options = ImportOptions {
        collision: true,
        ..ImportOptions::default()
    };
    let read = |name: &str, flag: &str| {
        let path = folder(name).join("m.xml");
        std::fs::write(&path, model(flag)).unwrap();
        import(&path, &options).unwrap()
    };
    let disabled = read("no_contact", r#"<flag contact="disable"/>"#);
    let report = disabled.report.lines().join("\n");
    assert!(disabled.scene.contact.is_none(), "{report}");
    assert!(
        report.contains("no contact shapes: the model disables contact"),
        "{report}"
    );
    assert!(
        !report.contains("<flag>"),
        "the flag is read, not ignored: {report}"
    );
    let enabled = read("with_contact", "");
    assert!(
        enabled.scene.contact.is_some(),
        "{}",
        enabled.report.lines().join("\n")
    );
}

#[test]
fn a_joint_equality_of_degree_one_is_a_coupling_that_holds() {
    // elbow = 0.1 − 0.5·shoulder (MuJoCo's q1 = c0 + c1·q2), read back from the mirror's
    // joint coordinates after every step of the tree.
    let coupled = ACROBOT.replace(
        "  <actuator>",
        "  <equality><joint joint1=\"elbow\" joint2=\"shoulder\" polycoef=\"0.1 -0.5 0 0 0\"/></equality>\n  <actuator>",
    );
    let imported = import(&acrobot(&coupled, "coupled"), &ImportOptions::default()).unwrap();
    let [c] = &imported.scene.couplings[..] else {
        panic!("{:?}", imported.scene.couplings)
    };
    assert_eq!((c.value.multiplier, c.value.offset), (-0.5, 0.1));
    let mut sim = compile(&imported.scene).unwrap();
    let angle = |sim: &crate::simulation::Simulation, name: &str| {
        let (model, data) = sim.rigid().unwrap();
        let k = sim.labels.names.joints.iter().position(|j| j == name).unwrap();
        ferrodyn_kernel::rigid::joint_coordinate(model, data, k)
            .unwrap()
            .0
    };
    let mut worst = 0.0f64;
    for _ in 0..300 {
        sim.step().unwrap();
        worst = worst.max((angle(&sim, "elbow") - (0.1 - 0.5 * angle(&sim, "shoulder"))).abs());
    }
    assert!(worst <= 1e-10, "elbow − (0.1 − 0.5 shoulder) = {worst:e}");
    let cubic = coupled.replace("0.1 -0.5 0 0 0", "0 1 0.2 0 0");
    let e = import(&acrobot(&cubic, "cubic"), &ImportOptions::default())
        .err()
        .unwrap();
    assert_eq!(e.kind, ImportErrorKind::Refused);
}

#[test]
fn settotalmass_scales_every_body_with_the_static_ones_counted() {
    // MuJoCo's settotalmass: one factor on every body's mass and inertia so that the total,
    // bodies welded to the world included, is the value: here (1 + 3 + 2) → 12, a factor 2.
    let text = r#"<mujoco><compiler settotalmass="12"/><worldbody>
        <body name="base"><geom type="sphere" size="0.1" mass="2"/></body>
        <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0"/>
          <geom type="sphere" size="0.1" mass="1" pos="0.2 0 0"/>
          <body name="b" pos="0.4 0 0"><joint name="jb" axis="0 1 0"/><geom type="sphere" size="0.2" mass="3"/></body>
        </body></worldbody></mujoco>"#;
    let path = folder("totalmass").join("totalmass.xml");
    std::fs::write(&path, text).unwrap();
    let scene = import(&path, &ImportOptions::default()).unwrap().scene;
    let masses: Vec<_> = scene
        .bodies
        .iter()
        .map(|b| (b.name.as_str(), b.value.body.mass))
        .collect();
    assert_eq!(masses, [("a", 2.0), ("b", 6.0)]);
    // Solid sphere 2/5 m r², m = 6: 0.096.
    let ixx = scene.bodies[1].value.body.inertia.m[0][0];
    assert!((ixx / (0.4 * 6.0 * 0.04) - 1.0).abs() < 1e-14, "{ixx}");
}

/// The bar [0, 2] × [0, 1] × [0, 1] as a binary STL (faces outward) and as MuJoCo's `.msh`.
fn bar_files(dir: &std::path::Path) {
    let v: Vec<[f32; 3]> = (0..8)
        .map(|k| [(k & 1) as f32 * 2.0, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32])
        .collect();
    let f: [[u32; 3]; 12] = [
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ];
    let mut stl = vec![0u8; 80];
    stl.extend((f.len() as u32).to_le_bytes());
    for t in &f {
        stl.extend([0u8; 12]);
        t.iter()
            .for_each(|&i| v[i as usize].iter().for_each(|x| stl.extend(x.to_le_bytes())));
        stl.extend([0u8; 2]);
    }
    let mut msh = Vec::new();
    [8i32, 0, 0, 12].iter().for_each(|n| msh.extend(n.to_le_bytes()));
    v.iter().flatten().for_each(|x| msh.extend(x.to_le_bytes()));
    f.iter()
        .flatten()
        .for_each(|&i| msh.extend((i as i32).to_le_bytes()));
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    std::fs::write(dir.join("meshes/bar.stl"), stl).unwrap();
    std::fs::write(dir.join("meshes/bar.msh"), msh).unwrap();
}

#[test]
fn a_mesh_geom_has_the_mass_of_the_box_it_bounds() {
    // The bar moved by refpos to its centre, turned back by refquat (90° about z: its long
    // side onto y) and scaled: the box of half sizes 0.05, 0.2, 0.15. MuJoCo 4.0.1 compiles
    // both bodies below to the same mass (14 kg), centre and inertia (checked with its Python
    // bindings); so must the import, from STL and from .msh alike.
    let dir = folder("meshbar");
    bar_files(&dir);
    let model = |file: &str, geom: &str| {
        format!(
            r#"<mujoco><compiler meshdir="meshes"/><asset><mesh name="bar" file="{file}" scale="0.1 0.2 0.3" refpos="1 0.5 0.5" refquat="0.7071067811865476 0 0 0.7071067811865476"/></asset>
<worldbody><body name="b" pos="0 0 1"><freejoint/><geom {geom} pos="0.1 0.2 0.3" euler="10 20 30"/><geom {geom} mass="2" pos="-0.1 0 0"/></body></worldbody></mujoco>"#
        )
    };
    let body = |text: String, name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        import(&path, &ImportOptions::default()).unwrap().scene.bodies[0]
            .value
            .body
    };
    let boxed = body(model("bar.stl", r#"type="box" size="0.05 0.2 0.15""#), "box.xml");
    assert!((boxed.mass - 14.0).abs() < 1e-13, "{}", boxed.mass);
    for file in ["bar.stl", "bar.msh"] {
        let meshed = body(model(file, r#"type="mesh" mesh="bar""#), &format!("{file}.xml"));
        assert!(
            (meshed.mass - boxed.mass).abs() < 1e-13,
            "{file}: {}",
            meshed.mass
        );
        assert!((meshed.cg - boxed.cg).norm() < 1e-15, "{file}: {:?}", meshed.cg);
        let d = meshed.inertia - boxed.inertia;
        let worst = d.m.iter().flatten().fold(0.0f64, |w, x| w.max(x.abs()));
        assert!(worst < 1e-14 * boxed.inertia.m[0][0], "{file}: {worst:e}");
    }
}

#[test]
fn mesh_errors_name_the_mesh_or_the_geom() {
    let dir = folder("meshbad");
    bar_files(&dir);
    let run = |asset: &str, geom: &str| {
        let text = format!(
            "<mujoco><compiler meshdir=\"meshes\"/><asset>{asset}</asset>\n<worldbody><body name=\"b\"><freejoint/>\n<geom {geom}/></body></worldbody></mujoco>"
        );
        let path = dir.join("bad.xml");
        std::fs::write(&path, text).unwrap();
        import(&path, &ImportOptions::default()).err().unwrap()
    };
    let e = run(r#"<mesh name="m" file="gone.stl"/>"#, r#"type="mesh" mesh="m""#);
    assert_eq!((e.kind, e.line), (ImportErrorKind::Unreadable, Some(1)));
    assert!(e.reason.contains("gone.stl"), "{e}");
    let e = run(
        r#"<mesh name="m" file="bar.stl"/>"#,
        r#"type="mesh" mesh="other""#,
    );
    assert_eq!((e.kind, e.line), (ImportErrorKind::Invalid, Some(3)));
    assert!(e.reason.contains("mesh \"other\" is not an <asset> mesh"), "{e}");
    let e = run(
        r#"<mesh name="m" file="bar.stl" inertia="exact" scale="1 1 0"/>"#,
        r#"type="mesh" mesh="m""#,
    );
    assert_eq!((e.kind, e.line), (ImportErrorKind::Invalid, Some(1)));
    assert!(e.reason.contains("volume is too small"), "{e}");
    let e = run(r#"<mesh name="m" file="bar.stl"/>"#, r#"type="box" mesh="m""#);
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(3)));
    assert!(e.reason.contains("a box fitted to a mesh"), "{e}");
}

#[test]
fn fixed_tendons_their_equalities_and_motors_follow_mujoco() {
    // L = 0.5·shoulder − 2·elbow, stiffness from the <tendon> default, the elbow's ref at 30°:
    // the scene measures joints from the assembled pose, so its lengths are MuJoCo's minus
    // Σ c·ref = −2·(π/6). The equality holds L − L(qpos0) = 0.4: elbow = 0.25·shoulder − 0.2. A
    // motor on a tendon of one joint (3·shoulder, gear 2) is the shoulder's motor of scale 6.
    let text = ACROBOT
        .replace(
            "<geom type=\"capsule\" mass=\"1\"/>",
            "<geom type=\"capsule\" mass=\"1\"/><tendon stiffness=\"3\"/>",
        )
        .replace("axis=\"0 1 0\"/>", "axis=\"0 1 0\" ref=\"30\"/>")
        .replace(
            "  <actuator>",
            r#"  <tendon>
    <fixed name="t" springlength="0.2" range="-1 1" damping="0.5"><joint joint="shoulder" coef="0.5"/><joint joint="elbow" coef="-2"/></fixed>
    <fixed name="one"><joint joint="shoulder" coef="3"/></fixed>
  </tendon>
  <equality><tendon tendon1="t" polycoef="0.4"/></equality>
  <actuator>
    <motor name="pull" tendon="one" gear="2"/>"#,
        );
    let imported = import(&acrobot(&text, "tendons"), &ImportOptions::default()).unwrap();
    let s = &imported.scene;
    let [t, one] = &s.tendons[..] else {
        panic!("{:?}", s.tendons)
    };
    let shift = 2.0 * std::f64::consts::FRAC_PI_6;
    let joint = |name: &str| s.joints.iter().position(|j| j.name == name).unwrap();
    assert_eq!(t.value.terms, [(joint("shoulder"), 0.5), (joint("elbow"), -2.0)]);
    assert_eq!((t.value.stiffness, t.value.damping), (3.0, 0.5));
    let near = |x: f64, y: f64| (x - y).abs() < 1e-15;
    assert!(near(t.value.rest.0, 0.2 + shift) && t.value.rest.0 == t.value.rest.1);
    let limit = t.value.limit.unwrap();
    assert!(near(limit.lower, -1.0 + shift) && near(limit.upper, 1.0 + shift));
    assert_eq!(one.value.rest, (0.0, 0.0));
    let [c] = &s.couplings[..] else {
        panic!("{:?}", s.couplings)
    };
    assert_eq!(
        (c.value.joint, c.value.follows),
        (joint("elbow"), joint("shoulder"))
    );
    assert_eq!((c.value.multiplier, c.value.offset), (0.25, -0.2));
    let pull = s.inputs.iter().find(|i| i.name == "pull").unwrap();
    assert_eq!((pull.value.joint, pull.value.scale), (joint("shoulder"), 6.0));
    compile(s).unwrap();
    // Spatial tendons and equalities a coupling row does not hold (one joint to a constant):
    // refused.
    let refused = |from: &str, to: &str, name: &str| {
        let e = import(&acrobot(&text.replace(from, to), name), &ImportOptions::default())
            .err()
            .unwrap();
        assert_eq!(e.kind, ImportErrorKind::Refused, "{e}");
        e.to_string()
    };
    let spatial = refused(
        "<fixed name=\"one\">",
        "<spatial name=\"s\"><site site=\"tip\"/></spatial><fixed name=\"one\">",
        "spatial",
    );
    assert!(spatial.contains("<spatial"), "{spatial}");
    let single = refused("tendon1=\"t\"", "tendon1=\"one\"", "single");
    assert!(single.contains("of 1 joints"), "{single}");
}

#[test]
fn armature_and_hinge_springs_follow_mujoco() {
    // The stiff class gives the elbow armature 0.3 (kg·m²) and a spring of 2 N·m/rad towards
    // springref 20°; its ref is 30°, so the scene's rest angle (0 where the model is written,
    // at qpos0 = ref) is −10°. The shoulder has neither.
    use ferrodyn_kernel::rigid::Force;
    let text = ACROBOT
        .replace(
            "<joint damping=\"0.5\"/>",
            "<joint damping=\"0.5\" armature=\"0.3\" stiffness=\"2\" springref=\"20\"/>",
        )
        .replace(
            "class=\"stiff\" axis=\"0 1 0\"/>",
            "class=\"stiff\" axis=\"0 1 0\" ref=\"30\"/>",
        );
    let imported = import(&acrobot(&text, "armature"), &ImportOptions::default()).unwrap();
    let s = &imported.scene;
    let joint = |name: &str| s.joints.iter().position(|j| j.name == name).unwrap();
    assert_eq!(
        (s.armature[joint("shoulder")], s.armature[joint("elbow")]),
        (0.0, 0.3)
    );
    let springs: Vec<_> = (s.forces.iter())
        .filter_map(|f| match f.value {
            Force::RotationalSpringDamper {
                joint,
                stiffness,
                rest_angle,
                ..
            } if stiffness != 0.0 => Some((joint, stiffness, rest_angle)),
            _ => None,
        })
        .collect();
    let [(at, k, rest)] = springs[..] else {
        panic!("{springs:?}")
    };
    assert_eq!((at, k), (joint("elbow"), 2.0));
    assert!((rest - (-10f64).to_radians()).abs() < 1e-15, "{rest}");
    assert!(!imported.report.has_not_modelled("joint armature"));
    // The tree carries it: the elbow's link.
    let Ok(crate::compile::Choice::Tree(links)) = crate::compile::choose(s) else {
        panic!("not a tree")
    };
    let parts = crate::compile::tree_parts(s, &links).unwrap();
    let armature: Vec<f64> = parts.model.links().iter().map(|l| l.armature).collect();
    assert_eq!(armature, [0.0, 0.3]);
    // A negative armature is the scene's error, at the model's line of the elbow (16).
    let bad = text.replace("armature=\"0.3\"", "armature=\"-1\"");
    let e = import(&acrobot(&bad, "negative"), &ImportOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("armature") && e.contains("\"elbow\"") && e.contains("acrobot.xml:16:"),
        "{e}"
    );
}
