//! The scene file as written: serde types mirroring the TOML tables, before any checking.
//!
//! Every table denies unknown keys. Fields that validation may complain about are wrapped in
//! [`Spanned`] so the error can point at their line; whole items are spanned too.

use serde::Deserialize;
use toml::Spanned;

/// A number with its place in the file.
pub type Num = Spanned<f64>;
/// A vector `[x, y, z]` with its place in the file.
pub type Vec3Field = Spanned<[f64; 3]>;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScene {
    /// `[simulation]`.
    pub simulation: Spanned<RawSimulation>,
    /// `[[body]]` tables.
    #[serde(default)]
    pub body: Vec<Spanned<RawBody>>,
    /// `[[joint]]` tables.
    #[serde(default)]
    pub joint: Vec<Spanned<RawJoint>>,
    /// `[[drive]]` tables.
    #[serde(default)]
    pub drive: Vec<Spanned<RawDrive>>,
    /// `[[force]]` tables.
    #[serde(default)]
    pub force: Vec<Spanned<RawForce>>,
    /// `[[flexible]]` tables.
    #[serde(default)]
    pub flexible: Vec<Spanned<RawFlexible>>,
    /// `[[sensor]]` tables.
    #[serde(default)]
    pub sensor: Vec<Spanned<RawSensor>>,
    /// `[[input]]` tables.
    #[serde(default)]
    pub input: Vec<Spanned<RawInput>>,
    /// `[[coupling]]` tables.
    #[serde(default)]
    pub coupling: Vec<Spanned<RawCoupling>>,
    /// `[[tendon]]` tables.
    #[serde(default)]
    pub tendon: Vec<Spanned<RawTendon>>,
    /// `[[shape]]` tables (contact geometry).
    #[serde(default)]
    pub shape: Vec<Spanned<RawShape>>,
    /// `[[contact_material]]` tables.
    #[serde(default)]
    pub contact_material: Vec<Spanned<RawContactMaterial>>,
    /// `[output]`.
    #[serde(default)]
    pub output: RawOutput,
}

/// `[[coupling]]`: `joint`'s coordinate = multiplier · `follows`'s + offset.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCoupling {
    /// Unique coupling name.
    pub name: Spanned<String>,
    /// The joint held (revolute or prismatic).
    pub joint: Spanned<String>,
    /// The joint it follows (revolute or prismatic).
    pub follows: Spanned<String>,
    /// m (default 1).
    pub multiplier: Option<Num>,
    /// c, rad or m (default 0).
    pub offset: Option<Num>,
}

/// `[[tendon]]`: a fixed tendon, length L = Σ cᵢ θᵢ over revolute and prismatic joints, with a
/// spring-damper and end stops on L.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTendon {
    /// Unique tendon name.
    pub name: Spanned<String>,
    /// The joints whose coordinates make the length.
    pub joints: Spanned<Vec<String>>,
    /// Their coefficients cᵢ, one per joint.
    pub coefficients: Spanned<Vec<f64>>,
    /// Spring stiffness (N/m of tendon length; default 0).
    pub stiffness: Option<Num>,
    /// Damping (N·s/m; default 0).
    pub damping: Option<Num>,
    /// The spring's rest length, or the band [lower, upper] it is slack in (default 0).
    pub rest_length: Option<Spanned<RawLength>>,
    /// [lower, upper] of the length, with end stops.
    pub limits: Option<Spanned<[f64; 2]>>,
    /// End-stop stiffness of the limits.
    pub limit_stiffness: Option<Num>,
    /// End-stop damping of the limits.
    pub limit_damping: Option<Num>,
}

/// A length, or a band [lower, upper] of lengths.
#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(untagged)]
pub enum RawLength {
    /// One length.
    One(f64),
    /// [lower, upper].
    Band([f64; 2]),
}

/// `[[input]]`: an actuator port on a joint (torque on a revolute joint, force on a
/// prismatic one, or a servo's set-point), set by the rig (firmware) or held at `value`
/// (`ferrodyn run`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInput {
    /// Unique input name.
    pub name: Spanned<String>,
    /// The actuated joint.
    pub joint: Spanned<String>,
    /// SI units per port unit: the actuator gets port value × `scale` (default 1).
    pub scale: Option<Num>,
    /// The port value held by `ferrodyn run` (default 0).
    pub value: Option<Num>,
    /// What the port commands: `torque` (revolute) or `force` (prismatic), the default, or
    /// the set-point of a `position` or `velocity` servo.
    pub kind: Option<Spanned<String>>,
    /// Position servo stiffness (N·m/rad or N/m).
    pub kp: Option<Num>,
    /// Position servo damping (N·m·s/rad or N·s/m, default 0).
    pub kd: Option<Num>,
    /// Velocity servo gain (N·m·s/rad or N·s/m).
    pub kv: Option<Num>,
}

/// `[[sensor]]`: a body-fixed point (`body`, `point`) or a joint's angle (`joint`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSensor {
    /// Unique sensor name.
    pub name: Spanned<String>,
    /// Body carrying the point.
    pub body: Option<Spanned<String>>,
    /// The point in body coordinates (default: the body origin).
    pub point: Option<Vec3Field>,
    /// Revolute or cylindrical joint whose angle and rate are measured.
    pub joint: Option<Spanned<String>>,
    /// Flexible body carrying the node nearest to `point` (reference coordinates).
    pub flexible: Option<Spanned<String>>,
    /// Body in whose frame a flexible node's displacement is measured (default: global).
    pub frame: Option<Spanned<String>>,
    /// SI units per port unit of an exported model's outputs: port value = SI value / scale
    /// (default 1; sensors.csv stays in SI).
    pub scale: Option<Num>,
    /// Draw it in sensors.png (default true).
    #[serde(default = "yes")]
    pub plot: bool,
    /// An encoder's zero: `"initial"` (default: the scene's initial pose reads 0, as the
    /// servo measures), `"frames"` (the joint frames' x axes aligned read 0), or an angle in
    /// rad (the joint-frame angle that reads 0).
    pub zero: Option<Spanned<RawZero>>,
}

/// An encoder's `zero`: a word or an angle.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RawZero {
    /// `"initial"` or `"frames"`.
    Word(String),
    /// An angle (rad).
    Angle(f64),
}

/// `[simulation]`: time span, step, integrator, gravity.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSimulation {
    /// End time (s).
    pub end_time: Num,
    /// Step size (s).
    pub step: Num,
    /// Integrator name (default rk4).
    pub integrator: Option<Spanned<String>>,
    /// Formulation of the rigid part: auto (default), tree or cartesian.
    pub formulation: Option<Spanned<String>>,
    /// Relative tolerance of the adaptive integrators.
    pub rtol: Option<Num>,
    /// Absolute tolerance of the adaptive integrators.
    pub atol: Option<Num>,
    /// Interval between output samples (s, default: every step).
    pub output_interval: Option<Num>,
    /// Gravity (m/s², default [0, 0, −9.81]).
    pub gravity: Option<Vec3Field>,
    /// `[simulation.implicit]`: settings of the implicit integrators (hht, newmark).
    pub implicit: Option<Spanned<RawImplicit>>,
}

/// Inertia tensor entries about the CG, in body axes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)] // The keys are the conventional symbols Ixx, Ixy...
pub struct RawInertia {
    /// I_xx.
    pub Ixx: f64,
    /// I_yy.
    pub Iyy: f64,
    /// I_zz.
    pub Izz: f64,
    /// I_xy (tensor entry, default 0).
    #[serde(default)]
    pub Ixy: f64,
    /// I_xz (tensor entry, default 0).
    #[serde(default)]
    pub Ixz: f64,
    /// I_yz (tensor entry, default 0).
    #[serde(default)]
    pub Iyz: f64,
}

/// An orientation: roll/pitch/yaw (radians, R = Rz Ry Rx) or a quaternion `[w, x, y, z]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOrientation {
    /// Roll about x (rad).
    pub roll: Option<f64>,
    /// Pitch about y (rad).
    pub pitch: Option<f64>,
    /// Yaw about z (rad).
    pub yaw: Option<f64>,
    /// Unit quaternion `[w, x, y, z]`.
    pub quaternion: Option<[f64; 4]>,
}

/// `[[body]]`: a rigid body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBody {
    /// Unique integer id.
    pub id: Spanned<i64>,
    /// Unique name (joints and forces refer to it).
    pub name: Spanned<String>,
    /// Mass (kg).
    pub mass: Num,
    /// Inertia about the CG (kg·m²).
    pub inertia: Spanned<RawInertia>,
    /// CG in body coordinates (default origin).
    pub cg: Option<Vec3Field>,
    /// Initial position of the body origin (global, default origin).
    pub pos: Option<Vec3Field>,
    /// Initial orientation (default identity).
    pub orient: Option<Spanned<RawOrientation>>,
    /// Initial velocity of the body origin (global).
    pub velocity: Option<Vec3Field>,
    /// Initial angular velocity (body axes).
    pub angular_velocity: Option<Vec3Field>,
}

/// A joint frame on one side: origin plus either a z axis or a full orientation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFrame {
    /// Origin in body coordinates (global for the ground).
    #[serde(default)]
    pub origin: [f64; 3],
    /// The frame's z axis (any non-zero length).
    pub axis: Option<Vec3Field>,
    /// The frame's orientation relative to the body. Boxed: most frames give an axis, and
    /// inline it would make every joint's two frames 180 B larger (a million-joint file).
    pub orientation: Option<Box<RawOrientation>>,
}

/// `[[joint]]`: a constraint between two bodies (or a body and the ground).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJoint {
    /// Unique name among joints and drives.
    pub name: Spanned<String>,
    /// spherical | revolute | prismatic | cylindrical | universal | fixed | distance.
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    /// First body name or "ground".
    pub body_i: Spanned<String>,
    /// Second body name or "ground".
    pub body_j: Spanned<String>,
    /// Frame on body i (default: at its origin, body axes).
    pub frame_i: Option<Spanned<RawFrame>>,
    /// Frame on body j.
    pub frame_j: Option<Spanned<RawFrame>>,
    /// Distance (distance joints only, m).
    pub length: Option<Num>,
    /// Range of a revolute (rad) or prismatic (m) joint's coordinate, [lower, upper].
    pub limits: Option<Spanned<[f64; 2]>>,
    /// End-stop stiffness of the limits (N·m/rad or N/m).
    pub limit_stiffness: Option<Num>,
    /// End-stop damping of the limits (N·m·s/rad or N·s/m).
    pub limit_damping: Option<Num>,
    /// Rotor inertia on each of the joint's coordinates (kg·m² for a rotation, kg for a slide).
    pub armature: Option<Num>,
    /// Sliding (Coulomb) friction of a revolute (N·m) or prismatic (N) joint.
    pub friction: Option<Num>,
    /// The friction's smoothing velocity (rad/s or m/s).
    pub friction_velocity: Option<Num>,
}

/// A prescribed function of time (externally tagged: `{ ramp = { slope = 2.0 } }`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RawFunction {
    /// f = value.
    Constant(f64),
    /// f = initial before start, then initial + slope (t − start).
    Ramp {
        /// Start time (default 0).
        #[serde(default)]
        start: f64,
        /// Value before the start (default 0).
        #[serde(default)]
        initial: f64,
        /// Slope after the start.
        slope: f64,
    },
    /// f = offset + amplitude sin(omega t + phase).
    Sine {
        /// Mean (default 0).
        #[serde(default)]
        offset: f64,
        /// Amplitude.
        amplitude: f64,
        /// Angular frequency (rad/s).
        omega: f64,
        /// Phase (rad, default 0).
        #[serde(default)]
        phase: f64,
    },
    /// Piecewise-linear `[[t, f], ...]`.
    Table(Vec<[f64; 2]>),
    /// Piecewise cubic `{ points = [[t, f], ...], slopes = [...] }` or with a slope `rule`.
    Cubic(RawCubic),
    /// Pieces of a cubic polynomial plus a harmonic term: `[{ start, poly, cos, sin, omega }, ...]`.
    Piecewise(Vec<RawPiece>),
    /// A ramp whose slope rises smoothly (cycloidal) from 0 to `slope` over `duration`.
    SmoothRamp {
        /// Start time (default 0).
        #[serde(default)]
        start: f64,
        /// Value before the start (default 0).
        #[serde(default)]
        initial: f64,
        /// Time over which the slope rises (> 0).
        duration: f64,
        /// Slope reached at start + duration.
        slope: f64,
    },
}

/// `cubic = { points, slopes | rule }`: a piecewise cubic Hermite table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCubic {
    /// `[[t, f], ...]`, t increasing strictly.
    pub points: Vec<[f64; 2]>,
    /// df/dt at each point (or `rule`).
    pub slopes: Option<Vec<f64>>,
    /// spline (default, not-a-knot) | monotone: how the slopes are set when not given.
    pub rule: Option<String>,
}

/// One piece of a `piecewise` function: with τ = t − start,
/// `f = poly[0] + poly[1]τ + poly[2]τ² + poly[3]τ³ + cos·cos(ωτ) + sin·sin(ωτ)`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPiece {
    /// Time from which the piece applies.
    pub start: f64,
    /// Up to 4 polynomial coefficients in powers of τ (default none).
    #[serde(default)]
    pub poly: Vec<f64>,
    /// Amplitude of cos(ωτ) (default 0).
    #[serde(default)]
    pub cos: f64,
    /// Amplitude of sin(ωτ) (default 0).
    #[serde(default)]
    pub sin: f64,
    /// ω (rad/s) of the harmonic term (or `period`).
    pub omega: Option<f64>,
    /// Period 2π/ω (s) of the harmonic term (or `omega`).
    pub period: Option<f64>,
}

/// `[[drive]]`: a joint coordinate prescribed in time.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDrive {
    /// Unique name among joints and drives.
    pub name: Spanned<String>,
    /// First body name or "ground".
    pub body_i: Spanned<String>,
    /// Second body name or "ground".
    pub body_j: Spanned<String>,
    /// Frame on body i.
    pub frame_i: Option<Spanned<RawFrame>>,
    /// Frame on body j.
    pub frame_j: Option<Spanned<RawFrame>>,
    /// rotation | translation.
    pub coordinate: Spanned<String>,
    /// The prescribed value (or `velocity`).
    pub function: Option<Spanned<RawFunction>>,
    /// The prescribed rate: the coordinate is `initial` + ∫₀ᵗ velocity (or `function`).
    pub velocity: Option<Spanned<RawFunction>>,
    /// The coordinate at t = 0 of a velocity drive (default 0).
    pub initial: Option<Num>,
}

/// `[[force]]`: one flat table for all force types; validation checks which keys apply.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawForce {
    /// Unique name among forces.
    pub name: Spanned<String>,
    /// point | torque | spring_damper | rotational_spring_damper | translational_spring_damper.
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    /// Body (point, torque).
    pub body: Option<Spanned<String>>,
    /// Point of application, body coordinates (point).
    pub point: Option<Vec3Field>,
    /// Direction, its length scales the load (point, torque).
    pub direction: Option<Vec3Field>,
    /// Axes of the direction: "global" (default) or "body".
    pub axes: Option<Spanned<String>>,
    /// Magnitude in time (point, torque; default constant 1).
    pub function: Option<Spanned<RawFunction>>,
    /// First body name or "ground" (spring_damper).
    pub body_i: Option<Spanned<String>>,
    /// Attachment on body i (spring_damper).
    pub point_i: Option<Vec3Field>,
    /// Second body name or "ground" (spring_damper).
    pub body_j: Option<Spanned<String>>,
    /// Attachment on body j (spring_damper).
    pub point_j: Option<Vec3Field>,
    /// Stiffness (spring_damper and translational N/m, rotational N·m/rad).
    pub stiffness: Option<Num>,
    /// Damping (spring_damper and translational N·s/m, rotational N·m·s/rad).
    pub damping: Option<Num>,
    /// Rest length (spring_damper, m).
    pub rest_length: Option<Num>,
    /// Joint name (rotational_spring_damper, translational_spring_damper).
    pub joint: Option<Spanned<String>>,
    /// Rest angle (rotational_spring_damper, rad).
    pub rest_angle: Option<Num>,
    /// Rest slide (translational_spring_damper, m).
    pub rest_position: Option<Num>,
}

/// A flexible body's material.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMaterial {
    /// svk | neo_hookean.
    pub law: Spanned<String>,
    /// Young's modulus (Pa).
    #[serde(rename = "E")]
    pub youngs: Num,
    /// Poisson's ratio.
    pub nu: Num,
    /// Density (kg/m³).
    pub rho: Num,
    /// Rayleigh mass-proportional damping α (1/s).
    #[serde(default)]
    pub rayleigh_alpha: f64,
    /// Rayleigh stiffness-proportional damping β (s).
    #[serde(default)]
    pub rayleigh_beta: f64,
}

/// Nodes of a physical group attached to a rigid body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAttach {
    /// Physical group name.
    pub group: Spanned<String>,
    /// Body name.
    pub body: Spanned<String>,
}

/// A force split equally over the nodes of a physical group.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLoad {
    /// Physical group name.
    pub group: Spanned<String>,
    /// Total force (global, N).
    pub force: Vec3Field,
}

/// `[[flexible]]`: an ANCF body from a Gmsh mesh or a box.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFlexible {
    /// Unique name.
    pub name: Spanned<String>,
    /// Mesh path, relative to the scene file (or `box`).
    pub mesh: Option<Spanned<String>>,
    /// A box meshed into tetrahedra (or `mesh`).
    #[serde(rename = "box")]
    pub block: Option<Spanned<RawBox>>,
    /// Initial velocity of every node (global, m/s; default 0).
    pub velocity: Option<Vec3Field>,
    /// Takes part in contact (with ground planes and other flexible bodies).
    pub contact: Option<Spanned<RawFlexContact>>,
    /// Material.
    pub material: Spanned<RawMaterial>,
    /// Physical groups whose (planar, axis-aligned) face is clamped.
    #[serde(default)]
    pub clamp: Vec<Spanned<String>>,
    /// Physical groups whose nodes are pinned.
    #[serde(default)]
    pub pin: Vec<Spanned<String>>,
    /// Physical group attached to a rigid body.
    pub attach: Option<Spanned<RawAttach>>,
    /// A nodal load on a group.
    pub load: Option<Spanned<RawLoad>>,
}

/// `box = { origin, size, divisions }`: an axis-aligned box of 6 tets per cell.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBox {
    /// The corner with the smallest coordinates (m).
    pub origin: Vec3Field,
    /// Edge lengths along x, y, z (m, > 0).
    pub size: Vec3Field,
    /// Cells along x, y, z (≥ 1).
    pub divisions: Spanned<[i64; 3]>,
}

/// `contact = { node_radius, max_depth, proximity }` of a flexible body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFlexContact {
    /// Radius of curvature of the surface at a node, in Hertz's law (m).
    pub node_radius: Num,
    /// Deepest penetration into this body's faces searched (m).
    pub max_depth: Num,
    /// node_to_surface (default) | surface_to_surface: which of this body's surface points
    /// are tested against the other bodies' faces.
    pub proximity: Option<Spanned<String>>,
}

/// `[output]`: which series to write.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    /// Body states (default true).
    #[serde(default = "yes")]
    pub states: bool,
    /// Energies (default true).
    #[serde(default = "yes")]
    pub energy: bool,
    /// Joint reactions (default false).
    #[serde(default)]
    pub reactions: bool,
    /// PNG plots of energy and sensors (default true: people would rather look than read).
    #[serde(default = "yes")]
    pub plots: bool,
}

impl Default for RawOutput {
    fn default() -> Self {
        Self {
            states: true,
            energy: true,
            reactions: false,
            plots: true,
        }
    }
}

fn yes() -> bool {
    true
}

/// `[[shape]]`: a collision shape on a body or on the ground.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShape {
    /// Unique shape name.
    pub name: Spanned<String>,
    /// Body carrying it, or "ground".
    pub body: Spanned<String>,
    /// sphere | box | cylinder | cone | capsule | plane | mesh.
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    /// Sphere, cylinder, cone and capsule radius (m).
    pub radius: Option<Num>,
    /// Box half extents (m).
    pub half_extents: Option<Vec3Field>,
    /// Cylinder, cone and capsule half height (m; a capsule's: its cylindrical part).
    pub half_height: Option<Num>,
    /// Mesh: a Wavefront OBJ file, relative to the scene file.
    pub mesh: Option<Spanned<String>>,
    /// Shape frame origin on the body (default: the body origin).
    pub pos: Option<Vec3Field>,
    /// Shape frame orientation on the body (default identity).
    pub orient: Option<Spanned<RawOrientation>>,
    /// Young's modulus (Pa, default 210e9).
    pub youngs_modulus: Option<Num>,
    /// Poisson's ratio (default 0.3).
    pub poisson_ratio: Option<Num>,
    /// Radius of curvature entering R* (m; default from the geometry).
    pub curvature_radius: Option<Num>,
}

/// `[[contact_material]]`: contact parameters for a pair of bodies, or the default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContactMaterial {
    /// The two bodies (names or "ground"); absent: the default for every pair.
    pub bodies: Option<Spanned<[String; 2]>>,
    /// elastic (default) | plastic: the starting values.
    pub preset: Option<Spanned<String>>,
    /// Coefficient of restitution in (0, 1].
    pub restitution: Option<Num>,
    /// Coulomb friction coefficient.
    pub friction: Option<Num>,
    /// Friction regularization speed (m/s).
    pub friction_regularization: Option<Num>,
    /// Smallest impact speed used for the dissipation (m/s).
    pub min_impact_speed: Option<Num>,
    /// flores-calibrated (default) | flores.
    pub dissipation: Option<Spanned<String>>,
    /// false: the two rigid bodies' shapes never touch (default true).
    pub collide: Option<Spanned<bool>>,
}

/// `[simulation.implicit]`: settings of the implicit integrators.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawImplicit {
    /// HHT α ∈ [−1/3, 0] (hht only, default −0.05).
    pub alpha: Option<Num>,
    /// Newmark β (newmark only, default 1/4).
    pub beta: Option<Num>,
    /// Newmark γ (newmark only, default 1/2).
    pub gamma: Option<Num>,
    /// Newton increment tolerance (max norm, default 1e-10).
    pub newton_tol: Option<Num>,
    /// Newton iterations per attempt (default 20).
    pub max_newton_iter: Option<Spanned<i64>>,
    /// Reuse the factorized tangent (default false).
    pub modified_newton: Option<bool>,
    /// Step-halving retries (levels, default 0).
    pub max_halvings: Option<Spanned<i64>>,
    /// Generalized-α spectral radius at infinity ρ∞ ∈ [0, 1] (default 0.8).
    pub rho_inf: Option<Num>,
    /// Where BDF's and generalized-α's iteration matrix comes from: "analytic" (default),
    /// "finite-difference" or "compared".
    pub tangent: Option<Spanned<String>>,
}
