//! Bounding volume hierarchy (an AABB tree) for the contact surfaces of flexible bodies.
//!
//! A flexible body's boundary triangles never change (fixed topology) but their vertices move
//! every step, so the tree is built once (top-down median split, O(n log n)) and afterwards only
//! refitted: the items' new boxes are copied in and every inner box is recomputed bottom-up in
//! O(n), keeping the tree shape. A query then costs O(log n + hits) while the boxes keep their
//! neighbourhoods; large motions only make the inner boxes looser (slower), never wrong.
//!
//! Nodes live in one flat array in pre-order: a node's left child is the next node, so every
//! child has a larger index than its parent and a reverse pass refits children before parents.
//! Every node covers a contiguous range of the item permutation, which is also what a leaf holds.

use super::broad::Aabb;

/// Most items kept in one leaf: small enough for cheap leaf tests, large enough to keep the
/// node count (refit cost) at about n/2.
const MAX_LEAF_ITEMS: usize = 4;

/// Depth of the fixed traversal stack: a median split halves the item count at each level, so
/// no tree over fewer than 2⁶⁴ items is deeper than this.
const STACK_DEPTH: usize = 64;

/// A box containing nothing: the neutral element of [`union`].
const EMPTY: Aabb = Aabb {
    min: [f64::INFINITY; 3],
    max: [f64::NEG_INFINITY; 3],
};

/// Smallest box containing both; a NaN coordinate of either is ignored (`f64::min`/`max`), so a
/// NaN item cannot poison its ancestors (it is never reported: `overlaps` is false on NaN).
fn union(a: &Aabb, b: &Aabb) -> Aabb {
    let mut out = *a;
    for k in 0..3 {
        out.min[k] = out.min[k].min(b.min[k]);
        out.max[k] = out.max[k].max(b.max[k]);
    }
    out
}

/// One node of the flat tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Box containing every item box below this node.
    bounds: Aabb,
    /// First position in `order`/`leaf_boxes` of the items below this node.
    start: usize,
    /// One past the last such position.
    end: usize,
    /// Index of the right child; 0 marks a leaf (the root, index 0, is nobody's child). The left
    /// child of an inner node is the next node.
    right: usize,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.right == 0
    }

    fn item_count(&self) -> usize {
        self.end - self.start
    }
}

/// The item count given to [`AabbTree::refit`] differs from the one the tree was built over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("AABB tree refit with {got} boxes, but it was built over {expected} items")]
pub struct RefitCountMismatch {
    /// Items in the tree.
    pub expected: usize,
    /// Boxes given.
    pub got: usize,
}

/// Axis-aligned bounding-box tree over a fixed set of items (e.g. surface triangles), built once
/// and refitted as the items move; reports items or item pairs whose boxes overlap.
#[derive(Clone, Debug, Default)]
pub struct AabbTree {
    /// Pre-order nodes; empty for an empty tree.
    nodes: Vec<Node>,
    /// Item indices in leaf order (a node's items are `order[start..end]`).
    order: Vec<usize>,
    /// The items' boxes in leaf order (`leaf_boxes[k]` is the box of item `order[k]`), contiguous
    /// for the leaf tests.
    leaf_boxes: Vec<Aabb>,
}

impl AabbTree {
    /// Builds the tree over items with boxes `boxes[i]` (top-down: split at the median of the box
    /// centres along the longest axis of the centres' bounds; leaves of at most 4 items). Items
    /// with NaN bounds are still stored, but never reported by queries.
    pub fn build(boxes: &[Aabb]) -> Self {
        let centres: Vec<[f64; 3]> = boxes
            .iter()
            .map(|b| std::array::from_fn(|k| 0.5 * b.min[k] + 0.5 * b.max[k]))
            .collect();
        let mut tree = Self {
            nodes: Vec::with_capacity(2 * boxes.len() / MAX_LEAF_ITEMS + 1),
            order: (0..boxes.len()).collect(),
            leaf_boxes: Vec::with_capacity(boxes.len()),
        };
        if !boxes.is_empty() {
            tree.split(0, boxes.len(), &centres);
        }
        tree.leaf_boxes.extend(tree.order.iter().map(|&i| boxes[i]));
        tree.refit_inner();
        tree
    }

    /// Appends the subtree over `order[start..end]` in pre-order. Recursion depth is the tree
    /// depth (≤ log₂ n + 1, median splits).
    fn split(&mut self, start: usize, end: usize, centres: &[[f64; 3]]) {
        let index = self.nodes.len();
        self.nodes.push(Node {
            bounds: EMPTY,
            start,
            end,
            right: 0,
        });
        if end - start <= MAX_LEAF_ITEMS {
            return;
        }
        // Longest axis of the centres' bounds; NaN centres are ignored by min/max.
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for &i in &self.order[start..end] {
            for k in 0..3 {
                lo[k] = lo[k].min(centres[i][k]);
                hi[k] = hi[k].max(centres[i][k]);
            }
        }
        let extent = |k: usize| if hi[k] >= lo[k] { hi[k] - lo[k] } else { 0.0 };
        let axis = (1..3).fold(0, |best, k| if extent(k) > extent(best) { k } else { best });
        // Median by count, so the depth stays logarithmic even when all centres coincide;
        // total_cmp orders NaN and ties deterministically.
        let mid = start + (end - start) / 2;
        self.order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            centres[a][axis].total_cmp(&centres[b][axis]).then(a.cmp(&b))
        });
        self.split(start, mid, centres);
        self.nodes[index].right = self.nodes.len();
        self.split(mid, end, centres);
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the tree holds no item.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Box containing every item box (NaN coordinates ignored), or `None` for an empty tree.
    pub fn bounds(&self) -> Option<Aabb> {
        self.nodes.first().map(|n| n.bounds)
    }

    /// Replaces the items' boxes (same count and order as at build) and recomputes every inner
    /// box bottom-up; O(n). The tree shape is kept, so queries stay exact however far the boxes
    /// moved (only slower if they moved a lot). A different count is an error and leaves the tree
    /// unchanged.
    pub fn refit(&mut self, boxes: &[Aabb]) -> Result<(), RefitCountMismatch> {
        if boxes.len() != self.order.len() {
            return Err(RefitCountMismatch {
                expected: self.order.len(),
                got: boxes.len(),
            });
        }
        for (slot, &i) in self.leaf_boxes.iter_mut().zip(&self.order) {
            *slot = boxes[i];
        }
        self.refit_inner();
        Ok(())
    }

    /// Recomputes every node box from `leaf_boxes`, children first (reverse pre-order).
    fn refit_inner(&mut self) {
        for index in (0..self.nodes.len()).rev() {
            let node = self.nodes[index];
            let bounds = if node.is_leaf() {
                self.leaf_boxes[node.start..node.end]
                    .iter()
                    .fold(EMPTY, |acc, b| union(&acc, b))
            } else {
                union(&self.nodes[index + 1].bounds, &self.nodes[node.right].bounds)
            };
            self.nodes[index].bounds = bounds;
        }
    }

    /// Writes into `out` (cleared first) every item whose box overlaps `query`, in ascending item
    /// order (sorted, deterministic). Allocation-free apart from growing `out`.
    pub fn overlapping(&self, query: &Aabb, out: &mut Vec<usize>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        // Fixed stack of nodes to visit: a visit replaces a node by its two children, so it
        // holds at most depth + 1 nodes.
        let mut stack = [0usize; STACK_DEPTH];
        let mut top = 1usize; // stack[0] is the root
        while let Some(last) = top.checked_sub(1) {
            top = last;
            let index = stack[top];
            let node = &self.nodes[index];
            if !node.bounds.overlaps(query) {
                continue;
            }
            if node.is_leaf() || top + 2 > STACK_DEPTH {
                // A leaf; or (never for median-split trees) a full stack: scan the node's items,
                // which is exact, only slower.
                let range = node.start..node.end;
                for (b, &i) in self.leaf_boxes[range.clone()].iter().zip(&self.order[range]) {
                    if b.overlaps(query) {
                        out.push(i);
                    }
                }
            } else {
                stack[top] = node.right;
                stack[top + 1] = index + 1; // left child on top: visited first
                top += 2;
            }
        }
        out.sort_unstable();
    }

    /// Writes into `out` (cleared first) every pair (i, j), i < j, of items of this tree whose
    /// boxes overlap (pairs within one tree, e.g. self-contact), in ascending order.
    pub fn self_pairs(&self, out: &mut Vec<(usize, usize)>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        // Node pairs still to visit; (n, n) stands for the pairs within node n.
        let mut stack = vec![(0usize, 0usize)];
        while let Some((a, b)) = stack.pop() {
            let (na, nb) = (&self.nodes[a], &self.nodes[b]);
            if a == b {
                if na.is_leaf() {
                    for p in na.start..na.end {
                        for q in p + 1..na.end {
                            self.push_if_overlapping(self, p, q, out);
                        }
                    }
                } else {
                    stack.extend([(a + 1, a + 1), (na.right, na.right), (a + 1, na.right)]);
                }
            } else if na.bounds.overlaps(&nb.bounds) {
                descend(self, self, a, b, &mut stack, out);
            }
        }
        for pair in out.iter_mut() {
            *pair = (pair.0.min(pair.1), pair.0.max(pair.1));
        }
        out.sort_unstable();
    }

    /// Writes into `out` (cleared first) every pair (i, j), item i of `self` and item j of
    /// `other`, whose boxes overlap, found by simultaneous descent of both trees; ascending.
    pub fn pairs_with(&self, other: &AabbTree, out: &mut Vec<(usize, usize)>) {
        out.clear();
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return;
        }
        let mut stack = vec![(0usize, 0usize)];
        while let Some((a, b)) = stack.pop() {
            if self.nodes[a].bounds.overlaps(&other.nodes[b].bounds) {
                descend(self, other, a, b, &mut stack, out);
            }
        }
        out.sort_unstable();
    }

    /// Pushes (item at leaf position `p` of `self`, item at `q` of `other`) if their boxes overlap.
    fn push_if_overlapping(&self, other: &AabbTree, p: usize, q: usize, out: &mut Vec<(usize, usize)>) {
        if self.leaf_boxes[p].overlaps(&other.leaf_boxes[q]) {
            out.push((self.order[p], other.order[q]));
        }
    }
}

/// One step of the simultaneous descent of overlapping nodes `a` of `left` and `b` of `right`:
/// tests the item pairs of two leaves, otherwise splits the inner node with more items.
fn descend(
    left: &AabbTree,
    right: &AabbTree,
    a: usize,
    b: usize,
    stack: &mut Vec<(usize, usize)>,
    out: &mut Vec<(usize, usize)>,
) {
    let (na, nb) = (&left.nodes[a], &right.nodes[b]);
    match (na.is_leaf(), nb.is_leaf()) {
        (true, true) => {
            for p in na.start..na.end {
                for q in nb.start..nb.end {
                    left.push_if_overlapping(right, p, q, out);
                }
            }
        }
        (false, true) => stack.extend([(a + 1, b), (na.right, b)]),
        (true, false) => stack.extend([(a, b + 1), (a, nb.right)]),
        (false, false) if na.item_count() >= nb.item_count() => stack.extend([(a + 1, b), (na.right, b)]),
        (false, false) => stack.extend([(a, b + 1), (a, nb.right)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiny deterministic generator (Knuth's MMIX LCG), uniform in [0, 1).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        /// A box with its centre in [0, span)³ and half-sizes in [0, half).
        fn aabb(&mut self, span: f64, half: f64) -> Aabb {
            let c: [f64; 3] = std::array::from_fn(|_| span * self.next());
            let h: [f64; 3] = std::array::from_fn(|_| half * self.next());
            Aabb {
                min: std::array::from_fn(|k| c[k] - h[k]),
                max: std::array::from_fn(|k| c[k] + h[k]),
            }
        }
    }

    fn random_boxes(rng: &mut Lcg, n: usize) -> Vec<Aabb> {
        (0..n).map(|_| rng.aabb(10.0, 0.6)).collect()
    }

    /// Reference: every item box tested with `Aabb::overlaps`.
    fn brute_overlapping(boxes: &[Aabb], query: &Aabb) -> Vec<usize> {
        (0..boxes.len()).filter(|&i| boxes[i].overlaps(query)).collect()
    }

    /// Reference: every pair of boxes tested with `Aabb::overlaps`.
    fn brute_pairs(a: &[Aabb], b: &[Aabb]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                if x.overlaps(y) {
                    out.push((i, j));
                }
            }
        }
        out
    }

    /// Reference: every pair i < j within one set tested with `Aabb::overlaps`.
    fn brute_self_pairs(boxes: &[Aabb]) -> Vec<(usize, usize)> {
        brute_pairs(boxes, boxes)
            .into_iter()
            .filter(|&(i, j)| i < j)
            .collect()
    }

    fn assert_queries_match(tree: &AabbTree, boxes: &[Aabb], rng: &mut Lcg) {
        let mut got = Vec::new();
        let mut hits = 0;
        // Random queries, and the first item boxes themselves (sure hits).
        let own = boxes.iter().take(20).copied().collect::<Vec<_>>();
        for query in (0..200).map(|_| rng.aabb(10.0, 1.5)).chain(own) {
            tree.overlapping(&query, &mut got);
            assert_eq!(got, brute_overlapping(boxes, &query));
            hits += got.len();
        }
        assert!(hits > 0, "the random queries should hit something");
    }

    #[test]
    fn overlapping_matches_brute_force_before_and_after_far_refit() {
        let mut rng = Lcg(7);
        for n in [1, 2, 3, 5, 17, 100, 1000] {
            let boxes = random_boxes(&mut rng, n);
            let mut tree = AabbTree::build(&boxes);
            assert_eq!(tree.len(), n);
            assert_queries_match(&tree, &boxes, &mut rng);
            // Fresh random boxes: every item moves far from where the tree grouped it.
            let moved = random_boxes(&mut rng, n);
            tree.refit(&moved).expect("same count");
            assert_queries_match(&tree, &moved, &mut rng);
        }
    }

    #[test]
    fn pairs_match_brute_force_before_and_after_refit() {
        let mut rng = Lcg(11);
        for (n, m) in [(1, 1), (3, 40), (60, 7), (300, 200)] {
            let a = random_boxes(&mut rng, n);
            let b = random_boxes(&mut rng, m);
            let mut ta = AabbTree::build(&a);
            let tb = AabbTree::build(&b);
            let mut got = Vec::new();
            ta.pairs_with(&tb, &mut got);
            assert_eq!(got, brute_pairs(&a, &b));
            ta.self_pairs(&mut got);
            assert_eq!(got, brute_self_pairs(&a));
            let moved = random_boxes(&mut rng, n);
            ta.refit(&moved).expect("same count");
            ta.pairs_with(&tb, &mut got);
            assert_eq!(got, brute_pairs(&moved, &b));
            ta.self_pairs(&mut got);
            assert_eq!(got, brute_self_pairs(&moved));
        }
    }

    #[test]
    fn empty_tree_reports_nothing() {
        let mut tree = AabbTree::build(&[]);
        assert!(tree.is_empty());
        assert_eq!(tree.bounds(), None);
        let mut items = vec![9];
        tree.overlapping(&Aabb::EVERYWHERE, &mut items);
        assert!(items.is_empty());
        let mut pairs = vec![(1, 2)];
        tree.self_pairs(&mut pairs);
        assert!(pairs.is_empty());
        let one = AabbTree::build(&[Aabb::EVERYWHERE]);
        tree.pairs_with(&one, &mut pairs);
        assert!(pairs.is_empty());
        one.pairs_with(&tree, &mut pairs);
        assert!(pairs.is_empty());
        assert_eq!(tree.refit(&[]), Ok(()));
    }

    #[test]
    fn single_item() {
        let b = Aabb {
            min: [0.0; 3],
            max: [1.0; 3],
        };
        let tree = AabbTree::build(&[b]);
        assert_eq!((tree.len(), tree.bounds()), (1, Some(b)));
        let mut items = Vec::new();
        tree.overlapping(&b, &mut items);
        assert_eq!(items, vec![0]);
        let far = Aabb {
            min: [2.0; 3],
            max: [3.0; 3],
        };
        tree.overlapping(&far, &mut items);
        assert!(items.is_empty());
        let mut pairs = Vec::new();
        tree.self_pairs(&mut pairs);
        assert!(pairs.is_empty());
        tree.pairs_with(&tree, &mut pairs);
        assert_eq!(pairs, vec![(0, 0)]);
    }

    #[test]
    fn nan_boxes_are_never_reported() {
        let mut rng = Lcg(3);
        let mut boxes = random_boxes(&mut rng, 50);
        for i in (0..50).step_by(7) {
            boxes[i].min[i % 3] = f64::NAN;
        }
        boxes[1] = Aabb {
            min: [f64::NAN; 3],
            max: [f64::NAN; 3],
        };
        let mut tree = AabbTree::build(&boxes);
        let mut items = Vec::new();
        tree.overlapping(&Aabb::EVERYWHERE, &mut items);
        let valid: Vec<usize> = (0..50).filter(|&i| i != 1 && i % 7 != 0).collect();
        assert_eq!(items, valid);
        assert_queries_match(&tree, &boxes, &mut rng);
        let mut pairs = Vec::new();
        tree.self_pairs(&mut pairs);
        assert_eq!(pairs, brute_self_pairs(&boxes));
        // A NaN query finds nothing; NaN items do not widen the root box.
        let nan_query = Aabb {
            min: [f64::NAN; 3],
            max: [1e9; 3],
        };
        tree.overlapping(&nan_query, &mut items);
        assert!(items.is_empty());
        assert!(tree
            .bounds()
            .is_some_and(|b| b.min.iter().chain(&b.max).all(|c| c.is_finite())));
        // All NaN (e.g. a diverged state): nothing at all.
        tree.refit(&vec![boxes[1]; 50]).expect("same count");
        tree.overlapping(&Aabb::EVERYWHERE, &mut items);
        assert!(items.is_empty());
    }

    #[test]
    fn infinite_and_coincident_boxes() {
        // Unbounded boxes (NaN centres) and 40 identical boxes (zero centre extent) still split
        // by count and answer exactly.
        let mut boxes = vec![Aabb::EVERYWHERE; 3];
        boxes.extend(std::iter::repeat_n(
            Aabb {
                min: [1.0; 3],
                max: [2.0; 3],
            },
            40,
        ));
        let tree = AabbTree::build(&boxes);
        let mut rng = Lcg(5);
        assert_queries_match(&tree, &boxes, &mut rng);
        let mut pairs = Vec::new();
        tree.self_pairs(&mut pairs);
        assert_eq!(pairs, brute_self_pairs(&boxes));
    }

    /// Any coordinates, NaN and infinities included, half of them from a small range so boxes
    /// overlap often.
    fn any_aabb() -> impl proptest::strategy::Strategy<Value = Aabb> {
        use proptest::prelude::*;
        proptest::array::uniform6(prop_oneof![any::<f64>(), -3.0..3.0f64]).prop_map(|c| Aabb {
            min: [c[0], c[1], c[2]],
            max: [c[3], c[4], c[5]],
        })
    }

    proptest::proptest! {
        /// Arbitrary (also inverted, NaN or infinite) boxes: no panic, same answers as brute force.
        #[test]
        fn arbitrary_boxes_match_brute_force(
            boxes in proptest::collection::vec(any_aabb(), 0..40),
            moved in proptest::collection::vec(any_aabb(), 0..40),
            query in any_aabb(),
        ) {
            let mut tree = AabbTree::build(&boxes);
            let mut items = Vec::new();
            tree.overlapping(&query, &mut items);
            proptest::prop_assert_eq!(&items, &brute_overlapping(&boxes, &query));
            let mut pairs = Vec::new();
            tree.self_pairs(&mut pairs);
            proptest::prop_assert_eq!(&pairs, &brute_self_pairs(&boxes));
            let other = AabbTree::build(&moved);
            tree.pairs_with(&other, &mut pairs);
            proptest::prop_assert_eq!(&pairs, &brute_pairs(&boxes, &moved));
            if tree.refit(&moved).is_ok() {
                tree.overlapping(&query, &mut items);
                proptest::prop_assert_eq!(&items, &brute_overlapping(&moved, &query));
            } else {
                proptest::prop_assert_ne!(boxes.len(), moved.len());
            }
        }
    }

    #[test]
    fn refit_with_wrong_count_is_an_error_and_keeps_the_tree() {
        let mut rng = Lcg(1);
        let boxes = random_boxes(&mut rng, 10);
        let mut tree = AabbTree::build(&boxes);
        let before = tree.bounds();
        assert_eq!(
            tree.refit(&boxes[..9]),
            Err(RefitCountMismatch { expected: 10, got: 9 })
        );
        assert_eq!(tree.bounds(), before);
        assert_queries_match(&tree, &boxes, &mut rng);
    }
}
