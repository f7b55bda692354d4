//! Fuzzing with proptest: damaged valid files (ASCII and binary) give `Ok` or `Err`, never a panic.
//!
//! Case counts are kept moderate (4 properties × 512 cases, well under a second) so the suite stays
//! fast on 2 cores; set `GMSH_FUZZ_CASES` for a longer run.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;

use super::fixtures::*;
use super::writer::write_msh;
use crate::gmsh::{parse_msh, MshVersion};

/// Cases per property unless `GMSH_FUZZ_CASES` says otherwise.
const CASES: u32 = 512;

fn cases() -> u32 {
    std::env::var("GMSH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES)
}

/// Valid inputs to damage: the hand-written meshes, their binary 2.2 and 4.1 encodings, and the
/// Gmsh-made cube in 2.2 ASCII and 4.1 binary.
fn samples() -> &'static [Vec<u8>] {
    static SAMPLES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let texts = [
            SINGLE_TET_22,
            SINGLE_TET_41,
            MIXED_22,
            MIXED_41,
            INVERTED_TET_41,
            QUADRATIC_TET_22,
        ];
        let mut samples: Vec<Vec<u8>> = texts.iter().map(|t| t.as_bytes().to_vec()).collect();
        let mixed = parse_msh(MIXED_41.as_bytes(), "mixed").expect("valid fixture");
        for version in [MshVersion::V2_2, MshVersion::V4_1] {
            samples.push(write_msh(&mixed, version, true));
        }
        samples.push(include_bytes!("../../../../meshes/cube_22.msh").to_vec());
        samples.push(include_bytes!("../../../../meshes/cube_41_bin.msh").to_vec());
        samples
    })
}

/// The sample chosen by `index`.
fn sample(index: Index) -> &'static [u8] {
    index.get::<Vec<u8>>(samples())
}

/// Parses a damaged input; only a panic fails the property.
fn parse_damaged(bytes: &[u8]) {
    let _ = parse_msh(bytes, "fuzz.msh");
}

/// Splits into lines, each keeping its `\n`.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// Values that stress counts, tags and numbers when they replace a field.
const NASTY_TOKENS: [&str; 10] = [
    "-1",
    "0",
    "2147483648",
    "4294967297",
    "18446744073709551616",
    "nan",
    "1e400",
    "$EndNodes",
    "\"",
    "4",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn truncation_never_panics(index in any::<Index>(), cut in any::<Index>()) {
        let bytes = sample(index);
        parse_damaged(&bytes[..cut.index(bytes.len() + 1)]);
    }

    #[test]
    fn byte_flips_never_panic(
        index in any::<Index>(),
        flips in prop::collection::vec((any::<Index>(), 1u8..=255), 1..8),
    ) {
        let mut bytes = sample(index).to_vec();
        for (at, mask) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
        }
        parse_damaged(&bytes);
    }

    #[test]
    fn line_deletions_never_panic(index in any::<Index>(), deletions in prop::collection::vec(any::<Index>(), 1..4)) {
        let mut kept = lines(sample(index));
        for at in deletions {
            if !kept.is_empty() {
                kept.remove(at.index(kept.len()));
            }
        }
        parse_damaged(&kept.concat());
    }

    #[test]
    fn token_replacements_never_panic(index in any::<Index>(), line in any::<Index>(), token in any::<Index>(), nasty in any::<Index>()) {
        let all = lines(sample(index));
        let line = line.index(all.len());
        let text = String::from_utf8_lossy(all[line]);
        let mut fields: Vec<&str> = text.split_whitespace().collect();
        if !fields.is_empty() {
            let t = token.index(fields.len());
            fields[t] = *nasty.get(&NASTY_TOKENS[..]);
        }
        let replaced = format!("{}\n", fields.join(" "));
        let mut damaged = all.clone();
        damaged[line] = replaced.as_bytes();
        parse_damaged(&damaged.concat());
    }
}
