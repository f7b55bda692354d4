//! The FMI 2.0 C API (fmi2Functions.h), co-simulation: every function of the header is
//! exported; those of model exchange, derivatives, asynchronous steps and variable types the
//! FMU has none of return fmi2Error with a logged message (or fmi2OK when asked for no
//! values). Pointers are checked; every body runs in [`guard`].

use crate::boundary::{
    guard, instantiate, put, quietly, resources_folder, slice, slice_mut, text, Log2, Logger, Status,
};
use crate::instance::{Instance, Phase};
use crate::state_calls;
use std::ffi::{c_char, c_int, c_void};

type Comp = *mut c_void;
type Vr = u32;

/// fmi2CallbackFunctions.
#[repr(C)]
pub struct Callbacks {
    logger: Option<Log2>,
    allocate_memory: *mut c_void,
    free_memory: *mut c_void,
    step_finished: *mut c_void,
    environment: *mut c_void,
}

/// fmi2CoSimulation in fmi2Type.
const CO_SIMULATION: c_int = 1;
/// fmi2LastSuccessfulTime in fmi2StatusKind.
const LAST_SUCCESSFUL_TIME: c_int = 2;
/// fmi2Terminated in fmi2StatusKind.
const TERMINATED: c_int = 3;

/// "default".
#[no_mangle]
pub extern "C" fn fmi2GetTypesPlatform() -> *const c_char {
    c"default".as_ptr()
}

/// "2.0".
#[no_mangle]
pub extern "C" fn fmi2GetVersion() -> *const c_char {
    c"2.0".as_ptr()
}

/// Turns messages other than errors on or off (categories are not used).
#[no_mangle]
pub extern "C" fn fmi2SetDebugLogging(
    c: Comp,
    logging_on: c_int,
    _n: usize,
    _categories: *const *const c_char,
) -> Status {
    guard(c, "fmi2SetDebugLogging", |h| {
        h.logging_on = logging_on != 0;
        Ok(())
    })
}

/// A co-simulation instance of the scene in the resources at `location` (a file URI), or null
/// (with a logged message).
///
/// # Safety
/// The strings are null or NUL-terminated; `callbacks` is null or valid for the instance's
/// life.
#[no_mangle]
pub unsafe extern "C" fn fmi2Instantiate(
    name: *const c_char,
    kind: c_int,
    guid: *const c_char,
    location: *const c_char,
    callbacks: *const Callbacks,
    _visible: c_int,
    logging_on: c_int,
) -> Comp {
    // SAFETY: null or valid by the caller's contract.
    let logger = match unsafe { callbacks.as_ref() } {
        Some(cb) => Logger::V2(cb.logger, cb.environment),
        None => Logger::V2(None, std::ptr::null_mut()),
    };
    // SAFETY: NUL-terminated or null by the caller's contract.
    let instance_name = quietly(String::new(), || {
        unsafe { text(name, "instanceName") }.unwrap_or("").to_string()
    });
    instantiate(&instance_name, logger, logging_on != 0, || {
        anyhow::ensure!(kind == CO_SIMULATION, "this FMU provides co-simulation only");
        // SAFETY: as above.
        let (guid, location) = unsafe { (text(guid, "fmuGUID")?, text(location, "fmuResourceLocation")?) };
        Instance::new(&instance_name, &resources_folder(location), guid)
    })
}

/// Frees the instance and the FMU states it still owns (a null or unknown pointer: nothing).
#[no_mangle]
pub extern "C" fn fmi2FreeInstance(c: Comp) {
    quietly((), || crate::boundary::free(c));
}

/// The experiment must start at 0 s (the scene's start).
#[no_mangle]
pub extern "C" fn fmi2SetupExperiment(
    c: Comp,
    _tolerance_defined: c_int,
    _tolerance: f64,
    start_time: f64,
    _stop_time_defined: c_int,
    _stop_time: f64,
) -> Status {
    guard(c, "fmi2SetupExperiment", |h| {
        let phase = h.instance.phase;
        anyhow::ensure!(
            phase == Phase::Instantiated,
            "cannot set up the experiment in {phase:?} mode"
        );
        anyhow::ensure!(
            start_time == 0.0,
            "start time {start_time}: the scene starts at 0 s"
        );
        Ok(())
    })
}

/// Enters initialization mode.
#[no_mangle]
pub extern "C" fn fmi2EnterInitializationMode(c: Comp) -> Status {
    guard(c, "fmi2EnterInitializationMode", |h| {
        h.instance.enter_initialization(0.0)
    })
}

/// Leaves initialization mode for stepping.
#[no_mangle]
pub extern "C" fn fmi2ExitInitializationMode(c: Comp) -> Status {
    guard(c, "fmi2ExitInitializationMode", |h| {
        h.instance.exit_initialization()
    })
}

/// Terminates the simulation.
#[no_mangle]
pub extern "C" fn fmi2Terminate(c: Comp) -> Status {
    guard(c, "fmi2Terminate", |h| {
        h.instance.terminate()?;
        h.info(&format!("terminated at t = {} s", h.instance.time()));
        Ok(())
    })
}

/// Back to the scene's initial state, instantiated.
#[no_mangle]
pub extern "C" fn fmi2Reset(c: Comp) -> Status {
    guard(c, "fmi2Reset", |h| h.instance.reset())
}

/// Reads time, inputs and sensor outputs.
///
/// # Safety
/// `vr` holds `n` references and `values` room for `n` values (or they are null).
#[no_mangle]
pub unsafe extern "C" fn fmi2GetReal(c: Comp, vr: *const Vr, n: usize, values: *mut f64) -> Status {
    guard(c, "fmi2GetReal", |h| {
        // SAFETY: sizes and pointers by the caller's contract; null is an error.
        let (vr, values) = unsafe { (slice(vr, n, "vr")?, slice_mut(values, n, "value")?) };
        h.instance.get(vr, values)
    })
}

/// Sets inputs (finite values only; all are checked before any is set).
///
/// # Safety
/// `vr` and `values` hold `n` entries (or are null).
#[no_mangle]
pub unsafe extern "C" fn fmi2SetReal(c: Comp, vr: *const Vr, n: usize, values: *const f64) -> Status {
    guard(c, "fmi2SetReal", |h| {
        // SAFETY: sizes and pointers by the caller's contract; null is an error.
        let (vr, values) = unsafe { (slice(vr, n, "vr")?, slice(values, n, "value")?) };
        h.instance.set(vr, values)
    })
}

/// Advances by `h` from `t` (a whole number of the scene's steps).
#[no_mangle]
pub extern "C" fn fmi2DoStep(c: Comp, t: f64, h: f64, _no_set_state_prior: c_int) -> Status {
    guard(c, "fmi2DoStep", |handle| handle.instance.do_step(t, h))
}

/// fmi2LastSuccessfulTime: the time.
///
/// # Safety
/// `value` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealStatus(c: Comp, kind: c_int, value: *mut f64) -> Status {
    guard(c, "fmi2GetRealStatus", |h| {
        anyhow::ensure!(
            kind == LAST_SUCCESSFUL_TIME,
            "status kind {kind}: only fmi2LastSuccessfulTime"
        );
        // SAFETY: writable or null by the caller's contract.
        unsafe { put(value, h.instance.time(), "value") }
    })
}

/// fmi2Terminated: false (the FMU never asks to stop).
///
/// # Safety
/// `value` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetBooleanStatus(c: Comp, kind: c_int, value: *mut c_int) -> Status {
    guard(c, "fmi2GetBooleanStatus", |_| {
        anyhow::ensure!(kind == TERMINATED, "status kind {kind}: only fmi2Terminated");
        // SAFETY: writable or null by the caller's contract.
        unsafe { put(value, 0, "value") }
    })
}

/// Saves the current state into `*state` (a new one when null).
///
/// # Safety
/// `state` is null or points to an FMU state pointer.
#[no_mangle]
pub unsafe extern "C" fn fmi2GetFMUstate(c: Comp, state: *mut *mut c_void) -> Status {
    guard(c, "fmi2GetFMUstate", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::get(h, state) }
    })
}

/// Goes back to a saved state.
#[no_mangle]
pub extern "C" fn fmi2SetFMUstate(c: Comp, state: *mut c_void) -> Status {
    guard(c, "fmi2SetFMUstate", |h| state_calls::set(h, state))
}

/// Frees `*state` and sets it to null (null: nothing to free).
///
/// # Safety
/// `state` is null or points to an FMU state pointer.
#[no_mangle]
pub unsafe extern "C" fn fmi2FreeFMUstate(c: Comp, state: *mut *mut c_void) -> Status {
    guard(c, "fmi2FreeFMUstate", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::free(h, state) }
    })
}

/// The size of a serialized state.
///
/// # Safety
/// `size` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(c: Comp, state: *mut c_void, size: *mut usize) -> Status {
    guard(c, "fmi2SerializedFMUstateSize", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::serialized_size(h, state, size) }
    })
}

/// Serializes a state into `bytes` (exactly the size of fmi2SerializedFMUstateSize).
///
/// # Safety
/// `bytes` is null or has room for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: Comp,
    state: *mut c_void,
    bytes: *mut u8,
    size: usize,
) -> Status {
    guard(c, "fmi2SerializeFMUstate", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::serialize(h, state, bytes, size) }
    })
}

/// A new state from serialized bytes.
///
/// # Safety
/// `bytes` is null or holds `size` bytes; `state` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: Comp,
    bytes: *const u8,
    size: usize,
    state: *mut *mut c_void,
) -> Status {
    guard(c, "fmi2DeSerializeFMUstate", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::deserialize(h, bytes, size, state) }
    })
}

/// Getters and setters of value types the FMU has no variables of: fmi2OK for none, else an
/// error.
macro_rules! no_variables_of_type {
    ($($name:ident($ty:ty);)*) => {$(
        #[doc = concat!("No variables of this type: fmi2OK for none, else fmi2Error (", stringify!($name), ").")]
        #[no_mangle]
        pub extern "C" fn $name(c: Comp, _vr: *const Vr, n: usize, _values: $ty) -> Status {
            guard(c, stringify!($name), |_| {
                anyhow::ensure!(n == 0, "the FMU has no variables of this type (asked for {n})");
                Ok(())
            })
        }
    )*};
}

no_variables_of_type! {
    fmi2GetInteger(*mut c_int);
    fmi2GetBoolean(*mut c_int);
    fmi2GetString(*mut *const c_char);
    fmi2SetInteger(*const c_int);
    fmi2SetBoolean(*const c_int);
    fmi2SetString(*const *const c_char);
}

/// Functions of what this FMU does not provide (model exchange, derivatives, asynchronous
/// steps): fmi2Error with a logged message.
macro_rules! unsupported {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("Not provided by this FMU: fmi2Error (", stringify!($name), ").")]
        #[no_mangle]
        pub extern "C" fn $name(c: Comp, $($arg: $ty),*) -> Status {
            $(let _ = $arg;)*
            guard(c, stringify!($name), |_| anyhow::bail!("not provided by this FMU (co-simulation)"))
        }
    )*};
}

unsupported! {
    fmi2GetDirectionalDerivative(unknowns: *const Vr, n_unknowns: usize, knowns: *const Vr, n_knowns: usize, seed: *const f64, sensitivity: *mut f64);
    fmi2EnterEventMode();
    fmi2NewDiscreteStates(event_info: *mut c_void);
    fmi2EnterContinuousTimeMode();
    fmi2CompletedIntegratorStep(no_set_prior: c_int, enter_event_mode: *mut c_int, terminate: *mut c_int);
    fmi2SetTime(time: f64);
    fmi2SetContinuousStates(states: *const f64, n: usize);
    fmi2GetDerivatives(derivatives: *mut f64, n: usize);
    fmi2GetEventIndicators(indicators: *mut f64, n: usize);
    fmi2GetContinuousStates(states: *mut f64, n: usize);
    fmi2GetNominalsOfContinuousStates(nominals: *mut f64, n: usize);
    fmi2SetRealInputDerivatives(vr: *const Vr, n: usize, orders: *const c_int, values: *const f64);
    fmi2GetRealOutputDerivatives(vr: *const Vr, n: usize, orders: *const c_int, values: *mut f64);
    fmi2CancelStep();
    fmi2GetStatus(kind: c_int, value: *mut c_int);
    fmi2GetIntegerStatus(kind: c_int, value: *mut c_int);
    fmi2GetStringStatus(kind: c_int, value: *mut *const c_char);
}
