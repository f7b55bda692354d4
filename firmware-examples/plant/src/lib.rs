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
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::rigid::{self, Body};
use ferrodyn_kernel::samples::{add_box_mesh, add_revolute_chain, revolute_chain_tree, ChainSpec, GRAVITY};
use ferrodyn_kernel::tree::{self, Link};
use ferrodyn_kernel::{
    BuildError, Dynamics, ExternalForces, Fixed, Integrator, KernelError, Real, StepStats, Storage,
};

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
    /// Bytes of the model and of its data (`size_of_val`: what a static of them takes).
    pub bytes: (usize, usize),
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
    /// The room did not hold what was just lodged in it (never happens).
    Room,
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

/// A rigid model being built or built, in place, and its data.
pub struct Rigid<R: Real, St: Storage> {
    /// The builder, holding the model.
    pub builder: rigid::Builder<R, St>,
    /// The data, once the model is built.
    pub data: Option<rigid::Data<R, St>>,
}

/// A flexible model being built or built, in place, and its data.
pub struct Flex<R: Real, St: Storage> {
    /// The builder, holding the model.
    pub builder: flex::Builder<R, St>,
    /// The data, once the model is built.
    pub data: Option<flex::Data<R, St>>,
}

/// A tree model (joint coordinates) being built or built, in place, and its data.
pub struct Tree<R: Real, St: Storage> {
    /// The builder, holding the model.
    pub builder: tree::Builder<R, St>,
    /// The data, once the model is built.
    pub data: Option<tree::Data<R, St>>,
}

/// Puts a `T` in a [`Room`] (replacing whatever was there) and borrows it from there.
pub trait Lodge<T> {
    /// Replaces the contents with `make()` (an empty builder: no list buffer is written) and
    /// borrows it; `None` never happens.
    fn lodge(&mut self, make: impl FnOnce() -> T) -> Option<&mut T>;
}

macro_rules! room {
    ($($variant:ident($t:ty)),* $(,)?) => {
        /// Memory for the large models (Cartesian chain, beam) and their data, one at a time: the
        /// scenarios take turns in it. The firmware keeps it in a `static`, so its size is
        /// static RAM checked by the linker and the models are built in place, never passing
        /// through the stack.
        #[allow(clippy::large_enum_variant)] // the point: one room, the size of the largest
        pub enum Room {
            /// Nothing lodged.
            Vacant,
            $(
                #[doc = concat!("Holds a `", stringify!($t), "`.")]
                $variant($t),
            )*
        }
        $(
            impl Lodge<$t> for Room {
                fn lodge(&mut self, make: impl FnOnce() -> $t) -> Option<&mut $t> {
                    *self = Self::$variant(make());
                    match self {
                        Self::$variant(lodged) => Some(lodged),
                        _ => None,
                    }
                }
            }
        )*
    };
}

room!(
    ChainF32(Rigid<f32, Chain5>),
    ChainF64(Rigid<f64, Chain5>),
    BeamF32(Flex<f32, Beam6>),
    BeamF64(Flex<f64, Beam6>),
    // The trees generated from scene files (scene-plant), by their capacities: 1 to 8 slots,
    // each smaller than the chain and beam variants, so free in RAM (scene-plant's build.rs
    // lists these sizes, ROOM_TREE_SLOTS; a larger tree has a static of its own).
    Tree1F32(Tree<f32, Fixed<1>>),
    Tree1F64(Tree<f64, Fixed<1>>),
    Tree2F32(Tree<f32, Fixed<2>>),
    Tree2F64(Tree<f64, Fixed<2>>),
    Tree3F32(Tree<f32, Fixed<3>>),
    Tree3F64(Tree<f64, Fixed<3>>),
    Tree4F32(Tree<f32, Fixed<4>>),
    Tree4F64(Tree<f64, Fixed<4>>),
    Tree5F32(Tree<f32, Fixed<5>>),
    Tree5F64(Tree<f64, Fixed<5>>),
    Tree6F32(Tree<f32, Fixed<6>>),
    Tree6F64(Tree<f64, Fixed<6>>),
    Tree7F32(Tree<f32, Fixed<7>>),
    Tree7F64(Tree<f64, Fixed<7>>),
    Tree8F32(Tree<f32, Fixed<8>>),
    Tree8F64(Tree<f64, Fixed<8>>),
    // Three links closed by one loop joint of 5 rows (a planar four-bar, a slider-crank), without
    // and with one force element: `Fixed<slots, loop joints, forces, rows, dense workspace>`
    // (scene-plant's build.rs lists these too, ROOM_LOOP_TREES).
    Loop3F32(Tree<f32, Fixed<3, 1, 0, 5, 59>>),
    Loop3F64(Tree<f64, Fixed<3, 1, 0, 5, 59>>),
    Loop3ForceF32(Tree<f32, Fixed<3, 1, 1, 5, 59>>),
    Loop3ForceF64(Tree<f64, Fixed<3, 1, 1, 5, 59>>),
    // One link held by a drive's coordinate row (driven_crank), two links with a coupling's
    // (belt_arm), two links with one force element (hopper_sprung, beside its contact).
    Driven1F32(Tree<f32, Fixed<1, 0, 0, 1, 6>>),
    Driven1F64(Tree<f64, Fixed<1, 0, 0, 1, 6>>),
    Coupled2F32(Tree<f32, Fixed<2, 0, 0, 1, 11>>),
    Coupled2F64(Tree<f64, Fixed<2, 0, 0, 1, 11>>),
    Force2F32(Tree<f32, Fixed<2, 0, 1, 0, 0>>),
    Force2F64(Tree<f64, Fixed<2, 0, 1, 0, 0>>),
);

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

/// Steps the 5-link chain `steps` times, built in `room`.
pub fn run_chain<R: Real>(
    room: &mut Room,
    method: ChainMethod,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError>
where
    Room: Lodge<Rigid<R, Chain5>>,
{
    let gravity = Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY));
    let lodged = room.lodge(|| Rigid {
        builder: rigid::Model::builder(gravity),
        data: None,
    });
    let Rigid { builder, data } = lodged.ok_or(PlantError::Room)?;
    add_revolute_chain(builder, &ChainSpec::standard(CHAIN_LINKS))?;
    let model = builder.build_in_place()?;
    let data = rigid::Data::new_in(data, model);
    run_with(model, data, method, R::from_f64(CHAIN_DT), steps, hooks)
}

/// Steps the 5-link chain in joint coordinates `steps` times (a small model: on the stack).
pub fn run_chain_tree<R: Real>(
    method: ChainMethod,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    let model = revolute_chain_tree::<R, Chain5Tree>(&ChainSpec::standard(CHAIN_LINKS))?;
    run_with(
        &model,
        &mut model.new_data(),
        method,
        R::from_f64(CHAIN_DT),
        steps,
        hooks,
    )
}

/// Capacities of the spatial tree: 4 links.
pub type Spatial4 = Fixed<4>;
/// Spatial tree step (s).
pub const SPATIAL_DT: f64 = 1e-3;

/// A non-planar 4-link tree in joint coordinates, so that every component of the spatial
/// algebra (dot and cross products, rotations, inertia transforms) is non-zero and rounding in
/// all of them shows in the hash: skewed joint axes, none parallel to another or to a world
/// axis; joint origins and CGs off the axes; full (non-diagonal) inertias; a prismatic joint; a
/// branch (links 2 and 3 both on link 1); gravity along no axis; a moving initial state.
pub fn spatial_tree<R: Real>() -> Result<tree::Model<R, Spatial4>, BuildError> {
    let v = |x: f64, y: f64, z: f64| Vec3::new(R::from_f64(x), R::from_f64(y), R::from_f64(z));
    let inertia = |d: Vec3<R>, xy: f64, xz: f64, yz: f64| {
        Mat3::symmetric(d, R::from_f64(xy), R::from_f64(xz), R::from_f64(yz))
    };
    let mut b = tree::Model::builder(v(1.3, -2.1, -9.6));
    let links = [
        Link::revolute(None, v(0.1, -0.05, 0.2), v(0.3, 0.2, 0.93)).with_mass(
            R::from_f64(1.5),
            v(0.25, 0.05, -0.03),
            inertia(v(0.010, 0.035, 0.040), 0.002, -0.001, 0.0015),
        ),
        Link::revolute(Some(0), v(0.5, 0.08, -0.04), v(0.9, -0.35, 0.26))
            .with_mass(
                R::ONE,
                v(0.2, -0.04, 0.06),
                inertia(v(0.006, 0.02, 0.018), 0.001, 0.0005, -0.0008),
            )
            .with_damping(R::from_f64(0.02)),
        Link::prismatic(Some(1), v(0.4, 0.0, 0.1), v(0.2, 0.7, -0.68))
            .with_mass(
                R::from_f64(0.6),
                v(0.05, 0.1, 0.0),
                inertia(v(0.003, 0.004, 0.005), -0.0004, 0.0002, 0.0003),
            )
            .with_damping(R::from_f64(0.5)),
        Link::revolute(Some(1), v(0.35, -0.12, -0.07), v(-0.4, 0.1, 0.9)).with_mass(
            R::from_f64(0.8),
            v(0.15, 0.02, -0.05),
            inertia(v(0.004, 0.012, 0.011), 0.0006, -0.0003, 0.0009),
        ),
    ];
    for link in links {
        b.add_link(link)?;
    }
    b.build()
}

/// Steps the spatial tree `steps` times with RK4 from q = (0.4, −0.7, 0.05, 1.1),
/// q̇ = (1.5, −2, 0.3, 3).
pub fn run_spatial_tree<R: Real>(steps: u32, hooks: &mut dyn Hooks) -> Result<Report, PlantError> {
    let model = spatial_tree::<R>()?;
    let mut data = model.new_data();
    let start = [(0.4, 1.5), (-0.7, -2.0), (0.05, 0.3), (1.1, 3.0)];
    for (joint, (q, rate)) in start.into_iter().enumerate() {
        data.set_position(joint, R::from_f64(q))?;
        data.set_velocity(joint, R::from_f64(rate))?;
    }
    run(&model, &mut data, &mut Rk4, R::from_f64(SPATIAL_DT), steps, hooks)
}

/// Steps any model `steps` times with `method`.
fn run_with<R: Real, M: Dynamics<R>>(
    model: &M,
    data: &mut M::Data,
    method: ChainMethod,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    match method {
        ChainMethod::Rk4 => run(model, data, &mut Rk4, dt, steps, hooks),
        ChainMethod::SemiImplicitEuler => run(model, data, &mut SemiImplicitEuler, dt, steps, hooks),
    }
}

/// Steps any model `steps` times from the state in `data`, hashing the state after every step.
pub fn run<R: Real, M: Dynamics<R>, I: Integrator<R>>(
    model: &M,
    data: &mut M::Data,
    integrator: &mut I,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
) -> Result<Report, PlantError> {
    run_steps(model, data, steps, hooks, |model, data| {
        model.step(data, integrator, dt)
    })
}

/// [`run`] with `external` forces (a scene's force elements or contacts): shown the state in
/// `data` first, then evaluated at every stage of every step (`Dynamics::step_with`), as
/// `ferrodyn run` steps them.
pub fn run_loaded<R: Real, M: Dynamics<R>, I: Integrator<R>, E: ExternalForces<R>>(
    model: &M,
    data: &mut M::Data,
    integrator: &mut I,
    dt: R,
    steps: u32,
    hooks: &mut dyn Hooks,
    external: &mut E,
) -> Result<Report, PlantError> {
    model.accept(data, external)?;
    run_steps(model, data, steps, hooks, |model, data| {
        model.step_with(data, integrator, dt, external)
    })
}

/// Takes `steps` steps of `step`, measured by `hooks`, hashing the state after every step.
fn run_steps<R: Real, M: Dynamics<R>>(
    model: &M,
    data: &mut M::Data,
    steps: u32,
    hooks: &mut dyn Hooks,
    mut step: impl FnMut(&M, &mut M::Data) -> Result<StepStats, KernelError>,
) -> Result<Report, PlantError> {
    let mut trajectory = Digest::default();
    for _ in 0..steps {
        hooks.before_step();
        let result = step(model, data);
        hooks.after_step();
        result?;
        trajectory.add(model.state(data));
    }
    Ok(Report {
        steps,
        trajectory,
        final_state: model.digest(data),
        bytes: (core::mem::size_of_val(model), core::mem::size_of_val(data)),
    })
}

/// Capacities of the 6-tet beam: 8 nodes, 6 elements and the mass-matrix profile entries it
/// needs, exactly.
pub type Beam6 = Fixed<0, 0, 0, 0, 0, 8, 6, 1533>;
/// Beam step (s): below the RK4 stability limit of its stiffest mode.
pub const BEAM_DT: f64 = 1e-5;

/// Adds the 6-tet ANCF block to `b` (a builder of material E = 1 MPa, ν = 0.3, ρ = 1000 kg/m³,
/// gravity −z: [`beam6_material`]): 0.2 × 0.1 × 0.1 m, root face (x = 0) clamped.
pub fn add_beam6<R: Real>(b: &mut flex::Builder<R, Beam6>) -> Result<(), BuildError> {
    let size = Vec3::new(R::from_f64(0.2), R::from_f64(0.1), R::from_f64(0.1));
    add_box_mesh(b, Vec3::ZERO, size, [1, 1, 1])?;
    b.fix_plane(
        0,
        R::ZERO,
        R::from_f64(1e-6),
        Fixity::ClampedFace { normal_axis: 0 },
    )?;
    Ok(())
}

/// The beam's material.
pub fn beam6_material<R: Real>() -> Result<Material<R>, BuildError> {
    Material::st_venant_kirchhoff(R::from_f64(1e6), R::from_f64(0.3), R::from_f64(1000.0)).map_err(|_| {
        BuildError::InvalidParameter {
            item: ferrodyn_kernel::Item::Material,
            reason: "beam material",
        }
    })
}

/// Steps the 6-tet beam `steps` times with RK4, built in `room`.
pub fn run_beam<R: Real>(room: &mut Room, steps: u32, hooks: &mut dyn Hooks) -> Result<Report, PlantError>
where
    Room: Lodge<Flex<R, Beam6>>,
{
    let (model, data) = build_beam(room)?;
    run(model, data, &mut Rk4, R::from_f64(BEAM_DT), steps, hooks)
}

/// Builds the beam and its data in `room`. Not inlined, so that the building's stack frames are
/// not part of the stepping's.
#[inline(never)]
fn build_beam<R: Real>(room: &mut Room) -> Result<FlexParts<'_, R, Beam6>, PlantError>
where
    Room: Lodge<Flex<R, Beam6>>,
{
    let material = beam6_material::<R>()?;
    let gravity = Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY));
    let lodged = room.lodge(|| Flex {
        builder: flex::Model::builder(material, gravity),
        data: None,
    });
    let Flex { builder, data } = lodged.ok_or(PlantError::Room)?;
    add_beam6(builder)?;
    let model = builder.build_in_place()?;
    Ok((model, flex::Data::new_in(data, model)))
}

/// A flexible model and its data, borrowed from where they were built.
type FlexParts<'a, R, St> = (&'a flex::Model<R, St>, &'a mut flex::Data<R, St>);

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
    /// Bytes of the model and of its data.
    pub fn bytes(&self) -> (usize, usize) {
        (
            core::mem::size_of_val(&self.model),
            core::mem::size_of_val(&self.data),
        )
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
    /// Runs it (large models built in the room).
    pub run: fn(&mut Room, &mut dyn Hooks) -> Result<Report, PlantError>,
}

/// The scenarios run by `chain-fw` and `xcheck`, in order. Step counts keep the f64 runs
/// (soft-float on the M4F) within seconds under QEMU.
pub const SCENARIOS: [Scenario; 10] = [
    Scenario {
        name: "chain5-tree f32 rk4",
        run: |_, h| run_chain_tree::<f32>(ChainMethod::Rk4, 1000, h),
    },
    Scenario {
        name: "chain5-tree f32 semi-implicit-euler",
        run: |_, h| run_chain_tree::<f32>(ChainMethod::SemiImplicitEuler, 1000, h),
    },
    Scenario {
        name: "chain5-tree f64 rk4",
        run: |_, h| run_chain_tree::<f64>(ChainMethod::Rk4, 200, h),
    },
    Scenario {
        name: "spatial4-tree f32 rk4",
        run: |_, h| run_spatial_tree::<f32>(1000, h),
    },
    Scenario {
        name: "spatial4-tree f64 rk4",
        run: |_, h| run_spatial_tree::<f64>(200, h),
    },
    Scenario {
        name: "chain5 f32 rk4",
        run: |room, h| run_chain::<f32>(room, ChainMethod::Rk4, 1000, h),
    },
    Scenario {
        name: "chain5 f32 semi-implicit-euler",
        run: |room, h| run_chain::<f32>(room, ChainMethod::SemiImplicitEuler, 1000, h),
    },
    Scenario {
        name: "chain5 f64 rk4",
        run: |room, h| run_chain::<f64>(room, ChainMethod::Rk4, 200, h),
    },
    Scenario {
        name: "beam6 f32 rk4",
        run: |room, h| run_beam::<f32>(room, 200, h),
    },
    Scenario {
        name: "beam6 f64 rk4",
        run: |room, h| run_beam::<f64>(room, 20, h),
    },
];

/// What a HIL plant reports of its run: the hashes of its states.
pub trait Traced {
    /// Steps taken.
    fn steps(&self) -> u64;
    /// Digest chained over the state after every step so far.
    fn trajectory(&self) -> Digest;
    /// Digest of the current state.
    fn final_state(&self) -> Digest;
    /// Bytes of the model and of its data.
    fn bytes(&self) -> (usize, usize);
}

impl<R: Real> Traced for Arm<R> {
    fn steps(&self) -> u64 {
        Arm::steps(self)
    }
    fn trajectory(&self) -> Digest {
        Arm::trajectory(self)
    }
    fn final_state(&self) -> Digest {
        Arm::final_state(self)
    }
    fn bytes(&self) -> (usize, usize) {
        Arm::bytes(self)
    }
}

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
    run_hil_with(Arm::<f32>::new()?, config, clock, periods, hooks)
}

/// Runs `arm`, any HIL plant, in the HIL loop against the emulated rig for `periods` periods
/// with `config`; `hooks` wrap every period.
pub fn run_hil_with<P: hil::Plant + Traced>(
    arm: P,
    config: hil::Config,
    clock: impl hil::Monotonic,
    periods: u32,
    hooks: &mut dyn Hooks,
) -> Result<HilReport, PlantError> {
    let rig = rig::Rig::new();
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
            bytes: arm.bytes(),
        },
        counters: hil.counters(),
        fault: hil.fault(),
        frames: rig.frames(),
        sensors: rig.sensors(),
        fault_line: rig.fault_line(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spatial tree moves in all three dimensions, loses energy only to its joint damping,
    /// and its f32 run follows the f64 one.
    #[test]
    fn spatial_tree_is_spatial_dissipative_and_f32_follows_f64() {
        let model = spatial_tree::<f64>().unwrap();
        let model32 = spatial_tree::<f32>().unwrap();
        let mut data = model.new_data();
        let mut data32 = model32.new_data();
        for (joint, (q, rate)) in [(0.4, 1.5), (-0.7, -2.0), (0.05, 0.3), (1.1, 3.0)]
            .into_iter()
            .enumerate()
        {
            data.set_position(joint, q).unwrap();
            data.set_velocity(joint, rate).unwrap();
            data32.set_position(joint, q as f32).unwrap();
            data32.set_velocity(joint, rate as f32).unwrap();
        }
        let e0 = model.energy(&data).unwrap().total();
        let mut previous = e0;
        for _ in 0..200 {
            model.step(&mut data, &mut Rk4, SPATIAL_DT).unwrap();
            model32.step(&mut data32, &mut Rk4, SPATIAL_DT as f32).unwrap();
            let e = model.energy(&data).unwrap().total();
            assert!(
                e <= previous + 1e-9 * e0.abs().max(1.0),
                "energy grew: {previous} → {e}"
            );
            previous = e;
        }
        assert!(previous < e0, "the dampers took no energy");
        for (a, b) in data.state().iter().zip(data32.state()) {
            assert!(
                (a - f64::from(*b)).abs() < 1e-3 * (1.0 + a.abs()),
                "f32 {b} vs f64 {a}"
            );
        }
        // Every joint moved: the motion is not confined to a plane of one joint.
        for (q, q0) in data.positions().iter().zip([0.4, -0.7, 0.05, 1.1]) {
            assert!((q - q0).abs() > 1e-3);
        }
    }
}
