//! One FMU instance in safe Rust: the scene from the FMU's resources compiled into a
//! [`Simulation`], its variables, the FMI state machine, and the FMU states. The C entry
//! points ([`crate::fmi3`], [`crate::fmi2`]) only convert arguments and call these methods.

use anyhow::{bail, ensure, Result};
use ferrodyn_host::compile::compile;
use ferrodyn_host::export::fmu::{resources_scene, variables, Causality, Variable};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::{ResumePoint, Simulation};
use std::path::Path;

/// Where an instance is in the FMI co-simulation state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Instantiated: inputs may be set, no step yet.
    Instantiated,
    /// Between EnterInitializationMode and ExitInitializationMode.
    Initialization,
    /// Stepping.
    Step,
    /// After Terminate: outputs may be read; only reset or free go on.
    Terminated,
    /// A step failed or a panic was caught: only reset or free go on.
    Failed,
}

/// A saved FMU state: everything the simulation carries from step to step, and the mode the
/// instance was in. FMI 3.0 (2.2.6.4): a state set into an instance, this one or a fresh one,
/// lets it go on without further calls, so a state saved while stepping resumes stepping.
#[derive(Clone, Debug)]
pub struct FmuState {
    /// The simulation's resume point.
    pub point: ResumePoint,
    /// The mode (never [`Phase::Failed`]: a failed instance has no state to give).
    pub phase: Phase,
}

/// The bytes a serialized FMU state starts with (02: with the mode).
const MAGIC: &[u8; 8] = b"FDYNST02";

/// The modes a serialized state may hold, by their code (the index).
const SAVED_PHASES: [Phase; 4] = [
    Phase::Instantiated,
    Phase::Initialization,
    Phase::Step,
    Phase::Terminated,
];

/// An FMU instance.
pub struct Instance {
    /// The instance name given by the importer (for log messages).
    pub name: String,
    scene: Scene,
    token: String,
    sim: Simulation,
    variables: Vec<Variable>,
    /// Where the state machine is.
    pub phase: Phase,
    /// Scratch row of sensor values.
    row: Vec<f64>,
}

impl Instance {
    /// Reads the scene from `resources`, checks it against the importer's `expected` token
    /// (instantiation token or GUID) and compiles it.
    pub fn new(name: &str, resources: &Path, expected: &str) -> Result<Self> {
        let (scene, token) = resources_scene(resources)?;
        ensure!(
            token == expected,
            "the token {expected} is not this FMU's ({token}): the resources hold another scene"
        );
        let sim = compile(&scene)?;
        Ok(Self {
            name: name.to_string(),
            variables: variables(&scene),
            scene,
            token,
            sim,
            phase: Phase::Instantiated,
            row: Vec::new(),
        })
    }

    /// Back to the scene's initial state (FMI Reset).
    pub fn reset(&mut self) -> Result<()> {
        self.sim = compile(&self.scene)?;
        self.phase = Phase::Instantiated;
        Ok(())
    }

    /// Enters initialization mode; the experiment must start at the scene's t = 0.
    pub fn enter_initialization(&mut self, start_time: f64) -> Result<()> {
        self.expect(&[Phase::Instantiated], "enter initialization mode")?;
        ensure!(
            start_time == 0.0,
            "start time {start_time}: the scene starts at 0 s"
        );
        self.phase = Phase::Initialization;
        Ok(())
    }

    /// Leaves initialization mode for step mode.
    pub fn exit_initialization(&mut self) -> Result<()> {
        self.expect(&[Phase::Initialization], "exit initialization mode")?;
        self.phase = Phase::Step;
        Ok(())
    }

    /// Terminates (outputs stay readable).
    pub fn terminate(&mut self) -> Result<()> {
        self.expect(&[Phase::Step, Phase::Initialization], "terminate")?;
        self.phase = Phase::Terminated;
        Ok(())
    }

    /// Advances from the communication point `t` by `h`: a whole number of the scene's steps,
    /// as `ferrodyn run` takes them. Bad arguments change nothing; a failed step leaves the
    /// instance failed (reset or free it).
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<()> {
        self.expect(&[Phase::Step], "do a step")?;
        let step = self.sim.timing.step;
        ensure!(
            t.is_finite() && h.is_finite(),
            "communication point {t} and step {h} must be finite"
        );
        ensure!(h > 0.0, "communication step {h} s: it must be positive");
        let now = self.sim.time();
        ensure!(
            (t - now).abs() <= 0.5 * step,
            "communication point {t} s: the FMU is at {now} s"
        );
        let steps = (h / step).round();
        ensure!(
            steps >= 1.0 && (steps * step - h).abs() <= 1e-9 * h,
            "communication step {h} s is not a whole number of the scene's step {step} s"
        );
        for _ in 0..steps as u64 {
            if let Err(e) = self.sim.step() {
                self.phase = Phase::Failed;
                return Err(e);
            }
        }
        Ok(())
    }

    /// The simulation time.
    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    /// The values of the variables `references` into `values` (same length).
    pub fn get(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        ensure!(
            references.len() == values.len(),
            "{} value references for {} values",
            references.len(),
            values.len()
        );
        ensure!(
            self.phase != Phase::Failed,
            "the instance failed: reset or free it"
        );
        self.row.clear();
        for sensor in &self.sim.labels.sensors {
            sensor.sample(self.sim.rigid(), self.sim.flexible(), &mut self.row);
        }
        let inputs = self.scene.inputs.len();
        for (r, out) in references.iter().zip(values.iter_mut()) {
            let v = self.variable(*r)?;
            let index = v.reference as usize;
            *out = match v.causality {
                Causality::Independent => self.sim.time(),
                Causality::Input => self.sim.inputs()[index - 1],
                Causality::Output => self.row[index - 1 - inputs],
            };
        }
        Ok(())
    }

    /// Sets input variables: all are checked (inputs, finite) before any is set.
    pub fn set(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        ensure!(
            references.len() == values.len(),
            "{} value references for {} values",
            references.len(),
            values.len()
        );
        self.expect(
            &[Phase::Instantiated, Phase::Initialization, Phase::Step],
            "set inputs",
        )?;
        for (r, value) in references.iter().zip(values) {
            let v = self.variable(*r)?;
            ensure!(
                v.causality == Causality::Input,
                "variable {} ({r}) is not an input",
                v.name
            );
            ensure!(value.is_finite(), "input {} = {value}: it must be finite", v.name);
        }
        for (r, value) in references.iter().zip(values) {
            self.sim.set_input(*r as usize - 1, *value)?;
        }
        Ok(())
    }

    /// The current FMU state (the caller owns it).
    pub fn get_state(&self) -> Result<FmuState> {
        ensure!(
            self.phase != Phase::Failed,
            "the instance failed: reset or free it"
        );
        match self.sim.resume_point() {
            Some(point) => Ok(FmuState {
                point,
                phase: self.phase,
            }),
            None => bail!("this scene's simulation cannot be saved exactly (contact memory or an adaptive, multistep or implicit integrator)"),
        }
    }

    /// Goes back to a saved FMU state, and to the mode it was saved in.
    pub fn set_state(&mut self, state: &FmuState) -> Result<()> {
        self.expect(&SAVED_PHASES, "set an FMU state")?;
        self.sim.resume(&state.point)?;
        self.phase = state.phase;
        Ok(())
    }

    /// The bytes of `state`: a header (magic, the scene's token), the mode's code, the step
    /// count, the clock, the state and the inputs, little-endian.
    pub fn serialize(&self, state: &FmuState) -> Vec<u8> {
        let mut out = Vec::with_capacity(serialized_size(state, &self.token));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.token.len() as u64).to_le_bytes());
        out.extend_from_slice(self.token.as_bytes());
        let code = SAVED_PHASES.iter().position(|p| *p == state.phase).unwrap_or(0);
        out.extend_from_slice(&(code as u64).to_le_bytes());
        let point = &state.point;
        out.extend_from_slice(&point.steps.to_le_bytes());
        for list in [&point.clock[..], &point.state, &point.inputs] {
            out.extend_from_slice(&(list.len() as u64).to_le_bytes());
            for v in list {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// The size of [`Instance::serialize`]'s bytes.
    pub fn serialized_size(&self, state: &FmuState) -> usize {
        serialized_size(state, &self.token)
    }

    /// A state from serialized bytes, checked against this FMU's scene and sizes.
    pub fn deserialize(&self, bytes: &[u8]) -> Result<FmuState> {
        let mut r = Reader { bytes };
        ensure!(r.take(8)? == MAGIC, "not a serialized Ferrodyn FMU state");
        let len = r.u64()? as usize;
        ensure!(
            r.take(len)? == self.token.as_bytes(),
            "the serialized state is of another scene"
        );
        let code = r.u64()?;
        let Some(&phase) = SAVED_PHASES.get(code as usize) else {
            bail!("the serialized state has an unknown mode ({code})");
        };
        let steps = r.u64()?;
        let clock = r.list()?;
        let state = r.list()?;
        let inputs = r.list()?;
        ensure!(r.bytes.is_empty(), "{} bytes left over", r.bytes.len());
        ensure!(clock.len() == 2, "the clock has {} values", clock.len());
        ensure!(
            state.len() == self.sim.state().len() && inputs.len() == self.sim.inputs().len(),
            "the serialized state does not fit this scene"
        );
        Ok(FmuState {
            point: ResumePoint {
                clock: [clock[0], clock[1]],
                steps,
                state,
                inputs,
            },
            phase,
        })
    }

    fn variable(&self, reference: u32) -> Result<&Variable> {
        match self.variables.get(reference as usize) {
            Some(v) => Ok(v),
            None => bail!("no variable with value reference {reference}"),
        }
    }

    fn expect(&self, phases: &[Phase], what: &str) -> Result<()> {
        ensure!(
            phases.contains(&self.phase),
            "cannot {what} in {:?} mode (allowed in {phases:?})",
            self.phase
        );
        Ok(())
    }
}

fn serialized_size(state: &FmuState, token: &str) -> usize {
    let point = &state.point;
    8 + 8 + token.len() + 8 + 8 + 8 * (3 + 2 + point.state.len() + point.inputs.len())
}

/// Reads little-endian values off the front of a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        ensure!(n <= self.bytes.len(), "the serialized state is cut short");
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }
    fn u64(&mut self) -> Result<u64> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }
    fn list(&mut self) -> Result<Vec<f64>> {
        let n = self.u64()? as usize;
        ensure!(n <= self.bytes.len() / 8, "the serialized state is cut short");
        (0..n).map(|_| Ok(f64::from_bits(self.u64()?))).collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ferrodyn_host::export::fmu::{token, SCENE_INDEX};
    use std::path::PathBuf;

    /// A resources folder holding scenes/hil_arm.toml, and the scene's token.
    pub(crate) fn hil_arm_resources(tag: &str) -> (PathBuf, String) {
        let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/hil_arm.toml");
        let text = std::fs::read_to_string(&scene).unwrap();
        let dir = std::env::temp_dir().join(format!("ferrodyn-fmu-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(SCENE_INDEX), "hil_arm.toml\n").unwrap();
        std::fs::write(dir.join("hil_arm.toml"), &text).unwrap();
        (dir, token(&text))
    }

    fn stepping(tag: &str) -> Instance {
        let (dir, token) = hil_arm_resources(tag);
        let mut instance = Instance::new("test", &dir, &token).unwrap();
        instance.enter_initialization(0.0).unwrap();
        instance.exit_initialization().unwrap();
        instance
    }

    fn outputs(instance: &mut Instance) -> Vec<u64> {
        let references: Vec<u32> = (2..10).collect();
        let mut values = vec![0.0; references.len()];
        instance.get(&references, &mut values).unwrap();
        values.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn another_token_is_refused() {
        let (dir, _) = hil_arm_resources("token");
        let e = Instance::new("test", &dir, "{not-this-one}").err().unwrap();
        assert!(e.to_string().contains("another scene"), "{e}");
    }

    #[test]
    fn serialized_states_restore_bit_for_bit() {
        let mut a = stepping("state");
        for _ in 0..10 {
            a.do_step(a.time(), 0.002).unwrap();
        }
        let saved = a.get_state().unwrap();
        let bytes = a.serialize(&saved);
        assert_eq!(bytes.len(), a.serialized_size(&saved));
        a.do_step(a.time(), 0.01).unwrap();
        let expected = outputs(&mut a);
        // A fresh instance, not initialized: the state brings the step mode with it (FMI 3.0
        // 2.2.6.4: it goes on without further calls), as fmusim --initial-fmu-state-file does.
        let (dir, token) = hil_arm_resources("state-b");
        let mut b = Instance::new("test", &dir, &token).unwrap();
        assert_eq!(b.phase, Phase::Instantiated);
        b.set_state(&b.deserialize(&bytes).unwrap()).unwrap();
        assert_eq!(b.phase, Phase::Step);
        b.do_step(b.time(), 0.01).unwrap();
        assert_eq!(outputs(&mut b), expected);
        assert!(a.deserialize(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn a_state_restores_the_mode_it_was_saved_in() {
        let (dir, token) = hil_arm_resources("mode");
        let fresh = Instance::new("test", &dir, &token).unwrap();
        let instantiated = fresh.get_state().unwrap();
        let mut a = stepping("mode-a");
        a.do_step(0.0, 0.001).unwrap();
        a.set_state(&a.deserialize(&a.serialize(&instantiated)).unwrap())
            .unwrap();
        assert_eq!(a.phase, Phase::Instantiated);
        assert_eq!(a.time(), 0.0);
        assert!(a.do_step(0.0, 0.001).is_err(), "not initialized");
        a.enter_initialization(0.0).unwrap();
        let mut bytes = a.serialize(&a.get_state().unwrap());
        let code = 8 + 8 + token.len();
        bytes[code] = 9;
        let e = a.deserialize(&bytes).unwrap_err();
        assert!(e.to_string().contains("unknown mode (9)"), "{e}");
    }

    #[test]
    fn bad_arguments_change_nothing() {
        let mut a = stepping("bad");
        a.do_step(0.0, 0.001).unwrap();
        let before = outputs(&mut a);
        assert!(a.set(&[1], &[f64::NAN]).is_err());
        assert!(a.set(&[2], &[0.0]).is_err(), "an output is not settable");
        assert!(a.set(&[99], &[0.0]).is_err());
        assert!(a.do_step(a.time(), -0.001).is_err());
        assert!(a.do_step(a.time(), 0.0015).is_err());
        assert!(a.do_step(f64::NAN, 0.001).is_err());
        assert!(a.exit_initialization().is_err());
        assert_eq!(outputs(&mut a), before);
        assert_eq!(a.phase, Phase::Step);
        a.do_step(a.time(), 0.001).unwrap();
    }

    #[test]
    fn settings_in_the_index_set_the_step() {
        let (dir, _) = hil_arm_resources("settings");
        let text = std::fs::read_to_string(dir.join("hil_arm.toml")).unwrap();
        let settings = "--dt 0.0005\n--integrator semi-implicit-euler\n";
        std::fs::write(dir.join(SCENE_INDEX), format!("hil_arm.toml\n{settings}")).unwrap();
        assert!(
            Instance::new("test", &dir, &token(&text)).is_err(),
            "the token covers the settings"
        );
        let mut a = Instance::new("test", &dir, &token(&format!("{text}{settings}"))).unwrap();
        a.enter_initialization(0.0).unwrap();
        a.exit_initialization().unwrap();
        assert!(
            a.do_step(0.0, 0.0007).is_err(),
            "not a multiple of the exported step"
        );
        a.do_step(0.0, 0.001).unwrap();
        assert_eq!(a.time(), 0.001);

        std::fs::write(dir.join(SCENE_INDEX), "hil_arm.toml\n--warp 9\n").unwrap();
        let e = Instance::new("test", &dir, "").err().unwrap();
        assert!(e.to_string().contains("unknown setting '--warp 9'"), "{e}");
    }
}
