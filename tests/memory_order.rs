//! Golden test of physical memory order: the raw bytes real XLA's CPU
//! client stores for an array under each layout permutation
//! (`memory_order.jsonl`, from `build-tools/gen_memory_order.py`) are where
//! index-util's multi→linear mapping puts each element, and are what the
//! relayout engine writes when copying the row-major buffer into that
//! layout; and stride-util's strides of each layout are those of XLA's
//! DLPack export of the buffer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use conformance::{Row, Tally, hex_decode, int, ints, load, required, same};
use index_util::PhysicalLayout;
use schema::Shape;

/// The shape of the device buffer: XLA's printed shape, with the element
/// size the CPU client packs sub-byte types to. Its default layout prints
/// without `E(bits)` but the buffer is packed anyway (see the README).
fn device_shape(row: &Row) -> Result<(Shape, u32), String> {
    let string = required(row, "shape")?;
    let mut shape: Shape = string
        .parse()
        .map_err(|e| format!("parse {string:?}: {e}"))?;
    let bits = u32::try_from(int(row, "element_size_in_bits")?).map_err(|e| e.to_string())?;
    let layout = shape.layout.as_deref_mut().ok_or("no layout")?;
    if bits < 8 {
        layout.element_size_in_bits = i64::from(bits);
    }
    Ok((shape, bits))
}

/// The element at position `i` of a buffer of `bits`-bit elements (packed
/// low bits first below 8 bits), as a bit pattern.
fn element(bytes: &[u8], i: i64, bits: u32) -> Option<u128> {
    let i = usize::try_from(i).ok()?;
    if bits < 8 {
        let bit = i * bits as usize;
        let byte = *bytes.get(bit / 8)?;
        return Some(u128::from((byte >> (bit % 8)) & ((1u8 << bits) - 1)));
    }
    let size = bits as usize / 8;
    let chunk = bytes.get(i * size..(i + 1) * size)?;
    Some(
        chunk
            .iter()
            .rev()
            .fold(0u128, |acc, &b| acc << 8 | u128::from(b)),
    )
}

/// The multi-dimensional index of row-major position `p` in `dims`.
fn row_major_index(dims: &[i64], mut p: i64) -> Vec<i64> {
    let mut index = vec![0; dims.len()];
    for (slot, &size) in index.iter_mut().zip(dims).rev() {
        *slot = p % size;
        p /= size;
    }
    index
}

fn check_row(row: &Row) -> Result<(), String> {
    let (shape, bits) = device_shape(row)?;
    let dims = ints(row, "dimensions")?;
    same("dimensions", shape.dimensions.as_slice(), dims.as_slice())?;
    let row_major = hex_decode(required(row, "row_major_hex")?)?;
    let device = hex_decode(required(row, "device_hex")?)?;

    // XLA's on-device size is the byte size of the shape it printed.
    let printed: Shape = required(row, "shape")?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let size = shape_util::byte_size_of(&printed, None).map_err(|e| e.to_string())?;
    same("byte_size_of", size, int(row, "on_device_size_in_bytes")?)?;

    // index-util: element p of the row-major buffer sits at linear_index.
    let layout = PhysicalLayout::new(&shape).map_err(|e| e.to_string())?;
    let count: i64 = dims.iter().product();
    for p in 0..count {
        let index = row_major_index(&dims, p);
        let linear = layout.linear_index(&index).map_err(|e| e.to_string())?;
        let want = element(&row_major, p, bits);
        let got = element(&device, linear, bits);
        if want.is_none() || got != want {
            return Err(format!(
                "element {index:?}: linear index {linear} holds {got:?}, row-major value {want:?}"
            ));
        }
        same(
            "linear→multi",
            layout
                .multidimensional_index(linear)
                .map_err(|e| e.to_string())?,
            index,
        )?;
    }

    // stride-util: the layout's strides are those of XLA's own DLPack export
    // of the buffer (rows of types numpy can import).
    if row.contains_key("dlpack_byte_strides") {
        let view = stride_util::StridedView::from_xla_shape(&shape).map_err(|e| e.to_string())?;
        let bytes = i64::from(bits / 8);
        let strides: Vec<i64> = view.strides().iter().map(|s| s * bytes).collect();
        same("byte strides", strides, ints(row, "dlpack_byte_strides")?)?;
    }

    // The relayout engine: row-major bytes copied into the device layout.
    let mut source_shape: Shape = format!("{}[{}]", required(row, "dtype")?, join(&dims))
        .parse()
        .map_err(|e| format!("{e}"))?;
    if bits < 8 {
        let layout = source_shape.layout.as_deref_mut().ok_or("no layout")?;
        layout.element_size_in_bits = i64::from(bits);
    }
    let mut copied = vec![0u8; device.len()];
    relayout::relayout_xla(&row_major, &source_shape, &mut copied, &shape)
        .map_err(|e| format!("relayout_xla: {e}"))?;
    same("relayout_xla bytes", copied, device)
}

fn join(dims: &[i64]) -> String {
    dims.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn memory_order_matches_xla_device_buffers() {
    let rows = load("memory_order.jsonl").unwrap();
    let mut tally = Tally::new("memory_order");
    for row in &rows {
        let case = row
            .get("shape")
            .map(ToString::to_string)
            .unwrap_or_default();
        tally.record(&case, check_row(row));
    }
    assert!(tally.finish());
}
