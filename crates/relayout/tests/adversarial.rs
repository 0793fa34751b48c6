//! Hostile relayouts: buffer sizes that overflow, enum numbers outside
//! their enums, and a destination whose overlap check would take 512 MiB
//! if done naively. Each is a precise error, never a panic. (Hostile views:
//! `stride-util`'s `tests/adversarial.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use layout_util::LayoutBuilder;
use relayout::{RelayoutError, fill_padding, relayout, relayout_bits, relayout_xla};
use schema::{PaddingValue, PrimitiveType, Shape};
use stride_util::StridedView;

fn padded_f32(dimensions: &[i64], padded: &[i64]) -> Shape {
    Shape {
        element_type: PrimitiveType::F32 as i32,
        dimensions: dimensions.to_vec(),
        is_dynamic_dimension: vec![false; dimensions.len()],
        layout: Some(Box::new(
            LayoutBuilder::new(&[1, 0])
                .padded_dimensions(padded.to_vec())
                .padding_value(PaddingValue::ZeroPad)
                .build(),
        )),
        ..Shape::default()
    }
}

/// The destination: strides 3 and 4 interleave, 15 steps past both,
/// over a span of 4.29e9 elements (a 512 MiB bitmap to enumerate).
fn interleaved_giant() -> StridedView {
    StridedView::new(&[3, 3, 286_000_000], &[3, 4, 15], 0).unwrap()
}

#[test]
fn relayouts_whose_buffer_sizes_overflow() {
    // A view reaching i64::MAX is outside any byte buffer.
    let src = [0_u8; 16];
    let mut dst = [0_u8; 16];
    let reach = StridedView::new(&[2], &[i64::MAX], 0).unwrap();
    let packed = StridedView::row_major(&[2]).unwrap();
    assert_eq!(
        relayout(&src, &reach, &mut dst, &packed, 4),
        Err(RelayoutError::OutsideBuffer {
            side: "source",
            offset: i64::MAX,
            len: 4
        })
    );
    assert_eq!(
        relayout(&src, &packed, &mut dst, &reach, 1),
        Err(RelayoutError::OutsideBuffer {
            side: "destination",
            offset: i64::MAX,
            len: 16
        })
    );
    // An element size larger than the buffer holds no element.
    assert_eq!(
        relayout(&src, &packed, &mut dst, &packed, usize::MAX),
        Err(RelayoutError::OutsideBuffer {
            side: "source",
            offset: 1,
            len: 0
        })
    );
    assert_eq!(
        relayout_bits(&src, &reach, &mut dst, &packed, 4),
        Err(RelayoutError::OutsideBuffer {
            side: "source",
            offset: i64::MAX,
            len: 32
        })
    );
    assert_eq!(
        relayout_bits(&src, &packed, &mut dst, &packed, u32::MAX),
        Err(RelayoutError::ElementSize {
            bits: u64::from(u32::MAX)
        })
    );
    // XLA shapes whose padded buffers pass i64::MAX elements.
    let huge = padded_f32(&[2, 3], &[2, 1 << 62]);
    assert_eq!(
        relayout_xla(&src, &huge, &mut dst, &huge)
            .unwrap_err()
            .to_string(),
        "the buffer of shape f32[2,3] (padding and tiles included) has more than i64::MAX elements"
    );
    assert_eq!(
        fill_padding(&mut dst, &huge).unwrap_err().to_string(),
        "the buffer of shape f32[2,3] (padding and tiles included) has more than i64::MAX elements"
    );
    // Fits in i64, not in the destination: named by its last element.
    let large = padded_f32(&[2, 3], &[2, 1 << 60]);
    assert_eq!(
        fill_padding(&mut dst, &large),
        Err(RelayoutError::OutsideBuffer {
            side: "destination",
            offset: (1 << 61) - 1,
            len: 4
        })
    );
}

#[test]
fn relayouts_of_enum_numbers_outside_their_enums() {
    let mut dst = [0_u8; 64];
    let mut padding = padded_f32(&[2, 3], &[2, 4]);
    padding.layout.as_mut().unwrap().padding_value = 77;
    for result in [
        relayout_xla(&[0; 64], &padding, &mut dst, &padding),
        fill_padding(&mut dst, &padding),
    ] {
        assert_eq!(
            result.unwrap_err().to_string(),
            "layout has unknown padding_value 77"
        );
    }
    // An unknown element type is PRIMITIVE_TYPE_INVALID, not an array: the
    // message names the number.
    for padded in [vec![2, 4], vec![]] {
        let mut unknown = padded_f32(&[2, 3], &padded);
        unknown.element_type = 9999;
        assert_eq!(
            relayout_xla(&[0; 64], &unknown, &mut dst, &unknown)
                .unwrap_err()
                .to_string(),
            "shape primitive_type_invalid[] (element type 9999) is not an array"
        );
    }
}

#[test]
fn relayout_checks_buffer_lengths_before_overlap() {
    let start = std::time::Instant::now();
    let dst_view = interleaved_giant();
    let src_view = StridedView::row_major(dst_view.sizes()).unwrap();
    let outside = |side, offset| {
        Err(RelayoutError::OutsideBuffer {
            side,
            offset,
            len: 0,
        })
    };
    assert_eq!(
        relayout(&[], &src_view, &mut [], &dst_view, 1),
        outside("source", 2_573_999_999)
    );
    let src = [0_u8; 1];
    let one = StridedView::new(&[3, 3, 286_000_000], &[0, 0, 0], 0).unwrap();
    assert_eq!(
        relayout(&src, &one, &mut [], &dst_view, 1),
        outside("destination", 4_289_999_999)
    );
    assert_eq!(
        relayout_bits(&src, &one, &mut [], &dst_view, 4),
        outside("destination", 4_289_999_999)
    );
    assert!(start.elapsed().as_secs() < 2, "took {:?}", start.elapsed());
}
