//! Large values freed off the path of the work: freeing a million items' strings and lists
//! takes a few tenths of a second that the caller need not wait for.

/// From this many items a value is freed on a thread of its own (a thread costs more than
/// freeing a smaller one).
const BACKGROUND_ITEMS: usize = 4_096;

/// Drops `value`, which holds `items` items, on a thread of its own when it is large (or
/// here, when it is small or no thread can be started). The thread is not waited for: a
/// program that ends first leaves the freeing to the system.
pub fn drop_large<T: Send + 'static>(value: T, items: usize) {
    if items < BACKGROUND_ITEMS {
        return drop(value);
    }
    // When the thread cannot start, `spawn` drops the closure, and the value with it, here.
    let _ = std::thread::Builder::new()
        .name("release".into())
        .spawn(move || drop(value));
}
