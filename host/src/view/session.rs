//! A scene simulated for the viewer and the renderer: the [`Simulation`] compiled from it, and
//! the controls that change the scene while it runs (gravity, the rate of a ramp drive, reset),
//! which recompile it and carry the state over.

use crate::compile::compile;
use crate::scene::Scene;
use crate::simulation::Simulation;
use anyhow::Result;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::JointKind;
use ferrodyn_kernel::TimeFunction;

/// A scene and its simulation.
pub struct Session {
    /// The scene as first loaded (for reset).
    initial: Scene,
    /// The scene as currently modified (gravity, drive rate).
    scene: Scene,
    sim: Simulation,
}

impl Session {
    /// Compiles `scene` at its initial state.
    pub fn new(scene: Scene) -> Result<Self> {
        let sim = compile(&scene)?;
        Ok(Self {
            initial: scene.clone(),
            scene,
            sim,
        })
    }

    /// The scene as currently simulated.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The simulation.
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// The step size (s).
    pub fn dt(&self) -> f64 {
        self.sim.timing.step
    }

    /// Simulation time (s).
    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    /// Advances by one step.
    pub fn step(&mut self) -> Result<()> {
        self.sim.step()
    }

    /// Advances until the time reaches `t` (within half a step).
    pub fn advance_to(&mut self, t: f64) -> Result<()> {
        self.sim.advance_to(t)
    }

    /// Total mechanical energy (J); `None` when a flexible body is in a state its material
    /// cannot evaluate (inverted element).
    pub fn energy(&self) -> Option<f64> {
        self.sim.energy().ok().map(|e| e.total())
    }

    /// Back to the initial state of the scene as loaded.
    pub fn reset(&mut self) -> Result<()> {
        self.scene = self.initial.clone();
        self.sim = compile(&self.scene)?;
        Ok(())
    }

    /// Whether gravity is on.
    pub fn gravity_on(&self) -> bool {
        self.scene.simulation.gravity != Vec3::ZERO
    }

    /// Switches gravity off, or back to the scene's value; the state carries on.
    pub fn toggle_gravity(&mut self) -> Result<()> {
        self.scene.simulation.gravity = if self.gravity_on() {
            Vec3::ZERO
        } else {
            self.initial.simulation.gravity
        };
        self.rebuild()
    }

    /// Rate of the first ramp drive (rad/s or m/s), when the scene has one.
    pub fn drive_rate(&self) -> Option<f64> {
        self.ramp_drive().map(|(_, slope)| slope)
    }

    /// Sets the rate of the first ramp drive from now on, continuing from its current value
    /// (the prescribed coordinate does not jump); no-op without a ramp drive.
    pub fn set_drive_rate(&mut self, rate: f64) -> Result<()> {
        let Some((index, _)) = self.ramp_drive() else {
            return Ok(());
        };
        let t = self.time();
        // The drive's function in the scene's list: the rebuilt models take it from there.
        if let Some(function) = self.scene.drive_functions.get_mut(index) {
            let value = function.eval(t).value;
            *function = TimeFunction::Ramp {
                start: t,
                initial: value,
                slope: rate,
            };
        }
        self.rebuild()
    }

    /// The first ramp drive (in joint order): its function's index in the scene's list and its
    /// slope.
    fn ramp_drive(&self) -> Option<(usize, f64)> {
        let functions = &self.scene.drive_functions;
        self.scene.joints.iter().find_map(|j| match j.value.kind {
            JointKind::Driving { function, .. } => match functions.get(function.index())? {
                TimeFunction::Ramp { slope, .. } => Some((function.index(), *slope)),
                _ => None,
            },
            _ => None,
        })
    }

    /// Recompiles the modified scene and carries the state over (same bodies, nodes and
    /// constraint rows, so the state layout is unchanged).
    fn rebuild(&mut self) -> Result<()> {
        let mut fresh = compile(&self.scene)?;
        fresh.take_over(&mut self.sim)?;
        self.sim = fresh;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dae::HostMethod;
    use ferrodyn_kernel::rigid::assemble;
    use ferrodyn_kernel::Dynamics;
    use std::path::Path;

    fn scene(text: &str) -> Scene {
        Scene::parse(Path::new("test.toml"), text).expect("test scene")
    }

    fn pendulum() -> Scene {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pendulum.toml");
        Scene::load(&path).expect("scenes/pendulum.toml")
    }

    /// A crank turning about z on a revolute joint, driven by a ramp at 2 rad/s.
    const CRANK: &str = r#"
[simulation]
end_time = 1.0
step = 1e-3

[[body]]
id = 1
name = "crank"
mass = 1.0
inertia = { Ixx = 0.001, Iyy = 0.01, Izz = 0.01 }

[[joint]]
name = "pivot"
type = "revolute"
body_i = "ground"
body_j = "crank"

[[drive]]
name = "motor"
body_i = "ground"
body_j = "crank"
coordinate = "rotation"
function = { ramp = { start = 0.0, initial = 0.0, slope = 2.0 } }
"#;

    fn angle(s: &Session) -> f64 {
        let q = s.simulation().body_pose(0).1.to_array();
        2.0 * q[3].atan2(q[0])
    }

    #[test]
    fn steps_like_the_kernel_step_of_the_scene_model() {
        // The pendulum scene's rigid model stepped by the kernel directly, and through the
        // session: the same bits.
        let scene = pendulum();
        let model = crate::compile::rigid_model::<crate::storage::Growable>(&scene).unwrap();
        let mut data = model.new_data();
        assemble(&model, &mut data).unwrap();
        let mut method = HostMethod::new(&scene.simulation.integrator).unwrap();
        let mut session = Session::new(scene.clone()).unwrap();
        for _ in 0..100 {
            model.step(&mut data, &mut method, scene.simulation.step).unwrap();
            session.step().unwrap();
        }
        let (p, _) = session.simulation().body_pose(0);
        assert_eq!(p, data.position(0), "bit for bit");
        assert!((session.time() - 0.1).abs() < 1e-12);
        let e = ferrodyn_kernel::rigid::energy(&model, &data).total();
        assert_eq!(session.energy(), Some(e));
    }

    #[test]
    fn flexible_contact_scenes_step_every_body_with_contact() {
        // scenes/tet_collision.toml: both blocks drawn as one flexible model, in contact with
        // the ground at t = 0.025 s.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/tet_collision.toml");
        let mut session = Session::new(Scene::load(&path).unwrap()).unwrap();
        session.advance_to(0.025).unwrap();
        let view = session.simulation().flexible().expect("flexible bodies");
        assert_eq!(view.node_count(), 20, "lower (12 nodes) and upper (8)");
        let touching = session.simulation().contacts().map_or(0, |c| c.active_count());
        assert!(touching > 0, "the lower block rests on the ground at t = 0.025 s");
    }

    #[test]
    fn drive_rate_changes_continue_from_the_current_angle() {
        let mut s = Session::new(scene(CRANK)).unwrap();
        assert_eq!(s.drive_rate(), Some(2.0));
        s.advance_to(0.5).unwrap();
        assert!((angle(&s) - 1.0).abs() < 1e-6, "{}", angle(&s));
        s.set_drive_rate(4.0).unwrap();
        assert_eq!(s.drive_rate(), Some(4.0));
        s.advance_to(0.75).unwrap();
        assert!((angle(&s) - 2.0).abs() < 1e-6, "{}", angle(&s));
        s.reset().unwrap();
        assert_eq!((s.time(), s.drive_rate()), (0.0, Some(2.0)));
    }

    #[test]
    fn gravity_toggles_off_and_back_on() {
        let mut s = Session::new(pendulum()).unwrap();
        let start = s.simulation().body_pose(0).0;
        assert!(s.gravity_on());
        s.toggle_gravity().unwrap();
        assert!(!s.gravity_on());
        s.advance_to(0.1).unwrap();
        assert!(
            (s.simulation().body_pose(0).0 - start).norm() < 1e-12,
            "released at rest without gravity"
        );
        s.toggle_gravity().unwrap();
        s.advance_to(0.2).unwrap();
        assert!(s.simulation().body_pose(0).0.z < start.z - 1e-3, "falls again");
        assert_eq!(s.drive_rate(), None);
        s.set_drive_rate(1.0).unwrap();
    }
}
