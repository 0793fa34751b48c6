//! `Shape`: an XLA `ShapeProto` (the prost `schema::Shape`), and the
//! conversion of every `shape` argument (a string or a `Shape`).

use prost::Message;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use schema::PrimitiveType;

use crate::error;

/// An XLA shape (a `ShapeProto` message).
#[pyclass(module = "xla_shape", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Shape {
    pub(crate) inner: schema::Shape,
}

/// Parses an XLA shape string as XLA's parser does (an array without a
/// layout gets XLA's default layout).
pub(crate) fn parse_text(text: &str) -> PyResult<schema::Shape> {
    text.trim()
        .parse()
        .map_err(|e: schema::ParseError| error(e))
}

/// A `shape` argument: a `Shape`, or a string parsed as [`parse_text`] does.
pub(crate) fn shape_arg(arg: &Bound<'_, PyAny>) -> PyResult<schema::Shape> {
    if let Ok(shape) = arg.cast::<Shape>() {
        return Ok(shape.get().inner.clone());
    }
    match arg.extract::<String>() {
        Ok(text) => parse_text(&text),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a shape is a string or an xla_shape.Shape, not {}",
            arg.get_type().name()?
        ))),
    }
}

/// Parses an XLA shape string as XLA's parser does: an array written
/// without a layout gets XLA's default layout.
#[pyfunction]
pub fn parse(text: &str) -> PyResult<Shape> {
    Ok(Shape {
        inner: parse_text(text)?,
    })
}

#[pymethods]
impl Shape {
    /// `Shape(text)`: the same as `parse(text)`.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        parse(text)
    }

    /// XLA's string of the shape, layout included.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Shape('{}')", self.inner)
    }

    /// The serialized `ShapeProto`, byte for byte as XLA writes it.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.encode_to_vec())
    }

    /// The shape a serialized `ShapeProto` holds.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        schema::Shape::decode(data)
            .map(|inner| Self { inner })
            .map_err(|e| error(format!("invalid Shape message: {e}")))
    }

    /// The dimension sizes.
    #[getter]
    fn dimensions(&self) -> Vec<i64> {
        self.inner.dimensions.clone()
    }

    /// The element type as XLA prints it (`f32`, `bf16`, `tuple`, ...).
    #[getter]
    fn element_type(&self) -> PyResult<&'static str> {
        PrimitiveType::try_from(self.inner.element_type)
            .map(PrimitiveType::lowercase_name)
            .map_err(error)
    }

    /// The layout as XLA prints it (`{1,0:T(8,128)}`), or `None`.
    #[getter]
    fn layout(&self) -> Option<String> {
        self.inner.layout.as_deref().map(ToString::to_string)
    }
}
