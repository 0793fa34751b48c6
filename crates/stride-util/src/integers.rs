//! Decimal integers and integer lists as people type them on a command
//! line: `3`, `1,2,-3`, `[4,5]`.

use std::num::IntErrorKind;

use thiserror::Error;

/// Why a text is not an integer (or a list of them).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IntegerError {
    /// A number outside `i64`.
    #[error(
        "{text} is out of range: integers run from {} to {}",
        i64::MIN,
        i64::MAX
    )]
    OutOfRange {
        /// The number as given.
        text: String,
    },
    /// Not a decimal number.
    #[error("{text:?} is not an integer")]
    NotAnInteger {
        /// The text as given.
        text: String,
    },
}

/// Parses a decimal `i64` (surrounding whitespace ignored).
///
/// ```
/// assert_eq!(stride_util::parse_integer(" -3 "), Ok(-3));
/// assert_eq!(stride_util::parse_integer("x").unwrap_err().to_string(), "\"x\" is not an integer");
/// ```
///
/// # Errors
/// [`IntegerError`] saying whether the number is out of range or no number.
pub fn parse_integer(text: &str) -> Result<i64, IntegerError> {
    let text = text.trim();
    text.parse::<i64>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => IntegerError::OutOfRange {
            text: text.to_owned(),
        },
        _ => IntegerError::NotAnInteger {
            text: text.to_owned(),
        },
    })
}

/// Parses `i,j,k` or `[i,j,k]` (empty for none) as integers.
///
/// ```
/// assert_eq!(stride_util::parse_integers("[4, 5]"), Ok(vec![4, 5]));
/// assert_eq!(stride_util::parse_integers(""), Ok(vec![]));
/// ```
///
/// # Errors
/// The [`IntegerError`] of the first item that is no `i64`.
pub fn parse_integers(text: &str) -> Result<Vec<i64>, IntegerError> {
    let inner = text.trim();
    let inner = inner
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(inner);
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    inner.split(',').map(parse_integer).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_with_or_without_brackets() {
        assert_eq!(parse_integers("1, 2,-3").unwrap(), [1, 2, -3]);
        assert_eq!(parse_integers("[4,5]").unwrap(), [4, 5]);
        assert_eq!(parse_integers("[]").unwrap(), Vec::<i64>::new());
        assert!(
            parse_integers("1,x")
                .unwrap_err()
                .to_string()
                .contains("\"x\"")
        );
        assert_eq!(
            parse_integers("1,-99999999999999999999")
                .unwrap_err()
                .to_string(),
            "-99999999999999999999 is out of range: integers run from \
             -9223372036854775808 to 9223372036854775807"
        );
    }
}
