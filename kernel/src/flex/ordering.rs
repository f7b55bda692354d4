//! Node ordering (reverse Cuthill–McKee) and the skyline profile of the free coordinates.
//!
//! Allocation-free: neighbours are found by scanning the element list (O(nodes × elements)),
//! which is acceptable at build time for the mesh sizes a kernel model holds.

/// Whether two nodes share an element.
fn for_each_neighbour(elements: &[[usize; 4]], node: usize, mut f: impl FnMut(usize)) {
    for el in elements {
        if el.contains(&node) {
            for &m in el {
                if m != node {
                    f(m);
                }
            }
        }
    }
}

/// Number of element incidences of each node (a cheap degree for the ordering).
fn degree(elements: &[[usize; 4]], node: usize) -> usize {
    elements.iter().filter(|el| el.contains(&node)).count()
}

/// Writes into `order` (length = node count) the reverse Cuthill–McKee ordering: breadth-first
/// from a lowest-degree node, neighbours by increasing degree, then reversed. `visited` is
/// scratch of the same length.
pub(crate) fn reverse_cuthill_mckee(elements: &[[usize; 4]], order: &mut [usize], visited: &mut [bool]) {
    let n = order.len();
    for v in visited.iter_mut() {
        *v = false;
    }
    let mut filled = 0;
    while filled < n {
        // Start each connected component at its lowest-degree unvisited node.
        let Some(start) = (0..n)
            .filter(|&i| !visited[i])
            .min_by_key(|&i| degree(elements, i))
        else {
            break;
        };
        visited[start] = true;
        order[filled] = start;
        filled += 1;
        let mut head = filled - 1;
        while head < filled {
            let node = order[head];
            head += 1;
            let begin = filled;
            for_each_neighbour(elements, node, |m| {
                if m < n && !visited[m] {
                    visited[m] = true;
                    order[filled] = m;
                    filled += 1;
                }
            });
            // Insertion sort of the newly queued neighbours by degree (stable, in place).
            for i in begin + 1..filled {
                let mut j = i;
                while j > begin && degree(elements, order[j - 1]) > degree(elements, order[j]) {
                    order.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
    }
    order[..filled].reverse();
}

/// Smallest free-coordinate number among `node` and its neighbours (`None` if all are fixed).
pub(crate) fn first_coupled_dof(elements: &[[usize; 4]], dof: &[[usize; 12]], node: usize) -> Option<usize> {
    let min_of = |m: usize| {
        dof.get(m)
            .and_then(|d| d.iter().copied().filter(|&x| x != usize::MAX).min())
    };
    let mut best = min_of(node);
    for_each_neighbour(elements, node, |m| {
        if let Some(x) = min_of(m) {
            best = Some(best.map_or(x, |b: usize| b.min(x)));
        }
    });
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcm_orders_a_path_from_one_end() {
        // Four tets in a row sharing faces: nodes 0..7. RCM visits every node once.
        let els = [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]];
        let mut order = [0; 7];
        let mut visited = [false; 7];
        reverse_cuthill_mckee(&els, &mut order, &mut visited);
        let mut sorted = order;
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6]);
        // Starting at an end node (degree 1) keeps the band narrow: the ends are first and last.
        assert!(order[0] == 6 || order[0] == 0);
        assert!(order[6] == 0 || order[6] == 6);
    }
}
