//! # plant — the models the firmware steps, shared with the host cross-check
//!
//! The Cortex-M firmware (`chain-fw`, `hil-fw`) and the x86_64 cross-check (`xcheck`) call the
//! very same scenario functions here, so both step the same model with the same inputs; only
//! the [`Hooks`] differ (instruction-count markers on the MCU, nothing on the host). Each
//! scenario returns a [`Report`] of two FNV-1a hashes over the IEEE bits of the state: one
//! chained over every step (the trajectory) and one of the final state.
//!
//! Models:
//! - `chain5`: the kernel's canonical 5-link revolute chain (1 m, 1 kg rods), released
//!   horizontally, RK4 or semi-implicit Euler at 1 ms, in Cartesian coordinates (`Model`:
//!   bodies, constraints, projection);
//! - `chain5-tree`: the same chain in joint coordinates (`tree::TreeModel`, articulated-body
//!   algorithm);
//! - `beam6`: an ANCF block 0.2 × 0.1 × 0.1 m of 6 tetrahedra (one hexahedron), root face
//!   clamped, sagging under gravity, RK4 at 10 µs;
//! - [`Arm`]: one 0.5 m, 1 kg rod on a revolute joint about y in joint coordinates, driven by
//!   an actuator torque set every period as the joint's input: the HIL plant.
#![no_std]

pub mod rig;

use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::flex::{step_flex, Fixity, FlexData, FlexModel};
use ferrodyn_kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::models::{add_box_mesh, revolute_chain, revolute_chain_tree, ChainSpec, GRAVITY};
use ferrodyn_kernel::tree::{self, Link, TreeData, TreeModel};
use ferrodyn_kernel::{step, Body, BuildError, Data, Integrator, KernelError, Model, Real};

/// A scalar whose IEEE bits can be hashed (f32, f64).
pub trait Bits: Real {
    /// Name for reports.
    const NAME: &'static str;
    /// The IEEE bits, widened to 64.
    fn bits(self) -> u64;
}

impl Bits for f32 {
    const NAME: &'static str = "f32";
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Bits for f64 {
    const NAME: &'static str = "f64";
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// 64-bit FNV-1a over the little-endian IEEE bits of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateHash(pub u64);

impl Default for StateHash {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl StateHash {
    /// Mixes every value's bits (as many bytes as the scalar has) into the hash.
    pub fn add<R: Bits>(&mut self, state: &[R]) {
        let width = core::mem::size_of::<R>();
        for x in state {
            for byte in x.bits().to_le_bytes().iter().take(width) {
                self.0 ^= u64::from(*byte);
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    /// The hash of one state.
    pub fn of<R: Bits>(state: &[R]) -> Self {
        let mut h = Self::default();
        h.add(state);
        h
    }
}

/// Result of a scenario: hashes to compare between targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// Steps taken.
    pub steps: u32,
    /// Hash chained over the state after every step.
    pub trajectory: StateHash,
    /// Hash of the final state.
    pub final_state: StateHash,
}

/// Called around every measured step (the firmware puts instruction-count markers here).
pub trait Hooks {
    /// Just before a step.
    fn before_step(&mut self) {}
    /// Just after a step.
    fn after_step(&mut self) {}
}

/// Hooks that do nothing (the host).
pub struct NoHooks;
impl Hooks for NoHooks {}

/// Why a scenario stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlantError {
    /// Building the model failed.
    Build(BuildError),
    /// A step failed.
    Step(KernelError),
}

impl From<BuildError> for PlantError {
    fn from(e: BuildError) -> Self {
        Self::Build(e)
    }
}
impl From<KernelError> for PlantError {
    fn from(e: KernelError) -> Self {
        Self::Step(e)
    }
}

/// Links of the chain scenario.
pub const CHAIN_LINKS: usize = 5;
/// The 5-link chain with fixed capacities (5 bodies, 5 joints, 25 rows).
pub type Chain5<R> = Model<
    R,
    CHAIN_LINKS,
    CHAIN_LINKS,
    0,
    { 5 * CHAIN_LINKS },
    { ChainSpec::<f64>::skyline_entries(CHAIN_LINKS) },
>;
/// The chain's data.
pub type Chain5Data<R> =
    Data<R, CHAIN_LINKS, { 5 * CHAIN_LINKS }, { ChainSpec::<f64>::skyline_entries(CHAIN_LINKS) }>;
/// Chain step (s).
pub const CHAIN_DT: f64 = 1e-3;

/// Integrator of the chain scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainMethod {
    /// Classical Runge–Kutta 4.
    Rk4,
    /// Semi-implicit (symplectic) Euler.
    SemiImplicitEuler,
}

impl ChainMethod {
    /// Name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rk4 => "rk4",
            Self::SemiImplicitEuler => "semi-implicit-euler",
        }
    }
}

/// Steps the 5-link chain `steps` times.
pub fn run_chain<R: Bits>(
    method: ChainMethod,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let model: Chain5<R> = revolute_chain(&ChainSpec::standard(CHAIN_LINKS))?;
    let mut data = Chain5Data::<R>::new(&model);
    let dt = R::from_f64(CHAIN_DT);
    match method {
        ChainMethod::Rk4 => run_rigid(&model, &mut data, &mut Rk4, dt, steps, hooks),
        ChainMethod::SemiImplicitEuler => {
            run_rigid(&model, &mut data, &mut SemiImplicitEuler, dt, steps, hooks)
        }
    }
}

/// Steps the 5-link chain in joint coordinates `steps` times.
pub fn run_chain_tree<R: Bits>(
    method: ChainMethod,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let model: TreeModel<R, CHAIN_LINKS> = revolute_chain_tree(&ChainSpec::standard(CHAIN_LINKS))?;
    let mut data = TreeData::new(&model);
    let dt = R::from_f64(CHAIN_DT);
    match method {
        ChainMethod::Rk4 => run_tree(&model, &mut data, &mut Rk4, dt, steps, hooks),
        ChainMethod::SemiImplicitEuler => {
            run_tree(&model, &mut data, &mut SemiImplicitEuler, dt, steps, hooks)
        }
    }
}

fn run_tree<R: Bits, I: Integrator<R>, const N: usize>(
    model: &TreeModel<R, N>,
    data: &mut TreeData<R, N>,
    integrator: &mut I,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let mut trajectory = StateHash::default();
    for _ in 0..steps {
        hooks.before_step();
        let result = tree::step(model, data, integrator, dt);
        hooks.after_step();
        result?;
        trajectory.add(data.state());
    }
    Ok(Report {
        steps,
        trajectory,
        final_state: StateHash::of(data.state()),
    })
}

fn run_rigid<R: Bits, I: Integrator<R>>(
    model: &Chain5<R>,
    data: &mut Chain5Data<R>,
    integrator: &mut I,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let mut trajectory = StateHash::default();
    for _ in 0..steps {
        hooks.before_step();
        let result = step(model, data, integrator, dt);
        hooks.after_step();
        result?;
        trajectory.add(data.state());
    }
    Ok(Report {
        steps,
        trajectory,
        final_state: StateHash::of(data.state()),
    })
}

/// Nodes, elements and mass-matrix skyline capacity (exactly what the mesh needs) of the 6-tet
/// beam.
pub type Beam6<R> = FlexModel<R, 8, 6, 1533>;
/// Beam step (s): below the RK4 stability limit of its stiffest mode.
pub const BEAM_DT: f64 = 1e-5;

/// The 6-tet ANCF block: 0.2 × 0.1 × 0.1 m, E = 1 MPa, ν = 0.3, ρ = 1000 kg/m³, root face
/// (x = 0) clamped, gravity −z.
pub fn beam6<R: Real>() -> Result<Beam6<R>, BuildError> {
    let material = Material::st_venant_kirchhoff(R::from_f64(1e6), R::from_f64(0.3), R::from_f64(1000.0))
        .map_err(|_| BuildError::InvalidParameter {
            item: ferrodyn_kernel::Item::Material,
            reason: "beam material",
        })?;
    let mut b = Beam6::<R>::builder(material, Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
    let size = Vec3::new(R::from_f64(0.2), R::from_f64(0.1), R::from_f64(0.1));
    add_box_mesh(&mut b, Vec3::ZERO, size, [1, 1, 1])?;
    b.fix_plane(
        0,
        R::ZERO,
        R::from_f64(1e-6),
        Fixity::ClampedFace { normal_axis: 0 },
    )?;
    b.build()
}

/// Steps the 6-tet beam `steps` times with RK4.
pub fn run_beam<R: Bits>(steps: u32, hooks: &mut dyn Hooks) -> Result<Report, PlantError> {
    let model = beam6::<R>()?;
    let mut data = FlexData::new(&model);
    let dt = R::from_f64(BEAM_DT);
    let mut trajectory = StateHash::default();
    for _ in 0..steps {
        hooks.before_step();
        let result = step_flex(&model, &mut data, &mut Rk4, dt);
        hooks.after_step();
        result?;
        trajectory.add(data.state());
    }
    Ok(Report {
        steps,
        trajectory,
        final_state: StateHash::of(data.state()),
    })
}

/// The HIL arm model: one link on a revolute joint, in joint coordinates.
pub type ArmModel<R> = TreeModel<R, 1>;
/// The arm's data.
pub type ArmData<R> = TreeData<R, 1>;
/// HIL period (s): 1 kHz.
pub const ARM_DT: f64 = 1e-3;
/// Arm length (m).
pub const ARM_LENGTH: f64 = 0.5;

/// The HIL plant: an arm on a hinge about global y at the origin, initially horizontal along
/// +x, under gravity and an actuator torque about +y. Angle θ: rotation about +y from +x
/// (gravity makes θ grow: the tip goes down).
pub struct Arm<R: Real> {
    model: ArmModel<R>,
    data: ArmData<R>,
    trajectory: StateHash,
}

impl<R: Bits> Arm<R> {
    /// Builds the arm at rest.
    pub fn new() -> Result<Self, BuildError> {
        let mut b = ArmModel::<R>::builder(Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
        let length = R::from_f64(ARM_LENGTH);
        let rod = Body::rod(R::ONE, length, R::from_f64(0.01));
        let cg = Vec3::new(length * R::HALF, R::ZERO, R::ZERO);
        b.add_link(Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(rod.mass, cg, rod.inertia))?;
        let model = b.build()?;
        let data = ArmData::new(&model);
        Ok(Self {
            model,
            data,
            trajectory: StateHash::default(),
        })
    }

    /// Hash chained over the state after every step so far.
    pub fn trajectory(&self) -> StateHash {
        self.trajectory
    }
    /// Hash of the current state.
    pub fn final_state(&self) -> StateHash {
        StateHash::of(self.data.state())
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.data.steps()
    }
}

impl<R: Bits> hil::Plant for Arm<R> {
    type Error = PlantError;
    fn set_torque(&mut self, torque: f32) -> Result<(), PlantError> {
        self.data
            .set_input(0, R::from_f64(f64::from(torque)))
            .map_err(PlantError::Build)
    }
    fn step(&mut self) -> Result<(), PlantError> {
        tree::step(&self.model, &mut self.data, &mut Rk4, R::from_f64(ARM_DT))?;
        self.trajectory.add(self.data.state());
        Ok(())
    }
    fn sensors(&self) -> hil::Sensors {
        // A multi-turn encoder: the joint angle, not wrapped.
        let [angle, velocity] = self.data.state().try_into().unwrap_or([R::ZERO; 2]);
        hil::Sensors {
            angle: angle.to_f64() as f32,
            velocity: velocity.to_f64() as f32,
        }
    }
}

/// A named scenario of the bit-exact cross-check.
pub struct Scenario {
    /// Name printed with the hashes.
    pub name: &'static str,
    /// Runs it.
    pub run: fn(&mut dyn Hooks) -> Result<Report, PlantError>,
}

/// The scenarios run by `chain-fw` and `xcheck`, in order. Step counts keep the f64 runs
/// (soft-float on the M4F) within seconds under QEMU.
pub const SCENARIOS: [Scenario; 8] = [
    Scenario {
        name: "chain5-tree f32 rk4",
        run: |h| run_chain_tree::<f32>(ChainMethod::Rk4, 1000, h),
    },
    Scenario {
        name: "chain5-tree f32 semi-implicit-euler",
        run: |h| run_chain_tree::<f32>(ChainMethod::SemiImplicitEuler, 1000, h),
    },
    Scenario {
        name: "chain5-tree f64 rk4",
        run: |h| run_chain_tree::<f64>(ChainMethod::Rk4, 200, h),
    },
    Scenario {
        name: "chain5 f32 rk4",
        run: |h| run_chain::<f32>(ChainMethod::Rk4, 1000, h),
    },
    Scenario {
        name: "chain5 f32 semi-implicit-euler",
        run: |h| run_chain::<f32>(ChainMethod::SemiImplicitEuler, 1000, h),
    },
    Scenario {
        name: "chain5 f64 rk4",
        run: |h| run_chain::<f64>(ChainMethod::Rk4, 200, h),
    },
    Scenario {
        name: "beam6 f32 rk4",
        run: |h| run_beam::<f32>(200, h),
    },
    Scenario {
        name: "beam6 f64 rk4",
        run: |h| run_beam::<f64>(20, h),
    },
];

/// Result of a HIL run.
#[derive(Clone, Copy, Debug)]
pub struct HilReport {
    /// Hashes of the arm's states.
    pub report: Report,
    /// The loop's counters.
    pub counters: hil::Counters,
    /// The latched fault, if any.
    pub fault: Option<hil::FaultReason>,
    /// Sensor frames the rig received.
    pub frames: u32,
    /// Last sensor frame (µrad, µrad/s).
    pub sensors: (i32, i32),
    /// Fault line at the end.
    pub fault_line: bool,
}

/// Periods of the HIL cross-check run (1 s at 1 kHz).
pub const HIL_PERIODS: u32 = 1000;

/// Runs the f32 arm in the HIL loop against the emulated rig for `periods` periods with
/// `config`; `hooks` wrap every period.
pub fn run_hil(
    config: hil::Config,
    clock: impl hil::Monotonic,
    periods: u32,
    hooks: &mut dyn Hooks,
) -> Result<HilReport, PlantError> {
    let rig = rig::Rig::new();
    let arm = Arm::<f32>::new()?;
    let mut hil = hil::HilLoop::new(
        config,
        arm,
        rig.command_port(),
        rig.sensor_port(),
        rig.fault_pin(),
        clock,
    );
    for _ in 0..periods {
        hooks.before_step();
        let outcome = hil.run_period();
        hooks.after_step();
        if let hil::Outcome::Faulted(_) = outcome {
            break;
        }
    }
    let arm = hil.plant();
    Ok(HilReport {
        report: Report {
            steps: arm.steps() as u32,
            trajectory: arm.trajectory(),
            final_state: arm.final_state(),
        },
        counters: hil.counters(),
        fault: hil.fault(),
        frames: rig.frames(),
        sensors: rig.sensors(),
        fault_line: rig.fault_line(),
    })
}
