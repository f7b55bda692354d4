//! Joint descriptions: constraint sets Φ(q, t) = 0 between frames on two bodies.
//!
//! Every joint has a frame on each side (body i and body j, either may be the ground), given in
//! that body's coordinates. Conventions, all about the frames' axes:
//! revolute and cylindrical turn about z; prismatic and cylindrical slide along z;
//! universal turns about x of frame i and y of frame j; driving prescribes the rotation of
//! frame j about z of frame i (angle from x_i to x_j) or the translation of origin j along z_i.

use super::BodyRef;
use crate::math::{Mat3, Quat, Vec3};
use crate::{BuildError, Item, Real};

/// A frame attached to a body: origin and axes in body coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame<R> {
    /// Origin in body coordinates.
    pub origin: Vec3<R>,
    /// Axes as columns (x, y, z) in body coordinates: a rotation matrix.
    pub axes: Mat3<R>,
}

impl<R: Real> Frame<R> {
    /// A frame at `origin` aligned with the body axes.
    pub fn at(origin: Vec3<R>) -> Self {
        Self {
            origin,
            axes: Mat3::IDENTITY,
        }
    }
    /// A frame at `origin` oriented by a unit quaternion (frame → body).
    pub fn oriented(origin: Vec3<R>, orientation: Quat<R>) -> Self {
        Self {
            origin,
            axes: orientation.to_matrix(),
        }
    }
    /// A frame at `origin` whose z axis is `axis` (any length > 0); x and y are chosen
    /// perpendicular. A zero or non-finite axis gives zero axes, which the model builder
    /// rejects as [`BuildError::ZeroLengthAxis`] naming the joint.
    pub fn with_z_axis(origin: Vec3<R>, axis: Vec3<R>) -> Self {
        let axes = match axis.normalized() {
            Some(z) => {
                let x = z.any_perpendicular();
                Mat3::from_columns(x, z.cross(x), z)
            }
            None => Mat3::ZERO,
        };
        Self { origin, axes }
    }
    /// Checks that the axes form a rotation (orthonormal, right-handed).
    fn validate(&self, item: Item) -> Result<(), BuildError> {
        if !self.origin.is_finite() || !self.axes.is_finite() {
            return Err(BuildError::NonFinite { item });
        }
        let tol = R::from_f64(1e-6);
        for k in 0..3 {
            if (self.axes.column(k).norm() - R::ONE).abs() > tol {
                return Err(BuildError::ZeroLengthAxis { item });
            }
        }
        let rtr = self.axes.transpose().mul_mat(&self.axes);
        let orthogonal = (rtr.m[0][1].abs() + rtr.m[0][2].abs() + rtr.m[1][2].abs()) <= tol;
        if !orthogonal || self.axes.determinant() < R::ZERO {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "frame axes are not a rotation",
            });
        }
        Ok(())
    }
}

/// The coordinate a driving constraint prescribes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DrivenCoordinate {
    /// Angle of frame j about z of frame i (pair with a revolute or cylindrical joint).
    Rotation,
    /// Displacement of origin j from origin i along z of frame i (pair with a prismatic joint).
    Translation,
}

/// The kind of a joint, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind<R> {
    /// Origins coincide (3 equations).
    Spherical,
    /// Origins coincide, z axes aligned (5).
    Revolute,
    /// z axes aligned, no relative rotation, origin j on the z axis of frame i (5).
    Prismatic,
    /// z axes aligned, origin j on the z axis of frame i (4).
    Cylindrical,
    /// Origins coincide, x of frame i perpendicular to y of frame j (4).
    Universal,
    /// Frames coincide (6).
    Fixed,
    /// Origins kept at a fixed distance > 0 (1).
    Distance {
        /// The distance.
        length: R,
    },
    /// A joint coordinate prescribed as a function of time (1): the model's time function
    /// `function` ([`Builder::add_function`](super::Builder::add_function)). A prescribed
    /// velocity ω(t) is the position θ₀ + ∫₀ᵗ ω, a
    /// [`TimeFunction::Integral`](crate::TimeFunction::Integral) (`ω.integral(θ₀)`): the
    /// constraint stays holonomic, so every integrator, assembly and projection apply.
    Driving {
        /// Which coordinate.
        coordinate: DrivenCoordinate,
        /// Its prescribed value f(t): an index into the model's time functions.
        function: FunctionId,
    },
}

/// A time function of a rigid model ([`Model::functions`](super::Model::functions)), by its
/// index there: what a driving joint holds instead of the function itself, so that every
/// joint stays small (a time function is about half a kilobyte, and drives are rare).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FunctionId(pub usize);

impl FunctionId {
    /// The index in the model's time functions.
    pub fn index(self) -> usize {
        self.0
    }
}

/// The most scalar constraint equations a joint has (a fixed joint's): room for any joint's
/// rows on the stack.
pub(crate) const MOST_ROWS: usize = 6;

impl<R: Real> JointKind<R> {
    /// Number of scalar constraint equations.
    pub fn rows(&self) -> usize {
        match self {
            Self::Spherical => 3,
            Self::Revolute | Self::Prismatic => 5,
            Self::Cylindrical | Self::Universal => 4,
            Self::Fixed => 6,
            Self::Distance { .. } | Self::Driving { .. } => 1,
        }
    }
    /// A short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Spherical => "spherical",
            Self::Revolute => "revolute",
            Self::Prismatic => "prismatic",
            Self::Cylindrical => "cylindrical",
            Self::Universal => "universal",
            Self::Fixed => "fixed",
            Self::Distance { .. } => "distance",
            Self::Driving { .. } => "driving",
        }
    }
}

/// A joint between frame i on body i and frame j on body j.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint<R> {
    /// Kind and parameters.
    pub kind: JointKind<R>,
    /// First body (or ground).
    pub body_i: BodyRef,
    /// Frame on the first body.
    pub frame_i: Frame<R>,
    /// Second body (or ground).
    pub body_j: BodyRef,
    /// Frame on the second body.
    pub frame_j: Frame<R>,
}

impl<R: Real> Joint<R> {
    /// A joint of `kind` between two frames.
    pub fn new(
        kind: JointKind<R>,
        body_i: BodyRef,
        frame_i: Frame<R>,
        body_j: BodyRef,
        frame_j: Frame<R>,
    ) -> Self {
        Self {
            kind,
            body_i,
            frame_i,
            body_j,
            frame_j,
        }
    }

    /// Checks parameters and body references of joint `index` against `body_count` bodies (a
    /// driving joint's function is checked where the model's functions are: [`Builder::add_joint`](super::Builder::add_joint)).
    pub fn validate(&self, index: usize, body_count: usize) -> Result<(), BuildError> {
        let item = Item::Joint(index);
        for side in [self.body_i, self.body_j] {
            if let BodyRef::Body(b) = side {
                if b >= body_count {
                    return Err(BuildError::UnknownBody { item, body: b });
                }
            }
        }
        if self.body_i == self.body_j {
            return Err(BuildError::SameBody { item });
        }
        self.frame_i.validate(item)?;
        self.frame_j.validate(item)?;
        match self.kind {
            JointKind::Distance { length } if !(length.is_finite() && length > R::ZERO) => {
                Err(BuildError::InvalidParameter {
                    item,
                    reason: "distance must be finite and > 0",
                })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::Model;
    use crate::time_function::TimeFunction;
    use crate::{Capacity, Fixed};

    #[test]
    fn a_joint_holds_its_drive_function_by_id() {
        // 768 B with the function inline (a time function alone is 536 B).
        assert_eq!(core::mem::size_of::<Joint<f64>>(), 240);
        assert_eq!(core::mem::size_of::<JointKind<f64>>(), 16);
    }

    #[test]
    fn drives_name_functions_the_model_holds() {
        let mut b = Model::<f64, Fixed<1, 2, 0, 6, 21>>::builder(Vec3::ZERO);
        let body = b.add_body(crate::rigid::Body::sphere(1.0, 0.1)).unwrap();
        let axis = Frame::at(Vec3::ZERO);
        let drive = |function| JointKind::Driving {
            coordinate: DrivenCoordinate::Rotation,
            function,
        };
        let joint = |kind| Joint::new(kind, BodyRef::Ground, axis, body, axis);
        // An id the model has no function for, and an invalid function: errors naming the joint.
        let unknown = b.add_joint(joint(drive(FunctionId(0))));
        assert!(matches!(
            unknown,
            Err(BuildError::InvalidParameter {
                item: Item::Joint(0),
                ..
            })
        ));
        let nan = b.add_function(TimeFunction::Constant(f64::NAN)).unwrap();
        let invalid = b.add_joint(joint(drive(nan)));
        assert_eq!(invalid, Err(BuildError::NonFinite { item: Item::Joint(0) }));
        let ramp = TimeFunction::Ramp {
            start: 0.0,
            initial: 0.0,
            slope: 1.0,
        };
        assert_eq!(b.add_function(ramp), Ok(FunctionId(1)));
        // The list has the joints' capacity.
        assert!(matches!(
            b.add_function(ramp),
            Err(BuildError::CapacityExceeded {
                capacity: Capacity::Joints,
                needed: 3,
                available: 2
            })
        ));
        b.add_joint(joint(JointKind::Revolute)).unwrap();
        b.add_joint(joint(drive(FunctionId(1)))).unwrap();
        let model = b.build().unwrap();
        assert_eq!((model.functions().len(), model.functions()[1]), (2, ramp));
    }
}
