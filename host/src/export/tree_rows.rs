//! The coordinate rows of an exported tree: its drives (`Builder::drive`: q = m·f(t) + c, the
//! scene's time function written by [`super::time_function`]) and couplings
//! (`Builder::couple`: q_j = m·q_i + c), each on the links and with the multiplier and offset
//! [`crate::compile::tree_parts`] carries the scene's relation onto the tree's coordinates
//! with, in the order `ferrodyn run` adds them (drives, then couplings, after the loops).

use super::rust::lit;
use crate::compile::SceneTree;
use std::fmt::Write;

/// Writes the `add_to` lines of the tree's drives and couplings (nothing without them).
pub(super) fn drive_and_couple(out: &mut String, tree: &SceneTree) {
    for d in &tree.drives {
        let _ = writeln!(
            out,
            "    b.drive({}, {}, s({}), s({}))?;",
            d.link,
            super::time_function::function_expr(&d.function),
            lit(d.multiplier),
            lit(d.offset)
        );
    }
    for c in &tree.couplings {
        let _ = writeln!(
            out,
            "    b.couple({}, {}, s({}), s({}))?;",
            c.follower,
            c.leader,
            lit(c.multiplier),
            lit(c.offset)
        );
    }
}
