//! Unit tests of validation details that the scene files in `scenes/` do not exercise.

use std::path::Path;

use ferrodyn_kernel::rigid::{BodyRef, DrivenCoordinate, Force, FunctionId, JointKind};
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
            function: FunctionId(0)
        }
    ));
    assert!(matches!(
        scene.drive_functions[..],
        [TimeFunction::Table { len: 2, .. }]
    ));
    assert_eq!(scene.joints[1].value.body_j, BodyRef::Body(0));
    assert_eq!(scene.name_maps().body_ids, [7]);
    assert_eq!(crate::compile::Capacities::of_scene(&scene).rows, 6);
}

#[test]
fn drive_functions_are_listed_in_file_order_and_named_by_index() {
    let drive = |name: &str, slope: f64| {
        format!(
            "[[drive]]\nname = \"{name}\"\nbody_i = \"ground\"\nbody_j = \"hub\"\n\
             coordinate = \"rotation\"\nfunction = {{ ramp = {{ slope = {slope} }} }}\n"
        )
    };
    let axle = "[[joint]]\nname = \"axle\"\ntype = \"revolute\"\nbody_i = \"ground\"\nbody_j = \"hub\"\n";
    let scene = parse(&format!("{}{axle}{}", drive("a", 1.0), drive("b", 2.0))).unwrap();
    let ids: Vec<_> = (scene.joints.iter())
        .map(|j| match j.value.kind {
            JointKind::Driving { function, .. } => Some(function),
            _ => None,
        })
        .collect();
    assert_eq!(ids, [Some(FunctionId(0)), None, Some(FunctionId(1))]);
    let slopes: Vec<_> = (scene.drive_functions.iter())
        .map(|f| match f {
            TimeFunction::Ramp { slope, .. } => *slope,
            _ => f64::NAN,
        })
        .collect();
    assert_eq!(slopes, [1.0, 2.0]);
    // A scene joint without the function inline (816 B with it, issue 37).
    let size = std::mem::size_of::<super::Named<ferrodyn_kernel::rigid::Joint<f64>>>();
    assert_eq!(size, 288);
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

const MOTOR: &str =
    "[[drive]]\nname = \"motor\"\nbody_i = \"ground\"\nbody_j = \"hub\"\ncoordinate = \"rotation\"\n";

#[test]
fn smooth_profiles_and_velocity_drives_parse_into_kernel_functions() {
    // The Kane–Ryan–Banerjee spin-up, as a smooth ramp, as two pieces and as a velocity.
    let smooth = parse(&format!(
        "{MOTOR}function = {{ smooth_ramp = {{ duration = 15.0, slope = 6.0 }} }}\n"
    ))
    .unwrap();
    let pieces = parse(&format!(
        "{MOTOR}function = {{ piecewise = [\n\
         {{ start = 0.0, poly = [-2.2797266319526, 0.0, 0.2], cos = 2.2797266319526, period = 15.0 }},\n\
         {{ start = 15.0, poly = [45.0, 6.0] }} ] }}\n"
    ))
    .unwrap();
    let velocity = parse(&format!(
        "{MOTOR}velocity = {{ piecewise = [\n\
         {{ start = 0.0, poly = [0.0, 0.4], sin = -0.954929658551372, period = 15.0 }},\n\
         {{ start = 15.0, poly = [6.0] }} ] }}\ninitial = 0.5\n"
    ))
    .unwrap();
    let drive_fn = |s: &Scene| match s.joints[0].value.kind {
        JointKind::Driving { function, .. } => s.drive_functions[function.index()],
        _ => unreachable!(),
    };
    assert!(matches!(
        drive_fn(&velocity),
        TimeFunction::Integral { initial: 0.5, .. }
    ));
    for t in [0.0, 3.0, 7.5, 14.9, 15.0, 18.0] {
        let exact = if t < 15.0 {
            0.4 * (t * t / 2.0
                + (15.0 / (2.0 * std::f64::consts::PI)).powi(2)
                    * ((2.0 * std::f64::consts::PI * t / 15.0).cos() - 1.0))
        } else {
            6.0 * (t - 7.5)
        };
        for (f, offset) in [
            (drive_fn(&smooth), 0.0),
            (drive_fn(&pieces), 0.0),
            (drive_fn(&velocity), 0.5),
        ] {
            let v = f.eval(t).value - offset;
            assert!((v - exact).abs() < 1e-12, "t = {t}: {v} vs {exact} ({f:?})");
        }
    }
    // A cubic table as a force magnitude, with its slopes given.
    let scene = parse(
        "[[force]]\nname = \"f\"\ntype = \"torque\"\nbody = \"hub\"\ndirection = [0.0, 0.0, 1.0]\n\
         function = { cubic = { points = [[0.0, 0.0], [1.0, 1.0]], slopes = [0.0, 0.0] } }\n",
    )
    .unwrap();
    let Force::Torque { function, .. } = scene.forces[0].value else {
        panic!("{:?}", scene.forces[0].value)
    };
    assert_eq!(function.eval(0.5).value, 0.5);
    assert_eq!(function.eval(0.5).rate, 1.5);
    let monotone = parse(&format!(
        "{MOTOR}function = {{ cubic = {{ points = [[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]], rule = \"monotone\" }} }}\n"
    ))
    .unwrap();
    assert_eq!(drive_fn(&monotone).eval(0.5).value, 0.0);
}

#[test]
fn bad_profiles_and_drives_are_named_with_their_lines() {
    let err = |text: &str| parse(&format!("{MOTOR}{text}")).unwrap_err();
    assert_eq!(
        err("function = { constant = 1.0 }\nvelocity = { constant = 1.0 }\n"),
        "t.toml:15: drive \"motor\": velocity: give either function (the coordinate) or velocity (its rate), not both"
    );
    assert_eq!(
        err(""),
        "t.toml:13: drive \"motor\": function: missing: give function (the coordinate) or velocity (its rate)"
    );
    assert_eq!(
        err("function = { constant = 1.0 }\ninitial = 2.0\n"),
        "t.toml:15: drive \"motor\": initial: applies only to velocity drives (function gives the value itself)"
    );
    assert_eq!(
        err("function = { piecewise = [{ start = 1.0 }, { start = 1.0, poly = [2.0] }] }\n"),
        "t.toml:14: drive \"motor\": function: piece 2: start 1 must be after the previous piece's start 1"
    );
    assert_eq!(
        err("velocity = { piecewise = [{ start = 0.0, cos = 1.0 }] }\n"),
        "t.toml:14: drive \"motor\": velocity: piece 1: cos and sin need omega or period"
    );
    assert_eq!(
        err("function = { piecewise = [{ start = 0.0, poly = [1.0, 2.0, 3.0, 4.0, 5.0] }] }\n"),
        "t.toml:14: drive \"motor\": function: piece 1: poly has 5 coefficients, at most 4 (a cubic in t − start)"
    );
    assert_eq!(
        err("function = { cubic = { points = [[0.0, 0.0], [1.0, 1.0]], slopes = [0.0] } }\n"),
        "t.toml:14: drive \"motor\": function: cubic: 1 slopes for 2 points (one slope per point)"
    );
    assert_eq!(
        err("function = { cubic = { points = [[0.0, 0.0], [1.0, 1.0]], rule = \"akima\" } }\n"),
        "t.toml:14: drive \"motor\": function: cubic: unknown rule \"akima\" (spline or monotone)"
    );
    assert_eq!(
        err("function = { cubic = { points = [[1.0, 0.0], [1.0, 1.0]] } }\n"),
        "t.toml:14: drive \"motor\": function: time table times must increase strictly"
    );
    assert_eq!(
        err("function = { smooth_ramp = { duration = 0.0, slope = 1.0 } }\n"),
        "t.toml:14: drive \"motor\": function: smooth_ramp duration 0 must be finite and > 0"
    );
    let e = err("function = { smooth_ramp = { duration = 1.0, slope = 1.0, speed = 2.0 } }\n");
    assert!(e.starts_with("t.toml:14: unexpected keys in table: speed"), "{e}");
}

#[test]
fn armature_is_checked_and_refused_in_cartesian_coordinates() {
    let axle = "[[joint]]\nname = \"axle\"\ntype = \"revolute\"\nbody_i = \"ground\"\nbody_j = \"hub\"\n";
    let scene = parse(&format!("{axle}armature = 0.25\n")).unwrap();
    assert_eq!(scene.armature, [0.25]);
    // Negative or non-finite: the scene's error naming the joint, the key and the line (14).
    for bad in ["-0.1", "nan", "inf"] {
        let e = parse(&format!("{axle}armature = {bad}\n")).unwrap_err();
        assert!(
            e.contains("t.toml:14") && e.contains("joint \"axle\"") && e.contains("armature"),
            "{e}"
        );
    }
    let fixed = axle.replace("revolute", "fixed");
    let e = parse(&format!("{fixed}armature = 0.1\n")).unwrap_err();
    assert!(e.contains("no coordinate"), "{e}");
    // The Cartesian model has no rotor inertia: asked for, the scene is refused naming the joint.
    let text = format!("{HEADER}formulation = \"cartesian\"\n{HUB}{axle}armature = 0.25\n");
    let scene = Scene::parse(Path::new("t.toml"), &text).unwrap();
    let e = crate::compile::choose(&scene).unwrap_err().to_string();
    assert!(e.contains("joint \"axle\"") && e.contains("armatures"), "{e}");
}

/// A chain of `n` rods (all bodies, then all joints) as `scenes/gen_chain20.py` writes it,
/// with `body(k)` (its mass and inertia lines) and `joint(k)` (its `frame_j` line) in rod k's
/// tables: large enough for the bodies and joints to be checked on every core
/// (`parallel.rs`). Rod k's name is on line 7 + 6k, hinge k's on line 6 + 6n + 7k.
fn chain(n: usize, body: impl Fn(usize) -> String, joint: impl Fn(usize) -> String) -> String {
    let mut text = String::from("[simulation]\nend_time = 1e-3\nstep = 1e-3\nintegrator = \"rk4\"\n");
    for k in 0..n {
        let x = k as f64 + 0.5;
        text += &format!(
            "[[body]]\nid = {k}\nname = \"rod{k}\"\npos = [{x:?}, 0.0, 0.0]\n{}\n",
            body(k)
        );
    }
    for k in 0..n {
        let parent = match k {
            0 => "ground".to_string(),
            _ => format!("rod{}", k - 1),
        };
        text += &format!(
            "[[joint]]\nname = \"hinge{k}\"\ntype = \"revolute\"\nbody_i = \"{parent}\"\nbody_j = \"rod{k}\"\n\
             frame_i = {{ origin = [0.5, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\n{}\n",
            joint(k)
        );
    }
    text
}

/// A unit rod's mass and inertia lines; `mass` -1 makes it wrong, `triangle` a tensor that
/// breaks the triangle inequality (a note).
fn rod(mass: f64, triangle: bool) -> String {
    let inertia = match triangle {
        true => "{ Ixx = 1.0, Iyy = 1.0, Izz = 3.0 }",
        false => "{ Ixx = 5e-05, Iyy = 0.08335833333333333, Izz = 0.08335833333333333 }",
    };
    format!("mass = {mass:?}\ninertia = {inertia}")
}

/// A hinge's `frame_j` line, with a zero axis when `zero`.
fn frame_j(zero: bool) -> String {
    let axis = if zero {
        "[0.0, 0.0, 0.0]"
    } else {
        "[0.0, 1.0, 0.0]"
    };
    format!("frame_j = {{ origin = [-0.5, 0.0, 0.0], axis = {axis} }}")
}

#[test]
fn a_large_scene_reads_as_a_small_one_with_the_first_error_in_file_order() {
    const N: usize = 5_000;
    let load = |text: String| Scene::parse(Path::new("t.toml"), &text).map_err(|e| e.to_string());
    let plain = |_| rod(1.0, false);
    let straight = |_| frame_j(false);
    // Rods 100 and 4,900 have inertias that break the triangle inequality: a note each, in
    // file order.
    let scene = load(chain(N, |k| rod(1.0, k == 100 || k == 4_900), straight)).unwrap();
    assert_eq!((scene.bodies.len(), scene.joints.len()), (N, N));
    for k in [0, 1, 2_345, N - 1] {
        let (body, joint) = (&scene.bodies[k], &scene.joints[k]);
        assert_eq!((body.name.clone(), body.line), (format!("rod{k}"), 7 + 6 * k));
        assert_eq!(body.value.body.position.x, k as f64 + 0.5);
        assert_eq!(
            (joint.name.clone(), joint.line),
            (format!("hinge{k}"), 6 + 6 * N + 7 * k)
        );
        assert_eq!(joint.value.body_j, BodyRef::Body(k));
        let parent = k.checked_sub(1).map_or(BodyRef::Ground, BodyRef::Body);
        assert_eq!(joint.value.body_i, parent);
    }
    let noted: Vec<usize> = ["\"rod100\"", "\"rod4900\""]
        .iter()
        .filter_map(|name| scene.notes.iter().position(|note| note.contains(name)))
        .collect();
    assert_eq!(noted, [0, 1], "{:?}", scene.notes);

    // Two faults in one file: the first in file order is the error, whichever its kind.
    let renamed = |text: String, from: &str, to: &str| {
        text.replacen(&format!("name = \"{from}\"\n"), &format!("name = \"{to}\"\n"), 1)
    };
    let wrong_mass = |k| rod(if k == 4_000 { -1.0 } else { 1.0 }, false);
    let mass_first = load(renamed(chain(N, wrong_mass, straight), "rod4500", "rod10")).unwrap_err();
    assert!(
        mass_first.starts_with(&format!("t.toml:{}: body \"rod4000\": mass", 7 + 6 * 4_000 + 2)),
        "{mass_first}"
    );
    let name_first = load(renamed(chain(N, wrong_mass, straight), "rod3000", "rod10")).unwrap_err();
    assert!(
        name_first.starts_with(&format!("t.toml:{}: body \"rod10\": ", 7 + 6 * 3_000)),
        "{name_first}"
    );
    assert!(name_first.contains("body name \"rod10\""), "{name_first}");
    assert!(
        name_first.contains(&format!("line {}", 7 + 6 * 10)),
        "{name_first}"
    );
    let zero_axis = |k| frame_j(k == 4_200);
    let axis_first = load(renamed(chain(N, plain, zero_axis), "hinge4300", "hinge5")).unwrap_err();
    assert!(
        axis_first.starts_with(&format!(
            "t.toml:{}: joint \"hinge4200\": frame_j",
            6 + 6 * N + 7 * 4_200 + 5
        )),
        "{axis_first}"
    );
    let joint_name_first = load(renamed(chain(N, plain, zero_axis), "hinge2000", "hinge5")).unwrap_err();
    assert!(
        joint_name_first.starts_with(&format!("t.toml:{}: joint \"hinge5\": ", 6 + 6 * N + 7 * 2_000)),
        "{joint_name_first}"
    );
    assert!(
        joint_name_first.contains(&format!("line {}", 6 + 6 * N + 7 * 5)),
        "{joint_name_first}"
    );
}
