//! Sensors: named signals sampled from a rigid simulation at output times, written to
//! `sensors.csv` and plotted (`sensors.png`).

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
    },
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
}

impl Sensor {
    /// Column names of this sensor's channels.
    pub fn columns(&self) -> Vec<String> {
        let channels: &[&str] = match self.kind {
            SensorKind::Point { .. } => &["x", "y", "z", "vx", "vy", "vz"],
            SensorKind::JointAngle { .. } => &["angle", "rate"],
        };
        channels.iter().map(|c| format!("{}_{c}", self.name)).collect()
    }

    /// Appends this sensor's channels at the current state of `data` to `out`.
    pub fn sample(&self, model: &RigidModel, data: &RigidData, out: &mut Vec<f64>) {
        match self.kind {
            SensorKind::Point { body, point } => {
                let b = BodyRef::Body(body);
                out.extend(data.point_position(b, point).to_array());
                out.extend(data.point_velocity(b, point).to_array());
            }
            SensorKind::JointAngle { joint } => {
                // Validated as revolute/cylindrical when the scene was read.
                let (angle, rate) = joint_angle(model, data, joint).unwrap_or((f64::NAN, f64::NAN));
                out.extend([angle, rate]);
            }
        }
    }
}
