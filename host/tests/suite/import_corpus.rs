//! The public robot model sets imported one by one (`.ci/import` installs them offline and
//! lists their files in `FERRODYN_IMPORT_CORPUS`, one path a line): each model is imported,
//! refused with a named feature, rejected for an invalid value, unreadable, a model with no
//! moving body (a static arena or prop, not a robot: it imports, to a scene without bodies,
//! counted apart), or skipped as no model (an include fragment without a `<worldbody>`, a URDF
//! `<robot>` without a `<link>`); a panic is a
//! failure of the test. Shares are given over all models and over those with a moving body. Ignored by
//! default (needs the venv): `FERRODYN_IMPORT_CORPUS=list cargo test --release -p ferrodyn-host --test
//! import_corpus -- --ignored --nocapture`. With `FERRODYN_IMPORT_SUMMARY=FILE` the table is
//! written there too (docs/import.md takes its counts from it); `FERRODYN_IMPORT_COLLISION=1`
//! adds a pass with collision geometry as contact shapes. With `FERRODYN_REFERENCE_REFUSALS=FILE`
//! (`.ci/import-reference-refusals.py`: a path, a tab, the reference engine's error) a model we do
//! not import that the reference refuses too is "broken in the package" (missing files, a URDF
//! without a robot name), and the goal's share is also given over the models the reference loads.

use ferrodyn_host::compile::compile;
use ferrodyn_host::import::{import, ImportErrorKind, ImportOptions};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Imported,
    Refused,
    Invalid,
    Unreadable,
    /// Imported to a scene without bodies: a static arena or prop, not a robot.
    NoMovingBody,
    /// Not imported, and the reference engine (MuJoCo, Pinocchio) refuses it too.
    Broken,
    Skipped,
    Panicked,
}

fn outcome(path: &Path, options: &ImportOptions) -> (Outcome, String) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mjcf = text.contains("<mujoco");
    if mjcf && !text.contains("<worldbody") {
        return (Outcome::Skipped, "an include fragment: no <worldbody>".into());
    }
    if !mjcf && !text.contains("<robot") {
        return (Outcome::Skipped, "neither <robot> nor <mujoco>".into());
    }
    // example-robot-data's ur3.urdf: xacro's output of an empty <robot> (a comment, no link,
    // no joint) is no model at all, moving or not.
    if !mjcf && !text.contains("<link") {
        return (Outcome::Skipped, "an empty <robot>: no <link>".into());
    }
    let result = std::panic::catch_unwind(|| {
        import(path, options).map(|imported| {
            let scene = &imported.scene;
            if scene.bodies.is_empty() && scene.flexibles.is_empty() {
                return (0, Err(String::new()));
            }
            // The scene also compiles (the kernel accepts it).
            let compiled = compile(scene).map(|sim| sim.labels.description.clone());
            (scene.bodies.len(), compiled.map_err(|e| e.to_string()))
        })
    });
    match result {
        Err(_) => (Outcome::Panicked, "panicked".into()),
        Ok(Ok((0, Err(_)))) => (
            Outcome::NoMovingBody,
            "no moving body: a static arena or prop, not a robot".into(),
        ),
        Ok(Ok((bodies, Ok(description)))) => (Outcome::Imported, format!("{bodies} bodies; {description}")),
        Ok(Ok((_, Err(e)))) => (Outcome::Invalid, format!("compile: {e}")),
        Ok(Err(e)) => {
            let o = match e.kind {
                ImportErrorKind::Refused => Outcome::Refused,
                ImportErrorKind::Invalid => Outcome::Invalid,
                ImportErrorKind::Unreadable => Outcome::Unreadable,
            };
            (o, e.to_string())
        }
    }
}

#[test]
#[ignore = "needs the model sets installed by .ci/import"]
fn public_model_sets_import_or_are_refused_by_name() {
    let list =
        std::env::var("FERRODYN_IMPORT_CORPUS").expect("FERRODYN_IMPORT_CORPUS: a file listing model paths");
    let text = std::fs::read_to_string(&list).expect("the corpus list");
    let paths: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut summary = String::new();
    let refusals: BTreeMap<String, String> = std::env::var("FERRODYN_REFERENCE_REFUSALS")
        .ok()
        .map(|f| std::fs::read_to_string(f).expect("the reference refusals"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(p, e)| (p.to_string(), e.to_string()))
        .collect();
    let mut passes = vec![("default", ImportOptions::default())];
    // Collision geometry reads every mesh (about 2 minutes): on request only.
    if std::env::var_os("FERRODYN_IMPORT_COLLISION").is_some() {
        let collision = ImportOptions {
            collision: true,
            ..ImportOptions::default()
        };
        passes.push(("--collision", collision));
    }
    for (label, options) in passes {
        let mut counts: BTreeMap<(bool, Outcome), usize> = BTreeMap::new();
        let mut lines = Vec::new();
        let started = std::time::Instant::now();
        for p in &paths {
            let path = Path::new(p);
            let (mut o, mut why) = outcome(path, &options);
            if let (Outcome::Refused | Outcome::Invalid | Outcome::Unreadable, Some(reference)) =
                (o, refusals.get(*p))
            {
                o = Outcome::Broken;
                why = format!("broken in the package: {reference}; ours: {why}");
            }
            let urdf = path.extension().is_some_and(|e| e == "urdf");
            *counts.entry((urdf, o)).or_default() += 1;
            let short: Vec<_> = path.components().rev().take(3).collect();
            let short: std::path::PathBuf = short.into_iter().rev().collect();
            lines.push(format!("{o:?}\t{}\t{why}", short.display()));
        }
        let elapsed = started.elapsed().as_secs_f64();
        lines.sort();
        summary.push_str(&format!("## {label} ({} files, {elapsed:.1} s)\n\n", paths.len()));
        for (urdf, name) in [(Some(true), "URDF"), (Some(false), "MJCF"), (None, "all")] {
            let get = |o| {
                let of = |u: bool| counts.get(&(u, o)).copied().unwrap_or(0);
                urdf.map_or(of(true) + of(false), of)
            };
            let robots: usize = [
                Outcome::Imported,
                Outcome::Refused,
                Outcome::Invalid,
                Outcome::Unreadable,
                Outcome::Broken,
                Outcome::Panicked,
            ]
            .map(get)
            .iter()
            .sum();
            let models = robots + get(Outcome::NoMovingBody);
            let (imported, named) = (
                get(Outcome::Imported),
                get(Outcome::Imported) + get(Outcome::Refused),
            );
            let share = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
            summary.push_str(&format!(
                "{name}: {models} models: imported {imported}, refused by name {}, invalid value {}, unreadable {}, broken in the package (the reference refuses it too) {}, no moving body {}, panicked {}; skipped (no model: fragments, empty) {}\n",
                get(Outcome::Refused),
                get(Outcome::Invalid),
                get(Outcome::Unreadable),
                get(Outcome::Broken),
                get(Outcome::NoMovingBody),
                get(Outcome::Panicked),
                get(Outcome::Skipped)
            ));
            summary.push_str(&format!(
                "{name}: imported {:.1} % of all {models}, {:.1} % of the {robots} with a moving body; imported or refused by name {:.1} % of all, {:.1} % with a moving body\n",
                share(imported, models),
                share(imported, robots),
                share(named, models),
                share(named, robots)
            ));
            let loadable = robots - get(Outcome::Broken);
            summary.push_str(&format!(
                "{name}: over the {loadable} with a moving body the reference engine loads: imported {:.1} %, imported or refused by name {:.1} %\n",
                share(imported, loadable),
                share(named, loadable)
            ));
        }
        summary.push('\n');
        for l in &lines {
            summary.push_str(l);
            summary.push('\n');
        }
        summary.push('\n');
        let panics = counts
            .iter()
            .filter(|((_, o), _)| *o == Outcome::Panicked)
            .count();
        assert_eq!(panics, 0, "{summary}");
    }
    println!("{summary}");
    if let Ok(out) = std::env::var("FERRODYN_IMPORT_SUMMARY") {
        std::fs::write(out, &summary).expect("writing the summary");
    }
}
