//! HLO modules' buffers: hlo-util's memory report as a Python `dict`, with
//! the GIL released while the module is read.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::error;

/// `xla-shape --json hlo --all` (less `ok`) as a `dict`: a `str` is the
/// module's text, `bytes` a serialized `HloModuleProto` (or text, told
/// apart by content as the command does).
#[pyfunction]
pub fn hlo_memory<'py>(
    py: Python<'py>,
    module: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let report = if let Ok(text) = module.cast::<PyString>() {
        let text = text.to_cow()?;
        py.detach(|| xla_shape::hlo_memory_text(&text).map_err(|e| e.to_string()))
    } else if let Ok(bytes) = module.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        py.detach(|| xla_shape::hlo_memory(bytes).map_err(|e| e.to_string()))
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a module is a str (its text) or bytes (a serialized HloModuleProto), not {}",
            module.get_type().name()?
        )));
    };
    Ok(pythonize::pythonize(py, &report.map_err(error)?)?)
}
