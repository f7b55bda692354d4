//! MSH 2.2 `$Nodes` and `$Elements`: counts on text lines, element tags `phys entity ...`.
//!
//! ASCII element lines are `tag type ntags tags... nodes...`; binary groups elements under
//! headers `type count ntags`, each element then `tag tags... nodes...` as 4-byte ints.

use super::builder::{ElementRecord, MeshBuilder};
use super::element_type::ElementType;
use super::error::{Location, MeshError};
use super::records::Records;

/// Reads the body of `$Nodes` up to and including `$EndNodes`.
pub(crate) fn read_nodes<'a, R: Records<'a>>(
    rec: &mut R,
    builder: &mut MeshBuilder<'_>,
) -> Result<(), MeshError> {
    let count = rec.cursor().count_line("number of nodes")?;
    builder.reserve_nodes(count, rec.cursor_ref().remaining());
    for _ in 0..count {
        rec.begin("node (tag x y z)")?;
        let location = rec.location();
        let tag = rec.positive_int("node tag")?;
        let xyz = [rec.float("node x")?, rec.float("node y")?, rec.float("node z")?];
        rec.end()?;
        builder.add_node(tag, xyz, location)?;
    }
    rec.cursor().expect_line("$EndNodes")
}

/// Reads the body of `$Elements` up to and including `$EndElements`.
pub(crate) fn read_elements<'a, R: Records<'a>>(
    rec: &mut R,
    builder: &mut MeshBuilder<'_>,
) -> Result<(), MeshError> {
    let count = rec.cursor().count_line("number of elements")?;
    let mut node_tags = Vec::new();
    if rec.cursor_ref().is_binary() {
        let mut read = 0;
        while read < count {
            let type_number = rec.int("element type of a binary element header")?;
            let in_block = rec.count_int("number of elements following")?;
            let tag_count = rec.count_int("number of tags")?;
            let left = count - read;
            if in_block == 0 || in_block > left {
                let expected = format!("1 to {left} elements following (of {count} announced)");
                return Err(rec.error(expected, format!("{in_block}")));
            }
            for _ in 0..in_block {
                let location = rec.location();
                let tag = rec.positive_int("element tag")?;
                let element_type = known_type(rec, tag, type_number)?;
                let header = Header {
                    tag,
                    element_type,
                    tag_count,
                    location,
                };
                read_element_body(rec, builder, header, &mut node_tags)?;
            }
            read += in_block;
        }
    } else {
        for _ in 0..count {
            rec.begin("element (tag type ntags tags... nodes...)")?;
            let location = rec.location();
            let tag = rec.positive_int("element tag")?;
            let type_number = rec.int("element type")?;
            let element_type = known_type(rec, tag, type_number)?;
            let tag_count = rec.count_int("number of tags")?;
            let header = Header {
                tag,
                element_type,
                tag_count,
                location,
            };
            read_element_body(rec, builder, header, &mut node_tags)?;
            rec.end()?;
        }
    }
    rec.cursor().expect_line("$EndElements")
}

/// What precedes an element's tags, in either encoding.
struct Header {
    tag: u64,
    element_type: ElementType,
    tag_count: u64,
    location: Location,
}

/// The element type numbered `number`, or an error naming element `tag`.
fn known_type<'a, R: Records<'a>>(rec: &R, tag: u64, number: i32) -> Result<ElementType, MeshError> {
    ElementType::from_number(number).ok_or_else(|| MeshError::UnknownElementType {
        at: rec.cursor_ref().at(rec.location()),
        element_tag: tag,
        element_type: number,
    })
}

/// Reads an element's tags (physical, elementary, then any partition tags) and nodes.
fn read_element_body<'a, R: Records<'a>>(
    rec: &mut R,
    builder: &mut MeshBuilder<'_>,
    header: Header,
    node_tags: &mut Vec<u64>,
) -> Result<(), MeshError> {
    let physical = if header.tag_count >= 1 {
        rec.int("physical tag")?
    } else {
        0
    };
    let entity = if header.tag_count >= 2 {
        rec.int("elementary tag")?
    } else {
        0
    };
    for _ in 2..header.tag_count {
        rec.int("partition tag")?;
    }
    let ty = header.element_type;
    if let Some(found) = rec.fields_left().filter(|&n| n != ty.nodes) {
        let expected = format!(
            "{} node tags for element {} (type {})",
            ty.nodes, header.tag, ty.number
        );
        return Err(rec.error(expected, format!("{found}")));
    }
    node_tags.clear();
    for _ in 0..ty.nodes {
        node_tags.push(rec.positive_int("node tag")?);
    }
    builder.add_element(&ElementRecord {
        tag: header.tag,
        element_type: ty,
        dim: ty.dim,
        entity,
        physical: Some(physical),
        node_tags,
        location: header.location,
    })
}
