//! Shards, reshard plans and sharding pictures: the `xla-shape` tool's
//! library.

use pyo3::prelude::*;

use crate::error;
use crate::shape::shape_arg;

/// `xla-shape --json shard` (less `ok`) as JSON text (the package parses it).
#[pyfunction]
#[pyo3(signature = (shape, sharding, devices))]
pub fn shard_json(
    shape: &Bound<'_, PyAny>,
    sharding: &str,
    devices: Option<i64>,
) -> PyResult<String> {
    let fields = xla_shape::shard(&shape_arg(shape)?, sharding, devices).map_err(error)?;
    Ok(fields.to_string())
}

/// `xla-shape --json reshard` (less `ok`) as JSON text.
#[pyfunction]
#[pyo3(signature = (shape, src, dst, devices))]
pub fn reshard_json(
    shape: &Bound<'_, PyAny>,
    src: &str,
    dst: &str,
    devices: Option<i64>,
) -> PyResult<String> {
    let fields = xla_shape::reshard(&shape_arg(shape)?, src, dst, devices).map_err(error)?;
    Ok(fields.to_string())
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
