//! Constraint equations of the joints: Φ, the Jacobian Φ_q, Φ_t and the acceleration
//! right-hand side γ, in closed form.
//!
//! Every joint is built from three primitives on global vectors attached to the bodies
//! (Haug, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 2 & 9):
//! `dot` (Φ = a·b, two axes kept perpendicular), `offset` (Φ = d·b, the vector d between the
//! frame origins kept perpendicular to an axis) and the distance |d| − L. For each we carry
//! value, velocity and the velocity-dependent part of the acceleration, so that
//! Φ̈ = Φ_q a − γ with γ exact (no finite differences).
//!
//! Velocities per body are (origin velocity in global axes, angular velocity in body axes);
//! the Jacobian row of a joint has one 6-block per side.

use super::joint::{DrivenCoordinate, Joint, JointKind};
use crate::math::{Mat3, Vec3};
use crate::time_function::{TimeFunction, TimeValue};
use crate::Real;

/// Global pose and velocity of one side of a joint (ground: identity and zero).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SideState<R> {
    /// Origin position (global).
    pub x: Vec3<R>,
    /// Rotation body → global.
    pub rot: Mat3<R>,
    /// Origin velocity (global).
    pub v: Vec3<R>,
    /// Angular velocity (global axes).
    pub w: Vec3<R>,
}

impl<R: Real> SideState<R> {
    /// The ground.
    pub const GROUND: Self = Self {
        x: Vec3::ZERO,
        rot: Mat3::IDENTITY,
        v: Vec3::ZERO,
        w: Vec3::ZERO,
    };
}

/// One scalar constraint equation evaluated at (q, v, t). All zero bits is the default row
/// (`Zeroable`: a list of rows starts as untouched zeroed memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Zeroable)]
pub struct ConstraintRow<R> {
    /// Φ.
    pub phi: R,
    /// ∂Φ/∂q mapped to velocities: one 6-block per side (i, j).
    pub jac: [[R; 6]; 2],
    /// ∂Φ/∂t (driving constraints).
    pub phi_t: R,
    /// γ such that Φ̈ = 0 ⟺ Φ_q a = γ.
    pub gamma: R,
}

/// A global vector with its velocity and the velocity-dependent part of its acceleration.
#[derive(Clone, Copy, Debug)]
struct Moving<R> {
    val: Vec3<R>,
    vel: Vec3<R>,
    acc: Vec3<R>,
}

impl<R: Real> Moving<R> {
    /// A body-fixed direction `a` (body coordinates) of side `s`.
    fn axis(s: &SideState<R>, a: Vec3<R>) -> Self {
        let val = s.rot.mul_vec(a);
        let vel = s.w.cross(val);
        Self {
            val,
            vel,
            acc: s.w.cross(vel),
        }
    }
    /// The difference of two moving vectors.
    fn minus(&self, o: &Self) -> Self {
        Self {
            val: self.val - o.val,
            vel: self.vel - o.vel,
            acc: self.acc - o.acc,
        }
    }
}

/// A body-fixed point: its global lever arm from the body origin and its motion.
#[derive(Clone, Copy, Debug)]
struct Point<R> {
    lever: Vec3<R>,
    motion: Moving<R>,
}

impl<R: Real> Point<R> {
    fn of(s: &SideState<R>, local: Vec3<R>) -> Self {
        let lever = s.rot.mul_vec(local);
        let wr = s.w.cross(lever);
        Self {
            lever,
            motion: Moving {
                val: s.x + lever,
                vel: s.v + wr,
                acc: s.w.cross(wr),
            },
        }
    }
}

/// Accumulates Jacobian contributions of the two sides.
struct RowBuilder<'a, R> {
    sides: [&'a SideState<R>; 2],
    row: ConstraintRow<R>,
}

impl<'a, R: Real> RowBuilder<'a, R> {
    fn new(sides: [&'a SideState<R>; 2], phi: R, gamma: R) -> Self {
        Self {
            sides,
            row: ConstraintRow {
                phi,
                gamma,
                ..Default::default()
            },
        }
    }
    /// A rotating axis `a` of side `k` in the term a·u: ȧ·u = (ω×a)·u = ω·(a×u).
    fn axis(&mut self, k: usize, a: Vec3<R>, u: Vec3<R>) {
        self.axis_cross(k, a.cross(u));
    }
    /// The same with a×u given.
    fn axis_cross(&mut self, k: usize, a_cross_u: Vec3<R>) {
        let c = self.sides[k].rot.tr_mul_vec(a_cross_u);
        let j = &mut self.row.jac[k];
        j[3] += c.x;
        j[4] += c.y;
        j[5] += c.z;
    }
    /// A point of side `k` (lever r) in the term sign·p·u: ṗ·u = v·u + ω·(r×u).
    fn point(&mut self, k: usize, lever: Vec3<R>, u: Vec3<R>, sign: R) {
        let c = self.sides[k].rot.tr_mul_vec(lever.cross(u)) * sign;
        let u = u * sign;
        let j = &mut self.row.jac[k];
        j[0] += u.x;
        j[1] += u.y;
        j[2] += u.z;
        j[3] += c.x;
        j[4] += c.y;
        j[5] += c.z;
    }
}

/// Φ = a·b with a on side ka, b on side kb (a×b formed once: b×a = −a×b exactly).
fn dot_row<R: Real>(
    sides: [&SideState<R>; 2],
    a: &Moving<R>,
    ka: usize,
    b: &Moving<R>,
    kb: usize,
) -> ConstraintRow<R> {
    let gamma = -(a.acc.dot(b.val) + R::TWO * a.vel.dot(b.vel) + a.val.dot(b.acc));
    let mut rb = RowBuilder::new(sides, a.val.dot(b.val), gamma);
    let axb = a.val.cross(b.val);
    rb.axis_cross(ka, axb);
    rb.axis_cross(kb, -axb);
    rb.row
}

/// Fills `out[..kind.rows()]` with the rows of `joint` between sides `si` and `sj` at time `t`,
/// a driving joint's function taken from `functions` (the model's: its id checked when the
/// joint was added; an unknown one prescribes 0). `out` must hold at least `joint.kind.rows()`
/// rows (guaranteed by the model layout).
pub(crate) fn evaluate_joint<R: Real>(
    joint: &Joint<R>,
    functions: &[TimeFunction<R>],
    si: &SideState<R>,
    sj: &SideState<R>,
    t: R,
    out: &mut [ConstraintRow<R>],
) {
    let sides = [si, sj];
    let (pi, pj) = (
        Point::of(si, joint.frame_i.origin),
        Point::of(sj, joint.frame_j.origin),
    );
    let d = pj.motion.minus(&pi.motion);
    // Only the frame axes a joint's rows use are formed.
    let axis_i = |k: usize| Moving::axis(si, joint.frame_i.axes.column(k));
    let axis_j = |k: usize| Moving::axis(sj, joint.frame_j.axes.column(k));

    // Φ = d·b, d = origin_j − origin_i, b on side i (rows slide along frame i's axes).
    let offset = |b: &Moving<R>| {
        let gamma = -(d.acc.dot(b.val) + R::TWO * d.vel.dot(b.vel) + d.val.dot(b.acc));
        let mut rb = RowBuilder::new(sides, d.val.dot(b.val), gamma);
        rb.point(1, pj.lever, b.val, R::ONE);
        rb.point(0, pi.lever, b.val, -R::ONE);
        rb.axis(0, b.val, d.val);
        rb.row
    };
    // Φ_k = d·e_k for the global axes e_k: the lever terms Rᵀ(r×e_k) are columns k of Rᵀ[r]×,
    // written out (the products with the zeros of e_k dropped).
    let coincide = |out: &mut [ConstraintRow<R>]| {
        let (ci, cj) = (tr_mul_skew(&si.rot, pi.lever), tr_mul_skew(&sj.rot, pj.lever));
        let (val, acc) = (d.val.to_array(), d.acc.to_array());
        for (k, o) in out.iter_mut().take(3).enumerate() {
            let mut jac = [[R::ZERO; 6]; 2];
            jac[0][k] = -R::ONE;
            jac[1][k] = R::ONE;
            for c in 0..3 {
                jac[0][3 + c] = -ci[c][k];
                jac[1][3 + c] = cj[c][k];
            }
            *o = ConstraintRow {
                phi: val[k],
                jac,
                phi_t: R::ZERO,
                gamma: -acc[k],
            };
        }
    };
    let put = |out: &mut [ConstraintRow<R>], k: usize, row: ConstraintRow<R>| {
        if let Some(o) = out.get_mut(k) {
            *o = row;
        }
    };
    match joint.kind {
        JointKind::Spherical => coincide(out),
        JointKind::Revolute | JointKind::Fixed => {
            coincide(out);
            let (xi, yi, zj) = (axis_i(0), axis_i(1), axis_j(2));
            put(out, 3, dot_row(sides, &xi, 0, &zj, 1));
            put(out, 4, dot_row(sides, &yi, 0, &zj, 1));
            if matches!(joint.kind, JointKind::Fixed) {
                put(out, 5, dot_row(sides, &xi, 0, &axis_j(1), 1));
            }
        }
        JointKind::Prismatic | JointKind::Cylindrical => {
            let (xi, yi, zj) = (axis_i(0), axis_i(1), axis_j(2));
            put(out, 0, dot_row(sides, &xi, 0, &zj, 1));
            put(out, 1, dot_row(sides, &yi, 0, &zj, 1));
            let slides = match joint.kind {
                JointKind::Prismatic => {
                    put(out, 2, dot_row(sides, &xi, 0, &axis_j(1), 1));
                    3
                }
                _ => 2,
            };
            put(out, slides, offset(&xi));
            put(out, slides + 1, offset(&yi));
        }
        JointKind::Universal => {
            coincide(out);
            put(out, 3, dot_row(sides, &axis_i(0), 0, &axis_j(1), 1));
        }
        JointKind::Distance { length } => put(out, 0, distance_row(sides, &pi, &pj, &d, length)),
        JointKind::Driving { coordinate, function } => {
            // Position and velocity drives alike: a velocity drive's function is the closed-form
            // integral of its rate, so f.rate is the prescribed velocity and f.accel its slope.
            let f = functions
                .get(function.index())
                .map_or_else(TimeValue::default, |f| f.eval(t));
            let row = match coordinate {
                DrivenCoordinate::Translation => {
                    // Φ = d·z_i − f(t): Φ_t = −ḟ, and −f̈ moves into γ.
                    let mut r = offset(&axis_i(2));
                    r.phi -= f.value;
                    r.phi_t = -f.rate;
                    r.gamma += f.accel;
                    r
                }
                DrivenCoordinate::Rotation => {
                    rotation_drive_row(sides, &axis_i(0), &axis_i(1), &axis_j(0), f)
                }
            };
            put(out, 0, row);
        }
    }
}

/// Rᵀ[r]× (row c, column k): its column k is Rᵀ(r×e_k).
fn tr_mul_skew<R: Real>(rot: &Mat3<R>, r: Vec3<R>) -> [[R; 3]; 3] {
    let m = &rot.m;
    // r×e_x = (0, r_z, −r_y), r×e_y = (−r_z, 0, r_x), r×e_z = (r_y, −r_x, 0).
    core::array::from_fn(|c| {
        [
            m[1][c] * r.z - m[2][c] * r.y,
            m[2][c] * r.x - m[0][c] * r.z,
            m[0][c] * r.y - m[1][c] * r.x,
        ]
    })
}

/// Φ = |d| − L, d between the frame origins.
fn distance_row<R: Real>(
    sides: [&SideState<R>; 2],
    pi: &Point<R>,
    pj: &Point<R>,
    d: &Moving<R>,
    length: R,
) -> ConstraintRow<R> {
    let len = d.val.norm();
    // A collapsed distance has no direction: leave a zero Jacobian row (instead of NaN), which
    // the solver takes as a dependent row and the projection reports when its |Φ| stays.
    let n = if len > R::ZERO {
        d.val * (R::ONE / len)
    } else {
        Vec3::ZERO
    };
    let inv = if len > R::ZERO { R::ONE / len } else { R::ZERO };
    let nd = n.dot(d.vel);
    // Φ̈ = n·d̈ + (|ḋ|² − (n·ḋ)²)/|d|.
    let gamma = -(n.dot(d.acc) + (d.vel.norm_squared() - nd * nd) * inv);
    let mut rb = RowBuilder::new(sides, len - length, gamma);
    rb.point(1, pj.lever, n, R::ONE);
    rb.point(0, pi.lever, n, -R::ONE);
    rb.row
}

/// Φ = sin(θ − f(t)) = u·x_j with u = cos f · y_i − sin f · x_i, θ the angle from x_i to x_j
/// about z_i. Smooth through every angle (no atan2 wrap) and linear in θ − f near zero.
fn rotation_drive_row<R: Real>(
    sides: [&SideState<R>; 2],
    xi: &Moving<R>,
    yi: &Moving<R>,
    xj: &Moving<R>,
    f: crate::time_function::TimeValue<R>,
) -> ConstraintRow<R> {
    let (s, c) = (f.value.sin(), f.value.cos());
    let wi = sides[0].w;
    let u = yi.val * c - xi.val * s;
    let w = xi.val * c + yi.val * s;
    // u̇ = ω_i×u − ḟ w;  ü (velocity part) = ω_i×(ω_i×u) − 2ḟ ω_i×w − f̈ w − ḟ² u.
    let u_vel = wi.cross(u) - w * f.rate;
    let u_acc = wi.cross(wi.cross(u)) - wi.cross(w) * (R::TWO * f.rate) - w * f.accel - u * (f.rate * f.rate);
    let gamma = -(u_acc.dot(xj.val) + R::TWO * u_vel.dot(xj.vel) + u.dot(xj.acc));
    let mut rb = RowBuilder::new(sides, u.dot(xj.val), gamma);
    rb.axis(0, u, xj.val);
    rb.axis(1, xj.val, u);
    rb.row.phi_t = -(f.rate * w.dot(xj.val));
    rb.row
}
