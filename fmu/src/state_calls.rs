//! The FMU-state functions, alike in FMI 3.0 and 2.0 but for their names and C types: each
//! exported `fmi3…FMUState` / `fmi2…FMUstate` is [`guard`](crate::boundary::guard) around one
//! of these.

use crate::boundary::{put, slice, slice_mut, Handle};
use std::ffi::c_void;

/// Saves the current state into `*state`, overwriting the one it points to, or a new one
/// when it is null.
///
/// # Safety
/// `state` is null or points to an FMU state pointer.
pub unsafe fn get(h: &mut Handle, state: *mut *mut c_void) -> anyhow::Result<()> {
    anyhow::ensure!(!state.is_null(), "the FMU state argument is a null pointer");
    let saved = h.instance.get_state()?;
    // SAFETY: non-null, points to a pointer by the caller's contract.
    let existing = unsafe { *state };
    if existing.is_null() {
        // SAFETY: as above.
        unsafe { *state = h.new_state(saved) };
    } else {
        *h.state_mut(existing)? = saved;
    }
    Ok(())
}

/// Goes back to a saved state.
pub fn set(h: &mut Handle, state: *mut c_void) -> anyhow::Result<()> {
    let saved = h.state(state)?.clone();
    h.instance.set_state(&saved)
}

/// Frees `*state` and sets it to null (null: nothing to free).
///
/// # Safety
/// `state` is null or points to an FMU state pointer.
pub unsafe fn free(h: &mut Handle, state: *mut *mut c_void) -> anyhow::Result<()> {
    if state.is_null() {
        return Ok(());
    }
    // SAFETY: non-null, points to a pointer by the caller's contract.
    let ptr = unsafe { *state };
    if ptr.is_null() {
        return Ok(());
    }
    h.free_state(ptr)?;
    // SAFETY: as above.
    unsafe { *state = std::ptr::null_mut() };
    Ok(())
}

/// Writes the size of a serialized state into `*size`.
///
/// # Safety
/// `size` is null or writable.
pub unsafe fn serialized_size(h: &Handle, state: *mut c_void, size: *mut usize) -> anyhow::Result<()> {
    let n = h.instance.serialized_size(h.state(state)?);
    // SAFETY: writable or null by the caller's contract.
    unsafe { put(size, n, "size") }
}

/// Serializes a state into `bytes`, which must be exactly its serialized size.
///
/// # Safety
/// `bytes` is null or has room for `size` bytes.
pub unsafe fn serialize(h: &Handle, state: *mut c_void, bytes: *mut u8, size: usize) -> anyhow::Result<()> {
    let data = h.instance.serialize(h.state(state)?);
    anyhow::ensure!(
        size == data.len(),
        "size {size}: the serialized state has {} bytes",
        data.len()
    );
    // SAFETY: room for `size` bytes by the caller's contract.
    unsafe { slice_mut(bytes, size, "serializedState")? }.copy_from_slice(&data);
    Ok(())
}

/// A new state from serialized bytes, into `*state`.
///
/// # Safety
/// `bytes` is null or holds `size` bytes; `state` is null or writable.
pub unsafe fn deserialize(
    h: &mut Handle,
    bytes: *const u8,
    size: usize,
    state: *mut *mut c_void,
) -> anyhow::Result<()> {
    // SAFETY: `size` bytes by the caller's contract.
    let saved = h
        .instance
        .deserialize(unsafe { slice(bytes, size, "serializedState")? })?;
    anyhow::ensure!(!state.is_null(), "the FMU state argument is a null pointer");
    let ptr = h.new_state(saved);
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *state = ptr };
    Ok(())
}
