//! Padding values as bytes ([`padding_pattern`]) and filling the padding of
//! an XLA padded layout ([`fill_padding`]).

use index_util::PhysicalLayout;
use schema::{PaddingValue, PrimitiveType, Shape};

use super::RelayoutError;
use super::bits::{capacity_in_elements, element_bits};
use super::sub_byte;
use stride_util::ViewError;

/// The bytes of one element of type `ty` holding `value`, little-endian and
/// `byte_width` long; `None` for `UnknownPad` and `InvalidPad`, whose
/// padding is left as it is ("could be anything").
///
/// * `ZeroPad` and `OnePad`: 0 and 1 of the type (complex: `1 + 0i`).
/// * `LowestPad` (for max-accumulation): the type's lowest value as XLA's
///   `LiteralUtil::MinValue` gives it: `-inf` for floats with infinities
///   (f16, bf16, f32, f64, f8e5m2, f8e4m3, f8e3m4), else the most negative
///   finite value (f8e4m3fn -448, the `fnuz` types, f4e2m1fn -6, f6e3m2fn
///   -28, f6e2m3fn -7.5); for the unsigned f8e8m0fnu the smallest value
///   2⁻¹²⁷; `MIN` for signed integers, 0 for unsigned ones, `false`.
/// * `HighestPad` (for min-accumulation): `+inf` or the largest finite
///   value, `MAX` of integers, `true`.
///
/// Sub-byte integers and f4e2m1fn use one byte with the value in its low
/// bits (signed ones sign-extended, so s4's lowest, -8, is `0xF8`); packed
/// `E(n)` layouts keep the low `n` bits.
///
/// # Errors
///
/// [`RelayoutError::NoPaddingValue`] for a non-array type, zero of
/// f8e8m0fnu (it has no zero), and the lowest/highest complex value (not
/// ordered; XLA has none either).
///
/// ```
/// use schema::{PaddingValue, PrimitiveType};
/// use relayout::padding_pattern;
///
/// let one = padding_pattern(PrimitiveType::F32, PaddingValue::OnePad)?;
/// assert_eq!(one, Some(1.0f32.to_le_bytes().to_vec()));
/// let lowest = padding_pattern(PrimitiveType::Bf16, PaddingValue::LowestPad)?;
/// assert_eq!(lowest, Some(vec![0x80, 0xFF])); // -inf
/// let highest = padding_pattern(PrimitiveType::S16, PaddingValue::HighestPad)?;
/// assert_eq!(highest, Some(i16::MAX.to_le_bytes().to_vec()));
/// # Ok::<(), relayout::RelayoutError>(())
/// ```
pub fn padding_pattern(
    ty: PrimitiveType,
    value: PaddingValue,
) -> Result<Option<Vec<u8>>, RelayoutError> {
    use PaddingValue::{HighestPad, InvalidPad, LowestPad, OnePad, UnknownPad, ZeroPad};
    let missing = || RelayoutError::NoPaddingValue {
        element_type: ty.lowercase_name().to_owned(),
        padding: value.as_str_name().to_owned(),
    };
    let width = ty
        .byte_width()
        .filter(|_| ty.is_array_type())
        .and_then(|w| usize::try_from(w).ok())
        .ok_or_else(missing)?;
    let bits = match value {
        UnknownPad | InvalidPad => return Ok(None),
        ZeroPad if ty == PrimitiveType::F8e8m0fnu => return Err(missing()),
        ZeroPad => 0,
        OnePad => one_bits(ty),
        LowestPad | HighestPad => limit_bits(ty, value == HighestPad).ok_or_else(missing)?,
    };
    Ok(Some(bits.to_le_bytes()[..width].to_vec()))
}

/// The bits of 1 of type `ty` (complex: `1 + 0i`).
fn one_bits(ty: PrimitiveType) -> u128 {
    use PrimitiveType as T;
    match ty {
        T::F16 => 0x3C00,
        T::Bf16 => 0x3F80,
        T::F32 => 0x3F80_0000,
        T::F64 => 0x3FF0_0000_0000_0000,
        T::C64 => 0x3F80_0000,
        T::C128 => 0x3FF0_0000_0000_0000,
        T::F8e5m2 => 0x3C,
        T::F8e4m3 | T::F8e4m3fn => 0x38,
        T::F8e4m3b11fnuz => 0x58,
        T::F8e3m4 => 0x30,
        T::F8e5m2fnuz | T::F8e4m3fnuz => 0x40,
        T::F4e2m1fn => 0x2,
        T::F8e8m0fnu => 0x7F,
        T::F6e3m2fn => 0x0C,
        T::F6e2m3fn => 0x08,
        _ => 1,
    }
}

/// The bits of the highest (`highest`) or lowest value of type `ty` (see
/// [`padding_pattern`]); `None` for complex types and types without a bit
/// width.
fn limit_bits(ty: PrimitiveType, highest: bool) -> Option<u128> {
    use PrimitiveType as T;
    match ty {
        T::C64 | T::C128 => None,
        T::Pred => Some(u128::from(highest)),
        _ => float_limit_bits(ty, highest).or_else(|| integer_limit_bits(ty, highest)),
    }
}

/// [`limit_bits`] of a floating-point type; `None` for other types.
fn float_limit_bits(ty: PrimitiveType, highest: bool) -> Option<u128> {
    use PrimitiveType as T;
    Some(match (highest, ty) {
        (false, T::F16) => 0xFC00,
        (false, T::Bf16) => 0xFF80,
        (false, T::F32) => 0xFF80_0000,
        (false, T::F64) => 0xFFF0_0000_0000_0000,
        (false, T::F8e5m2) => 0xFC,
        (false, T::F8e4m3) => 0xF8,
        (false, T::F8e3m4) => 0xF0,
        (false, T::F8e4m3fn) => 0xFE,
        (false, T::F8e4m3b11fnuz | T::F8e5m2fnuz | T::F8e4m3fnuz) => 0xFF,
        (false, T::F4e2m1fn) => 0x0F,
        (false, T::F6e3m2fn | T::F6e2m3fn) => 0x3F,
        (false, T::F8e8m0fnu) => 0x00,
        (true, T::F16) => 0x7C00,
        (true, T::Bf16) => 0x7F80,
        (true, T::F32) => 0x7F80_0000,
        (true, T::F64) => 0x7FF0_0000_0000_0000,
        (true, T::F8e5m2) => 0x7C,
        (true, T::F8e4m3) => 0x78,
        (true, T::F8e3m4) => 0x70,
        (true, T::F8e4m3fn) => 0x7E,
        (true, T::F8e4m3b11fnuz | T::F8e5m2fnuz | T::F8e4m3fnuz) => 0x7F,
        (true, T::F4e2m1fn) => 0x07,
        (true, T::F6e3m2fn | T::F6e2m3fn) => 0x1F,
        (true, T::F8e8m0fnu) => 0xFE,
        _ => return None,
    })
}

/// [`limit_bits`] of an integer type: its two's complement limits,
/// sign-extended to the storage width; `None` without a bit width.
fn integer_limit_bits(ty: PrimitiveType, highest: bool) -> Option<u128> {
    let bits = ty.bit_width()?;
    let all_ones = if bits >= 128 {
        u128::MAX
    } else {
        (1_u128 << bits) - 1
    };
    Some(match (highest, ty.is_signed_integral()) {
        (true, false) => all_ones,
        (false, false) => 0,
        (true, true) => all_ones >> 1,
        (false, true) => !(all_ones >> 1),
    })
}

/// Fills every padding element of `dst`, laid out as `shape` (an XLA array
/// shape whose layout has `padded_dimensions`), with the layout's padding
/// value; a no-op without padding or for `UnknownPad`/`InvalidPad`.
/// Elements are `E(n)` bits when the layout says so, else the type's bytes.
///
/// # Errors
///
/// [`RelayoutError::View`] for a shape that is not a padded array layout
/// [`index_util::PhysicalLayout`] accepts, [`RelayoutError::NoPaddingValue`],
/// and [`RelayoutError::OutsideBuffer`] if `dst` is too short.
///
/// ```
/// use layout_util::LayoutBuilder;
/// use schema::{PaddingValue, PrimitiveType, Shape};
///
/// // The seed's rows of 3 padded to 5: {A B C x x D E F x x}.
/// let shape = Shape {
///     element_type: PrimitiveType::U8 as i32,
///     dimensions: vec![2, 3],
///     is_dynamic_dimension: vec![false, false],
///     layout: Some(Box::new(
///         LayoutBuilder::new(&[1, 0])
///             .padded_dimensions(vec![2, 5])
///             .padding_value(PaddingValue::HighestPad)
///             .build(),
///     )),
///     ..Default::default()
/// };
/// let mut buffer = *b"ABC..DEF..";
/// relayout::fill_padding(&mut buffer, &shape)?;
/// assert_eq!(&buffer, b"ABC\xff\xffDEF\xff\xff");
/// # Ok::<(), relayout::RelayoutError>(())
/// ```
pub fn fill_padding(dst: &mut [u8], shape: &Shape) -> Result<(), RelayoutError> {
    fill_padding_except_row_tails(dst, shape, false)
}

/// [`fill_padding`], leaving out the padding at the end of each row of the
/// most minor dimension when `skip_row_tails` (the relayout wrote it).
pub(crate) fn fill_padding_except_row_tails(
    dst: &mut [u8],
    shape: &Shape,
    skip_row_tails: bool,
) -> Result<(), RelayoutError> {
    let Some(layout) = shape.layout.as_deref() else {
        return Ok(());
    };
    if !layout_util::is_padded(shape) {
        return Ok(());
    }
    let physical = PhysicalLayout::new(shape).map_err(ViewError::from)?;
    let ty = PrimitiveType::try_from(shape.element_type).unwrap_or(PrimitiveType::Invalid);
    let value = layout_util::padding_value(layout)
        .map_err(|e| ViewError::from(index_util::IndexError::from(e)))?;
    let Some(pattern) = padding_pattern(ty, value)? else {
        return Ok(());
    };
    let bits = element_bits(shape)?;
    let capacity = capacity_in_elements(dst.len(), bits);
    let total = physical.padded_element_count();
    if total > capacity {
        return Err(RelayoutError::OutsideBuffer {
            side: "destination",
            offset: total - 1,
            len: capacity,
        });
    }
    let order: Vec<usize> = physical.minor_to_major().iter().rev().copied().collect();
    let mut filler = Filler {
        sizes: physical.dimensions(),
        padded: physical.padded_dimensions(),
        strides: physical.strides(),
        order: &order,
        chunk: repeated_pattern(&pattern),
        uniform: uniform_byte(&pattern),
        element_bytes: pattern.len(),
        bits,
        skip_row_tails,
        dst,
    };
    filler.fill();
    Ok(())
}

/// Walks the padded box in physical order (major to minor), filling the
/// trailing padding block of each dimension. Iterative (an explicit
/// odometer, not one call per dimension), so any rank fits on the stack.
struct Filler<'a> {
    sizes: &'a [i64],
    padded: &'a [i64],
    strides: &'a [i64],
    order: &'a [usize],
    /// The padding element's bytes repeated ([`repeated_pattern`]).
    chunk: Vec<u8>,
    /// The byte every byte of the element is, if one is.
    uniform: Option<u8>,
    /// The bytes of one element (whole-byte elements).
    element_bytes: usize,
    bits: u32,
    skip_row_tails: bool,
    dst: &'a mut [u8],
}

impl Filler<'_> {
    /// Visits every block of the padded box, outermost first: the block at
    /// level `l` (dimension `order[l]`) at buffer element `base` fills its
    /// padding `base + size·stride .. base + padded·stride`, then its
    /// `size` sub-blocks one level down are visited. The padding of the
    /// innermost level (the rows' tails) is left out when `skip_row_tails`.
    fn fill(&mut self) {
        let levels = self.order.len();
        // The deepest level whose blocks have padding to fill.
        let Some(last) = levels.checked_sub(1 + usize::from(self.skip_row_tails)) else {
            return;
        };
        // Per level down to `last`: the block's base and the index of the
        // sub-block being visited.
        let mut base = vec![0_i64; last + 1];
        let mut next = vec![0_i64; last + 1];
        let mut level = 0;
        loop {
            let d = self.order[level];
            let (size, padded, stride) = (self.sizes[d], self.padded[d], self.strides[d]);
            self.fill_range(base[level] + size * stride, base[level] + padded * stride);
            if level < last && size > 0 {
                next[level] = 1;
                base[level + 1] = base[level];
                level += 1;
                continue;
            }
            // Climb to the nearest level with a sub-block left, then go down
            // into it.
            loop {
                let Some(up) = level.checked_sub(1) else {
                    return;
                };
                level = up;
                let d = self.order[level];
                if next[level] < self.sizes[d] {
                    base[level + 1] = base[level] + next[level] * self.strides[d];
                    next[level] += 1;
                    level += 1;
                    break;
                }
            }
        }
    }

    /// Fills elements `start..end` (validated to be inside the buffer).
    fn fill_range(&mut self, start: i64, end: i64) {
        if start >= end {
            return;
        }
        if self.bits < 8 {
            for index in start..end {
                sub_byte::set(self.dst, index, self.bits, self.chunk[0]);
            }
            return;
        }
        let n = self.element_bytes;
        let (start, end) = (start as usize * n, end as usize * n);
        fill_with_pattern(&mut self.dst[start..end], &self.chunk, self.uniform);
    }
}

/// One element's padding bytes repeated to at least 64 bytes (a whole
/// number of elements), so that filling a run copies chunks, not single
/// elements.
fn repeated_pattern(pattern: &[u8]) -> Vec<u8> {
    pattern.repeat(64_usize.div_ceil(pattern.len().max(1)))
}

/// The byte every byte of `pattern` is, if one is (zero padding).
fn uniform_byte(pattern: &[u8]) -> Option<u8> {
    let (&first, rest) = pattern.split_first()?;
    rest.iter().all(|&byte| byte == first).then_some(first)
}

/// Fills `region` (a whole number of elements) with copies of the element
/// whose bytes `chunk` repeats ([`repeated_pattern`]): a byte fill where
/// every byte is `uniform`, else whole chunks and a prefix of one.
fn fill_with_pattern(region: &mut [u8], chunk: &[u8], uniform: Option<u8>) {
    if let Some(byte) = uniform {
        region.fill(byte);
        return;
    }
    let mut chunks = region.chunks_exact_mut(chunk.len());
    for piece in &mut chunks {
        piece.copy_from_slice(chunk);
    }
    let tail = chunks.into_remainder();
    tail.copy_from_slice(&chunk[..tail.len()]);
}

#[cfg(test)]
mod tests {
    use super::{fill_with_pattern, repeated_pattern, uniform_byte};

    /// Runs of every length up to a few chunks, for element sizes that do
    /// and do not divide 64, equal what one copy per element writes.
    #[test]
    fn chunked_fills_equal_element_by_element_ones() {
        for pattern in [
            vec![7_u8],
            vec![0, 0, 0x80, 0x3F],
            vec![1, 2, 3],
            (1..=16).collect::<Vec<u8>>(),
            vec![0; 8],
        ] {
            let chunk = repeated_pattern(&pattern);
            assert!(chunk.len() >= 64 && chunk.len().is_multiple_of(pattern.len()));
            for count in 0..70 {
                let mut region = vec![0xEE_u8; count * pattern.len()];
                fill_with_pattern(&mut region, &chunk, uniform_byte(&pattern));
                let expected = pattern.repeat(count);
                assert_eq!(region, expected, "{pattern:?} x {count}");
            }
        }
    }
}
