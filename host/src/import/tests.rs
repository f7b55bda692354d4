//! The URDF mapping checked against hand-computed kinematics, the pendulum's closed form, the
//! round trip through the written scene file, and the named errors.

use super::*;
use crate::compile::compile;
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::rigid::{BodyRef, Force, Frame};

/// A model file in a fresh temporary folder.
fn model_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrodyn-import-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn import_text(name: &str, text: &str) -> Result<Imported, ImportError> {
    import(&model_file(name, text), &ImportOptions::default())
}

/// Rotation matrix of URDF's rpy, written out independently of `Quat`: Rz(y) Ry(p) Rx(r).
fn rpy_matrix(r: f64, p: f64, y: f64) -> Mat3<f64> {
    let rx = Mat3::from_rows([[1.0, 0.0, 0.0], [0.0, r.cos(), -r.sin()], [0.0, r.sin(), r.cos()]]);
    let ry = Mat3::from_rows([[p.cos(), 0.0, p.sin()], [0.0, 1.0, 0.0], [-p.sin(), 0.0, p.cos()]]);
    let rz = Mat3::from_rows([[y.cos(), -y.sin(), 0.0], [y.sin(), y.cos(), 0.0], [0.0, 0.0, 1.0]]);
    rz.mul_mat(&ry).mul_mat(&rx)
}

fn close(a: &Mat3<f64>, b: &Mat3<f64>, tol: f64) -> bool {
    (0..3).all(|i| (0..3).all(|j| (a.m[i][j] - b.m[i][j]).abs() < tol))
}

/// A fixed base welded above the world, a hip on a skew axis with turned origin, a prismatic
/// slide, a massless tool frame turned a quarter about y, a continuous wrist on it.
pub(super) const SKEW_ARM: &str = r#"<?xml version="1.0"?>
<robot name="skew_arm">
  <link name="world"/>
  <joint name="base_weld" type="fixed">
    <parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/>
  </joint>
  <link name="base"><inertial><mass value="5"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <joint name="hip" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0.1 0 0.2" rpy="0.3 -0.2 0.5"/>
    <axis xyz="0 1 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
    <dynamics damping="0.5" friction="0.1"/>
  </joint>
  <link name="upper">
    <inertial><origin xyz="0 0 -0.25" rpy="0.1 0.2 0.3"/><mass value="2"/>
      <inertia ixx="0.04" iyy="0.05" izz="0.02" ixy="0.001"/></inertial>
    <visual><geometry><box size="0.1 0.1 0.5"/></geometry></visual>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="upper"/><child link="slider"/><origin xyz="0 0 -0.5"/><axis xyz="1 0 0"/>
  </joint>
  <link name="slider"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>
  <joint name="tool_frame" type="fixed">
    <parent link="slider"/><child link="tool"/><origin xyz="0 0 -0.1" rpy="0 1.5707963267948966 0"/>
  </joint>
  <link name="tool"/>
  <joint name="wrist" type="continuous">
    <parent link="tool"/><child link="hand"/><origin xyz="0.05 0 0"/><axis xyz="0 0 1"/>
  </joint>
  <link name="hand"><inertial><origin xyz="0 0 0.05"/><mass value="0.5"/>
    <inertia ixx="0.002" iyy="0.002" izz="0.001"/></inertial></link>
  <material name="grey"/>
  <gazebo reference="hand"/>
</robot>
"#;

#[test]
fn links_are_placed_by_the_joint_origins_and_frames_meet_at_t0() {
    let imported = import_text("skew_arm.urdf", SKEW_ARM).unwrap();
    let scene = &imported.scene;
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["upper", "slider", "hand"],
        "base is welded to the ground, tool is a frame"
    );
    // Hand-computed placements: x_child = p + R (origin) along the chain.
    let r_upper = rpy_matrix(0.3, -0.2, 0.5);
    let p_upper = Vec3::new(0.1, 0.0, 0.7);
    let p_slider = p_upper + r_upper.mul_vec(Vec3::new(0.0, 0.0, -0.5));
    let r_tool = r_upper.mul_mat(&rpy_matrix(0.0, std::f64::consts::FRAC_PI_2, 0.0));
    let p_tool = p_slider + r_upper.mul_vec(Vec3::new(0.0, 0.0, -0.1));
    let p_hand = p_tool + r_tool.mul_vec(Vec3::new(0.05, 0.0, 0.0));
    let expected = [(p_upper, r_upper), (p_slider, r_upper), (p_hand, r_tool)];
    for (b, (p, r)) in scene.bodies.iter().zip(expected) {
        let body = &b.value.body;
        assert!(
            (body.position - p).norm() < 1e-14,
            "{}: {:?} vs {p:?}",
            b.name,
            body.position
        );
        assert!(close(&body.orientation.to_matrix(), &r, 1e-14), "{}", b.name);
    }
    // Inertia turned by the inertial origin's rpy: R I Rᵀ, CG at its xyz.
    let upper = &scene.bodies[0].value.body;
    let r = rpy_matrix(0.1, 0.2, 0.3);
    let i = Mat3::symmetric(Vec3::new(0.04, 0.05, 0.02), 0.001, 0.0, 0.0);
    assert!(close(
        &upper.inertia,
        &r.mul_mat(&i).mul_mat(&r.transpose()),
        1e-16
    ));
    assert_eq!(upper.cg, Vec3::new(0.0, 0.0, -0.25));
    // Every joint's two frames are the same frame in the world at t = 0, z along the axis.
    let world = |b: BodyRef, f: &Frame<f64>| -> (Vec3<f64>, Mat3<f64>) {
        match b {
            BodyRef::Ground => (f.origin, f.axes),
            BodyRef::Body(k) => {
                let body = &scene.bodies[k].value.body;
                let r = body.orientation.to_matrix();
                (body.position + r.mul_vec(f.origin), r.mul_mat(&f.axes))
            }
        }
    };
    let axes_world = [
        r_upper.mul_vec(Vec3::new(0.0, 1.0, 1.0).normalized().unwrap()),
        r_upper.mul_vec(Vec3::X),
        r_tool.mul_vec(Vec3::Z),
    ];
    assert_eq!(scene.joints.len(), 3);
    for (j, axis) in scene.joints.iter().zip(axes_world) {
        let (pi, ri) = world(j.value.body_i, &j.value.frame_i);
        let (pj, rj) = world(j.value.body_j, &j.value.frame_j);
        assert!(
            (pi - pj).norm() < 1e-14 && close(&ri, &rj, 1e-14),
            "joint {}",
            j.name
        );
        assert!((ri.column(2) - axis).norm() < 1e-14, "joint {} axis", j.name);
    }
    // Damping became a joint damper, <limit> the joint's limits (default end stops), friction
    // the joint's friction (smoothed over the default velocity).
    let limits: Vec<_> = scene
        .forces
        .iter()
        .filter_map(|f| match f.value {
            Force::JointLimit { joint, limit } => {
                Some((scene.joints[joint].name.as_str(), limit.lower, limit.upper))
            }
            _ => None,
        })
        .collect();
    assert_eq!(limits, [("hip", -1.0, 1.0)]);
    assert_eq!(scene.forces.len(), 2);
    let hip = scene.joints.iter().position(|j| j.name == "hip").unwrap();
    let smoothing = crate::scene::DEFAULT_FRICTION_VELOCITY;
    assert_eq!(
        scene.friction[hip],
        ferrodyn_kernel::tree::JointFriction::new(0.1, smoothing)
    );
    let notes = imported.report.lines().join("\n");
    for expected in ["<material> ×1", "<gazebo> ×1", "<visual> ×1"] {
        assert!(notes.contains(expected), "{expected} missing from:\n{notes}");
    }
    // No fixed joint is left in the scene: it runs in joint coordinates.
    let sim = compile(scene).unwrap();
    assert!(
        sim.labels.description.contains("joint coordinates"),
        "{}",
        sim.labels.description
    );
}

#[test]
fn written_scene_loads_back_and_steps_to_the_same_bits() {
    let path = model_file("skew_arm.urdf", SKEW_ARM);
    let imported = import(&path, &ImportOptions::default()).unwrap();
    let out = path.with_file_name("written/arm.toml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, imported.toml(&out)).unwrap();
    let loaded = Scene::load(&out).unwrap();
    let (mut a, mut b) = (compile(&imported.scene).unwrap(), compile(&loaded).unwrap());
    for _ in 0..200 {
        a.step().unwrap();
        b.step().unwrap();
    }
    assert!(a.state().iter().any(|&x| x != 0.0), "the arm moves under gravity");
    assert_eq!(a.digest(), b.digest());
}

#[test]
fn pendulum_on_a_turned_axis_starts_with_the_closed_form_acceleration() {
    // A link hung from a pin about y, its origin pitched by 0.6 rad, CG at L below its origin:
    // θ̈(0) = −m g L sin(0.6) / (Iyy + m L²) (a compound pendulum released at 0.6 rad).
    let (m, l, iyy) = (2.0, 0.4, 0.03);
    let text = format!(
        r#"<robot name="pendulum"><link name="base"/>
        <joint name="pin" type="continuous"><parent link="base"/><child link="bob"/>
          <origin xyz="0 0 1" rpy="0 0.6 0"/><axis xyz="0 1 0"/></joint>
        <link name="bob"><inertial><origin xyz="0 0 -{l}"/><mass value="{m}"/>
          <inertia ixx="0.03" iyy="{iyy}" izz="0.01"/></inertial></link></robot>"#
    );
    let imported = import_text("pendulum.urdf", &text).unwrap();
    let mut scene = imported.scene;
    let h = 1e-4;
    scene.simulation.step = h;
    let mut sim = compile(&scene).unwrap();
    sim.step().unwrap();
    let alpha = -m * 9.81 * l * 0.6f64.sin() / (iyy + m * l * l);
    assert!(
        (sim.state()[0] / (alpha * h * h / 2.0) - 1.0).abs() < 1e-6,
        "{}",
        sim.state()[0]
    );
}

fn error_of(name: &str, text: &str) -> ImportError {
    match import_text(name, text) {
        Ok(_) => panic!("{name} imported"),
        Err(e) => e,
    }
}

#[test]
fn a_mimic_joint_is_a_coupling_that_holds_on_the_tree() {
    // The slide follows the hip: slide = 2·hip + 0.1 (m per rad), with the scene's
    // coordinates (the URDF joint's: frames meet at zero) read from the Cartesian mirror.
    let mimic = SKEW_ARM.replace(
        r#"<axis xyz="1 0 0"/>"#,
        "<axis xyz=\"1 0 0\"/>\n    <mimic joint=\"hip\" multiplier=\"2\" offset=\"0.1\"/>",
    );
    let path = model_file("mimic.urdf", &mimic);
    let imported = import(&path, &ImportOptions::default()).unwrap();
    let [coupling] = &imported.scene.couplings[..] else {
        panic!("{:?}", imported.scene.couplings)
    };
    assert_eq!(
        (
            coupling.name.as_str(),
            coupling.value.multiplier,
            coupling.value.offset
        ),
        ("slide.mimic", 2.0, 0.1)
    );
    // Later errors about the coupling name the `<mimic>` element's line in the model file.
    let mimic_line = mimic.lines().position(|l| l.contains("<mimic")).unwrap() + 1;
    assert_eq!(coupling.line, mimic_line);
    let out = path.with_file_name("written/mimic.toml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let text = imported.toml(&out);
    assert!(
        text.contains("[[coupling]]\nname = \"slide.mimic\"\njoint = \"slide\"\nfollows = \"hip\""),
        "{text}"
    );
    std::fs::write(&out, text).unwrap();
    let mut sim = compile(&Scene::load(&out).unwrap()).unwrap();
    assert!(
        sim.labels.description.contains("joint coordinates"),
        "{}",
        sim.labels.description
    );
    let joint = |sim: &crate::simulation::Simulation, name: &str| {
        let (model, data) = sim.rigid().unwrap();
        let k = sim.labels.names.joints.iter().position(|j| j == name).unwrap();
        ferrodyn_kernel::rigid::joint_coordinate(model, data, k)
            .unwrap()
            .0
    };
    let mut worst = 0.0f64;
    for _ in 0..500 {
        sim.step().unwrap();
        worst = worst.max((joint(&sim, "slide") - (2.0 * joint(&sim, "hip") + 0.1)).abs());
    }
    assert!(joint(&sim, "hip").abs() > 1e-3, "the arm moves");
    assert!(worst <= 1e-10, "slide − (2 hip + 0.1) = {worst:e}");
    // A <mimic> on a fixed joint couples nothing (TALOS's grippers): noted, no coupling.
    let fixed = SKEW_ARM.replace(
        r#"<child link="tool"/>"#,
        r#"<child link="tool"/><mimic joint="hip"/>"#,
    );
    let imported = import_text("fixed_mimic.urdf", &fixed).unwrap();
    assert!(imported.scene.couplings.is_empty());
    let note = "<mimic> of fixed joint \"tool_frame\" ignored: it has no single coordinate to couple";
    assert!(
        imported.report.lines().contains(&note.to_string()),
        "{}",
        imported.report
    );
}

#[test]
fn unsupported_features_are_refused_by_name_and_line() {
    // A transmission that only maps actuators onto joints is noted, once per type, with the
    // transmissions' names; PR2's gripper transmission couples passive joints (nonlinearly)
    // and an unknown type may: refused at their line.
    let transmission = |t: &str| {
        SKEW_ARM.replace(
            "<material name=\"grey\"/>",
            &format!("<transmission name=\"t\"><type>{t}</type></transmission><transmission name=\"u\" type=\"{t}\"/>"),
        )
    };
    let differential = transmission("transmission_interface/DifferentialTransmission");
    let imported = import_text("differential.urdf", &differential).unwrap();
    let notes = imported.report.lines();
    assert!(
        notes.contains(&"not modelled yet: actuation: DifferentialTransmission transmissions (actuator-to-joint maps; no actuators are imported from URDF, the joints are): t, u".to_string()),
        "{notes:?}"
    );
    let e = error_of("gripper.urdf", &transmission("PR2GripperTransmission"));
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(33)));
    assert!(e.reason.contains("nonlinear"), "{e}");
    let e = error_of("unknown.urdf", &transmission("acme/CableTransmission"));
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(33)));
    assert!(
        e.reason.contains("\"acme/CableTransmission\" is not known"),
        "{e}"
    );

    // A massless link that moves is a massless body while it carries mass (the slider carries
    // the hand through the tool frame); a massless leaf that moves is refused at its line.
    let massless = SKEW_ARM.replace(
        r#"<link name="slider"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>"#,
        r#"<link name="slider"/>"#,
    );
    let imported = import_text("massless.urdf", &massless).unwrap();
    let slider = &imported.scene.bodies[1];
    assert_eq!((slider.name.as_str(), slider.value.body.mass), ("slider", 0.0));
    let leaf = SKEW_ARM.replace(
        r#"<link name="hand"><inertial><origin xyz="0 0 0.05"/><mass value="0.5"/>
    <inertia ixx="0.002" iyy="0.002" izz="0.001"/></inertial></link>"#,
        r#"<link name="hand"/>"#,
    );
    let e = error_of("leaf.urdf", &leaf);
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(31)));
    assert!(
        e.to_string()
            .contains("<link name=\"hand\">: link has no mass, moves and carries no link"),
        "{e}"
    );
}

#[test]
fn invalid_values_are_reported_at_the_model_line() {
    // The scene's own inertia check, reported at the link's line in the URDF: products too
    // large for the moments (principal moments −0.0152080, 0.02, 0.1052080: numpy eigvalsh).
    let bad = SKEW_ARM.replace(
        r#"ixx="0.04" iyy="0.05" izz="0.02" ixy="0.001""#,
        r#"ixx="0.04" iyy="0.05" izz="0.02" ixy="0.06""#,
    );
    let e = error_of("inertia.urdf", &bad);
    assert_eq!((e.kind, e.line), (ImportErrorKind::Invalid, Some(15)));
    assert!(
        e.to_string()
            .contains("not positive semi-definite: its smallest principal moment is -1.520797e-2 kg·m²"),
        "{e}"
    );

    let missing = SKEW_ARM.replace(r#"<child link="hand"/>"#, r#"<child link="hnad"/>"#);
    let e = error_of("missing.urdf", &missing);
    assert_eq!(e.line, Some(29));
    assert!(e.reason.contains("link \"hnad\" does not exist"), "{e}");

    let e = error_of(
        "number.urdf",
        &SKEW_ARM.replace(r#"xyz="0.1 0 0.2""#, r#"xyz="0.1 x 0.2""#),
    );
    assert_eq!((e.kind, e.line), (ImportErrorKind::Invalid, Some(10)));

    let e = error_of("broken.urdf", "<robot><link name=\"a\"></robot>");
    assert_eq!((e.kind, e.line), (ImportErrorKind::Unreadable, Some(1)));

    let two_roots = r#"<robot name="r"><link name="a"/><link name="b"/></robot>"#;
    assert!(error_of("roots.urdf", two_roots).reason.contains("[a, b]"));
}

#[test]
fn collision_geometry_becomes_contact_shapes_and_a_missing_mesh_is_named() {
    let with_shapes = SKEW_ARM.replace(
        "<visual><geometry><box size=\"0.1 0.1 0.5\"/></geometry></visual>",
        "<collision><origin xyz=\"0 0 -0.25\"/><geometry><box size=\"0.1 0.1 0.5\"/></geometry></collision>\n\
         <collision name=\"pin\"><geometry><cylinder radius=\"0.02\" length=\"0.2\"/></geometry></collision>",
    );
    let path = model_file("shapes.urdf", &with_shapes);
    let options = ImportOptions {
        collision: true,
        ..ImportOptions::default()
    };
    let scene = import(&path, &options).unwrap().scene;
    let shapes = &scene.contact.as_ref().unwrap().shapes;
    assert_eq!(shapes.len(), 2);
    assert_eq!(shapes[0].name, "upper.collision0");
    assert_eq!(shapes[1].name, "upper.pin");
    assert_eq!(shapes[0].position, Vec3::new(0.0, 0.0, -0.25));
    assert_eq!(shapes[0].body, Some(0));

    let mesh = with_shapes.replace(
        "<box size=\"0.1 0.1 0.5\"/>",
        "<mesh filename=\"package://arm/meshes/upper.stl\"/>",
    );
    let path = model_file("mesh.urdf", &mesh);
    let e = import(&path, &options).err().unwrap();
    assert_eq!((e.kind, e.line), (ImportErrorKind::Unreadable, Some(18)));
    assert!(e.reason.contains("package \"arm\" not found"), "{e}");
    // The package found through --package-path, the mesh file unreadable: named.
    let root = path.parent().unwrap().join("pkgs");
    std::fs::create_dir_all(root.join("arm/meshes")).unwrap();
    std::fs::write(root.join("arm/meshes/upper.stl"), "solid broken\nvertex 0 0\n").unwrap();
    let options = ImportOptions {
        package_paths: vec![root.clone()],
        ..options
    };
    let e = import(&path, &options).err().unwrap();
    assert_eq!(e.kind, ImportErrorKind::Unreadable);
    assert!(e.to_string().contains("upper.stl") && e.line == Some(18), "{e}");
    // A readable one is a mesh shape.
    std::fs::write(
        root.join("arm/meshes/upper.stl"),
        "solid t\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendsolid\n",
    )
    .unwrap();
    let scene = import(&path, &options).unwrap().scene;
    assert_eq!(scene.contact.unwrap().shapes.len(), 2);
}

#[test]
fn floating_base_frees_the_root_link() {
    let free = import(
        &model_file("float.urdf", SKEW_ARM),
        &ImportOptions {
            floating_base: true,
            ..ImportOptions::default()
        },
    );
    // The root "world" has no mass: a massless floating body carrying the base, welded on
    // (as Pinocchio merges it into the root joint's body).
    let free = free.ok().unwrap();
    let world = &free.scene.bodies[0];
    assert_eq!((world.name.as_str(), world.value.body.mass), ("world", 0.0));
    compile(&free.scene).unwrap();
    let text = SKEW_ARM.replace(
        "<link name=\"world\"/>\n  <joint name=\"base_weld\" type=\"fixed\">\n    <parent link=\"world\"/><child link=\"base\"/><origin xyz=\"0 0 0.5\"/>\n  </joint>\n",
        "",
    );
    let path = model_file("float2.urdf", &text);
    let options = ImportOptions {
        floating_base: true,
        ..ImportOptions::default()
    };
    let scene = import(&path, &options).unwrap().scene;
    assert_eq!(scene.bodies[0].name, "base");
    let sim = compile(&scene).unwrap();
    // Three joints and the base's six freedoms.
    assert!(
        sim.labels.description.contains("joint coordinates (9 DOF)"),
        "{}",
        sim.labels.description
    );
}

/// Accelerations of `scene` on the tree at the state [q | v] under generalized forces `u`.
fn tree_accelerations(scene: &crate::scene::Scene, state: &[f64], u: &[f64]) -> Vec<f64> {
    use ferrodyn_kernel::Dynamics;
    let Ok(crate::compile::Choice::Tree(links)) = crate::compile::choose(scene) else {
        panic!("a tree")
    };
    let parts = crate::compile::tree_parts(scene, &links).unwrap();
    let mut data = parts.model.new_data();
    parts.model.set_state(&mut data, state).unwrap();
    for (k, &x) in u.iter().enumerate() {
        data.set_input(k, x).unwrap();
    }
    let mut a = vec![0.0; u.len()];
    ferrodyn_kernel::tree::accelerations(&parts.model, &mut data, &mut a).unwrap();
    a
}

/// A hinge about x at (0.1, −0.2, 0.3), a massless cross, a hinge about y: a Cardan joint
/// carrying the arm.
const CARDAN: &str = r#"<robot name="cardan">
  <link name="world"/>
  <joint name="roll" type="continuous">
    <parent link="world"/><child link="cross"/><origin xyz="0.1 -0.2 0.3"/><axis xyz="1 0 0"/>
  </joint>
  <link name="cross"/>
  <joint name="pitch" type="continuous">
    <parent link="cross"/><child link="arm"/><axis xyz="0 1 0"/>
  </joint>
  <link name="arm"><inertial><origin xyz="0.05 0.2 -0.4"/><mass value="1.3"/>
    <inertia ixx="0.031" iyy="0.027" izz="0.019" ixy="0.002" ixz="-0.003" iyz="0.001"/></inertial></link>
</robot>
"#;

#[test]
fn two_hinges_through_a_massless_link_move_as_the_universal_joint_of_a_scene() {
    // Reference: the scene's universal joint (about x_i, then about the turned y_j) is by
    // definition these two hinges in a row; the same arm on it, written by hand.
    let imported = import_text("cardan.urdf", CARDAN).unwrap();
    let cross = &imported.scene.bodies[0];
    assert_eq!((cross.name.as_str(), cross.value.body.mass), ("cross", 0.0));
    assert!(imported
        .report
        .lines()
        .iter()
        .any(|l| l.contains("link \"cross\" has no mass and moves")));
    let universal = crate::scene::Scene::parse(
        Path::new("universal.toml"),
        r#"[simulation]
end_time = 1.0
step = 0.001
[[body]]
id = 1
name = "arm"
mass = 1.3
cg = [0.05, 0.2, -0.4]
inertia = { Ixx = 0.031, Iyy = 0.027, Izz = 0.019, Ixy = 0.002, Ixz = -0.003, Iyz = 0.001 }
pos = [0.1, -0.2, 0.3]
[[joint]]
name = "cardan"
type = "universal"
body_i = "ground"
body_j = "arm"
frame_i = { origin = [0.1, -0.2, 0.3] }
"#,
    )
    .unwrap();
    let (state, u) = ([0.4, -0.7, 1.1, -0.6], [0.3, -0.2]);
    let chain = tree_accelerations(&imported.scene, &state, &u);
    let cardan = tree_accelerations(&universal, &state, &u);
    for (a, b) in chain.iter().zip(&cardan) {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{chain:?} vs {cardan:?}"
        );
    }
    // The massless body runs in joint coordinates only: the Cartesian model refuses it by name.
    let e = cartesian_error(&imported.scene);
    assert!(
        e.contains("body \"cross\"") && e.contains("a massless body runs in joint coordinates only"),
        "{e}"
    );
}

/// The error of compiling `scene` in Cartesian coordinates.
fn cartesian_error(scene: &crate::scene::Scene) -> String {
    let mut cartesian = scene.clone();
    cartesian.simulation.formulation = crate::spec::formulation::Formulation::Cartesian;
    compile(&cartesian).err().unwrap().to_string()
}

#[test]
fn an_inertia_violating_the_triangle_inequality_runs_on_the_tree_as_written() {
    // Principal moments 0.01, 0.01, 0.05 (0.01 + 0.01 < 0.05): no rigid body's, but positive
    // definite, so the tree runs it as Pinocchio does. On a hinge about z through the CG the
    // link turns as θ̈ = τ / Izz, the moment written.
    let text = r#"<robot name="top"><link name="world"/>
  <joint name="spin" type="continuous"><parent link="world"/><child link="rotor"/><axis xyz="0 0 1"/></joint>
  <link name="rotor"><inertial><mass value="2"/><inertia ixx="0.01" iyy="0.01" izz="0.05"/></inertial></link>
</robot>"#;
    let imported = import_text("top.urdf", text).unwrap();
    let note = "inertia of body \"rotor\" violates the triangle inequality (principal moments 1.000000e-2 + 1.000000e-2 < 5.000000e-2 kg·m²): not a physical rigid body's; kept as written, as Pinocchio does";
    assert!(
        imported.report.lines().iter().any(|l| l.starts_with(note)),
        "{}",
        imported.report
    );
    assert!(imported.scene.notes[0].starts_with(note));
    let a = tree_accelerations(&imported.scene, &[0.3, 0.0], &[0.7]);
    assert!((a[0] * 0.05 / 0.7 - 1.0).abs() < 1e-14, "{a:?}");
    // The Cartesian model needs a rigid body's inertia: refused naming the body.
    let e = cartesian_error(&imported.scene);
    assert!(
        e.contains("body \"rotor\"") && e.contains("violates the triangle inequality"),
        "{e}"
    );
}

#[test]
fn an_mjcf_body_without_mass_that_moves_is_a_massless_body_while_it_carries_mass() {
    // MuJoCo accepts a massless moving body whose subtree has mass (drosophila's), and refuses
    // a massless leaf ("mass and inertia of moving bodies must be larger than mjMINVAL").
    let model = |leaf: &str| {
        format!(
            r#"<mujoco><worldbody>
  <body name="gimbal" pos="0 0 1"><joint name="yaw" axis="0 0 1"/>
    <body name="arm"><joint name="pitch" axis="0 1 0"/>{leaf}</body>
  </body></worldbody></mujoco>"#
        )
    };
    let imported = import_text(
        "gimbal.xml",
        &model(r#"<geom type="sphere" size="0.1" pos="0.5 0 0"/>"#),
    )
    .unwrap();
    let gimbal = &imported.scene.bodies[0];
    assert_eq!((gimbal.name.as_str(), gimbal.value.body.mass), ("gimbal", 0.0));
    compile(&imported.scene).unwrap();
    let e = error_of("leaf.xml", &model(""));
    assert_eq!((e.kind, e.line), (ImportErrorKind::Refused, Some(3)));
    assert!(
        e.reason
            .contains("body \"arm\" has no mass, moves and carries no body with mass"),
        "{e}"
    );
}
