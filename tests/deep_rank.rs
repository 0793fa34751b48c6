//! No abort at rank 200,000: every public entry point that takes a shape or
//! a view of that rank returns (a value or an error) on a thread with an
//! ordinary 2 MiB stack, in time linear in the rank.
//!
//! The shapes are `u8[1,1,...,1]` with one padded dimension, the case that
//! used to overflow the stack in `fill_padding` and `relayout_xla` (one
//! recursion level per dimension).

#![allow(clippy::unwrap_used)]

use conformance::on_small_stack;
use layout_util::LayoutBuilder;
use schema::{PaddingValue, PrimitiveType, Shape};
use stride_util::{StridedView, ViewError};

const RANK: usize = 200_000;

/// `u8[2,1,...,1]` (rank [`RANK`]) in descending layout, dim 0 padded to
/// 3 with `HighestPad`.
fn padded_shape() -> Shape {
    let mut dimensions = vec![1; RANK];
    dimensions[0] = 2;
    let mut padded = vec![1; RANK];
    padded[0] = 3;
    let minor_to_major: Vec<i64> = (0..i64::try_from(RANK).unwrap()).rev().collect();
    Shape {
        element_type: PrimitiveType::U8 as i32,
        dimensions,
        is_dynamic_dimension: vec![false; RANK],
        layout: Some(Box::new(
            LayoutBuilder::new(&minor_to_major)
                .padded_dimensions(padded)
                .padding_value(PaddingValue::HighestPad)
                .build(),
        )),
        ..Default::default()
    }
}

/// The same shape without padding.
fn plain_shape() -> Shape {
    let mut shape = padded_shape();
    if let Some(layout) = shape.layout.as_deref_mut() {
        layout.padded_dimensions.clear();
        layout.padding_value = 0;
    }
    shape
}

#[test]
fn fill_padding_and_relayout_xla_at_rank_200000() {
    on_small_stack(|| {
        let (padded, plain) = (padded_shape(), plain_shape());
        let mut buffer = *b"AB.";
        relayout::fill_padding(&mut buffer, &padded).unwrap();
        assert_eq!(&buffer, b"AB\xff");
        let mut dst = [0_u8; 3];
        relayout::relayout_xla(b"AB", &plain, &mut dst, &padded).unwrap();
        assert_eq!(&dst, b"AB\xff");
        let mut back = [0_u8; 2];
        relayout::relayout_xla(&dst, &padded, &mut back, &plain).unwrap();
        assert_eq!(&back, b"AB");
    });
}

#[test]
fn schema_and_layout_util_at_rank_200000() {
    on_small_stack(|| {
        let shape = padded_shape();
        let text = shape.to_string();
        let parsed: Shape = text.parse().unwrap();
        assert_eq!(parsed.dimensions, shape.dimensions);
        let bytes = prost::Message::encode_to_vec(&shape);
        let decoded: Shape = prost::Message::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded, shape);
        let layout = shape.layout.as_deref().unwrap();
        layout_util::validate_layout_for_shape(layout, &shape).unwrap();
        assert!(layout_util::is_padded(&shape));
        assert_eq!(layout_util::padded_dimensions(&shape).unwrap()[0], 3);
        assert_eq!(layout_util::make_logical_to_physical(layout).unwrap()[1], 1);
        assert!(layout_util::is_monotonic_with_dim0_major(layout));
        assert!(layout_util::LayoutEqual::new().equal(layout, layout));
    });
}

#[test]
fn index_util_at_rank_200000() {
    on_small_stack(|| {
        let shape = padded_shape();
        let physical = index_util::PhysicalLayout::new(&shape).unwrap();
        assert_eq!(physical.padded_element_count(), 3);
        let mut index = vec![0; RANK];
        index[0] = 1;
        assert_eq!(physical.linear_index(&index).unwrap(), 1);
        assert_eq!(physical.multidimensional_index(1).unwrap(), index);
        assert!(physical.multidimensional_index(2).is_err());
        let all: Vec<Vec<i64>> = index_util::ForEachIndex::over_shape(&shape)
            .unwrap()
            .collect();
        assert_eq!(all.len(), 2);
        assert!(index_util::index_in_bounds(&shape, &index));
        assert_eq!(index_util::compare_indices(&index, &index).unwrap(), 0);
        let mut bumped = vec![0; RANK];
        assert!(index_util::bump_indices(&shape, &mut bumped).unwrap());
        assert_eq!(bumped, index);
        assert_eq!(
            index_util::linear_index_for_nested_tiling(&plain_shape(), &index).unwrap(),
            1
        );
    });
}

#[test]
fn shape_util_at_rank_200000() {
    on_small_stack(|| {
        let shape = plain_shape();
        shape_util::validate_shape(&shape).unwrap();
        assert_eq!(shape_util::elements_in(&shape).unwrap(), 2);
        assert_eq!(shape_util::byte_strides(&shape).unwrap()[0], 1);
        assert!(shape_util::equal(&shape, &shape));
        let dropped = shape_util::drop_degenerate_dimensions(&shape).unwrap();
        assert_eq!(dropped.dimensions, [2]);
        let identity: Vec<i64> = (0..i64::try_from(RANK).unwrap()).collect();
        let permuted = shape_util::permute_dimensions(&shape, &identity).unwrap();
        assert_eq!(permuted.dimensions, shape.dimensions);
        assert!(shape_util::reshape_is_bitcast(&shape, &dropped).unwrap());
        assert_eq!(
            shape_util::deduce_transpose_dimensions_for_bitcast(&shape, &shape).unwrap(),
            Some(identity.clone())
        );
        assert!(shape_util::transpose_is_bitcast(&shape, &shape, &identity).unwrap());
        assert!(
            shape_util::decompose_bitcast(&shape, &dropped)
                .unwrap()
                .is_some()
        );
        assert!(
            shape_util::align_layouts(&shape, &dropped)
                .unwrap()
                .is_some()
        );
        assert_eq!(
            shape_util::dimensions_unmodified_by_reshape(&shape, &dropped).unwrap(),
            [(0, 0)]
        );
        let same = shape_util::make_shape_with_descending_layout_and_same_physical_layout(&shape);
        assert_eq!(same.unwrap().dimensions, shape.dimensions);
        let deleted = shape_util::delete_dimensions(&shape, &identity[1..]).unwrap();
        assert_eq!(deleted.dimensions, [2]);
        let both = shape_util::infer_elementwise_binary_op_shape("add", &shape, &shape, &[]);
        assert_eq!(both.unwrap().dimensions, shape.dimensions);
        let broadcast = shape_util::infer_broadcast_in_dim_shape(&shape, &shape, &identity);
        assert_eq!(broadcast.unwrap().dimensions, shape.dimensions);
    });
}

#[test]
fn stride_util_views_at_rank_200000() {
    on_small_stack(|| {
        let sizes = vec![1; RANK];
        let view = StridedView::row_major(&sizes).unwrap();
        assert_eq!(view.num_elements(), 1);
        assert_eq!(view.transpose().ndim(), RANK);
        assert_eq!(view.squeeze().ndim(), 0);
        assert!(view.is_c_contiguous() && view.is_f_contiguous());
        assert_eq!(view.has_overlap(), Ok(false));
        assert_eq!(view.offsets().collect::<Vec<_>>(), [0]);
        assert_eq!(view.min_buffer_len(), Ok(1));
        let too_many = Err(ViewError::TooManyDimensions { ndim: RANK });
        assert_eq!(view.reshape(&sizes), too_many);
        // Operations over every axis stay linear in the rank.
        let all: Vec<i64> = (0..i64::try_from(RANK).unwrap()).collect();
        assert_eq!(view.squeeze_axes(&all).unwrap().ndim(), 0);
        let reversed: Vec<i64> = all.iter().rev().copied().collect();
        assert_eq!(view.moveaxis(&all, &reversed).unwrap().ndim(), RANK);
        assert_eq!(view.permute(&reversed).unwrap().ndim(), RANK);
        let scalar = StridedView::row_major(&[]).unwrap();
        let expanded = scalar.expand_dims(&all);
        assert_eq!(expanded, too_many);
        assert_eq!(view.broadcast_to(&sizes), too_many);
        assert_eq!(view.reshape(&[1]).unwrap().strides(), [1]);
        let last = view.index(&stride_util::parse_index_expression("[..., 0]").unwrap());
        assert_eq!(
            last,
            Err(ViewError::IndexTooManyDimensions { ndim: RANK - 1 })
        );
        let view = StridedView::from_xla_shape(&plain_shape()).unwrap();
        assert_eq!(view.strides()[0], 1);
        assert_eq!(
            view.to_xla_layout().unwrap(),
            *plain_shape().layout.unwrap()
        );
        let mut dst = [0_u8; 2];
        relayout::relayout(b"AB", &view, &mut dst, &view, 1).unwrap();
        assert_eq!(&dst, b"AB");
        relayout::relayout_bits(&[0x21], &view, &mut dst, &view, 4).unwrap();
        assert_eq!(dst[0], 0x21);
    });
}

#[test]
fn flips_at_rank_200000_fail_with_numpys_text() {
    on_small_stack(|| {
        let view = StridedView::row_major(&vec![1; RANK]).unwrap();
        let too_many = Err(ViewError::TooManyDimensions { ndim: RANK });
        assert_eq!(view.flip(), too_many);
        assert_eq!(view.flip_axes(&[0, -1]), too_many);
    });
}
