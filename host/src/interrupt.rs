//! SIGINT and SIGTERM as a request to stop: the first signal sets a flag that the drive loop
//! reads between steps (it then records the state reached, finishes its files and reports
//! `interrupted at t = …`); a second signal ends the process at once with the same exit code
//! (130 or 143). Result files are written in whole lines (`output::CsvWriter`), so even then no
//! line is torn.
//!
//! Only the commands that drive long runs install the handlers (`run`, `sweep run`,
//! `sweep local`); elsewhere, and in library use, [`received`] stays `None`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The last stopping signal received (0: none).
static SIGNAL: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal; a signal arriving while it is set ends the process.
static ARMED: AtomicBool = AtomicBool::new(false);

/// A signal asking the program to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (`kill`, Slurm at its time limit).
    Terminate,
}

impl Stop {
    /// The signal's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
        }
    }
    /// The shell's exit code of a process ended by the signal (128 + its number).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Interrupt => 130,
            Self::Terminate => 143,
        }
    }
    fn number(self) -> i32 {
        match self {
            Self::Interrupt => libc::SIGINT,
            Self::Terminate => libc::SIGTERM,
        }
    }
}

/// Installs the handlers of SIGINT and SIGTERM (once per process).
pub fn install() -> std::io::Result<()> {
    use signal_hook::flag;
    for stop in [Stop::Interrupt, Stop::Terminate] {
        let signal = stop.number();
        // Registered first, so it sees the flag as it was before this signal.
        flag::register_conditional_shutdown(signal, stop.exit_code().into(), &ARMED)?;
        flag::register_usize(signal, &SIGNAL, signal as usize)?;
        flag::register(signal, &ARMED)?;
    }
    Ok(())
}

/// The stopping signal received so far, if any.
pub fn received() -> Option<Stop> {
    match SIGNAL.load(Ordering::SeqCst) as i32 {
        0 => None,
        s if s == libc::SIGTERM => Some(Stop::Terminate),
        _ => Some(Stop::Interrupt),
    }
}

/// Sends `stop` to the process `pid` (a child that should stop as this process does).
pub fn forward(stop: Stop, pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) with a plain pid and signal number; no memory is shared.
        unsafe {
            libc::kill(pid, stop.number());
        }
    }
}
