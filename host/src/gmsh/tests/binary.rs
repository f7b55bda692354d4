//! Binary files and round trips: a mesh written in all four encodings reads back the same.

use proptest::prelude::*;

use super::fixtures::*;
use super::writer::write_msh;
use crate::gmsh::builder::{ElementRecord, MeshBuilder};
use crate::gmsh::element_type::ElementType;
use crate::gmsh::{parse_msh, signed_volume, Location, Mesh, MeshError, MshFormat, MshVersion};

const ENCODINGS: [(MshVersion, bool); 4] = [
    (MshVersion::V2_2, false),
    (MshVersion::V2_2, true),
    (MshVersion::V4_1, false),
    (MshVersion::V4_1, true),
];

/// Asserts that two meshes hold the same nodes, tets and groups (reports may differ).
fn assert_same_mesh(a: &Mesh, b: &Mesh) {
    assert_eq!(a.nodes(), b.nodes());
    assert_eq!(a.node_tags(), b.node_tags());
    let tets = |m: &Mesh| -> Vec<_> {
        let sorted = |t: &[i32]| {
            let mut t = t.to_vec();
            t.sort_unstable();
            t
        };
        m.tets()
            .iter()
            .map(|t| (t.nodes, t.element_tag, t.entity_tag, sorted(&t.physical_tags)))
            .collect()
    };
    assert_eq!(tets(a), tets(b));
    assert_eq!(a.physical_groups(), b.physical_groups());
}

fn read(bytes: &[u8]) -> Mesh {
    parse_msh(bytes, "roundtrip.msh").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn mixed_mesh_round_trips_in_every_encoding() {
    let original = read(MIXED_41.as_bytes());
    for (version, binary) in ENCODINGS {
        let mesh = read(&write_msh(&original, version, binary));
        assert_eq!(mesh.report().format, MshFormat { version, binary });
        assert_same_mesh(&original, &mesh);
    }
}

/// The mixed mesh as binary 4.1, and the offset of its endianness marker.
fn binary_41() -> (Vec<u8>, usize) {
    let bytes = write_msh(&read(MIXED_41.as_bytes()), MshVersion::V4_1, true);
    let marker = "$MeshFormat\n4.1 1 8\n".len();
    assert_eq!(bytes[marker..marker + 4], 1i32.to_le_bytes());
    (bytes, marker)
}

#[test]
fn big_endian_and_bad_markers_are_refused() {
    let (mut bytes, marker) = binary_41();
    bytes[marker..marker + 4].copy_from_slice(&1i32.to_be_bytes());
    let e = parse_msh(&bytes, "be.msh").expect_err("big endian");
    assert!(matches!(e, MeshError::Unsupported { .. }), "{e}");
    assert_eq!(e.to_string(), format!("be.msh:byte {marker}: big-endian binary data (re-export on a little-endian machine or as ASCII) is not supported"));
    bytes[marker..marker + 4].copy_from_slice(&7i32.to_le_bytes());
    let e = parse_msh(&bytes, "bad.msh").expect_err("bad marker");
    assert!(
        e.to_string()
            .contains("expected endianness marker (4-byte int 1), found 7"),
        "{e}"
    );
}

#[test]
fn truncated_binary_reports_a_byte_offset() {
    let (bytes, _) = binary_41();
    let nodes = bytes.windows(7).position(|w| w == b"$Nodes\n").expect("nodes") + 7;
    // Cut inside the first node block's data.
    let cut = nodes + 32 + 20 + 5;
    let e = parse_msh(&bytes[..cut], "cut.msh").expect_err("truncated");
    let Some(Location::Byte(offset)) = e.position().map(|p| p.location) else {
        panic!("{e}")
    };
    assert!(offset <= cut, "{e}");
    assert!(e.to_string().contains("found end of file"), "{e}");
}

#[test]
fn non_finite_binary_coordinate_is_an_error() {
    let original = read(SINGLE_TET_22.as_bytes());
    let mut bytes = write_msh(&original, MshVersion::V2_2, true);
    let first_x = bytes.windows(9).position(|w| w == b"$Nodes\n4\n").expect("nodes") + 9 + 4;
    bytes[first_x..first_x + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    let e = parse_msh(&bytes, "nan.msh").expect_err("NaN");
    assert_eq!(
        e.to_string(),
        format!("nan.msh:byte {first_x}: expected node x (a finite number), found NaN")
    );
}

#[test]
fn binary_22_element_header_count_is_checked() {
    let original = read(SINGLE_TET_22.as_bytes());
    let mut bytes = write_msh(&original, MshVersion::V2_2, true);
    let header = bytes
        .windows(12)
        .position(|w| w == b"$Elements\n1\n")
        .expect("elements")
        + 12;
    bytes[header + 4..header + 8].copy_from_slice(&2i32.to_le_bytes());
    let e = parse_msh(&bytes, "count.msh").expect_err("count");
    assert!(
        e.to_string()
            .contains("expected 1 to 1 elements following (of 1 announced), found 2"),
        "{e}"
    );
}

/// A random mesh: sparse node tags, tets in three volume entities (one with two physical tags,
/// one with none), a named surface group and a point group.
fn random_mesh(gaps: &[(u16, [f64; 3])], tets: &[([usize; 4], i32)], surface: &[usize], named: bool) -> Mesh {
    let format = MshFormat {
        version: MshVersion::V4_1,
        binary: false,
    };
    let mut builder = MeshBuilder::new("random", format);
    let here = Location::Line(1);
    let mut tags = Vec::new();
    let mut points = Vec::new();
    for (gap, xyz) in gaps {
        let tag = tags.last().copied().unwrap_or(0) + u64::from(*gap) + 1;
        builder.add_node(tag, *xyz, here).expect("unique tags");
        tags.push(tag);
        points.push(*xyz);
    }
    for (dim, entity, physicals) in [
        (3, 1, vec![1]),
        (3, 2, vec![2, 20]),
        (3, 3, vec![]),
        (2, 5, vec![5]),
    ] {
        builder.add_entity(dim, entity, physicals);
    }
    builder.add_entity(0, 6, vec![6]);
    if named {
        builder.add_physical_name(3, 1, "one".into());
        builder.add_physical_name(2, 5, "skin with spaces".into());
    }
    let tet_type = ElementType::from_number(4).expect("tet");
    let n = tags.len();
    let mut used = std::collections::HashSet::new();
    for (k, (quad, entity)) in tets.iter().enumerate() {
        let quad = quad.map(|i| i % n);
        let mut sorted = quad;
        sorted.sort_unstable();
        // A repeated tet would be merged, and MSH 4.1 cannot give one tet two entities' tags.
        if !used.insert(sorted) {
            continue;
        }
        let volume = signed_volume(quad.map(|i| points[i]));
        // Keep well-shaped tets only: near-degenerate ones are a reader error by design.
        if volume.abs() < 1e-3 {
            continue;
        }
        let node_tags = quad.map(|i| tags[i]);
        let element = ElementRecord {
            tag: 100 + k as u64,
            element_type: tet_type,
            dim: 3,
            entity: *entity,
            physical: None,
            node_tags: &node_tags,
            location: here,
        };
        builder.add_element(&element).expect("valid tet");
    }
    let point_type = ElementType::from_number(15).expect("point");
    for (k, &i) in surface.iter().enumerate() {
        let node_tags = [tags[i % n]];
        for (dim, entity) in [(2, 5), (0, 6)] {
            let element = ElementRecord {
                tag: 1000 + 2 * k as u64 + u64::from(dim),
                element_type: point_type,
                dim,
                entity,
                physical: None,
                node_tags: &node_tags,
                location: here,
            };
            builder.add_element(&element).expect("valid point");
        }
    }
    builder.finish()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_meshes_round_trip_in_every_encoding(
        nodes in prop::collection::vec((0u16..500, prop::array::uniform3(-10.0f64..10.0)), 4..24),
        tets in prop::collection::vec((prop::array::uniform4(0usize..64), 1i32..=3), 0..24),
        surface in prop::collection::vec(0usize..64, 0..8),
        named in any::<bool>(),
    ) {
        let original = random_mesh(&nodes, &tets, &surface, named);
        for (version, binary) in ENCODINGS {
            let mesh = read(&write_msh(&original, version, binary));
            assert_same_mesh(&original, &mesh);
        }
    }
}
