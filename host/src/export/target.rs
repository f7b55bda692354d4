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
    let evaluations = match integrator {
        IntegratorSpec::Explicit(Method::Rk4) => 5.0,
        IntegratorSpec::Explicit(Method::SemiImplicitEuler) => 2.0,
        IntegratorSpec::Explicit(Method::VelocityVerlet) => 3.0,
        _ => return None,
    };
    let per_pair = match (core, double) {
        (Core::CortexM4F, false) => 1_167.0,
        (Core::CortexM4F, true) => 18_598.0,
        (Core::CortexM7, false) => 1_149.0,
        (Core::CortexM7, true) => 1_791.0,
    };
    Some(evaluations * per_pair * pairs as f64)
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
            let tree = tree_needs(core, 2, 2, true, double, &RK4).instructions.unwrap();
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
        let estimate = tree_needs(Core::CortexM4F, 5, 5, true, false, &verlet)
            .instructions
            .unwrap();
        assert!((estimate / 5_445.0 - 1.0).abs() < 0.05, "{estimate}");
    }
}
