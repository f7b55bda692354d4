//! Contact output at every output time: one CSV row per active contact point (rigid,
//! `contacts.csv`), one per touching body pair (flexible, `flex_contacts.csv`), one per
//! touching shape and flexible body (`flex_shape_contacts.csv`).

use super::Recorder;
use crate::contact::FlexContacts;
use crate::output::{CsvWriter, OutputDir};
use crate::simulation::{Sample, Simulation};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Columns of contacts.csv (shapes by index in the order given).
pub const CONTACT_COLUMNS: [&str; 18] = [
    "time",
    "shape_a",
    "shape_b",
    "point",
    "x",
    "y",
    "z",
    "nx",
    "ny",
    "nz",
    "penetration",
    "penetration_rate",
    "impact_speed",
    "normal_force",
    "friction_x",
    "friction_y",
    "friction_z",
    "active_pairs",
];

/// Writes the contacts active at every output time into `contacts.csv`.
pub struct ContactCsv {
    out: CsvWriter,
}

impl ContactCsv {
    /// Claims `contacts.csv` in `dir` and writes the header.
    pub fn create(dir: &OutputDir) -> Result<Self> {
        let mut out = dir.file("contacts.csv")?;
        out.header(&CONTACT_COLUMNS)?;
        Ok(Self { out })
    }
}

impl Recorder for ContactCsv {
    /// One row per contact active at the last accepted state.
    fn record(&mut self, sim: &mut Simulation, _: &Sample) -> Result<()> {
        let Some(world) = sim.contacts().and_then(|c| c.rigid()) else {
            return Ok(());
        };
        let t = sim.time();
        let active = world.active();
        let mut pairs: Vec<(usize, usize)> = active.iter().map(|c| (c.shape_a, c.shape_b)).collect();
        pairs.dedup();
        for c in active {
            self.out.row(&[
                t,
                c.shape_a as f64,
                c.shape_b as f64,
                f64::from(c.point_index),
                c.point[0],
                c.point[1],
                c.point[2],
                c.normal[0],
                c.normal[1],
                c.normal[2],
                c.penetration,
                c.penetration_rate,
                c.impact_speed,
                c.normal_force,
                c.friction_force[0],
                c.friction_force[1],
                c.friction_force[2],
                pairs.len() as f64,
            ])?;
        }
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        Ok(vec![self.out.finish()?])
    }
}

/// Columns of flex_contacts.csv: one row per touching body pair at every output time
/// (bodies by flexible index in file order, −1 for the ground).
pub const FLEX_CONTACT_COLUMNS: [&str; 10] = [
    "time",
    "body_a",
    "body_b",
    "contacts",
    "max_penetration",
    "normal_force",
    "friction_x",
    "friction_y",
    "friction_z",
    "active_pairs",
];

/// Node contacts of one body pair summed: count, deepest penetration, total normal force,
/// total friction force on body b.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairSummary {
    /// Node contacts.
    pub contacts: usize,
    /// Deepest penetration (m).
    pub max_penetration: f64,
    /// Sum of the normal forces (N).
    pub normal_force: f64,
    /// Sum of the friction forces on b (N, global).
    pub friction: [f64; 3],
}

impl PairSummary {
    fn add(&mut self, penetration: f64, normal_force: f64, force: [f64; 3], normal: [f64; 3]) {
        self.contacts += 1;
        self.max_penetration = self.max_penetration.max(penetration);
        self.normal_force += normal_force;
        for k in 0..3 {
            self.friction[k] += force[k] - normal_force * normal[k];
        }
    }
}

/// The active contacts of `contacts` summed per body pair (a, b), ground = `None`, b the body
/// of the touching node, a the ground or the body of the face; `body_of[node]` is the node's body.
pub fn flex_pair_summaries(
    contacts: &FlexContacts,
    body_of: &[usize],
) -> BTreeMap<(Option<usize>, usize), PairSummary> {
    let mut out: BTreeMap<(Option<usize>, usize), PairSummary> = BTreeMap::new();
    let body = |n: usize| body_of.get(n).copied().unwrap_or(0);
    for g in &contacts.ground {
        for c in g.active() {
            out.entry((None, body(c.node))).or_default().add(
                c.penetration,
                c.normal_force,
                c.force,
                g.normal(),
            );
        }
    }
    if let Some(p) = &contacts.pair {
        for c in p.active() {
            let face_body = body(p.faces()[c.face].0[0]);
            out.entry((Some(face_body), body(c.node))).or_default().add(
                c.penetration,
                c.normal_force,
                c.force,
                c.normal,
            );
        }
    }
    out
}

/// Columns of flex_shape_contacts.csv: one row per rigid shape touching a flexible body at
/// every output time (shape index in file order, flexible index in file order).
pub const FLEX_SHAPE_CONTACT_COLUMNS: [&str; 10] = [
    "time",
    "shape",
    "body",
    "contacts",
    "max_penetration",
    "normal_force",
    "friction_x",
    "friction_y",
    "friction_z",
    "active_pairs",
];

/// The active node contacts of `contacts` with rigid shapes summed per (shape, flexible body);
/// `body_of[node]` is the node's body. Friction is the force on the flexible body.
pub fn flex_shape_summaries(
    contacts: &FlexContacts,
    body_of: &[usize],
) -> BTreeMap<(usize, usize), PairSummary> {
    let mut out: BTreeMap<(usize, usize), PairSummary> = BTreeMap::new();
    for c in contacts.shapes.iter().flat_map(|s| s.active()) {
        let body = body_of.get(c.node).copied().unwrap_or(0);
        out.entry((c.shape, body))
            .or_default()
            .add(c.penetration, c.normal_force, c.force, c.normal);
    }
    out
}

/// Writes the flexible contacts of each output time summed per touching pair: into
/// `flex_contacts.csv` (body pairs, ground planes) or `flex_shape_contacts.csv` (rigid shapes).
pub struct FlexContactCsv {
    out: CsvWriter,
    body_of: Vec<usize>,
    shapes: bool,
}

impl FlexContactCsv {
    /// Claims `flex_contacts.csv` in `dir` and writes the header; `body_of[node]` is the
    /// flexible body of each node.
    pub fn create(dir: &OutputDir, body_of: Vec<usize>) -> Result<Self> {
        let mut out = dir.file("flex_contacts.csv")?;
        out.header(&FLEX_CONTACT_COLUMNS)?;
        Ok(Self {
            out,
            body_of,
            shapes: false,
        })
    }

    /// Claims `flex_shape_contacts.csv` in `dir` and writes the header (the contacts with
    /// rigid shapes); `body_of[node]` is the flexible body of each node.
    pub fn create_for_shapes(dir: &OutputDir, body_of: Vec<usize>) -> Result<Self> {
        let mut out = dir.file("flex_shape_contacts.csv")?;
        out.header(&FLEX_SHAPE_CONTACT_COLUMNS)?;
        Ok(Self {
            out,
            body_of,
            shapes: true,
        })
    }
}

impl Recorder for FlexContactCsv {
    /// One row per touching pair at the last accepted state.
    fn record(&mut self, sim: &mut Simulation, _: &Sample) -> Result<()> {
        let Some(contacts) = sim.contacts().and_then(|c| c.flexible()) else {
            return Ok(());
        };
        let t = sim.time();
        // (first column, second column, summary) of each pair.
        let pairs: Vec<(f64, f64, PairSummary)> = if self.shapes {
            let pairs = flex_shape_summaries(contacts, &self.body_of);
            pairs
                .iter()
                .map(|(&(s, b), p)| (s as f64, b as f64, *p))
                .collect()
        } else {
            let pairs = flex_pair_summaries(contacts, &self.body_of);
            let body = |a: Option<usize>| a.map_or(-1.0, |a| a as f64);
            pairs.iter().map(|(&(a, b), p)| (body(a), b as f64, *p)).collect()
        };
        for &(a, b, s) in &pairs {
            self.out.row(&[
                t,
                a,
                b,
                s.contacts as f64,
                s.max_penetration,
                s.normal_force,
                s.friction[0],
                s.friction[1],
                s.friction[2],
                pairs.len() as f64,
            ])?;
        }
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        Ok(vec![self.out.finish()?])
    }
}
