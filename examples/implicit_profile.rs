//! Profile driver (callgrind): N Newton iterations of the 1,107-DOF steel cantilever.
use ferrodyn::host::implicit::{FlexBody, HhtFlex, HhtOptions};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::Fixity;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::models::add_box_mesh;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let material = Material::st_venant_kirchhoff(2.1e11, 0.3, 7850.0).unwrap();
    let mut b = FlexBody::new(material, Vec3::new(0.0, 0.0, -9.81));
    add_box_mesh(
        &mut b,
        Vec3::new(0.0, -0.05, -0.05),
        Vec3::new(1.0, 0.1, 0.1),
        [10, 2, 2],
    )
    .unwrap();
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
        .unwrap();
    b.finish().unwrap();
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
