//! The immutable rigid model and its builder.
//!
//! A [`Model`] keeps its items in a [`Storage`]: on a microcontroller [`Fixed`](crate::Fixed)
//! capacities (`BODIES`, `JOINTS`, `FORCES`, `ROWS` scalar constraint equations and `SKYLINE`
//! stored entries of the constraint-matrix profile, see [`skyline_entries`]); exceeding any is a
//! [`BuildError::CapacityExceeded`]. A host supplies growable storage instead.

use super::body::{Body, MassProperties};
use super::force::Force;
use super::joint::{FunctionId, Joint, JointKind};
use super::BodyRef;
use crate::math::skyline::SkylineLayout;
use crate::math::Vec3;
use crate::storage::{full, sized, List, Storage};
use crate::time_function::TimeFunction;
use crate::{BuildError, Capacity, Item, Real};

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

impl<R: Real> Stabilization<R> {
    /// The least part of its free diagonal entry a loop row keeps near a pose where Φ_q itself
    /// loses rank (a parallelogram lying flat): ε^(5/12), 3e-7 in f64. Below it the tree leaves
    /// the row out (`tree::loops`) and the Cartesian projection does not choose it
    /// (`RigidSystem::choose_redundant_rows`): kept, its round-off over θ made the energy jump at
    /// the pose grow as the step shrank.
    pub(crate) fn degenerate_row_bound() -> R {
        (Self::chosen_row_bound() * R::EPSILON.sqrt()).sqrt()
    }

    /// The least part of its diagonal entry a constraint row keeps to be chosen as independent:
    /// ε^⅓, in the tree's loop rows and the Cartesian model's alike.
    pub(crate) fn chosen_row_bound() -> R {
        R::EPSILON_TWO_THIRDS.sqrt()
    }

    /// The least part a chosen row keeps for the choice to be held rather than made again: ε^¼.
    pub(crate) fn held_row_bound() -> R {
        R::EPSILON.sqrt().sqrt()
    }

    /// Whether a position projection whose largest |Φ| went from `previous` to `residual` in
    /// its last Newton correction has converged: at the tolerance, or stalled (no longer
    /// halving) within 100× the tolerance. Where the rows kept and a row left out meet at a
    /// tangent (a spatial loop passing a folded pose, a parallelogram lying flat, where Φ_q
    /// itself loses rank), that row's |Φ| of a few 10⁻¹² stays whatever rows are kept: the
    /// projection has gone as far as the rows' conditioning lets it.
    pub fn projection_converged(&self, residual: R, previous: R) -> bool {
        let stalled = residual > previous * R::HALF;
        residual <= self.projection_tolerance
            || (stalled && residual <= self.projection_tolerance * R::from_f64(100.0))
    }
}

/// Number of stored entries of the skyline profile of Φ_q M⁻¹ Φ_qᵀ for these joints (in the
/// given order): the `SKYLINE` capacity a model needs. Joints declared along a chain keep it
/// small (about rows × 2·rows-per-joint). Without storage for a list per body this takes time
/// quadratic in the joints; [`skyline_entries_in`] takes linear time.
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

/// [`skyline_entries`] in time linear in the joints, with `first_at` as scratch: one entry per
/// body (at least as many as the joints' body indices reach), overwritten. The joints may be
/// any iterator over them (a host reads them from its scene's items without copying them).
pub fn skyline_entries_in<'a, R: Real + 'a>(
    joints: impl IntoIterator<Item = &'a Joint<R>>,
    first_at: &mut [usize],
) -> usize {
    let (mut entries, mut start) = (0, 0);
    // first_at[b]: the first row of the first joint at body b (the earliest joint coupled to a
    // later one through b starts there).
    for slot in first_at.iter_mut() {
        *slot = usize::MAX;
    }
    let mut starts_at = |b: usize, start: usize| {
        first_at.get_mut(b).map(|at| {
            if *at == usize::MAX {
                *at = start;
            }
            *at
        })
    };
    for joint in joints {
        let mut first = start;
        for side in [joint.body_i, joint.body_j] {
            if let BodyRef::Body(b) = side {
                first = first.min(starts_at(b, start).unwrap_or(start));
            }
        }
        let n = joint.kind.rows();
        // Rows start..start+n of the joint each store columns first..=row.
        entries += (start..start + n).map(|r| r - first + 1).sum::<usize>();
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

/// The immutable description of a rigid multibody system, its items kept in `St`.
pub struct Model<R: Real, St: Storage> {
    pub(crate) gravity: Vec3<R>,
    pub(crate) bodies: St::Bodies<Body<R>>,
    pub(crate) mass: St::Bodies<MassProperties<R>>,
    pub(crate) joints: St::Joints<Joint<R>>,
    /// The drives' time functions, each named by a [`FunctionId`] (its index here): kept out of
    /// the joints so that every joint stays small (a time function is about half a kilobyte,
    /// and drives are rare). The joints' capacity: at most one per driving joint is needed.
    pub(crate) functions: St::Joints<TimeFunction<R>>,
    pub(crate) joint_start: St::Joints<usize>,
    /// Earliest joint coupled to each joint through a shared body (bounds its profile).
    pub(crate) joint_first: St::Joints<usize>,
    pub(crate) forces: St::Forces<Force<R>>,
    pub(crate) row_count: usize,
    /// Skyline profile: first stored column and diagonal position of each row (see `skyline`).
    pub(crate) first: St::Rows<usize>,
    pub(crate) diag: St::Rows<usize>,
    pub(crate) row_joint: St::Rows<usize>,
    pub(crate) skyline_entries: usize,
    pub(crate) stabilization: Stabilization<R>,
    /// Whether a joint closes a loop: only then can constraint rows be redundant.
    pub(crate) closes_loop: bool,
}

impl<R: Real, St: Storage> Clone for Model<R, St> {
    fn clone(&self) -> Self {
        Self {
            gravity: self.gravity,
            bodies: self.bodies.clone(),
            mass: self.mass.clone(),
            joints: self.joints.clone(),
            functions: self.functions.clone(),
            joint_start: self.joint_start.clone(),
            joint_first: self.joint_first.clone(),
            forces: self.forces.clone(),
            row_count: self.row_count,
            first: self.first.clone(),
            diag: self.diag.clone(),
            row_joint: self.row_joint.clone(),
            skyline_entries: self.skyline_entries,
            stabilization: self.stabilization,
            closes_loop: self.closes_loop,
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Model<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Model")
            .field("gravity", &self.gravity)
            .field("bodies", &&*self.bodies)
            .field("joints", &&*self.joints)
            .field("functions", &&*self.functions)
            .field("forces", &&*self.forces)
            .field("constraint_rows", &self.row_count)
            .field("stabilization", &self.stabilization)
            .finish()
    }
}

/// A borrowed, capacity-free view of a model: the algorithms work on slices, so their code is
/// not duplicated for every model shape.
#[derive(Clone, Copy)]
pub(crate) struct ModelView<'a, R> {
    pub gravity: Vec3<R>,
    pub bodies: &'a [Body<R>],
    pub mass: &'a [MassProperties<R>],
    pub joints: &'a [Joint<R>],
    pub functions: &'a [TimeFunction<R>],
    pub joint_start: &'a [usize],
    pub joint_first: &'a [usize],
    pub forces: &'a [Force<R>],
    pub layout: SkylineLayout<'a>,
    pub row_joint: &'a [usize],
    pub stabilization: &'a Stabilization<R>,
    pub closes_loop: bool,
}

impl<'a, R: Real> ModelView<'a, R> {
    /// Every joint with its index, its two sides and its range of constraint rows.
    pub fn joint_rows(&self) -> impl Iterator<Item = (usize, [BodyRef; 2], core::ops::Range<usize>)> + 'a {
        self.joint_rows_in(0..self.joints.len())
    }
    /// [`ModelView::joint_rows`] of the joints in `joints` (none if out of range), reached
    /// directly: skipping to them would cost a step per joint skipped.
    pub fn joint_rows_in(
        &self,
        joints: core::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, [BodyRef; 2], core::ops::Range<usize>)> + 'a {
        let first = joints.start;
        let list = self.joints.get(joints.clone()).unwrap_or_default();
        let starts = self.joint_start.get(joints).unwrap_or_default();
        list.iter()
            .zip(starts)
            .enumerate()
            .map(move |(k, (j, &start))| (first + k, [j.body_i, j.body_j], start..start + j.kind.rows()))
    }
}

impl<R: Real, St: Storage> Model<R, St> {
    /// Starts a builder with gravity `g` (global, m/s²).
    pub fn builder(gravity: Vec3<R>) -> Builder<R, St> {
        Builder {
            model: Model {
                gravity,
                bodies: List::empty(),
                mass: List::empty(),
                joints: List::empty(),
                functions: List::empty(),
                joint_start: List::empty(),
                joint_first: List::empty(),
                forces: List::empty(),
                row_count: 0,
                first: List::empty(),
                diag: List::empty(),
                row_joint: List::empty(),
                skyline_entries: 0,
                stabilization: Stabilization::default(),
                closes_loop: false,
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
    /// The drives' time functions, in the order added: [`FunctionId`]`(k)` is the k-th.
    pub fn functions(&self) -> &[TimeFunction<R>] {
        &self.functions
    }
    /// The force elements, in the order added.
    pub fn forces(&self) -> &[Force<R>] {
        &self.forces
    }
    /// Replaces force element `index` with `force` between steps: the run-time input of a
    /// hardware-in-the-loop rig (e.g. the actuator torque read each period). The new element is
    /// checked as [`Builder::add_force`] checks it; an unknown index or an invalid element
    /// is an error and leaves the model unchanged. Never allocates.
    pub fn set_force(&mut self, index: usize, force: Force<R>) -> Result<(), BuildError> {
        force.validate(index, &self.joints, self.bodies.len())?;
        let slot = self.forces.get_mut(index).ok_or(BuildError::InvalidParameter {
            item: Item::Force(index),
            reason: "no force element with this index",
        })?;
        *slot = force;
        Ok(())
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
    /// Stored entries of the constraint-matrix profile (the `SKYLINE` capacity this model needs).
    pub fn skyline_entries(&self) -> usize {
        self.skyline_entries
    }
    /// Whether the joints close a loop (only then can constraint rows be redundant).
    pub fn closes_loop(&self) -> bool {
        self.closes_loop
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
            functions: &self.functions,
            joint_start: &self.joint_start,
            joint_first: &self.joint_first,
            forces: &self.forces,
            layout: SkylineLayout {
                first: &self.first[..n],
                diag: &self.diag[..n],
            },
            row_joint: &self.row_joint[..n],
            stabilization: &self.stabilization,
            closes_loop: self.closes_loop,
        }
    }
}

/// Builds a [`Model`], checking every item as it is added.
pub struct Builder<R: Real, St: Storage> {
    model: Model<R, St>,
}

impl<R: Real, St: Storage> Builder<R, St> {
    /// Makes room for `bodies`, `joints` and `forces` more items where the lists grow (a
    /// fixed list has its room): a model of a million bodies is then not copied twenty times
    /// over as it grows.
    pub fn reserve(&mut self, bodies: usize, joints: usize, forces: usize) {
        let m = &mut self.model;
        m.bodies.reserve(bodies);
        m.mass.reserve(bodies);
        m.joints.reserve(joints);
        m.joint_start.reserve(joints);
        m.forces.reserve(forces);
    }

    /// Adds a body; returns its reference.
    pub fn add_body(&mut self, body: Body<R>) -> Result<BodyRef, BuildError> {
        let m = &mut self.model;
        let index = m.bodies.len();
        body.validate(index)?;
        let mass = MassProperties::of(&body).ok_or(BuildError::InertiaNotPositiveDefinite { body: index })?;
        let full = full::<_, St::Bodies<Body<R>>>(Capacity::Bodies, index + 1);
        m.bodies.try_push(body).map_err(|_| full)?;
        m.mass.try_push(mass).map_err(|_| full)?;
        Ok(BodyRef::Body(index))
    }

    /// Adds a time function for driving joints to name; returns its id. Checked by the
    /// joints that name it ([`Builder::add_joint`]). The list has the joints' capacity.
    pub fn add_function(&mut self, function: TimeFunction<R>) -> Result<FunctionId, BuildError> {
        let m = &mut self.model;
        let index = m.functions.len();
        m.functions
            .try_push(function)
            .map_err(|_| full::<_, St::Joints<TimeFunction<R>>>(Capacity::Joints, index + 1))?;
        Ok(FunctionId(index))
    }

    /// Adds a joint; returns its index. A driving joint's function must have been added
    /// ([`Builder::add_function`]) and is checked here (errors name the joint).
    pub fn add_joint(&mut self, joint: Joint<R>) -> Result<usize, BuildError> {
        let m = &mut self.model;
        let index = m.joints.len();
        joint.validate(index, m.bodies.len())?;
        if let JointKind::Driving { function, .. } = joint.kind {
            let item = Item::Joint(index);
            let f = m
                .functions
                .get(function.index())
                .ok_or(BuildError::InvalidParameter {
                    item,
                    reason: "no time function with this id (Builder::add_function)",
                })?;
            f.validate(item)?;
        }
        let rows = m.row_count + joint.kind.rows();
        if rows > St::Rows::<usize>::capacity() {
            return Err(full::<_, St::Rows<usize>>(Capacity::ConstraintRows, rows));
        }
        let full = full::<_, St::Joints<usize>>(Capacity::Joints, index + 1);
        m.joints.try_push(joint).map_err(|_| full)?;
        m.joint_start.try_push(m.row_count).map_err(|_| full)?;
        m.row_count = rows;
        Ok(index)
    }

    /// Adds a force element; returns its index.
    pub fn add_force(&mut self, force: Force<R>) -> Result<usize, BuildError> {
        let m = &mut self.model;
        let index = m.forces.len();
        force.validate(index, &m.joints, m.bodies.len())?;
        m.forces
            .try_push(force)
            .map_err(|_| full::<_, St::Forces<Force<R>>>(Capacity::Forces, index + 1))?;
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
    pub fn build(mut self) -> Result<Model<R, St>, BuildError> {
        self.build_in_place()?;
        Ok(self.model)
    }

    /// [`Builder::build`] without moving the model out: it is finished where the builder is
    /// (a `static` on a microcontroller, so that the model never passes through the stack) and
    /// borrowed from there. Adding items afterwards and building again is allowed.
    pub fn build_in_place(&mut self) -> Result<&Model<R, St>, BuildError> {
        let m = &mut self.model;
        if !m.gravity.is_finite() {
            return Err(BuildError::NonFinite { item: Item::Ground });
        }
        // Laid out afresh on every build.
        m.joint_first.clear();
        for list in [&mut m.first, &mut m.diag, &mut m.row_joint] {
            list.clear();
        }
        // The earliest joint coupled to each joint, in one pass (as `first_coupled` finds it
        // for one joint): the first joint at each body, met in joint order. Cannot fail: the
        // list has the joints' capacity.
        let mut first_at: St::Bodies<usize> = sized(m.bodies.len(), usize::MAX);
        for (a, joint) in m.joints.iter().enumerate() {
            let mut first_joint = a;
            for side in [joint.body_i, joint.body_j] {
                if let BodyRef::Body(b) = side {
                    if let Some(at) = first_at.get_mut(b) {
                        *at = (*at).min(a);
                        first_joint = first_joint.min(*at);
                    }
                }
            }
            let _ = m.joint_first.try_push(first_joint);
        }
        let first_row = |a: usize| {
            let first_joint = m.joint_first.get(a).copied().unwrap_or(a);
            m.joint_start.get(first_joint).copied().unwrap_or(0)
        };
        // Rows start..start+n of joint a each store columns first..=row (`skyline_entries`).
        let needed: usize = (m.joints.iter().zip(m.joint_start.iter()).enumerate())
            .map(|(a, (joint, &start))| {
                let (first, n) = (first_row(a), joint.kind.rows());
                (start..start + n).map(|r| r - first + 1).sum::<usize>()
            })
            .sum();
        if needed > St::Skyline::<R>::capacity() {
            return Err(full::<_, St::Skyline<R>>(Capacity::SkylineEntries, needed));
        }
        m.skyline_entries = needed;
        m.closes_loop = closes_loop::<R, St>(m.bodies.len(), &m.joints);
        let mut next = 0;
        for (a, (joint, &start)) in m.joints.iter().zip(m.joint_start.iter()).enumerate() {
            let first = first_row(a);
            // Cannot fail: these lists have the capacity of rows checked above.
            for _ in start..start + joint.kind.rows() {
                let r = m.first.len();
                let _ = m.first.try_push(first);
                let _ = m.row_joint.try_push(a);
                next += r - first;
                let _ = m.diag.try_push(next);
                next += 1;
            }
        }
        Ok(&self.model)
    }
}

/// Whether a joint joins two sides already joined through the joints before it (the ground
/// one node): a closed loop, whose rows may be redundant. Union–find over the bodies.
fn closes_loop<R: Real, St: Storage>(bodies: usize, joints: &[Joint<R>]) -> bool {
    let mut parent: St::Bodies<usize> = sized(bodies, 0);
    for (b, p) in parent.iter_mut().enumerate() {
        *p = b;
    }
    // The ground is node `bodies`, past the list: its own root. Path halving (each node
    // visited points to its grandparent) keeps the trees shallow: n joints in any order take
    // time about linear in n.
    let root = |parent: &mut [usize], mut x: usize| {
        while let Some(&p) = parent.get(x).filter(|&&p| p != x) {
            let grandparent = parent.get(p).copied().unwrap_or(p);
            if let Some(slot) = parent.get_mut(x) {
                *slot = grandparent;
            }
            x = p;
        }
        x
    };
    let node = |side: BodyRef| match side {
        BodyRef::Body(b) => b,
        BodyRef::Ground => bodies,
    };
    for joint in joints {
        let (a, b) = (
            root(&mut parent, node(joint.body_i)),
            root(&mut parent, node(joint.body_j)),
        );
        if a == b {
            return true;
        }
        let (child, to) = if a == bodies { (b, a) } else { (a, b) };
        if let Some(p) = parent.get_mut(child) {
            *p = to;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{revolute_chain, ChainSpec};
    use crate::Fixed;

    #[test]
    fn skyline_entries_in_linear_time_equal_the_scan_and_the_built_layout() {
        // Reference: `skyline_entries`, which scans back from every joint (quadratic).
        type Chain = Fixed<6, 6, 0, 30, { ChainSpec::<f64>::skyline_entries(6) }>;
        let model: Model<f64, Chain> = revolute_chain(&ChainSpec::standard(6)).unwrap();
        let joints: heapless::Vec<Joint<f64>, 6> = model.joints().iter().copied().collect();
        let mut reversed = joints.clone();
        reversed.reverse();
        let mut scratch = [0; 6];
        for order in [&joints[..], &reversed[..], &joints[..3]] {
            assert_eq!(skyline_entries_in(order, &mut scratch), skyline_entries(order));
        }
        assert_eq!(skyline_entries_in(&joints, &mut scratch), model.skyline_entries());
        // Scrambled, joints couple back past their neighbours: a wider profile, counted alike.
        let scrambled: heapless::Vec<Joint<f64>, 6> = [0, 5, 1, 4, 2, 3].iter().map(|&k| joints[k]).collect();
        assert_eq!(
            skyline_entries_in(&scrambled, &mut scratch),
            skyline_entries(&scrambled)
        );
        assert!(skyline_entries(&scrambled) > model.skyline_entries());
    }
}
