//! A peak report kept on the Rust side ([`Peak`]), so that its groupings,
//! flame graph, pprof profile and diff are drawn from it without reading
//! the module again: what `PeakReport.by_source()`, `.flame()`,
//! `.to_pprof()` and `.diff()` call.

use hlo_util::{GroupBy, PeakDiff, PeakReport, group_at_peak};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::library_error;
use crate::hlo::with_dump;

/// The peak of a module's text or of XLA's dump, as read once.
#[pyclass(frozen, module = "xla_shape._native")]
pub struct Peak {
    report: PeakReport,
    /// The dump's path, which the pictures and the profile name.
    file: Option<String>,
}

#[pymethods]
impl Peak {
    /// The bytes live at the peak grouped `by` (`source`, `function`,
    /// `stack`, `op`, `pass`, `kind`): rows of `key`, `bytes`, `buffers`,
    /// `percent`, largest first.
    fn groups<'py>(&self, py: Python<'py>, by: &str) -> PyResult<Bound<'py, PyAny>> {
        let by: GroupBy = by
            .parse()
            .map_err(pyo3::exceptions::PyValueError::new_err)?;
        Ok(pythonize::pythonize(py, &group_at_peak(&self.report, by))?)
    }

    /// The flame graph (`xla-shape hlo FILE --peak --flame OUT.svg`, less
    /// the final newline).
    fn flame_svg(&self, py: Python<'_>) -> String {
        py.detach(|| xla_shape_front::peak_flame_graph(self.file.as_deref(), &self.report))
    }

    /// The gzipped pprof profile (`--pprof OUT`).
    fn pprof<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| xla_shape_front::peak_pprof(self.file.as_deref(), &self.report))
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// `other`'s peak against this one (`hlo A --peak --diff B`).
    fn diff<'py>(&self, py: Python<'py>, other: &Peak) -> PyResult<Bound<'py, PyAny>> {
        Ok(pythonize::pythonize(
            py,
            &PeakDiff::new(&self.report, &other.report),
        )?)
    }
}

/// The peak of `x`, read once: with `text` the module's text (a `str`),
/// else XLA's dump (bytes, or a path); the report as a `dict` (what
/// `peak_memory_text` or `peak_memory` return) and the [`Peak`] it came
/// from.
#[pyfunction]
pub fn peak_report<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    text: bool,
) -> PyResult<(Bound<'py, PyAny>, Peak)> {
    if text {
        let text = x.cast::<PyString>()?.to_cow()?;
        let memory = py
            .detach(|| xla_shape_front::module_peak_memory(text.as_bytes()))
            .map_err(library_error)?;
        let dict = pythonize::pythonize(py, &memory)?;
        let peak = Peak {
            report: memory.peak,
            file: None,
        };
        return Ok((dict, peak));
    }
    let (report, file) = with_dump(py, x, |d, file| {
        d.peak()
            .map(|r| (r, file.map(str::to_owned)))
            .map_err(|e| e.to_string())
    })?;
    let dict = pythonize::pythonize(py, &report)?;
    Ok((dict, Peak { report, file }))
}
