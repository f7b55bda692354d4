//! parry3d forms of the collision shapes ([`Shape`], [`Geometry`]: plain descriptions in
//! [`crate::spec`]).
//!
//! Cylinders and cones have their axis along local z in a [`Shape`]; parry3d uses y: converted
//! here.

use super::ContactError;
use crate::spec::{Geometry, Shape};
use ferrodyn_kernel::math::Quat;
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::shape::{Ball, Cone, Cuboid, Cylinder, HalfSpace, SharedShape, TriMesh};

/// The parry3d shape of `shape` (validated).
pub(crate) fn to_parry(shape: &Shape) -> Result<SharedShape, ContactError> {
    Ok(match &shape.geometry {
        Geometry::Sphere { radius } => SharedShape::new(Ball::new(*radius)),
        Geometry::Box { half_extents } => SharedShape::new(Cuboid::new(Vector::from_array(*half_extents))),
        Geometry::Cylinder { radius, half_height } => SharedShape::new(Cylinder::new(*half_height, *radius)),
        Geometry::Cone { radius, half_height } => SharedShape::new(Cone::new(*half_height, *radius)),
        Geometry::Plane => SharedShape::new(HalfSpace::new(Vector::Z)),
        Geometry::TriMesh { vertices, triangles } => {
            let v = vertices.iter().map(|&p| Vector::from_array(p)).collect();
            let mesh = TriMesh::new(v, triangles.clone()).map_err(|e| {
                ContactError::invalid(&format!("shape '{}'", shape.name), format!("bad mesh: {e:?}"))
            })?;
            SharedShape::new(mesh)
        }
    })
}

/// The pose of the parry form of `shape` in its body frame (y-axis shapes turned onto z).
pub(crate) fn local_pose(shape: &Shape) -> Pose {
    let q = shape.orientation.normalized().unwrap_or(Quat::IDENTITY);
    let mut rot = parry3d_f64::math::Rotation::from_xyzw(q.x, q.y, q.z, q.w);
    if matches!(shape.geometry, Geometry::Cylinder { .. } | Geometry::Cone { .. }) {
        // parry's axis is y; a quarter turn about x takes y onto z.
        rot *= parry3d_f64::math::Rotation::from_rotation_x(core::f64::consts::FRAC_PI_2);
    }
    Pose::from_parts(
        Vector::new(shape.position.x, shape.position.y, shape.position.z),
        rot,
    )
}

/// Vertices of a box shape in its frame (for the box–plane multi-point contact).
pub(crate) fn box_vertices(shape: &Shape) -> Option<[Vector; 8]> {
    let Geometry::Box { half_extents: h } = shape.geometry else {
        return None;
    };
    Some(core::array::from_fn(|i| {
        let s = |bit: usize| if i & (1 << bit) == 0 { -1.0 } else { 1.0 };
        Vector::new(s(0) * h[0], s(1) * h[1], s(2) * h[2])
    }))
}
