//! XLA's text of a literal as HLO prints `constant(...)`
//! (`Literal::ToStringWithoutShapeOneline`).

use schema::{LiteralProto, PrimitiveType, Shape};

use crate::buffer::{array_data, check_tuple, shape_of};
use crate::error::LiteralError;
use crate::float::{f32_to_string, f64_to_string, is_narrow_float, narrow_to_string};
use crate::storage::width;

/// XLA's one-line text of the value of `literal`, as an HLO module prints it
/// in `constant(...)` (with `print_large_constants`): arrays as nested
/// braces in logical (row-major) order whatever the layout, `pred` as `1`
/// and `0` inside arrays and `true`/`false` alone, floats with XLA's
/// round-trip precision (`nan(0x..)` for NaN payloads), complex numbers as
/// `(re, im)`, tuples as `( a, b )`, and `/*i0=1*/` markers above rank 3.
///
/// # Errors
///
/// The errors of [`crate::to_buffer`] for each array, and the tuple checks:
/// [`LiteralError::TupleSize`], [`LiteralError::TupleElementShape`].
///
/// ```
/// let shape: schema::Shape = "pred[2,2]".parse().unwrap();
/// let literal = literal_util::from_buffer(&shape, &[1, 0, 0, 1]).unwrap();
/// assert_eq!(literal_util::to_text(&literal).unwrap(), "{ { 1, 0 }, { 0, 1 } }");
/// ```
pub fn to_text(literal: &LiteralProto) -> Result<String, LiteralError> {
    let mut out = String::new();
    print(literal, &mut out)?;
    Ok(out)
}

fn print(literal: &LiteralProto, out: &mut String) -> Result<(), LiteralError> {
    let shape = shape_of(literal)?;
    match PrimitiveType::try_from(shape.element_type) {
        Ok(PrimitiveType::Tuple) => {
            check_tuple(literal, shape)?;
            out.push_str("( ");
            for (i, element) in literal.tuple_literals.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print(element, out)?;
            }
            out.push_str(" )");
            Ok(())
        }
        Ok(PrimitiveType::Token) => {
            out.push_str("token");
            Ok(())
        }
        _ => print_array(literal, shape, out),
    }
}

/// An array: the elements in logical order, with XLA's braces.
fn print_array(
    literal: &LiteralProto,
    shape: &Shape,
    out: &mut String,
) -> Result<(), LiteralError> {
    let array = array_data(literal)?;
    let dims = &shape.dimensions;
    let rank = dims.len();
    let element = |storage_index: usize| {
        let w = width(array.ty);
        let start = storage_index * w;
        element_text(array.ty, &array.data[start..start + w], rank)
    };
    if rank == 0 {
        out.push_str(&element(0));
        return Ok(());
    }
    // Strides of the storage (the layout's minor_to_major, dense).
    let mut strides = vec![0_usize; rank];
    let mut stride = 1_usize;
    for &d in shape
        .layout
        .as_deref()
        .map(|l| l.minor_to_major.as_slice())
        .unwrap_or(&[])
    {
        let d = usize::try_from(d).unwrap_or(0);
        strides[d] = stride;
        stride = stride.saturating_mul(usize::try_from(dims[d]).unwrap_or(0));
    }
    let sizes: Vec<usize> = dims
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect();
    // The dimensions walked element by element: up to the first empty one.
    let walked = sizes.iter().position(|&s| s == 0).unwrap_or(rank);
    let braces = Braces { sizes: &sizes };
    let mut index = vec![0_usize; walked];
    // The storage offset of `index`, kept as the index moves (no pass over
    // the dimensions per element).
    let mut offset = 0_usize;
    for k in 0..walked {
        out.push_str(&braces.open(k, &index));
    }
    loop {
        if walked < rank {
            // An empty block at the first empty dimension.
            out.push_str(&braces.open(walked, &index));
            out.push_str(braces.close(walked));
        } else {
            out.push_str(&element(offset));
        }
        // Advance the index, closing and opening braces as it carries.
        let mut k = walked;
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            index[k] += 1;
            offset += strides[k];
            if index[k] < sizes[k] {
                out.push_str(", ");
                break;
            }
            offset -= strides[k] * sizes[k];
            index[k] = 0;
            out.push_str(braces.close(k));
        }
        for j in k + 1..walked {
            out.push_str(&braces.open(j, &index));
        }
    }
}

/// XLA's braces of an array of `sizes`, one-line.
struct Braces<'a> {
    sizes: &'a [usize],
}

impl Braces<'_> {
    /// The brace opening dimension `k` (`index` holds the outer positions).
    fn open(&self, k: usize, index: &[usize]) -> String {
        let rank = self.sizes.len();
        if rank == 1 {
            return "{".to_string();
        }
        if k + 1 == rank {
            return if self.sizes[k] <= 1 { "{" } else { "{ " }.to_string();
        }
        if rank > 3 && k > 0 {
            let space = if self.sizes[k] > 0 { " " } else { "" };
            return format!("{{ /*i{}={}*/{space}", k - 1, index[k - 1]);
        }
        "{ ".to_string()
    }

    /// The brace closing dimension `k`.
    fn close(&self, k: usize) -> &'static str {
        let rank = self.sizes.len();
        if rank == 1 {
            "}"
        } else if k + 1 == rank {
            if self.sizes[k] <= 1 { "}" } else { " }" }
        } else {
            " }"
        }
    }
}

/// One element stored little-endian in `bytes`.
fn element_text(ty: PrimitiveType, bytes: &[u8], rank: usize) -> String {
    use PrimitiveType as T;
    let unsigned = bytes
        .iter()
        .rev()
        .fold(0_u128, |acc, &b| acc << 8 | u128::from(b));
    let signed = |bits: u32| {
        let v = (unsigned & ((1 << bits) - 1)).cast_signed();
        if v >> (bits - 1) & 1 == 1 {
            v - (1 << bits)
        } else {
            v
        }
    };
    let low = |bits: u32| unsigned & ((1 << bits) - 1);
    match ty {
        T::Pred => {
            let value = unsigned != 0;
            match (rank, value) {
                (0, true) => "true".into(),
                (0, false) => "false".into(),
                (_, true) => "1".into(),
                (_, false) => "0".into(),
            }
        }
        T::S1 => signed(1).to_string(),
        T::S2 => signed(2).to_string(),
        T::S4 => signed(4).to_string(),
        T::S8 => signed(8).to_string(),
        T::S16 => signed(16).to_string(),
        T::S32 => signed(32).to_string(),
        T::S64 => signed(64).to_string(),
        T::U1 => low(1).to_string(),
        T::U2 => low(2).to_string(),
        T::U4 => low(4).to_string(),
        T::U8 | T::U16 | T::U32 | T::U64 => unsigned.to_string(),
        T::F32 => f32_to_string(f32::from_bits(unsigned as u32)),
        T::F64 => f64_to_string(f64::from_bits(unsigned as u64)),
        T::C64 => format!(
            "({}, {})",
            f32_to_string(f32::from_bits(unsigned as u32)),
            f32_to_string(f32::from_bits((unsigned >> 32) as u32))
        ),
        T::C128 => format!(
            "({}, {})",
            f64_to_string(f64::from_bits(unsigned as u64)),
            f64_to_string(f64::from_bits((unsigned >> 64) as u64))
        ),
        T::F4e2m1fn => narrow_to_string(ty, (unsigned & 0xf) as u64),
        _ if is_narrow_float(ty) => narrow_to_string(ty, unsigned as u64),
        _ => String::new(),
    }
}
