//! numpy at the boundary: arrays that view Rust buffers without copying, and arrays given by
//! the caller checked for dtype and shape with a clear exception.

use numpy::ndarray::{ArrayView1, ArrayView2, ShapeBuilder};
use numpy::{PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict};

/// A 1-D float64 array viewing `len` values at `ptr`, kept alive by `owner`; read-only unless
/// `writeable`.
///
/// # Safety
/// The `len` values at `ptr` must stay allocated, in place, for as long as `owner` lives, and
/// be written only while the GIL is held and no Rust reference to them is in use.
pub unsafe fn view1<'py>(
    owner: Bound<'py, PyAny>,
    ptr: *const f64,
    len: usize,
    writeable: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let ptr = if len == 0 {
        std::ptr::NonNull::dangling().as_ptr()
    } else {
        ptr
    };
    // SAFETY: the caller's contract; numpy keeps `owner` as the array's base.
    let array = unsafe {
        let view = ArrayView1::from_shape_ptr(len, ptr);
        PyArray1::borrow_from_array(&view, owner)
    };
    if !writeable {
        read_only(array.as_any())?;
    }
    Ok(array)
}

/// A 2-D float64 array of `rows` × `columns` values at `ptr`, row `i` starting `stride` values
/// after row `i − 1`, kept alive by `owner`; read-only unless `writeable`.
///
/// # Safety
/// As [`view1`], for the `rows` × `stride` values at `ptr`.
pub unsafe fn view2<'py>(
    owner: Bound<'py, PyAny>,
    ptr: *const f64,
    (rows, columns, stride): (usize, usize, usize),
    writeable: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let ptr = if rows * columns == 0 {
        std::ptr::NonNull::dangling().as_ptr()
    } else {
        ptr
    };
    // SAFETY: the caller's contract; numpy keeps `owner` as the array's base.
    let array = unsafe {
        let view = ArrayView2::from_shape_ptr((rows, columns).strides((stride, 1)), ptr);
        PyArray2::borrow_from_array(&view, owner)
    };
    if !writeable {
        read_only(array.as_any())?;
    }
    Ok(array)
}

/// Clears numpy's writeable flag of `array`.
fn read_only(array: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = array.py();
    let kwargs: Bound<'_, PyDict> = [("write", false)].into_py_dict(py)?;
    array.call_method("setflags", (), Some(&kwargs))?;
    Ok(())
}

/// The values of `value` (a numpy array or anything `numpy.asarray` takes) as float64 in C
/// order, checked to have `shape`; `name` says which argument in the messages. A numpy array of
/// another dtype is a `TypeError` (no silent cast), a wrong shape a `ValueError`.
pub fn f64_values(value: &Bound<'_, PyAny>, name: &str, shape: &[usize]) -> PyResult<Vec<f64>> {
    let py = value.py();
    let numpy = py.import("numpy")?;
    let array = match value.cast::<PyUntypedArray>() {
        Ok(array) => {
            let dtype = array.dtype();
            if !dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
                return Err(PyTypeError::new_err(format!(
                    "{name} must be a float64 array, not {}",
                    dtype.str()?
                )));
            }
            array.clone().into_any()
        }
        Err(_) => numpy
            .call_method1("asarray", (value, numpy.getattr("float64")?))
            .map_err(|e| PyTypeError::new_err(format!("{name} must be an array of numbers: {e}")))?,
    };
    let array = array.cast::<PyUntypedArray>()?;
    if array.shape() != shape {
        return Err(PyValueError::new_err(format!(
            "{name} must have shape {}, not {}",
            shape_text(shape),
            shape_text(array.shape())
        )));
    }
    let contiguous = numpy.call_method1("ascontiguousarray", (array,))?;
    let typed = contiguous.cast::<numpy::PyArrayDyn<f64>>()?;
    let values = typed.readonly().as_slice()?.to_vec();
    Ok(values)
}

/// `(2, 3)` as Python writes a shape.
pub fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}
