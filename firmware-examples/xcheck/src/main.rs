//! Host side of the bit-exact cross-check: runs the firmware's scenarios (the same `plant`
//! code) on this machine and prints the same `HASH` lines as `chain-fw` and `hil-fw`.
use hil::OverrunPolicy;
use plant::rig::{config, VirtualClock};
use plant::{run_hil, NoHooks, Room, HIL_PERIODS, SCENARIOS};

fn main() {
    let mut ok = true;
    let mut room = Box::new(Room::Vacant);
    for scenario in SCENARIOS.iter().chain(&scene_plant::SCENARIOS) {
        match (scenario.run)(&mut room, &mut NoHooks) {
            Ok(r) => println!(
                "HASH {} steps={} trajectory={:016x} final={:016x}",
                scenario.name, r.steps, r.trajectory.0, r.final_state.0
            ),
            Err(e) => {
                ok = false;
                println!("ERROR {}: {e:?}", scenario.name);
            }
        }
    }
    match run_hil(
        config(OverrunPolicy::Skip),
        VirtualClock::new(100),
        HIL_PERIODS,
        &mut NoHooks,
    ) {
        Ok(r) => println!(
            "HASH hil-arm f32 steps={} trajectory={:016x} final={:016x}",
            r.report.steps, r.report.trajectory.0, r.report.final_state.0
        ),
        Err(e) => {
            ok = false;
            println!("ERROR hil-arm: {e:?}");
        }
    }
    let scene = scene_plant::run_scene_hil(
        config(OverrunPolicy::Skip),
        VirtualClock::new(100),
        HIL_PERIODS,
        &mut NoHooks,
    );
    match scene {
        Ok(r) => println!(
            "HASH scene:hil_arm f32 HIL steps={} trajectory={:016x} final={:016x}",
            r.report.steps, r.report.trajectory.0, r.report.final_state.0
        ),
        Err(e) => {
            ok = false;
            println!("ERROR scene:hil_arm HIL: {e:?}");
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
