//! The package's exceptions, and host errors turned into them with the message the CLI prints
//! (`error: {e:#}`: the error and its causes on one line, items by their scene names).

use ferrodyn_host::scene::SceneError as HostSceneError;
use pyo3::exceptions::PyException;
use pyo3::{create_exception, PyErr};

create_exception!(
    ferrodyn,
    FerrodynError,
    PyException,
    "Base class of Ferrodyn's exceptions."
);
create_exception!(
    ferrodyn,
    SceneError,
    FerrodynError,
    "A scene that cannot be read, checked or compiled (file:line, item and reason)."
);
create_exception!(
    ferrodyn,
    StepError,
    FerrodynError,
    "A step that failed; the data stays at its last good state."
);
create_exception!(
    ferrodyn,
    StateError,
    FerrodynError,
    "A value written into a Data's arrays or given to set_state that the model refuses (NaN, infinity); the data goes back to its last good state."
);
create_exception!(
    ferrodyn,
    ModelMismatchError,
    FerrodynError,
    "A Data (or Batch) used with another Model than the one that made it."
);

/// The CLI's text of `error`: the error and its causes on one line.
pub fn cli_text(error: &anyhow::Error) -> String {
    format!("{error:#}")
}

/// A host error as a Python exception: a scene error anywhere in its chain makes it a
/// [`SceneError`], else a [`FerrodynError`].
pub fn host_error(error: anyhow::Error) -> PyErr {
    let text = cli_text(&error);
    if error.chain().any(|cause| cause.is::<HostSceneError>()) {
        SceneError::new_err(text)
    } else {
        FerrodynError::new_err(text)
    }
}

/// A scene or model file that cannot be loaded (read, parsed, imported) as a [`SceneError`].
pub fn load_error(error: anyhow::Error) -> PyErr {
    SceneError::new_err(cli_text(&error))
}

/// A scene error as a [`SceneError`].
pub fn scene_error(error: HostSceneError) -> PyErr {
    SceneError::new_err(cli_text(&error.into()))
}

/// A failed step as a [`StepError`].
pub fn step_error(error: anyhow::Error) -> PyErr {
    StepError::new_err(cli_text(&error))
}
