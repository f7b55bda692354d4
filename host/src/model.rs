//! The host's rigid model: the kernel's model and algorithms over growable storage (`Vec`), so a
//! scene is limited by memory, not by the capacities a microcontroller build fixes. The same
//! scene compiles into a fixed-capacity kernel [`Model`](ferrodyn_kernel::Model) when it fits
//! (see [`Capacities`](crate::scene::Capacities)).

use ferrodyn_kernel::{DataStorage, List, ModelStorage, RigidData, RigidModel};
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
}

/// Growable storage for rigid models and their data.
#[derive(Clone, Copy, Debug)]
pub struct Growable;

impl DataStorage for Growable {
    type Bodies<T: Clone + Debug> = Growing<T>;
    type Rows<T: Clone + Debug> = Growing<T>;
    type Skyline<T: Clone + Debug> = Growing<T>;
}

impl ModelStorage for Growable {
    type Joints<T: Clone + Debug> = Growing<T>;
    type Forces<T: Clone + Debug> = Growing<T>;
    type Data = Growable;
}

/// A rigid model on the host (f64, growable).
pub type HostModel = RigidModel<f64, Growable>;

/// The simulation data of a [`HostModel`].
pub type HostData = RigidData<f64, Growable>;
