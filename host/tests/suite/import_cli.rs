//! `ferrodyn import` end to end: the written scene and the model file run to the same bits, the
//! notes go to standard error, and a refused feature is one error naming file and line.

use crate::common;

use std::process::Command;

fn ferrodyn(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(args)
        .output()
        .expect("ferrodyn runs")
}

/// A two-link arm: a shoulder on a turned axis, an elbow with damping and limits, a massless
/// tool frame.
const ARM: &str = r#"<robot name="arm">
  <link name="base"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 1" rpy="0.2 0 0.3"/><axis xyz="0 1 0"/>
  </joint>
  <link name="upper"><inertial><origin xyz="0 0 -0.25"/><mass value="1"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.001"/></inertial></link>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="lower"/><origin xyz="0 0 -0.5"/><axis xyz="1 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><dynamics damping="0.01"/>
  </joint>
  <link name="lower"><inertial><origin xyz="0 0 -0.2" rpy="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.001"/></inertial></link>
  <joint name="tool_mount" type="fixed"><parent link="lower"/><child link="tool"/><origin xyz="0 0 -0.4"/></joint>
  <link name="tool"/>
</robot>
"#;

#[test]
fn the_import_summary_counts_in_the_right_number() {
    // One body on one hinge: "1 body, 1 joint", not "1 bodies, 1 joints" (issue 38).
    let dir = common::scratch_dir("import_cli", "one_body");
    let model = dir.join("pendulum.urdf");
    std::fs::write(
        &model,
        r#"<robot name="pendulum"><link name="base"/>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="bob"/><axis xyz="0 1 0"/></joint>
  <link name="bob"><inertial><origin xyz="0 0 -1"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>
</robot>"#,
    )
    .unwrap();
    let out = dir.join("pendulum.toml");
    let import = ferrodyn(&["import", model.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let notes = String::from_utf8_lossy(&import.stderr);
    assert!(import.status.success(), "{notes}");
    assert!(
        notes.contains("pendulum.urdf: 1 body, 1 joint, 0 forces, 0 shapes"),
        "{notes}"
    );
}

fn digest(out: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find(|l| l.starts_with("state digest"))
        .expect("a digest line")
        .to_string()
}

#[test]
fn written_scene_and_model_file_run_to_the_same_bits() {
    let dir = common::scratch_dir("import_cli", "round_trip");
    let model = dir.join("arm.urdf");
    std::fs::write(&model, ARM).unwrap();
    let scene = dir.join("scene/arm.toml");
    std::fs::create_dir_all(scene.parent().unwrap()).unwrap();
    let (m, s) = (model.to_str().unwrap(), scene.to_str().unwrap());
    let import = ferrodyn(&["import", m, "-o", s]);
    let notes = String::from_utf8_lossy(&import.stderr);
    assert!(import.status.success(), "{notes}");
    // The forces: the elbow's damper and its limits.
    assert!(notes.contains("2 bodies, 2 joints, 2 forces"), "{notes}");
    assert!(std::fs::read_to_string(&scene)
        .unwrap()
        .contains("limits = [-1.0, 1.0]"));
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let from_scene = digest(&ferrodyn(&["run", s, "--out", o, "--end", "0.2", "--force"]));
    let from_model = digest(&ferrodyn(&["run", m, "--out", o, "--end", "0.2", "--force"]));
    assert_eq!(from_scene, from_model);
    let check = ferrodyn(&["check", m]);
    assert!(String::from_utf8_lossy(&check.stdout).contains("joint coordinates (tree): 2 joints"));
}

#[test]
fn a_refused_feature_is_one_error_with_file_and_line() {
    let dir = common::scratch_dir("import_cli", "refused");
    // A transmission coupling passive joints (a <mimic>, then a planar joint, were the refused
    // feature until couplings and the planar chain came).
    let model = dir.join("gripper.urdf");
    let text = ARM.replace(
        "</robot>",
        "  <transmission name=\"grip\"><type>pr2_mechanism_model/PR2GripperTransmission</type></transmission>\n</robot>",
    );
    std::fs::write(&model, text).unwrap();
    let out = ferrodyn(&["import", model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("gripper.urdf:16:") && err.contains("PR2GripperTransmission couples the passive"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn position_servos_put_one_servo_input_on_each_moving_joint() {
    let dir = common::scratch_dir("import_cli", "servos");
    let model = dir.join("arm.urdf");
    std::fs::write(&model, ARM).unwrap();
    let out = dir.join("arm.toml");
    let (model, out_path) = (model.to_str().unwrap(), out.to_str().unwrap());
    let import = ferrodyn(&["import", model, "-o", out_path, "--position-servos", "50,2"]);
    let notes = String::from_utf8_lossy(&import.stderr);
    assert!(import.status.success(), "{notes}");
    assert!(notes.contains("2 position servo inputs"), "{notes}");
    // The written scene loads with a servo of the given gains on the shoulder and the elbow
    // (the tool mount is fixed: no coordinate to serve).
    let scene = ferrodyn_host::scene::Scene::load(&out).unwrap();
    let served: Vec<(&str, &str)> = scene
        .inputs
        .iter()
        .map(|i| (i.name.as_str(), scene.joints[i.value.joint].name.as_str()))
        .collect();
    assert_eq!(served, [("shoulder.servo", "shoulder"), ("elbow.servo", "elbow")]);
    for input in &scene.inputs {
        let gains = ferrodyn_kernel::tree::Servo::Position { kp: 50.0, kd: 2.0 };
        assert_eq!(input.value.servo, gains);
    }
    // It runs in joint coordinates with its servos (their law: host/tests/suite/servo.rs).
    let run = ferrodyn(&[
        "run",
        out_path,
        "--end",
        "0.5",
        "--out",
        dir.join("o").to_str().unwrap(),
        "--force",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // Gains that are not KP,KD with kp > 0 are one error naming the flag.
    for bad in ["50", "0,1", "50,-1", "a,b"] {
        let import = ferrodyn(&["import", model, "-o", out_path, "--position-servos", bad]);
        let message = String::from_utf8_lossy(&import.stderr);
        assert!(
            !import.status.success() && message.contains("--position-servos"),
            "{bad}: {message}"
        );
    }
}
