//! The named parts of a simulation, and kernel errors written with those names: the kernel
//! knows items by index only ("joint 3"); a user knows them by the scene's names.

use crate::implicit::ImplicitError;
use crate::scene::NameMaps;
use crate::sensor::Sensor;
use ferrodyn_kernel::{Item, KernelError};
use std::fmt;
use std::ops::Range;

/// The named parts of a simulation, for outputs and messages.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// Rigid bodies, joints and forces by index.
    pub names: NameMaps,
    /// Each flexible body's name and node range in the flexible model.
    pub flexibles: Vec<(String, Range<usize>)>,
    /// Each flexible body's element range in the flexible model (same order).
    pub flexible_elements: Vec<Range<usize>>,
    /// Sensors sampled at output times.
    pub sensors: Vec<Sensor>,
    /// What runs, for the header line (e.g. `20 bodies, rk4`).
    pub description: String,
    /// Whether nothing does work on the system (no drive, no applied force or load), so its
    /// energy may not grow.
    pub conservative: bool,
}

impl Labels {
    /// Writes `item` by its scene name: `joint "elbow"`, `node 4 of flexible body "beam"`;
    /// by index where the scene has no name for it.
    pub fn write_item(&self, item: Item, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = &self.names;
        let rigid = match item {
            Item::Body(i) => names.bodies.get(i).map(|n| ("body", n)),
            Item::Joint(i) => names.joints.get(i).map(|n| ("joint", n)),
            Item::Force(i) => names.forces.get(i).map(|n| ("force", n)),
            _ => None,
        };
        if let Some((kind, name)) = rigid {
            return write!(f, "{kind} \"{name}\"");
        }
        let flexible_names = || self.flexibles.iter().map(|(n, _)| n.as_str());
        let flexible = match item {
            Item::Node(i) => within(flexible_names().zip(self.flexibles.iter().map(|(_, r)| r)), i)
                .map(|place| ("node", place)),
            Item::Element(i) => {
                within(flexible_names().zip(&self.flexible_elements), i).map(|place| ("element", place))
            }
            _ => None,
        };
        match flexible {
            Some((kind, (name, k))) => write!(f, "{kind} {k} of flexible body \"{name}\""),
            None => write!(f, "{item}"),
        }
    }
}

/// The name of the range holding `i`, and `i`'s place in it.
fn within<'a>(
    mut ranges: impl Iterator<Item = (&'a str, &'a Range<usize>)>,
    i: usize,
) -> Option<(&'a str, usize)> {
    ranges
        .find(|(_, r)| r.contains(&i))
        .map(|(name, r)| (name, i - r.start))
}

impl Labels {
    /// A kernel or implicit-solver error (anywhere in `error`'s chain) rewritten with the
    /// scene's names, under the outermost context; other errors as they are.
    pub fn name_error(&self, error: anyhow::Error) -> anyhow::Error {
        let item = |item| ItemName(self, item);
        let named = if let Some(kernel) = error.downcast_ref::<KernelError>() {
            kernel.describe(|i, f| self.write_item(i, f)).to_string()
        } else if let Some(ImplicitError::Element { element, time, error }) = error.downcast_ref() {
            format!("{} at t = {time} s: {error}", item(Item::Element(*element)))
        } else {
            return error;
        };
        let (outer, root) = (error.to_string(), error.root_cause().to_string());
        match outer == root {
            true => anyhow::anyhow!(named),
            false => anyhow::anyhow!(named).context(outer),
        }
    }
}

/// An item written by its scene name.
struct ItemName<'a>(&'a Labels, Item);

impl fmt::Display for ItemName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_item(self.1, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_errors_name_the_scene_items() {
        let labels = Labels {
            names: NameMaps {
                bodies: vec!["upper_arm".into(), "forearm".into()],
                joints: vec!["shoulder".into(), "elbow".into()],
                ..NameMaps::default()
            },
            flexibles: vec![("beam".into(), 0..10), ("plate".into(), 10..30)],
            flexible_elements: vec![0..24, 24..60],
            ..Labels::default()
        };
        let said = |e: KernelError| labels.name_error(e.into()).to_string();
        let non_finite = |item| KernelError::NonFinite { item, time: 0.5 };
        assert_eq!(
            said(non_finite(Item::Body(1))),
            "NaN or infinity in the state of body \"forearm\" at t = 0.5 s"
        );
        assert!(said(non_finite(Item::Node(12))).contains("node 2 of flexible body \"plate\""));
        let inverted = KernelError::ElementInverted {
            element: 30,
            qp: 1,
            time: 0.1,
        };
        assert!(said(inverted).starts_with("element 6 of flexible body \"plate\" inverted"));
        let conflict = KernelError::InconsistentConstraints {
            row: 7,
            joint: 1,
            residual: 1e-3,
        };
        assert!(said(conflict).starts_with("joint \"elbow\": redundant constraint row 7"));
        // An index the scene does not name stays an index.
        assert!(said(non_finite(Item::Joint(5))).contains("joint 5"));
        // Under a context, the context stays on top.
        let hht = anyhow::Error::from(ImplicitError::Element {
            element: 3,
            time: 0.25,
            error: ferrodyn_kernel::ancf::ElementError::Inverted {
                qp: 0,
                jacobian: -0.1,
            },
        })
        .context("HHT step from t = 0.25 s");
        let named = format!("{:#}", labels.name_error(hht));
        assert!(
            named.starts_with("HHT step from t = 0.25 s: element 3 of flexible body \"beam\" at t = 0.25 s"),
            "{named}"
        );
        // Other errors pass through unchanged.
        assert_eq!(labels.name_error(anyhow::anyhow!("other")).to_string(), "other");
    }
}
