//! The capacities a fixed-capacity (microcontroller) build of a scene needs: what `ferrodyn
//! check` prints as one [`Fixed`](ferrodyn_kernel::Fixed) type.

use crate::scene::Scene;
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::rigid::{skyline_entries, Joint, BODY_STATE};
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
    /// Skyline entries of the constraint matrix profile (kernel `skyline_entries`).
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
        let joints: Vec<Joint<f64>> = scene.joints.iter().map(|j| j.value).collect();
        let nodes = scene.flexibles.iter().map(|f| f.mesh.nodes().len()).sum();
        let coupled = !scene.bodies.is_empty() && nodes > 0;
        Self {
            bodies: scene.bodies.len(),
            joints: joints.len(),
            forces: scene.forces.len(),
            rows: joints.iter().map(|j| j.kind.rows()).sum(),
            skyline: skyline_entries(&joints),
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
            Capacity::TablePoints => None,
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
