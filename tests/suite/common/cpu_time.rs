//! Process CPU time, for timings on a shared machine (steadier than wall time; the peers'
//! scripts measure the same with Python's `time.process_time`). Shared by benches and examples.

/// CPU time of this process (s); NaN if the clock cannot be read.
pub fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc == 0 {
        ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
    } else {
        f64::NAN
    }
}
