//! Shape arguments as people write them: an XLA shape string, or a bare
//! dimension list `[d0,d1,...]` standing for an `f32` array.

use schema::{ParseError, PrimitiveType, Shape};

use crate::error::Error;

/// Parses an XLA shape string (surrounding whitespace ignored), filling in
/// XLA's default layout.
pub fn shape(text: &str) -> Result<Shape, ParseError> {
    text.trim().parse()
}

/// An XLA shape string, or a bare dimension list `[d0,d1,...]` standing for
/// an `f32` array of those dimensions with XLA's default layout (packed row
/// major); with whether it was bare.
pub fn shape_or_dims(text: &str) -> Result<(Shape, bool), Error> {
    if text.trim_start().starts_with('[') {
        let dims = stride_util::parse_integers(text).map_err(|source| Error::Dimensions {
            text: text.to_owned(),
            source,
        })?;
        let shape = shape_util::make_shape(PrimitiveType::F32, &dims).map_err(|source| {
            Error::DimensionsShape {
                text: text.to_owned(),
                source,
            }
        })?;
        Ok((shape, true))
    } else {
        Ok((shape(text)?, false))
    }
}
