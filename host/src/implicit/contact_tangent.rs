//! The flexible contacts' part of an implicit Newton matrix, at the contacts of their last
//! evaluation: stiffness · (∂F_n/∂δ n nᵀ) + damping · (∂F_n/∂δ̇ n nᵀ + friction damping across
//! the slip) on the coordinate triples each contact acts on (ground planes and rigid shapes: the
//! node's position; pairs: the node's and the face's). The curvature of a shape's normal and
//! the shape's body's side are left out: a modified Newton in those terms.

use crate::contact::FlexContacts;

/// A coordinate triple: (node, 0 for its position or 1–3 for a gradient).
pub type Triple = (usize, usize);

/// Adds `value(i, j)` to the 3×3 block of triples a, b of a Newton matrix.
pub type AddBlock<'a> = dyn FnMut(Triple, Triple, &dyn Fn(usize, usize) -> f64) + 'a;

/// Adds the contacts' tangent, the normal stiffness weighted by `stiffness` and every damping
/// term by `damping`, through `add(a, b, value(i, j))` for the 3×3 block of triples a, b.
pub fn add_contact_tangent(contacts: &FlexContacts, stiffness: f64, damping: f64, add: &mut AddBlock<'_>) {
    // Friction's damping across the slip: I − n nᵀ − d dᵀ (d: sliding direction, zero while
    // sticking).
    let across = |n: [f64; 3], d: [f64; 3], i: usize, j: usize| {
        let identity = if i == j { 1.0 } else { 0.0 };
        identity - n[i] * n[j] - d[i] * d[j]
    };
    let mut node_block = |node: usize, n: [f64; 3], k: f64, friction: f64, d: [f64; 3]| {
        add((node, 0), (node, 0), &|i, j| {
            k * n[i] * n[j] + friction * across(n, d, i, j)
        });
    };
    for ground in &contacts.ground {
        let n = ground.normal();
        for c in ground.evaluated() {
            let k = stiffness * c.normal_stiffness + damping * c.normal_damping;
            node_block(c.node, n, k, damping * c.friction_damping, c.sliding_direction);
        }
    }
    if let Some(shapes) = &contacts.shapes {
        for c in shapes.evaluated() {
            let k = stiffness * c.normal_stiffness + damping * c.normal_damping;
            node_block(
                c.node,
                c.normal,
                k,
                damping * c.friction_damping,
                c.sliding_direction,
            );
        }
    }
    if let Some(pair) = &contacts.pair {
        for c in pair.evaluated_tangents() {
            let k = stiffness * c.normal_stiffness + damping * c.normal_damping;
            let t = damping * c.friction_damping;
            for a in &c.participants {
                for b in &c.participants {
                    let (da, db) = (a.direction, b.direction);
                    let w = a.slip_weight * b.slip_weight;
                    add((a.node, a.triple), (b.node, b.triple), &|i, j| {
                        k * da[i] * db[j] + t * w * across(c.normal, c.sliding_direction, i, j)
                    });
                }
            }
        }
    }
}
