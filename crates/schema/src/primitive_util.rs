//! XLA's `primitive_util` (`xla/primitive_util.h`): the properties of a
//! [`PrimitiveType`] as free functions named as XLA names them — the
//! floating-point formats (significand and exponent widths, bias, infinity,
//! NaN, negative zero), type families, bit widths, the integer type of a bit
//! width, complex component types, which conversions preserve every value,
//! and the packing of sub-byte values (`PackIntN`/`UnpackIntN`).
//!
//! It lives in `schema` because every crate above needs these facts
//! (shape sizes, literal printing, the relayout engine's sub-byte repacking)
//! and `schema` is the one crate below them all. Where XLA crashes
//! (`LOG(FATAL)`, `CHECK`), these functions return a [`PrimitiveUtilError`]
//! with XLA's message; where XLA answers `PRIMITIVE_TYPE_INVALID` as "none",
//! they answer `None`.
//!
//! ```
//! use schema::PrimitiveType::{Bf16, F8e4m3fn, F32, S16};
//! use schema::primitive_util as pu;
//!
//! assert_eq!(pu::significand_width(F32).unwrap(), 24);
//! assert_eq!(pu::exponent_bias(Bf16).unwrap(), 127);
//! assert!(!pu::has_infinity(F8e4m3fn));
//! assert!(pu::cast_preserves_values(S16, F32));
//! assert!(!pu::cast_preserves_values(S16, Bf16));
//! ```

use crate::PrimitiveType;

/// Where XLA's `primitive_util` would crash: the message XLA logs, with the
/// offending type by its enum name (`F32`) where XLA prints the enum's
/// number.
///
/// ```
/// let err = schema::primitive_util::significand_width(schema::PrimitiveType::S32).unwrap_err();
/// assert_eq!(err.to_string(), "Not a floating point data type S32");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrimitiveUtilError {
    /// A floating-point property of a type that is not floating point.
    #[error("Not a floating point data type {}", .0.as_str_name())]
    NotFloatingPoint(PrimitiveType),
    /// An integer property of a type that is not integral.
    #[error("Not an integral data type {}", .0.as_str_name())]
    NotIntegral(PrimitiveType),
    /// `ComplexComponentType` of a type that is not complex.
    #[error("Primitive type is not complex: {}", .0.as_str_name())]
    NotComplex(PrimitiveType),
    /// A width of a type that is not an array type (tuple, token, ...).
    #[error("Unhandled primitive type {}", .0.as_str_name())]
    NotArray(PrimitiveType),
    /// `HigherPrecisionType` of two different types XLA ranks equal
    /// (its `CHECK_EQ(a, b)`).
    #[error("Check failed: a == b ({} vs. {})", .0.as_str_name(), .1.as_str_name())]
    EqualPrecision(PrimitiveType, PrimitiveType),
    /// Packing with a width other than 1, 2 or 4 bits.
    #[error("Invalid bits_per_element: {0}")]
    InvalidBitsPerElement(u32),
    /// A packing output too small for its input.
    #[error("output has {actual} bytes; {elements} elements of {bits} bits need {needed}")]
    OutputTooSmall {
        /// The elements to pack or unpack.
        elements: usize,
        /// Their width.
        bits: u32,
        /// The bytes the output needs.
        needed: usize,
        /// The bytes it has.
        actual: usize,
    },
}

/// `std::numeric_limits` of a floating-point type as XLA reads them:
/// `(digits, min_exponent, max_exponent, has_infinity, has_quiet_NaN,
/// has negative zero)`.
fn float_limits(
    ty: PrimitiveType,
) -> Result<(i32, i32, i32, bool, bool, bool), PrimitiveUtilError> {
    use PrimitiveType as T;
    Ok(match ty {
        T::F16 => (11, -13, 16, true, true, true),
        T::Bf16 => (8, -125, 128, true, true, true),
        T::F32 => (24, -125, 128, true, true, true),
        T::F64 => (53, -1021, 1024, true, true, true),
        T::F8e5m2 => (3, -13, 16, true, true, true),
        T::F8e4m3 => (4, -5, 8, true, true, true),
        T::F8e4m3fn => (4, -5, 9, false, true, true),
        T::F8e4m3b11fnuz => (4, -9, 5, false, true, false),
        T::F8e3m4 => (5, -1, 4, true, true, true),
        T::F8e5m2fnuz => (3, -14, 16, false, true, false),
        T::F8e4m3fnuz => (4, -6, 8, false, true, false),
        T::F4e2m1fn => (2, 1, 3, false, false, true),
        T::F8e8m0fnu => (1, -126, 128, false, true, false),
        T::F6e3m2fn => (3, -1, 5, false, false, true),
        T::F6e2m3fn => (4, 1, 3, false, false, true),
        other => return Err(PrimitiveUtilError::NotFloatingPoint(other)),
    })
}

/// XLA's `SignificandWidth`: the significand bits of a floating-point type,
/// the implicit leading bit included (24 for `f32`).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::significand_width};
/// assert_eq!(significand_width(PrimitiveType::Bf16).unwrap(), 8);
/// assert_eq!(significand_width(PrimitiveType::F8e8m0fnu).unwrap(), 1);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotFloatingPoint`] for other types.
pub fn significand_width(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    Ok(float_limits(ty)?.0)
}

/// XLA's `ExponentWidth`: the bit width less the trailing significand and
/// one sign bit (8 for `f32`). As in XLA, this counts a sign bit that
/// `f8e8m0fnu` lacks (7) and the two unused bits of the `f6` types, which
/// XLA stores in a byte (5 for `f6e3m2fn`).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::exponent_width};
/// assert_eq!(exponent_width(PrimitiveType::F32).unwrap(), 8);
/// assert_eq!(exponent_width(PrimitiveType::F8e4m3fn).unwrap(), 4);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotFloatingPoint`] for other types.
pub fn exponent_width(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    let significand = significand_width(ty)?;
    Ok(bit_width(ty)? - (significand - 1) - 1)
}

/// XLA's `UnderflowExponent`: `numeric_limits::min_exponent`, one more than
/// the exponent of the smallest normal number (-125 for `f32`).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::underflow_exponent};
/// assert_eq!(underflow_exponent(PrimitiveType::F32).unwrap(), -125);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotFloatingPoint`] for other types.
pub fn underflow_exponent(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    Ok(float_limits(ty)?.1)
}

/// XLA's `OverflowExponent`: `numeric_limits::max_exponent`, the smallest
/// exponent that overflows (128 for `f32`).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::overflow_exponent};
/// assert_eq!(overflow_exponent(PrimitiveType::F8e4m3fn).unwrap(), 9);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotFloatingPoint`] for other types.
pub fn overflow_exponent(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    Ok(float_limits(ty)?.2)
}

/// XLA's `ExponentBias`: `2 - min_exponent` (127 for `f32`; 128 for
/// `f8e8m0fnu`, whose format has no subnormals, as XLA computes it).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::exponent_bias};
/// assert_eq!(exponent_bias(PrimitiveType::F16).unwrap(), 15);
/// assert_eq!(exponent_bias(PrimitiveType::F8e4m3b11fnuz).unwrap(), 11);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotFloatingPoint`] for other types.
pub fn exponent_bias(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    Ok((1 - underflow_exponent(ty)?) + 1)
}

/// XLA's `HasInfinity`: whether a floating-point type has infinities
/// (false for every other type).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::has_infinity};
/// assert!(has_infinity(PrimitiveType::F8e5m2));
/// assert!(!has_infinity(PrimitiveType::F8e5m2fnuz));
/// assert!(!has_infinity(PrimitiveType::S32));
/// ```
pub fn has_infinity(ty: PrimitiveType) -> bool {
    float_limits(ty).is_ok_and(|l| l.3)
}

/// XLA's `HasNaN`: whether a floating-point type has a NaN (false for every
/// other type).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::has_nan};
/// assert!(has_nan(PrimitiveType::F8e4m3fn));
/// assert!(!has_nan(PrimitiveType::F4e2m1fn));
/// ```
pub fn has_nan(ty: PrimitiveType) -> bool {
    float_limits(ty).is_ok_and(|l| l.4)
}

/// XLA's `HasNegativeZero`: whether a floating-point type has a negative
/// zero (false for the `fnuz` types and every non-float type).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::has_negative_zero};
/// assert!(has_negative_zero(PrimitiveType::F32));
/// assert!(!has_negative_zero(PrimitiveType::F8e4m3fnuz));
/// ```
pub fn has_negative_zero(ty: PrimitiveType) -> bool {
    float_limits(ty).is_ok_and(|l| l.5)
}

/// XLA's `IsMXType`: `f4e2m1fn` and `f8e8m0fnu`, the microscaling formats.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::is_mx_type};
/// assert!(is_mx_type(PrimitiveType::F8e8m0fnu));
/// assert!(!is_mx_type(PrimitiveType::F6e2m3fn));
/// ```
pub fn is_mx_type(ty: PrimitiveType) -> bool {
    matches!(ty, PrimitiveType::F4e2m1fn | PrimitiveType::F8e8m0fnu)
}

/// XLA's `IsF8Type`: the 8-bit floating-point types other than the MX
/// `f8e8m0fnu`.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::is_f8_type};
/// assert!(is_f8_type(PrimitiveType::F8e4m3b11fnuz));
/// assert!(!is_f8_type(PrimitiveType::F8e8m0fnu));
/// ```
pub fn is_f8_type(ty: PrimitiveType) -> bool {
    use PrimitiveType as T;
    matches!(
        ty,
        T::F8e5m2
            | T::F8e4m3
            | T::F8e4m3fn
            | T::F8e4m3b11fnuz
            | T::F8e5m2fnuz
            | T::F8e4m3fnuz
            | T::F8e3m4
    )
}

/// XLA's `IsFloatingPointType` ([`PrimitiveType::is_floating_point`]).
///
/// ```
/// assert!(schema::primitive_util::is_floating_point_type(schema::PrimitiveType::Bf16));
/// ```
pub fn is_floating_point_type(ty: PrimitiveType) -> bool {
    ty.is_floating_point()
}

/// XLA's `IsComplexType` ([`PrimitiveType::is_complex`]).
///
/// ```
/// assert!(schema::primitive_util::is_complex_type(schema::PrimitiveType::C64));
/// ```
pub fn is_complex_type(ty: PrimitiveType) -> bool {
    ty.is_complex()
}

/// XLA's `IsSignedIntegralType` ([`PrimitiveType::is_signed_integral`]).
///
/// ```
/// assert!(schema::primitive_util::is_signed_integral_type(schema::PrimitiveType::S1));
/// ```
pub fn is_signed_integral_type(ty: PrimitiveType) -> bool {
    ty.is_signed_integral()
}

/// XLA's `IsUnsignedIntegralType` ([`PrimitiveType::is_unsigned_integral`]).
///
/// ```
/// assert!(schema::primitive_util::is_unsigned_integral_type(schema::PrimitiveType::U2));
/// ```
pub fn is_unsigned_integral_type(ty: PrimitiveType) -> bool {
    ty.is_unsigned_integral()
}

/// XLA's `IsIntegralType` ([`PrimitiveType::is_integral`]; not `pred`).
///
/// ```
/// assert!(!schema::primitive_util::is_integral_type(schema::PrimitiveType::Pred));
/// ```
pub fn is_integral_type(ty: PrimitiveType) -> bool {
    ty.is_integral()
}

/// XLA's `Is8BitIntegralType`: `s8` and `u8`.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::is_8bit_integral_type};
/// assert!(is_8bit_integral_type(PrimitiveType::U8));
/// assert!(!is_8bit_integral_type(PrimitiveType::F8e5m2));
/// ```
pub fn is_8bit_integral_type(ty: PrimitiveType) -> bool {
    matches!(ty, PrimitiveType::S8 | PrimitiveType::U8)
}

/// XLA's `IsArrayType` ([`PrimitiveType::is_array_type`]): `pred`,
/// integers, floats and complex types.
///
/// ```
/// assert!(!schema::primitive_util::is_array_type(schema::PrimitiveType::Token));
/// ```
pub fn is_array_type(ty: PrimitiveType) -> bool {
    ty.is_array_type()
}

/// XLA's `IsSubByteNonPredType` ([`PrimitiveType::is_sub_byte`]).
///
/// ```
/// assert!(schema::primitive_util::is_sub_byte_non_pred_type(schema::PrimitiveType::S4));
/// ```
pub fn is_sub_byte_non_pred_type(ty: PrimitiveType) -> bool {
    ty.is_sub_byte()
}

/// XLA's `BitWidth` ([`PrimitiveType::bit_width`]).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::bit_width};
/// assert_eq!(bit_width(PrimitiveType::F4e2m1fn).unwrap(), 4);
/// assert_eq!(bit_width(PrimitiveType::Tuple).unwrap_err().to_string(), "Unhandled primitive type TUPLE");
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotArray`] for non-array types.
pub fn bit_width(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    ty.bit_width()
        .and_then(|b| i32::try_from(b).ok())
        .ok_or(PrimitiveUtilError::NotArray(ty))
}

/// XLA's `ByteWidth` ([`PrimitiveType::byte_width`]): the bit width
/// rounded up to whole bytes.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::byte_width};
/// assert_eq!(byte_width(PrimitiveType::S2).unwrap(), 1);
/// assert_eq!(byte_width(PrimitiveType::C128).unwrap(), 16);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotArray`] for non-array types.
pub fn byte_width(ty: PrimitiveType) -> Result<i32, PrimitiveUtilError> {
    Ok((bit_width(ty)? + 7) / 8)
}

/// XLA's `UnsignedIntegralTypeForBitWidth`: `u1`, `u2`, `u4`, `u8`, ...,
/// `u64`; `None` where XLA answers `PRIMITIVE_TYPE_INVALID`.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::unsigned_integral_type_for_bit_width};
/// assert_eq!(unsigned_integral_type_for_bit_width(2), Some(PrimitiveType::U2));
/// assert_eq!(unsigned_integral_type_for_bit_width(3), None);
/// ```
pub fn unsigned_integral_type_for_bit_width(bits: i64) -> Option<PrimitiveType> {
    use PrimitiveType as T;
    Some(match bits {
        1 => T::U1,
        2 => T::U2,
        4 => T::U4,
        8 => T::U8,
        16 => T::U16,
        32 => T::U32,
        64 => T::U64,
        _ => return None,
    })
}

/// XLA's `SignedIntegralTypeForBitWidth`: `s2`, `s4`, `s8`, ..., `s64`;
/// `None` where XLA answers `PRIMITIVE_TYPE_INVALID` (also for 1: XLA has
/// no signed 1-bit case here, though `s1` exists).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::signed_integral_type_for_bit_width};
/// assert_eq!(signed_integral_type_for_bit_width(4), Some(PrimitiveType::S4));
/// assert_eq!(signed_integral_type_for_bit_width(1), None);
/// ```
pub fn signed_integral_type_for_bit_width(bits: i64) -> Option<PrimitiveType> {
    use PrimitiveType as T;
    Some(match bits {
        2 => T::S2,
        4 => T::S4,
        8 => T::S8,
        16 => T::S16,
        32 => T::S32,
        64 => T::S64,
        _ => return None,
    })
}

/// XLA's `ComplexComponentType`: `f32` for `c64`, `f64` for `c128`.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::complex_component_type};
/// assert_eq!(complex_component_type(PrimitiveType::C128).unwrap(), PrimitiveType::F64);
/// assert_eq!(
///     complex_component_type(PrimitiveType::F32).unwrap_err().to_string(),
///     "Primitive type is not complex: F32"
/// );
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotComplex`] for other types.
pub fn complex_component_type(ty: PrimitiveType) -> Result<PrimitiveType, PrimitiveUtilError> {
    match ty {
        PrimitiveType::C64 => Ok(PrimitiveType::F32),
        PrimitiveType::C128 => Ok(PrimitiveType::F64),
        other => Err(PrimitiveUtilError::NotComplex(other)),
    }
}

/// XLA's `ComplexType`: `c64` for `f32`, `c128` for `f64`; `None` where XLA
/// answers `PRIMITIVE_TYPE_INVALID`.
///
/// ```
/// use schema::{PrimitiveType, primitive_util::complex_type};
/// assert_eq!(complex_type(PrimitiveType::F32), Some(PrimitiveType::C64));
/// assert_eq!(complex_type(PrimitiveType::F16), None);
/// ```
pub fn complex_type(base: PrimitiveType) -> Option<PrimitiveType> {
    match base {
        PrimitiveType::F32 => Some(PrimitiveType::C64),
        PrimitiveType::F64 => Some(PrimitiveType::C128),
        _ => None,
    }
}

/// XLA's ordering key of `HigherPrecisionType`: complex first, then the
/// float range, the float precision, the width, and signedness. Non-array
/// types rank lowest (width 0), where XLA would crash.
pub(crate) fn precision_key(ty: PrimitiveType) -> (bool, i32, i32, i32, bool) {
    let component = complex_component_type(ty).unwrap_or(ty);
    (
        ty.is_complex(),
        overflow_exponent(component).unwrap_or(-1),
        significand_width(component).unwrap_or(-1),
        bit_width(component).unwrap_or(0),
        component.is_signed_integral(),
    )
}

/// XLA's `HigherPrecisionType`: the type with more range, then more
/// precision, then more bits (complex above real, signed above unsigned).
///
/// ```
/// use schema::PrimitiveType::{Bf16, F16, F8e5m2, F8e5m2fnuz};
/// use schema::primitive_util::higher_precision_type;
/// assert_eq!(higher_precision_type(F16, Bf16).unwrap(), Bf16);
/// assert!(higher_precision_type(F8e5m2, F8e5m2fnuz).is_err());
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::EqualPrecision`] for two different types XLA
/// ranks equal (where XLA's `CHECK_EQ` fails), such as `f8e5m2` and
/// `f8e5m2fnuz`.
pub fn higher_precision_type(
    a: PrimitiveType,
    b: PrimitiveType,
) -> Result<PrimitiveType, PrimitiveUtilError> {
    let (ka, kb) = (precision_key(a), precision_key(b));
    if ka > kb {
        Ok(a)
    } else if kb > ka {
        Ok(b)
    } else if a == b {
        Ok(a)
    } else {
        Err(PrimitiveUtilError::EqualPrecision(a, b))
    }
}

/// XLA's `CastPreservesValues`: whether converting every value of `from`
/// to `to` loses nothing. A non-array type on either side (where XLA would
/// crash) answers `false`, unless both are the same type.
///
/// ```
/// use schema::PrimitiveType::{C64, F16, F32, F8e4m3fn, F8e8m0fnu, Pred, S32, U8};
/// use schema::primitive_util::cast_preserves_values;
/// assert!(cast_preserves_values(U8, F16));
/// assert!(!cast_preserves_values(S32, F32));
/// assert!(cast_preserves_values(F16, C64));
/// assert!(cast_preserves_values(F8e4m3fn, F16));
/// assert!(!cast_preserves_values(Pred, F8e8m0fnu)); // no zero in f8e8m0fnu
/// ```
pub fn cast_preserves_values(from: PrimitiveType, to: PrimitiveType) -> bool {
    if from == to {
        return true;
    }
    if !from.is_array_type() || !to.is_array_type() || to == PrimitiveType::F8e8m0fnu {
        return false;
    }
    if from == PrimitiveType::Pred {
        return true;
    }
    if to == PrimitiveType::Pred {
        return false;
    }
    if let Ok(to_component) = complex_component_type(to) {
        return cast_preserves_values(complex_component_type(from).unwrap_or(from), to_component);
    }
    if from.is_complex() {
        return false;
    }
    if let (Ok(f), Ok(t)) = (float_limits(from), float_limits(to)) {
        let (f_exp, t_exp) = (exponent_width(from), exponent_width(to));
        return f.0 <= t.0
            && f_exp.is_ok_and(|fe| t_exp.is_ok_and(|te| fe <= te))
            && (!f.3 || t.3)
            && (!f.4 || t.4)
            && (!f.5 || t.5)
            && f.1 - f.0 >= t.1 - t.0
            && f.2 <= t.2;
    }
    if !from.is_integral() {
        return false;
    }
    let value_bits = |ty: PrimitiveType| {
        let bits = bit_width(ty).unwrap_or(0);
        if ty.is_signed_integral() {
            bits - 1
        } else {
            bits
        }
    };
    let from_bits = value_bits(from);
    if let Ok(t) = float_limits(to) {
        return from_bits <= t.0 && bit_width(from).unwrap_or(0) - 1 < t.2;
    }
    if from.is_signed_integral() && to.is_unsigned_integral() {
        return false;
    }
    from_bits <= value_bits(to)
}

/// XLA's `LowercasePrimitiveTypeName` ([`PrimitiveType::lowercase_name`]).
///
/// ```
/// assert_eq!(schema::primitive_util::lowercase_primitive_type_name(schema::PrimitiveType::OpaqueType), "opaque");
/// ```
pub fn lowercase_primitive_type_name(ty: PrimitiveType) -> &'static str {
    ty.lowercase_name()
}

/// XLA's `StringToPrimitiveType` (also [`std::str::FromStr`] on
/// [`PrimitiveType`]).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::string_to_primitive_type};
/// assert_eq!(string_to_primitive_type("f32"), Ok(PrimitiveType::F32));
/// assert_eq!(string_to_primitive_type("F32").unwrap_err().to_string(), "Invalid element type string: \"F32\".");
/// ```
///
/// # Errors
///
/// [`crate::PrimitiveTypeError::UnknownName`] for a name of no type.
pub fn string_to_primitive_type(name: &str) -> Result<PrimitiveType, crate::PrimitiveTypeError> {
    name.parse()
}

/// XLA's `IsPrimitiveTypeName`: whether `name` is a lowercase type name.
///
/// ```
/// use schema::primitive_util::is_primitive_type_name;
/// assert!(is_primitive_type_name("bf16"));
/// assert!(!is_primitive_type_name("BF16"));
/// ```
pub fn is_primitive_type_name(name: &str) -> bool {
    PrimitiveType::from_lowercase_name(name).is_some()
}

/// XLA's `FitsInIntegralType`: whether `x` is a value of the integer type
/// `ty` (`-8..=7` for `s4`, `0..=3` for `u2`).
///
/// ```
/// use schema::{PrimitiveType, primitive_util::fits_in_integral_type};
/// assert!(fits_in_integral_type(-8, PrimitiveType::S4).unwrap());
/// assert!(!fits_in_integral_type(8, PrimitiveType::S4).unwrap());
/// assert!(fits_in_integral_type(1, PrimitiveType::F32).is_err());
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::NotIntegral`] for a type that is not an integer
/// type.
pub fn fits_in_integral_type(x: i64, ty: PrimitiveType) -> Result<bool, PrimitiveUtilError> {
    if !ty.is_integral() {
        return Err(PrimitiveUtilError::NotIntegral(ty));
    }
    let bits = ty.bit_width().unwrap_or(64);
    let x = i128::from(x);
    Ok(if ty.is_signed_integral() {
        let half = 1_i128 << (bits - 1);
        (-half..half).contains(&x)
    } else {
        (0..(1_i128 << bits)).contains(&x)
    })
}

/// The bytes `elements` values of `bits` bits take packed.
fn packed_len(elements: usize, bits: u32) -> usize {
    // bits <= 4, so `elements * bits` is computed without overflow in u128.
    usize::try_from((elements as u128 * u128::from(bits)).div_ceil(8)).unwrap_or(usize::MAX)
}

/// Checks a packing of `elements` values of `bits` bits into (or from)
/// `bytes` bytes: the values per byte and the mask of one value.
fn check_sizes(
    bits: u32,
    elements: usize,
    bytes: usize,
) -> Result<(usize, u8), PrimitiveUtilError> {
    if !matches!(bits, 1 | 2 | 4) {
        return Err(PrimitiveUtilError::InvalidBitsPerElement(bits));
    }
    let needed = packed_len(elements, bits);
    if bytes < needed {
        return Err(PrimitiveUtilError::OutputTooSmall {
            elements,
            bits,
            needed,
            actual: bytes,
        });
    }
    Ok(((8 / bits) as usize, (1_u8 << bits) - 1))
}

/// XLA's `PackIntN` (`xla/util.h`, by bit width): packs `input`, one value
/// per byte in its low bits, into `output`, `8 / bits` values per byte,
/// value `k` at bits `k·bits ..` of its byte counting from the least
/// significant (as jaxlib 0.12 stores `int4`, `int2` and `int1` arrays in
/// device memory). The high bits of each input byte are ignored; the
/// unused bits of a last, partial output byte are zero.
///
/// ```
/// let mut out = [0_u8; 3];
/// schema::primitive_util::pack_int_n_bits(4, &[1, 2, 3, 0xff, 1], &mut out).unwrap();
/// assert_eq!(out, [0x21, 0xf3, 0x01]);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::InvalidBitsPerElement`] unless `bits` is 1, 2 or
/// 4; [`PrimitiveUtilError::OutputTooSmall`] if `output` has fewer than
/// `ceil(input.len() · bits / 8)` bytes (bytes beyond those are left as
/// they are).
pub fn pack_int_n_bits(
    bits: u32,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), PrimitiveUtilError> {
    let (per_byte, mask) = check_sizes(bits, input.len(), output.len())?;
    for (out, chunk) in output.iter_mut().zip(input.chunks(per_byte)) {
        let mut byte = 0_u8;
        for (j, &value) in chunk.iter().enumerate() {
            byte |= (value & mask) << (j as u32 * bits);
        }
        *out = byte;
    }
    Ok(())
}

/// XLA's `UnpackIntN` (`xla/util.h`, by bit width): the inverse of
/// [`pack_int_n_bits`], one value per output byte in its low bits (the high
/// bits zero, as XLA writes them: values are not sign-extended).
///
/// ```
/// let mut out = [0_u8; 5];
/// schema::primitive_util::unpack_int_n_bits(4, &[0x21, 0xf3, 0x01], &mut out).unwrap();
/// assert_eq!(out, [1, 2, 3, 0xf, 1]);
/// ```
///
/// # Errors
///
/// [`PrimitiveUtilError::InvalidBitsPerElement`] unless `bits` is 1, 2 or
/// 4; [`PrimitiveUtilError::OutputTooSmall`] if `input` has fewer than the
/// `ceil(output.len() · bits / 8)` bytes that `output` needs.
pub fn unpack_int_n_bits(
    bits: u32,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), PrimitiveUtilError> {
    let (per_byte, mask) = check_sizes(bits, output.len(), input.len())?;
    for (chunk, &byte) in output.chunks_mut(per_byte).zip(input) {
        for (j, value) in chunk.iter_mut().enumerate() {
            *value = (byte >> (j as u32 * bits)) & mask;
        }
    }
    Ok(())
}

/// XLA's `primitive_util::PackIntN`: [`pack_int_n_bits`] with the bit width
/// of `ty` (`s4`, `u2`, `f4e2m1fn`, ...).
///
/// ```
/// use schema::PrimitiveType;
/// let mut out = [0_u8; 2];
/// schema::primitive_util::pack_int_n(PrimitiveType::S2, &[1, 2, 3, 3, 1], &mut out).unwrap();
/// assert_eq!(out, [0xf9, 0x01]);
/// ```
///
/// # Errors
///
/// As [`pack_int_n_bits`]; [`PrimitiveUtilError::NotArray`] for a
/// non-array type.
pub fn pack_int_n(
    ty: PrimitiveType,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), PrimitiveUtilError> {
    pack_int_n_bits(bit_width(ty)?.unsigned_abs(), input, output)
}

/// XLA's `primitive_util::UnpackIntN`: [`unpack_int_n_bits`] with the bit
/// width of `ty`.
///
/// ```
/// use schema::PrimitiveType;
/// let mut out = [0_u8; 9];
/// schema::primitive_util::unpack_int_n(PrimitiveType::U1, &[0x8d, 0x01], &mut out).unwrap();
/// assert_eq!(out, [1, 0, 1, 1, 0, 0, 0, 1, 1]);
/// ```
///
/// # Errors
///
/// As [`unpack_int_n_bits`]; [`PrimitiveUtilError::NotArray`] for a
/// non-array type.
pub fn unpack_int_n(
    ty: PrimitiveType,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), PrimitiveUtilError> {
    unpack_int_n_bits(bit_width(ty)?.unsigned_abs(), input, output)
}
