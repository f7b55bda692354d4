//! Sample models used by the examples, tests, benchmarks, the host's default scene and the
//! firmware: one definition each, so every user of "the 20-link chain" simulates the same thing.

use crate::math::{Quat, Vec3};
use crate::rigid::{self, Body, BodyRef, Frame, Joint, JointKind};
use crate::storage::Storage;
use crate::tree::{self, Link};
use crate::{coupled, flex, BuildError, Real};

/// Standard gravity used by the canonical models (m/s²), along −z.
pub const GRAVITY: f64 = 9.81;

/// Parameters of a planar chain of uniform rods joined by revolute joints about the global y
/// axis, hanging from the ground at the origin and initially lying along +x (released
/// horizontally).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainSpec<R> {
    /// Number of links.
    pub links: usize,
    /// Length of each link (m).
    pub link_length: R,
    /// Mass of each link (kg).
    pub link_mass: R,
    /// Radius of the rods for their inertia (m).
    pub link_radius: R,
}

impl<R: Real> ChainSpec<R> {
    /// `links` rods of 1 m, 1 kg, radius 10 mm (the classic unit-link chain).
    pub fn standard(links: usize) -> Self {
        Self {
            links,
            link_length: R::ONE,
            link_mass: R::ONE,
            link_radius: R::from_f64(0.01),
        }
    }
    /// Stored skyline entries the chain needs: rows of joint k couple with joint k − 1.
    pub const fn skyline_entries(links: usize) -> usize {
        if links == 0 {
            0
        } else {
            40 * links - 25
        }
    }
}

/// Adds the chain's bodies and joints to `builder` (link k is body k, joint k joins link k to
/// link k − 1 or to the ground). Body origins sit at the rods' centres.
pub fn add_revolute_chain<R: Real, St: Storage>(
    builder: &mut rigid::Builder<R, St>,
    spec: &ChainSpec<R>,
) -> Result<(), BuildError> {
    let half = spec.link_length * R::HALF;
    let hinge_axis = Vec3::Y;
    let mut previous = BodyRef::Ground;
    for k in 0..spec.links {
        let centre = Vec3::new((R::from_usize(k) + R::HALF) * spec.link_length, R::ZERO, R::ZERO);
        let rod = Body::rod(spec.link_mass, spec.link_length, spec.link_radius).at(centre, Quat::IDENTITY);
        let link = builder.add_body(rod)?;
        let parent_point = match previous {
            BodyRef::Ground => Vec3::ZERO,
            BodyRef::Body(_) => Vec3::new(half, R::ZERO, R::ZERO),
        };
        builder.add_joint(Joint::new(
            JointKind::Revolute,
            previous,
            Frame::with_z_axis(parent_point, hinge_axis),
            link,
            Frame::with_z_axis(Vec3::new(-half, R::ZERO, R::ZERO), hinge_axis),
        ))?;
        previous = link;
    }
    Ok(())
}

/// The chain as a finished model with gravity −z.
pub fn revolute_chain<R: Real, St: Storage>(spec: &ChainSpec<R>) -> Result<rigid::Model<R, St>, BuildError> {
    let mut b = rigid::Model::builder(Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
    add_revolute_chain(&mut b, spec)?;
    b.build()
}

/// The same chain in joint coordinates: link k hinged about y at the tip of link k − 1 (at the
/// origin for link 0), CG at mid-length; all joint angles zero is the chain along +x. Body k of
/// [`revolute_chain`] and link k of this tree are the same rod in the same initial state.
pub fn revolute_chain_tree<R: Real, St: Storage>(
    spec: &ChainSpec<R>,
) -> Result<tree::Model<R, St>, BuildError> {
    let mut b = tree::Model::builder(Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
    let rod = Body::rod(spec.link_mass, spec.link_length, spec.link_radius);
    let cg = Vec3::new(spec.link_length * R::HALF, R::ZERO, R::ZERO);
    for k in 0..spec.links {
        let (parent, origin) = match k {
            0 => (None, Vec3::ZERO),
            _ => (Some(k - 1), Vec3::new(spec.link_length, R::ZERO, R::ZERO)),
        };
        b.add_link(Link::revolute(parent, origin, Vec3::Y).with_mass(rod.mass, cg, rod.inertia))?;
    }
    b.build()
}

/// The capacities of [`simple_pendulum`] on fixed storage: 1 body, 1 joint, no force element,
/// 1 constraint row, 1 skyline entry.
pub type PendulumCapacities = crate::Fixed<1, 1, 0, 1, 1>;

/// A simple pendulum: a small sphere of `mass` on a massless rod of `length`, modelled by a
/// distance constraint to the ground origin, released from rest at `angle` from the downward
/// vertical (in the x–z plane). The sphere's spin is decoupled, so the motion is exactly the
/// point-mass pendulum.
pub fn simple_pendulum<R: Real, St: Storage>(
    mass: R,
    length: R,
    angle: R,
) -> Result<rigid::Model<R, St>, BuildError> {
    let mut b = rigid::Model::builder(Vec3::new(R::ZERO, R::ZERO, -R::from_f64(GRAVITY)));
    let start = Vec3::new(length * angle.sin(), R::ZERO, -(length * angle.cos()));
    let bob = b.add_body(Body::sphere(mass, R::from_f64(0.01)).at(start, Quat::IDENTITY))?;
    b.add_joint(Joint::new(
        JointKind::Distance { length },
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        bob,
        Frame::at(Vec3::ZERO),
    ))?;
    b.build()
}

/// The planar four-bar linkage of the IFToMM benchmark set: ground pivots O₂ = (0, 0, 0) and
/// O₄ = (`GROUND`, 0, 0), crank O₂A, coupler AB and rocker O₄B as uniform rods (2 kg/m, radius
/// 5 mm, origin at mid-length, along their body x axes), four revolute joints about z (ground–
/// crank, crank–coupler, coupler–rocker, ground–rocker in that order), gravity along −y.
/// 3 bodies and 20 rows leave 1 degree of freedom: the last joint's three out-of-plane rows are
/// redundant (consistent). Starts at rest with the crank at `crank_angle` from +x, coupler and
/// rocker closing the loop with B above the line AO₄.
pub mod four_bar {
    use super::*;

    /// Crank length O₂A (m).
    pub const CRANK: f64 = 0.1;
    /// Coupler length AB (m).
    pub const COUPLER: f64 = 0.3;
    /// Rocker length O₄B (m).
    pub const ROCKER: f64 = 0.25;
    /// Ground length O₂O₄ (m).
    pub const GROUND: f64 = 0.3;
    /// Mass per length of every link (kg/m).
    pub const LINEAR_DENSITY: f64 = 2.0;
    /// Rod radius (m).
    pub const RADIUS: f64 = 0.005;

    /// Angles of the crank, coupler and rocker (from +x) of the closed loop at `crank_angle`:
    /// B is the intersection of the circles about A (coupler) and O₄ (rocker) on the upper
    /// side of the line from A to O₄. `None` where the loop cannot close.
    pub fn angles(crank_angle: f64) -> Option<[f64; 3]> {
        let (ax, ay) = (CRANK * libm::cos(crank_angle), CRANK * libm::sin(crank_angle));
        let (dx, dy) = (GROUND - ax, -ay);
        let d = libm::sqrt(dx * dx + dy * dy);
        let along = (COUPLER * COUPLER - ROCKER * ROCKER + d * d) / (2.0 * d);
        let h2 = COUPLER * COUPLER - along * along;
        if h2.is_nan() || h2 < 0.0 || d == 0.0 {
            return None;
        }
        let h = libm::sqrt(h2);
        let (ux, uy) = (dx / d, dy / d);
        let (bx, by) = (ax + along * ux - h * uy, ay + along * uy + h * ux);
        Some([
            crank_angle,
            libm::atan2(by - ay, bx - ax),
            libm::atan2(by, bx - GROUND),
        ])
    }

    /// The model at rest with the crank at `crank_angle`.
    pub fn model<R: Real, St: Storage>(crank_angle: f64) -> Result<rigid::Model<R, St>, BuildError> {
        let Some(angles) = angles(crank_angle) else {
            return Err(BuildError::InvalidParameter {
                item: crate::Item::Ground,
                reason: "the four-bar cannot close at this crank angle",
            });
        };
        let lengths = [CRANK, COUPLER, ROCKER];
        let pivots = [
            (0.0, 0.0),
            (CRANK * libm::cos(angles[0]), CRANK * libm::sin(angles[0])),
            (GROUND, 0.0),
        ];
        let r = |x: f64| R::from_f64(x);
        let mut b = rigid::Model::builder(Vec3::new(R::ZERO, -r(GRAVITY), R::ZERO));
        let mut links = [BodyRef::Ground; 3];
        for (k, link) in links.iter_mut().enumerate() {
            let (l, angle, (px, py)) = (lengths[k], angles[k], pivots[k]);
            let centre = Vec3::new(
                r(px + 0.5 * l * libm::cos(angle)),
                r(py + 0.5 * l * libm::sin(angle)),
                R::ZERO,
            );
            let turn = Quat::from_axis_angle(Vec3::new(R::ZERO, R::ZERO, R::ONE), r(angle));
            *link = b.add_body(Body::rod(r(LINEAR_DENSITY * l), r(l), r(RADIUS)).at(centre, turn))?;
        }
        let z = Vec3::new(R::ZERO, R::ZERO, R::ONE);
        let end = |l: f64, sign: f64| Frame::with_z_axis(Vec3::new(r(sign * 0.5 * l), R::ZERO, R::ZERO), z);
        let [crank, coupler, rocker] = links;
        let ground = |x: f64| Frame::with_z_axis(Vec3::new(r(x), R::ZERO, R::ZERO), z);
        let pins = [
            (BodyRef::Ground, ground(0.0), crank, end(CRANK, -1.0)),
            (crank, end(CRANK, 1.0), coupler, end(COUPLER, -1.0)),
            (coupler, end(COUPLER, 1.0), rocker, end(ROCKER, 1.0)),
            (BodyRef::Ground, ground(GROUND), rocker, end(ROCKER, -1.0)),
        ];
        for (bi, fi, bj, fj) in pins {
            b.add_joint(Joint::new(JointKind::Revolute, bi, fi, bj, fj))?;
        }
        b.build()
    }
}

/// Adds a structured tetrahedral mesh of the box [origin, origin + size] to a flexible body:
/// `divisions` hexahedra along x, y, z, each split into 6 tetrahedra around its main diagonal
/// (Kuhn's split, conforming between neighbours). Nodes are numbered x-slowest, so a long beam
/// along x has a narrow profile even before reordering.
pub fn add_box_mesh<R: Real, B: flex::MeshBuilder<R>>(
    builder: &mut B,
    origin: Vec3<R>,
    size: Vec3<R>,
    divisions: [usize; 3],
) -> Result<(), BuildError> {
    let [nx, ny, nz] = divisions;
    // Index of the first node added here: the builder may already hold another mesh.
    let mut base = None;
    for i in 0..=nx {
        for j in 0..=ny {
            for k in 0..=nz {
                let f = |a: usize, n: usize| R::from_usize(a) / R::from_usize(n.max(1));
                let p = Vec3::new(size.x * f(i, nx), size.y * f(j, ny), size.z * f(k, nz));
                let index = builder.add_node(origin + p)?;
                base.get_or_insert(index);
            }
        }
    }
    let base = base.unwrap_or(0);
    let node = |i: usize, j: usize, k: usize| base + (i * (ny + 1) + j) * (nz + 1) + k;
    // The 6 monotone lattice paths from corner (0,0,0) to (1,1,1) through the axis steps. The
    // tet [v, v+e_a, v+e_a+e_b, v+1] has the sign of the permutation (a, b, c): odd paths swap
    // two vertices so that every tet is positively oriented (as Gmsh and VTK expect).
    const PATHS: [[usize; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    const ODD: [bool; 6] = [false, true, true, false, false, true];
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                for (path, odd) in PATHS.iter().zip(ODD) {
                    let mut corner = [i, j, k];
                    let mut tet = [node(i, j, k); 4];
                    for (slot, &axis) in tet.iter_mut().skip(1).zip(path) {
                        corner[axis] += 1;
                        *slot = node(corner[0], corner[1], corner[2]);
                    }
                    if odd {
                        tet.swap(1, 2);
                    }
                    builder.add_element(tet)?;
                }
            }
        }
    }
    Ok(())
}

/// The spinning-beam benchmark: a rigid hub (20 kg, radius 0.1 m) turning about z on a revolute
/// joint driven at constant speed, carrying an ANCF cantilever (1 m × 0.1 m × 0.1 m,
/// E = 1e8 Pa, ν = 0.3, ρ = 1000 kg/m³, 4×1×1 hexahedra → 24 tetrahedra) whose root face sits
/// on the hub rim at x = 0.1 m, attached to the hub. Built with the hub driven at `spin` rad/s
/// from t = 0 (and already turning at that speed); `gravity` along −z. Capacities it needs:
/// 1 body, 2 joints, 6 rows, 21 skyline entries, 20 nodes, 24 elements, 11,109 profile entries,
/// a state of 493: `Fixed<1, 2, 0, 6, 21, 20, 24, 11109, 493>`.
pub fn spinning_beam<R: Real, St: Storage>(spin: R, gravity: R) -> Result<coupled::Model<R, St>, BuildError> {
    use crate::ancf::Material;
    use crate::flex::Fixity;
    use crate::math::Mat3;
    use crate::time_function::TimeFunction;
    use crate::Item;
    use rigid::DrivenCoordinate;
    let g = Vec3::new(R::ZERO, R::ZERO, -gravity);
    let mut hub = rigid::Model::builder(g);
    let inertia = Mat3::diagonal(Vec3::new(R::from_f64(0.05), R::from_f64(0.05), R::from_f64(0.1)));
    let body = hub.add_body(
        Body::new(R::from_f64(20.0), inertia).moving(Vec3::ZERO, Vec3::new(R::ZERO, R::ZERO, spin)),
    )?;
    let axis = Frame::with_z_axis(Vec3::ZERO, Vec3::Z);
    hub.add_joint(Joint::new(JointKind::Revolute, BodyRef::Ground, axis, body, axis))?;
    let angle = TimeFunction::Ramp {
        start: R::ZERO,
        initial: R::ZERO,
        slope: spin,
    };
    let drive = JointKind::Driving {
        coordinate: DrivenCoordinate::Rotation,
        function: hub.add_function(angle)?,
    };
    hub.add_joint(Joint::new(drive, BodyRef::Ground, axis, body, axis))?;
    let hub = hub.build()?;
    let material = Material::st_venant_kirchhoff(R::from_f64(1e8), R::from_f64(0.3), R::from_f64(1000.0))
        .map_err(|_| BuildError::InvalidParameter {
            item: Item::Material,
            reason: "beam material",
        })?;
    let mut beam = flex::Model::builder(material, g);
    let (root, half) = (R::from_f64(0.1), R::from_f64(0.05));
    add_box_mesh(
        &mut beam,
        Vec3::new(root, -half, -half),
        Vec3::new(R::ONE, R::from_f64(0.1), R::from_f64(0.1)),
        [4, 1, 1],
    )?;
    beam.fix_plane(
        0,
        root,
        R::from_f64(1e-9),
        Fixity::AttachedFace { normal_axis: 0 },
    )?;
    let beam = beam.build()?;
    let mut coupled = coupled::Model::builder(hub, beam);
    // Root-face nodes are the first cross-section of the x-slowest numbering: nodes 0..4.
    for node in 0..4 {
        coupled.attach(node, 0)?;
    }
    coupled.build()
}
