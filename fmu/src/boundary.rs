//! The C boundary shared by both FMI versions: instance handles (registered, so that a null,
//! freed or foreign pointer is an error status, not a crash), FMU state handles, log
//! messages, and [`guard`], which every entry point runs its body in: errors and caught panics
//! become an error status with a logged message, and no panic crosses the boundary.

use crate::instance::{FmuState, Instance, Phase};
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// fmi2Status / fmi3Status (the same values in both versions).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// fmiOK.
    Ok = 0,
    /// fmiWarning.
    #[allow(dead_code)]
    Warning = 1,
    /// fmiDiscard.
    #[allow(dead_code)]
    Discard = 2,
    /// fmiError.
    Error = 3,
}

/// fmi3LogMessageCallback.
pub type Log3 =
    unsafe extern "C" fn(env: *mut c_void, status: Status, category: *const c_char, message: *const c_char);
/// fmi2CallbackLogger (printf-like: the message is passed with `%` doubled and no arguments).
pub type Log2 = unsafe extern "C" fn(
    env: *mut c_void,
    instance: *const c_char,
    status: Status,
    category: *const c_char,
    message: *const c_char,
    ...
);

/// Where log messages go.
#[derive(Clone, Copy)]
pub enum Logger {
    /// FMI 3.0: the instantiation's callback and environment.
    V3(Option<Log3>, *mut c_void),
    /// FMI 2.0: the callback functions' logger and component environment.
    V2(Option<Log2>, *mut c_void),
}

impl Logger {
    /// Sends `message` (errors always; other messages when logging is on).
    pub fn log(&self, name: &str, status: Status, category: &str, message: &str) {
        let c = |s: &str| CString::new(s.replace('\0', " ")).unwrap_or_default();
        let (category, name) = (c(category), c(name));
        match *self {
            Self::V3(Some(log), env) => {
                let message = c(message);
                // SAFETY: the importer gave this callback and environment for this instance;
                // the strings live until the call returns.
                unsafe { log(env, status, category.as_ptr(), message.as_ptr()) }
            }
            Self::V2(Some(log), env) => {
                let message = c(&message.replace('%', "%%"));
                // SAFETY: as above; no variadic arguments follow the message, whose `%` are
                // doubled so that a printf-like logger prints it as is.
                unsafe { log(env, name.as_ptr(), status, category.as_ptr(), message.as_ptr()) }
            }
            _ => {}
        }
    }
}

/// What an FMI instance pointer points to.
pub struct Handle {
    /// The instance.
    pub instance: Instance,
    /// Its log callback.
    pub logger: Logger,
    /// Log messages other than errors.
    pub logging_on: bool,
    /// The FMU states this instance handed out and has not freed (addresses of `Box<FmuState>`).
    states: Vec<usize>,
}

/// The addresses of the live handles.
static LIVE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<usize>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A new registered handle for the importer.
pub fn register(instance: Instance, logger: Logger, logging_on: bool) -> *mut c_void {
    let handle = Box::new(Handle {
        instance,
        logger,
        logging_on,
        states: Vec::new(),
    });
    let ptr = Box::into_raw(handle);
    live().push(ptr as usize);
    ptr.cast()
}

/// Frees a registered handle and the states it still owns; does nothing for another pointer.
pub fn free(ptr: *mut c_void) {
    let mut live = live();
    let Some(at) = live.iter().position(|&p| p == ptr as usize) else {
        return;
    };
    live.swap_remove(at);
    drop(live);
    // SAFETY: the pointer was registered by `register` (a `Box<Handle>` turned raw) and has
    // just been unregistered, so it is dropped exactly once.
    let handle = unsafe { Box::from_raw(ptr.cast::<Handle>()) };
    for state in &handle.states {
        // SAFETY: each address is a `Box<FmuState>` made by `Handle::new_state` and not freed.
        drop(unsafe { Box::from_raw(*state as *mut FmuState) });
    }
}

impl Handle {
    /// Logs an informational message when logging is on.
    pub fn info(&self, message: &str) {
        if self.logging_on {
            self.logger
                .log(&self.instance.name, Status::Ok, "logStatusOK", message);
        }
    }

    /// Hands out `state` as a new FMU state pointer owned by this instance.
    pub fn new_state(&mut self, state: FmuState) -> *mut c_void {
        let ptr = Box::into_raw(Box::new(state));
        self.states.push(ptr as usize);
        ptr.cast()
    }

    /// The state behind a pointer this instance handed out.
    pub fn state(&self, ptr: *const c_void) -> anyhow::Result<&FmuState> {
        anyhow::ensure!(!ptr.is_null(), "the FMU state is a null pointer");
        anyhow::ensure!(
            self.states.contains(&(ptr as usize)),
            "the FMU state {ptr:?} is not one of this instance's (freed, or another instance's)"
        );
        // SAFETY: registered: a live `Box<FmuState>` of this instance.
        Ok(unsafe { &*ptr.cast::<FmuState>() })
    }

    /// The state behind a pointer this instance handed out, to overwrite.
    pub fn state_mut(&mut self, ptr: *mut c_void) -> anyhow::Result<&mut FmuState> {
        self.state(ptr)?;
        // SAFETY: registered (checked just above), and the importer does not use the state
        // elsewhere during this call.
        Ok(unsafe { &mut *ptr.cast::<FmuState>() })
    }

    /// Frees an FMU state of this instance.
    pub fn free_state(&mut self, ptr: *mut c_void) -> anyhow::Result<()> {
        self.state(ptr)?;
        self.states.retain(|&p| p != ptr as usize);
        // SAFETY: registered until the line above, so dropped exactly once.
        drop(unsafe { Box::from_raw(ptr.cast::<FmuState>()) });
        Ok(())
    }
}

/// Runs `body` on the instance behind `ptr`, inside `catch_unwind`: `Ok` is fmiOK; an error,
/// a null or unknown pointer, or a panic is fmiError, logged with `function`'s name (a panic
/// also leaves the instance failed: reset or free it).
pub fn guard(
    ptr: *mut c_void,
    function: &str,
    body: impl FnOnce(&mut Handle) -> anyhow::Result<()>,
) -> Status {
    if ptr.is_null() || !live().contains(&(ptr as usize)) {
        // No instance, so no logger to tell.
        return Status::Error;
    }
    // SAFETY: a registered, live `Box<Handle>`; FMI forbids calling one instance from two
    // threads at once, so this is the only reference during the call.
    let handle = unsafe { &mut *ptr.cast::<Handle>() };
    let result = catch_unwind(AssertUnwindSafe(|| body(handle)));
    // SAFETY: as above; the closure's borrow ended with `catch_unwind`.
    let handle = unsafe { &mut *ptr.cast::<Handle>() };
    let message = match result {
        Ok(Ok(())) => return Status::Ok,
        Ok(Err(e)) => format!("{function}: {e:#}"),
        Err(panic) => {
            handle.instance.phase = Phase::Failed;
            format!(
                "{function}: internal error (panic caught: {})",
                panic_text(&*panic)
            )
        }
    };
    handle
        .logger
        .log(&handle.instance.name, Status::Error, "logStatusError", &message);
    Status::Error
}

/// Runs an instantiation inside `catch_unwind`; an error or panic is logged through `logger`
/// and gives a null pointer.
pub fn instantiate(
    name: &str,
    logger: Logger,
    logging_on: bool,
    body: impl FnOnce() -> anyhow::Result<Instance>,
) -> *mut c_void {
    let message = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(instance)) => {
            let ptr = register(instance, logger, logging_on);
            if logging_on {
                logger.log(name, Status::Ok, "logStatusOK", "instantiated");
            }
            return ptr;
        }
        Ok(Err(e)) => format!("instantiate: {e:#}"),
        Err(panic) => format!(
            "instantiate: internal error (panic caught: {})",
            panic_text(&*panic)
        ),
    };
    logger.log(name, Status::Error, "logStatusError", &message);
    std::ptr::null_mut()
}

/// Runs `body` (an entry point without an instance) inside `catch_unwind`.
pub fn quietly<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "no message".into()
    }
}

/// A C string argument; an error names `what` when it is null or not UTF-8.
///
/// # Safety
/// `ptr` is null or a NUL-terminated string that lives for `'a`.
pub unsafe fn text<'a>(ptr: *const c_char, what: &str) -> anyhow::Result<&'a str> {
    anyhow::ensure!(!ptr.is_null(), "{what} is a null pointer");
    // SAFETY: non-null, and NUL-terminated by the caller's contract.
    let s = unsafe { CStr::from_ptr(ptr) };
    s.to_str().map_err(|_| anyhow::anyhow!("{what} is not UTF-8"))
}

/// `n` values at `ptr` (none when `n` is 0); an error names `what` when `ptr` is null.
///
/// # Safety
/// `ptr` is null or points to `n` initialised values that live for `'a`.
pub unsafe fn slice<'a, T>(ptr: *const T, n: usize, what: &str) -> anyhow::Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    anyhow::ensure!(!ptr.is_null(), "{what} is a null pointer");
    // SAFETY: non-null, `n` values by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// `n` writable values at `ptr` (none when `n` is 0).
///
/// # Safety
/// `ptr` is null or points to `n` writable values, not aliased during `'a`.
pub unsafe fn slice_mut<'a, T>(ptr: *mut T, n: usize, what: &str) -> anyhow::Result<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    anyhow::ensure!(!ptr.is_null(), "{what} is a null pointer");
    // SAFETY: non-null, `n` writable values by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, n) })
}

/// Writes `value` through an output pointer.
///
/// # Safety
/// `ptr` is null or points to a writable `T`.
pub unsafe fn put<T>(ptr: *mut T, value: T, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(!ptr.is_null(), "{what} is a null pointer");
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { ptr.write(value) };
    Ok(())
}

/// The resources folder from an FMI 3.0 resource path (a folder path) or an FMI 2.0 resource
/// location (a `file:` URI, percent-encoded).
pub fn resources_folder(location: &str) -> std::path::PathBuf {
    let Some(rest) = location.strip_prefix("file:") else {
        return location.into();
    };
    // file:///path, file://localhost/path, file:/path.
    let rest = rest.strip_prefix("//localhost").unwrap_or(rest);
    let rest = if rest.starts_with("///") { &rest[2..] } else { rest };
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris_become_folders() {
        assert_eq!(
            resources_folder("file:///tmp/a%20b/resources"),
            std::path::Path::new("/tmp/a b/resources")
        );
        assert_eq!(resources_folder("file:/tmp/r"), std::path::Path::new("/tmp/r"));
        assert_eq!(
            resources_folder("file://localhost/tmp/r"),
            std::path::Path::new("/tmp/r")
        );
        assert_eq!(resources_folder("/tmp/r/"), std::path::Path::new("/tmp/r/"));
    }

    #[test]
    fn unknown_pointers_are_errors() {
        let mut x = 0u8;
        let ptr = (&mut x as *mut u8).cast();
        assert_eq!(guard(ptr, "test", |_| Ok(())), Status::Error);
        assert_eq!(guard(std::ptr::null_mut(), "test", |_| Ok(())), Status::Error);
    }
}

#[cfg(test)]
mod panic_tests {
    use super::*;
    use crate::instance::tests::hil_arm_resources;

    #[test]
    fn a_panic_is_an_error_status_and_fails_the_instance() {
        let (dir, token) = hil_arm_resources("panic");
        let instance = Instance::new("test", &dir, &token).unwrap();
        let ptr = register(instance, Logger::V3(None, std::ptr::null_mut()), false);
        assert_eq!(guard(ptr, "test", |_| panic!("boom")), Status::Error);
        assert_eq!(
            guard(ptr, "test", |h| {
                anyhow::ensure!(h.instance.phase == Phase::Failed, "not failed");
                Ok(())
            }),
            Status::Ok
        );
        free(ptr);
        assert_eq!(
            guard(ptr, "test", |_| Ok(())),
            Status::Error,
            "a freed instance is unknown"
        );
    }
}
