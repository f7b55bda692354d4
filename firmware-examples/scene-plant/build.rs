//! Generates, from the scene files listed in scenes.txt, a Rust module per scene and precision
//! with the host's exporter (what `ferrodyn export rust` writes) and the scenarios that run
//! them (`scenarios.rs`: the modules and `SCENARIOS`), into OUT_DIR: a scene is one line of
//! scenes.txt.

use ferrodyn_host::commands::Overrides;
use ferrodyn_host::compile::{choose, tree_parts, Choice};
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The tree sizes (`Fixed<N>` slots) `plant::Room` has variants for: trees of these sizes take
/// turns in the firmware's one room, a larger tree gets a static of its own.
const ROOM_TREE_SLOTS: std::ops::RangeInclusive<usize> = 1..=8;

/// The capacities of trees with constraint rows (loops, drives, couplings) or force elements
/// `plant::Room` has variants for (slots, loop joints, forces, constraint rows, dense
/// workspace).
const ROOM_LOOP_TREES: [[usize; 5]; 5] = [
    [3, 1, 0, 5, 59],
    [3, 1, 1, 5, 59],
    [1, 0, 0, 1, 6],
    [2, 0, 0, 1, 11],
    [2, 0, 1, 0, 0],
];

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenes = here.join("../../scenes");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let list = here.join("scenes.txt");
    println!("cargo::rerun-if-changed={}", list.display());
    let list = std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("reading scenes.txt: {e}"));
    let (mut modules, mut scenarios) = (String::new(), Vec::new());
    for line in list
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let path = scenes.join(format!("{name}.toml"));
        println!("cargo::rerun-if-changed={}", path.display());
        let mut scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        overrides(line, words.collect())
            .apply(&mut scene.simulation)
            .unwrap_or_else(|e| panic!("scenes.txt: {line}: {e}"));
        let (kind, run) = scenario_kind(&scene).unwrap_or_else(|e| panic!("scenes.txt: {line}: {e}"));
        for precision in [Precision::F32, Precision::F64] {
            let module = rust_module(&scene, precision).unwrap_or_else(|e| panic!("{e}"));
            let ident = format!("{name}_{}", precision.name());
            let file = out.join(format!("{ident}.rs"));
            std::fs::write(&file, module).unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
            let _ = writeln!(modules, "generated!({ident}, \"{ident}.rs\");");
            scenarios.push(format!(
                "    {kind}!({ident}, \"scene:{name} {} {}\"{}),",
                precision.name(),
                scene.simulation.integrator.name(),
                if run == "run_plain" {
                    String::new()
                } else {
                    format!(", {run}")
                }
            ));
        }
    }
    let _ = write!(
        modules,
        "\n/// The scenarios of the scene files (scenes.txt), f32 and f64 each.\npub const SCENARIOS: [Scenario; {}] = [\n{}\n];\n",
        scenarios.len(),
        scenarios.join("\n")
    );
    let file = out.join("scenarios.rs");
    std::fs::write(&file, modules).unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
}

/// The scenario macro (src/lib.rs) that runs the scene: a flexible one, a tree in the room
/// (capacities a room variant has), or a tree in a static of its own; and the macro that steps
/// it: plainly, with its force elements, with its contacts, or with both.
fn scenario_kind(scene: &Scene) -> Result<(&'static str, &'static str), String> {
    if !scene.flexibles.is_empty() {
        return Ok(("flexible_scenario", "run_plain"));
    }
    let Choice::Tree(links) = choose(scene).map_err(|e| e.to_string())? else {
        return Err("not a tree in joint coordinates: it does not export (docs/export.md)".into());
    };
    let parts = tree_parts(scene, &links).map_err(|e| e.to_string())?;
    let model = &parts.model;
    let forces = parts.forces.elements().len();
    let in_room = match (model.constraint_rows(), forces) {
        (0, 0) => ROOM_TREE_SLOTS.contains(&model.slots()),
        _ => ROOM_LOOP_TREES.contains(&[
            model.slots(),
            model.loops().len(),
            forces,
            model.constraint_rows(),
            model.loop_workspace(),
        ]),
    };
    let run = match (forces > 0, scene.contact.is_some()) {
        (false, false) => "run_plain",
        (true, false) => "run_forced",
        (false, true) => "run_contact",
        (true, true) => "run_forced_contact",
    };
    Ok((if in_room { "scenario" } else { "own_scenario" }, run))
}

/// The `--flag value` pairs of a scenes.txt line, as the CLI reads them.
fn overrides(line: &str, flags: Vec<&str>) -> Overrides {
    let mut o = Overrides::default();
    for pair in flags.chunks(2) {
        let number = |v: &str| {
            v.parse::<f64>()
                .unwrap_or_else(|e| panic!("scenes.txt: {line}: {v}: {e}"))
        };
        match pair {
            ["--integrator", name] => o.integrator = Some((*name).into()),
            ["--dt", v] => o.dt = Some(number(v)),
            ["--end", v] => o.end = Some(number(v)),
            other => panic!("scenes.txt: {line}: unknown flags {other:?} (--integrator, --dt, --end)"),
        }
    }
    o
}
