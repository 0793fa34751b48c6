//! Relayout between arbitrary layouts of small arrays.
//!
//! * `Xla`: an array type, dimensions, and for source and destination a
//!   permutation `minor_to_major`, optional padding (padded extents and a
//!   padding value) and, for 4-bit types, packed `E(4)` storage.
//!   `relayout_xla` must equal a naive element-by-element copy whose
//!   positions come from the layouts written out plainly, with the
//!   destination's padding holding the padding value (or untouched when the
//!   layout has none) and every byte past the buffer untouched.
//! * `Strided`: arbitrary (negative, zero) strides and offsets, any element
//!   size: `relayout` copies exactly as a naive loop does, or names the
//!   element outside a buffer or the overlap in the destination.
//! * `Kernels`: valid views large enough to select every strategy, flipped
//!   on both sides (see `kernels/mod.rs`), with per-strategy counts; and
//!   the parallel entries beside them.
//! * `Tiled`: `relayout_xla` between plain, padded and tiled layouts
//!   (nested tiles, the interleave kernel's packing tiles, `E(4)`) against
//!   a copy at `TiledLayout`'s positions (see `tiled_relayout/mod.rs`),
//!   with counts per kind of pair.
//! * `Blocks`: `relayout_xla` between the layouts whose relayouts go by
//!   64 × 64 byte transposes (bytes into tiles `T(4,c)` of the other
//!   order, packed 4-bit transposes), at whole blocks and just off them
//!   (see `blocks/mod.rs`).

#![no_main]

mod blocks;
mod common;
mod kernels;
mod parallel;
mod tiled_relayout;

use arbitrary::Arbitrary;
use common::for_each_index;
use layout_util::LayoutBuilder;
use libfuzzer_sys::fuzz_target;
use relayout::{RelayoutError, padding_pattern, relayout, relayout_xla};
use schema::{PaddingValue, PrimitiveType, Shape};
use stride_util::StridedView;

#[derive(Arbitrary, Debug)]
struct Side {
    /// Picks the permutation (Lehmer code digits).
    permutation: Vec<u8>,
    /// Extra padded extent per dimension (0..=3); no padding if `None`.
    padding: Option<Vec<u8>>,
    padding_value: u8,
}

#[derive(Arbitrary, Debug)]
enum Input {
    Xla {
        ty: u8,
        packed: bool,
        dims: Vec<u8>,
        src: Side,
        dst: Side,
        seed: u64,
        extra: u8,
    },
    Strided {
        element_size: u8,
        sizes: Vec<u8>,
        src_strides: Vec<i8>,
        src_offset: u8,
        dst_strides: Vec<i8>,
        dst_offset: u8,
        src_len: u8,
        dst_len: u8,
        seed: u64,
    },
    Kernels {
        element: u8,
        sizes: Vec<u8>,
        src: kernels::Side,
        dst: kernels::Side,
        seed: u64,
    },
    Tiled {
        ty: u8,
        packed: bool,
        dims: Vec<u8>,
        src: tiled_relayout::Side,
        dst: tiled_relayout::Side,
        seed: u64,
        extra: u8,
    },
    Blocks {
        pick: u8,
        a: u8,
        b: u8,
        off: u8,
        seed: u64,
    },
}

const TYPES: [PrimitiveType; 16] = [
    PrimitiveType::Pred,
    PrimitiveType::S4,
    PrimitiveType::U4,
    PrimitiveType::S8,
    PrimitiveType::U8,
    PrimitiveType::S16,
    PrimitiveType::F16,
    PrimitiveType::Bf16,
    PrimitiveType::S32,
    PrimitiveType::F32,
    PrimitiveType::U32,
    PrimitiveType::S64,
    PrimitiveType::F64,
    PrimitiveType::C64,
    PrimitiveType::C128,
    PrimitiveType::F8e4m3fn,
];

const PADDING: [PaddingValue; 6] = [
    PaddingValue::InvalidPad,
    PaddingValue::ZeroPad,
    PaddingValue::OnePad,
    PaddingValue::LowestPad,
    PaddingValue::HighestPad,
    PaddingValue::UnknownPad,
];

/// Deterministic filler bytes.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// The permutation of `0..rank` whose Lehmer digits are `digits`.
fn permutation(digits: &[u8], rank: usize) -> Vec<usize> {
    let mut left: Vec<usize> = (0..rank).collect();
    (0..rank)
        .map(|i| {
            let k = usize::from(digits.get(i).copied().unwrap_or(0)) % left.len();
            left.remove(k)
        })
        .collect()
}

struct Layout {
    minor_to_major: Vec<usize>,
    padded: Vec<usize>,
    padding_value: PaddingValue,
}

impl Layout {
    fn new(side: &Side, dims: &[usize]) -> Self {
        let padded = match &side.padding {
            Some(extra) => dims
                .iter()
                .enumerate()
                .map(|(i, &d)| d + usize::from(extra.get(i).copied().unwrap_or(0) % 4))
                .collect(),
            None => dims.to_vec(),
        };
        Self {
            minor_to_major: permutation(&side.permutation, dims.len()),
            padded,
            padding_value: PADDING[usize::from(side.padding_value) % PADDING.len()],
        }
    }

    fn shape(&self, ty: PrimitiveType, dims: &[usize], packed: bool, side: &Side) -> Shape {
        let m2m: Vec<i64> = self.minor_to_major.iter().map(|&d| d as i64).collect();
        let mut builder = LayoutBuilder::new(&m2m);
        if side.padding.is_some() {
            builder = builder
                .padded_dimensions(self.padded.iter().map(|&d| d as i64).collect())
                .padding_value(self.padding_value);
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

    /// The element number of `index` in the padded buffer.
    fn linear(&self, index: &[usize]) -> usize {
        let mut linear = 0;
        for &d in self.minor_to_major.iter().rev() {
            linear = linear * self.padded[d] + index[d];
        }
        linear
    }

    fn padded_count(&self) -> usize {
        self.padded.iter().product()
    }
}

fn get_bits(buffer: &[u8], k: usize, bits: usize) -> Vec<u8> {
    if bits >= 8 {
        let w = bits / 8;
        buffer[k * w..k * w + w].to_vec()
    } else {
        vec![(buffer[k / 2] >> (4 * (k % 2))) & 0xF]
    }
}

fn set_bits(buffer: &mut [u8], k: usize, bits: usize, value: &[u8]) {
    if bits >= 8 {
        let w = bits / 8;
        buffer[k * w..k * w + w].copy_from_slice(value);
    } else {
        let shift = 4 * (k % 2);
        buffer[k / 2] = (buffer[k / 2] & !(0xF << shift)) | ((value[0] & 0xF) << shift);
    }
}

fn xla(ty: u8, packed: bool, dims: &[u8], src: &Side, dst: &Side, seed: u64, extra: u8) {
    let ty = TYPES[usize::from(ty) % TYPES.len()];
    let packed = packed && matches!(ty, PrimitiveType::S4 | PrimitiveType::U4);
    let dims: Vec<usize> = dims.iter().take(4).map(|&d| usize::from(d % 5)).collect();
    let (src_layout, dst_layout) = (Layout::new(src, &dims), Layout::new(dst, &dims));
    let src_shape = src_layout.shape(ty, &dims, packed, src);
    let dst_shape = dst_layout.shape(ty, &dims, packed, dst);
    let bits = if packed {
        4
    } else {
        8 * ty.byte_width().unwrap_or(1) as usize
    };
    let len = |count: usize| (count * bits).div_ceil(8);
    let src_bytes = bytes(seed, len(src_layout.padded_count()));
    let dst_len = len(dst_layout.padded_count()) + usize::from(extra % 4);
    let initial = bytes(!seed, dst_len);
    let mut got = initial.clone();
    let result = relayout_xla(&src_bytes, &src_shape, &mut got, &dst_shape);
    // The naive copy, then the padding.
    let mut expected = initial.clone();
    let mut addressed = vec![false; dst_layout.padded_count()];
    for_each_index(&dims, |index| {
        let (s, d) = (src_layout.linear(index), dst_layout.linear(index));
        set_bits(&mut expected, d, bits, &get_bits(&src_bytes, s, bits));
        addressed[d] = true;
    });
    let has_padding = dst.padding.is_some() && addressed.iter().any(|a| !a);
    let pattern = if dst.padding.is_some() {
        match padding_pattern(ty, dst_layout.padding_value) {
            Ok(pattern) => pattern,
            Err(error) => {
                assert!(
                    result.is_err() || !has_padding,
                    "{dst_shape} has no pattern ({error}) but relayout succeeded"
                );
                return;
            }
        }
    } else {
        None
    };
    if let Err(error) = result {
        panic!("relayout {src_shape} -> {dst_shape}: {error}");
    }
    if let Some(pattern) = pattern {
        for (k, &a) in addressed.iter().enumerate() {
            if !a {
                set_bits(&mut expected, k, bits, &pattern);
            }
        }
    }
    assert_eq!(got, expected, "relayout {src_shape} -> {dst_shape}");
}

/// Every element offset of a view with these parts, row-major, in i128.
fn naive_offsets(sizes: &[usize], strides: &[i64], offset: i64) -> Vec<i128> {
    let mut out = Vec::new();
    for_each_index(sizes, |index| {
        let mut o = i128::from(offset);
        for (&i, &s) in index.iter().zip(strides) {
            o += i as i128 * i128::from(s);
        }
        out.push(o);
    });
    out
}

#[allow(clippy::too_many_arguments)]
fn strided(
    element_size: u8,
    sizes: &[u8],
    src_strides: &[i8],
    src_offset: u8,
    dst_strides: &[i8],
    dst_offset: u8,
    src_len: u8,
    dst_len: u8,
    seed: u64,
) {
    let element_size = usize::from(element_size % 18);
    let sizes: Vec<usize> = sizes.iter().take(4).map(|&d| usize::from(d % 5)).collect();
    let rank = sizes.len();
    let widen = |s: &[i8]| -> Vec<i64> {
        (0..rank)
            .map(|i| i64::from(s.get(i).copied().unwrap_or(1)))
            .collect()
    };
    let (src_strides, dst_strides) = (widen(src_strides), widen(dst_strides));
    let sizes64: Vec<i64> = sizes.iter().map(|&d| d as i64).collect();
    let (Ok(src_view), Ok(dst_view)) = (
        StridedView::new(&sizes64, &src_strides, i64::from(src_offset)),
        StridedView::new(&sizes64, &dst_strides, i64::from(dst_offset)),
    ) else {
        panic!("small views must build");
    };
    let (src_len, dst_len) = (usize::from(src_len), usize::from(dst_len));
    let src = bytes(seed, src_len * element_size.max(1));
    let initial = bytes(!seed, dst_len * element_size.max(1));
    let mut got = initial.clone();
    let result = relayout(&src, &src_view, &mut got, &dst_view, element_size);
    parallel::check(
        seed >> 40,
        &src,
        &src_view,
        &initial,
        &dst_view,
        element_size,
        &result,
        &got,
    );
    let s = naive_offsets(&sizes, &src_strides, i64::from(src_offset));
    let d = naive_offsets(&sizes, &dst_strides, i64::from(dst_offset));
    let inside = |o: &[i128], len: usize| o.iter().all(|&x| (0..len as i128).contains(&x));
    let mut sorted = d.clone();
    sorted.sort_unstable();
    let overlap = sorted.windows(2).any(|w| w[0] == w[1]);
    let ok = element_size > 0 && !overlap && inside(&s, src_len) && inside(&d, dst_len);
    match result {
        Ok(()) => {
            assert!(
                ok,
                "relayout accepted {src_view:?} -> {dst_view:?} (lens {src_len}, {dst_len}, size {element_size})"
            );
            let mut expected = initial;
            let w = element_size;
            for (&s, &d) in s.iter().zip(&d) {
                let (s, d) = (s as usize * w, d as usize * w);
                expected[d..d + w].copy_from_slice(&src[s..s + w]);
            }
            assert_eq!(got, expected, "{src_view:?} -> {dst_view:?}");
        }
        Err(error) => {
            assert!(
                !ok,
                "relayout rejected a valid copy {src_view:?} -> {dst_view:?}: {error}"
            );
            assert_eq!(got, initial, "a failed relayout wrote to the destination");
            // Buffer lengths are checked first (they are cheaper than the
            // overlap scan): the overlap is the error only when both views
            // fit their buffers.
            let fits = inside(&s, src_len) && inside(&d, dst_len);
            if element_size > 0 && overlap && fits && sizes.iter().all(|&s| s > 0) {
                assert!(
                    matches!(error, RelayoutError::OverlappingDestination { .. }),
                    "{error}"
                );
            }
        }
    }
}

fuzz_target!(|input: Input| match input {
    Input::Xla {
        ty,
        packed,
        dims,
        src,
        dst,
        seed,
        extra,
    } => xla(ty, packed, &dims, &src, &dst, seed, extra),
    Input::Strided {
        element_size,
        sizes,
        src_strides,
        src_offset,
        dst_strides,
        dst_offset,
        src_len,
        dst_len,
        seed,
    } => strided(
        element_size,
        &sizes,
        &src_strides,
        src_offset,
        &dst_strides,
        dst_offset,
        src_len,
        dst_len,
        seed,
    ),
    Input::Kernels {
        element,
        sizes,
        src,
        dst,
        seed,
    } => kernels::check(element, &sizes, &src, &dst, seed),
    Input::Tiled {
        ty,
        packed,
        dims,
        src,
        dst,
        seed,
        extra,
    } => tiled_relayout::check(ty, packed, &dims, &src, &dst, seed, extra),
    Input::Blocks {
        pick,
        a,
        b,
        off,
        seed,
    } => blocks::check(pick, a, b, off, seed),
});
