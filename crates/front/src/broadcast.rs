//! Broadcasting: result shapes under XLA's broadcasting rules (elementwise
//! binary ops, BroadcastInDim) or numpy's implicit rules.

use index_util::dimension_list as list;
use schema::Shape;

use crate::error::Error;
use crate::operand::shape_or_dims;

/// A shape argument: an XLA shape string, or a bare dimension list
/// `[d0,d1,...]` standing for an `f32` array of those dimensions.
struct Operand {
    shape: Shape,
    bare: bool,
}

impl Operand {
    fn parse(text: &str) -> Result<Self, Error> {
        let (shape, bare) = shape_or_dims(text)?;
        Ok(Self { shape, bare })
    }

    fn dimensions(&self) -> Result<&[i64], Error> {
        if shape_util::is_array(&self.shape) {
            Ok(&self.shape.dimensions)
        } else {
            Err(Error::NotAnArray {
                shape: self.shape.human_string(),
            })
        }
    }
}

/// The broadcast of `shapes` (XLA shape strings or bare `[d0,...]` lists):
/// numpy's rules with `numpy`, else XLA's for an elementwise binary op, or
/// with `in_dim` BroadcastInDim of the first into the second.
pub fn broadcast(
    shapes: &[String],
    dims: Option<&[i64]>,
    in_dim: bool,
    numpy: bool,
) -> Result<String, Error> {
    let operands = shapes
        .iter()
        .map(|text| Operand::parse(text))
        .collect::<Result<Vec<_>, _>>()?;
    let dims = dims.unwrap_or_default();
    if numpy {
        let shapes = operands
            .iter()
            .map(Operand::dimensions)
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(list(&shape_util::numpy_broadcast_shapes(&shapes)?));
    }
    // The CLI checks for two before it calls; other callers get this error.
    let [lhs, rhs] = operands.as_slice() else {
        return Err(Error::OperandCount {
            count: operands.len(),
        });
    };
    let result = if in_dim {
        shape_util::infer_broadcast_in_dim_shape(&lhs.shape, &rhs.shape, dims)
    } else {
        shape_util::infer_binary_op_shape("add", &lhs.shape, &rhs.shape, dims)
    }?;
    Ok(if lhs.bare && rhs.bare {
        list(&result.dimensions)
    } else {
        result.human_string()
    })
}
