//! `StridedView` from and to ndarray views (every element at the position
//! ndarray has it, negative strides included) and DLPack's layout fields
//! (the byte offset honoured); errors naming the reason.
#![cfg(all(feature = "ndarray", feature = "dlpack"))]
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

use ndarray::{Array, Array4, Dimension, IxDyn, s};
use stride_util::{DlpackLayout, StridedView, ViewError};

/// Every element of `view` over `buffer` is the ndarray element of the
/// same index.
fn same_elements(view: &StridedView, array: &ndarray::ArrayViewD<'_, u32>, buffer: &[u32]) {
    assert_eq!(
        view.sizes(),
        array.shape().iter().map(|&s| s as i64).collect::<Vec<_>>()
    );
    for (index, value) in array.indexed_iter() {
        let index: Vec<i64> = index.as_array_view().iter().map(|&i| i as i64).collect();
        let offset = view.element_offset(&index).unwrap();
        assert_eq!(buffer[offset as usize], *value, "{index:?}");
    }
}

#[test]
fn sliced_views_of_every_rank_with_negative_strides() {
    let owner = Array4::from_shape_fn((3, 4, 5, 6), |(a, b, c, d)| {
        (a * 1000 + b * 100 + c * 10 + d) as u32
    });
    let buffer = owner.as_slice().unwrap();
    let parts = [
        owner.slice(s![.., .., .., ..]).into_dyn(),
        owner.slice(s![..;-1, 1..;2, .., ..;-3]).into_dyn(),
        owner.slice(s![1, ..;-1, 2.., 3]).into_dyn(),
        owner.slice(s![.., 2, .., ..;-1]).into_dyn().reversed_axes(),
        owner.slice(s![2, 3, 4, 5]).into_dyn(),
        owner.slice(s![.., 0..0, .., ..]).into_dyn(),
    ];
    for part in &parts {
        let view = StridedView::from_ndarray_in(part, buffer).unwrap();
        same_elements(&view, part, buffer);
        // And back: the same elements at the same indices.
        let back = view.to_ndarray(buffer).unwrap();
        assert_eq!(back, *part);
        if !part.is_empty() {
            assert_eq!(back.strides(), part.strides());
        }
    }
}

#[test]
fn contiguous_views_bring_their_elements() {
    let owner = Array::from_shape_fn(IxDyn(&[4, 5, 6]), |i| (i[0] * 30 + i[1] * 6 + i[2]) as u32);
    let mut flipped = owner.view();
    flipped.invert_axis(ndarray::Axis(1));
    let permuted = flipped.permuted_axes(IxDyn(&[2, 0, 1]));
    let (view, elements) = StridedView::from_ndarray(&permuted).unwrap();
    assert_eq!(elements.len(), 120);
    assert_eq!(view.strides(), [1, 30, -6]);
    assert_eq!(view.offset(), 24);
    same_elements(&view, &permuted, elements);
    // A view with gaps is located in its owner's buffer instead.
    let gaps = owner.slice(s![.., ..;2, ..]);
    let err = StridedView::from_ndarray(&gaps).unwrap_err();
    assert!(matches!(err, ViewError::Conversion { .. }), "{err}");
    assert!(
        err.to_string().contains("not contiguous in memory"),
        "{err}"
    );
}

#[test]
fn views_outside_their_buffer_are_refused() {
    let owner = Array::from_shape_fn(IxDyn(&[4, 6]), |i| (i[0] * 6 + i[1]) as u32);
    let buffer = owner.as_slice().unwrap();
    let part = owner.slice(s![2.., ..]);
    // The first half of the buffer does not hold the last two rows.
    let err = StridedView::from_ndarray_in(&part, &buffer[..12]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot convert the view with shape (2,6) and strides (6,1) from an ndarray view: \
         some element is outside the buffer of 12 elements"
    );
    // A buffer after the first element.
    let err = StridedView::from_ndarray_in(&owner.view(), &buffer[1..]).unwrap_err();
    assert!(
        err.to_string().contains("not an element of the buffer"),
        "{err}"
    );
    // Back: a view past its buffer, and a broadcast written.
    let err = StridedView::row_major(&[4, 6])
        .unwrap()
        .to_ndarray(&buffer[..20])
        .unwrap_err();
    assert!(matches!(err, ViewError::OutsideBuffer { .. }), "{err}");
    let mut data = [0_u32; 6];
    let broadcast = StridedView::new(&[4, 6], &[0, 1], 0).unwrap();
    assert_eq!(broadcast.to_ndarray(&data).unwrap().shape(), [4, 6]);
    let err = broadcast.to_ndarray_mut(&mut data).unwrap_err();
    assert!(matches!(err, ViewError::Conversion { .. }), "{err}");
}

#[test]
fn dlpack_offsets_and_strides() {
    // A compact row-major float32 tensor 96 bytes into its buffer.
    let view = StridedView::from_dlpack(&[2, 3, 4], None, 96, 32).unwrap();
    assert_eq!((view.strides(), view.offset()), (&[12, 4, 1][..], 24));
    assert_eq!(
        view.to_dlpack(32).unwrap(),
        DlpackLayout {
            shape: vec![2, 3, 4],
            strides: vec![12, 4, 1],
            byte_offset: 96
        }
    );
    // The XLA layout and the offset of the same view.
    let (layout, offset) = view.to_xla_layout_and_offset().unwrap();
    assert_eq!((layout.minor_to_major, offset), (vec![2, 1, 0], 24));
    // bf16 with explicit column-major strides.
    let view = StridedView::from_dlpack(&[3, 5], Some(&[1, 3]), 10, 16).unwrap();
    assert_eq!(view.offset(), 5);
    assert_eq!(view.to_dlpack(16).unwrap().byte_offset, 10);
    let err = StridedView::from_dlpack(&[3, 5], None, 6, 32).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot convert the view with shape (3,5) and strides NULL from DLPack: \
         byte_offset 6 is not a multiple of the element's 4 bytes"
    );
    let err = StridedView::from_dlpack(&[3, 5], None, 0, 4).unwrap_err();
    assert!(
        err.to_string().contains("4 bits are not whole bytes"),
        "{err}"
    );
    let err = view.to_dlpack(12).unwrap_err();
    assert!(
        matches!(
            err,
            ViewError::Conversion {
                to: "to DLPack",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn to_xla_layout_names_the_offset_it_refuses() {
    let rows = StridedView::new(&[2, 6], &[6, 1], 12).unwrap();
    let err = rows.to_xla_layout().unwrap_err();
    assert!(err.to_string().contains("offset 12 is not 0"), "{err}");
    let (layout, offset) = rows.to_xla_layout_and_offset().unwrap();
    assert_eq!((layout.minor_to_major, offset), (vec![1, 0], 12));
}
