//! Shapes on bodies against ground planes as the kernel's ground contacts
//! ([`ferrodyn_kernel::contact::GroundContact`]): a sphere, a box's 8 corners, or a capsule's
//! two end spheres, on a body against a plane on the ground. Every rigid contact world evaluates these pairs with the
//! kernel's code ([`super::ContactWorld::ground_pairs`]), first and in shape order, so that `ferrodyn run` of a
//! tree and its exported module (`export::tree_contact`) step the same bits.

use crate::spec::{Geometry, Shape};
use ferrodyn_kernel::contact::{GroundContact, Law, Plane};
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};

/// What touches the plane: a sphere, a box or a capsule, in its body's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GroundShape {
    /// A sphere of `radius` centred at `centre`.
    Sphere {
        /// Centre (body frame).
        centre: Vec3<f64>,
        /// Radius (m).
        radius: f64,
    },
    /// A box of `half_extents` centred at `centre`, turned by `rotation` (box → body axes).
    Box {
        /// Centre (body frame).
        centre: Vec3<f64>,
        /// Box → body axes.
        rotation: Mat3<f64>,
        /// Half extents (m).
        half_extents: Vec3<f64>,
    },
    /// A capsule of `radius` around the segment from `centre − half_axis` to
    /// `centre + half_axis`. Against a plane it is its two end spheres: the segment's point
    /// nearest a plane is an end (both when it lies parallel, so a capsule lying down rests on
    /// two points instead of rocking on one).
    Capsule {
        /// Centre (body frame).
        centre: Vec3<f64>,
        /// Half the segment, centre to the +z end (body frame).
        half_axis: Vec3<f64>,
        /// Radius (m).
        radius: f64,
    },
}

/// A shape on a body against a ground plane, with the pair's law.
#[derive(Clone, Debug, PartialEq)]
pub struct GroundPair {
    /// The pair's shape indices, lower first (the contact world's key).
    pub shapes: (usize, usize),
    /// Which of the two is the plane.
    pub plane_first: bool,
    /// The body carrying the shape.
    pub body: usize,
    /// The shape.
    pub shape: GroundShape,
    /// The plane (its normal as the shape's orientation turns +z; unit once validated).
    pub plane: Plane<f64>,
    /// The pair's law.
    pub law: Law<f64>,
    /// The kernel's pairs: one for a sphere, 8 corners for a box, 2 end spheres for a capsule,
    /// validated.
    pub contacts: Vec<GroundContact<f64>>,
}

/// The shape on a body of the pair (`a`, `b`) and the plane on the ground, if the pair is one
/// the kernel has: a sphere, a box or a capsule on a body against a ground plane. `plane_first` tells
/// which.
pub fn ground_shape(a: &Shape, b: &Shape) -> Option<(bool, usize, GroundShape, Plane<f64>)> {
    let (plane_first, plane, on) = match (&a.geometry, &b.geometry) {
        (Geometry::Plane, _) => (true, a, b),
        (_, Geometry::Plane) => (false, b, a),
        _ => return None,
    };
    let (None, Some(body)) = (plane.body, on.body) else {
        return None;
    };
    let turn = on.orientation.normalized().unwrap_or(Quat::IDENTITY);
    let shape = match on.geometry {
        Geometry::Sphere { radius } => GroundShape::Sphere {
            centre: on.position,
            radius,
        },
        Geometry::Box { half_extents } => GroundShape::Box {
            centre: on.position,
            rotation: turn.to_matrix(),
            half_extents: Vec3::from_array(half_extents),
        },
        Geometry::Capsule { radius, half_height } => GroundShape::Capsule {
            centre: on.position,
            half_axis: turn.rotate(Vec3::Z).scale(half_height),
            radius,
        },
        _ => return None,
    };
    let normal = plane
        .orientation
        .normalized()
        .unwrap_or(Quat::IDENTITY)
        .rotate(Vec3::Z);
    let plane = Plane {
        origin: plane.position,
        normal,
    };
    Some((plane_first, body, shape, plane))
}

/// A capsule's end-sphere centres (body frame): −z end first.
pub fn capsule_ends(centre: Vec3<f64>, half_axis: Vec3<f64>) -> [Vec3<f64>; 2] {
    [centre - half_axis, centre + half_axis]
}

impl GroundPair {
    /// The pair of shapes `shapes` (lower index first) with `law`, if the kernel has it; its
    /// kernel pairs validated (`Err` names why not).
    pub fn new(all: &[Shape], shapes: (usize, usize), law: Law<f64>) -> Option<Result<Self, &'static str>> {
        let (plane_first, body, shape, plane) = ground_shape(&all[shapes.0], &all[shapes.1])?;
        let contacts: Vec<GroundContact<f64>> = match shape {
            GroundShape::Sphere { centre, radius } => {
                vec![GroundContact::sphere(body, centre, radius, plane, law)]
            }
            GroundShape::Box {
                centre,
                rotation,
                half_extents,
            } => GroundContact::box_corners(body, (centre, &rotation), half_extents, plane, law).to_vec(),
            GroundShape::Capsule {
                centre,
                half_axis,
                radius,
            } => capsule_ends(centre, half_axis)
                .map(|end| GroundContact::sphere(body, end, radius, plane, law))
                .to_vec(),
        };
        let contacts: Result<Vec<_>, _> = contacts.into_iter().map(GroundContact::validated).collect();
        Some(contacts.map(|contacts| Self {
            shapes,
            plane_first,
            body,
            shape,
            plane,
            law,
            contacts,
        }))
    }
}
