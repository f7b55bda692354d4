//! The spanning tree of a scene's joints in joint coordinates: which joints carry the links and
//! which close loops on them, chosen so the loops cost the fewest constraint rows.
//!
//! Cutting a joint of k DOF costs 6 − k rows on the tree's coordinates (a ball joint 3, a
//! universal or cylindrical joint 4, a revolute or prismatic joint 5, a fixed joint 6;
//! `JointKind::rows`); a distance joint is always 1 row and a drive is a row on the joint it
//! drives, so neither is ever a tree joint. The tree with the fewest loop rows is the
//! maximum-weight spanning forest of the joint graph (ground one node, every body one), a
//! joint weighing the rows cutting it would cost: Kruskal's greedy choice. A joint that
//! something acts on through its own coordinate (a drive, coupling, input, tendon, joint spring
//! or joint limit) weighs more than any rows, so the forest keeps as many of those as it can:
//! cut, they would send the scene to Cartesian coordinates. Equal weights prefer the tree that
//! growth in file order makes (the first joint reaching a body carries it), then file order, so
//! a scene whose file-order tree already has the fewest rows keeps it, and its bits.

use super::TreeLink;
use crate::scene::Scene;
use ferrodyn_kernel::rigid::{BodyRef, Force, Joint, JointKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a scene joint is in the joint graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Role {
    /// A tree joint, or `rows` loop rows when cut; `kept`: something acts on its coordinate.
    Edge { rows: usize, kept: bool },
    /// Always loop rows (a distance joint), never a tree joint.
    Rows(usize),
    /// Neither (a drive: a row on the coordinate of the joint it drives).
    Skip,
}

/// A joint of the graph: its two sides and its role.
pub(super) type GraphJoint = ([BodyRef; 2], Role);

/// The links and the joints closing loops on them that [`spanning_tree`] chose for a scene.
pub(super) struct Spanning {
    /// The links, parents first.
    pub links: Vec<TreeLink>,
    /// The joints closing loops, in the order the tree grows, distance joints last.
    pub loops: Vec<usize>,
    /// Whether each scene joint carries a link or welds a body (a tree joint).
    pub tree: Vec<bool>,
}

/// The spanning tree of `scene`'s joints with the fewest loop rows (the module docs).
pub(super) fn spanning_tree(scene: &Scene) -> Spanning {
    let joints_at = JointsAt::new(scene);
    let grown = grow(scene, &joints_at, None);
    let cycles = grown
        .loops
        .iter()
        .any(|&j| !matches!(scene.joints[j].value.kind, JointKind::Distance { .. }));
    // Without a cycle among the tree's joints the forest grown is the only one.
    if !cycles {
        return grown;
    }
    let graph = joint_graph(scene, &joints_at);
    let forest = fewest_rows_forest(scene.bodies.len(), &graph, &grown.tree, true);
    if forest == grown.tree {
        return grown;
    }
    grow(scene, &joints_at, Some(&forest))
}

/// The fewest loop rows any spanning tree of `scene`'s joints has, whatever acts on its joints
/// (`check` compares the chosen tree's rows with it).
pub fn fewest_loop_rows(scene: &Scene) -> usize {
    let joints_at = JointsAt::new(scene);
    let graph = joint_graph(scene, &joints_at);
    let file_order = vec![false; graph.len()];
    let forest = fewest_rows_forest(scene.bodies.len(), &graph, &file_order, false);
    cut_rows(&graph, &forest)
}

/// The loop rows of `graph` with the tree joints `forest`: the rows of every joint cut and of
/// every distance joint.
pub(super) fn cut_rows(graph: &[GraphJoint], forest: &[bool]) -> usize {
    let rows = |(&(_, role), &in_tree): (&GraphJoint, &bool)| match role {
        Role::Edge { rows, .. } if !in_tree => rows,
        Role::Rows(rows) => rows,
        _ => 0,
    };
    graph.iter().zip(forest).map(rows).sum()
}

/// The joints of the maximum-weight spanning forest of `graph` over the ground and `bodies`
/// bodies (Kruskal): heaviest first, a joint kept (`with_kept`) above any rows, then the rows
/// its cut would cost, then a joint in `preferred`, then file order.
pub(super) fn fewest_rows_forest(
    bodies: usize,
    graph: &[GraphJoint],
    preferred: &[bool],
    with_kept: bool,
) -> Vec<bool> {
    // (Heaviest first: kept, rows, preferred; then file order.)
    let mut edges: Vec<(Reverse<Weight>, usize)> = graph
        .iter()
        .enumerate()
        .filter_map(|(index, &(_, role))| match role {
            Role::Edge { rows, kept } => Some((
                Reverse((with_kept && kept, rows, preferred.get(index) == Some(&true))),
                index,
            )),
            _ => None,
        })
        .collect();
    edges.sort_unstable();
    let node = |side: BodyRef| match side {
        BodyRef::Ground => 0,
        BodyRef::Body(b) => b + 1,
    };
    let mut sets = DisjointSets::new(bodies + 1);
    let mut forest = vec![false; graph.len()];
    for (_, index) in edges {
        let [i, j] = graph[index].0;
        forest[index] = sets.join(node(i), node(j));
    }
    forest
}

/// A joint's weight in the forest: kept, the rows its cut would cost, preferred.
type Weight = (bool, usize, bool);

/// Disjoint sets of nodes (union by size, path halving).
struct DisjointSets {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl DisjointSets {
    fn new(nodes: usize) -> Self {
        Self {
            parent: (0..nodes).collect(),
            size: vec![1; nodes],
        }
    }

    fn root(&mut self, mut node: usize) -> usize {
        while self.parent[node] != node {
            self.parent[node] = self.parent[self.parent[node]];
            node = self.parent[node];
        }
        node
    }

    /// Joins the sets of `a` and `b`; false if they were one set already.
    fn join(&mut self, a: usize, b: usize) -> bool {
        let (a, b) = (self.root(a), self.root(b));
        if a == b {
            return false;
        }
        let (small, large) = if self.size[a] < self.size[b] {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[small] = large;
        self.size[large] += self.size[small];
        true
    }
}

/// `scene`'s joints as a graph: sides, and the rows each would cost cut.
fn joint_graph(scene: &Scene, joints_at: &JointsAt) -> Vec<GraphJoint> {
    let kept = kept_joints(scene, joints_at);
    scene
        .joints
        .iter()
        .zip(kept)
        .map(|(joint, kept)| {
            let j = &joint.value;
            let role = match j.kind {
                JointKind::Distance { .. } => Role::Rows(j.kind.rows()),
                JointKind::Driving { .. } => Role::Skip,
                kind => Role::Edge {
                    rows: kind.rows(),
                    kept,
                },
            };
            ([j.body_i, j.body_j], role)
        })
        .collect()
}

/// The joints something acts on through their own coordinate, which only a tree joint has:
/// the joints a drive can drive (`drives_joint`), couplings' joints, inputs', tendons',
/// and those with a joint spring, limit or friction.
fn kept_joints(scene: &Scene, joints_at: &JointsAt) -> Vec<bool> {
    let mut kept = vec![false; scene.joints.len()];
    let mut keep = |joint: usize| {
        if let Some(k) = kept.get_mut(joint) {
            *k = true;
        }
    };
    for coupling in &scene.couplings {
        keep(coupling.value.joint);
        keep(coupling.value.follows);
    }
    for input in &scene.inputs {
        keep(input.value.joint);
    }
    for tendon in &scene.tendons {
        tendon.value.terms.iter().for_each(|&(joint, _)| keep(joint));
    }
    for (joint, friction) in scene.friction.iter().enumerate() {
        if friction.is_some() {
            keep(joint);
        }
    }
    for force in &scene.forces {
        if let Force::RotationalSpringDamper { joint, .. }
        | Force::TranslationalSpringDamper { joint, .. }
        | Force::JointLimit { joint, .. } = force.value
        {
            keep(joint);
        }
    }
    for (drive, joint) in scene.joints.iter().enumerate() {
        if !matches!(joint.value.kind, JointKind::Driving { .. }) {
            continue;
        }
        // The joints a drive can act on join its two bodies: they are at its body j, or at its
        // body i when body j is the ground.
        let BodyRef::Body(body) = (match joint.value.body_j {
            BodyRef::Ground => joint.value.body_i,
            side => side,
        }) else {
            continue;
        };
        for &other in joints_at.at(body) {
            if super::drives_joint(scene, drive, other) {
                keep(other);
            }
        }
    }
    kept
}

/// Links grown from the ground through the joints (through the joints `allowed` only, when
/// given), parents first (file order among the joints that reach a new body in the same pass);
/// a fixed joint welds the body it reaches to the link (or the ground) it reaches it from. When
/// no joint reaches further, the first body not reached yet becomes a floating base and growth
/// goes on from it. A joint whose two bodies are both reached when it is visited closes a loop;
/// a joint not allowed waits until they are.
///
/// The passes over the joints are not made one by one (a chain in reverse file order would take
/// n passes of n joints): a joint is visited when one of its bodies is reached, in the pass and
/// at the place a full scan would reach it (the same pass when it comes after the joint that
/// reached the body, the next one otherwise), so the links come out in the same order in time
/// linear in the bodies and joints (a heap of the pending visits: n log n).
fn grow(scene: &Scene, joints_at: &JointsAt, allowed: Option<&[bool]>) -> Spanning {
    // The link each body is on: Some(None) for the ground, Some(Some(k)) for link k, None if
    // the body is not reached yet.
    let mut link_of: Vec<Option<Option<usize>>> = vec![None; scene.bodies.len()];
    let mut links: Vec<TreeLink> = Vec::with_capacity(scene.bodies.len());
    let mut tree = vec![false; scene.joints.len()];
    // Distance joints never carry a link: they are loop rows (a body held by them alone is a
    // floating base). Drives carry none either: they are coordinate rows on the joint they
    // drive (`driven_link`).
    let mut used: Vec<bool> = scene
        .joints
        .iter()
        .map(|j| {
            matches!(
                j.value.kind,
                JointKind::Distance { .. } | JointKind::Driving { .. }
            )
        })
        .collect();
    let mut loops = Vec::new();
    let reached = |link_of: &[Option<Option<usize>>], side: BodyRef| match side {
        BodyRef::Ground => Some(None),
        BodyRef::Body(b) => link_of[b],
    };
    // Pending visits as (pass, joint), the earliest first; the first pass visits the joints on
    // the ground.
    let mut visits: BinaryHeap<Reverse<(usize, usize)>> = scene
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| j.value.body_i == BodyRef::Ground || j.value.body_j == BodyRef::Ground)
        .map(|(index, _)| Reverse((0, index)))
        .collect();
    let (mut pass, mut unreached) = (0, 0);
    loop {
        let Some(Reverse((at, index))) = visits.pop() else {
            // No joint reaches further: the first body not reached yet is a floating base, and
            // the next pass visits its joints.
            while link_of.get(unreached).is_some_and(Option::is_some) {
                unreached += 1;
            }
            if unreached == link_of.len() {
                let distance = scene
                    .joints
                    .iter()
                    .enumerate()
                    .filter(|(_, j)| matches!(j.value.kind, JointKind::Distance { .. }));
                loops.extend(distance.map(|(index, _)| index));
                return Spanning { links, loops, tree };
            }
            link_of[unreached] = Some(Some(links.len()));
            links.push(TreeLink::new(unreached, None, None));
            pass += 1;
            visits.extend(joints_at.at(unreached).iter().map(|&k| Reverse((pass, k))));
            continue;
        };
        pass = at;
        if used[index] {
            continue;
        }
        let joint = &scene.joints[index];
        let (i, j) = (joint.value.body_i, joint.value.body_j);
        let (parent, child) = match (reached(&link_of, i), reached(&link_of, j)) {
            (Some(_), Some(_)) => {
                // Both bodies are on the tree already: the joint closes a loop.
                used[index] = true;
                loops.push(index);
                continue;
            }
            (Some(parent), None) => (parent, j),
            (None, Some(parent)) => (parent, i),
            (None, None) => continue,
        };
        let BodyRef::Body(body) = child else { continue };
        if allowed.is_some_and(|allowed| !allowed[index]) {
            // Cut: visited again when its other body is reached.
            continue;
        }
        used[index] = true;
        tree[index] = true;
        // The joints of the body reached: later in this pass, or in the next one.
        let next = |k: usize| Reverse((if k > index { at } else { at + 1 }, k));
        visits.extend(joints_at.at(body).iter().map(|&k| next(k)));
        if joint.value.kind == JointKind::Fixed {
            link_of[body] = Some(parent);
            if let Some(link) = parent.and_then(|k| links.get_mut(k)) {
                link.welded.push(body);
            }
            continue;
        }
        link_of[body] = Some(Some(links.len()));
        links.push(TreeLink::new(body, Some(index), parent));
    }
}

/// The joints at each body (indices, in file order), in one list.
struct JointsAt {
    /// Body b's joints are `joints[start[b]..start[b + 1]]`.
    start: Vec<usize>,
    joints: Vec<usize>,
}

impl JointsAt {
    fn new(scene: &Scene) -> Self {
        let bodies = |j: &Joint<f64>| {
            [j.body_i, j.body_j].into_iter().filter_map(|side| match side {
                BodyRef::Body(b) => Some(b),
                BodyRef::Ground => None,
            })
        };
        let mut start = vec![0; scene.bodies.len() + 1];
        for joint in &scene.joints {
            for b in bodies(&joint.value) {
                start[b + 1] += 1;
            }
        }
        for b in 0..scene.bodies.len() {
            start[b + 1] += start[b];
        }
        let mut filled = start.clone();
        let mut joints = vec![0; start[scene.bodies.len()]];
        for (index, joint) in scene.joints.iter().enumerate() {
            for b in bodies(&joint.value) {
                joints[filled[b]] = index;
                filled[b] += 1;
            }
        }
        Self { start, joints }
    }

    /// The joints at `body`.
    fn at(&self, body: usize) -> &[usize] {
        &self.joints[self.start[body]..self.start[body + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A joint of `rows` between sides `i` and `j` (`None` the ground).
    fn edge(i: Option<usize>, j: Option<usize>, rows: usize, kept: bool) -> GraphJoint {
        let side = |s: Option<usize>| s.map_or(BodyRef::Ground, BodyRef::Body);
        ([side(i), side(j)], Role::Edge { rows, kept })
    }

    /// (kept joints on the tree, loop rows) of the best spanning forest of `graph` found by
    /// trying every subset of its joints: the most kept joints, then the fewest rows.
    fn brute_force(bodies: usize, graph: &[GraphJoint]) -> (usize, usize) {
        let edges: Vec<usize> = (0..graph.len())
            .filter(|&k| matches!(graph[k].1, Role::Edge { .. }))
            .collect();
        let node = |side: BodyRef| match side {
            BodyRef::Ground => 0,
            BodyRef::Body(b) => b + 1,
        };
        // A spanning forest joins as many nodes as all the joints do.
        let joined = |subset: &[usize]| -> Option<usize> {
            let mut sets = DisjointSets::new(bodies + 1);
            let mut count = 0;
            for &k in subset {
                let [i, j] = graph[k].0;
                if !sets.join(node(i), node(j)) {
                    return None;
                }
                count += 1;
            }
            Some(count)
        };
        let most = {
            let mut sets = DisjointSets::new(bodies + 1);
            edges
                .iter()
                .filter(|&&k| sets.join(node(graph[k].0[0]), node(graph[k].0[1])))
                .count()
        };
        let mut best: Option<(Reverse<usize>, usize)> = None;
        for mask in 0u32..1 << edges.len() {
            let subset: Vec<usize> = (0..edges.len())
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| edges[b])
                .collect();
            if joined(&subset) != Some(most) {
                continue;
            }
            let mut forest = vec![false; graph.len()];
            subset.iter().for_each(|&k| forest[k] = true);
            let kept = subset
                .iter()
                .filter(|&&k| matches!(graph[k].1, Role::Edge { kept: true, .. }))
                .count();
            let candidate = (Reverse(kept), cut_rows(graph, &forest));
            best = Some(best.map_or(candidate, |b| b.min(candidate)));
        }
        let (Reverse(kept), rows) = best.unwrap();
        (kept, rows)
    }

    fn kept_on(graph: &[GraphJoint], forest: &[bool]) -> usize {
        graph
            .iter()
            .zip(forest)
            .filter(|((_, role), &on)| on && matches!(role, Role::Edge { kept: true, .. }))
            .count()
    }

    #[test]
    fn a_four_bar_with_its_ball_joint_listed_first_cuts_the_ball_joint() {
        // Ground → A by a ball joint, A–B, B–C and C–ground revolute: file order grows the
        // ball joint's link and cuts C–ground (5 rows); cutting the ball joint costs 3.
        let graph = [
            edge(None, Some(0), 3, false),
            edge(Some(0), Some(1), 5, false),
            edge(Some(1), Some(2), 5, false),
            edge(Some(2), None, 5, false),
        ];
        let file_order = [true, true, true, false];
        let forest = fewest_rows_forest(3, &graph, &file_order, true);
        assert_eq!(forest, [false, true, true, true]);
        assert_eq!(cut_rows(&graph, &forest), 3);
        assert_eq!(cut_rows(&graph, &file_order), 5);
        // A spring on the C–ground revolute keeps that joint, and the ball joint is still the
        // one cut.
        let mut sprung = graph;
        sprung[3] = edge(Some(2), None, 5, true);
        assert_eq!(
            fewest_rows_forest(3, &sprung, &file_order, true),
            [false, true, true, true]
        );
        // Kept joints win over rows: with the ball joint kept, a revolute is cut.
        let mut kept = graph;
        kept[0] = edge(None, Some(0), 3, true);
        let forest = fewest_rows_forest(3, &kept, &file_order, true);
        assert!(forest[0]);
        assert_eq!(cut_rows(&kept, &forest), 5);
    }

    #[test]
    fn equal_rows_keep_the_tree_grown_in_file_order() {
        // A–B listed before ground–A and ground–B: Kruskal in file order alone would keep A–B;
        // the tree grown from the ground keeps the two ground joints, and it keeps them.
        let graph = [
            edge(Some(0), Some(1), 5, false),
            edge(None, Some(0), 5, false),
            edge(None, Some(1), 5, false),
        ];
        let grown = [false, true, true];
        assert_eq!(fewest_rows_forest(2, &graph, &grown, true), grown);
    }

    #[test]
    fn the_chosen_forest_has_the_fewest_rows_of_all_spanning_forests() {
        // Small random joint graphs (ground and up to 4 bodies, up to 9 joints of every row
        // count, some kept, some distance joints, some bodies joined to nothing or only to each
        // other: floating bases) against every subset of their joints.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..400 {
            let bodies = 1 + next(4);
            let count = 1 + next(9);
            let graph: Vec<GraphJoint> = (0..count)
                .map(|_| {
                    let side = |k: usize| (k < bodies).then_some(k);
                    let (i, mut j) = (side(next(bodies + 1)), side(next(bodies + 1)));
                    if i == j {
                        j = if i.is_none() { Some(0) } else { None };
                    }
                    match next(8) {
                        0 => (edge(i, j, 1, false).0, Role::Rows(1)),
                        k => edge(i, j, [3, 4, 5, 6][k % 4], next(5) == 0),
                    }
                })
                .collect();
            let (kept, rows) = brute_force(bodies, &graph);
            let preferred: Vec<bool> = (0..count).map(|_| next(2) == 0).collect();
            let forest = fewest_rows_forest(bodies, &graph, &preferred, true);
            assert_eq!(
                (kept_on(&graph, &forest), cut_rows(&graph, &forest)),
                (kept, rows),
                "{graph:?}"
            );
            // Without kept joints: the fewest rows of all.
            let free: Vec<GraphJoint> = graph
                .iter()
                .map(|&(sides, role)| match role {
                    Role::Edge { rows, .. } => (sides, Role::Edge { rows, kept: false }),
                    other => (sides, other),
                })
                .collect();
            let (_, fewest) = brute_force(bodies, &free);
            let forest = fewest_rows_forest(bodies, &graph, &preferred, false);
            assert_eq!(cut_rows(&graph, &forest), fewest, "{graph:?}");
            // A preferred forest that has the fewest rows is the one chosen.
            let chosen = fewest_rows_forest(bodies, &free, &forest, false);
            assert_eq!(chosen, forest, "{graph:?}");
        }
    }
}
