//! [`LiteralText`]: a literal's shape and the text of its value.

use std::fmt;

use schema::LiteralProto;
use serde::{Deserialize, Serialize};

use crate::{LiteralError, to_text};

/// A literal's shape with its layout (`f32[2]{0}`) and the text of its
/// value as [`to_text`] writes it. `Display` shows the value alone, as an
/// HLO `constant(...)` holds it.
///
/// ```
/// let shape: schema::Shape = "s32[3]{0}".parse().unwrap();
/// let bytes: Vec<u8> = [1i32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let literal = literal_util::from_buffer(&shape, &bytes).unwrap();
/// let text = literal_util::LiteralText::new(&literal).unwrap();
/// assert_eq!(text.shape, "s32[3]{0}");
/// assert_eq!(text.to_string(), "{1, 2, 3}");
/// assert_eq!(format!("{text:>11}|"), "  {1, 2, 3}|");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LiteralText {
    /// XLA's `HumanStringWithLayout` of the literal's shape.
    pub shape: String,
    /// The value, as [`to_text`] writes it.
    pub text: String,
}

impl LiteralText {
    /// The shape and text of `literal`.
    ///
    /// # Errors
    ///
    /// [`LiteralError::NoShape`] for a literal without a shape, and the
    /// errors of [`to_text`].
    pub fn new(literal: &LiteralProto) -> Result<Self, LiteralError> {
        let shape = literal.shape.as_ref().ok_or(LiteralError::NoShape)?;
        Ok(Self {
            shape: shape.human_string_with_layout(),
            text: to_text(literal)?,
        })
    }
}

impl fmt::Display for LiteralText {
    /// The value's text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.text)
    }
}
