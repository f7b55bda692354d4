//! A small MSH writer for round-trip tests: a [`Mesh`] back to 2.2 or 4.1, ASCII or binary.
//!
//! Groups below 3-D are written as collapsed elements (a point, a line `n n`, a triangle
//! `n n n` per node) so that their node sets survive the round trip; tets are written as they are.

use std::collections::BTreeMap;

use crate::gmsh::{Mesh, MshVersion, PhysicalGroup};

/// Output in either encoding: numbers as text fields or as little-endian bytes.
struct Out {
    bytes: Vec<u8>,
    binary: bool,
    /// Whether the current ASCII line already holds a field.
    line_started: bool,
}

impl Out {
    fn text(&mut self, text: &str) {
        self.bytes.extend_from_slice(text.as_bytes());
    }

    fn field(&mut self, text: String) {
        if self.line_started {
            self.bytes.push(b' ');
        }
        self.text(&text);
        self.line_started = true;
    }

    fn int(&mut self, value: i32) {
        if self.binary {
            self.bytes.extend_from_slice(&value.to_le_bytes());
        } else {
            self.field(value.to_string());
        }
    }

    fn size(&mut self, value: u64) {
        if self.binary {
            self.bytes.extend_from_slice(&value.to_le_bytes());
        } else {
            self.field(value.to_string());
        }
    }

    fn float(&mut self, value: f64) {
        if self.binary {
            self.bytes.extend_from_slice(&value.to_le_bytes());
        } else {
            // `{:?}` prints the shortest text that parses back to the same bits.
            self.field(format!("{value:?}"));
        }
    }

    fn end(&mut self) {
        if !self.binary {
            self.bytes.push(b'\n');
        }
        self.line_started = false;
    }

    /// Closes a section, after the newline Gmsh puts after binary data.
    fn section_end(&mut self, marker: &str) {
        if self.binary {
            self.bytes.push(b'\n');
        }
        self.text(&format!("{marker}\n"));
    }
}

/// One element to write: type, tag, entity (dim, tag), physical tag for 2.2, node tags.
struct Element {
    element_type: i32,
    tag: u64,
    dim: u8,
    entity: i32,
    physical: i32,
    nodes: Vec<u64>,
}

/// The elements that reproduce `mesh`: its tets, then collapsed elements for groups below 3-D.
fn elements(mesh: &Mesh, version: MshVersion) -> Vec<Element> {
    let tag_of = |i: usize| mesh.node_tags()[i];
    let mut out = Vec::new();
    let mut next_tag = mesh.tets().iter().map(|t| t.element_tag).max().unwrap_or(0) + 1;
    for tet in mesh.tets() {
        let nodes: Vec<u64> = tet.nodes.iter().map(|&i| tag_of(i)).collect();
        // MSH 2.2 repeats an element once per physical group; 4.1 gets them from the entity.
        let physicals = match version {
            MshVersion::V2_2 if !tet.physical_tags.is_empty() => tet.physical_tags.clone(),
            _ => vec![0],
        };
        for (copy, &physical) in physicals.iter().enumerate() {
            let tag = if copy == 0 {
                tet.element_tag
            } else {
                fresh(&mut next_tag)
            };
            let entity = tet.entity_tag;
            out.push(Element {
                element_type: 4,
                tag,
                dim: 3,
                entity,
                physical,
                nodes: nodes.clone(),
            });
        }
    }
    for group in lower_groups(mesh) {
        let (element_type, repeat) = [(15, 1), (1, 2), (2, 3)][usize::from(group.dim)];
        for &node in &group.nodes {
            out.push(Element {
                element_type,
                tag: fresh(&mut next_tag),
                dim: group.dim,
                entity: group.tag,
                physical: group.tag,
                nodes: vec![tag_of(node); repeat],
            });
        }
    }
    out
}

fn fresh(next: &mut u64) -> u64 {
    *next += 1;
    *next - 1
}

fn lower_groups(mesh: &Mesh) -> impl Iterator<Item = &PhysicalGroup> {
    mesh.physical_groups().iter().filter(|g| g.dim < 3)
}

/// Writes `mesh` as an MSH file of the given version and encoding.
pub(crate) fn write_msh(mesh: &Mesh, version: MshVersion, binary: bool) -> Vec<u8> {
    let mut out = Out {
        bytes: Vec::new(),
        binary,
        line_started: false,
    };
    let version_text = if version == MshVersion::V2_2 { "2.2" } else { "4.1" };
    out.text(&format!("$MeshFormat\n{version_text} {} 8\n", u8::from(binary)));
    if binary {
        out.int(1);
        out.bytes.push(b'\n');
    }
    out.text("$EndMeshFormat\n");
    let named: Vec<&PhysicalGroup> = mesh
        .physical_groups()
        .iter()
        .filter(|g| g.name.is_some())
        .collect();
    if !named.is_empty() {
        out.text(&format!("$PhysicalNames\n{}\n", named.len()));
        for g in named {
            out.text(&format!(
                "{} {} \"{}\"\n",
                g.dim,
                g.tag,
                g.name.as_deref().unwrap_or_default()
            ));
        }
        out.text("$EndPhysicalNames\n");
    }
    let elements = elements(mesh, version);
    match version {
        MshVersion::V2_2 => write_v22(&mut out, mesh, &elements),
        MshVersion::V4_1 => write_v41(&mut out, mesh, &elements),
    }
    out.bytes
}

fn write_v22(out: &mut Out, mesh: &Mesh, elements: &[Element]) {
    out.text(&format!("$Nodes\n{}\n", mesh.nodes().len()));
    for (xyz, &tag) in mesh.nodes().iter().zip(mesh.node_tags()) {
        out.int(i32::try_from(tag).expect("2.2 node tags are ints"));
        xyz.iter().for_each(|&x| out.float(x));
        out.end();
    }
    out.section_end("$EndNodes");
    out.text(&format!("$Elements\n{}\n", elements.len()));
    for e in elements {
        if out.binary {
            // One header per element keeps the writer short; readers must accept any grouping.
            [e.element_type, 1, 2].iter().for_each(|&v| out.int(v));
            out.int(e.tag as i32);
        } else {
            out.int(e.tag as i32);
            [e.element_type, 2].iter().for_each(|&v| out.int(v));
        }
        out.int(e.physical);
        out.int(e.entity);
        e.nodes.iter().for_each(|&n| out.int(n as i32));
        out.end();
    }
    out.section_end("$EndElements");
}

fn write_v41(out: &mut Out, mesh: &Mesh, elements: &[Element]) {
    // Entities: (dim, tag) → physical tags; tets' entities take their tets' physical tags.
    let mut entities: BTreeMap<(u8, i32), Vec<i32>> = BTreeMap::new();
    for tet in mesh.tets() {
        entities
            .entry((3, tet.entity_tag))
            .or_insert_with(|| tet.physical_tags.clone());
    }
    for g in lower_groups(mesh) {
        entities.insert((g.dim, g.tag), vec![g.tag]);
    }
    out.text("$Entities\n");
    (0..4).for_each(|d| out.size(entities.keys().filter(|k| k.0 == d).count() as u64));
    out.end();
    for (&(dim, tag), physicals) in &entities {
        out.int(tag);
        (0..if dim == 0 { 3 } else { 6 }).for_each(|_| out.float(0.0));
        out.size(physicals.len() as u64);
        physicals.iter().for_each(|&p| out.int(p));
        if dim > 0 {
            out.size(0);
        }
        out.end();
    }
    out.section_end("$EndEntities");

    // Nodes in two blocks (when there are two or more) to exercise the block loop.
    let n = mesh.nodes().len();
    let split = n / 2;
    let blocks: Vec<std::ops::Range<usize>> = [0..split, split..n]
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    let tags = mesh.node_tags();
    out.text("$Nodes\n");
    let (min, max) = (
        tags.iter().min().copied().unwrap_or(0),
        tags.iter().max().copied().unwrap_or(0),
    );
    [blocks.len() as u64, n as u64, min, max]
        .iter()
        .for_each(|&v| out.size(v));
    out.end();
    for (b, range) in blocks.iter().enumerate() {
        [3, b as i32 + 1, 0].iter().for_each(|&v| out.int(v));
        out.size(range.len() as u64);
        out.end();
        for &tag in &tags[range.clone()] {
            out.size(tag);
            out.end();
        }
        for xyz in &mesh.nodes()[range.clone()] {
            xyz.iter().for_each(|&x| out.float(x));
            out.end();
        }
    }
    out.section_end("$EndNodes");

    // Blocks are runs of consecutive elements of one (dim, entity, type): keeps the tet order,
    // and the same entity may then appear in several blocks, which readers must accept.
    let blocks: Vec<&[Element]> = elements
        .chunk_by(|a, b| (a.dim, a.entity, a.element_type) == (b.dim, b.entity, b.element_type))
        .collect();
    out.text("$Elements\n");
    let (min, max) = (
        elements.iter().map(|e| e.tag).min(),
        elements.iter().map(|e| e.tag).max(),
    );
    let header = [
        blocks.len() as u64,
        elements.len() as u64,
        min.unwrap_or(0),
        max.unwrap_or(0),
    ];
    header.iter().for_each(|&v| out.size(v));
    out.end();
    for block in &blocks {
        let first = &block[0];
        [i32::from(first.dim), first.entity, first.element_type]
            .iter()
            .for_each(|&v| out.int(v));
        out.size(block.len() as u64);
        out.end();
        for e in block.iter() {
            out.size(e.tag);
            e.nodes.iter().for_each(|&n| out.size(n));
            out.end();
        }
    }
    out.section_end("$EndElements");
}
