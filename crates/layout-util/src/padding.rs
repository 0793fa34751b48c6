//! The classic (TensorFlow-era) padded layout: `padded_dimensions` and
//! `padding_value` (XLA's old `LayoutUtil::IsPadded`, `PaddedDimensions`,
//! `GetPaddingValue`).
//!
//! Padding appears at the end of each dimension and is not part of the
//! shape: a `[2 x 3]` array padded to `[3, 5]` stores the buffer of a
//! `[3 x 5]` array whose extra elements hold the padding value.

use schema::{Layout, PaddingValue, Shape};

use crate::LayoutError;
use crate::validate::validate_padding;

/// Whether some dimension of `shape` is padded beyond its size (XLA's old
/// `LayoutUtil::IsPadded`). Padding equal to the dimensions is not padding;
/// a shape without a layout or padding is not padded.
///
/// ```
/// use layout_util::{LayoutBuilder, is_padded};
/// let mut shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(LayoutBuilder::new(&[0, 1]).padded_dimensions(vec![3, 5]).build())),
///     ..Default::default()
/// };
/// assert!(is_padded(&shape));
/// shape.layout.as_mut().unwrap().padded_dimensions = vec![2, 3];
/// assert!(!is_padded(&shape));
/// ```
pub fn is_padded(shape: &Shape) -> bool {
    shape.layout.as_ref().is_some_and(|layout| {
        layout
            .padded_dimensions
            .iter()
            .zip(&shape.dimensions)
            .any(|(padded, size)| padded > size)
    })
}

/// The padded extent of each dimension of an array: the layout's
/// `padded_dimensions` when set, otherwise the dimensions themselves.
///
/// # Errors
///
/// XLA's padding validation errors: `layout has %d padded dimensions, but
/// shape is rank %d` and `for dimension %d, dimension padding (%d) is
/// smaller than the dimension size (%d) of the shape`.
///
/// ```
/// use layout_util::{LayoutBuilder, padded_dimensions};
/// let shape = schema::Shape {
///     element_type: schema::PrimitiveType::F32 as i32,
///     dimensions: vec![2, 3],
///     layout: Some(Box::new(LayoutBuilder::new(&[0, 1]).padded_dimensions(vec![3, 5]).build())),
///     ..Default::default()
/// };
/// assert_eq!(padded_dimensions(&shape).unwrap(), [3, 5]);
/// ```
pub fn padded_dimensions(shape: &Shape) -> Result<&[i64], LayoutError> {
    match shape.layout.as_deref() {
        Some(layout) if !layout.padded_dimensions.is_empty() => {
            validate_padding(layout, shape)?;
            Ok(&layout.padded_dimensions)
        }
        _ => Ok(&shape.dimensions),
    }
}

/// The padding value of a layout (XLA's old `LayoutUtil::GetPaddingValue`);
/// [`PaddingValue::InvalidPad`] when not set.
///
/// # Errors
///
/// [`LayoutError::UnknownPaddingValue`] if the number is not a
/// `PaddingValue`.
///
/// ```
/// use layout_util::{LayoutBuilder, padding_value};
/// use schema::PaddingValue;
/// let layout = LayoutBuilder::new(&[0]).padding_value(PaddingValue::ZeroPad).build();
/// assert_eq!(padding_value(&layout).unwrap(), PaddingValue::ZeroPad);
/// ```
pub fn padding_value(layout: &Layout) -> Result<PaddingValue, LayoutError> {
    PaddingValue::try_from(layout.padding_value).map_err(|_| LayoutError::UnknownPaddingValue {
        value: layout.padding_value,
    })
}
