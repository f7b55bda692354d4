//! A large scene file's items made on every core: parsed here, checked by `ferrodyn-host`.
//!
//! The list is written straight into its own memory by the thread that makes each item. A
//! list of empty slots filled afterwards would first be written whole by one thread: for 10⁶
//! items that is a gigabyte of fresh pages, half a second of one core before the others start.

use std::mem::MaybeUninit;
use std::ops::Range;

/// Below this many items a thread costs more than it saves.
const PARALLEL_ITEMS: usize = 4_096;

/// Below this many bytes a text is read on one thread (a thread costs more than it saves).
const PARALLEL_BYTES: usize = 4 << 20;

/// The threads a large file is read on: one a core, at most 16.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16)
}

/// The pieces a text is read in ([`pieces`]): one a core for a large text, else one.
pub fn parts(text: &str) -> usize {
    match text.len() < PARALLEL_BYTES {
        true => 1,
        false => threads(),
    }
}

/// `text` cut into `parts` pieces of about equal length at line starts (a cut's own line stays
/// in the piece before; fewer pieces' worth of text when lines are long), in order, covering it.
pub fn pieces(text: &str, parts: usize) -> Vec<Range<usize>> {
    let mut cuts = vec![0];
    for k in 1..parts {
        let at = (text.len() * k / parts).max(cuts[cuts.len() - 1]);
        let next = text.as_bytes()[at..].iter().position(|&c| c == b'\n');
        cuts.push(next.map_or(text.len(), |n| at + n + 1));
    }
    cuts.push(text.len());
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// `make(index, item)` of every item, in the order of `items`, while `alongside` runs on the
/// calling thread: on every core in contiguous runs of items for a large list, one by one
/// otherwise. `None` when `alongside` or any item fails (a panic in a thread is its run
/// failing); what was made is dropped then.
pub fn map<I: Sync, T: Send>(
    items: &[I],
    alongside: impl FnOnce() -> bool,
    make: impl Fn(usize, &I) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    let threads = threads();
    if threads < 2 || items.len() < PARALLEL_ITEMS {
        if !alongside() {
            return None;
        }
        return items.iter().enumerate().map(|(k, item)| make(k, item)).collect();
    }
    let mut list: Vec<T> = Vec::with_capacity(items.len());
    let run = items.len().div_ceil(threads);
    let (together, written) = std::thread::scope(|scope| {
        let make = &make;
        let handles: Vec<_> = items
            .chunks(run)
            .zip(list.spare_capacity_mut().chunks_mut(run))
            .enumerate()
            .map(|(part, (items, slots))| scope.spawn(move || fill(part * run, items, slots, make)))
            .collect();
        let together = alongside();
        // Each run's count of items written; a run that panicked leaks what it wrote.
        let written: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap_or(0)).collect();
        (together, written)
    });
    let whole = written.iter().sum::<usize>() == items.len();
    if together && whole {
        // SAFETY: every run wrote every one of its slots (`fill` counts the slots it wrote, in
        // order from the run's first), so the first `items.len()` elements are initialized.
        unsafe { list.set_len(items.len()) };
        return Some(list);
    }
    for (part, &count) in written.iter().enumerate() {
        let first = list.as_mut_ptr().wrapping_add(part * run);
        // SAFETY: run `part` wrote its first `count` slots (see above) and nothing else owns
        // them: the list's length is 0, so it drops none of them itself.
        unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(first, count)) };
    }
    None
}

/// Makes the items of one run (`first`: the index of its first) into `slots`, in order;
/// returns how many it wrote, stopping at the first that fails.
fn fill<I, T>(
    first: usize,
    items: &[I],
    slots: &mut [MaybeUninit<T>],
    make: &impl Fn(usize, &I) -> Option<T>,
) -> usize {
    let mut written = 0;
    for (k, (item, slot)) in items.iter().zip(slots).enumerate() {
        match make(first + k, item) {
            Some(value) => slot.write(value),
            None => break,
        };
        written += 1;
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts its drops, to see that what a failed map made is dropped once.
    struct Counted<'a>(&'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn items_come_in_order_and_a_failure_anywhere_drops_what_was_made() {
        for n in [0, 100, 10_000] {
            let items: Vec<u64> = (0..n).collect();
            let square = |index: usize, &item: &u64| {
                assert_eq!(index as u64, item, "each item is made with its index");
                Some(item * item)
            };
            let expected: Vec<u64> = items.iter().map(|i| i * i).collect();
            assert_eq!(map(&items, || true, square), Some(expected));
            assert_eq!(map(&items, || false, square), None);
        }
        let items: Vec<usize> = (0..10_000).collect();
        let (drops, made) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let (drops, made) = (&drops, &made);
        let fails_at = |bad: usize| {
            move |_: usize, &item: &usize| {
                (item != bad).then(|| {
                    made.fetch_add(1, Ordering::Relaxed);
                    Counted(drops)
                })
            }
        };
        for bad in [0, 7_777, 9_999] {
            assert!(map(&items, || true, fails_at(bad)).is_none());
            assert_eq!(drops.load(Ordering::Relaxed), made.load(Ordering::Relaxed));
        }
        // Dropped with the list when every item was made.
        drop(map(&items, || true, fails_at(usize::MAX)));
        assert_eq!(drops.load(Ordering::Relaxed), made.load(Ordering::Relaxed));
        assert!(made.load(Ordering::Relaxed) > 3 * 5_000);
    }
}
