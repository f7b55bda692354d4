//! Validation of a large scene's bodies and joints on every core.
//!
//! Each item is checked in two parts: its registration (its name in the scene's index, its
//! id), which depends on the items before it, and its value (numbers, frames, references to
//! items registered already), which does not. For a large scene the registration runs on the
//! calling thread while the values are checked on every core; when anything fails the caller
//! checks the items again one by one, so the first error, and every error's text, is the one
//! the serial check gives.

use std::ops::Range;

/// Below this many items a thread costs more than it saves (the file reader's threshold).
const PARALLEL_ITEMS: usize = 4_096;

/// Every item's value (`value(index, item)`) checked on every core while `register` runs on
/// this thread, in the order of `items`. `None` when `register` or any value failed, and for
/// fewer than [`PARALLEL_ITEMS`] items or one core: then check the items one by one.
pub(super) fn checked<I: Sync, T: Send, E>(
    items: &[I],
    register: impl FnOnce() -> Result<(), E>,
    value: impl Fn(usize, &I) -> Result<T, E> + Sync,
) -> Option<Vec<T>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16);
    if threads < 2 || items.len() < PARALLEL_ITEMS {
        return None;
    }
    // One slot per item, written once by the thread that checks it and emptied in place
    // after: a large scene's items are written to fresh pages once.
    let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let chunk = items.len().div_ceil(threads);
    let valid = std::thread::scope(|scope| {
        let value = &value;
        let handles: Vec<_> = items
            .chunks(chunk)
            .zip(slots.chunks_mut(chunk))
            .enumerate()
            .map(|(part, (items, slots))| {
                let first = part * chunk;
                scope.spawn(move || fill(first..first + items.len(), items, slots, value))
            })
            .collect();
        let registered = register().is_ok();
        // Every thread joined (a panic in one is its part not checked: the serial check
        // that follows meets it again).
        let values: Vec<bool> = handles
            .into_iter()
            .map(|h| matches!(h.join(), Ok(true)))
            .collect();
        registered && !values.contains(&false)
    });
    // Every slot is filled when every value was checked; `map_while` collects in place.
    valid.then(|| slots.into_iter().map_while(|slot| slot).collect())
}

/// Checks the values of `items` (at `indices` in the whole list) into `slots`; false at the
/// first that fails.
fn fill<I, T, E>(
    indices: Range<usize>,
    items: &[I],
    slots: &mut [Option<T>],
    value: &impl Fn(usize, &I) -> Result<T, E>,
) -> bool {
    indices
        .zip(items)
        .zip(slots)
        .all(|((index, item), slot)| value(index, item).map(|v| *slot = Some(v)).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_in_item_order_and_any_failure_asks_for_the_serial_check() {
        let items: Vec<u64> = (0..10_000).collect();
        let square = |index: usize, &item: &u64| -> Result<u64, ()> {
            assert_eq!(index as u64, item, "the value is given its item's index");
            Ok(item * item)
        };
        // Only with more than one core does the check run here at all.
        let parallel = std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
        let values = checked(&items, || Ok(()), square);
        if parallel {
            let expected: Vec<u64> = items.iter().map(|i| i * i).collect();
            assert_eq!(values, Some(expected));
        } else {
            assert_eq!(values, None);
        }
        // A value failing anywhere, or the registration failing: the caller checks serially.
        let fails_at_7777 = |_: usize, &item: &u64| if item == 7_777 { Err(()) } else { Ok(item) };
        assert_eq!(checked(&items, || Ok(()), fails_at_7777), None);
        assert_eq!(checked(&items, || Err(()), |_, &item| Ok::<_, ()>(item)), None);
        // Small lists are left to the serial check.
        assert_eq!(
            checked(&items[..100], || Ok::<_, ()>(()), |_, &item| Ok::<_, ()>(item)),
            None
        );
    }
}
