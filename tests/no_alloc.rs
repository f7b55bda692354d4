//! Proof that stepping never allocates: a global allocator that records every allocation made
//! while a model steps, and the test fails if there was any. Every model family is stepped on
//! the microcontroller's fixed capacities, and on the host's growable storage once its data is
//! made (the lists are sized then; a step only reads and writes them).

use ferrodyn::host::storage::Growable;
use ferrodyn::kernel::integrators::Method;
use ferrodyn::kernel::samples::{revolute_chain, revolute_chain_tree, spinning_beam, ChainSpec, GRAVITY};
use ferrodyn::kernel::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct FailingAllocator;

thread_local! {
    static FORBIDDEN: Cell<bool> = const { Cell::new(false) };
    // Per thread: the tests run in parallel.
    static FORBIDDEN_ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for FailingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if FORBIDDEN.with(|f| f.get()) {
            FORBIDDEN_ALLOCATIONS.with(|n| n.set(n.get() + 1));
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: FailingAllocator = FailingAllocator;

/// The five kernel integrators.
fn every_method() -> [Method<f64>; 5] {
    [
        Method::Rk4,
        Method::rkf45(Default::default()),
        Method::dopri45(Default::default()),
        Method::SemiImplicitEuler,
        Method::VelocityVerlet,
    ]
}

/// Runs `f` with allocation forbidden on this thread; returns how many allocations it made.
fn allocations(f: impl FnOnce()) -> usize {
    let before = FORBIDDEN_ALLOCATIONS.with(Cell::get);
    FORBIDDEN.with(|x| x.set(true));
    f();
    FORBIDDEN.with(|x| x.set(false));
    FORBIDDEN_ALLOCATIONS.with(Cell::get) - before
}

/// A torque on every body or link, recorded by the model at every stage and after every step.
struct Push;

impl ExternalForces<f64> for Push {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        for b in 0..loads.body_count() {
            loads.add_torque(b, math::Vec3::new(0.0, 0.1, 0.0));
        }
        let (_, _, force) = loads.nodes();
        if let Some(f) = force.get_mut(14) {
            *f += 0.1;
        }
    }
    fn accept(&mut self, _t: f64, state: &ExternalLoads<'_, f64>) {
        assert!(state.body_count() + state.node_count() > 0);
    }
}

/// Steps `model` 200 times with every integrator (with and without external forces),
/// allocation forbidden (its data is made, and `prepare`d, before); with `evaluate` also its
/// energy and state digest (those may allocate scratch lists on growable storage: they are not
/// steps). Checks that all 1000 steps were taken; returns the allocations.
fn steps_without_allocating<M: Dynamics<f64>>(
    model: &M,
    dt: f64,
    evaluate: bool,
    prepare: impl FnOnce(&mut M::Data),
) -> usize {
    let mut data = model.new_data();
    prepare(&mut data);
    let mut methods = every_method();
    let mut push = Push;
    let count = allocations(|| {
        for method in methods.iter_mut() {
            for k in 0..200 {
                match k % 2 {
                    0 => model.step(&mut data, method, dt).unwrap(),
                    _ => model.step_with(&mut data, method, dt, &mut push).unwrap(),
                };
            }
            if evaluate {
                model.energy(&data).unwrap();
                model.digest(&data);
            }
        }
    });
    let time = model.time(&data);
    assert!(
        (time - 1000.0 * dt).abs() < 1e-9 * time,
        "1000 steps taken: t = {time}"
    );
    count
}

#[test]
fn the_allocation_guard_counts() {
    assert_eq!(allocations(|| drop(std::hint::black_box(Box::new(7u64)))), 1);
}

#[test]
fn stepping_a_chain_with_every_integrator_never_allocates() {
    const N: usize = 5;
    type Mcu = Fixed<N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }>;
    let model = revolute_chain::<f64, Mcu>(&ChainSpec::standard(N)).unwrap();
    assert_eq!(steps_without_allocating(&model, 1e-3, true, |_| ()), 0);
    let mut data = model.new_data();
    let extra = allocations(|| {
        rigid::assemble(&model, &mut data).unwrap();
        let _ = rigid::energy(&model, &data);
        let _ = rigid::violation(&model, &data);
    });
    assert_eq!(extra, 0);
    let host = revolute_chain::<f64, Growable>(&ChainSpec::standard(N)).unwrap();
    assert_eq!(
        steps_without_allocating(&host, 1e-3, false, |_| ()),
        0,
        "growable storage, once sized"
    );
}

#[test]
fn stepping_a_tree_with_every_integrator_never_allocates() {
    let model = revolute_chain_tree::<f64, Fixed<5>>(&ChainSpec::standard(5)).unwrap();
    /// Stepped with joint inputs held.
    fn inputs<St: Storage>(data: &mut tree::Data<f64, St>) {
        for k in 0..5 {
            data.set_input(k, 0.1).unwrap();
        }
    }
    assert_eq!(steps_without_allocating(&model, 1e-3, true, inputs), 0);
    let mut data = model.new_data();
    let mut accel = [0.0; 5];
    let extra = allocations(|| {
        for k in 0..5 {
            data.set_input(k, 0.1).unwrap();
        }
        tree::accelerations(&model, &mut data, &mut accel).unwrap();
        let _ = tree::energy(&model, &data);
        let _ = tree::link_states(&model, &data);
    });
    assert_eq!(extra, 0);
    let host = revolute_chain_tree::<f64, Growable>(&ChainSpec::standard(5)).unwrap();
    assert_eq!(
        steps_without_allocating(&host, 1e-3, false, inputs),
        0,
        "growable storage, once sized"
    );
}

#[test]
fn stepping_a_tree_with_a_drive_and_a_coupling_never_allocates() {
    // A chain of three rods: the first joint driven through 0.3 sin(2t), the third coupled to
    // the second (q₂ = −q₁): two coordinate rows on the tree.
    fn driven<St: Storage>() -> tree::Model<f64, St> {
        let mut b = tree::Model::<f64, St>::builder(math::Vec3::new(0.0, 0.0, -GRAVITY));
        let inertia = math::Mat3::diagonal(math::Vec3::new(1e-4, 1.0 / 12.0, 1.0 / 12.0));
        for k in 0..3usize {
            let origin = if k == 0 { math::Vec3::ZERO } else { math::Vec3::X };
            let link = tree::Link::revolute(k.checked_sub(1), origin, math::Vec3::Y);
            b.add_link(link.with_mass(1.0, math::Vec3::new(0.5, 0.0, 0.0), inertia))
                .unwrap();
        }
        let sine = TimeFunction::Sine {
            offset: 0.0,
            amplitude: 0.3,
            omega: 2.0,
            phase: 0.0,
        };
        b.drive(0, sine, 1.0, 0.0).unwrap();
        b.couple(2, 1, -1.0, 0.0).unwrap();
        b.build().unwrap()
    }
    let model = driven::<Fixed<3, 0, 0, 2, 26>>();
    assert_eq!(
        steps_without_allocating(&model, 1e-3, true, |d| d.set_velocity(0, 0.6).unwrap()),
        0
    );
    let mut data = model.new_data();
    let mut accel = [0.0; 3];
    let extra = allocations(|| {
        tree::accelerations(&model, &mut data, &mut accel).unwrap();
        let _ = data.multipliers();
    });
    assert_eq!(extra, 0);
    let host = driven::<Growable>();
    let prepare = |d: &mut tree::Data<f64, Growable>| d.set_velocity(0, 0.6).unwrap();
    assert_eq!(
        steps_without_allocating(&host, 1e-3, false, prepare),
        0,
        "growable storage, once sized"
    );
}

#[test]
fn stepping_flexible_and_coupled_models_never_allocates() {
    use ferrodyn::kernel::ancf::Material;
    use ferrodyn::kernel::flex::Fixity;
    use ferrodyn::kernel::math::Vec3;
    fn block<St: Storage>() -> flex::Model<f64, St> {
        let material = Material::st_venant_kirchhoff(1e6, 0.3, 1000.0).unwrap();
        let mut b = flex::Model::builder(material, Vec3::new(0.0, 0.0, -GRAVITY));
        ferrodyn::kernel::samples::add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [1, 1, 1])
            .unwrap();
        b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
            .unwrap();
        b.build().unwrap()
    }
    let fixed = Box::new(block::<Fixed<0, 0, 0, 0, 0, 8, 6, 1533>>());
    assert_eq!(steps_without_allocating(&*fixed, 1e-5, true, |_| ()), 0);
    assert_eq!(
        steps_without_allocating(&block::<Growable>(), 1e-5, false, |_| ()),
        0
    );
    type Beam = Fixed<1, 2, 0, 6, 21, 20, 24, 11_109, 493>;
    let beam = Box::new(spinning_beam::<f64, Beam>(10.0, GRAVITY).unwrap());
    assert_eq!(steps_without_allocating(&*beam, 1e-5, true, |_| ()), 0);
    let host = spinning_beam::<f64, Growable>(10.0, GRAVITY).unwrap();
    assert_eq!(
        steps_without_allocating(&host, 1e-5, false, |_| ()),
        0,
        "growable storage, once sized"
    );
}
