//! Validation of a large scene's bodies and joints on every core.
//!
//! Each item is checked in two parts: its registration (its name in the scene's index, its
//! id), which depends on the items before it, and its value (numbers, frames, references to
//! items registered already), which does not. For a large scene the registration runs on the
//! calling thread while the values are checked on every core
//! ([`ferrodyn_scene_file::parallel::map`], which writes each value once, straight into the
//! list); when anything fails the caller checks the items again one by one, so the first
//! error, and every error's text, is the one the serial check gives.

/// Every item's value (`value(index, item)`), in the order of `items`, while `register` runs
/// on this thread. `None` when `register` or any value failed: then check the items one by one.
pub(super) fn checked<I: Sync, T: Send, E>(
    items: &[I],
    register: impl FnOnce() -> Result<(), E>,
    value: impl Fn(usize, &I) -> Result<T, E> + Sync,
) -> Option<Vec<T>> {
    ferrodyn_scene_file::parallel::map(
        items,
        || register().is_ok(),
        |index, item| value(index, item).ok(),
    )
}
