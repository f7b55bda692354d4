//! parry3d forms of the collision shapes ([`Shape`], [`Geometry`]: plain descriptions in
//! [`crate::spec`]).
//!
//! Cylinders, cones and capsules have their axis along local z in a [`Shape`]; parry3d's
//! cylinders and cones use y: turned here (its capsule is made along z directly).

use super::ContactError;
use crate::spec::{Geometry, Shape};
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::ExternalLoads;
use parry3d_f64::math::{Matrix, Pose, Rotation, Vector};
use parry3d_f64::shape::{Ball, Capsule, Cone, Cuboid, Cylinder, HalfSpace, SharedShape, TriMesh};

/// A kernel vector as parry's (through mint).
pub(crate) fn vector(v: Vec3<f64>) -> Vector {
    mint::Vector3::from(v).into()
}

/// A parry vector as the kernel's (through mint).
pub(crate) fn vec3(v: Vector) -> Vec3<f64> {
    mint::Vector3::from(v).into()
}

/// A kernel rotation matrix as parry's (through mint).
pub(crate) fn matrix(m: Mat3<f64>) -> Matrix {
    mint::ColumnMatrix3::from(m).into()
}

/// A kernel unit quaternion as parry's rotation (through mint).
pub(crate) fn rotation(q: Quat<f64>) -> Rotation {
    mint::Quaternion::from(q).into()
}

/// The parry3d shape of `shape` (validated).
pub(crate) fn to_parry(shape: &Shape) -> Result<SharedShape, ContactError> {
    Ok(match &shape.geometry {
        Geometry::Sphere { radius } => SharedShape::new(Ball::new(*radius)),
        Geometry::Box { half_extents } => SharedShape::new(Cuboid::new(Vector::from_array(*half_extents))),
        Geometry::Cylinder { radius, half_height } => SharedShape::new(Cylinder::new(*half_height, *radius)),
        Geometry::Cone { radius, half_height } => SharedShape::new(Cone::new(*half_height, *radius)),
        Geometry::Capsule { radius, half_height } => SharedShape::new(Capsule::new_z(*half_height, *radius)),
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
    let mut rot = rotation(shape.orientation.normalized().unwrap_or(Quat::IDENTITY));
    if matches!(shape.geometry, Geometry::Cylinder { .. } | Geometry::Cone { .. }) {
        // parry's axis is y; a quarter turn about x takes y onto z.
        rot *= Rotation::from_rotation_x(core::f64::consts::FRAC_PI_2);
    }
    Pose::from_parts(vector(shape.position), rot)
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

/// Pose and velocity of one body (global axes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyFrame {
    /// Origin of the body frame.
    pub x: Vector,
    /// Rotation body → global.
    pub rot: Matrix,
    /// Velocity of the origin.
    pub v: Vector,
    /// Angular velocity.
    pub w: Vector,
}

impl BodyFrame {
    /// Velocity of the body point at `p` (global).
    pub fn point_velocity(&self, p: Vector) -> Vector {
        self.v + self.w.cross(p - self.x)
    }
    /// The body frame as a pose.
    pub fn pose(&self) -> Pose {
        Pose::from_parts(self.x, Rotation::from_mat3(&self.rot))
    }
}

/// Writes into `frames` the body frames of the state `loads` describes.
pub(crate) fn read_frames(loads: &ExternalLoads<'_, f64>, frames: &mut Vec<BodyFrame>) {
    frames.clear();
    for b in 0..loads.body_count() {
        let (Some(x), Some(r), Some(v), Some(w)) = (
            loads.position(b),
            loads.rotation(b),
            loads.velocity(b),
            loads.angular_velocity(b),
        ) else {
            continue;
        };
        frames.push(BodyFrame {
            x: vector(x),
            rot: matrix(r),
            v: vector(v),
            w: vector(w),
        });
    }
}
