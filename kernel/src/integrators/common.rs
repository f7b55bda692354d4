//! Plumbing shared by every integrator: request validation, stage-buffer splitting, and the
//! elementwise updates, written with iterators so that no index can go out of range.

use crate::{KernelError, OdeSystem, Real, Stages, StepStats};

/// The frame of every step: validates the request, lends `used` length-n stage buffers (the
/// first holding a copy of y(t)), runs `body(system, y, buffers, position_len)` and puts `y`
/// back to y(t) if it fails.
pub(crate) fn guarded_step<R: Real, S: OdeSystem<R>, const K: usize>(
    system: &mut S,
    h: R,
    y: &mut [R],
    stages: &mut Stages<'_, R>,
    used: usize,
    body: impl FnOnce(&mut S, &mut [R], &mut [&mut [R]; K], usize) -> Result<StepStats, KernelError>,
) -> Result<StepStats, KernelError> {
    check_step_size(h)?;
    let (n, np) = lengths(system)?;
    let y = prefix(y, n)?;
    let mut buffers = split::<R, K>(&mut stages.k, n, used)?;
    copy(buffers[0], y);
    let result = body(system, y, &mut buffers, np);
    restore_on_error(result, y, buffers[0])
}

/// Error for a malformed request: `y` or a stage buffer shorter than the state, or a position
/// part longer than the state.
pub(crate) const MALFORMED: KernelError = KernelError::StateSizeMismatch;

/// Rejects a zero, negative, NaN or infinite step size.
pub(crate) fn check_step_size<R: Real>(h: R) -> Result<(), KernelError> {
    if h.is_finite() && h > R::ZERO {
        Ok(())
    } else {
        Err(KernelError::InvalidStepSize)
    }
}

/// Returns `(state_len, position_len)` after checking that positions fit in the state.
pub(crate) fn lengths<R: Real, S: OdeSystem<R>>(system: &S) -> Result<(usize, usize), KernelError> {
    let n = system.state_len();
    let np = system.position_len();
    if np <= n {
        Ok((n, np))
    } else {
        Err(MALFORMED)
    }
}

/// The first `n` entries of `buf`, or [`MALFORMED`] if it is shorter.
pub(crate) fn prefix<R>(buf: &mut [R], n: usize) -> Result<&mut [R], KernelError> {
    buf.get_mut(..n).ok_or(MALFORMED)
}

/// Reborrows the first `used` stage buffers as length-`n` slices (the rest stay empty), so every
/// later zip runs over exactly `n` components.
pub(crate) fn split<'a, R, const K: usize>(
    bufs: &'a mut [&mut [R]],
    n: usize,
    used: usize,
) -> Result<[&'a mut [R]; K], KernelError> {
    let mut out: [&'a mut [R]; K] = core::array::from_fn(|_| <&mut [R]>::default());
    let mut source = bufs.iter_mut();
    for slot in out.iter_mut().take(used) {
        let buf = source.next().ok_or(MALFORMED)?;
        *slot = buf.get_mut(..n).ok_or(MALFORMED)?;
    }
    Ok(out)
}

/// `dst ← src` componentwise (a zip, so it cannot panic on a length mismatch).
pub(crate) fn copy<R: Copy>(dst: &mut [R], src: &[R]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

/// Puts `y` back to `y0` if `result` is an error: the contract is that a failed step leaves
/// the state as it was at `t`.
pub(crate) fn restore_on_error<R: Copy, T>(
    result: Result<T, KernelError>,
    y: &mut [R],
    y0: &[R],
) -> Result<T, KernelError> {
    if result.is_err() {
        copy(y, y0);
    }
    result
}

/// Velocity kick `v ← v + dt·a`, with `a` read from the velocity part of `dydt`.
pub(crate) fn kick<R: Real>(y: &mut [R], dydt: &[R], position_len: usize, dt: R) {
    for (v, a) in y.iter_mut().zip(dydt).skip(position_len) {
        *v += dt * *a;
    }
}
