//! `schema::primitive_util` against the expected values of XLA's own unit
//! tests (`xla/primitive_util_test.cc`), and its error paths. The float
//! properties of every type are checked against numpy/ml_dtypes in the
//! workspace's conformance tests (`tests/xla_apis.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use schema::PrimitiveType::{self, *};
use schema::primitive_util::{self as pu, PrimitiveUtilError};

/// `PrimitiveUtilTest.FloatTypes`.
#[test]
fn float_types() {
    assert_eq!(pu::significand_width(F32).unwrap(), 24);
    assert_eq!(pu::significand_width(Bf16).unwrap(), 8);
    assert_eq!(pu::exponent_width(F32).unwrap(), 8);
    assert_eq!(pu::exponent_width(Bf16).unwrap(), 8);
    assert_eq!(pu::underflow_exponent(F32).unwrap(), -125);
    assert_eq!(pu::overflow_exponent(F32).unwrap(), 128);
}

/// `PrimitiveUtilTest.CastPreservesValues`: XLA's table over the classic
/// types (row: from, columns in the order of `TYPES`; 1 = preserves).
#[test]
fn cast_preserves_values_as_xlas_table() {
    const TYPES: [PrimitiveType; 15] = [
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, F64, C64, Bf16, C128,
    ];
    let table = [
        (Pred, "111111111111111"),
        (S8, "011110000111111"),
        (S16, "001110000011101"),
        (S32, "000110000001001"),
        (S64, "000010000000000"),
        (U8, "001111111111111"),
        (U16, "000110111011101"),
        (U32, "000010011001001"),
        (U64, "000000001000000"),
        (F16, "000000000111101"),
        (F32, "000000000011101"),
        (F64, "000000000001001"),
        (C64, "000000000000101"),
        (Bf16, "000000000011111"),
        (C128, "000000000000001"),
    ];
    for (from, row) in table {
        for (to, expected) in TYPES.iter().zip(row.chars()) {
            assert_eq!(
                pu::cast_preserves_values(from, *to),
                expected == '1',
                "{from:?} -> {to:?}"
            );
        }
    }
}

#[test]
fn cast_preserves_values_of_the_narrow_floats() {
    // Special values: f8e4m3fn has no infinity, the fnuz types no -0.
    assert!(!pu::cast_preserves_values(F8e5m2, F8e4m3fn));
    assert!(!pu::cast_preserves_values(F8e4m3, F8e4m3fnuz));
    assert!(pu::cast_preserves_values(F8e4m3fnuz, F16));
    assert!(pu::cast_preserves_values(F4e2m1fn, F8e4m3));
    // Nothing converts into f8e8m0fnu (no zero), not even pred.
    assert!(!pu::cast_preserves_values(Pred, F8e8m0fnu));
    assert!(pu::cast_preserves_values(F8e8m0fnu, F8e8m0fnu));
    // Non-array types: only to themselves.
    assert!(pu::cast_preserves_values(Tuple, Tuple));
    assert!(!pu::cast_preserves_values(S8, Token));
    assert!(!pu::cast_preserves_values(Token, S8));
    // Sub-byte integers.
    assert!(pu::cast_preserves_values(S4, S8));
    assert!(pu::cast_preserves_values(U2, S4));
    assert!(!pu::cast_preserves_values(S2, U4));
    assert!(pu::cast_preserves_values(S4, F8e4m3fn));
}

/// `PrimitiveUtilTest.StringToPrimitiveType`.
#[test]
fn string_to_primitive_type() {
    assert_eq!(pu::string_to_primitive_type("f32"), Ok(F32));
    assert_eq!(pu::string_to_primitive_type("tuple"), Ok(Tuple));
    assert_eq!(pu::string_to_primitive_type("pred"), Ok(Pred));
    assert_eq!(pu::string_to_primitive_type("s32"), Ok(S32));
    for bad in ["F32", "Pred", "preD"] {
        assert!(pu::string_to_primitive_type(bad).is_err());
        assert!(!pu::is_primitive_type_name(bad));
    }
    assert!(pu::is_primitive_type_name("opaque"));
    assert_eq!(
        pu::lowercase_primitive_type_name(F8e4m3b11fnuz),
        "f8e4m3b11fnuz"
    );
}

#[test]
fn families_and_widths() {
    let f8: Vec<_> = PrimitiveType::all()
        .iter()
        .copied()
        .filter(|&t| pu::is_f8_type(t))
        .collect();
    assert_eq!(
        f8,
        [
            F8e5m2,
            F8e4m3,
            F8e4m3fn,
            F8e4m3b11fnuz,
            F8e3m4,
            F8e5m2fnuz,
            F8e4m3fnuz
        ]
    );
    let mx: Vec<_> = PrimitiveType::all()
        .iter()
        .copied()
        .filter(|&t| pu::is_mx_type(t))
        .collect();
    assert_eq!(mx, [F4e2m1fn, F8e8m0fnu]);
    assert!(pu::is_8bit_integral_type(S8) && !pu::is_8bit_integral_type(S4));
    assert!(pu::is_array_type(Pred) && !pu::is_array_type(Buffer) && !pu::is_array_type(Invalid));
    assert!(pu::is_floating_point_type(F6e3m2fn) && !pu::is_floating_point_type(C64));
    assert!(pu::is_complex_type(C128) && pu::is_integral_type(U1));
    assert!(pu::is_signed_integral_type(S2) && pu::is_unsigned_integral_type(U4));
    assert!(pu::is_sub_byte_non_pred_type(F4e2m1fn) && !pu::is_sub_byte_non_pred_type(Pred));
    assert_eq!(pu::bit_width(Pred).unwrap(), 1);
    assert_eq!(pu::bit_width(F6e2m3fn).unwrap(), 8);
    assert_eq!(pu::byte_width(S1).unwrap(), 1);
    assert_eq!(pu::byte_width(C64).unwrap(), 8);
    assert_eq!(
        pu::byte_width(Token),
        Err(PrimitiveUtilError::NotArray(Token))
    );
    for bits in [1, 2, 4, 8, 16, 32, 64] {
        let u = pu::unsigned_integral_type_for_bit_width(bits).unwrap();
        assert_eq!(
            (i64::from(u.bit_width().unwrap()), u.is_unsigned_integral()),
            (bits, true)
        );
    }
    for bits in [2, 4, 8, 16, 32, 64] {
        let s = pu::signed_integral_type_for_bit_width(bits).unwrap();
        assert_eq!(
            (i64::from(s.bit_width().unwrap()), s.is_signed_integral()),
            (bits, true)
        );
    }
    for bits in [-1, 0, 3, 128] {
        assert_eq!(pu::unsigned_integral_type_for_bit_width(bits), None);
        assert_eq!(pu::signed_integral_type_for_bit_width(bits), None);
    }
    assert_eq!(pu::complex_component_type(C64), Ok(F32));
    assert_eq!(pu::complex_type(F64), Some(C128));
    assert_eq!(pu::complex_type(Bf16), None);
}

#[test]
fn higher_precision_type() {
    assert_eq!(pu::higher_precision_type(F32, C64).unwrap(), C64);
    assert_eq!(pu::higher_precision_type(F64, C64).unwrap(), C64);
    assert_eq!(pu::higher_precision_type(S32, F16).unwrap(), F16);
    assert_eq!(pu::higher_precision_type(U32, S32).unwrap(), S32);
    assert_eq!(pu::higher_precision_type(S8, S16).unwrap(), S16);
    assert_eq!(
        pu::higher_precision_type(F8e4m3fn, F8e4m3).unwrap(),
        F8e4m3fn
    );
    assert_eq!(pu::higher_precision_type(Bf16, Bf16).unwrap(), Bf16);
    assert_eq!(
        pu::higher_precision_type(F8e4m3, F8e4m3fnuz)
            .unwrap_err()
            .to_string(),
        "Check failed: a == b (F8E4M3 vs. F8E4M3FNUZ)"
    );
}

#[test]
fn fits_in_integral_type() {
    assert!(pu::fits_in_integral_type(i64::MIN, S64).unwrap());
    assert!(pu::fits_in_integral_type(i64::MAX, U64).unwrap());
    assert!(!pu::fits_in_integral_type(-1, U64).unwrap());
    assert!(pu::fits_in_integral_type(-1, S1).unwrap());
    assert!(!pu::fits_in_integral_type(1, S1).unwrap());
    assert!(pu::fits_in_integral_type(255, U8).unwrap());
    assert!(!pu::fits_in_integral_type(256, U8).unwrap());
    assert!(!pu::fits_in_integral_type(-129, S8).unwrap());
    assert_eq!(
        pu::fits_in_integral_type(0, Pred).unwrap_err().to_string(),
        "Not an integral data type PRED"
    );
}

#[test]
fn float_properties_refuse_other_types() {
    for ty in [S32, Pred, C64, Tuple, Invalid] {
        let msg = format!("Not a floating point data type {}", ty.as_str_name());
        assert_eq!(pu::significand_width(ty).unwrap_err().to_string(), msg);
        assert_eq!(pu::exponent_width(ty).unwrap_err().to_string(), msg);
        assert_eq!(pu::underflow_exponent(ty).unwrap_err().to_string(), msg);
        assert_eq!(pu::overflow_exponent(ty).unwrap_err().to_string(), msg);
        assert_eq!(pu::exponent_bias(ty).unwrap_err().to_string(), msg);
        assert!(!pu::has_infinity(ty) && !pu::has_nan(ty) && !pu::has_negative_zero(ty));
    }
    // XLA's formulas on the formats without a sign bit or subnormals.
    assert_eq!(pu::exponent_width(F8e8m0fnu).unwrap(), 7);
    assert_eq!(pu::exponent_bias(F8e8m0fnu).unwrap(), 128);
    assert_eq!(pu::exponent_width(F6e3m2fn).unwrap(), 5);
}

#[test]
fn pack_and_unpack_round_trip_every_width() {
    for bits in [1_u32, 2, 4] {
        let mask = (1_u8 << bits) - 1;
        for n in 0..40_usize {
            let values: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(37) | 0xf0).collect();
            let mut packed = vec![0xaa_u8; (n * bits as usize).div_ceil(8) + 1];
            pu::pack_int_n_bits(bits, &values, &mut packed).unwrap();
            // The byte beyond the packed ones is untouched.
            assert_eq!(packed.last(), Some(&0xaa));
            let mut back = vec![0xff_u8; n];
            pu::unpack_int_n_bits(bits, &packed, &mut back).unwrap();
            let low: Vec<u8> = values.iter().map(|v| v & mask).collect();
            assert_eq!(back, low, "{bits} bits, {n} values");
        }
    }
}

#[test]
fn pack_errors() {
    let mut out = [0_u8; 1];
    for bits in [0, 3, 8, 16] {
        assert_eq!(
            pu::pack_int_n_bits(bits, &[1], &mut out)
                .unwrap_err()
                .to_string(),
            format!("Invalid bits_per_element: {bits}")
        );
        assert!(pu::unpack_int_n_bits(bits, &[1], &mut out).is_err());
    }
    assert_eq!(
        pu::pack_int_n_bits(4, &[1, 2, 3], &mut out)
            .unwrap_err()
            .to_string(),
        "output has 1 bytes; 3 elements of 4 bits need 2"
    );
    let mut wide = [0_u8; 9];
    assert_eq!(
        pu::unpack_int_n_bits(1, &[0xff], &mut wide),
        Err(PrimitiveUtilError::OutputTooSmall {
            elements: 9,
            bits: 1,
            needed: 2,
            actual: 1
        })
    );
    assert_eq!(
        pu::pack_int_n(S8, &[1], &mut out).unwrap_err().to_string(),
        "Invalid bits_per_element: 8"
    );
    assert_eq!(
        pu::pack_int_n(Tuple, &[1], &mut out),
        Err(PrimitiveUtilError::NotArray(Tuple))
    );
    assert_eq!(
        pu::unpack_int_n(Token, &[1], &mut out),
        Err(PrimitiveUtilError::NotArray(Token))
    );
}
