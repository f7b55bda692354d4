//! 3-vector.

use crate::Real;
use core::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A 3-vector of reals.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Zeroable)]
pub struct Vec3<R> {
    /// x component.
    pub x: R,
    /// y component.
    pub y: R,
    /// z component.
    pub z: R,
}

impl<R: Real> Vec3<R> {
    /// The zero vector.
    pub const ZERO: Self = Self {
        x: R::ZERO,
        y: R::ZERO,
        z: R::ZERO,
    };
    /// Unit x.
    pub const X: Self = Self {
        x: R::ONE,
        y: R::ZERO,
        z: R::ZERO,
    };
    /// Unit y.
    pub const Y: Self = Self {
        x: R::ZERO,
        y: R::ONE,
        z: R::ZERO,
    };
    /// Unit z.
    pub const Z: Self = Self {
        x: R::ZERO,
        y: R::ZERO,
        z: R::ONE,
    };

    /// Builds from components.
    #[inline]
    pub const fn new(x: R, y: R, z: R) -> Self {
        Self { x, y, z }
    }
    /// Builds from `f64` components (rounded for `f32`).
    #[inline]
    pub fn from_f64(x: f64, y: f64, z: f64) -> Self {
        Self::new(R::from_f64(x), R::from_f64(y), R::from_f64(z))
    }
    /// Builds from an array.
    #[inline]
    pub fn from_array(a: [R; 3]) -> Self {
        Self::new(a[0], a[1], a[2])
    }
    /// The components as an array.
    #[inline]
    pub fn to_array(self) -> [R; 3] {
        [self.x, self.y, self.z]
    }
    /// Dot product.
    #[inline]
    pub fn dot(self, o: Self) -> R {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Cross product.
    #[inline]
    pub fn cross(self, o: Self) -> Self {
        Self::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    /// Squared Euclidean norm.
    #[inline]
    pub fn norm_squared(self) -> R {
        self.dot(self)
    }
    /// Euclidean norm.
    #[inline]
    pub fn norm(self) -> R {
        self.norm_squared().sqrt()
    }
    /// Scales by a scalar.
    #[inline]
    pub fn scale(self, s: R) -> Self {
        Self::new(self.x * s, self.y * s, self.z * s)
    }
    /// The unit vector along `self`, or `None` for a zero or non-finite vector.
    pub fn normalized(self) -> Option<Self> {
        let n = self.norm();
        if n > R::ZERO && n.is_finite() {
            Some(self.scale(R::ONE / n))
        } else {
            None
        }
    }
    /// Whether all components are finite.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
    /// Component-wise product.
    #[inline]
    pub fn component_mul(self, o: Self) -> Self {
        Self::new(self.x * o.x, self.y * o.y, self.z * o.z)
    }
    /// A unit vector perpendicular to `self` (which must be a unit vector).
    pub fn any_perpendicular(self) -> Self {
        // Cross with the basis axis least aligned with self: well conditioned.
        let a = if self.x.abs() <= self.y.abs() && self.x.abs() <= self.z.abs() {
            Self::X
        } else if self.y.abs() <= self.z.abs() {
            Self::Y
        } else {
            Self::Z
        };
        let p = self.cross(a);
        p.scale(R::ONE / p.norm())
    }
}

impl<R: Real> Add for Vec3<R> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl<R: Real> Sub for Vec3<R> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl<R: Real> Neg for Vec3<R> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y, -self.z)
    }
}
impl<R: Real> Mul<R> for Vec3<R> {
    type Output = Self;
    #[inline]
    fn mul(self, s: R) -> Self {
        self.scale(s)
    }
}
impl<R: Real> AddAssign for Vec3<R> {
    #[inline]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}
impl<R: Real> SubAssign for Vec3<R> {
    #[inline]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}
