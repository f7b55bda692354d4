//! The `tet_collision` scenario: an ANCF block dropped onto a second block lying on the
//! ground (both Neo-Hookean, meshed into one flexible model), in elastic or plastic contact.
//! Stepped by the kernel's RK4 with [`FlexContacts`] at every stage; reports the figures the
//! checks need ([`measure`], shared with the scene `scenes/tet_collision.toml`). Kernel
//! flexible models are large values: call from a thread with a big stack.

use super::flex_pair::{FlexContacts, FlexPairContact};
use super::flexible::{surface_triangles, FlexGroundContact};
use super::force::{effective_modulus, ContactMaterial, Elastic};
use ferrodyn_kernel::ancf::{Material, NODE_COORDS};
use ferrodyn_kernel::flex::{
    flex_energy, flex_momentum, max_frequency, step_flex_with, FlexData, FlexExternalForces, FlexModel,
};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::models::add_box_mesh;
use std::ops::Range;

/// Capacities above the 20 nodes and 15–18 elements of the two blocks; a dense profile.
type Blocks = FlexModel<f64, 32, 24, 60_000>;

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
    /// Node-to-face contacts seen at some commit.
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
/// 6, four stages a step).
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

impl FlexExternalForces<f64> for GroundImpulseMeter {
    fn apply(&mut self, t: f64, e: &[f64], ed: &[f64], force: &mut [f64]) {
        let total = |f: &[f64]| {
            f.chunks_exact(NODE_COORDS)
                .fold(Vec3::ZERO, |s, c| s + Vec3::new(c[0], c[1], c[2]))
        };
        let before = total(force);
        for g in &mut self.contacts.ground {
            g.apply(t, e, ed, force);
        }
        let weight = [1.0, 2.0, 2.0, 1.0][self.stage % 4] / 6.0;
        self.ground_impulse += (total(force) - before) * (weight * self.dt);
        self.stage += 1;
        if let Some(p) = self.contacts.pair.as_mut() {
            p.apply(t, e, ed, force);
        }
    }
}

/// Runs the collision for `duration` seconds; `plastic` selects the plastic preset (e = 0.2)
/// instead of the elastic one (e = 1).
pub fn run(plastic: bool, duration: f64) -> anyhow::Result<CollisionReport> {
    let (e_mod, nu, rho, g) = (1e6, 0.3, 1000.0, 9.81);
    let material = Material::neo_hookean(e_mod, nu, rho).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let mut b = Blocks::builder(material, Vec3::new(0.0, 0.0, -g));
    // Lower block 0.2 × 0.1 × 0.1 m on the ground; upper 0.1 m cube 20 mm above it.
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1])
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    // (2 + 1)(1 + 1)(1 + 1) grid nodes; the upper block's follow.
    let lower_nodes = 12;
    add_box_mesh(
        &mut b,
        Vec3::new(0.05, 0.0, 0.12),
        Vec3::new(0.1, 0.1, 0.1),
        [1, 1, 1],
    )
    .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let model = Box::new(b.build().map_err(|e| anyhow::anyhow!("{e:?}"))?);
    let mut data = Box::new(FlexData::new(&*model));
    data.set_rigid_motion(&*model, Mat3::IDENTITY, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
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
    let reference: Vec<[f64; 3]> = (0..model.node_count())
        .map(|n| model.reference(n).unwrap_or(Vec3::ZERO).to_array())
        .collect();
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
    let dt = 0.2 * max_frequency(&*model, &mut data, 500)?.rk4();
    let contacts = FlexContacts {
        ground: vec![ground],
        pair: Some(pair),
    };
    let setup = Collision {
        dt,
        duration,
        falling: lower_nodes..model.node_count(),
        e_star: effective_modulus(&rubber, &rubber),
        node_radius,
        gravity: Vec3::new(0.0, 0.0, -g),
    };
    measure(&*model, &mut data, contacts, &setup)
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
pub fn measure<const N: usize, const E: usize, const S: usize>(
    model: &FlexModel<f64, N, E, S>,
    data: &mut FlexData<f64, N, S>,
    contacts: FlexContacts,
    setup: &Collision,
) -> anyhow::Result<CollisionReport> {
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
        .map(|&e| model.elements()[e].volume() * model.material().density)
        .sum::<f64>();
    let falling_vz = |data: &FlexData<f64, N, S>| -> f64 {
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
    let (p0, _) = flex_momentum(model, data);
    // Mechanical energy with the contacts' Hertz springs: conserved without damping and
    // friction, lost to them otherwise.
    hook.contacts.commit(data.state());
    let e0 = flex_energy(model, data)?.total() + hook.contacts.elastic_energy();
    let steps = (duration / dt).ceil() as usize;
    let (mut deepest_pair, mut deepest_ground, mut seen) = (0.0_f64, 0.0_f64, 0);
    for _ in 0..steps {
        step_flex_with(model, data, &mut Rk4, dt, &mut hook)?;
        hook.contacts.commit(data.state());
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
    let (p1, _) = flex_momentum(model, data);
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
        energy_loss: e0 - flex_energy(model, data)?.total() - hook.contacts.elastic_energy(),
    })
}
