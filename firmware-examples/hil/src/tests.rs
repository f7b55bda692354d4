//! Host unit tests of the HIL loop against embedded-hal-mock devices, a scripted clock and a
//! scripted plant. Reference: the wire format, timing policy and watchdog stated in the crate
//! docs.
extern crate std;

use super::*;
use embedded_hal::spi::{ErrorKind, ErrorType, Operation};
use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as Pin};
use embedded_hal_mock::eh1::spi::{Mock as SpiMock, Transaction as Spi};
use std::collections::VecDeque;
use std::vec;
use std::vec::Vec;

/// A plant whose sensors are simple functions of the torques it saw: each step adds half the
/// torque to the angle and sets the velocity to the torque. Can be told to fail.
#[derive(Default)]
struct TestPlant {
    torque: f32,
    angle: f32,
    velocity: f32,
    torques: Vec<f32>,
    nan_at_step: Option<usize>,
    error_at_step: Option<usize>,
}

impl Plant for TestPlant {
    type Error = ();
    fn set_torque(&mut self, torque: f32) -> Result<(), ()> {
        self.torque = torque;
        Ok(())
    }
    fn step(&mut self) -> Result<(), ()> {
        self.torques.push(self.torque);
        let n = self.torques.len();
        if self.error_at_step == Some(n) {
            return Err(());
        }
        self.angle += 0.5 * self.torque;
        self.velocity = if self.nan_at_step == Some(n) {
            f32::NAN
        } else {
            self.torque
        };
        Ok(())
    }
    fn sensors(&self) -> Sensors {
        Sensors {
            angle: self.angle,
            velocity: self.velocity,
        }
    }
}

/// A clock returning scripted readings (µs), then repeating the last one.
struct Script(VecDeque<u64>, u64);
impl Script {
    fn new(times: &[u64]) -> Self {
        Self(times.iter().copied().collect(), 0)
    }
}
impl Monotonic for Script {
    fn now_us(&mut self) -> u64 {
        if let Some(t) = self.0.pop_front() {
            self.1 = t;
        }
        self.1
    }
}

/// A command port whose transfers all fail.
struct BrokenPort;
impl ErrorType for BrokenPort {
    type Error = ErrorKind;
}
impl SpiDevice for BrokenPort {
    fn transaction(&mut self, _: &mut [Operation<'_, u8>]) -> Result<(), ErrorKind> {
        Err(ErrorKind::Other)
    }
}

fn config(policy: OverrunPolicy) -> Config {
    Config {
        period_us: 1000,
        policy,
        torque_limit: 4.0,
        angle_limit: 10.0,
        velocity_limit: 20.0,
    }
}

/// Command read of `torque_unm` µN·m.
fn read(torque_unm: i32) -> Vec<Spi<u8>> {
    vec![
        Spi::transaction_start(),
        Spi::read_vec(torque_unm.to_be_bytes().to_vec()),
        Spi::transaction_end(),
    ]
}

/// Sensor frame write of (µrad, µrad/s).
fn write(angle: i32, velocity: i32) -> Vec<Spi<u8>> {
    let mut frame = angle.to_be_bytes().to_vec();
    frame.extend_from_slice(&velocity.to_be_bytes());
    vec![
        Spi::transaction_start(),
        Spi::write_vec(frame),
        Spi::transaction_end(),
    ]
}

type Loop = HilLoop<TestPlant, SpiMock<u8>, SpiMock<u8>, PinMock, Script>;

fn start(
    plant: TestPlant,
    policy: OverrunPolicy,
    commands: &[Vec<Spi<u8>>],
    frames: &[Vec<Spi<u8>>],
    pin: &[Pin],
    clock: &[u64],
) -> Loop {
    let commands = SpiMock::new(&commands.concat());
    let frames = SpiMock::new(&frames.concat());
    HilLoop::new(
        config(policy),
        plant,
        commands,
        frames,
        PinMock::new(pin),
        Script::new(clock),
    )
}

fn finish(l: Loop) -> TestPlant {
    let (plant, mut commands, mut frames, mut pin, _) = l.release();
    commands.done();
    frames.done();
    pin.done();
    plant
}

#[test]
fn a_period_reads_the_command_steps_the_plant_and_writes_the_sensors() {
    // 1.5 N·m → angle 0.75 rad, velocity 1.5 rad/s → frame (750000 µrad, 1500000 µrad/s).
    let mut l = start(
        TestPlant::default(),
        OverrunPolicy::Skip,
        &[read(1_500_000)],
        &[write(750_000, 1_500_000)],
        &[Pin::set(State::Low)],
        &[0, 0, 300],
    );
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().steps, 1);
    assert_eq!(l.counters().worst_latency_us, 300);
    assert_eq!(l.counters().overruns, 0);
    assert_eq!(finish(l).torques, [1.5]);
}

#[test]
fn the_loop_waits_for_the_next_release() {
    // Release grid 0, 1000: the second period polls the clock until 1000.
    let mut l = start(
        TestPlant::default(),
        OverrunPolicy::Skip,
        &[read(1_000_000), read(1_000_000)],
        &[write(500_000, 1_000_000), write(1_000_000, 1_000_000)],
        &[Pin::set(State::Low)],
        &[0, 0, 200, 400, 999, 1000, 1250],
    );
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().worst_latency_us, 250);
    assert_eq!(finish(l).torques, [1.0, 1.0]);
}

#[test]
fn commands_are_clamped_to_the_torque_limit() {
    let mut l = start(
        TestPlant::default(),
        OverrunPolicy::Skip,
        &[read(-9_000_000)],
        &[write(-2_000_000, -4_000_000)],
        &[Pin::set(State::Low)],
        &[0, 0, 100],
    );
    l.run_period();
    assert_eq!(finish(l).torques, [-4.0]);
}

#[test]
fn a_failed_command_read_keeps_the_last_command_and_is_counted() {
    let plant = TestPlant::default();
    let frames = SpiMock::new(&[write(0, 0), write(0, 0)].concat());
    let mut l = HilLoop::new(
        config(OverrunPolicy::Skip),
        plant,
        BrokenPort,
        frames,
        PinMock::new(&[Pin::set(State::Low)]),
        Script::new(&[0, 0, 100, 1000, 1100]),
    );
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().bus_errors, 2);
    let (plant, _, mut frames, mut pin, _) = l.release();
    frames.done();
    pin.done();
    assert_eq!(plant.torques, [0.0, 0.0]);
}

#[test]
fn a_non_finite_sensor_trips_the_watchdog_into_the_safe_state() {
    // Period 1 fine (angle 0.5 rad); period 2 the velocity is NaN: fault pin high, a safe
    // frame with the last good angle and zero velocity; afterwards no bus traffic at all.
    let plant = TestPlant {
        nan_at_step: Some(2),
        ..TestPlant::default()
    };
    let mut l = start(
        plant,
        OverrunPolicy::Skip,
        &[read(1_000_000), read(1_000_000)],
        &[write(500_000, 1_000_000), write(500_000, 0)],
        &[Pin::set(State::Low), Pin::set(State::High)],
        &[0, 0, 100, 1000],
    );
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.run_period(), Outcome::Faulted(FaultReason::NonFinite));
    assert_eq!(l.run_period(), Outcome::Faulted(FaultReason::NonFinite));
    assert_eq!(l.fault(), Some(FaultReason::NonFinite));
    assert_eq!(l.command(), 0.0);
    assert_eq!(finish(l).torques.len(), 2);
}

#[test]
fn divergence_beyond_the_limit_trips_the_watchdog() {
    let mut c = config(OverrunPolicy::Skip);
    c.velocity_limit = 1.0;
    let commands = SpiMock::new(&read(2_000_000));
    let frames = SpiMock::new(&write(0, 0));
    let pin = PinMock::new(&[Pin::set(State::Low), Pin::set(State::High)]);
    let mut l = HilLoop::new(
        c,
        TestPlant::default(),
        commands,
        frames,
        pin,
        Script::new(&[0, 0]),
    );
    assert_eq!(l.run_period(), Outcome::Faulted(FaultReason::Divergence));
    finish(l);
}

#[test]
fn a_plant_error_trips_the_watchdog() {
    let plant = TestPlant {
        error_at_step: Some(1),
        ..TestPlant::default()
    };
    let mut l = start(
        plant,
        OverrunPolicy::Skip,
        &[read(1_000_000)],
        &[write(0, 0)],
        &[Pin::set(State::Low), Pin::set(State::High)],
        &[0, 0],
    );
    assert_eq!(l.run_period(), Outcome::Faulted(FaultReason::Plant));
    finish(l);
}

#[test]
fn an_overrun_under_skip_drops_the_releases_already_due() {
    // Period 1 released at 0 ends at 2500: releases 1000 and 2000 are past → 2 skipped, the
    // next period waits for 3000.
    let mut l = start(
        TestPlant::default(),
        OverrunPolicy::Skip,
        &[read(1_000_000), read(1_000_000)],
        &[write(500_000, 1_000_000), write(1_000_000, 1_000_000)],
        &[Pin::set(State::Low)],
        &[0, 0, 2500, 2600, 2999, 3000, 3100],
    );
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().overruns, 1);
    assert_eq!(l.counters().skipped, 2);
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().overruns, 1);
    assert_eq!(l.counters().worst_latency_us, 2500);
    assert_eq!(finish(l).torques, [1.0, 1.0]);
}

#[test]
fn an_overrun_under_hold_runs_the_due_release_with_the_held_command() {
    // Period 1 ends at 1500: release 1000 is due and runs at once without a bus read, with the
    // held command; the grid is kept, so period 3 waits for 2000 and reads again.
    let mut l = start(
        TestPlant::default(),
        OverrunPolicy::Hold,
        &[read(1_000_000), read(-1_000_000)],
        &[
            write(500_000, 1_000_000),
            write(1_000_000, 1_000_000),
            write(500_000, -1_000_000),
        ],
        &[Pin::set(State::Low)],
        &[0, 0, 1500, 1500, 1600, 1700, 2000, 2100],
    );
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!((l.counters().overruns, l.counters().held), (1, 0));
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().held, 1);
    assert_eq!(l.run_period(), Outcome::Stepped);
    assert_eq!(l.counters().overruns, 1);
    assert_eq!(finish(l).torques, [1.0, 1.0, -1.0]);
}

#[test]
fn an_overrun_under_fault_enters_the_safe_state() {
    let mut l = start(
        TestPlant::default(),
        OverrunPolicy::Fault,
        &[read(1_000_000)],
        &[write(500_000, 1_000_000), write(500_000, 0)],
        &[Pin::set(State::Low), Pin::set(State::High)],
        &[0, 0, 1001],
    );
    assert_eq!(l.run_period(), Outcome::Faulted(FaultReason::Overrun));
    assert_eq!(l.counters().overruns, 1);
    finish(l);
}

#[test]
fn sensor_frames_truncate_toward_zero_and_saturate() {
    let frame = |angle, velocity| encode_sensors(Sensors { angle, velocity });
    assert_eq!(
        frame(-0.5, 0.25),
        [(-500_000i32).to_be_bytes(), 250_000i32.to_be_bytes()].concat()[..]
    );
    assert_eq!(
        frame(1e10, -1e10),
        [i32::MAX.to_be_bytes(), i32::MIN.to_be_bytes()].concat()[..]
    );
    assert_eq!(frame(f32::NAN, 0.0), [0u8; 8]);
    assert_eq!(decode_command(2_500_000i32.to_be_bytes()), 2.5);
}
