//! The models JSON handed to the peer engines (benches/peers) describes exactly the kernel's
//! canonical models: masses, inertias, link geometry, joint axes and positions, initial state,
//! gravity and dt. Reference: `kernel::samples` (revolute_chain, simple_pendulum) and the
//! elliptic-integral period of the simple pendulum, T = 4 √(L/g) K(sin(θ0/2)) (A&S 17.6).

#[allow(dead_code)]
#[path = "../../examples/peer_models.rs"]
mod peer_models;

use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::rigid::{BodyRef, JointKind, Model};
use ferrodyn::kernel::samples::{revolute_chain, simple_pendulum, ChainSpec, PendulumCapacities, GRAVITY};
use ferrodyn::kernel::Fixed;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

fn vec3(v: &Value) -> Vec3<f64> {
    Vec3::new(f(&v[0]), f(&v[1]), f(&v[2]))
}

fn check_chain<const N: usize, const C: usize, const S: usize>(entry: &Value) {
    let model: Box<Model<f64, Fixed<N, N, 0, C, S>>> =
        Box::new(revolute_chain(&ChainSpec::standard(N)).unwrap());
    assert_eq!(entry["links"].as_u64(), Some(N as u64));
    assert_eq!(model.bodies().len(), N);
    assert_eq!(model.joints().len(), N);
    let axis = vec3(&entry["hinge_axis"]);
    let mut x = 0.0;
    for (k, (body, joint)) in model.bodies().iter().zip(model.joints()).enumerate() {
        let length = f(&entry["link_length"][k]);
        assert_eq!(body.mass, f(&entry["link_mass"][k]), "link {k} mass");
        let inertia = &entry["link_inertia"][k];
        for (i, row) in body.inertia.m.iter().enumerate() {
            for (j, &value) in row.iter().enumerate() {
                let expected = if i == j { f(&inertia[i]) } else { 0.0 };
                assert!(
                    (value - expected).abs() <= 1e-15,
                    "link {k} inertia[{i}][{j}] {value} vs {expected}"
                );
            }
        }
        // Initial angle 0: the link lies along +x with its CG at its middle, at rest.
        assert_eq!(f(&entry["initial_angles"][k]), 0.0);
        assert_eq!(body.cg, Vec3::ZERO);
        assert_eq!(
            body.position,
            Vec3::new(x + length / 2.0, 0.0, 0.0),
            "link {k} position"
        );
        assert_eq!(body.velocity, Vec3::ZERO);
        assert_eq!(body.angular_velocity, Vec3::ZERO);
        // Joint k: revolute, at x = k l, about the JSON hinge axis, parent = link k − 1 or ground.
        assert_eq!(joint.kind, JointKind::Revolute);
        assert_eq!(joint.body_j, BodyRef::Body(k));
        let parent = if k == 0 {
            BodyRef::Ground
        } else {
            BodyRef::Body(k - 1)
        };
        assert_eq!(joint.body_i, parent);
        assert_eq!(joint.frame_j.axes.column(2), axis, "joint {k} axis");
        assert_eq!(
            body.position + joint.frame_j.origin,
            Vec3::new(x, 0.0, 0.0),
            "joint {k} position"
        );
        x += length;
    }
}

#[test]
fn peer_models_json_matches_the_kernel_models() {
    let spec = peer_models::models_json();
    assert_eq!(vec3(&spec["gravity"]), Vec3::new(0.0, 0.0, -GRAVITY));
    assert_eq!(f(&spec["dt"]), 1e-3);
    let models = spec["models"].as_array().expect("models");
    assert_eq!(models.len(), 2 + peer_models::CHAIN_LINKS.len());

    let pendulum = &models[0];
    assert_eq!(pendulum["kind"], "pendulum");
    let (m, l, a) = (
        f(&pendulum["mass"]),
        f(&pendulum["length"]),
        f(&pendulum["initial_angle"]),
    );
    let model = simple_pendulum::<f64, PendulumCapacities>(m, l, a).unwrap();
    let bob = &model.bodies()[0];
    assert_eq!(bob.mass, m);
    assert!((bob.position - Vec3::new(l * a.sin(), 0.0, -l * a.cos())).norm() < 1e-15);
    assert_eq!(model.joints()[0].kind, JointKind::Distance { length: l });
    // 1 m at 90°: T = 2.3678419 s.
    assert!((f(&pendulum["exact_period"]) - 2.3678419).abs() < 5e-8);

    let mut seen = Vec::new();
    // The floating tree (last): a free base and legs × links hinges, 7 + 20 positions, 6 + 20
    // rates; the model built from the JSON weighs the base and the rods.
    let floating = models.last().unwrap();
    assert_eq!(floating["kind"], "floating_tree");
    let tree = peer_models::floating_tree(floating).unwrap();
    let (legs, per_leg) = peer_models::FLOATING;
    assert_eq!(tree.links().len(), 1 + legs * per_leg);
    assert_eq!(
        (tree.position_count(), tree.velocity_count()),
        (7 + legs * per_leg, 6 + legs * per_leg)
    );
    assert!(!tree.is_planar());
    let mass: f64 = tree.links().iter().map(|l| l.mass).sum();
    assert!(
        (mass - (10.0 + 0.5 * (legs * per_leg) as f64)).abs() < 1e-12,
        "{mass}"
    );

    for entry in &models[1..models.len() - 1] {
        assert_eq!(entry["kind"], "revolute_chain");
        let n = entry["links"].as_u64().unwrap() as usize;
        match n {
            5 => check_chain::<5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(entry),
            20 => check_chain::<20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(entry),
            50 => check_chain::<50, 250, { ChainSpec::<f64>::skyline_entries(50) }>(entry),
            100 => check_chain::<100, 500, { ChainSpec::<f64>::skyline_entries(100) }>(entry),
            _ => panic!("unexpected chain of {n} links"),
        }
        seen.push(n);
    }
    assert_eq!(seen, peer_models::CHAIN_LINKS);
}

#[test]
fn peer_models_json_round_trips_through_text() {
    let spec = peer_models::models_json();
    let text = serde_json::to_string_pretty(&spec).unwrap();
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        back, spec,
        "the run step compares the JSON it reads with the built-in one"
    );
}
