//! Every strategy of the relayout engine against a naive element-by-element
//! copy, at the sizes that select it: flipped (negative-stride) and
//! permuted views on both sides, padded destinations, every element size.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_possible_wrap
)]

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use relayout::{
    SimdLevel, Strategy, detected_simd_level, force_simd_level, relayout, relayout_bits,
    relayout_strategy,
};
use stride_util::StridedView;

/// Serializes the tests of this file: one of them lowers the SIMD level of
/// the kernels for every thread, which changes the strategy of some cases.
static LEVEL: Mutex<()> = Mutex::new(());

/// Holds [`LEVEL`]; restores the detected SIMD level when dropped.
struct Level(#[allow(dead_code)] MutexGuard<'static, ()>);

impl Level {
    fn lock() -> Self {
        Self(
            LEVEL
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }
}

impl Drop for Level {
    fn drop(&mut self) {
        force_simd_level(None);
    }
}

/// Distinct-ish bytes, so that a misplaced byte shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i * 7 % 251) as u8 ^ (i >> 8) as u8)
        .collect()
}

/// Calls `f(index)` for every multi-index of `sizes`, row-major.
fn for_each_index(sizes: &[i64], mut f: impl FnMut(&[i64])) {
    if sizes.contains(&0) {
        return;
    }
    let mut index = vec![0_i64; sizes.len()];
    loop {
        f(&index);
        let mut k = sizes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < sizes[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// `offset + Σ index · stride`, from scratch.
fn offset_of(view: &StridedView, index: &[i64]) -> usize {
    let offset = view.offset()
        + index
            .iter()
            .zip(view.strides())
            .map(|(i, s)| i * s)
            .sum::<i64>();
    usize::try_from(offset).unwrap()
}

/// The naive copy of `n`-byte elements.
fn naive(src: &[u8], src_view: &StridedView, dst: &mut [u8], dst_view: &StridedView, n: usize) {
    for_each_index(src_view.sizes(), |index| {
        let (s, d) = (
            offset_of(src_view, index) * n,
            offset_of(dst_view, index) * n,
        );
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    });
}

/// Relayouts `src_view` into `dst_view` with `n`-byte elements and checks
/// every byte of the destination buffer against the naive copy; returns
/// the strategy. The buffers are two `Vec`s, wherever the allocator puts
/// them.
fn check(src_view: &StridedView, dst_view: &StridedView, n: usize) -> Strategy {
    let mut src = pattern(src_view.min_buffer_len().unwrap() as usize * n + 3);
    let mut dst = vec![0; dst_view.min_buffer_len().unwrap() as usize * n + 5];
    check_buffers(&mut src, src_view, &mut dst, dst_view, n)
}

/// [`check`] with each buffer starting `offsets` (source, destination)
/// bytes past a 64-byte line, for the kernels that start their blocks on
/// lines.
fn check_on_lines(
    src_view: &StridedView,
    dst_view: &StridedView,
    n: usize,
    offsets: (usize, usize),
) -> Strategy {
    let placed = |buffer: &mut Vec<u8>, len: usize, offset: usize| {
        buffer.resize(len + 64 + offset, 0);
        let start = buffer.as_ptr().align_offset(64) + offset;
        start..start + len
    };
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let src_range = placed(
        &mut src,
        src_view.min_buffer_len().unwrap() as usize * n + 3,
        offsets.0,
    );
    let dst_range = placed(
        &mut dst,
        dst_view.min_buffer_len().unwrap() as usize * n + 5,
        offsets.1,
    );
    check_buffers(
        &mut src[src_range],
        src_view,
        &mut dst[dst_range],
        dst_view,
        n,
    )
}

/// [`check`] on the given buffers: `src` is filled with a pattern, `dst`
/// with a filler byte, before the relayout.
fn check_buffers(
    src: &mut [u8],
    src_view: &StridedView,
    dst: &mut [u8],
    dst_view: &StridedView,
    n: usize,
) -> Strategy {
    src.copy_from_slice(&pattern(src.len()));
    dst.fill(0xA5);
    let mut expected = dst.to_vec();
    naive(src, src_view, &mut expected, dst_view, n);
    relayout(src, src_view, dst, dst_view, n).unwrap();
    if dst != expected {
        let wrong = dst.iter().zip(&expected).filter(|(a, e)| a != e).count();
        panic!(
            "{src_view:?} -> {dst_view:?}, {n}-byte elements: {wrong} of {} bytes wrong",
            dst.len()
        );
    }
    relayout_strategy(src_view, dst_view, n)
}

#[test]
#[cfg_attr(miri, ignore = "too large for Miri: see `small_cases_of_every_kernel`")]
fn transpose_of_a_flipped_source_issue_12() {
    let _level = Level::lock();
    // The transpose of a vertically flipped 8×8 array, copied to row-major:
    // the tiled kernel's source rows run backwards.
    let src_view = StridedView::new(&[8, 8], &[1, -8], 56).unwrap();
    let dst_view = StridedView::row_major(&[8, 8]).unwrap();
    for n in [1, 2, 3, 4, 8, 16] {
        let expected = if n == 3 {
            Strategy::Elements
        } else {
            Strategy::Tiled
        };
        assert_eq!(check(&src_view, &dst_view, n), expected);
    }
    let big = StridedView::row_major(&[600, 300]).unwrap().transpose();
    for n in [1, 4] {
        check(
            &big.flip().unwrap(),
            &StridedView::row_major(&[300, 600]).unwrap(),
            n,
        );
    }
}

#[test]
#[cfg_attr(miri, ignore = "too large for Miri: see `small_cases_of_every_kernel`")]
fn nchw_to_nhwc_with_the_channels_flipped_issue_12() {
    let _level = Level::lock();
    // f32[8,64,64,64]: 8 MiB, its rows on lines, the tile transpose's
    // blocks; f16[16,64,64,64] the streaming kernel; both reading their
    // source rows (one per channel) backwards.
    for (batch, n, strategy) in [
        (8, 4, Strategy::TileTranspose),
        (16, 2, Strategy::Streaming),
    ] {
        let sizes = [batch, 64, 64, 64];
        let nchw = StridedView::nchw(&sizes).unwrap();
        let nhwc = StridedView::nhwc(&sizes).unwrap();
        let flipped = nchw.flip_axes(&[1]).unwrap();
        // Buffers on lines: where they are not, the streaming kernel
        // takes the 4-byte one too.
        assert_eq!(
            check_on_lines(&flipped, &nhwc, n, (0, 0)),
            strategy,
            "{n}-byte"
        );
        assert_eq!(check(&flipped, &nhwc, n), strategy, "{n}-byte");
    }
}

/// A small deterministic generator (xorshift64*), so that the test draws
/// the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `low..=high`.
    fn range(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next() % (high - low + 1) as u64) as i64
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// A random permutation of `0..rank`.
    fn permutation(&mut self, rank: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            order.swap(i, self.range(0, i as i64) as usize);
        }
        order
    }
}

/// One side of a relayout: a row-major layout in physical order `order`
/// (outermost first) with `padding` extra elements per dimension, flipped
/// along `flips`, at `offset`.
struct Layout {
    order: Vec<usize>,
    padding: Vec<i64>,
    flips: Vec<bool>,
    offset: i64,
}

impl Layout {
    /// A layout in `order` with random padding (if `padded`), offset and
    /// flips (where `flippable`).
    fn random(rng: &mut Rng, order: Vec<usize>, padded: bool, flippable: &[bool]) -> Self {
        let rank = order.len();
        Self {
            order,
            padding: (0..rank)
                .map(|_| if padded { rng.range(0, 3) } else { 0 })
                .collect(),
            flips: flippable.iter().map(|&f| f && rng.coin()).collect(),
            offset: rng.range(0, 5),
        }
    }

    fn view(&self, sizes: &[i64]) -> StridedView {
        let mut strides = vec![0; sizes.len()];
        let mut stride = 1;
        for &d in self.order.iter().rev() {
            strides[d] = stride;
            stride *= sizes[d] + self.padding[d];
        }
        let mut offset = self.offset;
        for (d, &flip) in self.flips.iter().enumerate() {
            if flip {
                offset += (sizes[d] - 1) * strides[d];
                strides[d] = -strides[d];
            }
        }
        StridedView::new(sizes, &strides, offset).unwrap()
    }
}

/// The kinds of case drawn, each at the sizes that select one strategy
/// (flips may turn a case into another strategy; every case counts under
/// the strategy it got).
#[derive(Clone, Copy, Debug)]
enum Family {
    /// The same layout on both sides.
    Same,
    /// The same innermost dimension, padding on both sides.
    Rows,
    /// Different innermost dimensions, 8 to 300 elements along both.
    Transpose,
    /// Anything, at sizes below the tiles'.
    Small,
}

/// Draws the sizes and the two views of a case of `family`.
fn draw(rng: &mut Rng, family: Family) -> (StridedView, StridedView) {
    let rank = match family {
        Family::Same => rng.range(1, 3),
        Family::Rows | Family::Transpose => rng.range(2, 3),
        Family::Small => rng.range(1, 4),
    } as usize;
    let mut sizes: Vec<i64> = (0..rank)
        .map(|_| match family {
            Family::Same | Family::Rows => rng.range(1, 24),
            Family::Transpose => rng.range(8, 300),
            Family::Small => rng.range(1, 7),
        })
        .collect();
    if let Family::Transpose = family {
        // At most about 40,000 elements, at least 8 along two dimensions.
        if rank == 3 {
            sizes[0] = rng.range(1, 3);
        }
        while sizes.iter().product::<i64>() > 40_000 {
            let largest = (0..rank).max_by_key(|&d| sizes[d]).unwrap();
            sizes[largest] = (sizes[largest] * 3 / 4).max(8);
        }
    }
    let all = vec![true; rank];
    let (src, dst) = match family {
        Family::Same => {
            let order = rng.permutation(rank);
            let src = Layout::random(rng, order.clone(), false, &all);
            let dst = Layout {
                order,
                padding: vec![0; rank],
                flips: src.flips.clone(),
                offset: rng.range(0, 5),
            };
            (src, dst)
        }
        Family::Rows => {
            let (src_order, mut dst_order) = (rng.permutation(rank), rng.permutation(rank));
            let inner = src_order[rank - 1];
            let k = dst_order.iter().position(|&d| d == inner).unwrap();
            dst_order.swap(k, rank - 1);
            // Both sides walk the shared row the same way.
            let mut flippable = all.clone();
            flippable[inner] = false;
            let mut src = Layout::random(rng, src_order, true, &flippable);
            let dst = Layout::random(rng, dst_order, true, &flippable);
            src.flips[inner] = rng.coin();
            let mut dst = dst;
            dst.flips[inner] = src.flips[inner];
            (src, dst)
        }
        Family::Transpose => {
            // The two large dimensions are innermost on one side each.
            // (The small dimension 0 of rank 3 anywhere outside them.)
            let (src_order, dst_order) = if rank == 3 {
                let src = if rng.coin() { [0, 1, 2] } else { [1, 0, 2] };
                let dst = if rng.coin() { [0, 2, 1] } else { [2, 1, 0] };
                (src.to_vec(), dst.to_vec())
            } else {
                (vec![0, 1], vec![1, 0])
            };
            let (src_padded, dst_padded) = (rng.coin(), rng.coin());
            let inner = src_order[rank - 1];
            let src = Layout::random(rng, src_order, src_padded, &all);
            let mut dst = Layout::random(rng, dst_order, dst_padded, &all);
            // Both sides walk the source rows the same way (else the
            // source is read backwards element by element: strided).
            dst.flips[inner] = src.flips[inner];
            (src, dst)
        }
        Family::Small => {
            let (src_order, dst_order) = (rng.permutation(rank), rng.permutation(rank));
            let (src_padded, dst_padded) = (rng.coin(), rng.coin());
            let src = Layout::random(rng, src_order, src_padded, &all);
            let dst = Layout::random(rng, dst_order, dst_padded, &all);
            (src, dst)
        }
    };
    (src.view(&sizes), dst.view(&sizes))
}

/// Relayouts packed `bits`-bit elements (1, 2 or 4) and checks every byte
/// of the destination buffer against the naive copy.
fn check_bits(src_view: &StridedView, dst_view: &StridedView, bits: u32) {
    let per_byte = 8 / bits as usize;
    let bytes = |view: &StridedView| (view.min_buffer_len().unwrap() as usize).div_ceil(per_byte);
    let src = pattern(bytes(src_view));
    let mut expected = pattern(bytes(dst_view) + 2);
    expected.reverse();
    let mut actual = expected.clone();
    let mask = ((1_u16 << bits) - 1) as u8;
    let locate = |k: usize| (k / per_byte, bits as usize * (k % per_byte));
    for_each_index(src_view.sizes(), |index| {
        let (byte, shift) = locate(offset_of(src_view, index));
        let value = (src[byte] >> shift) & mask;
        let (byte, shift) = locate(offset_of(dst_view, index));
        expected[byte] = (expected[byte] & !(mask << shift)) | (value << shift);
    });
    relayout_bits(&src, src_view, &mut actual, dst_view, bits).unwrap();
    assert_eq!(
        actual, expected,
        "{src_view:?} -> {dst_view:?}, {bits} bits"
    );
}

/// NCHW→NHWC of at least 8 MiB (the streaming kernel's threshold) with
/// `n`-byte elements, flipped along the batch, channel and row axes.
fn streaming_case(rng: &mut Rng, n: usize) -> (StridedView, StridedView) {
    let block = 16 / n as i64;
    let channels = block * rng.range(1, 1024 / 16);
    let height = rng.range(8, 40);
    let pixels = (8_usize << 20).div_ceil(n * channels as usize);
    let width = pixels.div_ceil(height as usize) as i64;
    let sizes = [1, channels, height, width];
    let flippable = [true, true, true, false];
    let src = Layout::random(rng, vec![0, 1, 2, 3], false, &flippable);
    let mut dst = Layout::random(rng, vec![0, 2, 3, 1], false, &flippable);
    // Destination pixels padded: rows longer than the channels.
    dst.padding[1] = rng.range(0, 2) * block;
    (src.view(&sizes), dst.view(&sizes))
}

#[test]
#[cfg_attr(miri, ignore = "too large for Miri: see `small_cases_of_every_kernel`")]
fn every_strategy_equals_the_naive_copy() {
    let _level = Level::lock();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut tiled_sizes = Vec::new();
    let families = [Family::Same, Family::Rows, Family::Transpose, Family::Small];
    for n in 1..=16 {
        // Sizes with a dedicated kernel (and register blocks) get more.
        let cases = if [1, 2, 4, 8, 16].contains(&n) { 4 } else { 1 };
        for family in families {
            for _ in 0..cases {
                let (src_view, dst_view) = draw(&mut rng, family);
                let strategy = check(&src_view, &dst_view, n);
                if strategy == Strategy::Tiled {
                    tiled_sizes.push(n);
                }
                *counts.entry(format!("{strategy:?}")).or_default() += 1;
            }
        }
    }
    for bits in [1, 2, 4] {
        for family in families {
            for _ in 0..3 {
                let (src_view, dst_view) = draw(&mut rng, family);
                check_bits(&src_view, &dst_view, bits);
                *counts.entry(format!("sub-byte {bits} bits")).or_default() += 1;
            }
        }
    }
    for n in [1, 2, 4, 8] {
        let (src_view, dst_view) = streaming_case(&mut rng, n);
        let strategy = check(&src_view, &dst_view, n);
        *counts.entry(format!("{strategy:?}")).or_default() += 1;
    }
    println!("cases per strategy: {counts:?}");
    for strategy in [
        Strategy::SingleCopy,
        Strategy::Runs,
        Strategy::Tiled,
        Strategy::Streaming,
        Strategy::Strided,
        Strategy::Elements,
    ] {
        assert!(
            counts.contains_key(&format!("{strategy:?}")),
            "no case took {strategy:?}: {counts:?}"
        );
    }
    for n in [1, 2, 4, 8, 16] {
        assert!(
            tiled_sizes.contains(&n),
            "no tiled case of {n}-byte elements"
        );
    }
}

/// Small cases of the SSE2 kernels for Miri (`cfg(miri)` lowers the
/// thresholds: tiles of 16 rows, 32 for bytes, of at most 32 elements;
/// streaming from 1 KiB): flipped transposes over several tiles with
/// register blocks of 1, 2, 4 and 8-byte elements, and NCHW→NHWC into
/// packed and padded pixels. Without Miri the same cases take the tiles.
#[test]
fn small_cases_of_every_kernel() {
    let _level = Level::lock();
    let streaming = if cfg!(miri) {
        Strategy::Streaming
    } else {
        Strategy::Tiled
    };
    let mut rng = Rng(7);
    for n in [1, 2, 4, 8] {
        // Tiled: a flipped 35×40 transpose (35 rows: never streaming);
        // a flipped destination.
        let a = StridedView::row_major(&[35, 40]).unwrap();
        let t = StridedView::row_major(&[40, 35]).unwrap();
        let flipped = a.flip_axes(&[0]).unwrap().transpose();
        assert_eq!(check(&flipped, &t, n), Strategy::Tiled);
        assert_eq!(
            check(&a.transpose(), &t.flip_axes(&[1]).unwrap(), n),
            Strategy::Tiled
        );
        // Streaming: 32 / n channels (at least 8) of 4×9 pixels, from
        // 1152 bytes.
        let block = 16 / n as i64;
        let sizes = [1, (2 * block).max(8), 4, 9];
        let flippable = [true, true, true, false];
        for padding in [0, block] {
            let src = Layout::random(&mut rng, vec![0, 1, 2, 3], false, &flippable);
            let mut dst = Layout::random(&mut rng, vec![0, 2, 3, 1], false, &flippable);
            dst.flips[1] = true;
            dst.padding[1] = padding;
            assert_eq!(check(&src.view(&sizes), &dst.view(&sizes), n), streaming);
        }
    }
}

/// Transposes of 1, 2, 4 and 8-byte elements (the sizes with register
/// blocks) at every SIMD level up to this CPU's, flipped on both sides,
/// `cases` per level and size; the cases per strategy, level and size.
fn transposes_at_every_level(rng: &mut Rng, cases: usize) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for n in [1, 2, 4, 8] {
            for _ in 0..cases {
                let (src_view, dst_view) = draw(rng, Family::Transpose);
                let strategy = check(&src_view, &dst_view, n);
                *counts
                    .entry(format!("{strategy:?} {level:?} {n}-byte"))
                    .or_default() += 1;
            }
        }
        // Large enough (8 MiB) for streaming stores, flipped both ways.
        let (src_view, dst_view) = large_transpose(rng);
        let strategy = check(&src_view, &dst_view, 8);
        *counts
            .entry(format!("{strategy:?} {level:?} 8-byte 8 MiB"))
            .or_default() += 1;
    }
    force_simd_level(None);
    println!("transposes per strategy, SIMD level and element size: {counts:?}");
    counts
}

/// A transpose of 8-byte elements of at least 8 MiB (where the tiled
/// kernel writes with streaming stores), flipped along random axes on both
/// sides.
fn large_transpose(rng: &mut Rng) -> (StridedView, StridedView) {
    let rows = rng.range(1024, 1100);
    let cols = (8 << 20) / (8 * rows) + 1 + rng.range(0, 8);
    let sizes = [rows, cols];
    let (src_padded, dst_padded) = (rng.coin(), rng.coin());
    let src = Layout::random(rng, vec![1, 0], src_padded, &[true, true]);
    let mut dst = Layout::random(rng, vec![0, 1], dst_padded, &[true, true]);
    // Both sides walk the source rows the same way (else: strided).
    dst.flips[0] = src.flips[0];
    (src.view(&sizes), dst.view(&sizes))
}

/// Transposes of 1 and 2-byte elements of at least 8 MiB (streamed in
/// bands: of 256 columns for bytes whose destination rows start on lines,
/// each band's prefetches spread over its block columns), flipped along
/// random axes on both sides: on 64-byte lines with rows of whole lines,
/// and at random offsets and row lengths (realigned through carries).
#[test]
#[cfg_attr(miri, ignore = "too large for Miri")]
fn large_narrow_transposes_flipped_equal_the_naive_copy() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut strategies = BTreeMap::<String, usize>::new();
    for n in [1_usize, 2] {
        for on_lines in [true, false] {
            // The destination's rows (its minor dimension 1): whole lines
            // or not; the source's (dimension 0) as many as make 8 MiB.
            let line = 64 / n as i64;
            let dst_row = if on_lines {
                line * rng.range(32, 40)
            } else {
                rng.range(2048, 2100)
            };
            let src_row = (8 << 20) / (n as i64 * dst_row) + 1 + rng.range(0, 70);
            let sizes = [src_row, dst_row];
            let src = Layout::random(&mut rng, vec![1, 0], false, &[true, true]);
            let mut dst = Layout::random(&mut rng, vec![0, 1], false, &[true, true]);
            // Both sides walk each axis the same way (else: strided).
            dst.flips.clone_from(&src.flips);
            if on_lines {
                dst.offset = 0;
            }
            let (src_view, dst_view) = (src.view(&sizes), dst.view(&sizes));
            let strategy = check_on_lines(&src_view, &dst_view, n, (0, 0));
            *strategies
                .entry(format!("{strategy:?} {n}-byte"))
                .or_default() += 1;
        }
    }
    println!("large narrow transposes per strategy: {strategies:?}");
}

/// Fails unless every SIMD level up to this CPU's got a tiled case of
/// every element size with register blocks (at the AVX2 level, 2 and
/// 4-byte elements take the SSE2 blocks: see `kernels::register_blocks`),
/// and a large one.
fn assert_every_level_tiled(counts: &BTreeMap<String, usize>) {
    for level in detected_simd_level().and_below() {
        for n in [1, 2, 4, 8] {
            let key = format!("Tiled {level:?} {n}-byte");
            assert!(counts.contains_key(&key), "no case of {key}: {counts:?}");
        }
        if !cfg!(miri) {
            // From the AVX-512 level on, every large transpose streams.
            let strategy = if level >= SimdLevel::Avx512 {
                "Streaming"
            } else {
                "Tiled"
            };
            let key = format!("{strategy} {level:?} 8-byte 8 MiB");
            assert!(counts.contains_key(&key), "no case of {key}: {counts:?}");
        }
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "too large for Miri: see `small_cases_of_every_simd_level`"
)]
fn every_simd_level_equals_the_naive_copy() {
    let _level = Level::lock();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let counts = transposes_at_every_level(&mut rng, 8);
    assert_every_level_tiled(&counts);
    // The detected level is the widest this CPU has.
    if cfg!(target_arch = "x86_64") {
        assert!(detected_simd_level() >= SimdLevel::Sse2);
    }
}

/// Under Miri (whose kernels take tiles of at most 32 rows of 32
/// elements): transposes of 32 to 48 elements per side, which reach the
/// register blocks of every level. Run with AVX2 enabled at compile time
/// for Miri to detect it: `RUSTFLAGS="-C target-feature=+avx2" cargo
/// +nightly miri test -p stride-util --test relayout_strategies small_`.
#[test]
#[cfg_attr(
    not(miri),
    ignore = "for Miri: see `every_simd_level_equals_the_naive_copy`"
)]
fn small_cases_of_every_simd_level() {
    let _level = Level::lock();
    let mut counts = BTreeMap::new();
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for n in [1, 2, 4, 8] {
            let src = StridedView::row_major(&[33, 40]).unwrap();
            let dst = StridedView::row_major(&[40, 33]).unwrap();
            for src_view in [src.transpose(), src.transpose().flip().unwrap()] {
                let strategy = check(&src_view, &dst.flip().unwrap(), n);
                *counts
                    .entry(format!("{strategy:?} {level:?} {n}-byte"))
                    .or_default() += 1;
            }
        }
    }
    println!("cases per strategy, SIMD level and element size: {counts:?}");
    assert_every_level_tiled(&counts);
}

/// A `rows × cols` source (row-major with `src_pad` elements after each
/// row, flipped along its rows if `flipped`) and its transpose (`pad`
/// elements after each destination row, the first element `offset`
/// elements into the buffer).
fn transpose_views(
    rows: i64,
    cols: i64,
    flipped: bool,
    pad: i64,
    offset: i64,
    src_pad: i64,
) -> (StridedView, StridedView) {
    let stride = cols + src_pad;
    let src = if flipped {
        StridedView::new(&[rows, cols], &[-stride, 1], (rows - 1) * stride).unwrap()
    } else {
        StridedView::new(&[rows, cols], &[stride, 1], 0).unwrap()
    };
    let dst = StridedView::new(&[rows, cols], &[1, rows + pad], offset).unwrap();
    (src, dst)
}

/// The AVX-512 blocks (`64 / n` source rows by `64 / n` columns), small
/// and of 8 MiB and more, with every edge around them: partial row
/// blocks before and after the ones that start destination rows on a
/// 64-byte line, columns before and after those that start source rows on
/// one, destination or source rows that do not share their place in a line
/// (ordinary stores; no column skipped), flipped sources. At the levels
/// below AVX-512 (and on CPUs without it) the same cases check the other
/// kernels.
#[test]
#[cfg_attr(miri, ignore = "too large for Miri; Miri has no AVX-512")]
fn avx512_blocks_and_their_edges() {
    let _level = Level::lock();
    println!("detected SIMD level: {:?}", detected_simd_level());
    // Small (in cache: ordinary stores, one block per band).
    for n in [1_usize, 2, 4, 8] {
        let c = 64 / n as i64;
        for (rows, cols) in [(c, c), (3 * c + 5, 2 * c + 3), (2 * c + c / 2, c + 1)] {
            for (pad, offset, src_pad) in [(0, 0, 0), (1, 3, 0), (c, c - 1, 1), (0, 1, c)] {
                for flipped in [false, true] {
                    let (src, dst) = transpose_views(rows, cols, flipped, pad, offset, src_pad);
                    check(&src, &dst, n);
                }
            }
        }
    }
    // In cache, bytes and 2-byte elements whose destination rows are
    // 2 KiB apart (their lines share two L1 sets: the next block's are not
    // prefetched) or 2 KiB and a line apart (they are).
    for n in [1_usize, 2] {
        let c = 64 / n as i64;
        for rows in [2048 / n as i64, 2048 / n as i64 + c] {
            for flipped in [false, true] {
                let (src, dst) = transpose_views(rows, 3 * c + 5, flipped, 0, 0, 0);
                check(&src, &dst, n);
            }
        }
    }
    // In cache, source rows 4 KiB apart (the L1 set period): blocks in
    // diagonals, wrapping to the first column once or many times. The
    // buffers start on a line (or 16 bytes past one), so that whole blocks
    // start there: the destination rows of the last shape are one line
    // each.
    for n in [2_usize, 4, 8] {
        let (c, stride) = (64 / n as i64, 4096 / n as i64);
        for (rows, cols) in [
            (3 * c + 5, stride - 24 / n as i64),
            (20 * c + 1, 100 / n as i64),
            (c, stride),
            (2 * c, stride),
        ] {
            for (offset, offsets) in [(0, (0, 0)), (1, (0, 0)), (0, (16, 0)), (c - 1, (0, 16))] {
                for flipped in [false, true] {
                    let (src, dst) = transpose_views(rows, cols, flipped, 0, offset, stride - cols);
                    check_on_lines(&src, &dst, n, offsets);
                }
            }
        }
    }
    // In cache, more than 512 source rows: square tiles of 128 rows and
    // columns, the last ones partial both ways, in diagonals (source rows
    // 4 KiB apart) and in bands.
    // (element bytes, source rows, columns, source row strides)
    for (n, rows, cols, strides) in [
        (2, 609, 227, [2048, 229]),
        (4, 645, 179, [1024, 180]),
        (8, 563, 299, [512, 301]),
    ] {
        for stride in strides {
            for flipped in [false, true] {
                let (src, dst) = transpose_views(rows, cols, flipped, 0, 0, stride - cols);
                check_on_lines(&src, &dst, n, (0, 0));
            }
        }
    }
    // Destination rows back to back, whole lines each, at every offset
    // from a line: the wrapped blocks of 2, 4 and 8-byte elements (the
    // rows' tail and the next rows' head in one block), small and large.
    for n in [2_usize, 4, 8] {
        let c = 64 / n as i64;
        for (rows, cols) in [(c, c + 1), (2 * c, 3 * c + 2), (4 * c, 2 * c)] {
            for offset in 0..c {
                for flipped in [false, true] {
                    let (src, dst) = transpose_views(rows, cols, flipped, 0, offset, 0);
                    check(&src, &dst, n);
                }
            }
        }
    }
    for (n, rows, cols, offset) in [(2, 128, 33_000, 5), (4, 64, 33_000, 4), (8, 32, 33_001, 3)] {
        let (src, dst) = transpose_views(rows, cols, false, 0, offset, 0);
        let strategy = check(&src, &dst, n);
        if detected_simd_level() >= SimdLevel::Avx512 {
            assert_eq!(strategy, Strategy::Streaming, "{n}-byte {rows}x{cols}");
        }
    }
    // The same over several tiles, the source 16 bytes off a line (a band
    // of columns before and after the aligned ones): the first tile's
    // first whole blocks are streamed with the wrapped blocks before them.
    // (element bytes, source rows, columns, source row padding)
    for (n, rows, cols, src_pad) in [(2, 2080, 2100, 12), (4, 1040, 2100, 12), (8, 1032, 1040, 0)] {
        for flipped in [false, true] {
            let (src, dst) = transpose_views(rows, cols, flipped, 0, 1, src_pad);
            let strategy = check_on_lines(&src, &dst, n, (16, 0));
            if detected_simd_level() >= SimdLevel::Avx512 {
                assert_eq!(strategy, Strategy::Streaming, "{n}-byte {rows}x{cols}");
            }
        }
    }
    // Large (8 MiB and more: streaming stores where the rows allow).
    // (element bytes, source rows, columns, destination row padding,
    // destination offset, source row padding)
    for (n, rows, cols, pad, offset, src_pad) in [
        (1, 2048 + 64, 4096 + 7, 0, 5, 0),
        (1, 2048 + 63, 4096 + 64, 64, 0, 3),
        (1, 2048 + 64, 4096 + 7, 1, 0, 0),
        (2, 2048 + 32, 2048 + 3, 0, 7, 0),
        (2, 2048 + 31, 2048 + 32, 32, 1, 32),
        (4, 1024 + 16, 2048 + 1, 0, 3, 0),
        (4, 1024 + 13, 2048 + 16, 16, 15, 16),
        (4, 1024 + 16, 2048 + 1, 3, 0, 1),
        (8, 1024 + 8, 1024 + 5, 8, 1, 0),
        (8, 1024 + 7, 1024 + 8, 0, 0, 8),
    ] {
        for flipped in [false, true] {
            let (src, dst) = transpose_views(rows, cols, flipped, pad, offset, src_pad);
            let strategy = check(&src, &dst, n);
            if detected_simd_level() >= SimdLevel::Avx512 {
                assert_eq!(strategy, Strategy::Streaming, "{n}-byte {rows}x{cols}");
            }
        }
    }
    // Large 4-byte transposes whose rows all start on lines, on buffers
    // that start on one: the tile transpose's blocks, with edges of rows
    // and columns past the whole blocks.
    for (rows, cols, pad, src_pad) in [(1029, 2051, 11, 13), (1040, 2048, 0, 0)] {
        for flipped in [false, true] {
            let (src, dst) = transpose_views(rows, cols, flipped, pad, 0, src_pad);
            let strategy = check_on_lines(&src, &dst, 4, (0, 0));
            assert_eq!(strategy, Strategy::TileTranspose, "{rows}x{cols}");
        }
    }
}

/// The views of a tile transpose (`Strategy::TileTranspose`): an array of
/// `tiles · rows · pack` rows and `tile_cols · cols` columns, column-major
/// with `src_pad` elements after each column, and the same array in tiles
/// of `rows · pack` rows and `cols` columns in row-major order, `pack`
/// rows interleaved as XLA's `(pack,1)` tiles do (`T(8,128)(2,1)` for
/// bf16), the first element `offset` elements into the buffer; swapped if
/// `back`. If `flipped`, the source is flipped along the axis contiguous
/// in the destination (the columns, or the rows if `back`).
#[allow(clippy::too_many_arguments)]
fn tile_views(
    (tiles, rows, pack): (i64, i64, i64),
    (tile_cols, cols): (i64, i64),
    src_pad: i64,
    offset: i64,
    flipped: bool,
    back: bool,
) -> (StridedView, StridedView) {
    let column = tiles * rows * pack + src_pad;
    // (tile row, row in the tile, tile column, column in the tile, packed row)
    let sizes = [tiles, rows, tile_cols, cols, pack];
    let src = [rows * pack, pack, cols * column, column, 1];
    let dst = [
        tile_cols * rows * cols * pack,
        cols * pack,
        rows * cols * pack,
        pack,
        1,
    ];
    let untiled = StridedView::new(&sizes, &src, 0).unwrap();
    let tiled = StridedView::new(&sizes, &dst, offset).unwrap();
    let (src, dst) = if back {
        (
            tiled
                .flip_axes(if flipped { &[0, 1] } else { &[] })
                .unwrap(),
            untiled,
        )
    } else {
        (
            untiled
                .flip_axes(if flipped { &[2, 3] } else { &[] })
                .unwrap(),
            tiled,
        )
    };
    (src, dst)
}

/// (tiles, rows in a tile), (tile columns, columns in a tile), source
/// padding, destination offset: one shape of [`tile_views`].
type TileShape = ((i64, i64), (i64, i64), i64, i64);

/// Tile transposes of 4-byte elements and of packed pairs and quads of 2
/// and 1-byte ones, into and out of tiles, with whole blocks and edges
/// along both axes, flipped sources, buffers on a line and off it, at
/// every SIMD level up to this CPU's; small (the thresholds lowered under
/// Miri: streaming stores from 1 KiB) and from 8 MiB (streaming stores).
#[test]
fn tile_transposes_at_every_level() {
    let _level = Level::lock();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for level in detected_simd_level().and_below() {
        assert_eq!(force_simd_level(Some(level)), level);
        for (n, pack) in [(4_usize, 1_i64), (2, 2), (1, 4)] {
            let shapes: &[TileShape] = if cfg!(miri) {
                &[((2, 8), (2, 16), 0, 0), ((11, 3), (2, 19), 1, 4)]
            } else {
                &[
                    ((2, 8), (2, 16), 0, 0),
                    ((11, 3), (2, 19), 1, 4),
                    ((9, 8), (3, 40), 4, 0),
                    ((33, 4), (2, 128), 0, 16),
                    ((9, 2), (5, 17), 3, 1),
                ]
            };
            for &((tiles, rows), (tile_cols, cols), src_pad, offset) in shapes {
                for (flipped, back, offsets) in [
                    (false, false, (0, 0)),
                    (true, false, (16, 48)),
                    (false, true, (48, 0)),
                    (true, true, (0, 16)),
                ] {
                    let (src, dst) = tile_views(
                        (tiles, rows, pack),
                        (tile_cols, cols),
                        // Whole packed groups: every column starts one.
                        src_pad * pack,
                        offset * pack,
                        flipped,
                        back,
                    );
                    let strategy = check_on_lines(&src, &dst, n, offsets);
                    assert_eq!(strategy, Strategy::TileTranspose, "{src:?} -> {dst:?}");
                    *counts
                        .entry(format!("{strategy:?} {level:?} {n}-byte"))
                        .or_default() += 1;
                }
            }
        }
        if !cfg!(miri) {
            // 8 MiB and more: 1040 × 2050 elements of 4 bytes, in tiles of
            // 8 × 128 (partial ones at the end of both dimensions).
            for back in [false, true] {
                let (src, dst) = tile_views((130, 8, 1), (16, 128), 2, 0, back, back);
                let strategy = check_on_lines(&src, &dst, 4, (0, 0));
                *counts
                    .entry(format!("{strategy:?} {level:?} 4-byte 8 MiB"))
                    .or_default() += 1;
            }
        }
    }
    force_simd_level(None);
    println!("tile transposes per strategy, SIMD level and element size: {counts:?}");
    for level in detected_simd_level().and_below() {
        for n in [4, 2, 1] {
            let key = format!("TileTranspose {level:?} {n}-byte");
            assert!(counts.contains_key(&key), "no case of {key}: {counts:?}");
        }
    }
}
