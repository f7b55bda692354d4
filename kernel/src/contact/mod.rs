//! Contact in the kernel: the Hertz–Flores–Coulomb force law ([`law`], the one the host's
//! contact also uses) and shapes on tree links against ground planes ([`GroundContacts`]:
//! spheres and box corners, fixed capacity, no allocation), acting on the links as external
//! forces.
//!
//! ```
//! use ferrodyn_kernel::contact::{hertz_stiffness, GroundContacts, Law, Plane};
//! use ferrodyn_kernel::{integrators::Rk4, math::{Mat3, Vec3}, tree::*, Dynamics, Fixed};
//! // A 0.5 kg ball of radius 5 cm on a vertical slider, 1 cm above the floor.
//! let mut b = Model::<f64, Fixed<1>>::builder(Vec3::new(0.0, 0.0, -9.81));
//! let inertia = Mat3::diagonal(Vec3::new(5e-4, 5e-4, 5e-4));
//! b.add_link(Link::prismatic(None, Vec3::new(0.0, 0.0, 0.06), Vec3::Z).with_mass(0.5, Vec3::ZERO, inertia)).unwrap();
//! let model = b.build().unwrap();
//! let floor = Plane { origin: Vec3::ZERO, normal: Vec3::Z };
//! let law = Law { stiffness: hertz_stiffness(5.5e6, 0.05), damping_factor: 0.2, friction: 0.4,
//!     friction_regularization: 1e-3, min_impact_speed: 1e-2 };
//! let mut contacts = GroundContacts::<f64, 1>::new();
//! contacts.add_sphere(&model, 0, Vec3::ZERO, 0.05, floor, law).unwrap();
//! let mut data = Data::new(&model);
//! model.accept(&mut data, &mut contacts).unwrap();
//! for _ in 0..4000 { model.step_with(&mut data, &mut Rk4, 5e-5, &mut contacts).unwrap(); }
//! assert!(data.positions()[0] > -0.011, "the floor holds the ball up");
//! ```

mod ground;
pub mod law;

pub use ground::{GroundContact, GroundContacts, Law, Plane, Touch};
pub use law::{
    calibrated_damping_factor, effective_modulus, effective_radius, flores_damping_factor, friction_damping,
    friction_force, hertz_energy, hertz_stiffness, nondimensional_restitution, normal_force,
    normal_force_derivatives,
};

#[cfg(test)]
mod tests;
