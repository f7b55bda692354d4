//! Proof that stepping never allocates: a global allocator that records every allocation made
//! while the kernel steps a model, and the test fails if there was any.

use ferrodyn::kernel::models::{revolute_chain, ChainSpec};
use ferrodyn::kernel::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct FailingAllocator;

thread_local! {
    static FORBIDDEN: Cell<bool> = const { Cell::new(false) };
}
static FORBIDDEN_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for FailingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if FORBIDDEN.with(|f| f.get()) {
            FORBIDDEN_ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
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
fn every_method() -> [integrators::Method<f64>; 5] {
    [
        integrators::Method::Rk4,
        integrators::Method::rkf45(Default::default()),
        integrators::Method::dopri45(Default::default()),
        integrators::Method::SemiImplicitEuler,
        integrators::Method::VelocityVerlet,
    ]
}

#[test]
fn stepping_a_chain_with_every_integrator_never_allocates() {
    const N: usize = 5;
    let model: Model<f64, N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }> =
        revolute_chain(&ChainSpec::standard(N)).unwrap();
    let mut data = Data::new(&model);
    let mut methods = every_method();
    // The guard itself works: one boxed value under the guard is counted.
    FORBIDDEN.with(|f| f.set(true));
    let probe = std::hint::black_box(Box::new(7u64));
    FORBIDDEN.with(|f| f.set(false));
    drop(probe);
    assert_eq!(FORBIDDEN_ALLOCATIONS.swap(0, Ordering::SeqCst), 1);
    for method in methods.iter_mut() {
        FORBIDDEN.with(|f| f.set(true));
        for _ in 0..200 {
            step(&model, &mut data, method, 1e-3).unwrap();
        }
        assemble(&model, &mut data).unwrap();
        let _ = analysis::energy(&model, &data);
        let _ = analysis::violation(&model, &data);
        FORBIDDEN.with(|f| f.set(false));
    }
    assert_eq!(FORBIDDEN_ALLOCATIONS.load(Ordering::SeqCst), 0);
    assert!(data.steps() == 1000);
}

#[test]
fn stepping_a_tree_with_every_integrator_never_allocates() {
    use ferrodyn::kernel::models::revolute_chain_tree;
    use ferrodyn::kernel::tree::{self, TreeData, TreeModel};
    let model: TreeModel<f64, 5> = revolute_chain_tree(&ChainSpec::standard(5)).unwrap();
    let mut data = TreeData::new(&model);
    let mut methods = every_method();
    let mut accel = [0.0; 5];
    for method in methods.iter_mut() {
        FORBIDDEN.with(|f| f.set(true));
        for k in 0..200 {
            data.set_input(k % 5, 0.1).unwrap();
            tree::step(&model, &mut data, method, 1e-3).unwrap();
        }
        tree::accelerations(&model, &mut data, &mut accel).unwrap();
        let _ = tree::energy(&model, &data);
        let _ = tree::link_states(&model, &data);
        FORBIDDEN.with(|f| f.set(false));
    }
    assert_eq!(FORBIDDEN_ALLOCATIONS.load(Ordering::SeqCst), 0);
    assert_eq!(data.steps(), 1000);
}
