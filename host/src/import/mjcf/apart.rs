//! Which body pairs' contact shapes never touch, by MuJoCo's collision filter: two geoms may
//! collide when `contype` of one shares a bit with `conaffinity` of the other. A scene keeps
//! body pairs apart (`[[contact_material]] collide = false`), not geom pairs: a pair of bodies
//! is kept apart when none of their geoms may collide, and touches wholly otherwise.

/// A contact geom: its scene body (`None`: the ground), `contype`, `conaffinity`, line.
pub(super) type Mask = (Option<String>, u32, u32, usize);

/// The body pairs of `geoms` none of whose geoms may collide, each with the line of its later
/// geom.
pub(super) fn apart_by_masks(geoms: &[Mask]) -> Vec<(Option<String>, Option<String>, usize)> {
    let meets = |a: &Mask, b: &Mask| a.1 & b.2 != 0 || b.1 & a.2 != 0;
    // The geoms grouped by body once, bodies in the order of their first geom.
    let mut bodies: Vec<(&Option<String>, Vec<&Mask>)> = Vec::new();
    for g in geoms {
        match bodies.iter_mut().find(|(body, _)| *body == &g.0) {
            Some((_, own)) => own.push(g),
            None => bodies.push((&g.0, vec![g])),
        }
    }
    let mut apart = Vec::new();
    for (i, (a, of_a)) in bodies.iter().enumerate() {
        for (b, of_b) in &bodies[i + 1..] {
            if !of_a.iter().any(|x| of_b.iter().any(|y| meets(x, y))) {
                let line = of_a.iter().chain(of_b).map(|g| g.3).max().unwrap_or(0);
                apart.push(((*a).clone(), (*b).clone(), line));
            }
        }
    }
    apart
}
