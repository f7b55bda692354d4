//! Flexible-body contact: boundary surface of a tet mesh, and an ANCF block dropped on the
//! ground with node-to-plane Hertz contact stepped by the kernel's RK4 (forces at every stage).

use crate::common::tet_collision;
use ferrodyn_host::contact::flex_pair::FlexContacts;
use ferrodyn_host::contact::flexible::{surface_triangles, FlexGroundContact};
use ferrodyn_host::spec::{ContactMaterial, Elastic};
use ferrodyn_host::storage::FlexModel as Block;
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::flex::{max_frequency, momentum};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::samples::add_box_mesh;
use ferrodyn_kernel::{step_with, Dynamics};
use std::collections::HashMap;

/// A 0.2 × 0.1 × 0.1 m rubber-like block (E = 1 MPa, ρ = 1000: 2 kg), 2 × 1 × 1 cells, on the
/// host's growable storage.
fn block(gravity: f64) -> Block {
    let material = Material::neo_hookean(1e6, 0.3, 1000.0).unwrap();
    let mut b = Block::builder(material, Vec3::new(0.0, 0.0, -gravity));
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1]).unwrap();
    b.build().unwrap()
}

fn surface(model: &Block) -> Vec<[usize; 3]> {
    surface_triangles(model.connectivity(), |n| {
        model.reference(n).unwrap_or(Vec3::ZERO).to_array()
    })
}

#[test]
fn box_surface_is_closed_and_outward() {
    let model = block(0.0);
    let tris = surface(&model);
    // 10 boundary rectangles of the 2 × 1 × 1 cells, two triangles each.
    assert_eq!(tris.len(), 20);
    // Closed and consistently oriented: every directed edge appears once, its reverse once.
    let mut edges: HashMap<(usize, usize), usize> = HashMap::new();
    for t in &tris {
        for k in 0..3 {
            *edges.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &count) in &edges {
        assert_eq!(count, 1, "edge {a}-{b}");
        assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin");
    }
    // Outward: the normals of the faces on z = 0 point down.
    let r = |n: usize| model.reference(n).unwrap();
    for t in &tris {
        let (a, b, c) = (r(t[0]), r(t[1]), r(t[2]));
        if a.z == 0.0 && b.z == 0.0 && c.z == 0.0 {
            assert!((b - a).cross(c - a).z < 0.0);
        }
    }
}

#[test]
fn flexible_block_bounces_with_momentum_balance_and_bounded_penetration() {
    // References: momentum balance p(T) − p(0) = m g T + J with J the contact impulse as RK4
    // applies it (ANCF momentum changes by exactly the nodal forces); no node deeper than the Hertz depth of one node
    // stopping the whole body, δ = (15 m v0²/(16 E* √R))^{2/5} (Johnson 1985, §11.4).
    let g = 9.81;
    let model = block(g);
    let mut data = model.new_data();
    let v0 = 1.0;
    data.set_rigid_motion(
        &model,
        Mat3::IDENTITY,
        Vec3::new(0.0, 0.0, 1e-3),
        Vec3::new(0.3, 0.0, -v0),
        Vec3::ZERO,
    );
    let rubber = Elastic {
        youngs_modulus: 1e6,
        poisson_ratio: 0.3,
    };
    let node_radius = 0.05;
    let contact = FlexGroundContact::new(
        &surface(&model),
        [0.0; 3],
        [0.0, 0.0, 1.0],
        node_radius,
        rubber,
        Elastic::STEEL,
        ContactMaterial::elastic().with_friction(0.3),
    )
    .unwrap();
    assert_eq!(contact.nodes().len(), model.node_count());
    let dt = 0.2 * max_frequency(&model, &mut data, 500).unwrap().rk4();
    let (p0, _) = momentum(&model, &data);
    let mass = p0.z / -v0;
    assert!((mass - 2.0).abs() < 1e-9, "mass {mass}");
    let contacts = FlexContacts {
        ground: vec![contact],
        pair: None,

        shapes: None,
    };
    let mut meter = tet_collision::GroundImpulseMeter::new(contacts, dt);
    let (mut deepest, mut t, mut touched, mut released) = (0.0_f64, 0.0, false, false);
    while t < 0.5 && !released {
        // The contact sees every accepted state (`accept`).
        step_with(&model, &mut data, &mut Rk4, dt, &mut meter).unwrap();
        t += dt;
        let active = meter.contacts.ground[0].active();
        for c in active {
            deepest = deepest.max(c.penetration);
        }
        touched |= !active.is_empty();
        released = touched && active.is_empty();
    }
    assert!(released, "the block left the ground");
    let impulse = meter.ground_impulse;
    let (p1, _) = momentum(&model, &data);
    let expected = p0 + Vec3::new(0.0, 0.0, -mass * g * t) + impulse;
    let error = (p1 - expected).norm() / impulse.norm();
    let e_star = 1.0 / ((1.0 - 0.09) / 1e6 + (1.0 - 0.09) / 210e9);
    let hertz_depth = (15.0 * mass * v0 * v0 / (16.0 * e_star * node_radius.sqrt())).powf(0.4);
    println!(
        "flexible drop: contact impulse {:.5} N·s, momentum balance error {:.2e} of it, deepest node {:.3e} m (Hertz single-node bound {:.3e} m), rebound vz = {:.4} m/s at t = {t:.4} s, {dt:.2e} s steps",
        impulse.z, error, deepest, hertz_depth, p1.z / mass
    );
    // Exact up to rounding: RK4 changes M ė by the weighted stage forces.
    assert!(error < 1e-9, "momentum balance error {error}");
    assert!(
        deepest < hertz_depth,
        "penetration {deepest} beyond {hertz_depth}"
    );
    assert!(p1.z > 0.0, "rebounds");
    // Friction slows the sliding x-motion but cannot reverse it.
    assert!(p1.x < p0.x && p1.x > 0.0, "px {} → {}", p0.x, p1.x);
}

#[test]
fn tet_collision_elastic_and_plastic() {
    // Two ANCF blocks (upper 1 kg cube falling at 1 m/s onto a 2 kg block on the ground).
    // References: momentum balance p(T) − p(0) = m g T + J_ground exactly (the block-to-block
    // forces act on node and face through Sᵀ, equal and opposite); no node deeper than the
    // Hertz depth of one node stopping the falling block (Johnson 1985, §11.4); a plastic
    // contact (e = 0.2) rebounds slower than an elastic one.
    let elastic = tet_collision::run(false, 0.06).unwrap();
    let plastic = tet_collision::run(true, 0.06).unwrap();
    for (name, r) in [("elastic", &elastic), ("plastic", &plastic)] {
        println!(
            "tet_collision {name}: {} steps of {:.2e} s, falling block vz {:.4} → {:.4} m/s, deepest block-block {:.3e} m, ground {:.3e} m (Hertz bound {:.3e} m), momentum error {:.1e}, node-face contacts seen {}, energy lost {:.4} J",
            r.steps, r.dt, r.falling_vz.0, r.falling_vz.1, r.deepest_pair, r.deepest_ground, r.hertz_depth, r.momentum_error, r.pair_contacts_seen, r.energy_loss
        );
        if let Err(failure) = r.check() {
            panic!("{name}: {failure}");
        }
    }
    assert!(
        elastic.falling_vz.1 > plastic.falling_vz.1,
        "elastic rebounds faster"
    );
}
