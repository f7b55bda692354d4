//! The scene an importer builds, in the scene file's own terms (bodies with global placements,
//! joints with a frame on each body, dampers, shapes, ports), written out as scene TOML. Each
//! item keeps the line of the model element it came from, so that every error the scene's own
//! checks find in the written text is reported at the model file's line.

use super::pose::Pose;
use ferrodyn_kernel::math::{Mat3, Vec3};
use std::collections::HashSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// A rigid body: a model link.
#[derive(Clone, Debug)]
pub struct DraftBody {
    /// Its name (the link's).
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// Mass (kg).
    pub mass: f64,
    /// Inertia about the CG in body axes.
    pub inertia: Mat3<f64>,
    /// CG in body coordinates.
    pub cg: Vec3<f64>,
    /// Placement of the body frame in the world at t = 0.
    pub pose: Pose,
}

/// The scene joint types an importer emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DraftJointKind {
    /// Turns about the frames' common z axis.
    Revolute,
    /// Slides along the frames' common z axis.
    Prismatic,
    /// Turns freely about the frames' common origin.
    Spherical,
    /// Welds the frames.
    Fixed,
}

impl DraftJointKind {
    /// The scene file's name of the type.
    pub fn scene_name(self) -> &'static str {
        match self {
            Self::Revolute => "revolute",
            Self::Prismatic => "prismatic",
            Self::Spherical => "spherical",
            Self::Fixed => "fixed",
        }
    }
}

/// A joint between two bodies (`None`: the ground), with its frame on each.
#[derive(Clone, Debug)]
pub struct DraftJoint {
    /// Its name.
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// The type.
    pub kind: DraftJointKind,
    /// Body i (parent) name, or `None` for the ground.
    pub body_i: Option<String>,
    /// Body j (child) name.
    pub body_j: String,
    /// Frame on body i (global for the ground).
    pub frame_i: Pose,
    /// Frame on body j.
    pub frame_j: Pose,
    /// Range of the joint's coordinate (revolute: rad, prismatic: m, 0 where the model is
    /// assembled), written as the scene's `limits` with the default end stops; `None`: free.
    pub limits: Option<[f64; 2]>,
    /// Rotor inertia on each of the joint's coordinates (MJCF `armature`; 0: none).
    pub armature: f64,
    /// Sliding friction of the joint (N·m or N; URDF `<dynamics friction>`, MJCF
    /// `frictionloss`; 0: none), written as the scene's `friction` with the default smoothing.
    pub friction: f64,
}

/// Geometry of a contact shape.
#[derive(Clone, Debug, PartialEq)]
pub enum DraftGeometry {
    /// Sphere of this radius.
    Sphere(f64),
    /// Box of these half extents.
    Box([f64; 3]),
    /// Cylinder along z: radius, half height.
    Cylinder(f64, f64),
    /// Capsule along z: radius, half length of its cylindrical part.
    Capsule(f64, f64),
    /// The z = 0 plane of its frame, solid below (ground only).
    Plane,
    /// Triangle mesh file (STL or OBJ), absolute path.
    Mesh(PathBuf),
}

/// A contact shape on a body (`None`: the ground).
#[derive(Clone, Debug)]
pub struct DraftShape {
    /// Its name.
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// Body name, `None` for the ground.
    pub body: Option<String>,
    /// Placement on the body.
    pub pose: Pose,
    /// Geometry.
    pub geometry: DraftGeometry,
}

/// A coupling of one joint's coordinate to another's (a URDF `<mimic>`).
#[derive(Clone, Debug)]
pub struct DraftCoupling {
    /// Its name.
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// The joint held.
    pub joint: String,
    /// The joint it follows.
    pub follows: String,
    /// m.
    pub multiplier: f64,
    /// c.
    pub offset: f64,
}

/// A fixed tendon (MJCF `<tendon><fixed>`): length Σ cᵢ θᵢ over scene joint coordinates.
#[derive(Clone, Debug)]
pub struct DraftTendon {
    /// Its name.
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// The joints and their coefficients.
    pub terms: Vec<(String, f64)>,
    /// Spring stiffness.
    pub stiffness: f64,
    /// Damping.
    pub damping: f64,
    /// The band the spring is slack in (a rest length when both ends are equal).
    pub rest: [f64; 2],
    /// The range of the length, with the default end stops.
    pub limits: Option<[f64; 2]>,
}

/// An actuator port on a joint: a force, or a position servo's set-point.
#[derive(Clone, Debug)]
pub struct DraftInput {
    /// Port name.
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// The joint.
    pub joint: String,
    /// SI units per port unit.
    pub scale: f64,
    /// Position servo gains (kp, kd); `None`: the port is the joint force.
    pub position: Option<(f64, f64)>,
    /// Velocity servo gain kv.
    pub velocity: Option<f64>,
}

/// A sensor: a joint encoder or a body point.
#[derive(Clone, Debug)]
pub struct DraftSensor {
    /// Sensor name.
    pub name: String,
    /// Line of the model element.
    pub line: usize,
    /// What it reads.
    pub reads: SensorTarget,
}

/// What a sensor reads.
#[derive(Clone, Debug)]
pub enum SensorTarget {
    /// A revolute joint's angle and rate.
    Joint(String),
    /// A point on a body (body coordinates).
    Point(String, Vec3<f64>),
}

/// A scene under construction, with the model file it comes from.
#[derive(Clone, Debug, Default)]
pub struct Draft {
    /// Model name (a comment in the file).
    pub model: String,
    /// Gravity (m/s²).
    pub gravity: [f64; 3],
    /// Bodies, parents before children.
    pub bodies: Vec<DraftBody>,
    /// Joints, along the chains.
    pub joints: Vec<DraftJoint>,
    /// Viscous joint dampers (revolute and prismatic joints): joint name, N·m·s/rad or N·s/m,
    /// line.
    pub dampers: Vec<(String, f64, usize)>,
    /// Joint springs (revolute and prismatic joints): joint name, N·m/rad or N/m, rest angle
    /// or slide (rad or m, 0 where the model is assembled), line.
    pub springs: Vec<(String, f64, f64, usize)>,
    /// Contact shapes.
    pub shapes: Vec<DraftShape>,
    /// Body pairs (`None`: the ground) whose shapes never touch (MJCF: a parent and its child,
    /// geoms whose collision bits never meet), line; written for the pairs that both carry
    /// shapes.
    pub apart: Vec<(Option<String>, Option<String>, usize)>,
    /// Actuator ports.
    pub inputs: Vec<DraftInput>,
    /// Couplings between joints.
    pub couplings: Vec<DraftCoupling>,
    /// Fixed tendons.
    pub tendons: Vec<DraftTendon>,
    /// Sensors.
    pub sensors: Vec<DraftSensor>,
    /// The integrator at the scene's step, when not RK4 (`stiff_damping`).
    pub integrator: Option<&'static str>,
    /// MJCF joint limits' `solreflimit` and `solimplimit`: joint name, [time constant, damping
    /// ratio, dmax] (`stiff_damping::end_stops` turns them into end stops).
    pub limit_solref: Vec<(String, [f64; 3])>,
    /// End-stop stiffness and damping of a joint's limits, by joint name (absent: the defaults).
    pub limit_stops: std::collections::HashMap<String, [f64; 2]>,
}

impl Draft {
    /// Whether a joint hangs another body from body `name`. A massless body (a link that moves
    /// with no mass of its own) is valid only when one does: the tree gives its joint inertia
    /// from the bodies below (a massless leaf that moves leaves its joint without any).
    pub fn carries_a_body(&self, name: &str) -> bool {
        self.joints.iter().any(|j| j.body_i.as_deref() == Some(name))
    }
}

/// Scene TOML text and, for each of its items, the first text line and the model line.
pub struct Written {
    /// The scene file's text.
    pub text: String,
    /// (first line of the item's table in `text`, model line), increasing.
    pub lines: Vec<(usize, usize)>,
}

impl Written {
    /// The model line of text line `line` (that of the item whose table holds it).
    pub fn model_line(&self, line: usize) -> Option<usize> {
        let k = self.lines.partition_point(|&(start, _)| start <= line);
        k.checked_sub(1).map(|k| self.lines[k].1)
    }
}

/// A TOML string literal (quoted, escaped).
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A model's name as a scene name, quoted: the characters the scenes' name rule refuses
/// (`check_name`: they could break a file name or a CSV header) become '_', a leading '-' or
/// '.' gets a '_' before it, and the name is cut at the rule's length. Definitions and
/// references pass through here alike, so they stay equal.
fn name(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|ch| match ch.is_alphanumeric() || matches!(ch, '_' | '-' | '.') {
            true => ch,
            false => '_',
        })
        .collect();
    if out.is_empty() || out.starts_with(['-', '.']) {
        out.insert(0, '_');
    }
    quoted(
        &out.chars()
            .take(crate::scene::NAME_LENGTH_LIMIT)
            .collect::<String>(),
    )
}

/// A number as TOML reads it back to the same bits.
fn num(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E', 'n', 'N', 'i']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn vec3(v: Vec3<f64>) -> String {
    format!("[{}, {}, {}]", num(v.x), num(v.y), num(v.z))
}

fn frame(p: &Pose) -> String {
    let q = p.quaternion();
    format!(
        "{{ origin = {}, orientation = {{ quaternion = [{}, {}, {}, {}] }} }}",
        vec3(p.p),
        num(q[0]),
        num(q[1]),
        num(q[2]),
        num(q[3])
    )
}

/// `path` relative to `folder` when it lies below it (or below one of its ancestors, with
/// `..`), else as given.
pub fn relative_to(path: &Path, folder: &Path) -> PathBuf {
    let mut up = PathBuf::new();
    for base in folder.ancestors() {
        if base.as_os_str().is_empty() {
            break;
        }
        if let Ok(rest) = path.strip_prefix(base) {
            return up.join(rest);
        }
        up.push("..");
    }
    path.to_path_buf()
}

impl Draft {
    /// The scene file of this draft; mesh paths relative to `folder` (where the scene file is
    /// read from).
    pub fn to_toml(&self, source: &Path, folder: &Path) -> Written {
        let mut w = Writer::default();
        w.header(format_args!(
            "# Imported by `ferrodyn import` from {} (model \"{}\").\n# Joint frames are computed so the model is assembled at t = 0; see docs/import.md.\n",
            source.display(),
            self.model
        ));
        w.table(
            1,
            format_args!(
                "[simulation]\nend_time = 1.0\nstep = {}\nintegrator = \"{}\"\ngravity = [{}, {}, {}]\n",
                num(super::stiff_damping::STEP),
                self.integrator.unwrap_or("rk4"),
                num(self.gravity[0]),
                num(self.gravity[1]),
                num(self.gravity[2])
            ),
        );
        for (k, b) in self.bodies.iter().enumerate() {
            let i = &b.inertia.m;
            w.table(
                b.line,
                format_args!(
                    "[[body]]\nid = {}\nname = {}\nmass = {}\ninertia = {{ Ixx = {}, Iyy = {}, Izz = {}, Ixy = {}, Ixz = {}, Iyz = {} }}\ncg = {}\npos = {}\norient = {{ quaternion = [{}] }}\n",
                    k + 1,
                    name(&b.name),
                    num(b.mass),
                    num(i[0][0]),
                    num(i[1][1]),
                    num(i[2][2]),
                    num(i[0][1]),
                    num(i[0][2]),
                    num(i[1][2]),
                    vec3(b.cg),
                    vec3(b.pose.p),
                    b.pose.quaternion().map(num).join(", ")
                ),
            );
        }
        for j in &self.joints {
            w.table(
                j.line,
                format_args!(
                    "[[joint]]\nname = {}\ntype = \"{}\"\nbody_i = {}\nbody_j = {}\nframe_i = {}\nframe_j = {}\n{}",
                    name(&j.name),
                    j.kind.scene_name(),
                    name(j.body_i.as_deref().unwrap_or("ground")),
                    name(&j.body_j),
                    frame(&j.frame_i),
                    frame(&j.frame_j),
                    j.limits.map_or(String::new(), |[lo, hi]| {
                        let stops = self.limit_stops.get(&j.name).map_or(String::new(), |[k, c]| {
                            format!("limit_stiffness = {}\nlimit_damping = {}\n", num(*k), num(*c))
                        });
                        format!("limits = [{}, {}]\n{stops}", num(lo), num(hi))
                    }) + &match j.armature {
                        0.0 => String::new(),
                        ia => format!("armature = {}\n", num(ia)),
                    } + &match j.friction {
                        0.0 => String::new(),
                        f => format!("friction = {}\n", num(f)),
                    }
                ),
            );
        }
        // A slide's spring-damper is translational, a hinge's rotational.
        let slides: HashSet<&str> = (self.joints.iter())
            .filter(|j| j.kind == DraftJointKind::Prismatic)
            .map(|j| j.name.as_str())
            .collect();
        let spring_damper = |joint: &str| match slides.contains(joint) {
            true => ("translational", "rest_position"),
            false => ("rotational", "rest_angle"),
        };
        for (joint, damping, line) in &self.dampers {
            w.table(
                *line,
                format_args!(
                    "[[force]]\nname = {}\ntype = \"{}_spring_damper\"\njoint = {}\nstiffness = 0.0\ndamping = {}\n",
                    name(&format!("{joint}_damping")),
                    spring_damper(joint).0,
                    name(joint),
                    num(*damping)
                ),
            );
        }
        for (joint, stiffness, rest, line) in &self.springs {
            let (kind, rest_key) = spring_damper(joint);
            w.table(
                *line,
                format_args!(
                    "[[force]]\nname = {}\ntype = \"{kind}_spring_damper\"\njoint = {}\nstiffness = {}\ndamping = 0.0\n{rest_key} = {}\n",
                    name(&format!("{joint}_spring")),
                    name(joint),
                    num(*stiffness),
                    num(*rest)
                ),
            );
        }
        // Cylinders and capsules: a radius and the half height of their axis (local z).
        let round = |kind: &str, r: f64, h: f64| {
            format!(
                "type = \"{kind}\"\nradius = {}\nhalf_height = {}\n",
                num(r),
                num(h)
            )
        };
        for s in &self.shapes {
            let geometry = match &s.geometry {
                DraftGeometry::Sphere(r) => format!("type = \"sphere\"\nradius = {}\n", num(*r)),
                DraftGeometry::Plane => "type = \"plane\"\n".to_string(),
                DraftGeometry::Box(h) => {
                    format!("type = \"box\"\nhalf_extents = {}\n", vec3(Vec3::from_array(*h)))
                }
                DraftGeometry::Cylinder(r, h) => round("cylinder", *r, *h),
                DraftGeometry::Capsule(r, h) => round("capsule", *r, *h),
                DraftGeometry::Mesh(path) => format!(
                    "type = \"mesh\"\nmesh = {}\n",
                    quoted(&relative_to(path, folder).to_string_lossy())
                ),
            };
            w.table(
                s.line,
                format_args!(
                    "[[shape]]\nname = {}\nbody = {}\n{geometry}pos = {}\norient = {{ quaternion = [{}] }}\n",
                    name(&s.name),
                    name(s.body.as_deref().unwrap_or("ground")),
                    vec3(s.pose.p),
                    s.pose.quaternion().map(num).join(", ")
                ),
            );
        }
        let with_shapes: HashSet<&Option<String>> = self.shapes.iter().map(|s| &s.body).collect();
        let mut written = HashSet::new();
        for (a, b, line) in &self.apart {
            // Written once per pair of bodies that both carry shapes.
            if !(with_shapes.contains(a) && with_shapes.contains(b) && written.insert((a.min(b), a.max(b)))) {
                continue;
            }
            let body = |b: &Option<String>| name(b.as_deref().unwrap_or("ground"));
            w.table(
                *line,
                format_args!(
                    "[[contact_material]]\nbodies = [{}, {}]\ncollide = false\n",
                    body(a),
                    body(b)
                ),
            );
        }
        for s in &self.sensors {
            let reads = match &s.reads {
                SensorTarget::Joint(j) => format!("joint = {}\n", name(j)),
                SensorTarget::Point(b, p) => format!("body = {}\npoint = {}\n", name(b), vec3(*p)),
            };
            w.table(
                s.line,
                format_args!("[[sensor]]\nname = {}\n{reads}", name(&s.name)),
            );
        }
        for i in &self.inputs {
            let kind = match (i.position, i.velocity) {
                (Some((kp, kd)), _) => format!("kind = \"position\"\nkp = {}\nkd = {}\n", num(kp), num(kd)),
                (None, Some(kv)) => format!("kind = \"velocity\"\nkv = {}\n", num(kv)),
                (None, None) => String::new(),
            };
            w.table(
                i.line,
                format_args!(
                    "[[input]]\nname = {}\njoint = {}\nscale = {}\n{kind}",
                    name(&i.name),
                    name(&i.joint),
                    num(i.scale)
                ),
            );
        }
        for c in &self.couplings {
            w.table(
                c.line,
                format_args!(
                    "[[coupling]]\nname = {}\njoint = {}\nfollows = {}\nmultiplier = {}\noffset = {}\n",
                    name(&c.name),
                    name(&c.joint),
                    name(&c.follows),
                    num(c.multiplier),
                    num(c.offset)
                ),
            );
        }
        for t in &self.tendons {
            let joints: Vec<String> = t.terms.iter().map(|(j, _)| name(j)).collect();
            let coefficients: Vec<String> = t.terms.iter().map(|(_, c)| num(*c)).collect();
            let limits = t.limits.map_or(String::new(), |[lower, upper]| {
                format!("limits = [{}, {}]\n", num(lower), num(upper))
            });
            w.table(
                t.line,
                format_args!(
                    "[[tendon]]\nname = {}\njoints = [{}]\ncoefficients = [{}]\nstiffness = {}\ndamping = {}\nrest_length = [{}, {}]\n{limits}",
                    name(&t.name),
                    joints.join(", "),
                    coefficients.join(", "),
                    num(t.stiffness),
                    num(t.damping),
                    num(t.rest[0]),
                    num(t.rest[1])
                ),
            );
        }
        Written {
            text: w.text,
            lines: w.lines,
        }
    }
}

/// Appends tables, counting lines.
#[derive(Default)]
struct Writer {
    text: String,
    line: usize,
    lines: Vec<(usize, usize)>,
}

impl Writer {
    fn header(&mut self, args: std::fmt::Arguments) {
        let _ = self.text.write_fmt(args);
        self.line = self.text.matches('\n').count();
    }

    fn table(&mut self, model_line: usize, args: std::fmt::Arguments) {
        self.text.push('\n');
        self.lines.push((self.line + 2, model_line));
        let _ = self.text.write_fmt(args);
        self.line = self.text.matches('\n').count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_to_the_same_bits() {
        for x in [1.0, -0.0, 0.1, 1e-7, 123456789.0, 1e300, 2.5e-310, 1.0 / 3.0] {
            let v: toml::Table = toml::from_str(&format!("x = {}", num(x))).unwrap();
            assert_eq!(v["x"].as_float().unwrap().to_bits(), x.to_bits(), "{x}");
        }
    }

    #[test]
    fn model_names_become_scene_names() {
        assert_eq!(name("upper/collision 0"), "\"upper_collision_0\"");
        assert_eq!(name(".hidden"), "\"_.hidden\"");
        assert_eq!(name(""), "\"_\"");
        assert_eq!(name("link_3.0"), "\"link_3.0\"");
        for raw in ["a,b\"c\nd", "../../x", &"y".repeat(100)] {
            let made = name(raw);
            let made: String = toml::from_str::<toml::Table>(&format!("n = {made}")).unwrap()["n"]
                .as_str()
                .unwrap()
                .into();
            assert!(crate::scene::check_name(&made).is_ok(), "{raw:?} → {made:?}");
        }
    }

    #[test]
    fn relative_paths_walk_up_to_the_common_folder() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(relative_to(&p("/a/b/m/x.stl"), &p("/a/b")), p("m/x.stl"));
        assert_eq!(relative_to(&p("/a/m/x.stl"), &p("/a/b/c")), p("../../m/x.stl"));
    }
}
