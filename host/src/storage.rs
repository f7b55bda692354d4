//! The host's storage: the kernel's models and algorithms over growable lists (`Vec`), so a
//! scene is limited by memory, not by the capacities a microcontroller build fixes. Host and
//! firmware run the same kernel routines; only where the items live differs.

use ferrodyn_kernel::{coupled, flex, rigid, tree, List, Storage};
use std::fmt::Debug;
use std::ops::{Deref, DerefMut};

/// A list on the heap, bounded by memory only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Growing<T>(Vec<T>);

impl<T> Deref for Growing<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T> DerefMut for Growing<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Debug> List<T> for Growing<T> {
    fn empty() -> Self {
        Self(Vec::new())
    }
    fn try_push(&mut self, value: T) -> Result<(), T> {
        self.0.push(value);
        Ok(())
    }
    fn capacity() -> usize {
        usize::MAX
    }
    fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
    }
    /// `vec!` asks the allocator for zeroed memory when `value`'s bits are all zero (a zero
    /// real, an array of them): the system then gives pages that are filled only when first
    /// written, so the parts of a large model's data that nothing uses (the integrator's stages
    /// and the constraint workspace of a mirror that `check` never steps) cost no time and no
    /// resident memory.
    fn fill(&mut self, len: usize, value: T)
    where
        T: Clone,
    {
        self.0 = Vec::new();
        self.0 = vec![value; len];
    }
    /// One zeroed block, the old one freed first, for the lists whose zero is not a real or an
    /// array of reals (constraint rows, wrenches), which `vec!` would write.
    fn fill_zeroed(&mut self, len: usize)
    where
        T: bytemuck::Zeroable + Clone,
    {
        self.0 = Vec::new();
        self.0 = bytemuck::zeroed_vec(len);
    }
}

/// Growable storage for every model family and its data.
#[derive(Clone, Copy, Debug)]
pub struct Growable;

impl Storage for Growable {
    type Bodies<T: Clone + Debug> = Growing<T>;
    type Joints<T: Clone + Debug> = Growing<T>;
    type Forces<T: Clone + Debug> = Growing<T>;
    type Rows<T: Clone + Debug> = Growing<T>;
    type Skyline<T: Clone + Debug> = Growing<T>;
    type Nodes<T: Clone + Debug> = Growing<T>;
    type Elements<T: Clone + Debug> = Growing<T>;
    type Profile<T: Clone + Debug> = Growing<T>;
    type State<T: Clone + Debug> = Growing<T>;
}

/// A rigid model on the host (f64, growable).
pub type RigidModel = rigid::Model<f64, Growable>;
/// The data of a [`RigidModel`].
pub type RigidData = rigid::Data<f64, Growable>;
/// A tree in joint coordinates on the host.
pub type TreeModel = tree::Model<f64, Growable>;
/// The data of a [`TreeModel`].
pub type TreeData = tree::Data<f64, Growable>;
/// The force elements on a [`TreeModel`]'s links.
pub type TreeForces = tree::Forces<f64, Growable>;
/// A flexible body on the host.
pub type FlexModel = flex::Model<f64, Growable>;
/// The data of a [`FlexModel`].
pub type FlexData = flex::Data<f64, Growable>;
/// A rigid–flexible system on the host.
pub type CoupledModel = coupled::Model<f64, Growable>;
/// The data of a [`CoupledModel`].
pub type CoupledData = coupled::Data<f64, Growable>;
