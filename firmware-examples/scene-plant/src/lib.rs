//! Plant models generated from the scene files listed in `scenes.txt` (chain5, skew_tree,
//! hil_arm, servo_arm, arm, beam6) at build time (`build.rs`, the host's `ferrodyn export
//! rust`), in f32 and f64, as cross-check scenarios: `chain-fw` runs them on the microcontroller, `xcheck`
//! on the host, and CI compares the f64 hashes with `ferrodyn run` of the same scene files.
#![no_std]

use plant::{HilReport, Hooks, PlantError, Report, Scenario};

/// A generated module (see `ferrodyn export rust`).
macro_rules! generated {
    ($module:ident, $file:literal) => {
        #[allow(clippy::approx_constant, clippy::excessive_precision, missing_docs)]
        pub mod $module {
            include!(concat!(env!("OUT_DIR"), "/", $file));
        }
    };
}

generated!(chain5_f32, "chain5_f32.rs");
generated!(chain5_f64, "chain5_f64.rs");
generated!(skew_tree_f32, "skew_tree_f32.rs");
generated!(skew_tree_f64, "skew_tree_f64.rs");
generated!(hil_arm_f32, "hil_arm_f32.rs");
generated!(hil_arm_f64, "hil_arm_f64.rs");
generated!(servo_arm_f32, "servo_arm_f32.rs");
generated!(servo_arm_f64, "servo_arm_f64.rs");
generated!(arm_f32, "arm_f32.rs");
generated!(arm_f64, "arm_f64.rs");
generated!(beam6_f32, "beam6_f32.rs");
generated!(beam6_f64, "beam6_f64.rs");

/// The scenario of a generated scene: run from its initial state for its steps (to its end
/// time), named `scene:<stem> <precision> <integrator>`; its model and data built in place in
/// the firmware's room, in the room variant `$room` of its capacities (`plant::Tree` or
/// `plant::Flex`) with the data of kernel family `$family`, then `$init` (a tree's
/// `set_initial`) where the family's fresh data is not yet the scene's initial state.
macro_rules! lodged_scenario {
    ($module:ident, $name:literal, $room:ident, $family:ident $(, $init:ident)?) => {
        Scenario {
            name: $name,
            run: |room, hooks: &mut dyn Hooks| -> Result<Report, PlantError> {
                use ferrodyn_kernel::{$family, Real};
                use plant::{$room, Lodge};
                let lodged = room.lodge(|| $room {
                    builder: $module::new_builder(),
                    data: None,
                });
                let $room { builder, data } = lodged.ok_or(PlantError::Room)?;
                $module::add_to(builder)?;
                let model = builder.build_in_place()?;
                let data = $family::Data::new_in(data, model);
                $($module::$init(model, data)?;)?
                let step = $module::Scalar::from_f64($module::STEP);
                let steps = $module::STEPS as u32;
                plant::run(
                    model,
                    data,
                    &mut $module::Integrator::default(),
                    step,
                    steps,
                    hooks,
                )
            },
        }
    };
}

/// A generated tree's scenario ([`lodged_scenario`]).
macro_rules! scenario {
    ($module:ident, $name:literal) => {
        lodged_scenario!($module, $name, Tree, tree, set_initial)
    };
}

/// A generated flexible scene's scenario ([`lodged_scenario`]; its capacities are those of a
/// room variant: `plant::Beam6`).
macro_rules! flexible_scenario {
    ($module:ident, $name:literal) => {
        lodged_scenario!($module, $name, Flex, flex)
    };
}

/// The scenarios of the scene files.
pub const SCENARIOS: [Scenario; 12] = [
    scenario!(chain5_f32, "scene:chain5 f32 rk4"),
    scenario!(chain5_f64, "scene:chain5 f64 rk4"),
    scenario!(skew_tree_f32, "scene:skew_tree f32 rk4"),
    scenario!(skew_tree_f64, "scene:skew_tree f64 rk4"),
    scenario!(hil_arm_f32, "scene:hil_arm f32 rk4"),
    scenario!(hil_arm_f64, "scene:hil_arm f64 rk4"),
    scenario!(servo_arm_f32, "scene:servo_arm f32 rk4"),
    scenario!(servo_arm_f64, "scene:servo_arm f64 rk4"),
    scenario!(arm_f32, "scene:arm f32 rk4"),
    scenario!(arm_f64, "scene:arm f64 rk4"),
    flexible_scenario!(beam6_f32, "scene:beam6 f32 rk4"),
    flexible_scenario!(beam6_f64, "scene:beam6 f64 rk4"),
];

/// The arm of `scenes/hil_arm.toml` as the HIL loop's plant, through the exported ports only:
/// the loop's torque goes in by `set_inputs` (in the port's µN·m), the encoder comes out of
/// `read_outputs`.
pub struct SceneArm {
    model: ferrodyn_kernel::tree::Model<f32, hil_arm_f32::Capacities>,
    data: ferrodyn_kernel::tree::Data<f32, hil_arm_f32::Capacities>,
    trajectory: plant::Digest,
}

impl SceneArm {
    /// The arm at the scene's initial state.
    pub fn new() -> Result<Self, PlantError> {
        let model = hil_arm_f32::model()?;
        let data = hil_arm_f32::initial_data(&model)?;
        Ok(Self {
            model,
            data,
            trajectory: plant::Digest::default(),
        })
    }
}

impl hil::Plant for SceneArm {
    type Error = PlantError;
    fn set_torque(&mut self, torque: f32) -> Result<(), PlantError> {
        let port = torque / hil_arm_f32::INPUTS[0].scale as f32;
        hil_arm_f32::set_inputs(&mut self.data, &[port]).map_err(PlantError::Build)
    }
    fn step(&mut self) -> Result<(), PlantError> {
        use ferrodyn_kernel::Dynamics;
        let dt = hil_arm_f32::STEP as f32;
        self.model
            .step(&mut self.data, &mut hil_arm_f32::Integrator::default(), dt)?;
        self.trajectory.add(self.data.state());
        Ok(())
    }
    fn sensors(&self) -> hil::Sensors {
        let mut outputs = [0.0; hil_arm_f32::OUTPUT_COUNT];
        hil_arm_f32::read_outputs(&self.model, &self.data, &mut outputs);
        // OUTPUTS: encoder_angle, encoder_rate, then the tip.
        hil::Sensors {
            angle: outputs[0],
            velocity: outputs[1],
        }
    }
}

impl plant::Traced for SceneArm {
    fn steps(&self) -> u64 {
        self.data.steps()
    }
    fn trajectory(&self) -> plant::Digest {
        self.trajectory
    }
    fn final_state(&self) -> plant::Digest {
        use ferrodyn_kernel::Dynamics;
        self.model.digest(&self.data)
    }
    fn bytes(&self) -> (usize, usize) {
        (
            core::mem::size_of_val(&self.model),
            core::mem::size_of_val(&self.data),
        )
    }
}

/// Runs the exported arm ([`SceneArm`]) in the HIL loop against the emulated rig for `periods`
/// periods with `config`, as [`plant::run_hil`] runs the hand-written one; `hooks` wrap every
/// period.
pub fn run_scene_hil(
    config: hil::Config,
    clock: impl hil::Monotonic,
    periods: u32,
    hooks: &mut dyn Hooks,
) -> Result<HilReport, PlantError> {
    plant::run_hil_with(SceneArm::new()?, config, clock, periods, hooks)
}
