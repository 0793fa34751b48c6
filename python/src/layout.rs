//! `Layout`: an XLA `LayoutProto` (the prost `schema::Layout`) as a shape
//! carries it.

use pyo3::prelude::*;

/// An XLA layout (a `LayoutProto` message): `str` is XLA's text
/// (`{1,0:T(8,128)}`).
#[pyclass(module = "xla_shape", frozen)]
#[derive(Clone, PartialEq)]
pub struct Layout {
    pub(crate) inner: schema::Layout,
}

#[pymethods]
impl Layout {
    /// XLA's text of the layout.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Layout('{}')", self.inner)
    }

    /// Equal to a `Layout` with the same `LayoutProto`, or to its text.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(layout) = other.cast::<Layout>() {
            return layout.get().inner == self.inner;
        }
        other
            .extract::<String>()
            .is_ok_and(|text| text == self.inner.to_string())
    }

    /// The hash of XLA's text of the layout.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        pyo3::types::PyString::new(py, &self.inner.to_string()).hash()
    }

    /// Dimension numbers from the most minor to the most major.
    #[getter]
    fn minor_to_major(&self) -> Vec<i64> {
        self.inner.minor_to_major.clone()
    }

    /// The tiles, outermost first, each its sizes (`-2**63` for `*`,
    /// XLA's combined dimension).
    #[getter]
    fn tiles(&self) -> Vec<Vec<i64>> {
        self.inner
            .tiles
            .iter()
            .map(|t| t.dimensions.clone())
            .collect()
    }

    /// The bits of each element in the buffer (0: the element type's).
    #[getter]
    fn element_size_in_bits(&self) -> i64 {
        self.inner.element_size_in_bits
    }

    /// The memory space (0: the default; `S(n)` in the text).
    #[getter]
    fn memory_space(&self) -> i64 {
        self.inner.memory_space
    }

    /// The padded dimension sizes of a classic padded layout (empty
    /// without).
    #[getter]
    fn padded_dimensions(&self) -> Vec<i64> {
        self.inner.padded_dimensions.clone()
    }
}
