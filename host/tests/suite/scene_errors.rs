//! Every kind of scene error names the file, the line and the item.

use std::path::PathBuf;

use ferrodyn_host::compile::{flexible_model, rigid_model};
use ferrodyn_host::scene::{Scene, SceneError};
use ferrodyn_kernel::Fixed;

/// A valid two-body arm; tests break one line of it.
const ARM: &str = r#"[simulation]
end_time = 1.0
step = 1e-3

[[body]]
id = 1
name = "upper_arm"
mass = 2.0
inertia = { Ixx = 0.01545, Iyy = 0.01545, Izz = 0.0009 }
pos = [0.0, 0.0, -0.15]

[[body]]
id = 2
name = "forearm"
mass = 1.2
inertia = { Ixx = 0.000375, Iyy = 0.0064375, Izz = 0.0064375 }
pos = [0.125, 0.0, -0.3]

[[joint]]
name = "shoulder"
type = "spherical"
body_i = "ground"
body_j = "upper_arm"
frame_j = { origin = [0.0, 0.0, 0.15] }

[[joint]]
name = "elbow"
type = "revolute"
body_i = "upper_arm"
body_j = "forearm"
frame_i = { origin = [0.0, 0.0, -0.15], axis = [0.0, 1.0, 0.0] }
frame_j = { origin = [-0.125, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }
"#;

/// Writes `text` to a scene file called `name` in the test's temporary folder.
fn write(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scene_errors");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Loads `text` (written as `name`) and returns the error message without the folder.
fn error_of(name: &str, text: &str) -> String {
    let path = write(name, text);
    let e: SceneError = Scene::load(&path).expect_err("the scene must be rejected");
    let message = e.to_string();
    let prefix = format!("{}/", path.parent().unwrap().display());
    message.strip_prefix(&prefix).unwrap_or(&message).to_string()
}

/// `ARM` with `from` replaced by `to` (which must occur once).
fn arm_with(from: &str, to: &str) -> String {
    assert_eq!(ARM.matches(from).count(), 1, "{from}");
    ARM.replace(from, to)
}

fn mesh(name: &str) -> String {
    format!("{}/../meshes/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_base_scene_is_valid() {
    let path = write("arm_ok.toml", ARM);
    let scene = Scene::load(&path).unwrap();
    assert_eq!(scene.bodies.len(), 2);
}

#[test]
fn unknown_key() {
    let text = arm_with("mass = 1.2", "masss = 1.2");
    assert_eq!(
        error_of("unknown_key.toml", &text),
        "unknown_key.toml:15: unknown field `masss`, expected one of `id`, `name`, `mass`, `inertia`, \
         `cg`, `pos`, `orient`, `velocity`, `angular_velocity`"
    );
}

#[test]
fn missing_body_reference() {
    let text = arm_with("body_j = \"forearm\"", "body_j = \"forarm\"");
    assert_eq!(
        error_of("missing_body.toml", &text),
        "missing_body.toml:30: joint \"elbow\": body_j \"forarm\" does not exist (bodies: upper_arm, forearm)"
    );
}

#[test]
fn duplicate_name_and_id() {
    let text = arm_with("name = \"forearm\"", "name = \"upper_arm\"");
    assert_eq!(
        error_of("duplicate_name.toml", &text),
        "duplicate_name.toml:14: body \"upper_arm\": duplicate body name \"upper_arm\" (first defined at line 7)"
    );
    let text = arm_with("id = 2", "id = 1");
    assert_eq!(
        error_of("duplicate_id.toml", &text),
        "duplicate_id.toml:13: body \"forearm\": duplicate body id 1 (first defined at line 6)"
    );
    let text = arm_with("name = \"elbow\"", "name = \"shoulder\"");
    assert_eq!(
        error_of("duplicate_joint.toml", &text),
        "duplicate_joint.toml:27: joint \"shoulder\": duplicate joint name \"shoulder\" (first defined at line 20)"
    );
}

#[test]
fn zero_mass() {
    let text = arm_with("mass = 2.0", "mass = 0.0");
    assert_eq!(
        error_of("zero_mass.toml", &text),
        "zero_mass.toml:8: body \"upper_arm\": mass: 0 with a non-zero inertia or CG: a body has mass > 0, or mass, inertia and CG all 0 (a massless frame between joints, joint coordinates only)"
    );
    let text = arm_with("mass = 2.0", "mass = -2.0");
    assert_eq!(
        error_of("negative_mass.toml", &text),
        "negative_mass.toml:8: body \"upper_arm\": mass: -2 must be finite and ≥ 0"
    );
}

#[test]
fn a_massless_body_runs_on_the_tree_only() {
    // The arm's upper arm as a massless frame: the forearm hangs from it, so the tree runs; a
    // massless forearm (a leaf: its joint would move nothing) is refused by name, and so is a
    // massless body in Cartesian coordinates.
    let massless = "mass = 0.0\ninertia = { Ixx = 0.0, Iyy = 0.0, Izz = 0.0 }";
    let upper = arm_with(
        "mass = 2.0\ninertia = { Ixx = 0.01545, Iyy = 0.01545, Izz = 0.0009 }",
        massless,
    );
    let compiled = |name: &str, text: &str| {
        let scene = Scene::load(&write(name, text)).unwrap();
        ferrodyn_host::compile::compile(&scene).map(|_| ()).map_err(|e| {
            let message = e.to_string();
            message[message.rfind('/').map_or(0, |k| k + 1)..].to_string()
        })
    };
    assert_eq!(compiled("massless_upper.toml", &upper), Ok(()));
    let cartesian = upper.replace("step = 1e-3", "step = 1e-3\nformulation = \"cartesian\"");
    assert_eq!(
        compiled("massless_cartesian.toml", &cartesian),
        Err("massless_cartesian.toml:8: body \"upper_arm\": mass: a massless body runs in joint coordinates only (on the tree), and this scene is in Cartesian coordinates (the scene asks for them)".into())
    );
    let leaf = arm_with(
        "mass = 1.2\ninertia = { Ixx = 0.000375, Iyy = 0.0064375, Izz = 0.0064375 }",
        massless,
    );
    let e = compiled("massless_leaf.toml", &leaf).unwrap_err();
    assert!(e.starts_with("massless_leaf.toml:14: body \"forearm\""), "{e}");
    assert!(e.contains("a massless link must carry a link with mass"), "{e}");
    // A point mass (zero inertia about the CG) likewise: on the tree, not in Cartesian coordinates.
    let point = arm_with(
        "inertia = { Ixx = 0.01545, Iyy = 0.01545, Izz = 0.0009 }",
        "inertia = { Ixx = 0.0, Iyy = 0.0, Izz = 0.0 }",
    );
    assert_eq!(compiled("point_mass.toml", &point), Ok(()));
    let point = point.replace("step = 1e-3", "step = 1e-3\nformulation = \"cartesian\"");
    let e = compiled("point_mass_cartesian.toml", &point).unwrap_err();
    assert!(e.contains("body \"upper_arm\": mass: a body with a singular inertia (a point mass, a thin rod) runs in joint coordinates only"), "{e}");
}

#[test]
fn negative_stiffness() {
    let spring = "\n[[force]]\nname = \"strap\"\ntype = \"spring_damper\"\nbody_i = \"ground\"\n\
                  body_j = \"forearm\"\npoint_j = [0.125, 0.0, 0.0]\nstiffness = -100.0\n";
    assert_eq!(
        error_of("negative_stiffness.toml", &format!("{ARM}{spring}")),
        "negative_stiffness.toml:40: force \"strap\": stiffness: -100 must be finite and ≥ 0"
    );
}

#[test]
fn zero_length_axis() {
    let text = arm_with(
        "frame_i = { origin = [0.0, 0.0, -0.15], axis = [0.0, 1.0, 0.0] }",
        "frame_i = { origin = [0.0, 0.0, -0.15], axis = [0.0, 0.0, 0.0] }",
    );
    assert_eq!(
        error_of("zero_axis.toml", &text),
        "zero_axis.toml:31: joint \"elbow\": frame_i: axis [0.0, 0.0, 0.0] has zero length"
    );
}

#[test]
fn bad_integrator_and_times() {
    let text = arm_with("step = 1e-3", "step = 1e-3\nintegrator = \"euler\"");
    assert_eq!(
        error_of("bad_integrator.toml", &text),
        "bad_integrator.toml:4: simulation: integrator: unknown integrator \"euler\" \
         (one of: rk4, rkf45, dopri45, semi-implicit-euler, velocity-verlet, bdf1, bdf2, generalized-alpha, hht, \
         newmark)"
    );
    let text = arm_with("step = 1e-3", "step = 2.0");
    assert_eq!(
        error_of("long_step.toml", &text),
        "long_step.toml:3: simulation: step: 2 s is longer than end_time 1 s"
    );
    let text = arm_with("end_time = 1.0", "end_time = -1.0");
    assert_eq!(
        error_of("negative_end.toml", &text),
        "negative_end.toml:2: simulation: end_time: -1 must be finite and > 0"
    );
    let text = arm_with("step = 1e-3", "step = 1e-3\nrtol = 1e-6");
    assert_eq!(
        error_of("rtol_rk4.toml", &text),
        "rtol_rk4.toml:4: simulation: rtol: applies only to the adaptive integrators (rkf45, dopri45), not rk4"
    );
}

/// A one-flexible scene on `mesh_path` with `extra` lines in the flexible table.
fn flexible(mesh_path: &str, nu: &str, extra: &str) -> String {
    format!(
        "[simulation]\nend_time = 1.0\nstep = 1e-5\n\n[[flexible]]\nname = \"beam\"\nmesh = \"{mesh_path}\"\n\
         material = {{ law = \"svk\", E = 1e8, nu = {nu}, rho = 1000.0 }}\n{extra}\n"
    )
}

#[test]
fn bad_poisson_ratio() {
    let text = flexible(&mesh("beam_coarse.msh"), "0.5", "clamp = [\"clamp\"]");
    assert_eq!(
        error_of("bad_nu.toml", &text),
        "bad_nu.toml:8: flexible \"beam\": nu: 0.5 must lie in (-1, 0.5)"
    );
}

#[test]
fn missing_mesh_file() {
    let text = flexible("no_such_mesh.msh", "0.3", "");
    let message = error_of("missing_mesh.toml", &text);
    assert!(
        message.starts_with("missing_mesh.toml:7: flexible \"beam\": ")
            && message.contains("no_such_mesh.msh: cannot read"),
        "{message}"
    );
}

#[test]
fn unknown_physical_group() {
    let text = flexible(&mesh("beam_coarse.msh"), "0.3", "clamp = [\"root\"]");
    let message = error_of("unknown_group.toml", &text);
    assert!(
        message.starts_with(
            "unknown_group.toml:9: flexible \"beam\": group \"root\" does not exist (groups in "
        ) && message.ends_with("beam_coarse.msh: clamp, tip, beam)"),
        "{message}"
    );
}

#[test]
fn clamp_on_a_non_planar_group_is_refused() {
    let text = flexible(&mesh("beam_coarse.msh"), "0.3", "clamp = [\"beam\"]");
    assert_eq!(
        error_of("not_planar.toml", &text),
        "not_planar.toml:9: flexible \"beam\": clamp: group \"beam\" is not a plane normal to x, y or z"
    );
}

#[test]
fn kernel_capacity_error_names_the_item() {
    let path = write("capacity.toml", ARM);
    let scene = Scene::load(&path).unwrap();
    let message = rigid_model::<Fixed<1, 2, 0, 8, 64>>(&scene)
        .err()
        .unwrap()
        .to_string();
    let prefix = format!("{}/", path.parent().unwrap().display());
    assert_eq!(
        message.strip_prefix(&prefix).unwrap(),
        "capacity.toml:14: body \"forearm\": capacity exceeded: Bodies capacity is 1, the scene needs 2"
    );
    let message = rigid_model::<Fixed<2, 2, 0, 7, 64>>(&scene)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        message.strip_prefix(&prefix).unwrap(),
        "capacity.toml:27: joint \"elbow\": capacity exceeded: ConstraintRows capacity is 7, the scene needs 8"
    );
}

#[test]
fn an_inertia_violating_the_triangle_inequality_is_noted_and_refused_in_cartesian_coordinates() {
    // Principal moments 1, 1, 3 violate I1 + I2 ≥ I3: no rigid body's. The scene keeps it
    // (a tree link may carry it, as Pinocchio's) with a note naming the body; the Cartesian
    // model refuses it by name at the body's line.
    let text = arm_with(
        "inertia = { Ixx = 0.000375, Iyy = 0.0064375, Izz = 0.0064375 }",
        "inertia = { Ixx = 1.0, Iyy = 1.0, Izz = 3.0 }",
    )
    .replace("[simulation]\n", "[simulation]\nformulation = \"cartesian\"\n");
    let path = write("triangle.toml", &text);
    let scene = Scene::load(&path).unwrap();
    assert!(
        scene.notes[0].starts_with("inertia of body \"forearm\" violates the triangle inequality"),
        "{:?}",
        scene.notes
    );
    let message = ferrodyn_host::compile::compile(&scene).err().unwrap().to_string();
    assert!(
        message.contains("body \"forearm\"") && message.contains("violates the triangle inequality"),
        "{message}"
    );
}

#[test]
fn flexible_capacity_error_names_the_body_and_what_the_mesh_needs() {
    let text = flexible(&mesh("beam_coarse.msh"), "0.3", "clamp = [\"clamp\"]");
    let path = write("flex_capacity.toml", &text);
    let scene = Scene::load(&path).unwrap();
    // Fixed capacities (100 nodes, 10 elements, 10 profile entries: small enough for the test
    // thread's stack, no big-stack thread): the mesh's 366 nodes do not fit, and nodes are
    // added before elements.
    let e = flexible_model::<Fixed<0, 0, 0, 0, 0, 100, 10, 10>>(
        &scene,
        std::slice::from_ref(&scene.flexibles[0]),
    )
    .map(|_| ())
    .unwrap_err();
    let prefix = format!("{}/", path.parent().unwrap().display());
    let message = e.to_string().strip_prefix(&prefix).unwrap().to_string();
    assert_eq!(
        message,
        "flex_capacity.toml:6: flexible \"beam\": capacity exceeded: Nodes capacity is 100, the scene needs 366"
    );
}

#[test]
fn unreadable_scene_file() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no_such_scene.toml");
    let message = Scene::load(&path).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!("{}: cannot read: ", path.display())),
        "{message}"
    );
}

#[test]
fn sensor_on_the_wrong_joint_or_without_a_target() {
    let text = format!("{ARM}\n[[sensor]]\nname = \"enc\"\njoint = \"shoulder\"\n");
    assert_eq!(
        error_of("sensor_joint.toml", &text),
        "sensor_joint.toml:36: sensor \"enc\": joint: joint \"shoulder\" is spherical; an angle sensor \
         needs a revolute or cylindrical joint"
    );
    let text = format!("{ARM}\n[[sensor]]\nname = \"lost\"\n");
    assert_eq!(
        error_of("sensor_target.toml", &text),
        "sensor_target.toml:34: sensor \"lost\": body/joint: give one of `body` (and optionally \
         `point`), `joint`, or `flexible` and `point`"
    );
    let text = format!("{ARM}\n[[sensor]]\nname = \"enc\"\njoint = \"elbow\"\npoint = [0.0, 0.0, 0.0]\n");
    assert_eq!(
        error_of("sensor_point.toml", &text),
        "sensor_point.toml:34: sensor \"enc\": point: `point` belongs to a body sensor, not to a \
         joint sensor"
    );
    let text = format!("{ARM}\n[[sensor]]\nname = \"tip\"\nbody = \"hand\"\n");
    assert_eq!(
        error_of("sensor_body.toml", &text),
        "sensor_body.toml:36: sensor \"tip\": body \"hand\" does not exist (bodies: upper_arm, forearm)"
    );
}

#[test]
fn a_tendon_runs_on_the_tree_and_its_errors_name_it() {
    // A tendon on the elbow runs in joint coordinates; in Cartesian ones it is refused by name,
    // and so are a ball joint in it, an unknown joint, a count mismatch and a bad rest band.
    let tendon = |body: &str| format!("{ARM}\n[[tendon]]\nname = \"strap\"\n{body}");
    let ok = tendon("joints = [\"elbow\"]\ncoefficients = [0.5]\nstiffness = 10.0\nrest_length = [0.0, 0.1]\nlimits = [-1.0, 1.0]\n");
    let scene = Scene::load(&write("tendon_ok.toml", &ok)).unwrap();
    assert_eq!(scene.tendons[0].value.rest, (0.0, 0.1));
    ferrodyn_host::compile::compile(&scene).unwrap();
    let cartesian = ok.replace("step = 1e-3", "step = 1e-3\nformulation = \"cartesian\"");
    let scene = Scene::load(&write("tendon_cartesian.toml", &cartesian)).unwrap();
    let e = ferrodyn_host::compile::compile(&scene).err().unwrap().to_string();
    assert!(
        e.contains("tendon \"strap\": joint: tendons act on joint coordinates, and this scene is in Cartesian coordinates"),
        "{e}"
    );
    let bad = |name: &str, body: &str| error_of(name, &tendon(body));
    let e = bad(
        "tendon_ball.toml",
        "joints = [\"shoulder\"]\ncoefficients = [1.0]\n",
    );
    assert!(
        e.starts_with("tendon_ball.toml:36: tendon \"strap\": joints:"),
        "{e}"
    );
    assert!(e.contains("a tendon spans revolute or prismatic joints"), "{e}");
    let e = bad(
        "tendon_unknown.toml",
        "joints = [\"knee\"]\ncoefficients = [1.0]\n",
    );
    assert!(e.contains("tendon \"strap\"") && e.contains("knee"), "{e}");
    let e = bad(
        "tendon_count.toml",
        "joints = [\"elbow\"]\ncoefficients = [1.0, 2.0]\n",
    );
    assert!(e.contains("2 coefficients for 1 joints"), "{e}");
    let e = bad(
        "tendon_band.toml",
        "joints = [\"elbow\"]\ncoefficients = [1.0]\nrest_length = [0.2, 0.1]\n",
    );
    assert!(
        e.contains("rest_length: give a finite length or [lower, upper]"),
        "{e}"
    );
}
