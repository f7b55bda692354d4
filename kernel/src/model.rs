//! The immutable model and its builder.
//!
//! Capacities are const generic parameters: `BODIES`, `JOINTS`, `FORCES`, `ROWS` (scalar
//! constraint equations) and `SKYLINE` (stored entries of the constraint-matrix profile, see
//! [`skyline_entries`]). Exceeding any is a [`BuildError::CapacityExceeded`].

use crate::body::{Body, MassProperties};
use crate::force::Force;
use crate::joint::Joint;
use crate::math::Vec3;
use crate::skyline::SkylineLayout;
use crate::{BodyRef, BuildError, Capacity, Item, Real};
use heapless::Vec;

/// How constraint drift is controlled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stabilization<R> {
    /// Baumgarte velocity gain α (1/s): γ ← γ − 2α Φ̇. Zero disables.
    pub baumgarte_alpha: R,
    /// Baumgarte position gain β (1/s): γ ← γ − β² Φ. Zero disables.
    pub baumgarte_beta: R,
    /// Project positions (Newton–Raphson on Φ = 0) and velocities (Φ̇ = 0) after every step.
    pub project: bool,
    /// Largest |Φ| accepted by the position projection.
    pub projection_tolerance: R,
    /// Newton iterations allowed per projection.
    pub max_projection_iterations: u32,
}

impl<R: Real> Default for Stabilization<R> {
    fn default() -> Self {
        Self {
            baumgarte_alpha: R::ZERO,
            baumgarte_beta: R::ZERO,
            project: true,
            // 1e-12 in f64; in f32 the floor is set by rounding of coordinates near 1.
            projection_tolerance: R::from_f64(1e-12).max(R::EPSILON * R::from_f64(100.0)),
            max_projection_iterations: 10,
        }
    }
}

/// Number of stored entries of the skyline profile of Φ_q M⁻¹ Φ_qᵀ for these joints (in the
/// given order): the `SKYLINE` capacity a model needs. Joints declared along a chain keep it
/// small (about rows × 2·rows-per-joint).
pub fn skyline_entries<R: Real>(joints: &[Joint<R>]) -> usize {
    let mut entries = 0;
    let mut start = 0;
    for (a, ja) in joints.iter().enumerate() {
        let first = first_coupled(joints, a).map_or(start, |(_, row)| row);
        let n = ja.kind.rows();
        // Rows start..start+n of joint a each store columns first..=row.
        for r in start..start + n {
            entries += r - first + 1;
        }
        start += n;
    }
    entries
}

/// Index and first constraint row of the earliest joint (≤ a) sharing a body with joint `a`.
fn first_coupled<R: Real>(joints: &[Joint<R>], a: usize) -> Option<(usize, usize)> {
    let ja = joints.get(a)?;
    let touches = |j: &Joint<R>| {
        [j.body_i, j.body_j]
            .iter()
            .any(|b| matches!(b, BodyRef::Body(_)) && (*b == ja.body_i || *b == ja.body_j))
    };
    let mut start = 0;
    for (index, j) in joints.iter().enumerate().take(a + 1) {
        if touches(j) {
            return Some((index, start));
        }
        start += j.kind.rows();
    }
    None
}

/// The immutable description of a rigid multibody system.
#[derive(Clone, Debug)]
pub struct Model<
    R,
    const BODIES: usize,
    const JOINTS: usize,
    const FORCES: usize,
    const ROWS: usize,
    const SKYLINE: usize,
> {
    pub(crate) gravity: Vec3<R>,
    pub(crate) bodies: Vec<Body<R>, BODIES>,
    pub(crate) mass: Vec<MassProperties<R>, BODIES>,
    pub(crate) joints: Vec<Joint<R>, JOINTS>,
    pub(crate) joint_start: Vec<usize, JOINTS>,
    /// Earliest joint coupled to each joint through a shared body (bounds its profile).
    pub(crate) joint_first: Vec<usize, JOINTS>,
    pub(crate) forces: Vec<Force<R>, FORCES>,
    pub(crate) row_count: usize,
    pub(crate) first: [usize; ROWS],
    pub(crate) diag: [usize; ROWS],
    pub(crate) row_joint: [usize; ROWS],
    pub(crate) stabilization: Stabilization<R>,
}

/// A borrowed, capacity-free view of a model: the algorithms work on slices, so their code is
/// not duplicated for every model shape.
#[derive(Clone, Copy)]
pub(crate) struct ModelView<'a, R> {
    pub gravity: Vec3<R>,
    pub bodies: &'a [Body<R>],
    pub mass: &'a [MassProperties<R>],
    pub joints: &'a [Joint<R>],
    pub joint_start: &'a [usize],
    pub joint_first: &'a [usize],
    pub forces: &'a [Force<R>],
    pub layout: SkylineLayout<'a>,
    pub row_joint: &'a [usize],
    pub stabilization: &'a Stabilization<R>,
}

impl<'a, R: Real> ModelView<'a, R> {
    /// Every joint with its index, its two sides and its range of constraint rows.
    pub fn joint_rows(&self) -> impl Iterator<Item = (usize, [BodyRef; 2], core::ops::Range<usize>)> + 'a {
        self.joints
            .iter()
            .zip(self.joint_start)
            .enumerate()
            .map(|(a, (j, &start))| (a, [j.body_i, j.body_j], start..start + j.kind.rows()))
    }
}

impl<R: Real, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>
    Model<R, B, J, F, C, S>
{
    /// Starts a builder with gravity `g` (global, m/s²).
    pub fn builder(gravity: Vec3<R>) -> ModelBuilder<R, B, J, F, C, S> {
        ModelBuilder {
            model: Model {
                gravity,
                bodies: Vec::new(),
                mass: Vec::new(),
                joints: Vec::new(),
                joint_start: Vec::new(),
                joint_first: Vec::new(),
                forces: Vec::new(),
                row_count: 0,
                first: [0; C],
                diag: [0; C],
                row_joint: [0; C],
                stabilization: Stabilization::default(),
            },
        }
    }
    /// Gravity (global).
    pub fn gravity(&self) -> Vec3<R> {
        self.gravity
    }
    /// The bodies, in the order added.
    pub fn bodies(&self) -> &[Body<R>] {
        &self.bodies
    }
    /// The joints, in the order added.
    pub fn joints(&self) -> &[Joint<R>] {
        &self.joints
    }
    /// The force elements, in the order added.
    pub fn forces(&self) -> &[Force<R>] {
        &self.forces
    }
    /// Number of scalar constraint equations.
    pub fn constraint_rows(&self) -> usize {
        self.row_count
    }
    /// First constraint row of joint `j`.
    pub fn joint_first_row(&self, j: usize) -> Option<usize> {
        self.joint_start.get(j).copied()
    }
    /// Stabilization settings.
    pub fn stabilization(&self) -> &Stabilization<R> {
        &self.stabilization
    }
    /// Degrees of freedom by the Grübler count 6·bodies − rows (redundant rows not detected).
    pub fn gruebler_dof(&self) -> isize {
        6 * self.bodies.len() as isize - self.row_count as isize
    }
    pub(crate) fn view(&self) -> ModelView<'_, R> {
        let n = self.row_count;
        ModelView {
            gravity: self.gravity,
            bodies: &self.bodies,
            mass: &self.mass,
            joints: &self.joints,
            joint_start: &self.joint_start,
            joint_first: &self.joint_first,
            forces: &self.forces,
            layout: SkylineLayout {
                first: &self.first[..n],
                diag: &self.diag[..n],
            },
            row_joint: &self.row_joint[..n],
            stabilization: &self.stabilization,
        }
    }
}

/// Builds a [`Model`], checking every item as it is added.
pub struct ModelBuilder<R, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize> {
    model: Model<R, B, J, F, C, S>,
}

impl<R: Real, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>
    ModelBuilder<R, B, J, F, C, S>
{
    /// Adds a body; returns its reference.
    pub fn add_body(&mut self, body: Body<R>) -> Result<BodyRef, BuildError> {
        let m = &mut self.model;
        let index = m.bodies.len();
        body.validate(index)?;
        let mass = MassProperties::of(&body).ok_or(BuildError::InertiaNotPositiveDefinite { body: index })?;
        let full = BuildError::CapacityExceeded {
            capacity: Capacity::Bodies,
            needed: index + 1,
            available: B,
        };
        m.bodies.push(body).map_err(|_| full)?;
        m.mass.push(mass).map_err(|_| full)?;
        Ok(BodyRef::Body(index))
    }

    /// Adds a joint; returns its index.
    pub fn add_joint(&mut self, joint: Joint<R>) -> Result<usize, BuildError> {
        let m = &mut self.model;
        let index = m.joints.len();
        joint.validate(index, m.bodies.len())?;
        let rows = m.row_count + joint.kind.rows();
        if rows > C {
            return Err(BuildError::CapacityExceeded {
                capacity: Capacity::ConstraintRows,
                needed: rows,
                available: C,
            });
        }
        let full = BuildError::CapacityExceeded {
            capacity: Capacity::Joints,
            needed: index + 1,
            available: J,
        };
        m.joints.push(joint).map_err(|_| full)?;
        m.joint_start.push(m.row_count).map_err(|_| full)?;
        m.row_count = rows;
        Ok(index)
    }

    /// Adds a force element; returns its index.
    pub fn add_force(&mut self, force: Force<R>) -> Result<usize, BuildError> {
        let m = &mut self.model;
        let index = m.forces.len();
        force.validate(index, &m.joints, m.bodies.len())?;
        m.forces.push(force).map_err(|_| BuildError::CapacityExceeded {
            capacity: Capacity::Forces,
            needed: index + 1,
            available: F,
        })?;
        Ok(index)
    }

    /// Sets the stabilization settings.
    pub fn stabilization(&mut self, s: Stabilization<R>) -> Result<(), BuildError> {
        let ok = s.baumgarte_alpha.is_finite()
            && s.baumgarte_alpha >= R::ZERO
            && s.baumgarte_beta.is_finite()
            && s.baumgarte_beta >= R::ZERO
            && s.projection_tolerance > R::ZERO
            && s.max_projection_iterations > 0;
        if !ok {
            return Err(BuildError::InvalidParameter {
                item: Item::Ground,
                reason: "stabilization gains must be ≥ 0, tolerance > 0, iterations > 0",
            });
        }
        self.model.stabilization = s;
        Ok(())
    }

    /// Lays out the constraint matrix profile and returns the finished model.
    pub fn build(mut self) -> Result<Model<R, B, J, F, C, S>, BuildError> {
        let m = &mut self.model;
        if !m.gravity.is_finite() {
            return Err(BuildError::NonFinite { item: Item::Ground });
        }
        let needed = skyline_entries(&m.joints);
        if needed > S {
            return Err(BuildError::CapacityExceeded {
                capacity: Capacity::SkylineEntries,
                needed,
                available: S,
            });
        }
        let mut next = 0;
        for (a, (joint, &start)) in m.joints.iter().zip(m.joint_start.iter()).enumerate() {
            let (first_joint, first) = first_coupled(&m.joints, a).unwrap_or((a, start));
            // Cannot fail: joint_first has the same capacity as joints.
            let _ = m.joint_first.push(first_joint);
            for r in start..start + joint.kind.rows() {
                m.first[r] = first;
                m.row_joint[r] = a;
                next += r - first;
                m.diag[r] = next;
                next += 1;
            }
        }
        Ok(self.model)
    }
}
