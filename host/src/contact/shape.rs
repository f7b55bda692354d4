//! Rigid collision shapes attached to bodies (or to the ground) with a pose.
//!
//! Conventions: every shape is given in its own frame, placed on its body by `position` and
//! `orientation`. Cylinders and cones have their axis along local z, centred on the origin
//! (parry3d uses y: converted here); a plane is the surface z = 0 of its frame, solid below.

use super::force::Elastic;
use super::ContactError;
use ferrodyn_kernel::math::{Quat, Vec3};
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::shape::{Ball, Cone, Cuboid, Cylinder, HalfSpace, SharedShape, TriMesh};

/// The geometry of a collision shape.
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    /// Sphere of radius r.
    Sphere {
        /// Radius (m) > 0.
        radius: f64,
    },
    /// Box with half extents along local x, y, z.
    Box {
        /// Half extents (m), each > 0.
        half_extents: [f64; 3],
    },
    /// Cylinder along local z.
    Cylinder {
        /// Radius (m) > 0.
        radius: f64,
        /// Half height (m) > 0.
        half_height: f64,
    },
    /// Cone along local z, apex at +half_height, base of `radius` at −half_height.
    Cone {
        /// Base radius (m) > 0.
        radius: f64,
        /// Half height (m) > 0.
        half_height: f64,
    },
    /// Plane z = 0 of the shape frame, normal +z, solid below.
    Plane,
    /// Triangle mesh (surface), vertices in the shape frame.
    TriMesh {
        /// Vertices (m).
        vertices: Vec<[f64; 3]>,
        /// Triangles as vertex indices, counter-clockwise seen from outside.
        triangles: Vec<[u32; 3]>,
    },
}

/// A collision shape on a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Name used in errors and outputs.
    pub name: String,
    /// Body index, or `None` for the ground.
    pub body: Option<usize>,
    /// Shape frame origin in body coordinates (global for the ground).
    pub position: Vec3<f64>,
    /// Shape frame orientation relative to the body.
    pub orientation: Quat<f64>,
    /// Geometry.
    pub geometry: Geometry,
    /// Surface material (E, ν).
    pub elastic: Elastic,
    /// Curvature radius used in R* (m); `None`: the geometry's own (sphere: its radius; plane:
    /// flat; box: smallest half extent; cylinder, cone: radius; mesh: flat).
    pub curvature_radius: Option<f64>,
}

impl Shape {
    /// A shape at the body origin with steel's elastic constants.
    pub fn new(name: &str, body: Option<usize>, geometry: Geometry) -> Self {
        Self {
            name: name.to_string(),
            body,
            position: Vec3::ZERO,
            orientation: Quat::IDENTITY,
            geometry,
            elastic: Elastic::STEEL,
            curvature_radius: None,
        }
    }
    /// The same placed at `position` with `orientation` on its body.
    pub fn at(self, position: Vec3<f64>, orientation: Quat<f64>) -> Self {
        Self {
            position,
            orientation,
            ..self
        }
    }
    /// The same with surface material `elastic`.
    pub fn with_elastic(self, elastic: Elastic) -> Self {
        Self { elastic, ..self }
    }

    /// The radius of curvature entering R* (`f64::INFINITY` for flat).
    pub fn curvature(&self) -> f64 {
        if let Some(r) = self.curvature_radius {
            return r;
        }
        match &self.geometry {
            Geometry::Sphere { radius } => *radius,
            Geometry::Box { half_extents } => half_extents.iter().copied().fold(f64::INFINITY, f64::min),
            Geometry::Cylinder { radius, .. } | Geometry::Cone { radius, .. } => *radius,
            Geometry::Plane | Geometry::TriMesh { .. } => f64::INFINITY,
        }
    }

    /// Checks dimensions, pose and material; errors name the shape.
    pub fn validate(&self, body_count: usize) -> Result<(), ContactError> {
        let item = format!("shape '{}'", self.name);
        let positive = |what: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ContactError::invalid(
                    &item,
                    format!("{what} must be > 0, got {v}"),
                ))
            }
        };
        if let Some(b) = self.body {
            if b >= body_count {
                return Err(ContactError::invalid(
                    &item,
                    format!("body {b} does not exist ({body_count} bodies)"),
                ));
            }
        }
        if !self.position.is_finite() || self.orientation.normalized().is_none() {
            return Err(ContactError::invalid(
                &item,
                "position must be finite and orientation a nonzero quaternion".into(),
            ));
        }
        if let Some(r) = self.curvature_radius {
            positive("curvature radius", r)?;
        }
        self.elastic.validate(&item)?;
        match &self.geometry {
            Geometry::Sphere { radius } => positive("radius", *radius),
            Geometry::Box { half_extents } => {
                half_extents.iter().try_for_each(|&h| positive("half extent", h))
            }
            Geometry::Cylinder { radius, half_height } | Geometry::Cone { radius, half_height } => {
                positive("radius", *radius)?;
                positive("half height", *half_height)
            }
            Geometry::Plane => {
                if self.body.is_some() {
                    // A plane on a moving body has no finite mass distribution to collide with.
                    return Err(ContactError::invalid(
                        &item,
                        "a plane must belong to the ground".into(),
                    ));
                }
                Ok(())
            }
            Geometry::TriMesh { vertices, triangles } => {
                if triangles.is_empty() {
                    return Err(ContactError::invalid(
                        &item,
                        "a triangle mesh needs at least one triangle".into(),
                    ));
                }
                if vertices.iter().flatten().any(|c| !c.is_finite()) {
                    return Err(ContactError::invalid(
                        &item,
                        "mesh vertices must be finite".into(),
                    ));
                }
                for (t, tri) in triangles.iter().enumerate() {
                    if tri.iter().any(|&i| i as usize >= vertices.len()) {
                        return Err(ContactError::invalid(
                            &item,
                            format!(
                                "triangle {t} refers to a vertex beyond the {} given",
                                vertices.len()
                            ),
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// The parry3d shape (validate first).
    pub(crate) fn to_parry(&self) -> Result<SharedShape, ContactError> {
        Ok(match &self.geometry {
            Geometry::Sphere { radius } => SharedShape::new(Ball::new(*radius)),
            Geometry::Box { half_extents } => {
                SharedShape::new(Cuboid::new(Vector::from_array(*half_extents)))
            }
            Geometry::Cylinder { radius, half_height } => {
                SharedShape::new(Cylinder::new(*half_height, *radius))
            }
            Geometry::Cone { radius, half_height } => SharedShape::new(Cone::new(*half_height, *radius)),
            Geometry::Plane => SharedShape::new(HalfSpace::new(Vector::Z)),
            Geometry::TriMesh { vertices, triangles } => {
                let v = vertices.iter().map(|&p| Vector::from_array(p)).collect();
                let mesh = TriMesh::new(v, triangles.clone()).map_err(|e| {
                    ContactError::invalid(&format!("shape '{}'", self.name), format!("bad mesh: {e:?}"))
                })?;
                SharedShape::new(mesh)
            }
        })
    }

    /// The pose of the parry shape in its body frame (y-axis shapes turned onto z).
    pub(crate) fn local_pose(&self) -> Pose {
        let q = self.orientation.normalized().unwrap_or(Quat::IDENTITY);
        let mut rot = parry3d_f64::math::Rotation::from_xyzw(q.x, q.y, q.z, q.w);
        if matches!(self.geometry, Geometry::Cylinder { .. } | Geometry::Cone { .. }) {
            // parry's axis is y; a quarter turn about x takes y onto z.
            rot *= parry3d_f64::math::Rotation::from_rotation_x(core::f64::consts::FRAC_PI_2);
        }
        Pose::from_parts(
            Vector::new(self.position.x, self.position.y, self.position.z),
            rot,
        )
    }

    /// Vertices of a box in the shape frame (for the box–plane multi-point contact).
    pub(crate) fn box_vertices(&self) -> Option<[Vector; 8]> {
        let Geometry::Box { half_extents: h } = self.geometry else {
            return None;
        };
        Some(core::array::from_fn(|i| {
            let s = |bit: usize| if i & (1 << bit) == 0 { -1.0 } else { 1.0 };
            Vector::new(s(0) * h[0], s(1) * h[1], s(2) * h[2])
        }))
    }
}
