//! The other side of the HIL bus, emulated: a rig controller that answers command reads and
//! takes sensor frames (embedded-hal `SpiDevice`s), and a fault pin. The firmware under QEMU
//! and the host cross-check plug the same rig into the same [`hil::HilLoop`].
//!
//! The controller is a PD position loop in integer µ-units (bit-exact everywhere):
//! τ [µN·m] = KP·(θ_ref − θ) − KD·ω, saturated to ±[`TORQUE_LIMIT_UNM`], with θ_ref = 0.5 rad
//! for the first [`REFERENCE_SWITCH`] periods and −0.3 rad afterwards.

use core::cell::Cell;
use core::convert::Infallible;
use embedded_hal::digital::{ErrorType as PinErrorType, OutputPin};
use embedded_hal::spi::{ErrorType, Operation, SpiDevice};
use hil::{Config, Monotonic, OverrunPolicy};

/// Proportional gain: µN·m per µrad (= N·m/rad).
pub const KP: i64 = 20;
/// Derivative gain: µN·m per µrad/s (= N·m·s/rad).
pub const KD: i64 = 2;
/// Saturation of the controller's command (µN·m).
pub const TORQUE_LIMIT_UNM: i64 = 5_000_000;
/// Period after which the reference switches.
pub const REFERENCE_SWITCH: u32 = 500;

/// The HIL loop settings of the examples: 1 kHz, limits well above the controlled motion.
pub fn config(policy: OverrunPolicy) -> Config {
    Config {
        period_us: 1000,
        policy,
        torque_limit: 4.0,
        angle_limit: 3.0,
        velocity_limit: 50.0,
    }
}

/// Shared state of the emulated rig.
#[derive(Debug, Default)]
pub struct Rig {
    angle_urad: Cell<i32>,
    velocity_urad_s: Cell<i32>,
    frames: Cell<u32>,
    fault: Cell<bool>,
}

impl Rig {
    /// A rig at rest.
    pub const fn new() -> Self {
        Self {
            angle_urad: Cell::new(0),
            velocity_urad_s: Cell::new(0),
            frames: Cell::new(0),
            fault: Cell::new(false),
        }
    }
    /// The controller's current command (µN·m).
    pub fn command_unm(&self) -> i32 {
        let reference: i64 = if self.frames.get() < REFERENCE_SWITCH {
            500_000
        } else {
            -300_000
        };
        let angle = i64::from(self.angle_urad.get());
        let velocity = i64::from(self.velocity_urad_s.get());
        let torque = KP * (reference - angle) - KD * velocity;
        torque.clamp(-TORQUE_LIMIT_UNM, TORQUE_LIMIT_UNM) as i32
    }
    /// Last sensor frame received: angle (µrad), velocity (µrad/s).
    pub fn sensors(&self) -> (i32, i32) {
        (self.angle_urad.get(), self.velocity_urad_s.get())
    }
    /// Sensor frames received.
    pub fn frames(&self) -> u32 {
        self.frames.get()
    }
    /// Whether the fault line is high.
    pub fn fault_line(&self) -> bool {
        self.fault.get()
    }
    /// The port the loop reads commands from.
    pub fn command_port(&self) -> CommandPort<'_> {
        CommandPort(self)
    }
    /// The port the loop writes sensor frames to.
    pub fn sensor_port(&self) -> SensorPort<'_> {
        SensorPort(self)
    }
    /// The fault line.
    pub fn fault_pin(&self) -> FaultPin<'_> {
        FaultPin(self)
    }
}

/// Command reads: every read gets the controller's current command frame.
pub struct CommandPort<'a>(&'a Rig);
/// Sensor writes: 8-byte frames update the controller's measurement.
pub struct SensorPort<'a>(&'a Rig);
/// The fault line.
pub struct FaultPin<'a>(&'a Rig);

impl ErrorType for CommandPort<'_> {
    type Error = Infallible;
}
impl SpiDevice for CommandPort<'_> {
    fn transaction(&mut self, operations: &mut [Operation<'_, u8>]) -> Result<(), Infallible> {
        let frame = self.0.command_unm().to_be_bytes();
        for op in operations {
            if let Operation::Read(buf) | Operation::Transfer(buf, _) | Operation::TransferInPlace(buf) = op {
                for (slot, byte) in buf.iter_mut().zip(frame.iter().chain(core::iter::repeat(&0))) {
                    *slot = *byte;
                }
            }
        }
        Ok(())
    }
}

impl ErrorType for SensorPort<'_> {
    type Error = Infallible;
}
impl SpiDevice for SensorPort<'_> {
    fn transaction(&mut self, operations: &mut [Operation<'_, u8>]) -> Result<(), Infallible> {
        for op in operations {
            if let Operation::Write(&[a0, a1, a2, a3, v0, v1, v2, v3]) = op {
                self.0.angle_urad.set(i32::from_be_bytes([a0, a1, a2, a3]));
                self.0.velocity_urad_s.set(i32::from_be_bytes([v0, v1, v2, v3]));
                self.0.frames.set(self.0.frames.get() + 1);
            }
        }
        Ok(())
    }
}

impl PinErrorType for FaultPin<'_> {
    type Error = Infallible;
}
impl OutputPin for FaultPin<'_> {
    fn set_low(&mut self) -> Result<(), Infallible> {
        self.0.fault.set(false);
        Ok(())
    }
    fn set_high(&mut self) -> Result<(), Infallible> {
        self.0.fault.set(true);
        Ok(())
    }
}

/// A virtual clock for the host: every reading advances it by `tick_us`, so a period's work
/// (two readings) never overruns a 1 ms period while `tick_us` < 500.
pub struct VirtualClock {
    now: u64,
    tick_us: u64,
}

impl VirtualClock {
    /// A clock at 0 advancing `tick_us` per reading.
    pub const fn new(tick_us: u64) -> Self {
        Self { now: 0, tick_us }
    }
}

impl Monotonic for VirtualClock {
    fn now_us(&mut self) -> u64 {
        self.now += self.tick_us;
        self.now
    }
}
