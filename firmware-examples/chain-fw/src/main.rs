//! Chain and beam plant firmware: steps the shared scenarios (5-link chain, 6-tet ANCF beam;
//! f32 and f64) on the Cortex-M4F and prints, per scenario, the hashes of every step's state and
//! of the final state. `xcheck` prints the same lines on the host; CI compares them. Every step
//! is wrapped in instruction-count markers, every scenario closes a section.
#![no_std]
#![no_main]

use board::println;
use cortex_m_rt::entry;

#[entry]
fn main() -> ! {
    board::paint_stack();
    let mut ok = true;
    for (index, scenario) in plant::SCENARIOS.iter().enumerate() {
        println!("SECTION {} {}", index, scenario.name);
        let result = (scenario.run)(&mut board::StepMarkers);
        board::mark_section();
        match result {
            Ok(r) => println!(
                "HASH {} steps={} trajectory={:016x} final={:016x}",
                scenario.name, r.steps, r.trajectory.0, r.final_state.0
            ),
            Err(e) => {
                ok = false;
                println!("ERROR {}: {:?}", scenario.name, e);
            }
        }
    }
    board::report_memory("chain-fw");
    board::exit(ok)
}
