//! Orbit camera (z up): yaw and pitch around a target point at a distance, pan in the view
//! plane, zoom by distance; perspective projection to pixel coordinates.

use ferrodyn_kernel::math::Vec3;

/// Vertical field of view (rad).
const FOV: f64 = 0.8;
/// Closest depth drawn, as a fraction of the orbit distance.
const NEAR_FRACTION: f64 = 1e-3;

/// A point projected to the screen: pixel coordinates and its depth along the view direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    /// Pixel column (may be off screen).
    pub x: f64,
    /// Pixel row, downwards (may be off screen).
    pub y: f64,
    /// Distance in front of the camera (m), > near.
    pub depth: f64,
}

/// An orbit camera looking at `target` from `distance`, at `yaw` about z and `pitch` above the
/// x–y plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The point looked at and orbited.
    pub target: Vec3<f64>,
    /// Distance from the target (m).
    pub distance: f64,
    /// Angle about global z of the eye seen from the target (rad).
    pub yaw: f64,
    /// Elevation of the eye above the target's x–y plane (rad).
    pub pitch: f64,
}

/// The camera's frame: eye position and right, up, forward unit vectors.
struct Frame {
    eye: Vec3<f64>,
    right: Vec3<f64>,
    up: Vec3<f64>,
    forward: Vec3<f64>,
}

impl Camera {
    /// A camera that shows a sphere of `radius` about `center` whole, seen from the front
    /// right (−y side, x to the right) and a little above.
    pub fn framing(center: Vec3<f64>, radius: f64) -> Self {
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            1.0
        };
        Self {
            target: center,
            distance: 1.15 * radius / (0.5 * FOV).sin(),
            yaw: -1.2,
            pitch: 0.35,
        }
    }

    fn frame(&self) -> Frame {
        let (cp, sp) = (self.pitch.cos(), self.pitch.sin());
        let (cy, sy) = (self.yaw.cos(), self.yaw.sin());
        let back = Vec3::new(cp * cy, cp * sy, sp);
        let forward = -back;
        // Pitch is kept inside ±90°, so forward is never parallel to z.
        let right = forward
            .cross(Vec3::new(0.0, 0.0, 1.0))
            .normalized()
            .unwrap_or(Vec3::new(1.0, 0.0, 0.0));
        Frame {
            eye: self.target + back.scale(self.distance),
            right,
            up: right.cross(forward),
            forward,
        }
    }

    /// The eye position.
    pub fn eye(&self) -> Vec3<f64> {
        self.frame().eye
    }

    /// Closest depth drawn (m).
    pub fn near(&self) -> f64 {
        NEAR_FRACTION * self.distance
    }

    /// Camera coordinates of `p`: (right, up, forward depth).
    pub fn to_view(&self, p: Vec3<f64>) -> Vec3<f64> {
        let f = self.frame();
        let d = p - f.eye;
        Vec3::new(d.dot(f.right), d.dot(f.up), d.dot(f.forward))
    }

    /// Pixel position of a point in camera coordinates on a `width`×`height` image; `None`
    /// when it is behind the near plane.
    pub fn project_view(&self, v: Vec3<f64>, width: usize, height: usize) -> Option<Projected> {
        if v.z < self.near() {
            return None;
        }
        let focal = 0.5 * height as f64 / (0.5 * FOV).tan();
        Some(Projected {
            x: 0.5 * width as f64 + focal * v.x / v.z,
            y: 0.5 * height as f64 - focal * v.y / v.z,
            depth: v.z,
        })
    }

    /// Pixel position of a global point; `None` when behind the near plane.
    pub fn project(&self, p: Vec3<f64>, width: usize, height: usize) -> Option<Projected> {
        self.project_view(self.to_view(p), width, height)
    }

    /// Orbits by pixel drags (dx right, dy down) on an image `height` pixels high.
    pub fn orbit(&mut self, dx: f64, dy: f64, height: usize) {
        let per_pixel = std::f64::consts::PI / height.max(1) as f64;
        self.yaw -= dx * per_pixel;
        self.pitch = (self.pitch + dy * per_pixel).clamp(-1.5, 1.5);
    }

    /// Moves the target with a pixel drag so the scene follows the mouse.
    pub fn pan(&mut self, dx: f64, dy: f64, height: usize) {
        let f = self.frame();
        let per_pixel = 2.0 * self.distance * (0.5 * FOV).tan() / height.max(1) as f64;
        self.target = self.target - f.right.scale(dx * per_pixel) + f.up.scale(dy * per_pixel);
    }

    /// Zooms in (`steps` > 0) or out by 10 % a step.
    pub fn zoom(&mut self, steps: f64) {
        self.distance = (self.distance * 0.9f64.powf(steps)).clamp(1e-6, 1e9);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_projects_to_the_image_centre_and_up_is_up() {
        let c = Camera::framing(Vec3::new(1.0, 2.0, 3.0), 1.0);
        let p = c.project(c.target, 200, 100).unwrap();
        assert!((p.x - 100.0).abs() < 1e-9 && (p.y - 50.0).abs() < 1e-9);
        assert!((p.depth - c.distance).abs() < 1e-9);
        let above = c.project(c.target + Vec3::new(0.0, 0.0, 0.1), 200, 100).unwrap();
        assert!(above.y < p.y, "+z must be drawn higher on screen");
        assert!(c.project(c.eye() - (c.target - c.eye()), 200, 100).is_none());
    }

    #[test]
    fn pan_follows_the_mouse_and_zoom_changes_distance() {
        let mut c = Camera::framing(Vec3::ZERO, 1.0);
        let before = c.project(Vec3::ZERO, 200, 100).unwrap();
        c.pan(10.0, 0.0, 100);
        let after = c.project(Vec3::ZERO, 200, 100).unwrap();
        assert!((after.x - before.x - 10.0).abs() < 1e-6);
        let d = c.distance;
        c.zoom(1.0);
        assert!(c.distance < d);
    }
}
