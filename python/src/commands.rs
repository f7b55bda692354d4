//! `ferrodyn.run`, `check`, `export_rust`, `export_fmu`, `export_firmware` and the `sweep_*` functions: the host's
//! commands called as the CLI calls them (with the GIL released), their results as dicts.

use crate::errors::host_error;
use ferrodyn_host::check::{dof_report, joint_violations};
use ferrodyn_host::commands::{self, Overrides, RunOptions};
use ferrodyn_host::compile::{choose, compile, Capacities};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::sweep::collect::collect;
use ferrodyn_host::sweep::local::{local, LocalOptions};
use ferrodyn_host::sweep::plan::{plan, Design, PlanOptions};
use ferrodyn_host::sweep::run::{run_case, CaseOptions, CaseOutcome};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// Runs `scene` as `ferrodyn run SCENE --out OUT` does (writing its result files, printing its
/// header, files and summary lines), with `[simulation]` settings overridden where given;
/// returns the summary.
#[pyfunction]
#[pyo3(signature = (scene, out, force = false, end = None, dt = None, output_interval = None, integrator = None, formulation = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scene: PathBuf,
    out: PathBuf,
    force: bool,
    end: Option<f64>,
    dt: Option<f64>,
    output_interval: Option<f64>,
    integrator: Option<String>,
    formulation: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = RunOptions {
        scene: Some(scene),
        out,
        force,
        links: None,
        overrides: Overrides {
            end,
            dt,
            output_interval,
            integrator,
            formulation,
            ..Overrides::default()
        },
        progress: false,
    };
    let summary = py.detach(|| commands::run(&options)).map_err(host_error)?;
    let dict = PyDict::new(py);
    dict.set_item("steps", summary.steps)?;
    dict.set_item("wall_seconds", summary.wall_seconds)?;
    dict.set_item("max_energy_change", summary.max_energy_change)?;
    dict.set_item("max_violation", summary.max_violation())?;
    dict.set_item("trajectory_digest", format!("{:016x}", summary.trajectory.0))?;
    dict.set_item("final_digest", format!("{:016x}", summary.final_state.0))?;
    dict.set_item("files", summary.files)?;
    let diagnostics: Vec<String> = summary.diagnostics.iter().map(ToString::to_string).collect();
    dict.set_item("diagnostics", diagnostics)?;
    Ok(dict)
}

/// The preflight facts of `scene` as a dict: sizes, the formulation compile chooses and why,
/// the kernel capacities of a firmware build, and for rigid bodies the degrees of freedom,
/// redundant rows and each joint's initial violation. With `report`, also prints the report
/// of `ferrodyn check SCENE`.
#[pyfunction]
#[pyo3(signature = (scene, report = false))]
fn check<'py>(py: Python<'py>, scene: PathBuf, report: bool) -> PyResult<Bound<'py, PyDict>> {
    if report {
        py.detach(|| commands::check(&scene, false, false, None))
            .map_err(host_error)?;
    }
    let loaded = Scene::load(&scene).map_err(|e| host_error(e.into()))?;
    let capacities = Capacities::of_scene(&loaded);
    let dict = PyDict::new(py);
    dict.set_item("path", loaded.path())?;
    dict.set_item("bodies", capacities.bodies)?;
    dict.set_item("joints", capacities.joints)?;
    dict.set_item("constraint_rows", capacities.rows)?;
    dict.set_item("forces", capacities.forces)?;
    dict.set_item("flexible_bodies", loaded.flexibles.len())?;
    dict.set_item("capacities", capacities.to_string())?;
    if !loaded.bodies.is_empty() {
        let choice = choose(&loaded).map_err(|e| host_error(e.into()))?;
        dict.set_item("formulation", choice.describe())?;
    }
    let mut sim = compile(&loaded).map_err(|e| host_error(e.into()))?;
    let names = sim.labels.names.joints.clone();
    if let Some((model, data)) = sim.rigid_mut() {
        let dof = dof_report(model, data).map_err(|e| host_error(e.into()))?;
        dict.set_item("gruebler_dof", dof.gruebler)?;
        dict.set_item("independent_dof", dof.independent)?;
        let redundant: Vec<(String, usize)> = dof
            .redundant
            .iter()
            .map(|&(joint, row)| (names.get(joint).cloned().unwrap_or_default(), row))
            .collect();
        dict.set_item("redundant_rows", redundant)?;
        let violations = PyDict::new(py);
        for (name, v) in names.iter().zip(joint_violations(model, data)) {
            violations.set_item(name, v)?;
        }
        dict.set_item("joint_violations", violations)?;
    }
    Ok(dict)
}

/// The `[simulation]` settings an export can change.
fn export_overrides(integrator: Option<String>, dt: Option<f64>, end: Option<f64>) -> Overrides {
    Overrides {
        integrator,
        dt,
        end,
        ..Overrides::default()
    }
}

/// The no_std Rust module of `scene` (`ferrodyn export rust`) in `precision` ("f32", "f64");
/// written to `out` when given, and returned.
#[pyfunction]
#[pyo3(signature = (scene, precision = "f32", out = None, integrator = None, dt = None, end = None))]
fn export_rust(
    py: Python<'_>,
    scene: PathBuf,
    precision: &str,
    out: Option<PathBuf>,
    integrator: Option<String>,
    dt: Option<f64>,
    end: Option<f64>,
) -> PyResult<String> {
    let overrides = export_overrides(integrator, dt, end);
    let (module, _) = py
        .detach(|| commands::rust_module_of(&scene, precision, &overrides))
        .map_err(host_error)?;
    if let Some(out) = out {
        std::fs::write(&out, &module)
            .map_err(|e| host_error(anyhow::anyhow!("writing {}: {e}", out.display())))?;
    }
    Ok(module)
}

/// Writes the FMU of `scene` (`ferrodyn export fmu`) for FMI `fmi` ("3" or "2") to `out`,
/// carrying `library` (libferrodyn_fmu.so, from `cargo build --release -p ferrodyn-fmu`).
#[pyfunction]
#[pyo3(signature = (scene, out, library, fmi = "3", integrator = None, dt = None, end = None))]
#[allow(clippy::too_many_arguments)]
fn export_fmu(
    py: Python<'_>,
    scene: PathBuf,
    out: PathBuf,
    library: PathBuf,
    fmi: &str,
    integrator: Option<String>,
    dt: Option<f64>,
    end: Option<f64>,
) -> PyResult<()> {
    let overrides = export_overrides(integrator, dt, end);
    py.detach(|| commands::export_fmu(&scene, fmi, &overrides, &out, Some(&library)))
        .map_err(host_error)
}

/// Writes the firmware crate of `scene` (`ferrodyn export firmware`) for `part` ("mps2-an386",
/// "stm32f405" or "mps2-an500") in `precision` to the directory `out`, depending on the kernel
/// at `kernel_path` (default: the checkout this package was built from); `force` writes over a
/// crate there (keeping its src/rig.rs).
#[pyfunction]
#[pyo3(signature = (scene, out, part, precision = "f32", integrator = None, dt = None, end = None, kernel_path = None, force = false))]
#[allow(clippy::too_many_arguments)]
fn export_firmware(
    py: Python<'_>,
    scene: PathBuf,
    out: PathBuf,
    part: &str,
    precision: &str,
    integrator: Option<String>,
    dt: Option<f64>,
    end: Option<f64>,
    kernel_path: Option<PathBuf>,
    force: bool,
) -> PyResult<()> {
    let overrides = export_overrides(integrator, dt, end);
    py.detach(|| {
        commands::export_firmware(
            &scene,
            part,
            precision,
            &overrides,
            &out,
            kernel_path.as_deref(),
            force,
        )
    })
    .map_err(host_error)
}

/// Plans a parameter study of `scene` (`ferrodyn sweep plan`): `params` as `PATH=SPEC`
/// strings, every combination unless `lhs` or `monte_carlo` cases are asked; returns the
/// number of cases.
#[pyfunction]
#[pyo3(signature = (scene, params, out, lhs = None, monte_carlo = None, seed = None, force = false))]
#[allow(clippy::too_many_arguments)]
fn sweep_plan(
    py: Python<'_>,
    scene: PathBuf,
    params: Vec<String>,
    out: PathBuf,
    lhs: Option<usize>,
    monte_carlo: Option<usize>,
    seed: Option<u64>,
    force: bool,
) -> PyResult<usize> {
    let design = match (lhs, monte_carlo) {
        (None, None) => Design::Grid,
        (Some(n), None) => Design::LatinHypercube(n),
        (None, Some(n)) => Design::MonteCarlo(n),
        (Some(_), Some(_)) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "give lhs or monte_carlo, not both",
            ))
        }
    };
    if design != Design::Grid && seed.is_none() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "a random design needs a seed",
        ));
    }
    let options = PlanOptions {
        scene,
        params,
        design,
        seed: seed.unwrap_or(0),
        out,
        force,
    };
    let study = py.detach(|| plan(&options)).map_err(host_error)?;
    Ok(study.cases.len())
}

/// Runs case `index` of the study at `study` in this process (`ferrodyn sweep run`); returns
/// its result: status, error, scalars.
#[pyfunction]
#[pyo3(signature = (study, index, outputs = false, force = false))]
fn sweep_run<'py>(
    py: Python<'py>,
    study: PathBuf,
    index: usize,
    outputs: bool,
    force: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let options = CaseOptions { outputs, force };
    let outcome = py
        .detach(|| run_case(&study, index, options))
        .map_err(host_error)?;
    let (ran, result) = match outcome {
        CaseOutcome::Ran(r) => (true, r),
        CaseOutcome::Skipped(r) => (false, r),
    };
    let dict = PyDict::new(py);
    dict.set_item("index", result.index)?;
    dict.set_item("ran", ran)?;
    dict.set_item("status", result.status.as_str())?;
    dict.set_item("error", result.error)?;
    let scalars = PyDict::new(py);
    for s in result.scalars {
        scalars.set_item(s.name, s.value)?;
    }
    dict.set_item("scalars", scalars)?;
    Ok(dict)
}

/// Runs every case of the study, `jobs` at a time, each in a child process of the `ferrodyn`
/// command-line `program` (`ferrodyn sweep local`); returns the tally.
#[pyfunction]
#[pyo3(signature = (study, program, jobs = 1, outputs = false, force = false))]
fn sweep_local<'py>(
    py: Python<'py>,
    study: PathBuf,
    program: PathBuf,
    jobs: usize,
    outputs: bool,
    force: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let options = LocalOptions {
        program,
        jobs,
        outputs,
        force,
        progress: false,
    };
    let tally = py.detach(|| local(&study, &options)).map_err(host_error)?;
    let dict = PyDict::new(py);
    dict.set_item("ok", tally.ok)?;
    dict.set_item("invalid", tally.invalid)?;
    dict.set_item("failed", tally.failed)?;
    Ok(dict)
}

/// Collects the study's results (`ferrodyn sweep collect`): results.csv, timings.csv,
/// resubmit.txt; returns where they are and the cases by status.
#[pyfunction]
fn sweep_collect<'py>(py: Python<'py>, study: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let collected = py.detach(|| collect(&study, None)).map_err(host_error)?;
    let dict = PyDict::new(py);
    dict.set_item("results", collected.results)?;
    dict.set_item("timings", collected.timings)?;
    dict.set_item("ok", collected.ok)?;
    dict.set_item("invalid", collected.invalid)?;
    dict.set_item("failed", collected.failed)?;
    dict.set_item("missing", collected.missing)?;
    dict.set_item("resubmit", collected.resubmit)?;
    Ok(dict)
}

/// Adds the command functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(export_rust, m)?)?;
    m.add_function(wrap_pyfunction!(export_fmu, m)?)?;
    m.add_function(wrap_pyfunction!(export_firmware, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_collect, m)?)?;
    Ok(())
}
