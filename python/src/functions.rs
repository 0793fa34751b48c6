//! Sizes, memory order, indices, broadcasting, views and pictures: each a
//! call into the workspace crates or the `xla-shape` tool's library.

use index_util::TiledLayout;
use pyo3::prelude::*;
use pythonize::pythonize;

use crate::errors::{error, invalid_shape, library_error};
use crate::shape::shape_arg;

/// XLA's `ShapeUtil::ByteSizeOf`; tuples need `pointer_size`.
#[pyfunction]
#[pyo3(signature = (shape, pointer_size = None))]
pub fn byte_size(shape: &Bound<'_, PyAny>, pointer_size: Option<i64>) -> PyResult<i64> {
    shape_util::byte_size_of(&shape_arg(shape)?, pointer_size).map_err(error)
}

/// XLA's `ShapeUtil::ArraySize`: the bytes of the buffer, tiles included.
#[pyfunction]
pub fn array_size(shape: &Bound<'_, PyAny>) -> PyResult<i64> {
    shape_util::array_size(&shape_arg(shape)?).map_err(invalid_shape)
}

/// The facts `xla-shape --json explain` prints, as a dict (of the typed
/// `shape_util::Explanation`).
#[pyfunction]
pub fn explain<'py>(shape: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let report = xla_shape_front::explain(&shape_arg(shape)?).map_err(library_error)?;
    Ok(pythonize(shape.py(), &report)?)
}

/// The logical element (row-major index) at each buffer position, `None`
/// for padding; up to 2^20 positions, listed with the GIL released.
#[pyfunction]
pub fn memory_order(py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<Vec<Option<i64>>> {
    let shape = shape_arg(shape)?;
    py.detach(|| xla_shape_front::memory_order(&shape))
        .map_err(library_error)
}

/// The buffer of `shape`, tiles included.
fn buffer(shape: &Bound<'_, PyAny>) -> PyResult<TiledLayout> {
    TiledLayout::new(&shape_arg(shape)?).map_err(invalid_shape)
}

/// The buffer position of the element at `multi`.
#[pyfunction]
pub fn linear_index(shape: &Bound<'_, PyAny>, multi: Vec<i64>) -> PyResult<i64> {
    buffer(shape)?.position(&multi).map_err(error)
}

/// The index of the element at buffer position `linear`.
#[pyfunction]
pub fn multi_index(shape: &Bound<'_, PyAny>, linear: i64) -> PyResult<Vec<i64>> {
    buffer(shape)?
        .logical(linear)
        .map_err(error)?
        .ok_or_else(|| error(format!("linear index {linear} falls in the padding")))
}

/// `xla-shape broadcast`: shapes are strings (or bare `[d0,...]` lists).
#[pyfunction]
#[pyo3(signature = (shapes, dims, in_dim, numpy))]
pub fn broadcast(
    shapes: Vec<String>,
    dims: Option<Vec<i64>>,
    in_dim: bool,
    numpy: bool,
) -> PyResult<String> {
    let dims = dims.unwrap_or_default();
    let rule = if numpy {
        xla_shape_front::BroadcastRule::Numpy
    } else if in_dim {
        xla_shape_front::BroadcastRule::InDim { dims }
    } else {
        xla_shape_front::BroadcastRule::Elementwise { dims }
    };
    xla_shape_front::broadcast(&shapes, &rule)
        .map(|result| result.to_string())
        .map_err(library_error)
}

/// The view `xla-shape --json view` prints, as a dict.
#[pyfunction]
pub fn view<'py>(py: Python<'py>, base: &str, ops: Vec<String>) -> PyResult<Bound<'py, PyAny>> {
    let report = xla_shape_front::view(base, &ops).map_err(library_error)?;
    Ok(pythonize(py, &report)?)
}

/// `xla-shape draw`: the SVG text, drawn with the GIL released.
#[pyfunction]
pub fn draw_svg(py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<String> {
    let shape = shape_arg(shape)?;
    py.detach(|| xla_shape_front::draw(&shape))
        .map_err(library_error)
}

/// `xla-shape draw --view`: the SVG text of the view after `ops` on
/// `base`, drawn with the GIL released.
#[pyfunction]
pub fn draw_view_svg(py: Python<'_>, base: &str, ops: Vec<String>) -> PyResult<String> {
    py.detach(|| xla_shape_front::draw_view(base, &ops))
        .map_err(library_error)
}
