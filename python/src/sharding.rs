//! Shards, reshard plans and sharding pictures: the `xla-shape` tool's
//! library.

use pyo3::prelude::*;
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
    let report = xla_shape::shard(&shape_arg(shape)?, sharding, devices).map_err(hinted)?;
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
    let plan = xla_shape::reshard(&shape_arg(shape)?, src, dst, devices).map_err(hinted)?;
    Ok(pythonize(shape.py(), &plan)?)
}

/// `xla-shape draw --sharding`: the SVG text; `mesh_axes` (names and
/// sizes, major first) names the mesh's axes in the picture.
#[pyfunction]
#[pyo3(signature = (shape, sharding, devices, mesh_axes=None))]
pub fn draw_sharding_svg(
    shape: &Bound<'_, PyAny>,
    sharding: &str,
    devices: Option<i64>,
    mesh_axes: Option<Vec<(String, i64)>>,
) -> PyResult<String> {
    let shape = shape_arg(shape)?;
    match mesh_axes {
        Some(axes) => xla_shape::draw_sharding_on_mesh(&shape, sharding, devices, &axes),
        None => xla_shape::draw_sharding(&shape, sharding, devices),
    }
    .map_err(hinted)
}

/// The error of a sharding query, saying how to give a device count in
/// Python where the sharding lacks one.
fn hinted(e: xla_shape::Error) -> PyErr {
    error(e.with_device_count_hint("devices=N"))
}
