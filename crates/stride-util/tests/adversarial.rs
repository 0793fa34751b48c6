//! Hostile views: strides and offsets at the `i64` extremes, whose
//! products with an index or sums with the offset overflow, buffers whose
//! length or byte size passes `i64::MAX`, slices and axes at the extremes.
//! Each is a precise error or numpy's answer (checked with numpy 2.4 where
//! numpy has one), never a panic or a wrapped offset. (Relayouts of such
//! views: the `xla-relayout` crate's `tests/adversarial.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use stride_util::{StridedView, ViewError, adjust_slice, parse_index_expression};

/// `result` failed with an overflow computing `what`.
#[track_caller]
fn assert_overflow<T: std::fmt::Debug>(result: Result<T, ViewError>, what: &str) {
    match result {
        Err(ViewError::Overflow { what: got, .. }) => assert_eq!(got, what),
        other => panic!("expected an overflow computing {what}, got {other:?}"),
    }
}

#[test]
fn as_strided_with_i64_extreme_strides() {
    // Two elements i64::MAX apart: the last is at i64::MAX, outside any
    // buffer an i64 can measure.
    assert_eq!(
        StridedView::as_strided(10, &[2], &[i64::MAX], 0),
        Err(ViewError::OutsideBuffer {
            offset: i64::MAX,
            len: 10
        })
    );
    assert_eq!(
        StridedView::as_strided(i64::MAX, &[2], &[i64::MAX], 0),
        Err(ViewError::OutsideBuffer {
            offset: i64::MAX,
            len: i64::MAX
        })
    );
    // A third element would be at 2 * i64::MAX.
    for strides in [[i64::MAX], [i64::MIN], [i64::MIN + 1]] {
        assert_overflow(
            StridedView::as_strided(10, &[3], &strides, 0),
            "an element offset",
        );
    }
    // The offset plus the extent overflows, upwards and downwards.
    assert_overflow(
        StridedView::as_strided(10, &[2], &[i64::MAX], 1),
        "an element offset",
    );
    assert_overflow(
        StridedView::as_strided(10, &[2], &[i64::MIN], -1),
        "an element offset",
    );
    assert_overflow(
        StridedView::as_strided(10, &[2], &[-1], i64::MIN),
        "an element offset",
    );
    // Negative strides reaching below 0.
    assert_eq!(
        StridedView::as_strided(10, &[2], &[i64::MIN], 5),
        Err(ViewError::OutsideBuffer {
            offset: i64::MIN + 5,
            len: 10
        })
    );
    // Huge strides over a size-1 or size-0 dimension address nothing new.
    let single = StridedView::as_strided(10, &[1, 0], &[i64::MAX, i64::MIN], 9).unwrap();
    assert_eq!(single.offset_range(), None);
    let one = StridedView::as_strided(10, &[1, 2], &[i64::MIN, i64::MAX / 4], 0);
    assert_eq!(
        one,
        Err(ViewError::OutsideBuffer {
            offset: i64::MAX / 4,
            len: 10
        })
    );
    // Negative sizes and rank mismatches.
    assert_eq!(
        StridedView::as_strided(10, &[2, i64::MIN], &[1, 1], 0),
        Err(ViewError::NegativeSize {
            axis: 1,
            size: i64::MIN
        })
    );
    assert_eq!(
        StridedView::as_strided(10, &[2], &[], 0),
        Err(ViewError::RankMismatch {
            sizes: 1,
            strides: 0
        })
    );
}

#[test]
fn indices_whose_products_with_strides_would_overflow() {
    // Dimension 0 steps by 2^62 - 1: the last element is at 2^63 - 3.
    let big = (1_i64 << 62) - 1;
    let view = StridedView::new(&[2, big], &[big, 1], 0).unwrap();
    assert_eq!(view.element_offset(&[1, big - 1]).unwrap(), i64::MAX - 2);
    assert_eq!(view.min_buffer_len().unwrap(), i64::MAX - 1);
    for (index, axis, size) in [
        ([2, 0], 0, 2),
        ([i64::MAX, 0], 0, 2),
        ([i64::MIN, 0], 0, 2),
        ([-1, 0], 0, 2),
        ([0, i64::MAX], 1, big),
        ([0, big], 1, big),
    ] {
        assert_eq!(
            view.element_offset(&index),
            Err(ViewError::IndexOutOfBounds {
                index: index[axis],
                axis,
                size
            }),
            "{index:?}"
        );
    }
    // Indexing keeps numpy's negative indices: -1 is the last.
    let last = view
        .index(&parse_index_expression("[-1, -1]").unwrap())
        .unwrap();
    assert_eq!(last.offset(), i64::MAX - 2);
    assert_eq!(
        view.index(&parse_index_expression("[-3]").unwrap()),
        Err(ViewError::IndexOutOfBounds {
            index: -3,
            axis: 0,
            size: 2
        })
    );
    assert_eq!(
        view.select(i64::MIN, 0),
        Err(ViewError::AxisOutOfBounds {
            argument: None,
            axis: i64::MIN,
            ndim: 2
        })
    );
    // i64::MAX elements in one dimension.
    let long = StridedView::row_major(&[i64::MAX]).unwrap();
    assert_eq!(long.element_offset(&[i64::MAX - 1]).unwrap(), i64::MAX - 1);
    assert_eq!(long.min_buffer_len().unwrap(), i64::MAX);
    let halves = long
        .index(&parse_index_expression("[::2]").unwrap())
        .unwrap();
    assert_eq!(halves.sizes(), [1 << 62]);
    assert_eq!(
        halves.element_offset(&[(1 << 62) - 1]).unwrap(),
        i64::MAX - 1
    );
    // numpy clamps a step of -2^63 to -(2^63 - 1): np.arange(3)[::-(2**63)]
    // is array([2]), at offset 2. (Not a golden chain: the stride numpy
    // reports for that one element is its C product wrapped, 4 bytes; ours
    // is the step itself.)
    let three = StridedView::row_major(&[3]).unwrap();
    let reversed = three
        .index(&[stride_util::IndexItem::slice(None, None, Some(i64::MIN))])
        .unwrap();
    assert_eq!((reversed.sizes(), reversed.offset()), (&[1][..], 2));
}

#[test]
fn minimal_buffers_just_over_i64_max() {
    // The last element at i64::MAX: the buffer needs i64::MAX + 1 elements.
    let far = StridedView::new(&[2], &[i64::MAX], 0).unwrap();
    assert_overflow(far.min_buffer_len(), "the buffer length");
    assert_overflow(far.dml_buffer_tensor_size(8), "the buffer length");
    let far = StridedView::new(&[2, 2], &[i64::MAX - 1, 1], 0).unwrap();
    assert_overflow(far.min_buffer_len(), "the buffer length");
    // 2^60 elements fit; their bytes at 64 bits do not, at 32 they do.
    let long = StridedView::row_major(&[1 << 60]).unwrap();
    assert_overflow(long.dml_buffer_tensor_size(64), "the buffer size in bytes");
    assert_eq!(long.dml_buffer_tensor_size(32).unwrap(), 1 << 62);
    assert_overflow(
        long.dml_buffer_tensor_size(u32::MAX),
        "the buffer size in bytes",
    );
    // Sub-byte elements: i64::MAX 4-bit elements take 2^62 bytes.
    let longest = StridedView::row_major(&[i64::MAX]).unwrap();
    assert_eq!(longest.dml_buffer_tensor_size(4).unwrap(), 1 << 62);
    // An element below 0 has no buffer.
    let below = StridedView::new(&[2], &[i64::MIN], 0).unwrap();
    assert_eq!(
        below.min_buffer_len(),
        Err(ViewError::OutsideBuffer {
            offset: i64::MIN,
            len: 1
        })
    );
}

#[test]
fn overlap_and_span_with_extreme_strides() {
    // Offsets {0, MIN, MAX, -1}: four distinct elements over a span of
    // 2^64 - 1, more than i64 holds.
    let corners = StridedView::new(&[2, 2], &[i64::MIN, i64::MAX], 0).unwrap();
    assert_eq!(corners.offset_range(), Some((i64::MIN, i64::MAX)));
    assert_eq!(corners.span(), None);
    // Mixed radix in exact arithmetic: |MIN| = 2^63 exceeds the reach of MAX.
    assert_eq!(corners.has_overlap(), Ok(false));
    assert_eq!(corners.is_padded(), Ok(true));
    assert!(!corners.is_c_contiguous());
    // Strides 3k and 4k interleave (offsets {0,4k,8k,3k,7k,11k,6k,10k,14k}):
    // deciding takes a bitmap of the span, refused past 2^32 bits.
    let k = 1_i64 << 40;
    let wide = StridedView::new(&[3, 3], &[3 * k, 4 * k], 0).unwrap();
    assert_eq!(
        wide.has_overlap(),
        Err(ViewError::OverlapUndecided { span: 14 * k + 1 })
    );
    // Equal huge strides overlap: the count exceeds the span.
    let twice = StridedView::new(&[2, 2], &[i64::MAX / 2, i64::MAX / 2], 0).unwrap();
    assert_eq!(twice.has_overlap(), Ok(true));
    // A stride twice another of size 3 meets it, whatever the signs:
    // (0, 0) and (2, 1) are both at 6 here; with size 2 nothing meets.
    let opposite = StridedView::new(&[3, 2], &[-3, 6], 6).unwrap();
    assert_eq!(opposite.has_overlap(), Ok(true));
    let short = StridedView::new(&[2, 2], &[3, 6], 0).unwrap();
    assert_eq!(short.has_overlap(), Ok(false));
    let apart = StridedView::new(&[2, 2], &[i64::MAX / 2, 1], 0).unwrap();
    assert_eq!(apart.has_overlap(), Ok(false));
    assert_eq!(apart.is_padded(), Ok(true));
}

#[test]
fn reshapes_and_broadcasts_whose_sizes_overflow() {
    // A product past i64 (size 1 into (2^32, 2^32)) and an unknown size
    // that does not divide (5 into (-1, 2)) are numpy's refusals in the
    // views golden test; an array of i64::MAX elements numpy cannot make,
    // so this message is ours, in numpy's words.
    let one = StridedView::row_major(&[1]).unwrap();
    let longest = StridedView::row_major(&[i64::MAX]).unwrap();
    assert_eq!(
        longest.reshape(&[-1, 2]).unwrap_err().to_string(),
        "cannot reshape array of size 9223372036854775807 into shape (2)"
    );
    // i64::MAX = 7^2 * 73 * 127 * 337 * 92737 * 649657.
    let factored = longest
        .reshape(&[49, 73, 127, 337, 92_737, 649_657])
        .unwrap();
    assert_eq!(factored.strides()[0], i64::MAX / 49);
    // A non-contiguous view of a huge buffer reshapes through strides.
    let strided = StridedView::new(&[2, 1 << 30], &[1 << 32, 2], 0).unwrap();
    let split = strided.reshape(&[2, 1 << 15, 1 << 15]).unwrap();
    assert_eq!(split.strides(), [1 << 32, 1 << 16, 2]);
    // numpy refuses a broadcast to (2^62, 4) with "iterator is too large"
    // (the views golden test); what follows it is ours. (2^61, 2) of 1-byte
    // elements numpy makes a view of; views count elements, not bytes, so
    // it is one here whatever the element size.
    let scalar = StridedView::row_major(&[]).unwrap();
    assert_eq!(
        scalar.broadcast_to(&[1 << 62, 4]).unwrap_err().to_string(),
        "iterator is too large: the broadcast shape (4611686018427387904,4) has more than 2^63 - 1 elements"
    );
    assert_eq!(
        scalar.broadcast_to(&[1 << 61, 2]).unwrap().strides(),
        [0, 0]
    );
    assert_eq!(
        scalar.broadcast_to(&[2, i64::MIN]),
        Err(ViewError::NegativeBroadcastSize {
            axis: 1,
            size: i64::MIN
        })
    );
    assert_eq!(
        scalar.broadcast_to(&[i64::MAX]).unwrap().sizes(),
        [i64::MAX]
    );
    assert!(matches!(
        one.expand_dims(&[i64::MAX]),
        Err(ViewError::AxisOutOfBounds { axis: i64::MAX, .. })
    ));
}

#[test]
fn slices_of_negative_lengths_are_rejected() {
    // numpy: slice(None).indices(-1) raises "length should not be negative".
    for length in [-1, i64::MIN] {
        assert_eq!(
            adjust_slice(length, Some(-1), None, Some(-1), 3),
            Err(ViewError::NegativeSize {
                axis: 3,
                size: length
            })
        );
    }
    // Extreme bounds clamp as numpy's PySlice_AdjustIndices.
    assert_eq!(
        adjust_slice(i64::MAX, Some(i64::MIN), Some(i64::MAX), Some(i64::MAX), 0),
        Ok((0, i64::MAX, 1))
    );
    assert_eq!(
        adjust_slice(i64::MAX, None, None, Some(i64::MIN), 0),
        Ok((i64::MAX - 1, -i64::MAX, 1))
    );
}

#[test]
fn xla_layouts_of_views_whose_padded_buffer_overflows() {
    // Rows 2^62 apart: the view fits (its last element is at 2^62 + 2),
    // but as an XLA layout dimension 1 is padded to 2^62, and the padded
    // buffer of 2 * 2^62 elements does not fit in i64.
    let view = StridedView::new(&[2, 3], &[1 << 62, 1], 0).unwrap();
    assert_eq!(view.min_buffer_len().unwrap(), (1 << 62) + 3);
    let error = view.to_xla_layout().unwrap_err();
    assert_eq!(
        error.to_string(),
        "strides (4611686018427387904,1) of shape (2,3) do not describe an XLA layout: the padded buffer (2,4611686018427387904) has more than i64::MAX elements"
    );
}

#[test]
fn flips_past_64_dimensions_are_refused() {
    // numpy has no array of 65 dimensions, so flipping one is our own
    // choice: the error numpy gives for making a 65-dimension array (its
    // text is checked against numpy's in the views golden test, where a
    // reshape to 65 dimensions fails), never the view back unflipped.
    let mut sizes = vec![1; 65];
    sizes[0] = 2;
    let deep = StridedView::row_major(&sizes).unwrap();
    let too_many = ViewError::TooManyDimensions { ndim: 65 };
    assert_eq!(deep.flip(), Err(too_many.clone()));
    assert_eq!(deep.flip_axes(&[0]), Err(too_many));
    // 64 dimensions flip: the size-2 one steps back from its last element,
    // the size-1 ones only change sign.
    let at_limit = StridedView::row_major(&sizes[1..]).unwrap();
    let flipped = at_limit.flip().unwrap();
    assert!(flipped.strides().iter().all(|&s| s == -1));
    let mut two = sizes[1..].to_vec();
    two[63] = 2;
    let flipped = StridedView::row_major(&two)
        .unwrap()
        .flip_axes(&[-1])
        .unwrap();
    assert_eq!((flipped.strides()[63], flipped.offset()), (-1, 1));
    // An empty dimension keeps its stride and moves nothing.
    let empty = StridedView::new(&[0, 3], &[3, 1], 0)
        .unwrap()
        .flip()
        .unwrap();
    assert_eq!((empty.strides(), empty.offset()), (&[3, -1][..], 2));
    // Negating a stride of i64::MIN overflows along a moving dimension
    // and wraps (as numpy's C arithmetic) along a size-1 one.
    let min = StridedView::new(&[2], &[i64::MIN], i64::MAX).unwrap();
    assert_overflow(min.flip(), "a slice stride");
    let single = StridedView::new(&[1], &[i64::MIN], 0).unwrap();
    assert_eq!(single.flip().unwrap().strides(), [i64::MIN]);
}

/// The destination: strides 3 and 4 interleave, 15 steps past both,
/// over a span of 4.29e9 elements (a 512 MiB bitmap to enumerate).
fn interleaved_giant() -> StridedView {
    StridedView::new(&[3, 3, 286_000_000], &[3, 4, 15], 0).unwrap()
}

#[test]
fn overlap_is_decided_in_bounded_time_and_memory() {
    let start = std::time::Instant::now();
    // The mixed-radix outer dimension is set aside: only the 3x3 inner
    // block (span 15) is enumerated.
    assert_eq!(interleaved_giant().has_overlap(), Ok(false));
    let sliding = StridedView::new(&[3, 3, 286_000_000], &[3, 3, 15], 0).unwrap();
    assert_eq!(sliding.has_overlap(), Ok(true));
    // Interleaved strides over a span past 2^26 elements: refused at once
    // rather than enumerated.
    let k = 1_i64 << 23;
    let wide = StridedView::new(&[3, 3], &[3 * k, 4 * k], 0).unwrap();
    assert_eq!(
        wide.has_overlap(),
        Err(ViewError::OverlapUndecided { span: 14 * k + 1 })
    );
    assert_eq!(
        wide.has_overlap().unwrap_err().to_string(),
        "cannot decide whether a view spanning 117440513 elements overlaps itself"
    );
    // Just inside the bound it is decided.
    let k = 1_i64 << 22;
    let decided = StridedView::new(&[3, 3], &[3 * k, 4 * k], 0).unwrap();
    assert_eq!(decided.has_overlap(), Ok(false));
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
}
