//! Named ports of a model exported for a microcontroller (`ferrodyn export rust`): what the
//! rig writes (actuator inputs) and reads (sensor outputs) every period, with units and scale.

/// One input or output channel.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Port {
    /// Name (the scene's input name, or sensor name and channel).
    pub name: &'static str,
    /// SI unit of the physical value ("N·m", "N", "m", "m/s", "rad", "rad/s").
    pub unit: &'static str,
    /// SI units per port unit: physical value = port value × scale.
    pub scale: f64,
}
