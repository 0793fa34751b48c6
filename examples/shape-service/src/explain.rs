//! `Explain`: what an array shape means in memory, from the library crates
//! (the same functions the `xla-shape explain` command reports).

use index_util::{PhysicalLayout, TiledLayout};
use schema::Shape;
use tonic::Status;

use crate::proto::ExplainResponse;
use crate::service::invalid;

/// Buffers of at most this many positions get their memory order.
pub const MAX_MEMORY_ORDER: i64 = 4096;

/// The explanation of `shape`, an array (given XLA's default layout if it
/// has none).
pub fn explain(mut shape: Shape) -> Result<ExplainResponse, Status> {
    if !shape_util::is_array(&shape) {
        return Err(Status::invalid_argument(format!(
            "Explain takes an array shape; got {}",
            shape.human_string()
        )));
    }
    shape_util::validate_shape_with_optional_layout(&shape).map_err(invalid)?;
    if shape.layout.is_none() {
        layout_util::set_to_default_layout(&mut shape);
    }
    let physical = PhysicalLayout::new(&shape).map_err(invalid)?;
    let buffer = TiledLayout::new(&shape).map_err(invalid)?;
    let padded_dimensions = if layout_util::is_padded(&shape) {
        physical.padded_dimensions().to_vec()
    } else {
        Vec::new()
    };
    let mut memory_order = Vec::new();
    if buffer.buffer_len() <= MAX_MEMORY_ORDER {
        buffer.for_each_position(|_, element| memory_order.push(element.unwrap_or(-1)));
    }
    // A tiled buffer has no strides: neighbours along a dimension are not
    // a fixed distance apart.
    let (strides, byte_strides) = if buffer.is_tiled() {
        (Vec::new(), Vec::new())
    } else {
        (
            physical.strides().to_vec(),
            shape_util::byte_strides(&shape).map_err(invalid)?,
        )
    };
    Ok(ExplainResponse {
        text: shape.to_string(),
        rank: i64::try_from(shape_util::rank(&shape).map_err(invalid)?).unwrap_or(i64::MAX),
        true_rank: i64::try_from(shape_util::true_rank(&shape).map_err(invalid)?)
            .unwrap_or(i64::MAX),
        element_count: shape_util::elements_in(&shape).map_err(invalid)?,
        byte_size: shape_util::byte_size_of(&shape, None).map_err(invalid)?,
        buffer_size: buffer.buffer_size_in_bytes(),
        strides,
        byte_strides,
        major_to_minor: physical
            .minor_to_major()
            .iter()
            .rev()
            .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
            .collect(),
        padded_dimensions,
        memory_order,
        shape: Some(shape),
    })
}
