//! Conversions to and from the `mint` interchange types (feature `mint`): nalgebra, glam and
//! cgmath convert their own vectors, quaternions and matrices through them. Plain copies of the
//! components, no arithmetic.

use super::{Mat3, Quat, Vec3};

impl<R> From<mint::Vector3<R>> for Vec3<R> {
    fn from(v: mint::Vector3<R>) -> Self {
        Self {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl<R> From<Vec3<R>> for mint::Vector3<R> {
    fn from(v: Vec3<R>) -> Self {
        Self {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl<R> From<mint::Point3<R>> for Vec3<R> {
    fn from(p: mint::Point3<R>) -> Self {
        Self {
            x: p.x,
            y: p.y,
            z: p.z,
        }
    }
}

impl<R> From<Vec3<R>> for mint::Point3<R> {
    fn from(v: Vec3<R>) -> Self {
        Self {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl<R> From<mint::Quaternion<R>> for Quat<R> {
    fn from(q: mint::Quaternion<R>) -> Self {
        Self {
            w: q.s,
            x: q.v.x,
            y: q.v.y,
            z: q.v.z,
        }
    }
}

impl<R> From<Quat<R>> for mint::Quaternion<R> {
    fn from(q: Quat<R>) -> Self {
        Self {
            s: q.w,
            v: mint::Vector3 {
                x: q.x,
                y: q.y,
                z: q.z,
            },
        }
    }
}

impl<R: Copy> From<mint::RowMatrix3<R>> for Mat3<R> {
    fn from(m: mint::RowMatrix3<R>) -> Self {
        let row = |r: mint::Vector3<R>| [r.x, r.y, r.z];
        Self {
            m: [row(m.x), row(m.y), row(m.z)],
        }
    }
}

impl<R: Copy> From<Mat3<R>> for mint::RowMatrix3<R> {
    fn from(m: Mat3<R>) -> Self {
        let row = |r: [R; 3]| mint::Vector3 {
            x: r[0],
            y: r[1],
            z: r[2],
        };
        Self {
            x: row(m.m[0]),
            y: row(m.m[1]),
            z: row(m.m[2]),
        }
    }
}

impl<R: Copy> From<mint::ColumnMatrix3<R>> for Mat3<R> {
    fn from(m: mint::ColumnMatrix3<R>) -> Self {
        let [x, y, z] = [m.x, m.y, m.z];
        Self {
            m: [[x.x, y.x, z.x], [x.y, y.y, z.y], [x.z, y.z, z.z]],
        }
    }
}

impl<R: Copy> From<Mat3<R>> for mint::ColumnMatrix3<R> {
    fn from(m: Mat3<R>) -> Self {
        let column = |c: usize| mint::Vector3 {
            x: m.m[0][c],
            y: m.m[1][c],
            z: m.m[2][c],
        };
        Self {
            x: column(0),
            y: column(1),
            z: column(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_keep_every_component_in_place() {
        let v = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(Vec3::from(mint::Vector3::from(v)), v);
        assert_eq!(Vec3::from(mint::Point3::from(v)), v);
        let q = Quat::new(0.5, -0.5, 0.5, -0.5);
        let mq = mint::Quaternion::from(q);
        assert_eq!((mq.s, mq.v.x, mq.v.y, mq.v.z), (0.5, -0.5, 0.5, -0.5));
        assert_eq!(Quat::from(mq), q);
        let m = Mat3 {
            m: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
        };
        let rows = mint::RowMatrix3::from(m);
        assert_eq!((rows.x.y, rows.y.x), (2.0, 4.0), "row x holds the first row");
        assert_eq!(Mat3::from(rows), m);
        let columns = mint::ColumnMatrix3::from(m);
        assert_eq!(
            (columns.x.y, columns.y.x),
            (4.0, 2.0),
            "column x holds the first column"
        );
        assert_eq!(Mat3::from(columns), m);
    }
}
