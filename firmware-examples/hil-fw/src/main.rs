//! HIL plant firmware: the f32 arm in the embedded-hal HIL loop at 1 kHz against the emulated
//! rig controller.
//!
//! 1. measured run: a virtual clock (no waiting), instruction-count markers around every
//!    period's work (read command, step, write sensors); prints the hashes `xcheck` compares;
//!    then the same with the arm exported from `scenes/hil_arm.toml` (scene-plant), through its
//!    input and output ports;
//! 2. real-time run: SysTick clock, policy Skip; must give the same hashes and no overrun;
//! 3. overrun demo: a 20 µs period the cycle (about 40 µs in QEMU virtual time) cannot meet,
//!    under Skip, Hold and Fault;
//! 4. watchdog demo: a velocity limit the motion exceeds: safe state.
#![no_std]
#![no_main]

#[cfg(feature = "defmt")]
use defmt_semihosting as _;

use board::{println, SysTickClock};
use cortex_m_rt::entry;
use hil::{Outcome, OverrunPolicy};
use plant::rig::{config, VirtualClock};
use plant::{run_hil, HilReport, NoHooks, HIL_PERIODS};

fn show(phase: &str, r: &HilReport) {
    let c = r.counters;
    println!(
        "HIL {}: steps={} frames={} overruns={} skipped={} held={} bus_errors={} worst_latency_us={} fault={:?} fault_line={} last_frame={:?}",
        phase, c.steps, r.frames, c.overruns, c.skipped, c.held, c.bus_errors, c.worst_latency_us, r.fault, r.fault_line, r.sensors
    );
}

#[entry]
fn main() -> ! {
    board::paint_stack();
    board::report_part();
    let peripherals = cortex_m::Peripherals::take();
    let Some(p) = peripherals else { board::exit(false) };
    let mut clock = SysTickClock::start(p.SYST);
    let mut ok = true;

    println!("SECTION 0 hil-arm f32 cycle");
    let measured = run_hil(
        config(OverrunPolicy::Skip),
        VirtualClock::new(100),
        HIL_PERIODS,
        &mut board::StepMarkers,
    );
    board::mark_section();
    let Ok(measured) = measured else {
        board::exit(false)
    };
    println!(
        "HASH hil-arm f32 steps={} trajectory={:016x} final={:016x}",
        measured.report.steps, measured.report.trajectory.0, measured.report.final_state.0
    );
    show("measured", &measured);
    ok &= measured.fault.is_none() && measured.counters.overruns == 0;

    // The same loop with the arm exported from scenes/hil_arm.toml, through its ports.
    println!("SECTION 1 scene:hil_arm f32 HIL cycle");
    let scene = scene_plant::run_scene_hil(
        config(OverrunPolicy::Skip),
        VirtualClock::new(100),
        HIL_PERIODS,
        &mut board::StepMarkers,
    );
    board::mark_section();
    let Ok(scene) = scene else { board::exit(false) };
    println!(
        "HASH scene:hil_arm f32 HIL steps={} trajectory={:016x} final={:016x}",
        scene.report.steps, scene.report.trajectory.0, scene.report.final_state.0
    );
    show("scene:hil_arm measured", &scene);
    ok &= scene.fault.is_none() && scene.counters.overruns == 0;

    let Ok(real) = run_hil(config(OverrunPolicy::Skip), &mut clock, HIL_PERIODS, &mut NoHooks) else {
        board::exit(false)
    };
    show("real-time 1 kHz", &real);
    ok &= real.report == measured.report && real.counters.overruns == 0;
    println!(
        "HIL real-time hashes equal to measured run: {}",
        real.report == measured.report
    );

    for policy in [OverrunPolicy::Skip, OverrunPolicy::Hold, OverrunPolicy::Fault] {
        let mut tight = config(policy);
        tight.period_us = 20;
        let Ok(r) = run_hil(tight, &mut clock, 50, &mut NoHooks) else {
            board::exit(false)
        };
        show(
            match policy {
                OverrunPolicy::Skip => "overrun demo 20 us, Skip",
                OverrunPolicy::Hold => "overrun demo 20 us, Hold",
                OverrunPolicy::Fault => "overrun demo 20 us, Fault",
            },
            &r,
        );
        ok &= r.counters.overruns > 0;
        ok &= match policy {
            OverrunPolicy::Skip => r.counters.skipped > 0 && r.fault.is_none(),
            OverrunPolicy::Hold => r.counters.held > 0 && r.fault.is_none(),
            OverrunPolicy::Fault => r.fault == Some(hil::FaultReason::Overrun) && r.fault_line,
        };
    }

    let mut strict = config(OverrunPolicy::Skip);
    strict.velocity_limit = 1.0;
    let Ok(r) = run_hil(strict, &mut clock, HIL_PERIODS, &mut NoHooks) else {
        board::exit(false)
    };
    show("watchdog demo |w| > 1 rad/s", &r);
    ok &= r.fault == Some(hil::FaultReason::Divergence) && r.fault_line && r.sensors.1 == 0;
    let _ = Outcome::Stepped;

    board::report_memory("hil-fw", board::peak_stack());
    println!("HIL checks passed: {}", ok);
    board::exit(ok)
}
