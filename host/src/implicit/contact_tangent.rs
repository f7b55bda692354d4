//! The flexible contacts' part of an implicit Newton matrix, at the contacts of their last
//! evaluation: stiffness · (∂F_n/∂δ n nᵀ) + damping · (∂F_n/∂δ̇ n nᵀ + friction damping across
//! the slip) on the coordinate triples each contact acts on (ground planes and rigid shapes: the
//! node's position; pairs: the node's and the face's). A shape on a rigid body couples the node
//! with the body ([`BodyCoupling`]). The curvature of a shape's normal is left out: a modified
//! Newton in that term.

use crate::contact::FlexContacts;

/// A coordinate triple: (node, 0 for its position or 1–3 for a gradient).
pub type Triple = (usize, usize);

/// Adds `value(i, j)` to the 3×3 block of triples a, b of a Newton matrix.
pub type AddBlock<'a> = dyn FnMut(Triple, Triple, &dyn Fn(usize, usize) -> f64) + 'a;

/// A node touching a shape on a rigid body: the contact's weighted 3×3 tangent `w` acts on the
/// node's position less the body's material point at the node, x_n − (x_b + r) with `lever`
/// r = p − x_b (global): the node–body and body–body blocks follow from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyCoupling {
    /// The node.
    pub node: usize,
    /// The body carrying the shape.
    pub body: usize,
    /// The contact point less the body's origin (global).
    pub lever: [f64; 3],
    /// stiffness · ∂F/∂δ n nᵀ + damping · (∂F/∂δ̇ n nᵀ + friction damping across the slip).
    pub w: [[f64; 3]; 3],
}

/// Friction's damping across the slip: I − n nᵀ − d dᵀ (d: sliding direction, zero while
/// sticking).
fn across(n: [f64; 3], d: [f64; 3], i: usize, j: usize) -> f64 {
    let identity = if i == j { 1.0 } else { 0.0 };
    identity - n[i] * n[j] - d[i] * d[j]
}

/// Adds the contacts' tangent, the normal stiffness weighted by `stiffness` and every damping
/// term by `damping`, through `add(a, b, value(i, j))` for the 3×3 block of triples a, b, and
/// hands every contact with a shape on a body to `body` (the node's own block added).
pub fn add_contact_tangent(
    contacts: &FlexContacts,
    stiffness: f64,
    damping: f64,
    add: &mut AddBlock<'_>,
    body: &mut dyn FnMut(BodyCoupling),
) {
    for ground in &contacts.ground {
        let n = ground.normal();
        for c in ground.evaluated() {
            let w = c.tangent.weighted(n, stiffness, damping);
            add((c.node, 0), (c.node, 0), &|i, j| w[i][j]);
        }
    }
    if let Some(shapes) = &contacts.shapes {
        for c in shapes.evaluated() {
            let w = c.tangent.weighted(c.normal, stiffness, damping);
            add((c.node, 0), (c.node, 0), &|i, j| w[i][j]);
            if let Some(b) = shapes.shapes().get(c.shape).and_then(|s| s.body) {
                body(BodyCoupling {
                    node: c.node,
                    body: b,
                    lever: c.lever,
                    w,
                });
            }
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
