//! `Explain`: what an array shape means in memory, from the library crates
//! (the same functions the `xla-shape explain` command reports).

use index_util::PhysicalLayout;
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
    let padded_dimensions = if layout_util::is_padded(&shape) {
        physical.padded_dimensions().to_vec()
    } else {
        Vec::new()
    };
    let memory_order = if physical.padded_element_count() <= MAX_MEMORY_ORDER {
        memory_order(&shape, &physical)?
    } else {
        Vec::new()
    };
    Ok(ExplainResponse {
        text: shape.to_string(),
        rank: i64::try_from(shape_util::rank(&shape).map_err(invalid)?).unwrap_or(i64::MAX),
        true_rank: i64::try_from(shape_util::true_rank(&shape).map_err(invalid)?)
            .unwrap_or(i64::MAX),
        element_count: shape_util::elements_in(&shape).map_err(invalid)?,
        byte_size: shape_util::byte_size_of(&shape, None).map_err(invalid)?,
        strides: physical.strides().to_vec(),
        byte_strides: shape_util::byte_strides(&shape).map_err(invalid)?,
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

/// For each position of the buffer, the row-major index of the element
/// there, or -1 for padding: the elements are visited in row-major order
/// (`bump_indices`) and placed at their linear index under the layout.
fn memory_order(shape: &Shape, physical: &PhysicalLayout) -> Result<Vec<i64>, Status> {
    let positions = usize::try_from(physical.padded_element_count()).map_err(invalid)?;
    let mut order = vec![-1; positions];
    if shape_util::elements_in(shape).map_err(invalid)? == 0 {
        return Ok(order);
    }
    let mut index = vec![0; physical.rank()];
    let mut row_major = 0;
    loop {
        let position = physical.linear_index(&index).map_err(invalid)?;
        let slot = usize::try_from(position)
            .ok()
            .and_then(|p| order.get_mut(p))
            .ok_or_else(|| Status::internal(format!("position {position} outside the buffer")))?;
        *slot = row_major;
        row_major += 1;
        if !index_util::bump_indices(shape, &mut index).map_err(invalid)? {
            return Ok(order);
        }
    }
}
