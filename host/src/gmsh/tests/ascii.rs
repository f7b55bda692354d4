//! Hand-written ASCII meshes of both versions: contents, groups, report and error messages.

use super::fixtures::*;
use crate::gmsh::{parse_msh, read_msh, Location, Mesh, MeshError, MshVersion};

fn parse(text: &str) -> Mesh {
    parse_msh(text.as_bytes(), "test.msh").unwrap_or_else(|e| panic!("{e}"))
}

fn parse_err(text: &str) -> MeshError {
    match parse_msh(text.as_bytes(), "test.msh") {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn single_tet_22() {
    let mesh = parse(SINGLE_TET_22);
    assert_eq!(
        mesh.nodes(),
        &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    );
    assert_eq!(mesh.tets().len(), 1);
    let tet = &mesh.tets()[0];
    assert_eq!((tet.nodes, tet.element_tag, tet.entity_tag), ([0, 1, 2, 3], 1, 1));
    assert_eq!(tet.physical_tags, vec![1]);
    // Unit tet: V = 1/6 (the reference element of Gmsh, positively oriented).
    assert!((mesh.tet_volume(0) - 1.0 / 6.0).abs() < 1e-15);
    let group = mesh.group(3, 1).expect("group (3, 1)");
    assert_eq!(
        (group.name.as_deref(), group.tets.as_slice(), group.nodes.len()),
        (None, &[0][..], 4)
    );
    assert_eq!(mesh.report().format.version, MshVersion::V2_2);
    assert!(!mesh.report().format.binary);
    assert!(mesh.report().warnings().is_empty());
}

#[test]
fn single_tet_41_takes_physical_tag_from_entity() {
    let mesh = parse(SINGLE_TET_41);
    assert_eq!(mesh.tets()[0].physical_tags, vec![7]);
    assert_eq!(mesh.group(3, 7).map(|g| g.tets.clone()), Some(vec![0]));
    assert_eq!(mesh.report().format.version, MshVersion::V4_1);
}

/// What both versions of the mixed mesh must give.
fn check_mixed(mesh: &Mesh) {
    assert_eq!(mesh.nodes().len(), 5);
    assert_eq!(mesh.node_tags(), &[10, 20, 30, 40, 50]);
    assert_eq!(mesh.node_index(50), Some(4));
    assert_eq!(mesh.node_index(5), None);
    let tets: Vec<_> = mesh
        .tets()
        .iter()
        .map(|t| (t.nodes, t.element_tag, t.physical_tags.clone()))
        .collect();
    assert_eq!(tets, vec![([0, 1, 2, 3], 6, vec![1]), ([0, 2, 1, 4], 7, vec![1])]);
    // The shared face (10, 20, 30) is seen from both sides: both tets positive.
    assert!(mesh.report().inverted_tets.is_empty());
    let groups: Vec<_> = mesh
        .physical_groups()
        .iter()
        .map(|g| (g.dim, g.tag, g.name.as_deref()))
        .collect();
    assert_eq!(
        groups,
        vec![
            (0, 3, Some("tip point")),
            (2, 2, Some("clamp")),
            (3, 1, Some("body"))
        ]
    );
    assert_eq!(mesh.tets_of_group("body"), Some(&[0, 1][..]));
    assert_eq!(mesh.nodes_of_group("body"), Some(&[0, 1, 2, 3, 4][..]));
    assert_eq!(mesh.nodes_of_group("clamp"), Some(&[0, 1, 3][..]));
    assert_eq!(mesh.tets_of_group("clamp"), Some(&[][..]));
    assert_eq!(mesh.nodes_of_group("tip point"), Some(&[4][..]));
    assert_eq!(mesh.group_by_name("nothing"), None);
    let ignored: Vec<_> = mesh
        .report()
        .ignored_elements
        .iter()
        .map(|i| (i.element_type, i.name, i.count))
        .collect();
    assert_eq!(
        ignored,
        vec![
            (1, "2-node line", 2),
            (2, "3-node triangle", 2),
            (15, "1-node point", 1)
        ]
    );
    let warnings = mesh.report().warnings();
    assert_eq!(warnings[1], "ignored 2 elements of type 2 (3-node triangle)");
}

#[test]
fn mixed_mesh_22_groups_and_ignored_counts() {
    check_mixed(&parse(MIXED_22));
}

#[test]
fn mixed_mesh_41_groups_ignored_counts_and_skipped_sections() {
    let mesh = parse(MIXED_41);
    check_mixed(&mesh);
    assert_eq!(mesh.tets()[0].entity_tag, 1);
}

#[test]
fn crlf_line_endings_read_the_same() {
    for text in [MIXED_22, MIXED_41] {
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(parse(&crlf).tets(), parse(text).tets());
    }
}

#[test]
fn second_order_tet_is_refused_with_a_remedy() {
    let e = parse_err(QUADRATIC_TET_22);
    let message = e.to_string();
    assert!(matches!(
        e,
        MeshError::UnsupportedElement {
            element_tag: 12,
            element_type: 11,
            ..
        }
    ));
    assert!(message.starts_with("test.msh:19: element 12 has type 11 (10-node second order tetrahedron)"));
    assert!(message.contains("only linear 4-node tetrahedra"), "{message}");
    assert!(message.contains("-order 1"), "{message}");
}

#[test]
fn linear_hexahedron_is_refused_too() {
    let text = SINGLE_TET_22.replace("1 4 2 1 1 1 2 3 4", "1 5 2 1 1 1 2 3 4 1 2 3 4");
    let message = parse_err(&text).to_string();
    assert!(message.contains("type 5 (8-node hexahedron)"), "{message}");
}

#[test]
fn inverted_tet_is_reported_and_fixed() {
    let mut mesh = parse(INVERTED_TET_41);
    let inverted = &mesh.report().inverted_tets;
    assert_eq!(inverted.len(), 1);
    assert_eq!((inverted[0].index, inverted[0].element_tag), (0, 9));
    assert!((inverted[0].volume + 1.0 / 6.0).abs() < 1e-15);
    assert!(mesh.report().warnings()[0].contains("negative volume"));
    assert_eq!(mesh.fix_orientation(), 1);
    assert!((mesh.tet_volume(0) - 1.0 / 6.0).abs() < 1e-15);
    assert!(mesh.report().inverted_tets.is_empty());
    // The repair is reported with the element, as `check` prints it.
    assert_eq!(
        mesh.report().warnings(),
        ["1 tetrahedra had negative volume in Gmsh node order and were reoriented (nodes 1 and 2 swapped): element 9 (tet 0, volume -1.6667e-1)"]
    );
    assert_eq!(mesh.fix_orientation(), 0);
}

#[test]
fn degenerate_tet_is_an_error_naming_the_element() {
    let text = SINGLE_TET_22.replace("4 0 0 1", "4 1 1 0");
    let e = parse_err(&text);
    assert!(
        matches!(e, MeshError::DegenerateTet { element_tag: 1, .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("test.msh:13: tetrahedron element 1 is degenerate"),
        "{e}"
    );
}

#[test]
fn short_element_line_names_line_element_and_counts() {
    let text = SINGLE_TET_22.replace("1 4 2 1 1 1 2 3 4", "57 4 2 1 1 1 2 3");
    let e = parse_msh(text.as_bytes(), "meshes/beam.msh").expect_err("short line");
    assert_eq!(
        e.to_string(),
        "meshes/beam.msh:13: expected 4 node tags for element 57 (type 4), found 3"
    );
    let text = SINGLE_TET_41.replace("1 1 2 3 4", "57 1 2 3");
    let e = parse_msh(text.as_bytes(), "b.msh").expect_err("short line");
    assert_eq!(
        e.to_string(),
        "b.msh:23: expected 4 node tags for element 57 (type 4), found 3"
    );
}

#[test]
fn unknown_node_tag_and_duplicate_node_are_errors() {
    let e = parse_err(&SINGLE_TET_22.replace("1 4 2 1 1 1 2 3 4", "1 4 2 1 1 1 2 3 9"));
    assert!(
        matches!(
            e,
            MeshError::UnknownNode {
                element_tag: 1,
                node_tag: 9,
                ..
            }
        ),
        "{e}"
    );
    let e = parse_err(&SINGLE_TET_22.replace("2 1 0 0", "1 1 0 0"));
    assert!(matches!(e, MeshError::DuplicateNode { node_tag: 1, .. }), "{e}");
    assert_eq!(e.position().map(|p| p.location), Some(Location::Line(7)));
}

#[test]
fn unsupported_versions_are_named() {
    for version in ["3.0", "4", "2.1", "x"] {
        let text = SINGLE_TET_22.replace("2.2 0 8", &format!("{version} 0 8"));
        let e = parse_err(&text);
        assert!(matches!(e, MeshError::UnsupportedVersion { .. }), "{e}");
        assert!(
            e.to_string()
                .contains(&format!("MSH version {version} is not supported")),
            "{e}"
        );
    }
    let e = parse_err(&SINGLE_TET_22.replace("2.2 0 8", "2.2 0 4"));
    assert!(e.to_string().contains("data-size '4'"), "{e}");
}

#[test]
fn bad_numbers_name_the_field_and_token() {
    let e = parse_err(&SINGLE_TET_22.replace("2 1 0 0", "2 1 0 zero"));
    assert_eq!(
        e.to_string(),
        "test.msh:7: expected node z (a finite number), found 'zero'"
    );
    let e = parse_err(&SINGLE_TET_22.replace("2 1 0 0", "2 1 0 nan"));
    assert!(e.to_string().contains("found 'nan'"), "{e}");
    let e = parse_err(&SINGLE_TET_22.replace("2 1 0 0", "2 1 0 0 5"));
    assert_eq!(e.to_string(), "test.msh:7: expected end of line, found '5'");
}

#[test]
fn wrong_counts_are_errors() {
    // One node more announced than given: the $EndNodes line is read as a node.
    let e = parse_err(&SINGLE_TET_22.replace("$Nodes\n4\n", "$Nodes\n5\n"));
    assert!(
        e.to_string()
            .contains("expected node tag (a 32-bit integer), found '$EndNodes'"),
        "{e}"
    );
    // One less: a node line is left where $EndNodes belongs.
    let e = parse_err(&SINGLE_TET_22.replace("$Nodes\n4\n", "$Nodes\n3\n"));
    assert_eq!(e.to_string(), "test.msh:9: expected $EndNodes, found '4 0 0 1'");
    // 4.1 blocks holding fewer nodes than the header announces.
    let e = parse_err(&SINGLE_TET_41.replace("1 4 1 4\n", "1 5 1 4\n"));
    assert!(
        e.to_string()
            .contains("expected 5 nodes in the blocks, as announced, found 4"),
        "{e}"
    );
    let e = parse_err(&SINGLE_TET_41.replace("1 4 1 4\n", "1 3 1 4\n"));
    assert!(e.to_string().contains("at most 3 items in this block"), "{e}");
}

#[test]
fn truncated_files_are_errors_not_panics() {
    for text in [SINGLE_TET_22, SINGLE_TET_41, MIXED_22, MIXED_41] {
        for cut in 0..text.len() {
            // Cuts inside the last marker line still leave a complete mesh or an error.
            let _ = parse_msh(&text.as_bytes()[..cut], "cut.msh");
        }
        let cut = text.find("$EndElements").expect("marker");
        assert!(parse_msh(&text.as_bytes()[..cut], "cut.msh").is_err());
    }
    let e = parse_err(&SINGLE_TET_22[..SINGLE_TET_22.find("3 0 1 0").expect("line")]);
    assert_eq!(
        e.to_string(),
        "test.msh:8: expected node (tag x y z), found end of file"
    );
}

#[test]
fn huge_counts_do_not_allocate_or_hang() {
    let text = SINGLE_TET_22.replace("$Nodes\n4\n", "$Nodes\n18446744073709551615\n");
    assert!(parse_msh(text.as_bytes(), "huge.msh").is_err());
    let text = SINGLE_TET_41.replace("1 4 1 4\n3 1 0 4\n", "1 4000000000000 1 4\n3 1 0 4000000000000\n");
    assert!(parse_msh(text.as_bytes(), "huge.msh").is_err());
    let text = SINGLE_TET_41.replace("1 0 0 0 1 1 1 1 7 0", "1 0 0 0 1 1 1 18446744073709551615 7 0");
    assert!(parse_msh(text.as_bytes(), "huge.msh").is_err());
}

#[test]
fn structural_errors() {
    let e = parse_err("hello\n");
    assert!(e.to_string().contains("expected $MeshFormat"), "{e}");
    assert!(parse_err("").to_string().contains("found an empty input"));
    let without_elements = &SINGLE_TET_22[..SINGLE_TET_22.find("$Elements").expect("marker")];
    assert!(parse_err(without_elements)
        .to_string()
        .contains("no $Elements section"));
    let twice = format!("{SINGLE_TET_22}$Nodes\n0\n$EndNodes\n");
    assert!(parse_err(&twice).to_string().contains("a second $Nodes section"));
    let partitioned = SINGLE_TET_41.replace(
        "$Entities",
        "$PartitionedEntities\n$EndPartitionedEntities\n$Entities",
    );
    assert!(parse_err(&partitioned).to_string().contains("partitioned mesh"));
    let unclosed = SINGLE_TET_22.replace("$EndMeshFormat\n", "$EndMeshFormat\n$Comments\n");
    // The skipped section swallows everything up to end of file looking for its end.
    assert!(parse_err(&unclosed)
        .to_string()
        .contains("$EndComments closing $Comments"));
    let junk = SINGLE_TET_22.replace("$EndNodes\n", "$EndNodes\njunk\n");
    assert!(parse_err(&junk)
        .to_string()
        .contains("expected a section marker such as $Nodes, found 'junk'"));
}

#[test]
fn parametric_nodes_41_skip_their_extra_coordinates() {
    let text = SINGLE_TET_41.replace("3 1 0 4\n", "3 1 1 4\n").replace(
        "0 0 0\n1 0 0\n0 1 0\n0 0 1\n",
        "0 0 0 9 9 9\n1 0 0 9 9 9\n0 1 0 9 9 9\n0 0 1 9 9 9\n",
    );
    assert_eq!(parse(&text).nodes(), parse(SINGLE_TET_41).nodes());
}

#[test]
fn repeated_tets_of_msh22_merge_their_physical_tags() {
    // Gmsh 2.2 writes an element once per physical group it belongs to.
    let text = SINGLE_TET_22
        .replace("$Elements\n1\n", "$Elements\n2\n")
        .replace("1 4 2 1 1 1 2 3 4\n", "1 4 2 1 1 1 2 3 4\n2 4 2 5 1 1 2 3 4\n");
    let mesh = parse(&text);
    assert_eq!(mesh.tets().len(), 1);
    assert_eq!(mesh.tets()[0].physical_tags, vec![1, 5]);
    assert_eq!(mesh.group(3, 5).map(|g| g.tets.clone()), Some(vec![0]));
    assert_eq!(mesh.report().merged_duplicate_tets, 1);
}

#[test]
fn physical_tag_zero_means_no_group_in_msh22() {
    let mesh = parse(&SINGLE_TET_22.replace("1 4 2 1 1 1 2 3 4", "1 4 2 0 1 1 2 3 4"));
    assert!(mesh.tets()[0].physical_tags.is_empty());
    assert!(mesh.physical_groups().is_empty());
}

#[test]
fn read_msh_names_a_missing_file() {
    let e = read_msh(std::path::Path::new("/nonexistent/beam.msh")).expect_err("no file");
    assert!(matches!(e, MeshError::Io { .. }));
    assert!(
        e.to_string().starts_with("/nonexistent/beam.msh: cannot read"),
        "{e}"
    );
}
