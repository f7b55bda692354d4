//! # hil — a hardware-in-the-loop plant loop over embedded-hal 1.0
//!
//! Every period (1 kHz in the examples) the loop reads the actuator command (a torque) from an
//! SPI device, feeds it to a simulated [`Plant`], steps the plant once, and writes the simulated
//! sensors (encoder angle and velocity) to a second SPI device. It is generic over the
//! embedded-hal traits, so the same code runs on a microcontroller and, against
//! embedded-hal-mock, in host unit tests.
//!
//! ## Wire format (big-endian)
//! - command frame, read: `i32` torque in µN·m (4 bytes);
//! - sensor frame, written: `i32` angle in µrad, `i32` angular velocity in µrad/s (8 bytes),
//!   quantized toward zero and saturated to the `i32` range.
//!
//! ## Timing and declared overrun policy
//! Releases sit on a fixed grid `t0 + k·period`. A period overruns when its work ends after the
//! next release. Every overrun is counted, then [`OverrunPolicy`] decides:
//! - [`OverrunPolicy::Skip`]: releases already due are dropped; the loop resumes at the next
//!   grid point after now. Plant time falls behind wall time by the skipped periods.
//! - [`OverrunPolicy::Hold`]: releases already due are run back to back with the last command
//!   held (no bus read), so plant time stays locked to wall time.
//! - [`OverrunPolicy::Fault`]: the loop enters the safe state.
//!
//! ## Watchdog and safe state
//! A plant error, a non-finite sensor value or a sensor beyond its divergence limit trips the
//! watchdog: the fault pin goes high (drive disabled), a last sensor frame is written with the
//! last good angle and zero velocity, and the loop stops stepping (the fault latches).
#![no_std]

use embedded_hal::digital::OutputPin;
use embedded_hal::spi::SpiDevice;

/// A monotonic clock in microseconds (a hardware timer on the MCU, a fake in tests).
pub trait Monotonic {
    /// Microseconds since an arbitrary origin; never decreases.
    fn now_us(&mut self) -> u64;
}

/// Simulated sensor values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Sensors {
    /// Encoder angle (rad).
    pub angle: f32,
    /// Encoder angular velocity (rad/s).
    pub velocity: f32,
}

/// The simulated plant the loop drives.
pub trait Plant {
    /// What stepping can fail with.
    type Error;
    /// Sets the actuator torque (N·m) for the next step.
    fn set_torque(&mut self, torque: f32) -> Result<(), Self::Error>;
    /// Advances the plant by one period.
    fn step(&mut self) -> Result<(), Self::Error>;
    /// Current sensor values.
    fn sensors(&self) -> Sensors;
}

/// What to do when a period's work ends after the next release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OverrunPolicy {
    /// Drop the releases already due; plant time falls behind.
    Skip,
    /// Run the releases already due back to back with the held command.
    Hold,
    /// Enter the safe state.
    Fault,
}

/// Why the loop entered the safe state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FaultReason {
    /// The plant returned an error (e.g. a kernel error from its step).
    Plant,
    /// A sensor value was NaN or infinite.
    NonFinite,
    /// A sensor value exceeded its divergence limit.
    Divergence,
    /// A deadline was missed under [`OverrunPolicy::Fault`].
    Overrun,
}

/// Loop settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Period (µs), > 0.
    pub period_us: u32,
    /// Overrun policy.
    pub policy: OverrunPolicy,
    /// Commands are clamped to ±this torque (N·m).
    pub torque_limit: f32,
    /// |angle| above this (rad) trips the divergence watchdog.
    pub angle_limit: f32,
    /// |velocity| above this (rad/s) trips the divergence watchdog.
    pub velocity_limit: f32,
}

/// Counters kept by the loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Counters {
    /// Plant steps taken.
    pub steps: u64,
    /// Periods whose work ended after the next release.
    pub overruns: u32,
    /// Releases dropped under [`OverrunPolicy::Skip`].
    pub skipped: u32,
    /// Periods run back to back with the held command under [`OverrunPolicy::Hold`].
    pub held: u32,
    /// Failed bus transfers (a failed command read keeps the last command).
    pub bus_errors: u32,
    /// Longest time from release to end of work (µs).
    pub worst_latency_us: u64,
}

/// What one call of [`HilLoop::run_period`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Outcome {
    /// The plant was stepped and the sensors written.
    Stepped,
    /// The loop is in the safe state.
    Faulted(FaultReason),
}

/// The HIL loop: plant, command port, sensor port, fault pin, clock.
pub struct HilLoop<P, Cmd, Enc, Pin, Clk> {
    config: Config,
    plant: P,
    command_port: Cmd,
    sensor_port: Enc,
    fault_pin: Pin,
    clock: Clk,
    next_release: u64,
    command: f32,
    catch_up: u32,
    last_good: Sensors,
    fault: Option<FaultReason>,
    counters: Counters,
}

/// Decodes a command frame: torque in N·m.
pub fn decode_command(frame: [u8; 4]) -> f32 {
    i32::from_be_bytes(frame) as f32 * 1e-6
}

/// Encodes a sensor frame (µrad, µrad/s; toward zero, saturated; NaN gives 0).
pub fn encode_sensors(s: Sensors) -> [u8; 8] {
    let angle = (s.angle * 1e6) as i32;
    let velocity = (s.velocity * 1e6) as i32;
    let mut frame = [0; 8];
    frame[..4].copy_from_slice(&angle.to_be_bytes());
    frame[4..].copy_from_slice(&velocity.to_be_bytes());
    frame
}

impl<P, Cmd, Enc, Pin, Clk> HilLoop<P, Cmd, Enc, Pin, Clk>
where
    P: Plant,
    Cmd: SpiDevice,
    Enc: SpiDevice,
    Pin: OutputPin,
    Clk: Monotonic,
{
    /// Starts the loop: fault pin low (drive enabled), first release now.
    pub fn new(
        config: Config,
        plant: P,
        command_port: Cmd,
        sensor_port: Enc,
        mut fault_pin: Pin,
        mut clock: Clk,
    ) -> Self {
        let mut counters = Counters::default();
        if fault_pin.set_low().is_err() {
            counters.bus_errors += 1;
        }
        let next_release = clock.now_us();
        let last_good = plant.sensors();
        Self {
            config,
            plant,
            command_port,
            sensor_port,
            fault_pin,
            clock,
            next_release,
            command: 0.0,
            catch_up: 0,
            last_good,
            fault: None,
            counters,
        }
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }
    /// The latched fault, if any.
    pub fn fault(&self) -> Option<FaultReason> {
        self.fault
    }
    /// The plant.
    pub fn plant(&self) -> &P {
        &self.plant
    }
    /// The last command applied (N·m, after clamping).
    pub fn command(&self) -> f32 {
        self.command
    }
    /// Releases the devices and the plant.
    pub fn release(self) -> (P, Cmd, Enc, Pin, Clk) {
        (
            self.plant,
            self.command_port,
            self.sensor_port,
            self.fault_pin,
            self.clock,
        )
    }

    /// Waits for the next release, then reads the command, steps the plant and writes the
    /// sensors; applies the overrun policy and the watchdog.
    pub fn run_period(&mut self) -> Outcome {
        if let Some(reason) = self.fault {
            return Outcome::Faulted(reason);
        }
        let release = self.next_release;
        while self.clock.now_us() < release {}
        if self.catch_up > 0 {
            self.catch_up -= 1;
            self.counters.held += 1;
        } else {
            let mut frame = [0u8; 4];
            match self.command_port.read(&mut frame) {
                Ok(()) => self.command = self.clamp(decode_command(frame)),
                Err(_) => self.counters.bus_errors += 1,
            }
        }
        if self.plant.set_torque(self.command).is_err() || self.plant.step().is_err() {
            return self.trip(FaultReason::Plant);
        }
        self.counters.steps += 1;
        let s = self.plant.sensors();
        if !s.angle.is_finite() || !s.velocity.is_finite() {
            return self.trip(FaultReason::NonFinite);
        }
        if s.angle.abs() > self.config.angle_limit || s.velocity.abs() > self.config.velocity_limit {
            return self.trip(FaultReason::Divergence);
        }
        self.last_good = s;
        if self.sensor_port.write(&encode_sensors(s)).is_err() {
            self.counters.bus_errors += 1;
        }
        let end = self.clock.now_us();
        let period = u64::from(self.config.period_us.max(1));
        let latency = end.saturating_sub(release);
        self.counters.worst_latency_us = self.counters.worst_latency_us.max(latency);
        self.next_release = release + period;
        if end > self.next_release {
            self.counters.overruns += 1;
            // Releases at release + k·period, k = 1..=due, are already past.
            let due = latency / period;
            #[cfg(feature = "defmt")]
            defmt::warn!("hil: overrun, latency {} us, {} releases due", latency, due);
            match self.config.policy {
                OverrunPolicy::Skip => {
                    self.counters.skipped += due as u32;
                    self.next_release = release + period * (due + 1);
                }
                // The grid is kept: the releases already due run next, without waiting. (A
                // held period that overruns again recounts the releases still due.)
                OverrunPolicy::Hold => self.catch_up = due as u32,
                OverrunPolicy::Fault => return self.trip(FaultReason::Overrun),
            }
        }
        Outcome::Stepped
    }

    fn clamp(&self, torque: f32) -> f32 {
        let limit = self.config.torque_limit;
        if torque.is_nan() {
            0.0
        } else {
            torque.clamp(-limit, limit)
        }
    }

    /// Enters the safe state: fault pin high, last good angle with zero velocity, stop.
    fn trip(&mut self, reason: FaultReason) -> Outcome {
        #[cfg(feature = "defmt")]
        defmt::error!("hil: safe state, {}", reason);
        self.fault = Some(reason);
        self.command = 0.0;
        if self.fault_pin.set_high().is_err() {
            self.counters.bus_errors += 1;
        }
        let safe = Sensors {
            angle: self.last_good.angle,
            velocity: 0.0,
        };
        if self.sensor_port.write(&encode_sensors(safe)).is_err() {
            self.counters.bus_errors += 1;
        }
        Outcome::Faulted(reason)
    }
}

#[cfg(test)]
mod tests;

impl<T: Monotonic + ?Sized> Monotonic for &mut T {
    fn now_us(&mut self) -> u64 {
        (**self).now_us()
    }
}
