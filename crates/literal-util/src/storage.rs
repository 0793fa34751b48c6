//! The data of an array LiteralProto as XLA's `Literal` holds it: the
//! elements in the order of the shape's `minor_to_major` (no tiles, no
//! padding), each in the type's byte width, little-endian, one byte per
//! sub-byte element; and which LiteralProto field carries them.

use schema::{LiteralProto, PrimitiveType, Shape};

use crate::error::LiteralError;

/// A LiteralProto data field, borrowed.
enum Field<'a> {
    Preds(&'a [bool]),
    Bytes(&'a [u8]),
    S32(&'a [i32]),
    S64(&'a [i64]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// The field of `ty` in `literal` and its name.
fn field(literal: &LiteralProto, ty: PrimitiveType) -> Option<(&'static str, Field<'_>)> {
    use PrimitiveType as T;
    fn bytes<'a>(name: &'static str, data: &'a [u8]) -> (&'static str, Field<'a>) {
        (name, Field::Bytes(data))
    }
    Some(match ty {
        T::Pred => ("preds", Field::Preds(&literal.preds)),
        T::S1 => bytes("s1s", &literal.s1s),
        T::S2 => bytes("s2s", &literal.s2s),
        T::S4 => bytes("s4s", &literal.s4s),
        T::S8 => bytes("s8s", &literal.s8s),
        T::U1 => bytes("u1s", &literal.u1s),
        T::U2 => bytes("u2s", &literal.u2s),
        T::U4 => bytes("u4s", &literal.u4s),
        T::U8 => bytes("u8s", &literal.u8s),
        T::S16 => bytes("s16s", &literal.s16s),
        T::U16 => bytes("u16s", &literal.u16s),
        T::F16 => bytes("f16s", &literal.f16s),
        T::Bf16 => bytes("bf16s", &literal.bf16s),
        T::F8e5m2 => bytes("f8e5m2s", &literal.f8e5m2s),
        T::F8e4m3 => bytes("f8e4m3s", &literal.f8e4m3s),
        T::F8e4m3fn => bytes("f8e4m3fns", &literal.f8e4m3fns),
        T::F8e4m3b11fnuz => bytes("f8e4m3b11fnuzs", &literal.f8e4m3b11fnuzs),
        T::F8e5m2fnuz => bytes("f8e5m2fnuzs", &literal.f8e5m2fnuzs),
        T::F8e4m3fnuz => bytes("f8e4m3fnuzs", &literal.f8e4m3fnuzs),
        T::F8e3m4 => bytes("f8e3m4s", &literal.f8e3m4s),
        T::F8e8m0fnu => bytes("f8e8m0fnus", &literal.f8e8m0fnus),
        T::F4e2m1fn => bytes("f4e2m1fns", &literal.f4e2m1fns),
        T::S32 => ("s32s", Field::S32(&literal.s32s)),
        T::S64 => ("s64s", Field::S64(&literal.s64s)),
        T::U32 => ("u32s", Field::U32(&literal.u32s)),
        T::U64 => ("u64s", Field::U64(&literal.u64s)),
        T::F32 => ("f32s", Field::F32(&literal.f32s)),
        T::F64 => ("f64s", Field::F64(&literal.f64s)),
        T::C64 => ("c64s", Field::F32(&literal.c64s)),
        T::C128 => ("c128s", Field::F64(&literal.c128s)),
        _ => return None,
    })
}

/// The element type of an array shape that a literal can hold.
pub(crate) fn element_type(shape: &Shape) -> Result<PrimitiveType, LiteralError> {
    let ty = PrimitiveType::try_from(shape.element_type).unwrap_or(PrimitiveType::Invalid);
    if matches!(ty, PrimitiveType::F6e2m3fn | PrimitiveType::F6e3m2fn) {
        return Err(LiteralError::Unsupported {
            shape: Box::new(shape.clone()),
            what: format!(
                "{} (XLA's Literal::ToProto aborts on it: no LiteralProto of it exists)",
                ty.as_str_name()
            ),
        });
    }
    if field(&LiteralProto::default(), ty).is_none() {
        return Err(LiteralError::NotAnArray {
            shape: Box::new(shape.clone()),
            what: "a literal array needs an array element type",
        });
    }
    Ok(ty)
}

/// The bytes one element takes in a literal (one for sub-byte types).
pub(crate) fn width(ty: PrimitiveType) -> usize {
    ty.byte_width()
        .and_then(|w| usize::try_from(w).ok())
        .unwrap_or(1)
}

/// The data of the array `literal` of `elements` elements of `ty`, checked
/// to be exactly what the shape needs (nothing is allocated before).
pub(crate) fn read(
    literal: &LiteralProto,
    ty: PrimitiveType,
    elements: u64,
    shape: &Shape,
) -> Result<Vec<u8>, LiteralError> {
    let Some((name, data)) = field(literal, ty) else {
        return Err(LiteralError::NotAnArray {
            shape: Box::new(shape.clone()),
            what: "a literal array needs an array element type",
        });
    };
    let w = width(ty) as u64;
    // Values per element in a repeated field: two for complex numbers.
    let per_element = match data {
        Field::F32(_) | Field::F64(_) if matches!(ty, PrimitiveType::C64 | PrimitiveType::C128) => {
            2
        }
        _ => 1,
    };
    let (actual, unit) = match data {
        Field::Preds(v) => (v.len(), "values"),
        Field::Bytes(v) => (v.len(), "bytes"),
        Field::S32(v) => (v.len(), "values"),
        Field::S64(v) => (v.len(), "values"),
        Field::U32(v) => (v.len(), "values"),
        Field::U64(v) => (v.len(), "values"),
        Field::F32(v) => (v.len(), "values"),
        Field::F64(v) => (v.len(), "values"),
    };
    let expected = if unit == "bytes" {
        elements.checked_mul(w)
    } else {
        elements.checked_mul(per_element)
    };
    let actual = actual as u64;
    if expected != Some(actual) {
        return Err(LiteralError::DataSize {
            shape: Box::new(shape.clone()),
            field: name,
            unit,
            expected: expected.unwrap_or(u64::MAX),
            actual,
        });
    }
    Ok(match data {
        Field::Preds(v) => v.iter().map(|&b| u8::from(b)).collect(),
        Field::Bytes(v) => v.to_vec(),
        Field::S32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Field::S64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Field::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Field::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Field::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        Field::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    })
}

/// Puts `data` (as [`read`] returns it) into the field of `ty`.
pub(crate) fn write(literal: &mut LiteralProto, ty: PrimitiveType, data: Vec<u8>) {
    use PrimitiveType as T;
    fn words<const N: usize, V>(data: &[u8], f: impl Fn([u8; N]) -> V) -> Vec<V> {
        data.as_chunks::<N>().0.iter().map(|c| f(*c)).collect()
    }
    match ty {
        T::Pred => literal.preds = data.iter().map(|&b| b != 0).collect(),
        T::S1 => literal.s1s = data,
        T::S2 => literal.s2s = data,
        T::S4 => literal.s4s = data,
        T::S8 => literal.s8s = data,
        T::U1 => literal.u1s = data,
        T::U2 => literal.u2s = data,
        T::U4 => literal.u4s = data,
        T::U8 => literal.u8s = data,
        T::S16 => literal.s16s = data,
        T::U16 => literal.u16s = data,
        T::F16 => literal.f16s = data,
        T::Bf16 => literal.bf16s = data,
        T::F8e5m2 => literal.f8e5m2s = data,
        T::F8e4m3 => literal.f8e4m3s = data,
        T::F8e4m3fn => literal.f8e4m3fns = data,
        T::F8e4m3b11fnuz => literal.f8e4m3b11fnuzs = data,
        T::F8e5m2fnuz => literal.f8e5m2fnuzs = data,
        T::F8e4m3fnuz => literal.f8e4m3fnuzs = data,
        T::F8e3m4 => literal.f8e3m4s = data,
        T::F8e8m0fnu => literal.f8e8m0fnus = data,
        T::F4e2m1fn => literal.f4e2m1fns = data,
        T::S32 => literal.s32s = words(&data, i32::from_le_bytes),
        T::S64 => literal.s64s = words(&data, i64::from_le_bytes),
        T::U32 => literal.u32s = words(&data, u32::from_le_bytes),
        T::U64 => literal.u64s = words(&data, u64::from_le_bytes),
        T::F32 => literal.f32s = words(&data, f32::from_le_bytes),
        T::F64 => literal.f64s = words(&data, f64::from_le_bytes),
        T::C64 => literal.c64s = words(&data, f32::from_le_bytes),
        T::C128 => literal.c128s = words(&data, f64::from_le_bytes),
        _ => {}
    }
}
