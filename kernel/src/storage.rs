//! Where a rigid model and its data keep their items: fixed-capacity lists on a microcontroller
//! ([`Fixed`], `heapless::Vec`), growable lists on a host (a [`ModelStorage`] implemented by the
//! host crate over `Vec`). The algorithms only ever see slices, so both run the same code.

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
}

impl<T: Clone + Debug, const N: usize> List<T> for heapless::Vec<T, N> {
    fn empty() -> Self {
        heapless::Vec::new()
    }
    fn try_push(&mut self, value: T) -> Result<(), T> {
        self.push(value)
    }
    fn capacity() -> usize {
        N
    }
}

/// Storage of a simulation's mutable data: lists per body, per constraint row and for the
/// entries of the constraint-matrix profile.
pub trait DataStorage {
    /// One entry per body.
    type Bodies<T: Clone + Debug>: List<T>;
    /// One entry per scalar constraint equation.
    type Rows<T: Clone + Debug>: List<T>;
    /// One entry per stored element of the skyline profile.
    type Skyline<T: Clone + Debug>: List<T>;
}

/// Storage of a rigid model: the data lists plus lists per joint and per force element.
pub trait ModelStorage: DataStorage {
    /// One entry per joint.
    type Joints<T: Clone + Debug>: List<T>;
    /// One entry per force element.
    type Forces<T: Clone + Debug>: List<T>;
    /// The storage of the model's [`Data`](crate::Data).
    type Data: DataStorage;
}

/// Fixed capacities, no allocation: `B` bodies, `J` joints, `F` force elements, `C` constraint
/// rows, `S` skyline entries.
#[derive(Clone, Copy, Debug)]
pub struct Fixed<const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>;

/// The data part of [`Fixed`]: `B` bodies, `C` constraint rows, `S` skyline entries.
#[derive(Clone, Copy, Debug)]
pub struct FixedData<const B: usize, const C: usize, const S: usize>;

impl<const B: usize, const C: usize, const S: usize> DataStorage for FixedData<B, C, S> {
    type Bodies<T: Clone + Debug> = heapless::Vec<T, B>;
    type Rows<T: Clone + Debug> = heapless::Vec<T, C>;
    type Skyline<T: Clone + Debug> = heapless::Vec<T, S>;
}

impl<const B: usize, const J: usize, const F: usize, const C: usize, const S: usize> DataStorage
    for Fixed<B, J, F, C, S>
{
    type Bodies<T: Clone + Debug> = heapless::Vec<T, B>;
    type Rows<T: Clone + Debug> = heapless::Vec<T, C>;
    type Skyline<T: Clone + Debug> = heapless::Vec<T, S>;
}

impl<const B: usize, const J: usize, const F: usize, const C: usize, const S: usize> ModelStorage
    for Fixed<B, J, F, C, S>
{
    type Joints<T: Clone + Debug> = heapless::Vec<T, J>;
    type Forces<T: Clone + Debug> = heapless::Vec<T, F>;
    type Data = FixedData<B, C, S>;
}

/// A list of `len` copies of `value`, or `None` when it exceeds the list's capacity.
pub(crate) fn filled<T: Clone + Debug, L: List<T>>(len: usize, value: T) -> Option<L> {
    let mut list = L::empty();
    for _ in 0..len {
        list.try_push(value.clone()).ok()?;
    }
    Some(list)
}
