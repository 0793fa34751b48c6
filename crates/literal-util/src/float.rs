//! Floating-point elements as XLA prints them (`RoundTripFpToString`): C's
//! `%.*g` of the value as a double with the type's `max_digits10` digits
//! (for f32 and f64 first with `digits10`, kept if it reads back exactly),
//! then `(0x...)` after a NaN whose payload is not the plain quiet NaN's,
//! for the types with signaling NaNs.

use schema::{PrimitiveType, primitive_util};

/// How a floating-point type encodes its values.
#[derive(Clone, Copy)]
struct Format {
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i32,
    kind: Kind,
    /// `max_digits10` of the type.
    digits: usize,
}

/// Where a format keeps infinities and NaNs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// IEEE: the top exponent is infinity (mantissa 0) or NaN, with a
    /// payload (the type has signaling NaNs).
    Ieee,
    /// `fn`: no infinity; NaN is the top exponent with the top mantissa.
    Finite,
    /// `fnuz`: no infinity and no negative zero; NaN is the sign bit alone.
    Fnuz,
    /// `e8m0fnu`: exponent only, no sign; NaN is all ones.
    ExponentOnly,
    /// `f4e2m1fn`: neither infinity nor NaN.
    NoSpecial,
}

fn format(ty: PrimitiveType) -> Option<Format> {
    use Kind::*;
    let (kind, digits) = match ty {
        PrimitiveType::F16 => (Ieee, 5),
        PrimitiveType::Bf16 => (Ieee, 4),
        PrimitiveType::F8e5m2 => (Ieee, 2),
        PrimitiveType::F8e4m3 | PrimitiveType::F8e3m4 => (Ieee, 3),
        PrimitiveType::F8e4m3fn => (Finite, 3),
        PrimitiveType::F8e4m3fnuz | PrimitiveType::F8e4m3b11fnuz => (Fnuz, 3),
        PrimitiveType::F8e5m2fnuz => (Fnuz, 2),
        PrimitiveType::F8e8m0fnu => (ExponentOnly, 2),
        PrimitiveType::F4e2m1fn => (NoSpecial, 2),
        _ => return None,
    };
    // XLA's `ExponentWidth` and `ExponentBias` count a sign bit and
    // subnormals that the exponent-only format lacks: one bit more, one
    // less bias there.
    let exponent_only = i32::from(kind == ExponentOnly);
    let mantissa = primitive_util::significand_width(ty).ok()? - 1;
    let exponent = primitive_util::exponent_width(ty).ok()? + exponent_only;
    Some(Format {
        exponent_bits: u32::try_from(exponent).ok()?,
        mantissa_bits: u32::try_from(mantissa).ok()?,
        bias: primitive_util::exponent_bias(ty).ok()? - exponent_only,
        kind,
        digits,
    })
}

/// Whether [`narrow_to_string`] handles `ty` (16-bit and smaller floats).
pub(crate) fn is_narrow_float(ty: PrimitiveType) -> bool {
    format(ty).is_some()
}

/// A value decoded from its bits: a double, or a NaN with its sign and
/// payload.
enum Value {
    Number(f64),
    Nan {
        negative: bool,
        payload: Option<u64>,
    },
}

fn decode(f: Format, bits: u64) -> Value {
    let mantissa_mask = (1_u64 << f.mantissa_bits) - 1;
    let exponent_mask = (1_u64 << f.exponent_bits) - 1;
    let mantissa = bits & mantissa_mask;
    let exponent = (bits >> f.mantissa_bits) & exponent_mask;
    let sign_bit = f.kind != Kind::ExponentOnly;
    let negative = sign_bit && (bits >> (f.mantissa_bits + f.exponent_bits)) & 1 == 1;
    match f.kind {
        Kind::Ieee if exponent == exponent_mask => {
            if mantissa == 0 {
                return Value::Number(if negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                });
            }
            let quiet = 1_u64 << (f.mantissa_bits - 1);
            return Value::Nan {
                negative,
                payload: (mantissa != quiet).then_some(mantissa),
            };
        }
        Kind::Finite if exponent == exponent_mask && mantissa == mantissa_mask => {
            return Value::Nan {
                negative,
                payload: None,
            };
        }
        Kind::Fnuz if negative && exponent == 0 && mantissa == 0 => {
            return Value::Nan {
                negative: true,
                payload: None,
            };
        }
        Kind::ExponentOnly if exponent == exponent_mask => {
            return Value::Nan {
                negative: false,
                payload: None,
            };
        }
        _ => {}
    }
    let magnitude = if f.kind == Kind::ExponentOnly {
        pow2(i32::try_from(exponent).unwrap_or(0) - f.bias)
    } else if exponent == 0 {
        // Subnormal (or zero).
        mantissa as f64 * pow2(1 - f.bias - f.mantissa_bits.cast_signed())
    } else {
        let scaled = (mantissa | (1 << f.mantissa_bits)) as f64;
        scaled * pow2(i32::try_from(exponent).unwrap_or(0) - f.bias - f.mantissa_bits.cast_signed())
    };
    Value::Number(if negative { -magnitude } else { magnitude })
}

/// 2^e for the exponents of the types here (exact).
fn pow2(e: i32) -> f64 {
    2_f64.powi(e)
}

/// XLA's text of a 16-bit or smaller float of type `ty` stored as `bits`.
pub(crate) fn narrow_to_string(ty: PrimitiveType, bits: u64) -> String {
    let Some(f) = format(ty) else {
        return String::new();
    };
    match decode(f, bits) {
        Value::Number(v) => format_g(v, f.digits),
        Value::Nan { negative, payload } => nan_text(negative, payload),
    }
}

/// XLA's text of an f32 (tries 6 digits, else 9).
pub(crate) fn f32_to_string(value: f32) -> String {
    if value.is_nan() {
        let bits = u64::from(value.to_bits());
        return ieee_nan(bits, 23, 31);
    }
    let short = format_g(f64::from(value), 6);
    if short.parse::<f32>().is_ok_and(|back| back == value) {
        short
    } else {
        format_g(f64::from(value), 9)
    }
}

/// XLA's text of an f64 (tries 15 digits, else 17).
pub(crate) fn f64_to_string(value: f64) -> String {
    if value.is_nan() {
        return ieee_nan(value.to_bits(), 52, 63);
    }
    let short = format_g(value, 15);
    if short.parse::<f64>().is_ok_and(|back| back == value) {
        short
    } else {
        format_g(value, 17)
    }
}

fn ieee_nan(bits: u64, mantissa_bits: u32, sign: u32) -> String {
    let mantissa = bits & ((1_u64 << mantissa_bits) - 1);
    let quiet = 1_u64 << (mantissa_bits - 1);
    nan_text(
        (bits >> sign) & 1 == 1,
        (mantissa != quiet).then_some(mantissa),
    )
}

fn nan_text(negative: bool, payload: Option<u64>) -> String {
    let sign = if negative { "-" } else { "" };
    match payload {
        Some(p) => format!("{sign}nan(0x{p:x})"),
        None => format!("{sign}nan"),
    }
}

/// C's `printf("%.*g", precision, value)` for a finite or infinite value.
pub(crate) fn format_g(value: f64, precision: usize) -> String {
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .to_string();
    }
    let p = precision.max(1);
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // The exponent %e would print, after rounding to p digits.
    let scientific = format!("{:.*e}", p - 1, value);
    let Some((mantissa, exponent)) = scientific.split_once('e') else {
        return scientific;
    };
    let x: i64 = exponent.parse().unwrap_or(0);
    let p_signed = i64::try_from(p).unwrap_or(i64::MAX);
    if x >= -4 && x < p_signed {
        let decimals = usize::try_from(p_signed - 1 - x).unwrap_or(0);
        trim_zeros(&format!("{value:.decimals$}")).to_string()
    } else {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_zeros(mantissa), x.unsigned_abs())
    }
}

/// Drops trailing zeros after a decimal point, and the point itself.
fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_matches_c() {
        assert_eq!(format_g(100000.0, 6), "100000");
        assert_eq!(format_g(1000000.0, 6), "1e+06");
        assert_eq!(format_g(0.0001, 6), "0.0001");
        assert_eq!(format_g(0.00001, 6), "1e-05");
        assert_eq!(format_g(1.5e-300, 17), "1.5000000000000001e-300");
        assert_eq!(format_g(0.0078125, 3), "0.00781");
        assert_eq!(format_g(57344.0, 2), "5.7e+04");
        assert_eq!(format_g(-0.0, 6), "-0");
    }

    #[test]
    fn narrow_types() {
        assert_eq!(narrow_to_string(PrimitiveType::Bf16, 0x3fc0), "1.5");
        assert_eq!(narrow_to_string(PrimitiveType::F16, 0x7c01), "nan(0x1)");
        assert_eq!(narrow_to_string(PrimitiveType::F16, 0xfe00), "-nan");
        assert_eq!(narrow_to_string(PrimitiveType::F8e4m3fnuz, 0x80), "-nan");
        assert_eq!(narrow_to_string(PrimitiveType::F8e8m0fnu, 0x7f), "1");
        assert_eq!(narrow_to_string(PrimitiveType::F4e2m1fn, 0x0f), "-6");
    }
}
