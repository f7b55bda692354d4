//! Fuzzing with proptest: damaged URDF and MJCF files import or give an error, never a panic.
//! Bounded: 4 properties × 256 cases (about a second); `IMPORT_FUZZ_CASES` for a longer run.

use super::mjcf::tests::{ACROBOT, COMMON};
use super::tests::SKEW_ARM;
use super::{import, ImportOptions};
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::PathBuf;

fn cases() -> u32 {
    std::env::var("IMPORT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Valid models to damage, with the file name each is imported as.
const SAMPLES: [(&str, &str); 3] = [
    ("arm.urdf", SKEW_ARM),
    ("acrobot.xml", ACROBOT),
    (
        "self.xml",
        "<mujoco><include file=\"self.xml\"/><worldbody/></mujoco>",
    ),
];

/// Values that stress numbers, names and references when they replace an attribute value.
const NASTY: [&str; 12] = [
    "",
    "-1",
    "0",
    "nan",
    "inf",
    "1e400",
    "0 0 0",
    "1 2",
    "a b c",
    "world",
    "ground",
    "\u{1F600}",
];

/// Imports `text` as `name` in a per-thread folder (with the include the MJCF sample uses);
/// only a panic fails the property.
fn import_damaged(name: &str, text: &str, collision: bool) {
    let dir = std::env::temp_dir().join(format!(
        "ferrodyn-import-fuzz-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("common.xml"), COMMON).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let options = ImportOptions {
        collision,
        floating_base: text.len() % 2 == 0,
        ..ImportOptions::default()
    };
    if let Ok(imported) = import(&path, &options) {
        let _ = imported.toml(&dir.join("out.toml"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn truncation_never_panics(sample in any::<Index>(), cut in any::<Index>()) {
        let (name, text) = *sample.get(&SAMPLES[..]);
        let cut = text.char_indices().map(|(i, _)| i).nth(cut.index(text.chars().count())).unwrap_or(text.len());
        import_damaged(name, &text[..cut], false);
    }

    #[test]
    fn attribute_values_replaced_never_panic(
        sample in any::<Index>(),
        edits in prop::collection::vec((any::<Index>(), any::<Index>()), 1..6),
        collision in any::<bool>(),
    ) {
        let (name, text) = *sample.get(&SAMPLES[..]);
        // Values are the text between `="` and the next `"`.
        let mut parts: Vec<String> = text.split('"').map(str::to_string).collect();
        for (at, nasty) in edits {
            let values = parts.len() / 2;
            if values > 0 {
                parts[2 * at.index(values) + 1] = nasty.get(&NASTY[..]).to_string();
            }
        }
        import_damaged(name, &parts.join("\""), collision);
    }

    #[test]
    fn lines_deleted_or_repeated_never_panic(
        sample in any::<Index>(),
        edits in prop::collection::vec((any::<Index>(), any::<bool>()), 1..5),
    ) {
        let (name, text) = *sample.get(&SAMPLES[..]);
        let mut lines: Vec<&str> = text.lines().collect();
        for (at, repeat) in edits {
            if lines.is_empty() {
                break;
            }
            let i = at.index(lines.len());
            if repeat {
                lines.insert(i, lines[i]);
            } else {
                lines.remove(i);
            }
        }
        import_damaged(name, &lines.join("\n"), true);
    }

    #[test]
    fn element_names_swapped_never_panic(sample in any::<Index>(), at in any::<Index>(), tag in any::<Index>()) {
        const TAGS: [&str; 10] = ["joint", "link", "body", "geom", "inertial", "default", "include", "freejoint", "mimic", "tendon"];
        let (name, text) = *sample.get(&SAMPLES[..]);
        let opens: Vec<usize> = text.match_indices("<j").chain(text.match_indices("<b")).chain(text.match_indices("<g")).map(|(i, _)| i + 1).collect();
        if opens.is_empty() {
            return Ok(());
        }
        let start = opens[at.index(opens.len())];
        let end = text[start..].find([' ', '>', '/']).map_or(text.len(), |e| start + e);
        let swapped = format!("{}{}{}", &text[..start], tag.get(&TAGS[..]), &text[end..]);
        import_damaged(name, &swapped, false);
    }
}
