//! The `modelDescription.xml` of an FMU (docs/fmu.md): the variables of
//! [`variables`](super::fmu::variables) with their units, the capability flags, the default
//! experiment, the model structure, in FMI 3.0 or 2.0.

use super::fmu::{variables, Causality, FmiVersion, Variable};
use crate::scene::Scene;
use std::fmt::Write as _;

/// The SI units the variables take, by their base-unit exponents (kg, m, s, rad), as FMI's
/// `<BaseUnit>` writes them.
const SI_UNITS: [(&str, [i8; 4]); 7] = [
    ("s", [0, 0, 1, 0]),
    ("m", [0, 1, 0, 0]),
    ("m/s", [0, 1, -1, 0]),
    ("rad", [0, 0, 0, 1]),
    ("rad/s", [0, 0, -1, 1]),
    ("N", [1, 1, -2, 0]),
    ("N·m", [1, 2, -2, 0]),
];

/// The unit of `v`'s values: its SI unit, or for an input with a `scale` other than 1 that
/// unit times the scale (`1e-6 N·m`: a value of 1 is 1 µN·m).
fn unit_name(v: &Variable) -> String {
    if v.scale == 1.0 {
        v.unit.to_string()
    } else {
        format!("{:?} {}", v.scale, v.unit)
    }
}

/// `<UnitDefinitions>` of the units `vars` use, each once, in order of first use: the SI
/// base-unit exponents and, for a scaled input, `factor` = its scale (SI = factor × value).
fn unit_definitions(vars: &[Variable]) -> String {
    let mut seen: Vec<String> = Vec::new();
    let mut x = String::from("  <UnitDefinitions>\n");
    for v in vars {
        let name = unit_name(v);
        if seen.contains(&name) {
            continue;
        }
        let exponents = SI_UNITS
            .iter()
            .find(|(si, _)| *si == v.unit)
            .map_or([0; 4], |(_, e)| *e);
        let mut base = String::new();
        for (symbol, e) in ["kg", "m", "s", "rad"].iter().zip(exponents) {
            if e != 0 {
                let _ = write!(base, " {symbol}=\"{e}\"");
            }
        }
        if v.scale != 1.0 {
            let _ = write!(base, " factor=\"{:?}\"", v.scale);
        }
        let _ = writeln!(x, "    <Unit name=\"{}\"><BaseUnit{base}/></Unit>", escape(&name));
        seen.push(name);
    }
    x.push_str("  </UnitDefinitions>\n");
    x
}

/// The `generationDateAndTime` of an FMU written now: UTC, to the second
/// (`2026-12-06T02:35:04Z`), or at `SOURCE_DATE_EPOCH` when that is set, for reproducible
/// builds.
pub fn generation_date() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    utc_date_time(seconds)
}

/// Seconds since 1970-01-01T00:00:00Z as an xs:dateTime in UTC (the proleptic Gregorian
/// calendar; Howard Hinnant's `civil_from_days`).
fn utc_date_time(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let second_of_day = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// What the FMU claims it can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Get, set and serialize FMU states: only when the simulation carries nothing from step to
    /// step beyond its state, clock and inputs (`Simulation::resume_point`).
    pub state: bool,
}

/// The `modelDescription.xml` of `scene` with its token in `version`, generated at `date`
/// ([`generation_date`]).
pub fn model_description(
    scene: &Scene,
    token: &str,
    identifier: &str,
    version: FmiVersion,
    caps: Capabilities,
    date: &str,
) -> String {
    let sim = &scene.simulation;
    let vars = variables(scene);
    let state = if caps.state { "true" } else { "false" };
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let description = format!(
        "Ferrodyn scene {identifier}.toml at a fixed step of {} s",
        sim.step
    );
    let tool = concat!("ferrodyn ", env!("CARGO_PKG_VERSION"));
    let experiment = format!(
        "  <DefaultExperiment startTime=\"0\" stopTime=\"{}\" stepSize=\"{}\"/>\n",
        sim.end_time, sim.step
    );
    let outputs: Vec<&Variable> = vars.iter().filter(|v| v.causality == Causality::Output).collect();
    let units = unit_definitions(&vars);
    match version {
        FmiVersion::V3 => {
            let _ = writeln!(
                x,
                "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"{identifier}\" instantiationToken=\"{}\" description=\"{}\" generationTool=\"{tool}\" generationDateAndTime=\"{date}\" variableNamingConvention=\"flat\">",
                token,
                escape(&description)
            );
            let _ = writeln!(
                x,
                "  <CoSimulation modelIdentifier=\"{identifier}\" canHandleVariableCommunicationStepSize=\"true\" fixedInternalStepSize=\"{}\" canGetAndSetFMUState=\"{state}\" canSerializeFMUState=\"{state}\" canReturnEarlyAfterIntermediateUpdate=\"false\" hasEventMode=\"false\"/>",
                sim.step
            );
            x.push_str(&units);
            x.push_str(&experiment);
            x.push_str("  <ModelVariables>\n");
            for v in &vars {
                let (causality, extra) = match v.causality {
                    Causality::Independent => ("independent", String::new()),
                    Causality::Input => ("input", format!(" start=\"{}\"", v.start.unwrap_or(0.0))),
                    Causality::Output => ("output", String::new()),
                };
                let _ = writeln!(
                    x,
                    "    <Float64 name=\"{}\" valueReference=\"{}\" causality=\"{causality}\" variability=\"continuous\" description=\"{}\" unit=\"{}\"{extra}/>",
                    escape(&v.name),
                    v.reference,
                    escape(&v.description),
                    escape(&unit_name(v))
                );
            }
            x.push_str("  </ModelVariables>\n  <ModelStructure>\n");
            // Sensors read positions and velocities, never accelerations: no output depends on
            // an input directly (dependencies="").
            for v in &outputs {
                let _ = writeln!(
                    x,
                    "    <Output valueReference=\"{}\" dependencies=\"\"/>",
                    v.reference
                );
            }
            for v in &outputs {
                let _ = writeln!(
                    x,
                    "    <InitialUnknown valueReference=\"{}\" dependencies=\"\"/>",
                    v.reference
                );
            }
            x.push_str("  </ModelStructure>\n</fmiModelDescription>\n");
        }
        FmiVersion::V2 => {
            let _ = writeln!(
                x,
                "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"{identifier}\" guid=\"{}\" description=\"{}\" generationTool=\"{tool}\" generationDateAndTime=\"{date}\" variableNamingConvention=\"flat\" numberOfEventIndicators=\"0\">",
                token,
                escape(&description)
            );
            let _ = writeln!(
                x,
                "  <CoSimulation modelIdentifier=\"{identifier}\" canHandleVariableCommunicationStepSize=\"true\" canGetAndSetFMUstate=\"{state}\" canSerializeFMUstate=\"{state}\" canNotUseMemoryManagementFunctions=\"true\"/>"
            );
            x.push_str(&units);
            x.push_str(&experiment);
            x.push_str("  <ModelVariables>\n");
            for v in &vars {
                let unit = escape(&unit_name(v));
                let (causality, real) = match v.causality {
                    Causality::Independent => ("independent\"", format!("<Real unit=\"{unit}\"/>")),
                    Causality::Input => (
                        "input\"",
                        format!("<Real unit=\"{unit}\" start=\"{}\"/>", v.start.unwrap_or(0.0)),
                    ),
                    Causality::Output => (
                        "output\" initial=\"calculated\"",
                        format!("<Real unit=\"{unit}\"/>"),
                    ),
                };
                let _ = writeln!(
                    x,
                    "    <ScalarVariable name=\"{}\" valueReference=\"{}\" description=\"{}\" causality=\"{causality} variability=\"continuous\">{real}</ScalarVariable>",
                    escape(&v.name),
                    v.reference,
                    escape(&v.description)
                );
            }
            x.push_str("  </ModelVariables>\n  <ModelStructure>\n");
            // FMI 2.0 refers to variables by their 1-based index in ModelVariables.
            let index = |v: &Variable| vars.iter().position(|w| w.reference == v.reference).unwrap_or(0) + 1;
            if !outputs.is_empty() {
                x.push_str("    <Outputs>\n");
                for v in &outputs {
                    let _ = writeln!(x, "      <Unknown index=\"{}\" dependencies=\"\"/>", index(v));
                }
                x.push_str("    </Outputs>\n    <InitialUnknowns>\n");
                for v in &outputs {
                    let _ = writeln!(x, "      <Unknown index=\"{}\" dependencies=\"\"/>", index(v));
                }
                x.push_str("    </InitialUnknowns>\n");
            }
            x.push_str("  </ModelStructure>\n</fmiModelDescription>\n");
        }
    }
    x
}

/// `text` with the XML special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fmu::tests::hil_arm;
    use crate::export::fmu::token;

    fn description(version: FmiVersion, state: bool) -> String {
        let (scene, text) = hil_arm();
        let caps = Capabilities { state };
        model_description(
            &scene,
            &token(&text),
            "hil_arm",
            version,
            caps,
            "2026-12-06T02:35:04Z",
        )
    }

    #[test]
    fn descriptions_claim_states_only_when_asked() {
        let (_, text) = hil_arm();
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let with = description(version, true);
            let without = description(version, false);
            assert!(with.contains("FMUState=\"true\"") || with.contains("FMUstate=\"true\""));
            assert!(!without.contains("\"true\" canSerialize"));
            assert!(with.contains(&token(&text)));
            assert!(with.contains(" generationDateAndTime=\"2026-12-06T02:35:04Z\" "));
        }
    }

    #[test]
    fn every_variable_has_a_unit_defined_by_its_si_exponents() {
        let (scene, _) = hil_arm();
        let units: Vec<String> = variables(&scene).iter().map(unit_name).collect();
        // time, torque (the rig's µN·m), encoder angle and rate, tip position and velocity.
        let expected = [
            "s",
            "1e-6 N·m",
            "rad",
            "rad/s",
            "m",
            "m",
            "m",
            "m/s",
            "m/s",
            "m/s",
        ];
        assert_eq!(units, expected);
        let v3 = description(FmiVersion::V3, true);
        for line in [
            "<Unit name=\"s\"><BaseUnit s=\"1\"/></Unit>",
            "<Unit name=\"1e-6 N·m\"><BaseUnit kg=\"1\" m=\"2\" s=\"-2\" factor=\"1e-6\"/></Unit>",
            "<Unit name=\"rad\"><BaseUnit rad=\"1\"/></Unit>",
            "<Unit name=\"rad/s\"><BaseUnit s=\"-1\" rad=\"1\"/></Unit>",
            "<Unit name=\"m\"><BaseUnit m=\"1\"/></Unit>",
            "<Unit name=\"m/s\"><BaseUnit m=\"1\" s=\"-1\"/></Unit>",
        ] {
            assert!(v3.contains(line), "{line} not in\n{v3}");
        }
        assert_eq!(v3.matches("<Unit ").count(), 6, "each unit defined once");
        assert_eq!(v3.matches(" unit=\"").count(), 10, "every variable has a unit");
        let v2 = description(FmiVersion::V2, true);
        assert!(
            v2.contains("<Real unit=\"1e-6 N·m\" start=\"-1000000\"/>"),
            "{v2}"
        );
        assert_eq!(v2.matches("<Real unit=\"").count(), 10);
        // FMI's element order: CoSimulation, UnitDefinitions, DefaultExperiment, ModelVariables.
        for x in [v2, v3] {
            let at = |tag: &str| x.find(tag).unwrap();
            assert!(at("<CoSimulation") < at("<UnitDefinitions>"));
            assert!(at("</UnitDefinitions>") < at("<DefaultExperiment"));
        }
    }

    #[test]
    fn dates_are_utc_in_the_gregorian_calendar() {
        // `date -u -d @SECONDS +%FT%TZ`.
        assert_eq!(utc_date_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_date_time(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_date_time(1_796_524_504), "2026-12-06T02:35:04Z");
        assert_eq!(utc_date_time(4_107_542_399), "2100-02-28T23:59:59Z");
    }
}
