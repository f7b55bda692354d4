//! Parameter studies (`ferrodyn sweep`): designs and their manifests, path and spec errors,
//! running cases (idempotent, failures recorded), collecting, and the local pool against
//! sequential runs; physically, the pendulum's speed at the bottom against gravity.

use crate::common::scratch_dir;
use ferrodyn_host::sweep::{
    collect, local, plan, run_case, slurm, CaseOptions, CaseOutcome, Design, LocalOptions, PlanOptions,
    SlurmOptions, Status, Study,
};
use std::fs;
use std::path::{Path, PathBuf};

/// `scenes/pendulum.toml` (1 kg bob on a 1 m rod, released horizontally) for `end_time`
/// seconds, with gravity written out and a point sensor on the bob.
fn pendulum(dir: &Path, end_time: f64) -> PathBuf {
    let text = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/pendulum.toml")).unwrap();
    let text = text
        .replace("end_time = 10.0", &format!("end_time = {end_time:?}"))
        .replace(
            "integrator = \"rk4\"",
            "integrator = \"rk4\"\ngravity = [0.0, 0.0, -9.81]",
        );
    let path = dir.join("pendulum.toml");
    fs::write(&path, text + "\n[[sensor]]\nname = \"bob\"\nbody = \"bob\"\n").unwrap();
    path
}

fn options(scene: &Path, params: &[&str], design: Design, seed: u64, out: PathBuf) -> PlanOptions {
    PlanOptions {
        scene: scene.to_path_buf(),
        params: params.iter().map(|p| p.to_string()).collect(),
        design,
        seed,
        out,
        force: false,
    }
}

/// The column of parameter `k` as numbers.
/// A grid study of the pendulum run for `end_time` over `params`, planned in the fresh scratch
/// directory `name`: the study's directory and what `plan` returned.
fn grid_study(name: &str, end_time: f64, params: &[&str]) -> (PathBuf, Study) {
    let dir = scratch_dir("sweep", name);
    let scene = pendulum(&dir, end_time);
    let root = dir.join("study");
    let study = plan(&options(&scene, params, Design::Grid, 0, root.clone())).unwrap();
    (root, study)
}

fn column(study: &Study, k: usize) -> Vec<f64> {
    study.cases.iter().map(|c| c.cells[k].parse().unwrap()).collect()
}

#[test]
fn grid_is_the_cartesian_product_of_the_values() {
    let dir = scratch_dir("sweep", "grid");
    let scene = pendulum(&dir, 0.01);
    let params = [
        "body.bob.mass=1,2",
        "simulation.step=lin:1e-3:2e-3:3",
        "simulation.gravity.2=log:1:100:3",
    ];
    let study = plan(&options(&scene, &params, Design::Grid, 0, dir.join("study"))).unwrap();
    assert_eq!(study.cases.len(), 2 * 3 * 3);
    assert_eq!(
        study.params,
        ["body.bob.mass", "simulation.step", "simulation.gravity.2"]
    );
    // First parameter slowest, as nested loops.
    let rows: Vec<Vec<&str>> = study
        .cases
        .iter()
        .map(|c| c.cells.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(rows[0], ["1e0", "1e-3", "1e0"]);
    assert_eq!(rows[1], ["1e0", "1e-3", "1e1"]);
    assert_eq!(rows[4], ["1e0", "1.5e-3", "1e1"]);
    assert_eq!(rows[17], ["2e0", "2e-3", "1e2"]);
    let mut unique = rows.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 18, "every combination once");
    // The manifest on disk reads back as planned, each case's digest that of its own scene.
    let reopened = Study::open(&dir.join("study")).unwrap();
    assert_eq!(reopened.cases, study.cases);
    let digests: std::collections::BTreeSet<&str> = study.cases.iter().map(|c| c.digest.as_str()).collect();
    assert_eq!(digests.len(), 18);
    let manifest = fs::read_to_string(dir.join("study/manifest.csv")).unwrap();
    assert!(manifest.starts_with(
        "index,body.bob.mass,simulation.step,simulation.gravity.2,seed,digest\n0,1e0,1e-3,1e0,"
    ));
}

#[test]
fn latin_hypercube_hits_every_stratum_once_and_follows_its_seed() {
    let dir = scratch_dir("sweep", "lhs");
    let scene = pendulum(&dir, 0.01);
    let n = 16;
    let params = [
        "body.bob.mass=uniform:2:4",
        "simulation.gravity.2=normal:-9.81:0.5",
        "simulation.integrator=rk4,dopri45",
    ];
    let a = plan(&options(
        &scene,
        &params,
        Design::LatinHypercube(n),
        7,
        dir.join("a"),
    ))
    .unwrap();
    // Mass strata: [2 + 2k/n, 2 + 2(k+1)/n), each taken by exactly one case.
    let mut strata: Vec<usize> = column(&a, 0)
        .iter()
        .map(|m| ((m - 2.0) / 2.0 * n as f64) as usize)
        .collect();
    strata.sort_unstable();
    assert_eq!(strata, (0..n).collect::<Vec<_>>());
    // Gravity: the normal's probability strata, through Φ(x) = erfc(−z/√2)/2.
    let mut strata: Vec<usize> = column(&a, 1)
        .iter()
        .map(|g| {
            let z = (g + 9.81) / 0.5;
            (0.5 * libm::erfc(-z / std::f64::consts::SQRT_2) * n as f64) as usize
        })
        .collect();
    strata.sort_unstable();
    assert_eq!(strata, (0..n).collect::<Vec<_>>());
    // The two integrators, n/2 cases each (two strata per level).
    let rk4 = a.cases.iter().filter(|c| c.cells[2] == "rk4").count();
    assert_eq!(rk4, n / 2);

    let again = plan(&options(
        &scene,
        &params,
        Design::LatinHypercube(n),
        7,
        dir.join("b"),
    ))
    .unwrap();
    let other = plan(&options(
        &scene,
        &params,
        Design::LatinHypercube(n),
        8,
        dir.join("c"),
    ))
    .unwrap();
    let manifest = |d: &str| fs::read_to_string(dir.join(d).join("manifest.csv")).unwrap();
    assert_eq!(manifest("a"), manifest("b"), "same seed, same manifest");
    assert_ne!(manifest("a"), manifest("c"), "another seed, another manifest");
    assert_eq!(again.cases, a.cases);
    assert_ne!(other.cases[0].seed, a.cases[0].seed);
}

#[test]
fn monte_carlo_draws_within_the_distribution_and_follows_its_seed() {
    let dir = scratch_dir("sweep", "mc");
    let scene = pendulum(&dir, 0.01);
    let params = [
        "body.bob.mass=uniform:0.5:2",
        "simulation.step=loguniform:1e-4:1e-2",
    ];
    let a = plan(&options(
        &scene,
        &params,
        Design::MonteCarlo(200),
        3,
        dir.join("a"),
    ))
    .unwrap();
    let mass = column(&a, 0);
    assert!(mass.iter().all(|m| (0.5..=2.0).contains(m)));
    // The mean of 200 uniforms on [0.5, 2]: 1.25 ± 3σ/√200 with σ = 1.5/√12.
    let mean = mass.iter().sum::<f64>() / mass.len() as f64;
    assert!(
        (mean - 1.25).abs() < 3.0 * 1.5 / 12f64.sqrt() / 200f64.sqrt(),
        "{mean}"
    );
    let step = column(&a, 1);
    assert!(step.iter().all(|h| (1e-4..=1e-2).contains(h)));
    // Log-uniform: half the draws below the geometric middle 1e-3 (± 3σ of a binomial).
    let below = step.iter().filter(|&&h| h < 1e-3).count() as f64;
    assert!((below - 100.0).abs() < 3.0 * 50f64.sqrt(), "{below}");
    let b = plan(&options(
        &scene,
        &params,
        Design::MonteCarlo(200),
        3,
        dir.join("b"),
    ))
    .unwrap();
    let c = plan(&options(
        &scene,
        &params,
        Design::MonteCarlo(200),
        4,
        dir.join("c"),
    ))
    .unwrap();
    assert_eq!(a.cases, b.cases);
    assert_ne!(column(&a, 0), column(&c, 0));
}

#[test]
fn unknown_paths_and_malformed_specs_are_named_at_plan_time() {
    let dir = scratch_dir("sweep", "errors");
    let scene = pendulum(&dir, 0.01);
    let error = |param: &str, design: Design| {
        let o = options(&scene, &[param], design, 1, dir.join("study"));
        format!("{:#}", plan(&o).unwrap_err())
    };
    let e = error("body.bobb.mass=1,2", Design::Grid);
    assert!(
        e.contains("--param body.bobb.mass=1,2: unknown path: body has no element named `bobb` (names: bob)"),
        "{e}"
    );
    let e = error("simulation.dt=1e-3", Design::Grid);
    assert!(
        e.contains("simulation.dt") && e.contains("keys: end_time, step, integrator, gravity"),
        "{e}"
    );
    let e = error("body.bob.mass=lin:1:2", Design::Grid);
    assert!(
        e.contains("--param body.bob.mass=lin:1:2: malformed spec: 'lin:1:2': expected lin:START:END:COUNT"),
        "{e}"
    );
    let e = error("body.bob.mass=normal:1:0.1", Design::Grid);
    assert!(e.contains("malformed spec") && e.contains("--monte-carlo"), "{e}");
    let e = error("body.bob.mass=heavy", Design::Grid);
    assert!(e.contains("'heavy' is not a finite number"), "{e}");
    let e = error("body.bob.mass", Design::Grid);
    assert!(e.contains("expected PATH=SPEC"), "{e}");
    assert!(
        !dir.join("study").exists(),
        "nothing is written for a refused plan"
    );
}

#[test]
fn a_case_runs_once_and_is_skipped_when_done_with_the_same_scene() {
    let (root, _) = grid_study("idempotent", 0.05, &["body.bob.mass=1,2"]);
    let CaseOutcome::Ran(first) = run_case(&root, 1, CaseOptions::default()).unwrap() else {
        panic!("the first run of case 1 was skipped");
    };
    assert_eq!(first.status, Status::Ok, "{}", first.error);
    let result = root.join("cases/00001/result.toml");
    let (bytes, modified) = (
        fs::read(&result).unwrap(),
        fs::metadata(&result).unwrap().modified().unwrap(),
    );
    match run_case(&root, 1, CaseOptions::default()).unwrap() {
        CaseOutcome::Skipped(r) => assert_eq!(r, first),
        CaseOutcome::Ran(_) => panic!("case 1 ran again with the same digest"),
    }
    assert_eq!(fs::read(&result).unwrap(), bytes);
    assert_eq!(fs::metadata(&result).unwrap().modified().unwrap(), modified);
    // --force runs it again: the same scalars, bit for bit.
    let CaseOutcome::Ran(forced) = run_case(
        &root,
        1,
        CaseOptions {
            force: true,
            ..Default::default()
        },
    )
    .unwrap() else {
        panic!("--force skipped");
    };
    assert_eq!(forced.scalars, first.scalars);
    // With --outputs the case also gets the files of `ferrodyn run`.
    let options = CaseOptions {
        outputs: true,
        force: false,
    };
    run_case(&root, 0, options).unwrap();
    assert!(root.join("cases/00000/outputs/energy.csv").exists());
    assert!(root.join("cases/00000/outputs/sensors.csv").exists());
    // A case that does not exist is an error naming the range.
    let e = format!("{:#}", run_case(&root, 2, CaseOptions::default()).unwrap_err());
    assert!(e.contains("case 2 does not exist") && e.contains("(0-1)"), "{e}");
    // No temporary file is left behind.
    let leftovers: Vec<_> = fs::read_dir(root.join("cases/00001"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_failing_case_is_reported_and_the_others_are_collected() {
    let (root, study) = grid_study("failing", 0.05, &["body.bob.mass=1,-1,2,3"]);
    // Case 3 is never run: it is missing.
    for index in 0..3 {
        run_case(&root, index, CaseOptions::default()).unwrap();
    }
    let collected = collect(&root, None).unwrap();
    assert_eq!(collected.ok, 2);
    assert_eq!(collected.invalid, [1]);
    assert_eq!(collected.missing, [3]);
    assert_eq!(collected.resubmit, [3]);
    assert_eq!(fs::read_to_string(root.join("resubmit.txt")).unwrap(), "3\n");
    let csv = fs::read_to_string(root.join("results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(
        lines[0].starts_with("index,body.bob.mass,seed,digest,status,steps,time_final,energy_change_max,")
    );
    assert!(
        lines[0].ends_with(",bob_vz_min,bob_vz_max,bob_vz_final,error"),
        "{}",
        lines[0]
    );
    assert!(!lines[0].contains("wall"), "wall time is not in results.csv");
    assert!(lines[1].starts_with(&format!(
        "0,1e0,{},{},ok,50,5e-2,",
        study.cases[0].seed, study.cases[0].digest
    )));
    assert!(
        lines[2].contains(",invalid,")
            && lines[2]
                .ends_with(r#""cases/00001/scene.toml:14: body ""bob"": mass: -1 must be finite and ≥ 0""#),
        "{}",
        lines[2]
    );
    assert!(lines[4].contains(",missing,"), "{}", lines[4]);
    // An invalid case is settled by its scene: not run again, not to resubmit.
    assert!(matches!(
        run_case(&root, 1, CaseOptions::default()).unwrap(),
        CaseOutcome::Skipped(_)
    ));
    let timings = fs::read_to_string(root.join("timings.csv")).unwrap();
    assert!(
        timings.starts_with("index,wall_seconds\n0,") && timings.ends_with("\n3,\n"),
        "{timings}"
    );
    // A plot of an output against the parameter; an unknown output is named.
    let request = ferrodyn_host::sweep::PlotRequest {
        output: "energy_change_max".into(),
        against: "body.bob.mass".into(),
    };
    let collected = collect(&root, Some(&request)).unwrap();
    assert!(fs::metadata(collected.plot.unwrap()).unwrap().len() > 0);
    let request = ferrodyn_host::sweep::PlotRequest {
        output: "tip_speed".into(),
        against: "body.bob.mass".into(),
    };
    let e = format!("{:#}", collect(&root, Some(&request)).unwrap_err());
    assert!(
        e.contains("--plot tip_speed: no case has this output (outputs: steps,"),
        "{e}"
    );
}

#[test]
fn local_pool_equals_sequential_runs_bit_for_bit_and_the_speed_at_the_bottom_follows_gravity() {
    let dir = scratch_dir("sweep", "local");
    // A quarter swing from horizontal takes 1.854 √(L/g) = 0.84 s at g = 4.905.
    let scene = pendulum(&dir, 0.9);
    let params = ["simulation.gravity.2=-4.905,-9.81,-19.62", "body.bob.mass=0,1,2"];
    for name in ["pool", "sequential"] {
        plan(&options(&scene, &params, Design::Grid, 5, dir.join(name))).unwrap();
    }
    let pool = LocalOptions {
        program: PathBuf::from(env!("CARGO_BIN_EXE_ferrodyn")),
        jobs: 2,
        outputs: false,
        force: false,
        progress: false,
    };
    let tally = local(&dir.join("pool"), &pool).unwrap();
    assert_eq!(
        (tally.ok, tally.invalid.as_slice(), tally.failed.len()),
        (6, &[0, 3, 6][..], 0)
    );
    for index in 0..9 {
        run_case(&dir.join("sequential"), index, CaseOptions::default()).unwrap();
    }
    collect(&dir.join("pool"), None).unwrap();
    collect(&dir.join("sequential"), None).unwrap();
    let results = |name: &str| fs::read(dir.join(name).join("results.csv")).unwrap();
    assert_eq!(results("pool"), results("sequential"));

    // Released from rest at the height of the pivot, the bob passes the bottom at √(2 g L),
    // whatever its mass; and the energy is kept.
    let csv = String::from_utf8(results("pool")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1).filter(|l| l.contains(",ok,")) {
        let cells: Vec<&str> = line.split(',').collect();
        let value = |name: &str| cells[at(name)].parse::<f64>().unwrap();
        let (g, m) = (-value("simulation.gravity.2"), value("body.bob.mass"));
        let speed = -value("bob_vx_min");
        assert!(
            (speed - (2.0 * g).sqrt()).abs() < 1e-5 * speed,
            "g = {g}: {speed}"
        );
        assert!(value("energy_change_max") < 1e-8 * m * g, "{line}");
    }
}

#[test]
fn the_cli_plans_and_reports_errors_once() {
    let dir = scratch_dir("sweep", "cli");
    let scene = pendulum(&dir, 0.01);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(["sweep", "plan"])
        .arg(&scene)
        .args(["--param", "flexible.beam.material.E=1e8,2e8", "-o"])
        .arg(dir.join("study"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown path: the scene has no key `flexible`"),
        "{stderr}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(["sweep", "slurm"])
        .arg(dir.join("study"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "no study there");
}

#[test]
fn a_crashed_case_process_is_recorded_as_failed() {
    let (root, _) = grid_study("crash", 0.01, &["body.bob.mass=1,2"]);
    // A "ferrodyn" that dies at once, as a case aborted by the system would.
    let crashing = LocalOptions {
        program: PathBuf::from("/bin/false"),
        jobs: 2,
        outputs: false,
        force: false,
        progress: false,
    };
    let tally = local(&root, &crashing).unwrap();
    assert_eq!((tally.ok, tally.failed.as_slice()), (0, &[0, 1][..]));
    let collected = collect(&root, None).unwrap();
    assert_eq!(collected.failed, [0, 1]);
    assert_eq!(fs::read_to_string(root.join("resubmit.txt")).unwrap(), "0-1\n");
    let csv = fs::read_to_string(root.join("results.csv")).unwrap();
    assert!(
        csv.contains(",failed,the case's process ended with exit status: 1\n"),
        "{csv}"
    );
    // Failed cases run again (the failure may have been the machine's).
    let real = LocalOptions {
        program: PathBuf::from(env!("CARGO_BIN_EXE_ferrodyn")),
        ..crashing
    };
    assert_eq!(local(&root, &real).unwrap().ok, 2);
}

#[test]
fn the_slurm_script_runs_each_case_as_an_array_task() {
    let (root, _) = grid_study("slurm", 0.01, &["body.bob.mass=lin:1:2:4"]);
    let program = PathBuf::from(env!("CARGO_BIN_EXE_ferrodyn"));
    let options = SlurmOptions {
        program: program.clone(),
        partition: Some("short".into()),
        max_parallel: Some(2),
        time: Some("00:10:00".into()),
        ..SlurmOptions::default()
    };
    let script = slurm(&root, &options).unwrap();
    assert_eq!(script.array, "0-3%2");
    let text = fs::read_to_string(&script.path).unwrap();
    let study = fs::canonicalize(&root).unwrap();
    for line in [
        "#SBATCH --array=0-3%2\n".to_string(),
        "#SBATCH --partition=short\n".into(),
        "#SBATCH --time=00:10:00\n".into(),
        format!("#SBATCH --output={}/slurm/logs/case-%a.out\n", study.display()),
        format!(
            "exec '{}' sweep run '{}' --index \"$SLURM_ARRAY_TASK_ID\"\n",
            fs::canonicalize(&program).unwrap().display(),
            study.display()
        ),
    ] {
        assert!(text.contains(&line), "{line} not in\n{text}");
    }
    // Resubmitting a list: only those cases; an index outside the study is refused.
    let again = SlurmOptions {
        indices: Some("3,1".into()),
        ..options.clone()
    };
    assert_eq!(slurm(&root, &again).unwrap().array, "1,3%2");
    let outside = SlurmOptions {
        indices: Some("2-4".into()),
        ..options
    };
    let e = format!("{:#}", slurm(&root, &outside).unwrap_err());
    assert!(e.contains("case 4 does not exist"), "{e}");
}
