//! `RelayoutPlan::run`, `run_in` and `run_part` on typed buffers: values of
//! the element's size on each side, or bytes, write the bytes of the byte
//! runs; values of another size are refused, naming the side and both
//! sizes.
#![allow(clippy::unwrap_used)]

use relayout::rayon::ThreadPoolBuilder;
use relayout::{FromTo, RelayoutError, RelayoutPlan, StridedView};
use schema::Shape;

fn shape(text: &str) -> Shape {
    text.parse().unwrap()
}

fn xla(from: &str, to: &str) -> RelayoutPlan {
    let (from, to) = (shape(from), shape(to));
    RelayoutPlan::xla(FromTo {
        from: &from,
        to: &to,
    })
    .unwrap()
}

#[test]
fn typed_runs_write_the_bytes_of_byte_runs() {
    let plan = xla("f32[40,300]{0,1}", "f32[40,300]{1,0:T(8,128)}");
    let values: Vec<f32> = (0..40 * 300).map(|v| v as f32 * 0.5).collect();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let len = 40 * 384;
    let mut from_bytes = vec![0_u8; len * 4];
    plan.run(&bytes, &mut from_bytes).unwrap();
    let mut typed = vec![0_f32; len];
    plan.run(&values, &mut typed).unwrap();
    let typed_bytes: Vec<u8> = typed.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(typed_bytes, from_bytes);
    // Mixed: typed source, byte destination, on a pool and as a part.
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut mixed = vec![0_u8; len * 4];
    plan.run_in(&pool, &values, &mut mixed).unwrap();
    assert_eq!(mixed, from_bytes);
    let mut part = vec![0_u32; len];
    plan.run_part(&bytes, &mut part, 1 << 30).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<u32, u8>(&part),
        from_bytes.as_slice()
    );
    // Element (0, 1) (column-major position 40) is at tiled position 1.
    assert_eq!(typed[1], values[40]);
}

#[test]
fn bf16_as_u16_and_8_bit_as_i8() {
    let plan = xla("bf16[16,256]{1,0}", "bf16[16,256]{1,0:T(8,128)(2,1)}");
    let values: Vec<u16> = (0..16 * 256).map(|v| v as u16).collect();
    let mut tiled = vec![0_u16; values.len()];
    plan.run(&values, &mut tiled).unwrap();
    // Rows 0 and 1 interleave: (0,0), (1,0), (0,1), (1,1), ...
    assert_eq!(&tiled[..4], &[0, 256, 1, 257]);
    let plan = xla("s8[4,3]{1,0}", "s8[4,3]{0,1}");
    let mut out = [0_i8; 12];
    plan.run(&[0_i8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], &mut out)
        .unwrap();
    assert_eq!(out, [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]);
}

#[test]
fn values_of_another_size_are_refused() {
    let plan = xla("f32[8,8]{1,0}", "f32[8,8]{0,1}");
    let mut dst = vec![0_f32; 64];
    let err = plan.run(&[0_u16; 128], &mut dst).unwrap_err();
    assert_eq!(
        err,
        RelayoutError::BufferType {
            side: "source",
            value_bytes: 2,
            element_bits: 32
        }
    );
    assert_eq!(
        err.to_string(),
        "source buffer of 2-byte values cannot hold elements of 32 bits \
         (use bytes, or values of the element's size)"
    );
    let err = plan.run(&[0_f32; 64], &mut [0_f64; 32]).unwrap_err();
    assert!(
        matches!(
            err,
            RelayoutError::BufferType {
                side: "destination",
                value_bytes: 8,
                ..
            }
        ),
        "{err}"
    );
    // Packed 4-bit elements take bytes only.
    let view = StridedView::row_major(&[4]).unwrap();
    let plan = RelayoutPlan::new_bits(
        FromTo {
            from: &view,
            to: &view,
        },
        4,
    )
    .unwrap();
    let err = plan.run(&[0_u16], &mut [0_u8; 2]).unwrap_err();
    assert!(
        matches!(
            err,
            RelayoutError::BufferType {
                element_bits: 4,
                ..
            }
        ),
        "{err}"
    );
    let mut packed = [0_u8; 2];
    plan.run(&[0x21_u8, 0x43], &mut packed).unwrap();
    assert_eq!(packed, [0x21, 0x43]);
    // Repacking: one byte per element on one side, packed on the other.
    let plan = xla("s4[2,2]{1,0}", "s4[2,2]{1,0:E(4)}");
    let mut packed = [0_u8; 2];
    plan.run(&[1_i8, 2, 3, 4], &mut packed).unwrap();
    assert_eq!(packed, [0x21, 0x43]);
}
