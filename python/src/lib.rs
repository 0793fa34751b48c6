//! The native module `xla_shape._native` of the Python package `xla_shape`:
//! thin wrappers over the workspace crates (and the `xla-shape` tool's
//! library) that turn their errors into `XlaShapeError`.

mod functions;
mod hlo;
mod relayout;
mod shape;
mod sharding;
mod shardy;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    xla_shape,
    XlaShapeError,
    PyValueError,
    "An input XLA (or numpy) rejects; the message is XLA's."
);

/// `XlaShapeError(message)` from any error.
pub(crate) fn error(message: impl ToString) -> PyErr {
    XlaShapeError::new_err(message.to_string())
}

/// The module: the `Shape` class, the exception and the functions.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("XlaShapeError", m.py().get_type::<XlaShapeError>())?;
    m.add_class::<shape::Shape>()?;
    m.add_function(wrap_pyfunction!(shape::parse, m)?)?;
    m.add_function(wrap_pyfunction!(functions::byte_size, m)?)?;
    m.add_function(wrap_pyfunction!(functions::array_size, m)?)?;
    m.add_function(wrap_pyfunction!(functions::explain, m)?)?;
    m.add_function(wrap_pyfunction!(functions::memory_order, m)?)?;
    m.add_function(wrap_pyfunction!(functions::linear_index, m)?)?;
    m.add_function(wrap_pyfunction!(functions::multi_index, m)?)?;
    m.add_function(wrap_pyfunction!(functions::broadcast, m)?)?;
    m.add_function(wrap_pyfunction!(functions::view, m)?)?;
    m.add_function(wrap_pyfunction!(functions::draw_svg, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::reshard, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::draw_sharding_svg, m)?)?;
    shardy::register(m)?;
    m.add_function(wrap_pyfunction!(hlo::hlo_memory, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::peak_memory, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::memory_timeline_svg, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::peak_memory_text, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::memory_timeline_text_svg, m)?)?;
    m.add_function(wrap_pyfunction!(relayout::relayout_into_array, m)?)?;
    m.add_function(wrap_pyfunction!(relayout::relayout_into_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(relayout::relayout_into, m)?)?;
    Ok(())
}
