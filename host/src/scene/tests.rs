//! Unit tests of validation details that the scene files in `scenes/` do not exercise.

use std::path::Path;

use ferrodyn_kernel::rigid::{BodyRef, DrivenCoordinate, Force, JointKind};
use ferrodyn_kernel::TimeFunction;

use super::Scene;

const HEADER: &str = "[simulation]\nend_time = 1.0\nstep = 0.01\n";

const HUB: &str =
    "[[body]]\nid = 7\nname = \"hub\"\nmass = 1.0\ninertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\n";

fn parse(text: &str) -> Result<Scene, String> {
    Scene::parse(Path::new("t.toml"), &format!("{HEADER}{HUB}{text}")).map_err(|e| e.to_string())
}

#[test]
fn drives_and_joints_keep_file_order() {
    let scene = parse(
        "[[drive]]\nname = \"motor\"\nbody_i = \"ground\"\nbody_j = \"hub\"\ncoordinate = \"rotation\"\n\
         function = { table = [[0.0, 0.0], [1.0, 2.0]] }\n\
         [[joint]]\nname = \"axle\"\ntype = \"revolute\"\nbody_i = \"ground\"\nbody_j = \"hub\"\n",
    )
    .unwrap();
    let names: Vec<&str> = scene.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["motor", "axle"]);
    assert_eq!(scene.joints[0].kind, "drive");
    assert!(matches!(
        scene.joints[0].value.kind,
        JointKind::Driving {
            coordinate: DrivenCoordinate::Rotation,
            function: TimeFunction::Table { len: 2, .. }
        }
    ));
    assert_eq!(scene.joints[1].value.body_j, BodyRef::Body(0));
    assert_eq!(scene.name_maps().body_ids, [7]);
    assert_eq!(crate::compile::Capacities::of_scene(&scene).rows, 6);
}

#[test]
fn orientations_are_roll_pitch_yaw_or_a_normalized_quaternion() {
    let scene = Scene::parse(
        Path::new("t.toml"),
        &format!(
            "{HEADER}{}orient = {{ quaternion = [2.0, 0.0, 0.0, 0.0] }}\n",
            HUB
        ),
    )
    .unwrap();
    assert_eq!(
        scene.bodies[0].value.body.orientation.to_array(),
        [1.0, 0.0, 0.0, 0.0]
    );
    let both = format!("{HEADER}{HUB}orient = {{ roll = 1.0, quaternion = [1.0, 0.0, 0.0, 0.0] }}\n");
    let e = Scene::parse(Path::new("t.toml"), &both).unwrap_err().to_string();
    assert_eq!(
        e,
        "t.toml:9: body \"hub\": orient: give either roll/pitch/yaw or quaternion, not both"
    );
}

#[test]
fn force_tables_take_only_their_own_keys() {
    let e = parse(
        "[[force]]\nname = \"f\"\ntype = \"torque\"\nbody = \"hub\"\ndirection = [0.0, 0.0, 1.0]\n\
         stiffness = 1.0\n",
    )
    .unwrap_err();
    assert_eq!(
        e,
        "t.toml:14: force \"f\": stiffness: not a key of type torque (keys: body, direction, axes, function)"
    );
    let scene = parse(
        "[[force]]\nname = \"f\"\ntype = \"point\"\nbody = \"hub\"\ndirection = [0.0, 0.0, 1.0]\n\
         axes = \"body\"\nfunction = { sine = { amplitude = 2.0, omega = 1.0 } }\n",
    )
    .unwrap();
    assert!(matches!(scene.forces[0].value, Force::Point { body: 0, .. }));
}

#[test]
fn type_specific_keys_are_required_and_checked() {
    let joint = "[[joint]]\nname = \"j\"\nbody_i = \"ground\"\nbody_j = \"hub\"\n";
    assert_eq!(
        parse(&format!("{joint}type = \"distance\"\n")).unwrap_err(),
        "t.toml:13: joint \"j\": length: missing (required by this type)"
    );
    assert_eq!(
        parse(&format!("{joint}type = \"revolute\"\nlength = 1.0\n")).unwrap_err(),
        "t.toml:14: joint \"j\": length: applies only to distance joints"
    );
    let spring = format!(
        "{joint}type = \"spherical\"\n[[force]]\nname = \"k\"\ntype = \"rotational_spring_damper\"\n\
         joint = \"j\"\nstiffness = 1.0\n"
    );
    assert_eq!(
        parse(&spring).unwrap_err(),
        "t.toml:17: force \"k\": joint: \"j\" is a spherical joint; a rotational spring-damper needs a \
         revolute or cylindrical one"
    );
}

#[test]
fn syntax_errors_and_missing_tables_have_lines() {
    let e = Scene::parse(
        Path::new("t.toml"),
        "[simulation]\nend_time = 1.0\nstep = \"fast\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("t.toml:3: invalid type: string \"fast\""), "{e}");
    let e = Scene::parse(Path::new("t.toml"), "").unwrap_err().to_string();
    assert_eq!(e, "t.toml:1: missing field `simulation`");
}
