//! Sensors: named signals sampled from a simulation at output times, written to
//! `sensors.csv` and plotted (`sensors.png`).

use crate::simulation::FlexibleState;
use crate::storage::{RigidData, RigidModel};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{joint_angle, BodyRef};

/// What a sensor measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SensorKind {
    /// A body-fixed point (body coordinates): global position and velocity.
    Point {
        /// Body index.
        body: usize,
        /// The point in body coordinates.
        point: Vec3<f64>,
    },
    /// A revolute or cylindrical joint: angle and rate (an encoder).
    JointAngle {
        /// Joint index.
        joint: usize,
        /// Where the angle reads 0.
        zero: EncoderZero,
    },
    /// A flexible node's displacement: from `rest`, its position in the frame of `frame` (a
    /// rigid body's, global axes without one) at the scene's initial state. In a body frame it
    /// is the deformation seen by an observer riding the body (a strain gauge, a tip sensor).
    FlexibleNode {
        /// Node index in the merged flexible model.
        node: usize,
        /// The body whose frame the displacement is measured in.
        frame: Option<usize>,
        /// The node's initial position in that frame.
        rest: Vec3<f64>,
    },
}

/// Where an encoder's angle reads 0 (the scene's `zero`). The kernel measures a joint's angle
/// between its frames' x axes about the joint axis; a joint given by its axis alone gets frames
/// of its own choosing, so that angle is arbitrary at the initial pose, while a servo's
/// set-point counts from the initial pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EncoderZero {
    /// At the scene's initial pose (the default), like a servo's set-point; [`resolve_zeros`]
    /// turns it into the [`EncoderZero::Frames`] angle of that pose at compile time.
    InitialPose,
    /// At this joint-frame angle (rad); 0: the frames' x axes aligned.
    Frames(f64),
}

/// `angle` − `zero` in (−π, π], both in (−π, π]: one turn added or taken off, so a zero of 0
/// leaves the kernel's angle bit for bit.
fn from_zero(angle: f64, zero: f64) -> f64 {
    let d = angle - zero;
    if d > std::f64::consts::PI {
        d - std::f64::consts::TAU
    } else if d <= -std::f64::consts::PI {
        d + std::f64::consts::TAU
    } else {
        d
    }
}

/// Turns every [`EncoderZero::InitialPose`] of `sensors` into the joint-frame angle at the
/// state of `rigid` (the scene's initial state, when compiling).
pub fn resolve_zeros(sensors: &mut [Sensor], rigid: Option<(&RigidModel, &RigidData)>) {
    for sensor in sensors {
        if let (SensorKind::JointAngle { joint, zero }, Some((model, data))) = (&mut sensor.kind, rigid) {
            if *zero == EncoderZero::InitialPose {
                let (angle, _) = joint_angle(model, data, *joint).unwrap_or((0.0, 0.0));
                *zero = EncoderZero::Frames(angle);
            }
        }
    }
}

/// A named sensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Sensor {
    /// Name (column prefix in `sensors.csv`).
    pub name: String,
    /// What it measures.
    pub kind: SensorKind,
    /// Drawn in `sensors.png`.
    pub plot: bool,
    /// SI units per port unit of an exported model's outputs (port value = SI value / scale);
    /// sensors.csv and the plots stay in SI.
    pub scale: f64,
}

impl Sensor {
    /// Its channels (column suffixes).
    fn channels(&self) -> &'static [&'static str] {
        match self.kind {
            SensorKind::Point { .. } => &["x", "y", "z", "vx", "vy", "vz"],
            SensorKind::JointAngle { .. } => &["angle", "rate"],
            SensorKind::FlexibleNode { .. } => &["ux", "uy", "uz"],
        }
    }

    /// The SI unit of each channel, in the order of [`Sensor::columns`].
    pub fn units(&self) -> &'static [&'static str] {
        match self.kind {
            SensorKind::Point { .. } => &["m", "m", "m", "m/s", "m/s", "m/s"],
            SensorKind::JointAngle { .. } => &["rad", "rad/s"],
            SensorKind::FlexibleNode { .. } => &["m", "m", "m"],
        }
    }

    /// Column names of this sensor's channels.
    pub fn columns(&self) -> Vec<String> {
        self.channels()
            .iter()
            .map(|c| format!("{}_{c}", self.name))
            .collect()
    }

    /// Appends this sensor's channels at the current state to `out` (NaN for what the
    /// simulation does not have).
    pub fn sample(
        &self,
        rigid: Option<(&RigidModel, &RigidData)>,
        flexible: Option<FlexibleState<'_>>,
        out: &mut Vec<f64>,
    ) {
        match (self.kind, rigid) {
            (SensorKind::Point { body, point }, Some((_, data))) => {
                let b = BodyRef::Body(body);
                out.extend(data.point_position(b, point).to_array());
                out.extend(data.point_velocity(b, point).to_array());
            }
            (SensorKind::JointAngle { joint, zero }, Some((model, data))) => {
                // Validated as revolute/cylindrical when the scene was read.
                let (angle, rate) = joint_angle(model, data, joint).unwrap_or((f64::NAN, f64::NAN));
                let zero = match zero {
                    EncoderZero::Frames(zero) => zero,
                    // Not resolved (no compile): the frames' zero.
                    EncoderZero::InitialPose => 0.0,
                };
                out.extend([from_zero(angle, zero), rate]);
            }
            (SensorKind::FlexibleNode { node, frame, rest }, rigid) => {
                let Some(x) = flexible
                    .filter(|f| node < f.node_count())
                    .map(|f| f.position(node))
                else {
                    out.extend([f64::NAN; 3]);
                    return;
                };
                let local = match (frame, rigid) {
                    (None, _) => Some(x),
                    (Some(b), Some((model, data))) if b < model.bodies().len() => {
                        let rotation = data.orientation(b).to_matrix();
                        Some(rotation.transpose().mul_vec(x - data.position(b)))
                    }
                    _ => None,
                };
                out.extend(local.map_or([f64::NAN; 3], |p| (p - rest).to_array()));
            }
            (_, None) => out.extend(self.channels().iter().map(|_| f64::NAN)),
        }
    }
}
