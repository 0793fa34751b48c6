//! ZERO/ONE/LOWEST/HIGHEST padding values of every element type, as bytes.
//!
//! The floating-point patterns are numpy's and ml_dtypes 0.6's bits of 0,
//! 1 and the type's lowest/highest value (`-inf`/`+inf` where the type has
//! infinities, else `ml_dtypes.finfo(t).min`/`.max`), printed with
//! `np.array([v]).astype(t).view(np.uint8)`; the integer ones are
//! `np.iinfo(t).min`/`.max` in two's complement.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use relayout::{RelayoutError, padding_pattern};
use schema::{PaddingValue, PrimitiveType as T};

/// `(type, zero, one, lowest, highest)`, each the value's bits as an integer
/// (stored little-endian in the type's byte width).
const TABLE: &[(T, u128, u128, u128, u128)] = &[
    (T::F16, 0, 0x3C00, 0xFC00, 0x7C00),
    (T::Bf16, 0, 0x3F80, 0xFF80, 0x7F80),
    (T::F32, 0, 0x3F80_0000, 0xFF80_0000, 0x7F80_0000),
    (
        T::F64,
        0,
        0x3FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        0x7FF0_0000_0000_0000,
    ),
    (T::F8e5m2, 0, 0x3C, 0xFC, 0x7C),
    (T::F8e4m3, 0, 0x38, 0xF8, 0x78),
    (T::F8e4m3fn, 0, 0x38, 0xFE, 0x7E),
    (T::F8e3m4, 0, 0x30, 0xF0, 0x70),
    (T::F8e4m3b11fnuz, 0, 0x58, 0xFF, 0x7F),
    (T::F8e5m2fnuz, 0, 0x40, 0xFF, 0x7F),
    (T::F8e4m3fnuz, 0, 0x40, 0xFF, 0x7F),
    (T::F4e2m1fn, 0, 0x02, 0x0F, 0x07),
    (T::F6e3m2fn, 0, 0x0C, 0x3F, 0x1F),
    (T::F6e2m3fn, 0, 0x08, 0x3F, 0x1F),
    (T::Pred, 0, 1, 0, 1),
    (T::S8, 0, 1, 0x80, 0x7F),
    (T::S16, 0, 1, 0x8000, 0x7FFF),
    (T::S32, 0, 1, 0x8000_0000, 0x7FFF_FFFF),
    (T::S64, 0, 1, 1 << 63, (1 << 63) - 1),
    (T::U8, 0, 1, 0, 0xFF),
    (T::U16, 0, 1, 0, 0xFFFF),
    (T::U32, 0, 1, 0, 0xFFFF_FFFF),
    (T::U64, 0, 1, 0, u64::MAX as u128),
    // Sub-byte integers: one byte, signed values sign-extended (s4's -8).
    (T::S4, 0, 1, 0xF8, 0x07),
    (T::S2, 0, 1, 0xFE, 0x01),
    (T::U4, 0, 1, 0, 0x0F),
    (T::U1, 0, 1, 0, 0x01),
];

fn bytes(ty: T, bits: u128) -> Option<Vec<u8>> {
    let width = ty.byte_width().unwrap() as usize;
    Some(bits.to_le_bytes()[..width].to_vec())
}

#[test]
fn padding_values_of_every_type() {
    for &(ty, zero, one, lowest, highest) in TABLE {
        for (value, bits) in [
            (PaddingValue::ZeroPad, zero),
            (PaddingValue::OnePad, one),
            (PaddingValue::LowestPad, lowest),
            (PaddingValue::HighestPad, highest),
        ] {
            assert_eq!(
                padding_pattern(ty, value).unwrap(),
                bytes(ty, bits),
                "{ty:?} {value:?}"
            );
        }
        // UNKNOWN (and unset) padding is left as it is.
        assert_eq!(padding_pattern(ty, PaddingValue::UnknownPad).unwrap(), None);
        assert_eq!(padding_pattern(ty, PaddingValue::InvalidPad).unwrap(), None);
    }
}

#[test]
fn special_cases() {
    // e8m0 has no zero; its lowest is 2^-127 (0x00) and highest 2^127 (0xFE).
    assert_eq!(
        padding_pattern(T::F8e8m0fnu, PaddingValue::ZeroPad)
            .unwrap_err()
            .to_string(),
        "f8e8m0fnu has no ZERO_PAD padding value"
    );
    assert_eq!(
        padding_pattern(T::F8e8m0fnu, PaddingValue::OnePad).unwrap(),
        Some(vec![0x7F])
    );
    assert_eq!(
        padding_pattern(T::F8e8m0fnu, PaddingValue::LowestPad).unwrap(),
        Some(vec![0x00])
    );
    // Complex one is 1 + 0i; complex numbers are not ordered.
    let mut one = 1.0f32.to_le_bytes().to_vec();
    one.extend(0.0f32.to_le_bytes());
    assert_eq!(
        padding_pattern(T::C64, PaddingValue::OnePad).unwrap(),
        Some(one)
    );
    assert!(matches!(
        padding_pattern(T::C128, PaddingValue::HighestPad),
        Err(RelayoutError::NoPaddingValue { .. })
    ));
    assert!(matches!(
        padding_pattern(T::Tuple, PaddingValue::ZeroPad),
        Err(RelayoutError::NoPaddingValue { .. })
    ));
}
