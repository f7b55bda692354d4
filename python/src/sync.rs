//! What ties numpy arrays to a simulation between calls: the state and inputs as the last call
//! left them. Writes made since are found by comparing bits, checked, and handed to the
//! simulation through its own setters (`set_state`, `set_input`), so the model's caches and
//! mirrors follow; a refused value puts the last good ones back.

use ferrodyn_host::simulation::Simulation;

/// A write that the simulation refused (already undone in the simulation).
pub struct Refused(pub String);

/// Whether two values have different bits (so 0.0 and −0.0 differ, and NaN is seen).
fn differ(a: f64, b: f64) -> bool {
    a.to_bits() != b.to_bits()
}

/// Whether `now` differs from `last` in any bit.
pub fn changed(now: &[f64], last: &[f64]) -> bool {
    now.iter().zip(last).any(|(&a, &b)| differ(a, b))
}

/// Gives `sim` the state `written`, which differs from `last` (the state the last call left):
/// refused, with `sim` set back to `last`, when a value is not finite or the model refuses it.
/// `nq` is the number of positions (for the message).
pub fn apply_state(sim: &mut Simulation, written: &[f64], last: &[f64], nq: usize) -> Result<(), Refused> {
    let refused = match written.iter().position(|x| !x.is_finite()) {
        Some(i) => format!("{} = {}: not a finite number", slot_name(i, nq), written[i]),
        None => match sim.set_state(written) {
            Ok(()) => return Ok(()),
            Err(e) => format!("the state written: {}", sim.labels.name_error(e.into())),
        },
    };
    // The last call's state passed these checks: putting it back cannot fail.
    let _ = sim.set_state(last);
    Err(Refused(format!(
        "{refused}; the state went back to its last good values"
    )))
}

/// Gives `sim` the inputs of `written` that differ from `last`; a refused one (not finite)
/// goes back to its last value.
pub fn apply_inputs(sim: &mut Simulation, written: &[f64], last: &[f64]) -> Result<(), Refused> {
    for (index, (&value, &previous)) in written.iter().zip(last).enumerate() {
        if differ(value, previous) {
            if let Err(e) = sim.set_input(index, value) {
                let _ = sim.set_input(index, previous);
                return Err(Refused(format!(
                    "ctrl[{index}] = {value}: {e:#}; it went back to {previous}"
                )));
            }
        }
    }
    Ok(())
}

/// Every sensor's channels at `sim`'s state into `row` (cleared first).
pub fn sample(sim: &Simulation, row: &mut Vec<f64>) {
    row.clear();
    for sensor in &sim.labels.sensors {
        sensor.sample(sim.rigid(), sim.flexible(), row);
    }
}

/// `qpos[i]` or `qvel[i − nq]`.
fn slot_name(i: usize, nq: usize) -> String {
    match i.checked_sub(nq) {
        None => format!("qpos[{i}]"),
        Some(k) => format!("qvel[{k}]"),
    }
}

/// The record of one Data's simulation: the state and inputs the last call left (its views
/// are the simulation's own buffers), and the sensor values there.
pub struct Synced {
    state: Vec<f64>,
    inputs: Vec<f64>,
    /// Sensor channels at that state (what `sensordata` views).
    pub sensors: Box<[f64]>,
    /// Scratch row the sensors append to.
    row: Vec<f64>,
}

impl Synced {
    /// The record of `sim` as it is.
    pub fn new(sim: &Simulation) -> Self {
        let mut row = Vec::new();
        sample(sim, &mut row);
        Self {
            state: sim.state().to_vec(),
            inputs: sim.inputs().to_vec(),
            sensors: row.clone().into_boxed_slice(),
            row,
        }
    }

    /// Hands writes made into the views of `sim`'s state and inputs since the last call to the
    /// simulation (see [`apply_state`], [`apply_inputs`]).
    pub fn take_writes(&mut self, sim: &mut Simulation, nq: usize) -> Result<(), Refused> {
        if changed(sim.state(), &self.state) {
            let written = sim.state().to_vec();
            apply_state(sim, &written, &self.state, nq)?;
            self.state.copy_from_slice(sim.state());
        }
        if changed(sim.inputs(), &self.inputs) {
            let written = sim.inputs().to_vec();
            apply_inputs(sim, &written, &self.inputs)?;
            self.inputs.copy_from_slice(sim.inputs());
        }
        Ok(())
    }

    /// Records `sim` after steps: its state, inputs and sensor values.
    pub fn record(&mut self, sim: &Simulation) {
        self.state.copy_from_slice(sim.state());
        self.inputs.copy_from_slice(sim.inputs());
        self.refresh_sensors(sim);
    }

    /// Samples the sensors into [`Synced::sensors`] (in place: its address stays).
    pub fn refresh_sensors(&mut self, sim: &Simulation) {
        sample(sim, &mut self.row);
        self.sensors.copy_from_slice(&self.row);
    }
}
