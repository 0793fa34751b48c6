//! The names of elements and padding in pictures: `a b c ...`
//! for up to 26 elements, row-major numbers past that; padding by its value.

use schema::PaddingValue;

/// The label of the element with row-major index `index` in an array of
/// `count` elements: a letter when `count` is at most 26, else the number.
///
/// ```
/// assert_eq!(shape_util::element_label(3, 6), "d");
/// assert_eq!(shape_util::element_label(3, 30), "3");
/// ```
pub fn element_label(index: i64, count: i64) -> String {
    match u8::try_from(index) {
        Ok(i) if count <= 26 && i < 26 => char::from(b'a' + i).to_string(),
        _ => index.to_string(),
    }
}

/// How a padding value is written: `0`, `1`, `lo`, `hi`, or `?` when the
/// layout does not say.
///
/// ```
/// assert_eq!(shape_util::padding_label(schema::PaddingValue::ZeroPad), "0");
/// ```
pub fn padding_label(value: PaddingValue) -> &'static str {
    match value {
        PaddingValue::ZeroPad => "0",
        PaddingValue::OnePad => "1",
        PaddingValue::LowestPad => "lo",
        PaddingValue::HighestPad => "hi",
        PaddingValue::InvalidPad | PaddingValue::UnknownPad => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_up_to_26_elements_then_numbers() {
        assert_eq!(element_label(0, 6), "a");
        assert_eq!(element_label(25, 26), "z");
        assert_eq!(element_label(0, 27), "0");
        assert_eq!(element_label(26, 27), "26");
        assert_eq!(padding_label(PaddingValue::ZeroPad), "0");
        assert_eq!(padding_label(PaddingValue::HighestPad), "hi");
        assert_eq!(padding_label(PaddingValue::InvalidPad), "?");
    }
}
