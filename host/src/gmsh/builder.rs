//! Builds a [`Mesh`] from the nodes, elements, entities and names both MSH versions deliver.

use std::collections::{BTreeMap, HashMap};

use super::cursor::capacity;
use super::element_type::{ElementType, TET4};
use super::error::{Location, MeshError, SourcePos};
use super::mesh::{
    signed_volume, IgnoredElements, InvertedTet, Mesh, MeshReport, MshFormat, PhysicalGroup, Tet,
};

/// Relative volume below which a tet is degenerate: |6V| ≤ this × (longest edge)³.
const DEGENERATE_RELATIVE_VOLUME: f64 = 1e-12;

/// Smallest encoding of a node record (binary 2.2: 4-byte tag + 3 doubles; ASCII is longer).
pub(crate) const MIN_NODE_BYTES: usize = 28;

/// One element as read from the file, whatever the version.
pub(crate) struct ElementRecord<'r> {
    /// Element tag in the file.
    pub(crate) tag: u64,
    /// Its type.
    pub(crate) element_type: ElementType,
    /// Dimension of the group it can belong to (entity dimension in 4.1, type dimension in 2.2).
    pub(crate) dim: u8,
    /// Elementary entity tag.
    pub(crate) entity: i32,
    /// MSH 2.2: the physical tag written with the element (0 = none); MSH 4.1: `None`, the
    /// physical tags come from `$Entities`.
    pub(crate) physical: Option<i32>,
    /// Node tags, as many as the type has.
    pub(crate) node_tags: &'r [u64],
    /// Where the element was read, for errors.
    pub(crate) location: Location,
}

/// The elements of one (dimension, entity, written physical tag): their nodes feed group node sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Owner {
    dim: u8,
    entity: i32,
    physical: Option<i32>,
}

/// Collects the parts of a mesh while the sections are read, then assembles the [`Mesh`].
pub(crate) struct MeshBuilder<'s> {
    source: &'s str,
    format: MshFormat,
    nodes: Vec<[f64; 3]>,
    node_tags: Vec<u64>,
    node_index: HashMap<u64, usize>,
    tets: Vec<Tet>,
    /// The owner of each tet, and of the repeats merged into it: they give its physical tags.
    tet_owners: Vec<Owner>,
    merged_owners: Vec<(usize, Owner)>,
    /// Sorted node quadruple → tet index, to merge repeated tets.
    tet_by_nodes: HashMap<[usize; 4], usize>,
    inverted: Vec<InvertedTet>,
    merged_duplicates: usize,
    names: HashMap<(u8, i32), String>,
    entity_physicals: HashMap<(u8, i32), Vec<i32>>,
    owner_nodes: HashMap<Owner, Vec<usize>>,
    ignored: BTreeMap<i32, (&'static str, usize)>,
    /// Reused buffer for the node indices of the current element.
    indices: Vec<usize>,
}

impl<'s> MeshBuilder<'s> {
    /// An empty builder for a file named `source` in `format`.
    pub(crate) fn new(source: &'s str, format: MshFormat) -> Self {
        MeshBuilder {
            source,
            format,
            nodes: Vec::new(),
            node_tags: Vec::new(),
            node_index: HashMap::new(),
            tets: Vec::new(),
            tet_owners: Vec::new(),
            merged_owners: Vec::new(),
            tet_by_nodes: HashMap::new(),
            inverted: Vec::new(),
            merged_duplicates: 0,
            names: HashMap::new(),
            entity_physicals: HashMap::new(),
            owner_nodes: HashMap::new(),
            ignored: BTreeMap::new(),
            indices: Vec::new(),
        }
    }

    fn at(&self, location: Location) -> SourcePos {
        SourcePos {
            source: self.source.to_string(),
            location,
        }
    }

    /// Prepares room for `count` nodes, bounded by what `remaining_bytes` of input can hold.
    pub(crate) fn reserve_nodes(&mut self, count: u64, remaining_bytes: usize) {
        let n = capacity(count, remaining_bytes, MIN_NODE_BYTES);
        self.nodes.reserve(n);
        self.node_tags.reserve(n);
        self.node_index.reserve(n);
    }

    /// Adds node `tag` at `xyz`.
    pub(crate) fn add_node(&mut self, tag: u64, xyz: [f64; 3], location: Location) -> Result<(), MeshError> {
        if self.node_index.insert(tag, self.nodes.len()).is_some() {
            return Err(MeshError::DuplicateNode {
                at: self.at(location),
                node_tag: tag,
            });
        }
        self.nodes.push(xyz);
        self.node_tags.push(tag);
        Ok(())
    }

    /// Records the name of physical group (`dim`, `tag`) from `$PhysicalNames`.
    pub(crate) fn add_physical_name(&mut self, dim: u8, tag: i32, name: String) {
        self.names.insert((dim, tag), name);
    }

    /// Records the physical tags of entity (`dim`, `tag`) from MSH 4.1 `$Entities`.
    pub(crate) fn add_entity(&mut self, dim: u8, tag: i32, physicals: Vec<i32>) {
        self.entity_physicals.insert((dim, tag), physicals);
    }

    /// Adds one element: keeps linear tets, rejects other volume elements, counts the rest.
    pub(crate) fn add_element(&mut self, element: &ElementRecord<'_>) -> Result<(), MeshError> {
        let ty = element.element_type;
        if let Some(hint) = ty.rejection_hint() {
            return Err(MeshError::UnsupportedElement {
                at: self.at(element.location),
                element_tag: element.tag,
                element_type: ty.number,
                description: ty.name,
                hint,
            });
        }
        self.indices.clear();
        for &node_tag in element.node_tags {
            match self.node_index.get(&node_tag) {
                Some(&index) => self.indices.push(index),
                None => {
                    return Err(MeshError::UnknownNode {
                        at: self.at(element.location),
                        element_tag: element.tag,
                        node_tag,
                    })
                }
            }
        }
        let owner = Owner {
            dim: element.dim,
            entity: element.entity,
            physical: element.physical,
        };
        self.owner_nodes
            .entry(owner)
            .or_default()
            .extend_from_slice(&self.indices);
        if ty.number == TET4 {
            self.add_tet(element, owner)
        } else {
            self.ignored.entry(ty.number).or_insert((ty.name, 0)).1 += 1;
            Ok(())
        }
    }

    /// Adds the tet whose node indices are in `self.indices`, or merges it into an equal one.
    fn add_tet(&mut self, element: &ElementRecord<'_>, owner: Owner) -> Result<(), MeshError> {
        let nodes = [self.indices[0], self.indices[1], self.indices[2], self.indices[3]];
        let mut key = nodes;
        key.sort_unstable();
        if let Some(&index) = self.tet_by_nodes.get(&key) {
            self.merged_owners.push((index, owner));
            self.merged_duplicates += 1;
            return Ok(());
        }
        let points = nodes.map(|i| self.nodes[i]);
        let volume = signed_volume(points);
        if is_degenerate(&points, volume) {
            return Err(MeshError::DegenerateTet {
                at: self.at(element.location),
                element_tag: element.tag,
                volume,
            });
        }
        let index = self.tets.len();
        if volume < 0.0 {
            self.inverted.push(InvertedTet {
                index,
                element_tag: element.tag,
                volume,
            });
        }
        self.tet_by_nodes.insert(key, index);
        self.tet_owners.push(owner);
        self.tets.push(Tet {
            nodes,
            element_tag: element.tag,
            entity_tag: element.entity,
            physical_tags: Vec::new(),
        });
        Ok(())
    }

    /// The physical tags of the elements of `owner`.
    fn physicals_of(&self, owner: &Owner) -> Vec<i32> {
        match owner.physical {
            Some(0) => Vec::new(),
            Some(tag) => vec![tag],
            None => self
                .entity_physicals
                .get(&(owner.dim, owner.entity))
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// Assembles the mesh: physical tags of the tets, groups and their sets.
    pub(crate) fn finish(mut self) -> Mesh {
        let owners = self
            .tet_owners
            .iter()
            .enumerate()
            .chain(self.merged_owners.iter().map(|(i, o)| (*i, o)));
        for (index, owner) in owners {
            for tag in self.physicals_of(owner) {
                let tags = &mut self.tets[index].physical_tags;
                if !tags.contains(&tag) {
                    tags.push(tag);
                }
            }
        }
        let mut groups: BTreeMap<(u8, i32), PhysicalGroup> = BTreeMap::new();
        for (&(dim, tag), name) in &self.names {
            groups
                .entry((dim, tag))
                .or_insert_with(|| empty_group(dim, tag))
                .name = Some(name.clone());
        }
        for (index, tet) in self.tets.iter().enumerate() {
            for &tag in &tet.physical_tags {
                groups
                    .entry((3, tag))
                    .or_insert_with(|| empty_group(3, tag))
                    .tets
                    .push(index);
            }
        }
        for (owner, nodes) in &self.owner_nodes {
            for tag in self.physicals_of(owner) {
                let group = groups
                    .entry((owner.dim, tag))
                    .or_insert_with(|| empty_group(owner.dim, tag));
                group.nodes.extend_from_slice(nodes);
            }
        }
        let physical_groups = groups
            .into_values()
            .map(|mut g| {
                g.nodes.sort_unstable();
                g.nodes.dedup();
                g
            })
            .collect();
        let ignored_elements = self
            .ignored
            .iter()
            .map(|(&element_type, &(name, count))| IgnoredElements {
                element_type,
                name,
                count,
            })
            .collect();
        Mesh {
            nodes: self.nodes,
            node_tags: self.node_tags,
            node_index: self.node_index,
            tets: self.tets,
            physical_groups,
            report: MeshReport {
                format: self.format,
                ignored_elements,
                inverted_tets: self.inverted,
                reoriented_tets: Vec::new(),
                merged_duplicate_tets: self.merged_duplicates,
            },
        }
    }
}

/// A group with no name and no members yet.
fn empty_group(dim: u8, tag: i32) -> PhysicalGroup {
    PhysicalGroup {
        dim,
        tag,
        name: None,
        tets: Vec::new(),
        nodes: Vec::new(),
    }
}

/// True when the tet's volume is negligible against the cube of its longest edge.
fn is_degenerate(points: &[[f64; 3]; 4], volume: f64) -> bool {
    let mut longest_squared: f64 = 0.0;
    for i in 0..4 {
        for j in i + 1..4 {
            let d: f64 = (0..3).map(|k| (points[i][k] - points[j][k]).powi(2)).sum();
            longest_squared = longest_squared.max(d);
        }
    }
    let longest = longest_squared.sqrt();
    (6.0 * volume).abs() <= DEGENERATE_RELATIVE_VOLUME * longest * longest * longest
}
