//! `relayout`: a buffer of one XLA layout copied into a new buffer of
//! another layout of the same array, read in place and written with the GIL
//! released.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use relayout::relayout_xla;

use crate::error;
use crate::shape::shape_arg;

/// The two shapes, checked to be the same array, with the byte size of the
/// destination buffer; `len` must be the source buffer's byte size.
fn plan(
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    len: usize,
) -> PyResult<(schema::Shape, schema::Shape, usize)> {
    let (src, dst) = (shape_arg(src)?, shape_arg(dst)?);
    if src.element_type != dst.element_type || src.dimensions != dst.dimensions {
        return Err(error(format!(
            "source {} and destination {} are not the same array: element types and dimensions must match",
            src.human_string_with_layout(),
            dst.human_string_with_layout()
        )));
    }
    let size = |shape: &schema::Shape| -> PyResult<usize> {
        let bytes = shape_util::array_size(shape).map_err(error)?;
        usize::try_from(bytes)
            .map_err(|_| error(format!("a buffer of {shape} takes {bytes} bytes")))
    };
    let expected = size(&src)?;
    if len != expected {
        return Err(error(format!(
            "data has {len} bytes but a buffer of {src} has {expected}"
        )));
    }
    let dst_len = size(&dst)?;
    Ok((src, dst, dst_len))
}

/// Relayouts the bytes of `data` (a contiguous 1-D `uint8` array, which may
/// view any buffer) into a new `uint8` array.
#[pyfunction]
pub fn relayout_into_array<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    src: &Bound<'py, PyAny>,
    dst: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let (src_shape, dst_shape, dst_len) = plan(src, dst, data.len())?;
    let input = data.as_slice().map_err(error)?;
    let out = PyArray1::<u8>::zeros(py, dst_len, false);
    {
        let mut writer = out.try_readwrite().map_err(error)?;
        let output = writer.as_slice_mut().map_err(error)?;
        py.detach(|| relayout_xla(input, &src_shape, output, &dst_shape))
            .map_err(error)?;
    }
    Ok(out)
}

/// Relayouts the bytes of `data` (as for [`relayout_into_array`]) into new
/// `bytes`.
#[pyfunction]
pub fn relayout_into_bytes<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    src: &Bound<'py, PyAny>,
    dst: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (src_shape, dst_shape, dst_len) = plan(src, dst, data.len())?;
    let input = data.as_slice().map_err(error)?;
    PyBytes::new_with(py, dst_len, |output| {
        py.detach(|| relayout_xla(input, &src_shape, output, &dst_shape))
            .map_err(error)
    })
}

/// Relayouts the bytes of `data` (as for [`relayout_into_array`]) into
/// `out`, a contiguous 1-D `uint8` array (which may view any writable
/// buffer) of the destination's byte size.
#[pyfunction]
pub fn relayout_into<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    src: &Bound<'py, PyAny>,
    dst: &Bound<'py, PyAny>,
    mut out: PyReadwriteArray1<'py, u8>,
) -> PyResult<()> {
    let (src_shape, dst_shape, dst_len) = plan(src, dst, data.len())?;
    if out.len() != dst_len {
        return Err(error(format!(
            "out has {} bytes but a buffer of {dst_shape} has {dst_len}",
            out.len()
        )));
    }
    let input = data.as_slice().map_err(error)?;
    let output = out.as_slice_mut().map_err(error)?;
    py.detach(|| relayout_xla(input, &src_shape, output, &dst_shape))
        .map_err(error)
}
