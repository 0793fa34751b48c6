//! Names, widths and kinds of [`PrimitiveType`], as XLA's `primitive_util`.

use std::fmt::{self, Display, Formatter};
use std::str::FromStr;

use crate::PrimitiveType;

/// A string that names no primitive type.
///
/// ```
/// let err = "F32".parse::<schema::PrimitiveType>().unwrap_err();
/// assert_eq!(err.to_string(), "Invalid element type string: \"F32\".");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrimitiveTypeError {
    /// XLA's `StringToPrimitiveType` message, with the name it was given.
    #[error("Invalid element type string: \"{name}\".")]
    UnknownName {
        /// The rejected name.
        name: String,
    },
}

/// Prints XLA's lowercase name ([`PrimitiveType::lowercase_name`]), as in
/// shape strings: `f32`, `bf16`, `opaque`.
///
/// ```
/// assert_eq!(schema::PrimitiveType::F8e4m3fn.to_string(), "f8e4m3fn");
/// assert_eq!(schema::PrimitiveType::OpaqueType.to_string(), "opaque");
/// ```
impl Display for PrimitiveType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.pad(self.lowercase_name())
    }
}

/// Parses a lowercase type name as XLA's `StringToPrimitiveType`
/// ([`PrimitiveType::from_lowercase_name`]).
///
/// ```
/// use schema::PrimitiveType;
/// assert_eq!("s4".parse(), Ok(PrimitiveType::S4));
/// assert_eq!("opaque_type".parse(), Ok(PrimitiveType::OpaqueType));
/// assert!("Pred".parse::<PrimitiveType>().is_err());
/// ```
///
/// # Errors
///
/// [`PrimitiveTypeError::UnknownName`] for anything else (names are
/// case-sensitive).
impl FromStr for PrimitiveType {
    type Err = PrimitiveTypeError;

    fn from_str(s: &str) -> Result<Self, PrimitiveTypeError> {
        Self::from_lowercase_name(s)
            .ok_or_else(|| PrimitiveTypeError::UnknownName { name: s.to_owned() })
    }
}

impl PrimitiveType {
    /// XLA's lowercase name of the type: the enum name in lowercase, except
    /// that `OPAQUE_TYPE` is `opaque`.
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// assert_eq!(PrimitiveType::Bf16.lowercase_name(), "bf16");
    /// assert_eq!(PrimitiveType::F8e4m3fn.lowercase_name(), "f8e4m3fn");
    /// assert_eq!(PrimitiveType::OpaqueType.lowercase_name(), "opaque");
    /// ```
    pub fn lowercase_name(self) -> &'static str {
        match self {
            Self::Invalid => "primitive_type_invalid",
            Self::Pred => "pred",
            Self::S1 => "s1",
            Self::S2 => "s2",
            Self::S4 => "s4",
            Self::S8 => "s8",
            Self::S16 => "s16",
            Self::S32 => "s32",
            Self::S64 => "s64",
            Self::U1 => "u1",
            Self::U2 => "u2",
            Self::U4 => "u4",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::F32 => "f32",
            Self::Bf16 => "bf16",
            Self::F64 => "f64",
            Self::F8e5m2 => "f8e5m2",
            Self::F8e4m3 => "f8e4m3",
            Self::F8e4m3fn => "f8e4m3fn",
            Self::F8e4m3b11fnuz => "f8e4m3b11fnuz",
            Self::F8e3m4 => "f8e3m4",
            Self::F8e5m2fnuz => "f8e5m2fnuz",
            Self::F8e4m3fnuz => "f8e4m3fnuz",
            Self::F4e2m1fn => "f4e2m1fn",
            Self::F8e8m0fnu => "f8e8m0fnu",
            Self::F6e3m2fn => "f6e3m2fn",
            Self::F6e2m3fn => "f6e2m3fn",
            Self::C64 => "c64",
            Self::C128 => "c128",
            Self::Tuple => "tuple",
            Self::OpaqueType => "opaque",
            Self::Token => "token",
            Self::Buffer => "buffer",
        }
    }

    /// The type with the given lowercase name (XLA's `StringToPrimitiveType`):
    /// every [`lowercase_name`](Self::lowercase_name), and `opaque_type` too.
    /// Names are case-sensitive: `F32` is not a type name.
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// assert_eq!(PrimitiveType::from_lowercase_name("s4"), Some(PrimitiveType::S4));
    /// assert_eq!(PrimitiveType::from_lowercase_name("opaque_type"), Some(PrimitiveType::OpaqueType));
    /// assert_eq!(PrimitiveType::from_lowercase_name("F32"), None);
    /// ```
    pub fn from_lowercase_name(name: &str) -> Option<Self> {
        if name == "opaque_type" {
            return Some(Self::OpaqueType);
        }
        ALL.iter().copied().find(|t| t.lowercase_name() == name)
    }

    /// Whether values of this type are array elements (not invalid, tuple,
    /// opaque, token or buffer).
    pub fn is_array_type(self) -> bool {
        !matches!(
            self,
            Self::Invalid | Self::Tuple | Self::OpaqueType | Self::Token | Self::Buffer
        )
    }

    /// Whether the type is a signed integer type.
    pub fn is_signed_integral(self) -> bool {
        matches!(
            self,
            Self::S1 | Self::S2 | Self::S4 | Self::S8 | Self::S16 | Self::S32 | Self::S64
        )
    }

    /// Whether the type is an unsigned integer type.
    pub fn is_unsigned_integral(self) -> bool {
        matches!(
            self,
            Self::U1 | Self::U2 | Self::U4 | Self::U8 | Self::U16 | Self::U32 | Self::U64
        )
    }

    /// Whether the type is an integer type (signed or unsigned; not `pred`).
    pub fn is_integral(self) -> bool {
        self.is_signed_integral() || self.is_unsigned_integral()
    }

    /// Whether the type is a real floating-point type.
    pub fn is_floating_point(self) -> bool {
        matches!(
            self,
            Self::F16
                | Self::F32
                | Self::Bf16
                | Self::F64
                | Self::F8e5m2
                | Self::F8e4m3
                | Self::F8e4m3fn
                | Self::F8e4m3b11fnuz
                | Self::F8e3m4
                | Self::F8e5m2fnuz
                | Self::F8e4m3fnuz
                | Self::F4e2m1fn
                | Self::F8e8m0fnu
                | Self::F6e3m2fn
                | Self::F6e2m3fn
        )
    }

    /// Whether the type is a complex type (`c64`, `c128`).
    pub fn is_complex(self) -> bool {
        matches!(self, Self::C64 | Self::C128)
    }

    /// The number of bits of information in one element (XLA's `BitWidth`):
    /// 1 for `pred`, 4 for `s4`, 64 for `c64`; `None` for non-array types.
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// assert_eq!(PrimitiveType::Pred.bit_width(), Some(1));
    /// assert_eq!(PrimitiveType::F4e2m1fn.bit_width(), Some(4));
    /// assert_eq!(PrimitiveType::C128.bit_width(), Some(128));
    /// assert_eq!(PrimitiveType::Tuple.bit_width(), None);
    /// ```
    pub fn bit_width(self) -> Option<u32> {
        Some(match self {
            Self::Pred | Self::S1 | Self::U1 => 1,
            Self::S2 | Self::U2 => 2,
            Self::S4 | Self::U4 | Self::F4e2m1fn => 4,
            Self::S8
            | Self::U8
            | Self::F8e5m2
            | Self::F8e4m3
            | Self::F8e4m3fn
            | Self::F8e4m3b11fnuz
            | Self::F8e3m4
            | Self::F8e5m2fnuz
            | Self::F8e4m3fnuz
            | Self::F8e8m0fnu
            | Self::F6e3m2fn
            | Self::F6e2m3fn => 8,
            Self::S16 | Self::U16 | Self::F16 | Self::Bf16 => 16,
            Self::S32 | Self::U32 | Self::F32 => 32,
            Self::S64 | Self::U64 | Self::F64 | Self::C64 => 64,
            Self::C128 => 128,
            Self::Invalid | Self::Tuple | Self::OpaqueType | Self::Token | Self::Buffer => {
                return None;
            }
        })
    }

    /// The bytes one element occupies when unpacked (XLA's
    /// `ByteSizeOfPrimitiveType`): the bit width rounded up to whole bytes,
    /// so sub-byte types and `pred` take 1. `None` for non-array types.
    ///
    /// ```
    /// use schema::PrimitiveType;
    /// assert_eq!(PrimitiveType::S4.byte_width(), Some(1));
    /// assert_eq!(PrimitiveType::F32.byte_width(), Some(4));
    /// assert_eq!(PrimitiveType::C64.byte_width(), Some(8));
    /// ```
    pub fn byte_width(self) -> Option<i64> {
        self.bit_width().map(|bits| i64::from(bits.div_ceil(8)))
    }

    /// Whether the type packs several elements per byte: an array type other
    /// than `pred` narrower than 8 bits (XLA's `IsSubByteNonPredType`).
    pub fn is_sub_byte(self) -> bool {
        self != Self::Pred && self.bit_width().is_some_and(|bits| bits < 8)
    }

    /// Every value of the enum, in declaration order.
    pub fn all() -> &'static [Self] {
        &ALL
    }
}

const ALL: [PrimitiveType; 37] = [
    PrimitiveType::Invalid,
    PrimitiveType::Pred,
    PrimitiveType::S1,
    PrimitiveType::S2,
    PrimitiveType::S4,
    PrimitiveType::S8,
    PrimitiveType::S16,
    PrimitiveType::S32,
    PrimitiveType::S64,
    PrimitiveType::U1,
    PrimitiveType::U2,
    PrimitiveType::U4,
    PrimitiveType::U8,
    PrimitiveType::U16,
    PrimitiveType::U32,
    PrimitiveType::U64,
    PrimitiveType::F16,
    PrimitiveType::F32,
    PrimitiveType::Bf16,
    PrimitiveType::F64,
    PrimitiveType::F8e5m2,
    PrimitiveType::F8e4m3,
    PrimitiveType::F8e4m3fn,
    PrimitiveType::F8e4m3b11fnuz,
    PrimitiveType::F8e3m4,
    PrimitiveType::F8e5m2fnuz,
    PrimitiveType::F8e4m3fnuz,
    PrimitiveType::F4e2m1fn,
    PrimitiveType::F8e8m0fnu,
    PrimitiveType::F6e3m2fn,
    PrimitiveType::F6e2m3fn,
    PrimitiveType::C64,
    PrimitiveType::C128,
    PrimitiveType::Tuple,
    PrimitiveType::OpaqueType,
    PrimitiveType::Token,
    PrimitiveType::Buffer,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_honours_width_fill_and_alignment() {
        assert_eq!(format!("{:>10}|", PrimitiveType::F32), "       f32|");
        assert_eq!(format!("{:<6}|", PrimitiveType::Bf16), "bf16  |");
        assert_eq!(format!("{:*^7}", PrimitiveType::S8), "**s8***");
        assert_eq!(format!("{}", PrimitiveType::OpaqueType), "opaque");
    }

    #[test]
    fn every_type_round_trips_through_its_name() {
        for &t in PrimitiveType::all() {
            assert_eq!(
                PrimitiveType::from_lowercase_name(t.lowercase_name()),
                Some(t)
            );
        }
    }

    #[test]
    fn names_are_the_lowercase_enum_names_except_opaque() {
        // xla_data.proto's names, lowercased; OPAQUE_TYPE prints as `opaque`.
        for &t in PrimitiveType::all() {
            let expected = match t {
                PrimitiveType::OpaqueType => "opaque".to_owned(),
                _ => t.as_str_name().to_lowercase(),
            };
            assert_eq!(t.to_string(), expected);
            assert_eq!(expected.parse::<PrimitiveType>(), Ok(t));
        }
        for name in ["F32", "Pred", "preD", "g32", "", "opaque "] {
            assert_eq!(
                name.parse::<PrimitiveType>().unwrap_err().to_string(),
                format!("Invalid element type string: \"{name}\".")
            );
        }
    }

    #[test]
    fn all_lists_every_wire_value_once() {
        let mut numbers: Vec<i32> = PrimitiveType::all().iter().map(|&t| t as i32).collect();
        numbers.sort_unstable();
        // XLA uses every number from 0 to 36.
        assert_eq!(numbers, (0..=36).collect::<Vec<_>>());
    }

    #[test]
    fn sub_byte_types_are_the_narrow_non_pred_ones() {
        let sub: Vec<&str> = PrimitiveType::all()
            .iter()
            .filter(|t| t.is_sub_byte())
            .map(|t| t.lowercase_name())
            .collect();
        assert_eq!(sub, ["s1", "s2", "s4", "u1", "u2", "u4", "f4e2m1fn"]);
    }
}
