//! Mass properties of MJCF geoms, as MuJoCo's compiler forms them when a body has no
//! `<inertial>` (`inertiafromgeom`): each primitive's mass from its density (or its `mass`),
//! its inertia about its centre in its frame, and the body's sum by the parallel-axis theorem.

use super::super::pose::{rotate_inertia, Pose};
use ferrodyn_kernel::math::{Mat3, Vec3};
use std::f64::consts::PI;

/// A solid primitive with its half sizes (MuJoCo's `size` after `fromto`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Solid {
    /// Radius.
    Sphere(f64),
    /// Radius, half length of the cylindrical part (axis z).
    Capsule(f64, f64),
    /// Radius, half height (axis z).
    Cylinder(f64, f64),
    /// Half extents.
    Box([f64; 3]),
    /// Semi-axes.
    Ellipsoid([f64; 3]),
}

impl Solid {
    /// Volume (m³).
    pub fn volume(&self) -> f64 {
        match *self {
            Solid::Sphere(r) => 4.0 / 3.0 * PI * r * r * r,
            Solid::Capsule(r, h) => PI * r * r * 2.0 * h + 4.0 / 3.0 * PI * r * r * r,
            Solid::Cylinder(r, h) => PI * r * r * 2.0 * h,
            Solid::Box(s) => 8.0 * s[0] * s[1] * s[2],
            Solid::Ellipsoid(s) => 4.0 / 3.0 * PI * s[0] * s[1] * s[2],
        }
    }

    /// Principal moments about the centre for `density` (kg/m³), in the geom frame.
    pub fn inertia(&self, density: f64) -> Vec3<f64> {
        let m = density * self.volume();
        match *self {
            Solid::Sphere(r) => {
                let i = 0.4 * m * r * r;
                Vec3::new(i, i, i)
            }
            Solid::Capsule(r, h) => {
                // MuJoCo: the cylinder and the two half spheres, each shifted to its place.
                let height = 2.0 * h;
                let mc = density * PI * r * r * height;
                let ms = density * 4.0 / 3.0 * PI * r * r * r;
                let across = mc * (3.0 * r * r + height * height) / 12.0
                    + ms * (0.4 * r * r + height * height / 4.0 + 3.0 * r * height / 8.0);
                Vec3::new(across, across, mc * r * r / 2.0 + ms * 0.4 * r * r)
            }
            Solid::Cylinder(r, h) => {
                let across = m * (3.0 * r * r + 4.0 * h * h) / 12.0;
                Vec3::new(across, across, m * r * r / 2.0)
            }
            Solid::Box(s) => Vec3::new(
                m * (s[1] * s[1] + s[2] * s[2]) / 3.0,
                m * (s[0] * s[0] + s[2] * s[2]) / 3.0,
                m * (s[0] * s[0] + s[1] * s[1]) / 3.0,
            ),
            Solid::Ellipsoid(s) => Vec3::new(
                m * (s[1] * s[1] + s[2] * s[2]) / 5.0,
                m * (s[0] * s[0] + s[2] * s[2]) / 5.0,
                m * (s[0] * s[0] + s[1] * s[1]) / 5.0,
            ),
        }
    }
}

/// Mass, centre of mass and inertia about it, in a body's frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MassProperties {
    /// Mass (kg).
    pub mass: f64,
    /// Centre of mass.
    pub com: Vec3<f64>,
    /// Inertia about the centre of mass, body axes.
    pub inertia: Mat3<f64>,
}

/// The sum of parts `(mass, inertia about the part's centre in the part's axes, pose of the
/// part's frame, whose origin is that centre)`: the parallel-axis theorem about the common
/// centre.
pub fn combine(parts: &[(f64, Mat3<f64>, Pose)]) -> MassProperties {
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    if mass <= 0.0 {
        return MassProperties::default();
    }
    let com = parts
        .iter()
        .fold(Vec3::ZERO, |c, (m, _, pose)| c + pose.p.scale(*m))
        .scale(1.0 / mass);
    let mut inertia = Mat3::ZERO;
    for (m, own, pose) in parts {
        let d = pose.p - com;
        let shift = Mat3::IDENTITY.scale(d.dot(d)) - Mat3::outer(d, d);
        inertia = inertia + rotate_inertia(&pose.q, own) + shift.scale(*m);
    }
    MassProperties { mass, com, inertia }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrodyn_kernel::math::Quat;

    #[test]
    fn capsule_of_no_length_is_a_sphere_and_of_no_radius_a_rod() {
        let (r, rho) = (0.1, 1000.0);
        let c = Solid::Capsule(r, 0.0).inertia(rho);
        let s = Solid::Sphere(r).inertia(rho);
        assert!((c - s).norm() < 1e-15 * s.norm().max(1.0));
        // A long thin capsule: the rod's m L² / 12 about its middle.
        let (r, h) = (1e-4, 0.5);
        let m = rho * Solid::Capsule(r, h).volume();
        let i = Solid::Capsule(r, h).inertia(rho).x;
        assert!((i / (m * 1.0 / 12.0) - 1.0).abs() < 1e-3, "{i}");
    }

    #[test]
    fn two_point_like_spheres_give_the_dumbbell() {
        // Two small spheres of mass m at ±d on x: I_yy = I_zz = 2 m d² (+ their own 2/5 m r²).
        let (r, d, rho) = (0.01, 0.5, 1000.0);
        let m = rho * Solid::Sphere(r).volume();
        let own = Solid::Sphere(r).inertia(rho);
        let tensor = Mat3::diagonal(own);
        let at = |x: f64| Pose::new(Vec3::new(x, 0.0, 0.0), Quat::IDENTITY);
        let p = combine(&[(m, tensor, at(d)), (m, tensor, at(-d))]);
        assert_eq!(p.mass, 2.0 * m);
        assert!(p.com.norm() < 1e-17);
        assert!((p.inertia.m[1][1] - (2.0 * m * d * d + 2.0 * own.y)).abs() < 1e-15);
        assert!((p.inertia.m[0][0] - 2.0 * own.x).abs() < 1e-15);
    }
}
