//! Shardy text: shardings converted to and from XLA's, and what each
//! device holds of a lowered module's arguments and results
//! (sharding-util's `sdy` module).

use pyo3::prelude::*;
use pythonize::pythonize;
use sharding_util::HloSharding;
use sharding_util::sdy::{self, LoweredModule, LoweredReport, SdyMesh, SdySharding};

use crate::errors::{ShardingError, hlo_error};

/// The mesh axes (names and sizes, major first) of a Shardy mesh.
type MeshAxes = Vec<(String, i64)>;

/// `ShardingError(message)`: Shardy's syntax or verifier errors.
fn shardy_error(e: impl ToString) -> PyErr {
    ShardingError::new_err(e.to_string())
}

/// XLA's sharding text of a sharding given as XLA's text or Shardy's over
/// `mesh` (needed unless a Shardy sharding has its mesh inline), and the
/// axes of that mesh (`None` for XLA's text or a mesh without axes):
/// sharding-util's `sdy::read_sharding` and `sdy::mesh_axes`.
#[pyfunction]
#[pyo3(signature = (sharding, mesh))]
pub fn read_sharding(sharding: &str, mesh: Option<&str>) -> PyResult<(String, Option<MeshAxes>)> {
    let hlo = sdy::read_sharding(sharding, mesh).map_err(shardy_error)?;
    Ok((hlo.to_string(), sdy::mesh_axes(sharding, mesh)))
}

/// The Shardy text of whole axes of `mesh` that converts to the XLA
/// sharding `sharding` for an array of rank `rank`, or `None`.
#[pyfunction]
#[pyo3(signature = (sharding, mesh, rank))]
pub fn sharding_to_shardy(sharding: &str, mesh: &str, rank: usize) -> PyResult<Option<String>> {
    let hlo: HloSharding = sharding.trim().parse().map_err(shardy_error)?;
    let mesh: SdyMesh = mesh.parse().map_err(shardy_error)?;
    let found = SdySharding::from_hlo(&hlo, &mesh, rank).map_err(shardy_error)?;
    Ok(found.map(|s| s.to_string()))
}

/// `xla-shape --json lowered` (less `ok`): the report of a lowered
/// module's text; `chosen` are the shardings XLA chose (XLA's text, or
/// `None`), one per argument then result, used where the module gives
/// none (`LoweredReport::with_chosen`). The GIL is released while it is
/// read.
#[pyfunction]
#[pyo3(signature = (text, chosen = None))]
pub fn lowered_shardings<'py>(
    py: Python<'py>,
    text: &str,
    chosen: Option<Vec<Option<String>>>,
) -> PyResult<Bound<'py, PyAny>> {
    let report = py
        .detach(|| -> Result<LoweredReport, String> {
            let chosen = chosen
                .unwrap_or_default()
                .iter()
                .map(|s| {
                    s.as_deref()
                        .map(|s| s.trim().parse::<HloSharding>())
                        .transpose()
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            let module = LoweredModule::parse(text).map_err(|e| e.to_string())?;
            LoweredReport::with_chosen(&module, &chosen).map_err(|e| e.to_string())
        })
        .map_err(hlo_error)?;
    Ok(pythonize(py, &report)?)
}

/// Adds the functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_sharding, m)?)?;
    m.add_function(wrap_pyfunction!(sharding_to_shardy, m)?)?;
    m.add_function(wrap_pyfunction!(lowered_shardings, m)?)?;
    Ok(())
}
