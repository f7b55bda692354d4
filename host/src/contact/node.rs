//! One node pressed into a surface (a ground plane, a rigid shape): the Hertz–Flores–Coulomb
//! force on it from its penetration and velocity relative to the surface, with the terms an
//! implicit tangent needs. Shared by the node-to-plane and node-to-shape contacts.

use super::force::{friction_damping, normal_force, normal_force_derivatives};
use crate::spec::ContactMaterial;

/// The derivatives of a node contact's force for an implicit tangent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NodeTangent {
    /// ∂F_n/∂δ (N/m) and ∂F_n/∂δ̇ (N·s/m) of the normal force (zero while the damper holds the
    /// force at zero).
    pub normal_stiffness: f64,
    /// See `normal_stiffness`.
    pub normal_damping: f64,
    /// μF_n / max(|v_t|, v_reg) (N·s/m): the friction force is minus this times the slip
    /// velocity. While sticking (|v_t| < v_reg) it is the friction's damping on the whole
    /// tangent plane; while sliding only across `sliding_direction` (the force's magnitude is
    /// then fixed along it).
    pub friction_damping: f64,
    /// Unit slip direction while sliding, zero while sticking.
    pub sliding_direction: [f64; 3],
}

impl NodeTangent {
    /// stiffness · ∂F_n/∂δ n nᵀ + damping · (∂F_n/∂δ̇ n nᵀ + friction damping (I − n nᵀ − d dᵀ)),
    /// for unit normal `n`: the contact's 3×3 block of a Newton matrix.
    pub fn weighted(&self, n: [f64; 3], stiffness: f64, damping: f64) -> [[f64; 3]; 3] {
        let k = stiffness * self.normal_stiffness + damping * self.normal_damping;
        let (friction, d) = (damping * self.friction_damping, self.sliding_direction);
        std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let identity = if i == j { 1.0 } else { 0.0 };
                k * n[i] * n[j] + friction * (identity - n[i] * n[j] - d[i] * d[j])
            })
        })
    }
}

/// A node contact's force and tangent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NodeResponse {
    /// Normal force F_n ≥ 0 (N).
    pub normal_force: f64,
    /// Total force on the node (N, global).
    pub force: [f64; 3],
    /// Penetration rate δ̇ (m/s, > 0 approaching).
    pub rate: f64,
    /// The impact speed v₀ the dissipation used.
    pub impact_speed: f64,
    /// Its derivatives.
    pub tangent: NodeTangent,
}

/// The response of a node at penetration `depth` along unit `normal` (out of the surface,
/// towards the node), moving at `velocity` relative to the surface, with Hertz `stiffness`,
/// Flores factor `chi` and `material`. `impact_speed`: v₀ captured at first touch, or `None`
/// for a contact not yet committed, which takes v₀ from its current rate (above the floor the
/// damper term χ δ̇/v₀ is then χ, independent of δ̇).
pub fn node_response(
    stiffness: f64,
    chi: f64,
    material: &ContactMaterial,
    depth: f64,
    normal: [f64; 3],
    velocity: [f64; 3],
    impact_speed: Option<f64>,
) -> NodeResponse {
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let rate = -dot(velocity, normal);
    let floor = material.min_impact_speed;
    let (v0, v0_follows_rate) = match impact_speed {
        Some(v0) => (v0, false),
        None => (rate.max(floor), rate > floor),
    };
    let f_n = normal_force(stiffness, chi, depth, rate, v0);
    let (normal_stiffness, normal_damping) =
        normal_force_derivatives(stiffness, chi, depth, rate, v0, v0_follows_rate);
    let slip: [f64; 3] = std::array::from_fn(|k| velocity[k] + rate * normal[k]);
    let (slip_speed, v_reg) = (dot(slip, slip).sqrt(), material.friction_regularization);
    let friction = friction_damping(material.friction, f_n, slip_speed, v_reg);
    NodeResponse {
        normal_force: f_n,
        force: std::array::from_fn(|k| f_n * normal[k] - friction * slip[k]),
        rate,
        impact_speed: v0,
        tangent: NodeTangent {
            normal_stiffness,
            normal_damping,
            friction_damping: friction,
            sliding_direction: if slip_speed > v_reg {
                slip.map(|c| c / slip_speed)
            } else {
                [0.0; 3]
            },
        },
    }
}
