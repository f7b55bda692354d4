//! Broad phase: sweep and prune of axis-aligned boxes along x.
//!
//! Sorting by the lower x bound and sweeping with a list of open intervals gives every pair
//! whose boxes overlap on all three axes in O(n log n + pairs + n·open), near linear for bodies
//! spread over a plane; an unbounded box (a plane) stays open and pairs with everything it
//! overlaps.

/// An axis-aligned bounding box (global).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: [f64; 3],
    /// Upper corner.
    pub max: [f64; 3],
}

impl Aabb {
    /// The whole space (for planes).
    pub const EVERYWHERE: Self = Self {
        min: [f64::NEG_INFINITY; 3],
        max: [f64::INFINITY; 3],
    };

    /// Whether the boxes overlap on y and z (x is handled by the sweep).
    fn overlaps_yz(&self, o: &Self) -> bool {
        (1..3).all(|k| self.min[k] <= o.max[k] && o.min[k] <= self.max[k])
    }

    /// Whether the boxes overlap on every axis.
    pub fn overlaps(&self, o: &Self) -> bool {
        self.min[0] <= o.max[0] && o.min[0] <= self.max[0] && self.overlaps_yz(o)
    }
}

/// Reusable buffers of the sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    order: Vec<usize>,
    open: Vec<usize>,
}

impl SweepAndPrune {
    /// Writes into `pairs` every (i, j), i < j, whose boxes overlap (order unspecified).
    /// Boxes with NaN bounds never pair.
    pub fn pairs(&mut self, boxes: &[Aabb], pairs: &mut Vec<(usize, usize)>) {
        pairs.clear();
        self.order.clear();
        self.order.extend(
            (0..boxes.len()).filter(|&i| boxes[i].min.iter().chain(&boxes[i].max).all(|c| !c.is_nan())),
        );
        // Stable sort: nearly sorted from one step to the next, so cheap after the first.
        self.order
            .sort_by(|&a, &b| boxes[a].min[0].total_cmp(&boxes[b].min[0]));
        self.open.clear();
        for &i in &self.order {
            let bi = &boxes[i];
            self.open.retain(|&j| boxes[j].max[0] >= bi.min[0]);
            for &j in &self.open {
                if bi.overlaps_yz(&boxes[j]) {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
            self.open.push(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(c: [f64; 3], h: f64) -> Aabb {
        Aabb {
            min: [c[0] - h, c[1] - h, c[2] - h],
            max: [c[0] + h, c[1] + h, c[2] + h],
        }
    }

    #[test]
    fn sweep_matches_all_pairs() {
        // Reference: the O(n²) test of every pair.
        let mut boxes: Vec<Aabb> = (0..60)
            .map(|i| {
                let f = i as f64;
                cube(
                    [(f * 7.3) % 5.0, (f * 3.1) % 4.0, (f * 1.7) % 3.0],
                    0.4 + (f % 3.0) * 0.1,
                )
            })
            .collect();
        boxes.push(Aabb::EVERYWHERE);
        let mut expected = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].overlaps(&boxes[j]) {
                    expected.push((i, j));
                }
            }
        }
        let mut got = Vec::new();
        SweepAndPrune::default().pairs(&boxes, &mut got);
        got.sort();
        assert_eq!(got, expected);
        assert!(got.iter().filter(|p| p.1 == 60).count() == 60);
    }

    #[test]
    fn nan_boxes_are_skipped() {
        let boxes = [
            cube([0.0; 3], 1.0),
            cube([f64::NAN, 0.0, 0.0], 1.0),
            cube([0.5, 0.0, 0.0], 1.0),
        ];
        let mut got = Vec::new();
        SweepAndPrune::default().pairs(&boxes, &mut got);
        assert_eq!(got, vec![(0, 2)]);
    }
}
