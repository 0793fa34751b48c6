//! The seeds' worked examples, and view-operation chains over random base
//! layouts (packed, flipped, XLA layouts with padding) checked element by
//! element against a naive reference that tracks the buffer offset of every
//! logical element explicitly.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

mod common;

use common::logical_indices;
use layout_util::LayoutBuilder;
use proptest::prelude::*;
use schema::{PrimitiveType, Shape};
use stride_util::{IndexItem, StridedView, ViewError};

#[test]
fn seed_directml_dhw_example() {
    // 2×2×3 DHW tensor A..L: strides {6,3,1}; H = (1,0,1) at offset 7.
    let dhw = StridedView::row_major(&[2, 2, 3]).unwrap();
    assert_eq!(dhw.strides(), [6, 3, 1]);
    assert_eq!(dhw.element_offset(&[1, 0, 1]).unwrap(), 7);
    assert!(dhw.is_packed().unwrap());
    assert_eq!(dhw.min_buffer_len().unwrap(), 12);
    // The column-major 2×3 matrix stores A D B E C F.
    let wh = StridedView::column_major(&[2, 3]).unwrap();
    let letters: Vec<i64> = wh.offsets().collect();
    assert_eq!(letters, [0, 2, 4, 1, 3, 5]);
}

#[test]
fn seed_directml_broadcast_and_padding() {
    let broadcast = StridedView::from_dml(&[2, 3], Some(&[0, 1])).unwrap();
    assert!(broadcast.is_broadcast());
    assert!(broadcast.has_overlap().unwrap());
    assert!(!broadcast.is_packed().unwrap());
    assert_eq!(broadcast.offsets().collect::<Vec<_>>(), [0, 1, 2, 0, 1, 2]);
    assert_eq!(broadcast.min_buffer_len().unwrap(), 3);

    let padded = StridedView::from_dml(&[2, 3], Some(&[5, 1])).unwrap();
    assert!(padded.is_padded().unwrap());
    assert!(!padded.is_packed().unwrap());
    assert_eq!(padded.offsets().collect::<Vec<_>>(), [0, 1, 2, 5, 6, 7]);
    assert_eq!(padded.min_buffer_len().unwrap(), 8);
    assert_eq!(padded.dml_buffer_tensor_size(32).unwrap(), 32);
}

#[test]
fn seed_directml_nchw_nhwc_tables() {
    let nchw = StridedView::nchw(&[3, 5]).unwrap();
    assert_eq!(
        (nchw.sizes(), nchw.strides()),
        (&[1, 1, 3, 5][..], &[15, 15, 5, 1][..])
    );
    assert_eq!(StridedView::from_dml(&[1, 1, 3, 5], None).unwrap(), nchw);
    let nhwc = StridedView::nhwc(&[1, 1, 3, 5]).unwrap();
    assert_eq!(
        (nhwc.sizes(), nhwc.strides()),
        (&[1, 1, 3, 5][..], &[15, 1, 5, 1][..])
    );
    let ncdhw = StridedView::nhwc(&[2, 3, 4, 5, 6]).unwrap();
    assert_eq!(ncdhw.strides(), [360, 1, 90, 18, 3]);
    assert_eq!(
        StridedView::nchw(&[1, 2, 3, 4, 5, 6]),
        Err(ViewError::DmlRank { rank: 6, target: 4 })
    );
}

#[test]
fn seed_strided_views_article() {
    // (3,4) row-major: A[2][3] = Adata[11].
    let a = StridedView::row_major(&[3, 4]).unwrap();
    assert_eq!(a.element_offset(&[2, 3]).unwrap(), 11);
    // The same 12 elements as (4,3): strides (3,1).
    let b = a.reshape(&[4, 3]).unwrap();
    assert_eq!(b.strides(), [3, 1]);
    // A part of it: shape (2,2), strides (3,1), offset 4.
    let part = b
        .index(&stride_util::parse_index_expression("[1:3, 1:3]").unwrap())
        .unwrap();
    assert_eq!(
        (part.sizes(), part.strides(), part.offset()),
        (&[2, 2][..], &[3, 1][..], 4)
    );
    // Strides are the suffix products of the shape.
    assert_eq!(
        StridedView::row_major(&[2, 3, 2]).unwrap().strides(),
        [6, 2, 1]
    );
    // transpose(0,2,1) permutes the strides: (6,2,1) -> (6,1,2).
    let t = StridedView::row_major(&[2, 3, 2])
        .unwrap()
        .permute(&[0, 2, 1])
        .unwrap();
    assert_eq!((t.sizes(), t.strides()), (&[2, 2, 3][..], &[6, 1, 2][..]));
    // broadcast (3,4,1,5) -> (2,3,4,10,5): new and size-1 dimensions get stride 0.
    let c = StridedView::row_major(&[3, 4, 1, 5]).unwrap();
    assert_eq!(
        c.broadcast_to(&[2, 3, 4, 10, 5]).unwrap().strides(),
        [0, 20, 5, 0, 1]
    );
    // Slicing: A[0:3:2, 1:4:2] -> shape (2,2), strides (8,2), offset 1;
    // the length of each slice is ceil((end - start) / step).
    let s = a
        .index(&[
            IndexItem::slice(Some(0), Some(3), Some(2)),
            IndexItem::slice(Some(1), Some(4), Some(2)),
        ])
        .unwrap();
    assert_eq!(
        (s.sizes(), s.strides(), s.offset()),
        (&[2, 2][..], &[8, 2][..], 1)
    );
    assert_eq!(s.offsets().collect::<Vec<_>>(), [1, 3, 9, 11]);
}

/// Fuzz find: a step that overflows a length-1 dimension's stride. That
/// stride is never stepped along; numpy keeps the wrapped product. The
/// values are numpy 2.4.6's for 1-byte elements, whose byte strides are
/// element strides: `as_strided(np.arange(10, dtype=np.int8)[1:], [1] * 8,
/// strides)[::-65, None]` and `np.flip` of the same view. (No golden chain:
/// those hold 4-byte elements, whose byte strides this one overflows.)
#[test]
fn slicing_a_length_one_dimension_keeps_numpys_wrapped_stride() {
    let huge = -4_629_489_586_660_196_360;
    let a = StridedView::new(&[1; 8], &[huge, 0, 0, 1, 1, 1, 1, 1], 1).unwrap();
    let items = [IndexItem::slice(None, None, Some(-65)), IndexItem::NewAxis];
    let v = a.index(&items).unwrap();
    assert_eq!(v.sizes(), [1; 9]);
    assert_eq!(
        v.strides(),
        [5_768_917_953_559_937_544, 0, 0, 0, 1, 1, 1, 1, 1]
    );
    assert_eq!(v.offset(), 1);
    assert_eq!(
        a.flip().unwrap().strides(),
        [-huge, 0, 0, -1, -1, -1, -1, -1]
    );
}

/// Fuzz find: an extent `(size - 1) * stride` past `i64` is refused with
/// a clear error, even where a negative offset would bring every element
/// offset back inside `i64` (offset arithmetic on views stays in `i64`).
#[test]
fn an_extent_past_i64_is_refused_even_when_the_offsets_fit() {
    let (stride, offset) = (18_855_705_249_341_198, -3_494_510_644_034_644_995);
    let error = StridedView::new(&[559], &[stride], offset).unwrap_err();
    assert!(matches!(error, ViewError::Overflow { .. }), "{error}");
    assert!(error.to_string().contains("18855705249341198"), "{error}");
    // With 489 elements the extent fits, and so does the view.
    let v = StridedView::new(&[489], &[stride], offset).unwrap();
    let last = i64::try_from(i128::from(offset) + 488 * i128::from(stride)).unwrap();
    assert_eq!(v.offset_range(), Some((offset, last)));
}

#[test]
fn classification_edge_cases() {
    let empty = StridedView::new(&[3, 0, 2], &[5, 7, -1], 4).unwrap();
    assert!(empty.is_c_contiguous() && empty.is_f_contiguous());
    assert_eq!(empty.min_buffer_len().unwrap(), 0);
    assert_eq!(empty.dml_buffer_tensor_size(32).unwrap(), 0);
    assert!(empty.is_packed().unwrap());
    assert_eq!(empty.offsets().count(), 0);
    let scalar = StridedView::row_major(&[]).unwrap();
    assert_eq!(scalar.offsets().collect::<Vec<_>>(), [0]);
    assert_eq!(scalar.min_buffer_len().unwrap(), 1);
    // DirectML rounds buffer sizes up to 4 bytes; sub-byte elements pack.
    let seven = StridedView::row_major(&[7]).unwrap();
    assert_eq!(seven.dml_buffer_tensor_size(8).unwrap(), 8);
    assert_eq!(seven.dml_buffer_tensor_size(4).unwrap(), 4);
    assert_eq!(
        StridedView::row_major(&[9])
            .unwrap()
            .dml_buffer_tensor_size(4)
            .unwrap(),
        8
    );
    // Overflow is an error, never a wrap, and names the values.
    assert_eq!(
        StridedView::new(&[3], &[i64::MAX / 2 + 1], 0)
            .unwrap_err()
            .to_string(),
        "integer overflow computing an element offset of the view of sizes (3,), \
         strides (4611686018427387904,), offset 0"
    );
    assert_eq!(
        StridedView::row_major(&[1 << 32, 1 << 32])
            .unwrap_err()
            .to_string(),
        "integer overflow computing the number of elements of the sizes (4294967296,4294967296)"
    );
    // The last element at i64::MAX - 1: the length fits, its bits do not.
    let far = StridedView::new(&[2], &[i64::MAX - 1], 0).unwrap();
    assert_eq!(far.min_buffer_len().unwrap(), i64::MAX);
    assert_eq!(
        far.dml_buffer_tensor_size(32).unwrap_err().to_string(),
        "integer overflow computing the buffer size in bytes of 9223372036854775807 elements of 32 bits"
    );
    assert!(
        StridedView::new(&[2], &[-1], 0)
            .unwrap()
            .min_buffer_len()
            .is_err()
    );
    assert_eq!(
        StridedView::as_strided(10, &[2, 2], &[-3, 1], 2),
        Err(ViewError::OutsideBuffer {
            offset: -1,
            len: 10
        })
    );
}

#[test]
fn xla_layouts_round_trip() {
    let shape = |dims: Vec<i64>, m2m: &[i64], padded: Vec<i64>| Shape {
        element_type: PrimitiveType::F32 as i32,
        is_dynamic_dimension: vec![false; dims.len()],
        dimensions: dims,
        layout: Some(Box::new(
            LayoutBuilder::new(m2m).padded_dimensions(padded).build(),
        )),
        ..Default::default()
    };
    // XLA's IndexUtil example f32[5,8,10,4]{3,2,1,0}: strides 320, 40, 4, 1.
    let s = shape(vec![5, 8, 10, 4], &[3, 2, 1, 0], vec![]);
    let view = StridedView::from_xla_shape(&s).unwrap();
    assert_eq!(view.strides(), [320, 40, 4, 1]);
    assert_eq!(view.to_xla_layout().unwrap(), *s.layout.unwrap());
    let p = shape(vec![2, 3], &[0, 1], vec![3, 5]);
    let padded = StridedView::from_xla_shape(&p).unwrap();
    assert_eq!(padded.strides(), [1, 3]);
    // Padding the most major dimension only grows the buffer: strides cannot
    // show it, so the layout read back pads dimension 0 (3) but not dimension 1.
    let back = padded.to_xla_layout().unwrap();
    assert_eq!(
        (back.minor_to_major, back.padded_dimensions),
        (vec![0, 1], vec![3, 3])
    );
    let not_layout = StridedView::new(&[2, 3], &[2, 1], 0)
        .unwrap()
        .to_xla_layout();
    assert!(
        not_layout
            .unwrap_err()
            .to_string()
            .contains("not a multiple")
    );
    assert!(
        StridedView::row_major(&[2, 3])
            .unwrap()
            .flip()
            .unwrap()
            .to_xla_layout()
            .is_err()
    );
    let mut tiled = shape(vec![8, 4], &[1, 0], vec![]);
    tiled.layout.as_mut().unwrap().tiles = vec![schema::Tile {
        dimensions: vec![2, 2],
    }];
    assert_eq!(
        StridedView::from_xla_shape(&tiled).unwrap_err().to_string(),
        "layout {1,0:T(2,2)} is tiled; tiled layouts cannot be described by strides"
    );
}

/// A view with its explicit offsets: `offsets[k]` is the buffer offset of
/// the k-th element in row-major logical order.
#[derive(Debug, Clone)]
struct Reference {
    sizes: Vec<i64>,
    offsets: Vec<i64>,
}

impl Reference {
    fn at(&self, index: &[i64]) -> i64 {
        let mut flat = 0;
        for (&i, &size) in index.iter().zip(&self.sizes) {
            flat = flat * size + i;
        }
        self.offsets[flat as usize]
    }

    /// A new reference of `sizes` whose element `index` is
    /// `self.at(source(index))`.
    fn map(&self, sizes: Vec<i64>, source: impl Fn(&[i64]) -> Vec<i64>) -> Self {
        let offsets = logical_indices(&sizes)
            .iter()
            .map(|i| self.at(&source(i)))
            .collect();
        Self { sizes, offsets }
    }
}

/// Python's `range(len)[start:stop:step]`, from its definition.
fn python_slice(len: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<i64> {
    let norm = |v: i64| if v < 0 { v + len } else { v };
    if step > 0 {
        let start = start.map_or(0, norm).clamp(0, len);
        let stop = stop.map_or(len, norm).clamp(0, len);
        (start..stop).step_by(step as usize).collect()
    } else {
        let start = start.map_or(len - 1, norm).clamp(-1, len - 1);
        let stop = stop.map_or(-1, norm).clamp(-1, len - 1);
        let mut out = vec![];
        let mut i = start;
        while i > stop {
            out.push(i);
            i += step;
        }
        out
    }
}

/// One random view operation; the numbers pick axes and sizes at the time
/// the operation is applied.
#[derive(Debug, Clone)]
enum Op {
    Transpose,
    Swap(usize, usize),
    Slice(usize, Option<i64>, Option<i64>, i64),
    Index(usize, i64),
    NewAxis(usize),
    Flip(usize),
    Squeeze,
    Broadcast(i64),
    SplitAxis(usize),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Transpose),
        (0..8usize, 0..8usize).prop_map(|(a, b)| Op::Swap(a, b)),
        (
            0..8usize,
            prop::option::of(-8_i64..8),
            prop::option::of(-8_i64..8),
            prop::sample::select(vec![1_i64, 2, 3, -1, -2])
        )
            .prop_map(|(a, s, e, st)| Op::Slice(a, s, e, st)),
        (0..8usize, -8_i64..8).prop_map(|(a, i)| Op::Index(a, i)),
        (0..8usize).prop_map(Op::NewAxis),
        (0..8usize).prop_map(Op::Flip),
        Just(Op::Squeeze),
        (1_i64..4).prop_map(Op::Broadcast),
        (0..8usize).prop_map(Op::SplitAxis),
    ]
}

/// Applies `op` to both; `None` when the op does not apply (and the view
/// must then report an error too).
fn apply(view: &StridedView, reference: &Reference, op: &Op) -> Option<(StridedView, Reference)> {
    let n = view.ndim();
    let sizes = &reference.sizes;
    match *op {
        Op::Transpose => {
            let r = reference.map(sizes.iter().rev().copied().collect(), |i| {
                i.iter().rev().copied().collect()
            });
            Some((view.transpose(), r))
        }
        Op::Swap(a, b) if n > 0 => {
            let (a, b) = (a % n, b % n);
            let mut new_sizes = sizes.clone();
            new_sizes.swap(a, b);
            let r = reference.map(new_sizes, |i| {
                let mut i = i.to_vec();
                i.swap(a, b);
                i
            });
            Some((view.swapaxes(a as i64, b as i64 - n as i64).unwrap(), r))
        }
        Op::Slice(a, start, stop, step) if n > 0 => {
            let a = a % n;
            let picked = python_slice(sizes[a], start, stop, step);
            let mut new_sizes = sizes.clone();
            new_sizes[a] = picked.len() as i64;
            let r = reference.map(new_sizes, |i| {
                let mut i = i.to_vec();
                i[a] = picked[i[a] as usize];
                i
            });
            let mut items = vec![IndexItem::full(); a];
            items.push(IndexItem::slice(start, stop, Some(step)));
            Some((view.index(&items).unwrap(), r))
        }
        Op::Index(a, i) if n > 0 => {
            let a = a % n;
            let mut items = vec![IndexItem::full(); a];
            items.push(IndexItem::Index(i));
            let result = view.index(&items);
            let position = if i < 0 { i + sizes[a] } else { i };
            if !(0..sizes[a]).contains(&position) {
                assert_eq!(
                    result,
                    Err(ViewError::IndexOutOfBounds {
                        index: i,
                        axis: a,
                        size: sizes[a]
                    })
                );
                return None;
            }
            let mut new_sizes = sizes.clone();
            new_sizes.remove(a);
            let r = reference.map(new_sizes, |idx| {
                let mut idx = idx.to_vec();
                idx.insert(a, position);
                idx
            });
            Some((result.unwrap(), r))
        }
        Op::NewAxis(a) if n < 6 => {
            let a = a % (n + 1);
            let mut items = vec![IndexItem::full(); a];
            items.push(IndexItem::NewAxis);
            let mut new_sizes = sizes.clone();
            new_sizes.insert(a, 1);
            let r = reference.map(new_sizes, |idx| {
                let mut idx = idx.to_vec();
                idx.remove(a);
                idx
            });
            Some((view.index(&items).unwrap(), r))
        }
        Op::Flip(a) if n > 0 => {
            let a = a % n;
            let r = reference.map(sizes.clone(), |idx| {
                let mut idx = idx.to_vec();
                idx[a] = sizes[a] - 1 - idx[a];
                idx
            });
            Some((view.flip_axes(&[a as i64]).unwrap(), r))
        }
        Op::Squeeze => {
            let new_sizes: Vec<i64> = sizes.iter().copied().filter(|&s| s != 1).collect();
            let r = Reference {
                sizes: new_sizes,
                offsets: reference.offsets.clone(),
            };
            Some((view.squeeze(), r))
        }
        Op::Broadcast(k) if n < 6 => {
            let mut target = vec![k];
            target.extend(sizes.iter().map(|&s| if s == 1 { k } else { s }));
            let r = reference.map(target.clone(), |idx| {
                idx[1..]
                    .iter()
                    .zip(sizes)
                    .map(|(&i, &s)| if s == 1 { 0 } else { i })
                    .collect()
            });
            Some((view.broadcast_to(&target).unwrap(), r))
        }
        Op::SplitAxis(a) if n > 0 && n < 6 => {
            // Reshape splitting axis a into (d, size/d) for its smallest divisor d > 1.
            let a = a % n;
            let size = sizes[a];
            let d = (2..=size).find(|d| size % d == 0)?;
            let mut target = sizes.clone();
            target[a] = size / d;
            target.insert(a, d);
            let r = Reference {
                sizes: target.clone(),
                offsets: reference.offsets.clone(),
            };
            // A split is always possible without a copy.
            Some((view.reshape(&target).unwrap(), r))
        }
        _ => None,
    }
}

/// Random base views: row-major, column-major, or an XLA layout with a
/// random dimension order and padding.
fn arb_base() -> impl Strategy<Value = (StridedView, Reference)> {
    prop::collection::vec((1_i64..5, 0_i64..3), 0..4)
        .prop_flat_map(|dims| {
            let rank = dims.len();
            (
                Just(dims),
                Just((0..rank as i64).collect::<Vec<i64>>()).prop_shuffle(),
            )
        })
        .prop_map(|(dims, m2m)| {
            let sizes: Vec<i64> = dims.iter().map(|d| d.0).collect();
            let padded: Vec<i64> = dims.iter().map(|d| d.0 + d.1).collect();
            let shape = Shape {
                element_type: PrimitiveType::F32 as i32,
                is_dynamic_dimension: vec![false; sizes.len()],
                dimensions: sizes.clone(),
                layout: Some(Box::new(
                    LayoutBuilder::new(&m2m)
                        .padded_dimensions(padded.clone())
                        .build(),
                )),
                ..Default::default()
            };
            let view = StridedView::from_xla_shape(&shape).unwrap();
            // Reference: Σ index[d] · Π padded extents more minor than d.
            let offsets = logical_indices(&sizes)
                .iter()
                .map(|index| {
                    let mut offset = 0;
                    let mut scale = 1;
                    for &d in &m2m {
                        offset += index[d as usize] * scale;
                        scale *= padded[d as usize];
                    }
                    offset
                })
                .collect();
            (view, Reference { sizes, offsets })
        })
}

proptest! {
    #[test]
    fn view_chains_address_the_reference_elements(
        (base, reference) in arb_base(),
        ops in prop::collection::vec(arb_op(), 0..6),
    ) {
        let (mut view, mut reference) = (base, reference);
        for op in &ops {
            if let Some((v, r)) = apply(&view, &reference, op) {
                view = v;
                reference = r;
            }
            prop_assert_eq!(view.sizes(), &reference.sizes[..]);
            prop_assert_eq!(view.offsets().collect::<Vec<_>>(), reference.offsets.clone());
            let mut fast = vec![];
            view.for_each_offset(|o| fast.push(o));
            prop_assert_eq!(&fast, &reference.offsets);
            // Classification agrees with the explicit offsets.
            let mut sorted = reference.offsets.clone();
            sorted.sort_unstable();
            sorted.dedup();
            prop_assert_eq!(view.has_overlap().unwrap(), sorted.len() != reference.offsets.len());
            let span = sorted.last().map_or(0, |last| last - sorted[0] + 1);
            prop_assert_eq!(view.span(), Some(span));
            prop_assert_eq!(view.min_buffer_len().unwrap(), sorted.last().map_or(0, |l| l + 1));
            // Any C-order reshape that succeeds keeps the element order.
            let flat = view.num_elements();
            if let Ok(r) = view.reshape(&[flat]) {
                prop_assert_eq!(r.offsets().collect::<Vec<_>>(), reference.offsets.clone());
            }
        }
    }

    #[test]
    fn strides_to_xla_layout_and_back((base, reference) in arb_base()) {
        // Every XLA layout's strides map back to an equivalent layout.
        let layout = base.to_xla_layout().unwrap();
        let shape = Shape {
            element_type: PrimitiveType::F32 as i32,
            is_dynamic_dimension: vec![false; base.ndim()],
            dimensions: base.sizes().to_vec(),
            layout: Some(Box::new(layout)),
            ..Default::default()
        };
        let again = StridedView::from_xla_shape(&shape).unwrap();
        prop_assert_eq!(again.offsets().collect::<Vec<_>>(), reference.offsets);
    }
}
