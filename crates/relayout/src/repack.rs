//! Relayout between a sub-byte type stored one element per byte (a layout
//! without `E(n)`, as XLA's literals hold `s4`, `u2`, `f4e2m1fn`, ...) and
//! the same type packed (`E(n)` with the type's own bit width), through a
//! buffer of one byte per element laid out as the packed side (relaid by
//! a plan the caller builds for [`Repack::middle`]'s shapes).

use schema::primitive_util::{PrimitiveUtilError, pack_int_n_bits, unpack_int_n_bits};
use schema::{PrimitiveType, Shape};

use super::RelayoutError;
use super::bits::element_bits;
use super::tiled_xla::buffer_of;

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

/// The packing or unpacking half of a relayout where exactly one side
/// packs the sub-byte type in `E(bits)` (see [`packed_width`]): element `k`
/// of the one-byte-per-element buffer laid out as the packed side is bits
/// `k·n .. k·n+n` of the packed buffer; packing keeps the low `n` bits of
/// each byte, unpacking writes them zero-extended (as XLA's literals store
/// sub-byte values).
#[derive(Debug, Clone)]
pub(crate) struct Repack {
    /// Whether the destination is the packed side (else the source).
    packs: bool,
    /// The packed side's shape.
    packed: Shape,
    /// The packed side's layout with one byte per element.
    middle: Shape,
    /// The elements (bytes) of the middle buffer.
    count: usize,
    bits: u32,
}

impl Repack {
    /// The repacking between `src_shape` and `dst_shape`, one of them
    /// packed in `E(bits)`.
    pub(crate) fn new(
        src_shape: &Shape,
        dst_shape: &Shape,
        bits: u32,
    ) -> Result<Self, RelayoutError> {
        let packs = element_bits(dst_shape)? == bits;
        let packed = if packs { dst_shape } else { src_shape }.clone();
        let middle = unpacked(&packed);
        let (_, count) = buffer_of(&middle)?;
        Ok(Self {
            packs,
            packed,
            middle,
            count,
            bits,
        })
    }

    /// The element sizes in bits of the source and the destination.
    pub(crate) fn sides(&self) -> (u32, u32) {
        if self.packs {
            (8, self.bits)
        } else {
            (self.bits, 8)
        }
    }

    /// The shapes of the relayout through the middle buffer: from the
    /// source into the middle when packing, from the middle into the
    /// destination when unpacking.
    pub(crate) fn middle<'a>(
        &'a self,
        src_shape: &'a Shape,
        dst_shape: &'a Shape,
    ) -> (&'a Shape, &'a Shape) {
        if self.packs {
            (src_shape, &self.middle)
        } else {
            (&self.middle, dst_shape)
        }
    }

    /// Runs the repacking from `src` into `dst`, `relay` being the
    /// relayout of [`Repack::middle`]'s shapes.
    pub(crate) fn run(
        &self,
        src: &[u8],
        dst: &mut [u8],
        relay: impl FnOnce(&[u8], &mut [u8]) -> Result<(), RelayoutError>,
    ) -> Result<(), RelayoutError> {
        let (count, bits) = (self.count, self.bits);
        let need = packed_bytes(count, bits);
        if self.packs {
            if dst.len() < need {
                return Err(too_small("destination", &self.packed, need, dst.len()));
            }
            let mut middle = vec![0_u8; count];
            relay(src, &mut middle)?;
            pack_int_n_bits(bits, &middle, dst).map_err(|e| packing(&self.packed, &e))
        } else {
            if src.len() < need {
                return Err(too_small("source", &self.packed, need, src.len()));
            }
            let mut middle = vec![0_u8; count];
            unpack_int_n_bits(bits, src, &mut middle).map_err(|e| packing(&self.packed, &e))?;
            relay(&middle, dst)
        }
    }
}

/// A packing error (the sizes and width are checked before packing, so
/// none is expected) as the engine's error.
fn packing(shape: &Shape, error: &PrimitiveUtilError) -> RelayoutError {
    match *error {
        PrimitiveUtilError::OutputTooSmall { needed, actual, .. } => {
            too_small("packed", shape, needed, actual)
        }
        PrimitiveUtilError::InvalidBitsPerElement(bits) => RelayoutError::ElementSize {
            bits: u64::from(bits),
        },
        _ => RelayoutError::ElementSize { bits: 0 },
    }
}

fn too_small(side: &'static str, shape: &Shape, expected: usize, actual: usize) -> RelayoutError {
    RelayoutError::BufferTooSmall {
        side,
        shape: Box::new(shape.clone()),
        expected,
        actual,
    }
}
