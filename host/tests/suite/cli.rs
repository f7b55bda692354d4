//! The `ferrodyn` program end to end: default scene outputs, overwrite protection, bad input.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

fn ferrodyn(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(args)
        .output()
        .expect("ferrodyn runs")
}

/// `ferrodyn run SCENE --out DIR --end END --force`.
fn run_until(scene: &std::path::Path, dir: &std::path::Path, end: &str) -> std::process::Output {
    let (scene, dir) = (scene.to_str().unwrap(), dir.to_str().unwrap());
    ferrodyn(&["run", scene, "--out", dir, "--end", end, "--force"])
}

#[test]
fn run_writes_trajectory_and_energy_csv_and_refuses_to_overwrite() {
    let dir = common::scratch_dir("cli", "run");
    let out = dir.to_str().unwrap();
    let first = ferrodyn(&[
        "run",
        "--out",
        out,
        "--links",
        "3",
        "--end",
        "0.5",
        "--output-interval",
        "0.1",
    ]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let energy = std::fs::read_to_string(dir.join("energy.csv")).unwrap();
    let rows: Vec<&str> = energy.lines().collect();
    assert_eq!(
        rows[0],
        "time,kinetic,potential,strain,total,violation_position,violation_velocity"
    );
    assert_eq!(rows.len(), 1 + 6, "t = 0, 0.1, …, 0.5");
    // Energy is conserved by the falling chain: total at the end equals total at the start.
    let total = |row: &str| row.split(',').nth(4).unwrap().parse::<f64>().unwrap();
    assert!((total(rows[6]) - total(rows[1])).abs() < 1e-6, "{energy}");
    let last_time: f64 = rows[6].split(',').next().unwrap().parse().unwrap();
    assert_eq!(last_time, 0.5);
    assert!(
        std::fs::metadata(dir.join("energy.png")).unwrap().len() > 1000,
        "energy plot written"
    );
    let trajectory = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    assert_eq!(trajectory.lines().next().unwrap().split(',').count(), 1 + 3 * 7);

    let again = ferrodyn(&["run", "--out", out, "--links", "3", "--end", "0.1"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let forced = ferrodyn(&["run", "--out", out, "--links", "3", "--end", "0.1", "--force"]);
    assert!(forced.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_explained() {
    let dir = common::scratch_dir("cli", "bad");
    let out = dir.to_str().unwrap();
    let unknown = ferrodyn(&["run", "--out", out, "--integrator", "euler-maruyama"]);
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        !unknown.status.success() && message.contains("rk4") && message.contains("euler-maruyama"),
        "{message}"
    );
    let zero = ferrodyn(&["run", "--out", out, "--links", "0"]);
    assert!(!zero.status.success() && String::from_utf8_lossy(&zero.stderr).contains("--links"));
    let negative = ferrodyn(&["run", "--out", out, "--dt=-1e-3"]);
    assert!(!negative.status.success() && String::from_utf8_lossy(&negative.stderr).contains("--dt"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reports_the_arm_dof_and_run_uses_the_scene() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let arm = ferrodyn(&["check", root.join("scenes/arm.toml").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&arm.stdout);
    assert!(arm.status.success(), "{}", String::from_utf8_lossy(&arm.stderr));
    // An open tree: its DOF are its joint coordinates (a spherical and a revolute joint), as
    // the Cartesian rank of Φ_q (8 → 4 independent) found before `check` left it to loops.
    assert!(
        text.contains("DOF: Grübler 4 | open tree: 4 independent joint coordinates"),
        "{text}"
    );
    // Prescribed motion: the driven crank tracks θ(t) = 0.5 sin 3t with drift near round-off.
    let crank = ferrodyn(&[
        "check",
        root.join("scenes/driven_crank.toml").to_str().unwrap(),
        "--motion",
    ]);
    let text = String::from_utf8_lossy(&crank.stdout);
    assert!(
        crank.status.success() && text.contains("DOF: Grübler 0") && text.contains("largest |Φ| per joint"),
        "{text}"
    );
    let motor: f64 = text
        .lines()
        .find(|l| l.contains("joint \"motor\": ") && !l.contains("t0"))
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(motor < 1e-9, "drive tracking error {motor}");
    let strap = ferrodyn(&["check", root.join("scenes/arm_strap.toml").to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&strap.stdout).contains("→ 3 independent"));

    let dir = common::scratch_dir("cli", "scene");
    let run = ferrodyn(&[
        "run",
        root.join("scenes/pendulum.toml").to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(dir.join("energy.csv").exists() && dir.join("energy.png").exists());
    // arm.toml asks for reactions ([output] reactions = true): reactions.csv has the force of
    // each joint on its body j, one row per output time (10 ms over 0.1 s).
    let arm_out = common::scratch_dir("cli", "arm");
    let arm = ferrodyn(&[
        "run",
        root.join("scenes/arm.toml").to_str().unwrap(),
        "--out",
        arm_out.to_str().unwrap(),
        "--end",
        "0.1",
    ]);
    assert!(arm.status.success(), "{}", String::from_utf8_lossy(&arm.stderr));
    let reactions = std::fs::read_to_string(arm_out.join("reactions.csv")).unwrap();
    assert_eq!(
        reactions.lines().next().unwrap(),
        "time,shoulder_fx,shoulder_fy,shoulder_fz,elbow_fx,elbow_fy,elbow_fz"
    );
    assert_eq!(reactions.lines().count(), 1 + 11);
    let _ = std::fs::remove_dir_all(&arm_out);
    // Flexible scenes: the explicit stability limit against the scene's step (cantilever.toml
    // uses 0.55 of its RK4 limit, as its header says).
    let flexible = ferrodyn(&["check", root.join("scenes/cantilever.toml").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&flexible.stdout);
    assert!(
        flexible.status.success(),
        "{}",
        String::from_utf8_lossy(&flexible.stderr)
    );
    assert!(
        text.contains("366 nodes, 944 tets") && text.contains("of the rk4 limit"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_flexible_scene_runs_and_writes_vtu_frames() {
    // 20 RK4 steps of the Gmsh cantilever (366 nodes, 944 tets): a PVD collection with one VTU
    // frame per output interval (1 ms → frames at 0 and 0.2 ms), the energy CSV and plot.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = common::scratch_dir("cli", "flex");
    let scene = root.join("scenes/cantilever.toml");
    let run = ferrodyn(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--end",
        "2e-4",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let pvd = std::fs::read_to_string(dir.join("beam.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 2, "{pvd}");
    let frame = std::fs::read_to_string(dir.join("beam_00001.vtu")).unwrap();
    assert!(frame.contains(r#"NumberOfPoints="366""#) && frame.contains(r#"NumberOfCells="944""#));
    let energy = std::fs::read_to_string(dir.join("energy.csv")).unwrap();
    assert_eq!(
        energy.lines().next().unwrap(),
        "time,kinetic,potential,strain,total"
    );
    assert!(dir.join("energy.png").exists());
    // A flexible body alone with a node sensor writes sensors.csv (it was only written when
    // the scene had rigid bodies).
    let sensed = run_until(&root.join("scenes/beam6.toml"), &dir, "2e-3");
    assert!(
        sensed.status.success(),
        "{}",
        String::from_utf8_lossy(&sensed.stderr)
    );
    let sensors = std::fs::read_to_string(dir.join("sensors.csv")).unwrap();
    assert_eq!(sensors.lines().next().unwrap(), "time,tip_ux,tip_uy,tip_uz");
    let last: Vec<f64> = (sensors.lines().last().unwrap().split(','))
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(last[3] < 0.0, "the tip sags: {last:?}");
    // A beam attached to a driven hub (rigid + flexible, implicit): two steps.
    let coupled = run_until(&root.join("scenes/spinning_beam.toml"), &dir, "2e-3");
    assert!(
        coupled.status.success(),
        "{}",
        String::from_utf8_lossy(&coupled.stderr)
    );
    // The header names what runs: "1 rigid body, 2 joints (6 constraint rows) + flexible body …".
    assert!(String::from_utf8_lossy(&coupled.stdout).contains("1 rigid body"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn implicit_rigid_scene_runs_with_its_integrator() {
    // scenes/chain20_implicit.toml: generalized-α at 2 ms in joint coordinates; 0.2 s of it,
    // the joints of the bodies it moves closed to rounding (|Φ| ≤ 1e-12), the Newton work in
    // the summary.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = common::scratch_dir("cli", "implicit");
    let run = ferrodyn(&[
        "run",
        root.join("scenes/chain20_implicit.toml").to_str().unwrap(),
        "--end",
        "0.2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(
        text.contains("generalized-alpha, dt = 0.002 s")
            && text.contains("in joint coordinates (20 DOF)")
            && text.contains("100 steps")
            && text.contains("Newton iterations"),
        "{text}"
    );
    let phi: f64 = text
        .split("max |Φ| = ")
        .nth(1)
        .unwrap()
        .split(|c: char| c.is_whitespace() || c == ';' || c == ',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(phi <= 1e-12, "{text}");
    // `check` says where it runs.
    let check = ferrodyn(&[
        "check",
        root.join("scenes/chain20_implicit.toml").to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(
        said.contains("formulation: joint coordinates (tree): 20 joints form an open tree"),
        "{said}"
    );
}

#[test]
fn check_prints_one_capacity_type_the_one_export_writes() {
    // Issue 38: `check` printed a Cartesian `Fixed<…>` "for a firmware build" and, under
    // `--target`, the tree's `Fixed<n>`; export writes the tree's (`export_firmware` test).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let check = |scene: &str| {
        let out = ferrodyn(&[
            "check",
            root.join(scene).to_str().unwrap(),
            "--target",
            "cortex-m4f",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let arm = check("scenes/hil_arm.toml");
    let types: Vec<&str> = arm
        .lines()
        .filter(|l| l.contains("pub type Capacities"))
        .collect();
    assert_eq!(
        types,
        ["kernel capacities (joint coordinates, as `ferrodyn export` writes them): pub type Capacities = ferrodyn_kernel::Fixed<1>; // 1 link, 1 DOF"],
        "{arm}"
    );
    assert!(
        arm.contains("target cortex-m4f at 168 MHz (the part's clock; QEMU's MPS2 boards run at 25 MHz): Fixed<1>, 1 link, 1 DOF"),
        "{arm}"
    );
    // A tree with a loop: the capacities with its loop joint, rows and dense workspace, the
    // same on both lines and in the exported module (host/tests/suite/tree_loops.rs).
    let four_bar = check("scenes/four_bar.toml");
    for expected in [
        "pub type Capacities = ferrodyn_kernel::Fixed<3, 1, 0, 5, 59>; // 3 links, 3 DOF",
        "): Fixed<3, 1, 0, 5, 59>, 3 links, 3 DOF, planar, 1 loop joint (5 rows)",
        "  f32: model 2284 B + data 2536 B",
    ] {
        assert!(four_bar.contains(expected), "missing `{expected}` in\n{four_bar}");
    }
    // pendulum.toml asks for Cartesian coordinates.
    let pendulum = check("scenes/pendulum.toml");
    assert!(
        pendulum.contains(
            "kernel capacities of the Cartesian model (export takes joint coordinates): pub type Capacities"
        ),
        "{pendulum}"
    );
    // A drive is a row on the tree (it kept the scene Cartesian before): check names it, and
    // the target line counts its coordinate row in the capacities the export writes.
    let crank = check("scenes/driven_crank.toml");
    assert!(
        crank.contains("  drive \"motor\": joint \"bearing\"'s coordinate follows its function (1 row on the tree's coordinates)")
            && crank.contains("): Fixed<1, 0, 0, 1, 6>, 1 link, 1 DOF")
            && crank.contains(", 1 coordinate row (drives)"),
        "{crank}"
    );
}
