//! MSH 4.1 `$Entities`, `$Nodes` and `$Elements`: entity blocks, `size_t` tags in binary.

use super::builder::{ElementRecord, MeshBuilder};
use super::cursor::capacity;
use super::element_type::ElementType;
use super::error::MeshError;
use super::records::Records;

/// Reads the body of `$Entities` (entity tag → physical tags) up to `$EndEntities`.
pub(crate) fn read_entities<'a, R: Records<'a>>(
    rec: &mut R,
    builder: &mut MeshBuilder<'_>,
) -> Result<(), MeshError> {
    rec.begin("entity counts (points curves surfaces volumes)")?;
    let mut counts = [0; 4];
    for (count, what) in counts.iter_mut().zip(["points", "curves", "surfaces", "volumes"]) {
        *count = rec.size(&format!("number of {what}"))?;
    }
    rec.end()?;
    for (dim, &count) in (0u8..).zip(&counts) {
        for _ in 0..count {
            rec.begin("entity (tag, bounding box, physical tags...)")?;
            let tag = rec.int("entity tag")?;
            // Points give their coordinates, other entities their bounding box.
            let box_values = if dim == 0 { 3 } else { 6 };
            for _ in 0..box_values {
                rec.float("entity coordinate or bounding box")?;
            }
            let physical_count = rec.size("number of physical tags")?;
            let mut physicals = Vec::with_capacity(capacity(physical_count, rec.cursor_ref().remaining(), 4));
            for _ in 0..physical_count {
                physicals.push(rec.int("physical tag")?);
            }
            if dim > 0 {
                for _ in 0..rec.size("number of bounding entities")? {
                    rec.int("bounding entity tag")?;
                }
            }
            rec.end()?;
            builder.add_entity(dim, tag, physicals);
        }
    }
    rec.cursor().expect_line("$EndEntities")
}

/// The four `size_t` values opening `$Nodes` and `$Elements`: blocks, items, min and max tag.
fn section_header<'a, R: Records<'a>>(rec: &mut R, items: &str) -> Result<(u64, u64), MeshError> {
    rec.begin(&format!("{items} header (blocks, {items}, min tag, max tag)"))?;
    let blocks = rec.size("number of entity blocks")?;
    let total = rec.size(&format!("number of {items}"))?;
    rec.size("minimum tag")?;
    rec.size("maximum tag")?;
    rec.end()?;
    Ok((blocks, total))
}

/// The four values opening an entity block: dimension, entity tag, flag/type and item count.
fn block_header<'a, R: Records<'a>>(
    rec: &mut R,
    third: &str,
    items_left: u64,
    total: u64,
) -> Result<(u8, i32, i32, u64), MeshError> {
    rec.begin("entity block header (dim, tag, ..., count)")?;
    let dim_value = rec.int("entity dimension")?;
    let dim = u8::try_from(dim_value)
        .ok()
        .filter(|&d| d <= 3)
        .ok_or_else(|| rec.error("entity dimension 0 to 3", format!("{dim_value}")))?;
    let entity = rec.int("entity tag")?;
    let third_value = rec.int(third)?;
    let count = rec.size("number of items in block")?;
    rec.end()?;
    if count > items_left {
        let expected = format!("at most {items_left} items in this block (of {total} announced)");
        return Err(rec.error(expected, format!("{count}")));
    }
    Ok((dim, entity, third_value, count))
}

/// The error for a section whose blocks hold fewer items than its header announced.
fn count_mismatch<'a, R: Records<'a>>(rec: &R, items: &str, total: u64, read: u64) -> MeshError {
    rec.error(
        format!("{total} {items} in the blocks, as announced"),
        format!("{read}"),
    )
}

/// Reads the body of `$Nodes` up to and including `$EndNodes`.
pub(crate) fn read_nodes<'a, R: Records<'a>>(
    rec: &mut R,
    builder: &mut MeshBuilder<'_>,
) -> Result<(), MeshError> {
    let (blocks, total) = section_header(rec, "nodes")?;
    builder.reserve_nodes(total, rec.cursor_ref().remaining());
    let mut read = 0;
    let mut tags = Vec::new();
    for _ in 0..blocks {
        let (dim, _, parametric, count) = block_header(rec, "parametric flag", total - read, total)?;
        if !(0..=1).contains(&parametric) {
            return Err(rec.error("parametric flag 0 or 1", format!("{parametric}")));
        }
        // Parametric nodes carry `dim` extra coordinates (u, v, w) that the mesh does not need.
        let extra = if parametric == 1 { dim } else { 0 };
        tags.clear();
        tags.reserve(capacity(count, rec.cursor_ref().remaining(), 8));
        for _ in 0..count {
            rec.begin("node tag")?;
            tags.push(rec.size("node tag")?);
            rec.end()?;
        }
        for &tag in &tags {
            rec.begin("node coordinates (x y z)")?;
            let location = rec.location();
            let xyz = [rec.float("node x")?, rec.float("node y")?, rec.float("node z")?];
            for _ in 0..extra {
                rec.float("parametric node coordinate")?;
            }
            rec.end()?;
            builder.add_node(tag, xyz, location)?;
        }
        read += count;
    }
    if read != total {
        return Err(count_mismatch(rec, "nodes", total, read));
    }
    rec.cursor().expect_line("$EndNodes")
}

/// Reads the body of `$Elements` up to and including `$EndElements`.
pub(crate) fn read_elements<'a, R: Records<'a>>(
    rec: &mut R,
    builder: &mut MeshBuilder<'_>,
) -> Result<(), MeshError> {
    let (blocks, total) = section_header(rec, "elements")?;
    let mut read = 0;
    let mut node_tags = Vec::new();
    for _ in 0..blocks {
        let (dim, entity, type_number, count) = block_header(rec, "element type", total - read, total)?;
        let element_type = ElementType::from_number(type_number);
        for _ in 0..count {
            rec.begin("element (tag nodes...)")?;
            let location = rec.location();
            let tag = rec.size("element tag")?;
            let Some(ty) = element_type else {
                let at = rec.cursor_ref().at(location);
                return Err(MeshError::UnknownElementType {
                    at,
                    element_tag: tag,
                    element_type: type_number,
                });
            };
            if let Some(found) = rec.fields_left().filter(|&n| n != ty.nodes) {
                let expected = format!("{} node tags for element {tag} (type {})", ty.nodes, ty.number);
                return Err(rec.error(expected, format!("{found}")));
            }
            node_tags.clear();
            for _ in 0..ty.nodes {
                node_tags.push(rec.size("node tag")?);
            }
            rec.end()?;
            let element = ElementRecord {
                tag,
                element_type: ty,
                dim,
                entity,
                physical: None,
                node_tags: &node_tags,
                location,
            };
            builder.add_element(&element)?;
        }
        read += count;
    }
    if read != total {
        return Err(count_mismatch(rec, "elements", total, read));
    }
    rec.cursor().expect_line("$EndElements")
}
