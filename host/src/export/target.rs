//! What an exported scene needs on a microcontroller (`ferrodyn check --target`): capacities,
//! model and data bytes, stack and instructions per step, for the cores the firmware runs on.
//!
//! Bytes are exact for the kernel's tree on 32-bit Cortex-M (`size_of_val` of the exported
//! models under QEMU grows by a fixed amount per link; `.ci/firmware` checks these figures
//! against the firmware's `SIZE` lines). Stack and instructions are estimates fitted to scenes
//! measured under QEMU (docs/firmware.md): the stack bound covers every measured scene. The
//! instruction count takes one line for planar trees (the planar algorithm: hil_arm, servo_arm,
//! chain5, within 0.5 %) and a price per link for the others ([`LinkMix`]): a revolute link,
//! and what a prismatic or multi-DOF joint adds; in soft-float f64 on the Cortex-M4F also what
//! each link's data keeps the 3-D algorithm from skipping (a skew axis, origin or CG, a general
//! inertia), each measured on a 3-link calibration scene that differs from an aligned one in
//! that alone (`firmware-examples/tools/calibration_chains.py` writes them). The prices hold
//! for motion in all three dimensions; a 3-D tree that starts and stays in one coordinate plane
//! ([`moves_in_a_coordinate_plane`]) keeps exact zeros, on which soft-float arithmetic returns
//! early: its soft-float price takes the ratio measured on a calibration chain in plane motion.

use ferrodyn_kernel::tree::{Along, Data, InertiaShape, LinkShape, Model, MultiJoint, TreeJoint};
use ferrodyn_kernel::Storage;

use crate::spec::IntegratorSpec;
use ferrodyn_kernel::integrators::Method;

/// A core the firmware runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Core {
    /// Cortex-M4F: single-precision FPU, f64 in software (STM32F4, 168 MHz).
    CortexM4F,
    /// Cortex-M7 with a double-precision FPU (STM32F7, 216 MHz).
    CortexM7,
}

impl Core {
    /// The core called `name` (`cortex-m4f`, `cortex-m7`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cortex-m4f" => Some(Self::CortexM4F),
            "cortex-m7" => Some(Self::CortexM7),
            _ => None,
        }
    }
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::CortexM4F => "cortex-m4f",
            Self::CortexM7 => "cortex-m7",
        }
    }
    /// The clock of the part it is measured for (Hz).
    pub fn clock_hz(self) -> f64 {
        match self {
            Self::CortexM4F => 168e6,
            Self::CortexM7 => 216e6,
        }
    }
}

/// The needs of a tree of `links` links in one precision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeNeeds {
    /// `size_of_val` of the model (B).
    pub model_bytes: usize,
    /// `size_of_val` of the data (B).
    pub data_bytes: usize,
    /// Peak stack of building and stepping it (B, an upper estimate).
    pub stack_bytes: usize,
    /// Executed instructions per step (estimate), `None` for an integrator a firmware does not
    /// step with.
    pub instructions: Option<f64>,
}

/// Fixed bytes, bytes per slot, and bytes per slot packed in 8-byte groups of a tree's model
/// and data, f32 and f64 (`size_of` on thumbv7em for 1 to 8 slots, exactly: the test below;
/// the total is rounded up to the scalar's alignment, which an f64 model of an even number of
/// slots needs). A link holds its `tree::Servo`: 12 B in f32, 24 B in f64, its spring
/// (stiffness and rest: 8 B in f32, 16 B in f64), its optional limit (`Option<JointLimit>`),
/// its 4-byte shape and its planar constants,
/// 32 B in f32, 64 B in f64; the data a planar workspace per link, 124 B in f32, 248 B in f64,
/// whether the tree is planar or not: the capacity is fixed, and a tendon force per link. The
/// fixed part holds the (empty) loop-joint, coordinate-row and tendon lists and the projection
/// settings of the model and the data's loop rows.
const MODEL_BYTES: [(usize, usize, usize); 2] = [(108, 180, 0), (204, 348, 0)];
const DATA_BYTES: [(usize, usize, usize); 2] = [(136, 608, 0), (224, 1216, 0)];
/// Stack of building the tree in place and stepping it: the 1-link figure and the steepest
/// measured growth per slot (f32, f64), from the exported scenes on the Cortex-M4F (hil_arm and
/// servo_arm 1 slot, skew_tree 3, chain5 5, the ball-jointed arm 5: docs/firmware.md).
const STACK_BYTES: [(usize, usize); 2] = [(1_564, 769), (2_204, 1_499)];

/// What a tree is made of, as far as its price per step goes: the links by joint and by what
/// their constant data lets the 3-D algorithm skip ([`LinkShape`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkMix {
    /// Links (one per joint, a floating base included).
    pub links: usize,
    /// Links on a prismatic joint.
    pub prismatic: usize,
    /// Links on a spherical joint.
    pub spherical: usize,
    /// Links on a universal joint.
    pub universal: usize,
    /// Links on a cylindrical joint.
    pub cylindrical: usize,
    /// Floating bases (free joints).
    pub free: usize,
    /// Joint axes along no frame axis.
    pub skew_axes: usize,
    /// Joint origins (in the parent's frame) along no frame axis.
    pub skew_origins: usize,
    /// CGs (in the link's frame) along no frame axis.
    pub skew_cgs: usize,
    /// Inertias with products of inertia.
    pub general_inertias: usize,
    /// Inertias with two equal principal moments.
    pub symmetric_inertias: usize,
}

impl LinkMix {
    /// The mix of `model`'s links.
    pub fn of<St: Storage>(model: &Model<f64, St>) -> Self {
        let mut mix = Self::default();
        for (link, shape) in model.links().iter().zip(model.shapes()) {
            mix.add(link.joint, link.multi, shape);
        }
        mix
    }

    /// Counts one link on `joint` (`multi` for a multi-DOF joint) of `shape`.
    pub fn add(&mut self, joint: TreeJoint, multi: Option<MultiJoint>, shape: &LinkShape) {
        self.links += 1;
        match (multi, joint) {
            (Some(MultiJoint::Spherical), _) => self.spherical += 1,
            (Some(MultiJoint::Universal), _) => self.universal += 1,
            (Some(MultiJoint::Cylindrical), _) => self.cylindrical += 1,
            (Some(MultiJoint::Free), _) => self.free += 1,
            (None, TreeJoint::Prismatic) => self.prismatic += 1,
            (None, TreeJoint::Revolute) => {}
        }
        let skew = |along: Along| usize::from(along == Along::Skew);
        self.skew_axes += skew(shape.axis);
        self.skew_origins += skew(shape.origin);
        self.skew_cgs += skew(shape.cg);
        match shape.inertia {
            InertiaShape::General => self.general_inertias += 1,
            InertiaShape::Symmetric(_) => self.symmetric_inertias += 1,
            InertiaShape::Principal => {}
        }
    }
}

/// Soft-float RK4 instructions of a 3-D tree moving in a coordinate plane over those of the same
/// tree moving in 3-D: the aligned 3-link calibration chain started at rest under gravity
/// across its hinges (371,628 instructions on the Cortex-M4F in f64) against the same chain
/// moving in 3-D (450,167).
const PLANE_MOTION_SOFT_FLOAT: f64 = 371_628.0 / 450_167.0;

/// Whether the 3-D tree `model`, started from `data` with no force elements, contact or inputs
/// out of the plane, moves in a coordinate plane through the world origin: its mirror image
/// across that plane is itself, so the components across the plane stay exact zeros. True when,
/// for one axis k, gravity has no k component; every hinge turns about ±e_k and every slide
/// moves across it; spherical joints start turned about e_k and spin about it; every joint
/// origin and CG has no k component and every inertia has e_k as a principal axis. (Link
/// frames are parallel to their parent's at zero coordinates, so all are turned about e_k.)
/// Other multi-DOF joints, and universal joints' second axes, are not looked at: false.
pub fn moves_in_a_coordinate_plane<St: Storage>(model: &Model<f64, St>, data: &Data<f64, St>) -> bool {
    let (positions, velocities) = (data.positions(), data.velocities());
    (0..3).any(|k| {
        let across = |v: [f64; 3]| v[k] == 0.0;
        let (mut q, mut v) = (0, 0);
        across(model.gravity().to_array())
            && model.links().iter().all(|link| {
                let (nq, nv) = (link.position_count(), link.velocity_count());
                let (lq, lv) = (&positions[q..q + nq], &velocities[v..v + nv]);
                (q, v) = (q + nq, v + nv);
                let axis = link.axis.to_array();
                let joint = match (link.multi, link.joint) {
                    (None, TreeJoint::Revolute) => (0..3).all(|j| j == k || axis[j] == 0.0),
                    (None, TreeJoint::Prismatic) => across(axis),
                    // Quaternion w x y z and the angular velocity: about e_k only.
                    (Some(MultiJoint::Spherical), _) => {
                        (0..3).all(|j| j == k || (lq[1 + j] == 0.0 && lv[j] == 0.0))
                    }
                    _ => false,
                };
                let inertia = link.inertia.m;
                joint
                    && across(link.origin.to_array())
                    && across(link.cg.to_array())
                    && (0..3).all(|j| j == k || (inertia[k][j] == 0.0 && inertia[j][k] == 0.0))
            })
    })
}

/// How a tree moves, as far as its price goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// It takes the planar algorithm (`tree::Model::is_planar`).
    PlanarTree,
    /// A 3-D tree that moves in a coordinate plane ([`moves_in_a_coordinate_plane`]).
    InCoordinatePlane,
    /// Anything else.
    Spatial,
}

impl Motion {
    /// How `model` moves from `data`.
    pub fn of<St: Storage>(model: &Model<f64, St>, data: &Data<f64, St>) -> Self {
        match (model.is_planar(), moves_in_a_coordinate_plane(model, data)) {
            (true, _) => Self::PlanarTree,
            (false, true) => Self::InCoordinatePlane,
            (false, false) => Self::Spatial,
        }
    }
}

/// What a tree of `dof` degrees of freedom in `Fixed<slots>`, its links `mix`, moving as
/// `motion`, needs on `core` in f32 (`double` false) or f64, stepped by `integrator`.
pub fn tree_needs(
    core: Core,
    slots: usize,
    dof: usize,
    motion: Motion,
    mix: &LinkMix,
    double: bool,
    integrator: &IntegratorSpec,
) -> TreeNeeds {
    let p = usize::from(double);
    // A struct's size is a multiple of its alignment: the scalar's (8 B for f64 on thumbv7em).
    let align = if double { 8 } else { 4 };
    let line = |(fixed, per_slot, grouped): (usize, usize, usize)| {
        (fixed + per_slot * slots + (grouped * slots).next_multiple_of(8)).next_multiple_of(align)
    };
    let soft_float = double && core == Core::CortexM4F;
    let rk4 = match motion {
        Motion::PlanarTree => planar_rk4_instructions(core, double, dof),
        Motion::InCoordinatePlane if soft_float => {
            Prices::of(core, double).rk4(mix) * PLANE_MOTION_SOFT_FLOAT
        }
        _ => Prices::of(core, double).rk4(mix),
    };
    // One derivative evaluation instead of RK4's four: the 5-link chain's ratio.
    let one_evaluation = if motion == Motion::PlanarTree {
        0.287
    } else {
        0.259
    };
    let factor = match integrator {
        IntegratorSpec::Explicit(Method::Rk4) => Some(1.0),
        IntegratorSpec::Explicit(Method::SemiImplicitEuler) => Some(one_evaluation),
        // Two evaluations a step (at t and at t + h: `integrators::VelocityVerlet`).
        IntegratorSpec::Explicit(Method::VelocityVerlet) => Some(2.0 * one_evaluation),
        _ => None,
    };
    TreeNeeds {
        model_bytes: line(MODEL_BYTES[p]),
        data_bytes: line(DATA_BYTES[p]),
        stack_bytes: STACK_BYTES[p].0 + STACK_BYTES[p].1 * slots.saturating_sub(1),
        instructions: factor.map(|f| f * rk4.max(0.0)),
    }
}

/// RK4 instructions per step of a planar tree: least-squares lines through the exported
/// hil_arm, servo_arm (1 DOF) and chain5 (5 DOF).
fn planar_rk4_instructions(core: Core, double: bool, dof: usize) -> f64 {
    let (fixed, per_dof) = match (core, double) {
        (Core::CortexM4F, false) => (970.75, 1_635.25),
        (Core::CortexM4F, true) => (-25_201.0, 71_750.0),
        (Core::CortexM7, false) => (961.75, 1_629.25),
        (Core::CortexM7, true) => (980.9, 1_709.6),
    };
    fixed + per_dof * dof as f64
}

/// RK4 instructions per step of a tree that is not planar, per link by what it is
/// (`LinkMix`): a fixed part, a revolute link, and what each other joint or shape adds to it.
#[derive(Clone, Copy, Debug)]
struct Prices {
    fixed: f64,
    link: f64,
    prismatic: f64,
    spherical: f64,
    universal: f64,
    cylindrical: f64,
    free: f64,
    skew_axis: f64,
    skew_origin: f64,
    skew_cg: f64,
    general_inertia: f64,
    symmetric_inertia: f64,
}

impl Prices {
    /// The prices on `core` in f32 or f64 (`double`).
    /// - Fixed part and revolute link: on the FPU cores (f32, and f64 on the M7) the lines
    ///   fitted to hil_arm, servo_arm, skew_tree and chain5 when all of them took the 3-D
    ///   algorithm (at e75761b); in soft-float f64 on the M4F, the line through the aligned
    ///   3- and 6-link calibration chains moving in 3-D (450,167 and 1,053,085 measured).
    /// - A spherical, universal, cylindrical or free joint: its 3-link calibration chain with
    ///   that joint at the root, less the aligned revolute chain (measured per core).
    /// - The shapes, in soft-float f64 only (each a few dozen flops an evaluation, about 60
    ///   instructions each there, one or two on an FPU: within the FPU lines' spread).
    fn of(core: Core, double: bool) -> Self {
        let fpu = |fixed, link, multi: [f64; 4]| Self {
            fixed,
            link,
            prismatic: 0.0,
            spherical: multi[0],
            universal: multi[1],
            cylindrical: multi[2],
            free: multi[3],
            skew_axis: 0.0,
            skew_origin: 0.0,
            skew_cg: 0.0,
            general_inertia: 0.0,
            symmetric_inertia: 0.0,
        };
        match (core, double) {
            (Core::CortexM4F, false) => fpu(222.0, 3_425.0, MULTI[0]),
            (Core::CortexM7, false) => fpu(206.0, 3_430.0, MULTI[2]),
            (Core::CortexM7, true) => fpu(81.0, 4_019.0, MULTI[3]),
            (Core::CortexM4F, true) => Self {
                fixed: -152_749.0,
                link: 200_973.0,
                prismatic: -63_996.0,
                spherical: MULTI[1][0],
                universal: MULTI[1][1],
                cylindrical: MULTI[1][2],
                free: MULTI[1][3],
                skew_axis: 31_682.0,
                skew_origin: 15_332.0,
                skew_cg: 7_078.0,
                general_inertia: 10_379.0,
                symmetric_inertia: -9_678.0,
            },
        }
    }

    /// The RK4 step of a tree of `mix`.
    fn rk4(&self, mix: &LinkMix) -> f64 {
        let n = |count: usize| count as f64;
        self.fixed
            + self.link * n(mix.links)
            + self.prismatic * n(mix.prismatic)
            + self.spherical * n(mix.spherical)
            + self.universal * n(mix.universal)
            + self.cylindrical * n(mix.cylindrical)
            + self.free * n(mix.free)
            + self.skew_axis * n(mix.skew_axes)
            + self.skew_origin * n(mix.skew_origins)
            + self.skew_cg * n(mix.skew_cgs)
            + self.general_inertia * n(mix.general_inertias)
            + self.symmetric_inertia * n(mix.symmetric_inertias)
    }
}

/// Evaluations of the dynamics a step of `integrator` takes (RK4 4, semi-implicit Euler 1,
/// velocity Verlet 2); `None` for an integrator a firmware does not step with.
fn evaluations(integrator: &IntegratorSpec) -> Option<f64> {
    match integrator {
        IntegratorSpec::Explicit(Method::Rk4) => Some(4.0),
        IntegratorSpec::Explicit(Method::SemiImplicitEuler) => Some(1.0),
        IntegratorSpec::Explicit(Method::VelocityVerlet) => Some(2.0),
        _ => None,
    }
}

/// Instructions per step of `pairs` shape–ground contact pairs (`kernel::contact`) on `core`:
/// each evaluation of the dynamics evaluates every pair (its geometry, Hertz–Flores–Coulomb law
/// and wrench on the link) and the tree hands the links' states to the contacts and takes their
/// wrenches back; the accepted state is evaluated once more (v₀). RK4 evaluates 4 + 1 times a
/// step, semi-implicit Euler 1 + 1, velocity Verlet 2 + 1. The price of one pair evaluation
/// (with its share of the loads) is measured on scenes/hopper.toml (1 pair, 2 links: its
/// instructions under QEMU less the tree's estimate, over 5 evaluations); `None` for an
/// integrator a firmware does not step with.
pub fn contact_instructions(
    core: Core,
    double: bool,
    pairs: usize,
    integrator: &IntegratorSpec,
) -> Option<f64> {
    let evaluations = evaluations(integrator)? + 1.0;
    let per_pair = match (core, double) {
        (Core::CortexM4F, false) => 1_167.0,
        (Core::CortexM4F, true) => 18_598.0,
        (Core::CortexM7, false) => 1_149.0,
        (Core::CortexM7, true) => 1_791.0,
    };
    Some(evaluations * per_pair * pairs as f64)
}

/// A tree's loops, coordinate rows (drives, couplings) and force elements, as its export
/// writes them (`export::tree_loops`, `export::tree_rows`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopsAndForces {
    /// Joints closing loops.
    pub joints: usize,
    /// Constraint rows m: the loop rows and one per drive and coupling (coordinate rows, solved
    /// and projected with the loop rows, so priced as they are).
    pub rows: usize,
    /// Reals of the dense loop matrices (`tree::Model::loop_workspace`).
    pub workspace: usize,
    /// Force elements (spring-dampers, point forces, torques).
    pub forces: usize,
}

/// `needs` of a tree of `dof` degrees of freedom ([`tree_needs`]) with its
/// loops and force elements `extra` added: their bytes (exact, `size_of` on thumbv7em) and their
/// instructions per step (`loop_instructions`); `needs` itself for a tree without either.
pub fn with_loops_and_forces(
    needs: TreeNeeds,
    core: Core,
    dof: usize,
    double: bool,
    extra: LoopsAndForces,
    integrator: &IntegratorSpec,
) -> TreeNeeds {
    if extra == LoopsAndForces::default() {
        return needs;
    }
    // A loop joint is a `rigid::Joint` in the model's loop list: 384 B in f32, 752 B in f64.
    // The data's loop rows: per row a `ConstraintRow` (60 / 120 B), its multiplier and its
    // pivot order (a usize); the dense matrices one real each; the lists' lengths (each
    // padded to the real's alignment), the rank and the held flag: 21 / 33 B; in a struct of
    // its own, rounded to its alignment (4 / 8 B: 24 / 40 B without loops); the data is
    // 8-aligned (its u64 step count).
    let (joint, row, real, fixed): (usize, usize, usize, usize) = match double {
        false => (384, 60, 4, 21),
        true => (752, 120, 8, 33),
    };
    let (m, s) = (extra.rows, extra.workspace);
    let empty = fixed.next_multiple_of(real);
    let loop_data = (fixed + m * (row + real + 4) + s * real).next_multiple_of(real);
    let data_bytes = (needs.data_bytes + loop_data - empty).next_multiple_of(8);
    // The model's coordinate-row list has the loop rows' capacity too (`tree::CoordinateRow`:
    // 296 B in f32, 576 B in f64, each), and its tendon list the forces capacity
    // (`tree::Tendon`: 300 B in f32, 472 B in f64, each).
    let (coordinate_row, tendon) = if double { (576, 472) } else { (296, 300) };
    let model_bytes =
        needs.model_bytes + extra.joints * joint + extra.rows * coordinate_row + extra.forces * tendon;
    // Stack: the loop rows' evaluation and projection frames, the four-bar's measured growth
    // over the loop-free bound on the Cortex-M4F (f32 +1,274 B, f64 +3,974 B; the M7 takes
    // less), rounded up; and the force elements the firmware keeps on its stack
    // (a `rigid::Force` each: 300 B in f32, 592 B in f64).
    let loop_stack = match (extra.rows, double) {
        (0, _) => 0,
        (_, false) => 1_400,
        (_, true) => 4_200,
    };
    let force_stack = extra.forces * if double { 592 } else { 300 };
    let instructions = needs
        .instructions
        .zip(evaluations(integrator))
        .map(|(base, evaluations)| base + loop_instructions(core, double, dof, extra, evaluations));
    TreeNeeds {
        model_bytes,
        data_bytes,
        stack_bytes: needs.stack_bytes + loop_stack + force_stack,
        instructions,
    }
}

/// Instructions per step a tree's loop rows and force elements add, for `evaluations`
/// evaluations of the dynamics a step. Each evaluation factors the loop rows once (kinematics,
/// the m rows from the joints' equations, the joint-space mass matrix M and its LDLᵀ, Φ_q,
/// M⁻¹Φ_qᵀ, the m × m matrix and its pivoted LDLᵀ, the multipliers), and the projection after
/// the step factors twice more (a Newton iteration on Φ and the velocities); a factorization
/// is priced by its dense multiply-adds, nv³/6 + m·nv² + m²·nv + m³/6 + m·nv. Each force
/// element is priced once per evaluation. Fitted under QEMU (docs/firmware.md) to the four-bar
/// (the rows: 3 DOF, 5 rows, of which 2 independent) and the sprung slider-crank (the same
/// rows' count and one spring-damper: its extra is priced as the element's), so a loop of
/// another size scales by the multiply-adds, which no measured scene has checked yet.
fn loop_instructions(core: Core, double: bool, nv: usize, extra: LoopsAndForces, evaluations: f64) -> f64 {
    let (nv, m) = (nv as f64, extra.rows as f64);
    let madds = nv.powi(3) / 6.0 + m * nv * nv + m * m * nv + m.powi(3) / 6.0 + m * nv;
    let (per_madd, per_force) = loop_costs(core, double);
    let factorizations = if extra.rows == 0 { 0.0 } else { evaluations + 2.0 };
    factorizations * per_madd * madds + evaluations * per_force * extra.forces as f64
}

/// Instructions per dense multiply-add of a loop factorization and per force element and
/// evaluation on `core` in f32 or f64 ([`loop_instructions`]): RK4 steps measured under QEMU
/// less the loop-free estimate of the same tree ([`rk4_instructions`]), the four-bar's over its
/// 6 × 160.3 multiply-adds, the slider-crank's extra over its 4 evaluations.
fn loop_costs(core: Core, double: bool) -> (f64, f64) {
    match (core, double) {
        (Core::CortexM4F, false) => (72.06, 2_248.0),
        (Core::CortexM4F, true) => (1_062.7, 56_398.0),
        (Core::CortexM7, false) => (72.89, 2_220.0),
        (Core::CortexM7, true) => (94.40, 3_189.0),
    }
}

/// What a spherical, universal, cylindrical or free joint adds to a revolute link's price
/// (M4F f32, M4F f64, M7 f32, M7 f64): its calibration chain less the revolute one.
const MULTI: [[f64; 4]; 4] = [
    [32_658.0, 30_683.0, 29_767.0, 44_767.0],
    [416_760.0, 296_492.0, 253_675.0, 965_725.0],
    [32_389.0, 30_395.0, 29_523.0, 44_429.0],
    [49_213.0, 46_670.0, 45_886.0, 62_621.0],
];

#[cfg(test)]
mod tests {
    use super::*;

    const RK4: IntegratorSpec = IntegratorSpec::Explicit(Method::Rk4);

    #[test]
    fn the_bytes_are_the_firmware_sizes() {
        // size_of::<tree::Model<R, Fixed<n>>>() and Data on thumbv7em-none-eabihf, n = 1..=8
        // (rustc's layout, read from a const array-length error; the 2- and 6-link scenes of
        // .ci/export_firmware print the same from the firmware).
        let measured: [(bool, [usize; 8], [usize; 8]); 2] = [
            (
                false,
                [288, 468, 648, 828, 1008, 1188, 1368, 1548],
                [744, 1352, 1960, 2568, 3176, 3784, 4392, 5000],
            ),
            (
                true,
                [552, 904, 1248, 1600, 1944, 2296, 2640, 2992],
                [1440, 2656, 3872, 5088, 6304, 7520, 8736, 9952],
            ),
        ];
        for (double, model, data) in measured {
            for n in 1..=8 {
                let needs = tree_needs(
                    Core::CortexM4F,
                    n,
                    n,
                    Motion::PlanarTree,
                    &LinkMix::default(),
                    double,
                    &RK4,
                );
                assert_eq!(
                    (needs.model_bytes, needs.data_bytes),
                    (model[n - 1], data[n - 1]),
                    "{n} slots, f64 {double}"
                );
            }
        }
    }

    #[test]
    fn the_stack_bound_covers_the_scenes_measured_on_the_cortex_m4f() {
        // (slots, f64, measured peak stack B): hil_arm, servo_arm, skew_tree, chain5, the
        // ball-jointed arm (docs/firmware.md).
        let measured = [
            (1, false, 1_564),
            (3, false, 1_504),
            (5, false, 2_044),
            (5, false, 4_640),
            (1, true, 2_204),
            (3, true, 3_148),
            (5, true, 3_268),
            (5, true, 8_200),
        ];
        for (slots, double, stack) in measured {
            let needs = tree_needs(
                Core::CortexM4F,
                slots,
                slots,
                Motion::Spatial,
                &LinkMix::default(),
                double,
                &RK4,
            );
            assert!(
                needs.stack_bytes >= stack,
                "{slots} slots, f64 {double}: {needs:?}"
            );
        }
    }

    /// The mix of the 3-link skew_tree (scenes/skew_tree.toml): hinge, rail (prismatic),
    /// wrist, all three axes skew, the rail's and the wrist's origins skew, the base's CG
    /// skew, three inertias with products.
    const SKEW_TREE: LinkMix = LinkMix {
        links: 3,
        prismatic: 1,
        spherical: 0,
        universal: 0,
        cylindrical: 0,
        free: 0,
        skew_axes: 3,
        skew_origins: 2,
        skew_cgs: 1,
        general_inertias: 3,
        symmetric_inertias: 0,
    };
    /// .ci/export_firmware's arm2: a shoulder about y, an elbow about a skew axis, two rods
    /// (two equal principal moments each).
    const ARM2: LinkMix = LinkMix {
        links: 2,
        skew_axes: 1,
        symmetric_inertias: 2,
        ..NONE
    };
    /// .ci/export_firmware's arm6: six links, the second prismatic, two skew axes.
    const ARM6: LinkMix = LinkMix {
        links: 6,
        prismatic: 1,
        skew_axes: 2,
        ..NONE
    };
    /// scenes/arm.toml (exported with --integrator rk4): a ball-jointed upper arm and a
    /// forearm on a hinge about y, both with two equal principal moments.
    const ARM: LinkMix = LinkMix {
        links: 2,
        spherical: 1,
        symmetric_inertias: 2,
        ..NONE
    };
    const NONE: LinkMix = LinkMix {
        links: 0,
        prismatic: 0,
        spherical: 0,
        universal: 0,
        cylindrical: 0,
        free: 0,
        skew_axes: 0,
        skew_origins: 0,
        skew_cgs: 0,
        general_inertias: 0,
        symmetric_inertias: 0,
    };

    #[test]
    fn every_exported_tree_is_priced_within_10_percent_of_its_qemu_count() {
        // (scene, slots, DOF, motion, mix, core, f64, instructions per RK4 step counted under
        // QEMU): `.ci/firmware` (docs/firmware.md) and `.ci/export_firmware` (arm2, arm6).
        let (m4, m7) = (Core::CortexM4F, Core::CortexM7);
        let planar = |dof| LinkMix { links: dof, ..NONE };
        let (p, s) = (Motion::PlanarTree, Motion::Spatial);
        // The ball-jointed arm swings in the x-z plane (scenes/arm.toml).
        let in_plane = Motion::InCoordinatePlane;
        let measured = [
            ("hil_arm", 1, 1, p, planar(1), m4, false, 2_593.0),
            ("hil_arm", 1, 1, p, planar(1), m4, true, 46_749.0),
            ("servo_arm", 1, 1, p, planar(1), m4, false, 2_619.0),
            ("servo_arm", 1, 1, p, planar(1), m4, true, 46_349.0),
            ("chain5", 5, 5, p, planar(5), m4, false, 9_147.0),
            ("chain5", 5, 5, p, planar(5), m4, true, 333_549.0),
            ("hil_arm", 1, 1, p, planar(1), m7, false, 2_578.0),
            ("hil_arm", 1, 1, p, planar(1), m7, true, 2_729.0),
            ("chain5", 5, 5, p, planar(5), m7, false, 9_108.0),
            ("chain5", 5, 5, p, planar(5), m7, true, 9_529.0),
            ("skew_tree", 3, 3, s, SKEW_TREE, m4, false, 11_047.0),
            ("skew_tree", 3, 3, s, SKEW_TREE, m4, true, 537_308.0),
            ("skew_tree", 3, 3, s, SKEW_TREE, m7, false, 11_056.0),
            ("skew_tree", 3, 3, s, SKEW_TREE, m7, true, 12_961.0),
            ("arm", 5, 4, in_plane, ARM, m4, false, 38_670.0),
            ("arm", 5, 4, in_plane, ARM, m4, true, 552_895.0),
            ("arm", 5, 4, in_plane, ARM, m7, false, 38_709.0),
            ("arm", 5, 4, in_plane, ARM, m7, true, 55_648.0),
            ("arm2", 2, 2, s, ARM2, m4, true, 278_385.0),
            ("arm6", 6, 6, s, ARM6, m4, true, 1_058_541.0),
            ("arm2", 2, 2, s, ARM2, m4, false, 7_225.0),
            ("arm2", 2, 2, s, ARM2, m7, false, 7_213.0),
            ("arm2", 2, 2, s, ARM2, m7, true, 8_195.0),
            ("arm6", 6, 6, s, ARM6, m4, false, 21_976.0),
            ("arm6", 6, 6, s, ARM6, m7, false, 22_093.0),
            ("arm6", 6, 6, s, ARM6, m7, true, 25_222.0),
        ];
        for (scene, slots, dof, motion, mix, core, double, measured) in measured {
            let estimate = tree_needs(core, slots, dof, motion, &mix, double, &RK4)
                .instructions
                .unwrap();
            let error = estimate / measured - 1.0;
            assert!(
                error.abs() < 0.1,
                "{scene} on {} f64 {double}: {estimate:.0} estimated, {measured} measured ({:+.1} %)",
                core.name(),
                100.0 * error
            );
        }
    }

    /// scenes/arm.toml's tree: a ball shoulder at the origin, a hinge about y at the elbow,
    /// rods along z and x, under `gravity`; `state` its [q | v]: the shoulder's quaternion
    /// (w x y z) and the elbow angle, then the shoulder's angular velocity and the elbow rate.
    fn arm_moves_in_a_plane(gravity: [f64; 3], state: &[f64; 9]) -> bool {
        use ferrodyn_kernel::math::{Mat3, Vec3};
        use ferrodyn_kernel::tree::Link;
        use ferrodyn_kernel::{Dynamics, Fixed};
        let v = |[x, y, z]: [f64; 3]| Vec3::new(x, y, z);
        let rod = |i| Mat3::diagonal(v(i));
        let mut builder = Model::<f64, Fixed<5>>::builder(v(gravity));
        let shoulder = Link::spherical(None, v([0.0; 3]));
        let upper = shoulder.with_mass(2.0, v([0.0, 0.0, -0.15]), rod([0.01545, 0.01545, 0.0009]));
        let elbow = Link::revolute(Some(0), v([0.0, 0.0, -0.3]), v([0.0, 1.0, 0.0]));
        let forearm = elbow.with_mass(1.2, v([0.125, 0.0, 0.0]), rod([0.000375, 0.0064, 0.0064]));
        builder.add_link(upper).unwrap();
        builder.add_link(forearm).unwrap();
        let model = builder.build().unwrap();
        let mut data = Data::new(&model);
        model.set_state(&mut data, state).unwrap();
        moves_in_a_coordinate_plane(&model, &data)
    }

    #[test]
    fn a_tree_moves_in_a_coordinate_plane_only_when_its_mirror_image_is_itself() {
        let (c, s) = (0.4f64.cos(), 0.4f64.sin());
        let g = [0.0, 0.0, -9.81];
        // Turned and spinning about y, the elbow bent and turning: the x-z plane.
        assert!(arm_moves_in_a_plane(
            g,
            &[c, 0.0, s, 0.0, 0.3, 0.0, 1.5, 0.0, -0.7]
        ));
        // A spin about x, a shoulder turned about z, gravity along y: no plane.
        assert!(!arm_moves_in_a_plane(
            g,
            &[c, 0.0, s, 0.0, 0.3, 0.2, 1.5, 0.0, -0.7]
        ));
        assert!(!arm_moves_in_a_plane(
            g,
            &[c, 0.0, 0.0, s, 0.3, 0.0, 0.0, 0.0, 0.0]
        ));
        let at_rest = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        assert!(arm_moves_in_a_plane(g, &at_rest));
        assert!(!arm_moves_in_a_plane([0.0, -9.81, 0.0], &at_rest));
    }

    #[test]
    fn a_ball_joint_in_plane_motion_costs_less_in_soft_float_than_in_3d() {
        // The same arm priced as moving in 3-D: 16.9 % over the count, which is what the
        // plane-motion ratio corrects; on the FPU cores zeros cost the same, so no change.
        let spatial = |core, double| {
            tree_needs(core, 5, 4, Motion::Spatial, &ARM, double, &RK4)
                .instructions
                .unwrap()
        };
        let in_plane = |core, double| {
            tree_needs(core, 5, 4, Motion::InCoordinatePlane, &ARM, double, &RK4)
                .instructions
                .unwrap()
        };
        assert!((spatial(Core::CortexM4F, true) / 552_895.0 - 1.169).abs() < 0.001);
        assert_eq!(in_plane(Core::CortexM7, true), spatial(Core::CortexM7, true));
        assert_eq!(in_plane(Core::CortexM4F, false), spatial(Core::CortexM4F, false));
    }

    #[test]
    fn the_contact_plant_is_priced_within_ten_percent_of_its_measured_step() {
        // scenes/hopper.toml (2 links, planar, 1 sphere–ground pair) exported and run under
        // QEMU by .ci/firmware: RK4 instructions a step on the mps2-an386 (M4F) and the
        // mps2-an500 (M7), f32 and f64. The pair's price was fitted to these (one scene), so
        // this pins the fit; the tree alone is 42 % (M4F f32) to 33 % (M7 f64) of the step.
        let measured = [
            (Core::CortexM4F, false, 10_076.0),
            (Core::CortexM4F, true, 211_288.0),
            (Core::CortexM7, false, 9_963.0),
            (Core::CortexM7, true, 13_357.0),
        ];
        for (core, double, measured) in measured {
            let tree = tree_needs(core, 2, 2, Motion::PlanarTree, &LinkMix::default(), double, &RK4)
                .instructions
                .unwrap();
            let estimate = tree + contact_instructions(core, double, 1, &RK4).unwrap();
            assert!(
                (estimate / measured - 1.0).abs() < 0.1,
                "{core:?} f64 {double}: {estimate} vs {measured}"
            );
        }
        assert_eq!(contact_instructions(Core::CortexM4F, false, 0, &RK4), Some(0.0));
    }

    #[test]
    fn velocity_verlet_is_priced_as_two_evaluations() {
        // chain5 f32 exported with --integrator velocity-verlet, run under QEMU on the
        // mps2-an386: 5,445 instructions a step (RK4: 9,147); one evaluation's price was 52 % low.
        let verlet = IntegratorSpec::Explicit(Method::VelocityVerlet);
        let chain5 = LinkMix { links: 5, ..NONE };
        let estimate = tree_needs(Core::CortexM4F, 5, 5, Motion::PlanarTree, &chain5, false, &verlet)
            .instructions
            .unwrap();
        assert!((estimate / 5_445.0 - 1.0).abs() < 0.05, "{estimate}");
    }

    #[test]
    fn loop_rows_and_force_elements_are_priced_within_ten_percent_and_their_bytes_exactly() {
        // scenes/four_bar.toml (3 revolute links, one revolute loop joint: 5 rows, a 59-real
        // workspace) and scenes/slider_crank_spring.toml (the same shape closed by a prismatic
        // rail, one spring-damper), exported by scene-plant and run under QEMU by .ci/firmware
        // (docs/firmware.md): (core, f64, forces, measured instructions per RK4 step).
        let measured = [
            (Core::CortexM4F, false, 0, 75_196.0),
            (Core::CortexM4F, true, 0, 1_212_323.0),
            (Core::CortexM4F, false, 1, 84_186.0),
            (Core::CortexM4F, true, 1, 1_437_914.0),
            (Core::CortexM7, false, 0, 75_967.0),
            (Core::CortexM7, true, 0, 96_921.0),
            (Core::CortexM7, false, 1, 84_847.0),
            (Core::CortexM7, true, 1, 109_678.0),
        ];
        for (core, double, forces, instructions) in measured {
            let base = tree_needs(core, 3, 3, Motion::PlanarTree, &LinkMix::default(), double, &RK4);
            let extra = LoopsAndForces {
                joints: 1,
                rows: 5,
                workspace: 59,
                forces,
            };
            let needs = with_loops_and_forces(base, core, 3, double, extra, &RK4);
            let estimate = needs.instructions.unwrap();
            assert!(
                (estimate / instructions - 1.0).abs() < 0.10,
                "{core:?} f64 {double}, {forces} forces: {estimate} vs {instructions}"
            );
            // The firmware's SIZE lines (size_of_val of the model and data on thumbv7em).
            // The tendon list has the forces capacity: slider_crank_spring's model is larger.
            let bytes = match (double, forces) {
                (false, 0) => (2_512, 2_536),
                (true, 0) => (4_880, 5_000),
                (false, _) => (2_812, 2_536),
                (true, _) => (5_352, 5_000),
            };
            assert_eq!((needs.model_bytes, needs.data_bytes), bytes);
            // Its STACK lines on the M4F (the M7's are smaller): four_bar 4,376 / 9,176 B,
            // slider_crank_spring 4,416 / 9,384 B.
            let stack = match (double, forces) {
                (false, 0) => 4_376,
                (true, 0) => 9_176,
                (false, _) => 4_416,
                (true, _) => 9_384,
            };
            assert!(needs.stack_bytes >= stack, "{needs:?}");
        }
        // size_of on thumbv7em of other loop capacities (rustc's layout, read from a const
        // array-length error): Fixed<slots, joints, forces, rows, workspace> (the forces capacity
        // sizes the `tree::Forces` list and the model's tendon list; a drive's row without
        // loops: driven_crank).
        for (double, [slots, joints, forces, rows, workspace], model, data) in [
            (false, [3, 2, 0, 10, 100], 4_376, 3_040),
            (true, [3, 2, 0, 10, 100], 8_512, 5_992),
            (false, [3, 1, 0, 6, 60], 2_808, 2_608),
            (true, [3, 1, 0, 6, 60], 5_456, 5_144),
            (false, [4, 1, 0, 5, 59], 2_692, 3_144),
            (true, [4, 1, 0, 5, 59], 5_232, 6_216),
            (false, [2, 1, 0, 3, 30], 1_740, 1_680),
            (true, [2, 1, 0, 3, 30], 3_384, 3_288),
            (false, [1, 0, 0, 1, 6], 584, 840),
            (true, [1, 0, 0, 1, 6], 1_128, 1_616),
            (false, [2, 0, 0, 1, 11], 764, 1_464),
            (true, [2, 0, 0, 1, 11], 1_480, 2_872),
            (false, [3, 0, 2, 0, 0], 1_248, 1_960),
            (true, [3, 0, 2, 0, 0], 2_192, 3_872),
        ] {
            let extra = LoopsAndForces {
                joints,
                rows,
                workspace,
                forces,
            };
            let base = tree_needs(
                Core::CortexM4F,
                slots,
                slots,
                Motion::PlanarTree,
                &LinkMix::default(),
                double,
                &RK4,
            );
            let needs = with_loops_and_forces(base, Core::CortexM4F, slots, double, extra, &RK4);
            assert_eq!(
                (needs.model_bytes, needs.data_bytes),
                (model, data),
                "{slots} slots, f64 {double}"
            );
        }
    }
}
