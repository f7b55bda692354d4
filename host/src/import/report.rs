//! What an import left out, said once per kind: elements ignored (visual or unknown, harmless)
//! and values read but not modelled yet (joint limits, friction...).

use std::collections::BTreeMap;
use std::fmt;

/// The notes of one import.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Ignored element tags: (count, first line).
    ignored: BTreeMap<String, (usize, usize)>,
    /// Not modelled yet: what → the items (names) that have it.
    not_modelled: BTreeMap<String, Vec<String>>,
    /// Other facts about the mapping (e.g. links merged into the ground).
    facts: Vec<String>,
}

impl ImportReport {
    /// An element `tag` at `line` that does not change the dynamics and is left out.
    pub fn ignore(&mut self, tag: &str, line: usize) {
        self.ignored.entry(tag.to_string()).or_insert((0, line)).0 += 1;
    }

    /// `item` has `what`, which the scenes do not model yet.
    pub fn not_modelled(&mut self, what: &str, item: &str) {
        self.not_modelled
            .entry(what.to_string())
            .or_default()
            .push(item.to_string());
    }

    /// A fact about how the model was mapped.
    pub fn fact(&mut self, text: String) {
        self.facts.push(text);
    }

    /// The notes, one a line.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (what, items) in &self.not_modelled {
            out.push(format!("not modelled yet: {what}: {}", list(items)));
        }
        if !self.ignored.is_empty() {
            let tags: Vec<String> = self
                .ignored
                .iter()
                .map(|(tag, (n, line))| format!("<{tag}> ×{n} (first at line {line})"))
                .collect();
            out.push(format!(
                "ignored (no effect on the dynamics): {}",
                tags.join(", ")
            ));
        }
        out.extend(self.facts.iter().cloned());
        out
    }

    /// Whether `what` was noted as not modelled.
    pub fn has_not_modelled(&self, what: &str) -> bool {
        self.not_modelled.contains_key(what)
    }
}

/// Up to eight names, then a count.
fn list(items: &[String]) -> String {
    if items.len() <= 8 {
        items.join(", ")
    } else {
        format!("{}, … ({} in all)", items[..8].join(", "), items.len())
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in self.lines() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}
