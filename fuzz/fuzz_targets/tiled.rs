//! Tiled layouts: arbitrary shapes under arbitrary tilings.
//!
//! Nested tiles with more or fewer dimensions than the shape, `*`
//! (combine) entries, `E(n)`, `L(n)`, classic padding, garbage sizes.
//! `TiledLayout::new` never panics; where it refuses a layout, so does
//! `array_size`, but where a later tile pads beyond the first tile's
//! allocation (then the size is XLA's). Where it succeeds on a small buffer,
//! `for_each_position` visits every position once in order, every logical
//! element exactly once, and agrees with `position` and `logical` both
//! ways. The buffer size agrees with XLA's `ShapeUtil::ArraySize` formula
//! written out (`array_size`, `TiledLayout::buffer_size_in_bytes`, and, untiled,
//! `byte_size_of_elements`).

#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::for_each_index;
use index_util::{IndexError, TiledLayout};
use layout_util::LayoutBuilder;
use libfuzzer_sys::fuzz_target;
use schema::{COMBINE_DIMENSION, PrimitiveType, Shape, Tile};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Size {
    Small(u8),
    Any(i64),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum TileDim {
    Small(u8),
    Combine,
    Any(i64),
}

#[derive(Arbitrary, Debug)]
struct Input {
    ty: u8,
    dims: Vec<Size>,
    /// Lehmer digits of the minor-to-major permutation.
    permutation: Vec<u8>,
    tiles: Vec<Vec<TileDim>>,
    element_bits: Option<u8>,
    tail_alignment: Option<Size>,
    /// Extra padded extent per dimension.
    padding: Option<Vec<u8>>,
    probes: Vec<(Vec<i64>, i64)>,
}

const TYPES: [PrimitiveType; 8] = [
    PrimitiveType::F32,
    PrimitiveType::Bf16,
    PrimitiveType::S8,
    PrimitiveType::S4,
    PrimitiveType::U4,
    PrimitiveType::Pred,
    PrimitiveType::C128,
    PrimitiveType::Tuple,
];

/// Buffers of at most this many positions are iterated.
const MAX_POSITIONS: i64 = 1 << 12;

fn size(s: Size) -> i64 {
    match s {
        Size::Small(v) => i64::from(v % 7),
        Size::Any(v) => v,
    }
}

fn build(input: &Input) -> Shape {
    let dims: Vec<i64> = input.dims.iter().take(5).map(|&d| size(d)).collect();
    let rank = dims.len();
    let mut left: Vec<i64> = (0..rank as i64).collect();
    let minor_to_major: Vec<i64> = (0..rank)
        .map(|i| {
            left.remove(usize::from(input.permutation.get(i).copied().unwrap_or(0)) % left.len())
        })
        .collect();
    let tiles = input
        .tiles
        .iter()
        .take(3)
        .map(|t| Tile {
            dimensions: t
                .iter()
                .take(6)
                .map(|&d| match d {
                    TileDim::Small(v) => i64::from(v % 9),
                    TileDim::Combine => COMBINE_DIMENSION,
                    TileDim::Any(v) => v,
                })
                .collect(),
        })
        .collect();
    let mut builder = LayoutBuilder::new(&minor_to_major).tiles(tiles);
    if let Some(bits) = input.element_bits {
        builder = builder.element_size_in_bits(i64::from(bits % 10));
    }
    if let Some(alignment) = input.tail_alignment {
        builder = builder.tail_padding_alignment_in_elements(size(alignment));
    }
    if let Some(extra) = &input.padding {
        let padded = dims
            .iter()
            .enumerate()
            .map(|(d, &s)| s.saturating_add(i64::from(extra.get(d).copied().unwrap_or(0) % 3)))
            .collect();
        builder = builder.padded_dimensions(padded);
    }
    Shape {
        element_type: TYPES[usize::from(input.ty) % TYPES.len()] as i32,
        is_dynamic_dimension: vec![false; rank],
        dimensions: dims,
        layout: Some(Box::new(builder.build())),
        ..Shape::default()
    }
}

/// XLA's `ShapeUtil::ArraySize`, written out in i128: the most minor
/// dimensions (the shape counted as padded with leading 1s) rounded up to
/// the first tile, the rest as they are, then `L(n)`; bytes with `E(n)`.
/// Untiled: the (classically padded) elements. `None` where XLA's formula
/// has no meaning (a `*` entry) or the size leaves i64.
fn xla_array_size(shape: &Shape, bits: i64) -> Option<i64> {
    let layout = shape.layout.as_deref()?;
    // The factors of the element count (a 0 among them makes it 0, however
    // large the others).
    let mut factors: Vec<i128> = Vec::new();
    match layout.tiles.first() {
        None => {
            let padded = layout_util::padded_dimensions(shape).ok()?;
            factors.extend(padded.iter().map(|&d| i128::from(d)));
        }
        Some(tile) => {
            if tile.dimensions.contains(&COMBINE_DIMENSION) {
                return None;
            }
            let rank = shape.dimensions.len();
            let depth = tile.dimensions.len().max(rank);
            for k in 0..depth {
                let dim = match layout.minor_to_major.get(k) {
                    Some(&d) if k < rank => shape.dimensions[usize::try_from(d).ok()?],
                    _ => 1,
                };
                let t = match tile.dimensions.len().checked_sub(k + 1) {
                    Some(j) => tile.dimensions[j],
                    None => 1,
                };
                factors.push((i128::from(dim) + i128::from(t) - 1) / i128::from(t) * i128::from(t));
            }
        }
    }
    let mut elements = if factors.contains(&0) {
        0
    } else {
        factors.iter().try_fold(1_i128, |n, &f| n.checked_mul(f))?
    };
    if !layout.tiles.is_empty() {
        let alignment = i128::from(layout.tail_padding_alignment_in_elements.max(1));
        elements = (elements + alignment - 1) / alignment * alignment;
    }
    let total_bits = elements.checked_mul(i128::from(bits))?;
    i64::try_from((total_bits + 7) / 8).ok()
}

fn check(shape: &Shape, layout: &TiledLayout, input: &Input) {
    let dims = layout.dimensions().to_vec();
    let len = layout.buffer_len();
    let bits = layout.element_size_in_bits();
    let bytes = layout.buffer_size_in_bytes();
    assert_eq!(
        i128::from(bytes),
        (i128::from(len) * i128::from(bits) + 7) / 8
    );
    // The sizes: one rule, three implementations.
    assert_eq!(shape_util::array_size(shape).ok(), Some(bytes), "{shape}");
    if let Some(expected) = xla_array_size(shape, bits) {
        assert_eq!(bytes, expected, "ArraySize of {shape}");
    }
    if !layout.is_tiled() {
        if let Ok(elements) = shape_util::byte_size_of_elements(shape) {
            assert_eq!(bytes, elements, "untiled {shape}");
        }
    }
    let elements = if dims.contains(&0) {
        0
    } else {
        dims.iter()
            .try_fold(1_i64, |n, &d| n.checked_mul(d))
            .expect("the buffer holds every element")
    };
    assert!(
        elements <= len,
        "{elements} elements in {len} positions of {shape}"
    );
    // Probes: position and logical agree or fail cleanly.
    for (index, position) in input.probes.iter().take(4) {
        if let Ok(p) = layout.position(index) {
            assert!((0..len).contains(&p));
            assert_eq!(layout.logical(p).ok().flatten().as_ref(), Some(index));
        }
        match layout.logical(*position) {
            Ok(Some(index)) => assert_eq!(layout.position(&index).ok(), Some(*position)),
            Ok(None) => assert!((0..len).contains(position)),
            Err(_) => assert!(!(0..len).contains(position)),
        }
    }
    if len > MAX_POSITIONS {
        return;
    }
    let count = usize::try_from(elements).unwrap_or(0);
    let mut seen = vec![false; count];
    let mut next = 0;
    layout.for_each_position(|position, element| {
        assert_eq!(position, next, "positions out of order in {shape}");
        next += 1;
        let logical = layout.logical(position).unwrap_or_else(|e| panic!("{e}"));
        match element {
            Some(e) => {
                let k = usize::try_from(e).expect("a row-major index");
                assert!(k < count && !seen[k], "element {e} twice in {shape}");
                seen[k] = true;
                let index = logical.unwrap_or_else(|| panic!("{position} of {shape} is padding"));
                let row_major = index.iter().zip(&dims).fold(0, |acc, (&i, &d)| acc * d + i);
                assert_eq!(row_major, e, "element at {position} of {shape}");
                assert_eq!(layout.position(&index).ok(), Some(position));
            }
            None => assert_eq!(logical, None, "{position} of {shape}"),
        }
    });
    assert_eq!(next, len, "positions visited in {shape}");
    assert!(
        seen.iter().all(|&s| s),
        "an element never visited in {shape}"
    );
    for_each_index(&dims, |index| {
        let p = layout
            .position(index)
            .unwrap_or_else(|e| panic!("{index:?}: {e}"));
        assert_eq!(layout.logical(p).ok().flatten().as_deref(), Some(index));
    });
}

/// A layout refused whose size is still XLA's: only where a later tile
/// pads beyond the first tile's allocation (its positions would pass the
/// buffer XLA allocates, so `TiledLayout::new` refuses them, while
/// `array_size` gives XLA's `ArraySize`, which counts the first tile only).
fn check_refused(shape: &Shape, error: &IndexError) {
    let Ok(bytes) = shape_util::array_size(shape) else {
        return;
    };
    assert!(
        matches!(error, IndexError::UnsupportedTiledLayout { reason, .. }
            if reason.contains("counts only the first tile")),
        "{shape} refused ({error}) but sized {bytes}"
    );
    let bits = shape_util::element_size_in_bits(shape).expect("an array");
    if let Some(expected) = xla_array_size(shape, bits) {
        assert_eq!(bytes, expected, "ArraySize of {shape}");
    }
}

fuzz_target!(|input: Input| {
    let shape = build(&input);
    match TiledLayout::new(&shape) {
        Ok(layout) => check(&shape, &layout, &input),
        Err(error) => check_refused(&shape, &error),
    }
});
