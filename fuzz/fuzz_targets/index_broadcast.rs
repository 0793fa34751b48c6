//! Index conversions and broadcasting on arbitrary shapes.
//!
//! Shapes get arbitrary dimensions (small, or any `i64`), an arbitrary
//! `minor_to_major` (permutation or garbage), padding and tiles. Nothing may
//! panic; where `PhysicalLayout` accepts a shape, linear -> multi -> linear
//! and multi -> linear -> multi round-trip, agree with strides computed
//! naively in `i128`, and every iterated index is in bounds. numpy
//! broadcasting must equal the rule written out plainly and not depend on
//! the argument order.

#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::for_each_index;
use index_util::{ForEachIndex, IndexError, PhysicalLayout};
use libfuzzer_sys::fuzz_target;
use schema::{Layout, PrimitiveType, Shape, Tile};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Dim {
    Small(u8),
    Any(i64),
}

impl Dim {
    fn value(self) -> i64 {
        match self {
            Dim::Small(v) => i64::from(v % 6),
            Dim::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug)]
enum MinorToMajor {
    /// A permutation from Lehmer digits.
    Permutation(Vec<u8>),
    Raw(Vec<i64>),
}

#[derive(Arbitrary, Debug)]
struct ArrayShape {
    ty: u8,
    dims: Vec<Dim>,
    dynamic: Vec<bool>,
    minor_to_major: Option<MinorToMajor>,
    padded: Option<Vec<Dim>>,
    tiles: Vec<Vec<Dim>>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    shape: ArrayShape,
    linears: Vec<i64>,
    indices: Vec<Vec<i64>>,
    region: (Vec<i64>, Vec<i64>, Vec<i64>),
    other: ArrayShape,
    broadcast_dimensions: Vec<i64>,
    numpy: Vec<Vec<Dim>>,
}

const TYPES: [PrimitiveType; 6] = [
    PrimitiveType::F32,
    PrimitiveType::S8,
    PrimitiveType::Pred,
    PrimitiveType::C128,
    PrimitiveType::S4,
    PrimitiveType::Tuple,
];

fn permutation(digits: &[u8], rank: usize) -> Vec<i64> {
    let mut left: Vec<i64> = (0..rank as i64).collect();
    (0..rank)
        .map(|i| {
            let k = usize::from(digits.get(i).copied().unwrap_or(0)) % left.len();
            left.remove(k)
        })
        .collect()
}

fn build(a: &ArrayShape) -> Shape {
    let dims: Vec<i64> = a.dims.iter().take(6).map(|d| d.value()).collect();
    let rank = dims.len();
    let layout = a.minor_to_major.as_ref().map(|m| {
        let minor_to_major = match m {
            MinorToMajor::Permutation(digits) => permutation(digits, rank),
            MinorToMajor::Raw(raw) => raw.iter().take(8).copied().collect(),
        };
        Box::new(Layout {
            minor_to_major,
            padded_dimensions: a
                .padded
                .as_ref()
                .map(|p| {
                    p.iter()
                        .take(8)
                        .zip(dims.iter().chain(std::iter::repeat(&0)))
                        .map(|(p, &d)| match p {
                            Dim::Small(extra) => d.saturating_add(i64::from(extra % 3)),
                            Dim::Any(v) => *v,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            tiles: a
                .tiles
                .iter()
                .take(3)
                .map(|t| Tile {
                    dimensions: t.iter().take(4).map(|d| d.value().max(1)).collect(),
                })
                .collect(),
            tail_padding_alignment_in_elements: 1,
            ..Layout::default()
        })
    });
    Shape {
        element_type: TYPES[usize::from(a.ty) % TYPES.len()] as i32,
        is_dynamic_dimension: a.dynamic.iter().take(rank).copied().collect(),
        dimensions: dims,
        layout,
        ..Shape::default()
    }
}

fn check_layout(shape: &Shape, layout: &PhysicalLayout, input: &Input) {
    let dims = layout.dimensions();
    let padded = layout.padded_dimensions();
    assert_eq!(dims, shape.dimensions.as_slice());
    for (&d, &p) in dims.iter().zip(padded) {
        assert!(0 <= d && d <= p, "dimension {d} padded to {p} in {shape:?}");
    }
    // Naive strides in i128, from minor_to_major and the padded extents.
    let mut strides = vec![0i128; dims.len()];
    let mut count: i128 = 1;
    for &d in layout.minor_to_major() {
        strides[d] = count;
        count *= i128::from(padded[d]);
    }
    assert_eq!(i128::from(layout.padded_element_count()), count);
    let strides64: Vec<i64> = strides.iter().map(|&s| s as i64).collect();
    assert_eq!(layout.strides(), strides64.as_slice());
    let naive = |index: &[i64]| -> i128 {
        index
            .iter()
            .zip(&strides)
            .map(|(&i, &s)| i128::from(i) * s)
            .sum()
    };
    let in_bounds = |index: &[i64]| index.iter().zip(dims).all(|(&i, &d)| (0..d).contains(&i));
    // Every index of a small array: multi -> linear -> multi.
    // (Checked: with a zero dimension the others may be huge.)
    let elements = dims
        .iter()
        .try_fold(1i128, |count, &d| count.checked_mul(i128::from(d)));
    if dims.contains(&0) || elements.is_some_and(|count| count <= 4096) {
        for_each_index(dims, |index| {
            let linear = layout
                .linear_index(index)
                .unwrap_or_else(|e| panic!("{index:?} in {shape:?}: {e}"));
            assert_eq!(i128::from(linear), naive(index));
            assert_eq!(layout.linear_index_unchecked(index), linear);
            assert_eq!(layout.multidimensional_index(linear).as_deref(), Ok(index));
        });
    }
    // Arbitrary linear indices: linear -> multi -> linear, or a precise error.
    let probes = input
        .linears
        .iter()
        .take(16)
        .copied()
        .chain((0..8).map(|k| layout.padded_element_count() - 1 - k));
    for linear in probes {
        match layout.multidimensional_index(linear) {
            Ok(index) => {
                assert!(
                    in_bounds(&index),
                    "{linear} -> {index:?} out of bounds in {shape:?}"
                );
                assert_eq!(layout.linear_index(&index), Ok(linear));
            }
            Err(IndexError::LinearIndexOutOfBounds { .. }) => {
                assert!(linear < 0 || i128::from(linear) >= count);
            }
            Err(IndexError::LinearIndexInPadding {
                dimension,
                index,
                size,
                ..
            }) => {
                assert!(linear >= 0 && i128::from(linear) < count);
                assert_eq!(size, dims[dimension]);
                assert!(index >= size && index < padded[dimension]);
            }
            Err(other) => panic!("multidimensional_index({linear}) on {shape:?}: {other}"),
        }
    }
    // Arbitrary multi-indices: in bounds -> the naive value, else an error.
    for index in input.indices.iter().take(8) {
        match layout.linear_index(index) {
            Ok(linear) => {
                assert!(index.len() == dims.len() && in_bounds(index));
                assert_eq!(i128::from(linear), naive(index));
            }
            Err(_) => assert!(index.len() != dims.len() || !in_bounds(index)),
        }
        let _ = layout.linear_index_unchecked(index);
        let _ = index_util::linear_index_for_nested_tiling(shape, index);
        let _ = index_util::index_in_bounds(shape, index);
        let mut bumped = index.clone();
        let _ = index_util::bump_indices(shape, &mut bumped);
        for other in input.indices.iter().take(4) {
            let _ = index_util::compare_indices(index, other);
        }
    }
    let (base, count_, incr) = &input.region;
    if let Ok(mut iterator) = ForEachIndex::new(shape, base, count_, incr) {
        let mut n = 0;
        while let Some(index) = iterator.next_index() {
            assert!(in_bounds(index), "iterated {index:?} outside {shape:?}");
            n += 1;
            if n == 512 {
                break;
            }
        }
    }
}

/// numpy's broadcasting rule, written out.
fn naive_numpy(shapes: &[Vec<i64>]) -> Option<Vec<i64>> {
    if shapes.iter().flatten().any(|&d| d < 0) {
        return None;
    }
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![1; rank];
    for shape in shapes {
        let lead = rank - shape.len();
        for (i, &d) in shape.iter().enumerate() {
            let o = &mut out[lead + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return None;
            }
        }
    }
    // numpy then sizes the result left to right, rejecting an overflow
    // ("broadcast dimensions too large.").
    out.iter().try_fold(1i64, |n, &d| n.checked_mul(d))?;
    Some(out)
}

fuzz_target!(|input: Input| {
    let shape = build(&input.shape);
    let other = build(&input.other);
    match PhysicalLayout::new(&shape) {
        Ok(layout) => check_layout(&shape, &layout, &input),
        Err(_) => {
            for index in input.indices.iter().take(4) {
                assert!(index_util::multidimensional_index_to_linear_index(&shape, index).is_err());
            }
        }
    }
    let _ = index_util::dimension_strides(&shape);
    for linear in input.linears.iter().take(4) {
        let _ = index_util::linear_index_to_multidimensional_index(&shape, *linear);
    }
    // Broadcasting.
    let bdims: Vec<i64> = input.broadcast_dimensions.iter().take(8).copied().collect();
    let _ = shape_util::infer_elementwise_binary_op_shape("add", &shape, &other, &bdims);
    let _ = shape_util::infer_elementwise_binary_op_shape("add", &shape, &other, &[]);
    let _ = shape_util::infer_broadcast_in_dim_shape(&shape, &other, &bdims);
    let _ = shape_util::infer_degenerate_dimension_broadcast_shape(&shape, &other);
    let _ = shape_util::validate_shape(&shape);
    let numpy: Vec<Vec<i64>> = input
        .numpy
        .iter()
        .take(4)
        .map(|s| s.iter().take(8).map(|d| d.value()).collect())
        .collect();
    let refs: Vec<&[i64]> = numpy.iter().map(Vec::as_slice).collect();
    let got = shape_util::numpy_broadcast_shapes(&refs).ok();
    assert_eq!(got, naive_numpy(&numpy), "numpy broadcast of {numpy:?}");
    let reversed: Vec<&[i64]> = refs.iter().rev().copied().collect();
    assert_eq!(shape_util::numpy_broadcast_shapes(&reversed).ok(), got);
});
