//! The CLI tells the truth: the defaults `--help` states are the code's, and docs/cli.md lists
//! every command and flag the program has (walked through its own `--help`).

use ferrodyn_host::commands::ATOL_PER_RTOL;
use ferrodyn_host::samples::{chain_simulation, CHAIN_LINKS};
use ferrodyn_kernel::integrators::AdaptiveConfig;
use std::path::Path;
use std::process::Command;

/// `ferrodyn ARGS… --help` as printed.
fn raw_help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

/// `ferrodyn ARGS… --help`, with its whitespace runs made single spaces (clap wraps lines).
fn help(args: &[&str]) -> String {
    raw_help(args).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of `flag`'s entry in a help text: from the flag to the next flag's entry.
fn entry<'a>(help: &'a str, flag: &str) -> &'a str {
    let start = help
        .find(&format!("{flag} "))
        .unwrap_or_else(|| panic!("{flag} in {help}"));
    let rest = &help[start..];
    let end = rest[flag.len()..]
        .find(" --")
        .map_or(rest.len(), |e| e + flag.len());
    &rest[..end]
}

#[test]
fn run_help_states_the_defaults_the_code_uses() {
    let run = help(&["run"]);
    let chain = chain_simulation();
    let adaptive = AdaptiveConfig::<f64>::default();
    let cases = [
        ("--links", format!("[default: {CHAIN_LINKS}]")),
        (
            "--end",
            format!("{:?} for the built-in chain", chain.end_time).replace(".0 ", " "),
        ),
        ("--dt", format!("{:e} for the built-in chain", chain.step)),
        (
            "--output-interval",
            format!("{} for the built-in chain", chain.output_interval),
        ),
        (
            "--integrator",
            format!("{} for the built-in chain", chain.integrator.name()),
        ),
        (
            "--formulation",
            format!("the scene's; {}]", chain.formulation.name()),
        ),
        (
            "--rtol",
            format!("{:e} and {:e} for one named", adaptive.rtol, adaptive.atol),
        ),
        ("--rtol", format!("atol = rtol × {ATOL_PER_RTOL:e}")),
    ];
    for (flag, expected) in cases {
        let text = entry(&run, flag);
        assert!(text.contains(&expected), "{flag}: `{expected}` not in `{text}`");
    }
}

/// The flags of `ferrodyn PATH…` (the entries of its Options section), without `--help`.
fn options(path: &[&str]) -> Vec<String> {
    let text = raw_help(path);
    let section = text.split("Options:\n").nth(1).unwrap_or("");
    section
        .lines()
        .filter_map(|l| {
            // "  -o, --out <OUT>  …" or "      --force  …"; description lines do not start so.
            let l = l.trim_start();
            let l = l
                .strip_prefix("-")
                .and_then(|r| r.get(1..))
                .and_then(|r| r.strip_prefix(", "))
                .unwrap_or(l);
            l.starts_with("--")
                .then(|| l.split_whitespace().next().unwrap_or("").to_string())
        })
        .filter(|f| f != "--help" && f != "--version")
        .collect()
}

/// The commands under `path` (`ferrodyn PATH… --help`'s Commands section), without `help`.
fn subcommands(path: &[&str]) -> Vec<String> {
    let text = raw_help(path);
    let Some(section) = text.split("Commands:\n").nth(1) else {
        return Vec::new();
    };
    section
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

#[test]
fn docs_cli_lists_every_command_and_flag() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md")).unwrap();
    let block = docs
        .split("## Commands")
        .nth(1)
        .unwrap()
        .split("```")
        .nth(1)
        .unwrap();
    let mut checked = 0;
    let mut paths: Vec<Vec<String>> = subcommands(&[]).into_iter().map(|c| vec![c]).collect();
    while let Some(path) = paths.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let children = subcommands(&args);
        if !children.is_empty() {
            paths.extend(children.into_iter().map(|c| [path.clone(), vec![c]].concat()));
            continue;
        }
        let command = format!("ferrodyn {} ", path.join(" "));
        let lines: Vec<&str> = block.lines().filter(|l| l.starts_with(&command)).collect();
        assert!(!lines.is_empty(), "docs/cli.md has no `{command}…` line");
        let flags = options(&args);
        for flag in flags {
            assert!(
                lines.iter().any(|l| l.contains(&format!("[{flag}"))
                    || l.contains(&format!(" {flag}"))
                    || l.contains(&format!("|{flag}"))),
                "docs/cli.md: `{command}` lacks {flag}"
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} flags seen");
}

fn ferrodyn(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn an_error_names_its_cause_once() {
    let dir = std::env::temp_dir().join(format!("ferrodyn-cli-truth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = ferrodyn(&[
        "run",
        dir.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    // `DIR: cannot read: Is a directory (os error 21)`, the OS's reason once.
    assert_eq!(stderr.matches("os error 21").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("cannot read").count(), 1, "{stderr}");
}

#[test]
fn counts_take_their_number() {
    let pendulum = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pendulum.toml");
    let o = ferrodyn(&["check", pendulum.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    // One body on one distance joint (one constraint row), no force, no flexible body.
    assert!(
        stdout.contains(": 1 body, 1 joint (1 constraint row), 0 forces, 0 flexible bodies"),
        "{stdout}"
    );
}

#[test]
fn the_built_in_chain_has_settings_not_a_scene_to_override() {
    let dir = std::env::temp_dir().join(format!("ferrodyn-cli-chain-{}", std::process::id()));
    let args = [
        "run",
        "--links",
        "2",
        "--end",
        "0.01",
        "--out",
        dir.to_str().unwrap(),
        "--force",
    ];
    let o = ferrodyn(&args);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("  settings: --end 0.01 (was 10)"), "{stdout}");
    assert!(!stdout.contains("overriding the scene"), "{stdout}");
}
