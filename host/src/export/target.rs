//! What an exported scene needs on a microcontroller (`ferrodyn check --target`): capacities,
//! model and data bytes, stack and instructions per step, for the cores the firmware runs on.
//!
//! Bytes are exact for the kernel's tree on 32-bit Cortex-M (`size_of_val` of the exported
//! models under QEMU grows by a fixed amount per link; `.ci/firmware` checks these figures
//! against the firmware's `SIZE` lines). Stack and instructions are estimates fitted to the
//! exported scenes measured under QEMU (docs/firmware.md): the stack bound covers every
//! measured scene, the instruction count is within 5 % of them on the Cortex-M4F and 7 % on
//! the M7 (29 % under for the 3-link skew_tree in soft-float f64 on the M4F): a tree with skew
//! axes costs more per degree of freedom than one of rods on hinges along a link axis, and the
//! line goes between them.

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

/// Bytes per link and fixed bytes of a tree's model and data, f32 and f64 (measured on
/// thumbv7em: 1, 3 and 5 links fall on these lines exactly; a link holds its `tree::Servo`: 12 B in
/// f32, 24 B in f64, and its 4-byte shape).
const MODEL_BYTES: [(usize, usize); 2] = [(20, 120), (36, 228)];
const DATA_BYTES: [(usize, usize); 2] = [(112, 480), (176, 960)];
/// Stack of building the tree in place and stepping it: the 1-link figure and the steepest
/// measured growth per slot (f32, f64), from the exported scenes on the Cortex-M4F (hil_arm and
/// servo_arm 1 slot, skew_tree 3, chain5 5, the ball-jointed arm 5: docs/firmware.md).
const STACK_BYTES: [(usize, usize); 2] = [(1_996, 1_367), (3_036, 1_592)];

/// What a tree of `dof` degrees of freedom in `Fixed<slots>` needs on `core` in f32 (`double`
/// false) or f64, stepped by `integrator`.
pub fn tree_needs(
    core: Core,
    slots: usize,
    dof: usize,
    double: bool,
    integrator: &IntegratorSpec,
) -> TreeNeeds {
    let p = usize::from(double);
    let line = |(fixed, per_slot): (usize, usize)| fixed + per_slot * slots;
    // RK4 instructions per step: per degree of freedom and a fixed part, least-squares fits
    // to the exported hil_arm, servo_arm, skew_tree and chain5 at the Newton–Euler bias force
    // and the shorter pass 3 (1-DOF joints; f64 on the M4F without skew_tree, which
    // soft-float makes 29 % dearer than the line).
    let (fixed, per_link) = match (core, double) {
        (Core::CortexM4F, false) => (222.0, 3_425.0),
        (Core::CortexM4F, true) => (-57_746.0, 147_068.0),
        (Core::CortexM7, false) => (206.0, 3_430.0),
        (Core::CortexM7, true) => (81.0, 4_019.0),
    };
    // One derivative evaluation instead of RK4's four: 0.259 of RK4 on the 5-link tree.
    let factor = match integrator {
        IntegratorSpec::Explicit(Method::Rk4) => Some(1.0),
        IntegratorSpec::Explicit(Method::SemiImplicitEuler | Method::VelocityVerlet) => Some(0.259),
        _ => None,
    };
    TreeNeeds {
        model_bytes: line(MODEL_BYTES[p]),
        data_bytes: line(DATA_BYTES[p]),
        stack_bytes: STACK_BYTES[p].0 + STACK_BYTES[p].1 * slots.saturating_sub(1),
        instructions: factor.map(|f| f * (fixed + per_link * dof as f64).max(0.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RK4: IntegratorSpec = IntegratorSpec::Explicit(Method::Rk4);

    #[test]
    fn the_estimates_hold_for_the_scenes_measured_on_the_cortex_m4f() {
        // (slots, DOF, f64, measured peak stack B, measured instructions per RK4 step):
        // hil_arm, servo_arm, skew_tree, chain5, the ball-jointed arm (docs/firmware.md).
        let measured = [
            (1, 1, false, 1_988, Some(3_499.0)),
            (1, 1, false, 1_996, Some(3_525.0)),
            (3, 3, false, 3_304, Some(11_032.0)),
            (5, 5, false, 4_972, Some(17_076.0)),
            (5, 4, false, 7_464, None),
            (1, 1, true, 2_724, Some(89_533.0)),
            (3, 3, true, 6_220, None),
            (5, 5, true, 4_572, Some(677_594.0)),
            (5, 4, true, 9_168, None),
        ];
        for (slots, dof, double, stack, instructions) in measured {
            let needs = tree_needs(Core::CortexM4F, slots, dof, double, &RK4);
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
}
