//! Plain descriptions of contact: collision shapes on bodies, surface materials, the contact
//! parameters of a pair, and how a flexible body's surface is sampled. Checked here; turned into
//! contact forces by [`crate::contact`].
//!
//! Conventions: every shape is given in its own frame, placed on its body by `position` and
//! `orientation`. Cylinders, cones and capsules have their axis along local z, centred on the
//! origin; a plane is the surface z = 0 of its frame, solid below.

use super::Invalid;
use ferrodyn_kernel::math::{Quat, Vec3};

/// Elastic constants of a body's surface material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elastic {
    /// Young's modulus E (Pa) > 0.
    pub youngs_modulus: f64,
    /// Poisson's ratio ν in (−1, 0.5).
    pub poisson_ratio: f64,
}

impl Elastic {
    /// Steel: E = 210 GPa, ν = 0.3.
    pub const STEEL: Self = Self {
        youngs_modulus: 210e9,
        poisson_ratio: 0.3,
    };

    /// Checks E > 0 and −1 < ν < 0.5; `item` names the owner in the error.
    pub fn validate(&self, item: &str) -> Result<(), Invalid> {
        let (e, nu) = (self.youngs_modulus, self.poisson_ratio);
        if !(e.is_finite() && e > 0.0) {
            return Err(Invalid::new(
                item,
                format!("Young's modulus must be > 0, got {e}"),
            ));
        }
        if !(nu.is_finite() && nu > -1.0 && nu < 0.5) {
            return Err(Invalid::new(
                item,
                format!("Poisson's ratio must be in (−1, 0.5), got {nu}"),
            ));
        }
        Ok(())
    }

    /// (1 − ν²)/E: this material's share of 1/E*.
    pub fn compliance(&self) -> f64 {
        (1.0 - self.poisson_ratio * self.poisson_ratio) / self.youngs_modulus
    }
}

/// How the damping factor χ = D·v₀ is obtained from the coefficient of restitution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dissipation {
    /// Flores' closed form χ = 8(1−e)/(5e) (DESIGN.md). Its energy balance is approximate:
    /// a single impact gives e = 0.256, 0.470, 0.789 for a requested 0.3, 0.5, 0.8.
    Flores,
    /// The Flores force form with χ solved so that one impact of the Hertz–Flores law
    /// (nondimensional: x'' = −x^{3/2}(1 + χ x'), x(0) = 0, x'(0) = 1) rebounds with exactly e.
    FloresCalibrated,
}

/// Contact parameters of a pair of bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactMaterial {
    /// Coefficient of restitution e in (0, 1].
    pub restitution: f64,
    /// Coulomb friction coefficient μ ≥ 0.
    pub friction: f64,
    /// Friction regularization speed v_reg > 0 (m/s): below it friction grows linearly.
    pub friction_regularization: f64,
    /// Smallest impact speed used in D = χ/v₀ (m/s) > 0: a contact made at rest would otherwise
    /// get unbounded damping. Raise it if an explicit step goes unstable on resting contacts
    /// (the damper K δ^{3/2} χ/v₀ must stay below about m/h); `tet_collision` uses 0.2 m/s.
    pub min_impact_speed: f64,
    /// How χ follows from e.
    pub dissipation: Dissipation,
    /// Whether the pair's shapes touch at all (`false`: kept apart, as MuJoCo keeps a parent
    /// body's geoms from its child's, which overlap at their joint).
    pub collide: bool,
}

impl ContactMaterial {
    /// Nearly elastic: e = 1 (no dissipation), μ = 0.3, v_reg = 1e-3 m/s; χ calibrated so one
    /// impact rebounds with the requested e ([`Dissipation::FloresCalibrated`], the default:
    /// the closed form misses e by up to 0.044).
    pub fn elastic() -> Self {
        Self {
            restitution: 1.0,
            friction: 0.3,
            friction_regularization: 1e-3,
            min_impact_speed: 1e-2,
            dissipation: Dissipation::FloresCalibrated,
            collide: true,
        }
    }
    /// Strongly dissipative: e = 0.2, μ = 0.5, v_reg = 1e-3 m/s.
    pub fn plastic() -> Self {
        Self {
            restitution: 0.2,
            ..Self::elastic()
        }
        .with_friction(0.5)
    }
    /// The same with friction coefficient μ.
    pub fn with_friction(self, friction: f64) -> Self {
        Self { friction, ..self }
    }
    /// The same with restitution e.
    pub fn with_restitution(self, restitution: f64) -> Self {
        Self { restitution, ..self }
    }
    /// The same with dissipation model `d`.
    pub fn with_dissipation(self, dissipation: Dissipation) -> Self {
        Self { dissipation, ..self }
    }

    /// Checks the ranges; `item` names the material in the error.
    pub fn validate(&self, item: &str) -> Result<(), Invalid> {
        let e = self.restitution;
        if !(e.is_finite() && e > 0.0 && e <= 1.0) {
            return Err(Invalid::new(
                item,
                format!("restitution must be in (0, 1], got {e}"),
            ));
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(Invalid::new(
                item,
                format!("friction must be ≥ 0, got {}", self.friction),
            ));
        }
        for (name, v) in [
            ("friction_regularization", self.friction_regularization),
            ("min_impact_speed", self.min_impact_speed),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Invalid::new(item, format!("{name} must be > 0, got {v}")));
            }
        }
        Ok(())
    }
}

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
    /// Capsule along local z: the points within `radius` of the segment from −half_height to
    /// +half_height on z (a cylinder with hemispherical ends).
    Capsule {
        /// Radius (m) > 0.
        radius: f64,
        /// Half length of the segment, the cylindrical part (m) > 0.
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
    /// flat; box: smallest half extent; cylinder, cone, capsule: radius; mesh: flat).
    pub curvature_radius: Option<f64>,
    /// The OBJ file a mesh was read from (an FMU carries it in its resources).
    pub mesh_file: Option<std::path::PathBuf>,
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
            mesh_file: None,
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
            Geometry::Cylinder { radius, .. }
            | Geometry::Cone { radius, .. }
            | Geometry::Capsule { radius, .. } => *radius,
            Geometry::Plane | Geometry::TriMesh { .. } => f64::INFINITY,
        }
    }

    /// Checks dimensions, pose and material; errors name the shape.
    pub fn validate(&self, body_count: usize) -> Result<(), Invalid> {
        let item = format!("shape '{}'", self.name);
        let positive = |what: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Invalid::new(&item, format!("{what} must be > 0, got {v}")))
            }
        };
        if let Some(b) = self.body {
            if b >= body_count {
                return Err(Invalid::new(
                    &item,
                    format!("body {b} does not exist ({body_count} bodies)"),
                ));
            }
        }
        if !self.position.is_finite() || self.orientation.normalized().is_none() {
            return Err(Invalid::new(
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
            Geometry::Cylinder { radius, half_height }
            | Geometry::Cone { radius, half_height }
            | Geometry::Capsule { radius, half_height } => {
                positive("radius", *radius)?;
                positive("half height", *half_height)
            }
            Geometry::Plane => {
                if self.body.is_some() {
                    // A plane on a moving body has no finite mass distribution to collide with.
                    return Err(Invalid::new(&item, "a plane must belong to the ground".into()));
                }
                Ok(())
            }
            Geometry::TriMesh { vertices, triangles } => {
                if triangles.is_empty() {
                    return Err(Invalid::new(
                        &item,
                        "a triangle mesh needs at least one triangle".into(),
                    ));
                }
                if vertices.iter().flatten().any(|c| !c.is_finite()) {
                    return Err(Invalid::new(&item, "mesh vertices must be finite".into()));
                }
                for (t, tri) in triangles.iter().enumerate() {
                    if tri.iter().any(|&i| i as usize >= vertices.len()) {
                        return Err(Invalid::new(
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
}

/// Which points of a flexible body's surface are tested against the faces of the other bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proximity {
    /// Every surface node, a Hertz sphere of the node radius (node-to-surface).
    #[default]
    NodeToSurface,
    /// Three points on every surface face (barycentric (⅔, ⅙, ⅙) and its rotations), placed
    /// and loaded through their element's ANCF shape functions; each carries the Hertz law
    /// times its third of the face's area over the body's mean surface area per node, so a
    /// surface pressed evenly takes the force of as many nodes as it has area for
    /// (surface-to-surface: large and curved faces are sampled inside, not at corners only).
    SurfaceToSurface,
}
