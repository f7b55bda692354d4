//! Chain and beam plant firmware: steps the shared scenarios (5-link chain, 6-tet ANCF beam;
//! f32 and f64) on the Cortex-M4F and prints, per scenario, the hashes of every step's state and
//! of the final state. `xcheck` prints the same lines on the host; CI compares them. Every step
//! is wrapped in instruction-count markers, every scenario closes a section and
//! reports its own peak stack (the stack is painted again before each).
#![no_std]
#![no_main]

use board::println;
use cortex_m_rt::entry;
use plant::Room;
use static_cell::StaticCell;

/// Where the large models are built, one scenario at a time: static RAM (in .bss, sized by the
/// linker), not stack. Not a `ConstStaticCell`: its initial value would be stored in flash.
static ROOM: StaticCell<Room> = StaticCell::new();

#[entry]
fn main() -> ! {
    board::paint_stack();
    board::report_part();
    let room = ROOM.init_with(|| Room::Vacant);
    let mut ok = true;
    let mut peak = board::peak_stack();
    for (index, scenario) in plant::SCENARIOS.iter().chain(&scene_plant::SCENARIOS).enumerate() {
        println!("SECTION {} {}", index, scenario.name);
        board::paint_stack();
        let result = (scenario.run)(room, &mut board::StepMarkers);
        board::mark_section();
        let stack = board::peak_stack();
        peak = peak.max(stack);
        println!("STACK {} {} B", scenario.name, stack);
        match result {
            Ok(r) => {
                println!(
                    "HASH {} steps={} trajectory={:016x} final={:016x}",
                    scenario.name, r.steps, r.trajectory.0, r.final_state.0
                );
                println!(
                    "SIZE {} model={} B data={} B",
                    scenario.name, r.bytes.0, r.bytes.1
                );
            }
            Err(e) => {
                ok = false;
                println!("ERROR {}: {:?}", scenario.name, e);
            }
        }
    }
    board::report_memory("chain-fw", peak);
    board::exit(ok)
}
