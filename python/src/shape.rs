//! `Shape`: an XLA `ShapeProto` (the prost `schema::Shape`), and the
//! conversion of every `shape` argument (a string or a `Shape`), checked
//! as XLA's `ShapeUtil::ValidateShapeWithOptionalLayout` does.

use prost::Message;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use schema::PrimitiveType;

use crate::errors::{error, invalid_shape, parse_error};
use crate::layout::Layout;

/// An XLA shape (a `ShapeProto` message).
#[pyclass(module = "xla_shape", frozen, subclass)]
#[derive(Clone, PartialEq)]
pub struct Shape {
    pub(crate) inner: schema::Shape,
}

/// Parses an XLA shape string as XLA's parser does (an array without a
/// layout gets XLA's default layout).
pub(crate) fn parse_text(text: &str) -> PyResult<schema::Shape> {
    text.trim()
        .parse()
        .map_err(|e: schema::ParseError| parse_error(e))
}

/// A `shape` argument: a `Shape`, or a string parsed as [`parse_text`]
/// does, not yet validated.
pub(crate) fn unchecked_shape_arg(arg: &Bound<'_, PyAny>) -> PyResult<schema::Shape> {
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

/// A `shape` argument (as [`unchecked_shape_arg`]) that XLA accepts as a
/// shape: its layout, where it has one, fits its dimensions.
pub(crate) fn shape_arg(arg: &Bound<'_, PyAny>) -> PyResult<schema::Shape> {
    let shape = unchecked_shape_arg(arg)?;
    shape_util::validate_shape_with_optional_layout(&shape).map_err(invalid_shape)?;
    Ok(shape)
}

/// Parses an XLA shape string as XLA's parser does: an array written
/// without a layout gets XLA's default layout. The shape is not validated
/// (see `Shape.validate`).
#[pyfunction]
pub fn parse(text: &str) -> PyResult<Shape> {
    Ok(Shape {
        inner: parse_text(text)?,
    })
}

/// XLA's `ShapeUtil::ValidateShape` of `shape`: `None`, or
/// `InvalidShapeError` with XLA's message.
#[pyfunction]
pub fn validate(shape: &Bound<'_, PyAny>) -> PyResult<()> {
    shape_util::validate_shape(&unchecked_shape_arg(shape)?).map_err(invalid_shape)
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

    /// Equal to another `Shape` with the same `ShapeProto`, or to a string
    /// that parses to it.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(shape) = other.cast::<Shape>() {
            return shape.get().inner == self.inner;
        }
        match other.extract::<String>() {
            Ok(text) => parse_text(&text).is_ok_and(|shape| shape == self.inner),
            Err(_) => false,
        }
    }

    /// The hash of XLA's string of the shape.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        pyo3::types::PyString::new(py, &self.inner.to_string()).hash()
    }

    /// Pickles as the serialized `ShapeProto`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_bytes = py.get_type::<Shape>().getattr("from_bytes")?;
        let args = PyTuple::new(py, [self.to_bytes(py)])?;
        PyTuple::new(py, [from_bytes, args.into_any()])
    }

    /// The shape itself: it is immutable.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The shape itself: it is immutable.
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
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
            .map_err(|e| parse_error(format!("invalid Shape message: {e}")))
    }

    /// XLA's `ShapeUtil::ValidateShape`: `None`, or `InvalidShapeError`
    /// with XLA's message.
    fn validate(&self) -> PyResult<()> {
        shape_util::validate_shape(&self.inner).map_err(invalid_shape)
    }

    /// The dimension sizes.
    #[getter]
    fn dimensions(&self) -> Vec<i64> {
        self.inner.dimensions.clone()
    }

    /// The number of dimensions (0 for scalars and tuples).
    #[getter]
    fn rank(&self) -> usize {
        self.inner.dimensions.len()
    }

    /// The number of dimensions, as numpy names it.
    #[getter]
    fn ndim(&self) -> usize {
        self.rank()
    }

    /// For each dimension, whether it is dynamic (`<=N` in the text).
    #[getter]
    fn dynamic_dimensions(&self) -> Vec<bool> {
        (0..self.inner.dimensions.len())
            .map(|i| {
                self.inner
                    .is_dynamic_dimension
                    .get(i)
                    .copied()
                    .unwrap_or(false)
            })
            .collect()
    }

    /// Whether the shape is a tuple.
    #[getter]
    fn is_tuple(&self) -> bool {
        self.inner.element_type == PrimitiveType::Tuple as i32
    }

    /// The element shapes of a tuple (empty for an array).
    #[getter]
    fn tuple_shapes(&self) -> Vec<Shape> {
        self.inner
            .tuple_shapes
            .iter()
            .map(|inner| Shape {
                inner: inner.clone(),
            })
            .collect()
    }

    /// The element type as XLA prints it (`f32`, `bf16`, `tuple`, ...).
    #[getter]
    fn element_type(&self) -> PyResult<&'static str> {
        PrimitiveType::try_from(self.inner.element_type)
            .map(PrimitiveType::lowercase_name)
            .map_err(error)
    }

    /// The numpy dtype of the element type (ml_dtypes' for `bf16`, `f8*`,
    /// `s4`, ...); an error for a type numpy has none for.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("xla_shape._dtypes")?
            .getattr("numpy_dtype")?
            .call1((self.element_type()?,))
    }

    /// The layout, or `None` (tuples, and arrays read without one).
    #[getter]
    fn layout(&self) -> Option<Layout> {
        self.inner.layout.as_deref().map(|inner| Layout {
            inner: inner.clone(),
        })
    }
}
