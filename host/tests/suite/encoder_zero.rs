//! An encoder's `zero` (scenes/README.md): by default it reads 0 at the scene's initial pose,
//! as a servo's set-point counts; `"frames"` reads the kernel's joint-frame angle; an angle
//! sets the frame angle that reads 0. The scene: hil_arm's hinge (axis y, given by its axis
//! alone) with the arm pitched 0.7 rad about that axis at t = 0.

use ferrodyn_host::compile::compile;
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use std::path::Path;

const PITCH: f64 = 0.7;

fn scene(zero: &str) -> String {
    let (c, s) = (PITCH.cos(), PITCH.sin());
    // R_y(0.7) takes the body's (0.25, 0, 0) to (0.25 cos, 0, −0.25 sin): the hinge stays at
    // the origin.
    format!(
        "[simulation]\nend_time = 0.2\nstep = 1e-3\nintegrator = \"rk4\"\n\n\
         [[body]]\nid = 1\nname = \"arm\"\nmass = 1.0\n\
         inertia = {{ Ixx = 5e-5, Iyy = 0.0208, Izz = 0.0208 }}\n\
         pos = [{}, 0.0, {}]\norient = {{ pitch = {PITCH} }}\n\n\
         [[joint]]\nname = \"motor\"\ntype = \"revolute\"\nbody_i = \"ground\"\nbody_j = \"arm\"\n\
         frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\n\
         frame_j = {{ origin = [-0.25, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\n\n\
         [[sensor]]\nname = \"encoder\"\njoint = \"motor\"\n{zero}\n",
        0.25 * c,
        -0.25 * s
    )
}

/// The encoder's angle at every step of the scene with `zero`.
fn angles(zero: &str) -> Vec<f64> {
    let text = scene(zero);
    let scene = Scene::parse(Path::new("pitched_arm.toml"), &text).unwrap();
    let mut sim = compile(&scene).unwrap();
    let mut out = Vec::new();
    for _ in 0..200 {
        let mut row = Vec::new();
        for sensor in &sim.labels.sensors {
            sensor.sample(sim.rigid(), sim.flexible(), &mut row);
        }
        out.push(row[0]);
        sim.step().unwrap();
    }
    out
}

#[test]
fn the_default_zero_is_the_initial_pose_and_frames_read_the_pitch() {
    let initial = angles("");
    let frames = angles("zero = \"frames\"");
    assert_eq!(initial[0], 0.0, "the initial pose reads 0");
    assert!(
        (frames[0].abs() - PITCH).abs() < 1e-12,
        "the joint frames read the arm's initial pitch about the hinge: {}",
        frames[0]
    );
    // The arm falls under gravity: both read its rotation, from different zeros.
    assert!(initial[199].abs() > 0.05, "it moved: {}", initial[199]);
    for (a, f) in initial.iter().zip(&frames) {
        assert!((a - (f - frames[0])).abs() < 1e-12, "{a} vs {f} − {}", frames[0]);
    }
    assert_eq!(angles("zero = \"initial\""), initial);
}

#[test]
fn an_angle_zero_is_the_frame_angle_that_reads_zero() {
    let frames = angles("zero = \"frames\"");
    let at = angles(&format!("zero = {:?}", frames[0]));
    assert_eq!(at[0], 0.0);
    let shifted = angles("zero = 0.25");
    assert!((shifted[0] - (frames[0] - 0.25)).abs() < 1e-15);
}

#[test]
fn a_bad_zero_is_refused_with_its_line() {
    for (zero, line) in [("zero = \"home\"", 25), ("zero = 4.0", 25)] {
        let text = scene(zero);
        let e = Scene::parse(Path::new("pitched_arm.toml"), &text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("zero") && e.contains("\"initial\""), "{e}");
        assert!(e.contains(&format!(":{line}")), "{e}");
    }
    let text = scene("").replace("joint = \"motor\"\n", "body = \"arm\"\nzero = \"frames\"\n");
    let e = Scene::parse(Path::new("pitched_arm.toml"), &text)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`zero` belongs to a joint (encoder) sensor"), "{e}");
}

#[test]
fn the_exported_model_reads_from_the_same_zero() {
    let module = |zero: &str| {
        let text = scene(zero);
        let scene = Scene::parse(Path::new("pitched_arm.toml"), &text).unwrap();
        rust_module(&scene, Precision::F64).unwrap()
    };
    // read_outputs: the encoder is the initial reading plus the tree's coordinate q.
    let initial = module("");
    assert!(initial.contains("wrap(s(0.0) + q[0])"), "{initial}");
    let frames = module("zero = \"frames\"");
    let line = frames.lines().find(|l| l.contains("wrap(s(")).unwrap();
    let constant: f64 = line
        .split("wrap(s(")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((constant.abs() - PITCH).abs() < 1e-12, "{line}");
}
