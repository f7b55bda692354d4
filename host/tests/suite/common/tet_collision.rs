//! The `tet_collision` scenario: an ANCF block dropped onto a second block lying on the
//! ground (both Neo-Hookean, meshed into one flexible model), in elastic or plastic contact.
//! Stepped by the kernel's RK4 with [`FlexContacts`] at every stage; reports the figures the
//! checks need ([`measure`], shared with the scene `scenes/tet_collision.toml`). The model is on
//! the host's growable storage (no big stack needed).
//!
//! A plain module that needs only `std` and the crates `ferrodyn_host` and `ferrodyn_kernel`
//! (no `anyhow`): included by host/tests/suite/contact_flexible.rs, host/tests/suite/contact_flex_scene.rs
//! and, through `#[path]`, the root example examples/tet_collision.rs.
// Each includer uses part of it.
#![allow(dead_code)]

use ferrodyn_host::contact::flex_pair::{FlexContacts, FlexPairContact};
use ferrodyn_host::contact::flexible::{surface_triangles, FlexGroundContact};
use ferrodyn_host::contact::force::effective_modulus;
use ferrodyn_host::spec::{ContactMaterial, Elastic};
use ferrodyn_host::storage::Growable;
use ferrodyn_kernel::ancf::{Material, NODE_COORDS};
use ferrodyn_kernel::flex::{self, max_frequency};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::samples::add_box_mesh;
use ferrodyn_kernel::{step_with, Dynamics, ExternalForces, ExternalLoads, Storage};
use std::ops::Range;

/// Any failure of a run (build, contact setup, kernel step), as text with its cause.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The two blocks: one flexible model on growable storage.
type Blocks = flex::Model<f64, Growable>;

/// Floor of the impact speed in D = χ/v₀ for this scenario (m/s).
pub const MIN_IMPACT_SPEED: f64 = 0.2;
/// Friction regularization speed v_reg for this scenario (m/s).
pub const FRICTION_REGULARIZATION: f64 = 0.05;

/// Figures of one run.
#[derive(Clone, Debug)]
pub struct CollisionReport {
    /// Steps taken and their size (s).
    pub steps: usize,
    /// Step size (s).
    pub dt: f64,
    /// Vertical velocity of the falling block's centre of mass before and after (m/s).
    pub falling_vz: (f64, f64),
    /// Largest node-into-face penetration between the blocks (m).
    pub deepest_pair: f64,
    /// Largest node-into-ground penetration (m).
    pub deepest_ground: f64,
    /// Hertz depth of one node stopping the whole falling block, (15 m v0²/(16 E* √R))^{2/5} (m).
    pub hertz_depth: f64,
    /// |p(T) − p(0) − m g T − J_ground| / |J_ground|: the pair forces must cancel exactly.
    pub momentum_error: f64,
    /// Ground impulse (N·s).
    pub ground_impulse: Vec3<f64>,
    /// Node-to-face contacts seen at some accepted state.
    pub pair_contacts_seen: usize,
    /// Energy (kinetic + strain + gravity + contact springs) lost over the run, E(0) − E(T) (J).
    pub energy_loss: f64,
}

impl CollisionReport {
    /// The checks every collision run must pass, the first failure as text: the blocks met,
    /// the momentum balances (p(T) − p(0) = m g T + J_ground: pair forces cancel), and no node
    /// went deeper than the Hertz depth.
    pub fn check(&self) -> Result<(), String> {
        // Comparisons written so that NaN fails them.
        let checks = [
            (self.pair_contacts_seen > 0, "the blocks never met".to_string()),
            (
                self.momentum_error < 1e-9,
                format!("momentum error {}", self.momentum_error),
            ),
            (
                self.deepest_pair < self.hertz_depth,
                format!("block-block {} beyond {}", self.deepest_pair, self.hertz_depth),
            ),
            (
                self.deepest_ground < self.hertz_depth,
                format!("ground {} beyond {}", self.deepest_ground, self.hertz_depth),
            ),
        ];
        match checks.into_iter().find(|(passed, _)| !passed) {
            Some((_, failure)) => Err(failure),
            None => Ok(()),
        }
    }
}

/// The contact hook, recording the ground impulse RK4 applies (stage weights 1, 2, 2, 1 over
/// 6, four stages a step); the accepted states go on to the contacts.
pub struct GroundImpulseMeter {
    /// The contacts.
    pub contacts: FlexContacts,
    dt: f64,
    stage: usize,
    /// Ground impulse so far (N·s).
    pub ground_impulse: Vec3<f64>,
}

impl GroundImpulseMeter {
    /// Meters `contacts` stepped by RK4 with step `dt`.
    pub fn new(contacts: FlexContacts, dt: f64) -> Self {
        Self {
            contacts,
            dt,
            stage: 0,
            ground_impulse: Vec3::ZERO,
        }
    }
}

/// Sum of the position components of the generalized nodal forces.
pub fn total_force(force: &[f64]) -> Vec3<f64> {
    force
        .chunks_exact(NODE_COORDS)
        .fold(Vec3::ZERO, |s, c| s + Vec3::new(c[0], c[1], c[2]))
}

impl ExternalForces<f64> for GroundImpulseMeter {
    fn apply(&mut self, t: f64, loads: &mut ExternalLoads<'_, f64>) {
        let before = total_force(loads.nodes().2);
        for g in &mut self.contacts.ground {
            g.apply(t, loads);
        }
        let weight = [1.0, 2.0, 2.0, 1.0][self.stage % 4] / 6.0;
        self.ground_impulse += (total_force(loads.nodes().2) - before) * (weight * self.dt);
        self.stage += 1;
        if let Some(p) = self.contacts.pair.as_mut() {
            p.apply(t, loads);
        }
    }
    fn accept(&mut self, t: f64, state: &ExternalLoads<'_, f64>) {
        self.contacts.accept(t, state);
    }
}

/// Runs the collision for `duration` seconds; `plastic` selects the plastic preset (e = 0.2)
/// instead of the elastic one (e = 1).
pub fn run(plastic: bool, duration: f64) -> Result<CollisionReport, Error> {
    let (e_mod, nu, rho, g) = (1e6, 0.3, 1000.0, 9.81);
    let material = Material::neo_hookean(e_mod, nu, rho)?;
    let mut b = Blocks::builder(material, Vec3::new(0.0, 0.0, -g));
    // Lower block 0.2 × 0.1 × 0.1 m on the ground; upper 0.1 m cube 20 mm above it.
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1])?;
    // (2 + 1)(1 + 1)(1 + 1) grid nodes; the upper block's follow.
    let lower_nodes = 12;
    add_box_mesh(
        &mut b,
        Vec3::new(0.05, 0.0, 0.12),
        Vec3::new(0.1, 0.1, 0.1),
        [1, 1, 1],
    )?;
    let model = b.build()?;
    let mut data = model.new_data();
    data.set_rigid_motion(&model, Mat3::IDENTITY, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
    for node in lower_nodes..model.node_count() {
        data.rates_mut(node)[2] = -1.0;
    }
    let rubber = Elastic {
        youngs_modulus: e_mod,
        poisson_ratio: nu,
    };
    let mut contact_material = if plastic {
        ContactMaterial::plastic()
    } else {
        ContactMaterial::elastic()
    };
    // Nodes meeting a face while the blocks already rest on each other have a tiny approach
    // speed; D = χ/v₀ would then make a damper too stiff for the explicit step.
    contact_material.min_impact_speed = MIN_IMPACT_SPEED;
    // Likewise friction: below v_reg it is a damper μF_n/v_reg, which at the presets' 1 mm/s
    // exceeds the explicit limit on these light nodes and made the run chaotic (a round-off
    // change in the element moved the rebound speed by 10%).
    contact_material.friction_regularization = FRICTION_REGULARIZATION;
    let reference: Vec<[f64; 3]> = model.references().iter().map(|p| p.to_array()).collect();
    let node_radius = 0.05;
    let surface = surface_triangles(model.connectivity(), |n| reference[n]);
    let ground = FlexGroundContact::new(
        &surface,
        [0.0; 3],
        [0.0, 0.0, 1.0],
        node_radius,
        rubber,
        Elastic::STEEL,
        contact_material,
    )?;
    let pair = FlexPairContact::new(
        &reference,
        model.connectivity(),
        node_radius,
        0.03,
        rubber,
        contact_material,
    )?;
    let dt = 0.2 * max_frequency(&model, &mut data, 500)?.rk4();
    let contacts = FlexContacts {
        ground: vec![ground],
        pair: Some(pair),

        shapes: None,
    };
    let setup = Collision {
        dt,
        duration,
        falling: lower_nodes..model.node_count(),
        e_star: effective_modulus(&rubber, &rubber),
        node_radius,
        gravity: Vec3::new(0.0, 0.0, -g),
    };
    measure(&model, &mut data, contacts, &setup)
}

/// What [`measure`] needs to know about a collision of a falling block.
#[derive(Clone, Debug)]
pub struct Collision {
    /// RK4 step (s).
    pub dt: f64,
    /// Time to run (s).
    pub duration: f64,
    /// Nodes of the falling block.
    pub falling: Range<usize>,
    /// Contact modulus E* of the blocks (Pa).
    pub e_star: f64,
    /// Hertz radius of a node (m).
    pub node_radius: f64,
    /// Gravity of the model (m/s²).
    pub gravity: Vec3<f64>,
}

/// Steps `model` from `data` by RK4 with `contacts` as `setup` says, and reports the falling
/// block's centre-of-mass velocity, the deepest penetrations against the Hertz depth of one
/// node stopping that block, and the momentum balance against the ground impulse.
pub fn measure<St: Storage>(
    model: &flex::Model<f64, St>,
    data: &mut flex::Data<f64, St>,
    contacts: FlexContacts,
    setup: &Collision,
) -> Result<CollisionReport, Error> {
    let Collision {
        dt,
        duration,
        ref falling,
        e_star,
        node_radius,
        gravity,
    } = *setup;
    let mut hook = GroundImpulseMeter::new(contacts, dt);
    // Centre-of-mass velocity of the falling block: its momentum Σ_k s_k ė_k (s_k = ∫ρ S_k dV)
    // over its elements, divided by its mass.
    let falling_elements: Vec<usize> = (0..model.element_count())
        .filter(|&e| falling.contains(&model.connectivity()[e][0]))
        .collect();
    let falling_mass = falling_elements
        .iter()
        .map(|&e| model.elements()[e].volume() * model.materials()[e].density)
        .sum::<f64>();
    let falling_vz = |data: &flex::Data<f64, St>| -> f64 {
        let mut pz = 0.0;
        for &e in &falling_elements {
            let (element, nodes) = (&model.elements()[e], model.connectivity()[e]);
            for (k, sk) in element.scalar_load().iter().enumerate() {
                pz += sk
                    * data
                        .rates(nodes[k / 4])
                        .get(3 * (k % 4) + 2)
                        .copied()
                        .unwrap_or(0.0);
            }
        }
        pz / falling_mass
    };
    let vz_before = falling_vz(data);
    let (p0, _) = flex::momentum(model, data);
    // Mechanical energy with the contacts' Hertz springs: conserved without damping and
    // friction, lost to them otherwise. The contacts see the initial state first.
    model.accept(data, &mut hook)?;
    let e0 = flex::energy(model, data)?.total() + hook.contacts.elastic_energy();
    let steps = (duration / dt).ceil() as usize;
    let (mut deepest_pair, mut deepest_ground, mut seen) = (0.0_f64, 0.0_f64, 0);
    for _ in 0..steps {
        // The contacts see every accepted state (`accept`).
        step_with(model, data, &mut Rk4, dt, &mut hook)?;
        if let Some(p) = &hook.contacts.pair {
            seen += p.active().len();
            deepest_pair = p.active().iter().fold(deepest_pair, |d, c| d.max(c.penetration));
        }
        for gc in &hook.contacts.ground {
            deepest_ground = gc
                .active()
                .iter()
                .fold(deepest_ground, |d, c| d.max(c.penetration));
        }
    }
    let t = data.time();
    let (p1, _) = flex::momentum(model, data);
    let weight = gravity * (model.mass() * t);
    let expected = p0 + weight + hook.ground_impulse;
    let v0 = -vz_before;
    Ok(CollisionReport {
        steps,
        dt,
        falling_vz: (vz_before, falling_vz(data)),
        deepest_pair,
        deepest_ground,
        hertz_depth: (15.0 * falling_mass * v0 * v0 / (16.0 * e_star * node_radius.sqrt())).powf(0.4),
        momentum_error: (p1 - expected).norm() / hook.ground_impulse.norm(),
        ground_impulse: hook.ground_impulse,
        pair_contacts_seen: seen,
        energy_loss: e0 - flex::energy(model, data)?.total() - hook.contacts.elastic_energy(),
    })
}
