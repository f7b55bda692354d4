//! Plant models generated from the scene files listed in `scenes.txt` at build time
//! (`build.rs`, the host's `ferrodyn export rust`), in f32 and f64, as cross-check scenarios:
//! `chain-fw` runs them on the microcontroller, `xcheck` on the host, and CI compares the f64
//! hashes with `ferrodyn run` of the same scene files. A scene is one line of `scenes.txt`
//! (build.rs writes its modules and scenarios); [`SceneArm`] needs `hil_arm` among them.
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

/// The scenario of a generated scene: run from its initial state for its steps (to its end
/// time), named `scene:<stem> <precision> <integrator>`; its model and data built in place
/// where `$lodge` puts them (`room` names the firmware's room there), in the variant `$room`
/// of its capacities (`plant::Tree` or `plant::Flex`), its data put at the scene's initial
/// state by `$module::data_in`, stepped by `$run` (`run_plain`, `run_forced`, `run_contact` or
/// `run_forced_contact`).
macro_rules! scene_scenario {
    ($module:ident, $name:literal, $room:ident, |$r:ident| $lodge:expr) => {
        scene_scenario!($module, $name, $room, |$r| $lodge, run_plain)
    };
    ($module:ident, $name:literal, $room:ident, |$r:ident| $lodge:expr, $run:ident) => {
        Scenario {
            name: $name,
            run: |$r, hooks: &mut dyn Hooks| -> Result<Report, PlantError> {
                use ferrodyn_kernel::Real;
                use plant::$room;
                let lodged: Option<&mut $room<$module::Scalar, $module::Capacities>> = $lodge;
                let $room { builder, data } = lodged.ok_or(PlantError::Room)?;
                $module::add_to(builder)?;
                let model = builder.build_in_place()?;
                let data = $module::data_in(data, model)?;
                let step = $module::Scalar::from_f64($module::STEP);
                let steps = $module::STEPS as u32;
                let integrator = &mut $module::Integrator::default();
                $run!($module, model, data, integrator, step, steps, hooks)
            },
        }
    };
}

/// Steps a generated scene without force elements ([`plant::run`]).
macro_rules! run_plain {
    ($module:ident, $model:ident, $data:ident, $integrator:ident, $step:ident, $steps:ident, $hooks:ident) => {
        plant::run($model, $data, $integrator, $step, $steps, $hooks)
    };
}

/// Steps a generated scene with its force elements (`$module::forces`) as external forces
/// ([`plant::run_loaded`]), as `ferrodyn run` steps them.
macro_rules! run_forced {
    ($module:ident, $model:ident, $data:ident, $integrator:ident, $step:ident, $steps:ident, $hooks:ident) => {{
        let mut forces = $module::forces($model)?;
        plant::run_loaded($model, $data, $integrator, $step, $steps, $hooks, &mut forces)
    }};
}

/// Steps a generated scene with its contacts (`$module::contacts`, on the stack: a few hundred
/// bytes) as external forces ([`plant::run_loaded`]: shown the initial state, then evaluated at
/// every stage), as `ferrodyn run` steps the scene.
macro_rules! run_contact {
    ($module:ident, $model:ident, $data:ident, $integrator:ident, $step:ident, $steps:ident, $hooks:ident) => {{
        let mut contacts = $module::contacts($model)?;
        plant::run_loaded($model, $data, $integrator, $step, $steps, $hooks, &mut contacts)
    }};
}

/// Steps a generated scene with its force elements and its contacts as external forces
/// ([`plant::run_loaded`] on the pair: the force elements' loads first, then the contacts', as
/// `ferrodyn run` sums them; the contacts shown the initial state first).
macro_rules! run_forced_contact {
    ($module:ident, $model:ident, $data:ident, $integrator:ident, $step:ident, $steps:ident, $hooks:ident) => {{
        let mut loads = ($module::forces($model)?, $module::contacts($model)?);
        plant::run_loaded($model, $data, $integrator, $step, $steps, $hooks, &mut loads)
    }};
}

/// A generated tree's scenario ([`scene_scenario`]) in the firmware's room (capacities
/// `plant::Room` has a variant for), stepped by `run_plain`, or by `run_forced` for a scene
/// with force elements.
macro_rules! scenario {
    ($module:ident, $name:literal) => {
        scenario!($module, $name, run_plain)
    };
    ($module:ident, $name:literal, $run:ident) => {
        scene_scenario!(
            $module,
            $name,
            Tree,
            |room| {
                use plant::Lodge;
                room.lodge(|| Tree {
                    builder: $module::new_builder(),
                    data: None,
                })
            },
            $run
        )
    };
}

/// A generated tree's scenario ([`scene_scenario`]) in a static of its own (a size
/// `plant::Room` has no variant for, or capacities with loop rows or force elements: its RAM
/// adds to the room's), stepped by `run_plain`, or by `run_forced` for a scene with force
/// elements.
#[allow(unused_macros)] // while every listed tree fits the room (1 to 8 slots)
macro_rules! own_scenario {
    ($module:ident, $name:literal) => {
        own_scenario!($module, $name, run_plain)
    };
    ($module:ident, $name:literal, $run:ident) => {
        scene_scenario!(
            $module,
            $name,
            Tree,
            |_room| {
                static CELL: static_cell::StaticCell<Tree<$module::Scalar, $module::Capacities>> =
                    static_cell::StaticCell::new();
                CELL.try_init_with(|| Tree {
                    builder: $module::new_builder(),
                    data: None,
                })
            },
            $run
        )
    };
}

/// A generated flexible scene's scenario ([`scene_scenario`]; its capacities are those of a
/// room variant: `plant::Beam6`).
macro_rules! flexible_scenario {
    ($module:ident, $name:literal) => {
        scene_scenario!($module, $name, Flex, |room| {
            use plant::Lodge;
            room.lodge(|| Flex {
                builder: $module::new_builder(),
                data: None,
            })
        })
    };
}

// The generated modules and `SCENARIOS` (build.rs, from scenes.txt).
include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));

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
