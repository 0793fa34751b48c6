//! Element sizes of XLA shapes as stored, in bits, and how many elements a
//! buffer holds: the leaf every XLA sub-path reads.

use schema::{PrimitiveType, Shape};

use super::RelayoutError;

/// The size in bits of one element of `shape` as stored: the layout's
/// `element_size_in_bits` when set, else the type's byte width × 8.
pub(crate) fn element_bits(shape: &Shape) -> Result<u32, RelayoutError> {
    let ty = PrimitiveType::try_from(shape.element_type).unwrap_or(PrimitiveType::Invalid);
    let declared = shape
        .layout
        .as_deref()
        .map_or(0, |layout| layout.element_size_in_bits);
    let bits = if declared != 0 {
        declared
    } else {
        ty.byte_width().filter(|_| ty.is_array_type()).unwrap_or(0) * 8
    };
    match u32::try_from(bits) {
        Ok(b @ (1 | 2 | 4)) => Ok(b),
        Ok(b) if b > 0 && b % 8 == 0 && i64::from(b / 8) == ty.byte_width().unwrap_or(0) => Ok(b),
        _ => Err(RelayoutError::ElementSize {
            bits: bits.unsigned_abs(),
        }),
    }
}

/// How many elements of `bits` fit in `bytes`.
pub(crate) fn capacity_in_elements(bytes: usize, bits: u32) -> i64 {
    let total_bits = u128::try_from(bytes).unwrap_or(u128::MAX) * 8;
    i64::try_from(total_bits / u128::from(bits.max(1))).unwrap_or(i64::MAX)
}
