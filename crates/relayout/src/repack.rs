//! Relayout between a sub-byte type stored one element per byte (a layout
//! without `E(n)`, as XLA's literals hold `s4`, `u2`, `f4e2m1fn`, ...) and
//! the same type packed (`E(n)` with the type's own bit width), through a
//! buffer of one byte per element laid out as the packed side.

use schema::{PrimitiveType, Shape};

use super::sub_byte;
use super::tiled_xla::buffer_of;
use super::xla::element_bits;
use super::{RelayoutError, relayout_xla};

/// The packed width `n` if one side of the relayout stores the sub-byte
/// type one element per byte and the other packs it in `E(n)`, `n` being
/// the type's bit width.
pub(crate) fn packed_width(src_shape: &Shape, dst_shape: &Shape) -> Option<u32> {
    let ty = PrimitiveType::try_from(src_shape.element_type).ok()?;
    let width = ty.bit_width().filter(|_| ty.is_sub_byte())?;
    let sides = (element_bits(src_shape).ok()?, element_bits(dst_shape).ok()?);
    (sides == (8, width) || sides == (width, 8)).then_some(width)
}

/// `shape` with one byte per element (its `E(n)` removed).
fn unpacked(shape: &Shape) -> Shape {
    let mut shape = shape.clone();
    if let Some(layout) = shape.layout.as_deref_mut() {
        layout.element_size_in_bits = 0;
    }
    shape
}

/// The bytes `elements` elements of `bits` take, packed.
fn packed_bytes(elements: usize, bits: u32) -> usize {
    // At most `elements` (bits <= 8), so it fits.
    ((elements as u128 * u128::from(bits)).div_ceil(8)) as usize
}

/// [`relayout_xla`] when exactly one side packs the sub-byte type in
/// `E(bits)` (see [`packed_width`]): element `k` of the one-byte-per-element
/// buffer laid out as the packed side is bits `k·n .. k·n+n` of the packed
/// buffer; packing keeps the low `n` bits of each byte, unpacking writes
/// them zero-extended (as XLA's literals store sub-byte values).
pub(crate) fn relayout_repacking(
    src: &[u8],
    src_shape: &Shape,
    dst: &mut [u8],
    dst_shape: &Shape,
    bits: u32,
) -> Result<(), RelayoutError> {
    if element_bits(dst_shape)? == bits {
        let middle_shape = unpacked(dst_shape);
        let (_, count) = buffer_of(&middle_shape)?;
        let need = packed_bytes(count, bits);
        if dst.len() < need {
            return Err(too_small("destination", dst_shape, need, dst.len()));
        }
        let mut middle = vec![0_u8; count];
        relayout_xla(src, src_shape, &mut middle, &middle_shape)?;
        for (k, &value) in (0_i64..).zip(&middle) {
            sub_byte::set(dst, k, bits, value);
        }
        Ok(())
    } else {
        let middle_shape = unpacked(src_shape);
        let (_, count) = buffer_of(&middle_shape)?;
        let need = packed_bytes(count, bits);
        if src.len() < need {
            return Err(too_small("source", src_shape, need, src.len()));
        }
        let middle: Vec<u8> = (0_i64..)
            .take(count)
            .map(|k| sub_byte::get(src, k, bits))
            .collect();
        relayout_xla(&middle, &middle_shape, dst, dst_shape)
    }
}

fn too_small(side: &'static str, shape: &Shape, expected: usize, actual: usize) -> RelayoutError {
    RelayoutError::BufferTooSmall {
        side,
        shape: shape.human_string_with_layout(),
        expected,
        actual,
    }
}
