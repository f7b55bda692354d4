//! Where models and their data keep their items: fixed-capacity lists on a microcontroller
//! ([`Fixed`], `heapless::Vec`), growable lists on a host (a [`Storage`] implemented by the host
//! crate over `Vec`). The algorithms only ever see slices, so both run the same code and give
//! the same bits.
//!
//! One storage type serves every model family: a rigid model uses its bodies, joints, forces,
//! rows and skyline lists, a tree its bodies (one per link), a flexible body its nodes, elements
//! and profile, a coupled model all of them plus its state. The capacities are spelled once, in
//! one [`Fixed`] type:
//!
//! ```
//! use ferrodyn_kernel::Fixed;
//! // A 5-link chain in Cartesian coordinates: 5 bodies, 5 joints, no force element,
//! // 25 constraint rows, 175 skyline entries.
//! type Chain = Fixed<5, 5, 0, 25, 175>;
//! // The same chain in joint coordinates: 5 links.
//! type ChainTree = Fixed<5>;
//! ```

use core::fmt::Debug;
use core::ops::{Deref, DerefMut};

/// A list of items: a slice that can grow up to its capacity.
pub trait List<T>: Deref<Target = [T]> + DerefMut + Clone + Debug {
    /// An empty list.
    fn empty() -> Self;
    /// Appends `value`, or hands it back when the list is full.
    fn try_push(&mut self, value: T) -> Result<(), T>;
    /// The most items the list can hold (`usize::MAX`: bounded by memory only).
    fn capacity() -> usize;
    /// Removes every item, in place.
    fn clear(&mut self) {
        *self = Self::empty();
    }
    /// Makes room for `additional` more items where the list grows (a fixed list has its room).
    fn reserve(&mut self, _additional: usize) {}
    /// Makes the list hold `len` items of all zero bits (cut at its capacity), replacing its
    /// items: a growable list takes a zeroed block, whose pages are written only when used.
    fn fill_zeroed(&mut self, len: usize)
    where
        T: bytemuck::Zeroable + Clone,
    {
        self.fill(len, T::zeroed());
    }

    /// Makes the list hold `len` copies of `value` (cut at its capacity), replacing its items.
    fn fill(&mut self, len: usize, value: T)
    where
        T: Clone,
    {
        self.clear();
        // Room for all at once: a growable list pushed to a million items would otherwise be
        // copied twenty times over.
        self.reserve(len.min(Self::capacity()));
        for _ in 0..len {
            if self.try_push(value.clone()).is_err() {
                break;
            }
        }
    }
}

impl<T: Clone + Debug, const N: usize> List<T> for heapless::Vec<T, N> {
    fn empty() -> Self {
        heapless::Vec::new()
    }
    fn clear(&mut self) {
        // In place: assigning an empty list could pass the whole buffer through the stack.
        heapless::Vec::clear(self);
    }
    fn try_push(&mut self, value: T) -> Result<(), T> {
        self.push(value)
    }
    fn capacity() -> usize {
        N
    }
}

/// The lists a model and its data keep their items in, one kind of list per capacity.
pub trait Storage {
    /// One entry per rigid body (or tree link).
    type Bodies<T: Clone + Debug>: List<T>;
    /// One entry per joint.
    type Joints<T: Clone + Debug>: List<T>;
    /// One entry per force element.
    type Forces<T: Clone + Debug>: List<T>;
    /// One entry per scalar constraint equation.
    type Rows<T: Clone + Debug>: List<T>;
    /// One entry per stored element of the constraint matrix's skyline profile.
    type Skyline<T: Clone + Debug>: List<T>;
    /// One entry per node of a flexible body.
    type Nodes<T: Clone + Debug>: List<T>;
    /// One entry per element of a flexible body.
    type Elements<T: Clone + Debug>: List<T>;
    /// One entry per stored element of a flexible body's mass-matrix profile.
    type Profile<T: Clone + Debug>: List<T>;
    /// One entry per scalar of a coupled rigid–flexible state.
    type State<T: Clone + Debug>: List<T>;
}

/// Fixed capacities, no allocation: the microcontroller's storage, every capacity spelled once.
///
/// | parameter | what it bounds | used by |
/// |---|---|---|
/// | `BODIES` | rigid bodies, tree links | rigid, tree, coupled |
/// | `JOINTS` | joints and drives; a tree's loop-closing joints | rigid, coupled, tree |
/// | `FORCES` | force elements | rigid, coupled |
/// | `ROWS` | scalar constraint equations (a tree's loop rows) | rigid, coupled, tree |
/// | `SKYLINE` | stored entries of the constraint matrix ([`crate::rigid::skyline_entries`]); a tree's dense loop matrices ([`crate::tree::Model::loop_workspace`]) | rigid, coupled, tree |
/// | `NODES` | flexible nodes | flexible, coupled |
/// | `ELEMENTS` | flexible elements | flexible, coupled |
/// | `PROFILE` | stored entries of the flexible mass matrix (the builder's error says how many) | flexible, coupled |
/// | `STATE` | reals in a coupled state, 13 per body + 24 per node | coupled |
///
/// Unused capacities default to zero. A model that needs more than a capacity is a
/// [`BuildError::CapacityExceeded`](crate::BuildError::CapacityExceeded) naming it.
#[derive(Clone, Copy, Debug)]
pub struct Fixed<
    const BODIES: usize,
    const JOINTS: usize = 0,
    const FORCES: usize = 0,
    const ROWS: usize = 0,
    const SKYLINE: usize = 0,
    const NODES: usize = 0,
    const ELEMENTS: usize = 0,
    const PROFILE: usize = 0,
    const STATE: usize = 0,
>;

impl<
        const B: usize,
        const J: usize,
        const F: usize,
        const C: usize,
        const S: usize,
        const N: usize,
        const E: usize,
        const P: usize,
        const Y: usize,
    > Storage for Fixed<B, J, F, C, S, N, E, P, Y>
{
    type Bodies<T: Clone + Debug> = heapless::Vec<T, B>;
    type Joints<T: Clone + Debug> = heapless::Vec<T, J>;
    type Forces<T: Clone + Debug> = heapless::Vec<T, F>;
    type Rows<T: Clone + Debug> = heapless::Vec<T, C>;
    type Skyline<T: Clone + Debug> = heapless::Vec<T, S>;
    type Nodes<T: Clone + Debug> = heapless::Vec<T, N>;
    type Elements<T: Clone + Debug> = heapless::Vec<T, E>;
    type Profile<T: Clone + Debug> = heapless::Vec<T, P>;
    type State<T: Clone + Debug> = heapless::Vec<T, Y>;
}

/// A list of `len` copies of `value`, cut at the list's capacity (for data whose model was
/// built with the same storage, so its sizes fit).
pub(crate) fn sized<T: Clone + Debug, L: List<T>>(len: usize, value: T) -> L {
    let mut list = L::empty();
    resize(&mut list, len, value);
    list
}

/// Makes `list` hold `len` copies of `value`, in place (cut at its capacity).
pub(crate) fn resize<T: Clone + Debug, L: List<T>>(list: &mut L, len: usize, value: T) {
    list.fill(len, value);
}

/// A list of `len` items of all zero bits ([`resize_zeroed`]).
pub(crate) fn sized_zeroed<T: bytemuck::Zeroable + Clone + Debug, L: List<T>>(len: usize) -> L {
    let mut list = L::empty();
    resize_zeroed(&mut list, len);
    list
}

/// Makes `list` hold `len` items of all zero bits (each its type's default), in place (cut at
/// its capacity).
pub(crate) fn resize_zeroed<T: bytemuck::Zeroable + Clone + Debug, L: List<T>>(list: &mut L, len: usize) {
    list.fill_zeroed(len);
}

/// The error for a full list of kind `L` (its capacity) that needed `needed` entries.
pub(crate) fn full<T, L: List<T>>(capacity: crate::Capacity, needed: usize) -> crate::BuildError {
    crate::BuildError::CapacityExceeded {
        capacity,
        needed,
        available: L::capacity(),
    }
}
