//! The capacities a fixed-capacity (microcontroller) build of a scene needs: what `ferrodyn
//! check` prints as one [`Fixed`](ferrodyn_kernel::Fixed) type.

use crate::scene::Scene;
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::rigid::{skyline_entries_in, BODY_STATE};
use ferrodyn_kernel::Capacity;
use std::fmt;

/// The kernel capacities of a scene (drives count as joints), one per parameter of
/// [`Fixed`](ferrodyn_kernel::Fixed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capacities {
    /// Rigid bodies.
    pub bodies: usize,
    /// Joints and drives.
    pub joints: usize,
    /// Force elements.
    pub forces: usize,
    /// Scalar constraint equations.
    pub rows: usize,
    /// Skyline entries of the constraint matrix profile (kernel `skyline_entries_in`).
    pub skyline: usize,
    /// Flexible nodes.
    pub nodes: usize,
    /// Flexible elements.
    pub elements: usize,
    /// Entries of the flexible mass-matrix profile (known once the flexible model is built).
    pub profile: usize,
    /// Reals of a coupled state (13 per body + 24 per node; 0 unless rigid and flexible).
    pub state: usize,
}

impl Capacities {
    /// What the scene's items need; `profile` from its built flexible model (0 without).
    pub fn of_scene(scene: &Scene) -> Self {
        // By reference: a joint holds a drive's table inline (~0.8 kB), 0.8 GB for 10⁶ joints.
        let joints = || scene.joints.iter().map(|j| &j.value);
        let nodes = scene.flexibles.iter().map(|f| f.mesh.nodes().len()).sum();
        let coupled = !scene.bodies.is_empty() && nodes > 0;
        Self {
            bodies: scene.bodies.len(),
            joints: scene.joints.len(),
            forces: scene.forces.len(),
            rows: joints().map(|j| j.kind.rows()).sum(),
            skyline: skyline_entries_in(joints(), &mut vec![0; scene.bodies.len()]),
            nodes,
            elements: scene.flexibles.iter().map(|f| f.mesh.tets().len()).sum(),
            profile: 0,
            state: if coupled {
                BODY_STATE * scene.bodies.len() + 2 * NODE_COORDS * nodes
            } else {
                0
            },
        }
    }

    /// What the scene needs of `capacity`.
    pub fn of(&self, capacity: Capacity) -> Option<usize> {
        match capacity {
            Capacity::Bodies => Some(self.bodies),
            Capacity::Joints => Some(self.joints),
            Capacity::Forces => Some(self.forces),
            Capacity::ConstraintRows => Some(self.rows),
            Capacity::SkylineEntries => Some(self.skyline),
            Capacity::Nodes => Some(self.nodes),
            Capacity::Elements => Some(self.elements),
            Capacity::Profile => Some(self.profile),
            Capacity::StateLength => Some(self.state),
            Capacity::TablePoints | Capacity::ContactPairs => None,
        }
    }
}

/// The capacities as the one type alias of a firmware build, with the meaning of each number.
impl fmt::Display for Capacities {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self;
        let values = [
            c.bodies, c.joints, c.forces, c.rows, c.skyline, c.nodes, c.elements, c.profile, c.state,
        ];
        // Trailing zeros are the defaults of Fixed; the first parameter has none.
        let used = values.iter().rposition(|&v| v != 0).map_or(1, |i| i + 1);
        let list: Vec<String> = values[..used].iter().map(|v| v.to_string()).collect();
        const NAMES: [&str; 9] = [
            "bodies", "joints", "forces", "rows", "skyline", "nodes", "elements", "profile", "state",
        ];
        write!(
            f,
            "pub type Capacities = ferrodyn_kernel::Fixed<{}>; // {}",
            list.join(", "),
            NAMES[..used].join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::rigid_model;
    use ferrodyn_kernel::Fixed;
    use std::path::Path;

    fn scene(name: &str) -> Scene {
        Scene::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)).unwrap()
    }

    #[test]
    fn the_printed_type_is_exactly_what_the_scene_needs() {
        // scenes/arm.toml: 2 bodies, a spherical (3 rows) and a revolute (5 rows) joint, one
        // damper; the skyline of 8 coupled rows holds 8·9/2 = 36 entries.
        let arm = scene("arm.toml");
        let c = Capacities::of_scene(&arm);
        assert_eq!(
            c.to_string(),
            "pub type Capacities = ferrodyn_kernel::Fixed<2, 2, 1, 8, 36>; // bodies, joints, forces, rows, skyline"
        );
        assert!(rigid_model::<Fixed<2, 2, 1, 8, 36>>(&arm).is_ok());
        // One entry less in any capacity is refused, naming it.
        let short = rigid_model::<Fixed<2, 2, 1, 8, 35>>(&arm).unwrap_err();
        assert!(short.to_string().contains("SkylineEntries"), "{short}");
        let rows = rigid_model::<Fixed<2, 2, 1, 7, 36>>(&arm).unwrap_err();
        assert!(rows.to_string().contains("ConstraintRows"), "{rows}");
    }

    #[test]
    fn unused_capacities_in_the_middle_stay_and_trailing_ones_go() {
        let c = Capacities {
            nodes: 20,
            elements: 18,
            profile: 10_920,
            ..Capacities::default()
        };
        assert_eq!(
            c.to_string(),
            "pub type Capacities = ferrodyn_kernel::Fixed<0, 0, 0, 0, 0, 20, 18, 10920>; \
             // bodies, joints, forces, rows, skyline, nodes, elements, profile"
        );
        assert!(Capacities::default().to_string().contains("Fixed<0>; // bodies"));
    }
}
