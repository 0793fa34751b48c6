//! Shards, reshard plans, sharding pictures and HLO modules' buffers: the
//! `xla-shape` tool's library, with the GIL released while a module is read.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use pythonize::pythonize;

use crate::error;
use crate::shape::shape_arg;

/// `xla-shape --json shard` (less `ok`): the shard report as a dict.
#[pyfunction]
#[pyo3(signature = (shape, sharding, devices))]
pub fn shard<'py>(
    shape: &Bound<'py, PyAny>,
    sharding: &str,
    devices: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let report = xla_shape::shard(&shape_arg(shape)?, sharding, devices).map_err(error)?;
    Ok(pythonize(shape.py(), &report)?)
}

/// `xla-shape --json reshard` (less `ok`): the reshard plan as a dict.
#[pyfunction]
#[pyo3(signature = (shape, src, dst, devices))]
pub fn reshard<'py>(
    shape: &Bound<'py, PyAny>,
    src: &str,
    dst: &str,
    devices: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let plan = xla_shape::reshard(&shape_arg(shape)?, src, dst, devices).map_err(error)?;
    Ok(pythonize(shape.py(), &plan)?)
}

/// `xla-shape draw --sharding`: the SVG text.
#[pyfunction]
#[pyo3(signature = (shape, sharding, devices))]
pub fn draw_sharding_svg(
    shape: &Bound<'_, PyAny>,
    sharding: &str,
    devices: Option<i64>,
) -> PyResult<String> {
    xla_shape::draw_sharding(&shape_arg(shape)?, sharding, devices).map_err(error)
}

/// `xla-shape --json hlo --all` (less `ok`) as JSON text: a `str` is the
/// module's text, `bytes` a serialized `HloModuleProto` (or text, told
/// apart by content as the command does).
#[pyfunction]
pub fn hlo_memory_json(py: Python<'_>, module: &Bound<'_, PyAny>) -> PyResult<String> {
    let fields = if let Ok(text) = module.cast::<PyString>() {
        let text = text.to_cow()?;
        py.detach(|| xla_shape::hlo_memory_text(&text))
    } else if let Ok(bytes) = module.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        py.detach(|| xla_shape::hlo_memory(bytes))
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a module is a str (its text) or bytes (a serialized HloModuleProto), not {}",
            module.get_type().name()?
        )));
    };
    Ok(fields.map_err(error)?.to_string())
}
