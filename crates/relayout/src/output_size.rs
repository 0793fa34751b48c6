//! The destination buffer of a relayout between XLA layouts: its size
//! checked against the source buffer's length and a cap before anything is
//! allocated.

use index_util::TiledLayout;
use schema::Shape;

use super::RelayoutError;
use super::relayout_plan::FromTo;
use super::tiled_xla::index_error;

/// How many times the source's length (plus [`OUTPUT_SLACK_BYTES`]) a
/// destination buffer may have: padded tiles such as `T(8,128)` on a
/// dimension of 1 grow a buffer 128 times. The rule of literal-util's
/// `MAX_GROWTH`.
pub const MAX_OUTPUT_GROWTH: i64 = 1024;

/// The bytes a destination buffer may have beyond [`MAX_OUTPUT_GROWTH`]
/// times the source's, so that tiny arrays take whole tiles.
pub const OUTPUT_SLACK_BYTES: i64 = 1 << 20;

/// The byte size of the destination buffer of a relayout of `src_len`
/// bytes laid out as `shapes.from` into `shapes.to`
/// ([`TiledLayout::array_size`] of `shapes.to`, XLA's `ArraySize`, an
/// `i64` as every size function's: shape-util's crate documentation lists
/// them), checked before any allocation: `src_len` must be the source
/// shape's buffer size, and the destination at most [`MAX_OUTPUT_GROWTH`]
/// times `src_len` plus [`OUTPUT_SLACK_BYTES`].
///
/// ```
/// use relayout::{FromTo, output_bytes};
///
/// let from = "f32[3,5]{1,0}".parse().unwrap();
/// let to = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
/// assert_eq!(output_bytes(FromTo { from: &from, to: &to }, 60).unwrap(), 96);
/// let error = output_bytes(FromTo { from: &from, to: &to }, 32).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "source buffer has 32 bytes but f32[3,5]{1,0} has 60"
/// );
/// ```
///
/// # Errors
///
/// [`RelayoutError::SourceLength`] when `src_len` is not the source's
/// buffer size; [`RelayoutError::OutputTooLarge`] beyond the cap; a layout
/// whose buffer size cannot be computed or overflows.
pub fn output_bytes(shapes: FromTo<'_, Shape>, src_len: i64) -> Result<i64, RelayoutError> {
    let expected = TiledLayout::array_size(shapes.from).map_err(index_error)?;
    if src_len != expected {
        return Err(RelayoutError::SourceLength {
            shape: Box::new(shapes.from.clone()),
            expected,
            actual: src_len,
        });
    }
    let bytes = TiledLayout::array_size(shapes.to).map_err(index_error)?;
    let cap = src_len
        .saturating_mul(MAX_OUTPUT_GROWTH)
        .saturating_add(OUTPUT_SLACK_BYTES);
    if bytes > cap {
        return Err(RelayoutError::OutputTooLarge {
            shape: Box::new(shapes.to.clone()),
            bytes,
            cap,
        });
    }
    Ok(bytes)
}

/// A zeroed destination buffer of [`output_bytes`]'s size; an allocation
/// the system refuses is an error, not an abort.
///
/// ```
/// use relayout::{FromTo, output_buffer};
///
/// let from = "u8[6]".parse().unwrap();
/// let to = "u8[6]{0:T(1099511627776)}".parse().unwrap();
/// let error = output_buffer(FromTo { from: &from, to: &to }, 6).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "a buffer of u8[6]{0:T(1099511627776)} has 1099511627776 bytes, \
///      more than the 1054720 allowed (1024 times the source's plus 1048576)"
/// );
/// ```
///
/// # Errors
///
/// As [`output_bytes`]; [`RelayoutError::OutputTooLarge`] also when the
/// allocation fails.
pub fn output_buffer(shapes: FromTo<'_, Shape>, src_len: i64) -> Result<Vec<u8>, RelayoutError> {
    let bytes = output_bytes(shapes, src_len)?;
    let unallocated = || RelayoutError::OutputTooLarge {
        shape: Box::new(shapes.to.clone()),
        bytes,
        cap: 0,
    };
    let len = usize::try_from(bytes).map_err(|_| unallocated())?;
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(|_| unallocated())?;
    buffer.resize(len, 0);
    Ok(buffer)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn bytes(from: &str, to: &str, src_len: i64) -> Result<i64, RelayoutError> {
        let (from, to): (Shape, Shape) = (from.parse().unwrap(), to.parse().unwrap());
        output_bytes(
            FromTo {
                from: &from,
                to: &to,
            },
            src_len,
        )
    }

    #[test]
    fn a_source_of_the_wrong_length_is_refused_before_the_destination_is_sized() {
        // A terabyte source given 32 bytes: refused without allocating.
        let error = bytes("u8[1099511627776]", "u8[1099511627776]", 32).unwrap_err();
        assert_eq!(
            error.to_string(),
            "source buffer has 32 bytes but u8[1099511627776]{0} has 1099511627776"
        );
    }

    #[test]
    fn destinations_beyond_the_cap_are_refused() {
        // f32[8] is 32 bytes; a tile of 2^40 elements pads it to 4 TiB.
        let error = bytes("f32[8]", "f32[8]{0:T(1099511627776)}", 32).unwrap_err();
        assert!(matches!(
            error,
            RelayoutError::OutputTooLarge {
                bytes: 4_398_046_511_104,
                cap: 1_081_344,
                ..
            }
        ));
        // A column padded to 128: 128 times a 16 MiB source.
        let n = 1 << 22;
        let src = format!("f32[{n},1]{{1,0}}");
        assert_eq!(
            bytes(&src, &format!("f32[{n},1]{{1,0:T(1,128)}}"), 16 << 20),
            Ok(2 << 30)
        );
        // One element in a whole tile: 1024 times, under the slack.
        assert_eq!(bytes("f32[1,1]", "f32[1,1]{1,0:T(8,128)}", 4), Ok(4096));
        // At the cap (1024 times 8 bytes plus 1 MiB), and one element past it.
        assert_eq!(bytes("f32[2]", "f32[2]{0:T(264192)}", 8), Ok(1_056_768));
        let error = bytes("f32[2]", "f32[2]{0:T(264193)}", 8).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a buffer of f32[2]{0:T(264193)} has 1056772 bytes, more than the 1056768 allowed \
             (1024 times the source's plus 1048576)"
        );
    }
}
