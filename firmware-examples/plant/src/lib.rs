//! # plant — the models the firmware steps, shared with the host cross-check
//!
//! The Cortex-M firmware (`chain-fw`, `hil-fw`) and the x86_64 cross-check (`xcheck`) call the
//! very same scenario functions here, so both step the same model with the same inputs; only
//! the [`Hooks`] differ (instruction-count markers on the MCU, nothing on the host). Each
//! scenario returns a [`Report`] of two FNV-1a hashes over the IEEE bits of the state: one
//! chained over every step (the trajectory) and one of the final state.
//!
//! Models (each with its capacities spelled once, in one `Fixed` type):
//! - `chain5`: the kernel's sample 5-link revolute chain (1 m, 1 kg rods), released
//!   horizontally, RK4 or semi-implicit Euler at 1 ms, in Cartesian coordinates (`rigid::Model`:
//!   bodies, constraints, projection);
//! - `chain5-tree`: the same chain in joint coordinates (`tree::Model`, articulated-body
//!   algorithm);
//! - `beam6`: an ANCF block 0.2 × 0.1 × 0.1 m of 6 tetrahedra (one hexahedron), root face
//!   clamped, sagging under gravity, RK4 at 10 µs;
//! - [`Arm`]: one 0.5 m, 1 kg rod on a revolute joint about y in joint coordinates, driven by
//!   an actuator torque set every period as the joint's input: the HIL plant.
#![no_std]

pub mod rig;

use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::flex::{self, Fixity};
use ferrodyn_kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::Body;
use ferrodyn_kernel::samples::{add_box_mesh, revolute_chain, revolute_chain_tree, ChainSpec, GRAVITY};
use ferrodyn_kernel::tree::{self, Link};
use ferrodyn_kernel::{BuildError, Dynamics, Fixed, Integrator, KernelError, Real};

pub use ferrodyn_kernel::Digest;

/// Result of a scenario: hashes to compare between targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// Steps taken.
    pub steps: u32,
    /// Digest chained over the state after every step.
    pub trajectory: Digest,
    /// Digest of the final state.
    pub final_state: Digest,
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
/// Capacities of the 5-link chain in Cartesian coordinates: 5 bodies, 5 joints, no force
/// element, 25 constraint rows, its skyline entries.
pub type Chain5 = Fixed<
    CHAIN_LINKS,
    CHAIN_LINKS,
    0,
    { 5 * CHAIN_LINKS },
    { ChainSpec::<f64>::skyline_entries(CHAIN_LINKS) },
>;
/// Capacities of the 5-link chain in joint coordinates: 5 links.
pub type Chain5Tree = Fixed<CHAIN_LINKS>;
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
pub fn run_chain<R: Real>(
    method: ChainMethod,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let model = revolute_chain::<R, Chain5>(&ChainSpec::standard(CHAIN_LINKS))?;
    run_with(&model, method, R::from_f64(CHAIN_DT), steps, hooks)
}

/// Steps the 5-link chain in joint coordinates `steps` times.
pub fn run_chain_tree<R: Real>(
    method: ChainMethod,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let model = revolute_chain_tree::<R, Chain5Tree>(&ChainSpec::standard(CHAIN_LINKS))?;
    run_with(&model, method, R::from_f64(CHAIN_DT), steps, hooks)
}

/// Steps any model `steps` times with `method`.
fn run_with<R: Real, M: Dynamics<R>>(
    model: &M,
    method: ChainMethod,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    match method {
        ChainMethod::Rk4 => run(model, &mut Rk4, dt, steps, hooks),
        ChainMethod::SemiImplicitEuler => run(model, &mut SemiImplicitEuler, dt, steps, hooks),
    }
}

/// Steps any model `steps` times from its initial state, hashing the state after every step.
fn run<R: Real, M: Dynamics<R>, I: Integrator<R>>(
    model: &M,
    integrator: &mut I,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let mut data = model.new_data();
    let mut trajectory = Digest::default();
    for _ in 0..steps {
        hooks.before_step();
        let result = model.step(&mut data, integrator, dt);
        hooks.after_step();
        result?;
        trajectory.add(model.state(&data));
    }
    Ok(Report {
        steps,
        trajectory,
        final_state: model.digest(&data),
    })
}

/// Capacities of the 6-tet beam: 8 nodes, 6 elements and the mass-matrix profile entries it
/// needs, exactly.
pub type Beam6 = Fixed<0, 0, 0, 0, 0, 8, 6, 1533>;
/// Beam step (s): below the RK4 stability limit of its stiffest mode.
pub const BEAM_DT: f64 = 1e-5;

/// The 6-tet ANCF block: 0.2 × 0.1 × 0.1 m, E = 1 MPa, ν = 0.3, ρ = 1000 kg/m³, root face
/// (x = 0) clamped, gravity −z.
pub fn beam6<R: Real>() -> Result<flex::Model<R, Beam6>, BuildError> {
    let material = Material::st_venant_kirchhoff(R::from_f64(1e6), R::from_f64(0.3), R::from_f64(1000.0))
        .map_err(|_| BuildError::InvalidParameter {
            item: ferrodyn_kernel::Item::Material,
            reason: "beam material",
        })?;
    let mut b = flex::Model::builder(material, Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
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
pub fn run_beam<R: Real>(steps: u32, hooks: &mut dyn Hooks) -> Result<Report, PlantError> {
    run(&beam6::<R>()?, &mut Rk4, R::from_f64(BEAM_DT), steps, hooks)
}

/// Capacities of the HIL arm: one link on a revolute joint, in joint coordinates.
pub type ArmCapacities = Fixed<1>;
/// HIL period (s): 1 kHz.
pub const ARM_DT: f64 = 1e-3;
/// Arm length (m).
pub const ARM_LENGTH: f64 = 0.5;

/// The HIL plant: an arm on a hinge about global y at the origin, initially horizontal along
/// +x, under gravity and an actuator torque about +y. Angle θ: rotation about +y from +x
/// (gravity makes θ grow: the tip goes down).
pub struct Arm<R: Real> {
    model: tree::Model<R, ArmCapacities>,
    data: tree::Data<R, ArmCapacities>,
    trajectory: Digest,
}

impl<R: Real> Arm<R> {
    /// Builds the arm at rest.
    pub fn new() -> Result<Self, BuildError> {
        let mut b = tree::Model::builder(Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
        let length = R::from_f64(ARM_LENGTH);
        let rod = Body::rod(R::ONE, length, R::from_f64(0.01));
        let cg = Vec3::new(length * R::HALF, R::ZERO, R::ZERO);
        b.add_link(Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(rod.mass, cg, rod.inertia))?;
        let model = b.build()?;
        let data = model.new_data();
        Ok(Self {
            model,
            data,
            trajectory: Digest::default(),
        })
    }

    /// Digest chained over the state after every step so far.
    pub fn trajectory(&self) -> Digest {
        self.trajectory
    }
    /// Digest of the current state.
    pub fn final_state(&self) -> Digest {
        self.model.digest(&self.data)
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.data.steps()
    }
}

impl<R: Real> hil::Plant for Arm<R> {
    type Error = PlantError;
    fn set_torque(&mut self, torque: f32) -> Result<(), PlantError> {
        self.data
            .set_input(0, R::from_f64(f64::from(torque)))
            .map_err(PlantError::Build)
    }
    fn step(&mut self) -> Result<(), PlantError> {
        self.model.step(&mut self.data, &mut Rk4, R::from_f64(ARM_DT))?;
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
