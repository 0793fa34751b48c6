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
                shape: Box::new(self.shape.clone()),
            })
        }
    }
}

/// Which broadcasting rules [`broadcast`](crate::broadcast()) applies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BroadcastRule {
    /// numpy's implicit broadcasting, of any number of shapes.
    Numpy,
    /// XLA's for an elementwise binary op of two shapes: `dims` maps the
    /// lower-rank operand's dimensions into the other's (empty: none).
    Elementwise {
        /// The broadcast dimensions.
        dims: Vec<i64>,
    },
    /// XLA's BroadcastInDim of the first shape into the second: `dims`
    /// are the operand's dimensions in the result.
    InDim {
        /// The broadcast dimensions.
        dims: Vec<i64>,
    },
}

/// The result of [`broadcast`](crate::broadcast()): a shape, or, under numpy's rules or for
/// bare `[d0,...]` lists, its dimensions alone. `Display` prints it as
/// `xla-shape broadcast` does: XLA's shape text, or `[d0,d1,...]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Broadcasted {
    /// XLA's result shape.
    Shape(Shape),
    /// The result's dimensions.
    Dimensions(Vec<i64>),
}

impl Broadcasted {
    /// The result's dimensions.
    pub fn dimensions(&self) -> &[i64] {
        match self {
            Self::Shape(shape) => &shape.dimensions,
            Self::Dimensions(dims) => dims,
        }
    }
}

impl std::fmt::Display for Broadcasted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Shape(shape) => f.pad(&shape.human_string()),
            Self::Dimensions(dims) => f.pad(&list(dims)),
        }
    }
}

/// The broadcast of `shapes` (XLA shape strings or bare `[d0,...]` lists)
/// under `rule`.
pub fn broadcast(shapes: &[String], rule: &BroadcastRule) -> Result<Broadcasted, Error> {
    let operands = shapes
        .iter()
        .map(|text| Operand::parse(text))
        .collect::<Result<Vec<_>, _>>()?;
    let (in_dim, dims) = match rule {
        BroadcastRule::Numpy => {
            let shapes = operands
                .iter()
                .map(Operand::dimensions)
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Broadcasted::Dimensions(shape_util::numpy_broadcast_shapes(
                &shapes,
            )?));
        }
        BroadcastRule::Elementwise { dims } => (false, dims),
        BroadcastRule::InDim { dims } => (true, dims),
    };
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
        Broadcasted::Dimensions(result.dimensions)
    } else {
        Broadcasted::Shape(result)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_pads_as_one_word() {
        let dims = Broadcasted::Dimensions(vec![2, 3]);
        assert_eq!(format!("{dims:>10}|"), "     [2,3]|");
        let shape = Broadcasted::Shape("f32[2]{0}".parse().unwrap());
        assert_eq!(format!("{shape:<8}|"), "f32[2]  |");
    }
}
