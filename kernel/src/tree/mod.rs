//! Open kinematic trees in joint (minimal) coordinates: revolute and prismatic joints (one
//! coordinate), cylindrical and universal joints (two), spherical joints (a quaternion, three
//! rates) and free joints (a floating base: position and quaternion, six rates), no
//! constraints, O(n) dynamics by Featherstone's articulated-body algorithm (the formulation of
//! MuJoCo, Pinocchio and RBDL).
//!
//! Use it for chains and trees (robot arms, pendulums, floating robots, the HIL plant): far
//! fewer coordinates than the Cartesian [`crate::rigid::Model`] (one to seven per link instead
//! of 13), no constraint drift, no projection, and much cheaper steps. It cannot close loops:
//! use the Cartesian model for those. A revolute or prismatic joint's input is its torque or
//! force, or the set-point of a position or velocity servo ([`Servo`], [`Link::with_servo`])
//! acting inside the dynamics; it may carry a spring ([`Link::with_spring`]), damping and
//! smoothed Coulomb friction ([`Link::with_friction`]).
//! External forces ([`crate::Dynamics::step_with`]) act on the links; force elements between
//! links or a link and the ground ([`Forces`]: applied forces and torques, spring-dampers) are
//! such a source.
//!
//! The state is `[q | v]`: every joint's position coordinates, then every joint's velocity
//! coordinates ([`MultiJoint`] lists them; [`Model::coordinates`] says where a joint's sit).
//! Quaternions are integrated as q̇ = ½ q ⊗ ω and normalised after every accepted step, as the
//! Cartesian model's bodies are. A tree keeps its state in the bodies capacity, two reals per
//! slot: `Fixed<N>` needs N ≥ max(links, ⌈(nq + nv) / 2⌉) ([`Model::slots`]; the link count
//! for 1-DOF joints).
//!
//! ```
//! use ferrodyn_kernel::{integrators::Rk4, math::{Mat3, Vec3}, step, tree::*, Fixed};
//! // A 1 kg, 1 m rod on a hinge about y at the origin, lying along +x: one link.
//! let mut b = Model::<f64, Fixed<1>>::builder(Vec3::new(0.0, 0.0, -9.81));
//! let inertia = Mat3::diagonal(Vec3::new(5e-5, 1.0 / 12.0, 1.0 / 12.0));
//! b.add_link(Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(1.0, Vec3::new(0.5, 0.0, 0.0), inertia)).unwrap();
//! let model = b.build().unwrap();
//! let mut data = Data::new(&model);
//! data.set_input(0, 0.5).unwrap(); // actuator torque (N·m), held until changed
//! step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
//! assert!(data.velocities()[0] > 0.0); // gravity turns +x towards −z: positive about +y
//! ```
//!
//! A ball joint: 4 positions (quaternion) and 3 velocities (ω in link axes), so ⌈7/2⌉ = 4 slots.
//!
//! ```
//! use ferrodyn_kernel::{integrators::Rk4, math::{Mat3, Quat, Vec3}, step, tree::*, Fixed};
//! let mut b = Model::<f64, Fixed<4>>::builder(Vec3::new(0.0, 0.0, -9.81));
//! let inertia = Mat3::diagonal(Vec3::new(0.02, 0.02, 0.01));
//! let bob = b.add_link(Link::spherical(None, Vec3::ZERO).with_mass(1.0, Vec3::new(0.0, 0.0, -0.5), inertia)).unwrap();
//! let model = b.build().unwrap();
//! let mut data = Data::new(&model);
//! let tilted = Quat::from_axis_angle(Vec3::X, 0.3);
//! data.set_joint_position(&model, bob, &tilted.to_array()).unwrap();
//! data.set_joint_velocity(&model, bob, &[0.0, 0.5, 2.0]).unwrap(); // rad/s, link axes
//! step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
//! assert_eq!((data.positions().len(), data.velocities().len()), (4, 3));
//! ```

mod coordinate_rows;
mod data;
mod dynamics;
mod forces;
mod friction;
mod joint;
mod loops;
mod model;
mod planar;
mod servo;
mod shape;
mod spatial;
mod tangent;
mod tendon;

pub use coordinate_rows::{CoordinateLaw, CoordinateRow};
pub use data::Data;
pub use dynamics::{
    accelerations, accelerations_with, energy, link_states, update_link_states, LinkState, Pose,
};
pub use forces::Forces;
pub use friction::JointFriction;
pub use loops::{loop_residual, loop_rows, redundant_loop_rows};
pub use model::{Builder, Coordinates, Link, Model, MultiJoint, TreeJoint};
pub use servo::Servo;
pub use shape::{Along, InertiaShape, LinkShape};
pub use tangent::{constrain_columns, mass_matrix_at, point_jacobian};
pub use tendon::{Tendon, TendonTerm, TENDON_TERMS};
