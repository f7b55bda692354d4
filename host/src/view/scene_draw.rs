//! Draws a scene's current state: rigid bodies as the box, sphere or cylinder their inertia
//! describes, joint links (and joint frames on demand), the flexible body's boundary surface
//! coloured by a field, and a ground grid.

use super::camera::{Camera, Projected};
use super::colormap::{colour, colour_bar, von_mises, Field};
use super::raster::{Image, Rgb};
use crate::scene::Scene;
use crate::simulation::Simulation;
use crate::spec::{Geometry, Shape};
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::{Body, BodyRef};
use std::collections::HashMap;
use std::f64::consts::PI;

/// What to draw besides the bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawOptions {
    /// The field colouring flexible bodies.
    pub field: Field,
    /// Draw each joint's two frames as axis triads.
    pub joint_frames: bool,
}

impl Default for DrawOptions {
    fn default() -> Self {
        Self {
            field: Field::Displacement,
            joint_frames: false,
        }
    }
}

/// Colours.
const SKY_TOP: Rgb = [0.16, 0.18, 0.24];
const SKY_BOTTOM: Rgb = [0.42, 0.45, 0.52];
const GROUND: Rgb = [0.33, 0.35, 0.33];
const GRID: Rgb = [0.55, 0.58, 0.55];
const BODY: Rgb = [0.85, 0.55, 0.25];
const LINK: Rgb = [0.1, 0.1, 0.1];
const GROUND_SHAPE: Rgb = [0.55, 0.6, 0.7];

/// A triangle in body coordinates.
type Triangle = [Vec3<f64>; 3];

/// The static part of a scene's picture, prepared once: body shapes, the flexible body's
/// boundary faces, the region the motion is expected in, the ground.
#[derive(Clone, Debug)]
pub struct SceneDrawing {
    /// Triangles of each rigid body in its body frame.
    shapes: Vec<Vec<Triangle>>,
    /// Triangles of the ground's contact shapes other than planes (global).
    fixed: Vec<Triangle>,
    /// Boundary faces of the flexible body's tet mesh, wound outwards.
    faces: Vec<[usize; 3]>,
    /// Boundary nodes of the flexible body (for the field range).
    surface_nodes: Vec<usize>,
    /// Centre of the region where the scene moves.
    pub center: Vec3<f64>,
    /// Radius of that region (m).
    pub radius: f64,
    /// Height of the ground plane.
    pub ground_z: f64,
}

impl SceneDrawing {
    /// Prepares the drawing of `scene` from the current (initial) state of its simulation `sim`.
    pub fn new(scene: &Scene, sim: &Simulation) -> Self {
        // Bodies on ground joints can swing anywhere within their reach around the anchors.
        let anchors: Vec<Vec3<f64>> = scene
            .joints
            .iter()
            .flat_map(|j| {
                let j = &j.value;
                [(j.body_i, j.frame_i), (j.body_j, j.frame_j)]
            })
            .filter(|(b, _)| *b == BodyRef::Ground)
            .map(|(_, f)| f.origin)
            .collect();
        let mut points: Vec<Vec3<f64>> = (0..scene.bodies.len())
            .map(|b| {
                let (p, q) = sim.body_pose(b);
                p + q.rotate(scene.bodies[b].value.body.cg)
            })
            .collect();
        if let Some(flex) = sim.flexible() {
            points.extend((0..flex.node_count()).map(|i| flex.position(i)));
        }
        let (lo, hi) = bounds(points.iter().chain(&anchors));
        // Tiny bodies stay visible: no shape smaller than 2.5 % of the scene.
        let min_size = 0.025 * (hi - lo).norm().max(1e-3);
        let contact: &[Shape] = scene.contact.as_ref().map_or(&[], |c| &c.shapes);
        // A body with contact shapes is drawn as those shapes, others as their inertia says.
        let shapes: Vec<Vec<Triangle>> = scene
            .bodies
            .iter()
            .enumerate()
            .map(|(b, spec)| {
                let own: Vec<Triangle> = contact
                    .iter()
                    .filter(|s| s.body == Some(b))
                    .flat_map(shape_triangles)
                    .collect();
                if own.is_empty() {
                    body_triangles(&spec.value.body, min_size)
                } else {
                    own
                }
            })
            .collect();
        let fixed: Vec<Triangle> = contact
            .iter()
            .filter(|s| s.body.is_none())
            .flat_map(shape_triangles)
            .collect();
        // A horizontal ground plane (normal +z) is where the grid goes.
        let floor = contact.iter().find(|s| {
            s.body.is_none()
                && s.geometry == Geometry::Plane
                && s.orientation.rotate(Vec3::new(0.0, 0.0, 1.0)).z > 1.0 - 1e-9
        });
        // How far each body reaches from its CG.
        let extent: Vec<f64> = shapes
            .iter()
            .zip(&scene.bodies)
            .map(|(t, b)| {
                t.iter()
                    .flatten()
                    .map(|v| (*v - b.value.body.cg).norm())
                    .fold(0.0, f64::max)
            })
            .collect();
        let grown = points
            .iter()
            .zip(extent.iter().chain(std::iter::repeat(&0.0)))
            .flat_map(|(p, e)| {
                [
                    Vec3::new(p.x - e, p.y - e, p.z - e),
                    Vec3::new(p.x + e, p.y + e, p.z + e),
                ]
            });
        // Bodies fall onto a floor: keep the floor below them in view.
        let on_floor: Vec<Vec3<f64>> = floor
            .map(|f| points.iter().map(|p| Vec3::new(p.x, p.y, f.position.z)).collect())
            .unwrap_or_default();
        let (lo, hi) = bounds(grown.collect::<Vec<_>>().iter().chain(&anchors).chain(&on_floor));
        let size = (hi - lo).norm().max(1e-3);
        let (center, radius, ground_z) = if anchors.is_empty() {
            let center = (lo + hi).scale(0.5);
            (center, 0.5 * size, lo.z - 0.15 * size)
        } else {
            let center = anchors
                .iter()
                .fold(Vec3::ZERO, |s, &a| s + a)
                .scale(1.0 / anchors.len() as f64);
            let reach = points
                .iter()
                .zip(extent.iter().chain(std::iter::repeat(&0.0)))
                .map(|(&p, e)| (p - center).norm() + e)
                .fold(0.0, f64::max)
                .max(0.05 * size);
            (center, reach, center.z - 1.1 * reach)
        };
        let ground_z = floor.map_or(ground_z, |f| f.position.z);
        let (faces, surface_nodes) = match sim.flexible() {
            Some(flex) => {
                let positions: Vec<Vec3<f64>> = (0..flex.node_count()).map(|i| flex.position(i)).collect();
                boundary(flex.connectivity, &positions)
            }
            None => (Vec::new(), Vec::new()),
        };
        Self {
            shapes,
            fixed,
            faces,
            surface_nodes,
            center,
            radius,
            ground_z,
        }
    }

    /// The camera that frames the scene.
    pub fn home_camera(&self) -> Camera {
        // Aim a little above the ground-to-top middle so the ground shows too.
        Camera::framing(self.center, self.radius)
    }

    /// Draws the scene's current state into `img`: background, ground, bodies, flexible body
    /// (with its colour bar).
    pub fn draw(
        &self,
        img: &mut Image,
        camera: &Camera,
        scene: &Scene,
        sim: &Simulation,
        options: &DrawOptions,
    ) {
        img.clear(SKY_TOP, SKY_BOTTOM);
        let painter = Painter {
            camera,
            light: light(camera),
        };
        self.draw_ground(img, &painter);
        for t in &self.fixed {
            painter.flat(img, *t, GROUND_SHAPE);
        }
        for (b, triangles) in self.shapes.iter().enumerate() {
            let (p, q) = sim.body_pose(b);
            for t in triangles {
                painter.flat(img, t.map(|v| p + q.rotate(v)), BODY);
            }
        }
        let point = |body: BodyRef, local: Vec3<f64>| match body {
            BodyRef::Ground => local,
            BodyRef::Body(b) => {
                let (p, q) = sim.body_pose(b);
                p + q.rotate(local)
            }
        };
        let centre = |body: BodyRef| match body {
            BodyRef::Ground => None,
            BodyRef::Body(b) => scene.bodies.get(b).map(|s| point(body, s.value.body.cg)),
        };
        let bias = 0.002;
        for joint in &scene.joints {
            let j = &joint.value;
            let (a, b) = (
                point(j.body_i, j.frame_i.origin),
                point(j.body_j, j.frame_j.origin),
            );
            painter.line(img, a, b, LINK, bias);
            for (body, anchor) in [(j.body_i, a), (j.body_j, b)] {
                if let Some(c) = centre(body) {
                    painter.line(img, c, anchor, LINK, bias);
                }
            }
            if options.joint_frames {
                for (body, frame) in [(j.body_i, j.frame_i), (j.body_j, j.frame_j)] {
                    let o = point(body, frame.origin);
                    let q = match body {
                        BodyRef::Ground => Quat::IDENTITY,
                        BodyRef::Body(b) => sim.body_pose(b).1,
                    };
                    for (k, c) in [[0.9, 0.2, 0.2], [0.2, 0.8, 0.2], [0.3, 0.4, 1.0]]
                        .into_iter()
                        .enumerate()
                    {
                        let axis = q.rotate(frame.axes.column(k));
                        painter.line(img, o, o + axis.scale(0.15 * self.radius), c, 2.0 * bias);
                    }
                }
            }
        }
        self.draw_flexible(img, &painter, sim, options.field);
    }

    fn draw_ground(&self, img: &mut Image, painter: &Painter) {
        let half = 1.5 * self.radius;
        let step = nice_step(self.radius / 4.0);
        let cells = (2.0 * half / step).ceil() as i64;
        let x0 = (self.center.x / step).round() * step - 0.5 * cells as f64 * step;
        let y0 = (self.center.y / step).round() * step - 0.5 * cells as f64 * step;
        let z = self.ground_z;
        let at = |i: i64, j: i64| Vec3::new(x0 + i as f64 * step, y0 + j as f64 * step, z);
        // One quad a cell, so cells behind the camera drop out alone.
        for i in 0..cells {
            for j in 0..cells {
                let [a, b, c, d] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
                painter.fill(img, [a, b, c], [GROUND; 3]);
                painter.fill(img, [a, c, d], [GROUND; 3]);
            }
        }
        let bias = 0.005;
        for k in 0..=cells {
            painter.line(img, at(k, 0), at(k, cells), GRID, bias);
            painter.line(img, at(0, k), at(cells, k), GRID, bias);
        }
    }

    fn draw_flexible(&self, img: &mut Image, painter: &Painter, sim: &Simulation, field: Field) {
        let Some(flex) = sim.flexible() else {
            return;
        };
        let n = flex.node_count();
        let positions: Vec<Vec3<f64>> = (0..n).map(|i| flex.position(i)).collect();
        let values: Vec<f64> = match field {
            Field::Displacement => (0..n)
                .map(|i| (positions[i] - flex.reference[i]).norm())
                .collect(),
            Field::VonMises => flex
                .node_materials()
                .iter()
                .enumerate()
                .map(|(i, m)| m.map_or(0.0, |m| von_mises(m, flex.node_coordinates(i))))
                .collect(),
        };
        let surface = self.surface_nodes.iter().map(|&i| values[i]);
        let max = surface.clone().fold(0.0, f64::max);
        let min = match field {
            Field::Displacement => 0.0,
            Field::VonMises => surface.fold(max, f64::min),
        };
        let span = if max > min { max - min } else { 1.0 };
        let mut normals = vec![Vec3::ZERO; n];
        for f in &self.faces {
            let [a, b, c] = f.map(|i| positions[i]);
            let normal = (b - a).cross(c - a);
            for &i in f {
                normals[i] += normal;
            }
        }
        for f in &self.faces {
            let colours = f.map(|i| {
                let base = colour((values[i] - min) / span);
                shade(base, painter.light, normals[i])
            });
            painter.fill(img, f.map(|i| positions[i]), colours);
        }
        colour_bar(img, field, min, max);
    }
}

/// Projects and fills through one camera, with one light.
struct Painter<'a> {
    camera: &'a Camera,
    light: Vec3<f64>,
}

impl Painter<'_> {
    fn project(&self, img: &Image, p: Vec3<f64>) -> Option<Projected> {
        self.camera.project(p, img.width, img.height)
    }

    /// A triangle with vertex colours; dropped when a vertex is behind the near plane.
    fn fill(&self, img: &mut Image, t: Triangle, colours: [Rgb; 3]) {
        if let [Some(a), Some(b), Some(c)] = t.map(|v| self.project(img, v)) {
            img.triangle([a, b, c], colours);
        }
    }

    /// A flat-shaded triangle.
    fn flat(&self, img: &mut Image, t: Triangle, base: Rgb) {
        let normal = (t[1] - t[0]).cross(t[2] - t[0]);
        self.fill(img, t, [shade(base, self.light, normal); 3]);
    }

    fn line(&self, img: &mut Image, a: Vec3<f64>, b: Vec3<f64>, c: Rgb, bias: f64) {
        if let (Some(a), Some(b)) = (self.project(img, a), self.project(img, b)) {
            img.line(a, b, c, bias);
        }
    }
}

/// A light from behind the viewer's left shoulder, above.
fn light(camera: &Camera) -> Vec3<f64> {
    let to_eye = (camera.eye() - camera.target)
        .normalized()
        .unwrap_or(Vec3::new(0.0, 0.0, 1.0));
    (to_eye + Vec3::new(0.0, 0.0, 0.8)).normalized().unwrap_or(to_eye)
}

/// Lambert shading, two-sided (no surface is culled), with an ambient floor.
fn shade(base: Rgb, light: Vec3<f64>, normal: Vec3<f64>) -> Rgb {
    let lambert = normal.normalized().map_or(0.0, |n| n.dot(light).abs()) as f32;
    base.map(|c| c * (0.35 + 0.65 * lambert))
}

/// 1, 2 or 5 times a power of ten, near `x`.
fn nice_step(x: f64) -> f64 {
    let x = if x.is_finite() && x > 0.0 { x } else { 1.0 };
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= x)
        .unwrap_or(10.0 * p)
}

/// Bounding box of points (a unit box at the origin when there are none).
fn bounds<'a>(points: impl Iterator<Item = &'a Vec3<f64>>) -> (Vec3<f64>, Vec3<f64>) {
    let mut lo = Vec3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut hi = -lo;
    for p in points {
        lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
        hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
    }
    if lo.x > hi.x {
        return (Vec3::new(-0.5, -0.5, -0.5), Vec3::new(0.5, 0.5, 0.5));
    }
    (lo, hi)
}

/// Triangles of the solid a body's inertia describes, centred on its CG in body axes (diagonal
/// of the inertia tensor taken as principal): a sphere for equal moments, a cylinder along the
/// odd axis for two equal ones, else the box of the same moments.
fn body_triangles(body: &Body<f64>, min_size: f64) -> Vec<Triangle> {
    let m = body.mass;
    let i = [body.inertia.m[0][0], body.inertia.m[1][1], body.inertia.m[2][2]];
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs());
    let size = |v: f64| if v.is_finite() { v.max(min_size) } else { min_size };
    let mut triangles = if close(i[0], i[1]) && close(i[1], i[2]) {
        sphere(size((2.5 * i[0] / m).sqrt()))
    } else if let Some(axis) = (0..3).find(|&a| close(i[(a + 1) % 3], i[(a + 2) % 3])) {
        let r2 = 2.0 * i[axis] / m;
        let length = (12.0 * i[(axis + 1) % 3] / m - 3.0 * r2).max(0.0).sqrt();
        cylinder(axis, size(r2.sqrt()), size(length))
    } else {
        // I_xx = m (b² + c²)/12 … solved for the side lengths.
        let side = |a: usize| {
            size(
                (6.0 * (i[(a + 1) % 3] + i[(a + 2) % 3] - i[a]) / m)
                    .max(0.0)
                    .sqrt(),
            )
        };
        cuboid(Vec3::new(side(0), side(1), side(2)).scale(0.5))
    };
    for t in &mut triangles {
        *t = t.map(|v| v + body.cg);
    }
    triangles
}

/// Triangles of a contact shape in its body's frame (none for a plane: the ground grid shows it).
fn shape_triangles(shape: &Shape) -> Vec<Triangle> {
    let local = match &shape.geometry {
        Geometry::Sphere { radius } => sphere(*radius),
        Geometry::Box { half_extents } => cuboid(Vec3::from_array(*half_extents)),
        Geometry::Cylinder { radius, half_height } => cylinder(2, *radius, 2.0 * half_height),
        Geometry::Cone { radius, half_height } => cone(*radius, *half_height),
        Geometry::Capsule { radius, half_height } => capsule(*radius, *half_height),
        Geometry::Plane => Vec::new(),
        Geometry::TriMesh { vertices, triangles } => triangles
            .iter()
            .filter_map(|t| {
                let v = |i: u32| vertices.get(i as usize).map(|p| Vec3::from_array(*p));
                Some([v(t[0])?, v(t[1])?, v(t[2])?])
            })
            .collect(),
    };
    local
        .into_iter()
        .map(|t| t.map(|v| shape.position + shape.orientation.rotate(v)))
        .collect()
}

/// A cone along z: apex at +h, base of radius r at −h.
fn cone(r: f64, h: f64) -> Vec<Triangle> {
    let segments = 16;
    let rim = |j: usize| {
        let phi = 2.0 * PI * j as f64 / segments as f64;
        Vec3::new(r * phi.cos(), r * phi.sin(), -h)
    };
    (0..segments)
        .flat_map(|j| {
            [
                [Vec3::new(0.0, 0.0, h), rim(j), rim(j + 1)],
                [Vec3::new(0.0, 0.0, -h), rim(j + 1), rim(j)],
            ]
        })
        .collect()
}

fn cuboid(half: Vec3<f64>) -> Vec<Triangle> {
    let corner = |k: usize| {
        Vec3::new(
            if k & 1 == 0 { -half.x } else { half.x },
            if k & 2 == 0 { -half.y } else { half.y },
            if k & 4 == 0 { -half.z } else { half.z },
        )
    };
    const QUADS: [[usize; 4]; 6] = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    QUADS
        .iter()
        .flat_map(|q| {
            [
                [corner(q[0]), corner(q[1]), corner(q[2])],
                [corner(q[0]), corner(q[2]), corner(q[3])],
            ]
        })
        .collect()
}

fn sphere(r: f64) -> Vec<Triangle> {
    let (rings, segments) = (8, 14);
    let at = |i: usize, j: usize| {
        let (theta, phi) = (
            PI * i as f64 / rings as f64,
            2.0 * PI * j as f64 / segments as f64,
        );
        Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos()).scale(r)
    };
    let mut t = Vec::new();
    for i in 0..rings {
        for j in 0..segments {
            let [a, b, c, d] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            t.push([a, b, c]);
            t.push([a, c, d]);
        }
    }
    t
}

/// A capsule along z: a sphere's hemispheres moved to ±h (each of its triangles lies in one)
/// around a cylinder of length 2h.
fn capsule(r: f64, h: f64) -> Vec<Triangle> {
    let to_end = |t: Triangle| {
        let dz = if t.iter().map(|v| v.z).sum::<f64>() > 0.0 {
            h
        } else {
            -h
        };
        t.map(|v| v + Vec3::new(0.0, 0.0, dz))
    };
    sphere(r)
        .into_iter()
        .map(to_end)
        .chain(cylinder(2, r, 2.0 * h))
        .collect()
}

fn cylinder(axis: usize, r: f64, length: f64) -> Vec<Triangle> {
    let segments = 16;
    // Local (u, v, w) with w along the axis, mapped to body axes.
    let map = |u: f64, v: f64, w: f64| {
        let mut c = [0.0; 3];
        c[(axis + 1) % 3] = u;
        c[(axis + 2) % 3] = v;
        c[axis] = w;
        Vec3::from_array(c)
    };
    let h = 0.5 * length;
    let rim = |j: usize, w: f64| {
        let phi = 2.0 * PI * j as f64 / segments as f64;
        map(r * phi.cos(), r * phi.sin(), w)
    };
    let mut t = Vec::new();
    for j in 0..segments {
        let (a, b, c, d) = (rim(j, -h), rim(j + 1, -h), rim(j + 1, h), rim(j, h));
        t.push([a, b, c]);
        t.push([a, c, d]);
        t.push([map(0.0, 0.0, -h), b, a]);
        t.push([map(0.0, 0.0, h), d, c]);
    }
    t
}

/// Faces of the tets that belong to one tet only, wound so the normal points away from the
/// tet's fourth node, and the nodes they use.
fn boundary(tets: &[[usize; 4]], positions: &[Vec3<f64>]) -> (Vec<[usize; 3]>, Vec<usize>) {
    let mut seen: HashMap<[usize; 3], (usize, [usize; 3])> = HashMap::new();
    for tet in tets {
        for opposite in 0..4 {
            let face = [
                tet[(opposite + 1) % 4],
                tet[(opposite + 2) % 4],
                tet[(opposite + 3) % 4],
            ];
            if face.iter().chain([&tet[opposite]]).any(|&i| i >= positions.len()) {
                continue;
            }
            let [a, b, c] = face.map(|i| positions[i]);
            let outward = (b - a).cross(c - a).dot(a - positions[tet[opposite]]) >= 0.0;
            let wound = if outward {
                face
            } else {
                [face[0], face[2], face[1]]
            };
            let mut key = face;
            key.sort_unstable();
            seen.entry(key).and_modify(|e| e.0 += 1).or_insert((1, wound));
        }
    }
    let mut faces: Vec<[usize; 3]> = seen
        .into_values()
        .filter(|(n, _)| *n == 1)
        .map(|(_, f)| f)
        .collect();
    faces.sort_unstable();
    let mut nodes: Vec<usize> = faces.iter().flatten().copied().collect();
    nodes.sort_unstable();
    nodes.dedup();
    (faces, nodes)
}
