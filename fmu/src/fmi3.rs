//! The FMI 3.0 C API (fmi3Functions.h), co-simulation: every function of the header is
//! exported; those of model exchange, scheduled execution, clocks, events, derivatives and
//! variable types the FMU has none of return fmi3Error with a logged message (or fmi3OK when
//! asked for no values). Pointers are checked; every body runs in [`guard`].

use crate::boundary::{
    guard, instantiate, put, quietly, resources_folder, slice, slice_mut, text, Log3, Logger, Status,
};
use crate::instance::Instance;
use crate::state_calls;
use std::ffi::{c_char, c_void};

type Inst = *mut c_void;
type Vr = u32;

/// "3.0".
#[no_mangle]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    c"3.0".as_ptr()
}

/// Turns messages other than errors on or off (categories are not used).
#[no_mangle]
pub extern "C" fn fmi3SetDebugLogging(
    instance: Inst,
    logging_on: bool,
    _n: usize,
    _categories: *const *const c_char,
) -> Status {
    guard(instance, "fmi3SetDebugLogging", |h| {
        h.logging_on = logging_on;
        Ok(())
    })
}

/// A co-simulation instance of the scene in `resource_path`, or null (with a logged message).
///
/// # Safety
/// The strings are null or NUL-terminated; `log` is null or a valid callback.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    name: *const c_char,
    token: *const c_char,
    resource_path: *const c_char,
    _visible: bool,
    logging_on: bool,
    event_mode_used: bool,
    _early_return_allowed: bool,
    _required_intermediate: *const Vr,
    _n_required_intermediate: usize,
    environment: *mut c_void,
    log: Option<Log3>,
    _intermediate_update: *mut c_void,
) -> Inst {
    let logger = Logger::V3(log, environment);
    // SAFETY: NUL-terminated or null by the caller's contract.
    let instance_name = quietly(String::new(), || {
        unsafe { text(name, "instanceName") }.unwrap_or("").to_string()
    });
    instantiate(&instance_name, logger, logging_on, || {
        // SAFETY: as above.
        let (token, resources) = unsafe {
            (
                text(token, "instantiationToken")?,
                text(resource_path, "resourcePath")?,
            )
        };
        // FMI 3.0 (4.2.1): with hasEventMode = false, eventModeUsed = true must fail here.
        anyhow::ensure!(
            !event_mode_used,
            "eventModeUsed = true: this FMU has no event mode (hasEventMode = false)"
        );
        Instance::new(&instance_name, &resources_folder(resources), token)
    })
}

/// Model exchange is not provided: null, with a logged message.
///
/// # Safety
/// `log` is null or a valid callback.
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateModelExchange(
    _name: *const c_char,
    _token: *const c_char,
    _resource_path: *const c_char,
    _visible: bool,
    _logging_on: bool,
    environment: *mut c_void,
    log: Option<Log3>,
) -> Inst {
    instantiate("", Logger::V3(log, environment), false, || {
        anyhow::bail!("this FMU provides co-simulation only")
    })
}

/// Scheduled execution is not provided: null, with a logged message.
///
/// # Safety
/// `log` is null or a valid callback.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    _name: *const c_char,
    _token: *const c_char,
    _resource_path: *const c_char,
    _visible: bool,
    _logging_on: bool,
    environment: *mut c_void,
    log: Option<Log3>,
    _clock_update: *mut c_void,
    _lock_preemption: *mut c_void,
    _unlock_preemption: *mut c_void,
) -> Inst {
    instantiate("", Logger::V3(log, environment), false, || {
        anyhow::bail!("this FMU provides co-simulation only")
    })
}

/// Frees the instance and the FMU states it still owns (a null or unknown pointer: nothing).
#[no_mangle]
pub extern "C" fn fmi3FreeInstance(instance: Inst) {
    quietly((), || crate::boundary::free(instance));
}

/// Enters initialization mode (the start time must be 0, the scene's).
#[no_mangle]
pub extern "C" fn fmi3EnterInitializationMode(
    instance: Inst,
    _tolerance_defined: bool,
    _tolerance: f64,
    start_time: f64,
    _stop_time_defined: bool,
    _stop_time: f64,
) -> Status {
    guard(instance, "fmi3EnterInitializationMode", |h| {
        h.instance.enter_initialization(start_time)
    })
}

/// Leaves initialization mode for step mode.
#[no_mangle]
pub extern "C" fn fmi3ExitInitializationMode(instance: Inst) -> Status {
    guard(instance, "fmi3ExitInitializationMode", |h| {
        h.instance.exit_initialization()
    })
}

/// Terminates the simulation.
#[no_mangle]
pub extern "C" fn fmi3Terminate(instance: Inst) -> Status {
    guard(instance, "fmi3Terminate", |h| {
        h.instance.terminate()?;
        h.info(&format!("terminated at t = {} s", h.instance.time()));
        Ok(())
    })
}

/// Back to the scene's initial state, instantiated.
#[no_mangle]
pub extern "C" fn fmi3Reset(instance: Inst) -> Status {
    guard(instance, "fmi3Reset", |h| h.instance.reset())
}

/// Reads time, inputs and sensor outputs.
///
/// # Safety
/// `vr` holds `n_vr` references and `values` room for `n_values` values (or they are null).
#[no_mangle]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: Inst,
    vr: *const Vr,
    n_vr: usize,
    values: *mut f64,
    n_values: usize,
) -> Status {
    guard(instance, "fmi3GetFloat64", |h| {
        // SAFETY: sizes and pointers by the caller's contract; null is an error.
        let (vr, values) = unsafe {
            (
                slice(vr, n_vr, "valueReferences")?,
                slice_mut(values, n_values, "values")?,
            )
        };
        h.instance.get(vr, values)
    })
}

/// Sets inputs (finite values only; all are checked before any is set).
///
/// # Safety
/// `vr` holds `n_vr` references and `values` `n_values` values (or they are null).
#[no_mangle]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: Inst,
    vr: *const Vr,
    n_vr: usize,
    values: *const f64,
    n_values: usize,
) -> Status {
    guard(instance, "fmi3SetFloat64", |h| {
        // SAFETY: sizes and pointers by the caller's contract; null is an error.
        let (vr, values) = unsafe {
            (
                slice(vr, n_vr, "valueReferences")?,
                slice(values, n_values, "values")?,
            )
        };
        h.instance.set(vr, values)
    })
}

/// Advances by `h` from `t` (a whole number of the scene's steps).
///
/// # Safety
/// The output pointers are null or writable.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub unsafe extern "C" fn fmi3DoStep(
    instance: Inst,
    t: f64,
    h: f64,
    _no_set_state_prior: bool,
    event_handling_needed: *mut bool,
    terminate_simulation: *mut bool,
    early_return: *mut bool,
    last_successful_time: *mut f64,
) -> Status {
    guard(instance, "fmi3DoStep", |handle| {
        // SAFETY: writable or null by the caller's contract; null is an error, found before
        // the step so that it changes nothing.
        unsafe {
            put(event_handling_needed, false, "eventHandlingNeeded")?;
            put(terminate_simulation, false, "terminateSimulation")?;
            put(early_return, false, "earlyReturn")?;
            put(last_successful_time, handle.instance.time(), "lastSuccessfulTime")?;
        }
        let result = handle.instance.do_step(t, h);
        // SAFETY: checked non-null and writable just above.
        unsafe { last_successful_time.write(handle.instance.time()) };
        result
    })
}

/// Saves the current state into `*state` (a new one when null).
///
/// # Safety
/// `state` is null or points to an FMU state pointer.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetFMUState(instance: Inst, state: *mut *mut c_void) -> Status {
    guard(instance, "fmi3GetFMUState", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::get(h, state) }
    })
}

/// Goes back to a saved state.
#[no_mangle]
pub extern "C" fn fmi3SetFMUState(instance: Inst, state: *mut c_void) -> Status {
    guard(instance, "fmi3SetFMUState", |h| state_calls::set(h, state))
}

/// Frees `*state` and sets it to null (null: nothing to free).
///
/// # Safety
/// `state` is null or points to an FMU state pointer.
#[no_mangle]
pub unsafe extern "C" fn fmi3FreeFMUState(instance: Inst, state: *mut *mut c_void) -> Status {
    guard(instance, "fmi3FreeFMUState", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::free(h, state) }
    })
}

/// The size of a serialized state.
///
/// # Safety
/// `size` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: Inst,
    state: *mut c_void,
    size: *mut usize,
) -> Status {
    guard(instance, "fmi3SerializedFMUStateSize", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::serialized_size(h, state, size) }
    })
}

/// Serializes a state into `bytes` (exactly the size of fmi3SerializedFMUStateSize).
///
/// # Safety
/// `bytes` is null or has room for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: Inst,
    state: *mut c_void,
    bytes: *mut u8,
    size: usize,
) -> Status {
    guard(instance, "fmi3SerializeFMUState", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::serialize(h, state, bytes, size) }
    })
}

/// A new state from serialized bytes.
///
/// # Safety
/// `bytes` is null or holds `size` bytes; `state` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: Inst,
    bytes: *const u8,
    size: usize,
    state: *mut *mut c_void,
) -> Status {
    guard(instance, "fmi3DeserializeFMUState", |h| {
        // SAFETY: passed on from the caller.
        unsafe { state_calls::deserialize(h, bytes, size, state) }
    })
}

/// No output depends on anything (sensors read positions and velocities): 0 dependencies.
///
/// # Safety
/// `n` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: Inst,
    vr: Vr,
    n: *mut usize,
) -> Status {
    guard(instance, "fmi3GetNumberOfVariableDependencies", |h| {
        h.instance.get(&[vr], &mut [0.0])?;
        // SAFETY: writable or null by the caller's contract.
        unsafe { put(n, 0, "nDependencies") }
    })
}

/// No dependencies to list: fmi3OK for 0 of them.
#[no_mangle]
pub extern "C" fn fmi3GetVariableDependencies(
    instance: Inst,
    _dependent: Vr,
    _element_indices_dependent: *mut usize,
    _independents: *mut Vr,
    _element_indices_independents: *mut usize,
    _kinds: *mut c_void,
    n: usize,
) -> Status {
    guard(instance, "fmi3GetVariableDependencies", |_| {
        anyhow::ensure!(n == 0, "no variable has dependencies (asked for {n})");
        Ok(())
    })
}

/// Getters and setters of value types the FMU has no variables of: fmi3OK for none, else an
/// error.
macro_rules! no_variables_of_type {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("No variables of this type: fmi3OK for none, else fmi3Error (", stringify!($name), ").")]
        #[no_mangle]
        pub extern "C" fn $name(instance: Inst, _vr: *const Vr, n_vr: usize, $($arg: $ty),*) -> Status {
            $(let _ = $arg;)*
            guard(instance, stringify!($name), |_| {
                anyhow::ensure!(n_vr == 0, "the FMU has no variables of this type (asked for {n_vr})");
                Ok(())
            })
        }
    )*};
}

no_variables_of_type! {
    fmi3GetFloat32(values: *mut f32, n_values: usize);
    fmi3GetInt8(values: *mut i8, n_values: usize);
    fmi3GetUInt8(values: *mut u8, n_values: usize);
    fmi3GetInt16(values: *mut i16, n_values: usize);
    fmi3GetUInt16(values: *mut u16, n_values: usize);
    fmi3GetInt32(values: *mut i32, n_values: usize);
    fmi3GetUInt32(values: *mut u32, n_values: usize);
    fmi3GetInt64(values: *mut i64, n_values: usize);
    fmi3GetUInt64(values: *mut u64, n_values: usize);
    fmi3GetBoolean(values: *mut bool, n_values: usize);
    fmi3GetString(values: *mut *const c_char, n_values: usize);
    fmi3GetBinary(sizes: *mut usize, values: *mut *const u8, n_values: usize);
    fmi3GetClock(values: *mut bool);
    fmi3SetFloat32(values: *const f32, n_values: usize);
    fmi3SetInt8(values: *const i8, n_values: usize);
    fmi3SetUInt8(values: *const u8, n_values: usize);
    fmi3SetInt16(values: *const i16, n_values: usize);
    fmi3SetUInt16(values: *const u16, n_values: usize);
    fmi3SetInt32(values: *const i32, n_values: usize);
    fmi3SetUInt32(values: *const u32, n_values: usize);
    fmi3SetInt64(values: *const i64, n_values: usize);
    fmi3SetUInt64(values: *const u64, n_values: usize);
    fmi3SetBoolean(values: *const bool, n_values: usize);
    fmi3SetString(values: *const *const c_char, n_values: usize);
    fmi3SetBinary(sizes: *const usize, values: *const *const u8, n_values: usize);
    fmi3SetClock(values: *const bool);
    fmi3GetIntervalDecimal(intervals: *mut f64, qualifiers: *mut i32);
    fmi3GetIntervalFraction(counters: *mut u64, resolutions: *mut u64, qualifiers: *mut i32);
    fmi3GetShiftDecimal(shifts: *mut f64);
    fmi3GetShiftFraction(counters: *mut u64, resolutions: *mut u64);
    fmi3SetIntervalDecimal(intervals: *const f64);
    fmi3SetIntervalFraction(counters: *const u64, resolutions: *const u64);
    fmi3SetShiftDecimal(shifts: *const f64);
    fmi3SetShiftFraction(counters: *const u64, resolutions: *const u64);
    fmi3GetOutputDerivatives(orders: *const i32, values: *mut f64, n_values: usize);
}

/// Functions of what this FMU does not provide (model exchange, events, configuration mode,
/// derivatives, scheduled execution): fmi3Error with a logged message.
macro_rules! unsupported {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("Not provided by this FMU: fmi3Error (", stringify!($name), ").")]
        #[no_mangle]
        pub extern "C" fn $name(instance: Inst, $($arg: $ty),*) -> Status {
            $(let _ = $arg;)*
            guard(instance, stringify!($name), |_| {
                anyhow::bail!("not provided by this FMU (co-simulation without event mode)")
            })
        }
    )*};
}

unsupported! {
    fmi3EnterEventMode();
    fmi3EnterStepMode();
    fmi3EnterConfigurationMode();
    fmi3ExitConfigurationMode();
    fmi3EvaluateDiscreteStates();
    fmi3UpdateDiscreteStates(need_update: *mut bool, terminate: *mut bool, nominals_changed: *mut bool, values_changed: *mut bool, next_defined: *mut bool, next_time: *mut f64);
    fmi3EnterContinuousTimeMode();
    fmi3CompletedIntegratorStep(no_set_prior: bool, enter_event_mode: *mut bool, terminate: *mut bool);
    fmi3SetTime(time: f64);
    fmi3SetContinuousStates(states: *const f64, n: usize);
    fmi3GetContinuousStateDerivatives(derivatives: *mut f64, n: usize);
    fmi3GetEventIndicators(indicators: *mut f64, n: usize);
    fmi3GetContinuousStates(states: *mut f64, n: usize);
    fmi3GetNominalsOfContinuousStates(nominals: *mut f64, n: usize);
    fmi3GetNumberOfEventIndicators(n: *mut usize);
    fmi3GetNumberOfContinuousStates(n: *mut usize);
    fmi3GetDirectionalDerivative(unknowns: *const Vr, n_unknowns: usize, knowns: *const Vr, n_knowns: usize, seed: *const f64, n_seed: usize, sensitivity: *mut f64, n_sensitivity: usize);
    fmi3GetAdjointDerivative(unknowns: *const Vr, n_unknowns: usize, knowns: *const Vr, n_knowns: usize, seed: *const f64, n_seed: usize, sensitivity: *mut f64, n_sensitivity: usize);
    fmi3ActivateModelPartition(clock: Vr, activation_time: f64);
}
