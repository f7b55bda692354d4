//! Rigid bodies in Cartesian (absolute) coordinates, joined by joints and driven by forces.
//!
//! Each body has a position and a unit quaternion (7 coordinates) and 6 velocities; joints are
//! constraints Φ(q, t) = 0 between two bodies (or a body and the ground). The equations of
//! motion M a + Φ_qᵀ λ = Q are solved at acceleration level with the constraint matrix in
//! skyline storage, and drift is removed after every step by projection onto Φ = 0 and Φ̇ = 0.
//! Loops, any joint type, force elements and contact: use [`crate::tree`] instead for open
//! chains of revolute and prismatic joints (fewer coordinates, much cheaper steps).
//!
//! ```
//! use ferrodyn_kernel::{integrators::Rk4, math::{Quat, Vec3}, rigid::*, step, Fixed};
//! // A 1 kg pendulum on a 1 m massless rod, modelled by a distance constraint:
//! // 1 body, 1 joint, no force element, 1 constraint row, 1 skyline entry.
//! let mut b = Model::<f64, Fixed<1, 1, 0, 1, 1>>::builder(Vec3::new(0.0, 0.0, -9.81));
//! let bob = b.add_body(Body::sphere(1.0, 0.01).at(Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY)).unwrap();
//! b.add_joint(Joint::new(JointKind::Distance { length: 1.0 }, BodyRef::Ground, Frame::at(Vec3::ZERO),
//!                        bob, Frame::at(Vec3::ZERO))).unwrap();
//! let model = b.build().unwrap();
//! let mut data = Data::new(&model);
//! for _ in 0..1000 { step(&model, &mut data, &mut Rk4, 1e-3).unwrap(); }
//! assert!(data.position(0).z < 0.0);
//! ```

mod analysis;
mod body;
mod constraint;
mod data;
mod force;
mod joint;
mod model;
mod step;
mod system;

pub use analysis::{energy, joint_angle, joint_coordinate, joint_violation, momentum, violation, Violation};
pub use body::{Body, BodyRef, MassProperties};
pub use constraint::ConstraintRow;
pub(crate) use constraint::{evaluate_joint, SideState};
pub(crate) use data::Work;
pub use data::{Data, BODY_STATE};
pub(crate) use force::Wrench;
pub use force::{Axes, Force};
pub use joint::{DrivenCoordinate, Frame, FunctionId, Joint, JointKind};
pub use model::{skyline_entries, skyline_entries_in, Builder, Model, Stabilization};
pub use step::{
    accelerations, accept_external, applied_forces, applied_forces_with, assemble, evaluate_constraints,
    forward, is_redundant_row,
};
pub(crate) use system::{MassOverride, RigidSystem, DENSE6_DIAG, DENSE6_FIRST};
