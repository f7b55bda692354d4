//! Profile driver (callgrind): N Newton iterations of the 1,107-DOF steel cantilever.
use ferrodyn::host::implicit::HhtFlex;
use ferrodyn::host::spec::HhtOptions;

#[path = "../tests/suite/common/cantilever.rs"]
mod cantilever;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let b = cantilever::steel_cantilever([10, 2, 2]);
    let mut hht = HhtFlex::new(b, HhtOptions::hht(-0.05).unwrap()).unwrap();
    for _ in 0..2 {
        hht.step(1e-3).unwrap();
    }
    let mut s = 0.0;
    for _ in 0..n {
        s += hht.newton_iteration_work(1e-3).unwrap();
    }
    println!("{s:e}");
}
