//! HLO modules' buffers: hlo-util's memory report, and the peak report of
//! XLA's dumps or of a module's text, as Python `dict`s (and their timeline
//! picture), with the GIL released while they are read.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::{hlo_error, library_error};

/// `xla-shape --json hlo --all` (less `ok`) as a `dict`: a `str` is the
/// module's text, `bytes` a serialized `HloModuleProto` (or text, told
/// apart by content as the command does).
#[pyfunction]
pub fn hlo_memory<'py>(py: Python<'py>, module: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let report = if let Ok(text) = module.cast::<PyString>() {
        let text = text.to_cow()?;
        py.detach(|| xla_shape_front::hlo_memory_text(&text).map_err(|e| e.to_string()))
    } else if let Ok(bytes) = module.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        py.detach(|| xla_shape_front::hlo_memory(bytes).map_err(|e| e.to_string()))
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a module is a str (its text) or bytes (a serialized HloModuleProto), not {}",
            module.get_type().name()?
        )));
    };
    Ok(pythonize::pythonize(py, &report.map_err(hlo_error)?)?)
}

/// Calls `f` with the dump `dump` names (`bytes`: a serialized `HloProto`;
/// `str`: the path of one of XLA's dumps) and the path, with the GIL
/// released.
pub(crate) fn with_dump<T: Send>(
    py: Python<'_>,
    dump: &Bound<'_, PyAny>,
    f: impl FnOnce(xla_shape_front::MemoryDump<'_>, Option<&str>) -> Result<T, String> + Send,
) -> PyResult<T> {
    if let Ok(bytes) = dump.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        return py
            .detach(|| f(xla_shape_front::MemoryDump::Proto(bytes), None))
            .map_err(hlo_error);
    }
    let Ok(path) = dump.cast::<PyString>() else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a dump is bytes (a serialized HloProto) or a path, not {}",
            dump.get_type().name()?
        )));
    };
    let path = path.to_cow()?.into_owned();
    py.detach(|| {
        let files = xla_shape_front::DumpFiles::read(std::path::Path::new(&path), None)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                format!(
                    "{path}: not one of XLA's dumps (*after_optimizations.hlo.pb, \
                     *-buffer-assignment.txt)"
                )
            })?;
        f(files.dump(), Some(&path))
    })
    .map_err(hlo_error)
}

/// `xla-shape --json hlo DUMP` (less `ok`, every live buffer) as a `dict`.
#[pyfunction]
pub fn peak_memory<'py>(py: Python<'py>, dump: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let report = with_dump(py, dump, |d, _| d.peak().map_err(|e| e.to_string()))?;
    Ok(pythonize::pythonize(py, &report)?)
}

/// The SVG `xla-shape hlo DUMP --timeline OUT.svg` writes (less its final
/// newline).
#[pyfunction]
pub fn memory_timeline_svg(py: Python<'_>, dump: &Bound<'_, PyAny>) -> PyResult<String> {
    with_dump(py, dump, |d, file| {
        xla_shape_front::memory_timeline(file, d).map_err(|e| e.to_string())
    })
}

/// `xla-shape --json hlo FILE --peak` (less `ok`, every buffer) of the
/// module's text as a `dict`.
#[pyfunction]
pub fn peak_memory_text<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let memory = py
        .detach(|| xla_shape_front::module_peak_memory(text.as_bytes()))
        .map_err(library_error)?;
    Ok(pythonize::pythonize(py, &memory)?)
}

/// The SVG `xla-shape hlo FILE --timeline OUT.svg` writes of the module's
/// text (less its final newline).
#[pyfunction]
pub fn memory_timeline_text_svg(py: Python<'_>, text: &str) -> PyResult<String> {
    py.detach(|| {
        xla_shape_front::module_peak_memory(text.as_bytes())
            .map(|memory| xla_shape_front::module_memory_timeline(None, &memory))
    })
    .map_err(library_error)
}

/// Whether `text` is StableHLO (jax's `lowered.as_text()`), which the HLO
/// functions refuse with the message `STABLEHLO`: hlo-util's `InputKind`.
#[pyfunction]
pub fn is_stablehlo(text: &str) -> bool {
    hlo_util::InputKind::of(text.as_bytes()) == hlo_util::InputKind::StableHlo
}

/// hlo-util's message refusing StableHLO where a module's text is wanted.
pub fn stablehlo_message() -> String {
    hlo_util::NotModuleText::StableHlo.to_string()
}
