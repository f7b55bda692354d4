//! What a link's constant data lets the dynamics skip, found once when the link is added: a
//! joint axis, joint origin or CG along a frame axis, an inertia in principal axes or with two
//! equal principal moments ([`super::Model::shapes`]; `ferrodyn check --target` prices them). Tested at
//! every evaluation instead, these cost three float compares each (about 14 Cortex-M4F
//! instructions a link and evaluation, as much as some of what they save).

use crate::math::{Mat3, Vec3};
use crate::Real;

use super::Link;

/// The frame axis a link-frame vector lies along, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Along {
    /// Along x (or the zero vector).
    X,
    /// Along y.
    Y,
    /// Along z.
    Z,
    /// Two or three non-zero components.
    #[default]
    Skew,
}

impl Along {
    /// Where `v` lies: a vector with at most one non-zero component is along that axis (the
    /// zero vector along x).
    pub fn of<R: Real>(v: Vec3<R>) -> Self {
        match (v.x == R::ZERO, v.y == R::ZERO, v.z == R::ZERO) {
            (_, true, true) => Self::X,
            (true, _, true) => Self::Y,
            (true, true, _) => Self::Z,
            _ => Self::Skew,
        }
    }

    /// The index of the axis and `v`'s component along it (±1 for a unit `v`), `None` for a
    /// skew vector.
    #[inline(always)]
    pub fn signed<R: Real>(self, v: Vec3<R>) -> Option<(usize, R)> {
        match self {
            Self::X => Some((0, v.x)),
            Self::Y => Some((1, v.y)),
            Self::Z => Some((2, v.z)),
            Self::Skew => None,
        }
    }

    /// `r v` for a `v` that lies as `self` says: one column of `r` scaled (3 products instead
    /// of 15 products and sums).
    #[inline(always)]
    pub fn turn<R: Real>(self, r: &Mat3<R>, v: Vec3<R>) -> Vec3<R> {
        match self {
            Self::X => r.column(0) * v.x,
            Self::Y => r.column(1) * v.y,
            Self::Z => r.column(2) * v.z,
            Self::Skew => r.mul_vec(v),
        }
    }
}

/// How a link's inertia about its CG (link axes) is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InertiaShape {
    /// Any symmetric matrix.
    #[default]
    General,
    /// Diagonal: the link frame is along the principal axes.
    Principal,
    /// Diagonal with the two moments about the other axes equal (a rod or a disc along the
    /// axis, a sphere): J = a I + (J_axis − a) e eᵀ.
    Symmetric(Along),
}

impl InertiaShape {
    /// The shape of the symmetric `j`.
    pub fn of<R: Real>(j: &Mat3<R>) -> Self {
        let j = &j.m;
        if j[0][1] != R::ZERO || j[0][2] != R::ZERO || j[1][2] != R::ZERO {
            return Self::General;
        }
        let [x, y, z] = [j[0][0], j[1][1], j[2][2]];
        if y == z {
            Self::Symmetric(Along::X)
        } else if x == z {
            Self::Symmetric(Along::Y)
        } else if x == y {
            Self::Symmetric(Along::Z)
        } else {
            Self::Principal
        }
    }
}

/// The shape of one link's constant data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkShape {
    /// The joint axis (unit, parent frame): ±eᵢ lets a hinge turn two columns of its parent's
    /// rotation in their plane.
    pub axis: Along,
    /// The joint origin (parent frame).
    pub origin: Along,
    /// The CG (link frame).
    pub cg: Along,
    /// The inertia about the CG.
    pub inertia: InertiaShape,
}

impl LinkShape {
    /// The shape of a validated `link`.
    pub fn of<R: Real>(link: &Link<R>) -> Self {
        Self {
            axis: Along::of(link.axis),
            origin: Along::of(link.origin),
            cg: Along::of(link.cg),
            inertia: InertiaShape::of(&link.inertia),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_along_an_axis_turns_as_the_full_product() {
        // Reference: the full product r v; the column form must give the same values (up to
        // the sign of a zero), and a skew vector the full product itself.
        let r = Mat3::from_rows([[0.36, -0.48, 0.8], [0.8, 0.6, 0.0], [-0.48, 0.64, 0.6]]);
        for (v, along) in [
            (Vec3::new(0.7, 0.0, 0.0), Along::X),
            (Vec3::new(0.0, -1.3, 0.0), Along::Y),
            (Vec3::new(0.0, 0.0, 2.5), Along::Z),
            (Vec3::new(0.0, 0.0, 0.0), Along::X),
            (Vec3::new(0.3, 0.0, 0.4), Along::Skew),
        ] {
            assert_eq!(Along::of(v), along);
            assert_eq!(along.turn(&r, v), r.mul_vec(v), "{v:?}");
        }
        assert_eq!(Along::Z.signed(Vec3::new(0.0, 0.0, -1.0)), Some((2, -1.0)));
        assert_eq!(Along::Skew.signed(Vec3::new(0.3, 0.0, 0.4)), None);
    }
}
