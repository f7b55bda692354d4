//! What an exported scene needs on a microcontroller (`ferrodyn check --target`): capacities,
//! model and data bytes, stack and instructions per step, for the cores the firmware runs on.
//!
//! Bytes are exact for the kernel's tree on 32-bit Cortex-M (`size_of_val` of the exported
//! models under QEMU grows by a fixed amount per link; `.ci/firmware` checks these figures
//! against the firmware's `SIZE` lines). Stack and instructions are estimates fitted to the
//! exported scenes measured under QEMU (docs/firmware.md): the stack bound covers every
//! measured scene. The instruction count takes one line for planar trees (the planar
//! algorithm: hil_arm, servo_arm, chain5, within 0.5 %) and one for the others (fitted when
//! every scene took the 3-D algorithm: within 5 % on the Cortex-M4F and 7 % on the M7, 29 %
//! under for the 3-link skew_tree in soft-float f64 on the M4F).

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
/// whether the tree is planar or not: the capacity is fixed. The fixed part holds the (empty)
/// loop-joint list and the projection settings of the model and the data's loop rows.
const MODEL_BYTES: [(usize, usize, usize); 2] = [(100, 180, 0), (188, 348, 0)];
const DATA_BYTES: [(usize, usize, usize); 2] = [(136, 600, 4), (224, 1208, 0)];
/// Stack of building the tree in place and stepping it: the 1-link figure and the steepest
/// measured growth per slot (f32, f64), from the exported scenes on the Cortex-M4F (hil_arm and
/// servo_arm 1 slot, skew_tree 3, chain5 5, the ball-jointed arm 5: docs/firmware.md).
const STACK_BYTES: [(usize, usize); 2] = [(1_564, 769), (2_204, 1_499)];

/// What a tree of `dof` degrees of freedom in `Fixed<slots>` needs on `core` in f32 (`double`
/// false) or f64, stepped by `integrator`; `planar` for a tree that takes the planar algorithm
/// (`tree::Model::is_planar`).
pub fn tree_needs(
    core: Core,
    slots: usize,
    dof: usize,
    planar: bool,
    double: bool,
    integrator: &IntegratorSpec,
) -> TreeNeeds {
    let p = usize::from(double);
    // A struct's size is a multiple of its alignment: the scalar's (8 B for f64 on thumbv7em).
    let align = if double { 8 } else { 4 };
    let line = |(fixed, per_slot, grouped): (usize, usize, usize)| {
        (fixed + per_slot * slots + (grouped * slots).next_multiple_of(8)).next_multiple_of(align)
    };
    let (fixed, per_link) = rk4_instructions(core, planar, double);
    // One derivative evaluation instead of RK4's four: the 5-link chain's ratio.
    let one_evaluation = if planar { 0.287 } else { 0.259 };
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
        instructions: factor.map(|f| f * (fixed + per_link * dof as f64).max(0.0)),
    }
}

/// RK4 instructions per step: a fixed part and a part per degree of freedom.
/// - Planar trees: least-squares lines through the exported hil_arm, servo_arm (1 DOF) and
///   chain5 (5 DOF).
/// - Other trees: the lines fitted to hil_arm, servo_arm, skew_tree and chain5 when all of them
///   took the 3-D algorithm (at e75761b; f64 on the M4F without skew_tree, which soft-float
///   makes 29 % dearer than the line). skew_tree still measures within 5 % of it.
fn rk4_instructions(core: Core, planar: bool, double: bool) -> (f64, f64) {
    match (core, planar, double) {
        (Core::CortexM4F, true, false) => (970.75, 1_635.25),
        (Core::CortexM4F, true, true) => (-25_201.0, 71_750.0),
        (Core::CortexM7, true, false) => (961.75, 1_629.25),
        (Core::CortexM7, true, true) => (980.9, 1_709.6),
        (Core::CortexM4F, false, false) => (222.0, 3_425.0),
        (Core::CortexM4F, false, true) => (-57_746.0, 147_068.0),
        (Core::CortexM7, false, false) => (206.0, 3_430.0),
        (Core::CortexM7, false, true) => (81.0, 4_019.0),
    }
}

/// A tree's loops and force elements, as its export writes them (`export::tree_loops`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopsAndForces {
    /// Joints closing loops.
    pub joints: usize,
    /// Loop rows m.
    pub rows: usize,
    /// Reals of the dense loop matrices (`tree::Model::loop_workspace`).
    pub workspace: usize,
    /// Force elements (spring-dampers, point forces, torques).
    pub forces: usize,
}

/// `needs` of a tree of `slots` slots and `dof` degrees of freedom ([`tree_needs`]) with its
/// loops and force elements `extra` added: their bytes (exact, `size_of` on thumbv7em) and their
/// instructions per step ([`loop_instructions`]); `needs` itself for a tree without either.
pub fn with_loops_and_forces(
    needs: TreeNeeds,
    core: Core,
    (slots, dof): (usize, usize),
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
    // its own, rounded to its alignment (4 / 8 B: 24 / 40 B without loops). The f32
    // data is 8-aligned (its u64 step count): an odd slot count's data has 4 B of tail padding
    // the loop data fills.
    let (joint, row, real, fixed): (usize, usize, usize, usize) = match double {
        false => (384, 60, 4, 21),
        true => (752, 120, 8, 33),
    };
    let (m, s) = (extra.rows, extra.workspace);
    let empty = fixed.next_multiple_of(real);
    let loop_data = (fixed + m * (row + real + 4) + s * real).next_multiple_of(real);
    let tail = if double { 0 } else { 4 * (slots % 2) };
    let data_bytes = (needs.data_bytes - tail + loop_data - empty).next_multiple_of(8);
    let model_bytes = needs.model_bytes + extra.joints * joint;
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
    let evaluations = match integrator {
        IntegratorSpec::Explicit(Method::Rk4) => Some(4.0),
        IntegratorSpec::Explicit(Method::SemiImplicitEuler) => Some(1.0),
        IntegratorSpec::Explicit(Method::VelocityVerlet) => Some(2.0),
        _ => None,
    };
    let instructions = needs
        .instructions
        .zip(evaluations)
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
                [280, 460, 640, 820, 1000, 1180, 1360, 1540],
                [744, 1344, 1952, 2552, 3160, 3760, 4368, 4968],
            ),
            (
                true,
                [536, 888, 1232, 1584, 1928, 2280, 2624, 2976],
                [1432, 2640, 3848, 5056, 6264, 7472, 8680, 9888],
            ),
        ];
        for (double, model, data) in measured {
            for n in 1..=8 {
                let needs = tree_needs(Core::CortexM4F, n, n, true, double, &RK4);
                assert_eq!(
                    (needs.model_bytes, needs.data_bytes),
                    (model[n - 1], data[n - 1]),
                    "{n} slots, f64 {double}"
                );
            }
        }
    }

    #[test]
    fn the_estimates_hold_for_the_scenes_measured_on_the_cortex_m4f() {
        // (slots, DOF, planar, f64, measured peak stack B, measured instructions per RK4 step):
        // hil_arm, servo_arm, skew_tree, chain5, the ball-jointed arm (docs/firmware.md).
        let measured = [
            (1, 1, true, false, 1_564, Some(2_593.0)),
            (1, 1, true, false, 1_564, Some(2_619.0)),
            (3, 3, false, false, 1_504, Some(11_044.0)),
            (5, 5, true, false, 2_044, Some(9_147.0)),
            (5, 4, false, false, 4_640, None),
            (1, 1, true, true, 2_204, Some(46_749.0)),
            (3, 3, false, true, 3_148, None),
            (5, 5, true, true, 3_268, Some(333_549.0)),
            (5, 4, false, true, 8_200, None),
        ];
        for (slots, dof, planar, double, stack, instructions) in measured {
            let needs = tree_needs(Core::CortexM4F, slots, dof, planar, double, &RK4);
            assert!(
                needs.stack_bytes >= stack,
                "{slots} slots, f64 {double}: {needs:?}"
            );
            if let (Some(measured), Some(estimate)) = (instructions, needs.instructions) {
                let error = (estimate / measured - 1.0).abs();
                assert!(
                    error < 0.05,
                    "{slots} slots, f64 {double}: {estimate} vs {measured}"
                );
            }
        }
    }

    #[test]
    fn velocity_verlet_is_priced_as_two_evaluations() {
        // chain5 f32 exported with --integrator velocity-verlet, run under QEMU on the
        // mps2-an386: 5,445 instructions a step (RK4: 9,147); one evaluation's price was 52 % low.
        let verlet = IntegratorSpec::Explicit(Method::VelocityVerlet);
        let estimate = tree_needs(Core::CortexM4F, 5, 5, true, false, &verlet)
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
            let base = tree_needs(core, 3, 3, true, double, &RK4);
            let extra = LoopsAndForces {
                joints: 1,
                rows: 5,
                workspace: 59,
                forces,
            };
            let needs = with_loops_and_forces(base, core, (3, 3), double, extra, &RK4);
            let estimate = needs.instructions.unwrap();
            assert!(
                (estimate / instructions - 1.0).abs() < 0.10,
                "{core:?} f64 {double}, {forces} forces: {estimate} vs {instructions}"
            );
            // The firmware's SIZE lines (size_of_val of the model and data on thumbv7em).
            let bytes = if double { (1_984, 4_976) } else { (1_024, 2_528) };
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
        // sizes the `tree::Forces` list alone, not the model or data).
        for (double, [slots, joints, rows, workspace], model, data) in [
            (false, [3, 2, 10, 100], 1_408, 3_032),
            (true, [3, 2, 10, 100], 2_736, 5_968),
            (false, [3, 1, 6, 60], 1_024, 2_600),
            (true, [3, 1, 6, 60], 1_984, 5_120),
            (false, [4, 1, 5, 59], 1_204, 3_128),
            (true, [4, 1, 5, 59], 2_336, 6_184),
            (false, [2, 1, 3, 30], 844, 1_672),
        ] {
            let extra = LoopsAndForces {
                joints,
                rows,
                workspace,
                forces: 0,
            };
            let base = tree_needs(Core::CortexM4F, slots, slots, true, double, &RK4);
            let needs = with_loops_and_forces(base, Core::CortexM4F, (slots, slots), double, extra, &RK4);
            assert_eq!(
                (needs.model_bytes, needs.data_bytes),
                (model, data),
                "{slots} slots, f64 {double}"
            );
        }
    }
}
