//! `relayout_xla` between random layouts of one array: plain, classically
//! padded, tiled with arbitrary nested tiles, and the packing tiles of the
//! interleave kernel (`(r,c)(m,1)`, `(8,128)(2,1)` and `(8,128)(4,1)`
//! among them), sub-byte `E(4)` included. The reference copies element by
//! element at the positions `TiledLayout` gives on both sides, then writes
//! the destination's padding: zeros in tiles, the padding value in a
//! classic padded layout. Counts the cases per kind of pair and per plan
//! strategy (`Composed` through boxes of 256 bytes under fuzzing, in
//! several boxes from 64 elements) and prints them to stderr at every
//! power of two of cases from 1024.

use std::sync::atomic::{AtomicU64, Ordering};

use arbitrary::Arbitrary;
use index_util::TiledLayout;
use layout_util::LayoutBuilder;
use relayout::{FromTo, RelayoutPlan, Strategy, StridedView, padding_pattern, relayout_xla};
use schema::{PrimitiveType, Shape, Tile};

use crate::common::for_each_index;
use crate::{PADDING, TYPES, bytes, get_bits, permutation, set_bits};

#[derive(Arbitrary, Debug)]
pub struct Side {
    /// Lehmer digits of the minor-to-major permutation.
    permutation: Vec<u8>,
    kind: Kind,
}

#[derive(Arbitrary, Debug)]
enum Kind {
    Plain,
    /// Extra padded extent per dimension (`% 3`) and the padding value.
    Padded(Vec<u8>, u8),
    /// Up to three tiles: the first of up to three sizes `1..=8`, each
    /// later one as long or shorter, its sizes divisors of the previous
    /// tile's most minor ones (so that it adds no padding: XLA allocates by
    /// the first tile).
    Tiles(Vec<Vec<u8>>),
    /// `T(r,c)(m,1)`: `m` of 2, 4, 8; `r` of `m`, `2m`, 8; `c` of 8, 16,
    /// 32, 128.
    Packing(u8, u8, u8),
    /// `T(r,c)`: `r` of 1, 2, 3, 4, 8; `c` of 16, 20, 32, 128 (rows
    /// narrower than a register block of the tile transposes, tiles at
    /// least as wide).
    Wide(u8, u8),
}

/// At most this many elements per case.
const MAX_ELEMENTS: usize = 1 << 11;

/// Cases per pair of sides, the first that applies: sub-byte tiled, a
/// packing tile, classic padding with tiles, tiles on both sides, tiles on
/// one side, no tiles.
static COUNTS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
const NAMES: [&str; 6] = [
    "sub-byte tiled",
    "packing (m,1)",
    "padded<->tiled",
    "tiled<->tiled",
    "plain<->tiled",
    "untiled",
];

/// Plans per strategy: through cache-sized boxes, one pass through the
/// tiles, tile transposes, element by element, packed 4-bit pairs
/// exchanged, any other (untiled pairs).
static STRATEGIES: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
const STRATEGY_NAMES: [&str; 6] = [
    "composed",
    "tile pieces",
    "tile transpose",
    "elements",
    "nibble pairs",
    "other",
];

fn count(slot: usize) {
    COUNTS[slot].fetch_add(1, Ordering::Relaxed);
    let total: u64 = COUNTS.iter().map(|c| c.load(Ordering::Relaxed)).sum();
    if total >= 1024 && total.is_power_of_two() {
        let counts: Vec<String> = NAMES
            .iter()
            .zip(&COUNTS)
            .chain(STRATEGY_NAMES.iter().zip(&STRATEGIES))
            .map(|(name, c)| format!("{name} {}", c.load(Ordering::Relaxed)))
            .collect();
        eprintln!(
            "relayout_xla tiled after {total} cases: {}",
            counts.join(", ")
        );
    }
}

fn count_strategy(strategy: Strategy) {
    let slot = match strategy {
        Strategy::Composed => 0,
        Strategy::TilePieces => 1,
        Strategy::TileTranspose => 2,
        Strategy::Elements => 3,
        Strategy::NibblePairs => 4,
        _ => 5,
    };
    STRATEGIES[slot].fetch_add(1, Ordering::Relaxed);
}

impl Side {
    fn shape(&self, ty: PrimitiveType, dims: &[usize], packed: bool) -> Shape {
        let m2m: Vec<i64> = permutation(&self.permutation, dims.len())
            .iter()
            .map(|&d| d as i64)
            .collect();
        let mut builder = LayoutBuilder::new(&m2m);
        let tile = |dimensions: Vec<i64>| Tile { dimensions };
        match &self.kind {
            Kind::Plain => {}
            Kind::Padded(extra, value) => {
                let padded = dims
                    .iter()
                    .enumerate()
                    .map(|(d, &s)| (s + usize::from(extra.get(d).copied().unwrap_or(0) % 3)) as i64)
                    .collect();
                builder = builder
                    .padded_dimensions(padded)
                    .padding_value(PADDING[usize::from(*value) % PADDING.len()]);
            }
            Kind::Tiles(tiles) => {
                let mut out: Vec<Tile> = Vec::new();
                for t in tiles.iter().take(3) {
                    let dimensions = match out.last() {
                        None => t.iter().take(3).map(|&v| i64::from(v % 8 + 1)).collect(),
                        Some(previous) => {
                            let p = &previous.dimensions;
                            let minor = &p[p.len() - t.len().min(p.len())..];
                            let divisors = |n: i64| (1..=n).filter(move |d| n % d == 0);
                            minor
                                .iter()
                                .zip(t)
                                .map(|(&n, &v)| {
                                    let all: Vec<i64> = divisors(n).collect();
                                    all[usize::from(v) % all.len()]
                                })
                                .collect()
                        }
                    };
                    out.push(tile(dimensions));
                }
                builder = builder.tiles(out);
            }
            Kind::Packing(m, r, c) => {
                let m = [2, 4, 8][usize::from(*m) % 3];
                let r = [m, 2 * m, 8][usize::from(*r) % 3];
                let c = [8, 16, 32, 128][usize::from(*c) % 4];
                builder = builder.tiles(vec![tile(vec![r, c]), tile(vec![m, 1])]);
            }
            Kind::Wide(r, c) => {
                let r = [1, 2, 3, 4, 8][usize::from(*r) % 5];
                let c = [16, 20, 32, 128][usize::from(*c) % 4];
                builder = builder.tiles(vec![tile(vec![r, c])]);
            }
        }
        if packed {
            builder = builder.element_size_in_bits(4);
        }
        Shape {
            element_type: ty as i32,
            dimensions: dims.iter().map(|&d| d as i64).collect(),
            is_dynamic_dimension: vec![false; dims.len()],
            layout: Some(Box::new(builder.build())),
            ..Shape::default()
        }
    }

    fn tiled(&self) -> bool {
        matches!(&self.kind, Kind::Tiles(t) if !t.is_empty())
            || matches!(self.kind, Kind::Packing(..) | Kind::Wide(..))
    }
}

fn slot(src: &Side, dst: &Side, packed: bool) -> usize {
    let tiled = src.tiled() || dst.tiled();
    let either = |f: fn(&Kind) -> bool| f(&src.kind) || f(&dst.kind);
    if !tiled {
        5
    } else if packed {
        0
    } else if either(|k| matches!(k, Kind::Packing(..))) {
        1
    } else if either(|k| matches!(k, Kind::Padded(..))) {
        2
    } else if src.tiled() && dst.tiled() {
        3
    } else {
        4
    }
}

pub fn check(ty: u8, packed: bool, dims: &[u8], src: &Side, dst: &Side, seed: u64, extra: u8) {
    let ty = TYPES[usize::from(ty) % TYPES.len()];
    let packed = packed && matches!(ty, PrimitiveType::S4 | PrimitiveType::U4);
    let mut dims: Vec<usize> = dims.iter().take(3).map(|&d| usize::from(d % 40)).collect();
    while dims.iter().product::<usize>() > MAX_ELEMENTS {
        if let Some(largest) = dims.iter_mut().max() {
            *largest /= 2;
        }
    }
    let (src_shape, dst_shape) = (src.shape(ty, &dims, packed), dst.shape(ty, &dims, packed));
    let (src_layout, dst_layout) = match (
        TiledLayout::new(&src_shape),
        TiledLayout::new(&dst_shape),
    ) {
        (Ok(s), Ok(d)) => (s, d),
        (s, d) => {
            // A layout TiledLayout refuses: relayout_xla refuses it too.
            let mut out = vec![0_u8; 64];
            let result = relayout_xla(&[0_u8; 64], &src_shape, &mut out, &dst_shape);
            assert!(
                result.is_err(),
                "relayout_xla {src_shape} -> {dst_shape} accepted what TiledLayout refuses: {:?}",
                s.err().or(d.err())
            );
            return;
        }
    };
    count(slot(src, dst, packed));
    let bits = usize::try_from(src_layout.element_size_in_bits()).unwrap_or(0);
    let size = |l: &TiledLayout| usize::try_from(l.buffer_size_in_bytes()).unwrap_or(0);
    let src_bytes = bytes(seed, size(&src_layout));
    let initial = bytes(!seed, size(&dst_layout) + usize::from(extra % 4));
    let mut got = initial.clone();
    let result = relayout_xla(&src_bytes, &src_shape, &mut got, &dst_shape);
    // The plan on a pool of 3 threads (chunks from 64 bytes under fuzzing)
    // writes the same bytes.
    let sides = FromTo {
        from: &src_shape,
        to: &dst_shape,
    };
    let pooled = RelayoutPlan::xla(sides).and_then(|plan| {
        count_strategy(plan.strategy());
        let mut out = initial.clone();
        plan.run_in(crate::parallel::pool(), &src_bytes, &mut out)
            .map(|()| out)
    });
    match (&result, &pooled) {
        (Ok(()), Ok(out)) => assert!(
            *out == got,
            "relayout plan {src_shape} -> {dst_shape} on a pool wrote other bytes"
        ),
        (Err(a), Err(b)) => assert_eq!(a, b, "{src_shape} -> {dst_shape}"),
        (a, b) => panic!("{src_shape} -> {dst_shape}: one thread {a:?}, pool {b:?}"),
    }
    let mut expected = initial.clone();
    let at = |l: &TiledLayout, index: &[usize]| {
        let index: Vec<i64> = index.iter().map(|&i| i as i64).collect();
        let p = l.position(&index).unwrap_or_else(|e| panic!("{e}"));
        usize::try_from(p).unwrap_or_else(|e| panic!("{e}"))
    };
    for_each_index(&dims, |index| {
        let value = get_bits(&src_bytes, at(&src_layout, index), bits);
        set_bits(&mut expected, at(&dst_layout, index), bits, &value);
    });
    // The destination's padding positions.
    let mut padding = Vec::new();
    dst_layout.for_each_position(|p, element| {
        if element.is_none() {
            padding.push(usize::try_from(p).unwrap_or(0));
        }
    });
    let pattern = match &dst.kind {
        _ if dst_layout.is_tiled() => Some(vec![0; bits.div_ceil(8)]),
        Kind::Padded(_, value) => {
            match padding_pattern(ty, PADDING[usize::from(*value) % PADDING.len()]) {
                Ok(pattern) => pattern,
                Err(error) => {
                    assert!(
                        result.is_err() || padding.is_empty(),
                        "{dst_shape} has no pattern ({error}) but relayout succeeded"
                    );
                    return;
                }
            }
        }
        _ => None,
    };
    if let Err(error) = result {
        panic!("relayout_xla {src_shape} -> {dst_shape}: {error}");
    }
    if let Some(pattern) = pattern {
        for &p in &padding {
            set_bits(&mut expected, p, bits, &pattern);
        }
    }
    // A tiled buffer is written whole: the bits of its last byte past its
    // last position are padding too (zero).
    let len = usize::try_from(dst_layout.buffer_len()).unwrap_or(0);
    if dst_layout.is_tiled() && bits == 4 && len % 2 == 1 {
        set_bits(&mut expected, len, bits, &[0]);
    }
    assert_eq!(got, expected, "relayout_xla {src_shape} -> {dst_shape}");
    view_into(
        &src_layout,
        &src_bytes,
        &dims,
        (&dst_shape, &initial, &got),
        seed,
    );
}

/// The same relayout from a row-major view with one dimension reversed (a
/// negative stride) straight into `dst_shape` (`RelayoutPlan::view_to_xla`)
/// writes the same bytes as `relayout_xla` wrote (`want`), where the plan
/// takes the pair (whole-byte elements, no combined tiles).
fn view_into(
    src: &TiledLayout,
    src_bytes: &[u8],
    dims: &[usize],
    (dst_shape, initial, want): (&Shape, &[u8], &[u8]),
    seed: u64,
) {
    let bits = usize::try_from(src.element_size_in_bits()).unwrap_or(0);
    let count: usize = dims.iter().product();
    if bits == 0 || bits % 8 != 0 || dims.is_empty() || count == 0 {
        return;
    }
    let size = bits / 8;
    let flip = usize::try_from(seed % dims.len() as u64).unwrap_or(0);
    let sizes: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let mut strides = vec![1_i64; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * sizes[k + 1];
    }
    let offset = (sizes[flip] - 1) * strides[flip];
    strides[flip] = -strides[flip];
    let view = StridedView::new(&sizes, &strides, offset).unwrap_or_else(|e| panic!("{e}"));
    let mut elements = vec![0_u8; count * size];
    for_each_index(dims, |index| {
        let logical: Vec<i64> = index.iter().map(|&i| i as i64).collect();
        let from = usize::try_from(src.position(&logical).unwrap_or(0)).unwrap_or(0) * size;
        let at = offset
            + logical
                .iter()
                .zip(&strides)
                .map(|(i, s)| i * s)
                .sum::<i64>();
        let to = usize::try_from(at).unwrap_or(0) * size;
        elements[to..to + size].copy_from_slice(&src_bytes[from..from + size]);
    });
    let sides = FromTo {
        from: &view,
        to: dst_shape,
    };
    let Ok(plan) = RelayoutPlan::view_to_xla(sides, size) else {
        return;
    };
    count_strategy(plan.strategy());
    let mut out = initial.to_vec();
    plan.run_in(crate::parallel::pool(), &elements, &mut out)
        .unwrap_or_else(|e| panic!("view {sizes:?} {strides:?} -> {dst_shape}: {e}"));
    assert!(
        out == want,
        "view {sizes:?} strides {strides:?} -> {dst_shape} wrote other bytes than relayout_xla"
    );
}
