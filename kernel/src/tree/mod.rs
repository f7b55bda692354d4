//! Open kinematic trees in joint (minimal) coordinates: one coordinate per revolute or
//! prismatic joint, no constraints, O(n) dynamics by Featherstone's articulated-body algorithm
//! (the formulation of MuJoCo, Pinocchio and RBDL).
//!
//! Use it for chains and trees (robot arms, pendulums, the HIL plant): far fewer coordinates
//! than the Cartesian [`crate::rigid::Model`] (n instead of 13 n), no constraint drift, no
//! projection, and much cheaper steps. It cannot close loops and has no spherical, universal or
//! driving joints or force elements: use the Cartesian model for those. External forces
//! ([`crate::Dynamics::step_with`]) act on the links.
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

mod data;
mod dynamics;
mod joint;
mod model;
mod spatial;

pub use data::Data;
pub use dynamics::{accelerations, energy, link_states, LinkState, Pose};
pub use model::{Builder, Coordinates, Link, Model, MultiJoint, TreeJoint};
