//! `HloSharding` (parsed once, with the jax device ids it may carry),
//! shards, reshard plans and sharding pictures, with the GIL released
//! while many devices are laid out.

use prost::Message;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pythonize::pythonize;

use crate::errors::{ShardingError, error, library_error, sharding_error};
use crate::shape::shape_arg;

/// An XLA sharding (`HloSharding`), parsed once from XLA's text (or read
/// from an `OpSharding` proto). `str` is XLA's text.
#[pyclass(module = "xla_shape", frozen, subclass)]
#[derive(Clone)]
pub struct HloSharding {
    pub(crate) inner: sharding_util::HloSharding,
}

/// A `sharding` argument: an `HloSharding`, or XLA's sharding text.
fn sharding_arg(arg: &Bound<'_, PyAny>) -> PyResult<sharding_util::HloSharding> {
    if let Ok(sharding) = arg.cast::<HloSharding>() {
        return Ok(sharding.get().inner.clone());
    }
    match arg.extract::<String>() {
        Ok(text) => parse_sharding(&text),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a sharding is XLA's sharding text or an xla_shape.HloSharding, not {}",
            arg.get_type().name()?
        ))),
    }
}

/// XLA's sharding text, parsed.
fn parse_sharding(text: &str) -> PyResult<sharding_util::HloSharding> {
    text.trim()
        .parse()
        .map_err(|e: sharding_util::ParseError| ShardingError::new_err(e.to_string()))
}

#[pymethods]
impl HloSharding {
    /// `HloSharding(text)`: XLA's sharding text, parsed.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        Ok(Self {
            inner: parse_sharding(text)?,
        })
    }

    /// The serialized `OpSharding` XLA's `HloSharding::ToProto` writes.
    fn to_proto<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_proto().encode_to_vec())
    }

    /// XLA's text of the sharding.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("HloSharding('{}')", self.inner)
    }

    /// Equal to a sharding with the same text.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<HloSharding>()
            .is_ok_and(|o| o.get().inner.to_string() == self.inner.to_string())
    }

    /// The hash of XLA's text of the sharding.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        pyo3::types::PyString::new(py, &self.inner.to_string()).hash()
    }

    /// The device count the sharding names (`None` for `{replicated}`,
    /// `{manual}`, `{maximal device=N}` ...: give `devices=` to queries).
    #[getter]
    fn num_devices(&self) -> Option<i64> {
        self.inner.num_devices()
    }

    /// The device numbers of the tile assignment in the row-major order
    /// of its grid (`None` where the sharding has no tile assignment).
    #[getter]
    fn tile_assignment_devices(&self) -> PyResult<Option<Vec<i64>>> {
        let Some(tiles) = self.inner.tile_assignment() else {
            return Ok(None);
        };
        let count = tiles.num_elements();
        if count > sharding_util::MAX_LISTED_DEVICES {
            return Err(error(format!(
                "{count} tiles are more than the {} listed",
                sharding_util::MAX_LISTED_DEVICES
            )));
        }
        let devices = tiles.iter().collect();
        Ok(Some(devices))
    }

    /// The tile grid's dimensions (`None` without a tile assignment).
    #[getter]
    fn tile_assignment_dimensions(&self) -> Option<Vec<i64>> {
        self.inner
            .tile_assignment()
            .map(|t| t.dimensions().to_vec())
    }

    /// The groups of device numbers holding the same data, over the
    /// sharding's device count or, when it names none, `devices`.
    #[pyo3(signature = (devices = None))]
    fn replication_groups(&self, devices: Option<i64>) -> PyResult<Vec<Vec<i64>>> {
        let n = self
            .inner
            .device_count(devices)
            .map_err(|e| sharding_error(&e))?;
        self.inner
            .replication_groups(n)
            .map_err(|e| sharding_error(&e))
    }
}

/// The sharding a serialized `OpSharding` holds, as XLA's
/// `HloSharding::FromProto` reads it: XLA's text.
#[pyfunction]
pub fn sharding_from_proto(data: &[u8]) -> PyResult<String> {
    let proto = schema::OpSharding::decode(data)
        .map_err(|e| ShardingError::new_err(format!("invalid OpSharding message: {e}")))?;
    sharding_util::HloSharding::from_proto(&proto)
        .map(|s| s.to_string())
        .map_err(|e| sharding_error(&e))
}

/// The shard report (`xla-shape --json shard`, less `ok`) as a dict.
#[pyfunction]
#[pyo3(signature = (shape, sharding, devices))]
pub fn shard<'py>(
    py: Python<'py>,
    shape: &Bound<'py, PyAny>,
    sharding: &Bound<'py, PyAny>,
    devices: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (shape, sharding) = (shape_arg(shape)?, sharding_arg(sharding)?);
    let report = py
        .detach(|| sharding_util::ShardReport::new(&sharding, &shape, devices))
        .map_err(|e| sharding_error(&e))?;
    Ok(pythonize(py, &report)?)
}

/// The reshard plan (`xla-shape --json reshard`, less `ok`) as a dict;
/// `src_ids` and `dst_ids` are the jax device ids of each sharding's
/// tile-assignment positions: pieces and totals are then by device id.
#[pyfunction]
#[pyo3(signature = (shape, src, dst, devices, src_ids=None, dst_ids=None))]
pub fn reshard<'py>(
    py: Python<'py>,
    shape: &Bound<'py, PyAny>,
    src: &Bound<'py, PyAny>,
    dst: &Bound<'py, PyAny>,
    devices: Option<i64>,
    src_ids: Option<Vec<i64>>,
    dst_ids: Option<Vec<i64>>,
) -> PyResult<Bound<'py, PyAny>> {
    let shape = shape_arg(shape)?;
    let (src, dst) = (sharding_arg(src)?, sharding_arg(dst)?);
    let plan = py
        .detach(|| {
            sharding_util::reshard_plan_between(
                &shape,
                (&src, src_ids.as_deref()),
                (&dst, dst_ids.as_deref()),
                devices,
            )
        })
        .map_err(|e| sharding_error(&e))?;
    Ok(pythonize(py, &plan)?)
}

/// `xla-shape draw --sharding`: the SVG text; `mesh_axes` (names and
/// sizes, major first) names the mesh's axes in the picture; `device_ids`
/// labels each tile by the jax device at its position.
#[pyfunction]
#[pyo3(signature = (shape, sharding, devices, mesh_axes=None, device_ids=None))]
pub fn draw_sharding_svg(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    sharding: &Bound<'_, PyAny>,
    devices: Option<i64>,
    mesh_axes: Option<Vec<(String, i64)>>,
    device_ids: Option<Vec<i64>>,
) -> PyResult<String> {
    let shape = shape_arg(shape)?;
    let sharding = sharding_arg(sharding)?;
    let text = sharding.to_string();
    py.detach(|| match (&mesh_axes, &device_ids) {
        (_, Some(ids)) => xla_shape_front::draw_hlo_sharding_on_devices(
            &shape,
            &sharding,
            devices,
            mesh_axes.as_deref(),
            ids,
        ),
        (Some(axes), None) => xla_shape_front::draw_sharding_on_mesh(&shape, &text, devices, axes),
        (None, None) => xla_shape_front::draw_sharding(&shape, &text, devices),
    })
    .map_err(library_error)
}
