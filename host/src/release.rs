//! Large values freed off the path of the work: freeing a million items' strings and lists
//! takes a few tenths of a second that the caller need not wait for.

use std::sync::Mutex;
use std::thread::JoinHandle;

/// From this many items a value is freed on a thread of its own (a thread costs more than
/// freeing a smaller one).
const BACKGROUND_ITEMS: usize = 4_096;

/// The threads freeing values, until [`finish`] waits for them.
static PENDING: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Drops `value`, which holds `items` items, on a thread of its own when it is large (or
/// here, when it is small or no thread can be started). A program that ends first leaves the
/// freeing to the system; [`finish`] waits for it. Only for values whose memory nothing that
/// follows needs: memory freed later is not there to be reused sooner.
pub fn drop_large<T: Send + 'static>(value: T, items: usize) {
    if items < BACKGROUND_ITEMS {
        return drop(value);
    }
    // When the thread cannot start, `spawn` drops the closure, and the value with it, here.
    let spawned = std::thread::Builder::new()
        .name("release".into())
        .spawn(move || drop(value));
    if let (Ok(handle), Ok(mut pending)) = (spawned, PENDING.lock()) {
        pending.retain(|h| !h.is_finished());
        pending.push(handle);
    }
}

/// Waits until every value given to [`drop_large`] is freed: for a caller that measures
/// memory, or needs it back before it goes on.
pub fn finish() {
    let pending = PENDING
        .lock()
        .map(|mut p| std::mem::take(&mut *p))
        .unwrap_or_default();
    for handle in pending {
        // A panic in a destructor there is that thread's own: nothing to hand on.
        let _ = handle.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static DROPPED: AtomicUsize = AtomicUsize::new(0);

    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPPED.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn small_values_are_freed_at_once_and_large_ones_by_the_time_finish_returns() {
        drop_large(Counted, 10);
        assert_eq!(
            DROPPED.load(Ordering::SeqCst),
            1,
            "a small value is dropped in the call"
        );
        for _ in 0..3 {
            drop_large(Counted, BACKGROUND_ITEMS);
        }
        finish();
        assert_eq!(DROPPED.load(Ordering::SeqCst), 4);
    }
}
