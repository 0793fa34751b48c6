//! The native module `xla_shape._native` of the Python package `xla_shape`:
//! thin wrappers over the workspace crates (and the `xla-shape` tool's
//! library) that turn their errors into `XlaShapeError` and its kinds.

mod errors;
mod functions;
mod hlo;
mod layout;
mod peak;
mod relayout;
mod shape;
mod sharding;
mod shardy;

use pyo3::prelude::*;

/// The module: the classes, the exceptions and the functions.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<shape::Shape>()?;
    m.add_class::<layout::Layout>()?;
    m.add_class::<sharding::HloSharding>()?;
    m.add_function(wrap_pyfunction!(shape::parse, m)?)?;
    m.add_function(wrap_pyfunction!(shape::validate, m)?)?;
    m.add_function(wrap_pyfunction!(functions::byte_size, m)?)?;
    m.add_function(wrap_pyfunction!(functions::array_size, m)?)?;
    m.add_function(wrap_pyfunction!(functions::explain, m)?)?;
    m.add_function(wrap_pyfunction!(functions::memory_order, m)?)?;
    m.add_function(wrap_pyfunction!(functions::linear_index, m)?)?;
    m.add_function(wrap_pyfunction!(functions::multi_index, m)?)?;
    m.add_function(wrap_pyfunction!(functions::broadcast, m)?)?;
    m.add_function(wrap_pyfunction!(functions::view, m)?)?;
    m.add_function(wrap_pyfunction!(functions::draw_svg, m)?)?;
    m.add_function(wrap_pyfunction!(functions::draw_view_svg, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::sharding_from_proto, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::shard, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::reshard, m)?)?;
    m.add_function(wrap_pyfunction!(sharding::draw_sharding_svg, m)?)?;
    shardy::register(m)?;
    m.add_function(wrap_pyfunction!(hlo::hlo_memory, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::peak_memory, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::memory_timeline_svg, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::peak_memory_text, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::memory_timeline_text_svg, m)?)?;
    m.add_function(wrap_pyfunction!(hlo::is_stablehlo, m)?)?;
    m.add("STABLEHLO", hlo::stablehlo_message())?;
    m.add_class::<peak::Peak>()?;
    m.add_function(wrap_pyfunction!(peak::peak_report, m)?)?;
    m.add_function(wrap_pyfunction!(relayout::relayout_into, m)?)?;
    Ok(())
}
